//! `ms4 trace` and `ms4 network-check`: the drainage network.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::trace::{network_check, trace, NetworkCheckParams, TraceParams};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::Snapshot;

/// Arguments of `ms4 trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The question (the same parameters as `GET /api/trace/{asset_id}`).
    #[command(flatten)]
    pub ask: TraceParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// Arguments of `ms4 network-check`.
#[derive(Debug, Args)]
pub struct NetworkCheckArgs {
    /// The question (no parameters; `GET /api/network-check`).
    #[command(flatten)]
    pub ask: NetworkCheckParams,
    /// How to print the answer (table: a summary; json: everything).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

async fn load(store_url: &str) -> anyhow::Result<(Snapshot, crate::rules::Profile)> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    Ok((snap, profile))
}

pub(super) async fn run_trace(store_url: &str, a: TraceArgs) -> anyhow::Result<()> {
    if a.format == QueryFormat::Geojson {
        anyhow::bail!("--format geojson is not offered for trace; use json");
    }
    let (snap, profile) = load(store_url).await?;
    let answer = trace(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let t = &answer.trace;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        QueryFormat::Geojson => unreachable!("refused above"),
        QueryFormat::Table | QueryFormat::Csv => {
            println!(
                "{} trace from {}: {} structures, {} pipes, {} connections",
                t.direction,
                t.start,
                t.structures.len(),
                t.pipes.len(),
                answer.connections.len()
            );
            let rows: Vec<Vec<String>> = t
                .outfalls
                .iter()
                .zip(&answer.receiving_waters)
                .map(|(o, w)| {
                    let water = w.water_id.as_deref().unwrap_or("?").to_string();
                    vec![o.outfall.clone(), water, o.path.join(" → ")]
                })
                .collect();
            if !rows.is_empty() {
                let header = ["outfall", "receiving_water", "path"];
                let text = if a.format == QueryFormat::Csv {
                    output::csv(&header, &rows)
                } else {
                    output::table(&header, &rows)
                };
                print!("{text}");
            }
            if !t.dead_ends.is_empty() {
                println!("dead ends: {}", t.dead_ends.join(", "));
            }
            if !t.inferred.is_empty() {
                println!(
                    "{} pipes reached had ends or direction inferred (see --format json)",
                    t.inferred.len()
                );
            }
        }
    }
    Ok(())
}

pub(super) async fn run_check(store_url: &str, a: NetworkCheckArgs) -> anyhow::Result<()> {
    if a.format == QueryFormat::Geojson {
        anyhow::bail!("--format geojson is not offered for network-check; use json");
    }
    let (snap, profile) = load(store_url).await?;
    let report = network_check(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&report)?),
        QueryFormat::Geojson => unreachable!("refused above"),
        QueryFormat::Table | QueryFormat::Csv => {
            let v = serde_json::to_value(&report)?;
            println!("{}", serde_json::to_string_pretty(&v["summary"])?);
            for key in [
                "dangling_ends",
                "parts",
                "cycles",
                "reversed_pipes",
                "orphan_structures",
                "unreadable_rows",
            ] {
                if let Some(items) = v.get(key).and_then(|x| x.as_array()) {
                    println!("{key}: {}", items.len());
                }
            }
        }
    }
    Ok(())
}
