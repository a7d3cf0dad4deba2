//! Storage: one [`Store`] trait, a GeoPackage file ([`SqliteStore`]) and PostGIS
//! ([`PostgisStore`]) behind it.
//!
//! Writes arrive as a stream of feature chunks ([`WriteMsg`]) so a million-feature import
//! never has to sit in memory twice, and the store keeps one transaction open for the
//! whole stream: it commits only on [`WriteMsg::Commit`]. Anything else — an
//! [`WriteMsg::Abort`], a dropped sender, a killed process — leaves the registry as it was.

pub mod allocate;
mod audit;
mod changed;
pub mod ddl;
mod error;
pub(crate) mod hash;
mod near;
mod stored;
pub use changed::{ChangedFeatures, CHANGED_IDS};
pub use stored::StoredRows;
pub mod outside;
pub mod photos;
pub mod postgis;
pub mod profile;
pub mod replica;
mod row;
pub mod sqlite;
pub(crate) mod timing;
pub mod update;
mod write;
pub(crate) use write::{unchanged_by, WHOLE_LAYER_FROM};

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;

use crate::auth::{NewToken, TokenRecord};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::domain::{Feature, Layer, LengthUnit};

pub use audit::{feature_change, feature_json, AuditEntry};
pub use error::{Result, StoreError};
pub use postgis::PostgisStore;
pub use profile::StoredProfile;
pub use sqlite::SqliteStore;

/// The store used when neither `--store` nor `MS4_STORE` names one.
pub const DEFAULT_STORE_URL: &str = "sqlite://registry.gpkg";

/// What a registry is: its jurisdiction and its working CRS.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegistryMeta {
    /// The jurisdiction profile id (`north-castle-ny`, ...).
    pub jurisdiction: String,
    /// The EPSG code of the working CRS.
    pub srid: i32,
    /// The CRS's name, e.g. `NAD83(HARN) / Washington South (ftUS)`.
    pub crs_name: String,
    /// The CRS as WKT, stored in `gpkg_spatial_ref_sys`.
    pub crs_wkt: String,
    /// The CRS's linear unit: every distance and area in an answer is in it.
    pub linear_unit: LengthUnit,
}

/// How a write treats features already in the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteMode {
    /// Insert new ids, update changed ones, keep the rest.
    Upsert,
    /// Like upsert, then delete every feature whose id the write did not carry.
    Replace,
}

impl WriteMode {
    fn as_str(self) -> &'static str {
        match self {
            WriteMode::Upsert => "upsert",
            WriteMode::Replace => "replace",
        }
    }
}

/// Who writes what where.
#[derive(Debug, Clone)]
pub struct WriteRequest {
    /// The layer written.
    pub layer: Layer,
    /// Upsert or replace.
    pub mode: WriteMode,
    /// Who: a user name or a token's subject; recorded in the audit log.
    pub actor: String,
    /// Where the features came from (a file name, `api`...).
    pub source: String,
}

/// One message of a write stream.
#[derive(Debug)]
pub enum WriteMsg {
    /// More features; ids are unique across the whole stream (the importer sees to it).
    Features(Vec<Feature>),
    /// More features from an import, with what the importer knows of them.
    Imported(ImportChunk),
    /// The importer asks for the layer's stored rows (ids with their content and source
    /// hashes), read by the writer inside its transaction, to find the source features
    /// that are unchanged before converting them; `None` when the layer is empty.
    StoredRows(tokio::sync::oneshot::Sender<Option<std::sync::Arc<StoredRows>>>),
    /// The importer asks for the stored rows of these ids, locked until the transaction
    /// ends and read inside it, to decide its features by them before it sends them: a
    /// programme submission is held to the one recorded for its occurrence, and what it
    /// was held to cannot change before the write commits.
    Rows {
        /// The ids.
        ids: Vec<String>,
        /// Where the rows go: the readable ones, and those set aside.
        reply: tokio::sync::oneshot::Sender<LayerRows>,
    },
    /// The importer asks which stored rows the write would delete were it to commit now:
    /// a replace's rows the stream has not carried, read inside the transaction (none
    /// for an upsert). Asked after the last features, it is what the write deletes: a
    /// programme submission recorded is never deleted by a replace, and the importer
    /// refuses the file (aborts) when one would be.
    WouldDelete(tokio::sync::oneshot::Sender<Vec<String>>),
    /// Commit, storing this import report with the import record.
    Commit {
        /// The quality report, kept with the import record.
        report: serde_json::Value,
    },
    /// Roll back.
    Abort(String),
}

/// A chunk of an import's features.
#[derive(Debug, Default)]
pub struct ImportChunk {
    /// Converted features; ids are unique across the whole stream.
    pub features: Vec<Feature>,
    /// Their content hashes (`store::hash`), one per feature, when the importer computed
    /// them on its own threads so that the writer only compares.
    pub hashes: Option<Vec<i64>>,
    /// Their source hashes (`import::unchanged`), one per feature, stored with the rows
    /// written; `None` for a feature a later import must convert again.
    pub sources: Vec<Option<i64>>,
    /// Features the importer did not convert because their source is the one their
    /// stored row was made from: id and source hash.
    pub same: Vec<(String, i64)>,
    /// How far, in the registry's unit, a position read from the source may lie from the
    /// stored one and still be it, beyond twelve significant digits (see
    /// `store::near`): what the source's format keeps of a position. `None` compares
    /// geometries exactly.
    pub geometry_tolerance: Option<f64>,
}

/// What a committed write did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WriteSummary {
    /// The import record's id.
    pub import_id: i64,
    /// New features.
    pub inserted: u64,
    /// Features whose values or geometry changed.
    pub updated: u64,
    /// Features removed by [`WriteMode::Replace`].
    pub deleted: u64,
    /// Features written again with nothing changed.
    pub unchanged: u64,
    /// Of those unchanged, the features an import recognised by their source (the same
    /// values and geometry, converted the same way, as their stored row was made from)
    /// without converting them again (see `import::unchanged`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub unchanged_at_source: u64,
    /// Stored rows the write read to compare with what it carried: the rows of the ids
    /// it wrote, not the layer (not part of the report: it tells how much work a write
    /// did).
    #[serde(skip)]
    pub rows_compared: u64,
    /// The layer's change number before and after the write, when it committed.
    #[serde(skip)]
    pub change: Option<LayerChange>,
    /// The features inserted or updated: the first ids and the box of them all (not part
    /// of the stored report: the import's report says them in longitude and latitude).
    #[serde(skip)]
    pub changed: ChangedFeatures,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A layer's change number around one write (see [`Store::changes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LayerChange {
    /// The number before the write, `None` when the layer had never been written.
    pub before: Option<i64>,
    /// The number the write gave it.
    pub after: i64,
}

/// A stored row that cannot be read as a feature: a geometry blob or a value another
/// program wrote that ms4 cannot decode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnreadableRow {
    /// The layer.
    pub layer: Layer,
    /// The row's id, when even that cannot be read `None`.
    pub id: Option<String>,
    /// Why it cannot be read.
    pub reason: String,
}

/// A layer as read: its readable features and the rows set aside.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LayerRows {
    /// The readable features, ordered by id.
    pub features: Vec<Feature>,
    /// The rows that cannot be read.
    pub unreadable: Vec<UnreadableRow>,
}

/// A registry's storage. Object-safe so the service holds an `Arc<dyn Store>`.
#[async_trait]
pub trait Store: Send + Sync {
    /// `sqlite` or `postgis`.
    fn kind(&self) -> &'static str;
    /// The registry's jurisdiction and CRS.
    async fn meta(&self) -> Result<RegistryMeta>;
    /// How many features a layer holds.
    async fn count(&self, layer: Layer) -> Result<u64>;
    /// Every feature of a layer, ordered by id; fails, naming the row, when a stored row
    /// cannot be read (use [`Store::read_layer`] to read around such rows).
    async fn features(&self, layer: Layer) -> Result<Vec<Feature>> {
        let rows = self.read_layer(layer).await?;
        match rows.unreadable.into_iter().next() {
            Some(u) => Err(StoreError::Unreadable(u)),
            None => Ok(rows.features),
        }
    }
    /// Every readable feature of a layer, ordered by id, and the rows that are not
    /// readable (written so by another program), so one bad row cannot stop a server.
    async fn read_layer(&self, layer: Layer) -> Result<LayerRows>;
    /// Applies a stream of features as one transaction (see the module docs).
    async fn write(&self, req: WriteRequest, rx: mpsc::Receiver<WriteMsg>) -> Result<WriteSummary>;
    /// Applies several streams, each to its layer, as one transaction: all or none.
    async fn write_layers(
        &self,
        writes: Vec<(WriteRequest, mpsc::Receiver<WriteMsg>)>,
    ) -> Result<Vec<WriteSummary>>;
    /// Writes features whose ids are chosen inside this write's transaction, under its
    /// write lock: `make` gets the ids the layer holds then (see [`allocate`]). Returns
    /// what was written.
    async fn write_allocating(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        make: allocate::Allocate,
    ) -> Result<(WriteSummary, Vec<Feature>)>;
    /// Changes one stored feature (`req.layer`, `id`) by a rule applied to it as stored,
    /// in one transaction that holds the row from the read to the commit, with the
    /// further rows the rule names (see [`update`]); returns what was written, by layer.
    async fn update_feature(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        id: String,
        apply: update::Apply,
    ) -> Result<Vec<update::Written>>;
    /// The newest change number of any layer (0 when none): it rises whenever any
    /// process commits a write to a layer, ms4 or another program (whose writes the
    /// triggers of [`outside`] count), so a server can tell when its snapshot is stale.
    async fn generation(&self) -> Result<i64>;
    /// Each layer's change number (layers never written are absent): a server reloads
    /// just the layers whose number moved.
    async fn changes(&self) -> Result<HashMap<Layer, i64>>;
    /// The newest audit entries, optionally of one layer.
    async fn audit(&self, layer: Option<Layer>, limit: i64) -> Result<Vec<AuditEntry>>;
    /// Stores a new token (its hash) and audits it as `actor`'s; returns its id.
    async fn create_token(&self, token: &NewToken, actor: &str) -> Result<i64>;
    /// Every token, newest first, revoked and expired ones included.
    async fn tokens(&self) -> Result<Vec<TokenRecord>>;
    /// The token with this hash, if any.
    async fn token_by_hash(&self, hash: &str) -> Result<Option<TokenRecord>>;
    /// Revokes a token and audits it as `actor`'s; `false` when no such token exists or it
    /// was revoked already.
    async fn revoke_token(&self, token_id: i64, actor: &str) -> Result<bool>;
    /// The jurisdiction profile the registry keeps, if it has one yet (registries made by
    /// an older ms4 keep only its id, in [`RegistryMeta::jurisdiction`]).
    async fn stored_profile(&self) -> Result<Option<StoredProfile>>;
    /// Stores the registry's profile, replacing any, and audits it as its `stored_by`'s
    /// (`profile_update`, the old and new text), in one transaction. With `only_if_absent`
    /// it fills in the profile of a registry that keeps only its id, as a migration does:
    /// not audited, and an already stored profile is kept (`false` returned).
    async fn store_profile(&self, profile: &StoredProfile, only_if_absent: bool) -> Result<bool>;
    /// Changes the stored profile with `edit`, made on the row read inside the write's
    /// transaction under its lock, so two edits at once both land, each on the other's
    /// text, and neither is written over; the change is audited as [`Store::store_profile`]
    /// audits. An edit's error leaves the stored row as it was.
    async fn edit_profile(&self, edit: profile::ProfileEdit<'_>) -> Result<profile::Edited>;
    /// A registry setting kept in `ms4_meta` under `setting.<key>` (such as the share of a
    /// layer a replace may delete), or `None` when it was never set.
    async fn setting(&self, key: &str) -> Result<Option<String>>;
    /// Stores a registry setting and audits it (`setting`, the old and new value, the
    /// key as the row's feature), in one transaction.
    async fn set_setting(&self, key: &str, value: &str, actor: &str) -> Result<()>;
    /// Stores a photo of an inspection with its SHA-256 and audits it, in one
    /// transaction; the same bytes for the same inspection again are not stored twice
    /// (`false`).
    async fn add_photo(
        &self,
        photo: &photos::NewPhoto,
        actor: &str,
    ) -> Result<(photos::PhotoRecord, bool)>;
    /// The photos of an inspection, oldest first.
    async fn photos_of(&self, inspection_id: &str) -> Result<Vec<photos::PhotoRecord>>;
    /// A photo by its SHA-256, with its bytes.
    async fn photo(&self, sha256: &str) -> Result<Option<(photos::PhotoRecord, Vec<u8>)>>;
}

/// Writes a list of features in one transaction.
pub async fn write_all(
    store: &dyn Store,
    req: WriteRequest,
    features: Vec<Feature>,
    report: serde_json::Value,
) -> Result<WriteSummary> {
    let (tx, rx) = mpsc::channel(4);
    let send = async move {
        for chunk in chunked(features, 2000) {
            if tx.send(WriteMsg::Features(chunk)).await.is_err() {
                return;
            }
        }
        let _ = tx.send(WriteMsg::Commit { report }).await;
    };
    let (_, summary) = tokio::join!(send, store.write(req, rx));
    summary
}

fn chunked(mut v: Vec<Feature>, n: usize) -> Vec<Vec<Feature>> {
    let mut out = Vec::new();
    while v.len() > n {
        let rest = v.split_off(n);
        out.push(v);
        v = rest;
    }
    out.push(v);
    out
}

/// How long a write waits for another program's write lock before the store says it is
/// busy, in milliseconds; 0 is the stores' default ([`DEFAULT_WRITE_WAIT`]).
static WRITE_WAIT_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How long a command waits for another program's write lock: a command run by hand
/// may as well wait for a long import to finish.
pub const DEFAULT_WRITE_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// Sets how long the stores this process opens from now on wait for another program's
/// write lock before a write fails as busy. The server sets a few seconds: its client
/// is told 503 with `Retry-After` and retries, where a command run by hand would rather
/// wait.
pub fn set_write_wait(wait: std::time::Duration) {
    let ms = u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1);
    WRITE_WAIT_MS.store(ms, std::sync::atomic::Ordering::Relaxed);
}

/// How long a write waits for another program's write lock, and whether it was set
/// (else it is [`DEFAULT_WRITE_WAIT`]).
pub(crate) fn write_wait() -> (std::time::Duration, bool) {
    match WRITE_WAIT_MS.load(std::sync::atomic::Ordering::Relaxed) {
        0 => (DEFAULT_WRITE_WAIT, false),
        ms => (std::time::Duration::from_millis(ms), true),
    }
}

/// Opens the registry a URL names: `sqlite://FILE` (a GeoPackage) or `postgres://...`.
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    if is_postgres(url) {
        Ok(Arc::new(PostgisStore::open(url).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::open(url).await?))
    } else {
        Err(StoreError::Url(url.to_string()))
    }
}

/// Creates a registry at a URL: runs the migrations and records the jurisdiction and CRS.
pub async fn create(url: &str, meta: &RegistryMeta) -> Result<Arc<dyn Store>> {
    if is_postgres(url) {
        Ok(Arc::new(PostgisStore::create(url, meta).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(SqliteStore::create(url, meta).await?))
    } else {
        Err(StoreError::Url(url.to_string()))
    }
}

fn is_postgres(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}

/// Loads every layer of a store, for building a snapshot; unreadable rows are set aside
/// (see [`Store::read_layer`]).
pub async fn load_all(store: &dyn Store) -> Result<HashMap<Layer, LayerRows>> {
    let mut out = HashMap::new();
    for layer in Layer::ALL {
        out.insert(layer, store.read_layer(layer).await?);
    }
    Ok(out)
}

/// Change numbers by layer from `ms4_changes` rows; rows naming no known layer (a table
/// dropped from the domain) are ignored.
fn changes_from_rows(rows: Vec<(String, i64)>) -> HashMap<Layer, i64> {
    rows.into_iter()
        .filter_map(|(l, seq)| Some((l.parse::<Layer>().ok()?, seq)))
        .collect()
}

/// The meta table's rows for a registry.
fn meta_rows(meta: &RegistryMeta) -> Vec<(&'static str, String)> {
    vec![
        ("jurisdiction", meta.jurisdiction.clone()),
        ("srid", meta.srid.to_string()),
        ("crs_name", meta.crs_name.clone()),
        ("crs_wkt", meta.crs_wkt.clone()),
        (
            "linear_unit",
            serde_json::to_value(meta.linear_unit)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
        ),
        ("schema_version", "1".into()),
    ]
}

fn meta_from_rows(rows: HashMap<String, String>, url: &str) -> Result<RegistryMeta> {
    let get = |k: &str| {
        rows.get(k)
            .cloned()
            .ok_or_else(|| StoreError::NotInitialised(url.into()))
    };
    Ok(RegistryMeta {
        jurisdiction: get("jurisdiction")?,
        srid: get("srid")?
            .parse()
            .map_err(|_| StoreError::NotInitialised(url.into()))?,
        crs_name: get("crs_name")?,
        crs_wkt: get("crs_wkt")?,
        linear_unit: serde_json::from_value(serde_json::Value::String(get("linear_unit")?))
            .map_err(|_| StoreError::NotInitialised(url.into()))?,
    })
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

/// What the audit log records of a new token: never its hash.
fn token_audit(t: &NewToken) -> serde_json::Value {
    serde_json::json!({
        "role": t.role.name(),
        "subject": t.subject,
        "expires_at": t.expires_at.map(|e| e.to_rfc3339()),
    })
}

/// Marks SQL built by this module as safe to run. Every such string is assembled from
/// the domain's static layer and field names, never from user input (values are bound).
fn trusted(sql: impl Into<String>) -> sqlx::AssertSqlSafe<String> {
    sqlx::AssertSqlSafe(sql.into())
}
