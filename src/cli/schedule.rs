//! `ms4 inspections due`: every asset's next inspection under the profile's schedule,
//! and which are due or overdue on a day.

use clap::{Args, Subcommand};

use super::output::{self, QueryFormat};
use crate::answer::schedule::{inspections_due, InspectionsDueAnswer, InspectionsDueParams};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::Snapshot;

/// Arguments of `ms4 inspections`.
#[derive(Debug, Args)]
pub struct InspectionsArgs {
    /// What to show.
    #[command(subcommand)]
    pub command: InspectionsCommand,
}

/// The verbs of `ms4 inspections`.
#[derive(Debug, Subcommand)]
pub enum InspectionsCommand {
    /// What inspections are due and overdue on a day, by the profile's schedule.
    Due(DueArgs),
}

/// Arguments of `ms4 inspections due`.
#[derive(Debug, Args)]
pub struct DueArgs {
    /// The question (the same parameters as `GET /api/inspections/due`).
    #[command(flatten)]
    pub ask: InspectionsDueParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: InspectionsArgs) -> anyhow::Result<()> {
    let InspectionsCommand::Due(a) = a.command;
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let answer = inspections_due(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let (header, rows) = rows(&answer);
    match a.format {
        QueryFormat::Table => {
            print!(
                "{}",
                output::table(
                    &header[..7],
                    &rows.iter().map(|r| r[..7].to_vec()).collect::<Vec<_>>()
                )
            );
            let s = &answer.summary;
            println!(
                "as of {}: {} inspections judged; {} never inspected, {} overdue, {} due within {} days, {} not due",
                answer.as_of, s.items, s.never_inspected, s.overdue, s.due, answer.within_days, s.not_due
            );
            if let Some(d) = answer.schedule.default_reading {
                println!("default: {d}");
            }
            if let Some(r) = &answer.schedule.priority_rule {
                println!("priority rule: {r}");
            }
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}

/// The header and rows of the items (the table shows the first seven columns).
pub fn rows(answer: &InspectionsDueAnswer) -> ([&'static str; 10], Vec<Vec<String>>) {
    let header = [
        "asset",
        "id",
        "standing",
        "by",
        "interval",
        "last_inspection",
        "next_due",
        "priority",
        "citation",
        "reason",
    ];
    let rows = answer
        .items
        .iter()
        .map(|i| {
            vec![
                i.asset.to_string(),
                i.id.clone(),
                i.standing.as_str().to_string(),
                i.requirement.by.as_str().to_string(),
                i.requirement.describe(),
                i.last_inspection
                    .map_or_else(|| "never".into(), |d| d.to_string()),
                i.next_due.map_or_else(|| "now".into(), |d| d.to_string()),
                i.priority
                    .map(|p| p.as_str().to_string())
                    .unwrap_or_default(),
                i.requirement.citation.clone(),
                i.reason.clone(),
            ]
        })
        .collect();
    (header, rows)
}
