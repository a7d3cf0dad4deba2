//! A registry shared with other programs: their edits are audited and served, a spatial
//! index they add does not break ms4's writes, and a row they spoil is set aside. The
//! server is the real `ms4 serve`: the point is that another program's write reaches
//! the running command's answers within seconds.

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::*;
use ms4::domain::Layer;
use rstest::rstest;

fn tacoma() -> String {
    fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson")
        .to_str()
        .unwrap()
        .to_string()
}

fn import_outfalls(url: &str) {
    run_ok(
        url,
        &["import", "outfalls", &tacoma(), "--map", "asset_id=ALTID"],
    );
}

/// The GeoPackage file behind a `sqlite://` URL.
fn gpkg(reg: &Registry) -> String {
    reg.dir.path().join("registry.gpkg").display().to_string()
}

/// Runs another program and asserts it succeeded.
fn other(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// SQL run by the other program of each store: `ogrinfo -sql` (GDAL, which has the
/// GeoPackage functions) or `sqlite3` on the GeoPackage, `psql` on PostGIS.
fn outside_sql(kind: &str, reg: &Registry, program: &str, sql: &str) {
    match kind {
        "sqlite" if program == "sqlite3" => {
            other("sqlite3", &["-cmd", ".timeout 10000", &gpkg(reg), sql]);
        }
        "sqlite" => {
            other("ogrinfo", &["-q", &gpkg(reg), "-sql", sql]);
        }
        _ => {
            other(
                "psql",
                &["-v", "ON_ERROR_STOP=1", "-q", &reg.url, "-c", sql],
            );
        }
    }
}

async fn get(c: &reqwest::Client, url: &str) -> (u16, serde_json::Value) {
    let r = c.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

/// Polls until `ok` holds of the answer, or fails after `limit`; returns the time taken.
async fn within(
    limit: Duration,
    c: &reqwest::Client,
    url: &str,
    ok: impl Fn(u16, &serde_json::Value) -> bool,
) -> Duration {
    let start = Instant::now();
    loop {
        let (s, v) = get(c, url).await;
        if ok(s, &v) {
            return start.elapsed();
        }
        assert!(
            start.elapsed() < limit,
            "{url}: still {s} {v} after {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn audit_by(reg: &Registry, layer: Layer) -> Vec<ms4::store::AuditEntry> {
    let mut a = reg.store.audit(Some(layer), 1_000_000).await.unwrap();
    a.reverse();
    a
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn outside_edits_are_audited_once_and_served_within_two_seconds(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2927).await;
    import_outfalls(&reg.url);
    let first = audit_by(&reg, Layer::Outfalls).await;
    assert_eq!(
        first.len(),
        960,
        "{kind}: 959 inserts and the import, once each"
    );
    assert!(first.iter().all(|e| e.actor == "cli"), "{kind}");

    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let item = |id: &str| format!("{}/collections/outfalls/items/{id}", server.base);
    let (s, _) = get(&c, &item("SWDP-100001")).await;
    assert_eq!(s, 200, "{kind}");

    outside_sql(
        kind,
        &reg,
        "ogrinfo",
        "UPDATE outfalls SET status = 'changed outside' WHERE asset_id = 'SWDP-100001'",
    );
    // The plain sqlite3 shell lacks the GeoPackage functions the R-tree triggers
    // call, so it can delete but not insert or update spatial rows; GDAL does those.
    outside_sql(
        kind,
        &reg,
        "sqlite3",
        "DELETE FROM outfalls WHERE asset_id = 'SWDP-100014'",
    );
    outside_sql(
        kind,
        &reg,
        "ogrinfo",
        "INSERT INTO outfalls (asset_id, status, geom) SELECT 'NEW-1', 'added outside', geom FROM outfalls WHERE asset_id = 'SWDP-100016'",
    );

    let took = within(Duration::from_secs(2), &c, &item("SWDP-100001"), |s, v| {
        s == 200 && v["properties"]["status"] == "changed outside"
    })
    .await;
    within(Duration::from_secs(2), &c, &item("SWDP-100014"), |s, _| {
        s == 404
    })
    .await;
    within(Duration::from_secs(2), &c, &item("NEW-1"), |s, v| {
        s == 200 && v["properties"]["status"] == "added outside"
    })
    .await;
    eprintln!("{kind}: the server showed the outside update after {took:?}");

    let all = audit_by(&reg, Layer::Outfalls).await;
    let outside = &all[first.len()..];
    let actions: Vec<(&str, &str)> = outside
        .iter()
        .map(|e| (e.action.as_str(), e.feature_id.as_deref().unwrap()))
        .collect();
    assert_eq!(
        actions,
        [
            ("update", "SWDP-100001"),
            ("delete", "SWDP-100014"),
            ("insert", "NEW-1")
        ],
        "{kind}: each outside edit audited once"
    );
    let who = if kind == "sqlite" {
        "outside edit"
    } else {
        "ms4"
    };
    assert!(
        outside
            .iter()
            .all(|e| e.actor == who && e.import_id.is_none()),
        "{kind}: {outside:?}"
    );
    let upd = &outside[0];
    assert_eq!(
        upd.before.as_ref().unwrap()["properties"]["status"],
        serde_json::Value::Null
    );
    assert_eq!(
        upd.after.as_ref().unwrap()["properties"]["status"],
        "changed outside"
    );
    assert_eq!(
        upd.after.as_ref().unwrap()["geometry"]["type"],
        "Point",
        "{kind}: the geometry is recorded as GeoJSON"
    );
    assert_eq!(outside[1].before.as_ref().unwrap()["id"], "SWDP-100014");
    assert!(outside[1].after.is_none());

    // ms4's own re-import puts the file's values back, audited once, by ms4 only.
    import_outfalls(&reg.url);
    let again = audit_by(&reg, Layer::Outfalls).await;
    let mut mine: Vec<(&str, Option<&str>, &str)> = again[all.len()..]
        .iter()
        .map(|e| (e.action.as_str(), e.feature_id.as_deref(), e.actor.as_str()))
        .collect();
    mine.sort();
    assert_eq!(
        mine,
        [
            ("import", None, "cli"),
            ("insert", Some("SWDP-100014"), "cli"),
            ("update", Some("SWDP-100001"), "cli"),
        ],
        "{kind}"
    );
    within(Duration::from_secs(2), &c, &item("SWDP-100014"), |s, _| {
        s == 200
    })
    .await;
}

fn ogr_count(file: &str, spat: [f64; 4]) -> u64 {
    let s: Vec<String> = spat.iter().map(|v| v.to_string()).collect();
    let out = other(
        "ogrinfo",
        &[
            "-ro", "-so", file, "outfalls", "-spat", &s[0], &s[1], &s[2], &s[3],
        ],
    );
    out.lines()
        .find_map(|l| l.trim().strip_prefix("Feature Count: "))
        .unwrap_or_else(|| panic!("no feature count in {out}"))
        .parse()
        .unwrap()
}

fn has_index(file: &str) -> bool {
    other(
        "ogrinfo",
        &[
            "-ro",
            file,
            "-sql",
            "SELECT HasSpatialIndex('outfalls', 'geom') AS h",
        ],
    )
    .contains("(Integer) = 1")
}

#[tokio::test]
async fn ms4_keeps_writing_a_geopackage_with_a_spatial_index_from_gdal() {
    let reg = registry("sqlite", 2927).await;
    let file = gpkg(&reg);
    import_outfalls(&reg.url);
    assert!(has_index(&file), "ms4 indexes every layer itself");

    // A registry made before ms4 indexed layers: the index is added when ms4 opens it.
    other(
        "ogrinfo",
        &[
            "-q",
            &file,
            "-sql",
            "SELECT DisableSpatialIndex('outfalls', 'geom')",
        ],
    );
    assert!(!has_index(&file));
    run_ok(&reg.url, &["network-check", "--format", "json"]);
    assert!(has_index(&file), "added again on open");

    // GDAL (as QGIS does) builds its own index; ms4's next writes go through its triggers.
    other(
        "ogrinfo",
        &[
            "-q",
            &file,
            "-sql",
            "SELECT DisableSpatialIndex('outfalls', 'geom')",
        ],
    );
    other(
        "ogrinfo",
        &[
            "-q",
            &file,
            "-sql",
            "SELECT CreateSpatialIndex('outfalls', 'geom')",
        ],
    );
    assert!(has_index(&file));
    let moved = reg.dir.path().join("moved.geojson");
    let text = std::fs::read_to_string(tacoma()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut v2 = v.clone();
    // One outfall moved far east, so the index must follow the update.
    let f0 = &mut v2["features"][0];
    let id = f0["properties"]["ALTID"].as_str().unwrap().to_string();
    f0["geometry"]["coordinates"][0] = serde_json::json!(-122.0);
    std::fs::write(&moved, v2.to_string()).unwrap();
    let out = run(
        &reg.url,
        &[
            "import",
            "outfalls",
            moved.to_str().unwrap(),
            "--map",
            "asset_id=ALTID",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let feats = reg.store.features(Layer::Outfalls).await.unwrap();
    let moved_f = feats.iter().find(|f| f.id == id).unwrap();
    let p = match moved_f.geom.as_ref().unwrap() {
        geo_types::Geometry::Point(p) => *p,
        g => panic!("{g:?}"),
    };
    assert_eq!(
        ogr_count(&file, [p.x() - 1.0, p.y() - 1.0, p.x() + 1.0, p.y() + 1.0]),
        1
    );
    // A box over the western half holds exactly the features whose points lie in it.
    let xs: Vec<f64> = feats
        .iter()
        .filter_map(|f| match f.geom.as_ref()? {
            geo_types::Geometry::Point(p) => Some(p.x()),
            _ => None,
        })
        .collect();
    let mid = (xs.iter().cloned().fold(f64::MAX, f64::min)
        + xs.iter().cloned().fold(f64::MIN, f64::max))
        / 2.0;
    let west = xs.iter().filter(|x| **x <= mid).count() as u64;
    assert!(west > 0 && west < 959);
    assert_eq!(ogr_count(&file, [-1e9, -1e9, mid, 1e9]), west);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn an_unreadable_stored_geometry_is_set_aside_reported_and_overwritten(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2927).await;
    import_outfalls(&reg.url);
    let bad_id = "SWDP-100016";
    match kind {
        // A GeoPackage header over WKB of a geometry type that does not exist.
        "sqlite" => outside_sql(
            kind,
            &reg,
            "ogrinfo",
            &format!("UPDATE outfalls SET geom = X'4750000100000000016300000000' WHERE asset_id = '{bad_id}'"),
        ),
        // PostGIS accepts a curve in a generic geometry column; ms4 reads no curves.
        _ => outside_sql(
            kind,
            &reg,
            "psql",
            "ALTER TABLE outfalls ALTER COLUMN geom TYPE geometry(Geometry, 2927); \
             UPDATE outfalls SET geom = ST_GeomFromText('CIRCULARSTRING(1 1, 2 2, 3 1)', 2927) WHERE asset_id = 'SWDP-100016'",
        ),
    }
    // The strict read names the row.
    let err = reg
        .store
        .features(Layer::Outfalls)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains(bad_id), "{kind}: {err}");

    // The data-quality report lists it; the answers go on.
    let report: serde_json::Value =
        serde_json::from_str(&run_ok(&reg.url, &["network-check", "--format", "json"])).unwrap();
    let rows = report["unreadable_rows"].as_array().unwrap();
    assert_eq!(rows.len(), 1, "{kind}: {report}");
    assert_eq!(rows[0]["id"], bad_id);
    assert_eq!(rows[0]["layer"], "outfalls");

    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let (s, fc) = get(
        &c,
        &format!("{}/collections/outfalls/items?limit=1000", server.base),
    )
    .await;
    assert_eq!(s, 200, "{kind}");
    assert_eq!(fc["numberMatched"], 958, "{kind}: the rest is served");
    let (s, _) = get(
        &c,
        &format!("{}/collections/outfalls/items/{bad_id}", server.base),
    )
    .await;
    assert_eq!(s, 404, "{kind}");

    // An import of the layer overwrites the row, audited with the reason.
    import_outfalls(&reg.url);
    assert_eq!(
        reg.store.features(Layer::Outfalls).await.unwrap().len(),
        959,
        "{kind}"
    );
    let a = reg.store.audit(Some(Layer::Outfalls), 2).await.unwrap();
    assert_eq!(a[1].action, "update", "{kind}: {a:?}");
    assert_eq!(a[1].feature_id.as_deref(), Some(bad_id));
    assert!(
        a[1].before.as_ref().unwrap()["unreadable"]
            .as_str()
            .unwrap()
            .contains("geometry"),
        "{kind}: {a:?}"
    );
    within(
        Duration::from_secs(2),
        &c,
        &format!("{}/collections/outfalls/items/{bad_id}", server.base),
        |s, _| s == 200,
    )
    .await;
}
