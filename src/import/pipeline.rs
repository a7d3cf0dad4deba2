//! The read → convert pipeline: one thread reads the source with GDAL, worker threads
//! reproject, validate and convert, and the caller gets the outcomes back in source order.
//!
//! Reprojection and GEOS validation are most of an import's CPU time; spreading them
//! over the machine's cores is what lets an import that validates everything keep pace
//! with `ogr2ogr`, which validates nothing. GDAL objects are not shared between threads:
//! the reader hands each worker plain values and WKB, and each worker builds its own
//! coordinate transform and OGR geometries.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use gdal::spatial_ref::{AxisMappingStrategy, CoordTransform, SpatialRef};
use gdal::vector::{Geometry as OgrGeometry, LayerAccess};

use super::cancel::Cancel;
use super::convert::{self, InvalidPolicy, Problem};
use super::crs;
use super::error::{CrsError, CrsStep, ImportError, Result};
use super::gdal_guard;
use super::source::FieldPlan;
use super::unchanged::Recipe;
use crate::domain::{Feature, Layer, Value};
use crate::store::{timing, StoredRows};

/// Features per batch handed to a worker.
const BATCH: usize = 512;

/// What the workers need to convert a feature.
pub(super) struct Setup<'a> {
    /// The registry layer.
    pub layer: Layer,
    /// Where each canonical field comes from.
    pub plan: &'a FieldPlan,
    /// The source CRS as WKT, when coordinates must be transformed.
    pub source_wkt: Option<&'a str>,
    /// The registry's CRS.
    pub target_srid: i32,
    /// Repair or reject invalid polygons.
    pub invalid: InvalidPolicy,
    /// Conversion threads.
    pub workers: usize,
    /// Whether each accepted feature's content hash is computed here (for a write into a
    /// layer that has rows to compare with).
    pub hash: bool,
    /// How features are converted, for their source hashes (`unchanged`), when the
    /// import writes.
    pub recipe: Option<&'a Recipe>,
    /// The layer's stored rows, to find the features whose source is unchanged.
    pub stored: Option<std::sync::Arc<StoredRows>>,
    /// For a CSV source: its text cells are read back from the form a CSV export writes
    /// them in ([`crate::domain::csv::restore`]), and those that change are counted here.
    pub csv_restored: Option<&'a AtomicU64>,
    /// Stops the read between two features.
    pub cancel: &'a Cancel,
}

/// One source feature, as plain values.
struct RawFeature {
    fid: u64,
    values: Vec<Value>,
    /// ISO WKB of the source geometry, or why GDAL could not give it.
    wkb: std::result::Result<Option<Vec<u8>>, String>,
}

/// What became of one source feature.
pub(super) enum Outcome {
    /// Converted; duplicates are the caller's to find.
    Accepted {
        /// Source FID.
        fid: u64,
        /// The feature.
        feature: Feature,
        /// Fields whose values changed representation.
        converted: Vec<&'static str>,
        /// Why the geometry was repaired, when it was.
        repaired: Option<String>,
        /// Its content hash, when the setup asks for it.
        hash: Option<i64>,
        /// Its source hash, when the setup has a recipe.
        source: Option<i64>,
    },
    /// Not converted: its source hash is its stored row's, so it would convert to that
    /// row again.
    Same {
        /// Source FID.
        fid: u64,
        /// Its id, as its stored row has it.
        id: String,
        /// Its source hash.
        source: i64,
    },
    /// Kept out, with the problem.
    Rejected {
        /// Source FID.
        fid: u64,
        /// The id, when one could be read.
        id: Option<String>,
        /// What was wrong.
        problem: Problem,
    },
}

/// One conversion thread per core (at most 8).
pub(super) fn default_workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8)
}

/// Reads every feature of `src`, converts them on worker threads and passes each outcome,
/// in source order, to `take` (which returns false to stop early). Returns how many
/// features GDAL gave. Any error GDAL reports while reading fails the whole read: GDAL
/// stops at a truncated record and carries on as if the file ended there.
pub(super) fn run(
    src: &mut gdal::vector::Layer<'_>,
    setup: &Setup<'_>,
    source_fields: &[String],
    path: &str,
    src_name: &str,
    mut take: impl FnMut(Outcome) -> bool + Send,
) -> Result<u64> {
    let n = setup.workers.max(1);
    std::thread::scope(|scope| {
        let mut work: Vec<SyncSender<Vec<RawFeature>>> = Vec::with_capacity(n);
        let mut results: Vec<Receiver<Vec<Outcome>>> = Vec::with_capacity(n);
        let mut handles = Vec::with_capacity(n);
        for _ in 0..n {
            let (wtx, wrx) = sync_channel::<Vec<RawFeature>>(4);
            let (rtx, rrx) = sync_channel::<Vec<Outcome>>(4);
            work.push(wtx);
            results.push(rrx);
            handles.push(scope.spawn(move || worker(setup, wrx, rtx)));
        }
        // Batches go to the workers in turn, and come back read in the same turn, which
        // keeps the source order without sequence numbers.
        let collector = scope.spawn(move || {
            let mut k = 0usize;
            loop {
                match results[k % n].recv() {
                    Ok(batch) => {
                        for o in batch {
                            if !take(o) {
                                return;
                            }
                        }
                    }
                    Err(_) => return,
                }
                k += 1;
            }
        });

        let read = read_batches(
            src,
            source_fields,
            path,
            src_name,
            setup.csv_restored,
            setup.cancel,
            &work,
        );
        drop(work);
        let _ = collector.join();
        let mut worker_error = None;
        for h in handles {
            match h.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => worker_error = Some(e),
                Err(_) => {
                    worker_error =
                        Some(ImportError::Refused("a conversion thread panicked".into()));
                }
            }
        }
        let read = read?;
        worker_error.map_or(Ok(read), Err)
    })
}

fn read_batches(
    src: &mut gdal::vector::Layer<'_>,
    source_fields: &[String],
    path: &str,
    src_name: &str,
    csv_restored: Option<&AtomicU64>,
    cancel: &Cancel,
    work: &[SyncSender<Vec<RawFeature>>],
) -> Result<u64> {
    let mut batch = Vec::with_capacity(BATCH);
    let mut k = 0usize;
    let mut position = 0u64;
    // The reader's own time is GDAL's, less the time it waits for a conversion thread.
    let read_started = timing::start();
    let mut waited = 0u64;
    // GDAL keeps error handlers per thread: this one sees exactly the reads below.
    let capture = gdal_guard::ErrorCapture::start();
    let failed = |fid: u64, errors: Vec<String>| {
        ImportError::Read {
        path: path.into(),
        src_layer: src_name.into(),
        feature: fid,
        message: format!(
            "the file could not be read past this point ({}); it is damaged or cut short, and nothing was imported",
            errors.join("; ")
        ),
    }
    };
    let stopped = |why, read: u64| {
        tracing::info!(file = path, read, %why, "read stopped");
        ImportError::Stopped {
            path: path.into(),
            why,
        }
    };
    for feature in src.features() {
        if let Err(why) = cancel.check() {
            return Err(stopped(why, position));
        }
        position += 1;
        let fid = feature.fid().unwrap_or(position);
        let mut values = Vec::with_capacity(source_fields.len());
        for (i, name) in source_fields.iter().enumerate() {
            // A date GDAL cannot parse (an empty string in a GeoJSON date column, say)
            // is read as the text it is, and judged by the field's own rules.
            // A field the feature leaves unset (a CSV's empty cell in a column its .csvt
            // types as a number, a GeoJSON feature without the property, a DBF number
            // left blank) would be read by the bindings as 0 (or as the empty string):
            // it is no value, in every format. A CSV's empty text cell is set, to the
            // blank it was written as, and stays that.
            // SAFETY: the handle is the live feature's, and `i` one of its fields.
            let unset = unsafe { gdal_sys::OGR_F_IsFieldSet(feature.c_feature(), i as i32) } == 0;
            let v = match feature.field(i) {
                Ok(v) => convert::raw_value(v),
                Err(_) => match feature.field_as_string(i) {
                    Ok(s) => convert::raw_value(s.map(gdal::vector::FieldValue::StringValue)),
                    Err(e) => {
                        return Err(ImportError::Read {
                            path: path.into(),
                            src_layer: src_name.into(),
                            feature: fid,
                            message: format!("field {name}: {e}"),
                        })
                    }
                },
            };
            values.push(match v {
                _ if unset => Value::Null,
                Value::Text(t) if csv_restored.is_some() => restore_cell(t, csv_restored),
                v => v,
            });
        }
        let errors = capture.take();
        if !errors.is_empty() {
            return Err(failed(fid, errors));
        }
        // GDAL hands a null geometry (GeoJSON `"geometry": null`) back as a geometry
        // with a null handle: that is a missing geometry, not a malformed one.
        let wkb = match feature.geometry() {
            // SAFETY: only the handle is looked at, not used.
            Some(g) if unsafe { g.c_geometry() }.is_null() => Ok(None),
            None => Ok(None),
            Some(g) => g.wkb().map(Some).map_err(|_| {
                "the geometry is malformed (GDAL cannot encode it; an empty ring or part?)"
                    .to_string()
            }),
        };
        // A geometry GDAL cannot encode is that feature's problem, not a failed read.
        let errors = capture.take();
        if !errors.is_empty() && wkb.is_ok() {
            return Err(failed(fid, errors));
        }
        batch.push(RawFeature { fid, values, wkb });
        if batch.len() == BATCH {
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            let w = timing::start();
            if work[k % work.len()].send(full).is_err() {
                return Ok(position); // the collector stopped: the writer's error will tell why
            }
            if let Some(w) = w {
                waited += w.elapsed().as_nanos() as u64;
            }
            k += 1;
        }
    }
    // A statement SQLite interrupted for the token ends the iteration as a failed read
    // would: the token says why.
    if let Err(why) = cancel.check() {
        return Err(stopped(why, position));
    }
    // The end of the iteration may itself be a failed read (a record GDAL could not
    // fetch ends the loop early).
    let errors = capture.take();
    if !errors.is_empty() {
        return Err(failed(position + 1, errors));
    }
    if let Some(t) = read_started {
        timing::add_nanos(
            &timing::GDAL_READ,
            (t.elapsed().as_nanos() as u64).saturating_sub(waited),
        );
        timing::add_nanos(&timing::READER_WAIT, waited);
    }
    if !batch.is_empty() {
        let _ = work[k % work.len()].send(batch);
    }
    Ok(position)
}

/// A CSV's text cell as the text it was before a CSV export neutralised it, counting the
/// cells that change. Done as the cell is read, before the source hash, so a re-import
/// of an unchanged file compares the same values.
fn restore_cell(t: String, restored: Option<&AtomicU64>) -> Value {
    let back = crate::domain::csv::restore(&t);
    if back.len() == t.len() {
        return Value::Text(t);
    }
    if let Some(n) = restored {
        n.fetch_add(1, Ordering::Relaxed);
    }
    Value::Text(back.into_owned())
}

fn worker(
    setup: &Setup<'_>,
    work: Receiver<Vec<RawFeature>>,
    results: SyncSender<Vec<Outcome>>,
) -> Result<()> {
    let ct = match setup.source_wkt {
        Some(wkt) => {
            let mut from = SpatialRef::from_wkt(wkt).map_err(|source| CrsError::Gdal {
                step: CrsStep::FromWkt,
                source,
            })?;
            from.set_axis_mapping_strategy(AxisMappingStrategy::TraditionalGisOrder);
            let to = crs::srs_from_epsg(setup.target_srid)?;
            Some(
                CoordTransform::new(&from, &to).map_err(|source| CrsError::Gdal {
                    step: CrsStep::Transformation {
                        to: setup.target_srid,
                    },
                    source,
                })?,
            )
        }
        None => None,
    };
    for batch in work {
        let out = batch
            .into_iter()
            .map(|raw| convert_one(setup, ct.as_ref(), raw))
            .collect();
        if results.send(out).is_err() {
            break;
        }
    }
    Ok(())
}

fn convert_one(setup: &Setup<'_>, ct: Option<&CoordTransform>, mut raw: RawFeature) -> Outcome {
    // A made id sits after the source's values, where the plan looks for it.
    if let Some(rule) = &setup.plan.id_rule {
        let id = rule.eval(&raw.values, raw.fid);
        raw.values.push(id);
    }
    let id_guess = setup.plan.id.and_then(|i| {
        let v = &raw.values[i];
        (!v.is_null())
            .then(|| v.to_string().trim().to_string())
            .filter(|s| !s.is_empty())
    });
    let t = timing::start();
    let source = setup.recipe.map(|r| r.source_hash(&raw.values, &raw.wkb));
    let same = match (source, &setup.stored, &id_guess) {
        (Some(source), Some(stored), Some(id)) => stored.source_of(id) == Some(source),
        _ => false,
    };
    timing::add(&timing::SOURCE_HASH, t);
    if let (true, Some(source), Some(id)) = (same, source, &id_guess) {
        return Outcome::Same {
            fid: raw.fid,
            id: id.clone(),
            source,
        };
    }
    let rejected = |problem| Outcome::Rejected {
        fid: raw.fid,
        id: id_guess.clone(),
        problem,
    };
    let ogr = match &raw.wkb {
        Ok(None) => None,
        Ok(Some(bytes)) => match OgrGeometry::from_wkb(bytes) {
            Ok(g) => Some(g),
            Err(_) => {
                return rejected(Problem::Invalid(
                    "unreadable geometry (its binary form is damaged)".into(),
                ))
            }
        },
        Err(e) => return rejected(Problem::Invalid(e.clone())),
    };
    let t = timing::start();
    let (feature, converted) =
        match convert::convert_attributes(setup.layer, setup.plan, &mut raw.values) {
            Ok(x) => x,
            Err(p) => return rejected(p),
        };
    timing::add(&timing::ATTRIBUTES, t);
    match convert::convert_geometry(setup.layer, ogr.as_ref(), ct, setup.invalid) {
        Ok((geom, repaired)) => {
            let feature = Feature { geom, ..feature };
            let t = timing::start();
            let hash = setup
                .hash
                .then(|| crate::store::hash::content_hash(&feature));
            timing::add(&timing::CONTENT_HASH, t);
            Outcome::Accepted {
                fid: raw.fid,
                feature,
                converted,
                repaired,
                hash,
                source,
            }
        }
        Err(p) => Outcome::Rejected {
            fid: raw.fid,
            id: Some(feature.id),
            problem: p,
        },
    }
}
