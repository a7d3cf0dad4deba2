//! The schema both stores share, generated from the domain's layer table.
//!
//! The SQL under `migrations/` is what runs; these functions produce the same text so a
//! test can prove the migrations and the domain never drift apart (see
//! `migrations_match_the_domain_schema`).

use crate::domain::{FieldType, GeomKind, Layer};

/// The SQL type of a field in a GeoPackage.
pub fn sqlite_type(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Text => "TEXT",
        FieldType::Integer => "INTEGER",
        FieldType::Real | FieldType::Length(_) | FieldType::Elevation => "REAL",
        FieldType::Bool => "BOOLEAN",
        FieldType::Date => "DATE",
    }
}

/// The SQL type of a field in PostGIS.
pub fn postgres_type(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Text => "TEXT",
        FieldType::Integer => "BIGINT",
        FieldType::Real | FieldType::Length(_) | FieldType::Elevation => "DOUBLE PRECISION",
        FieldType::Bool => "BOOLEAN",
        FieldType::Date => "DATE",
    }
}

/// Columns that migrations after 0002 add to a layer table: (layer, field, migration file
/// stem). 0002 creates every other field of `domain::layer`; each of these migrations
/// holds `ALTER TABLE … ADD COLUMN …` for its fields (see the test below).
pub const ADDED_LATER: &[(Layer, &str, &str)] = &[
    (
        Layer::ReceivingWaters,
        "flows_to",
        "0005_add_downstream_waters",
    ),
    (Layer::TmdlAreas, "waters", "0005_add_downstream_waters"),
];

fn added_later(layer: Layer, field: &str) -> bool {
    ADDED_LATER
        .iter()
        .any(|(l, f, _)| *l == layer && *f == field)
}

/// `CREATE TABLE` for a layer in a GeoPackage, as migration 0002 creates it (without the
/// columns of [`ADDED_LATER`]).
pub fn sqlite_layer_table(layer: Layer) -> String {
    let mut cols = vec!["  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL".to_string()];
    if layer.geom_kind() != GeomKind::None {
        cols.push(format!("  geom {}", layer.geom_kind().ogc_name()));
    }
    cols.push(format!("  {} TEXT NOT NULL UNIQUE", layer.id_field()));
    for f in layer
        .fields()
        .iter()
        .filter(|f| !added_later(layer, f.name))
    {
        cols.push(format!("  {} {}", f.name, sqlite_type(f.ty)));
    }
    cols.push("  extra TEXT".into());
    cols.push("  import_id INTEGER".into());
    format!(
        "CREATE TABLE {} (\n{}\n);\n",
        layer.name(),
        cols.join(",\n")
    )
}

/// `CREATE TABLE` and its indexes for a layer in PostGIS, as migration 0002 creates it
/// (without the columns of [`ADDED_LATER`]). The geometry column's SRID is fixed by
/// `ms4 init`, which knows the registry's CRS.
pub fn postgres_layer_table(layer: Layer) -> String {
    let mut cols = vec!["  fid BIGSERIAL PRIMARY KEY".to_string()];
    let kind = layer.geom_kind();
    if kind != GeomKind::None {
        cols.push(format!("  geom geometry({})", postgis_type_name(kind)));
    }
    cols.push(format!("  {} TEXT NOT NULL UNIQUE", layer.id_field()));
    for f in layer
        .fields()
        .iter()
        .filter(|f| !added_later(layer, f.name))
    {
        cols.push(format!("  {} {}", f.name, postgres_type(f.ty)));
    }
    cols.push("  extra JSONB".into());
    cols.push("  import_id BIGINT".into());
    let mut sql = format!(
        "CREATE TABLE {} (\n{}\n);\n",
        layer.name(),
        cols.join(",\n")
    );
    if kind != GeomKind::None {
        sql.push_str(&format!(
            "CREATE INDEX {0}_geom_gist ON {0} USING GIST (geom);\n",
            layer.name()
        ));
    }
    sql
}

/// PostGIS's name for a geometry kind in a typmod.
pub fn postgis_type_name(kind: GeomKind) -> &'static str {
    match kind {
        GeomKind::Point => "Point",
        GeomKind::Line => "MultiLineString",
        GeomKind::Polygon => "MultiPolygon",
        GeomKind::Any | GeomKind::None => "Geometry",
    }
}

/// Every layer table for a store, in creation order.
pub fn all_layer_tables(postgres: bool) -> String {
    Layer::ALL
        .iter()
        .map(|l| {
            if postgres {
                postgres_layer_table(*l)
            } else {
                sqlite_layer_table(*l)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layer part of each migration is generated text; regenerate it with
    /// `MS4_BLESS=1 cargo test --lib migrations_match` after changing `domain::layer`.
    #[test]
    fn migrations_match_the_domain_schema() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        for (dir, pg) in [("sqlite", false), ("postgres", true)] {
            let path = root.join(dir).join("0002_create_layers.sql");
            let want = format!(
                "-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.\n\n{}",
                all_layer_tables(pg)
            );
            if std::env::var_os("MS4_BLESS").is_some() {
                std::fs::write(&path, &want).unwrap();
            }
            let have = std::fs::read_to_string(&path).unwrap();
            assert_eq!(have, want, "{} is out of date", path.display());
            // Every column added later is in its migration, with the domain's type.
            for (layer, field, stem) in ADDED_LATER {
                let path = root.join(dir).join(format!("{stem}.sql"));
                let sql = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let spec = layer
                    .fields()
                    .iter()
                    .find(|f| f.name == *field)
                    .unwrap_or_else(|| panic!("{layer}.{field} is not in domain::layer"));
                let ty = if pg {
                    postgres_type(spec.ty)
                } else {
                    sqlite_type(spec.ty)
                };
                let line = format!("ALTER TABLE {layer} ADD COLUMN {field} {ty};");
                assert!(sql.contains(&line), "{} lacks {line:?}", path.display());
            }
        }
    }
}
