//! The write engine both stores share: diff a stream of features against the layer,
//! insert, update, delete and audit inside one transaction.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::audit::{feature_change, feature_json};
use rustc_hash::FxHashMap;

use super::hash::StoredHashes;
use super::timing;
use super::{ImportChunk, Result, StoreError, WriteMode, WriteMsg, WriteRequest, WriteSummary};
use crate::domain::{Feature, Layer, Value};

/// A pending audit row.
pub(crate) struct AuditRow {
    pub action: &'static str,
    pub feature_id: Option<String>,
    pub before: Option<serde_json::Value>,
    pub after: Option<serde_json::Value>,
}

/// The primitive operations of one open transaction of a store.
#[async_trait]
pub(crate) trait WriteTx: Send {
    /// Whether the layer holds no row at all inside the transaction (a first load: nothing
    /// to compare, and a store may load it faster).
    async fn layer_is_empty(&mut self, layer: Layer) -> Result<bool>;
    /// The stored rows with these ids, as they stand inside the transaction, and those of
    /// them that cannot be read (which the write overwrites like any other). Only the ids
    /// a chunk carries are read, so a write costs what it carries, not what the layer holds.
    async fn existing(&mut self, layer: Layer, ids: &[String]) -> Result<super::LayerRows>;
    /// Locks the stored rows with these ids until the transaction ends, so a
    /// read-modify-write ([`super::update`]) reads the row no other writer can change
    /// before it commits. The default does nothing: a store whose transaction holds the
    /// whole registry's write lock from its start (SQLite's `BEGIN IMMEDIATE`) needs no
    /// row lock.
    async fn lock(&mut self, _layer: Layer, _ids: &[String]) -> Result<()> {
        Ok(())
    }
    /// The id and stored content hash (see `store::hash`; `None` when missing) of every
    /// row of the layer, in one pass. A row whose very id cannot be read is left out: it
    /// cannot be named, so it stays (a replace cannot delete it either).
    async fn hashes(&mut self, layer: Layer) -> Result<StoredHashes>;
    /// Stores the content hash and source hash (see `import::unchanged`) of unchanged rows,
    /// without touching anything else in them: not a change, so not audited.
    async fn set_hashes(&mut self, layer: Layer, rows: &[(String, i64, Option<i64>)])
        -> Result<()>;
    /// Starts the import record; returns its id.
    async fn begin_import(&mut self, req: &WriteRequest, at: &str) -> Result<i64>;
    /// Inserts new features, each stored with its source hash (`sources[i]` for
    /// `features[i]`; none when `sources` is shorter).
    async fn insert(
        &mut self,
        layer: Layer,
        features: Vec<Feature>,
        sources: &[Option<i64>],
        import_id: i64,
    ) -> Result<()>;
    /// Overwrites features that exist, by id, each with its source hash (as `insert`).
    async fn update(
        &mut self,
        layer: Layer,
        features: &[Feature],
        sources: &[Option<i64>],
        import_id: i64,
    ) -> Result<()>;
    /// Deletes features by id.
    async fn delete(&mut self, layer: Layer, ids: &[String]) -> Result<()>;
    /// Appends audit rows.
    async fn audit(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        at: &str,
        rows: Vec<AuditRow>,
    ) -> Result<()>;
    /// Raises the layer's change number; returns it before (when the layer had one) and
    /// after, read under the transaction's lock on it, so a server can tell whether this
    /// write was the only one since its snapshot.
    async fn bump(&mut self, layer: Layer) -> Result<super::LayerChange>;
    /// Completes the import record and the layer's catalogue entry (extent, last change):
    /// the extent is the stored layer's, read by the store.
    async fn finish_import(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        summary: &WriteSummary,
        report: &serde_json::Value,
        at: &str,
    ) -> Result<()>;
    /// Commits.
    async fn commit(self: Box<Self>) -> Result<()>;
}

/// Runs a write stream against an open transaction. Returning early (an error, an abort,
/// a dropped sender) drops the transaction, which rolls it back.
///
/// A small write (an inspection) is compared with the stored rows of its own ids only, so
/// posting one inspection reads one row however long the layer's history. A large write
/// or a replace reads the id and content hash of every stored row once (see
/// `store::hash`) and reads back only the rows whose hash is missing or differs, so
/// re-importing an unchanged million features decodes none of them. A replace then reads
/// the rows it deletes, for their audit.
pub(crate) async fn run(
    tx: Box<dyn WriteTx>,
    req: WriteRequest,
    rx: mpsc::Receiver<WriteMsg>,
) -> Result<WriteSummary> {
    let mut done = run_many(tx, vec![(req, rx)]).await?;
    Ok(done.remove(0))
}

/// Runs several write streams, one after another, in the same transaction, and commits
/// only when every one has: an import that splits one file over several layers commits
/// all of them or none.
pub(crate) async fn run_many(
    mut tx: Box<dyn WriteTx>,
    writes: Vec<(WriteRequest, mpsc::Receiver<WriteMsg>)>,
) -> Result<Vec<WriteSummary>> {
    let mut done = Vec::with_capacity(writes.len());
    for (req, rx) in writes {
        done.push(write_one(tx.as_mut(), req, rx).await?);
    }
    let t = timing::start();
    tx.commit().await?;
    timing::add(&timing::COMMIT, t);
    Ok(done)
}

async fn write_one(
    tx: &mut dyn WriteTx,
    req: WriteRequest,
    mut rx: mpsc::Receiver<WriteMsg>,
) -> Result<WriteSummary> {
    let layer = req.layer;
    let at = super::now().to_rfc3339();
    let empty = tx.layer_is_empty(layer).await?;
    // The stored hash of each id the write has not (yet) carried, when the whole layer's
    // were read: a replace reads them at once (what is left at the end is what it
    // deletes); a large write reads them at its first chunk.
    let stored: Option<StoredHashes> = match (req.mode, empty) {
        (WriteMode::Replace, false) => Some(read_hashes(tx, layer).await?),
        _ => None,
    };
    let import_id = tx.begin_import(&req, &at).await?;
    let mut write = LayerWrite {
        tx,
        req: &req,
        at: &at,
        empty,
        import_id,
        stored,
        summary: WriteSummary {
            import_id,
            ..Default::default()
        },
    };

    let report = loop {
        let t = timing::start();
        let msg = rx.recv().await;
        timing::add(&timing::WRITER_WAIT, t);
        let msg =
            msg.ok_or_else(|| StoreError::Aborted("the writer stopped before committing".into()))?;
        let chunk = match msg {
            WriteMsg::Features(c) => Chunk {
                features: c,
                hashes: None,
                sources: Vec::new(),
                same: Vec::new(),
                tolerance: None,
            },
            WriteMsg::Imported(ImportChunk {
                features,
                hashes,
                sources,
                same,
                geometry_tolerance,
            }) => Chunk {
                features,
                hashes,
                sources,
                same,
                tolerance: geometry_tolerance,
            },
            WriteMsg::StoredRows(reply) => {
                // Read now, inside the transaction, and shared: the importer looks its
                // source features up in the very rows this write compares with.
                if write.stored.is_none() && !empty {
                    write.stored = Some(read_hashes(write.tx, layer).await?);
                }
                let _ = reply.send(write.stored.as_ref().map(StoredHashes::rows));
                continue;
            }
            WriteMsg::Rows { ids, reply } => {
                // Locked before they are read: no other writer changes them between the
                // importer's decision and this write's commit (SQLite's write lock is
                // held from the transaction's start). An id another writer stores
                // meanwhile fails this write's insert on the id's unique index.
                write.tx.lock(layer, &ids).await?;
                let rows = write.tx.existing(layer, &ids).await?;
                let _ = reply.send(rows);
                continue;
            }
            WriteMsg::WouldDelete(reply) => {
                // What `delete_not_carried` deletes if the stream commits next.
                let ids = match (&write.stored, req.mode) {
                    (Some(stored), WriteMode::Replace) => stored.not_carried(),
                    _ => Vec::new(),
                };
                let _ = reply.send(ids);
                continue;
            }
            WriteMsg::Commit { report } => break report,
            WriteMsg::Abort(why) => return Err(StoreError::Aborted(why)),
        };
        write.chunk(chunk).await?;
    };

    write.delete_not_carried().await?;
    write.finish(&report).await
}

/// Reads the id and stored hashes of every row of the layer, timed.
async fn read_hashes(tx: &mut dyn WriteTx, layer: Layer) -> Result<StoredHashes> {
    let t = timing::start();
    let s = tx.hashes(layer).await?;
    timing::add(&timing::HASHES_READ, t);
    Ok(s)
}

/// One chunk of a write stream: features (with their content hashes when the importer
/// computed them), their source hashes, the ids found unchanged at their source, and
/// how far a position may be from the stored one and still be it (see `store::near`).
struct Chunk {
    features: Vec<Feature>,
    hashes: Option<Vec<i64>>,
    sources: Vec<Option<i64>>,
    same: Vec<(String, i64)>,
    tolerance: Option<f64>,
}

/// What one chunk does to the layer, decided before anything is written: the rows to
/// insert and update with their source hashes, the audit in the chunk's order, and the
/// unchanged rows whose stored hashes are refreshed.
#[derive(Default)]
struct ChunkPlan {
    inserts: Vec<Feature>,
    insert_sources: Vec<Option<i64>>,
    updates: Vec<Feature>,
    update_sources: Vec<Option<i64>>,
    audit: Vec<AuditRow>,
    // Unchanged rows whose stored hashes are missing (written before hashes, or edited
    // by another program) or stale: they get the hashes of what they hold, so the next
    // re-import compares them by hash (and by source, when it has one).
    rehash: Vec<(String, i64, Option<i64>)>,
}

impl ChunkPlan {
    fn with_capacity(n: usize) -> Self {
        ChunkPlan {
            inserts: Vec::with_capacity(n),
            insert_sources: Vec::with_capacity(n),
            audit: Vec::with_capacity(n),
            ..Default::default()
        }
    }

    fn insert(&mut self, f: Feature, source: Option<i64>) {
        self.audit.push(inserted(&f));
        self.inserts.push(f);
        self.insert_sources.push(source);
    }

    fn update(
        &mut self,
        f: Feature,
        source: Option<i64>,
        before: serde_json::Value,
        after: serde_json::Value,
    ) {
        self.audit.push(AuditRow {
            action: "update",
            feature_id: Some(f.id.clone()),
            before: Some(before),
            after: Some(after),
        });
        self.updates.push(f);
        self.update_sources.push(source);
    }
}

/// One write stream's state inside its transaction.
struct LayerWrite<'a> {
    tx: &'a mut dyn WriteTx,
    req: &'a WriteRequest,
    at: &'a str,
    empty: bool,
    import_id: i64,
    /// The stored hash of each id the write has not (yet) carried, once read.
    stored: Option<StoredHashes>,
    summary: WriteSummary,
}

impl LayerWrite<'_> {
    /// Decides one chunk against the stored rows, then writes and audits it.
    async fn chunk(&mut self, chunk: Chunk) -> Result<()> {
        let layer = self.req.layer;
        let Chunk {
            features,
            hashes,
            sources,
            same,
            tolerance,
        } = chunk;
        let mut given = hashes.map(Vec::into_iter);
        let mut sources = sources.into_iter();
        let mut plan = ChunkPlan::with_capacity(features.len());
        if !same.is_empty() {
            self.take_same(same)?;
        }
        if self.stored.is_none() && !self.empty && features.len() >= WHOLE_LAYER_FROM {
            // A large write: one pass over the layer's hashes costs less than reading
            // the rows of every chunk's ids.
            self.stored = Some(read_hashes(self.tx, layer).await?);
        }
        // The features whose stored row must be read to decide: all of them for a small
        // write, else only those whose stored hash is missing or differs.
        let pending: Vec<(Feature, Option<i64>)> = match self.stored.as_mut() {
            None if self.empty => {
                for f in features {
                    plan.insert(f, sources.next().flatten());
                }
                Vec::new()
            }
            None => features
                .into_iter()
                .map(|f| (f, sources.next().flatten()))
                .collect(),
            Some(stored) => {
                let t = timing::start();
                let pending = compare_hashes(
                    stored,
                    features,
                    &mut given,
                    &mut sources,
                    &mut plan,
                    &mut self.summary,
                );
                timing::add(&timing::HASH_COMPARE, t);
                pending
            }
        };
        self.compare_rows(pending, tolerance, &mut plan).await?;
        self.write_plan(plan).await
    }

    /// Takes the features whose source is the one their row was made from: the importer
    /// found them in the rows read for it, so they are there, uncarried.
    fn take_same(&mut self, same: Vec<(String, i64)>) -> Result<()> {
        let Some(hashes) = self.stored.as_mut() else {
            return Err(StoreError::Aborted(
                "features were found unchanged at their source without the stored rows to compare them with".into(),
            ));
        };
        for (id, source) in same {
            if !hashes.take_same(&id, source) {
                return Err(StoreError::Aborted(format!(
                    "feature {id} was found unchanged at its source, but its stored row no longer matches; nothing was written, import again"
                )));
            }
            self.summary.rows_compared += 1;
            self.summary.unchanged += 1;
            self.summary.unchanged_at_source += 1;
        }
        Ok(())
    }

    /// Reads the stored rows of the pending features and decides each: insert, update
    /// (also over an unreadable row) or unchanged (the same, or, with a `tolerance`, the
    /// same attributes and a geometry the source's precision cannot tell from the stored
    /// one, which is kept).
    async fn compare_rows(
        &mut self,
        pending: Vec<(Feature, Option<i64>)>,
        tolerance: Option<f64>,
        plan: &mut ChunkPlan,
    ) -> Result<()> {
        let layer = self.req.layer;
        let read = if pending.is_empty() {
            super::LayerRows::default()
        } else {
            let t = timing::start();
            let ids: Vec<String> = pending.iter().map(|(f, _)| f.id.clone()).collect();
            let read = self.tx.existing(layer, &ids).await?;
            timing::add(&timing::EXISTING, t);
            read
        };
        self.summary.rows_compared += (read.features.len() + read.unreadable.len()) as u64;
        let mut existing: FxHashMap<String, Feature> = read
            .features
            .into_iter()
            .map(|f| (f.id.clone(), f))
            .collect();
        // Rows another program wrote that cannot be read: a write of the same id
        // overwrites them (an update whose "before" is the reason). A row whose very id
        // is unreadable cannot be matched and stays until someone fixes it.
        let mut unreadable: FxHashMap<String, String> = read
            .unreadable
            .into_iter()
            .filter_map(|u| Some((u.id?, u.reason)))
            .collect();
        for (f, source) in pending {
            if let Some(reason) = unreadable.remove(&f.id) {
                let after = feature_json(layer, &f);
                plan.update(
                    f,
                    source,
                    serde_json::json!({ "unreadable": reason }),
                    after,
                );
                continue;
            }
            match existing.remove(&f.id) {
                None => plan.insert(f, source),
                Some(old) if unchanged_by(&old, &f, tolerance) => {
                    self.summary.unchanged += 1;
                    if self.stored.is_some() {
                        plan.rehash
                            .push((old.id.clone(), super::hash::content_hash(&old), source));
                    }
                }
                Some(old) => {
                    let (before, after) = feature_change(layer, &old, &f);
                    plan.update(f, source, before, after);
                }
            }
        }
        Ok(())
    }

    /// Writes what a chunk's plan decided: refreshed hashes, inserts, updates, audit.
    async fn write_plan(&mut self, plan: ChunkPlan) -> Result<()> {
        let layer = self.req.layer;
        let ChunkPlan {
            inserts,
            insert_sources,
            updates,
            update_sources,
            audit,
            rehash,
        } = plan;
        if !rehash.is_empty() {
            self.tx.set_hashes(layer, &rehash).await?;
        }
        self.summary.inserted += inserts.len() as u64;
        self.summary.updated += updates.len() as u64;
        for f in inserts.iter().chain(&updates) {
            self.summary.changed.note(f);
        }
        let t = timing::start();
        if !inserts.is_empty() {
            self.tx
                .insert(layer, inserts, &insert_sources, self.import_id)
                .await?;
        }
        if !updates.is_empty() {
            self.tx
                .update(layer, &updates, &update_sources, self.import_id)
                .await?;
        }
        timing::add(&timing::INSERT_UPDATE, t);
        let t = timing::start();
        self.tx
            .audit(self.req, self.import_id, self.at, audit)
            .await?;
        timing::add(&timing::AUDIT, t);
        Ok(())
    }

    /// What a replace did not carry is deleted, each row audited as it was.
    async fn delete_not_carried(&mut self) -> Result<()> {
        let layer = self.req.layer;
        let not_carried = self
            .stored
            .take()
            .filter(|_| self.req.mode == WriteMode::Replace);
        let Some(left) = not_carried.filter(|l| l.left() > 0) else {
            return Ok(());
        };
        let ids = left.not_carried();
        for chunk in ids.chunks(DELETE_CHUNK) {
            let read = self.tx.existing(layer, chunk).await?;
            let mut before: FxHashMap<String, serde_json::Value> = read
                .features
                .iter()
                .map(|f| (f.id.clone(), feature_json(layer, f)))
                .collect();
            for u in read.unreadable {
                if let Some(id) = u.id {
                    before.insert(id, serde_json::json!({ "unreadable": u.reason }));
                }
            }
            let rows = chunk
                .iter()
                .map(|id| AuditRow {
                    action: "delete",
                    feature_id: Some(id.clone()),
                    before: before.remove(id),
                    after: None,
                })
                .collect();
            self.tx.delete(layer, chunk).await?;
            self.tx
                .audit(self.req, self.import_id, self.at, rows)
                .await?;
        }
        self.summary.deleted = ids.len() as u64;
        Ok(())
    }

    /// Audits the import itself, raises the layer's change number and completes the
    /// import record.
    async fn finish(mut self, report: &serde_json::Value) -> Result<WriteSummary> {
        let req = self.req;
        let summary = &self.summary;
        self.tx
            .audit(
                req,
                self.import_id,
                self.at,
                vec![AuditRow {
                    action: "import",
                    feature_id: None,
                    before: None,
                    after: Some(serde_json::json!({
                        "source": req.source, "mode": req.mode.as_str(),
                        "inserted": summary.inserted, "updated": summary.updated,
                        "deleted": summary.deleted, "unchanged": summary.unchanged,
                    })),
                }],
            )
            .await?;
        let t = timing::start();
        self.summary.change = Some(self.tx.bump(req.layer).await?);
        self.tx
            .finish_import(req, self.import_id, &self.summary, report, self.at)
            .await?;
        timing::add(&timing::FINISH, t);
        Ok(self.summary)
    }
}

/// Compares a chunk's features with the layer's stored hashes: a new id is inserted, a
/// matching hash is unchanged (its source hash refreshed when it moved); the rest are
/// returned, their stored rows to be read.
fn compare_hashes(
    stored: &mut StoredHashes,
    features: Vec<Feature>,
    given: &mut Option<std::vec::IntoIter<i64>>,
    sources: &mut std::vec::IntoIter<Option<i64>>,
    plan: &mut ChunkPlan,
    summary: &mut WriteSummary,
) -> Vec<(Feature, Option<i64>)> {
    let mut pending = Vec::new();
    for f in features {
        let mine = given.as_mut().and_then(Iterator::next);
        let source = sources.next().flatten();
        match stored.take(&f.id) {
            None => plan.insert(f, source),
            Some((Some(h), stored_source))
                if h == mine.unwrap_or_else(|| super::hash::content_hash(&f)) =>
            {
                summary.rows_compared += 1;
                summary.unchanged += 1;
                if source.is_some() && source != stored_source {
                    plan.rehash.push((f.id, h, source));
                }
            }
            Some(_) => pending.push((f, source)),
        }
    }
    pending
}

/// From how many features in a chunk a write compares by the whole layer's stored hashes
/// rather than reading the stored rows of its ids.
pub(crate) const WHOLE_LAYER_FROM: usize = 1000;

/// The audit row of a new feature (its content is the row itself).
fn inserted(f: &Feature) -> AuditRow {
    AuditRow {
        action: "insert",
        feature_id: Some(f.id.clone()),
        before: None,
        after: None,
    }
}

/// How many deleted rows a replace reads back (for their audit) and deletes at a time.
const DELETE_CHUNK: usize = 2000;

/// The relative difference under which two numbers are the same value: twelve
/// significant digits. A number stored as JSON text comes back through a float parser
/// that may land a unit or two of the last place away (20.092298898533 read as
/// 20.092298898533002), and no surveyed or measured attribute carries more than twelve
/// digits, so a difference below this is the parser's, not the town's.
pub(crate) const FLOAT_RELATIVE_TOLERANCE: f64 = 1e-12;

/// Whether writing `new` over `old` changes anything a user can see. Values compare as
/// the source typed them: numbers within [`FLOAT_RELATIVE_TOLERANCE`], everything else
/// exactly; geometries by their stored encoding. So a re-import of an unchanged file is
/// recognised as unchanged, whichever store and however its numbers were kept.
pub(crate) fn same_feature(old: &Feature, new: &Feature) -> bool {
    same_attributes(old, new)
        && match (&old.geom, &new.geom) {
            (None, None) => true,
            (Some(a), Some(b)) => crate::domain::wkb::to_wkb(a) == crate::domain::wkb::to_wkb(b),
            _ => false,
        }
}

/// Whether writing `new` over `old` leaves the row as it is: the same feature, or
/// within `tolerance` of it (see [`near_feature`]). A dry run decides with this too.
pub(crate) fn unchanged_by(old: &Feature, new: &Feature, tolerance: Option<f64>) -> bool {
    same_feature(old, new) || near_feature(old, new, tolerance)
}

/// Whether `new` has `old`'s attributes and, within `tolerance` (see `store::near`), its
/// geometry; false without a tolerance.
fn near_feature(old: &Feature, new: &Feature, tolerance: Option<f64>) -> bool {
    let Some(tolerance) = tolerance else {
        return false;
    };
    same_attributes(old, new)
        && match (&old.geom, &new.geom) {
            (None, None) => true,
            (Some(a), Some(b)) => super::near::near_geometry(a, b, tolerance),
            _ => false,
        }
}

/// Whether the values and extra attributes are the same (see [`same_feature`]).
fn same_attributes(old: &Feature, new: &Feature) -> bool {
    old.values.len() == new.values.len()
        && old
            .values
            .iter()
            .zip(&new.values)
            .all(|(a, b)| same_value(a, b))
        && same_object(&old.extra, &new.extra)
}

/// Whether two numbers are the same within [`FLOAT_RELATIVE_TOLERANCE`].
pub(crate) fn same_number(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= FLOAT_RELATIVE_TOLERANCE * a.abs().max(b.abs())
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => same_number(*x, *y),
        _ => a == b,
    }
}

fn same_object(
    a: &serde_json::Map<String, serde_json::Value>,
    b: &serde_json::Map<String, serde_json::Value>,
) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| same_json(v, w)))
}

/// JSON values compared as [`same_feature`] compares: whole numbers exactly (an id-like
/// integer must never match its neighbour), other numbers within the tolerance.
fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => {
            if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
                return i == j;
            }
            if let (Some(i), Some(j)) = (x.as_u64(), y.as_u64()) {
                return i == j;
            }
            match (x.as_f64(), y.as_f64()) {
                (Some(p), Some(q)) => same_number(p, q),
                _ => x == y,
            }
        }
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_json(p, q))
        }
        (J::Object(x), J::Object(y)) => same_object(x, y),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_a_float_parser_moved_in_the_last_digit_are_the_same() {
        assert!(same_number(20.092298898533, 20.092298898533002));
        assert!(same_number(1.0000000000000002e-5, 1e-5));
        assert!(
            !same_number(20.0922988985, 20.0922988986),
            "a change in the tenth digit"
        );
        assert!(!same_number(0.0, 1e-300), "zero is only zero");
        let j = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert!(same_json(
            &j("[20.092298898533]"),
            &j("[20.092298898533002]")
        ));
        assert!(!same_json(&j("9007199254740993"), &j("9007199254740992")));
        assert!(!same_json(&j("1"), &j("\"1\"")), "a number is not its text");
    }
}
