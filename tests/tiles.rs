//! Vector tiles from the service's router (driven in process), decoded by an independent
//! reader (GDAL's MVT driver), checked against the registry's own features.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::path::Path;
use std::process::Command;

use common::*;
use rstest::rstest;

#[path = "tiles/answers.rs"]
mod answers;
#[path = "tiles/flow.rs"]
mod flow;
#[path = "tiles/freshness.rs"]
mod freshness;
#[path = "tiles/mapping.rs"]
mod mapping;
#[path = "tiles/style.rs"]
mod style;

const WORLD: f64 = 20_037_508.342_789_244;

/// Longitude/latitude to Web Mercator metres.
pub(crate) fn merc(lon: f64, lat: f64) -> (f64, f64) {
    let x = lon / 180.0 * WORLD;
    let y = (std::f64::consts::FRAC_PI_4 + lat.to_radians() / 2.0)
        .tan()
        .ln()
        / std::f64::consts::PI
        * WORLD;
    (x, y)
}

/// The tile holding a Web Mercator position at zoom z.
pub(crate) fn tile_of(x: f64, y: f64, z: u8) -> (u32, u32) {
    let size = 2.0 * WORLD / (1u64 << z) as f64;
    (
        ((x + WORLD) / size).floor() as u32,
        ((WORLD - y) / size).floor() as u32,
    )
}

fn tile_size(z: u8) -> f64 {
    2.0 * WORLD / (1u64 << z) as f64
}

/// One layer of a tile as GeoJSON features in EPSG:3857, read by GDAL's MVT driver with
/// the tile's z/x/y given as open options; empty when the tile lacks the layer.
pub(crate) fn decode(bytes: &[u8], z: u8, x: u32, y: u32, layer: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tile.mvt");
    std::fs::write(&file, bytes).unwrap();
    let layers = Command::new("ogrinfo")
        .args(["-ro", "-q"])
        .args([
            "-oo",
            &format!("Z={z}"),
            "-oo",
            &format!("X={x}"),
            "-oo",
            &format!("Y={y}"),
        ])
        .arg(format!("MVT:{}", file.display()))
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&layers.stdout);
    if !listing
        .lines()
        .any(|l| l.split_whitespace().nth(1) == Some(layer))
    {
        return Vec::new();
    }
    let out = dir.path().join("out.geojson");
    let st = Command::new("ogr2ogr")
        .args(["-f", "GeoJSON"])
        .args([
            "-oo",
            &format!("Z={z}"),
            "-oo",
            &format!("X={x}"),
            "-oo",
            &format!("Y={y}"),
        ])
        .arg(&out)
        .arg(format!("MVT:{}", file.display()))
        .arg(layer)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "ogr2ogr: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    v["features"].as_array().unwrap().clone()
}

pub(crate) async fn get_json(c: &App, url: &str) -> serde_json::Value {
    let r = c.get(url).send().await;
    assert_eq!(r.status(), 200, "{url}");
    r.json()
}

pub(crate) async fn get_tile(
    c: &App,
    url: &str,
) -> (axum::http::StatusCode, axum::http::HeaderMap, Vec<u8>) {
    let r = c.get(url).send().await;
    let (s, h) = (r.status(), r.headers().clone());
    (s, h, r.bytes().to_vec())
}

/// Every feature of a layer as CRS84 GeoJSON from the OGC API.
pub(crate) async fn items(c: &App, base: &str, layer: &str) -> Vec<serde_json::Value> {
    let v = get_json(c, &format!("{base}/collections/{layer}/items?limit=10000")).await;
    v["features"].as_array().unwrap().clone()
}

pub(crate) fn id_of<'a>(f: &'a serde_json::Value, field: &str) -> &'a str {
    f["properties"][field].as_str().unwrap_or("")
}

#[tokio::test]
async fn tiles_read_by_gdal_hold_the_registry_features_within_a_pixel() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::public(&reg.store).await;
    let c = app.clone();
    let base = &app.base;
    let tj = get_json(&c, &format!("{base}/tiles.json")).await;
    assert_eq!(tj["tilejson"], "3.0.0");
    let g = tj["generation"].as_str().unwrap().to_string();
    assert!(tj["tiles"][0]
        .as_str()
        .unwrap()
        .ends_with(&format!("/tiles/{{z}}/{{x}}/{{y}}.mvt?g={g}")));
    let names: Vec<&str> = tj["vector_layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    for l in [
        "parcels",
        "pipes",
        "outfalls",
        "catch_basins",
        "connections",
        "smps",
        "watersheds",
        "receiving_waters",
    ] {
        assert!(names.contains(&l), "{l} in {names:?}");
    }
    // North Castle is near 73.7 W, 41.1 N.
    let b = &tj["bounds"];
    assert!(
        (-73.9..-73.5).contains(&b[0].as_f64().unwrap())
            && (41.0..41.3).contains(&b[1].as_f64().unwrap()),
        "{b}"
    );

    // Points: every outfall, at three zooms, in the tile that holds it (all-layers tiles),
    // with its id, status and position within a pixel.
    let outfalls = items(&c, base, "outfalls").await;
    assert!(outfalls.len() > 10);
    for z in [14u8, 16, 19] {
        let px = tile_size(z) / 4096.0;
        let mut seen = std::collections::HashMap::new();
        for of in &outfalls {
            let co = &of["geometry"]["coordinates"];
            let (mx, my) = merc(co[0].as_f64().unwrap(), co[1].as_f64().unwrap());
            let (x, y) = tile_of(mx, my, z);
            let feats = seen.entry((x, y)).or_insert_with(|| None);
            if feats.is_none() {
                let (s, h, bytes) =
                    get_tile(&c, &format!("{base}/tiles/{z}/{x}/{y}.mvt?g={g}")).await;
                assert_eq!(s, 200);
                assert_eq!(h["content-type"], "application/vnd.mapbox-vector-tile");
                assert!(h["cache-control"].to_str().unwrap().contains("immutable"));
                *feats = Some(decode(&bytes, z, x, y, "outfalls"));
            }
            let id = id_of(of, "asset_id");
            let found = feats
                .as_ref()
                .unwrap()
                .iter()
                .find(|f| f["properties"]["id"] == id)
                .unwrap_or_else(|| panic!("outfall {id} missing from tile {z}/{x}/{y}"));
            assert_eq!(
                found["properties"]["status"], of["properties"]["status"],
                "{id}"
            );
            assert!(
                found["properties"]["overdue"].is_boolean()
                    || found["properties"]["overdue"].is_number(),
                "{found}"
            );
            let gc = &found["geometry"]["coordinates"];
            let (gx, gy) = (gc[0].as_f64().unwrap(), gc[1].as_f64().unwrap());
            assert!(
                (gx - mx).abs() <= px && (gy - my).abs() <= px,
                "{id} at z{z}: ({gx}, {gy}) vs ({mx}, {my}), pixel {px}"
            );
        }
    }

    // Below a layer's minimum zoom it is left out; the parcels appear from 14 with their
    // land-use class.
    let parcels = items(&c, base, "parcels").await;
    let p = &parcels[parcels.len() / 2];
    let ring = &p["geometry"]["coordinates"];
    let first = if p["geometry"]["type"] == "MultiPolygon" {
        &ring[0][0][0]
    } else {
        &ring[0][0]
    };
    let (mx, my) = merc(first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
    let (x, y) = tile_of(mx, my, 12);
    let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/12/{x}/{y}.mvt")).await;
    assert!(
        decode(&bytes, 12, x, y, "parcels").is_empty(),
        "parcels below their minimum zoom"
    );
    for z in [15u8, 17] {
        let (x, y) = tile_of(mx, my, z);
        let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/parcels/{z}/{x}/{y}.mvt")).await;
        let feats = decode(&bytes, z, x, y, "parcels");
        let pid = id_of(p, "parcel_id");
        let f = feats
            .iter()
            .find(|f| f["properties"]["id"] == pid)
            .unwrap_or_else(|| panic!("parcel {pid} at z{z}"));
        let class = f["properties"]["land_use_class"].as_str().unwrap();
        assert!(
            ["commercial", "industrial", "other", "unknown"].contains(&class),
            "{class}"
        );
        // The corner is a vertex of the tile polygon, within a pixel (unless clipped off).
        let px = tile_size(z) / 4096.0;
        let coords = f["geometry"]["coordinates"].to_string();
        let nums: Vec<f64> = coords
            .split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-' || ch == 'e'))
            .filter_map(|s| s.parse().ok())
            .collect();
        let near = nums
            .chunks(2)
            .any(|xy| xy.len() == 2 && (xy[0] - mx).abs() <= px && (xy[1] - my).abs() <= px);
        assert!(
            near,
            "parcel {pid}'s corner ({mx}, {my}) not within a pixel of its tile outline at z{z}"
        );
    }

    // Edges: a pipe crossing tile edges at z18 is in each tile it crosses, clipped to the
    // tile and its buffer (64 of 4096 units).
    let pipes = items(&c, base, "pipes").await;
    let mut crossed = 0;
    for pipe in &pipes {
        let s = pipe["geometry"]["coordinates"].to_string();
        let nums: Vec<f64> = s
            .split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-' || ch == 'e'))
            .filter_map(|s| s.parse().ok())
            .collect();
        let pts: Vec<(f64, f64)> = nums.chunks(2).map(|c| merc(c[0], c[1])).collect();
        let tiles: std::collections::BTreeSet<(u32, u32)> =
            pts.iter().map(|(x, y)| tile_of(*x, *y, 18)).collect();
        if tiles.len() < 2 {
            continue;
        }
        crossed += 1;
        let id = id_of(pipe, "asset_id");
        for (x, y) in tiles {
            let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/pipes/18/{x}/{y}.mvt")).await;
            let feats = decode(&bytes, 18, x, y, "pipes");
            let f = feats
                .iter()
                .find(|f| f["properties"]["id"] == id)
                .unwrap_or_else(|| panic!("pipe {id} in 18/{x}/{y}"));
            let size = tile_size(18);
            let (minx, maxy) = (-WORLD + x as f64 * size, WORLD - y as f64 * size);
            let buf = size * 64.0 / 4096.0 + size / 4096.0;
            let s = f["geometry"]["coordinates"].to_string();
            let nums: Vec<f64> = s
                .split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-' || ch == 'e'))
                .filter_map(|s| s.parse().ok())
                .collect();
            for xy in nums.chunks(2) {
                assert!(
                    xy[0] >= minx - buf
                        && xy[0] <= minx + size + buf
                        && xy[1] <= maxy + buf
                        && xy[1] >= maxy - size - buf,
                    "pipe {id} vertex {xy:?} outside 18/{x}/{y} and its buffer"
                );
            }
        }
        if crossed >= 3 {
            break;
        }
    }
    assert!(
        crossed >= 1,
        "no pipe crosses a z18 tile edge in the demo town"
    );

    // The antimeridian and polar tiles are empty tiles, not errors.
    for (z, x, y) in [
        (3u8, 0u32, 0u32),
        (3, 7, 0),
        (3, 0, 7),
        (10, 0, 512),
        (10, 1023, 0),
    ] {
        let (s, h, bytes) = get_tile(&c, &format!("{base}/tiles/{z}/{x}/{y}.mvt")).await;
        assert_eq!(s, 200, "{z}/{x}/{y}");
        assert_eq!(h["content-type"], "application/vnd.mapbox-vector-tile");
        assert!(bytes.is_empty(), "{z}/{x}/{y} has {} bytes", bytes.len());
    }
    // Out of range: a 400 naming the part at fault.
    for (path, part) in [
        ("23/0/0", "z:"),
        ("3/8/0", "x:"),
        ("3/0/8", "y:"),
        ("a/0/0", "z:"),
        ("2/0/-1", "y:"),
    ] {
        let r = c.get(format!("{base}/tiles/{path}.mvt")).send().await;
        assert_eq!(r.status(), 400, "{path}");
        let e: serde_json::Value = r.json();
        assert!(
            e["error"].as_str().unwrap().starts_with(part),
            "{path}: {e}"
        );
    }
    let r = c
        .get(format!(
            "{base}/collections/outfalls/tiles/WebMercatorQuad/3/8/0"
        ))
        .send()
        .await;
    assert_eq!(r.status(), 400, "OGC tile row 8 at zoom 3");
    let r = c
        .get(format!("{base}/tiles/nowhere/3/0/0.mvt"))
        .send()
        .await;
    assert_eq!(r.status(), 404);
}

/// The first outfall's position in Web Mercator and its id.
pub(crate) async fn first_outfall(c: &App, base: &str) -> (String, f64, f64, f64, f64) {
    let of = items(c, base, "outfalls").await.into_iter().next().unwrap();
    let co = &of["geometry"]["coordinates"];
    let (lon, lat) = (co[0].as_f64().unwrap(), co[1].as_f64().unwrap());
    let (mx, my) = merc(lon, lat);
    (id_of(&of, "asset_id").to_string(), mx, my, lon, lat)
}
