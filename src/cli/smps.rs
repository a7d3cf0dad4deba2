//! `ms4 smps-without-easement`: structural SMPs no recorded maintenance easement covers.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::domain::{Layer, Value};
use crate::rules::easement::{self, CoveringEasement, EasementStatus};
use crate::spatial::{query, Snapshot};

/// Arguments of `ms4 smps-without-easement`.
#[derive(Debug, Args)]
pub struct SmpsArgs {
    /// List every SMP with its status, not only those lacking an easement.
    #[arg(long)]
    pub all: bool,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: SmpsArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let mut findings = Vec::new();
    for smp in &snap.layer(Layer::Smps).features {
        let covering: Vec<CoveringEasement> = smp
            .geom
            .as_ref()
            .map(|g| query::easements_meeting(&snap, g))
            .unwrap_or_default()
            .into_iter()
            .map(|e| CoveringEasement {
                easement_id: e.id.clone(),
                instrument: e
                    .get(Layer::Easements, "instrument")
                    .as_str()
                    .map(str::to_string),
                recorded_on: match e.get(Layer::Easements, "recorded_on") {
                    Value::Null => None,
                    v => Some(v.to_string()),
                },
            })
            .collect();
        let structural = smp.get(Layer::Smps, "structural").as_bool();
        let f = easement::evaluate(&profile, &smp.id, structural, &covering);
        if a.all
            || matches!(
                f.result,
                EasementStatus::Missing | EasementStatus::NeedsReview
            )
        {
            findings.push((smp, f));
        }
    }
    let header = ["smp", "practice_type", "status", "reason", "citation"];
    let rows: Vec<Vec<String>> = findings
        .iter()
        .map(|(smp, f)| {
            vec![
                smp.id.clone(),
                smp.get(Layer::Smps, "practice_type").to_string(),
                serde_json::to_value(f.result)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
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
        QueryFormat::Table => print!("{}", output::table(&header, &rows)),
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => {
            let items = findings
                .iter()
                .filter_map(|(smp, f)| {
                    Some((
                        smp.geom.clone()?,
                        serde_json::json!({"smp_id": smp.id, "finding": f}),
                    ))
                })
                .collect();
            println!("{}", output::geojson(snap.meta.srid, items)?);
        }
        QueryFormat::Json => {
            let items: Vec<serde_json::Value> = findings
                .iter()
                .map(|(smp, f)| serde_json::json!({"smp_id": smp.id, "finding": f}))
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "jurisdiction": profile.id,
                    "smps": items,
                }))?
            );
        }
    }
    Ok(())
}
