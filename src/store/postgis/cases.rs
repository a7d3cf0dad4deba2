//! The cases layer in a registry made before migration 0008: its geometry column was
//! created without the registry's SRID (known only at `ms4 init`), so it gets it here.

use sqlx::PgPool;

use crate::domain::Layer;
use crate::store::Result;

/// Gives the cases layer's geometry column the registry's SRID when it has none yet (an
/// empty table in an upgraded registry; a no-op otherwise).
pub(super) async fn set_srid(pool: &PgPool, srid: i32) -> Result<()> {
    // The structures layer (migration 0009) is a point layer made the same way, and the
    // sites layer (migration 0013) a polygon one.
    for layer in [Layer::Cases, Layer::Structures, Layer::Sites] {
        let (have,): (i32,) = sqlx::query_as(
            "SELECT COALESCE((SELECT srid FROM geometry_columns WHERE f_table_name = $1 AND f_geometry_column = 'geom' LIMIT 1), 0)",
        )
        .bind(layer.name())
        .fetch_one(pool)
        .await?;
        if have == srid || srid == 0 {
            continue;
        }
        sqlx::query(crate::store::trusted(format!(
            "ALTER TABLE {0} ALTER COLUMN geom TYPE geometry({2}, {1}) USING ST_SetSRID(geom, {1})",
            layer.name(),
            srid,
            crate::store::ddl::postgis_type_name(layer.geom_kind())
        )))
        .execute(pool)
        .await?;
    }
    Ok(())
}
