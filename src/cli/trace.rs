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
    /// How to print the answer: table (the counts and the findings), csv (a row per
    /// finding), geojson (the findings on a map) or json (everything).
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
    if !a.ask.upstream && !a.ask.downstream {
        anyhow::bail!(
            "give the direction: ms4 trace {0} --upstream (towards the sources) or ms4 trace {0} --downstream (towards the outfalls)",
            a.ask.asset_id
        );
    }
    let (snap, profile) = load(store_url).await?;
    let answer = trace(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let t = &answer.trace;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Csv => {
            // One row per thing reached: what it is, its id, and for an outfall its
            // receiving water and path.
            let header = ["role", "id", "receiving_water", "path"];
            print!("{}", output::csv(&header, &trace_rows(&answer, " ")));
        }
        QueryFormat::Table => {
            println!(
                "{} trace from {}: {} structures, {} pipes, {} connections",
                t.direction,
                t.start,
                t.structures.len(),
                t.pipes.len(),
                answer.connections.len()
            );
            if let Some(note) = &t.id_collision {
                println!("note: {note}");
            }
            // What was reached, one row each (the same rows as the CSV): an inspector
            // walking the trace needs the ids, not only how many.
            let rows = trace_rows(&answer, " → ");
            if !rows.is_empty() {
                print!(
                    "{}",
                    output::table(&["reached", "id", "receiving_water", "path"], &rows)
                );
            }
            if !t.dead_ends.is_empty() {
                println!("dead ends: {}", t.dead_ends.join(", "));
            }
            if !t.walked_both_ways.is_empty() {
                println!(
                    "walked both ways (bidirectional): {}",
                    t.walked_both_ways.join(", ")
                );
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

/// A trace as rows: every structure, pipe, dead end and connection reached, and each
/// outfall with its water and path (its ids joined by `sep`).
fn trace_rows(answer: &crate::answer::trace::TraceAnswer, sep: &str) -> Vec<Vec<String>> {
    let t = &answer.trace;
    let mut rows = Vec::new();
    let outfalls: std::collections::HashMap<&str, usize> = t
        .outfalls
        .iter()
        .enumerate()
        .map(|(i, o)| (o.outfall.as_str(), i))
        .collect();
    for s in &t.structures {
        match outfalls.get(s.as_str()) {
            Some(&i) => rows.push(vec![
                "outfall".into(),
                s.clone(),
                answer
                    .receiving_waters
                    .get(i)
                    .and_then(|w| w.water_id.clone())
                    .unwrap_or_default(),
                t.outfalls[i].path.join(sep),
            ]),
            None => rows.push(vec![
                "structure".into(),
                s.clone(),
                String::new(),
                String::new(),
            ]),
        }
    }
    for p in &t.pipes {
        rows.push(vec!["pipe".into(), p.clone(), String::new(), String::new()]);
    }
    for d in &t.dead_ends {
        rows.push(vec![
            "dead_end".into(),
            d.clone(),
            String::new(),
            String::new(),
        ]);
    }
    for c in &answer.connections {
        let id = serde_json::to_value(c)
            .ok()
            .and_then(|v| v["connection_id"].as_str().map(str::to_string))
            .unwrap_or_default();
        rows.push(vec!["connection".into(), id, String::new(), String::new()]);
    }
    rows
}

pub(super) async fn run_check(store_url: &str, a: NetworkCheckArgs) -> anyhow::Result<()> {
    let (snap, profile) = load(store_url).await?;
    let report = network_check(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&report)?),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &report)?),
        QueryFormat::Csv => print!("{}", super::network_output::csv(&report)),
        QueryFormat::Table => print!("{}", super::network_output::table(&report)?),
    }
    Ok(())
}
