//! `ms4 determine`: is a project a land development activity, is it exempt, do
//! Conditions One, Two and Three apply, and what follows — with the evidence.

use clap::Args;

use super::output::QueryFormat;
use crate::answer::determine::{
    determine, receiving_waters, screen, DetermineParams, ReceivingWatersParams, ScreenParams,
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
    let profile = super::profile::load(store.as_ref()).await?;
    Ok((snap, profile))
}

pub(super) async fn run(store_url: &str, a: DetermineArgs) -> anyhow::Result<()> {
    let (snap, profile) = load(store_url).await?;
    let answer = determine(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        QueryFormat::Geojson => println!("{}", super::output::answer_geojson(&snap, &answer)?),
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
        let class = l
            .classification
            .as_deref()
            .map_or(String::new(), |c| format!(" class {c}"));
        println!(
            "  303(d): {} {}{class} [{}]",
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

/// The width the text answer fits: a 100-column terminal.
const WIDTH: usize = 100;

/// `text` wrapped to `WIDTH`, each line indented by `indent` spaces (the first by `first`).
fn wrap(text: &str, first: usize, indent: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = " ".repeat(first);
    let mut empty = true;
    for word in text.split_whitespace() {
        let width = line.chars().count();
        if !empty && width + 1 + word.chars().count() > WIDTH {
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    if !empty {
        lines.push(line);
    }
    lines
}

fn say(text: &str, first: usize, indent: usize) {
    for l in wrap(text, first, indent) {
        println!("{l}");
    }
}

/// `text` cut to `n` characters with an ellipsis, for table cells (full text in JSON).
fn short(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_string()
    } else {
        let cut: String = text.chars().take(n - 1).collect();
        format!("{cut}…")
    }
}

fn tri_words(v: Option<bool>) -> &'static str {
    match v {
        Some(true) => "yes",
        Some(false) => "no",
        None => "undetermined",
    }
}

fn print_finding<R>(name: &str, result: &str, f: &crate::rules::Finding<R>) {
    say(&format!("{name}: {result} — {}", f.citation_line()), 0, 4);
    for r in &f.reasons {
        say(r, 4, 6);
    }
}

fn print_determination(d: &rules::Determination) {
    print_finding(
        "Land development activity",
        tri_words(d.land_development_activity.result),
        &d.land_development_activity,
    );
    print_finding("Exempt", tri_words(d.exempt.result), &d.exempt);
    if let Some(c) = &d.conditions {
        print_finding(
            "Condition One",
            tri_words(c.condition_one.result),
            &c.condition_one,
        );
        print_finding(
            "Condition Two",
            tri_words(c.condition_two.result),
            &c.condition_two,
        );
        print_finding(
            "Condition Three",
            tri_words(c.condition_three.result),
            &c.condition_three,
        );
    }
    if let Some(c) = &d.conditions_absent {
        print_finding("Conditions One, Two and Three", "none in this law", c);
    }
    println!("Requirements (full text and reasons in --format json):");
    for r in d.requirements.iter() {
        say(
            &format!(
                "{}: {} — {}",
                r.result.kind.title(),
                r.result.status.words(),
                r.citation_line()
            ),
            2,
            6,
        );
        if let Some(why) = r.reasons.first() {
            say(why, 6, 6);
        }
    }
    if !d.open_facts.is_empty() {
        println!("Open facts (give them to decide what depends on them):");
        for f in &d.open_facts {
            say(f, 2, 4);
        }
    }
}

/// Arguments of `ms4 receiving-waters`.
#[derive(Debug, Args)]
pub struct ReceivingArgs {
    /// The question (the same parameters as `GET /api/receiving-waters`).
    #[command(flatten)]
    pub ask: ReceivingWatersParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// `ms4 receiving-waters`: both methods side by side, then the listings and TMDL areas.
pub(super) async fn run_receiving(store_url: &str, a: ReceivingArgs) -> anyhow::Result<()> {
    let (snap, profile) = load(store_url).await?;
    let rw = receiving_waters(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&rw)?),
        QueryFormat::Geojson => println!("{}", super::output::answer_geojson(&snap, &rw)?),
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
    let (snap, profile) = load(store_url).await?;
    let answer = screen(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        QueryFormat::Geojson => println!("{}", super::output::answer_geojson(&snap, &answer)?),
        _ => {
            let rows: Vec<Vec<String>> = answer
                .results
                .iter()
                .map(|r| {
                    let f = r.condition_one.as_ref();
                    let mut row = vec![
                        r.parcel_id.clone(),
                        f.map_or("", |f| tri_words(f.result)).to_string(),
                        f.and_then(|f| f.reasons.last().map(|r| short(r, 60)))
                            .unwrap_or_default(),
                    ];
                    if a.ask.whole {
                        // What a planner reads first of the whole answer: whether the
                        // post-construction controls follow.
                        let post = r.determination.as_ref().and_then(|d| {
                            d.requirement(rules::RequirementKind::PostConstructionControls)
                        });
                        row.insert(2, post.map_or("", |p| p.result.status.words()).to_string());
                    }
                    row
                })
                .collect();
            let mut header = vec!["parcel", "condition_one", "reasons"];
            if a.ask.whole {
                header.insert(2, "post_construction_controls");
            }
            if a.format == QueryFormat::Csv {
                print!("{}", super::output::csv(&header, &rows));
            } else {
                print!("{}", super::output::table(&header, &rows));
                println!(
                    "{} of {} parcels meet Condition One; {} undetermined (full reasons in --format json)",
                    answer.met, answer.parcels, answer.undetermined
                );
            }
        }
    }
    Ok(())
}
