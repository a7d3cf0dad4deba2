//! `ms4 illicit`: every connection judged under the registry's jurisdiction.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::illicit::{illicit, IllicitParams};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::Snapshot;

/// Arguments of `ms4 illicit`.
#[derive(Debug, Args)]
pub struct IllicitArgs {
    /// The question (the same parameters as `GET /api/illicit`).
    #[command(flatten)]
    pub ask: IllicitParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: IllicitArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let answer = illicit(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let header = ["connection", "status", "reasons", "citations"];
    let rows = || -> Vec<Vec<String>> {
        answer
            .connections
            .iter()
            .map(|c| {
                let f = &c.finding;
                vec![
                    c.connection_id.clone(),
                    f.result.as_str().to_string(),
                    f.reasons.join("; "),
                    f.citation_line(),
                ]
            })
            .collect()
    };
    match a.format {
        QueryFormat::Table => {
            let s = &answer.summary;
            print!("{}", output::table(&header, &rows()));
            println!(
                "{} connections: {} illicit, {} need review, {} ok, {} not covered ({})",
                s.total, s.illicit, s.needs_review, s.ok, s.not_covered, profile.name
            );
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows())),
        QueryFormat::Geojson => {
            let layer = snap.layer(crate::domain::Layer::Connections);
            let items = answer
                .connections
                .iter()
                .filter_map(|c| {
                    Some((
                        layer.get(&c.connection_id)?.geom.clone()?,
                        serde_json::to_value(c).ok()?,
                    ))
                })
                .collect();
            println!("{}", output::geojson(snap.meta.srid, items)?);
        }
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}
