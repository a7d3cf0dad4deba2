//! What an import writes: re-imports and replace, every export format and back, other
//! source formats, tables without geometry, bad values, the boundary check.

use super::*;

#[tokio::test]
async fn csv_with_byte_order_mark_and_duplicate_ids_is_reported() {
    let reg = registry("sqlite", 2249).await; // NAD83 / Massachusetts Mainland (ftUS)
    let mut opts = ImportOptions::new(
        Layer::CatchBasins,
        fixture("cambridge/CambridgeSew_Catchbasin_filtered_subset.csv"),
    );
    opts.maps = vec![
        ("asset_id".into(), "FACILITYID".into()),
        ("owner".into(), "OWNER".into()),
    ];
    opts.s_srs = Some(4326);
    let report = import(reg.store.clone(), opts).await.unwrap();
    assert_eq!(report.read, 200);
    assert_eq!(report.problems.duplicate_id, 23, "{report}");
    assert_eq!(report.imported, 177);
    let d = report
        .rejections
        .iter()
        .filter(|n| n.id.as_deref() == Some("D07CBN0531"))
        .count();
    assert_eq!(d, 2, "the third-seen copies of an id thrice present");
    // The BOM did not stick to the first column's name.
    assert!(
        report.extra_fields.iter().any(|f| f == "FID"),
        "{:?}",
        report.extra_fields
    );
    let f = &reg.store.features(Layer::CatchBasins).await.unwrap()[0];
    let (x, y) = point(&f.geom);
    assert!(
        (700_000.0..800_000.0).contains(&x) && (2_950_000.0..3_000_000.0).contains(&y),
        "{x} {y} in MA ftUS"
    );
}

#[tokio::test]
async fn reimport_updates_changed_features_and_replace_deletes_missing_ones() {
    for kind in kinds() {
        let reg = registry(kind, 2927).await;
        let mut opts = ImportOptions::new(Layer::Outfalls, fixture(TACOMA_POINTS));
        opts.maps = vec![("asset_id".into(), "ALTID".into())];
        import(reg.store.clone(), opts.clone()).await.unwrap();
        // Same file again: nothing changes.
        let again = import(reg.store.clone(), opts.clone()).await.unwrap();
        assert_eq!(again.written.as_ref().unwrap().unchanged, 959, "{kind}");
        // Map a field differently: every feature's status changes.
        let mut changed = opts.clone();
        changed.maps.push(("status".into(), "DISCHRGTYPE".into()));
        let w = import(reg.store.clone(), changed)
            .await
            .unwrap()
            .written
            .unwrap();
        assert_eq!(
            w.updated,
            959 - 202,
            "{kind}: the 202 null DISCHRGTYPE stay as they were"
        );
        let audit = reg.store.audit(Some(Layer::Outfalls), 2000).await.unwrap();
        let upd = audit
            .iter()
            .find(|a| a.action == "update" && a.feature_id.as_deref() == Some("SWDP-100001"))
            .unwrap();
        assert_eq!(
            upd.before.as_ref().unwrap()["properties"]["status"],
            serde_json::Value::Null
        );
        assert!(upd.after.as_ref().unwrap()["properties"]["status"].is_string());
        // Replace with a 98-feature subset: the rest go, each audited with its before.
        let mut replace = ImportOptions::new(
            Layer::Outfalls,
            fixture("shapefiles/tacoma_dp_truncated/tacoma_dp_ne.shp"),
        );
        replace.maps = vec![("asset_id".into(), "ALTID".into())];
        replace.mode = WriteMode::Replace;
        // 861 of 959 go: more than the share a replace may delete unasked.
        replace.allow_mass_delete = true;
        let w = import(reg.store.clone(), replace)
            .await
            .unwrap()
            .written
            .unwrap();
        assert_eq!(w.deleted, 959 - 98, "{kind}");
        assert_eq!(reg.store.count(Layer::Outfalls).await.unwrap(), 98);
        let audit = reg.store.audit(Some(Layer::Outfalls), 5000).await.unwrap();
        let deletes = audit
            .iter()
            .filter(|a| a.action == "delete" && a.import_id == Some(w.import_id))
            .count();
        assert_eq!(deletes as u64, w.deleted);
    }
}

#[tokio::test]
async fn round_trip_through_every_export_format_keeps_ids_attributes_and_positions() {
    for kind in kinds() {
        let src = registry(kind, 2927).await;
        let mut opts = ImportOptions::new(Layer::Outfalls, fixture(TACOMA_POINTS));
        opts.maps = vec![
            ("asset_id".into(), "ALTID".into()),
            ("status".into(), "DISCHRGTYPE".into()),
            ("diameter_in".into(), "DIAMETER".into()),
        ];
        import(src.store.clone(), opts).await.unwrap();
        let before = src.store.features(Layer::Outfalls).await.unwrap();
        let meta = src.store.meta().await.unwrap();
        for ext in ["gpkg", "shp", "geojson", "csv"] {
            let path = src.dir.path().join(format!("outfalls.{ext}"));
            // A shapefile (or a CSV) cannot keep the blank strings of three extra fields
            // apart from nulls: the export says so, and is made only with the loss allowed.
            let lossy = ext == "shp" || ext == "csv";
            let done = ms4::import::export::export_with(
                Layer::Outfalls,
                &before,
                &meta,
                &path,
                ms4::import::export::ExportOptions { allow_lossy: lossy },
            )
            .unwrap();
            assert_eq!(done.written, 959);
            if lossy {
                // The shapefile loses all-space values too (a DBF pads with spaces); the
                // CSV only the empty ones, which one of the three fields has.
                let fields = if ext == "shp" { 3 } else { 1 };
                assert_eq!(done.losses.len(), fields, "{ext}: {:?}", done.losses);
                assert!(
                    done.losses.iter().all(|l| l.contains("blank strings")),
                    "{:?}",
                    done.losses
                );
                assert!(
                    ms4::import::export::export(Layer::Outfalls, &before, &meta, &path).is_err()
                );
            }
            let dst = registry(kind, 2927).await;
            let mut back = ImportOptions::new(Layer::Outfalls, &path);
            if ext == "csv" {
                back.s_srs = Some(2927);
            }
            let report = import(dst.store.clone(), back).await.unwrap();
            assert_eq!(report.imported, 959, "{kind} {ext}: {report}");
            let after = dst.store.features(Layer::Outfalls).await.unwrap();
            for (a, b) in before.iter().zip(&after) {
                assert_eq!(a.id, b.id, "{ext}");
                assert_eq!(a.values, b.values, "{ext} {}", a.id);
                let ((ax, ay), (bx, by)) = (point(&a.geom), point(&b.geom));
                assert!(
                    (ax - bx).abs() <= 0.001 && (ay - by).abs() <= 0.001,
                    "{ext} {}: {ax},{ay} vs {bx},{by}",
                    a.id
                );
            }
            let with_sub = after
                .iter()
                .filter(|f| {
                    f.extra
                        .get("SUBBASIN")
                        .and_then(|v| v.as_str())
                        .is_some_and(|s| !s.trim().is_empty())
                })
                .count();
            assert_eq!(with_sub, 863, "{ext}: extras survive");
        }
    }
}

/// Issue 27 item 1: a source field kept as `fid` (or `geom`), whatever its values, is
/// exported to a GeoPackage under its own name (the table's key and geometry columns take
/// other names) and comes back with its values.
#[tokio::test]
async fn a_kept_fid_field_exports_to_geopackage_and_comes_back() {
    for kind in kinds() {
        let src = registry(kind, 2927).await;
        let mut opts = ImportOptions::new(Layer::Outfalls, fixture(TACOMA_POINTS));
        opts.maps = vec![("asset_id".into(), "ALTID".into())];
        import(src.store.clone(), opts).await.unwrap();
        let mut before = src.store.features(Layer::Outfalls).await.unwrap();
        before.truncate(25);
        for (i, f) in before.iter_mut().enumerate() {
            f.extra.insert("fid".into(), format!("F-{i}").into());
            f.extra.insert("GEOM".into(), "point".into());
        }
        let meta = src.store.meta().await.unwrap();
        let path = src.dir.path().join("outfalls.gpkg");
        let n = ms4::import::export::export(Layer::Outfalls, &before, &meta, &path)
            .unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert_eq!(n, 25);
        let dst = registry(kind, 2927).await;
        let report = import(
            dst.store.clone(),
            ImportOptions::new(Layer::Outfalls, &path),
        )
        .await
        .unwrap();
        assert_eq!(report.imported, 25, "{kind}: {report}");
        let after = dst.store.features(Layer::Outfalls).await.unwrap();
        for (a, b) in before.iter().zip(&after) {
            assert_eq!(a.id, b.id);
            assert_eq!(a.extra.get("fid"), b.extra.get("fid"), "{kind} {}", a.id);
            assert_eq!(a.extra.get("GEOM"), b.extra.get("GEOM"), "{kind} {}", a.id);
        }
    }
}

#[test]
fn a_value_that_is_not_a_date_rejects_the_feature_and_names_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("easements.csv");
    std::fs::write(&csv, "easement_id,purpose,recorded_on,lon,lat\nE-1,drainage,2019-05-01,-73.7,41.1\nE-2,access,31/31/2019,-73.7,41.1\n").unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &store,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    let json = run_ok(
        &store,
        &[
            "import",
            "easements",
            csv.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["imported"], 1);
    assert_eq!(r["rejections"][0]["id"], "E-2");
    assert_eq!(r["rejections"][0]["field"], "recorded_on");
    assert!(r["rejections"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("31/31/2019"));
    // E-1's date is written as YYYY-MM-DD: read as the date it spells, not converted.
    assert_eq!(r["converted"]["recorded_on"], serde_json::Value::Null);
    assert!(r["warnings"][0].as_str().unwrap().contains("EPSG:4326"));
    let _ = Value::Null;
}

#[tokio::test]
async fn zipped_shapefile_file_geodatabase_and_kml_import_like_the_geojson() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture(TACOMA_POINTS);
    // A zipped shapefile, as analysts mail them.
    let shp_dir = dir.path().join("shp");
    std::fs::create_dir(&shp_dir).unwrap();
    ogr2ogr_to(&src, "ESRI Shapefile", &shp_dir.join("points.shp"), &[]);
    let zip = dir.path().join("points.zip");
    let st = Command::new("python3")
        .args(["-c", "import sys, zipfile, os\nz = zipfile.ZipFile(sys.argv[1], 'w')\nfor f in sorted(os.listdir(sys.argv[2])): z.write(os.path.join(sys.argv[2], f), f)\nz.close()"])
        .arg(&zip)
        .arg(&shp_dir)
        .status()
        .unwrap();
    assert!(st.success());
    let gdb = dir.path().join("points.gdb");
    ogr2ogr_to(&src, "OpenFileGDB", &gdb, &["-nln", "discharge_points"]);
    let kml = dir.path().join("points.kml");
    ogr2ogr_to(&src, "KML", &kml, &[]);

    let reference = {
        let reg = registry("sqlite", 2927).await;
        let mut o = ImportOptions::new(Layer::Outfalls, &src);
        o.maps = vec![("asset_id".into(), "ALTID".into())];
        import(reg.store.clone(), o).await.unwrap();
        reg.store.features(Layer::Outfalls).await.unwrap()
    };
    // KML is WGS 84 with limited precision; the others keep State Plane coordinates.
    for (path, tol) in [(&zip, 0.001), (&gdb, 0.001), (&kml, 0.05)] {
        let reg = registry("sqlite", 2927).await;
        let mut o = ImportOptions::new(Layer::Outfalls, path);
        o.maps = vec![("asset_id".into(), "ALTID".into())];
        let report = import(reg.store.clone(), o)
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(report.imported, 959, "{}: {report}", path.display());
        let got = reg.store.features(Layer::Outfalls).await.unwrap();
        for (a, b) in reference.iter().zip(&got) {
            assert_eq!(a.id, b.id);
            let ((ax, ay), (bx, by)) = (point(&a.geom), point(&b.geom));
            assert!(
                (ax - bx).abs() <= tol && (ay - by).abs() <= tol,
                "{}: {} moved",
                path.display(),
                a.id
            );
        }
    }
}

#[test]
fn impairments_come_from_a_csv_table_without_geometry() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("impairments.csv");
    std::fs::write(&csv, "\u{feff}water_id,pollutant,sources,cycle\nNY-1301-0001,Phosphorus,Urban runoff/storm sewers,2022\nNY-1301-0001,Pathogens,Unknown,2020\nNY-1301-0002,Silt/Sediment,,2018\n").unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &store,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    let json = run_ok(
        &store,
        &[
            "import",
            "impairments",
            csv.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["imported"], 3, "{json}");
    assert_eq!(r["source_crs"], serde_json::Value::Null);
    let out = Command::new("ogrinfo")
        .args(["-ro", "-al", "-q"])
        .arg(dir.path().join("r.gpkg"))
        .arg("impairments")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("impairment_id (String) = NY-1301-0001:Phosphorus:2022"),
        "{text}"
    );
    assert!(
        text.contains("cycle (Integer") && text.contains("= 2018"),
        "{text}"
    );
}

/// A replace refuses, writing nothing, when a rejected feature's stored version would be
/// deleted by it (its id stored and no accepted feature carrying it, or no readable id);
/// a rejected feature that has no stored version, or a duplicate whose first is kept,
/// loses nothing, and the replace goes on, saying so in its report.
#[tokio::test]
async fn replace_with_rejected_features_is_refused_and_changes_nothing() {
    let point = |id: &str, installed: &str, i: usize| {
        format!(
            r#"{{"type":"Feature","properties":{{"asset_id":"{id}","installed_on":"{installed}"}},"geometry":{{"type":"Point","coordinates":[{},41.1]}}}}"#,
            -73.70 + i as f64 * 1e-4
        )
    };
    let file = |dir: &std::path::Path, name: &str, features: &[String]| {
        let path = dir.join(name);
        std::fs::write(
            &path,
            format!(
                r#"{{"type":"FeatureCollection","features":[{}]}}"#,
                features.join(",")
            ),
        )
        .unwrap();
        path
    };
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let first = file(
            reg.dir.path(),
            "first.geojson",
            &[
                point("CB-1", "2001-05-04", 0),
                point("CB-2", "2001-05-04", 1),
                point("CB-3", "2001-05-04", 2),
            ],
        );
        import(
            reg.store.clone(),
            ImportOptions::new(Layer::CatchBasins, &first),
        )
        .await
        .unwrap();
        let before = reg.store.features(Layer::CatchBasins).await.unwrap();
        // CB-2's new row is rejected (a year in two digits): the replace would delete it.
        let bad = file(
            reg.dir.path(),
            "bad.geojson",
            &[
                point("CB-1", "2001-05-04", 0),
                point("CB-2", "5/4/01", 1),
                point("CB-3", "2001-05-04", 2),
            ],
        );
        let mut opts = ImportOptions::new(Layer::CatchBasins, &bad);
        opts.mode = WriteMode::Replace;
        let e = import(reg.store.clone(), opts)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("1 rejected feature(s) (CB-2)") && e.contains("--replace would delete"),
            "{kind}: {e}"
        );
        assert_eq!(
            reg.store.features(Layer::CatchBasins).await.unwrap(),
            before,
            "{kind}: nothing written"
        );
        // A rejected new feature (CB-9, never stored) and a duplicate of CB-1 whose first
        // is kept lose no stored row: the replace goes on.
        let fine = file(
            reg.dir.path(),
            "fine.geojson",
            &[
                point("CB-1", "2001-05-04", 0),
                point("CB-1", "2002-05-04", 3),
                point("CB-2", "2001-05-04", 1),
                point("CB-3", "2001-05-04", 2),
                point("CB-9", "5/4/01", 4),
            ],
        );
        let mut opts = ImportOptions::new(Layer::CatchBasins, &fine);
        opts.mode = WriteMode::Replace;
        let r = import(reg.store.clone(), opts).await.unwrap();
        assert_eq!((r.rejected, r.deletes.len()), (2, 0), "{kind}: {r:?}");
        assert_eq!(
            reg.store.count(Layer::CatchBasins).await.unwrap(),
            3,
            "{kind}"
        );
    }
}

#[tokio::test]
async fn features_outside_the_jurisdiction_boundary_are_reported_by_id() {
    // The boundary is one Tacoma subbasin; GDAL's own clipping says which points lie in it.
    let dir = tempfile::tempdir().unwrap();
    let boundary = dir.path().join("ne04.geojson");
    ogr2ogr_to(
        &fixture("tacoma/SurfacewaterSubbasinOutline.geojson"),
        "GeoJSON",
        &boundary,
        &["-where", "SUBBASIN = 'NE_04'"],
    );
    let inside = Command::new("ogr2ogr")
        .args(["-f", "CSV", "/vsistdout/", "-select", "ALTID", "-clipsrc"])
        .arg(&boundary)
        .arg(fixture(TACOMA_POINTS))
        .output()
        .unwrap();
    let inside: std::collections::HashSet<String> = String::from_utf8(inside.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.trim_matches('"').to_string())
        .collect();
    assert!(inside.len() > 10 && inside.len() < 959, "{}", inside.len());

    let reg = registry("sqlite", 2927).await;
    let mut b = ImportOptions::new(Layer::Boundary, &boundary);
    b.maps = vec![("boundary_id".into(), "SUBBASIN".into())];
    import(reg.store.clone(), b).await.unwrap();
    let mut o = ImportOptions::new(Layer::Outfalls, fixture(TACOMA_POINTS));
    o.maps = vec![("asset_id".into(), "ALTID".into())];
    let report = import(reg.store.clone(), o).await.unwrap();
    assert_eq!(
        report.imported, 959,
        "outside is a warning, not a rejection"
    );
    let outside: std::collections::HashSet<String> =
        report.outside_boundary.iter().cloned().collect();
    assert_eq!(outside.len(), 959 - inside.len());
    assert!(outside.is_disjoint(&inside));
    // The city filed SWDP-100586 under NE_04, but it lies 0.07 ft outside.
    assert!(outside.contains("SWDP-100586"));
}

/// A write that fails by itself (here a trigger that refuses every row, as a full disk or
/// a lost database would) is the error reported, not the read it cut short; and nothing
/// is written. Enough points that the reader is still reading when the write fails.
#[tokio::test]
async fn a_write_that_fails_by_itself_is_the_error_reported_not_a_short_read() {
    let n = 40_000;
    let features: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"type":"Feature","properties":{{"asset_id":"CB-{i}"}},"geometry":{{"type":"Point","coordinates":[{},{}]}}}}"#,
                -73.70 + (i % 200) as f64 * 1e-4,
                41.10 + (i / 200) as f64 * 1e-4
            )
        })
        .collect();
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let file = reg.dir.path().join("many.geojson");
        std::fs::write(
            &file,
            format!(
                r#"{{"type":"FeatureCollection","features":[{}]}}"#,
                features.join(",")
            ),
        )
        .unwrap();
        let refuse = match kind {
            "sqlite" => {
                let path = reg.url.trim_start_matches("sqlite://");
                let out = crate::common::sqlite3(
                    std::path::Path::new(path),
                    "CREATE TRIGGER refuse_all BEFORE INSERT ON catch_basins BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END;",
                );
                out.status.success()
            }
            _ => {
                let out = crate::common::psql(
                    &reg.url,
                    "CREATE FUNCTION refuse_all() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test trigger'; END $$; CREATE TRIGGER refuse_all BEFORE INSERT ON catch_basins FOR EACH ROW EXECUTE FUNCTION refuse_all();",
                )
                .expect("psql runs");
                out.status.success()
            }
        };
        assert!(refuse, "{kind}: the trigger is made");
        let err = import(
            reg.store.clone(),
            ImportOptions::new(Layer::CatchBasins, &file),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("refused by the test trigger"),
            "{kind}: the write's own error: {err}"
        );
        assert!(!err.contains("cut short"), "{kind}: {err}");
        let stored = reg.store.features(Layer::CatchBasins).await.unwrap();
        assert!(stored.is_empty(), "{kind}: nothing written");
    }
}
