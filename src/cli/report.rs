//! `ms4 report --year Y`: the illicit discharge programme's annual report, every count
//! with its period, denominator and record ids (the same answer as `GET /api/report`).

use clap::{Args, ValueEnum};

use crate::idde::case::all_cases;
use crate::idde::deadlines::parse_as_of;
use crate::idde::report::{annual_report, to_csv};
use crate::spatial::Snapshot;

/// How the report, `ms4 deadlines`, `ms4 case` and `ms4 inspect photo list` print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ReportFormat {
    /// A table for people (the record ids in the JSON and CSV).
    #[default]
    Table,
    /// JSON.
    Json,
    /// CSV, one row per count.
    Csv,
}

/// Arguments of `ms4 report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The reporting year (it starts on the profile's reporting_year_start).
    #[arg(long)]
    pub year: i32,
    /// How to print.
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
    /// The record as it stood at (YYYY-MM-DD or YYYY-MM-DDTHH:MM, UTC; default now): a
    /// year not yet over counts the fines accrued up to then.
    #[arg(long)]
    pub as_of: Option<String>,
}

pub(super) async fn run(store_url: &str, a: ReportArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let (cases, _) = all_cases(&snap);
    let as_of = parse_as_of(a.as_of.as_deref()).map_err(|e| anyhow::anyhow!(e))?;
    let overdue = crate::answer::schedule::overdue_for_report(
        &crate::answer::Ask::new(&snap, &profile),
        a.year,
        as_of,
    );
    let r = annual_report(&snap, &profile, &cases, a.year, as_of, &overdue).ok_or_else(|| {
        anyhow::anyhow!("the profile's [idde] reporting_year_start is not a date")
    })?;
    match a.format {
        ReportFormat::Json => println!("{}", serde_json::to_string_pretty(&r)?),
        ReportFormat::Csv => print!("{}", to_csv(&r)),
        ReportFormat::Table => {
            let rows: Vec<Vec<String>> = r
                .counts
                .iter()
                .map(|c| {
                    vec![
                        c.measure.to_string(),
                        c.count.to_string(),
                        c.denominator
                            .as_ref()
                            .map(|d| format!("of {} {}", d.1, d.0))
                            .unwrap_or_default(),
                        match c.period.from {
                            Some(f) => format!("{f} to {}", c.period.to),
                            None => format!("to {}", c.period.to),
                        },
                        c.dollars.map(|d| format!("${d:.2}")).unwrap_or_default(),
                    ]
                })
                .collect();
            print!(
                "{}",
                super::output::table(&["measure", "count", "out of", "period", "dollars"], &rows)
            );
            for f in &r.open_facts {
                println!("open fact: {f}");
            }
        }
    }
    Ok(())
}
