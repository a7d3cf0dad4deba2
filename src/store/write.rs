//! The write engine both stores share: diff a stream of features against the layer,
//! insert, update, delete and audit inside one transaction.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::audit::{feature_change, feature_json};
use rustc_hash::{FxHashMap, FxHashSet};

use super::{Result, StoreError, WriteMode, WriteMsg, WriteRequest, WriteSummary};
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
    /// The id of every row of the layer (readable or not), for a replace to know what the
    /// write did not carry.
    async fn ids(&mut self, layer: Layer) -> Result<Vec<String>>;
    /// Starts the import record; returns its id.
    async fn begin_import(&mut self, req: &WriteRequest, at: &str) -> Result<i64>;
    /// Inserts new features.
    async fn insert(&mut self, layer: Layer, features: Vec<Feature>, import_id: i64) -> Result<()>;
    /// Overwrites features that exist, by id.
    async fn update(&mut self, layer: Layer, features: &[Feature], import_id: i64) -> Result<()>;
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
/// Each chunk is compared with the stored rows of its own ids only, so re-importing a
/// million features holds one chunk's rows at a time, and posting one inspection reads
/// one row however long the layer's history. A replace also reads the layer's ids (not
/// its rows), then the rows it deletes, for their audit.
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
    tx.commit().await?;
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
    // The ids stored and not (yet) carried by the write: what a replace deletes.
    let mut not_carried: Option<FxHashSet<String>> = match (req.mode, empty) {
        (WriteMode::Replace, false) => Some(tx.ids(layer).await?.into_iter().collect()),
        _ => None,
    };
    let import_id = tx.begin_import(&req, &at).await?;
    let mut summary = WriteSummary {
        import_id,
        ..Default::default()
    };

    let report = loop {
        let msg = rx
            .recv()
            .await
            .ok_or_else(|| StoreError::Aborted("the writer stopped before committing".into()))?;
        let chunk = match msg {
            WriteMsg::Features(c) => c,
            WriteMsg::Commit { report } => break report,
            WriteMsg::Abort(why) => return Err(StoreError::Aborted(why)),
        };
        let read = if empty || chunk.is_empty() {
            super::LayerRows::default()
        } else {
            let ids: Vec<String> = chunk.iter().map(|f| f.id.clone()).collect();
            tx.existing(layer, &ids).await?
        };
        summary.rows_compared += (read.features.len() + read.unreadable.len()) as u64;
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
        let mut inserts = Vec::with_capacity(chunk.len());
        let mut updates = Vec::new();
        let mut audit = Vec::with_capacity(chunk.len());
        for f in chunk {
            if let Some(left) = not_carried.as_mut() {
                left.remove(&f.id);
            }
            if let Some(reason) = unreadable.remove(&f.id) {
                audit.push(AuditRow {
                    action: "update",
                    feature_id: Some(f.id.clone()),
                    before: Some(serde_json::json!({ "unreadable": reason })),
                    after: Some(feature_json(layer, &f)),
                });
                updates.push(f);
                continue;
            }
            match existing.remove(&f.id) {
                None => {
                    audit.push(AuditRow {
                        action: "insert",
                        feature_id: Some(f.id.clone()),
                        before: None,
                        after: None,
                    });
                    inserts.push(f);
                }
                Some(old) if same_feature(&old, &f) => summary.unchanged += 1,
                Some(old) => {
                    let (before, after) = feature_change(layer, &old, &f);
                    audit.push(AuditRow {
                        action: "update",
                        feature_id: Some(f.id.clone()),
                        before: Some(before),
                        after: Some(after),
                    });
                    updates.push(f);
                }
            }
        }
        summary.inserted += inserts.len() as u64;
        summary.updated += updates.len() as u64;
        if !inserts.is_empty() {
            tx.insert(layer, inserts, import_id).await?;
        }
        if !updates.is_empty() {
            tx.update(layer, &updates, import_id).await?;
        }
        tx.audit(&req, import_id, &at, audit).await?;
    };

    // What a replace did not carry is deleted, each row audited as it was.
    if let Some(left) = not_carried.filter(|l| !l.is_empty()) {
        let mut ids: Vec<String> = left.into_iter().collect();
        ids.sort();
        for chunk in ids.chunks(DELETE_CHUNK) {
            let read = tx.existing(layer, chunk).await?;
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
            tx.delete(layer, chunk).await?;
            tx.audit(&req, import_id, &at, rows).await?;
        }
        summary.deleted = ids.len() as u64;
    }
    tx.audit(
        &req,
        import_id,
        &at,
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
    summary.change = Some(tx.bump(layer).await?);
    tx.finish_import(&req, import_id, &summary, &report, &at)
        .await?;
    Ok(summary)
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
    old.values.len() == new.values.len()
        && old
            .values
            .iter()
            .zip(&new.values)
            .all(|(a, b)| same_value(a, b))
        && same_object(&old.extra, &new.extra)
        && match (&old.geom, &new.geom) {
            (None, None) => true,
            (Some(a), Some(b)) => crate::domain::wkb::to_wkb(a) == crate::domain::wkb::to_wkb(b),
            _ => false,
        }
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
