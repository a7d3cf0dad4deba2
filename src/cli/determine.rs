//! `ms4 determine`: is a project a land development activity, is it exempt, do
//! Conditions One, Two and Three apply, and what follows — with the evidence.

use anyhow::bail;
use clap::Args;

use super::output::QueryFormat;
use crate::answer::determine::{
    determine, receiving_waters, screen, DetermineParams, ReceivingParams, ScreenParams,
};
use crate::answer::{to_pretty_json, Ask};
use crate::domain::{Area, AreaUnit};
use crate::rules::determine as rules;
use crate::rules::Profile;
use crate::spatial::waters::ReceivingWaters;
use crate::spatial::Snapshot;

/// Arguments of `ms4 determine`.
#[derive(Debug, Args)]
pub struct DetermineArgs {
    /// The question (the same fields as the body of `POST /api/determinations`).
    #[command(flatten)]
    pub ask: DetermineParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

async fn load(store_url: &str) -> anyhow::Result<(Snapshot, Profile)> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    Ok((snap, profile))
}

pub(super) async fn run(store_url: &str, a: DetermineArgs) -> anyhow::Result<()> {
    if a.format == QueryFormat::Geojson {
        bail!("--format geojson: a determination has no features to map; use json");
    }
    let (snap, profile) = load(store_url).await?;
    let answer = determine(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        _ => print_text(&profile, &answer.receiving_waters, &answer.determination),
    }
    Ok(())
}

fn print_text(profile: &Profile, rw: &ReceivingWaters, d: &rules::Determination) {
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

fn print_determination(d: &rules::Determination) {
    let line = |name: &str, f: &crate::rules::Finding<bool>| {
        println!(
            "{name}: {}  [{}]",
            if f.result { "yes" } else { "no" },
            f.citation_line()
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
        println!(
            "  {:?}: {:?} — {}  [{}]",
            r.result.kind,
            r.result.status,
            r.result.summary,
            r.citation_line()
        );
    }
    for f in &d.open_facts {
        println!("open: {f}");
    }
}

/// Arguments of `ms4 receiving-waters`.
#[derive(Debug, Args)]
pub struct ReceivingArgs {
    /// The question (the same parameters as `GET /api/receiving-waters`).
    #[command(flatten)]
    pub ask: ReceivingParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// `ms4 receiving-waters`: both methods side by side, then the listings and TMDL areas.
pub(super) async fn run_receiving(store_url: &str, a: ReceivingArgs) -> anyhow::Result<()> {
    if a.format == QueryFormat::Geojson {
        bail!("--format geojson is not offered for receiving-waters; use json");
    }
    let (snap, profile) = load(store_url).await?;
    let rw = receiving_waters(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&rw)?),
        _ => print_waters(&profile, &rw),
    }
    Ok(())
}

/// Arguments of `ms4 screen`.
#[derive(Debug, Args)]
pub struct ScreenArgs {
    /// The question (the same parameters as `GET /api/screen`).
    #[command(flatten)]
    pub ask: ScreenParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// `ms4 screen`: Condition One for a project on every parcel (by watershed overlap).
pub(super) async fn run_screen(store_url: &str, a: ScreenArgs) -> anyhow::Result<()> {
    if a.format == QueryFormat::Geojson {
        bail!("--format geojson is not offered for screen; use json or csv");
    }
    let (snap, profile) = load(store_url).await?;
    let answer = screen(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        _ => {
            let rows: Vec<Vec<String>> = answer
                .results
                .iter()
                .map(|r| {
                    let f = r.condition_one.as_ref();
                    vec![
                        r.parcel_id.clone(),
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
                println!(
                    "{} of {} parcels meet Condition One",
                    answer.met, answer.parcels
                );
            }
        }
    }
    Ok(())
}
