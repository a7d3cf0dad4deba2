//! The command line: one file per verb. Each parses its arguments, calls the library and
//! prints; `anyhow` lives only here and in `main.rs`.

mod calendar;
mod case;
mod deadlines;
mod demo;
mod determine;
mod esri;
mod export;
mod illicit;
mod import;
mod init;
mod list;
mod mapping;
mod mapping_package;
mod national;
mod nearby;
mod network_output;
pub mod output;
mod photo;
pub mod profile;
mod profile_rules;
mod report;
mod schedule;
mod site;
mod smps;
mod synth;
mod token;
mod trace;
mod watershed_facilities;

use clap::{Parser, Subcommand, ValueEnum};

use crate::store::DEFAULT_STORE_URL;

/// `ms4`: the registry of a town's municipal separate storm sewer system.
#[derive(Debug, Parser)]
#[command(name = "ms4", version, about)]
pub struct Cli {
    /// The registry: sqlite://FILE.gpkg (embedded, the default) or postgres://USER@HOST/DB.
    #[arg(long, global = true, env = "MS4_STORE", default_value = DEFAULT_STORE_URL)]
    pub store: String,
    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// How a command prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum Format {
    /// A table for people.
    #[default]
    Table,
    /// JSON for programs.
    Json,
}

/// The verbs.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a registry for a jurisdiction in a projected CRS.
    Init(init::InitArgs),
    /// Import a file into a layer (any format GDAL reads), with a quality report.
    Import(import::ImportArgs),
    /// Load EPA ATTAINS records (saved JSON) onto receiving waters, impairments and TMDL areas.
    #[command(name = "import-attains")]
    ImportAttains(national::ImportAttainsArgs),
    /// Load a USGS WBD HUC-12 layer as the watersheds (drains_to from TOHUC).
    #[command(name = "import-wbd")]
    ImportWbd(national::ImportWbdArgs),
    /// Import a File Geodatabase in the LGIM or Utility Network stormwater schema into every layer it fills.
    #[command(name = "import-esri")]
    ImportEsri(esri::ImportEsriArgs),
    /// Export a layer to GeoPackage, Shapefile, GeoJSON or CSV.
    Export(export::ExportArgs),
    /// Serve the registry over HTTP.
    Serve(crate::serve::ServeArgs),
    /// Build the demo town into a fresh embedded registry and serve it.
    Demo(demo::DemoArgs),
    /// Write a deterministic synthetic MS4 (town, county or N parcels).
    Synth(synth::SynthArgs),
    /// Facilities near a point, nearest first, with bearing, status, last inspection and access.
    Nearby(nearby::NearbyArgs),
    /// Land development activity, exemptions, Conditions One/Two/Three and what follows, for a parcel or footprint.
    Determine(determine::DetermineArgs),
    /// The facilities inside a watershed, ranked for an inspection program.
    #[command(name = "watershed-facilities")]
    WatershedFacilities(watershed_facilities::WatershedFacilitiesArgs),
    /// Trace the drainage network up or down stream from a structure or pipe.
    Trace(trace::TraceArgs),
    /// Report dangling ends, disconnected parts, cycles, reversed pipes and orphan structures.
    #[command(name = "network-check")]
    NetworkCheck(trace::NetworkCheckArgs),
    /// Condition One for a project on every parcel (Carmel).
    Screen(determine::ScreenArgs),
    /// The receiving waters of a parcel or footprint, by watershed and by the network.
    #[command(name = "receiving-waters")]
    ReceivingWaters(determine::ReceivingArgs),
    /// Every connection judged as illicit, needing review, ok or not covered, with citations.
    Illicit(illicit::IllicitArgs),
    /// Monitoring locations (outfalls and interconnections) with their priority and reasons.
    #[command(name = "monitoring-locations")]
    MonitoringLocations(mapping::MonitoringLocationsArgs),
    /// A preliminary storm sewershed for each monitoring location, with its quality.
    Sewersheds(mapping::SewershedsArgs),
    /// How much is mapped, by watershed and for the town, with the features behind each figure.
    #[command(name = "mapping-status")]
    MappingStatus(mapping::MappingStatusArgs),
    /// Write the Mapping Phase I package: a GeoPackage of monitoring locations, sewersheds, outfalls, pipes, waters and focus areas, and a CSV.
    #[command(name = "mapping-package")]
    MappingPackage(mapping_package::MappingPackageArgs),
    /// Structural SMPs that no recorded maintenance easement covers.
    #[command(name = "smps-without-easement")]
    SmpsWithoutEasement(smps::SmpsArgs),
    /// Show or update the registry's jurisdiction profile, or list its rules.
    Profile(profile::ProfileArgs),
    /// Create, list and revoke API tokens (roles: analyst, inspector, planner, admin).
    Token(token::TokenArgs),
    /// A layer's ids (with name and status where it has them): ms4 list watersheds.
    List(list::ListArgs),
    /// Record an inspection (the body of POST /api/inspections); a suspect screening opens a case.
    Inspect(case::InspectArgs),
    /// Open, log, close and list illicit discharge cases; print a case's notice.
    Case(case::CaseArgs),
    /// What is due and overdue, by case, and the fines accrued (computed from the law).
    Deadlines(deadlines::DeadlinesArgs),
    /// The illicit discharge programme's annual report, with the records behind each count.
    Report(report::ReportArgs),
    /// Open, log and show construction sites (the construction programme).
    Site(site::SiteArgs),
    /// What is due and overdue at the construction sites, by site (computed from the law).
    Sites(site::SitesArgs),
    /// Import daily rainfall (gauge_id,day,inches) for storm-triggered inspections.
    Rainfall(site::RainfallArgs),
    /// Inspections due and overdue by the profile's schedule: ms4 inspections due.
    Inspections(schedule::InspectionsArgs),
    /// The permit calendar: programme items due, done (with the record) and overdue;
    /// `ms4 calendar record` records a deliverable submitted, `ms4 calendar records` lists them.
    Calendar(calendar::CalendarArgs),
}

impl Cli {
    /// Whether the command runs the HTTP service (and so logs as a server does).
    pub fn serves(&self) -> bool {
        matches!(self.command, Command::Serve(_) | Command::Demo(_))
    }
}

/// Runs a parsed command line.
pub async fn run(cli: Cli) -> anyhow::Result<()> {
    let store = normalise_store_url(&cli.store);
    match cli.command {
        Command::Init(a) => init::run(&store, a).await,
        Command::Import(a) => import::run(&store, a).await,
        Command::ImportAttains(a) => national::run_attains(&store, a).await,
        Command::ImportWbd(a) => national::run_wbd(&store, a).await,
        Command::ImportEsri(a) => esri::run(&store, a).await,
        Command::Export(a) => export::run(&store, a).await,
        Command::Serve(a) => crate::serve::run(&store, a).await,
        Command::Demo(a) => demo::run(a).await,
        Command::Synth(a) => synth::run(a).await,
        Command::Nearby(a) => nearby::run(&store, a).await,
        Command::Illicit(a) => illicit::run(&store, a).await,
        Command::Trace(a) => trace::run_trace(&store, a).await,
        Command::WatershedFacilities(a) => watershed_facilities::run(&store, a).await,
        Command::NetworkCheck(a) => trace::run_check(&store, a).await,
        Command::Determine(a) => determine::run(&store, a).await,
        Command::ReceivingWaters(a) => determine::run_receiving(&store, a).await,
        Command::Screen(a) => determine::run_screen(&store, a).await,
        Command::SmpsWithoutEasement(a) => smps::run(&store, a).await,
        Command::MonitoringLocations(a) => mapping::run_locations(&store, a).await,
        Command::Sewersheds(a) => mapping::run_sewersheds(&store, a).await,
        Command::MappingStatus(a) => mapping::run_status(&store, a).await,
        Command::MappingPackage(a) => mapping_package::run(&store, a).await,
        Command::Token(a) => token::run(&store, a).await,
        Command::Profile(a) => profile::run(&store, a).await,
        Command::List(a) => list::run(&store, a).await,
        Command::Inspect(a) => case::run_inspect(&store, a).await,
        Command::Case(a) => case::run(&store, a).await,
        Command::Deadlines(a) => deadlines::run(&store, a).await,
        Command::Report(a) => report::run(&store, a).await,
        Command::Site(a) => site::run(&store, a).await,
        Command::Sites(a) => site::run_sites(&store, a).await,
        Command::Rainfall(a) => site::run_rainfall(&store, a).await,
        Command::Inspections(a) => schedule::run(&store, a).await,
        Command::Calendar(a) => calendar::run(&store, a).await,
    }
}

/// Accepts a bare `.gpkg` path as the embedded store.
pub fn normalise_store_url(s: &str) -> String {
    if s.contains("://") || s.starts_with("sqlite:") {
        s.to_string()
    } else {
        format!("sqlite://{s}")
    }
}
