//! Real networks as analysts have them: re-importing an unchanged file, filtering and
//! splitting a source on import, id expressions, and the drainage network's handling of
//! T-junctions, bidirectional pipes, reversals, zero-length pipes and id collisions —
//! each on a hand-made network under `tests/fixtures/networks/`, on both stores where a
//! store is involved.

#[path = "networks/campus.rs"]
mod campus;
#[path = "common/mod.rs"]
mod common;
#[path = "networks/export_types.rs"]
mod export_types;
#[path = "networks/formats.rs"]
mod formats;
#[path = "networks/missing_values.rs"]
mod missing_values;
#[path = "networks/nearby.rs"]
mod nearby;
#[path = "networks/quality.rs"]
mod quality;
#[path = "networks/reimport.rs"]
mod reimport;
#[path = "networks/settings.rs"]
mod settings;
#[path = "networks/split.rs"]
mod split;
#[path = "networks/structures.rs"]
mod structures;

use common::*;
use ms4::domain::Layer;
use ms4::import::{import, ImportOptions};
use rstest::rstest;

/// A hand-made network fixture.
fn net(name: &str) -> std::path::PathBuf {
    fixture(&format!("networks/{name}"))
}

/// A new, empty North Castle registry in EPSG:2260 on `kind`'s store (a GeoPackage in a
/// temporary folder, or a fresh PostGIS database named with `pg_prefix`); returns its URL
/// and the folder that keeps it.
fn new_registry(kind: &str, pg_prefix: &str) -> (String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("r.gpkg").display()),
        _ => fresh_pg_url(pg_prefix).expect("postgis requested"),
    };
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    (url, dir)
}
