//! What a GeoPackage registry gets when it is opened or created, beyond the migrations:
//! the outside-edit triggers and the R-tree spatial index of every layer, both derived
//! from the domain's layer list, so layers added to the domain (or registries made by an
//! older ms4) get them without a migration.
//!
//! Opening is cheap when nothing is missing: one read of `sqlite_master` and one of
//! `ms4_meta`. Otherwise everything is installed in one transaction.

use std::collections::HashSet;

use sqlx::SqlitePool;

use crate::domain::{GeomKind, Layer};
use crate::store::hash;
use crate::store::outside::{self, META_KEY, PREFIX};
use crate::store::{trusted, Result};

/// What is missing: whether the triggers are stale, the layers without an R-tree, and
/// the layers without the content-hash or source-hash column (see `store::hash`).
async fn missing(
    db: &mut sqlx::SqliteConnection,
    version: &str,
) -> Result<(bool, Vec<Layer>, Vec<(Layer, &'static str)>)> {
    let names: HashSet<String> = sqlx::query_as::<_, (String,)>(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')",
    )
    .fetch_all(&mut *db)
    .await?
    .into_iter()
    .map(|(n,)| n)
    .collect();
    let have: Option<(String,)> = sqlx::query_as("SELECT value FROM ms4_meta WHERE key = ?")
        .bind(META_KEY)
        .fetch_optional(&mut *db)
        .await?;
    let stale = have.map(|(v,)| v).as_deref() != Some(version);
    // A layer indexed by QGIS or GDAL already has its R-tree: leave it as they made it.
    let unindexed = Layer::ALL
        .into_iter()
        .filter(|l| l.geom_kind() != GeomKind::None)
        .filter(|l| !names.contains(&format!("rtree_{}_geom", l.name())))
        .collect();
    // The layers lacking each hash column, as (layer, column) pairs.
    let mut unhashed = Vec::new();
    for column in [hash::COLUMN, hash::SOURCE_COLUMN] {
        let have: HashSet<String> = sqlx::query_as::<_, (String,)>(
            "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table' AND p.name = ?",
        )
        .bind(column)
        .fetch_all(&mut *db)
        .await?
        .into_iter()
        .map(|(n,)| n)
        .collect();
        unhashed.extend(
            Layer::ALL
                .into_iter()
                .filter(|l| !have.contains(l.name()))
                .map(|l| (l, column)),
        );
    }
    Ok((stale, unindexed, unhashed))
}

/// Installs whatever is missing or out of date.
pub(super) async fn run(pool: &SqlitePool) -> Result<()> {
    let want = outside::sqlite_all();
    let version = outside::version(&want);
    let (stale, unindexed, unhashed) = missing(&mut *pool.acquire().await?, &version).await?;
    if !stale && unindexed.is_empty() && unhashed.is_empty() {
        return Ok(());
    }
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    // Again under the write lock: another process may have installed it meanwhile.
    let (stale, unindexed, unhashed) = missing(&mut tx, &version).await?;
    // The column comes before the triggers that name it. Rows already stored get their
    // hash on the next large write that finds them unchanged.
    for (layer, column) in unhashed {
        sqlx::query(trusted(format!(
            "ALTER TABLE {} ADD COLUMN {} INTEGER",
            layer.name(),
            column
        )))
        .execute(&mut *tx)
        .await?;
    }
    if stale {
        let old: Vec<(String,)> = sqlx::query_as(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND substr(name, 1, ?) = ?",
        )
        .bind(PREFIX.len() as i64)
        .bind(PREFIX)
        .fetch_all(&mut *tx)
        .await?;
        for (name,) in old {
            sqlx::query(trusted(format!("DROP TRIGGER \"{name}\"")))
                .execute(&mut *tx)
                .await?;
        }
        for s in &want {
            sqlx::query(trusted(s.clone())).execute(&mut *tx).await?;
        }
        sqlx::query("INSERT OR REPLACE INTO ms4_meta (key, value) VALUES (?, ?)")
            .bind(META_KEY)
            .bind(&version)
            .execute(&mut *tx)
            .await?;
    }
    for layer in unindexed {
        for s in outside::sqlite_rtree(layer) {
            sqlx::query(trusted(s)).execute(&mut *tx).await?;
        }
    }
    tx.commit().await?;
    Ok(())
}
