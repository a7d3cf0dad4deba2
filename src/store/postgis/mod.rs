//! The server store: PostGIS through sqlx.
//!
//! Layer tables have geometry columns typed with the registry's SRID and GiST indexes,
//! so `ogrinfo PG:...`, QGIS and SQL users see ordinary PostGIS layers. New features
//! arrive through `COPY ... FROM STDIN` (hex EWKB), which is what makes a million-row
//! import take seconds rather than minutes.

use async_trait::async_trait;
use geo_types::Rect;
use sqlx::postgres::{PgPoolOptions, PgRow};
use sqlx::{PgPool, Postgres, Transaction};
use tokio::sync::mpsc;
use tracing::instrument;

mod copy;
mod profile;
mod setup;

use setup::{ensure_database, install_outside};

use copy::{copy_text, encode_copy, CopyStream, Tx};

use super::write::{self, AuditRow, WriteTx};
use super::{
    meta_from_rows, meta_rows, AuditEntry, RegistryMeta, Result, Store, StoreError, WriteMsg,
    WriteRequest, WriteSummary,
};
use crate::auth::{NewToken, TokenRecord};
use crate::domain::{wkb, Feature, FieldType, GeomKind, Layer, Value};

/// A registry in a PostGIS database.
pub struct PostgisStore {
    pool: PgPool,
    url: String,
    /// The registry's SRID, fixed at `init`: read once, not on every write.
    srid: i32,
}

impl PostgisStore {
    async fn pool(url: &str) -> Result<PgPool> {
        Ok(PgPoolOptions::new().max_connections(8).connect(url).await?)
    }

    /// Opens an existing registry database.
    #[instrument(skip_all, err)]
    pub async fn open(url: &str) -> Result<Self> {
        let mut store = PostgisStore {
            pool: Self::pool(url).await?,
            url: url.to_string(),
            srid: 0,
        };
        store.srid = store.meta().await?.srid;
        // Registries made by an older ms4 get the tables added since (tokens, ...), and
        // the outside-edit triggers of layers added since.
        sqlx::migrate!("migrations/postgres")
            .run(&store.pool)
            .await?;
        install_outside(&store.pool).await?;
        Ok(store)
    }

    /// Creates a registry, creating the database itself when it does not exist yet.
    #[instrument(skip_all, fields(jurisdiction = %meta.jurisdiction, srid = meta.srid), err)]
    pub async fn create(url: &str, meta: &RegistryMeta) -> Result<Self> {
        ensure_database(url).await?;
        let pool = Self::pool(url).await?;
        let (exists,): (Option<String>,) = sqlx::query_as("SELECT to_regclass('ms4_meta')::text")
            .fetch_one(&pool)
            .await?;
        if exists.is_some() {
            let store = PostgisStore {
                pool,
                url: url.to_string(),
                srid: 0,
            };
            let j = store
                .meta()
                .await
                .map(|m| m.jurisdiction)
                .unwrap_or_default();
            return Err(StoreError::AlreadyInitialised(redact(url), j));
        }
        sqlx::migrate!("migrations/postgres").run(&pool).await?;
        let mut tx = pool.begin().await?;
        for layer in Layer::ALL {
            let kind = layer.geom_kind();
            if kind == GeomKind::None {
                continue;
            }
            // The SRID is the registry's, known only now; the tables are empty, so this
            // only rewrites the column's typmod.
            sqlx::query(super::trusted(format!(
                "ALTER TABLE {0} ALTER COLUMN geom TYPE geometry({1}, {2}) USING ST_SetSRID(geom, {2})",
                layer.name(),
                super::ddl::postgis_type_name(kind),
                meta.srid
            )))
            .execute(&mut *tx)
            .await?;
        }
        for (k, v) in meta_rows(meta) {
            sqlx::query("INSERT INTO ms4_meta (key, value) VALUES ($1, $2)")
                .bind(k)
                .bind(v)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        install_outside(&pool).await?;
        Ok(PostgisStore {
            pool,
            url: url.to_string(),
            srid: meta.srid,
        })
    }
}

/// A URL with its password removed, for messages.
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => "<postgres URL>".into(),
    }
}

fn select_sql(layer: Layer) -> String {
    let mut cols = vec![
        if layer.geom_kind() == GeomKind::None {
            "NULL::bytea".to_string()
        } else {
            "ST_AsEWKB(geom)".into()
        },
        layer.id_field().to_string(),
    ];
    for f in layer.fields() {
        cols.push(match f.ty {
            // Read dates as text: the registry's dates are calendar days, no time zone.
            FieldType::Date => format!("to_char({}, 'YYYY-MM-DD')", f.name),
            _ => f.name.to_string(),
        });
    }
    cols.push("extra::text".into());
    format!(
        "SELECT {} FROM {} ORDER BY {}",
        cols.join(", "),
        layer.name(),
        layer.id_field()
    )
}

fn decode_rows(layer: Layer, rows: &[PgRow]) -> super::LayerRows {
    crate::store::row::decode_rows(layer, rows, |b| wkb::read_wkb(b).map(|(g, _)| g))
}

#[async_trait]
impl Store for PostgisStore {
    fn kind(&self) -> &'static str {
        "postgis"
    }

    async fn meta(&self) -> Result<RegistryMeta> {
        let rows: Vec<(String, String)> = sqlx::query_as("SELECT key, value FROM ms4_meta")
            .fetch_all(&self.pool)
            .await
            .map_err(|_| StoreError::NotInitialised(redact(&self.url)))?;
        meta_from_rows(rows.into_iter().collect(), &redact(&self.url))
    }

    async fn count(&self, layer: Layer) -> Result<u64> {
        let (n,): (i64,) = sqlx::query_as(super::trusted(format!(
            "SELECT count(*) FROM {}",
            layer.name()
        )))
        .fetch_one(&self.pool)
        .await?;
        Ok(n as u64)
    }

    #[instrument(skip(self), err)]
    async fn read_layer(&self, layer: Layer) -> Result<super::LayerRows> {
        let rows = sqlx::query(super::trusted(select_sql(layer)))
            .fetch_all(&self.pool)
            .await?;
        Ok(decode_rows(layer, &rows))
    }

    #[instrument(skip(self, rx), fields(layer = %req.layer, source = %req.source), err)]
    async fn write(&self, req: WriteRequest, rx: mpsc::Receiver<WriteMsg>) -> Result<WriteSummary> {
        let mut tx = self.pool.begin().await?;
        // Marks the transaction as ms4's (until it ends), so the outside-edit triggers
        // stay quiet: the engine audits this write itself.
        sqlx::query("SELECT set_config('ms4.writer', $1, true)")
            .bind(&req.actor)
            .execute(&mut *tx)
            .await?;
        write::run(
            Box::new(PgTx {
                tx: Some(tx),
                copy: None,
                audit_buf: String::new(),
                srid: self.srid,
                was_empty: false,
                index_dropped: false,
            }),
            req,
            rx,
        )
        .await
    }

    async fn generation(&self) -> Result<i64> {
        let (g,): (i64,) = sqlx::query_as("SELECT coalesce(max(seq), 0)::bigint FROM ms4_changes")
            .fetch_one(&self.pool)
            .await?;
        Ok(g)
    }

    async fn changes(&self) -> Result<std::collections::HashMap<Layer, i64>> {
        let rows: Vec<(String, i64)> = sqlx::query_as("SELECT layer, seq FROM ms4_changes")
            .fetch_all(&self.pool)
            .await?;
        Ok(super::changes_from_rows(rows))
    }

    async fn audit(&self, layer: Option<Layer>, limit: i64) -> Result<Vec<AuditEntry>> {
        let rows = sqlx::query(
            "SELECT audit_id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), actor, action, layer,
                    feature_id, import_id, before::text, after::text
             FROM ms4_audit WHERE ($1::text IS NULL OR layer = $1) ORDER BY audit_id DESC LIMIT $2",
        )
        .bind(layer.map(|l| l.name()))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(crate::store::audit::audit_entry).collect()
    }

    async fn create_token(&self, token: &NewToken, actor: &str) -> Result<i64> {
        let mut tx = self.pool.begin().await?;
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO ms4_tokens (hash, role, subject, created_at, expires_at) VALUES ($1, $2, $3, now(), $4::timestamptz) RETURNING token_id",
        )
        .bind(&token.hash)
        .bind(token.role.name())
        .bind(&token.subject)
        .bind(token.expires_at.map(|t| t.to_rfc3339()))
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO ms4_audit (at, actor, action, feature_id, after) VALUES (now(), $1, 'token_create', $2, $3::jsonb)")
            .bind(actor)
            .bind(id.to_string())
            .bind(crate::store::token_audit(token).to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn tokens(&self) -> Result<Vec<TokenRecord>> {
        let rows: Vec<crate::store::audit::TokenRow> =
            sqlx::query_as("SELECT token_id, hash, role, subject, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"') FROM ms4_tokens ORDER BY token_id DESC")
                .fetch_all(&self.pool)
                .await?;
        rows.into_iter()
            .map(crate::store::audit::token_record)
            .collect()
    }

    async fn token_by_hash(&self, hash: &str) -> Result<Option<TokenRecord>> {
        let row: Option<crate::store::audit::TokenRow> =
            sqlx::query_as("SELECT token_id, hash, role, subject, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), to_char(expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"') FROM ms4_tokens WHERE hash = $1")
                .bind(hash)
                .fetch_optional(&self.pool)
                .await?;
        row.map(crate::store::audit::token_record).transpose()
    }

    async fn revoke_token(&self, token_id: i64, actor: &str) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE ms4_tokens SET revoked_at = now() WHERE token_id = $1 AND revoked_at IS NULL",
        )
        .bind(token_id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if done {
            sqlx::query("INSERT INTO ms4_audit (at, actor, action, feature_id) VALUES (now(), $1, 'token_revoke', $2)")
                .bind(actor)
                .bind(token_id.to_string())
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(done)
    }

    async fn stored_profile(&self) -> Result<Option<crate::store::StoredProfile>> {
        profile::read(&self.pool).await
    }

    async fn store_profile(
        &self,
        stored: &crate::store::StoredProfile,
        only_if_absent: bool,
    ) -> Result<bool> {
        profile::write(&self.pool, stored, only_if_absent).await
    }
}

/// The open transaction of one write.
///
/// New features stream through ONE `COPY` per write, and audit rows are gathered and
/// copied once at the end. Besides saving round trips this matters because sqlx does not
/// set TCP_NODELAY: every COPY's closing message waits out Nagle's algorithm and the
/// server's delayed ACK (about 40 ms on loopback), which a COPY per chunk pays hundreds
/// of times in a large import.
struct PgTx {
    /// The transaction; `None` while a COPY task holds it.
    tx: Option<Transaction<'static, Postgres>>,
    /// The COPY under way: encoded chunks go in, the transaction comes back at the end.
    copy: Option<CopyStream>,
    /// Audit rows in COPY text format, written at the end.
    audit_buf: String,
    srid: i32,
    /// The layer held nothing when the write began.
    was_empty: bool,
    /// The GiST index was dropped for a bulk load and must be rebuilt before commit.
    index_dropped: bool,
}

fn columns(layer: Layer) -> Vec<&'static str> {
    let mut cols = Vec::new();
    if layer.geom_kind() != GeomKind::None {
        cols.push("geom");
    }
    cols.push(layer.id_field());
    cols.extend(layer.fields().iter().map(|f| f.name));
    cols.push("extra");
    cols.push("import_id");
    cols
}

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

fn cast(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Text => "text",
        FieldType::Integer => "bigint",
        FieldType::Real | FieldType::Length(_) | FieldType::Elevation => "double precision",
        FieldType::Bool => "boolean",
        FieldType::Date => "date",
    }
}

impl PgTx {
    fn tx(&mut self) -> &mut Tx {
        self.tx
            .as_mut()
            .expect("the transaction is back once the COPY has ended")
    }

    /// Ends the COPY under way, if any, and takes the transaction back.
    async fn flush(&mut self) -> Result<()> {
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
}

#[async_trait]
impl WriteTx for PgTx {
    async fn existing(&mut self, layer: Layer) -> Result<super::LayerRows> {
        let rows = sqlx::query(super::trusted(select_sql(layer)))
            .fetch_all(&mut **self.tx())
            .await?;
        self.was_empty = rows.is_empty();
        Ok(decode_rows(layer, &rows))
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

    async fn insert(&mut self, layer: Layer, features: Vec<Feature>, import_id: i64) -> Result<()> {
        if self.was_empty && !self.index_dropped && layer.geom_kind() != GeomKind::None {
            // Loading an empty layer: building the GiST index once at the end is several
            // times faster than maintaining it row by row. DDL is transactional here, so
            // a failed or killed load still leaves the index (and the table) as it was.
            sqlx::query(super::trusted(format!(
                "DROP INDEX IF EXISTS {}_geom_gist",
                layer.name()
            )))
            .execute(&mut **self.tx())
            .await?;
            self.index_dropped = true;
        }
        // Encode this chunk on another thread while the database takes the previous one:
        // the two overlap instead of taking turns.
        let srid = self.srid;
        let next =
            tokio::task::spawn_blocking(move || encode_copy(layer, &features, srid, import_id));
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

    async fn update(&mut self, layer: Layer, features: &[Feature], import_id: i64) -> Result<()> {
        self.flush().await?;
        let mut sets = Vec::new();
        let mut n = 0;
        let mut next = || {
            n += 1;
            n
        };
        if layer.geom_kind() != GeomKind::None {
            sets.push(format!("geom = ST_GeomFromEWKB(${})", next()));
        }
        for f in layer.fields() {
            sets.push(format!("{} = ${}::{}", f.name, next(), cast(f.ty)));
        }
        sets.push(format!("extra = ${}::jsonb", next()));
        sets.push(format!("import_id = ${}", next()));
        let sql = format!(
            "UPDATE {} SET {} WHERE {} = ${}",
            layer.name(),
            sets.join(", "),
            layer.id_field(),
            next()
        );
        for f in features {
            let mut q = sqlx::query(super::trusted(sql.clone()));
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
                .bind(f.id.clone());
            q.execute(&mut **self.tx()).await?;
        }
        Ok(())
    }

    async fn delete(&mut self, layer: Layer, ids: &[String]) -> Result<()> {
        self.flush().await?;
        sqlx::query(super::trusted(format!(
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
        if rows.is_empty() {
            return Ok(());
        }
        // Gathered and copied once at the end (see `PgTx`): a million-row load writes a
        // million audit rows.
        let mut prefix = String::new();
        copy_text(&mut prefix, at);
        prefix.push('\t');
        copy_text(&mut prefix, &req.actor);
        prefix.push('\t');
        let layer = req.layer.name();
        let import_id = import_id.to_string();
        let mut buf = String::with_capacity(rows.len() * 64);
        for r in rows {
            buf.push_str(&prefix);
            buf.push_str(r.action);
            buf.push('\t');
            buf.push_str(layer);
            buf.push('\t');
            match &r.feature_id {
                Some(id) => copy_text(&mut buf, id),
                None => buf.push_str("\\N"),
            }
            buf.push('\t');
            buf.push_str(&import_id);
            for j in [&r.before, &r.after] {
                buf.push('\t');
                match j {
                    Some(v) => copy_text(&mut buf, &v.to_string()),
                    None => buf.push_str("\\N"),
                }
            }
            buf.push('\n');
        }
        self.audit_buf.push_str(&buf);
        Ok(())
    }

    async fn finish_import(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        s: &WriteSummary,
        report: &serde_json::Value,
        _extent: Option<Rect<f64>>,
        _at: &str,
    ) -> Result<()> {
        self.flush().await?;
        if !self.audit_buf.is_empty() {
            let buf = std::mem::take(&mut self.audit_buf);
            let mut copy = self
                .tx()
                .copy_in_raw("COPY ms4_audit (at, actor, action, layer, feature_id, import_id, before, after) FROM STDIN")
                .await?;
            copy.send(buf.into_bytes()).await?;
            copy.finish().await?;
        }
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
        // Tells running servers (this process's and others') that the layer changed.
        sqlx::query("SELECT ms4_bump($1)")
            .bind(req.layer.name())
            .execute(&mut **self.tx())
            .await?;
        if self.index_dropped {
            sqlx::query(super::trusted(format!(
                "CREATE INDEX {0}_geom_gist ON {0} USING GIST (geom)",
                req.layer.name()
            )))
            .execute(&mut **self.tx())
            .await?;
            self.index_dropped = false;
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
