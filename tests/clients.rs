//! Real OGC API – Features clients against the real server: GDAL's OAPIF driver (what QGIS
//! and ogr2ogr use) and OWSLib (what Python scripts use), on both stores, checked against
//! the source fixture reprojected by GDAL on its own.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;

const OUTFALLS: &str = "tacoma/ActiveSurfacewaterDischargePoint.geojson";
const CORE: &str = "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core";
const GEOJSON: &str = "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson";
const PART2_CRS: &str = "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs";
const EPSG_2927: &str = "http://www.opengis.net/def/crs/EPSG/0/2927";

/// The real server, and the read token its clients send (reads need one unless the
/// server runs with --public-read; a client with a token is the realistic case).
struct Served {
    server: Server,
    token: String,
}

fn start(store: &str) -> Served {
    Served {
        token: token(store, "inspector", "clients-test", &[]),
        server: serve(store, &[]),
    }
}

async fn registry_with_outfalls(kind: &str) -> Registry {
    let reg = registry(kind, 2927).await;
    run_ok(
        &reg.url,
        &[
            "import",
            "outfalls",
            fixture(OUTFALLS).to_str().unwrap(),
            "--map",
            "asset_id=ALTID",
        ],
    );
    reg
}

/// The fixture's outfalls by id: (x, y) as stored in EPSG:2927 and (lon, lat) as GDAL
/// reprojects them to CRS84 on its own.
struct Expected {
    native: BTreeMap<String, [f64; 2]>,
    lonlat: BTreeMap<String, [f64; 2]>,
}

fn points_by_id(geojson: &Path, id_field: &str) -> BTreeMap<String, [f64; 2]> {
    let fc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(geojson).unwrap()).unwrap();
    fc["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let c = &f["geometry"]["coordinates"];
            (
                f["properties"][id_field].as_str().unwrap().to_string(),
                [c[0].as_f64().unwrap(), c[1].as_f64().unwrap()],
            )
        })
        .collect()
}

fn expected(tmp: &Path) -> Expected {
    let out = tmp.join("expected-crs84.geojson");
    let st = Command::new("ogr2ogr")
        .args(["-f", "GeoJSON", "-t_srs", "OGC:CRS84"])
        .arg(&out)
        .arg(fixture(OUTFALLS))
        .status()
        .expect("ogr2ogr runs");
    assert!(st.success());
    let e = Expected {
        native: points_by_id(&fixture(OUTFALLS), "ALTID"),
        lonlat: points_by_id(&out, "ALTID"),
    };
    assert_eq!(e.native.len(), 959);
    assert_eq!(e.lonlat.len(), 959);
    e
}

/// A bbox around the middle of the points whose every edge falls halfway between two
/// neighbouring coordinates, so no point sits on an edge and rounding cannot move one
/// across it.
fn middle_bbox(points: &BTreeMap<String, [f64; 2]>) -> [f64; 4] {
    let edge = |axis: usize, q: f64| {
        let mut v: Vec<f64> = points.values().map(|p| p[axis]).collect();
        v.sort_by(f64::total_cmp);
        let i = (v.len() as f64 * q) as usize;
        let (a, b) = (v[i], v[i + 1]);
        assert!(b > a, "two points share a coordinate at the bbox edge");
        (a + b) / 2.0
    };
    [edge(0, 0.3), edge(1, 0.25), edge(0, 0.7), edge(1, 0.75)]
}

fn inside(p: &[f64; 2], b: &[f64; 4]) -> bool {
    p[0] >= b[0] && p[0] <= b[2] && p[1] >= b[1] && p[1] <= b[3]
}

/// GDAL's HTTP client sends the token from a header file (GDAL_HTTP_HEADER_FILE), so it
/// never appears on a command line.
fn gdal_command(tool: &str, served: &Served, tmp: &Path) -> Command {
    let mut c = Command::new(tool);
    let f = tmp.join("gdal-headers.txt");
    std::fs::write(&f, format!("Authorization: Bearer {}\n", served.token)).unwrap();
    c.env("GDAL_HTTP_HEADER_FILE", f);
    c
}

fn output_ok(mut c: Command) -> String {
    let out = c.output().expect("runs");
    assert!(
        out.status.success(),
        "{c:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn assert_close(what: &str, got: [f64; 2], want: [f64; 2], tol: f64) {
    assert!(
        (got[0] - want[0]).abs() <= tol && (got[1] - want[1]).abs() <= tol,
        "{what}: got {got:?}, expected {want:?} (tolerance {tol})"
    );
}

#[tokio::test]
async fn gdal_ogc_api_driver_lists_the_collections_and_reads_every_outfall() {
    for kind in kinds() {
        let reg = registry_with_outfalls(kind).await;
        let tmp = tempfile::tempdir().unwrap();
        let want = expected(tmp.path());
        let served = start(&reg.url);
        let src = format!("OAPIF:{}", served.server.base);

        // The collections, as QGIS's "OGC API - Features" connection lists them.
        let mut c = gdal_command("ogrinfo", &served, tmp.path());
        c.args(["-ro", "-so", &src]);
        let listing = output_ok(c);
        for layer in [
            "parcels",
            "catch_basins",
            "manholes",
            "outfalls",
            "pipes",
            "smps",
            "watersheds",
        ] {
            assert!(
                listing.contains(&format!(": {layer} "))
                    || listing.contains(&format!(": {layer}\n")),
                "{kind}: {layer} is not among GDAL's OAPIF layers:\n{listing}"
            );
        }

        let mut c = gdal_command("ogrinfo", &served, tmp.path());
        c.args(["-ro", "-so", &src, "outfalls"]);
        let summary = output_ok(c);
        assert!(
            summary.contains("Feature Count: 959"),
            "{kind}: ogrinfo -so outfalls:\n{summary}"
        );

        // Every feature, through the driver's paging (it follows the `next` links).
        let out = tmp.path().join("oapif-outfalls.geojson");
        let mut c = gdal_command("ogr2ogr", &served, tmp.path());
        c.args(["-f", "GeoJSON"]).arg(&out).args([&src, "outfalls"]);
        output_ok(c);
        let fc: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let feats = fc["features"].as_array().unwrap();
        assert_eq!(feats.len(), 959, "{kind}: features GDAL read");
        let mut seen = BTreeMap::new();
        for f in feats {
            // GDAL keeps the OGC feature id as the `id` field (or the feature's id).
            let id = f["properties"]["id"]
                .as_str()
                .or(f["id"].as_str())
                .or(f["properties"]["asset_id"].as_str())
                .unwrap_or_else(|| panic!("{kind}: no id in {f}"))
                .to_string();
            let c = &f["geometry"]["coordinates"];
            let got = [c[0].as_f64().unwrap(), c[1].as_f64().unwrap()];
            let exp = want
                .lonlat
                .get(&id)
                .unwrap_or_else(|| panic!("{kind}: GDAL read {id}, not in the fixture"));
            assert_close(&format!("{kind}: {id}"), got, *exp, 1e-7);
            assert!(seen.insert(id.clone(), ()).is_none(), "{kind}: {id} twice");
        }
        assert_eq!(seen.len(), want.lonlat.len());
    }
}

/// The venv scripts/python.sh makes (scripts/test.sh runs it); made here when missing so
/// `cargo test` alone works too.
fn python() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let py = root.join("target/py/bin/python");
    if !py.exists() {
        let st = Command::new(root.join("scripts/python.sh"))
            .status()
            .expect("scripts/python.sh runs");
        assert!(st.success(), "scripts/python.sh failed");
    }
    py
}

/// OWSLib's answer for a bbox (the script in tests/clients/).
fn owslib_items(served: &Served, layer: &str, bbox: [f64; 4], extra: &[&str]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/owslib_items.py");
    let mut c = Command::new(python());
    c.arg(script)
        .arg(format!("{}/", served.server.base))
        .arg(layer)
        .arg(format!(
            "--bbox={}",
            bbox.map(|v| format!("{v:.12}")).join(",")
        ))
        .args(extra);
    c.env("MS4_TOKEN", &served.token);
    serde_json::from_str(&output_ok(c)).unwrap()
}

fn found_points(answer: &serde_json::Value) -> BTreeMap<String, [f64; 2]> {
    answer["features"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(id, c)| (id.clone(), [c[0].as_f64().unwrap(), c[1].as_f64().unwrap()]))
        .collect()
}

#[tokio::test]
async fn owslib_reads_the_outfalls_in_a_bbox_page_by_page() {
    for kind in kinds() {
        let reg = registry_with_outfalls(kind).await;
        let tmp = tempfile::tempdir().unwrap();
        let want = expected(tmp.path());
        let served = start(&reg.url);

        let r = reqwest::get(format!("{}/collections/outfalls/items", served.server.base))
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{kind}: items read without a token");

        // CRS84 (the default): the ids whose reprojected position lies in the bbox.
        let bbox = middle_bbox(&want.lonlat);
        let inside_ids: BTreeMap<_, _> = want
            .lonlat
            .iter()
            .filter(|(_, p)| inside(p, &bbox))
            .collect();
        assert!(inside_ids.len() > 100, "{}", inside_ids.len());
        let a = owslib_items(&served, "outfalls", bbox, &["--limit", "50"]);
        let collections: Vec<&str> = a["collections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        assert!(collections.contains(&"outfalls"), "{kind}: {collections:?}");
        let conforms = a["conformsTo"].to_string();
        for class in [CORE, GEOJSON] {
            assert!(
                conforms.contains(class),
                "{kind}: {class} not in {conforms}"
            );
        }
        let got = found_points(&a);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            inside_ids.keys().copied().collect::<Vec<_>>(),
            "{kind}: ids OWSLib read in {bbox:?}"
        );
        assert!(
            a["pages"].as_u64().unwrap() >= 3,
            "{kind}: {} features in {} pages of 50",
            got.len(),
            a["pages"]
        );
        if let Some(m) = a["numberMatched"].as_u64() {
            assert_eq!(m as usize, inside_ids.len(), "{kind}: numberMatched");
        }
        for (id, p) in &got {
            assert_close(&format!("{kind}: {id}"), *p, want.lonlat[id], 1e-7);
        }

        // Part 2: a bbox and the answer in the registry's own CRS, compared with the
        // fixture's coordinates as they are in the file.
        assert!(
            conforms.contains(PART2_CRS),
            "{kind}: the server does not declare Part 2 (crs): {conforms}"
        );
        {
            let bbox = middle_bbox(&want.native);
            let a = owslib_items(
                &served,
                "outfalls",
                bbox,
                &[
                    "--limit",
                    "1000",
                    "--crs",
                    EPSG_2927,
                    "--bbox-crs",
                    EPSG_2927,
                ],
            );
            let got = found_points(&a);
            let ids: Vec<&String> = want
                .native
                .iter()
                .filter(|(_, p)| inside(p, &bbox))
                .map(|(id, _)| id)
                .collect();
            assert_eq!(
                got.keys().collect::<Vec<_>>(),
                ids,
                "{kind}: EPSG:2927 bbox"
            );
            for (id, p) in &got {
                assert_close(
                    &format!("{kind}: {id} in EPSG:2927"),
                    *p,
                    want.native[id],
                    1e-3,
                );
            }
        }
    }
}
