//! `ms4 site`, `ms4 sites due` and `ms4 rainfall import`: the construction programme
//! from the command line, with the same commands (and JSON bodies) as `/api/sites`.

use anyhow::{anyhow, Context};
use chrono::{NaiveDate, NaiveDateTime, Utc};
use clap::{Args, Subcommand};

use super::Format;
use crate::answer::to_pretty_json;
use crate::domain::{InspectorRole, Milestone, SiteActionKind, SiteStatus};
use crate::idde::deadlines::parse_as_of;
use crate::import::default_actor;
use crate::sites::commands::Registry;
use crate::sites::open::OpenSite;
use crate::sites::site::PlannedMilestone;
use crate::sites::{run as run_command, SiteAction, SiteAnswer, SiteCommand, SiteRecorder};
use crate::spatial::Snapshot;

/// Arguments of `ms4 site`.
#[derive(Debug, Args)]
pub struct SiteArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: SiteVerb,
    /// How to print: table or json (the API's JSON).
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Site commands.
#[derive(Debug, Subcommand)]
pub enum SiteVerb {
    /// Open a site from a determination (the JSON `ms4 determine --format json` writes,
    /// stored as answered) or a footprint; the body of `POST /api/sites` (JSON or @FILE)
    /// may give the rest, the options win over it.
    Open(OpenArgs),
    /// One site with its schedule as of a time.
    Show {
        /// The site.
        id: String,
        /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now).
        #[arg(long)]
        as_of: Option<String>,
    },
    /// The sites.
    List {
        /// proposed, approved, active, stabilized or closed.
        #[arg(long)]
        status: Option<SiteStatus>,
    },
    /// Log an action: inspection, notice, stop_work, stop_work_lifted, milestone_notice,
    /// guarantee, guarantee_released, approved, started, stabilized, as_built,
    /// agreement_recorded, easement_recorded, close. The body of `POST
    /// /api/sites/{id}/actions` (JSON or @FILE) may give the rest; the options win.
    Log(LogArgs),
}

/// Arguments of `ms4 site open`.
#[derive(Debug, Args)]
pub struct OpenArgs {
    /// The rest of the request as JSON or @FILE.
    pub body: Option<String>,
    /// The determination: a JSON file as `ms4 determine --format json` writes it.
    #[arg(long)]
    pub from_determination: Option<std::path::PathBuf>,
    /// The footprint: a GeoJSON file with one (Multi)Polygon in WGS 84.
    #[arg(long)]
    pub footprint: Option<std::path::PathBuf>,
    /// Its name or address.
    #[arg(long)]
    pub name: Option<String>,
    /// A parcel it covers; repeat.
    #[arg(long = "parcel")]
    pub parcels: Vec<String>,
    /// The landowner.
    #[arg(long)]
    pub owner: Option<String>,
    /// The applicant or developer.
    #[arg(long)]
    pub developer: Option<String>,
    /// The operator.
    #[arg(long)]
    pub operator: Option<String>,
    /// The area disturbed over all phases, square feet (else the determination's).
    #[arg(long)]
    pub disturbed_sqft: Option<f64>,
    /// The day construction is to start.
    #[arg(long)]
    pub start_on: Option<NaiveDate>,
    /// The qualified inspector.
    #[arg(long)]
    pub qualified_inspector: Option<String>,
    /// The trained contractor.
    #[arg(long)]
    pub trained_contractor: Option<String>,
    /// The rain gauge whose daily totals decide storm inspections.
    #[arg(long)]
    pub rain_gauge: Option<String>,
    /// A planned milestone, MILESTONE@YYYY-MM-DDTHH:MM; repeat.
    #[arg(long = "milestone")]
    pub milestones: Vec<String>,
    /// The day it is entered (default today).
    #[arg(long)]
    pub opened_on: Option<NaiveDate>,
}

/// Arguments of `ms4 site log`.
#[derive(Debug, Args)]
pub struct LogArgs {
    /// The site.
    pub id: String,
    /// What was done.
    pub kind: SiteActionKind,
    /// The rest of the action as JSON or @FILE.
    pub body: Option<String>,
    /// The day (default today).
    #[arg(long)]
    pub on: Option<NaiveDate>,
    /// The time, HH:MM.
    #[arg(long)]
    pub at: Option<String>,
    /// Who acted.
    #[arg(long)]
    pub by: Option<String>,
    /// For an inspection: trained_contractor, qualified_inspector or town.
    #[arg(long)]
    pub role: Option<InspectorRole>,
    /// For a milestone notice: the milestone.
    #[arg(long)]
    pub milestone: Option<Milestone>,
    /// For a milestone notice: when it is to happen, YYYY-MM-DDTHH:MM.
    #[arg(long)]
    pub milestone_at: Option<NaiveDateTime>,
    /// For a notice: the case whose land development notice it is.
    #[arg(long = "case")]
    pub case_id: Option<String>,
    /// For a release: the guarantee's reference.
    #[arg(long)]
    pub reference: Option<String>,
    /// For final stabilization: the perennial vegetative cover over the pervious
    /// surface, percent (at least 80).
    #[arg(long)]
    pub cover_percent: Option<f64>,
    /// For final stabilization: an equivalent measure applied instead (rock riprap);
    /// repeat.
    #[arg(long = "equivalent-measure")]
    pub equivalent_measures: Vec<String>,
    /// For as-built plans: the professional engineer who certified them.
    #[arg(long)]
    pub certified_by: Option<String>,
    /// For the maintenance agreement: recorded as a deed restriction on the property.
    #[arg(long)]
    pub deed_restriction: bool,
    /// For an agreement or easement: where and under what number it was recorded.
    #[arg(long)]
    pub recording: Option<String>,
    /// Free text.
    #[arg(long)]
    pub notes: Option<String>,
}

/// Arguments of `ms4 sites`.
#[derive(Debug, Args)]
pub struct SitesArgs {
    /// What to list.
    #[command(subcommand)]
    pub action: SitesVerb,
    /// How to print: table or json.
    #[arg(long, global = true, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// `ms4 sites` commands.
#[derive(Debug, Subcommand)]
pub enum SitesVerb {
    /// What is due and overdue, by site (computed from the law).
    Due {
        /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now).
        #[arg(long)]
        as_of: Option<String>,
    },
}

/// Arguments of `ms4 rainfall`.
#[derive(Debug, Args)]
pub struct RainfallArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: RainfallVerb,
}

/// `ms4 rainfall` commands.
#[derive(Debug, Subcommand)]
pub enum RainfallVerb {
    /// Import daily rainfall from a CSV: gauge_id,day,inches.
    Import {
        /// The CSV file.
        file: std::path::PathBuf,
    },
}

fn body(s: &str) -> anyhow::Result<String> {
    match s.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).with_context(|| format!("reading {path}")),
        None => Ok(s.to_string()),
    }
}

fn json_file(path: &std::path::Path) -> anyhow::Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))
}

/// Reads a body as the API does, naming the field at fault by its path.
fn parse<T: serde::de::DeserializeOwned + Default>(s: Option<&str>) -> anyhow::Result<T> {
    let Some(s) = s else {
        return Ok(T::default());
    };
    let text = body(s)?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de).map_err(|e| anyhow!("body: {}: {}", e.path(), e.inner()))
}

fn open_request(a: OpenArgs) -> anyhow::Result<OpenSite> {
    let mut r: OpenSite = parse(a.body.as_deref())?;
    if let Some(p) = &a.from_determination {
        r.determination = Some(json_file(p)?);
    }
    if let Some(p) = &a.footprint {
        r.footprint = Some(json_file(p)?);
    }
    let set = |slot: &mut Option<String>, v: Option<String>| {
        if v.is_some() {
            *slot = v;
        }
    };
    set(&mut r.name, a.name);
    set(&mut r.owner, a.owner);
    set(&mut r.developer, a.developer);
    set(&mut r.operator, a.operator);
    set(&mut r.qualified_inspector, a.qualified_inspector);
    set(&mut r.trained_contractor, a.trained_contractor);
    set(&mut r.rain_gauge, a.rain_gauge);
    r.parcels.extend(a.parcels);
    r.disturbed_sqft = a.disturbed_sqft.or(r.disturbed_sqft);
    r.start_on = a.start_on.or(r.start_on);
    r.opened_on = a.opened_on.or(r.opened_on);
    for m in a.milestones {
        let (name, at) = m
            .split_once('@')
            .ok_or_else(|| anyhow!("--milestone {m:?}: MILESTONE@YYYY-MM-DDTHH:MM"))?;
        r.milestones.push(PlannedMilestone {
            milestone: name
                .parse()
                .map_err(|e: String| anyhow!("--milestone: {e}"))?,
            at: NaiveDateTime::parse_from_str(at, "%Y-%m-%dT%H:%M")
                .map_err(|_| anyhow!("--milestone {m:?}: {at:?} is not YYYY-MM-DDTHH:MM"))?,
        });
    }
    Ok(r)
}

fn log_action(a: LogArgs, today: NaiveDate) -> anyhow::Result<SiteAction> {
    let mut x = match &a.body {
        Some(b) => {
            let mut v: serde_json::Value =
                serde_json::from_str(&body(b)?).context("body: not JSON")?;
            v["kind"] = a.kind.as_str().into();
            if v.get("on").is_none() {
                v["on"] = today.to_string().into();
            }
            serde_path_to_error::deserialize(v)
                .map_err(|e| anyhow!("body: {}: {}", e.path(), e.inner()))?
        }
        None => SiteAction::new(a.kind, today),
    };
    x.on = a.on.unwrap_or(x.on);
    x.at = a.at.or(x.at);
    if let Some(by) = a.by {
        x.by = by;
    }
    x.role = a.role.or(x.role);
    x.milestone = a.milestone.or(x.milestone);
    x.milestone_at = a.milestone_at.or(x.milestone_at);
    x.case_id = a.case_id.or(x.case_id);
    x.reference = a.reference.or(x.reference);
    x.notes = a.notes.or(x.notes);
    x.cover_percent = a.cover_percent.or(x.cover_percent);
    x.equivalent_measures.extend(a.equivalent_measures);
    x.certified_by = a.certified_by.or(x.certified_by);
    if a.deed_restriction {
        x.deed_restriction = Some(true);
    }
    x.recording = a.recording.or(x.recording);
    Ok(x)
}

fn recorder(what: &str) -> SiteRecorder {
    SiteRecorder {
        name: default_actor(),
        source: "cli".into(),
        what: what.into(),
        today: Utc::now().date_naive(),
    }
}

async fn execute(store_url: &str, what: &str, cmd: SiteCommand) -> anyhow::Result<SiteAnswer> {
    let store = crate::store::open(store_url).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let reg = Registry {
        store: store.as_ref(),
        profile: &profile,
        snap: &snap,
    };
    Ok(run_command(reg, &recorder(what), Utc::now().naive_utc(), cmd).await?)
}

/// `ms4 site`.
pub(super) async fn run(store_url: &str, a: SiteArgs) -> anyhow::Result<()> {
    let today = Utc::now().date_naive();
    let (what, cmd) = match a.action {
        SiteVerb::Open(o) => (
            "ms4 site open",
            SiteCommand::Open(Box::new(open_request(o)?)),
        ),
        SiteVerb::Show { id, as_of } => (
            "ms4 site show",
            SiteCommand::Show {
                id,
                as_of: parse_as_of(as_of.as_deref()).map_err(|e| anyhow!(e))?,
            },
        ),
        SiteVerb::List { status } => ("ms4 site list", SiteCommand::List { status }),
        SiteVerb::Log(l) => (
            "ms4 site log",
            SiteCommand::Log {
                id: l.id.clone(),
                action: Box::new(log_action(l, today)?),
                if_version: None,
            },
        ),
    };
    print(a.format, execute(store_url, what, cmd).await?)
}

/// `ms4 sites`.
pub(super) async fn run_sites(store_url: &str, a: SitesArgs) -> anyhow::Result<()> {
    let SitesVerb::Due { as_of } = a.action;
    let as_of = parse_as_of(as_of.as_deref()).map_err(|e| anyhow!(e))?;
    print(
        a.format,
        execute(store_url, "ms4 sites due", SiteCommand::Due { as_of }).await?,
    )
}

/// `ms4 rainfall`.
pub(super) async fn run_rainfall(store_url: &str, a: RainfallArgs) -> anyhow::Result<()> {
    let RainfallVerb::Import { file } = a.action;
    let text =
        std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
    let days =
        crate::sites::rainfall::parse_csv(&text).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let n = days.len();
    if let SiteAnswer::Rainfall {
        written, unchanged, ..
    } = execute(
        store_url,
        "ms4 rainfall import",
        SiteCommand::Rainfall {
            days,
            idempotency_key: None,
        },
    )
    .await?
    {
        println!("{n} rainfall records read: {written} written, {unchanged} unchanged");
    }
    Ok(())
}

fn print(format: Format, answer: SiteAnswer) -> anyhow::Result<()> {
    match (format, answer) {
        (Format::Json, SiteAnswer::Site(v)) => println!("{}", to_pretty_json(&v)?),
        (Format::Json, SiteAnswer::Due(d)) => println!("{}", to_pretty_json(&d)?),
        (Format::Json, SiteAnswer::List { sites, .. }) => println!("{}", to_pretty_json(&sites)?),
        (Format::Table, SiteAnswer::Site(v)) => {
            let s = &v.site;
            println!(
                "{} ({}) — {}, priority {} ({})",
                s.site_id,
                s.name.as_deref().unwrap_or("unnamed"),
                s.status,
                s.priority.as_deref().unwrap_or("none"),
                v.priority_reason
            );
            for (i, a) in s.actions.iter().enumerate() {
                println!("  action {}: {} on {} by {}", i + 1, a.kind, a.on, a.by);
            }
            print_schedule(std::slice::from_ref(&v.schedule));
        }
        (Format::Table, SiteAnswer::Due(d)) => {
            println!(
                "as of {}: {} due, {} overdue, {} stop-work order(s) in effect",
                d.as_of.format("%Y-%m-%d %H:%M"),
                d.due,
                d.overdue,
                d.stop_work_in_effect
            );
            print_schedule(&d.sites);
            for u in &d.unreadable {
                println!("unreadable: {u}");
            }
        }
        (Format::Table, SiteAnswer::List { sites, unreadable }) => {
            let rows: Vec<Vec<String>> = sites
                .iter()
                .map(|s| {
                    vec![
                        s.site_id.clone(),
                        s.status.to_string(),
                        s.priority.clone().unwrap_or_default(),
                        s.name.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            print!(
                "{}",
                super::output::table(&["site", "status", "priority", "name"], &rows)
            );
            for u in &unreadable {
                println!("unreadable: {u}");
            }
        }
        (_, SiteAnswer::Rainfall { .. }) => {}
        (Format::Json, SiteAnswer::RainDays(days)) => println!("{}", to_pretty_json(&days)?),
        (Format::Table, SiteAnswer::RainDays(days)) => {
            let rows: Vec<Vec<String>> = days
                .iter()
                .map(|d| {
                    vec![
                        d.gauge_id.clone(),
                        d.day.to_string(),
                        format!("{:.2}", d.inches),
                    ]
                })
                .collect();
            print!(
                "{}",
                super::output::table(&["gauge", "day", "inches"], &rows)
            );
        }
    }
    Ok(())
}

fn print_schedule(schedules: &[crate::sites::schedule::SiteSchedule]) {
    let mut rows = Vec::new();
    for s in schedules {
        for d in &s.duties {
            rows.push(vec![
                s.site_id.clone(),
                d.status.clone(),
                d.due_at
                    .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                    .unwrap_or_default(),
                d.what.clone(),
                d.citation.clone(),
            ]);
        }
    }
    print!(
        "{}",
        super::output::table(&["site", "status", "by", "what", "citation"], &rows)
    );
    for s in schedules {
        for f in &s.open_facts {
            println!("open fact ({}): {f}", s.site_id);
        }
    }
}
