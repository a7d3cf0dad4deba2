//! The stored jurisdiction profile in PostGIS (table `ms4_profile`).

use sqlx::PgPool;

use crate::store::profile::{audit_json, ProfileWrite, StoredProfile};
use crate::store::Result;

type Row = (String, String, String, String, String, String);

const SELECT: &str = "SELECT profile_id, toml, sha256, source,
    to_char(stored_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"+00:00\"'), stored_by
    FROM ms4_profile WHERE singleton = 1";

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
pub(super) async fn read(pool: &PgPool) -> Result<Option<StoredProfile>> {
    let row: Option<Row> = sqlx::query_as(SELECT).fetch_optional(pool).await?;
    Ok(row.map(from_row))
}

/// Reads the stored row and stores what `decide` makes of it, in one transaction under
/// the write lock, so no change made from the row read is written over another: the row
/// read and the row written (none: `decide` wrote nothing). A write that only fills in
/// an absent row, as a migration does, is not audited: it records what the registry
/// already said rather than a change.
pub(super) async fn write(
    pool: &PgPool,
    decide: impl FnOnce(Option<&StoredProfile>) -> Result<Option<ProfileWrite>>,
) -> Result<(Option<StoredProfile>, Option<StoredProfile>)> {
    let mut tx = pool.begin().await?;
    // The table lock orders concurrent writers, so the audit's "before" is the row replaced
    // and two first opens cannot both store.
    sqlx::query("LOCK TABLE ms4_profile IN EXCLUSIVE MODE")
        .execute(&mut *tx)
        .await?;
    let before: Option<StoredProfile> = sqlx::query_as::<_, Row>(SELECT)
        .fetch_optional(&mut *tx)
        .await?
        .map(from_row);
    let Some(ProfileWrite { profile, audited }) = decide(before.as_ref())? else {
        return Ok((before, None));
    };
    sqlx::query(
        "INSERT INTO ms4_profile (singleton, profile_id, toml, sha256, source, stored_at, stored_by)
         VALUES (1, $1, $2, $3, $4, now(), $5)
         ON CONFLICT (singleton) DO UPDATE SET profile_id = excluded.profile_id, toml = excluded.toml,
           sha256 = excluded.sha256, source = excluded.source, stored_at = excluded.stored_at,
           stored_by = excluded.stored_by",
    )
    .bind(&profile.profile_id)
    .bind(&profile.toml)
    .bind(&profile.sha256)
    .bind(&profile.source)
    .bind(&profile.stored_by)
    .execute(&mut *tx)
    .await?;
    if audited {
        sqlx::query(
            "INSERT INTO ms4_audit (at, actor, action, feature_id, before, after) VALUES (now(), $1, 'profile_update', $2, $3::jsonb, $4::jsonb)",
        )
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
