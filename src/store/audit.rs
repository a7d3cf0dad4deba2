//! The audit log's entries and the JSON a feature is recorded as.

use serde::{Deserialize, Serialize};

use crate::domain::{Feature, Layer};

/// One row of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditEntry {
    /// Its sequence number.
    pub audit_id: i64,
    /// When (RFC 3339, UTC).
    pub at: String,
    /// Who: a user name or a token's subject.
    pub actor: String,
    /// `insert`, `update`, `delete` or `import` (one per write, summarising it).
    pub action: String,
    /// The layer.
    pub layer: Option<String>,
    /// The feature's id (none for the `import` row).
    pub feature_id: Option<String>,
    /// The write (import record) this belongs to.
    pub import_id: Option<i64>,
    /// The feature before the change, as a GeoJSON Feature in the registry's CRS.
    pub before: Option<serde_json::Value>,
    /// The feature after the change.
    pub after: Option<serde_json::Value>,
}

/// A feature as a GeoJSON Feature object (in the registry's CRS), for the audit log.
pub fn feature_json(layer: Layer, f: &Feature) -> serde_json::Value {
    let geometry = f
        .geom
        .as_ref()
        .map(|g| {
            serde_json::to_value(geojson::Geometry::new(geojson::GeometryValue::from(g)))
                .unwrap_or_default()
        })
        .unwrap_or(serde_json::Value::Null);
    serde_json::json!({
        "type": "Feature",
        "id": f.id,
        "properties": f.properties(layer),
        "geometry": geometry,
    })
}

/// An update as the audit log keeps it: the two Features hold only the properties that
/// changed (a property gone is `null` after) and the geometry only when it moved, so
/// re-importing 200,000 parcels with one attribute changed does not store every polygon
/// twice per import.
pub fn feature_change(
    layer: Layer,
    old: &Feature,
    new: &Feature,
) -> (serde_json::Value, serde_json::Value) {
    let (po, pn) = (old.properties(layer), new.properties(layer));
    let mut before = serde_json::Map::new();
    let mut after = serde_json::Map::new();
    for k in po.keys().chain(pn.keys().filter(|k| !po.contains_key(*k))) {
        let (a, b) = (po.get(k), pn.get(k));
        if a != b {
            before.insert(k.clone(), a.cloned().unwrap_or_default());
            after.insert(k.clone(), b.cloned().unwrap_or_default());
        }
    }
    let frame = |props| serde_json::json!({"type": "Feature", "id": new.id, "properties": props});
    let (mut b, mut a) = (frame(before), frame(after));
    let wkb = |f: &Feature| f.geom.as_ref().map(crate::domain::wkb::to_wkb);
    if wkb(old) != wkb(new) {
        b["geometry"] = feature_json(layer, old)["geometry"].take();
        a["geometry"] = feature_json(layer, new)["geometry"].take();
    }
    (b, a)
}

/// Reads an audit row selected as (audit_id, at, actor, action, layer, feature_id,
/// import_id, before, after), the JSON columns as text; the same for both stores.
pub(crate) fn audit_entry<'r, R>(r: &'r R) -> super::Result<AuditEntry>
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let json = |i: usize| -> super::Result<Option<serde_json::Value>> {
        Ok(r.try_get::<Option<String>, _>(i)?
            .and_then(|s| serde_json::from_str(&s).ok())
            .map(outside_geometry))
    };
    Ok(AuditEntry {
        audit_id: r.try_get(0)?,
        at: r.try_get(1)?,
        actor: r.try_get(2)?,
        action: r.try_get(3)?,
        layer: r.try_get(4)?,
        feature_id: r.try_get(5)?,
        import_id: r.try_get(6)?,
        before: json(7)?,
        after: json(8)?,
    })
}

/// An outside edit's row as the SQLite triggers record it holds its geometry as the
/// GeoPackage blob in hex (`geometry_gpkg`); reads turn it into the GeoJSON geometry
/// ms4's own audit rows carry, or `null` with the reason when the blob is unreadable.
fn outside_geometry(mut v: serde_json::Value) -> serde_json::Value {
    let Some(obj) = v.as_object_mut() else {
        return v;
    };
    let Some(hex) = obj.remove("geometry_gpkg") else {
        return v;
    };
    let bytes = hex.as_str().and_then(|h| {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()
    });
    let geometry = match bytes {
        Some(b) if b.is_empty() => serde_json::Value::Null,
        Some(b) => match crate::domain::wkb::read_gpkg(&b) {
            Ok((g, _)) => {
                serde_json::to_value(geojson::Geometry::new(geojson::GeometryValue::from(&g)))
                    .unwrap_or_default()
            }
            Err(e) => {
                obj.insert(
                    "geometry_error".into(),
                    format!("unreadable geometry: {e}").into(),
                );
                serde_json::Value::Null
            }
        },
        None => serde_json::Value::Null,
    };
    obj.insert("geometry".into(), geometry);
    v
}

/// A token row selected as (token_id, hash, role, subject, created_at, expires_at,
/// revoked_at), times as RFC 3339 text: both stores select it so.
pub(crate) type TokenRow = (
    i64,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<String>,
);

/// Reads a token row.
pub(crate) fn token_record(row: TokenRow) -> super::Result<crate::auth::TokenRecord> {
    let (token_id, hash, role, subject, created, expires, revoked) = row;
    let time = |s: &str| {
        chrono::DateTime::parse_from_rfc3339(s)
            .map(|t| t.with_timezone(&chrono::Utc))
            .map_err(|e| {
                super::StoreError::Corrupt(format!("ms4_tokens.{token_id}: time {s:?}: {e}"))
            })
    };
    Ok(crate::auth::TokenRecord {
        token_id,
        hash,
        role: role.parse().map_err(|e: crate::auth::UnknownRole| {
            super::StoreError::Corrupt(format!("ms4_tokens.{token_id}: {e}"))
        })?,
        subject,
        created_at: time(&created)?,
        expires_at: expires.as_deref().map(time).transpose()?,
        revoked_at: revoked.as_deref().map(time).transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Value;
    use geo_types::{wkt, Geometry};

    #[test]
    fn an_update_records_only_what_changed() {
        let mut old = Feature::new(Layer::CatchBasins, "CB-1");
        old.geom = Some(Geometry::from(wkt!(POINT(1. 2.))));
        old.set(Layer::CatchBasins, "status", Value::Text("active".into()));
        old.set(Layer::CatchBasins, "owner", Value::Text("Town".into()));
        let mut new = old.clone();
        new.set(
            Layer::CatchBasins,
            "status",
            Value::Text("abandoned".into()),
        );
        let (b, a) = feature_change(Layer::CatchBasins, &old, &new);
        assert_eq!(b["properties"], serde_json::json!({"status": "active"}));
        assert_eq!(a["properties"], serde_json::json!({"status": "abandoned"}));
        assert!(
            a.get("geometry").is_none(),
            "the geometry did not move: {a}"
        );

        new.geom = Some(Geometry::from(wkt!(POINT(5. 2.))));
        let (b, a) = feature_change(Layer::CatchBasins, &old, &new);
        assert_eq!(b["geometry"]["coordinates"], serde_json::json!([1.0, 2.0]));
        assert_eq!(a["geometry"]["coordinates"], serde_json::json!([5.0, 2.0]));
        assert_eq!(a["id"], "CB-1");
    }
}
