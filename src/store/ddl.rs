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

/// The fields of a layer that migration `upto` (or an earlier one) created.
fn fields_upto(layer: Layer, upto: u32) -> impl Iterator<Item = &'static crate::domain::FieldSpec> {
    layer.fields().iter().filter(move |f| {
        layer
            .added_by_migration(Some(f.name))
            .is_none_or(|m| m <= upto)
    })
}

/// `CREATE TABLE` for a layer in a GeoPackage.
pub fn sqlite_layer_table(layer: Layer) -> String {
    sqlite_layer_table_upto(layer, u32::MAX)
}

/// `CREATE TABLE` for a layer in a GeoPackage, with the fields migration `upto` had.
fn sqlite_layer_table_upto(layer: Layer, upto: u32) -> String {
    let mut cols = vec!["  fid INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL".to_string()];
    if layer.geom_kind() != GeomKind::None {
        cols.push(format!("  geom {}", layer.geom_kind().ogc_name()));
    }
    cols.push(format!("  {} TEXT NOT NULL UNIQUE", layer.id_field()));
    for f in fields_upto(layer, upto) {
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

/// `CREATE TABLE` and its indexes for a layer in PostGIS. The geometry column's SRID is
/// fixed by `ms4 init`, which knows the registry's CRS.
pub fn postgres_layer_table(layer: Layer) -> String {
    postgres_layer_table_upto(layer, u32::MAX)
}

/// `CREATE TABLE` and its indexes for a layer in PostGIS, with the fields migration `upto`
/// had.
fn postgres_layer_table_upto(layer: Layer, upto: u32) -> String {
    let mut cols = vec!["  fid BIGSERIAL PRIMARY KEY".to_string()];
    let kind = layer.geom_kind();
    if kind != GeomKind::None {
        cols.push(format!("  geom geometry({})", postgis_type_name(kind)));
    }
    cols.push(format!("  {} TEXT NOT NULL UNIQUE", layer.id_field()));
    for f in fields_upto(layer, upto) {
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

/// Every layer table for a store as migration 0002 created them, in creation order.
pub fn all_layer_tables(postgres: bool) -> String {
    Layer::ALL
        .iter()
        .filter(|l| l.added_by_migration(None).is_none())
        .map(|l| {
            if postgres {
                postgres_layer_table_upto(*l, 2)
            } else {
                sqlite_layer_table_upto(*l, 2)
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// What a later migration adds to the layer tables (see
/// [`crate::domain::layer::ADDED_AFTER_0002`]): its new columns, then its new layers' tables
/// with the fields they had then.
pub fn layer_additions(migration: u32, postgres: bool) -> String {
    let mut sql = String::new();
    for (m, layer, field) in crate::domain::layer::ADDED_AFTER_0002 {
        let (true, Some(name)) = (*m == migration, field) else {
            continue;
        };
        // A layer this migration creates (or a later one) has the column in its table;
        // one an earlier migration created gets it added.
        if layer
            .added_by_migration(None)
            .is_some_and(|created| created >= migration)
        {
            continue;
        }
        let spec = layer.fields()[layer.field_index(name).expect("listed fields exist")];
        let ty = if postgres {
            postgres_type(spec.ty)
        } else {
            sqlite_type(spec.ty)
        };
        sql.push_str(&format!(
            "ALTER TABLE {} ADD COLUMN {name} {ty};\n",
            layer.name()
        ));
    }
    for layer in Layer::ALL {
        if layer.added_by_migration(None) == Some(migration) {
            sql.push('\n');
            sql.push_str(&if postgres {
                postgres_layer_table_upto(layer, migration)
            } else {
                sqlite_layer_table_upto(layer, migration)
            });
        }
    }
    sql
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
        }
    }

    /// The migrations after 0002, by number and file stem: each is generated from the
    /// entries of `ADDED_AFTER_0002` with its number.
    const LATER: [(u32, &str); 7] = [
        (4, "0004_discharge_facts"),
        (5, "0005_add_downstream_waters"),
        (8, "0008_idde_cases"),
        (9, "0009_other_structures"),
        (12, "0012_case_respondent"),
        (13, "0013_construction_sites"),
        (14, "0014_programme_submissions"),
    ];

    /// Where a migration's hand-written part (tables that are not layers) follows the
    /// generated one.
    const HAND_WRITTEN: &str = "\n-- Hand-written below this line.\n";

    /// Each later migration adds exactly what `ADDED_AFTER_0002` lists for it; with 0002
    /// they make every field of the domain.
    #[test]
    fn later_migrations_add_what_the_domain_lists() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        for (dir, pg) in [("sqlite", false), ("postgres", true)] {
            for (number, stem) in LATER {
                let path = root.join(dir).join(format!("{stem}.sql"));
                let want = format!(
                    "-- Generated from src/domain/layer.rs by src/store/ddl.rs; do not edit by hand.\n\n{}",
                    layer_additions(number, pg)
                );
                let full = std::fs::read_to_string(&path).unwrap_or_default();
                let tail = full.find(HAND_WRITTEN).map_or("", |i| &full[i..]);
                if std::env::var_os("MS4_BLESS").is_some() {
                    std::fs::write(&path, format!("{want}{tail}")).unwrap();
                }
                let have = std::fs::read_to_string(&path).unwrap();
                let have = have.find(HAND_WRITTEN).map_or(&have[..], |i| &have[..i]);
                assert_eq!(have, want, "{} is out of date", path.display());
            }
            let m4 = layer_additions(4, pg);
            assert!(
                m4.contains("ALTER TABLE pipes ADD COLUMN owner TEXT;"),
                "{m4}"
            );
            assert!(m4.contains("CREATE TABLE discharge_determinations"), "{m4}");
            let m5 = layer_additions(5, pg);
            assert!(
                m5.contains("ALTER TABLE receiving_waters ADD COLUMN flows_to TEXT;"),
                "{m5}"
            );
        }
        // Every field and layer is made by 0002 or by a listed later migration.
        for layer in Layer::ALL {
            for f in layer.fields() {
                let m = layer
                    .added_by_migration(Some(f.name))
                    .or(layer.added_by_migration(None))
                    .unwrap_or(2);
                let file = match m {
                    2 => all_layer_tables(false),
                    n if LATER.iter().any(|(l, _)| *l == n) => layer_additions(n, false),
                    other => panic!("{layer}.{}: no test covers migration {other}", f.name),
                };
                assert!(
                    file.contains(&format!("  {} ", f.name))
                        || file.contains(&format!("ADD COLUMN {} ", f.name)),
                    "{layer}.{}",
                    f.name
                );
            }
        }
    }
}
