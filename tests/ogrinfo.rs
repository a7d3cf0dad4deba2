//! GDAL's own tools, as real clients, read both stores.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::process::Command;

use common::*;

fn ogrinfo(args: &[&str]) -> String {
    let out = Command::new("ogrinfo")
        .args(args)
        .output()
        .expect("ogrinfo runs");
    assert!(
        out.status.success(),
        "ogrinfo {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `PG:` connection string for a postgres URL.
fn pg_conn(url: &str) -> String {
    let u = url::Url::parse(url).unwrap();
    format!(
        "PG:host={} port={} user={} password={} dbname={}",
        u.host_str().unwrap(),
        u.port().unwrap_or(5432),
        u.username(),
        u.password().unwrap_or(""),
        u.path().trim_start_matches('/')
    )
}

#[tokio::test]
async fn ogrinfo_lists_every_layer_with_its_count_and_crs() {
    for kind in kinds() {
        let reg = registry(kind, 2927).await;
        run_ok(
            &reg.url,
            &[
                "import",
                "outfalls",
                fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson")
                    .to_str()
                    .unwrap(),
                "--map",
                "asset_id=ALTID",
            ],
        );
        run_ok(
            &reg.url,
            &[
                "import",
                "watersheds",
                fixture("tacoma/SurfacewaterSubbasinOutline.geojson")
                    .to_str()
                    .unwrap(),
                "--map",
                "watershed_id=SUBBASIN",
            ],
        );
        let target = match kind {
            "sqlite" => reg.url.trim_start_matches("sqlite://").to_string(),
            _ => pg_conn(&reg.url),
        };
        let listing = ogrinfo(&["-ro", &target]);
        for layer in ms4::domain::Layer::ALL {
            if layer.geom_kind() == ms4::domain::GeomKind::None && kind == "postgis" {
                continue; // GDAL's PG driver lists only spatial tables unless asked
            }
            assert!(
                listing.contains(&format!(": {} ", layer.name()))
                    || listing.contains(&format!(": {}\n", layer.name())),
                "{kind}: {} missing from\n{listing}",
                layer.name()
            );
        }
        let outfalls = ogrinfo(&["-ro", "-so", &target, "outfalls"]);
        assert!(
            outfalls.contains("Feature Count: 959"),
            "{kind}: {outfalls}"
        );
        assert!(
            outfalls.contains("Washington South"),
            "{kind}: the CRS is declared"
        );
        let sheds = ogrinfo(&["-ro", "-so", &target, "watersheds"]);
        assert!(sheds.contains("Feature Count: 67"), "{kind}: {sheds}");
        // GDAL reads back the geometry we wrote.
        let one = ogrinfo(&[
            "-ro",
            &target,
            "outfalls",
            "-where",
            "asset_id = 'SWDP-100586'",
        ]);
        let wkt = one
            .lines()
            .find_map(|l| l.trim().strip_prefix("POINT ("))
            .unwrap_or_else(|| panic!("{kind}: {one}"));
        let xy: Vec<f64> = wkt
            .trim_end_matches(')')
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        let want = ogrinfo(&[
            "-ro",
            "-al",
            fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson")
                .to_str()
                .unwrap(),
            "-where",
            "ALTID = 'SWDP-100586'",
        ]);
        let want_wkt = want
            .lines()
            .find_map(|l| l.trim().strip_prefix("POINT ("))
            .unwrap();
        let w: Vec<f64> = want_wkt
            .trim_end_matches(')')
            .split(' ')
            .map(|v| v.parse().unwrap())
            .collect();
        assert!(
            (xy[0] - w[0]).abs() < 0.01 && (xy[1] - w[1]).abs() < 0.01,
            "{kind}: {xy:?} vs {w:?}"
        );
    }
}

#[test]
fn geopackage_passes_gdal_s_validation_of_the_header_and_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("r.gpkg");
    let url = format!("sqlite://{}", file.display());
    run_ok(
        &url,
        &["init", "--jurisdiction", "carmel-ny", "--crs", "EPSG:2260"],
    );
    let out = Command::new("ogrinfo")
        .arg("-ro")
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success());
    assert!(
        !stderr.contains("Warning") && !stderr.contains("ERROR"),
        "GDAL complains: {stderr}"
    );
    let bytes = std::fs::read(&file).unwrap();
    assert_eq!(&bytes[68..72], b"GPKG", "application_id");
}

/// A GeoPackage made before a migration added a layer (here: `discharge_determinations`,
/// migration 0004) gets the layer registered in `gpkg_contents` the next time ms4 opens
/// it, so GDAL and QGIS list it like the others.
#[tokio::test]
async fn a_layer_added_by_a_later_migration_is_registered_when_an_older_registry_opens() {
    let reg = registry("sqlite", 2260).await;
    let path = reg.url.trim_start_matches("sqlite://").to_string();
    let forget = Command::new("sqlite3")
        .arg(&path)
        .arg("DELETE FROM gpkg_contents WHERE table_name = 'discharge_determinations'")
        .status()
        .expect("sqlite3 runs (scripts/setup.sh installs it)");
    assert!(forget.success());
    let before = ogrinfo(&["-ro", "-so", &path]);
    assert!(!before.contains("discharge_determinations"), "{before}");
    run_ok(&reg.url, &["network-check"]);
    let after = ogrinfo(&["-ro", "-so", &path]);
    assert!(
        after.contains("discharge_determinations"),
        "ogrinfo lists the layer after ms4 opened the registry: {after}"
    );
}

/// A load of more than a thousand parcels into an empty GeoPackage layer builds the
/// layer's R-tree apart from the row inserts and copies it in: the tree is whole and
/// sound (SQLite's `rtreecheck`), every parcel is in it, GDAL's spatial filter finds
/// exactly the parcels whose boxes meet the window, and the insert trigger is back, so a
/// later write is indexed row by row as before.
#[tokio::test]
async fn a_bulk_load_leaves_the_standard_r_tree_whole_and_its_trigger_back() {
    let reg = registry("sqlite", 2260).await;
    let gpkg = reg.dir.path().join("registry.gpkg");
    let gpkg = gpkg.to_str().unwrap();
    let parcels = |from: usize, n: usize| {
        let features: Vec<String> = (from..from + n)
            .map(|i| {
                let (x, y) = (
                    660_000.0 + (i % 50) as f64 * 90.0,
                    860_000.0 + (i / 50) as f64 * 90.0,
                );
                feature(
                    &format!(r#""parcel_id":"R-{i:05}","land_use":"residential""#),
                    &square(x, y, 80.0 + (i % 3) as f64),
                )
            })
            .collect();
        let path = reg.dir.path().join(format!("parcels-{from}.geojson"));
        std::fs::write(&path, fc(&features)).unwrap();
        path
    };
    let sql = |q: &str| -> String {
        let out = sqlite3(std::path::Path::new(gpkg), q);
        assert!(
            out.status.success(),
            "{q}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let n = 2400;
    let r = ms4::import::import(
        reg.store.clone(),
        ms4::import::ImportOptions::new(ms4::domain::Layer::Parcels, parcels(0, n)),
    )
    .await
    .unwrap();
    assert_eq!(r.imported, n as u64);
    assert_eq!(sql("SELECT rtreecheck('rtree_parcels_geom')"), "ok");
    // The load's audit: one `insert` per parcel, in the order written, by the importer,
    // under the import's id, and the import's summary row after them.
    assert_eq!(
        sql("SELECT count(*), count(DISTINCT feature_id), min(actor = (SELECT actor FROM ms4_imports)), min(import_id = (SELECT max(import_id) FROM ms4_imports)) FROM ms4_audit WHERE action = 'insert' AND layer = 'parcels'"),
        format!("{n}|{n}|1|1")
    );
    assert_eq!(
        sql("SELECT group_concat(feature_id) FROM (SELECT feature_id FROM ms4_audit WHERE action = 'insert' ORDER BY audit_id LIMIT 3)"),
        "R-00000,R-00001,R-00002"
    );
    assert_eq!(
        sql("SELECT (SELECT max(audit_id) FROM ms4_audit WHERE action = 'insert') < (SELECT audit_id FROM ms4_audit WHERE action = 'import')"),
        "1"
    );
    assert_eq!(
        sql("SELECT count(*) FROM rtree_parcels_geom"),
        n.to_string()
    );
    // Every parcel's entry holds its box (widened only by the R-tree's 32-bit floats).
    let stored: std::collections::HashMap<String, geo::Rect<f64>> = reg
        .store
        .features(ms4::domain::Layer::Parcels)
        .await
        .unwrap()
        .into_iter()
        .map(|f| {
            use geo::BoundingRect;
            (f.id.clone(), f.geom.unwrap().bounding_rect().unwrap())
        })
        .collect();
    let entries = sql("SELECT p.parcel_id, r.minx, r.maxx, r.miny, r.maxy FROM parcels p JOIN rtree_parcels_geom r ON r.id = p.fid");
    let mut seen = 0;
    for line in entries.lines() {
        let v: Vec<&str> = line.split('|').collect();
        let n: Vec<f64> = v[1..].iter().map(|x| x.parse().unwrap()).collect();
        let b = stored[v[0]];
        let near = |a: f64, b: f64| (a - b).abs() < 0.25;
        assert!(
            n[0] <= b.min().x && n[1] >= b.max().x && n[2] <= b.min().y && n[3] >= b.max().y,
            "{line} holds {b:?}"
        );
        assert!(
            near(n[0], b.min().x)
                && near(n[1], b.max().x)
                && near(n[2], b.min().y)
                && near(n[3], b.max().y),
            "{line} is {b:?}"
        );
        seen += 1;
    }
    assert_eq!(seen, n, "one entry per parcel");
    assert_eq!(
        sql("SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND name = 'rtree_parcels_geom_insert'"),
        "1"
    );

    // GDAL's spatial filter (through the R-tree) finds the parcels whose boxes meet a
    // window, as the stored features say.
    let (wx0, wy0, wx1, wy1) = (661_000.0, 861_000.0, 662_500.0, 862_200.0);
    let want = reg
        .store
        .features(ms4::domain::Layer::Parcels)
        .await
        .unwrap()
        .iter()
        .filter(|f| {
            use geo::BoundingRect;
            let b = f.geom.as_ref().unwrap().bounding_rect().unwrap();
            b.min().x <= wx1 && b.max().x >= wx0 && b.min().y <= wy1 && b.max().y >= wy0
        })
        .count();
    assert!(want > 10, "the window holds parcels ({want})");
    let listed = ogrinfo(&[
        "-ro", "-q", gpkg, "parcels", "-spat", "661000", "861000", "662500", "862200",
    ]);
    let got = listed.matches("OGRFeature(parcels)").count();
    assert_eq!(got, want, "parcels in the window");

    // A later small write goes through the trigger again.
    ms4::import::import(
        reg.store.clone(),
        ms4::import::ImportOptions::new(ms4::domain::Layer::Parcels, parcels(n, 3)),
    )
    .await
    .unwrap();
    assert_eq!(
        sql("SELECT count(*) FROM rtree_parcels_geom"),
        (n + 3).to_string()
    );
    assert_eq!(sql("SELECT rtreecheck('rtree_parcels_geom')"), "ok");
}
