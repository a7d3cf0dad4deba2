//! `ms4 illicit`: every connection judged under the registry's jurisdiction.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::rules::illicit::{self, IllicitStatus};
use crate::spatial::{connections, Snapshot};

/// Arguments of `ms4 illicit`.
#[derive(Debug, Args)]
pub struct IllicitArgs {
    /// Only these statuses: illicit, needs_review, ok, not_covered (comma-separated;
    /// default: illicit and needs_review).
    #[arg(long, value_delimiter = ',')]
    pub status: Vec<String>,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: IllicitArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let metres = snap.meta.linear_unit.metres();
    let tol = profile
        .tolerances
        .record_tolerance
        .in_crs_units(metres)
        .unwrap_or(0.0);
    let wanted: Vec<IllicitStatus> = if a.status.is_empty() {
        vec![IllicitStatus::Illicit, IllicitStatus::NeedsReview]
    } else {
        a.status
            .iter()
            .map(|s| {
                IllicitStatus::ALL
                    .into_iter()
                    .find(|x| x.as_str() == s.trim())
                    .ok_or_else(|| anyhow::anyhow!("--status: unknown status {s:?}; expected illicit, needs_review, ok or not_covered"))
            })
            .collect::<anyhow::Result<_>>()?
    };
    let findings: Vec<(String, crate::rules::Finding<IllicitStatus>)> =
        connections::connection_facts(&snap, tol)
            .iter()
            .map(|c| (c.connection_id.clone(), illicit::evaluate(&profile, c)))
            .collect();
    let summary = illicit::summarize(&findings);
    let shown: Vec<&(String, crate::rules::Finding<IllicitStatus>)> = findings
        .iter()
        .filter(|(_, f)| wanted.contains(&f.result))
        .collect();
    let header = ["connection", "status", "reasons", "citations"];
    let rows: Vec<Vec<String>> = shown
        .iter()
        .map(|(id, f)| {
            vec![
                id.clone(),
                f.result.as_str().to_string(),
                f.reasons.join("; "),
                f.citations
                    .iter()
                    .map(|c| c.citation.clone())
                    .collect::<Vec<_>>()
                    .join("; "),
            ]
        })
        .collect();
    match a.format {
        QueryFormat::Table => {
            print!("{}", output::table(&header, &rows));
            println!(
                "{} connections: {} illicit, {} need review, {} ok, {} not covered ({})",
                summary.total,
                summary.illicit,
                summary.needs_review,
                summary.ok,
                summary.not_covered,
                profile.name
            );
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => {
            let layer = snap.layer(crate::domain::Layer::Connections);
            let items = shown
                .iter()
                .filter_map(|(id, f)| {
                    Some((
                        layer.get(id)?.geom.clone()?,
                        serde_json::json!({"connection_id": id, "finding": f}),
                    ))
                })
                .collect();
            println!("{}", output::geojson(snap.meta.srid, items)?);
        }
        QueryFormat::Json => {
            let items: Vec<serde_json::Value> = shown
                .iter()
                .map(|(id, f)| serde_json::json!({"connection_id": id, "finding": f}))
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "jurisdiction": profile.id,
                    "record_tolerance": {"value": tol, "unit": snap.meta.linear_unit.symbol()},
                    "summary": summary,
                    "connections": items,
                }))?
            );
        }
    }
    Ok(())
}
