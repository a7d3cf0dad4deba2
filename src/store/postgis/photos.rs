//! Inspection photos in a PostGIS (`ms4_photos`).

use sqlx::PgPool;

use crate::store::photos::{
    audit_json, record, NewPhoto, PhotoRecord, PhotoRow, PhotoRowWithBytes,
};
use crate::store::Result;

// `stored_at` read back as RFC 3339 text, as the GeoPackage keeps it.
const COLUMNS: &str = "photo_id, inspection_id, sha256, content_type, size, taken_by, \
     to_char(stored_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"')";

/// Stores a photo and its audit row in one transaction; the same bytes for the same
/// inspection again return the stored record (`false`: not new).
pub(super) async fn add(pool: &PgPool, p: &NewPhoto, actor: &str) -> Result<(PhotoRecord, bool)> {
    let sha = p.sha256();
    let now = crate::store::now().to_rfc3339();
    let mut tx = pool.begin().await?;
    let existing: Option<PhotoRow> = sqlx::query_as(crate::store::trusted(format!(
        "SELECT {COLUMNS} FROM ms4_photos WHERE inspection_id = $1 AND sha256 = $2"
    )))
    .bind(p.inspection_id())
    .bind(&sha)
    .fetch_optional(&mut *tx)
    .await?;
    if let Some(r) = existing {
        return Ok((record(r), false));
    }
    let row: PhotoRow = sqlx::query_as(crate::store::trusted(format!(
        "INSERT INTO ms4_photos (inspection_id, sha256, content_type, bytes, size, taken_by, stored_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz) RETURNING {COLUMNS}"
    )))
    .bind(p.inspection_id())
    .bind(&sha)
    .bind(p.content_type())
    .bind(p.bytes())
    .bind(p.bytes().len() as i64)
    .bind(actor)
    .bind(&now)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO ms4_audit (at, actor, action, layer, feature_id, after) VALUES ($1::timestamptz, $2, 'photo_add', 'inspections', $3, $4::jsonb)")
        .bind(&now)
        .bind(actor)
        .bind(p.inspection_id())
        .bind(audit_json(p, &sha).to_string())
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok((record(row), true))
}

/// The photos of an inspection, oldest first.
pub(super) async fn of_inspection(pool: &PgPool, inspection_id: &str) -> Result<Vec<PhotoRecord>> {
    let rows: Vec<PhotoRow> = sqlx::query_as(crate::store::trusted(format!(
        "SELECT {COLUMNS} FROM ms4_photos WHERE inspection_id = $1 ORDER BY photo_id"
    )))
    .bind(inspection_id)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(record).collect())
}

/// A photo by its checksum, with its bytes.
pub(super) async fn by_sha256(pool: &PgPool, sha: &str) -> Result<Option<(PhotoRecord, Vec<u8>)>> {
    let row: Option<PhotoRowWithBytes> = sqlx::query_as(crate::store::trusted(format!(
        "SELECT {COLUMNS}, bytes FROM ms4_photos WHERE sha256 = $1 ORDER BY photo_id LIMIT 1"
    )))
    .bind(sha)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(a, b, c, d, e, f, g, bytes)| (record((a, b, c, d, e, f, g)), bytes)))
}
