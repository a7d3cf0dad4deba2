//! The open transaction of one write to a GeoPackage: the primitive operations the shared
//! write engine (`store::write`) drives.

use async_trait::async_trait;
use geo::BoundingRect;
use sqlx::{Sqlite, Transaction};

use super::rtree_load::RtreeLoad;
use super::{bind_value, decode_rows, extra_text, select_columns, MAX_PARAMS};
use crate::domain::{wkb, Feature, GeomKind, Layer};
use crate::store::hash::{bind_source, content_hash};
use crate::store::write::{AuditRow, WriteTx};
use crate::store::{LayerChange, LayerRows, Result, WriteRequest, WriteSummary};

fn layer_is_spatial(layer: Layer) -> bool {
    layer.geom_kind() != GeomKind::None
}

pub(super) struct SqliteTx {
    pub(super) tx: Transaction<'static, Sqlite>,
    /// The layer of the current write held nothing when it began.
    was_empty: bool,
    /// A load into an empty layer whose R-tree is built apart (see `rtree_load`).
    rtree: Option<RtreeLoad>,
    /// The `insert` audit rows of a load into an empty layer, written at the end by one
    /// statement from the layer itself (see `audit`): layer, when, who, import.
    inserts_audited_from_layer: Option<(Layer, String, String, i64)>,
}

impl SqliteTx {
    /// A write's transaction.
    pub(super) fn new(tx: Transaction<'static, Sqlite>) -> Self {
        SqliteTx {
            tx,
            was_empty: false,
            rtree: None,
            inserts_audited_from_layer: None,
        }
    }

    /// Writes the `insert` audit rows of a load into an empty layer, if some wait: one
    /// per row of the layer (every one is this write's), in the order they were written.
    async fn audit_inserts_from_layer(&mut self) -> Result<()> {
        let Some((layer, at, actor, import_id)) = self.inserts_audited_from_layer.take() else {
            return Ok(());
        };
        sqlx::query(crate::store::trusted(format!(
            "INSERT INTO ms4_audit (at, actor, action, layer, feature_id, import_id) \
             SELECT ?, ?, 'insert', ?, {id}, ? FROM {t} WHERE import_id = ? ORDER BY fid",
            id = layer.id_field(),
            t = layer.name()
        )))
        .bind(at)
        .bind(actor)
        .bind(layer.name())
        .bind(import_id)
        .bind(import_id)
        .execute(&mut *self.tx)
        .await?;
        Ok(())
    }

    /// Copies in the R-tree built apart, if a load built one.
    async fn finish_rtree(&mut self) -> Result<()> {
        if let Some(load) = self.rtree.take() {
            load.finish(&mut self.tx).await?;
        }
        Ok(())
    }
}

impl SqliteTx {
    /// Inserts rows, with their fids and their boxes for the builder when the layer's
    /// R-tree is built apart.
    async fn insert_rows(
        &mut self,
        layer: Layer,
        features: &[Feature],
        sources: &[Option<i64>],
        import_id: i64,
        mut bulk: Option<&mut RtreeLoad>,
    ) -> Result<()> {
        let mut cols = crate::store::row::write_columns(layer);
        if bulk.is_some() {
            cols.insert(0, "fid");
        }
        let srid = srid_of(&mut self.tx, layer).await?;
        let per_row = cols.len();
        let rows_per_stmt = (MAX_PARAMS / per_row).clamp(1, 500);
        let row_sql = format!("({})", vec!["?"; per_row].join(","));
        for (k, chunk) in features.chunks(rows_per_stmt).enumerate() {
            let sql = format!(
                "INSERT INTO {} ({}) VALUES {}",
                layer.name(),
                cols.join(","),
                vec![row_sql.as_str(); chunk.len()].join(",")
            );
            let mut q = sqlx::query(crate::store::trusted(sql.clone()));
            let first_fid = bulk.as_mut().map(|b| b.take_fids(chunk.len()));
            let mut boxes = Vec::with_capacity(if bulk.is_some() { chunk.len() } else { 0 });
            for (j, f) in chunk.iter().enumerate() {
                if let Some(first) = first_fid {
                    let fid = first + j as i64;
                    q = q.bind(fid);
                    // As the standard trigger: a row without geometry, or an empty one,
                    // has no entry.
                    if let Some(r) = f.geom.as_ref().and_then(|g| g.bounding_rect()) {
                        boxes.push((fid, [r.min().x, r.max().x, r.min().y, r.max().y]));
                    }
                }
                if layer.geom_kind() != GeomKind::None {
                    q = q.bind(f.geom.as_ref().map(|g| wkb::to_gpkg(g, srid)));
                }
                q = q.bind(f.id.clone());
                for v in &f.values {
                    q = bind_value(q, v);
                }
                let source = sources.get(k * rows_per_stmt + j).copied().flatten();
                let h = content_hash(f);
                q = q
                    .bind(extra_text(f))
                    .bind(import_id)
                    .bind(h)
                    .bind(source.map(|s| bind_source(s, h)));
            }
            q.execute(&mut *self.tx).await?;
            if let Some(b) = bulk.as_mut() {
                b.send(boxes)?;
            }
        }
        Ok(())
    }
}

/// From how many features in a first chunk a load into an empty layer builds the
/// layer's R-tree apart: below it, one tree insertion per row costs less than the set-up.
const RTREE_APART: usize = 1000;

#[async_trait]
impl WriteTx for SqliteTx {
    async fn layer_is_empty(&mut self, layer: Layer) -> Result<bool> {
        let (any,): (bool,) = sqlx::query_as(crate::store::trusted(format!(
            "SELECT EXISTS (SELECT 1 FROM {})",
            layer.name()
        )))
        .fetch_one(&mut *self.tx)
        .await?;
        self.was_empty = !any;
        Ok(!any)
    }

    async fn existing(&mut self, layer: Layer, ids: &[String]) -> Result<LayerRows> {
        let mut out = LayerRows::default();
        for chunk in ids.chunks(MAX_PARAMS) {
            let sql = format!(
                "SELECT {} FROM {} WHERE {} IN ({})",
                select_columns(layer),
                layer.name(),
                layer.id_field(),
                vec!["?"; chunk.len()].join(",")
            );
            let mut q = sqlx::query(crate::store::trusted(sql));
            for id in chunk {
                q = q.bind(id.as_str());
            }
            let rows = q.fetch_all(&mut *self.tx).await?;
            let read = decode_rows(layer, &rows);
            out.features.extend(read.features);
            out.unreadable.extend(read.unreadable);
        }
        Ok(out)
    }

    async fn hashes(&mut self, layer: Layer) -> Result<crate::store::hash::StoredHashes> {
        super::scan::stored_hashes(&mut self.tx, layer).await
    }

    async fn set_hashes(
        &mut self,
        layer: Layer,
        rows: &[(String, i64, Option<i64>)],
    ) -> Result<()> {
        let sql = format!(
            "UPDATE {} SET {} = ?, {} = ? WHERE {} = ?",
            layer.name(),
            crate::store::hash::COLUMN,
            crate::store::hash::SOURCE_COLUMN,
            layer.id_field()
        );
        for (id, h, source) in rows {
            sqlx::query(crate::store::trusted(sql.clone()))
                .bind(*h)
                .bind(source.map(|s| bind_source(s, *h)))
                .bind(id.as_str())
                .execute(&mut *self.tx)
                .await?;
        }
        Ok(())
    }

    async fn bump(&mut self, layer: Layer) -> Result<LayerChange> {
        // The transaction began IMMEDIATE: it holds the write lock, so no other writer
        // can come between the two reads and the bump.
        const SEQ: &str = "SELECT seq FROM ms4_changes WHERE layer = ?";
        let before: Option<i64> = sqlx::query_scalar(SEQ)
            .bind(layer.name())
            .fetch_optional(&mut *self.tx)
            .await?;
        sqlx::query(crate::store::trusted(crate::store::outside::sqlite_bump(
            layer,
        )))
        .execute(&mut *self.tx)
        .await?;
        let after: i64 = sqlx::query_scalar(SEQ)
            .bind(layer.name())
            .fetch_one(&mut *self.tx)
            .await?;
        Ok(LayerChange { before, after })
    }

    async fn begin_import(&mut self, req: &WriteRequest, at: &str) -> Result<i64> {
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO ms4_imports (layer, source, actor, mode, started_at) VALUES (?, ?, ?, ?, ?) RETURNING import_id",
        )
        .bind(req.layer.name())
        .bind(&req.source)
        .bind(&req.actor)
        .bind(req.mode.as_str())
        .bind(at)
        .fetch_one(&mut *self.tx)
        .await?;
        Ok(id)
    }

    async fn insert(
        &mut self,
        layer: Layer,
        features: Vec<Feature>,
        sources: &[Option<i64>],
        import_id: i64,
    ) -> Result<()> {
        if self.rtree.is_none()
            && self.was_empty
            && layer_is_spatial(layer)
            && features.len() >= RTREE_APART
        {
            self.rtree = RtreeLoad::start(&mut self.tx, layer).await?;
        }
        let mut bulk = self.rtree.take();
        let result = self
            .insert_rows(layer, &features, sources, import_id, bulk.as_mut())
            .await;
        self.rtree = bulk;
        result
    }

    async fn update(
        &mut self,
        layer: Layer,
        features: &[Feature],
        sources: &[Option<i64>],
        import_id: i64,
    ) -> Result<()> {
        let cols = crate::store::row::write_columns(layer);
        let srid = srid_of(&mut self.tx, layer).await?;
        let sets: Vec<String> = cols
            .iter()
            .filter(|c| **c != layer.id_field())
            .map(|c| format!("{c} = ?"))
            .collect();
        let sql = format!(
            "UPDATE {} SET {} WHERE {} = ?",
            layer.name(),
            sets.join(", "),
            layer.id_field()
        );
        for (i, f) in features.iter().enumerate() {
            let mut q = sqlx::query(crate::store::trusted(sql.clone()));
            if layer.geom_kind() != GeomKind::None {
                q = q.bind(f.geom.as_ref().map(|g| wkb::to_gpkg(g, srid)));
            }
            for v in &f.values {
                q = bind_value(q, v);
            }
            let h = content_hash(f);
            q = q
                .bind(extra_text(f))
                .bind(import_id)
                .bind(h)
                .bind(sources.get(i).copied().flatten().map(|s| bind_source(s, h)))
                .bind(f.id.clone());
            q.execute(&mut *self.tx).await?;
        }
        Ok(())
    }

    async fn delete(&mut self, layer: Layer, ids: &[String]) -> Result<()> {
        for chunk in ids.chunks(500) {
            let sql = format!(
                "DELETE FROM {} WHERE {} IN ({})",
                layer.name(),
                layer.id_field(),
                vec!["?"; chunk.len()].join(",")
            );
            let mut q = sqlx::query(crate::store::trusted(sql.clone()));
            for id in chunk {
                q = q.bind(id.clone());
            }
            q.execute(&mut *self.tx).await?;
        }
        Ok(())
    }

    async fn audit(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        at: &str,
        rows: Vec<AuditRow>,
    ) -> Result<()> {
        if self.was_empty
            && rows
                .iter()
                .all(|r| r.action == "insert" && r.before.is_none() && r.after.is_none())
        {
            // A load into an empty layer: every row it adds has one of these, saying only
            // "inserted" and the id. One statement writes them at the end from the layer,
            // instead of a million rows bound value by value here.
            let key = (req.layer, at.to_string(), req.actor.clone(), import_id);
            match &self.inserts_audited_from_layer {
                None => self.inserts_audited_from_layer = Some(key),
                Some(k) if *k == key => {}
                Some(_) => {
                    return Err(crate::store::StoreError::Aborted(
                        "audit rows of two writes were mixed in one load".into(),
                    ))
                }
            }
            return Ok(());
        }
        // Rows after them (the write's summary row) come after them in the audit.
        self.audit_inserts_from_layer().await?;
        const COLS: usize = 8;
        for chunk in rows.chunks(MAX_PARAMS / COLS) {
            if chunk.is_empty() {
                continue;
            }
            let sql = format!(
                "INSERT INTO ms4_audit (at, actor, action, layer, feature_id, import_id, before, after) VALUES {}",
                vec!["(?,?,?,?,?,?,?,?)"; chunk.len()].join(",")
            );
            let mut q = sqlx::query(crate::store::trusted(sql.clone()));
            for r in chunk {
                q = q
                    .bind(at.to_string())
                    .bind(req.actor.clone())
                    .bind(r.action)
                    .bind(req.layer.name())
                    .bind(r.feature_id.clone())
                    .bind(import_id)
                    .bind(r.before.as_ref().map(|v| v.to_string()))
                    .bind(r.after.as_ref().map(|v| v.to_string()));
            }
            q.execute(&mut *self.tx).await?;
        }
        Ok(())
    }

    async fn finish_import(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        s: &WriteSummary,
        report: &serde_json::Value,
        at: &str,
    ) -> Result<()> {
        // The extent below is read from the R-tree: it must be whole first.
        self.finish_rtree().await?;
        self.audit_inserts_from_layer().await?;
        sqlx::query(
            "UPDATE ms4_imports SET finished_at = ?, inserted = ?, updated = ?, deleted = ?, unchanged = ?, report = ? WHERE import_id = ?",
        )
        .bind(crate::store::now().to_rfc3339())
        .bind(s.inserted as i64)
        .bind(s.updated as i64)
        .bind(s.deleted as i64)
        .bind(s.unchanged as i64)
        .bind(report.to_string())
        .bind(import_id)
        .execute(&mut *self.tx)
        .await?;
        // The layer's extent as it now stands, from its R-tree (kept by the GeoPackage
        // triggers inside this transaction): no need to read the features.
        let (minx, miny, maxx, maxy): (Option<f64>, Option<f64>, Option<f64>, Option<f64>) =
            if layer_is_spatial(req.layer) {
                sqlx::query_as(crate::store::trusted(format!(
                    "SELECT min(minx), min(miny), max(maxx), max(maxy) FROM rtree_{}_geom",
                    req.layer.name()
                )))
                .fetch_one(&mut *self.tx)
                .await?
            } else {
                (None, None, None, None)
            };
        // GeoPackage wants last_change as an ISO 8601 timestamp with milliseconds and Z.
        let stamp = chrono::DateTime::parse_from_rfc3339(at)
            .map(|t| t.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string())
            .unwrap_or_else(|_| at.to_string());
        sqlx::query("UPDATE gpkg_contents SET last_change = ?, min_x = ?, min_y = ?, max_x = ?, max_y = ? WHERE table_name = ?")
            .bind(stamp)
            .bind(minx)
            .bind(miny)
            .bind(maxx)
            .bind(maxy)
            .bind(req.layer.name())
            .execute(&mut *self.tx)
            .await?;
        Ok(())
    }

    async fn commit(mut self: Box<Self>) -> Result<()> {
        // Never commit a layer without its R-tree and its trigger, nor a load unaudited.
        self.finish_rtree().await?;
        self.audit_inserts_from_layer().await?;
        // The marker must never be committed: other programs' writes would go unaudited.
        sqlx::query("DELETE FROM ms4_writer")
            .execute(&mut *self.tx)
            .await?;
        self.tx.commit().await?;
        Ok(())
    }
}

async fn srid_of(tx: &mut Transaction<'static, Sqlite>, layer: Layer) -> Result<i32> {
    if layer.geom_kind() == GeomKind::None {
        return Ok(0);
    }
    let (srid,): (i32,) =
        sqlx::query_as("SELECT srs_id FROM gpkg_geometry_columns WHERE table_name = ?")
            .bind(layer.name())
            .fetch_one(&mut **tx)
            .await?;
    Ok(srid)
}
