//! The stored jurisdiction profile in PostGIS (table `ms4_profile`).

use sqlx::PgPool;

use crate::store::profile::{audit_json, StoredProfile, When};
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

/// Stores (or replaces) the profile and audits the change, in one transaction, when the
/// row read inside it meets `when` (else `false`, nothing written). [`When::Absent`]
/// fills in the profile of a registry that keeps only its id, as a migration does: not
/// audited, since it records what the registry already said rather than a change.
pub(super) async fn write(pool: &PgPool, profile: &StoredProfile, when: When<'_>) -> Result<bool> {
    let only_if_absent = matches!(when, When::Absent);
    let mut tx = pool.begin().await?;
    // The table lock orders concurrent writers, so the audit's "before" is the row replaced
    // and two first opens cannot both store.
    sqlx::query("LOCK TABLE ms4_profile IN EXCLUSIVE MODE")
        .execute(&mut *tx)
        .await?;
    let before: Option<Row> = sqlx::query_as(SELECT).fetch_optional(&mut *tx).await?;
    if !when.holds(before.as_ref().map(|b| b.2.as_str())) {
        return Ok(false);
    }
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
    if !only_if_absent {
        sqlx::query(
            "INSERT INTO ms4_audit (at, actor, action, feature_id, before, after) VALUES (now(), $1, 'profile_update', $2, $3::jsonb, $4::jsonb)",
        )
        .bind(&profile.stored_by)
        .bind(&profile.profile_id)
        .bind(before.map(|b| audit_json(&from_row(b)).to_string()))
        .bind(audit_json(profile).to_string())
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(true)
}
