//! Setting a PostGIS registry up: its database, and the outside-edit triggers that
//! `store::outside` generates from the domain's layers.

use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};

use crate::store::Result;

/// Installs the outside-edit triggers (see `store::outside`) unless the fingerprint in
/// `ms4_meta` shows the current ones are in place: opening costs one read.
pub(super) async fn install_outside(pool: &PgPool) -> Result<()> {
    use crate::store::outside::{self, META_KEY};
    let want = outside::pg_all();
    let version = outside::version(&want);
    let have: Option<(String,)> = sqlx::query_as("SELECT value FROM ms4_meta WHERE key = $1")
        .bind(META_KEY)
        .fetch_optional(pool)
        .await?;
    if have.map(|(v,)| v).as_deref() == Some(version.as_str()) {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    // Two processes opening an old registry at once install one after the other.
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('ms4_outside_triggers'))")
        .execute(&mut *tx)
        .await?;
    for s in want {
        sqlx::query(crate::store::trusted(s))
            .execute(&mut *tx)
            .await?;
    }
    sqlx::query(
        "INSERT INTO ms4_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(META_KEY)
    .bind(&version)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Creates the database a URL names when it is missing, through the `postgres` database.
pub(super) async fn ensure_database(url: &str) -> Result<()> {
    let opts = PgConnectOptions::from_str(url)?;
    match opts.connect().await {
        Ok(c) => {
            c.close().await?;
            Ok(())
        }
        Err(sqlx::Error::Database(e)) if e.code().as_deref() == Some("3D000") => {
            let name = opts.get_database().unwrap_or("ms4").to_string();
            let mut admin = opts.clone().database("postgres").connect().await?;
            sqlx::query(crate::store::trusted(format!(
                "CREATE DATABASE \"{}\"",
                name.replace('"', "\"\"")
            )))
            .execute(&mut admin)
            .await?;
            admin.close().await?;
            Ok(())
        }
        Err(e) => Err(e.into()),
    }
}
