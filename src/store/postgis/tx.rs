//! The open transaction of one write to PostGIS: the primitive operations the shared
//! write engine (`store::write`) drives, by COPY for many rows and plain statements for
//! a few.

use async_trait::async_trait;
use sqlx::{Postgres, Transaction};

mod audit;

use super::copy::{cast, encode_copy, CopyStream, Tx};
use super::{decode_rows, select_columns};
use crate::domain::{wkb, Feature, GeomKind, Layer, Value};
use crate::store::write::{AuditRow, WriteTx};
use crate::store::{Result, StoreError, WriteRequest, WriteSummary};

/// The open transaction of one write.
///
/// New features stream through ONE `COPY` per write, and audit rows are gathered and
/// copied once at the end. Besides saving round trips this matters because sqlx does not
/// set TCP_NODELAY: every COPY's closing message waits out Nagle's algorithm and the
/// server's delayed ACK (about 40 ms on loopback), which a COPY per chunk pays hundreds
/// of times in a large import.
pub(super) struct PgTx {
    /// The transaction; `None` while a COPY task holds it.
    tx: Option<Transaction<'static, Postgres>>,
    /// The COPY under way: encoded chunks go in, the transaction comes back at the end.
    copy: Option<CopyStream>,
    /// Audit rows in COPY text format, written at the end.
    audit_buf: String,
    /// New rows in COPY text format, gathered while the layer is not empty: each chunk's
    /// stored rows are read between chunks, which a streaming COPY holding the
    /// transaction would not allow, so they go in a few large COPYs instead.
    insert_buf: String,
    srid: i32,
    /// The layer held nothing when the write began.
    was_empty: bool,
    /// The layer whose new rows wait in `insert_buf`, when some do.
    gathered_layer: Option<Layer>,
    /// The GiST index was dropped for a bulk load and must be rebuilt before commit.
    index_dropped: bool,
    /// The key constraints (name, definition) dropped for a bulk load, to add again
    /// before commit; `None` until the first insert decided.
    keys_dropped: Option<Vec<(String, String)>>,
    /// The ids of a bulk load's new features, in the order written, for its one
    /// `insert` audit row (see [`PgTx::audit`]).
    bulk_inserts: Vec<String>,
}

/// Up to this many rows a write sends as plain statements rather than a COPY.
const FEW: usize = 16;

/// A name from the catalogue as an SQL identifier.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// From how many features in a first chunk a load into an empty layer drops the key
/// constraints to build their indexes once at the end: below it, the DDL costs more
/// than it saves.
const BULK_KEYS: usize = 1000;

/// How many bytes of new rows a write to a layer that is not empty gathers per COPY:
/// large enough that few COPYs pay their closing round trip, small enough to bound memory.
const GATHER_BYTES: usize = 32 << 20;

fn bind_value<'q>(
    q: sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments>,
    v: &Value,
) -> sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments> {
    // Every value travels as text and is cast by the statement, so one statement text
    // serves every row whatever its values' types.
    match v {
        Value::Null => q.bind(None::<String>),
        v => q.bind(v.to_string()),
    }
}

impl PgTx {
    /// A write's transaction, marked as ms4's already.
    pub(super) fn new(tx: Transaction<'static, Postgres>, srid: i32) -> Self {
        PgTx {
            tx: Some(tx),
            copy: None,
            audit_buf: String::new(),
            insert_buf: String::new(),
            srid,
            was_empty: false,
            gathered_layer: None,
            index_dropped: false,
            keys_dropped: None,
            bulk_inserts: Vec::new(),
        }
    }

    fn tx(&mut self) -> &mut Tx {
        self.tx
            .as_mut()
            .expect("the transaction is back once the COPY has ended")
    }

    /// Ends the COPY under way, if any, and takes the transaction back; writes the new
    /// rows gathered.
    async fn flush(&mut self) -> Result<()> {
        self.end_stream().await?;
        self.copy_gathered().await
    }

    /// Ends the COPY under way, if any, and takes the transaction back. The rows gathered
    /// may wait: the statements run between chunks (reading, updating or deleting other
    /// ids; the stream's ids are unique) never touch them.
    async fn end_stream(&mut self) -> Result<()> {
        if let Some(CopyStream { chunks, task }) = self.copy.take() {
            drop(chunks);
            let (tx, result) = task
                .await
                .map_err(|e| StoreError::Aborted(format!("the COPY task failed: {e}")))?;
            self.tx = Some(tx);
            result?;
        }
        Ok(())
    }

    /// Inserts a few rows with plain statements (see `audit`).
    async fn insert_few(
        &mut self,
        layer: Layer,
        features: &[Feature],
        sources: &[Option<i64>],
        import_id: i64,
    ) -> Result<()> {
        self.end_stream().await?;
        self.write_rows(layer, features, sources, import_id, true)
            .await
    }

    /// Writes rows one statement each, every value bound as text and cast by the
    /// statement: an UPDATE by id, or (`insert`) an INSERT of the same values.
    async fn write_rows(
        &mut self,
        layer: Layer,
        features: &[Feature],
        sources: &[Option<i64>],
        import_id: i64,
        insert: bool,
    ) -> Result<()> {
        let mut cols = Vec::new();
        let mut exprs = Vec::new();
        let mut n = 0;
        let mut next = || {
            n += 1;
            n
        };
        if layer.geom_kind() != GeomKind::None {
            cols.push("geom".to_string());
            exprs.push(format!("ST_GeomFromEWKB(${})", next()));
        }
        for f in layer.fields() {
            cols.push(f.name.to_string());
            exprs.push(format!("${}::{}", next(), cast(f.ty)));
        }
        cols.push("extra".into());
        exprs.push(format!("${}::jsonb", next()));
        cols.push("import_id".into());
        exprs.push(format!("${}", next()));
        cols.push(crate::store::hash::COLUMN.into());
        exprs.push(format!("${}", next()));
        cols.push(crate::store::hash::SOURCE_COLUMN.into());
        exprs.push(format!("${}::bigint", next()));
        let id_param = next();
        let sql = if insert {
            format!(
                "INSERT INTO {} ({}, {}) VALUES ({}, ${id_param})",
                layer.name(),
                cols.join(", "),
                layer.id_field(),
                exprs.join(", ")
            )
        } else {
            let sets: Vec<String> = cols
                .iter()
                .zip(&exprs)
                .map(|(c, e)| format!("{c} = {e}"))
                .collect();
            format!(
                "UPDATE {} SET {} WHERE {} = ${id_param}",
                layer.name(),
                sets.join(", "),
                layer.id_field()
            )
        };
        for (i, f) in features.iter().enumerate() {
            let h = crate::store::hash::content_hash(f);
            let mut q = sqlx::query(crate::store::trusted(sql.clone()));
            if layer.geom_kind() != GeomKind::None {
                q = q.bind(f.geom.as_ref().map(|g| wkb::to_ewkb(g, self.srid)));
            }
            for v in &f.values {
                q = bind_value(q, v);
            }
            q = q
                .bind(
                    (!f.extra.is_empty())
                        .then(|| serde_json::Value::Object(f.extra.clone()).to_string()),
                )
                .bind(import_id)
                .bind(h)
                .bind(
                    sources
                        .get(i)
                        .copied()
                        .flatten()
                        .map(|s| crate::store::hash::bind_source(s, h)),
                )
                .bind(f.id.clone());
            q.execute(&mut **self.tx()).await?;
        }
        Ok(())
    }

    /// Writes the new rows gathered in `insert_buf` with one COPY.
    async fn copy_gathered(&mut self) -> Result<()> {
        let Some(layer) = self.gathered_layer.take() else {
            return Ok(());
        };
        let buf = std::mem::take(&mut self.insert_buf);
        let stmt = format!(
            "COPY {} ({}) FROM STDIN",
            layer.name(),
            crate::store::row::write_columns(layer).join(",")
        );
        let mut copy = self.tx().copy_in_raw(&stmt).await?;
        copy.send(buf.into_bytes()).await?;
        copy.finish().await?;
        Ok(())
    }
}

#[async_trait]
impl WriteTx for PgTx {
    async fn layer_is_empty(&mut self, layer: Layer) -> Result<bool> {
        let (any,): (bool,) = sqlx::query_as(crate::store::trusted(format!(
            "SELECT EXISTS (SELECT 1 FROM {})",
            layer.name()
        )))
        .fetch_one(&mut **self.tx())
        .await?;
        self.was_empty = !any;
        Ok(!any)
    }

    async fn existing(&mut self, layer: Layer, ids: &[String]) -> Result<crate::store::LayerRows> {
        self.end_stream().await?;
        let rows = sqlx::query(crate::store::trusted(format!(
            "SELECT {} FROM {} WHERE {} = ANY($1)",
            select_columns(layer),
            layer.name(),
            layer.id_field()
        )))
        .bind(ids)
        .fetch_all(&mut **self.tx())
        .await?;
        Ok(decode_rows(layer, &rows))
    }

    async fn lock(&mut self, layer: Layer, ids: &[String]) -> Result<()> {
        self.end_stream().await?;
        // Under read committed the next statement, run once the lock is held, sees the
        // row as the writer that held it before committed it.
        sqlx::query(crate::store::trusted(format!(
            "SELECT 1 FROM {} WHERE {} = ANY($1) FOR UPDATE",
            layer.name(),
            layer.id_field()
        )))
        .bind(ids)
        .execute(&mut **self.tx())
        .await?;
        Ok(())
    }

    async fn hashes(&mut self, layer: Layer) -> Result<crate::store::hash::StoredHashes> {
        use futures_util::TryStreamExt;
        use sqlx::Row;
        self.end_stream().await?;
        let sql = crate::store::trusted(format!(
            "SELECT {}, {}, {} FROM {}",
            layer.id_field(),
            crate::store::hash::COLUMN,
            crate::store::hash::SOURCE_COLUMN,
            layer.name()
        ));
        // Streamed into the compact set row by row: a million rows never sit in memory
        // as rows.
        let mut out = crate::store::hash::StoredHashes::default();
        let mut rows = sqlx::query(sql).fetch(&mut **self.tx());
        while let Some(r) = rows.try_next().await? {
            out.push(
                r.try_get::<&str, _>(0)?,
                r.try_get::<Option<i64>, _>(1)?,
                r.try_get::<Option<i64>, _>(2)?,
            );
        }
        drop(rows);
        Ok(out.sorted())
    }

    async fn set_hashes(
        &mut self,
        layer: Layer,
        rows: &[(String, i64, Option<i64>)],
    ) -> Result<()> {
        self.end_stream().await?;
        let ids: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        let hashes: Vec<i64> = rows.iter().map(|r| r.1).collect();
        let sources: Vec<Option<i64>> = rows
            .iter()
            .map(|r| r.2.map(|s| crate::store::hash::bind_source(s, r.1)))
            .collect();
        sqlx::query(crate::store::trusted(format!(
            "UPDATE {t} SET {c} = v.h, {s} = v.s FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS v(id, h, s) WHERE {t}.{id} = v.id",
            t = layer.name(),
            c = crate::store::hash::COLUMN,
            s = crate::store::hash::SOURCE_COLUMN,
            id = layer.id_field()
        )))
        .bind(ids)
        .bind(hashes)
        .bind(sources)
        .execute(&mut **self.tx())
        .await?;
        Ok(())
    }

    async fn bump(&mut self, layer: Layer) -> Result<crate::store::LayerChange> {
        self.flush().await?;
        // The row lock makes a concurrent write to the layer wait for this one to end,
        // so `before` is the number no other write has moved since.
        let before: Option<i64> =
            sqlx::query_scalar("SELECT seq FROM ms4_changes WHERE layer = $1 FOR UPDATE")
                .bind(layer.name())
                .fetch_optional(&mut **self.tx())
                .await?;
        // Tells running servers (this process's and others') that the layer changed.
        sqlx::query("SELECT ms4_bump($1)")
            .bind(layer.name())
            .execute(&mut **self.tx())
            .await?;
        let after: i64 = sqlx::query_scalar("SELECT seq FROM ms4_changes WHERE layer = $1")
            .bind(layer.name())
            .fetch_one(&mut **self.tx())
            .await?;
        Ok(crate::store::LayerChange { before, after })
    }

    async fn begin_import(&mut self, req: &WriteRequest, at: &str) -> Result<i64> {
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO ms4_imports (layer, source, actor, mode, started_at) VALUES ($1, $2, $3, $4, $5::timestamptz) RETURNING import_id",
        )
        .bind(req.layer.name())
        .bind(&req.source)
        .bind(&req.actor)
        .bind(req.mode.as_str())
        .bind(at)
        .fetch_one(&mut **self.tx())
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
        if self.was_empty && !self.index_dropped && layer.geom_kind() != GeomKind::None {
            // Loading an empty layer: building the GiST index once at the end is several
            // times faster than maintaining it row by row. DDL is transactional here, so
            // a failed or killed load still leaves the index (and the table) as it was.
            sqlx::query(crate::store::trusted(format!(
                "DROP INDEX IF EXISTS {}_geom_gist",
                layer.name()
            )))
            .execute(&mut **self.tx())
            .await?;
            self.index_dropped = true;
        }
        if self.keys_dropped.is_none() {
            let mut dropped = Vec::new();
            if self.was_empty && features.len() >= BULK_KEYS {
                // Likewise the unique indexes behind the keys (the fid and the town's
                // id): one sorted build at the end instead of a million insertions. The
                // importer has made the ids unique; were they not, adding the key back
                // fails the write, which rolls back whole.
                let keys: Vec<(String, String)> = sqlx::query_as(
                    "SELECT conname::text, pg_get_constraintdef(oid) FROM pg_constraint                      WHERE conrelid = $1::regclass AND contype IN ('p', 'u') ORDER BY conname",
                )
                .bind(layer.name())
                .fetch_all(&mut **self.tx())
                .await?;
                for (name, _) in &keys {
                    sqlx::query(crate::store::trusted(format!(
                        "ALTER TABLE {} DROP CONSTRAINT {}",
                        layer.name(),
                        quoted(name)
                    )))
                    .execute(&mut **self.tx())
                    .await?;
                }
                dropped = keys;
            }
            self.keys_dropped = Some(dropped);
        }
        let srid = self.srid;
        if !self.was_empty && features.len() <= FEW {
            // An inspection: a plain INSERT per row (see `audit`).
            return self.insert_few(layer, &features, sources, import_id).await;
        }
        let sources = sources.to_vec();
        if !self.was_empty {
            let buf = tokio::task::spawn_blocking(move || {
                encode_copy(layer, &features, &sources, srid, import_id)
            })
            .await
            .map_err(|e| StoreError::Aborted(format!("encoding rows failed: {e}")))?;
            self.insert_buf.push_str(&buf);
            self.gathered_layer = Some(layer);
            if self.insert_buf.len() > GATHER_BYTES {
                self.copy_gathered().await?;
            }
            return Ok(());
        }
        // Encode this chunk on another thread while the database takes the previous one:
        // the two overlap instead of taking turns.
        let next = tokio::task::spawn_blocking(move || {
            encode_copy(layer, &features, &sources, srid, import_id)
        });
        if self.copy.is_none() {
            let tx = self.tx.take().expect("no COPY is under way");
            self.copy = Some(CopyStream::start(tx, layer));
        }
        let sent = self
            .copy
            .as_ref()
            .expect("just started")
            .chunks
            .send(next)
            .await;
        if sent.is_err() {
            // The COPY task stopped: its error says why.
            self.flush().await?;
            return Err(StoreError::Aborted("the COPY stopped early".into()));
        }
        Ok(())
    }

    async fn update(
        &mut self,
        layer: Layer,
        features: &[Feature],
        sources: &[Option<i64>],
        import_id: i64,
    ) -> Result<()> {
        self.end_stream().await?;
        self.write_rows(layer, features, sources, import_id, false)
            .await
    }

    async fn delete(&mut self, layer: Layer, ids: &[String]) -> Result<()> {
        self.end_stream().await?;
        sqlx::query(crate::store::trusted(format!(
            "DELETE FROM {} WHERE {} = ANY($1)",
            layer.name(),
            layer.id_field()
        )))
        .bind(ids)
        .execute(&mut **self.tx())
        .await?;
        Ok(())
    }

    async fn audit(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        at: &str,
        rows: Vec<AuditRow>,
    ) -> Result<()> {
        self.record_audit(req, import_id, at, rows).await
    }

    async fn finish_import(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        s: &WriteSummary,
        report: &serde_json::Value,
        at: &str,
    ) -> Result<()> {
        self.flush().await?;
        self.write_gathered_audit(req, import_id, at).await?;
        sqlx::query(
            "UPDATE ms4_imports SET finished_at = now(), inserted = $1, updated = $2, deleted = $3, unchanged = $4, report = $5::jsonb WHERE import_id = $6",
        )
        .bind(s.inserted as i64)
        .bind(s.updated as i64)
        .bind(s.deleted as i64)
        .bind(s.unchanged as i64)
        .bind(report.to_string())
        .bind(import_id)
        .execute(&mut **self.tx())
        .await?;
        if self.index_dropped {
            sqlx::query(crate::store::trusted(format!(
                "CREATE INDEX {0}_geom_gist ON {0} USING GIST (geom)",
                req.layer.name()
            )))
            .execute(&mut **self.tx())
            .await?;
            self.index_dropped = false;
        }
        if let Some(keys) = self.keys_dropped.take().filter(|k| !k.is_empty()) {
            let adds: Vec<String> = keys
                .iter()
                .map(|(name, def)| format!("ADD CONSTRAINT {} {def}", quoted(name)))
                .collect();
            sqlx::query(crate::store::trusted(format!(
                "ALTER TABLE {} {}",
                req.layer.name(),
                adds.join(", ")
            )))
            .execute(&mut **self.tx())
            .await?;
        }
        Ok(())
    }

    async fn commit(mut self: Box<Self>) -> Result<()> {
        self.flush().await?;
        self.tx
            .take()
            .expect("the transaction is back")
            .commit()
            .await?;
        Ok(())
    }
}
