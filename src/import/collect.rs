//! Taking converted features in source order: duplicate ids, the area-of-use and
//! boundary checks, the report, and chunks for the writer.

use geo::{BoundingRect, Intersects};
use geo_types::{Geometry, MultiPolygon};
use tokio::sync::mpsc;

use super::convert::Problem;
use super::pipeline;
use super::progress::Progress;
use super::report::{FeatureNote, ImportReport, ProblemCounts};
use super::CHUNK;
use crate::domain::{Feature, Layer};
use crate::store::{ImportChunk, WriteMsg};

/// Where a layer's features may lie, in the registry's CRS.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Bounds {
    /// The registry CRS's area of use, with a margin: beyond it the coordinates are not
    /// of this place at all (a wrong CRS, swapped axes, a sentinel such as 1e308).
    pub area_of_use: Option<geo_types::Rect<f64>>,
    /// The boundary's box grown by the boundary's own size: farther than that from the
    /// town is no asset of its MS4 but a coordinate error.
    pub near_boundary: Option<geo_types::Rect<f64>>,
}

/// Takes converted features in source order: finds duplicate ids, fills the report and
/// hands chunks to the writer.
pub(super) struct Collector<'a> {
    pub report: &'a mut ImportReport,
    pub layer: Layer,
    pub boundary: &'a [MultiPolygon<f64>],
    pub boundary_boxes: &'a [geo_types::Rect<f64>],
    pub bounds: Bounds,
    /// The CSV's coordinate columns, to say which a row lacks.
    pub csv_columns: Option<(String, String)>,
    /// The registry CRS's linear unit, for distances in messages.
    pub unit: &'static str,
    // Ids seen so far, for duplicates; Fx hashing, as ids come from the user's own file
    // and a million of them are hashed on the hot path.
    pub seen: rustc_hash::FxHashMap<String, u64>,
    pub chunk: Vec<Feature>,
    /// The content hashes of `chunk`'s features, when the conversion threads made them.
    pub hashes: Vec<i64>,
    /// The source hashes of `chunk`'s features (see `unchanged`): none for a feature
    /// whose conversion had something to say, so that it is converted, and said, again.
    pub sources: Vec<Option<i64>>,
    /// Features not converted, their source unchanged: id and source hash.
    pub same: Vec<(String, i64)>,
    pub sink: Option<&'a mpsc::Sender<WriteMsg>>,
    /// The hash of the feature being taken, until it joins the chunk.
    pub pending_hash: Option<i64>,
    pub progress: Progress,
    /// The inspections' dry-weather rule, when the layer is the inspections.
    pub rules: Option<&'a super::inspections::InspectionRules>,
    /// The programme submissions' calendar rule, when the layer is theirs: the layer is
    /// imported whole or not at all.
    pub submissions: Option<&'a super::submissions::SubmissionRules>,
    /// The first feature turned away from a layer imported whole or not at all: the read
    /// stops there and the file is refused.
    pub refused: Option<FeatureNote>,
    /// What the source's format keeps of a position (see `precision`), for the writer.
    pub geometry_tolerance: Option<f64>,
    /// The values of the fields whose unit matters (see `map_unit`).
    pub units: super::map_unit::UnitTally,
    /// For a dry run, what the write would do with each feature.
    pub would: Option<super::dry_run::WouldWrite<'a>>,
}

impl Collector<'_> {
    /// Returns false once the writer has gone (its error is the one to report), or once a
    /// layer imported whole or not at all has a feature turned away (`refused` says which).
    pub fn take(&mut self, outcome: pipeline::Outcome) -> bool {
        let t = crate::store::timing::start();
        let rejected = self.report.rejected;
        let mut go = self.take_timed(outcome);
        // A layer imported whole or not at all stops at its first feature turned away.
        if self.submissions.is_some() && self.report.rejected > rejected {
            self.refused = self.report.rejections.last().cloned();
            go = false;
        }
        crate::store::timing::add(&crate::store::timing::COLLECT, t);
        go
    }

    fn take_timed(&mut self, outcome: pipeline::Outcome) -> bool {
        let misplaced = match &outcome {
            pipeline::Outcome::Accepted { feature, .. } => {
                feature.geom.as_ref().and_then(|g| self.misplaced(g))
            }
            pipeline::Outcome::Rejected { .. } | pipeline::Outcome::Same { .. } => None,
        };
        let report = &mut *self.report;
        report.read += 1;
        self.progress.tick(report.read);
        let (fid, f, conv, repaired, source) = match outcome {
            pipeline::Outcome::Same { fid, id, source } => {
                // Its stored row is what converting it gives: only the file's own
                // consistency is left to check.
                if self.duplicate(fid, &id) {
                    return true;
                }
                self.report.imported += 1;
                if self.sink.is_some() {
                    self.same.push((id, source));
                    return self.send_if_full();
                }
                return true;
            }
            pipeline::Outcome::Rejected { fid, id, problem } => {
                count_problem(&mut report.problems, &problem);
                let reason = match (&problem, &self.csv_columns) {
                    // A CSV row without coordinates: say which row and which column.
                    (Problem::MissingGeometry, Some((x, y))) => {
                        format!("row {fid} has no position (its {x} or {y} column is empty)")
                    }
                    _ => problem.reason(),
                };
                report.reject(fid, id.as_deref(), problem.field(), reason);
                return true;
            }
            pipeline::Outcome::Accepted {
                fid,
                feature,
                converted,
                repaired,
                hash,
                source,
            } => {
                let (feature, stored) = match self.own_rules(fid, feature, hash) {
                    Ok(ruled) => ruled,
                    Err(go) => return go,
                };
                // The stored row sent for the file's has no source hash: the file's row
                // is converted and held to it again next time.
                let source = source.filter(|_| !stored);
                (fid, feature, converted, repaired, source)
            }
        };
        if let Some(why) = misplaced {
            let p = Problem::OutsideArea(why);
            count_problem(&mut self.report.problems, &p);
            self.report.reject(fid, Some(&f.id), p.field(), p.reason());
            return true;
        }
        if self.duplicate(fid, &f.id) {
            return true;
        }
        let report = &mut *self.report;
        // Only a conversion that had nothing to say may be skipped next time.
        let mut quiet = conv.is_empty() && repaired.is_none();
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
                    quiet = false;
                }
            }
        }
        report.imported += 1;
        self.units.add(&f.values);
        if let Some(w) = &mut self.would {
            w.take(&f);
        }
        if self.sink.is_some() {
            self.chunk.push(f);
            self.sources.push(source.filter(|_| quiet));
            if let Some(h) = self.pending_hash.take() {
                self.hashes.push(h);
            }
            return self.send_if_full();
        }
        true
    }

    /// Whether `id` came earlier in the file (then this feature is rejected and
    /// reported); otherwise it is noted as seen.
    fn duplicate(&mut self, fid: u64, id: &str) -> bool {
        if let Some(first) = self.seen.get(id) {
            self.report.problems.duplicate_id += 1;
            let why = format!("duplicate id {id} (first at feature {first}); the first is kept");
            self.report
                .reject(fid, Some(id), Some(self.layer.id_field()), why);
            return true;
        }
        self.seen.insert(id.to_string(), fid);
        false
    }

    /// The layer's own rules on an accepted feature: the inspections' dry-weather rule
    /// (which may set the row's `dry_weather`) or the submissions' calendar check, then a
    /// submission held to the one recorded for its occurrence, whose stored row is sent
    /// in its place when it is the same (the write then leaves it as it is). The feature
    /// to send, and whether it is the stored row; or, the feature refused and reported,
    /// whether to go on.
    fn own_rules(
        &mut self,
        fid: u64,
        mut feature: Feature,
        hash: Option<i64>,
    ) -> Result<(Feature, bool), bool> {
        let ruled = self
            .rules
            .map(|r| r.apply(&mut feature))
            .or_else(|| self.submissions.map(|r| r.check(&feature)));
        if let Some(Err(e)) = ruled {
            self.report.problems.bad_value += 1;
            self.report
                .reject(fid, Some(&feature.id), Some(&e.field), e.message);
            return Err(true);
        }
        let mut stored = false;
        if self.submissions.is_some() {
            match self.held_to_stored(fid, &feature) {
                Held::New => {}
                Held::Recorded(row) => (feature, stored) = (row, true),
                Held::Refused => return Err(true),
                Held::WriterGone => return Err(false),
            }
        }
        // This feature's own (or none), never one left by a feature turned away. A rule
        // may have changed the row: its content hash is made again from the row as it
        // is written.
        self.pending_hash = match hash {
            Some(_) if self.rules.is_some() || stored => {
                Some(crate::store::hash::content_hash(&feature))
            }
            h => h,
        };
        Ok((feature, stored))
    }

    /// Holds a programme submission to the row stored under its id (see
    /// `submissions::against_stored`), read by the writer inside its transaction, or for a
    /// dry run as the layer stands; a row refused is reported. One row a question: a
    /// file of submissions holds a few a year.
    fn held_to_stored(&mut self, fid: u64, f: &Feature) -> Held {
        let layer = self.layer;
        let stored = match (self.sink, &self.would) {
            (Some(tx), _) => match rows_in_write(tx, &f.id) {
                Some(rows) => rows,
                None => return Held::WriterGone,
            },
            (None, Some(would)) => would.stored().rows_of(layer, &f.id),
            (None, None) => Default::default(),
        };
        match super::submissions::against_stored(f, stored) {
            Ok(None) => Held::New,
            Ok(Some(stored)) => Held::Recorded(stored),
            Err(e) => {
                self.report.problems.bad_value += 1;
                self.report
                    .reject(fid, Some(&f.id), Some(&e.field), e.message);
                Held::Refused
            }
        }
    }

    /// Sends the chunk once it is full; false once the writer has gone.
    fn send_if_full(&mut self) -> bool {
        if self.chunk.len() + self.same.len() < CHUNK {
            return true;
        }
        let Some(tx) = self.sink else {
            return true;
        };
        let msg = self.take_chunk();
        let t = crate::store::timing::start();
        let sent = tx.blocking_send(msg);
        crate::store::timing::add(&crate::store::timing::COLLECT_WAIT, t);
        sent.is_ok()
    }

    /// The chunk gathered so far as a message for the writer, with its content hashes
    /// when every feature has one; a new chunk starts.
    pub fn take_chunk(&mut self) -> WriteMsg {
        let features = std::mem::replace(&mut self.chunk, Vec::with_capacity(CHUNK));
        let hashes = std::mem::take(&mut self.hashes);
        let hashes = (hashes.len() == features.len() && !features.is_empty()).then_some(hashes);
        WriteMsg::Imported(ImportChunk {
            features,
            hashes,
            sources: std::mem::take(&mut self.sources),
            same: std::mem::take(&mut self.same),
            geometry_tolerance: self.geometry_tolerance,
        })
    }

    /// Whether features are gathered for the writer.
    pub fn has_chunk(&self) -> bool {
        !self.chunk.is_empty() || !self.same.is_empty()
    }

    /// Why a geometry cannot be where it says it is, if it cannot.
    fn misplaced(&self, g: &Geometry<f64>) -> Option<String> {
        let r = g.bounding_rect()?;
        let unit = self.unit;
        if let Some(area) = self.bounds.area_of_use {
            if !contains(&area, &r) {
                return Some(format!(
                    "lies outside the area the registry's CRS is meant for (its box reaches {}; that area spans x {:.0}..{:.0}, y {:.0}..{:.0} {unit}): check the coordinates and the file's CRS",
                    describe_rect(&r),
                    area.min().x,
                    area.max().x,
                    area.min().y,
                    area.max().y
                ));
            }
        }
        if let Some(near) = self.bounds.near_boundary {
            if !contains(&near, &r) {
                let d = rect_distance(&near, &r);
                return Some(format!(
                    "lies about {d:.0} {unit} beyond the jurisdiction's boundary (farther than the town is wide, and at least 25 km): check the coordinates and the file's CRS"
                ));
            }
        }
        None
    }
}

/// A feature held to the row stored under its id.
enum Held {
    /// Nothing is stored: the feature is written.
    New,
    /// The same record is stored: it is written as it is.
    Recorded(Feature),
    /// The feature is refused (and reported).
    Refused,
    /// The writer has gone: its error is the one to report.
    WriterGone,
}

/// The rows stored under `id`, read (and locked) by the writer inside its transaction;
/// `None` once the writer has gone.
fn rows_in_write(tx: &mpsc::Sender<WriteMsg>, id: &str) -> Option<crate::store::LayerRows> {
    let (reply, answer) = tokio::sync::oneshot::channel();
    let ids = vec![id.to_string()];
    tx.blocking_send(WriteMsg::Rows { ids, reply }).ok()?;
    answer.blocking_recv().ok()
}

fn contains(outer: &geo_types::Rect<f64>, inner: &geo_types::Rect<f64>) -> bool {
    inner.min().x >= outer.min().x
        && inner.min().y >= outer.min().y
        && inner.max().x <= outer.max().x
        && inner.max().y <= outer.max().y
}

fn describe_rect(r: &geo_types::Rect<f64>) -> String {
    let fmt = |v: f64| {
        if v.abs() >= 1e9 {
            format!("{v:.3e}")
        } else {
            format!("{v:.0}")
        }
    };
    if r.min() == r.max() {
        format!("({}, {})", fmt(r.min().x), fmt(r.min().y))
    } else {
        format!(
            "({}, {})..({}, {})",
            fmt(r.min().x),
            fmt(r.min().y),
            fmt(r.max().x),
            fmt(r.max().y)
        )
    }
}

/// The distance from a box to the farthest part of another lying (partly) outside it.
fn rect_distance(outer: &geo_types::Rect<f64>, r: &geo_types::Rect<f64>) -> f64 {
    let dx = (outer.min().x - r.min().x)
        .max(r.max().x - outer.max().x)
        .max(0.0);
    let dy = (outer.min().y - r.min().y)
        .max(r.max().y - outer.max().y)
        .max(0.0);
    dx.hypot(dy)
}

fn count_problem(c: &mut ProblemCounts, p: &Problem) {
    match p {
        Problem::MissingGeometry => c.missing_geometry += 1,
        Problem::EmptyGeometry => c.empty_geometry += 1,
        Problem::WrongType(_) => c.wrong_geometry_type += 1,
        Problem::Invalid(_) => c.invalid_geometry += 1,
        Problem::Transform(_) => c.transform_failed += 1,
        Problem::OutsideArea(_) => c.misplaced += 1,
        Problem::MissingId => c.missing_id += 1,
        Problem::MissingRequired(_) => c.missing_required += 1,
        Problem::BadValue(..) | Problem::TooLong { .. } | Problem::BadText { .. } => {
            c.bad_value += 1;
        }
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
