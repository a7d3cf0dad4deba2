//! Import and export through GDAL: read any vector format GDAL reads, reproject into the
//! registry's CRS, validate, report, and write in one transaction.
//!
//! GDAL's `Dataset` is `Send` but not `Sync`, so a source is opened, read and converted
//! inside one blocking task that hands plain [`Feature`] chunks to the store's writer
//! over a channel. Reading and writing overlap, on two cores, and the writer commits only
//! when the reader says the whole file was read.

mod convert;
pub mod crs;
mod error;
pub mod export;
mod pipeline;
mod report;
pub mod source;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gdal::vector::LayerAccess;
use geo::{BoundingRect, Intersects};
use geo_types::{Geometry, MultiPolygon};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tokio::sync::mpsc;

pub use convert::{geometry_name, InvalidPolicy};
pub use error::{ImportError, Result};
pub use report::{FeatureNote, ImportReport, ProblemCounts};

use crate::domain::{Feature, Layer};
use crate::store::{Store, WriteMode, WriteMsg, WriteRequest};
use convert::Problem;
use source::CsvGeometry;

/// Features per chunk handed to the writer.
const CHUNK: usize = 4096;
/// Chunks that may wait between the reader and the writer.
const CHANNEL_CHUNKS: usize = 64;

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
/// accepted feature is committed, or (on any error) nothing is.
pub async fn import(store: Arc<dyn Store>, opts: ImportOptions) -> Result<ImportReport> {
    let started = Instant::now();
    let meta = store.meta().await?;
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

    // Room for a few hundred thousand features between reader and writer: the reader
    // keeps going while the database digests a chunk, instead of the two taking turns.
    let (tx, rx) = mpsc::channel::<WriteMsg>(CHANNEL_CHUNKS);
    let req = WriteRequest {
        layer: opts.layer,
        mode: opts.mode,
        actor: opts.actor.clone(),
        source: opts
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let dry_run = opts.dry_run;
    let reader = tokio::task::spawn_blocking(move || {
        let sink = (!opts.dry_run).then_some(&tx);
        let result = read_source(&opts, meta.srid, &boundary, sink);
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

    let written = if dry_run {
        drop(rx);
        None
    } else {
        Some(store.write(req, rx).await)
    };
    let mut report = reader.await.map_err(|e| ImportError::Read {
        path: String::new(),
        src_layer: String::new(),
        feature: 0,
        message: format!("the reader stopped: {e}"),
    })??;
    if let Some(w) = written {
        report.written = Some(w?);
    }
    report.dry_run = dry_run;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

fn read_source(
    opts: &ImportOptions,
    target_srid: i32,
    boundary: &[MultiPolygon<f64>],
    sink: Option<&mpsc::Sender<WriteMsg>>,
) -> Result<ImportReport> {
    let path_str = opts.path.display().to_string();
    let layer = opts.layer;
    let mut report = ImportReport {
        source: path_str.clone(),
        layer: layer.name().into(),
        ..Default::default()
    };

    let source_srs_override = opts.s_srs.map(crs::srs_from_epsg).transpose()?;
    let csv = if source::is_csv(&opts.path) {
        let planar = source_srs_override
            .as_ref()
            .is_some_and(|s| s.is_projected());
        source::csv_geometry(&opts.path, planar)?
    } else {
        CsvGeometry::None
    };
    let ds = source::open(&opts.path, &csv)?;
    let mut src = source::pick_layer(&ds, &path_str, opts.src_layer.as_deref(), layer)?;
    let src_name = src.name();
    report.source_layer = src_name.clone();

    // The source CRS: --s-srs, else the file's, else (CSV lon/lat only) WGS 84.
    let target = crs::srs_from_epsg(target_srid)?;
    report.target_crs = crs::describe(&target);
    let has_geometry =
        src.defn().geom_fields().count() > 0 && layer.geom_kind() != crate::domain::GeomKind::None;
    let source_srs = match (source_srs_override, src.spatial_ref()) {
        (Some(s), file) => {
            if let Some(f) = file {
                report.warnings.push(format!("the file's CRS {} was overridden by --s-srs", crs::describe(&f)));
            }
            Some(s)
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
    let plan = source::plan_fields(layer, &source_fields, &opts.maps, &path_str, &src_name)?;
    report.field_map = plan.described.iter().cloned().collect();
    report.extra_fields = plan.extra.iter().map(|(_, n)| n.clone()).collect();

    let total = src.try_feature_count();
    let progress = Progress::new(opts.progress, total, &src_name);
    let boundary_boxes: Vec<_> = boundary.iter().filter_map(|b| b.bounding_rect()).collect();

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
    };
    let mut collector = Collector {
        report: &mut report,
        layer,
        boundary,
        boundary_boxes: &boundary_boxes,
        seen: Default::default(),
        chunk: Vec::with_capacity(CHUNK),
        sink,
        progress,
    };
    pipeline::run(
        &mut src,
        &setup,
        &source_fields,
        &path_str,
        &src_name,
        |outcome| collector.take(outcome),
    )?;
    let Collector {
        chunk, progress, ..
    } = collector;
    if let Some(tx) = sink {
        if !chunk.is_empty() {
            let _ = tx.blocking_send(WriteMsg::Features(chunk));
        }
    }
    progress.finish(report.read);
    if opts.mode == WriteMode::Replace && report.rejected > 0 && sink.is_some() {
        // A rejected feature's current version would be deleted by the replace: refuse
        // rather than lose it. The writer rolls back when it sees the error.
        return Err(ImportError::Refused(format!(
            "{path_str}: {} features were rejected, and --replace would delete their current versions from {}; fix them (see the report with --dry-run) or import without --replace",
            report.rejected, layer
        )));
    }
    if report.problems.invalid_geometry == 0 && !report.repaired.is_empty() {
        report.warnings.push(format!(
            "{} invalid geometries were repaired (use --invalid reject to refuse them)",
            report.repaired.len()
        ));
    }
    Ok(report)
}

/// Takes converted features in source order: finds duplicate ids, fills the report and
/// hands chunks to the writer.
struct Collector<'a> {
    report: &'a mut ImportReport,
    layer: Layer,
    boundary: &'a [MultiPolygon<f64>],
    boundary_boxes: &'a [geo_types::Rect<f64>],
    // Ids seen so far, for duplicates; Fx hashing, as ids come from the user's own file
    // and a million of them are hashed on the hot path.
    seen: rustc_hash::FxHashMap<String, u64>,
    chunk: Vec<Feature>,
    sink: Option<&'a mpsc::Sender<WriteMsg>>,
    progress: Progress,
}

impl Collector<'_> {
    /// Returns false once the writer has gone (its error is the one to report).
    fn take(&mut self, outcome: pipeline::Outcome) -> bool {
        let report = &mut *self.report;
        report.read += 1;
        self.progress.tick(report.read);
        let (fid, f, conv, repaired) = match outcome {
            pipeline::Outcome::Rejected { fid, id, problem } => {
                count_problem(&mut report.problems, &problem);
                report.reject(fid, id.as_deref(), problem.field(), problem.reason());
                return true;
            }
            pipeline::Outcome::Accepted {
                fid,
                feature,
                converted,
                repaired,
            } => (fid, feature, converted, repaired),
        };
        if let Some(first) = self.seen.get(&f.id) {
            report.problems.duplicate_id += 1;
            let why = format!(
                "duplicate id {} (first at feature {first}); the first is kept",
                f.id
            );
            report.reject(fid, Some(&f.id), Some(self.layer.id_field()), why);
            return true;
        }
        self.seen.insert(f.id.clone(), fid);
        for c in conv {
            *report.converted.entry(c.to_string()).or_default() += 1;
        }
        if let Some(why) = repaired {
            report.repaired.push(FeatureNote {
                feature: fid,
                id: Some(f.id.clone()),
                field: None,
                reason: why,
            });
        }
        if !self.boundary.is_empty() {
            if let Some(g) = &f.geom {
                if !inside_any(g, self.boundary, self.boundary_boxes) {
                    report.outside_boundary.push(f.id.clone());
                }
            }
        }
        report.imported += 1;
        if let Some(tx) = self.sink {
            self.chunk.push(f);
            if self.chunk.len() == CHUNK {
                let full = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK));
                if tx.blocking_send(WriteMsg::Features(full)).is_err() {
                    return false;
                }
            }
        }
        true
    }
}

fn count_problem(c: &mut ProblemCounts, p: &Problem) {
    match p {
        Problem::MissingGeometry => c.missing_geometry += 1,
        Problem::EmptyGeometry => c.empty_geometry += 1,
        Problem::WrongType(_) => c.wrong_geometry_type += 1,
        Problem::Invalid(_) => c.invalid_geometry += 1,
        Problem::Transform(_) => c.transform_failed += 1,
        Problem::MissingId => c.missing_id += 1,
        Problem::MissingRequired(_) => c.missing_required += 1,
        Problem::BadValue(..) => c.bad_value += 1,
    }
}

fn inside_any(
    g: &Geometry<f64>,
    boundary: &[MultiPolygon<f64>],
    boxes: &[geo_types::Rect<f64>],
) -> bool {
    let Some(r) = g.bounding_rect() else {
        return true;
    };
    boundary
        .iter()
        .zip(boxes)
        .any(|(b, bb)| bb.intersects(&r) && b.intersects(g))
}

/// A progress bar that appears only on a terminal and only once an import has run for a
/// second; elsewhere (CI, logs) a plain line every few seconds.
struct Progress {
    bar: Option<ProgressBar>,
    started: Instant,
    last_log: std::cell::Cell<Instant>,
    shown: std::cell::Cell<bool>,
    label: String,
}

impl Progress {
    fn new(enabled: bool, total: Option<u64>, label: &str) -> Self {
        let tty = enabled && std::io::stderr().is_terminal();
        let bar = tty.then(|| {
            let b = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            b.set_style(
                ProgressStyle::with_template(
                    "{msg} [{bar:40}] {pos}/{len} features ({per_sec}, eta {eta})",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            b.set_message(label.to_string());
            b
        });
        Progress {
            bar,
            started: Instant::now(),
            last_log: std::cell::Cell::new(Instant::now()),
            shown: std::cell::Cell::new(false),
            label: label.to_string(),
        }
    }

    fn tick(&self, n: u64) {
        if n % 1024 != 0 {
            return;
        }
        match &self.bar {
            Some(b) => {
                if !self.shown.get() && self.started.elapsed() > Duration::from_secs(1) {
                    b.set_draw_target(ProgressDrawTarget::stderr());
                    self.shown.set(true);
                }
                b.set_position(n);
            }
            None => {
                if self.last_log.get().elapsed() > Duration::from_secs(5) {
                    tracing::info!(source = %self.label, features = n, "importing");
                    self.last_log.set(Instant::now());
                }
            }
        }
    }

    fn finish(&self, n: u64) {
        if let Some(b) = &self.bar {
            b.set_position(n);
            b.finish_and_clear();
        }
    }
}
