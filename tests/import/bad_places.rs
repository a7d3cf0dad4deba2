//! Coordinates that cannot be the town's: outside the registry CRS's area of use
//! (1e308, tens of millions of feet off), or far beyond the boundary; a GeoJSON `crs`
//! PROJ does not know; null geometries; and exports that fail or would lose data,
//! which leave no partial file and keep the old one.

use super::*;

/// GeoJSON in the registry's own CRS (EPSG:2260, ftUS), no transform involved.
fn in_state_plane(points: &[(&str, f64, f64)]) -> String {
    let features: Vec<serde_json::Value> = points
        .iter()
        .map(|(id, x, y)| {
            serde_json::json!({"type": "Feature", "properties": {"asset_id": id},
                "geometry": {"type": "Point", "coordinates": [x, y]}})
        })
        .collect();
    serde_json::json!({"type": "FeatureCollection",
        "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::2260"}},
        "features": features})
    .to_string()
}

#[tokio::test]
async fn coordinates_outside_the_crs_area_of_use_are_rejected_by_feature_and_field() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("far.geojson");
        std::fs::write(
            &f,
            in_state_plane(&[
                ("OF-OK", 690_000.0, 850_000.0),
                ("OF-HUGE", 1e308, 1e308),
                ("OF-FAR", 690_000.0, 45_000_000.0),
            ]),
        )
        .unwrap();
        let report = import(reg.store.clone(), ImportOptions::new(Layer::Outfalls, &f))
            .await
            .unwrap();
        assert_eq!(
            (report.imported, report.rejected),
            (1, 2),
            "{kind}: {report}"
        );
        assert_eq!(report.problems.misplaced, 2);
        for id in ["OF-HUGE", "OF-FAR"] {
            let n = report
                .rejections
                .iter()
                .find(|n| n.id.as_deref() == Some(id))
                .unwrap();
            assert_eq!(n.field.as_deref(), Some("geometry"));
            assert!(
                n.reason
                    .contains("outside the area the registry's CRS is meant for"),
                "{}",
                n.reason
            );
        }
        // What was stored exports whole.
        let meta = reg.store.meta().await.unwrap();
        let out = dir.path().join("back.gpkg");
        let features = reg.store.features(Layer::Outfalls).await.unwrap();
        assert_eq!(
            ms4::import::export::export(Layer::Outfalls, &features, &meta, &out).unwrap(),
            1
        );
    }
}

#[tokio::test]
async fn a_feature_far_beyond_the_boundary_is_rejected_and_one_just_outside_is_noted() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("beyond.geojson");
    // Inside New York East's area of use, but ~60 miles from North Castle (Albany).
    std::fs::write(&f, r#"{"type":"FeatureCollection","features":[
        {"type":"Feature","properties":{"asset_id":"OF-ALBANY"},"geometry":{"type":"Point","coordinates":[-73.75,42.65]}},
        {"type":"Feature","properties":{"asset_id":"OF-NEAR"},"geometry":{"type":"Point","coordinates":[-73.70,41.13]}}]}"#).unwrap();
    let mut opts = ImportOptions::new(Layer::Outfalls, &f);
    opts.dry_run = true;
    let report = import(reg.store.clone(), opts).await.unwrap();
    let albany = report
        .rejections
        .iter()
        .find(|n| n.id.as_deref() == Some("OF-ALBANY"))
        .unwrap();
    assert!(
        albany.reason.contains("beyond the jurisdiction's boundary"),
        "{}",
        albany.reason
    );
    assert_eq!(report.imported, 1, "{report}");
}

#[test]
fn an_unknown_geojson_crs_is_refused_unless_s_srs_is_given() {
    let (dir, store) = cli_registry();
    let f = dir.path().join("unknown_crs.geojson");
    std::fs::write(&f, r#"{"type":"FeatureCollection","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::99999999"}},"features":[
        {"type":"Feature","properties":{"asset_id":"OF-1"},"geometry":{"type":"Point","coordinates":[690000,850000]}}]}"#).unwrap();
    let p = f.to_str().unwrap();
    let err = run_err(&store, &["import", "outfalls", p]);
    assert!(
        err.contains("unknown_crs.geojson")
            && err.contains("EPSG::99999999")
            && err.contains("--s-srs"),
        "{err}"
    );
    let out = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            p,
            "--s-srs",
            "EPSG:2260",
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["imported"], 1, "{out}");
    assert!(r["warnings"].to_string().contains("99999999"), "{out}");
}

#[tokio::test]
async fn a_null_geometry_is_fine_where_optional_and_missing_where_required() {
    let reg = registry("sqlite", 2260).await;
    let dir = tempfile::tempdir().unwrap();
    let body = |id_field: &str| {
        format!(
            r#"{{"type":"FeatureCollection","features":[
            {{"type":"Feature","properties":{{"{id_field}":"X-1","connection_id":"C-1","parcel_id":"P-1"}},"geometry":null}},
            {{"type":"Feature","properties":{{"{id_field}":"X-2","connection_id":"C-2","parcel_id":"P-2"}},"geometry":{{"type":"Point","coordinates":[-73.853,41.22]}}}}]}}"#
        )
    };
    let rec = dir.path().join("records.geojson");
    std::fs::write(&rec, body("record_id")).unwrap();
    let r = import(
        reg.store.clone(),
        ImportOptions::new(Layer::ConnectionRecords, &rec),
    )
    .await
    .unwrap();
    assert_eq!((r.imported, r.rejected), (2, 0), "{r}");
    let mh = dir.path().join("manholes.geojson");
    std::fs::write(&mh, body("asset_id")).unwrap();
    let r = import(reg.store.clone(), ImportOptions::new(Layer::Manholes, &mh))
        .await
        .unwrap();
    assert_eq!(
        (r.problems.missing_geometry, r.problems.invalid_geometry),
        (1, 0),
        "{r}"
    );
    assert_eq!(r.rejections[0].reason, "no geometry");
}

#[test]
fn a_lossy_shapefile_export_fails_and_keeps_the_old_file_unless_allow_lossy() {
    let (dir, store) = cli_registry();
    let long = "x".repeat(10_000);
    let f = dir.path().join("notes.geojson");
    std::fs::write(&f, format!(r#"{{"type":"FeatureCollection","features":[
        {{"type":"Feature","properties":{{"asset_id":"OF-1","remarks":"{long}"}},"geometry":{{"type":"Point","coordinates":[-73.853,41.22]}}}}]}}"#)).unwrap();
    run_ok(&store, &["import", "outfalls", f.to_str().unwrap()]);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    let shp = out.join("outfalls.shp");
    std::fs::write(&shp, b"the old export").unwrap();
    let err = run_err(&store, &["export", "outfalls", shp.to_str().unwrap()]);
    assert!(
        err.contains("outfalls.shp")
            && err.contains("feature OF-1 field remarks: 10000 bytes")
            && err.contains("--allow-lossy"),
        "{err}"
    );
    let left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        left,
        vec!["outfalls.shp".to_string()],
        "no partial or temporary file"
    );
    assert_eq!(std::fs::read(&shp).unwrap(), b"the old export");

    let ok = run(
        &store,
        &["export", "outfalls", shp.to_str().unwrap(), "--allow-lossy"],
    );
    assert!(ok.status.success());
    assert!(String::from_utf8_lossy(&ok.stderr).contains("remarks"));
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(
        left,
        [
            "outfalls.cpg",
            "outfalls.dbf",
            "outfalls.prj",
            "outfalls.shp",
            "outfalls.shx"
        ]
    );
    let info = Command::new("ogrinfo")
        .args(["-ro", "-q", "-al"])
        .arg(&shp)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&info.stdout).contains("OF-1"));
}
