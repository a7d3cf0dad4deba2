//! `ms4 monitoring-locations`, `ms4 sewersheds` and `ms4 mapping-status`: what the
//! permit's first mapping phase asks of the map.

use clap::Args;

use super::illicit::wrapped_table;
use super::output::{self, QueryFormat};
use crate::answer::mapping::{
    mapping_status, monitoring_locations, sewersheds, MappingStatusParams,
    MonitoringLocationsAnswer, MonitoringLocationsParams, SewershedsParams,
};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::completeness::{Completeness, Figure};
use crate::spatial::Snapshot;

/// Arguments of `ms4 monitoring-locations`.
#[derive(Debug, Args)]
pub struct MonitoringLocationsArgs {
    /// The question (the same parameters as `GET /api/monitoring-locations`).
    #[command(flatten)]
    pub ask: MonitoringLocationsParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// Arguments of `ms4 sewersheds`.
#[derive(Debug, Args)]
pub struct SewershedsArgs {
    /// The question (the same parameters as `GET /api/sewersheds`).
    #[command(flatten)]
    pub ask: SewershedsParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// Arguments of `ms4 mapping-status`.
#[derive(Debug, Args)]
pub struct MappingStatusArgs {
    /// The question (the same parameters as `GET /api/mapping-status`).
    #[command(flatten)]
    pub ask: MappingStatusParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

async fn load(store_url: &str) -> anyhow::Result<(Snapshot, crate::rules::Profile)> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    Ok((snap, profile))
}

pub(super) async fn run_locations(
    store_url: &str,
    a: MonitoringLocationsArgs,
) -> anyhow::Result<()> {
    let (snap, profile) = load(store_url).await?;
    let answer =
        monitoring_locations(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let (header, rows) = location_rows(&answer);
    match a.format {
        QueryFormat::Table => {
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r[0].clone(),
                        r[1].clone(),
                        r[2].clone(),
                        r[3].clone(),
                        r[5].clone(),
                    ]
                })
                .collect();
            print!(
                "{}",
                wrapped_table(
                    &["id", "kind", "priority", "waters", "reasons"],
                    &table,
                    120
                )
            );
            let s = &answer.summary;
            println!(
                "{} monitoring locations: {} outfalls, {} interconnections; {} high, {} medium, {} low",
                s.locations, s.outfalls, s.interconnections, s.high, s.medium, s.low
            );
            println!("priority rule: {}", answer.rule.source);
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}

/// The CSV header and rows of the monitoring locations (the CLI's CSV and the package's).
pub(super) fn location_rows(
    answer: &MonitoringLocationsAnswer,
) -> ([&'static str; 7], Vec<Vec<String>>) {
    let header = [
        "id",
        "kind",
        "priority",
        "waters",
        "watershed",
        "reasons",
        "found_by",
    ];
    let rows: Vec<Vec<String>> = answer
        .locations
        .iter()
        .map(|l| {
            let waters: Vec<String> = l
                .waters
                .iter()
                .map(|w| match &w.classification {
                    Some(c) => format!("{} (class {c})", w.water_id),
                    None => w.water_id.clone(),
                })
                .collect();
            let reasons: Vec<String> = l
                .reasons
                .iter()
                .map(|r| format!("{}: {}", r.priority.as_str(), r.because))
                .collect();
            vec![
                l.id.clone(),
                word(&l.kind),
                l.priority.as_str().to_string(),
                if waters.is_empty() {
                    "none".into()
                } else {
                    waters.join(", ")
                },
                l.watershed_id.clone().unwrap_or_default(),
                reasons.join("; "),
                l.found_by.clone(),
            ]
        })
        .collect();
    (header, rows)
}

/// An enum's serde word (`outfall`).
pub(super) fn word<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

pub(super) async fn run_sewersheds(store_url: &str, a: SewershedsArgs) -> anyhow::Result<()> {
    let (snap, profile) = load(store_url).await?;
    let answer = sewersheds(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let header = [
        "location",
        "area",
        "parcels",
        "inlets",
        "inlets_without_trace",
        "inlets_of_other_traces",
        "dangling_ends",
        "parcels_split",
    ];
    let rows: Vec<Vec<String>> = answer
        .sewersheds
        .iter()
        .map(|s| {
            let w = &s.sewershed;
            let q = &w.quality;
            vec![
                w.location_id.clone(),
                format!("{:.0}", w.area),
                w.parcels.len().to_string(),
                w.inlets.len().to_string(),
                q.inlets_without_trace.join(" "),
                q.inlets_of_other_traces.join(" "),
                q.dangling_ends.join(" "),
                q.parcels_split.join(" "),
            ]
        })
        .collect();
    match a.format {
        QueryFormat::Table => {
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    let doubts = [
                        ("no trace", &r[4]),
                        ("other trace", &r[5]),
                        ("dangling", &r[6]),
                        ("split", &r[7]),
                    ]
                    .iter()
                    .filter(|(_, v)| !v.is_empty())
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect::<Vec<_>>()
                    .join("; ");
                    vec![
                        r[0].clone(),
                        r[1].clone(),
                        r[2].clone(),
                        r[3].clone(),
                        doubts,
                    ]
                })
                .collect();
            print!(
                "{}",
                wrapped_table(
                    &[
                        "location",
                        &format!("area ({})", answer.area_unit),
                        "parcels",
                        "inlets",
                        "quality"
                    ],
                    &table,
                    120
                )
            );
            println!("method: {}", answer.method);
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}

pub(super) async fn run_status(store_url: &str, a: MappingStatusArgs) -> anyhow::Result<()> {
    let (snap, profile) = load(store_url).await?;
    let answer = mapping_status(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let s = &answer.status;
    let scopes = std::iter::once(("town".to_string(), &s.town))
        .chain(s.by_watershed.iter().map(|c| {
            (
                format!("watershed {}", c.watershed_id.as_deref().unwrap_or("?")),
                c,
            )
        }))
        .chain(std::iter::once((
            "outside every watershed".to_string(),
            &s.outside_watersheds,
        )));
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (scope, c) in scopes {
        rows.extend(figure_rows(&scope, c));
    }
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Csv => print!(
            "{}",
            output::csv(
                &["scope", "figure", "counted", "total", "share", "without"],
                &rows
            )
        ),
        QueryFormat::Table => {
            let table: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    vec![
                        r[0].clone(),
                        r[1].clone(),
                        format!("{} / {}", r[2], r[3]),
                        r[4].clone(),
                        r[5].clone(),
                    ]
                })
                .collect();
            print!(
                "{}",
                wrapped_table(
                    &["scope", "figure", "counted", "share", "without (first ids)"],
                    &table,
                    120
                )
            );
        }
    }
    Ok(())
}

/// One row per figure of a scope: counted, total, share (percent) and the ids without.
fn figure_rows(scope: &str, c: &Completeness) -> Vec<Vec<String>> {
    let pct = |s: Option<f64>| s.map_or("-".to_string(), |s| format!("{:.1}%", s * 100.0));
    let row = |name: &str, f: &Figure| {
        vec![
            scope.to_string(),
            name.to_string(),
            f.counted.to_string(),
            f.total.to_string(),
            pct(f.share),
            f.without.join(" "),
        ]
    };
    let mut out = vec![
        row("outfalls with a receiving water", &c.outfalls_with_water),
        row(
            "pipes with a recorded flow direction",
            &c.pipes_with_direction,
        ),
        row("structures joined to the network", &c.structures_joined),
    ];
    if let Some(a) = &c.sewershed_coverage {
        out.push(vec![
            scope.to_string(),
            "area inside a sewershed".into(),
            format!("{:.0}", a.covered),
            format!("{:.0}", a.area),
            pct(a.share),
            String::new(),
        ]);
    }
    out
}
