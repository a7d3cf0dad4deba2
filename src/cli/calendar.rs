//! `ms4 calendar`: the permit's programme items on a day — due, done with the record
//! that shows it, overdue.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::calendar::{calendar, CalendarAnswer, CalendarParams, EntryStatus};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::Snapshot;

/// Arguments of `ms4 calendar`.
#[derive(Debug, Args)]
pub struct CalendarArgs {
    /// The question (the same parameters as `GET /api/calendar`).
    #[command(flatten)]
    pub ask: CalendarParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: CalendarArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let answer = calendar(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let (header, rows) = rows(&answer);
    match a.format {
        QueryFormat::Table => {
            print!(
                "{}",
                output::table(
                    &header[..5],
                    &rows.iter().map(|r| r[..5].to_vec()).collect::<Vec<_>>()
                )
            );
            if let Some(n) = &answer.note {
                println!("{n}");
            }
            for f in &answer.open_facts {
                println!("open fact: {f}");
            }
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}

fn status_word(s: EntryStatus) -> &'static str {
    match s {
        EntryStatus::Overdue => "overdue",
        EntryStatus::NotRecorded => "past, not recorded",
        EntryStatus::Due => "due",
        EntryStatus::Done => "done",
        EntryStatus::Upcoming => "upcoming",
    }
}

/// The header and rows of the entries (the table shows the first five columns).
pub fn rows(answer: &CalendarAnswer) -> ([&'static str; 8], Vec<Vec<String>>) {
    let header = [
        "due_on",
        "item",
        "case",
        "status",
        "evidence",
        "rule",
        "citation",
        "confirmed",
    ];
    let rows = answer
        .entries
        .iter()
        .map(|e| {
            vec![
                e.due_on.to_string(),
                e.item.clone(),
                e.case_id.clone().unwrap_or_default(),
                status_word(e.status).to_string(),
                e.evidence
                    .as_ref()
                    .map(|v| format!("{} on {}", v.record, v.on))
                    .unwrap_or_default(),
                e.rule.clone(),
                e.citation.clone(),
                e.confirmed.to_string(),
            ]
        })
        .collect();
    (header, rows)
}
