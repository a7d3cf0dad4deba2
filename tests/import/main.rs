//! Importing real files through GDAL into both stores, and refusing hostile, damaged and
//! careless ones (through the library, the CLI and the upload route: the router in
//! process, or the real HTTP server where a setting of its process is the point).

mod bad_places;
#[path = "../common/mod.rs"]
mod common;
mod formulas;
mod hostile;
mod limits;
mod real_files;
mod reexport;
mod replace_guard;
mod short_reads;
mod unchanged;
mod units;
mod writes;

use std::collections::HashMap;
use std::process::Command;

use common::*;
use geo_types::Geometry;
use ms4::domain::{Layer, Value};
use ms4::import::{import, ImportOptions};
use ms4::store::WriteMode;
use rstest::rstest;

const TACOMA_POINTS: &str = "tacoma/ActiveSurfacewaterDischargePoint.geojson";

/// Positions of a file's features by id, as `ogr2ogr -t_srs` computes them.
fn ogr2ogr_positions(
    path: &std::path::Path,
    id_field: &str,
    srid: i32,
    s_srs: Option<&str>,
) -> HashMap<String, (f64, f64)> {
    let mut cmd = Command::new("ogr2ogr");
    cmd.args(["-f", "CSV", "/vsistdout/"]).arg(path).args([
        "-t_srs",
        &format!("EPSG:{srid}"),
        "-lco",
        "GEOMETRY=AS_XY",
        "-select",
        id_field,
    ]);
    if let Some(s) = s_srs {
        cmd.args(["-s_srs", s]);
    }
    let out = cmd.output().expect("ogr2ogr runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let (xi, yi, ii) = (
        header.iter().position(|h| *h == "X").unwrap(),
        header.iter().position(|h| *h == "Y").unwrap(),
        header
            .iter()
            .position(|h| h.trim_matches('"') == id_field)
            .unwrap(),
    );
    lines
        .map(|l| {
            let c: Vec<&str> = l.split(',').collect();
            (
                c[ii].trim_matches('"').to_string(),
                (c[xi].parse().unwrap(), c[yi].parse().unwrap()),
            )
        })
        .collect()
}

fn point(g: &Option<Geometry<f64>>) -> (f64, f64) {
    match g {
        Some(Geometry::Point(p)) => (p.x(), p.y()),
        other => panic!("not a point: {other:?}"),
    }
}

/// Converts a fixture with ogr2ogr into another format (GDAL writes the real thing).
fn ogr2ogr_to(src: &std::path::Path, driver: &str, dst: &std::path::Path, extra: &[&str]) {
    let out = Command::new("ogr2ogr")
        .args(["-f", driver])
        .arg(dst)
        .arg(src)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ogr2ogr -f {driver}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Uploads a file to the service's import route (the router in process); returns the
/// status and JSON body.
async fn upload(
    app: &App,
    token: &str,
    layer: &str,
    name: &str,
    bytes: Vec<u8>,
    extra: &[(&str, &str)],
) -> (u16, serde_json::Value) {
    let mut form = Form::new().file("file", name, bytes);
    for (k, v) in extra {
        form = form.text(*k, *v);
    }
    let r = app
        .post(format!("/api/layers/{layer}/import"))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await;
    (r.status().as_u16(), r.json())
}

/// The same to a running `ms4 serve`, over HTTP.
async fn upload_http(
    server: &Server,
    token: &str,
    layer: &str,
    name: &str,
    bytes: Vec<u8>,
    extra: &[(&str, &str)],
) -> (u16, serde_json::Value) {
    let mut form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
    );
    for (k, v) in extra {
        form = form.text(k.to_string(), v.to_string());
    }
    let r = reqwest::Client::new()
        .post(format!("{}/api/layers/{layer}/import", server.base))
        .bearer_auth(token)
        .multipart(form)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status}: not JSON: {text}"));
    (status, v)
}

/// A fresh SQLite registry made with `ms4 init` (North Castle, EPSG:2260): its folder
/// and store URL.
fn cli_registry() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
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
    (dir, store)
}

/// Runs the CLI and asserts it failed; returns stderr.
fn run_err(store: &str, args: &[&str]) -> String {
    let out = run(store, args);
    assert!(
        !out.status.success(),
        "ms4 {args:?} should have failed:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// GeoJSON points in WGS 84 inside North Castle, with the given asset ids.
fn north_castle_points(ids: &[&str]) -> String {
    let features: Vec<serde_json::Value> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            serde_json::json!({"type": "Feature", "properties": {"asset_id": id},
                "geometry": {"type": "Point", "coordinates": [-73.853 + i as f64 * 1e-4, 41.22]}})
        })
        .collect();
    serde_json::json!({"type": "FeatureCollection", "features": features}).to_string()
}
