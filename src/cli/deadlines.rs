//! `ms4 deadlines`: what is due and overdue, by case, and the fines accrued, computed
//! from the profile's enforcement steps (the same answer as `GET /api/deadlines`).

use clap::Args;

use super::report::ReportFormat;
use crate::idde::case::all_cases;
use crate::idde::deadlines::all_deadlines;
use crate::spatial::Snapshot;

/// Arguments of `ms4 deadlines`.
#[derive(Debug, Args)]
pub struct DeadlinesArgs {
    /// The time to compute for: YYYY-MM-DD (its end) or YYYY-MM-DDTHH:MM (default now).
    #[arg(long)]
    pub as_of: Option<String>,
    /// Closed cases too.
    #[arg(long)]
    pub all: bool,
    /// How to print: table, json or csv (one row per deadline or fine).
    #[arg(long, value_enum, default_value_t = ReportFormat::Table)]
    pub format: ReportFormat,
}

pub(super) async fn run(store_url: &str, a: DeadlinesArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let as_of =
        crate::idde::deadlines::parse_as_of(a.as_of.as_deref()).map_err(|e| anyhow::anyhow!(e))?;
    let (cases, _) = all_cases(&snap);
    let d = all_deadlines(&cases, &profile.idde, &profile.id, as_of, !a.all);
    match a.format {
        ReportFormat::Json => println!("{}", serde_json::to_string_pretty(&d)?),
        ReportFormat::Table | ReportFormat::Csv => {
            let mut rows = Vec::new();
            for c in &d.cases {
                for x in &c.deadlines {
                    let by = x.by();
                    rows.push(vec![
                        c.case_id.clone(),
                        x.status.clone(),
                        by,
                        x.what.clone(),
                        x.citation.clone(),
                    ]);
                }
                // A step the clock could not count is a row too, never left out.
                for why in &c.uncounted {
                    rows.push(vec![
                        c.case_id.clone(),
                        "uncounted".into(),
                        String::new(),
                        why.clone(),
                        String::new(),
                    ]);
                }
                for f in &c.fines {
                    rows.push(vec![
                        c.case_id.clone(),
                        "fine".into(),
                        format!("{}${:.2}", if f.maximum { "up to " } else { "" }, f.accrued),
                        format!(
                            "{} violation(s) x {} period(s) x ${:.2}",
                            f.violations, f.periods, f.amount
                        ),
                        f.citation.clone(),
                    ]);
                }
            }
            let header = ["case", "status", "by / accrued", "what", "law"];
            if a.format == ReportFormat::Csv {
                print!("{}", super::output::csv(&header, &rows));
                return Ok(());
            }
            print!("{}", super::output::table(&header, &rows));
            println!(
                "as of {}: {} due, {} overdue, ${:.2} accrued ({})",
                d.as_of.format("%Y-%m-%d %H:%M"),
                d.due,
                d.overdue,
                d.accrued,
                profile.name
            );
            if let Some(n) = &d.note {
                println!("{n}");
            }
        }
    }
    Ok(())
}
