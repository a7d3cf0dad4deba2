//! The stored jurisdiction profile in a GeoPackage (table `ms4_profile`).

use sqlx::SqlitePool;

use crate::store::profile::{audit_json, ProfileWrite, StoredProfile};
use crate::store::Result;

type Row = (String, String, String, String, String, String);

fn from_row((profile_id, toml, sha256, source, stored_at, stored_by): Row) -> StoredProfile {
    StoredProfile {
        profile_id,
        toml,
        sha256,
        source,
        stored_at,
        stored_by,
    }
}

/// The stored profile, if the registry has one yet.
pub(super) async fn read(pool: &SqlitePool) -> Result<Option<StoredProfile>> {
    let row: Option<Row> = sqlx::query_as(
        "SELECT profile_id, toml, sha256, source, stored_at, stored_by FROM ms4_profile WHERE singleton = 1",
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map(from_row))
}

/// Reads the stored row and stores what `decide` makes of it, in one transaction under
/// the write lock, so no change made from the row read is written over another: the row
/// read and the row written (none: `decide` wrote nothing). A write that only fills in
/// an absent row, as a migration does, is not audited: it records what the registry
/// already said rather than a change.
pub(super) async fn write(
    pool: &SqlitePool,
    decide: impl FnOnce(Option<&StoredProfile>) -> Result<Option<ProfileWrite>>,
) -> Result<(Option<StoredProfile>, Option<StoredProfile>)> {
    let now = crate::store::now().to_rfc3339();
    // IMMEDIATE: read the old row and write the new one under the same write lock.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let before: Option<StoredProfile> = sqlx::query_as::<_, Row>(
        "SELECT profile_id, toml, sha256, source, stored_at, stored_by FROM ms4_profile WHERE singleton = 1",
    )
    .fetch_optional(&mut *tx)
    .await?
    .map(from_row);
    let Some(ProfileWrite { profile, audited }) = decide(before.as_ref())? else {
        return Ok((before, None));
    };
    sqlx::query(
        "INSERT INTO ms4_profile (singleton, profile_id, toml, sha256, source, stored_at, stored_by)
         VALUES (1, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (singleton) DO UPDATE SET profile_id = excluded.profile_id, toml = excluded.toml,
           sha256 = excluded.sha256, source = excluded.source, stored_at = excluded.stored_at,
           stored_by = excluded.stored_by",
    )
    .bind(&profile.profile_id)
    .bind(&profile.toml)
    .bind(&profile.sha256)
    .bind(&profile.source)
    .bind(&now)
    .bind(&profile.stored_by)
    .execute(&mut *tx)
    .await?;
    if audited {
        sqlx::query(
            "INSERT INTO ms4_audit (at, actor, action, feature_id, before, after) VALUES (?, ?, 'profile_update', ?, ?, ?)",
        )
        .bind(&now)
        .bind(&profile.stored_by)
        .bind(&profile.profile_id)
        .bind(before.as_ref().map(|b| audit_json(b).to_string()))
        .bind(audit_json(&profile).to_string())
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok((before, Some(profile)))
}
