//! The server store: PostGIS through sqlx.
//!
//! Layer tables have geometry columns typed with the registry's SRID and GiST indexes,
//! so `ogrinfo PG:...`, QGIS and SQL users see ordinary PostGIS layers. New features
//! arrive through `COPY ... FROM STDIN` (hex EWKB), which is what makes a million-row
//! import take seconds rather than minutes.

use async_trait::async_trait;
use sqlx::postgres::{PgPoolOptions, PgRow};
use sqlx::PgPool;
use tokio::sync::mpsc;
use tracing::instrument;

mod cases;
mod copy;
mod photos;
mod profile;
pub mod schema;
mod setup;
mod standby;
mod tx;

use schema::Schema;
use setup::{ensure_database, ensure_schema, install_outside, own_schema};

use tx::PgTx;

use super::write;
use super::{
    meta_from_rows, meta_rows, AuditEntry, RegistryMeta, Result, Store, StoreError, WriteMsg,
    WriteRequest, WriteSummary,
};
use crate::auth::{NewToken, TokenRecord};
use crate::domain::{wkb, FieldType, GeomKind, Layer};

/// How long a request waits for a database connection before it is told the database
/// is unreachable.
pub const ACQUIRE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);

/// A registry in a PostGIS database.
pub struct PostgisStore {
    pool: PgPool,
    url: String,
    /// The registry's SRID, fixed at `init`: read once, not on every write.
    srid: i32,
    /// The schema the registry lives in, when the URL named one (see [`schema`]).
    schema: Option<Schema>,
}

/// A store URL's connection URL and schema, or the error naming what is wrong.
fn split_url(url: &str) -> Result<schema::SchemaUrl> {
    schema::split(url).map_err(|reason| StoreError::UrlPart {
        url: redact(url),
        reason,
    })
}

impl PostgisStore {
    async fn pool(url: &str, schema: Option<&Schema>) -> Result<PgPool> {
        // A request waits at most ACQUIRE_TIMEOUT for a connection: with the server gone
        // the pool retries the refused connection until then, and the request gets a 503
        // in seconds instead of sqlx's default 30. Idle connections are checked before
        // use (sqlx's default), so after a restart the dead ones are replaced.
        // A server waits only a few seconds for a lock another writer holds (see
        // `store::set_write_wait`), then answers 503 (PostgreSQL's 55P03); a command
        // waits as PostgreSQL does by default.
        let (wait, set) = super::write_wait();
        // Every connection of a schema's registry sees its own tables first and PostGIS
        // in public; nothing unqualified reaches another member's schema.
        let search_path = schema.map(Schema::search_path);
        Ok(PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .test_before_acquire(true)
            .after_connect(move |conn, _| {
                let search_path = search_path.clone();
                Box::pin(async move {
                    if let Some(path) = search_path {
                        sqlx::query("SELECT set_config('search_path', $1, false)")
                            .bind(path)
                            .execute(&mut *conn)
                            .await?;
                    }
                    if set {
                        sqlx::query("SELECT set_config('lock_timeout', $1, false)")
                            .bind(format!("{}ms", wait.as_millis()))
                            .execute(&mut *conn)
                            .await?;
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await?)
    }

    /// Opens an existing registry database.
    #[instrument(skip_all, err)]
    pub async fn open(url: &str) -> Result<Self> {
        let parts = split_url(url)?;
        let mut store = PostgisStore {
            pool: Self::pool(&parts.connect, parts.schema.as_ref()).await?,
            url: url.to_string(),
            srid: 0,
            schema: parts.schema,
        };
        // A schema without a registry of its own must not fall through the search path
        // to one in public.
        if let Some(s) = &store.schema {
            if !own_schema(&store.pool, s).await? {
                return Err(StoreError::NotInitialised(redact(url)));
            }
        }
        store.srid = store.meta().await?.srid;
        // Registries made by an older ms4 get the tables added since (tokens, ...), and
        // the outside-edit triggers of layers added since.
        sqlx::migrate!("migrations/postgres")
            .run(&store.pool)
            .await?;
        cases::set_srid(&store.pool, store.srid).await?;
        install_outside(&store.pool, store.schema.as_ref()).await?;
        Ok(store)
    }

    /// Creates a registry, creating the database itself when it does not exist yet.
    #[instrument(skip_all, fields(jurisdiction = %meta.jurisdiction, srid = meta.srid), err)]
    pub async fn create(url: &str, meta: &RegistryMeta) -> Result<Self> {
        let parts = split_url(url)?;
        ensure_database(&parts.connect).await?;
        let pool = Self::pool(&parts.connect, parts.schema.as_ref()).await?;
        let exists = match &parts.schema {
            Some(s) => {
                ensure_schema(&pool, s).await?;
                own_schema(&pool, s).await?
            }
            None => {
                let (t,): (Option<String>,) =
                    sqlx::query_as("SELECT to_regclass('ms4_meta')::text")
                        .fetch_one(&pool)
                        .await?;
                t.is_some()
            }
        };
        if exists {
            let store = PostgisStore {
                pool,
                url: url.to_string(),
                srid: 0,
                schema: parts.schema,
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
        install_outside(&pool, parts.schema.as_ref()).await?;
        Ok(PostgisStore {
            pool,
            url: url.to_string(),
            srid: meta.srid,
            schema: parts.schema,
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
    format!(
        "SELECT {} FROM {} ORDER BY {}",
        select_columns(layer),
        layer.name(),
        layer.id_field()
    )
}

/// The columns a row is read as (see `store::row::decode_feature`).
fn select_columns(layer: Layer) -> String {
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
    cols.join(", ")
}

fn decode_rows(layer: Layer, rows: &[PgRow]) -> super::LayerRows {
    crate::store::row::decode_rows(layer, rows, |b| wkb::read_wkb(b).map(|(g, _)| g))
}

#[async_trait]
impl Store for PostgisStore {
    fn kind(&self) -> &'static str {
        "postgis"
    }

    async fn setting(&self, key: &str) -> Result<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as("SELECT value FROM ms4_meta WHERE key = $1")
            .bind(format!("setting.{key}"))
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.0))
    }

    async fn set_setting(&self, key: &str, value: &str, actor: &str) -> Result<()> {
        let name = format!("setting.{key}");
        let mut tx = self.pool.begin().await?;
        // The row's lock (taken by FOR UPDATE, or by the insert) orders two setters.
        let before: Option<(String,)> =
            sqlx::query_as("SELECT value FROM ms4_meta WHERE key = $1 FOR UPDATE")
                .bind(&name)
                .fetch_optional(&mut *tx)
                .await?;
        sqlx::query(
            "INSERT INTO ms4_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
        .bind(&name)
        .bind(value)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO ms4_audit (at, actor, action, feature_id, before, after) VALUES (now(), $1, 'setting', $2, $3::jsonb, $4::jsonb)",
        )
        .bind(actor)
        .bind(key)
        .bind(before.map(|b| serde_json::json!({ key: b.0 }).to_string()))
        .bind(serde_json::json!({ key: value }).to_string())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
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
        write::run(Box::new(PgTx::new(tx, self.srid)), req, rx).await
    }

    async fn write_allocating(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        make: crate::store::allocate::Allocate,
    ) -> Result<(WriteSummary, Vec<crate::domain::Feature>)> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT set_config('ms4.writer', $1, true)")
            .bind(&req.actor)
            .execute(&mut *tx)
            .await?;
        // Allocating writers of a layer go one at a time (until each commits); under
        // read committed the next one's read of the ids then sees the last one's rows.
        sqlx::query("SELECT pg_advisory_xact_lock(hashtext('ms4.allocate.' || $1))")
            .bind(req.layer.name())
            .execute(&mut *tx)
            .await?;
        crate::store::allocate::run(Box::new(PgTx::new(tx, self.srid)), req, report, make).await
    }

    async fn update_feature(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        id: String,
        apply: crate::store::update::Apply,
    ) -> Result<Vec<crate::store::update::Written>> {
        let mut tx = self.pool.begin().await?;
        sqlx::query("SELECT set_config('ms4.writer', $1, true)")
            .bind(&req.actor)
            .execute(&mut *tx)
            .await?;
        // The engine locks the row (FOR UPDATE) before reading it.
        crate::store::update::run(Box::new(PgTx::new(tx, self.srid)), req, report, id, apply).await
    }

    async fn write_layers(
        &self,
        writes: Vec<(WriteRequest, mpsc::Receiver<WriteMsg>)>,
    ) -> Result<Vec<WriteSummary>> {
        let mut tx = self.pool.begin().await?;
        let actor = writes
            .first()
            .map(|(r, _)| r.actor.clone())
            .unwrap_or_default();
        sqlx::query("SELECT set_config('ms4.writer', $1, true)")
            .bind(&actor)
            .execute(&mut *tx)
            .await?;
        write::run_many(Box::new(PgTx::new(tx, self.srid)), writes).await
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
             FROM ms4_audit_entries WHERE ($1::text IS NULL OR layer = $1)
             ORDER BY audit_id DESC, entry DESC LIMIT $2",
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

    async fn add_photo(
        &self,
        photo: &crate::store::photos::NewPhoto,
        actor: &str,
    ) -> Result<(crate::store::photos::PhotoRecord, bool)> {
        photos::add(&self.pool, photo, actor).await
    }

    async fn photos_of(
        &self,
        inspection_id: &str,
    ) -> Result<Vec<crate::store::photos::PhotoRecord>> {
        photos::of_inspection(&self.pool, inspection_id).await
    }

    async fn photo(
        &self,
        sha256: &str,
    ) -> Result<Option<(crate::store::photos::PhotoRecord, Vec<u8>)>> {
        photos::by_sha256(&self.pool, sha256).await
    }

    async fn store_profile(
        &self,
        stored: &crate::store::StoredProfile,
        only_if_absent: bool,
    ) -> Result<bool> {
        let when = if only_if_absent {
            crate::store::profile::When::Absent
        } else {
            crate::store::profile::When::Always
        };
        let (_, written) =
            profile::write(&self.pool, |before| Ok(when.decide(stored, before))).await?;
        Ok(written.is_some())
    }

    async fn edit_profile(
        &self,
        edit: crate::store::profile::ProfileEdit<'_>,
    ) -> Result<crate::store::profile::Edited> {
        let (before, written) = profile::write(&self.pool, |before| {
            crate::store::profile::edit_write(edit, before)
        })
        .await?;
        Ok(crate::store::profile::Edited::from_rows(before, written))
    }
}
