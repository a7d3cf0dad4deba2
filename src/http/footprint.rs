//! `POST /api/footprint`: a planner's footprint from a file — a zipped shapefile, a
//! GeoPackage, GeoJSON, KML or FlatGeobuf — read by the same allow-listed GDAL opening the
//! uploads use, and answered as one GeoJSON feature in CRS84 that the page draws and sends
//! back as the determination's footprint.
//!
//! `multipart/form-data` with a part `file` (the data, with its file name) and optionally
//! `s_srs` (`EPSG:n`) for a file that names no CRS. Every polygon of the file's layer is
//! joined into one footprint, which must pass the same checks a footprint given to
//! `/api/determinations` does; what is wrong is a 400 or 422 naming `file` (or `s_srs`).
//!
//! Anyone may send one to a public-read server, so the read is bounded: the file passes
//! the same checks an upload does (no VRT, no GeoPackage view or trigger, a zip's
//! limits), the polygons are counted against the footprint's budget as they are read
//! and before they are joined, and the read stops when the request times out, the
//! client goes away or the server shuts down ([`crate::import::cancel`]).

use axum::extract::{Multipart, State};
use axum::routing::post;
use axum::{Json, Router};
use gdal::spatial_ref::{AxisMappingStrategy, CoordTransform, SpatialRef};
use gdal::vector::{Geometry as OgrGeometry, LayerAccess};
use geo_types::{Geometry, MultiPolygon, Polygon};
use serde_json::{json, Value};

use super::{AppState, HttpError};
use crate::domain::Layer;
use crate::import::cancel::{Cancel, Stop};
use crate::import::{crs, gdal_guard, source};
use crate::spatial::size::Size;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/footprint", post(footprint))
}

/// The longest a footprint file may take to read, when the request timeout is longer: a
/// project's outline reads in milliseconds, so a file that takes longer is not one.
const READ_BUDGET: std::time::Duration = std::time::Duration::from_secs(30);

/// What a footprint file may be (a CSV holds no polygon).
const ACCEPTED: [&str; 6] = ["zip", "gpkg", "geojson", "json", "kml", "fgb"];

fn bad(msg: impl std::fmt::Display) -> HttpError {
    HttpError::field("file", msg.to_string())
}

async fn footprint(
    State(state): State<AppState>,
    mut form: Multipart,
) -> Result<Json<Value>, HttpError> {
    gdal_guard::lock_down();
    let dir = tempfile::tempdir().map_err(HttpError::Internal)?;
    let mut file: Option<(std::path::PathBuf, String)> = None;
    let mut s_srs: Option<i32> = None;
    while let Some(field) = form
        .next_field()
        .await
        .map_err(|e| HttpError::BadRequest(format!("body: {}", e.body_text())))?
    {
        match field.name().unwrap_or("") {
            "file" => {
                let name = field.file_name().unwrap_or("").to_string();
                let ext = std::path::Path::new(&name)
                    .extension()
                    .and_then(|e| e.to_str())
                    .map(str::to_ascii_lowercase)
                    .unwrap_or_default();
                if !ACCEPTED.contains(&ext.as_str()) {
                    return Err(bad(format!(
                        "{name:?}: send a zipped shapefile (.zip), a GeoPackage (.gpkg), GeoJSON (.geojson/.json), KML (.kml) or FlatGeobuf (.fgb), with its file name"
                    )));
                }
                let bytes = field
                    .bytes()
                    .await
                    .map_err(|e| HttpError::field("file", e.body_text()))?;
                // Only the extension of the client's name is used: it decides nothing else.
                let path = dir.path().join(format!("footprint.{ext}"));
                std::fs::write(&path, &bytes).map_err(HttpError::Internal)?;
                file = Some((path, name));
            }
            "s_srs" => {
                let v = field
                    .text()
                    .await
                    .map_err(|e| HttpError::field("s_srs", e.body_text()))?;
                s_srs = Some(
                    crs::parse_epsg(&v).map_err(|e| HttpError::field("s_srs", e.to_string()))?,
                );
            }
            other => {
                return Err(HttpError::BadRequest(format!(
                    "{other}: not a part of a footprint upload (file, s_srs)"
                )))
            }
        }
    }
    let Some((path, name)) = file else {
        return Err(bad("missing; send the footprint as a part named file"));
    };
    let srid = state.snapshot.current().meta.srid;
    let cancel = Cancel::within(state.config.request_timeout.min(READ_BUDGET));
    // Dropped with this future: when the client hangs up or the request times out, the
    // blocking read stops too.
    let _stop_reading = cancel.on_drop();
    let feature = tokio::task::spawn_blocking(move || read(&path, &name, s_srs, &cancel))
        .await
        .map_err(HttpError::Internal)??;
    // The checks any footprint gets (a polygon, not empty, not absurdly large...).
    crate::answer::place::footprint_from_value(&feature, srid, "file")?;
    Ok(Json(feature))
}

/// Every polygon of the file's layer, in CRS84, joined into one feature.
fn read(
    path: &std::path::Path,
    name: &str,
    s_srs: Option<i32>,
    cancel: &Cancel,
) -> Result<Value, HttpError> {
    let unreadable = |e: crate::import::ImportError| match e {
        crate::import::ImportError::TooLarge { message, .. } => {
            HttpError::PayloadTooLarge(format!("file: {name}: the zip {message}"))
        }
        e => HttpError::Unprocessable(format!("file: {name}: {}", strip(&e.to_string(), path))),
    };
    source::check_source(path, false).map_err(unreadable)?;
    let mut opened = source::open(path, &source::CsvGeometry::None, false).map_err(unreadable)?;
    opened.watch(cancel);
    let mut layer = source::pick_layer(&opened.ds, name, None, Layer::Parcels)
        .map_err(|e| HttpError::Unprocessable(format!("file: {}", strip(&e.to_string(), path))))?;
    let mut from = match (s_srs, layer.spatial_ref()) {
        (Some(code), _) => SpatialRef::from_epsg(code as u32)
            .map_err(|e| HttpError::field("s_srs", format!("EPSG:{code}: {e}")))?,
        (None, Some(sr)) => sr,
        (None, None) => {
            return Err(HttpError::Unprocessable(format!(
            "file: {name} names no coordinate system (a shapefile without its .prj?); send s_srs"
        )))
        }
    };
    let mut to = SpatialRef::from_epsg(4326).map_err(HttpError::Internal)?;
    // Longitude first, as GeoJSON has it.
    from.set_axis_mapping_strategy(AxisMappingStrategy::TraditionalGisOrder);
    to.set_axis_mapping_strategy(AxisMappingStrategy::TraditionalGisOrder);
    let ct = CoordTransform::new(&from, &to).map_err(HttpError::Internal)?;
    let mut polys: Vec<Polygon<f64>> = Vec::new();
    let mut features = 0;
    let mut size = Size::default();
    for f in layer.features() {
        cancel.check().map_err(|why| stopped(why, features))?;
        let Some(g) = f.geometry() else { continue };
        features += 1;
        // Counted before the polygon is converted, and the whole file before the polygons
        // are joined: a union's cost grows faster than its input.
        size = size.plus(ogr_size(g));
        crate::answer::place::footprint_size("file", size)?;
        let t = g.transform(&ct).map_err(|e| {
            HttpError::Unprocessable(format!("file: feature {features}: cannot reach CRS84: {e}"))
        })?;
        let text = t.json().map_err(HttpError::Internal)?;
        let gj: geojson::Geometry = text
            .parse()
            .map_err(|e| HttpError::Unprocessable(format!("file: feature {features}: {e}")))?;
        match Geometry::<f64>::try_from(gj) {
            Ok(Geometry::Polygon(p)) => polys.push(p),
            Ok(Geometry::MultiPolygon(m)) => polys.extend(m.0),
            _ => {
                return Err(HttpError::Unprocessable(format!(
                    "file: feature {features} of {name} is not a polygon; a footprint is the outline of the project"
                )))
            }
        }
    }
    // An interrupted statement ends the loop as the end of the file would.
    cancel.check().map_err(|why| stopped(why, features))?;
    if polys.is_empty() {
        return Err(HttpError::Unprocessable(format!(
            "file: {name} holds no polygon"
        )));
    }
    let joined: MultiPolygon<f64> = if polys.len() == 1 {
        MultiPolygon(polys)
    } else {
        geo::unary_union(&polys)
    };
    let geometry = geojson::Geometry::from(&joined);
    Ok(json!({
        "type": "Feature",
        "geometry": geometry,
        "properties": {"file": name, "features": features, "polygons": joined.0.len()},
    }))
}

/// Parts and vertices of an OGR geometry, counted without converting it.
fn ogr_size(g: &OgrGeometry) -> Size {
    fn vertices(g: &OgrGeometry) -> usize {
        match g.geometry_count() {
            0 => g.point_count(),
            n => (0..n).map(|i| vertices(&g.get_geometry(i))).sum(),
        }
    }
    use gdal_sys::OGRwkbGeometryType as T;
    let parts = match gdal::vector::geometry_type_flatten(g.geometry_type()) {
        T::wkbMultiPolygon | T::wkbMultiSurface | T::wkbGeometryCollection => g.geometry_count(),
        _ => 1,
    };
    Size {
        parts,
        vertices: vertices(g),
    }
}

/// A stopped read, answered (no one hears the answer to a request that went away).
fn stopped(why: Stop, read: usize) -> HttpError {
    tracing::info!(read, %why, "footprint read stopped");
    match why {
        Stop::ShuttingDown => HttpError::Unavailable {
            message: "the server is shutting down; send the file again in a moment".into(),
            retry_after: 5,
        },
        why => HttpError::Unprocessable(format!("file: {why}")),
    }
}

/// A message without the server's temporary path.
fn strip(msg: &str, path: &std::path::Path) -> String {
    msg.replace(&path.display().to_string(), "the file")
}
