//! Importing real files through GDAL into both stores.

#[path = "../common/mod.rs"]
mod common;
mod real_files;
mod writes;

use std::collections::HashMap;
use std::process::Command;

use common::*;
use geo_types::Geometry;
use ms4::domain::{Layer, Value};
use ms4::import::{import, ImportOptions};
use ms4::store::WriteMode;

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
