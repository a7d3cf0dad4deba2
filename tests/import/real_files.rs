//! Real public files: reprojection against ogr2ogr, invalid polygons, cut field names,
//! encodings and projection files.

use super::*;

#[tokio::test]
async fn tacoma_discharge_points_land_where_ogr2ogr_puts_them_in_state_plane_and_utm() {
    // 0.01 US ft (3 mm) in the registry's own unit.
    for (srid, tol) in [(2927, 0.01), (32610, 0.003)] {
        let want = ogr2ogr_positions(&fixture(TACOMA_POINTS), "ALTID", srid, None);
        assert_eq!(want.len(), 959);
        for kind in kinds() {
            let reg = registry(kind, srid).await;
            let mut opts = ImportOptions::new(Layer::Outfalls, fixture(TACOMA_POINTS));
            opts.maps = vec![("asset_id".into(), "ALTID".into())];
            let report = import(reg.store.clone(), opts).await.unwrap();
            assert_eq!(
                (report.read, report.imported, report.rejected),
                (959, 959, 0),
                "{kind} {srid}"
            );
            assert!(
                report
                    .source_crs
                    .as_deref()
                    .unwrap()
                    .starts_with("EPSG:2927"),
                "{:?}",
                report.source_crs
            );
            let got = reg.store.features(Layer::Outfalls).await.unwrap();
            assert_eq!(got.len(), 959);
            let mut worst: f64 = 0.0;
            for f in &got {
                let (x, y) = point(&f.geom);
                let (wx, wy) = want[&f.id];
                worst = worst.max((x - wx).abs()).max((y - wy).abs());
            }
            assert!(
                worst <= tol,
                "{kind} EPSG:{srid}: worst difference {worst} > {tol}"
            );
            // The city's own attributes ride along as extras.
            let f = got.iter().find(|f| f.id == "SWDP-100586").unwrap();
            assert_eq!(f.extra["SUBBASIN"], "NE_04");
        }
    }
}

/// The ids of the polygons GEOS finds invalid once the file is in `srid`, computed with
/// GDAL's own tools (ogr2ogr, then ogrinfo's SQLite dialect).
fn invalid_ids_per_gdal(path: &std::path::Path, srid: i32) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let gpkg = dir.path().join("check.gpkg");
    let ok = Command::new("ogr2ogr")
        .args(["-f", "GPKG"])
        .arg(&gpkg)
        .arg(path)
        .args(["-t_srs", &format!("EPSG:{srid}"), "-nln", "p"])
        .status()
        .unwrap();
    assert!(ok.success());
    let out = Command::new("ogrinfo")
        .args([
            "-q",
            "-dialect",
            "sqlite",
            "-sql",
            "SELECT id FROM p WHERE NOT ST_IsValid(geom)",
        ])
        .arg(&gpkg)
        .output()
        .unwrap();
    let mut ids: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("id (String) = ").map(str::to_string))
        .collect();
    ids.sort_by_key(|s| s.parse::<u32>().unwrap());
    ids
}

#[tokio::test]
async fn cambridge_invalid_parcels_are_named_by_id_and_repaired_or_rejected() {
    // 24 parcels are invalid as published (WGS 84); projected into Massachusetts State
    // Plane, three of them (734, 12834, 13143) become valid. The registry judges the
    // geometry it stores, so the reference is GDAL's verdict in the registry's CRS.
    let path = fixture("cambridge/ASSESSING_ParcelsFY2013_subset.geojson");
    let invalid = invalid_ids_per_gdal(&path, 2249);
    assert_eq!(invalid.len(), 21, "{invalid:?}");
    // land_use is required and read from FCODE, which 13 parcels do not have (one of them,
    // 11293, invalid too): each is rejected as missing it, never imported with a land use
    // of 0 that the file does not say. The reference is the file's own JSON.
    let no_fcode: Vec<String> = {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut ids: Vec<String> = v["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["properties"]["FCODE"].is_null())
            .map(|f| f["properties"]["id"].as_str().unwrap().to_string())
            .collect();
        ids.sort_by_key(|s| s.parse::<u32>().unwrap());
        ids
    };
    assert_eq!(no_fcode.len(), 13, "{no_fcode:?}");
    let expected: Vec<String> = invalid
        .iter()
        .filter(|i| !no_fcode.contains(i))
        .cloned()
        .collect();
    assert_eq!(expected.len(), 20, "{expected:?}");
    let reg = registry("sqlite", 2249).await;
    let mut opts = ImportOptions::new(Layer::Parcels, &path);
    opts.maps = vec![
        ("parcel_id".into(), "id".into()),
        ("land_use".into(), "FCODE".into()),
    ];
    opts.dry_run = true;
    let repaired = import(reg.store.clone(), opts.clone()).await.unwrap();
    let mut named: Vec<String> = repaired
        .repaired
        .iter()
        .map(|n| n.id.clone().unwrap())
        .collect();
    named.sort_by_key(|s| s.parse::<u32>().unwrap());
    assert_eq!(
        named, expected,
        "the repaired parcels are exactly the invalid ones"
    );
    assert!(
        repaired
            .repaired
            .iter()
            .all(|n| n.reason.contains("self-intersection")),
        "{:?}",
        repaired.repaired
    );
    assert_eq!(repaired.imported, 382 - 13);
    assert_eq!(repaired.problems.missing_required, 13, "{repaired}");
    let mut missing: Vec<String> = repaired
        .rejections
        .iter()
        .map(|n| n.id.clone().unwrap())
        .collect();
    missing.sort_by_key(|s| s.parse::<u32>().unwrap());
    assert_eq!(
        missing, no_fcode,
        "the rejected are exactly those without FCODE"
    );
    assert_eq!(
        reg.store.count(Layer::Parcels).await.unwrap(),
        0,
        "a dry run writes nothing"
    );

    opts.invalid = ms4::import::InvalidPolicy::Reject;
    opts.dry_run = false;
    let rejected = import(reg.store.clone(), opts).await.unwrap();
    assert_eq!(rejected.problems.invalid_geometry, 20);
    assert_eq!(rejected.problems.missing_required, 13);
    let mut ids: Vec<String> = rejected
        .rejections
        .iter()
        .filter(|n| n.reason.starts_with("invalid geometry:"))
        .map(|n| n.id.clone().unwrap())
        .collect();
    ids.sort_by_key(|s| s.parse::<u32>().unwrap());
    assert_eq!(ids, expected);
    assert_eq!(rejected.rejections.len(), 20 + 13);
    assert_eq!(
        reg.store.count(Layer::Parcels).await.unwrap(),
        382 - 21 - 13 + 1
    );
    use geo::Validation;
    for f in reg.store.features(Layer::Parcels).await.unwrap() {
        assert!(f.geom.as_ref().unwrap().is_valid(), "{}", f.id);
    }
}

#[test]
fn shapefile_with_cut_field_names_imports_with_map_and_reports_unknown_names() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &store,
        &["init", "--jurisdiction", "windsor-ct", "--crs", "EPSG:2927"],
    );
    let shp = fixture("shapefiles/tacoma_dp_truncated/tacoma_dp_ne.shp");
    let shp = shp.to_str().unwrap();
    // The long name does not exist any more; the error lists what does.
    let out = run(
        &store,
        &[
            "import",
            "outfalls",
            shp,
            "--map",
            "asset_id=ALTID",
            "--map",
            "status=DISCHRGTYPE",
        ],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("DISCHRGTYPE") && err.contains("DISCHRGTYP,"),
        "{err}"
    );
    assert!(
        err.contains("tacoma_dp_ne"),
        "the message names the file: {err}"
    );

    let json = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            shp,
            "--map",
            "asset_id=ALTID",
            "--map",
            "status=DISCHRGTYP",
            "--map",
            "diameter_in=DIAMETER",
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["imported"], 98);
    assert_eq!(report["field_map"]["status"], "DISCHRGTYP");
    let extras: Vec<&str> = report["extra_fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        extras.contains(&"DECOMMIS_1") && extras.contains(&"DISCHARG_1"),
        "{extras:?}"
    );
}

#[tokio::test]
async fn latin1_dbf_without_cpg_reads_accented_names() {
    let reg = registry("sqlite", 31985).await; // SIRGAS 2000 / UTM 25S, where Olinda is
    let mut opts = ImportOptions::new(
        Layer::Parcels,
        fixture("shapefiles/olinda1_latin1/olinda1.shp"),
    );
    opts.maps = vec![
        ("parcel_id".into(), "CD_GEOCODI".into()),
        ("land_use".into(), "TIPO".into()),
    ];
    let report = import(reg.store.clone(), opts).await.unwrap();
    assert_eq!(report.imported, 470, "{report}");
    let parcels = reg.store.features(Layer::Parcels).await.unwrap();
    let names: Vec<&str> = parcels
        .iter()
        .filter_map(|f| f.extra.get("NM_BAIR")?.as_str())
        .collect();
    assert!(names.contains(&"Alto da Nação"), "decoded as Latin-1");
    assert!(
        names.iter().all(|n| !n.contains('\u{fffd}')),
        "no replacement characters"
    );
}

#[tokio::test]
async fn esri_prj_without_epsg_code_reprojects_like_ogr2ogr() {
    let path = fixture("shapefiles/streets_esri_prj/streets.shp");
    let srid = 26949; // NAD83 / Arizona Central (metres)
    let reg = registry("sqlite", srid).await;
    let mut opts = ImportOptions::new(Layer::Pipes, &path);
    opts.maps = vec![("asset_id".into(), "ID".into())];
    let report = import(reg.store.clone(), opts).await.unwrap();
    assert_eq!(report.imported, 293, "{report}");
    assert!(
        report.source_crs.as_deref().unwrap().contains("Arizona"),
        "{:?}",
        report.source_crs
    );
    // ogr2ogr's AS_XY gives no line positions; compare the stored first vertex with a
    // point-by-point transform of the source's first vertex instead.
    let first = Command::new("ogr2ogr")
        .args([
            "-f",
            "CSV",
            "/vsistdout/",
            "-t_srs",
            &format!("EPSG:{srid}"),
            "-lco",
            "GEOMETRY=AS_WKT",
            "-select",
            "ID",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8(first.stdout).unwrap();
    let mut checked = 0;
    let stored: HashMap<String, Geometry<f64>> = reg
        .store
        .features(Layer::Pipes)
        .await
        .unwrap()
        .into_iter()
        .map(|f| (f.id, f.geom.unwrap()))
        .collect();
    for line in text.lines().skip(1) {
        // "MULTILINESTRING ((x y,...))",ID  or  "LINESTRING (x y,...)",ID
        let (wkt, id) = line.rsplit_once(',').unwrap();
        let nums: Vec<f64> = wkt
            .trim_matches('"')
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == 'e'))
            .filter_map(|s| s.parse().ok())
            .collect();
        let id = id
            .trim_matches('"')
            .parse::<f64>()
            .map(|v| format!("{}", v as i64))
            .unwrap();
        use geo::CoordsIter;
        let c = stored[&id].coords_iter().next().unwrap();
        assert!(
            (c.x - nums[0]).abs() < 0.003 && (c.y - nums[1]).abs() < 0.003,
            "{id}: {c:?} vs {nums:?}"
        );
        checked += 1;
    }
    assert_eq!(checked, 293);
}

#[test]
fn empty_prj_is_refused_without_s_srs_and_imports_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &store,
        &["init", "--jurisdiction", "carmel-ny", "--crs", "EPSG:6372"],
    );
    let shp = fixture("shapefiles/mexicojoin_empty_prj/mexicojoin.shp");
    let shp = shp.to_str().unwrap();
    let out = run(
        &store,
        &["import", "watersheds", shp, "--map", "watershed_id=POLY_ID"],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no CRS") && err.contains("--s-srs") && err.contains("mexicojoin"),
        "{err}"
    );
    assert!(run_ok(
        &store,
        &[
            "export",
            "watersheds",
            dir.path().join("w.geojson").to_str().unwrap()
        ]
    )
    .contains("exported 0"));

    let out = run_ok(
        &store,
        &[
            "import",
            "watersheds",
            shp,
            "--map",
            "watershed_id=POLY_ID",
            "--s-srs",
            "EPSG:4326",
        ],
    );
    assert!(out.contains("imported   32"), "{out}");
}
