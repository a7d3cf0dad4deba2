//! Setting a PostGIS registry up: its database (and schema, see [`super::schema`]), and
//! the outside-edit triggers that `store::outside` generates from the domain's layers.

use std::str::FromStr;

use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, PgPool};

use super::schema::Schema;
use crate::store::Result;

/// Creates a registry's schema when missing, with PostGIS in `public` first: a database's
/// first registry in a schema would otherwise install PostGIS into its own schema (the
/// first of its search path), where the other members could not see it.
pub(super) async fn ensure_schema(pool: &PgPool, schema: &Schema) -> Result<()> {
    sqlx::query("CREATE EXTENSION IF NOT EXISTS postgis SCHEMA public")
        .execute(pool)
        .await?;
    sqlx::query(crate::store::trusted(format!(
        "CREATE SCHEMA IF NOT EXISTS {}",
        schema.quoted()
    )))
    .execute(pool)
    .await?;
    Ok(())
}

/// Whether the schema holds a registry of its own (its `ms4_meta`), asked of the catalog
/// by schema so that a registry in `public` never answers for it.
pub(super) async fn own_schema(pool: &PgPool, schema: &Schema) -> Result<bool> {
    let (found,): (bool,) = sqlx::query_as(
        "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'ms4_meta')",
    )
    .bind(schema.name())
    .fetch_one(pool)
    .await?;
    Ok(found)
}

/// Gives a schema's registry its own change channel, and pins the search path of every
/// function in the schema (the triggers' included) to the schema: a trigger fired by
/// another program (QGIS with the default search path) then audits and counts in this
/// registry, never in `public`'s.
async fn own_functions(pool: &PgPool, schema: &Schema) -> Result<()> {
    let setting = format!("search_path={}", schema.search_path());
    // Opening a registry set up already costs one read.
    if own_functions_in_place(pool, schema, &setting).await? {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('ms4_outside_triggers'))")
        .execute(&mut *tx)
        .await?;
    sqlx::query(crate::store::trusted(format!(
        "CREATE OR REPLACE FUNCTION {s}.ms4_bump(l text) RETURNS void LANGUAGE sql AS $$
           INSERT INTO {s}.ms4_changes (layer, seq) VALUES (l, nextval('{s}.ms4_change_seq'))
             ON CONFLICT (layer) DO UPDATE SET seq = excluded.seq;
           SELECT pg_notify('{channel}', l);
         $$",
        s = schema.quoted(),
        channel = schema.channel()
    )))
    .execute(&mut *tx)
    .await?;
    let unpinned: Vec<(String,)> = sqlx::query_as(
        "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = $1 AND NOT coalesce(p.proconfig @> ARRAY[$2], false)",
    )
    .bind(schema.name())
    .bind(&setting)
    .fetch_all(&mut *tx)
    .await?;
    for (f,) in unpinned {
        // `f` is the catalog's own rendering of the function's signature.
        sqlx::query(crate::store::trusted(format!(
            "ALTER FUNCTION {f} SET search_path = {}",
            schema.search_path()
        )))
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Whether the schema's `ms4_bump` announces on the schema's channel and every function
/// in the schema has its search path pinned.
async fn own_functions_in_place(pool: &PgPool, schema: &Schema, setting: &str) -> Result<bool> {
    let (bump, unpinned): (Option<String>, i64) = sqlx::query_as(
        "SELECT (SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE n.nspname = $1 AND p.proname = 'ms4_bump'),
                (SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                  WHERE n.nspname = $1 AND NOT coalesce(p.proconfig @> ARRAY[$2], false))",
    )
    .bind(schema.name())
    .bind(setting)
    .fetch_one(pool)
    .await?;
    let announces = bump.is_some_and(|src| src.contains(&format!("'{}'", schema.channel())));
    Ok(announces && unpinned == 0)
}

/// Installs the outside-edit triggers (see `store::outside`) unless the fingerprint in
/// `ms4_meta` shows the current ones are in place: opening costs one read (two in a
/// schema of its own, whose functions are checked for their pinned search path).
pub(super) async fn install_outside(pool: &PgPool, schema: Option<&Schema>) -> Result<()> {
    install_triggers(pool).await?;
    match schema {
        Some(s) => own_functions(pool, s).await,
        None => Ok(()),
    }
}

async fn install_triggers(pool: &PgPool) -> Result<()> {
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
