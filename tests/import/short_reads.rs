//! A shapefile that holds less than it declares: a `.dbf` cut short (GDAL reads it
//! halfway and prints `fread(...) failed on DBF file`), a `.dbf` header whose record
//! count is wrong, a `.shp` cut short. Each import fails naming the file and what is
//! wrong, and `--replace` deletes nothing.

use super::*;

const SHP: &str = "shapefiles/tacoma_dp_truncated";

/// The 98-point Tacoma shapefile copied into `dir`, with its `.dbf` changed by `f`.
fn damaged(
    dir: &std::path::Path,
    ext: &str,
    f: impl FnOnce(Vec<u8>) -> Vec<u8>,
) -> std::path::PathBuf {
    let folder = copy_fixture(SHP, dir);
    let file = folder.join(format!("tacoma_dp_ne.{ext}"));
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, f(bytes)).unwrap();
    folder.join("tacoma_dp_ne.shp")
}

fn dbf_layout(dbf: &[u8]) -> (usize, usize) {
    let header = u16::from_le_bytes([dbf[8], dbf[9]]) as usize;
    let record = u16::from_le_bytes([dbf[10], dbf[11]]) as usize;
    (header, record)
}

/// A registry holding the whole shapefile (98 outfalls), and its store URL.
fn loaded() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &store,
        &["init", "--jurisdiction", "windsor-ct", "--crs", "EPSG:2927"],
    );
    let shp = fixture(&format!("{SHP}/tacoma_dp_ne.shp"));
    let out = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            shp.to_str().unwrap(),
            "--map",
            "asset_id=ALTID",
        ],
    );
    assert!(out.contains("imported   98"), "{out}");
    (dir, store)
}

fn outfall_count(store: &str) -> usize {
    let json = run_ok(
        store,
        &[
            "export",
            "outfalls",
            &format!("{}.geojson", store.trim_start_matches("sqlite://")),
        ],
    );
    json.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn a_dbf_cut_short_fails_the_import_and_replace_deletes_nothing() {
    let (dir, store) = loaded();
    let shp = damaged(dir.path(), "dbf", |d| {
        let (h, r) = dbf_layout(&d);
        d[..h + 50 * r + 100].to_vec()
    });
    // GDAL itself reads such a file halfway without failing: the control.
    let ogr = Command::new("ogrinfo")
        .args(["-ro", "-q", "-al"])
        .arg(&shp)
        .output()
        .unwrap();
    let features = String::from_utf8_lossy(&ogr.stdout)
        .matches("OGRFeature")
        .count();
    assert_eq!(features, 50, "GDAL stops halfway");
    for extra in [
        &["--replace", "--allow-mass-delete"][..],
        &[][..],
        &["--dry-run"][..],
    ] {
        let mut args = vec![
            "import",
            "outfalls",
            shp.to_str().unwrap(),
            "--map",
            "asset_id=ALTID",
        ];
        args.extend_from_slice(extra);
        let err = run_err(&store, &args);
        assert!(
            err.contains("tacoma_dp_ne.shp") && err.contains(".dbf") && err.contains("cut short"),
            "{extra:?}: {err}"
        );
        assert!(err.contains("50 whole records"), "{err}");
    }
    assert_eq!(outfall_count(&store), 98, "nothing was deleted");
}

#[test]
fn a_dbf_header_with_the_wrong_count_fails_the_import() {
    let (dir, store) = loaded();
    let shp = damaged(dir.path(), "dbf", |mut d| {
        d[4..8].copy_from_slice(&60u32.to_le_bytes());
        d
    });
    let err = run_err(
        &store,
        &[
            "import",
            "outfalls",
            shp.to_str().unwrap(),
            "--map",
            "asset_id=ALTID",
            "--replace",
            "--allow-mass-delete",
        ],
    );
    assert!(
        err.contains("the .dbf declares 60 records and the .shx 98"),
        "{err}"
    );
    assert_eq!(outfall_count(&store), 98);
}

#[test]
fn a_shp_cut_short_fails_the_import() {
    let (dir, store) = loaded();
    let shp = damaged(dir.path(), "shp", |d| d[..d.len() - 200].to_vec());
    let err = run_err(
        &store,
        &[
            "import",
            "outfalls",
            shp.to_str().unwrap(),
            "--map",
            "asset_id=ALTID",
            "--replace",
        ],
    );
    assert!(
        err.contains(".shp is shorter than its header says"),
        "{err}"
    );
    assert_eq!(outfall_count(&store), 98);
}

#[test]
fn a_missing_shx_is_named() {
    let (dir, store) = loaded();
    let folder = copy_fixture(SHP, dir.path());
    std::fs::remove_file(folder.join("tacoma_dp_ne.shx")).unwrap();
    let err = run_err(
        &store,
        &[
            "import",
            "outfalls",
            folder.join("tacoma_dp_ne.shp").to_str().unwrap(),
        ],
    );
    assert!(err.contains("the .shx") && err.contains("missing"), "{err}");
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_zipped_shapefile_cut_short_is_a_422_and_replace_deletes_nothing(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2927).await;
    let mut opts = ImportOptions::new(Layer::Outfalls, fixture(&format!("{SHP}/tacoma_dp_ne.shp")));
    opts.maps = vec![("asset_id".into(), "ALTID".into())];
    import(reg.store.clone(), opts).await.unwrap();
    let before = reg.store.features(Layer::Outfalls).await.unwrap();
    let t = token(&reg.url, "analyst", "analyst", &[]);
    let server = App::new(&reg.store).await;

    let dir = tempfile::tempdir().unwrap();
    let shp = damaged(dir.path(), "dbf", |d| {
        let (h, r) = dbf_layout(&d);
        d[..h + 50 * r + 100].to_vec()
    });
    let folder = shp.parent().unwrap();
    let names = [
        "tacoma_dp_ne.shp",
        "tacoma_dp_ne.shx",
        "tacoma_dp_ne.dbf",
        "tacoma_dp_ne.prj",
    ];
    let files: Vec<(&str, Vec<u8>)> = names
        .iter()
        .map(|n| (*n, std::fs::read(folder.join(n)).unwrap()))
        .collect();
    let entries: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let zip = dir.path().join("cut.zip");
    zip_files(&zip, &entries);
    let (s, body) = upload(
        &server,
        &t,
        "outfalls",
        "cut.zip",
        std::fs::read(&zip).unwrap(),
        &[
            ("replace", "true"),
            ("allow_mass_delete", "true"),
            ("map", "asset_id=ALTID"),
        ],
    )
    .await;
    assert_eq!(s, 422, "{kind}: {body}");
    let e = body["error"].as_str().unwrap();
    assert!(e.contains("cut.zip") || e.contains("tacoma_dp_ne"), "{e}");
    assert!(e.contains("cut short"), "{e}");
    assert_eq!(
        reg.store.features(Layer::Outfalls).await.unwrap(),
        before,
        "{kind}"
    );
}
