//! Opening a registry on a PostgreSQL hot standby, and the write-ahead-log positions a
//! replicated store compares to give a writer its own writes back.

use sqlx::PgPool;

use super::PostgisStore;
use crate::store::{Result, Store};

impl PostgisStore {
    /// Opens a registry on a hot standby (a read-only replica kept by streaming
    /// replication). Nothing is written there: a standby refuses every write, so the
    /// migrations and triggers [`PostgisStore::open`] adds are left to the primary, whose
    /// changes the standby replays.
    pub async fn open_standby(url: &str) -> Result<Self> {
        // A standby of a coalition's database reads the registry's own schema too.
        let parts = super::split_url(url)?;
        let mut store = PostgisStore {
            pool: Self::pool(&parts.connect, parts.schema.as_ref()).await?,
            url: url.to_string(),
            srid: 0,
            schema: parts.schema,
        };
        store.srid = store.meta().await?.srid;
        Ok(store)
    }

    /// The connections, for the queries of [`crate::store::replica`].
    pub(crate) fn connections(&self) -> &PgPool {
        &self.pool
    }

    /// Where the primary's write-ahead log ends now: every write committed before this
    /// call lies before it.
    pub(crate) async fn wal_end(&self) -> Result<String> {
        let (lsn,): (String,) = sqlx::query_as("SELECT pg_current_wal_lsn()::text")
            .fetch_one(&self.pool)
            .await?;
        Ok(lsn)
    }

    /// Whether this standby has replayed the log up to `lsn` (so a read here sees every
    /// write committed before it).
    pub(crate) async fn replayed(&self, lsn: &str) -> Result<bool> {
        let (done,): (Option<bool>,) =
            sqlx::query_as("SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn")
                .bind(lsn)
                .fetch_one(&self.pool)
                .await?;
        Ok(done.unwrap_or(false))
    }
}
