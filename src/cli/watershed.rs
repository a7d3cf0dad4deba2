//! `ms4 watershed-facilities`: the facilities inside a watershed, ranked for inspection.

use std::path::PathBuf;

use anyhow::{bail, Context};
use clap::Args;

use super::output::{self, QueryFormat};
use crate::domain::Layer;
use crate::rules::quantity::parse_length;
use crate::spatial::inspection::{inspection_list, RankOptions};
use crate::spatial::query::FACILITY_LAYERS;
use crate::spatial::{waters, Snapshot};

/// Arguments of `ms4 watershed-facilities`.
#[derive(Debug, Args)]
pub struct WatershedArgs {
    /// The watershed.
    pub watershed_id: Option<String>,
    /// A polygon to use instead of a watershed: GeoJSON, WGS 84.
    #[arg(long)]
    pub polygon: Option<PathBuf>,
    /// Which facilities: catch_basin, manhole, outfall, smp (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// Facilities this near a commercial or industrial parcel are hot spots.
    #[arg(long, default_value = "100ft")]
    pub hot_spot_distance: String,
    /// Days after which an inspection is overdue.
    #[arg(long, default_value_t = 365)]
    pub overdue_after_days: i64,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: WatershedArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::init::load_profile(&snap.meta.jurisdiction, None)?;
    let area = match (&a.watershed_id, &a.polygon) {
        (_, Some(path)) => super::determine::read_footprint(path, snap.meta.srid)?,
        (Some(id), None) => {
            let w = snap
                .layer(Layer::Watersheds)
                .get(id)
                .with_context(|| format!("no watershed {id:?} in the registry"))?;
            w.geom
                .as_ref()
                .and_then(waters::as_multipolygon)
                .with_context(|| format!("watershed {id} has no polygon"))?
        }
        (None, None) => bail!("give a watershed id or --polygon FILE"),
    };
    let layers = if a.kinds.is_empty() {
        FACILITY_LAYERS.to_vec()
    } else {
        a.kinds
            .iter()
            .map(|k| super::nearby::facility_layer(k))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let opts = RankOptions {
        hot_spot_distance: parse_length(&a.hot_spot_distance)
            .context("--hot-spot-distance")?
            .to(snap.meta.linear_unit)
            .value,
        overdue_after_days: a.overdue_after_days,
        today: chrono::Utc::now().date_naive(),
    };
    let list = inspection_list(
        &snap,
        &profile,
        &area,
        a.watershed_id.as_deref(),
        &layers,
        &opts,
    );
    let header = ["layer", "id", "score", "last_inspection", "reasons"];
    let rows: Vec<Vec<String>> = list
        .facilities
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
        .collect();
    match a.format {
        QueryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "list": list,
                "assumptions": {
                    "hot_spot_distance": {"value": opts.hot_spot_distance, "unit": snap.meta.linear_unit.symbol()},
                    "overdue_after_days": opts.overdue_after_days,
                    "note": "hot-spot distance and inspection interval are program settings, not law",
                },
            }))?
        ),
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Geojson => {
            let items = list
                .facilities
                .iter()
                .filter_map(|f| {
                    let g = snap.layer(f.layer).get(&f.id)?.geom.clone()?;
                    Some((g, serde_json::to_value(f).ok()?))
                })
                .collect();
            println!("{}", output::geojson(snap.meta.srid, items)?);
        }
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
            print!("{}", output::table(&header, &rows));
        }
    }
    Ok(())
}
