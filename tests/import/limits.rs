//! Limits on what one file may ask of the importer: a value's length, the CSV header
//! line, the work of repairing a polygon, files that are not regular files, an upload's
//! file name; and errors that say what is wrong instead of GDAL's words.

use super::*;

#[test]
fn a_value_longer_than_the_limit_rejects_the_feature_naming_the_field() {
    let (dir, store) = cli_registry();
    let huge = "n".repeat(ms4::import::MAX_VALUE_BYTES + 1);
    let f = dir.path().join("long.geojson");
    std::fs::write(&f, format!(r#"{{"type":"FeatureCollection","features":[
        {{"type":"Feature","properties":{{"asset_id":"OF-1","notes":"{huge}"}},"geometry":{{"type":"Point","coordinates":[-73.853,41.22]}}}},
        {{"type":"Feature","properties":{{"asset_id":"OF-2","notes":"short"}},"geometry":{{"type":"Point","coordinates":[-73.853,41.22]}}}}]}}"#)).unwrap();
    let json = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            f.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["imported"], 1);
    assert_eq!(r["rejections"][0]["id"], "OF-1");
    assert_eq!(r["rejections"][0]["field"], "notes");
    assert!(
        r["rejections"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("65537 bytes"),
        "{json}"
    );
}

#[test]
fn a_csv_without_a_header_line_is_refused_without_reading_it_whole() {
    let (dir, store) = cli_registry();
    let f = dir.path().join("one_line.csv");
    std::fs::write(&f, "a,".repeat(200_000)).unwrap();
    let err = run_err(&store, &["import", "impairments", f.to_str().unwrap()]);
    assert!(
        err.contains("one_line.csv") && err.contains("header line"),
        "{err}"
    );
}

#[test]
fn a_fifo_is_refused_at_once() {
    let (dir, store) = cli_registry();
    let fifo = dir.path().join("pipe.geojson");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    let started = std::time::Instant::now();
    let err = run_err(&store, &["import", "outfalls", fifo.to_str().unwrap()]);
    assert!(
        err.contains("pipe.geojson") && err.contains("not a regular file"),
        "{err}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn an_invalid_polygon_too_large_to_repair_is_rejected_with_a_reason() {
    let (dir, store) = cli_registry();
    // 5,000 overlapping squares as one multipolygon: GEOS's MakeValid would take minutes.
    let mut parts = Vec::new();
    for i in 0..5000 {
        let (x, y) = (
            -73.86 + (i % 100) as f64 * 1e-5,
            41.21 + (i / 100) as f64 * 1e-5,
        );
        let d = 5e-5;
        parts.push(format!(
            "[[[{x},{y}],[{},{y}],[{},{}],[{x},{}],[{x},{y}]]]",
            x + d,
            x + d,
            y + d,
            y + d
        ));
    }
    let f = dir.path().join("squares.geojson");
    std::fs::write(&f, format!(r#"{{"type":"FeatureCollection","features":[{{"type":"Feature","properties":{{"parcel_id":"P-1","land_use":"residential"}},"geometry":{{"type":"MultiPolygon","coordinates":[{}]}}}}]}}"#, parts.join(","))).unwrap();
    let started = std::time::Instant::now();
    let json = run_ok(
        &store,
        &["import", "parcels", f.to_str().unwrap(), "--format", "json"],
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(60),
        "{:?}",
        started.elapsed()
    );
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["rejected"], 1, "{json}");
    let reason = r["rejections"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("too large to repair"), "{reason}");
}

#[tokio::test]
async fn an_upload_with_a_300_character_name_is_a_400() {
    let (_dir, store) = cli_registry();
    let t = token(&store, "analyst", "analyst", &[]);
    let server = App::new(&ms4::store::open(&store).await.unwrap()).await;
    let name = format!("{}.geojson", "n".repeat(300));
    let (s, body) = upload(
        &server,
        &t,
        "outfalls",
        &name,
        north_castle_points(&["OF-1"]).into_bytes(),
        &[],
    )
    .await;
    assert_eq!(s, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("file name"),
        "{body}"
    );
    // A long name within the limit is fine.
    let name = format!("{}.geojson", "n".repeat(200));
    let (s, body) = upload(
        &server,
        &t,
        "outfalls",
        &name,
        north_castle_points(&["OF-1"]).into_bytes(),
        &[],
    )
    .await;
    assert_eq!(s, 201, "{body}");
}

#[test]
fn errors_say_what_is_wrong_in_plain_words() {
    let (dir, store) = cli_registry();
    let write = |name: &str, body: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, body).unwrap();
        p.to_str().unwrap().to_string()
    };
    // Not a format at all.
    let junk = write("junk.geojson", "this is not GIS data");
    let err = run_err(&store, &["import", "outfalls", &junk]);
    assert!(
        err.contains("junk.geojson") && err.contains("not a file ms4 reads"),
        "{err}"
    );
    assert!(
        !err.contains("NULL pointer") && !err.contains("GDALOpenEx"),
        "{err}"
    );
    // A table with no fields at all.
    let bare = write(
        "bare.geojson",
        r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-73.853,41.22]}}]}"#,
    );
    let err = run_err(&store, &["import", "outfalls", &bare]);
    assert!(
        err.contains("no attribute fields") && !err.contains("fields are: ."),
        "{err}"
    );
    // A CSV row without a y.
    let csv = write(
        "rows.csv",
        "asset_id,lon,lat\nOF-1,-73.853,41.22\nOF-2,-73.853,\n",
    );
    let json = run_ok(&store, &["import", "outfalls", &csv, "--format", "json"]);
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    let reason = r["rejections"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("row 2 has no position"), "{json}");
    // No features.
    let empty = write(
        "nothing.geojson",
        r#"{"type":"FeatureCollection","features":[]}"#,
    );
    let out = run_ok(&store, &["import", "outfalls", &empty]);
    assert!(out.contains("the file has no features"), "{out}");
}

/// A zip whose one member is `mb` megabytes of deflated zeros (a few kilobytes on disk),
/// beside a few small members; made with Python's zipfile, as analysts' tools make them.
fn zip_of_zeros(zip: &std::path::Path, mb: usize, small: usize) {
    let st = Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED)\nz.writestr('parcels.shp', bytes(int(sys.argv[2]) << 20))\nfor i in range(int(sys.argv[3])): z.writestr(f'note{i}.txt', 'x')\nz.close()",
        ])
        .arg(zip)
        .arg(mb.to_string())
        .arg(small.to_string())
        .status()
        .unwrap();
    assert!(st.success(), "python3 zipfile");
}

#[test]
fn a_zip_that_unpacks_past_the_limit_is_refused_before_gdal_opens_it() {
    let (dir, store) = cli_registry();
    let bomb = dir.path().join("bomb.zip");
    zip_of_zeros(&bomb, 64, 2);
    let on_disk = std::fs::metadata(&bomb).unwrap().len();
    assert!(
        on_disk < 1 << 20,
        "the zip itself is small: {on_disk} bytes"
    );
    let b = bomb.to_str().unwrap();
    // The import's error under a lowered limit; it must fail.
    let refused = |var: &str, value: &str| {
        let out = ms4()
            .env(var, value)
            .args(["--store", &store, "import", "parcels", b])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!out.status.success(), "{err}");
        err
    };
    // 64 MB unpacked against a limit of 10 MB.
    let err = refused("MS4_MAX_ZIP_BYTES", "10000000");
    assert!(
        err.contains("bomb.zip") && err.contains("unpacks to more than 10000000 bytes"),
        "{err}"
    );
    // Three members against a limit of two.
    let err = refused("MS4_MAX_ZIP_MEMBERS", "2");
    assert!(
        err.contains("bomb.zip") && err.contains("holds 3 files, more than the 2"),
        "{err}"
    );
    // Under the default limits the same zip gets as far as GDAL, which finds no
    // shapefile in zeros: a different error, so the limit was what stopped it above.
    let err = run_err(&store, &["import", "parcels", b]);
    assert!(!err.contains("unpacks to more than"), "{err}");
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn an_upload_of_a_zip_that_unpacks_past_the_limit_is_a_413_naming_the_file(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let t = token(&reg.url, "analyst", "Analyst", &[]);
    // A served process: the limit is an environment variable of the process, which a
    // test in this one would set for every test (and every command they run) beside it.
    let server = serve_with_env(&reg.url, &[], &[("MS4_MAX_ZIP_BYTES", "10000000")]);
    let dir = tempfile::tempdir().unwrap();
    let bomb = dir.path().join("parcels-bomb.zip");
    zip_of_zeros(&bomb, 64, 0);
    let before = reg.store.count(Layer::Parcels).await.unwrap();
    let (s, body) = upload_http(
        &server,
        &t,
        "parcels",
        "parcels-bomb.zip",
        std::fs::read(&bomb).unwrap(),
        &[],
    )
    .await;
    assert_eq!(s, 413, "{kind}: {body}");
    let msg = body["error"].as_str().unwrap();
    assert!(
        msg.contains("parcels-bomb.zip") && msg.contains("unpacks to more than 10000000 bytes"),
        "{kind}: {msg}"
    );
    assert_eq!(
        reg.store.count(Layer::Parcels).await.unwrap(),
        before,
        "{kind}"
    );
}
