//! Import and export through GDAL: read any vector format GDAL reads, reproject into the
//! registry's CRS, validate, report, and write in one transaction.
//!
//! GDAL's `Dataset` is `Send` but not `Sync`, so a source is opened, read and converted
//! inside one blocking task that hands plain [`Feature`] chunks to the store's writer
//! over a channel. Reading and writing overlap, on two cores, and the writer commits only
//! when the reader says the whole file was read.

mod collect;
mod convert;
pub mod crs;
mod declared;
mod error;
pub mod export;
pub mod gdal_guard;
pub mod idexpr;
mod pipeline;
mod progress;
mod report;
mod select;
pub mod settings;
mod simple;
pub mod source;
pub mod split;
mod unchanged;
pub mod zipcheck;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use gdal::vector::LayerAccess;
use geo::BoundingRect;
use geo_types::{Geometry, MultiPolygon};
use tokio::sync::mpsc;

pub use convert::{geometry_name, InvalidPolicy, MAX_VALUE_BYTES};
pub use error::{ImportError, Result};
pub use report::{FeatureNote, ImportReport, ProblemCounts};

use crate::domain::Layer;
use crate::store::{Store, StoreError, WriteMode, WriteMsg, WriteRequest};
use collect::{Bounds, Collector};
use progress::Progress;
use source::CsvGeometry;

/// Features per chunk handed to the writer.
const CHUNK: usize = 4096;
/// Chunks that may wait between the reader and the writer.
const CHANNEL_CHUNKS: usize = 64;
/// The share of a layer `--replace` may delete without `--allow-mass-delete`: a file
/// that carries less than half the layer is far more often a subset or the wrong file
/// than the town's real loss of half its assets.
pub const DEFAULT_MAX_DELETE_SHARE: f64 = 0.5;
/// The least distance beyond the boundary's box at which a feature is refused rather
/// than noted: a town's outfalls and easements may lie in the next town, but not 25 km
/// (about 16 miles) away.
const BOUNDARY_MARGIN_M: f64 = 25_000.0;

/// What to import and how.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// The registry layer to write.
    pub layer: Layer,
    /// The file (any GDAL vector format, a zipped shapefile, a CSV).
    pub path: PathBuf,
    /// `canonical=source` field mappings.
    pub maps: Vec<(String, String)>,
    /// The layer inside the file, when it has several.
    pub src_layer: Option<String>,
    /// The source CRS, overriding (or standing in for) the file's.
    pub s_srs: Option<i32>,
    /// Report only; write nothing.
    pub dry_run: bool,
    /// Upsert or replace.
    pub mode: WriteMode,
    /// Repair or reject invalid polygons.
    pub invalid: InvalidPolicy,
    /// Who is importing (for the audit log).
    pub actor: String,
    /// Show a progress bar on a terminal.
    pub progress: bool,
    /// Let GDAL open the file with any driver, VRTs and `/vsi*` paths included (only for
    /// a user's own files on the command line; never for uploads).
    pub any_driver: bool,
    /// Let `--replace` empty a layer with a file that has no features.
    pub allow_empty: bool,
    /// Let `--replace` delete more than `max_delete_share` of a layer.
    pub allow_mass_delete: bool,
    /// The share of a layer `--replace` may delete without `allow_mass_delete`; `None`
    /// for the registry's setting (`ms4 profile set max_delete_share`), which defaults
    /// to [`DEFAULT_MAX_DELETE_SHARE`].
    pub max_delete_share: Option<f64>,
    /// Only the source features this OGR SQL condition selects (`--where`).
    pub filter: Option<String>,
    /// Ids from this expression over the source fields (`--id`).
    pub id_expr: Option<String>,
    /// Ids generated from this prefix and the source feature number (`--id-prefix`).
    pub id_prefix: Option<String>,
}

impl ImportOptions {
    /// Options with defaults: upsert, repair, no mappings, no progress bar.
    pub fn new(layer: Layer, path: impl Into<PathBuf>) -> Self {
        ImportOptions {
            layer,
            path: path.into(),
            maps: Vec::new(),
            src_layer: None,
            s_srs: None,
            dry_run: false,
            mode: WriteMode::Upsert,
            invalid: InvalidPolicy::Repair,
            actor: default_actor(),
            progress: false,
            any_driver: false,
            allow_empty: false,
            allow_mass_delete: false,
            max_delete_share: None,
            filter: None,
            id_expr: None,
            id_prefix: None,
        }
    }
}

/// The user running the command, for the audit log.
pub fn default_actor() -> String {
    std::env::var("USER")
        .or_else(|_| std::env::var("LOGNAME"))
        .unwrap_or_else(|_| "cli".into())
}

/// Imports a file into a layer of a registry and returns the quality report. Either every
/// accepted feature is committed, or (on any error) nothing is. A dry run writes no
/// feature but is recorded in the import log with its report.
pub async fn import(store: Arc<dyn Store>, opts: ImportOptions) -> Result<ImportReport> {
    let mut reports = import_many(store, vec![opts]).await?;
    Ok(reports.remove(0))
}

/// Imports several reads (each a file, or part of one, into a layer) in one
/// transaction: every accepted feature of every read is committed, or none is. The
/// reports come back in the order of `all`.
pub async fn import_many(
    store: Arc<dyn Store>,
    all: Vec<ImportOptions>,
) -> Result<Vec<ImportReport>> {
    let started = Instant::now();
    let meta = store.meta().await?;
    let mut writes = Vec::with_capacity(all.len());
    let mut readers = Vec::with_capacity(all.len());
    let dry_run = all.iter().any(|o| o.dry_run);
    for opts in all {
        let (req, rx, reader) = start_read(store.as_ref(), &meta, opts).await?;
        writes.push((req, rx));
        readers.push(reader);
    }
    let written = if dry_run {
        drop(writes);
        None
    } else if writes.len() == 1 {
        let (req, rx) = writes.pop().expect("one write");
        Some(store.write(req, rx).await.map(|w| vec![w]))
    } else {
        Some(store.write_layers(writes).await)
    };
    // A write that failed by itself (a full disk, a refused row, the database gone) closes
    // the channel, and its readers then stop early and report a read cut short. The
    // write's error is the cause, so it is the one reported; a write the readers aborted
    // gives way to the readers' own error below.
    if let Some(Err(e)) = &written {
        if !matches!(e, StoreError::Aborted(_)) {
            for (reader, ..) in readers {
                let _ = reader.await;
            }
            return Err(written.expect("some").expect_err("an error").into());
        }
    }
    let mut reports = Vec::with_capacity(readers.len());
    for (reader, actor, source_name) in readers {
        let report = reader.await.map_err(|e| ImportError::Read {
            path: String::new(),
            src_layer: String::new(),
            feature: 0,
            message: format!("the reader stopped: {e}"),
        })??;
        reports.push((report, actor, source_name));
    }
    let mut written = written.transpose()?.map(Vec::into_iter);
    let mut out = Vec::with_capacity(reports.len());
    for (mut report, actor, source_name) in reports {
        report.written = written.as_mut().and_then(Iterator::next);
        report.dry_run = dry_run;
        report.seconds = started.elapsed().as_secs_f64();
        if dry_run {
            record_dry_run(store.as_ref(), &report, actor, source_name).await?;
        }
        out.push(report);
    }
    crate::store::timing::report(started.elapsed().as_secs_f64());
    Ok(out)
}

/// A running read: the write it feeds, and the reader with who and what it reads.
type Started = (
    WriteRequest,
    mpsc::Receiver<WriteMsg>,
    (
        tokio::task::JoinHandle<Result<ImportReport>>,
        String,
        String,
    ),
);

/// Starts reading one source on a blocking thread, feeding a write channel.
async fn start_read(
    store: &dyn Store,
    meta: &crate::store::RegistryMeta,
    mut opts: ImportOptions,
) -> Result<Started> {
    if opts.mode == WriteMode::Replace && opts.max_delete_share.is_none() {
        opts.max_delete_share = Some(settings::max_delete_share(store).await?);
    }
    let boundary: Vec<MultiPolygon<f64>> = if opts.layer == Layer::Boundary {
        Vec::new()
    } else {
        store
            .features(Layer::Boundary)
            .await?
            .into_iter()
            .filter_map(|f| match f.geom {
                Some(Geometry::MultiPolygon(m)) => Some(m),
                _ => None,
            })
            .collect()
    };
    // What a replace would delete is decided against the layer as it stands now.
    let existing: Option<rustc_hash::FxHashSet<String>> = if opts.mode == WriteMode::Replace {
        Some(
            store
                .features(opts.layer)
                .await?
                .into_iter()
                .map(|f| f.id)
                .collect(),
        )
    } else {
        None
    };

    // A write into a layer that has rows compares content hashes: the conversion
    // threads compute them, so the writer, one task, only compares.
    let hash_here = !opts.dry_run && store.count(opts.layer).await? > 0;
    // Room for a few hundred thousand features between reader and writer: the reader
    // keeps going while the database digests a chunk, instead of the two taking turns.
    let (tx, rx) = mpsc::channel::<WriteMsg>(CHANNEL_CHUNKS);
    let source_name = opts
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let req = WriteRequest {
        layer: opts.layer,
        mode: opts.mode,
        actor: opts.actor.clone(),
        source: source_name.clone(),
    };
    let actor = opts.actor.clone();
    let unit = meta.linear_unit.symbol();
    let unit_metres = meta.linear_unit.metres();
    let srid = meta.srid;
    let reader = tokio::task::spawn_blocking(move || {
        let sink = (!opts.dry_run).then_some(&tx);
        let result = read_source(
            &opts,
            srid,
            unit,
            unit_metres,
            &boundary,
            existing.as_ref(),
            sink,
            hash_here,
        );
        match &result {
            Ok(report) => {
                if let Some(tx) = sink {
                    let report_json = serde_json::to_value(report).unwrap_or_default();
                    let _ = tx.blocking_send(WriteMsg::Commit {
                        report: report_json,
                    });
                }
            }
            Err(e) => {
                if let Some(tx) = sink {
                    let _ = tx.blocking_send(WriteMsg::Abort(e.to_string()));
                }
            }
        }
        result
    });
    Ok((req, rx, (reader, actor, source_name)))
}

/// Records a dry run in the import log: a write of no features, in upsert mode so it
/// changes nothing, whose source says "(dry run)" and whose stored report is the dry
/// run's. Who looked at what, and what they were told, is then on record like an import.
async fn record_dry_run(
    store: &dyn Store,
    report: &ImportReport,
    actor: String,
    source: String,
) -> Result<()> {
    let req = WriteRequest {
        layer: report
            .layer
            .parse()
            .map_err(|_| ImportError::Refused(format!("{}: not a registry layer", report.layer)))?,
        mode: WriteMode::Upsert,
        actor,
        source: format!("{source} (dry run)"),
    };
    let json = serde_json::to_value(report).unwrap_or_default();
    crate::store::write_all(store, req, Vec::new(), json).await?;
    Ok(())
}

fn read_source(
    opts: &ImportOptions,
    target_srid: i32,
    unit: &'static str,
    unit_metres: f64,
    boundary: &[MultiPolygon<f64>],
    existing: Option<&rustc_hash::FxHashSet<String>>,
    sink: Option<&mpsc::Sender<WriteMsg>>,
    hash_here: bool,
) -> Result<ImportReport> {
    let path_str = opts.path.display().to_string();
    let layer = opts.layer;
    let mut report = ImportReport {
        source: path_str.clone(),
        layer: layer.name().into(),
        ..Default::default()
    };

    // Before any byte is read: no FIFO, device, VRT or network path.
    source::check_source(&opts.path, opts.any_driver)?;
    let source_srs_override = opts.s_srs.map(crs::srs_from_epsg).transpose()?;
    let csv = if source::is_csv(&opts.path) {
        let planar = source_srs_override
            .as_ref()
            .is_some_and(|s| s.is_projected());
        source::csv_geometry(&opts.path, planar)?
    } else {
        CsvGeometry::None
    };
    let opened = source::open(&opts.path, &csv, opts.any_driver)?;
    let ds = &opened.ds;
    let mut src = source::pick_layer(ds, &path_str, opts.src_layer.as_deref(), layer)?;
    let src_name = src.name();
    report.source_layer = src_name.clone();
    let filtered = select::apply_filter(&mut src, opts, &path_str, &src_name, &mut report)?;
    let short = |message: String| ImportError::ShortRead {
        path: path_str.clone(),
        src_layer: src_name.clone(),
        message,
    };

    // What the source says it holds, to hold the read against.
    // With a filter, GDAL counts what the filter selects only by reading it: the read
    // itself (where any damage is an error) stands in for the declared count.
    let mut declared = if filtered {
        None
    } else {
        src.try_feature_count()
    };
    if opened.driver == "ESRI Shapefile" && !filtered {
        if let Some(n) =
            declared::shapefile_records(&gdal_guard::file_list(ds), &src_name).map_err(short)?
        {
            declared = Some(n);
        }
    }
    report.declared = declared;

    // The source CRS: --s-srs, else the file's, else (CSV lon/lat only) WGS 84.
    let target = crs::srs_from_epsg(target_srid)?;
    report.target_crs = crs::describe(&target);
    let has_geometry =
        src.defn().geom_fields().count() > 0 && layer.geom_kind() != crate::domain::GeomKind::None;
    // GDAL reads a GeoJSON whose "crs" it does not know as WGS 84, and only says so on
    // stderr: that guess must not pass for the file's CRS.
    let unknown_crs = (opened.driver == "GeoJSON" && !opened.open_errors.is_empty())
        .then(|| source::geojson_crs_name(&opts.path).unwrap_or_else(|| "a CRS".into()));
    let source_srs = match (source_srs_override, src.spatial_ref()) {
        (Some(s), file) => {
            match (&unknown_crs, file) {
                (Some(name), _) => report.warnings.push(format!(
                    "the file's crs {name} is unknown to PROJ; read as {} from --s-srs",
                    crs::describe(&s)
                )),
                (None, Some(f)) => report.warnings.push(format!(
                    "the file's CRS {} was overridden by --s-srs",
                    crs::describe(&f)
                )),
                (None, None) => {}
            }
            Some(s)
        }
        (None, _) if has_geometry && unknown_crs.is_some() => {
            return Err(ImportError::Crs(format!(
                "{path_str} (layer {src_name}): its \"crs\" member names {}, which PROJ does not know; give the CRS with --s-srs EPSG:<code>",
                unknown_crs.unwrap_or_default()
            )))
        }
        (None, Some(mut s)) => {
            s.set_axis_mapping_strategy(gdal::spatial_ref::AxisMappingStrategy::TraditionalGisOrder);
            Some(s)
        }
        (None, None) if matches!(csv, CsvGeometry::LonLat(..)) => {
            report.warnings.push("the CSV's longitude/latitude columns were read as WGS 84 (EPSG:4326); give --s-srs if they are not".into());
            Some(crs::srs_from_epsg(4326)?)
        }
        (None, None) if has_geometry => {
            return Err(ImportError::Crs(format!(
                "{path_str} (layer {src_name}): the source has no CRS (no .prj, an empty .prj, or one PROJ cannot read); give it with --s-srs EPSG:<code>"
            )))
        }
        (None, None) => None,
    };
    report.source_crs = source_srs.as_ref().map(crs::describe);
    // Each conversion thread builds its own transform from this WKT (PROJ objects are not
    // shared between threads).
    let source_wkt = match &source_srs {
        Some(s) if has_geometry => Some(s.to_wkt().map_err(|e| ImportError::Crs(e.to_string()))?),
        _ => None,
    };

    let source_fields: Vec<String> = src.defn().fields().map(|f| f.name()).collect();
    let id_rule = select::id_rule(opts, &source_fields, &path_str, &src_name)?;
    if let Some(r) = &id_rule {
        report.ids = Some(r.describe());
    }
    let plan = match source::plan_fields_with(
        layer,
        &source_fields,
        &opts.maps,
        &path_str,
        &src_name,
        id_rule,
    ) {
        // A file with no features often has no fields either (an empty GeoJSON): what
        // is wrong with it is that it is empty, which the report and --replace's guard say.
        Err(ImportError::MissingField { .. }) if declared == Some(0) => {
            source::FieldPlan::empty(layer)
        }
        other => other?,
    };
    report.field_map = plan.described.iter().cloned().collect();
    report.extra_fields = plan.extra.iter().map(|(_, n)| n.clone()).collect();

    let total = declared;
    let progress = Progress::new(opts.progress, total, &src_name);
    let boundary_boxes: Vec<_> = boundary.iter().filter_map(|b| b.bounding_rect()).collect();
    let bounds = Bounds {
        area_of_use: crs::area_of_use_rect(&target),
        near_boundary: grown_union(&boundary_boxes, BOUNDARY_MARGIN_M / unit_metres),
    };

    // Source hashes are made for every import that writes; the stored rows to look them
    // up in are asked of the writer when the write will compare the whole layer anyway
    // (a replace, or a large file into a layer that has rows), as it reads them once.
    let recipe = sink.map(|_| {
        unchanged::Recipe::new(&unchanged::RecipeParts {
            layer,
            source_fields: &source_fields,
            plan: &plan,
            source_wkt: source_wkt.as_deref(),
            target_srid,
            invalid: opts.invalid,
            bounds,
            boundary,
        })
    });
    let large = declared.is_some_and(|n| n >= crate::store::WHOLE_LAYER_FROM as u64)
        || opts.mode == WriteMode::Replace;
    let stored = match sink {
        Some(tx) if hash_here && large => {
            let (ask, answer) = tokio::sync::oneshot::channel();
            if tx.blocking_send(WriteMsg::StoredRows(ask)).is_ok() {
                // A writer that failed before answering drops the question: the import
                // then converts everything, and the write's error is the one reported.
                answer.blocking_recv().ok().flatten()
            } else {
                None
            }
        }
        _ => None,
    };
    let setup = pipeline::Setup {
        layer,
        plan: &plan,
        source_wkt: source_wkt.as_deref(),
        target_srid,
        invalid: opts.invalid,
        // Threads cost a PROJ set-up each; a small file is done before it pays back.
        workers: if total.is_some_and(|n| n < 20_000) {
            1
        } else {
            pipeline::default_workers()
        },
        hash: hash_here,
        recipe: recipe.as_ref(),
        stored,
    };
    let mut collector = Collector {
        report: &mut report,
        layer,
        boundary,
        boundary_boxes: &boundary_boxes,
        bounds,
        csv_columns: match &csv {
            CsvGeometry::LonLat(x, y) | CsvGeometry::Xy(x, y) => Some((x.clone(), y.clone())),
            CsvGeometry::None => None,
        },
        unit,
        seen: Default::default(),
        chunk: Vec::with_capacity(CHUNK),
        hashes: Vec::new(),
        sources: Vec::with_capacity(CHUNK),
        same: Vec::new(),
        pending_hash: None,
        sink,
        progress,
    };
    let read = pipeline::run(
        &mut src,
        &setup,
        &source_fields,
        &path_str,
        &src_name,
        |outcome| collector.take(outcome),
    )?;
    let last = collector.has_chunk().then(|| collector.take_chunk());
    let Collector { progress, seen, .. } = collector;
    progress.finish(report.read);
    if let Some(n) = declared {
        if read != n {
            return Err(short(format!(
                "GDAL read {read} of the {n} features the file declares; it is damaged or cut short, and nothing was imported"
            )));
        }
    }
    if let (Some(tx), Some(last)) = (sink, last) {
        let _ = tx.blocking_send(last);
    }
    if read == 0 {
        report.warnings.push(match &report.filter {
            Some(w) => format!("no feature of the file matches {w}"),
            None => "the file has no features".into(),
        });
    }
    if opts.mode == WriteMode::Replace && report.rejected > 0 && sink.is_some() {
        // A rejected feature's current version would be deleted by the replace: refuse
        // rather than lose it. The writer rolls back when it sees the error.
        return Err(ImportError::Refused(format!(
            "{path_str}: {} features were rejected, and --replace would delete their current versions from {}; fix them (see the report with --dry-run) or import without --replace",
            report.rejected, layer
        )));
    }
    if let Some(existing) = existing {
        let mut deletes: Vec<String> = existing
            .iter()
            .filter(|id| !seen.contains_key(*id))
            .cloned()
            .collect();
        deletes.sort();
        report.deletes = deletes;
        if let Some(why) = replace_refusal(opts, &report, existing.len(), &path_str) {
            if sink.is_some() {
                return Err(ImportError::Refused(why));
            }
            report
                .warnings
                .push(format!("the import itself would be refused: {why}"));
        }
    }
    if report.problems.invalid_geometry == 0 && !report.repaired.is_empty() {
        report.warnings.push(format!(
            "{} invalid geometries were repaired (use --invalid reject to refuse them)",
            report.repaired.len()
        ));
    }
    Ok(report)
}

/// Why a replace must not go ahead without an explicit yes: it would empty the layer, or
/// delete more of it than the allowed share.
fn replace_refusal(
    opts: &ImportOptions,
    report: &ImportReport,
    existing: usize,
    path: &str,
) -> Option<String> {
    let layer = opts.layer;
    let deleting = report.deletes.len();
    if existing == 0 || deleting == 0 {
        return None;
    }
    if report.imported == 0 && !opts.allow_empty {
        return Some(format!(
            "{path}: the file has no features to import, and --replace would delete all {existing} features of {layer}; if the layer is to be emptied, say so with --allow-empty (allow_empty=true in an upload)"
        ));
    }
    let share = deleting as f64 / existing as f64;
    let allowed = opts.max_delete_share.unwrap_or(DEFAULT_MAX_DELETE_SHARE);
    if report.imported > 0 && share > allowed && !opts.allow_mass_delete {
        return Some(format!(
            "{path}: --replace would delete {deleting} of the {existing} features of {layer} ({:.0}%), more than the {:.0}% allowed at once (the registry's {} setting; change it with ms4 profile set {} <share>); check that the file is the whole layer (--dry-run lists what would go), or say so with --allow-mass-delete (allow_mass_delete=true in an upload)",
            share * 100.0,
            allowed * 100.0,
            settings::MAX_DELETE_SHARE,
            settings::MAX_DELETE_SHARE,
        ));
    }
    None
}

/// The union of the boundary's boxes grown on every side by its larger dimension, or by
/// `floor` (in the registry's unit) when that is more.
fn grown_union(boxes: &[geo_types::Rect<f64>], floor: f64) -> Option<geo_types::Rect<f64>> {
    let mut it = boxes.iter();
    let first = *it.next()?;
    let u = it.fold(first, |a, b| {
        geo_types::Rect::new(
            geo_types::coord! { x: a.min().x.min(b.min().x), y: a.min().y.min(b.min().y) },
            geo_types::coord! { x: a.max().x.max(b.max().x), y: a.max().y.max(b.max().y) },
        )
    });
    let m = u.width().max(u.height()).max(floor);
    Some(geo_types::Rect::new(
        geo_types::coord! { x: u.min().x - m, y: u.min().y - m },
        geo_types::coord! { x: u.max().x + m, y: u.max().y + m },
    ))
}

#[cfg(test)]
mod tests;
