//! `ms4 determine`: is a project a land development activity, is it exempt, do
//! Conditions One, Two and Three apply, and what follows — with the evidence.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;
use geo_types::{Geometry, MultiPolygon};

use super::output::QueryFormat;
use crate::domain::{Area, AreaUnit, Layer};
use crate::import::crs::Reprojector;
use crate::rules::determine::{self, ProjectFacts};
use crate::rules::quantity::parse_area;
use crate::rules::Profile;
use crate::spatial::network::{Network, NetworkOptions};
use crate::spatial::waters::{self, ReceivingWaters};
use crate::spatial::Snapshot;

/// Where a project is: a parcel, or a drawn footprint.
#[derive(Debug, Args)]
pub struct PlaceArgs {
    /// The parcel.
    #[arg(
        long,
        conflicts_with = "footprint",
        required_unless_present = "footprint"
    )]
    pub parcel: Option<String>,
    /// A footprint: a GeoJSON file with one (Multi)Polygon, in WGS 84 (RFC 7946).
    #[arg(long)]
    pub footprint: Option<PathBuf>,
}

/// Arguments of `ms4 determine`.
#[derive(Debug, Args)]
pub struct DetermineArgs {
    /// Where the project is.
    #[command(flatten)]
    pub place: PlaceArgs,
    /// The area disturbed, with its unit: 2.5acres, 8000sqft, 0.4ha.
    #[arg(long)]
    pub disturbed: String,
    /// The project is a single-family residence.
    #[arg(long)]
    pub single_family: bool,
    /// The project is on an agricultural property.
    #[arg(long)]
    pub agricultural: bool,
    /// The project is part of a larger common plan of development or sale.
    #[arg(long)]
    pub larger_common_plan: bool,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// Reads a footprint from a GeoJSON file (WGS 84) into the registry's CRS.
pub(super) fn read_footprint(
    path: &std::path::Path,
    srid: i32,
) -> anyhow::Result<MultiPolygon<f64>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("--footprint {}", path.display()))?;
    let gj: geojson::GeoJson = text
        .parse()
        .with_context(|| format!("--footprint {}: not GeoJSON", path.display()))?;
    let geom: Geometry<f64> = match gj {
        geojson::GeoJson::Geometry(g) => g.try_into()?,
        geojson::GeoJson::Feature(f) => f
            .geometry
            .context("the feature has no geometry")?
            .try_into()?,
        geojson::GeoJson::FeatureCollection(fc) => match fc.features.as_slice() {
            [f] => f
                .geometry
                .clone()
                .context("the feature has no geometry")?
                .try_into()?,
            fs => bail!(
                "--footprint {}: holds {} features; give one polygon",
                path.display(),
                fs.len()
            ),
        },
    };
    let g = Reprojector::new(4326, srid)?.apply(&geom)?;
    waters::as_multipolygon(&g)
        .with_context(|| format!("--footprint {}: not a polygon", path.display()))
}

/// The evidence for Condition One from the receiving-waters answer.
pub use crate::spatial::screen::water_evidence;

/// Receiving waters of a footprint with the profile's tolerances.
pub fn waters_for(
    snap: &Snapshot,
    profile: &Profile,
    fp: &MultiPolygon<f64>,
    parcel: Option<&str>,
) -> ReceivingWaters {
    let m = snap.meta.linear_unit.metres();
    let snap_tol = profile
        .tolerances
        .snap_tolerance
        .in_crs_units(m)
        .unwrap_or(0.0);
    let water_tol = profile
        .tolerances
        .receiving_water_tolerance
        .in_crs_units(m)
        .unwrap_or(0.0);
    let net = Network::from_snapshot(snap, NetworkOptions::new(snap_tol));
    waters::receiving_waters(snap, Some(&net), fp, parcel, water_tol, snap_tol)
}

pub(super) async fn run(store_url: &str, a: DetermineArgs) -> anyhow::Result<()> {
    let disturbed = parse_area(&a.disturbed).context("--disturbed")?;
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let fp = footprint_of(&snap, &a.place)?;
    let rw = waters_for(&snap, &profile, &fp, a.place.parcel.as_deref());
    let mut facts = ProjectFacts::new(disturbed);
    facts.single_family = a.single_family;
    facts.agricultural = a.agricultural;
    facts.larger_common_plan = a.larger_common_plan;
    let d = determine::determine(&profile, &facts, &water_evidence(&rw));
    match a.format {
        QueryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "parcel": a.place.parcel,
                "receiving_waters": rw,
                "determination": d,
            }))?
        ),
        QueryFormat::Table | QueryFormat::Csv => print_text(&profile, &rw, &d),
        QueryFormat::Geojson => {
            bail!("--format geojson: a determination has no features to map; use json")
        }
    }
    Ok(())
}

fn print_text(profile: &Profile, rw: &ReceivingWaters, d: &determine::Determination) {
    print_waters(profile, rw);
    print_determination(d);
}

fn print_waters(profile: &Profile, rw: &ReceivingWaters) {
    let acres = Area::new(rw.area, rw.area_unit).to(AreaUnit::Acre).value;
    println!(
        "{} — footprint {:.0} {} ({acres:.2} acres)",
        profile.name,
        rw.area,
        rw.area_unit.symbol()
    );
    println!("receiving waters by watershed:");
    for w in &rw.by_watershed {
        println!(
            "  {} {:.1}% -> {}",
            w.watershed_id,
            w.share * 100.0,
            w.drains_to.as_deref().unwrap_or("(drains_to not recorded)")
        );
    }
    println!("receiving waters by the drainage network:");
    for r in &rw.by_network {
        println!(
            "  {} -> {} -> {} ({})",
            r.from,
            r.outfall,
            r.water_id.as_deref().unwrap_or("?"),
            r.water_found_by
        );
    }
    for u in &rw.unresolved {
        println!("  {u}: reaches no outfall");
    }
    for l in &rw.listed {
        println!(
            "  303(d): {} {} [{}]",
            l.water_id,
            l.name.as_deref().unwrap_or(""),
            l.pollutants.join(", ")
        );
    }
    for t in &rw.tmdl_areas {
        println!(
            "  TMDL: {} {} (stormwater source: {:?})",
            t.tmdl_id,
            t.pollutant.as_deref().unwrap_or(""),
            t.stormwater_source
        );
    }
}

fn print_determination(d: &determine::Determination) {
    let line = |name: &str, f: &crate::rules::Finding<bool>| {
        let cites: Vec<&str> = f.citations.iter().map(|c| c.citation.as_str()).collect();
        println!(
            "{name}: {}  [{}]",
            if f.result { "yes" } else { "no" },
            cites.join("; ")
        );
        for r in &f.reasons {
            println!("    {r}");
        }
    };
    line("land development activity", &d.land_development_activity);
    line("exempt", &d.exempt);
    if let Some(c) = &d.conditions {
        line("Condition One", &c.condition_one);
        line("Condition Two", &c.condition_two);
        line("Condition Three", &c.condition_three);
    }
    if let Some(c) = &d.conditions_absent {
        line("Conditions One/Two/Three", c);
    }
    println!("requirements:");
    for r in &d.requirements {
        let cites: Vec<&str> = r.citations.iter().map(|c| c.citation.as_str()).collect();
        println!(
            "  {:?}: {:?} — {}  [{}]",
            r.result.kind,
            r.result.status,
            r.result.summary,
            cites.join("; ")
        );
    }
    for f in &d.open_facts {
        println!("open: {f}");
    }
}

/// Arguments of `ms4 receiving-waters`.
#[derive(Debug, Args)]
pub struct ReceivingArgs {
    /// The parcel or footprint.
    #[command(flatten)]
    pub place: PlaceArgs,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// `ms4 receiving-waters`: both methods side by side, then the listings and TMDL areas.
pub(super) async fn run_receiving(store_url: &str, a: ReceivingArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let fp = footprint_of(&snap, &a.place)?;
    let rw = waters_for(&snap, &profile, &fp, a.place.parcel.as_deref());
    match a.format {
        QueryFormat::Json => println!("{}", serde_json::to_string_pretty(&rw)?),
        QueryFormat::Table | QueryFormat::Csv => print_waters(&profile, &rw),
        QueryFormat::Geojson => {
            bail!("--format geojson is not offered for receiving-waters; use json")
        }
    }
    Ok(())
}

/// The footprint a command names: a parcel's polygon or a GeoJSON file's.
fn footprint_of(snap: &Snapshot, place: &PlaceArgs) -> anyhow::Result<MultiPolygon<f64>> {
    match (place.parcel.as_deref(), place.footprint.as_deref()) {
        (Some(id), _) => {
            let p = snap
                .layer(Layer::Parcels)
                .get(id)
                .with_context(|| format!("--parcel: no parcel {id:?} in the registry"))?;
            p.geom
                .as_ref()
                .and_then(waters::as_multipolygon)
                .with_context(|| format!("--parcel {id}: has no polygon"))
        }
        (None, Some(path)) => read_footprint(path, snap.meta.srid),
        (None, None) => bail!("give --parcel ID or --footprint FILE"),
    }
}

/// Arguments of `ms4 screen`.
#[derive(Debug, Args)]
pub struct ScreenArgs {
    /// The area a typical project would disturb: 1acre, 8000sqft.
    #[arg(long)]
    pub disturbed: String,
    /// List every parcel, not only those where Condition One is met.
    #[arg(long)]
    pub all: bool,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// `ms4 screen`: Condition One for a project on every parcel (by watershed overlap).
pub(super) async fn run_screen(store_url: &str, a: ScreenArgs) -> anyhow::Result<()> {
    let disturbed = parse_area(&a.disturbed).context("--disturbed")?;
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let tol = profile
        .tolerances
        .receiving_water_tolerance
        .in_crs_units(snap.meta.linear_unit.metres())
        .unwrap_or(0.0);
    let facts = ProjectFacts::new(disturbed);
    let (mut total, mut met, mut covered) = (0usize, 0usize, false);
    let mut shown: Vec<(String, Option<crate::rules::Finding<bool>>)> = Vec::new();
    crate::spatial::screen::condition_one_each(&snap, &profile, &facts, tol, |p, f| {
        total += 1;
        covered |= f.is_some();
        let yes = f.as_ref().is_some_and(|f| f.result);
        met += usize::from(yes);
        if a.all || yes {
            shown.push((p.id.clone(), f));
        }
    });
    if !covered && total > 0 {
        bail!(
            "{} has no Condition One; screening applies to Carmel's Article X",
            profile.name
        );
    }
    match a.format {
        QueryFormat::Json => {
            let items: Vec<serde_json::Value> = shown
                .iter()
                .map(|(id, f)| serde_json::json!({"parcel_id": id, "condition_one": f}))
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(
                    &serde_json::json!({"parcels": total, "met": met, "results": items})
                )?
            );
        }
        QueryFormat::Geojson => {
            bail!("--format geojson is not offered for screen; use json or csv")
        }
        QueryFormat::Table | QueryFormat::Csv => {
            let rows: Vec<Vec<String>> = shown
                .iter()
                .map(|(id, f)| {
                    let f = f.as_ref();
                    vec![
                        id.clone(),
                        f.map_or("", |f| if f.result { "yes" } else { "no" })
                            .to_string(),
                        f.map(|f| f.reasons.join("; ")).unwrap_or_default(),
                    ]
                })
                .collect();
            let header = ["parcel", "condition_one", "reasons"];
            if a.format == QueryFormat::Csv {
                print!("{}", super::output::csv(&header, &rows));
            } else {
                print!("{}", super::output::table(&header, &rows));
                println!("{met} of {total} parcels meet Condition One");
            }
        }
    }
    Ok(())
}
