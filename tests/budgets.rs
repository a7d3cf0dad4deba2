//! What one request may cost the server. A footprint is counted before any geometry work
//! and refused by name when too large; a GeoPackage made elsewhere may hold only plain
//! tables (no view, no trigger of its own), whichever door it comes through; a read on a
//! blocking thread stops at its deadline, when its request is dropped and when the
//! server stops; and SIGTERM ends the server within seconds, whatever it is doing.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{header, Request};
use common::*;
use geo_types::{Coord, LineString, MultiPolygon, Polygon};
use ms4::domain::Layer;
use ms4::http::{app, AppState, ServeConfig};
use ms4::import::cancel::{Cancel, Stop};
use ms4::import::crs::Reprojector;
use ms4::import::{import, ImportError, ImportOptions};
use ms4::spatial::size::FOOTPRINT;
use ms4::spatial::SnapshotHandle;
use serde_json::{json, Value};
use tower::ServiceExt;

/// The middle of the demo town, in EPSG:2260 (US feet).
const MIDDLE: (f64, f64) = (670_000.0, 870_000.0);

// ---------------------------------------------------------------- the town in process

/// The demo town served in process, reads open to anyone (as `--public-read`), with an
/// analyst's token for uploads.
struct Town {
    state: AppState,
    analyst: String,
    reg: Registry,
}

async fn town() -> Town {
    let reg = demo_registry("sqlite", "carmel-ny").await;
    let analyst = token(&reg.url, "analyst", "Ann Alyst", &[]);
    let snapshot = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    let config = ServeConfig {
        public_read: true,
        ..ServeConfig::default()
    };
    let state = AppState::with_config(reg.store.clone(), snapshot, profile, config);
    Town {
        state,
        analyst,
        reg,
    }
}

impl Town {
    async fn call(&self, req: Request<Body>) -> (u16, Value) {
        let res = app(self.state.clone()).oneshot(req).await.unwrap();
        let status = res.status().as_u16();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        let v = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, v)
    }

    fn determination(&self, footprint: &Value) -> Request<Body> {
        let body = json!({"footprint": footprint, "disturbed": "8000sqft", "single_family": true});
        Request::post("/api/determinations")
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body.to_string()))
            .unwrap()
    }

    /// `POST /api/footprint` with a file.
    fn footprint_file(&self, name: &str, bytes: Vec<u8>) -> Request<Body> {
        multipart("/api/footprint", None, name, bytes, &[])
    }

    /// `POST /api/layers/{layer}/import` with a file, as the analyst.
    fn upload(
        &self,
        layer: &str,
        name: &str,
        bytes: Vec<u8>,
        extra: &[(&str, &str)],
    ) -> Request<Body> {
        multipart(
            &format!("/api/layers/{layer}/import"),
            Some(&self.analyst),
            name,
            bytes,
            extra,
        )
    }
}

/// A multipart form with the part `file` and text parts.
fn multipart(
    uri: &str,
    token: Option<&str>,
    name: &str,
    bytes: Vec<u8>,
    extra: &[(&str, &str)],
) -> Request<Body> {
    const B: &str = "ms4-budget-boundary";
    let mut body = Vec::new();
    for (k, v) in extra {
        write!(
            body,
            "--{B}\r\ncontent-disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
        )
        .unwrap();
    }
    write!(
        body,
        "--{B}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"{name}\"\r\ncontent-type: application/octet-stream\r\n\r\n"
    )
    .unwrap();
    body.extend_from_slice(&bytes);
    write!(body, "\r\n--{B}--\r\n").unwrap();
    let mut req = Request::post(uri).header(
        header::CONTENT_TYPE,
        format!("multipart/form-data; boundary={B}"),
    );
    if let Some(t) = token {
        req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
    }
    req.body(Body::from(body)).unwrap()
}

// ---------------------------------------------------------------- footprints

/// A ring of `n` vertices (the closing one included) that crosses itself about `n / 2`
/// times: a zigzag out along a band and its mirror image back, a chain of bow-ties.
fn bow_ties(n: usize, (x0, y0): (f64, f64), width: f64, height: f64) -> Vec<Coord<f64>> {
    let m = (n - 1) / 2;
    let x = |i: usize| x0 + width * i as f64 / (m - 1) as f64;
    let mut ring: Vec<Coord<f64>> = (0..m)
        .map(|i| Coord {
            x: x(i),
            y: y0 + if i % 2 == 0 { 0.0 } else { height },
        })
        .collect();
    ring.extend((0..m).rev().map(|i| Coord {
        x: x(i),
        y: y0 + if i % 2 == 0 { height } else { 0.0 },
    }));
    ring.push(ring[0]);
    ring
}

/// A valid ring of `n` vertices (the closing one included) round a centre.
fn circle(n: usize, (cx, cy): (f64, f64), r: f64) -> Vec<Coord<f64>> {
    let mut ring: Vec<Coord<f64>> = (0..n - 1)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / (n - 1) as f64;
            Coord {
                x: cx + r * a.cos(),
                y: cy + r * a.sin(),
            }
        })
        .collect();
    ring.push(ring[0]);
    ring
}

/// A ring in EPSG:2260 as an RFC 7946 GeoJSON polygon (longitude, latitude).
fn geojson_polygon(ring: &[Coord<f64>]) -> Value {
    let rp = Reprojector::new(2260, 4326).unwrap();
    let positions: Vec<Value> = ring
        .iter()
        .map(|c| {
            let (lon, lat) = rp.point(c.x, c.y).unwrap();
            json!([lon, lat])
        })
        .collect();
    json!({"type": "Polygon", "coordinates": [positions]})
}

/// The ring as a one-polygon footprint in the registry's CRS.
fn footprint(ring: Vec<Coord<f64>>) -> MultiPolygon<f64> {
    MultiPolygon(vec![Polygon::new(LineString(ring), vec![])])
}

/// The refusal of a footprint over the budget: a 400 naming `param`, with both counts.
fn refused_as_too_large(got: &(u16, Value), param: &str, vertices: usize) {
    assert_eq!(got.0, 400, "{}", got.1);
    let e = got.1["error"].as_str().unwrap();
    assert!(e.starts_with(&format!("{param}: too large")), "{e}");
    assert!(
        e.contains(&format!("{vertices} vertices"))
            && e.contains(&format!("{} vertices", FOOTPRINT.vertices)),
        "{e}"
    );
}

#[tokio::test]
async fn a_self_intersecting_footprint_of_300000_vertices_is_refused_by_name_at_once() {
    let t = town().await;
    let ring = bow_ties(300_001, (668_500.0, 869_000.0), 3_000.0, 2_000.0);
    let req = t.determination(&geojson_polygon(&ring));
    let started = Instant::now();
    let got = t.call(req).await;
    let took = started.elapsed();
    refused_as_too_large(&got, "footprint", 300_001);
    // Parsing the JSON is all the work done: the 41 s of geometry never starts.
    assert!(took < Duration::from_secs(1), "{took:?}");
    eprintln!("300,001-vertex bow-tie footprint refused in {took:?}");
}

#[tokio::test]
async fn a_footprint_at_the_limit_is_answered_and_one_vertex_more_is_not() {
    let t = town().await;
    let at = geojson_polygon(&circle(FOOTPRINT.vertices, MIDDLE, 1_500.0));
    let started = Instant::now();
    let (s, body) = t.call(t.determination(&at)).await;
    let took = started.elapsed();
    assert_eq!(s, 200, "{body}");
    assert!(body["determination"].is_object(), "{body}");
    eprintln!(
        "{}-vertex footprint determined in {took:?}",
        FOOTPRINT.vertices
    );
    let over = geojson_polygon(&circle(FOOTPRINT.vertices + 1, MIDDLE, 1_500.0));
    refused_as_too_large(
        &t.call(t.determination(&over)).await,
        "footprint",
        FOOTPRINT.vertices + 1,
    );
}

#[tokio::test]
async fn a_self_intersecting_footprint_at_the_limit_is_answered_within_seconds() {
    let t = town().await;
    // Across watershed edges, so it is clipped against them, not just placed inside.
    let ring = bow_ties(FOOTPRINT.vertices, (668_500.0, 869_000.0), 3_000.0, 2_000.0);
    let started = Instant::now();
    let (s, body) = t.call(t.determination(&geojson_polygon(&ring))).await;
    let took = started.elapsed();
    assert_eq!(s, 200, "{body}");
    assert!(took < Duration::from_secs(10), "{took:?}");
    eprintln!(
        "{}-vertex bow-tie footprint determined in {took:?}",
        FOOTPRINT.vertices
    );
}

#[tokio::test]
async fn a_footprint_file_over_the_limit_is_refused_before_its_polygons_are_joined() {
    let t = town().await;
    // 501 overlapping squares: one part more than a footprint may have.
    let squares: Vec<String> = (0..501)
        .map(|i| {
            feature(
                "",
                &square(669_000.0 + i as f64, 869_000.0 + i as f64, 200.0),
            )
        })
        .collect();
    let got = t
        .call(t.footprint_file("squares.geojson", fc(&squares).into_bytes()))
        .await;
    assert_eq!(got.0, 400, "{}", got.1);
    let e = got.1["error"].as_str().unwrap();
    assert!(
        e.starts_with("file: too large") && e.contains("501 parts"),
        "{e}"
    );
    // And one ring of too many vertices.
    let ring = bow_ties(
        FOOTPRINT.vertices + 1,
        (668_500.0, 869_000.0),
        3_000.0,
        2_000.0,
    );
    let coords: Vec<String> = ring.iter().map(|c| format!("[{},{}]", c.x, c.y)).collect();
    let big = fc(&[feature(
        "",
        &format!(
            r#"{{"type":"Polygon","coordinates":[[{}]]}}"#,
            coords.join(",")
        ),
    )]);
    let got = t
        .call(t.footprint_file("big.geojson", big.into_bytes()))
        .await;
    refused_as_too_large(&got, "file", FOOTPRINT.vertices + 1);
    // A footprint within the limits is still read.
    let fine = fc(&[feature("", &square(669_000.0, 869_000.0, 300.0))]);
    let (s, body) = t
        .call(t.footprint_file("fine.geojson", fine.into_bytes()))
        .await;
    assert_eq!(s, 200, "{body}");
}

/// What the geometry work on a footprint costs by size, straight from the library
/// (no limit in the way): `cargo test --test budgets -- --ignored --nocapture`.
#[tokio::test]
#[ignore]
async fn measure_the_receiving_waters_of_large_footprints() {
    let reg = demo_registry("sqlite", "carmel-ny").await;
    let snap = SnapshotHandle::load(reg.store.as_ref())
        .await
        .unwrap()
        .current();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    let ask = ms4::answer::Ask::new(&snap, &profile);
    // The network is built once, outside the timings.
    let _ = ms4::answer::determine::waters_for(&ask, &footprint(circle(5, MIDDLE, 10.0)), None);
    for n in [1_001, 5_001, 10_001, 20_001, 100_001, 300_001] {
        for (what, ring) in [
            ("circle", circle(n, MIDDLE, 1_500.0)),
            (
                "bow-ties",
                bow_ties(n, (668_500.0, 869_000.0), 3_000.0, 2_000.0),
            ),
        ] {
            let fp = footprint(ring);
            let started = Instant::now();
            let w = ms4::answer::determine::waters_for(&ask, &fp, None).unwrap();
            eprintln!(
                "{n:>7} vertices, {what:<8}: {:>10.3?} ({} watersheds)",
                started.elapsed(),
                w.by_watershed.len()
            );
        }
    }
    // The union `/api/footprint` makes of a file's polygons, at the parts limit.
    for per in [5, 20] {
        let polys: Vec<Polygon<f64>> = (0..FOOTPRINT.parts)
            .map(|i| {
                let c = (669_000.0 + 3.0 * i as f64, 869_000.0 + 2.0 * i as f64);
                Polygon::new(LineString(circle(per, c, 200.0)), vec![])
            })
            .collect();
        let started = Instant::now();
        let u = geo::unary_union(&polys);
        eprintln!(
            "union of {} overlapping {per}-vertex rings: {:.3?} ({} polygons)",
            FOOTPRINT.parts,
            started.elapsed(),
            u.0.len()
        );
    }
}

// ---------------------------------------------------------------- GeoPackages from outside

/// A GeoPackage of one parcel inside the demo town, written by GDAL (with its standard
/// triggers, spatial index and feature counts), then changed by `sql` in the `sqlite3`
/// shell.
fn gpkg(dir: &Path, name: &str, sql: &str) -> PathBuf {
    let src = dir.join(format!("{name}.geojson"));
    std::fs::write(
        &src,
        fc(&[feature(
            r#""parcel_id":"P-OUT-1","land_use":"residential""#,
            &square(669_000.0, 869_000.0, 300.0),
        )]),
    )
    .unwrap();
    let out = dir.join(format!("{name}.gpkg"));
    let st = Command::new("ogr2ogr")
        .args(["-f", "GPKG"])
        .arg(&out)
        .arg(&src)
        .args(["-nln", "parcels"])
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    if !sql.is_empty() {
        let st = sqlite3(&out, sql);
        assert!(
            st.status.success(),
            "{}",
            String::from_utf8_lossy(&st.stderr)
        );
    }
    out
}

/// A view that counts to two billion before it gives its one row, listed as a layer.
const SLOW_VIEW: &str = "CREATE VIEW slow_parcels AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT p.* FROM parcels p, c WHERE c.x = 2000000000; INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('slow_parcels', 'features', 'slow_parcels', 2260); INSERT INTO gpkg_geometry_columns VALUES ('slow_parcels', 'geom', 'POLYGON', 2260, 0, 0);";

/// Each GeoPackage trick: its name, the SQL that makes it, and the object the refusal
/// must name.
const TRICKS: [(&str, &str, &str); 4] = [
    ("view", SLOW_VIEW, "a view, slow_parcels"),
    (
        "trigger",
        "CREATE TRIGGER copy_parcels AFTER INSERT ON parcels BEGIN SELECT 1; END;",
        "a trigger, copy_parcels",
    ),
    (
        "virtual",
        "CREATE VIRTUAL TABLE notes USING rtree(id, lo, hi);",
        "a virtual table, notes",
    ),
    (
        "coverage",
        "CREATE TABLE elevation (id INTEGER PRIMARY KEY); INSERT INTO gpkg_contents (table_name, data_type, identifier) VALUES ('elevation', '2d-gridded-coverage', 'elevation');",
        "elevation as \"2d-gridded-coverage\"",
    ),
];

#[test]
fn a_plain_geopackage_passes_and_each_trick_is_refused_by_the_cli_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &store,
        &["init", "--jurisdiction", "carmel-ny", "--crs", "EPSG:2260"],
    );
    let plain = gpkg(dir.path(), "plain", "");
    run_ok(
        &store,
        &["import", "parcels", plain.to_str().unwrap(), "--dry-run"],
    );
    for (name, sql, object) in TRICKS {
        let file = gpkg(dir.path(), name, sql);
        let started = Instant::now();
        let out = run(
            &store,
            &["import", "parcels", file.to_str().unwrap(), "--dry-run"],
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.gpkg")) && err.contains(object),
            "{name}: {err}"
        );
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
    }
    // The user's own file, on their word: the view is read (a harmless one here).
    let harmless = gpkg(
        dir.path(),
        "harmless",
        "CREATE VIEW parcels_view AS SELECT * FROM parcels; INSERT INTO gpkg_contents (table_name, data_type, identifier, srs_id) VALUES ('parcels_view', 'features', 'parcels_view', 2260); INSERT INTO gpkg_geometry_columns VALUES ('parcels_view', 'geom', 'POLYGON', 2260, 0, 0);",
    );
    let args = |extra: &'static [&'static str]| {
        let mut a = vec!["import", "parcels", harmless.to_str().unwrap(), "--dry-run"];
        a.extend_from_slice(&["--src-layer", "parcels_view"]);
        a.extend_from_slice(extra);
        a
    };
    let err = String::from_utf8_lossy(&run(&store, &args(&[])).stderr).into_owned();
    assert!(err.contains("a view, parcels_view"), "{err}");
    run_ok(&store, &args(&["--allow-any-driver"]));
}

#[tokio::test]
async fn each_trick_is_refused_by_the_upload_and_the_footprint_routes_naming_it() {
    let t = town().await;
    let dir = tempfile::tempdir().unwrap();
    let generation = t.reg.store.generation().await.unwrap();
    let plain = std::fs::read(gpkg(dir.path(), "plain", "")).unwrap();
    let (s, body) = t
        .call(t.upload(
            "parcels",
            "plain.gpkg",
            plain.clone(),
            &[("dry_run", "true")],
        ))
        .await;
    assert_eq!(s, 200, "{body}");
    let (s, body) = t.call(t.footprint_file("plain.gpkg", plain)).await;
    assert_eq!(s, 200, "{body}");
    let generation = generation.max(t.reg.store.generation().await.unwrap());
    let mut tricks: Vec<(String, Vec<u8>, String)> = TRICKS
        .iter()
        .map(|(name, sql, object)| {
            (
                format!("{name}.gpkg"),
                std::fs::read(gpkg(dir.path(), name, sql)).unwrap(),
                object.to_string(),
            )
        })
        .collect();
    // GDAL opens a zip's only file as the zip itself.
    let zipped = dir.path().join("zipped.zip");
    zip_files(&zipped, &[("slow.gpkg", &tricks[0].1)]);
    tricks.push((
        "zipped.zip".into(),
        std::fs::read(&zipped).unwrap(),
        "a GeoPackage (or another SQLite database), slow.gpkg, inside it".into(),
    ));
    for (name, bytes, object) in tricks {
        for extra in [&[("dry_run", "true")][..], &[][..]] {
            let started = Instant::now();
            let (s, body) = t
                .call(t.upload("parcels", &name, bytes.clone(), extra))
                .await;
            let e = body["error"].as_str().unwrap_or_default();
            assert_eq!(s, 422, "{name} {extra:?}: {body}");
            assert!(e.contains(&name) && e.contains(&object), "{name}: {e}");
            assert!(started.elapsed() < Duration::from_secs(5), "{name}");
        }
        let started = Instant::now();
        let (s, body) = t.call(t.footprint_file(&name, bytes.clone())).await;
        let e = body["error"].as_str().unwrap_or_default();
        assert_eq!(s, 422, "{name}: {body}");
        assert!(
            e.starts_with("file: ") && e.contains(&object),
            "{name}: {e}"
        );
        assert!(started.elapsed() < Duration::from_secs(5), "{name}");
    }
    assert_eq!(
        t.reg.store.generation().await.unwrap(),
        generation,
        "nothing was imported, not even a dry run recorded"
    );
}

// ---------------------------------------------------------------- stopping a read

/// An import of the slow view, GDAL allowed to open anything (as the command line's
/// `--allow-any-driver`), stopped by `cancel`.
fn slow_import(dir: &Path, cancel: &Cancel) -> ImportOptions {
    let file = gpkg(dir, "slow", SLOW_VIEW);
    let mut opts = ImportOptions::new(Layer::Parcels, file);
    opts.any_driver = true;
    opts.src_layer = Some("slow_parcels".into());
    opts.dry_run = true;
    opts.cancel = cancel.clone();
    opts
}

fn stopped(r: Result<ms4::import::ImportReport, ImportError>) -> Stop {
    match r {
        Err(ImportError::Stopped { why, .. }) => why,
        other => panic!("not stopped: {other:?}"),
    }
}

#[tokio::test]
async fn a_slow_view_read_anyway_stops_at_its_deadline_inside_one_gdal_call() {
    let reg = registry("sqlite", 2260).await;
    let dir = tempfile::tempdir().unwrap();
    let cancel = Cancel::within(Duration::from_secs(1));
    let started = Instant::now();
    let why = stopped(import(reg.store.clone(), slow_import(dir.path(), &cancel)).await);
    // SQLite checks the token while the view's one statement runs (it would run for
    // minutes): GDAL never returns a feature in between.
    assert_eq!(why, Stop::Deadline(Duration::from_secs(1)));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_slow_view_read_anyway_stops_when_its_request_is_dropped() {
    let reg = registry("sqlite", 2260).await;
    let dir = tempfile::tempdir().unwrap();
    let cancel = Cancel::new();
    let request = cancel.on_drop();
    let reading = tokio::spawn(import(reg.store.clone(), slow_import(dir.path(), &cancel)));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(!reading.is_finished(), "the view was not slow");
    let dropped = Instant::now();
    drop(request);
    let why = stopped(reading.await.unwrap());
    assert_eq!(why, Stop::Gone);
    assert!(
        dropped.elapsed() < Duration::from_secs(2),
        "{:?}",
        dropped.elapsed()
    );
}

// ---------------------------------------------------------------- the real server

/// `n` points in EPSG:2260 as GeoJSON: tens of megabytes, seconds of reading.
fn many_points(n: usize) -> Vec<u8> {
    let mut w = Vec::with_capacity(n * 140);
    write!(w, r#"{{"type":"FeatureCollection",{CRS_2260},"features":["#).unwrap();
    for i in 0..n {
        let sep = if i + 1 == n { "" } else { "," };
        let (x, y) = (
            668_000.0 + (i % 1000) as f64 * 4.0,
            868_000.0 + (i / 1000) as f64 * 10.0,
        );
        write!(w, r#"{{"type":"Feature","properties":{{"asset_id":"K-{i}","status":"active"}},"geometry":{{"type":"Point","coordinates":[{x},{y}]}}}}{sep}"#).unwrap();
    }
    w.extend_from_slice(b"]}");
    w
}

/// A running `ms4 serve` whose log lines (at info) can be waited for.
struct Logged {
    child: std::process::Child,
    base: String,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Drop for Logged {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve_logged(store: &str) -> Logged {
    serve_logged_with(store, &[])
}

/// [`serve_logged`] with more arguments to `ms4 serve`.
fn serve_logged_with(store: &str, extra: &[&str]) -> Logged {
    let mut child = ms4()
        .env("RUST_LOG", "ms4=info")
        .args(["--store", store, "serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = out.next().expect("the server prints its URL").unwrap();
        if let Some(u) = line.strip_prefix("serving the registry at ") {
            break u.trim().trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in out {});
    let (tx, lines) = std::sync::mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    Logged { child, base, lines }
}

impl Logged {
    /// The first log line holding every needle, if one comes within `within`.
    fn wait_for(&self, needles: &[&str], within: Duration) -> Option<String> {
        let until = Instant::now() + within;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) if needles.iter().all(|n| l.contains(n)) => return Some(l),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    }

    /// Starts a dry-run upload of `n` points, answered with its status (or the error of a
    /// connection closed without an answer).
    fn upload_many(
        &self,
        analyst: &str,
        name: &str,
        n: usize,
    ) -> tokio::task::JoinHandle<Result<u16, String>> {
        let url = format!("{}/api/layers/catch_basins/import", self.base);
        let form = reqwest::multipart::Form::new()
            .text("dry_run", "true")
            .part(
                "file",
                reqwest::multipart::Part::bytes(many_points(n)).file_name(name.to_string()),
            );
        let token = analyst.to_string();
        tokio::spawn(async move {
            reqwest::Client::new()
                .post(url)
                .bearer_auth(token)
                .multipart(form)
                .send()
                .await
                .map(|r| r.status().as_u16())
                .map_err(|e| e.to_string())
        })
    }
}

#[tokio::test]
async fn an_upload_stops_reading_when_its_client_hangs_up() {
    let reg = registry("sqlite", 2260).await;
    let analyst = token(&reg.url, "analyst", "Ann Alyst", &[]);
    let server = serve_logged(&reg.url);
    // The upload by hand on a socket of its own, so that closing it is the whole story.
    let (content_type, body) = {
        let req = multipart(
            "/",
            None,
            "hung-up.geojson",
            many_points(400_000),
            &[("dry_run", "true")],
        );
        let ct = req.headers()[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .to_string();
        let bytes = axum::body::to_bytes(req.into_body(), usize::MAX)
            .await
            .unwrap();
        (ct, bytes)
    };
    let addr = server.base.trim_start_matches("http://").to_string();
    let mut socket = std::net::TcpStream::connect(&addr).unwrap();
    write!(
        socket,
        "POST /api/layers/catch_basins/import HTTP/1.1\r\nhost: {addr}\r\nauthorization: Bearer {analyst}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .unwrap();
    socket.write_all(&body).unwrap();
    // Being read now (400,000 points take the server seconds); then the client is gone.
    socket
        .set_read_timeout(Some(Duration::from_millis(1500)))
        .unwrap();
    let mut answer = [0u8; 64];
    let early = std::io::Read::read(&mut socket, &mut answer);
    assert!(
        early.is_err(),
        "the upload was answered before the client left: {:?}",
        String::from_utf8_lossy(&answer)
    );
    drop(socket);
    let gone = Instant::now();
    let line = server.wait_for(
        &["read stopped", "hung-up.geojson", "went away"],
        Duration::from_secs(10),
    );
    assert!(line.is_some(), "the read went on after its client left");
    assert!(
        gone.elapsed() < Duration::from_secs(5),
        "{:?}",
        gone.elapsed()
    );
    eprintln!(
        "stopped {:?} after the client left: {}",
        gone.elapsed(),
        line.unwrap()
    );
}

#[tokio::test]
async fn sigterm_stops_the_server_within_seconds_while_an_upload_is_being_read() {
    let reg = registry("sqlite", 2260).await;
    let analyst = token(&reg.url, "analyst", "Ann Alyst", &[]);
    // Two and a half million points (a body over the default limit, so the limit is
    // raised): a read that takes a debug build several times the grace, however quiet the
    // machine (a million took about 5 s on a quiet one, so close to the grace that the
    // read sometimes finished within it and was answered 200).
    let mut server = serve_logged_with(&reg.url, &["--body-limit", "1GB"]);
    let upload = server.upload_many(&analyst, "terminated.geojson", 2_500_000);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !upload.is_finished(),
        "the upload was answered before the signal"
    );
    let signalled = Instant::now();
    // SAFETY: sends SIGTERM to the child this test started and still owns.
    assert_eq!(
        unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) },
        0
    );
    let status = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            signalled.elapsed() < Duration::from_secs(30),
            "the server still runs 30 s after SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let took = signalled.elapsed();
    eprintln!("the server exited {took:?} after SIGTERM ({status})");
    // Five seconds for requests in flight, one for blocking threads, and some slack.
    assert!(took < Duration::from_secs(8), "{took:?}");
    assert!(status.success(), "{status}");
    // Stopped two seconds before the connections close, the upload is told why.
    let answered = upload.await.unwrap();
    assert_eq!(answered, Ok(503));
    let stop = server.wait_for(
        &["read stopped", "terminated.geojson"],
        Duration::from_secs(1),
    );
    eprintln!("{answered:?}; {stop:?}");
    assert!(stop.is_some(), "no read was stopped");
}
