//! `ms4 watershed-facilities`: the facilities inside a watershed, ranked for inspection.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::watershed_facilities::{watershed_facilities, WatershedFacilitiesParams};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::Snapshot;

/// Arguments of `ms4 watershed-facilities`.
#[derive(Debug, Args)]
pub struct WatershedFacilitiesArgs {
    /// The question (the same parameters as `GET /api/watersheds/{id}/facilities`).
    #[command(flatten)]
    pub ask: WatershedFacilitiesParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, mut a: WatershedFacilitiesArgs) -> anyhow::Result<()> {
    if a.ask.watershed_id.is_none() && a.ask.polygon.is_none() {
        anyhow::bail!(
            "give the watershed's id (ms4 watershed-facilities WS-0003; ms4 list watersheds lists them) or --polygon with a GeoJSON file or inline GeoJSON"
        );
    }
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    // --polygon takes a file or the GeoJSON itself: text that is no file and opens a JSON
    // object is read as GeoJSON.
    let inline = match a.ask.polygon.as_ref() {
        Some(p) if !p.exists() && p.to_string_lossy().trim_start().starts_with('{') => {
            let text = p.to_string_lossy().into_owned();
            let mp = crate::answer::place::footprint_from_text(&text, snap.meta.srid, "polygon")
                .map_err(|e| e.into_cli())?;
            a.ask.polygon = None;
            Some(mp)
        }
        Some(p) if !p.exists() => anyhow::bail!(
            "--polygon {}: no such file; give a GeoJSON file, or the GeoJSON itself ('{{\"type\": \"Polygon\", ...}}')",
            p.display()
        ),
        _ => None,
    };
    let answer = watershed_facilities(&Ask::new(&snap, &profile), &a.ask, inline)
        .map_err(|e| e.into_cli())?;
    let list = &answer.list;
    let header = ["layer", "id", "score", "last_inspection", "reasons"];
    let rows = || -> Vec<Vec<String>> {
        list.facilities
            .iter()
            .map(|f| {
                vec![
                    f.layer.name().into(),
                    f.id.clone(),
                    f.score.to_string(),
                    f.last_inspection
                        .map(|d| d.to_string())
                        .unwrap_or_else(|| "never".into()),
                    f.reasons.join("; "),
                ]
            })
            .collect()
    };
    match a.format {
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows())),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Table => {
            println!(
                "{} facilities; drains to {} ({}); stormwater TMDL areas: {}{}",
                list.facilities.len(),
                list.drains_to.as_deref().unwrap_or("?"),
                if list.drains_to_303d {
                    "303(d)-listed"
                } else {
                    "not listed"
                },
                if list.tmdl_areas.is_empty() {
                    "none".to_string()
                } else {
                    list.tmdl_areas.join(", ")
                },
                if list.priority_area {
                    " — a priority area"
                } else {
                    ""
                }
            );
            print!("{}", output::table(&header, &rows()));
        }
    }
    Ok(())
}
