//! A registry read from a PostgreSQL hot standby and written on its primary.
//!
//! Several `ms4 serve` processes on several machines can share one primary this way,
//! each reading (its snapshot, its change numbers, tokens, audit) from a standby near it.
//! Replication is PostgreSQL's own streaming replication; ms4 adds only read-your-writes:
//! a write through this store returns once the standby has replayed it, so the writer's
//! next read sees it. When the standby does not catch up within [`REPLAY_WAIT`] (it lags,
//! or it is away), the reads go to the primary until the standby has replayed that write.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::{
    allocate, photos, profile, update, AuditEntry, LayerRows, PostgisStore, RegistryMeta, Result,
    Store, WriteMsg, WriteRequest, WriteSummary,
};
use crate::auth::{NewToken, TokenRecord};
use crate::domain::{Feature, Layer};

/// How long a write waits for the standby to replay it before its writer's reads are
/// sent to the primary instead.
pub const REPLAY_WAIT: Duration = Duration::from_secs(2);

/// How often the standby's replay position is read while a write waits for it.
const REPLAY_POLL: Duration = Duration::from_millis(2);

/// Writes to a primary, reads from a hot standby of it.
pub struct ReplicatedStore {
    primary: PostgisStore,
    standby: PostgisStore,
    /// The log position of the newest write through this store that the standby had
    /// not replayed when the write returned: until it has, reads go to the primary.
    pending: Mutex<Option<Lsn>>,
}

/// A write-ahead log position (`16/B374D848`), ordered as PostgreSQL orders them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Lsn(u64);

impl Lsn {
    fn parse(s: &str) -> Option<Lsn> {
        let (hi, lo) = s.split_once('/')?;
        Some(Lsn(
            (u64::from_str_radix(hi, 16).ok()? << 32) | u64::from_str_radix(lo, 16).ok()?
        ))
    }

    fn text(self) -> String {
        format!("{:X}/{:X}", self.0 >> 32, self.0 & 0xFFFF_FFFF)
    }
}

impl ReplicatedStore {
    /// Opens the registry on its primary (`primary_url`, migrated as usual) and on a hot
    /// standby of it (`standby_url`), and checks that the standby is one: a server
    /// reading from a second primary would never see its own writes.
    pub async fn open(primary_url: &str, standby_url: &str) -> anyhow::Result<Self> {
        let primary = PostgisStore::open(primary_url).await?;
        let standby = PostgisStore::open_standby(standby_url).await?;
        let (recovering,): (bool,) = sqlx::query_as("SELECT pg_is_in_recovery()")
            .fetch_one(standby.connections())
            .await?;
        anyhow::ensure!(
            recovering,
            "--read-store must name a hot standby of the primary (pg_is_in_recovery() is false there)"
        );
        let (p, s) = (primary.meta().await?, standby.meta().await?);
        anyhow::ensure!(
            p == s,
            "the --read-store holds another registry ({} in EPSG:{}) than the primary ({} in EPSG:{})",
            s.jurisdiction,
            s.srid,
            p.jurisdiction,
            p.srid
        );
        Ok(ReplicatedStore {
            primary,
            standby,
            pending: Mutex::new(None),
        })
    }

    /// Where reads go now: the standby, unless it has not yet replayed a write made
    /// through this store.
    async fn reads(&self) -> &PostgisStore {
        let pending = *self.pending.lock().unwrap_or_else(|p| p.into_inner());
        let Some(lsn) = pending else {
            return &self.standby;
        };
        if !self.standby.replayed(&lsn.text()).await.unwrap_or(false) {
            return &self.primary;
        }
        let mut held = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if *held == Some(lsn) {
            *held = None;
        }
        &self.standby
    }

    /// After a committed write: waits (at most [`REPLAY_WAIT`]) for the standby to
    /// replay it; if it does not, later reads go to the primary until it has.
    async fn replayed_or_primary(&self) {
        let Ok(end) = self.primary.wal_end().await else {
            return;
        };
        let Some(lsn) = Lsn::parse(&end) else {
            return;
        };
        let t = Instant::now();
        while t.elapsed() < REPLAY_WAIT {
            match self.standby.replayed(&end).await {
                Ok(true) => return,
                Ok(false) => tokio::time::sleep(REPLAY_POLL).await,
                Err(_) => break,
            }
        }
        tracing::warn!(lsn = %end, "the standby has not replayed a write yet; reading from the primary until it has");
        let mut held = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        *held = Some(held.map_or(lsn, |h| h.max(lsn)));
    }

    /// A write's result, once the standby holds it (or reads moved to the primary).
    async fn written<T>(&self, r: Result<T>) -> Result<T> {
        if r.is_ok() {
            self.replayed_or_primary().await;
        }
        r
    }
}

#[async_trait]
impl Store for ReplicatedStore {
    fn kind(&self) -> &'static str {
        "postgis"
    }

    async fn meta(&self) -> Result<RegistryMeta> {
        self.reads().await.meta().await
    }

    async fn count(&self, layer: Layer) -> Result<u64> {
        self.reads().await.count(layer).await
    }

    async fn features(&self, layer: Layer) -> Result<Vec<Feature>> {
        self.reads().await.features(layer).await
    }

    async fn read_layer(&self, layer: Layer) -> Result<LayerRows> {
        self.reads().await.read_layer(layer).await
    }

    async fn write(&self, req: WriteRequest, rx: mpsc::Receiver<WriteMsg>) -> Result<WriteSummary> {
        let r = self.primary.write(req, rx).await;
        self.written(r).await
    }

    async fn write_layers(
        &self,
        writes: Vec<(WriteRequest, mpsc::Receiver<WriteMsg>)>,
    ) -> Result<Vec<WriteSummary>> {
        let r = self.primary.write_layers(writes).await;
        self.written(r).await
    }

    async fn write_allocating(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        make: allocate::Allocate,
    ) -> Result<(WriteSummary, Vec<Feature>)> {
        let r = self.primary.write_allocating(req, report, make).await;
        self.written(r).await
    }

    async fn update_feature(
        &self,
        req: WriteRequest,
        report: serde_json::Value,
        id: String,
        apply: update::Apply,
    ) -> Result<Vec<update::Written>> {
        let r = self.primary.update_feature(req, report, id, apply).await;
        self.written(r).await
    }

    async fn generation(&self) -> Result<i64> {
        self.reads().await.generation().await
    }

    async fn changes(&self) -> Result<HashMap<Layer, i64>> {
        self.reads().await.changes().await
    }

    async fn audit(&self, layer: Option<Layer>, limit: i64) -> Result<Vec<AuditEntry>> {
        self.reads().await.audit(layer, limit).await
    }

    async fn create_token(&self, token: &NewToken, actor: &str) -> Result<i64> {
        let r = self.primary.create_token(token, actor).await;
        self.written(r).await
    }

    async fn tokens(&self) -> Result<Vec<TokenRecord>> {
        self.reads().await.tokens().await
    }

    async fn token_by_hash(&self, hash: &str) -> Result<Option<TokenRecord>> {
        self.reads().await.token_by_hash(hash).await
    }

    async fn revoke_token(&self, token_id: i64, actor: &str) -> Result<bool> {
        let r = self.primary.revoke_token(token_id, actor).await;
        self.written(r).await
    }

    async fn stored_profile(&self) -> Result<Option<profile::StoredProfile>> {
        self.reads().await.stored_profile().await
    }

    async fn store_profile(
        &self,
        profile: &profile::StoredProfile,
        only_if_absent: bool,
    ) -> Result<bool> {
        let r = self.primary.store_profile(profile, only_if_absent).await;
        self.written(r).await
    }

    async fn edit_profile(&self, edit: profile::ProfileEdit<'_>) -> Result<profile::Edited> {
        let r = self.primary.edit_profile(edit).await;
        self.written(r).await
    }

    async fn setting(&self, key: &str) -> Result<Option<String>> {
        self.reads().await.setting(key).await
    }

    async fn set_setting(&self, key: &str, value: &str, actor: &str) -> Result<()> {
        let r = self.primary.set_setting(key, value, actor).await;
        self.written(r).await
    }

    async fn add_photo(
        &self,
        photo: &photos::NewPhoto,
        actor: &str,
    ) -> Result<(photos::PhotoRecord, bool)> {
        let r = self.primary.add_photo(photo, actor).await;
        self.written(r).await
    }

    async fn photos_of(&self, inspection_id: &str) -> Result<Vec<photos::PhotoRecord>> {
        self.reads().await.photos_of(inspection_id).await
    }

    async fn photo(&self, sha256: &str) -> Result<Option<(photos::PhotoRecord, Vec<u8>)>> {
        self.reads().await.photo(sha256).await
    }
}

#[cfg(test)]
mod tests {
    use super::Lsn;

    #[test]
    fn log_positions_order_as_postgresql_orders_them() {
        let a = Lsn::parse("0/16B3748").unwrap();
        let b = Lsn::parse("0/9000000").unwrap();
        let c = Lsn::parse("1/0").unwrap();
        assert!(a < b && b < c, "{a:?} {b:?} {c:?}");
        assert_eq!(Lsn::parse("16/B374D848").unwrap().text(), "16/B374D848");
        assert_eq!(Lsn::parse("16-B374D848"), None);
        assert_eq!(Lsn::parse("0/XYZ"), None);
    }
}
