//! The write engine both stores share: diff a stream of features against the layer,
//! insert, update, delete and audit inside one transaction.

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::audit::{feature_change, feature_json, same_feature};
use super::{Result, StoreError, WriteMode, WriteMsg, WriteRequest, WriteSummary};
use crate::domain::{wkb, Feature, Layer};
use geo_types::Rect;

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
    /// Every feature of the layer as it stands inside the transaction, and the rows
    /// that cannot be read (which the write overwrites or deletes like any other).
    async fn existing(&mut self, layer: Layer) -> Result<super::LayerRows>;
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
    /// Completes the import record and the layer's catalogue entry (extent, last change).
    async fn finish_import(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        summary: &WriteSummary,
        report: &serde_json::Value,
        extent: Option<Rect<f64>>,
        at: &str,
    ) -> Result<()>;
    /// Commits.
    async fn commit(self: Box<Self>) -> Result<()>;
}

/// Runs a write stream against an open transaction. Returning early (an error, an abort,
/// a dropped sender) drops the transaction, which rolls it back.
pub(crate) async fn run(
    mut tx: Box<dyn WriteTx>,
    req: WriteRequest,
    mut rx: mpsc::Receiver<WriteMsg>,
) -> Result<WriteSummary> {
    let layer = req.layer;
    let at = super::now().to_rfc3339();
    let read = tx.existing(layer).await?;
    let mut existing: rustc_hash::FxHashMap<String, Feature> = read
        .features
        .into_iter()
        .map(|f| (f.id.clone(), f))
        .collect();
    // Rows another program wrote that cannot be read: a write of the same id overwrites
    // them (an update whose "before" is the reason), a replace deletes the rest. A row
    // whose very id is unreadable cannot be matched and stays until someone fixes it.
    let mut unreadable: rustc_hash::FxHashMap<String, String> = read
        .unreadable
        .into_iter()
        .filter_map(|u| Some((u.id?, u.reason)))
        .collect();
    let import_id = tx.begin_import(&req, &at).await?;
    let mut summary = WriteSummary {
        import_id,
        ..Default::default()
    };
    let mut extent: Option<Rect<f64>> = None;

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
        let mut inserts = Vec::with_capacity(chunk.len());
        let mut updates = Vec::new();
        let mut audit = Vec::with_capacity(chunk.len());
        for f in chunk {
            extent = merge(extent, f.geom.as_ref().and_then(wkb::bounding_rect));
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

    // What is left in `existing` was not in this write.
    if req.mode == WriteMode::Replace && !(existing.is_empty() && unreadable.is_empty()) {
        let mut ids: Vec<String> = existing.keys().chain(unreadable.keys()).cloned().collect();
        ids.sort();
        let rows = ids
            .iter()
            .map(|id| AuditRow {
                action: "delete",
                feature_id: Some(id.clone()),
                before: Some(match existing.get(id) {
                    Some(f) => feature_json(layer, f),
                    None => serde_json::json!({ "unreadable": unreadable[id] }),
                }),
                after: None,
            })
            .collect();
        tx.delete(layer, &ids).await?;
        tx.audit(&req, import_id, &at, rows).await?;
        summary.deleted = ids.len() as u64;
    } else {
        for f in existing.values() {
            extent = merge(extent, f.geom.as_ref().and_then(wkb::bounding_rect));
        }
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
    tx.finish_import(&req, import_id, &summary, &report, extent, &at)
        .await?;
    tx.commit().await?;
    Ok(summary)
}

fn merge(a: Option<Rect<f64>>, b: Option<Rect<f64>>) -> Option<Rect<f64>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(Rect::new(
            geo_types::coord! { x: a.min().x.min(b.min().x), y: a.min().y.min(b.min().y) },
            geo_types::coord! { x: a.max().x.max(b.max().x), y: a.max().y.max(b.max().y) },
        )),
        (a, None) => a,
        (None, b) => b,
    }
}
