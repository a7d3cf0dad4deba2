//! The embedded store: one SQLite file that is a valid GeoPackage.
//!
//! Layers are GeoPackage feature tables (attribute tables for `impairments` and
//! `inspections`) registered in `gpkg_contents` and `gpkg_geometry_columns`, with
//! geometries in GeoPackage binary, so `ogrinfo registry.gpkg` and QGIS read the file
//! directly. The registry's own tables (`ms4_meta`, `ms4_imports`, `ms4_audit`) ride along.

use std::collections::HashMap;
use std::str::FromStr;

use async_trait::async_trait;
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow, SqliteSynchronous,
};
use sqlx::{Sqlite, SqlitePool};
use tokio::sync::mpsc;
use tracing::instrument;

mod functions;
mod install;
mod photos;
mod profile;
mod raw;
mod rtree_load;
mod scan;
mod tx;

use super::write;
use super::{
    meta_from_rows, meta_rows, AuditEntry, RegistryMeta, Result, Store, StoreError, WriteMsg,
    WriteRequest, WriteSummary,
};
use crate::auth::{NewToken, TokenRecord};
use crate::domain::{wkb, Feature, GeomKind, Layer, Value};
use tx::SqliteTx;

/// The GeoPackage `application_id` ("GPKG").
const GPKG_APPLICATION_ID: i64 = 0x4750_4B47;
/// GeoPackage 1.3.0 as `user_version`.
const GPKG_USER_VERSION: i64 = 10300;
/// SQLite allows 32,766 bound parameters per statement; stay well under it.
const MAX_PARAMS: usize = 30_000;

/// A registry in a GeoPackage file.
pub struct SqliteStore {
    pool: SqlitePool,
    url: String,
}

impl SqliteStore {
    fn options(url: &str, create: bool) -> Result<SqliteConnectOptions> {
        Ok(SqliteConnectOptions::from_str(url)
            .map_err(|_| StoreError::Url(url.to_string()))?
            .create_if_missing(create)
            // WAL, not a rollback journal: a process killed mid-write leaves a WAL whose
            // uncommitted frames every reader ignores, where a hot rollback journal makes
            // read-only readers (`ogrinfo -ro`, QGIS) fail until a writer rolls it back.
            // The price: a copy of the registry taken while a program has it open must
            // take the `-wal` and `-shm` files with it (see the README).
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(super::write_wait().0)
            .foreign_keys(true))
    }

    async fn pool(url: &str, create: bool) -> Result<SqlitePool> {
        Ok(SqlitePoolOptions::new()
            .max_connections(4)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    let mut handle = conn.lock_handle().await?;
                    // SAFETY: the locked handle is an open connection this task alone uses.
                    unsafe { functions::register(handle.as_raw_handle().as_ptr()) }
                        .map_err(|e| sqlx::Error::Configuration(e.into()))
                })
            })
            .connect_with(Self::options(url, create)?)
            .await?)
    }

    /// Opens an existing registry file.
    #[instrument(skip_all, fields(url), err)]
    pub async fn open(url: &str) -> Result<Self> {
        let pool = Self::pool(url, false).await.map_err(|e| match e {
            StoreError::Db(sqlx::Error::Database(_)) => StoreError::NotInitialised(url.into()),
            e => e,
        })?;
        let store = SqliteStore {
            pool,
            url: url.to_string(),
        };
        // Registries made by an older ms4 get the tables added since (tokens, ...), and
        // the triggers and spatial indexes of layers added since.
        let meta = store.meta().await?;
        sqlx::migrate!("migrations/sqlite").run(&store.pool).await?;
        // A layer a later migration added (discharge_determinations, ...) is a table
        // QGIS and GDAL see only once it is in gpkg_contents.
        let registered: Vec<(String,)> = sqlx::query_as("SELECT table_name FROM gpkg_contents")
            .fetch_all(&store.pool)
            .await?;
        if Layer::ALL
            .iter()
            .any(|l| !registered.iter().any(|(t,)| t == l.name()))
        {
            let mut tx = store.pool.begin().await?;
            register_layers(&mut tx, meta.srid).await?;
            tx.commit().await?;
        }
        install::run(&store.pool).await?;
        Ok(store)
    }

    /// Creates a registry file (the file may exist only if it holds no registry yet).
    #[instrument(skip_all, fields(url, jurisdiction = %meta.jurisdiction, srid = meta.srid), err)]
    pub async fn create(url: &str, meta: &RegistryMeta) -> Result<Self> {
        let pool = Self::pool(url, true).await?;
        let exists: Option<(String,)> =
            sqlx::query_as("SELECT name FROM sqlite_master WHERE name = 'ms4_meta'")
                .fetch_optional(&pool)
                .await?;
        if exists.is_some() {
            let store = SqliteStore {
                pool,
                url: url.to_string(),
            };
            let j = store
                .meta()
                .await
                .map(|m| m.jurisdiction)
                .unwrap_or_default();
            return Err(StoreError::AlreadyInitialised(url.into(), j));
        }
        sqlx::migrate!("migrations/sqlite").run(&pool).await?;
        let mut tx = pool.begin().await?;
        sqlx::query(super::trusted(format!(
            "PRAGMA application_id = {GPKG_APPLICATION_ID}"
        )))
        .execute(&mut *tx)
        .await?;
        sqlx::query(super::trusted(format!(
            "PRAGMA user_version = {GPKG_USER_VERSION}"
        )))
        .execute(&mut *tx)
        .await?;
        if meta.srid != 4326 {
            sqlx::query(
                "INSERT INTO gpkg_spatial_ref_sys (srs_name, srs_id, organization, organization_coordsys_id, definition) VALUES (?, ?, 'EPSG', ?, ?)",
            )
            .bind(&meta.crs_name)
            .bind(meta.srid)
            .bind(meta.srid)
            .bind(&meta.crs_wkt)
            .execute(&mut *tx)
            .await?;
        }
        register_layers(&mut tx, meta.srid).await?;
        for (k, v) in meta_rows(meta) {
            sqlx::query("INSERT INTO ms4_meta (key, value) VALUES (?, ?)")
                .bind(k)
                .bind(v)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        install::run(&pool).await?;
        // GDAL checks the GeoPackage application_id by reading the file's first bytes,
        // not through SQLite: move the new header out of the WAL into the file now.
        sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
            .execute(&pool)
            .await?;
        Ok(SqliteStore {
            pool,
            url: url.to_string(),
        })
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
            "NULL".to_string()
        } else {
            "geom".into()
        },
        layer.id_field().to_string(),
    ];
    cols.extend(layer.fields().iter().map(|f| f.name.to_string()));
    cols.push("extra".into());
    cols.join(", ")
}

fn decode_rows(layer: Layer, rows: &[SqliteRow]) -> super::LayerRows {
    crate::store::row::decode_rows(layer, rows, |b| wkb::read_gpkg(b).map(|(g, _)| g))
}

fn bind_value<'q>(
    q: sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments>,
    v: &Value,
) -> sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments> {
    match v {
        Value::Null => q.bind(None::<String>),
        Value::Bool(b) => q.bind(*b),
        Value::Int(i) => q.bind(*i),
        Value::Real(r) => q.bind(*r),
        Value::Date(d) => q.bind(d.format("%Y-%m-%d").to_string()),
        Value::Text(s) => q.bind(s.clone()),
    }
}

fn extra_text(f: &Feature) -> Option<String> {
    (!f.extra.is_empty()).then(|| serde_json::Value::Object(f.extra.clone()).to_string())
}

#[async_trait]
impl Store for SqliteStore {
    fn kind(&self) -> &'static str {
        "sqlite"
    }

    async fn setting(&self, key: &str) -> Result<Option<String>> {
        let row: Option<(String,)> = sqlx::query_as("SELECT value FROM ms4_meta WHERE key = ?")
            .bind(format!("setting.{key}"))
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.map(|r| r.0))
    }

    async fn set_setting(&self, key: &str, value: &str, actor: &str) -> Result<()> {
        let name = format!("setting.{key}");
        let now = super::now().to_rfc3339();
        // IMMEDIATE: the old value is read and the new one written under one write lock.
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let before: Option<(String,)> = sqlx::query_as("SELECT value FROM ms4_meta WHERE key = ?")
            .bind(&name)
            .fetch_optional(&mut *tx)
            .await?;
        sqlx::query("INSERT OR REPLACE INTO ms4_meta (key, value) VALUES (?, ?)")
            .bind(&name)
            .bind(value)
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO ms4_audit (at, actor, action, feature_id, before, after) VALUES (?, ?, 'setting', ?, ?, ?)",
        )
        .bind(&now)
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
            .map_err(|_| StoreError::NotInitialised(self.url.clone()))?;
        meta_from_rows(rows.into_iter().collect(), &self.url)
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
        // IMMEDIATE takes the write lock now, so a second writer waits (busy_timeout)
        // instead of failing when its read would have to become a write.
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        // Marks the transaction as ms4's, so the outside-edit triggers stay quiet (the
        // engine audits this write itself); `SqliteTx::commit` removes it again.
        sqlx::query("INSERT INTO ms4_writer (actor) VALUES (?)")
            .bind(&req.actor)
            .execute(&mut *tx)
            .await?;
        write::run(Box::new(SqliteTx::new(tx)), req, rx).await
    }

    async fn write_allocating(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        make: crate::store::allocate::Allocate,
    ) -> Result<(WriteSummary, Vec<Feature>)> {
        // IMMEDIATE: the write lock is held before the ids are read.
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query("INSERT INTO ms4_writer (actor) VALUES (?)")
            .bind(&req.actor)
            .execute(&mut *tx)
            .await?;
        crate::store::allocate::run(Box::new(SqliteTx::new(tx)), req, report, make).await
    }

    async fn update_feature(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        id: String,
        apply: crate::store::update::Apply,
    ) -> Result<Vec<crate::store::update::Written>> {
        // IMMEDIATE: the write lock, held before the row is read, orders two updaters.
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        sqlx::query("INSERT INTO ms4_writer (actor) VALUES (?)")
            .bind(&req.actor)
            .execute(&mut *tx)
            .await?;
        crate::store::update::run(Box::new(SqliteTx::new(tx)), req, report, id, apply).await
    }

    async fn write_layers(
        &self,
        writes: Vec<(WriteRequest, mpsc::Receiver<WriteMsg>)>,
    ) -> Result<Vec<WriteSummary>> {
        let mut tx = self.pool.begin_with("BEGIN IMMEDIATE").await?;
        let actor = writes
            .first()
            .map(|(r, _)| r.actor.clone())
            .unwrap_or_default();
        sqlx::query("INSERT INTO ms4_writer (actor) VALUES (?)")
            .bind(&actor)
            .execute(&mut *tx)
            .await?;
        write::run_many(Box::new(SqliteTx::new(tx)), writes).await
    }

    async fn generation(&self) -> Result<i64> {
        let (g,): (i64,) = sqlx::query_as("SELECT coalesce(max(seq), 0) FROM ms4_changes")
            .fetch_one(&self.pool)
            .await?;
        Ok(g)
    }

    async fn changes(&self) -> Result<HashMap<Layer, i64>> {
        let rows: Vec<(String, i64)> = sqlx::query_as("SELECT layer, seq FROM ms4_changes")
            .fetch_all(&self.pool)
            .await?;
        Ok(super::changes_from_rows(rows))
    }

    async fn audit(&self, layer: Option<Layer>, limit: i64) -> Result<Vec<AuditEntry>> {
        let rows = sqlx::query(
            "SELECT audit_id, at, actor, action, layer, feature_id, import_id, before, after FROM ms4_audit
             WHERE (?1 IS NULL OR layer = ?1) ORDER BY audit_id DESC LIMIT ?2",
        )
        .bind(layer.map(|l| l.name()))
        .bind(limit)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(super::audit::audit_entry).collect()
    }

    async fn create_token(&self, token: &NewToken, actor: &str) -> Result<i64> {
        let now = super::now().to_rfc3339();
        let mut tx = self.pool.begin().await?;
        let (id,): (i64,) = sqlx::query_as(
            "INSERT INTO ms4_tokens (hash, role, subject, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING token_id",
        )
        .bind(&token.hash)
        .bind(token.role.name())
        .bind(&token.subject)
        .bind(&now)
        .bind(token.expires_at.map(|t| t.to_rfc3339()))
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO ms4_audit (at, actor, action, feature_id, after) VALUES (?, ?, 'token_create', ?, ?)")
            .bind(&now)
            .bind(actor)
            .bind(id.to_string())
            .bind(super::token_audit(token).to_string())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn tokens(&self) -> Result<Vec<TokenRecord>> {
        let rows: Vec<super::audit::TokenRow> = sqlx::query_as(
            "SELECT token_id, hash, role, subject, created_at, expires_at, revoked_at FROM ms4_tokens ORDER BY token_id DESC",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.into_iter().map(super::audit::token_record).collect()
    }

    async fn token_by_hash(&self, hash: &str) -> Result<Option<TokenRecord>> {
        let row: Option<super::audit::TokenRow> = sqlx::query_as(
            "SELECT token_id, hash, role, subject, created_at, expires_at, revoked_at FROM ms4_tokens WHERE hash = ?",
        )
        .bind(hash)
        .fetch_optional(&self.pool)
        .await?;
        row.map(super::audit::token_record).transpose()
    }

    async fn revoke_token(&self, token_id: i64, actor: &str) -> Result<bool> {
        let now = super::now().to_rfc3339();
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE ms4_tokens SET revoked_at = ? WHERE token_id = ? AND revoked_at IS NULL",
        )
        .bind(&now)
        .bind(token_id)
        .execute(&mut *tx)
        .await?
        .rows_affected()
            == 1;
        if done {
            sqlx::query("INSERT INTO ms4_audit (at, actor, action, feature_id) VALUES (?, ?, 'token_revoke', ?)")
                .bind(&now)
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

/// Registers every layer in `gpkg_contents` (and the spatial ones in
/// `gpkg_geometry_columns`), leaving those already registered as they are.
async fn register_layers(tx: &mut sqlx::SqliteConnection, srid: i32) -> Result<()> {
    for layer in Layer::ALL {
        let spatial = layer.geom_kind() != GeomKind::None;
        sqlx::query("INSERT OR IGNORE INTO gpkg_contents (table_name, data_type, identifier, description, srs_id) VALUES (?, ?, ?, ?, ?)")
                .bind(layer.name())
                .bind(if spatial { "features" } else { "attributes" })
                .bind(layer.name())
                .bind(format!("MS4 registry layer {}", layer.name()))
                .bind(spatial.then_some(srid))
                .execute(&mut *tx)
                .await?;
        if spatial {
            sqlx::query(
                "INSERT OR IGNORE INTO gpkg_geometry_columns VALUES (?, 'geom', ?, ?, 0, 0)",
            )
            .bind(layer.name())
            .bind(layer.geom_kind().ogc_name())
            .bind(srid)
            .execute(&mut *tx)
            .await?;
        }
    }
    Ok(())
}
