//! Import and export through GDAL: read any vector format GDAL reads, reproject into the
//! registry's CRS, validate, report, and write in one transaction.
//!
//! GDAL's `Dataset` is `Send` but not `Sync`, so a source is opened, read and converted
//! inside one blocking task that hands plain [`Feature`] chunks to the store's writer
//! over a channel. Reading and writing overlap, on two cores, and the writer commits only
//! when the reader says the whole file was read.

pub mod attains;
pub mod cancel;
mod collect;
mod convert;
pub mod crs;
mod declared;
mod dry_run;
mod error;
pub mod esri;
pub mod export;
pub mod footprint;
pub mod gdal_guard;
mod gpkg_check;
pub mod idexpr;
mod inspections;
pub mod map_unit;
pub mod package;
mod pipeline;
mod precision;
mod progress;
mod read;
mod report;
pub mod request;
mod select;
pub mod settings;
mod simple;
pub mod source;
pub mod split;
mod submissions;
mod unchanged;
pub mod wbd;
pub mod zipcheck;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use geo_types::{Geometry, MultiPolygon};
use tokio::sync::mpsc;

pub use convert::{geometry_name, InvalidPolicy, MAX_VALUE_BYTES};
pub use error::{CrsError, CrsStep, ImportError, Result};
pub use report::{FeatureNote, ImportReport, ProblemCounts};
pub use request::{ImportOutcome, ImportPlan, ImportRequest, RunContext};

use crate::domain::Layer;
use crate::store::{Store, StoreError, WriteMode, WriteMsg, WriteRequest};

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
    /// The units mappings give their source fields (`--map diameter_in=SPAN:ft`):
    /// canonical name → unit; the values are converted into the field's own unit.
    pub units: Vec<(String, map_unit::SourceUnit)>,
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
    /// Keep a copy of the features written, when there are no more than this many, in
    /// [`ImportReport::kept`]: a server applies a small upload to its snapshot from them
    /// instead of reading the whole layer again. 0 keeps none.
    pub keep_written: usize,
    /// Stops the read part-way (a deadline, a request dropped, the server shutting
    /// down); nothing is then written. None by default: the command line has no deadline.
    pub cancel: cancel::Cancel,
}

impl ImportOptions {
    /// Options with defaults: upsert, repair, no mappings, no progress bar.
    pub fn new(layer: Layer, path: impl Into<PathBuf>) -> Self {
        ImportOptions {
            layer,
            path: path.into(),
            maps: Vec::new(),
            units: Vec::new(),
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
            keep_written: 0,
            cancel: cancel::Cancel::new(),
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
    let mut kept = Vec::with_capacity(all.len());
    for opts in all {
        let keep = if opts.dry_run { 0 } else { opts.keep_written };
        let (req, rx, reader) = start_read(store.as_ref(), &meta, opts).await?;
        let (rx, copies) = keep_copies(rx, keep);
        writes.push((req, rx));
        readers.push(reader);
        kept.push(copies);
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
    for ((mut report, actor, source_name), copies) in reports.into_iter().zip(kept) {
        report.written = written.as_mut().and_then(Iterator::next);
        if let Some(w) = &report.written {
            report.changed = Some(dry_run::summary(&w.changed, meta.srid));
        }
        if let (Some(copies), Some(_)) = (copies, &report.written) {
            report.kept = copies.await.ok().flatten();
        }
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

/// The task keeping copies of a write's features, if one was asked for.
type Copies = Option<tokio::task::JoinHandle<Option<Vec<crate::domain::Feature>>>>;

/// The write's channel, and when `keep` is above 0 a task that passes every message on
/// and returns a copy of the features that went through, if they were no more than
/// `keep` (`None` beyond, the copies dropped as soon as the count passes it).
fn keep_copies(
    mut rx: mpsc::Receiver<WriteMsg>,
    keep: usize,
) -> (mpsc::Receiver<WriteMsg>, Copies) {
    if keep == 0 {
        return (rx, None);
    }
    let (tx, out) = mpsc::channel::<WriteMsg>(CHANNEL_CHUNKS);
    let task = tokio::spawn(async move {
        let mut copies = Some(Vec::new());
        while let Some(msg) = rx.recv().await {
            let features = match &msg {
                WriteMsg::Features(f) => Some(f),
                WriteMsg::Imported(c) => Some(&c.features),
                _ => None,
            };
            if let (Some(c), Some(f)) = (copies.as_mut(), features) {
                if c.len() + f.len() > keep {
                    copies = None;
                } else {
                    c.extend(f.iter().cloned());
                }
            }
            if tx.send(msg).await.is_err() {
                // The writer stopped: what it wrote, if anything, is not known here.
                return None;
            }
        }
        copies
    });
    (out, Some(task))
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

    // A dry run decides each feature against the layer as it stands (see `dry_run`).
    let stored_layer = if opts.dry_run {
        Some(dry_run::StoredLayer::read(store, opts.layer).await?)
    } else {
        None
    };

    // A screening read from a file is held to the profile's dry-weather rule.
    let rules = if opts.layer == Layer::Inspections {
        Some(inspections::InspectionRules::load(store).await?)
    } else {
        None
    };
    // A programme submission read from a file is held to the profile's calendar, and the
    // file is imported whole or not at all.
    let submissions = if opts.layer == Layer::ProgrammeSubmissions {
        Some(submissions::SubmissionRules::load(store).await?)
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
        let result = read::read_source(
            &opts,
            srid,
            unit,
            unit_metres,
            &boundary,
            existing.as_ref(),
            sink,
            hash_here,
            rules.as_ref(),
            submissions.as_ref(),
            stored_layer.as_ref(),
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

#[cfg(test)]
mod tests;
