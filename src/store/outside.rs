//! Writes by other programs: the triggers that audit them and tell a running server.
//!
//! A registry is shared: an analyst edits the GeoPackage in QGIS or with `ogrinfo -sql`, a
//! DBA runs psql against PostGIS. Those edits bypass ms4, so the database itself records
//! them: per layer, row triggers write an `ms4_audit` row (before and after, when, and the
//! database user on PostGIS; "outside edit" on SQLite, which knows no users) and raise the
//! layer's number in `ms4_changes`, which a running server polls to reload just that layer.
//!
//! ms4's own writes are audited by the write engine, with the actor and import id, so the
//! triggers must stay quiet for them: an ms4 write transaction marks itself (a row in
//! `ms4_writer` on SQLite, deleted again before commit so nobody else ever sees it;
//! `ms4.writer` set with `SET LOCAL` semantics on PostgreSQL) and the triggers skip marked
//! transactions. The SQLite triggers use only core SQL (`json_object`, `hex`, `strftime`)
//! so every program that can open the file can still write through them.
//!
//! The trigger text is generated from the domain's layer table, so a new layer or field
//! gets its triggers when a store is next opened: [`version`] fingerprints the text and the
//! stores reinstall when the fingerprint in `ms4_meta` differs.

use sha2::{Digest, Sha256};

use crate::domain::{GeomKind, Layer};

/// The actor recorded for an outside edit of a GeoPackage (SQLite knows no users).
pub const OUTSIDE_ACTOR: &str = "outside edit";

/// The `ms4_meta` key holding the fingerprint of the installed trigger text.
pub(crate) const META_KEY: &str = "outside_triggers";

/// Prefix of every trigger and function this module creates, so old ones can be dropped.
pub(crate) const PREFIX: &str = "ms4_outside_";

/// A fingerprint of a set of statements.
pub(crate) fn version(statements: &[String]) -> String {
    let mut h = Sha256::new();
    for s in statements {
        h.update(s.as_bytes());
        h.update([0]);
    }
    h.finalize()
        .iter()
        .take(12)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A SQLite `json_object(...)` of a row (`NEW` or `OLD`) as a GeoJSON-like Feature. The
/// geometry is kept as the GeoPackage blob in hex (`geometry_gpkg`): SQL alone cannot
/// write GeoJSON, and the audit reader turns it into a GeoJSON geometry.
fn sqlite_row_json(layer: Layer, row: &str) -> String {
    let mut props = vec![format!("'{0}', {row}.{0}", layer.id_field())];
    props.extend(
        layer
            .fields()
            .iter()
            .map(|f| format!("'{0}', {row}.{0}", f.name)),
    );
    props.push(format!("'extra', {row}.extra"));
    let geom = if layer.geom_kind() == GeomKind::None {
        String::new()
    } else {
        format!(", 'geometry_gpkg', hex({row}.geom)")
    };
    format!(
        "json_object('type', 'Feature', 'id', {row}.{id}, 'properties', json_object({props}){geom})",
        id = layer.id_field(),
        props = props.join(", ")
    )
}

/// The SQLite statement that raises a layer's change number.
pub(crate) fn sqlite_bump(layer: Layer) -> String {
    format!(
        "INSERT OR REPLACE INTO ms4_changes (layer, seq) VALUES ('{}', (SELECT coalesce(max(seq), 0) + 1 FROM ms4_changes))",
        layer.name()
    )
}

/// The audit triggers of one layer in a GeoPackage.
pub(crate) fn sqlite_triggers(layer: Layer) -> Vec<String> {
    let t = layer.name();
    let id = layer.id_field();
    let when = "WHEN NOT EXISTS (SELECT 1 FROM ms4_writer)";
    let now = "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')";
    let audit = |action: &str, fid: &str, before: &str, after: &str| {
        format!(
            "INSERT INTO ms4_audit (at, actor, action, layer, feature_id, before, after) VALUES ({now}, '{OUTSIDE_ACTOR}', '{action}', '{t}', {fid}, {before}, {after})"
        )
    };
    let bump = sqlite_bump(layer);
    // Another program's content is not what ms4 hashed: its hash goes (see
    // `store::hash`). The update trigger watches every column but the hash, so clearing
    // the hash never fires it, whatever the program's `recursive_triggers`.
    // The source hash (`import::unchanged`) goes with it: the row is no longer what
    // its source made.
    let hash = super::hash::COLUMN;
    let source = super::hash::SOURCE_COLUMN;
    let clear = format!(
        "UPDATE {t} SET {hash} = NULL, {source} = NULL WHERE fid = NEW.fid AND ({hash} IS NOT NULL OR {source} IS NOT NULL)"
    );
    let mut watched = vec!["fid".to_string()];
    if layer.geom_kind() != GeomKind::None {
        watched.push("geom".into());
    }
    watched.push(id.to_string());
    watched.extend(layer.fields().iter().map(|f| f.name.to_string()));
    watched.push("extra".into());
    watched.push("import_id".into());
    let watched = watched.join(", ");
    vec![
        format!(
            "CREATE TRIGGER {PREFIX}{t}_insert AFTER INSERT ON {t} {when} BEGIN {}; {clear}; {bump}; END",
            audit(
                "insert",
                &format!("NEW.{id}"),
                "NULL",
                &sqlite_row_json(layer, "NEW")
            )
        ),
        format!(
            "CREATE TRIGGER {PREFIX}{t}_update AFTER UPDATE OF {watched} ON {t} {when} BEGIN {}; {clear}; {bump}; END",
            audit(
                "update",
                &format!("NEW.{id}"),
                &sqlite_row_json(layer, "OLD"),
                &sqlite_row_json(layer, "NEW")
            )
        ),
        format!(
            "CREATE TRIGGER {PREFIX}{t}_delete AFTER DELETE ON {t} {when} BEGIN {}; {bump}; END",
            audit(
                "delete",
                &format!("OLD.{id}"),
                &sqlite_row_json(layer, "OLD"),
                "NULL"
            )
        ),
    ]
}

/// Every outside-edit trigger of a GeoPackage.
pub(crate) fn sqlite_all() -> Vec<String> {
    Layer::ALL.into_iter().flat_map(sqlite_triggers).collect()
}

/// The GeoPackage R-tree extension's statements for one layer, as GDAL writes them (so a
/// registry indexed by ms4 and one indexed by QGIS are the same). Empty for tables
/// without geometry.
pub(crate) fn sqlite_rtree(layer: Layer) -> Vec<String> {
    if layer.geom_kind() == GeomKind::None {
        return vec![];
    }
    let t = layer.name();
    let r = format!("rtree_{t}_geom");
    let ins = format!(
        "INSERT OR REPLACE INTO \"{r}\" VALUES (NEW.\"fid\",ST_MinX(NEW.\"geom\"), ST_MaxX(NEW.\"geom\"),ST_MinY(NEW.\"geom\"), ST_MaxY(NEW.\"geom\"))"
    );
    vec![
        format!("CREATE VIRTUAL TABLE \"{r}\" USING rtree(id, minx, maxx, miny, maxy)"),
        format!(
            "INSERT OR REPLACE INTO \"{r}\" SELECT fid, ST_MinX(geom), ST_MaxX(geom), ST_MinY(geom), ST_MaxY(geom) FROM \"{t}\" WHERE geom NOT NULL AND NOT ST_IsEmpty(geom)"
        ),
        format!("CREATE TRIGGER \"{r}_insert\" AFTER INSERT ON \"{t}\" WHEN (new.\"geom\" NOT NULL AND NOT ST_IsEmpty(NEW.\"geom\")) BEGIN {ins}; END"),
        format!("CREATE TRIGGER \"{r}_update1\" AFTER UPDATE OF \"geom\" ON \"{t}\" WHEN OLD.\"fid\" = NEW.\"fid\" AND (NEW.\"geom\" NOTNULL AND NOT ST_IsEmpty(NEW.\"geom\")) BEGIN {ins}; END"),
        format!("CREATE TRIGGER \"{r}_update2\" AFTER UPDATE OF \"geom\" ON \"{t}\" WHEN OLD.\"fid\" = NEW.\"fid\" AND (NEW.\"geom\" ISNULL OR ST_IsEmpty(NEW.\"geom\")) BEGIN DELETE FROM \"{r}\" WHERE id = OLD.\"fid\"; END"),
        format!("CREATE TRIGGER \"{r}_update3\" AFTER UPDATE ON \"{t}\" WHEN OLD.\"fid\" != NEW.\"fid\" AND (NEW.\"geom\" NOTNULL AND NOT ST_IsEmpty(NEW.\"geom\")) BEGIN DELETE FROM \"{r}\" WHERE id = OLD.\"fid\"; {ins}; END"),
        format!("CREATE TRIGGER \"{r}_update4\" AFTER UPDATE ON \"{t}\" WHEN OLD.\"fid\" != NEW.\"fid\" AND (NEW.\"geom\" ISNULL OR ST_IsEmpty(NEW.\"geom\")) BEGIN DELETE FROM \"{r}\" WHERE id IN (OLD.\"fid\", NEW.\"fid\"); END"),
        format!("CREATE TRIGGER \"{r}_delete\" AFTER DELETE ON \"{t}\" WHEN old.\"geom\" NOT NULL BEGIN DELETE FROM \"{r}\" WHERE id = OLD.\"fid\"; END"),
        format!(
            "INSERT OR IGNORE INTO gpkg_extensions (table_name, column_name, extension_name, definition, scope) VALUES ('{t}', 'geom', 'gpkg_rtree_index', 'http://www.geopackage.org/spec120/#extension_rtree', 'write-only')"
        ),
    ]
}

/// True in a transaction that is not ms4's (see the module docs).
const OUTSIDE_PG: &str = "coalesce(current_setting('ms4.writer', true), '') = ''";

/// A PostgreSQL `jsonb` of a row (`NEW` or `OLD`) as the GeoJSON Feature ms4's own audit
/// rows hold.
fn pg_row_json(layer: Layer, row: &str) -> String {
    let mut props = vec![format!("'{0}', {row}.{0}", layer.id_field())];
    props.extend(
        layer
            .fields()
            .iter()
            .map(|f| format!("'{0}', {row}.{0}", f.name)),
    );
    props.push(format!("'extra', {row}.extra"));
    let geom = if layer.geom_kind() == GeomKind::None {
        "NULL::jsonb".to_string()
    } else {
        format!("{PREFIX}geojson({row}.geom)")
    };
    format!(
        "jsonb_build_object('type', 'Feature', 'id', {row}.{id}, 'properties', jsonb_build_object({props}), 'geometry', {geom})",
        id = layer.id_field(),
        props = props.join(", ")
    )
}

/// The PostgreSQL function and triggers that audit one layer's outside edits. The
/// statement-level trigger raises the change number and notifies `ms4_changes` once per
/// statement (a TRUNCATE included), not once per row.
pub(crate) fn pg_triggers(layer: Layer) -> Vec<String> {
    let t = layer.name();
    let id = layer.id_field();
    let skip =
        "IF coalesce(current_setting('ms4.writer', true), '') <> '' THEN RETURN NULL; END IF;";
    let insert = |action: &str, fid: String, before: String, after: String| {
        format!(
            "INSERT INTO ms4_audit (at, actor, action, layer, feature_id, before, after) VALUES (clock_timestamp(), session_user, '{action}', '{t}', {fid}, {before}, {after});"
        )
    };
    vec![
        format!(
            "CREATE OR REPLACE FUNCTION {PREFIX}{t}() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN {skip} \
             IF TG_OP = 'INSERT' THEN {} \
             ELSIF TG_OP = 'UPDATE' THEN {} \
             ELSE {} END IF; RETURN NULL; END $f$",
            insert("insert", format!("NEW.{id}"), "NULL".into(), pg_row_json(layer, "NEW")),
            insert("update", format!("NEW.{id}"), pg_row_json(layer, "OLD"), pg_row_json(layer, "NEW")),
            insert("delete", format!("OLD.{id}"), pg_row_json(layer, "OLD"), "NULL".into()),
        ),
        format!("DROP TRIGGER IF EXISTS {PREFIX}{t}_rows ON {t}"),
        // The WHEN is evaluated without entering PL/pgSQL: ms4's own million-row COPY
        // pays a setting lookup per row, not a function call.
        format!("CREATE TRIGGER {PREFIX}{t}_rows AFTER INSERT OR UPDATE OR DELETE ON {t} FOR EACH ROW WHEN ({OUTSIDE_PG}) EXECUTE FUNCTION {PREFIX}{t}()"),
        // Another program's content is not what ms4 hashed (see `store::hash`). The
        // column is added here, not by a migration, so a layer any migration adds gets
        // it too (this list changes with the layers, so it runs again then).
        format!("ALTER TABLE {t} ADD COLUMN IF NOT EXISTS {hash} BIGINT", hash = super::hash::COLUMN),
        format!("ALTER TABLE {t} ADD COLUMN IF NOT EXISTS {source} BIGINT", source = super::hash::SOURCE_COLUMN),
        format!(
            "CREATE OR REPLACE FUNCTION {PREFIX}{t}_unhash() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN \
             NEW.{hash} := NULL; NEW.{source} := NULL; RETURN NEW; END $f$",
            hash = super::hash::COLUMN,
            source = super::hash::SOURCE_COLUMN
        ),
        format!("DROP TRIGGER IF EXISTS {PREFIX}{t}_unhash ON {t}"),
        format!("CREATE TRIGGER {PREFIX}{t}_unhash BEFORE INSERT OR UPDATE ON {t} FOR EACH ROW WHEN ({OUTSIDE_PG}) EXECUTE FUNCTION {PREFIX}{t}_unhash()"),
        format!("DROP TRIGGER IF EXISTS {PREFIX}{t}_changed ON {t}"),
        format!("CREATE TRIGGER {PREFIX}{t}_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {t} FOR EACH STATEMENT WHEN ({OUTSIDE_PG}) EXECUTE FUNCTION {PREFIX}changed()"),
    ]
}

/// Every statement that installs PostgreSQL's outside-edit auditing.
pub(crate) fn pg_all() -> Vec<String> {
    let mut v = vec![
        // Never let the audit fail another program's write: a geometry GeoJSON cannot
        // hold (a curve, say) is recorded as EWKT instead.
        format!(
            "CREATE OR REPLACE FUNCTION {PREFIX}geojson(g geometry) RETURNS jsonb LANGUAGE plpgsql AS $f$ BEGIN \
             RETURN ST_AsGeoJSON(g)::jsonb; \
             EXCEPTION WHEN OTHERS THEN RETURN jsonb_build_object('ewkt', ST_AsEWKT(g)); END $f$"
        ),
        format!(
        "CREATE OR REPLACE FUNCTION {PREFIX}changed() RETURNS trigger LANGUAGE plpgsql AS $f$ BEGIN \
         IF coalesce(current_setting('ms4.writer', true), '') <> '' THEN RETURN NULL; END IF; \
         PERFORM ms4_bump(TG_TABLE_NAME); RETURN NULL; END $f$"
        ),
    ];
    v.extend(Layer::ALL.into_iter().flat_map(pg_triggers));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_gets_three_sqlite_triggers_naming_each_field() {
        for layer in Layer::ALL {
            let t = sqlite_triggers(layer);
            assert_eq!(t.len(), 3, "{layer}");
            for f in layer.fields() {
                assert!(
                    t[1].contains(&format!("OLD.{}", f.name)),
                    "{layer} {}",
                    f.name
                );
            }
            assert!(t
                .iter()
                .all(|s| s.contains("NOT EXISTS (SELECT 1 FROM ms4_writer)")));
        }
        assert_ne!(version(&sqlite_all()), version(&pg_all()));
    }
}
