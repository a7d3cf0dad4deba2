//! `ms4 trace` and `ms4 network-check`: the drainage network.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::spatial::network::{Direction, Network, NetworkOptions};
use crate::spatial::Snapshot;

/// Arguments of `ms4 trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The structure or pipe to start from.
    pub asset_id: String,
    /// Trace against the flow, towards the sources.
    #[arg(
        long,
        conflicts_with = "downstream",
        required_unless_present = "downstream"
    )]
    pub upstream: bool,
    /// Trace with the flow, towards the outfalls.
    #[arg(long)]
    pub downstream: bool,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// Arguments of `ms4 network-check`.
#[derive(Debug, Args)]
pub struct NetworkCheckArgs {
    /// How to print the answer (table: a summary; json: everything).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

async fn network(store_url: &str) -> anyhow::Result<(Snapshot, Network)> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let tol = profile
        .tolerances
        .snap_tolerance
        .in_crs_units(snap.meta.linear_unit.metres())
        .unwrap_or(0.0);
    let net = Network::from_snapshot(&snap, NetworkOptions::new(tol));
    Ok((snap, net))
}

pub(super) async fn run_trace(store_url: &str, a: TraceArgs) -> anyhow::Result<()> {
    let (snap, net) = network(store_url).await?;
    let dir = if a.upstream {
        Direction::Upstream
    } else {
        Direction::Downstream
    };
    let Some(t) = net.trace(&a.asset_id, dir) else {
        anyhow::bail!(
            "{:?} is neither a structure nor a pipe of the drainage network",
            a.asset_id
        );
    };
    // What the trace reaches beyond the pipes: the connections that join the structures
    // reached, and their parcels (upstream, these are the candidate sources).
    let reached: std::collections::HashSet<&str> = t
        .structures
        .iter()
        .chain(&t.pipes)
        .map(String::as_str)
        .collect();
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let tol = profile
        .tolerances
        .snap_tolerance
        .in_crs_units(snap.meta.linear_unit.metres())
        .unwrap_or(0.0);
    let mut connections = Vec::new();
    for c in &snap.layer(crate::domain::Layer::Connections).features {
        let Some(end) = c
            .geom
            .as_ref()
            .and_then(crate::spatial::connections::ms4_end)
        else {
            continue;
        };
        let joins = [
            crate::domain::Layer::CatchBasins,
            crate::domain::Layer::Manholes,
            crate::domain::Layer::Pipes,
        ]
        .into_iter()
        .flat_map(|l| {
            crate::spatial::query::nearest_in(snap.layer(l), &end, Some(tol), Some(1))
                .into_iter()
                .map(move |(i, _)| (l, i))
        })
        .any(|(l, i)| reached.contains(snap.layer(l).features[i].id.as_str()));
        if joins {
            let parcel = c
                .get(crate::domain::Layer::Connections, "parcel_id")
                .as_str()
                .map(str::to_string);
            connections.push(serde_json::json!({"connection_id": c.id, "parcel_id": parcel}));
        }
    }
    // The receiving water at the end of each outfall reached.
    let water_tol = profile
        .tolerances
        .receiving_water_tolerance
        .in_crs_units(snap.meta.linear_unit.metres())
        .unwrap_or(0.0);
    let waters: Vec<serde_json::Value> = t
        .outfalls
        .iter()
        .map(|o| {
            let (water, how) = crate::spatial::waters::outfall_water(&snap, &o.outfall, water_tol);
            serde_json::json!({"outfall": o.outfall, "water_id": water, "found_by": how})
        })
        .collect();
    match a.format {
        QueryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "trace": t,
                "connections": connections,
                "receiving_waters": waters,
            }))?
        ),
        QueryFormat::Geojson => {
            anyhow::bail!("--format geojson is not offered for trace; use json")
        }
        QueryFormat::Table | QueryFormat::Csv => {
            println!(
                "{} trace from {}: {} structures, {} pipes, {} connections",
                t.direction,
                t.start,
                t.structures.len(),
                t.pipes.len(),
                connections.len()
            );
            let rows: Vec<Vec<String>> = t
                .outfalls
                .iter()
                .zip(&waters)
                .map(|(o, w)| {
                    let water = w["water_id"].as_str().unwrap_or("?").to_string();
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
    let (_, net) = network(store_url).await?;
    let report = net.check();
    match a.format {
        QueryFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        QueryFormat::Geojson => {
            anyhow::bail!("--format geojson is not offered for network-check; use json")
        }
        QueryFormat::Table | QueryFormat::Csv => {
            let v = serde_json::to_value(&report)?;
            println!("{}", serde_json::to_string_pretty(&v["summary"])?);
            for key in [
                "dangling_ends",
                "parts",
                "cycles",
                "reversed_pipes",
                "orphan_structures",
            ] {
                if let Some(items) = v.get(key).and_then(|x| x.as_array()) {
                    println!("{key}: {}", items.len());
                }
            }
        }
    }
    Ok(())
}
