//! An import killed part-way leaves the registry exactly as it was, on both stores.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use ms4::domain::Layer;

/// Writes a GeoJSON file of `n` points in EPSG:2260 (big enough to take seconds).
fn big_points(path: &Path, n: usize) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(w, r#"{{"type":"FeatureCollection","crs":{{"type":"name","properties":{{"name":"urn:ogc:def:crs:EPSG::2260"}}}},"features":["#).unwrap();
    for i in 0..n {
        let sep = if i + 1 == n { "" } else { "," };
        let (x, y) = (
            600_000.0 + (i % 1000) as f64 * 10.0,
            800_000.0 + (i / 1000) as f64 * 10.0,
        );
        writeln!(w, r#"{{"type":"Feature","properties":{{"asset_id":"K-{i}","status":"active"}},"geometry":{{"type":"Point","coordinates":[{x},{y}]}}}}{sep}"#).unwrap();
    }
    writeln!(w, "]}}").unwrap();
}

async fn kill_midway(kind: &str) {
    let reg = registry(kind, 2260).await;
    // What is there before: 959 points in the registry's CRS (Tacoma's would lie
    // outside New York East's area of use, which the import refuses).
    let small = reg.dir.path().join("before.geojson");
    big_points(&small, 959);
    let out = run(
        &reg.url,
        &["import", "catch_basins", small.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = reg.store.features(Layer::CatchBasins).await.unwrap();
    let audit_before = reg.store.audit(None, 1_000_000).await.unwrap().len();
    assert_eq!(before.len(), 959);

    let big = reg.dir.path().join("big.geojson");
    big_points(&big, 400_000);
    let mut child = ms4()
        .args(["--store", &reg.url, "import", "catch_basins"])
        .arg(&big)
        .args(["--replace"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    // Wait until the import's transaction is open and writing, then kill it.
    let started = Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "{kind}: the import finished before it could be killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{kind}: the import never started writing"
        );
        if writing(kind, &reg).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        child.try_wait().unwrap().is_none(),
        "{kind}: still running when killed"
    );
    child.kill().unwrap();
    child.wait().unwrap();

    let store = ms4::store::open(&reg.url).await.unwrap();
    assert_eq!(
        store.features(Layer::CatchBasins).await.unwrap(),
        before,
        "{kind}: the layer is as it was"
    );
    assert_eq!(
        store.audit(None, 1_000_000).await.unwrap().len(),
        audit_before,
        "{kind}: no audit rows either"
    );
}

/// Whether a write transaction is under way: SQLite has a rollback journal beside the
/// file; PostgreSQL shows another session holding a write lock on the layer.
async fn writing(kind: &str, reg: &Registry) -> bool {
    match kind {
        "sqlite" => {
            let j = reg.dir.path().join("registry.gpkg-journal");
            j.exists()
        }
        _ => {
            let pool = sqlx::PgPool::connect(&reg.url).await.unwrap();
            let (n,): (i64,) = sqlx::query_as(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                 WHERE c.relname = 'catch_basins' AND l.mode = 'RowExclusiveLock' AND l.pid <> pg_backend_pid()",
            )
            .fetch_one(&pool)
            .await
            .unwrap();
            pool.close().await;
            n > 0
        }
    }
}

#[tokio::test]
async fn killed_import_leaves_the_geopackage_unchanged() {
    kill_midway("sqlite").await;
}

#[tokio::test]
async fn killed_import_leaves_postgis_unchanged() {
    if pg_base().is_some() {
        kill_midway("postgis").await;
    }
}
