//! `ms4 smps-without-easement`: practices no recorded maintenance or access easement covers.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::smps::{smps_without_easement, SmpsParams};
use crate::answer::{to_pretty_json, Ask};
use crate::domain::Layer;
use crate::spatial::Snapshot;

/// Arguments of `ms4 smps-without-easement`.
#[derive(Debug, Args)]
pub struct SmpsArgs {
    /// The question (the same parameters as `GET /api/smps-without-easement`).
    #[command(flatten)]
    pub ask: SmpsParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: SmpsArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let answer =
        smps_without_easement(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let layer = snap.layer(Layer::Smps);
    let header = ["smp", "practice_type", "status", "reason", "citation"];
    let rows = || -> Vec<Vec<String>> {
        answer
            .smps
            .iter()
            .map(|s| {
                let f = &s.finding;
                vec![
                    s.smp_id.clone(),
                    layer
                        .get(&s.smp_id)
                        .map(|smp| smp.get(Layer::Smps, "practice_type").to_string())
                        .unwrap_or_default(),
                    f.result.as_str().to_string(),
                    f.reasons.join("; "),
                    f.citation_line(),
                ]
            })
            .collect()
    };
    match a.format {
        QueryFormat::Table => {
            // Reasons and citations wrap in one column to fit 100 columns.
            let rows: Vec<Vec<String>> = rows()
                .into_iter()
                .map(|r| {
                    let mut r = r;
                    let cited = r.pop().unwrap_or_default();
                    let reason = r.pop().unwrap_or_default();
                    r.push(format!("{reason} (cited: {cited})"));
                    r
                })
                .collect();
            print!(
                "{}",
                super::illicit::wrapped_table(
                    &["smp", "practice_type", "status", "reason"],
                    &rows,
                    100
                )
            );
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows())),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}
