//! A number the source leaves out (a GeoJSON feature without the property, a shapefile's
//! null number, a CSV's empty cell, a FlatGeobuf or GeoPackage null) is no value after an
//! import, never 0; and an export to a shapefile that would turn blank strings into
//! nulls says so and fails unless the loss is allowed.

use super::*;
use std::process::Command;

fn registry(dir: &std::path::Path) -> String {
    let url = format!("sqlite://{}", dir.join("r.gpkg").display());
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
    url
}

/// Two catch basins: CB-1 with a rim elevation and a numeric extra attribute, CB-2
/// without either property.
fn source(dir: &std::path::Path) -> std::path::PathBuf {
    let f = dir.join("basins.geojson");
    std::fs::write(
        &f,
        format!(
            r#"{{"type":"FeatureCollection",{CRS_2260},"features":[{},{}]}}"#,
            feature(
                r#""asset_id":"CB-1","rim_elev":412.5,"DEPTH":6,"NOTE":"a""#,
                &point(660000.0, 870000.0)
            ),
            feature(
                r#""asset_id":"CB-2","NOTE":"b""#,
                &point(660100.0, 870000.0)
            ),
        ),
    )
    .unwrap();
    f
}

fn ogr2ogr(src: &std::path::Path, driver: &str, dst: &std::path::Path) {
    let out = Command::new("ogr2ogr")
        .args(["-f", driver])
        .arg(dst)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ogr2ogr -f {driver}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The basins as the registry holds them, exported to GeoJSON: (id, rim_elev, DEPTH).
fn stored(url: &str, dir: &std::path::Path) -> Vec<(String, serde_json::Value, serde_json::Value)> {
    let out = dir.join("back.geojson");
    let _ = std::fs::remove_file(&out);
    run_ok(url, &["export", "catch_basins", out.to_str().unwrap()]);
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let mut rows: Vec<_> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = &f["properties"];
            let depth = p
                .as_object()
                .unwrap()
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("depth"))
                .map(|(_, v)| v.clone())
                .unwrap_or(serde_json::Value::Null);
            (
                p["asset_id"].as_str().unwrap().to_string(),
                p["rim_elev"].clone(),
                depth,
            )
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(&b.0));
    rows
}

#[test]
fn a_number_the_source_leaves_out_is_no_value_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let gj = source(dir.path());
    let formats: [(&str, Option<&str>, &str); 5] = [
        ("geojson", None, "basins.geojson"),
        ("shapefile", Some("ESRI Shapefile"), "basins.shp"),
        ("csv", Some("CSV"), "basins.csv"),
        ("flatgeobuf", Some("FlatGeobuf"), "basins.fgb"),
        ("geopackage", Some("GPKG"), "basins_src.gpkg"),
    ];
    for (name, driver, file) in formats {
        let src = match driver {
            None => gj.clone(),
            Some(d) => {
                let dst = dir.path().join(file);
                if d == "CSV" {
                    let out = Command::new("ogr2ogr")
                        .args(["-f", "CSV"])
                        .arg(&dst)
                        .arg(&gj)
                        .args(["-lco", "GEOMETRY=AS_XY", "-lco", "CREATE_CSVT=YES"])
                        .output()
                        .unwrap();
                    assert!(
                        out.status.success(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                } else {
                    ogr2ogr(&gj, d, &dst);
                }
                dst
            }
        };
        let sub = dir.path().join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let url = registry(&sub);
        let mut args = vec!["import", "catch_basins", src.to_str().unwrap()];
        if name == "csv" {
            args.extend(["--s-srs", "EPSG:2260"]);
        }
        run_ok(&url, &args);
        let rows = stored(&url, &sub);
        assert_eq!(rows.len(), 2, "{name}: {rows:?}");
        assert_eq!(rows[0].1.as_f64(), Some(412.5), "{name}: {rows:?}");
        assert_eq!(rows[0].2.as_f64(), Some(6.0), "{name}: {rows:?}");
        assert!(
            rows[1].1.is_null(),
            "{name}: CB-2's rim_elev is no value, got {rows:?}"
        );
        assert!(
            rows[1].2.is_null(),
            "{name}: CB-2's DEPTH is no value, got {rows:?}"
        );
    }
}

#[test]
fn a_shapefile_export_that_would_turn_blank_strings_into_nulls_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let url = registry(dir.path());
    let f = dir.path().join("blank.geojson");
    std::fs::write(
        &f,
        format!(
            r#"{{"type":"FeatureCollection",{CRS_2260},"features":[{},{},{}]}}"#,
            feature(
                r#""asset_id":"CB-1","REMARK":"","NOTE":"""#,
                &point(660000.0, 870000.0)
            ),
            feature(
                r#""asset_id":"CB-2","REMARK":" ","NOTE":"kept""#,
                &point(660100.0, 870000.0)
            ),
            feature(
                r#""asset_id":"CB-3","REMARK":"Town","NOTE":"kept""#,
                &point(660200.0, 870000.0)
            ),
        ),
    )
    .unwrap();
    run_ok(&url, &["import", "catch_basins", f.to_str().unwrap()]);
    let shp = dir.path().join("out.shp");
    let out = run(&url, &["export", "catch_basins", shp.to_str().unwrap()]);
    assert!(!out.status.success(), "the loss is refused unless allowed");
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("layer catch_basins field REMARK: 2 blank strings")
            && e.contains("layer catch_basins field NOTE: 1 blank string,")
            && e.contains("--allow-lossy"),
        "{e}"
    );
    assert!(!shp.exists(), "nothing is written");
    // GeoJSON keeps blanks: no complaint.
    let gj = dir.path().join("out.geojson");
    run_ok(&url, &["export", "catch_basins", gj.to_str().unwrap()]);
    // Allowed, it is written, the losses listed; read back, the blanks are nulls as said.
    let out = run(
        &url,
        &[
            "export",
            "catch_basins",
            shp.to_str().unwrap(),
            "--allow-lossy",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("field REMARK: 2 blank strings"), "{e}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 losses"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let info = Command::new("ogrinfo")
        .args(["-ro", "-al", "-q"])
        .arg(&shp)
        .args(["-where", "asset_id = 'CB-1'"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&info.stdout);
    assert!(text.contains("REMARK (String) = (null)"), "{text}");
}
