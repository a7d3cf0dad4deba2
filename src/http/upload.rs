//! Uploads: an analyst sends a zipped shapefile, GeoPackage, GeoJSON or CSV for a layer,
//! with field mappings and a dry-run switch, and gets the import's quality report — the
//! same import as `ms4 import`, in one transaction.
//!
//! `POST /api/layers/{layer}/import`, `multipart/form-data` with parts `file` (the data,
//! with its file name), and optionally `map` (repeatable, `canonical=SOURCE`),
//! `src_layer`, `s_srs` (`EPSG:n`), `dry_run`, `replace`, `allow_empty`,
//! `allow_mass_delete` (true/false) and `invalid` (`repair` or `reject`).
//!
//! An upload is opened only by the drivers of [`gdal_guard::ALLOWED_DRIVERS`], never
//! as a VRT or a network path, with GDAL's network access off in the server.

use axum::extract::{Multipart, Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Extension, Json, Router};

use super::{AppState, Caller, HttpError, NETWORK_LAYERS};
use crate::domain::Layer;
use crate::import::cancel::{Cancel, Stop};
use crate::import::{self, crs, gdal_guard, source, ImportError, ImportOptions, InvalidPolicy};
use crate::store::WriteMode;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/layers/{layer}/import", post(upload))
}

/// Extensions GDAL is given the file under; the rest are refused before anything is read.
const ACCEPTED: [&str; 7] = ["zip", "gpkg", "geojson", "json", "csv", "kml", "fgb"];

/// The longest file name an upload may carry (most file systems' limit for one name).
const MAX_FILE_NAME_BYTES: usize = 255;
/// Uploads of up to this many features keep a copy of them, so the server can add them
/// to its snapshot without reading the layer again (a few megabytes at most).
const KEEP_WRITTEN: usize = 10_000;
/// The longest stem kept for the temporary copy: the name only helps GDAL and the
/// messages, and the server's temporary folder adds its own length.
const MAX_STEM_CHARS: usize = 100;

fn flag(part: &str, v: &str) -> Result<bool, HttpError> {
    crate::domain::feature::parse_bool(v)
        .ok_or_else(|| HttpError::field(part, format!("{v:?} is not true or false")))
}

/// A multipart read that failed: over the body limit (which surfaces part way through the
/// stream) is a 413, anything else a 400 said as `what: why`.
fn form_error(e: axum::extract::multipart::MultipartError, what: &str, limit: usize) -> HttpError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        HttpError::PayloadTooLarge(format!(
            "file: larger than this server's limit of {limit} bytes"
        ))
    } else {
        HttpError::field(what, e.body_text())
    }
}

async fn upload(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(layer): Path<String>,
    mut form: Multipart,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let layer: Layer = layer
        .parse()
        .map_err(|e: crate::domain::layer::UnknownLayer| {
            HttpError::NotFound(format!("layer: {e}"))
        })?;
    // Before the first byte of an upload reaches GDAL, GDAL may not reach the network.
    gdal_guard::lock_down();
    let dir = tempfile::tempdir().map_err(HttpError::Internal)?;
    let mut file: Option<std::path::PathBuf> = None;
    let mut opts = ImportOptions::new(layer, "");
    opts.actor = caller.subject.clone();
    let limit = state.config.body_limit;
    let mut replace = false;
    let mut uploaded_as = String::new();
    loop {
        let field = form
            .next_field()
            .await
            .map_err(|e| form_error(e, "body: not a readable multipart form", limit))?;
        let Some(field) = field else { break };
        let name = field.name().unwrap_or("").to_string();
        match name.as_str() {
            "file" => {
                let fname = field.file_name().unwrap_or("").to_string();
                if fname.len() > MAX_FILE_NAME_BYTES {
                    return Err(HttpError::BadRequest(format!(
                        "file: the file name is {} bytes long; at most {MAX_FILE_NAME_BYTES} are accepted",
                        fname.len()
                    )));
                }
                uploaded_as = fname.clone();
                // Only the base name, and only its extension matters to GDAL: nothing the
                // client sends decides where the file lands.
                let ext = std::path::Path::new(&fname)
                    .extension()
                    .and_then(|e| e.to_str())
                    .map(str::to_ascii_lowercase)
                    .unwrap_or_default();
                if !ACCEPTED.contains(&ext.as_str()) {
                    return Err(HttpError::BadRequest(format!(
                        "file: {fname:?}: send a zipped shapefile (.zip), a GeoPackage (.gpkg), GeoJSON (.geojson/.json), CSV (.csv), KML (.kml) or FlatGeobuf (.fgb), with its file name"
                    )));
                }
                let stem: String = std::path::Path::new(&fname)
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or("upload")
                    .chars()
                    .take(MAX_STEM_CHARS)
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                let path = dir.path().join(format!("{stem}.{ext}"));
                // Streamed to disk chunk by chunk: a 200 MB shapefile is never held in
                // memory whole.
                let mut out = tokio::fs::File::create(&path)
                    .await
                    .map_err(HttpError::Internal)?;
                let mut field = field;
                loop {
                    let chunk = field
                        .chunk()
                        .await
                        .map_err(|e| form_error(e, "file", limit))?;
                    let Some(chunk) = chunk else { break };
                    tokio::io::AsyncWriteExt::write_all(&mut out, &chunk)
                        .await
                        .map_err(HttpError::Internal)?;
                }
                tokio::io::AsyncWriteExt::flush(&mut out)
                    .await
                    .map_err(HttpError::Internal)?;
                file = Some(path);
            }
            other => {
                let v = field
                    .text()
                    .await
                    .map_err(|e| HttpError::field(other, e.body_text()))?;
                if let Some(why) = crate::domain::text::line_problem(&v) {
                    return Err(HttpError::field(other, why.to_string()));
                }
                match other {
                    "map" => opts.maps.push(
                        source::parse_map(&v).map_err(|e| HttpError::field("map", e.to_string()))?,
                    ),
                    "src_layer" => opts.src_layer = Some(v),
                    "s_srs" => {
                        opts.s_srs = Some(
                            crs::parse_epsg(&v)
                                .map_err(|e| HttpError::field("s_srs", e.to_string()))?,
                        )
                    }
                    "dry_run" => opts.dry_run = flag("dry_run", &v)?,
                    "replace" => replace = flag("replace", &v)?,
                    "allow_empty" => opts.allow_empty = flag("allow_empty", &v)?,
                    "allow_mass_delete" => {
                        opts.allow_mass_delete = flag("allow_mass_delete", &v)?
                    }
                    "invalid" => {
                        opts.invalid = match v.as_str() {
                            "repair" => InvalidPolicy::Repair,
                            "reject" => InvalidPolicy::Reject,
                            _ => {
                                return Err(HttpError::BadRequest(format!(
                                    "invalid: {v:?}; expected repair or reject"
                                )))
                            }
                        }
                    }
                    _ => {
                        return Err(HttpError::BadRequest(format!(
                            "{other}: not a part of an upload (file, map, src_layer, s_srs, dry_run, replace, allow_empty, allow_mass_delete, invalid)"
                        )))
                    }
                }
            }
        }
    }
    let Some(path) = file else {
        return Err(HttpError::BadRequest(
            "file: missing; send the data as a part named file".into(),
        ));
    };
    opts.path = path;
    opts.mode = if replace {
        WriteMode::Replace
    } else {
        WriteMode::Upsert
    };
    let dry_run = opts.dry_run;
    // A small upload is applied to the snapshot from the features it wrote (see
    // `SnapshotHandle::after_import`); the watcher leaves the layer to it meanwhile.
    opts.keep_written = KEEP_WRITTEN;
    // The read runs on a blocking thread: it stops, and the write rolls back, when the
    // request times out, the client hangs up (this future is dropped) or the server
    // shuts down.
    opts.cancel = Cancel::within(state.config.request_timeout);
    let _stop_reading = opts.cancel.on_drop();
    let _writing = (!dry_run).then(|| state.snapshot.writing(layer));
    let mut report = import::import(state.store.clone(), opts)
        .await
        .map_err(|e| match e {
            ImportError::Store(s) => HttpError::from(s),
            ImportError::TooLarge { message, .. } => {
                HttpError::PayloadTooLarge(format!("file: {uploaded_as}: the zip {message}"))
            }
            ImportError::Stopped {
                why: Stop::ShuttingDown,
                ..
            } => HttpError::Unavailable {
                message: "the server is shutting down; nothing was imported, send the file again in a moment".into(),
                retry_after: 5,
            },
            // Everything else is about the file or the request: say so, by name, without the
            // server's temporary path.
            other => HttpError::Unprocessable(
                other
                    .to_string()
                    .replace(&format!("{}/", dir.path().display()), ""),
            ),
        })?;
    // The report names the file as the analyst sent it, not where the server kept it.
    report.source = uploaded_as;
    if !dry_run {
        let kept = report.kept.take();
        state
            .snapshot
            .after_import(state.store.as_ref(), layer, report.written.as_ref(), kept)
            .await?;
        // A new network is built here, before the answer, so the analyst's next question
        // sees it; everyone else keeps being answered from the snapshot before the upload
        // meanwhile (see `NetworkCache::consistent`).
        if NETWORK_LAYERS.contains(&layer) {
            let snap = state.snapshot.current();
            let st = state.clone();
            tokio::task::spawn_blocking(move || {
                st.networks
                    .get_or_build(&snap, |s| {
                        Ok(crate::answer::build_network(s, &st.profile.current()))
                    })
                    .map(|_| ())
            })
            .await
            .map_err(|e| HttpError::internal("building the network", e))?
            .map_err(|e| HttpError::internal("building the network", e))?;
        }
    }
    let status = if dry_run {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok((
        status,
        Json(serde_json::to_value(&report).unwrap_or_default()),
    ))
}
