//! Uploads: an analyst sends a zipped shapefile, GeoPackage, GeoJSON or CSV for a layer
//! (or split over several), with the options of `ms4 import`, and gets the import's
//! quality report — the same import as `ms4 import`, in one transaction.
//!
//! `POST /api/layers/{layer}/import`, `multipart/form-data` with parts `file` (the data,
//! with its file name), and optionally the options of `ms4 import`, named as its flags
//! with `_` for `-`: `where`, `id`, `id_prefix`, `map` (repeatable, `canonical=SOURCE`, or
//! `canonical=SOURCE:unit` for a length in another unit, as `--map` takes it),
//! `src_layer`, `s_srs` (`EPSG:n`), `dry_run`, `replace`, `allow_empty`,
//! `allow_mass_delete` (true/false) and `invalid` (`repair` or `reject`).
//!
//! A `preset` part (`lgim` or `utility-network`, as `ms4 import --preset`) reads a zipped
//! File Geodatabase by that Esri preset into every layer it fills, and answers the
//! mapping with a report per layer.
//!
//! `POST /api/import` takes the same form where the layers come from the form: a
//! `layer_by` part (`FIELD=layer:'value',...;layer:'value'`, as `--layer-by`; never a
//! file name) splits the file over several layers in one transaction and answers the
//! split's report, a report per layer; a `layer` part names one layer, as the path
//! would. On `/api/layers/{layer}/import` the path names the layer, so a `layer` or
//! `layer_by` part there is refused, naming the part.
//!
//! The parts are read into one [`ImportRequest`], the type `ms4 import` reads its flags
//! into, and run as it runs them: a part that is wrong (an unknown one, a flag that is
//! not true or false, a `map` without `=`, an `s_srs` that is no EPSG code, a `layer_by`
//! that names no layer, `id` with `id_prefix`, a `where` GDAL cannot apply...) is a 400
//! whose `field` names the part.
//!
//! An upload is opened only by the drivers of [`gdal_guard::ALLOWED_DRIVERS`], never
//! as a VRT or a network path, with GDAL's network access off in the server.

use axum::extract::{Multipart, Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use axum::{Extension, Json};
use serde_json::Value;

use super::{AppState, Caller, HttpError, NETWORK_LAYERS};
use crate::domain::Layer;
use crate::import::cancel::{Cancel, Stop};
use crate::import::{gdal_guard, ImportError, ImportRequest, RunContext};

/// The upload handlers, for their entries in `routes.rs` (which give each its path,
/// access and documentation): to the layer the path names (`POST
/// /api/layers/{layer}/import`), and to the layers the form names (`POST /api/import`).
pub(super) fn router() -> [axum::routing::MethodRouter<AppState>; 2] {
    [post(upload), post(upload_any)]
}

/// The parts an upload may have besides `file`, as the refusal of another lists them.
const PARTS: &str = "file, layer, layer_by, where, id, id_prefix, map, src_layer, s_srs, dry_run, replace, allow_empty, allow_mass_delete, invalid, preset";

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

/// `POST /api/layers/{layer}/import`: the path names the layer.
async fn upload(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(layer): Path<String>,
    form: Multipart,
) -> Result<(StatusCode, Json<Value>), HttpError> {
    let layer: Layer = layer
        .parse()
        .map_err(|e: crate::domain::layer::UnknownLayer| {
            HttpError::NotFound(format!("layer: {e}"))
        })?;
    import_form(state, caller, Some(layer), form).await
}

/// `POST /api/import`: the form names the layer, or splits the file with `layer_by`.
async fn upload_any(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    form: Multipart,
) -> Result<(StatusCode, Json<Value>), HttpError> {
    import_form(state, caller, None, form).await
}

/// The form's file, written to `dir`, and its other parts as a JSON object: text parts
/// by name (`map` as the list of its parts), for [`ImportRequest`] to read.
struct Form {
    file: Option<std::path::PathBuf>,
    uploaded_as: String,
    parts: serde_json::Map<String, Value>,
}

async fn read_form(
    mut form: Multipart,
    dir: &std::path::Path,
    limit: usize,
) -> Result<Form, HttpError> {
    let mut out = Form {
        file: None,
        uploaded_as: String::new(),
        parts: serde_json::Map::new(),
    };
    let mut maps = Vec::new();
    loop {
        let field = form
            .next_field()
            .await
            .map_err(|e| form_error(e, "body: not a readable multipart form", limit))?;
        let Some(field) = field else { break };
        let name = field.name().unwrap_or("").to_string();
        if name == "file" {
            let (path, fname) = save_file(field, dir, limit).await?;
            out.file = Some(path);
            out.uploaded_as = fname;
            continue;
        }
        let v = field
            .text()
            .await
            .map_err(|e| HttpError::field(&name, e.body_text()))?;
        if let Some(why) = crate::domain::text::line_problem(&v) {
            return Err(HttpError::field(&name, why.to_string()));
        }
        if name == "map" {
            maps.push(Value::String(v));
        } else {
            // A part given twice counts as its last, as it always has.
            out.parts.insert(name, Value::String(v));
        }
    }
    if !maps.is_empty() {
        out.parts.insert("map".into(), Value::Array(maps));
    }
    Ok(out)
}

/// The `file` part, streamed to disk chunk by chunk under a name of the server's (only
/// the extension of the client's matters to GDAL): its path and the name it was sent as.
async fn save_file(
    field: axum::extract::multipart::Field<'_>,
    dir: &std::path::Path,
    limit: usize,
) -> Result<(std::path::PathBuf, String), HttpError> {
    let fname = field.file_name().unwrap_or("").to_string();
    if fname.len() > MAX_FILE_NAME_BYTES {
        return Err(HttpError::BadRequest(format!(
            "file: the file name is {} bytes long; at most {MAX_FILE_NAME_BYTES} are accepted",
            fname.len()
        )));
    }
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
    let path = dir.join(format!("{stem}.{ext}"));
    // Streamed to disk chunk by chunk: a 200 MB shapefile is never held in memory whole.
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
    Ok((path, fname))
}

/// The form's parts as the request, refused naming the part at fault.
fn request(
    mut parts: serde_json::Map<String, Value>,
    path_layer: Option<Layer>,
) -> Result<ImportRequest, HttpError> {
    if let Some(layer) = path_layer {
        if parts.contains_key("layer_by") {
            return Err(HttpError::field(
                "layer_by",
                "with layer_by the layers come from the mapping: send the file to POST /api/import",
            ));
        }
        if parts.contains_key("layer") {
            return Err(HttpError::field(
                "layer",
                format!("the path names the layer ({layer}): send the file to POST /api/import to name it in the form"),
            ));
        }
        parts.insert("layer".into(), Value::String(layer.name().to_string()));
    }
    serde_path_to_error::deserialize(Value::Object(parts)).map_err(|e| {
        let part = e.path().to_string();
        let said = e.into_inner().to_string();
        if said.starts_with("unknown field") {
            HttpError::field(part, format!("not a part of an upload ({PARTS})"))
        } else {
            HttpError::field(part, said)
        }
    })
}

async fn import_form(
    state: AppState,
    caller: Caller,
    path_layer: Option<Layer>,
    form: Multipart,
) -> Result<(StatusCode, Json<Value>), HttpError> {
    // Before the first byte of an upload reaches GDAL, GDAL may not reach the network.
    gdal_guard::lock_down();
    let dir = tempfile::tempdir().map_err(HttpError::Internal)?;
    let form = read_form(form, dir.path(), state.config.body_limit).await?;
    let request = request(form.parts, path_layer)?;
    let Some(path) = form.file else {
        return Err(HttpError::BadRequest(
            "file: missing; send the data as a part named file".into(),
        ));
    };
    let uploaded_as = form.uploaded_as;
    // Everything about the file or the request is said by name, without the server's
    // temporary path.
    let tmp = format!("{}/", dir.path().display());
    let refused = |e: ImportError| match e {
        ImportError::Invalid { field, message } => {
            HttpError::field(field, message.replace(&tmp, ""))
        }
        ImportError::Store(s) => HttpError::from(s),
        ImportError::TooLarge { message, .. } => {
            HttpError::PayloadTooLarge(format!("file: {uploaded_as}: the zip {message}"))
        }
        ImportError::Stopped {
            why: Stop::ShuttingDown,
            ..
        } => HttpError::Unavailable {
            message:
                "the server is shutting down; nothing was imported, send the file again in a moment"
                    .into(),
            retry_after: 5,
        },
        other => HttpError::Unprocessable(other.to_string().replace(&tmp, "")),
    };
    let mut ctx = RunContext::new(path);
    ctx.actor = caller.subject.clone();
    // A small upload is applied to the snapshot from the features it wrote (see
    // `SnapshotHandle::after_import`); the watcher leaves the layer to it meanwhile.
    ctx.keep_written = KEEP_WRITTEN;
    // The read runs on a blocking thread: it stops, and the write rolls back, when the
    // request times out, the client hangs up (this future is dropped) or the server
    // shuts down.
    ctx.cancel = Cancel::within(state.config.request_timeout);
    let _stop_reading = ctx.cancel.on_drop();
    let plan = request.plan(ctx).map_err(&refused)?;
    let dry_run = plan.options.dry_run;
    let layers = plan.layers();
    let _writing: Vec<_> = if dry_run {
        Vec::new()
    } else {
        layers.iter().map(|l| state.snapshot.writing(*l)).collect()
    };
    let mut outcome = plan.run(state.store.clone()).await.map_err(&refused)?;
    for report in outcome.reports_mut() {
        // The report names the file as the analyst sent it, not where the server kept it.
        report.source = uploaded_as.clone();
        // Each report says its layer (a preset's are known only once the file is read).
        let Ok(layer) = report.layer.parse::<Layer>() else {
            continue;
        };
        let layer = &layer;
        if !dry_run {
            let kept = report.kept.take();
            state
                .snapshot
                .after_import(state.store.as_ref(), *layer, report.written.as_ref(), kept)
                .await?;
        }
    }
    // A new network is built here, before the answer, so the analyst's next question
    // sees it; everyone else keeps being answered from the snapshot before the upload
    // meanwhile (see `NetworkCache::consistent`).
    if !dry_run && layers.iter().any(|l| NETWORK_LAYERS.contains(l)) {
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
    let status = if dry_run {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok((
        status,
        Json(serde_json::to_value(&outcome).unwrap_or_default()),
    ))
}
