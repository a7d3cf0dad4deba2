//! GDAL's own tools, as real clients, read both stores.

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
