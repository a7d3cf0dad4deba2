//! `ms4 nearby`: facilities near a point, nearest first.

use anyhow::{bail, Context};
use clap::Args;
use geo_types::Point;

use super::output::{self, QueryFormat};
use crate::domain::Layer;
use crate::import::crs::Reprojector;
use crate::rules::quantity::parse_length;
use crate::spatial::query::{self, Access, NearbyQuery, FACILITY_LAYERS};
use crate::spatial::Snapshot;

/// Arguments of `ms4 nearby`.
#[derive(Debug, Args)]
pub struct NearbyArgs {
    /// Longitude (WGS 84), with --lat.
    #[arg(long, requires = "lat", conflicts_with_all = ["x", "y"], allow_hyphen_values = true)]
    pub lon: Option<f64>,
    /// Latitude (WGS 84), with --lon.
    #[arg(long, requires = "lon", allow_hyphen_values = true)]
    pub lat: Option<f64>,
    /// Easting in the registry's CRS, with --y.
    #[arg(long, requires = "y", allow_hyphen_values = true)]
    pub x: Option<f64>,
    /// Northing in the registry's CRS, with --x.
    #[arg(long, requires = "x", allow_hyphen_values = true)]
    pub y: Option<f64>,
    /// Only facilities within this distance, with its unit: 500ft, 150m.
    #[arg(long)]
    pub radius: Option<String>,
    /// At most this many (default 10 when no radius is given).
    #[arg(long)]
    pub k: Option<usize>,
    /// Which facilities: catch_basin, manhole, outfall, smp (comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub kinds: Vec<String>,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// Reads a facility kind as its layer.
pub fn facility_layer(kind: &str) -> anyhow::Result<Layer> {
    Ok(match kind.trim().to_ascii_lowercase().replace('-', "_").trim_end_matches('s') {
        "catch_basin" | "cb" | "inlet" => Layer::CatchBasins,
        "manhole" | "mh" => Layer::Manholes,
        "outfall" => Layer::Outfalls,
        "smp" | "bmp" => Layer::Smps,
        other => bail!("--kinds: unknown facility kind {other:?}; expected catch_basin, manhole, outfall or smp"),
    })
}

pub(super) async fn run(store_url: &str, a: NearbyArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let unit = snap.meta.linear_unit;
    let at = match (a.lon, a.lat, a.x, a.y) {
        (Some(lon), Some(lat), _, _) => {
            if !(-180.0..=180.0).contains(&lon) || !(-90.0..=90.0).contains(&lat) {
                bail!("--lon/--lat: ({lon}, {lat}) is not a longitude/latitude");
            }
            let (x, y) = Reprojector::new(4326, snap.meta.srid)?.point(lon, lat)?;
            Point::new(x, y)
        }
        (_, _, Some(x), Some(y)) => Point::new(x, y),
        _ => bail!(
            "give a point: --lon X --lat Y (WGS 84) or --x X --y Y (EPSG:{})",
            snap.meta.srid
        ),
    };
    let radius = a
        .radius
        .as_deref()
        .map(|r| parse_length(r).map(|l| l.to(unit).value))
        .transpose()
        .context("--radius")?;
    let k = a.k.or(if radius.is_none() { Some(10) } else { None });
    let layers = if a.kinds.is_empty() {
        FACILITY_LAYERS.to_vec()
    } else {
        a.kinds
            .iter()
            .map(|k| facility_layer(k))
            .collect::<anyhow::Result<Vec<_>>>()?
    };
    let q = NearbyQuery {
        at,
        radius,
        k,
        layers,
    };
    let found = query::nearby(&snap, &q);
    let header = [
        "layer",
        "id",
        "distance",
        "unit",
        "bearing",
        "direction",
        "status",
        "last_inspection",
        "access",
    ];
    let rows: Vec<Vec<String>> = found
        .iter()
        .map(|n| {
            vec![
                n.layer.name().to_string(),
                n.id.clone(),
                format!("{:.2}", n.distance),
                n.unit.symbol().to_string(),
                format!("{:.0}", n.bearing_deg),
                n.direction.to_string(),
                n.status.clone().unwrap_or_default(),
                n.last_inspection.clone().unwrap_or_else(|| "never".into()),
                match &n.access {
                    Access::Easement {
                        easement_id,
                        instrument,
                        ..
                    } => match instrument {
                        Some(i) => format!("easement {easement_id} ({i})"),
                        None => format!("easement {easement_id}"),
                    },
                    Access::NoRecordedEasement => "no recorded easement".into(),
                },
            ]
        })
        .collect();
    match a.format {
        QueryFormat::Geojson => {
            let items = found
                .iter()
                .filter_map(|n| {
                    let g = snap.layer(n.layer).get(&n.id)?.geom.clone()?;
                    Some((g, serde_json::to_value(n).ok()?))
                })
                .collect();
            println!("{}", output::geojson(snap.meta.srid, items)?);
        }
        QueryFormat::Table => print!("{}", output::table(&header, &rows)),
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "query": {
                    "x": at.x(), "y": at.y(), "crs": format!("EPSG:{}", snap.meta.srid),
                    "radius": radius.map(|r| serde_json::json!({"value": r, "unit": unit.symbol()})),
                    "k": k,
                },
                "facilities": found,
            }))?
        ),
    }
    Ok(())
}
