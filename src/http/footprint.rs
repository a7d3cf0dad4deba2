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
//! The reading itself is [`crate::import::footprint`]'s; this module parses the form
//! and answers.
//!
//! Anyone may send one to a public-read server, so the read is bounded: the file passes
//! the same checks an upload does (no VRT, no GeoPackage view or trigger, a zip's
//! limits), the polygons are counted against the footprint's budget as they are read
//! and before they are joined, and the read stops when the request times out, the
//! client goes away or the server shuts down ([`crate::import::cancel`]).

use axum::extract::{Multipart, State};
use axum::routing::post;
use axum::Json;
use serde_json::Value;

use super::{AppState, HttpError};
use crate::import::cancel::{Cancel, Stop};
use crate::import::footprint::{read as read_footprint, FootprintError};
use crate::import::{crs, gdal_guard, ImportError};

/// The handler of `POST /api/footprint` (its entry, with its access and documentation, is
/// in `routes.rs`).
pub(super) fn router() -> axum::routing::MethodRouter<AppState> {
    post(footprint)
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
    let feature = tokio::task::spawn_blocking(move || {
        read_footprint(&path, &name, s_srs, &cancel).map_err(|e| refused(e, &name))
    })
    .await
    .map_err(HttpError::Internal)??;
    // The checks any footprint gets (a polygon, not empty, not absurdly large...).
    crate::answer::place::footprint_from_value(&feature, srid, "file")?;
    Ok(Json(feature))
}

/// A footprint that could not be read, answered: what is wrong with the file is a 400 or
/// 422 naming `file` (or `s_srs`), a zip over its limits a 413.
fn refused(e: FootprintError, name: &str) -> HttpError {
    match e {
        FootprintError::Unreadable { source, message } => match *source {
            ImportError::TooLarge { message, .. } => {
                HttpError::PayloadTooLarge(format!("file: {name}: the zip {message}"))
            }
            _ => HttpError::Unprocessable(format!("file: {message}")),
        },
        FootprintError::UnknownCrs { code, source } => {
            HttpError::field("s_srs", format!("EPSG:{code}: {source}"))
        }
        FootprintError::OverBudget(why) => HttpError::field("file", why),
        FootprintError::Stopped { why, read } => stopped(why, read),
        e @ FootprintError::Internal { .. } => HttpError::Internal(e),
        e => HttpError::Unprocessable(format!("file: {e}")),
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
