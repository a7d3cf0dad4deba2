//! `ms4 calendar`: the permit's programme items on a day — due, done with the record
//! that shows it, overdue. `ms4 calendar record` records a deliverable submitted (the
//! annual report, an interim certification, a mapping phase), which shows its occurrence
//! done, and `ms4 calendar records` lists them: the commands `POST` and `GET
//! /api/calendar/records` run, with the same JSON.

use anyhow::anyhow;
use chrono::NaiveDate;
use clap::{Args, Subcommand};

use super::output::{self, QueryFormat};
use super::Format;
use crate::answer::calendar::{calendar, CalendarAnswer, CalendarParams, EntryStatus};
use crate::answer::{to_pretty_json, Ask};
use crate::programme::{CalendarCommand, CalendarRecordAnswer, SubmissionRequest};
use crate::sites::commands::Registry;
use crate::sites::SiteRecorder;
use crate::spatial::Snapshot;

/// Arguments of `ms4 calendar`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct CalendarArgs {
    /// Record or list submissions; without one, the calendar.
    #[command(subcommand)]
    pub verb: Option<CalendarVerb>,
    /// The question (the same parameters as `GET /api/calendar`).
    #[command(flatten)]
    pub ask: CalendarParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// `ms4 calendar` commands.
#[derive(Debug, Subcommand)]
pub enum CalendarVerb {
    /// Record a deliverable submitted for one occurrence of a calendar item (the body of
    /// POST /api/calendar/records): the occurrence shows done, late when submitted after
    /// its day.
    Record(RecordArgs),
    /// The submissions recorded (GET /api/calendar/records).
    Records(RecordsArgs),
}

/// Arguments of `ms4 calendar record`.
#[derive(Debug, Args)]
pub struct RecordArgs {
    /// The calendar item's id (`annual_report`).
    #[arg(long)]
    pub item: String,
    /// The day the occurrence it answers fell due, YYYY-MM-DD.
    #[arg(long)]
    pub for_due_on: NaiveDate,
    /// The day it was submitted, YYYY-MM-DD.
    #[arg(long)]
    pub submitted_on: NaiveDate,
    /// Who submitted it: a name or an office.
    #[arg(long)]
    pub by: String,
    /// The agency's confirmation number, or the file submitted.
    #[arg(long)]
    pub reference: Option<String>,
    /// A note.
    #[arg(long)]
    pub note: Option<String>,
    /// A key for this request: recording it again under the key writes nothing.
    #[arg(long)]
    pub idempotency_key: Option<String>,
    /// How to print: table or json (the API's JSON).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Arguments of `ms4 calendar records`.
#[derive(Debug, Args)]
pub struct RecordsArgs {
    /// Only this item's.
    #[arg(long)]
    pub item: Option<String>,
    /// Answering an occurrence due on or after this day.
    #[arg(long)]
    pub from: Option<NaiveDate>,
    /// Answering an occurrence due on or before this day.
    #[arg(long)]
    pub to: Option<NaiveDate>,
    /// How to print: table or json (the API's JSON).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

pub(super) async fn run(store_url: &str, a: CalendarArgs) -> anyhow::Result<()> {
    match a.verb {
        Some(CalendarVerb::Record(r)) => return record(store_url, r).await,
        Some(CalendarVerb::Records(r)) => return records(store_url, r).await,
        None => {}
    }
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
            for e in answer.entries.iter().filter(|e| e.to_record.is_some()) {
                println!(
                    "to record {} due {}: {}",
                    e.item,
                    e.due_on,
                    e.to_record.as_deref().unwrap_or_default()
                );
            }
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}

/// Runs a record command as the user at the command line.
async fn execute(
    store_url: &str,
    what: &str,
    cmd: CalendarCommand,
) -> anyhow::Result<CalendarRecordAnswer> {
    let store = crate::store::open(store_url).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let reg = Registry {
        store: store.as_ref(),
        profile: &profile,
        snap: &snap,
    };
    let by = SiteRecorder {
        name: crate::import::default_actor(),
        source: "cli".into(),
        what: what.into(),
        // The calendar's day: the local one, as the server's.
        today: chrono::Local::now().date_naive(),
    };
    crate::programme::run(reg, &by, cmd)
        .await
        .map_err(|e| anyhow!("{e}"))
}

async fn record(store_url: &str, a: RecordArgs) -> anyhow::Result<()> {
    let cmd = CalendarCommand::Record {
        request: SubmissionRequest {
            item_id: a.item,
            for_due_on: a.for_due_on,
            submitted_on: a.submitted_on,
            submitted_by: a.by,
            reference: a.reference,
            note: a.note,
        },
        idempotency_key: a.idempotency_key,
    };
    let CalendarRecordAnswer::Recorded(r) = execute(store_url, "ms4 calendar record", cmd).await?
    else {
        return Err(anyhow!("a submission answered no record"));
    };
    match a.format {
        Format::Json => println!("{}", to_pretty_json(&r)?),
        Format::Table if r.again => println!(
            "{} was recorded before under this idempotency key: nothing written",
            r.record.submission_id
        ),
        Format::Table => {
            let late = r
                .late_by_days
                .map(|n| format!(", {n} days late"))
                .unwrap_or_default();
            println!(
                "recorded {}: {} on {}{late}",
                r.record.submission_id,
                r.record.describe(),
                r.record.submitted_on
            );
        }
    }
    Ok(())
}

async fn records(store_url: &str, a: RecordsArgs) -> anyhow::Result<()> {
    let cmd = CalendarCommand::List {
        item_id: a.item,
        from: a.from,
        to: a.to,
    };
    let CalendarRecordAnswer::Records(list) =
        execute(store_url, "ms4 calendar records", cmd).await?
    else {
        return Err(anyhow!("a list of submissions answered a record"));
    };
    match a.format {
        Format::Json => println!("{}", to_pretty_json(&list)?),
        Format::Table => {
            let rows: Vec<Vec<String>> = list
                .records
                .iter()
                .map(|s| {
                    vec![
                        s.for_due_on.to_string(),
                        s.item_id.clone(),
                        s.submitted_on.to_string(),
                        s.submitted_by.clone(),
                        s.reference.clone().unwrap_or_default(),
                    ]
                })
                .collect();
            print!(
                "{}",
                output::table(
                    &["due_on", "item", "submitted_on", "by", "reference"],
                    &rows
                )
            );
        }
    }
    Ok(())
}

fn status_word(s: EntryStatus) -> &'static str {
    match s {
        EntryStatus::Overdue => "overdue",
        EntryStatus::NotRecorded => "past, not recorded",
        EntryStatus::Due => "due",
        EntryStatus::Done => "done",
        EntryStatus::DoneLate => "done late",
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
            let status = match e.late_by_days {
                Some(n) => format!("{}, {n} days", status_word(e.status)),
                None => status_word(e.status).to_string(),
            };
            vec![
                e.due_on.to_string(),
                e.item.clone(),
                e.case_id.clone().unwrap_or_default(),
                status,
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
