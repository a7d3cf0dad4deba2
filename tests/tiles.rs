//! Vector tiles from the real server, decoded by an independent reader (GDAL's MVT
//! driver), checked against the registry's own features.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

const WORLD: f64 = 20_037_508.342_789_244;

/// Longitude/latitude to Web Mercator metres.
fn merc(lon: f64, lat: f64) -> (f64, f64) {
    let x = lon / 180.0 * WORLD;
    let y = (std::f64::consts::FRAC_PI_4 + lat.to_radians() / 2.0).tan().ln() / std::f64::consts::PI * WORLD;
    (x, y)
}

/// The tile holding a Web Mercator position at zoom z.
fn tile_of(x: f64, y: f64, z: u8) -> (u32, u32) {
    let size = 2.0 * WORLD / (1u64 << z) as f64;
    (((x + WORLD) / size).floor() as u32, ((WORLD - y) / size).floor() as u32)
}

fn tile_size(z: u8) -> f64 {
    2.0 * WORLD / (1u64 << z) as f64
}

/// One layer of a tile as GeoJSON features in EPSG:3857, read by GDAL's MVT driver with
/// the tile's z/x/y given as open options; empty when the tile lacks the layer.
fn decode(bytes: &[u8], z: u8, x: u32, y: u32, layer: &str) -> Vec<serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tile.mvt");
    std::fs::write(&file, bytes).unwrap();
    let layers = Command::new("ogrinfo")
        .args(["-ro", "-q"])
        .args(["-oo", &format!("Z={z}"), "-oo", &format!("X={x}"), "-oo", &format!("Y={y}")])
        .arg(format!("MVT:{}", file.display()))
        .output()
        .unwrap();
    let listing = String::from_utf8_lossy(&layers.stdout);
    if !listing.lines().any(|l| l.split_whitespace().nth(1) == Some(layer)) {
        return Vec::new();
    }
    let out = dir.path().join("out.geojson");
    let st = Command::new("ogr2ogr")
        .args(["-f", "GeoJSON"])
        .args(["-oo", &format!("Z={z}"), "-oo", &format!("X={x}"), "-oo", &format!("Y={y}")])
        .arg(&out)
        .arg(format!("MVT:{}", file.display()))
        .arg(layer)
        .output()
        .unwrap();
    assert!(st.status.success(), "ogr2ogr: {}", String::from_utf8_lossy(&st.stderr));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out).unwrap()).unwrap();
    v["features"].as_array().unwrap().clone()
}

async fn get_json(c: &reqwest::Client, url: &str) -> serde_json::Value {
    let r = c.get(url).send().await.unwrap();
    assert_eq!(r.status(), 200, "{url}");
    r.json().await.unwrap()
}

async fn get_tile(c: &reqwest::Client, url: &str) -> (reqwest::StatusCode, reqwest::header::HeaderMap, Vec<u8>) {
    let r = c.get(url).send().await.unwrap();
    let (s, h) = (r.status(), r.headers().clone());
    (s, h, r.bytes().await.unwrap().to_vec())
}

/// Every feature of a layer as CRS84 GeoJSON from the OGC API.
async fn items(c: &reqwest::Client, base: &str, layer: &str) -> Vec<serde_json::Value> {
    let v = get_json(c, &format!("{base}/collections/{layer}/items?limit=10000")).await;
    v["features"].as_array().unwrap().clone()
}

fn id_of<'a>(f: &'a serde_json::Value, field: &str) -> &'a str {
    f["properties"][field].as_str().unwrap_or("")
}

#[tokio::test]
async fn tiles_read_by_gdal_hold_the_registry_features_within_a_pixel() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let base = &server.base;
    let tj = get_json(&c, &format!("{base}/tiles.json")).await;
    assert_eq!(tj["tilejson"], "3.0.0");
    let g = tj["generation"].as_str().unwrap().to_string();
    assert!(tj["tiles"][0].as_str().unwrap().ends_with(&format!("/tiles/{{z}}/{{x}}/{{y}}.mvt?g={g}")));
    let names: Vec<&str> = tj["vector_layers"].as_array().unwrap().iter().map(|l| l["id"].as_str().unwrap()).collect();
    for l in ["parcels", "pipes", "outfalls", "catch_basins", "connections", "smps", "watersheds", "receiving_waters"] {
        assert!(names.contains(&l), "{l} in {names:?}");
    }
    // North Castle is near 73.7 W, 41.1 N.
    let b = &tj["bounds"];
    assert!((-73.9..-73.5).contains(&b[0].as_f64().unwrap()) && (41.0..41.3).contains(&b[1].as_f64().unwrap()), "{b}");

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
                let (s, h, bytes) = get_tile(&c, &format!("{base}/tiles/{z}/{x}/{y}.mvt?g={g}")).await;
                assert_eq!(s, 200);
                assert_eq!(h["content-type"], "application/vnd.mapbox-vector-tile");
                assert!(h["cache-control"].to_str().unwrap().contains("immutable"));
                *feats = Some(decode(&bytes, z, x, y, "outfalls"));
            }
            let id = id_of(of, "asset_id");
            let found = feats.as_ref().unwrap().iter().find(|f| f["properties"]["id"] == id)
                .unwrap_or_else(|| panic!("outfall {id} missing from tile {z}/{x}/{y}"));
            assert_eq!(found["properties"]["status"], of["properties"]["status"], "{id}");
            assert!(found["properties"]["overdue"].is_boolean() || found["properties"]["overdue"].is_number(), "{found}");
            let gc = &found["geometry"]["coordinates"];
            let (gx, gy) = (gc[0].as_f64().unwrap(), gc[1].as_f64().unwrap());
            assert!((gx - mx).abs() <= px && (gy - my).abs() <= px, "{id} at z{z}: ({gx}, {gy}) vs ({mx}, {my}), pixel {px}");
        }
    }

    // Below a layer's minimum zoom it is left out; the parcels appear from 14 with their
    // land-use class.
    let parcels = items(&c, base, "parcels").await;
    let p = &parcels[parcels.len() / 2];
    let ring = &p["geometry"]["coordinates"];
    let first = if p["geometry"]["type"] == "MultiPolygon" { &ring[0][0][0] } else { &ring[0][0] };
    let (mx, my) = merc(first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
    let (x, y) = tile_of(mx, my, 12);
    let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/12/{x}/{y}.mvt")).await;
    assert!(decode(&bytes, 12, x, y, "parcels").is_empty(), "parcels below their minimum zoom");
    for z in [15u8, 17] {
        let (x, y) = tile_of(mx, my, z);
        let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/parcels/{z}/{x}/{y}.mvt")).await;
        let feats = decode(&bytes, z, x, y, "parcels");
        let pid = id_of(p, "parcel_id");
        let f = feats.iter().find(|f| f["properties"]["id"] == pid).unwrap_or_else(|| panic!("parcel {pid} at z{z}"));
        let class = f["properties"]["land_use_class"].as_str().unwrap();
        assert!(["commercial", "industrial", "other", "unknown"].contains(&class), "{class}");
        // The corner is a vertex of the tile polygon, within a pixel (unless clipped off).
        let px = tile_size(z) / 4096.0;
        let coords = f["geometry"]["coordinates"].to_string();
        let nums: Vec<f64> = coords.split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-' || ch == 'e')).filter_map(|s| s.parse().ok()).collect();
        let near = nums.chunks(2).any(|xy| xy.len() == 2 && (xy[0] - mx).abs() <= px && (xy[1] - my).abs() <= px);
        assert!(near, "parcel {pid}'s corner ({mx}, {my}) not within a pixel of its tile outline at z{z}");
    }

    // Edges: a pipe crossing tile edges at z18 is in each tile it crosses, clipped to the
    // tile and its buffer (64 of 4096 units).
    let pipes = items(&c, base, "pipes").await;
    let mut crossed = 0;
    for pipe in &pipes {
        let s = pipe["geometry"]["coordinates"].to_string();
        let nums: Vec<f64> = s.split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-' || ch == 'e')).filter_map(|s| s.parse().ok()).collect();
        let pts: Vec<(f64, f64)> = nums.chunks(2).map(|c| merc(c[0], c[1])).collect();
        let tiles: std::collections::BTreeSet<(u32, u32)> = pts.iter().map(|(x, y)| tile_of(*x, *y, 18)).collect();
        if tiles.len() < 2 {
            continue;
        }
        crossed += 1;
        let id = id_of(pipe, "asset_id");
        for (x, y) in tiles {
            let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/pipes/18/{x}/{y}.mvt")).await;
            let feats = decode(&bytes, 18, x, y, "pipes");
            let f = feats.iter().find(|f| f["properties"]["id"] == id).unwrap_or_else(|| panic!("pipe {id} in 18/{x}/{y}"));
            let size = tile_size(18);
            let (minx, maxy) = (-WORLD + x as f64 * size, WORLD - y as f64 * size);
            let buf = size * 64.0 / 4096.0 + size / 4096.0;
            let s = f["geometry"]["coordinates"].to_string();
            let nums: Vec<f64> = s.split(|ch: char| !(ch.is_ascii_digit() || ch == '.' || ch == '-' || ch == 'e')).filter_map(|s| s.parse().ok()).collect();
            for xy in nums.chunks(2) {
                assert!(xy[0] >= minx - buf && xy[0] <= minx + size + buf && xy[1] <= maxy + buf && xy[1] >= maxy - size - buf,
                    "pipe {id} vertex {xy:?} outside 18/{x}/{y} and its buffer");
            }
        }
        if crossed >= 3 {
            break;
        }
    }
    assert!(crossed >= 1, "no pipe crosses a z18 tile edge in the demo town");

    // The antimeridian and polar tiles are empty tiles, not errors.
    for (z, x, y) in [(3u8, 0u32, 0u32), (3, 7, 0), (3, 0, 7), (10, 0, 512), (10, 1023, 0)] {
        let (s, h, bytes) = get_tile(&c, &format!("{base}/tiles/{z}/{x}/{y}.mvt")).await;
        assert_eq!(s, 200, "{z}/{x}/{y}");
        assert_eq!(h["content-type"], "application/vnd.mapbox-vector-tile");
        assert!(bytes.is_empty(), "{z}/{x}/{y} has {} bytes", bytes.len());
    }
    // Out of range: a 400 naming the part at fault.
    for (path, part) in [("23/0/0", "z:"), ("3/8/0", "x:"), ("3/0/8", "y:"), ("a/0/0", "z:"), ("2/0/-1", "y:")] {
        let r = c.get(format!("{base}/tiles/{path}.mvt")).send().await.unwrap();
        assert_eq!(r.status(), 400, "{path}");
        let e: serde_json::Value = r.json().await.unwrap();
        assert!(e["error"].as_str().unwrap().starts_with(part), "{path}: {e}");
    }
    let r = c.get(format!("{base}/collections/outfalls/tiles/WebMercatorQuad/3/8/0")).send().await.unwrap();
    assert_eq!(r.status(), 400, "OGC tile row 8 at zoom 3");
    let r = c.get(format!("{base}/tiles/nowhere/3/0/0.mvt")).send().await.unwrap();
    assert_eq!(r.status(), 404);
}

/// The first outfall's position in Web Mercator and its id.
async fn first_outfall(c: &reqwest::Client, base: &str) -> (String, f64, f64, f64, f64) {
    let of = items(c, base, "outfalls").await.into_iter().next().unwrap();
    let co = &of["geometry"]["coordinates"];
    let (lon, lat) = (co[0].as_f64().unwrap(), co[1].as_f64().unwrap());
    let (mx, my) = merc(lon, lat);
    (id_of(&of, "asset_id").to_string(), mx, my, lon, lat)
}

async fn outfall_in_tile(c: &reqwest::Client, base: &str, id: &str, mx: f64, my: f64, etag: Option<&str>) -> (reqwest::StatusCode, String, Option<serde_json::Value>) {
    let z = 16;
    let (x, y) = tile_of(mx, my, z);
    let mut rq = c.get(format!("{base}/tiles/outfalls/{z}/{x}/{y}.mvt"));
    if let Some(e) = etag {
        rq = rq.header("if-none-match", e);
    }
    let r = rq.send().await.unwrap();
    let status = r.status();
    let tag = r.headers()["etag"].to_str().unwrap().to_string();
    let bytes = r.bytes().await.unwrap();
    if status != 200 {
        return (status, tag, None);
    }
    let f = decode(&bytes, z, x, y, "outfalls").into_iter().find(|f| f["properties"]["id"] == id);
    (status, tag, Some(f.expect("the outfall is in its tile")["properties"].clone()))
}

async fn wait_for_new_generation(c: &reqwest::Client, base: &str, old: &str) -> String {
    for _ in 0..100 {
        let g = get_json(c, &format!("{base}/tiles.json")).await["generation"].as_str().unwrap().to_string();
        if g != old {
            return g;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("the generation stayed {old} for 10 s");
}

#[tokio::test]
async fn an_inspection_and_an_import_show_in_the_next_tiles() {
    for kind in kinds() {
        let reg = demo_registry(kind, "north-castle-ny").await;
        let inspector = token(&reg.url, "inspector", "Ann Field", &[]);
        let reader = token(&reg.url, "planner", "Pat Plan", &[]);
        let server = serve(&reg.url, &[]);
        let base = &server.base;
        let c = reqwest::Client::builder()
            .default_headers({
                let mut h = reqwest::header::HeaderMap::new();
                h.insert("authorization", format!("Bearer {reader}").parse().unwrap());
                h
            })
            .build()
            .unwrap();
        // Tiles are reads: no token, no tile.
        let r = reqwest::get(format!("{base}/tiles/0/0/0.mvt")).await.unwrap();
        assert_eq!(r.status(), 401);

        let g1 = get_json(&c, &format!("{base}/tiles.json")).await["generation"].as_str().unwrap().to_string();
        let (id, mx, my, _, _) = first_outfall(&c, base).await;
        let (s, etag1, props) = outfall_in_tile(&c, base, &id, mx, my, None).await;
        assert_eq!(s, 200);
        let today = chrono::Local::now().date_naive().to_string();
        assert_ne!(props.unwrap()["last_inspection"], today.as_str());
        // Unchanged: the same ETag is a 304.
        let (s, etag_again, _) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag1)).await;
        assert_eq!((s.as_u16(), etag_again.as_str()), (304, etag1.as_str()));

        let r = reqwest::Client::new()
            .post(format!("{base}/api/inspections"))
            .bearer_auth(&inspector)
            .json(&serde_json::json!({"asset_id": id, "inspected_on": today, "kind": "dry_weather_screening", "result": "needs_follow_up",
                "screening": {"flow": "trickle", "odour": "sewage", "colour": "grey", "turbidity": "cloudy",
                    "floatables": "none", "deposits": "staining", "field_tests": {"ph": 6.8, "ammonia_mg_l": 1.4}}}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        let g2 = get_json(&c, &format!("{base}/tiles.json")).await["generation"].as_str().unwrap().to_string();
        assert_ne!(g1, g2, "{kind}: the inspection's commit names a new generation at once");
        // The old ETag gets the fresh tile, with the inspection in it.
        let (s, etag2, props) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag1)).await;
        assert_eq!(s, 200);
        assert_ne!(etag2, etag1);
        let props = props.unwrap();
        assert_eq!(props["last_inspection"], today.as_str(), "{kind}: {props}");
        assert_eq!(props["last_screening"], "needs_follow_up", "{kind}: {props}");
        assert_eq!(props["overdue"].as_i64().or(props["overdue"].as_bool().map(i64::from)), Some(0), "{props}");
        let (s, _, _) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag2)).await;
        assert_eq!(s, 304);

        // An analyst's import from another process: the server reloads the layer, the
        // generation moves and the tile shows the new status.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("status.geojson");
        let items = items(&c, base, "outfalls").await;
        let mut of = items.into_iter().find(|f| id_of(f, "asset_id") == id).unwrap();
        of["properties"]["status"] = "abandoned".into();
        std::fs::write(&file, serde_json::json!({"type": "FeatureCollection", "features": [of]}).to_string()).unwrap();
        run_ok(&reg.url, &["import", "outfalls", file.to_str().unwrap()]);
        let g3 = wait_for_new_generation(&c, base, &g2).await;
        assert_ne!(g3, g2);
        let (s, _, props) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag2)).await;
        assert_eq!(s, 200);
        assert_eq!(props.unwrap()["status"], "abandoned", "{kind}");
    }
}

#[tokio::test]
async fn the_style_draws_only_layers_the_tiles_have_and_loads_nothing_from_outside() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let base = &server.base;
    let style = get_json(&c, &format!("{base}/styles/ms4.json")).await;
    let tj = get_json(&c, &format!("{base}/tiles.json")).await;
    check_style(&style, &tj, base);
    // Every tiled layer is drawn.
    for l in tj["vector_layers"].as_array().unwrap() {
        let id = l["id"].as_str().unwrap();
        assert!(style["layers"].as_array().unwrap().iter().any(|s| s["source-layer"] == id), "{id} is not drawn");
    }
    assert!(style["sources"].get("basemap").is_none(), "no basemap by default");
    if let Some(npm) = style_validator() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), style.to_string()).unwrap();
        let out = Command::new(npm.0).arg(npm.1).arg(f.path()).output().unwrap();
        assert!(out.status.success(), "the style spec's validator: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    }

    // A town's own basemap, by configuration.
    let server = serve(&reg.url, &["--public-read", "--basemap-url", "https://gis.town.example/basemap/{z}/{x}/{y}.png"]);
    let style = get_json(&c, &format!("{}/styles/ms4.json", server.base)).await;
    assert_eq!(style["sources"]["basemap"]["tiles"][0], "https://gis.town.example/basemap/{z}/{x}/{y}.png");
    assert_eq!(style["layers"][1]["id"], "basemap");
}

/// `node` and the validator script under tests/style, when its packages are installed
/// (`npm ci` there); under CI their absence fails the test.
fn style_validator() -> Option<(String, std::path::PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/style");
    let script = dir.join("validate.mjs");
    let installed = dir.join("node_modules/@maplibre/maplibre-gl-style-spec").exists();
    if !installed {
        if std::env::var_os("CI").is_some() {
            let st = Command::new("npm").arg("ci").current_dir(&dir).status().expect("npm");
            assert!(st.success(), "npm ci in tests/style");
        } else {
            eprintln!("SKIPPING the style spec validator: run `npm ci` in tests/style");
            return None;
        }
    }
    Some(("node".into(), script))
}

/// Every source and source layer the style names exists, every property it reads is a
/// field of that layer, and no URL points outside the server.
fn check_style(style: &serde_json::Value, tj: &serde_json::Value, base: &str) {
    assert_eq!(style["version"], 8);
    assert!(style.get("glyphs").is_none() && style.get("sprite").is_none(), "no glyphs or sprites");
    let s = style.to_string();
    for (i, _) in s.match_indices("http") {
        let rest = &s[i..];
        assert!(rest.starts_with(base), "a URL outside the server: {}", &rest[..rest.len().min(80)]);
    }
    let sources = style["sources"].as_object().unwrap();
    assert_eq!(sources["ms4"]["url"], format!("{base}/tiles.json"));
    let vl = tj["vector_layers"].as_array().unwrap();
    for l in style["layers"].as_array().unwrap() {
        let id = l["id"].as_str().unwrap();
        if l["type"] == "background" {
            continue;
        }
        let src = l["source"].as_str().unwrap();
        assert!(sources.contains_key(src), "{id}: source {src}");
        let sl = l["source-layer"].as_str().unwrap();
        let layer = vl.iter().find(|v| v["id"] == sl).unwrap_or_else(|| panic!("{id}: source-layer {sl} is not in the TileJSON"));
        let fields = layer["fields"].as_object().unwrap();
        let paint = l["paint"].to_string();
        for (i, _) in paint.match_indices("[\"get\",\"") {
            let name = &paint[i + 8..];
            let name = &name[..name.find('"').unwrap()];
            assert!(fields.contains_key(name), "{id} reads {name}, which {sl} lacks");
        }
        assert!(l["minzoom"].as_u64().unwrap() >= layer["minzoom"].as_u64().unwrap(), "{id} asks for tiles below {sl}'s minimum zoom");
    }
}

#[tokio::test]
async fn cors_is_off_unless_an_origin_is_given() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let c = reqwest::Client::new();
    let origin = "https://maps.town.example";
    let server = serve(&reg.url, &["--public-read"]);
    let r = c.get(format!("{}/tiles.json", server.base)).header("origin", origin).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    drop(server);
    let server = serve(&reg.url, &["--public-read", "--cors-origin", origin]);
    let r = c.get(format!("{}/tiles.json", server.base)).header("origin", origin).send().await.unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], origin);
    let r = c.get(format!("{}/tiles.json", server.base)).header("origin", "https://evil.example").send().await.unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
    // A preflight for a tile with a token and an ETag.
    let r = c
        .request(reqwest::Method::OPTIONS, format!("{}/tiles/0/0/0.mvt", server.base))
        .header("origin", origin)
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization,if-none-match")
        .send()
        .await
        .unwrap();
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], origin);
    let allowed = r.headers()["access-control-allow-headers"].to_str().unwrap().to_ascii_lowercase();
    assert!(allowed.contains("authorization") && allowed.contains("if-none-match"), "{allowed}");
}

#[tokio::test]
async fn ogc_tiles_metadata_is_listed_and_matches_the_tiles() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let base = &server.base;
    let conf = get_json(&c, &format!("{base}/conformance")).await;
    let list = conf["conformsTo"].to_string();
    assert!(list.contains("ogcapi-tiles-1/1.0/conf/core") && list.contains("ogcapi-features-1/1.0/conf/core"), "{list}");
    let tms = get_json(&c, &format!("{base}/tileMatrixSets/WebMercatorQuad")).await;
    assert_eq!(tms["tileMatrices"].as_array().unwrap().len(), 23);
    let sets = get_json(&c, &format!("{base}/collections/outfalls/tiles")).await;
    assert_eq!(sets["tilesets"][0]["dataType"], "vector");
    let ts = get_json(&c, &format!("{base}/collections/outfalls/tiles/WebMercatorQuad")).await;
    let item = ts["links"].as_array().unwrap().iter().find(|l| l["rel"] == "item").unwrap()["href"].as_str().unwrap().to_string();
    // The OGC tile (z/row/col) is the /tiles one (z/x/y).
    let (id, mx, my, _, _) = first_outfall(&c, base).await;
    let (x, y) = tile_of(mx, my, 15);
    let url = item.replace("{tileMatrix}", "15").replace("{tileRow}", &y.to_string()).replace("{tileCol}", &x.to_string());
    let (s, _, ogc) = get_tile(&c, &url).await;
    assert_eq!(s, 200);
    let feats = decode(&ogc, 15, x, y, "outfalls");
    assert!(feats.iter().any(|f| f["properties"]["id"] == id.as_str()));
    let (_, _, plain) = get_tile(&c, &format!("{base}/tiles/outfalls/15/{x}/{y}.mvt")).await;
    assert_eq!(ogc, plain);
    let doc = get_json(&c, &format!("{base}/api/openapi.json")).await;
    for p in ["/tiles/{z}/{x}/{y}.mvt", "/tiles.json", "/collections/{layer}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}", "/styles/ms4.json", "/tileMatrixSets"] {
        assert!(doc["paths"][p]["get"].is_object(), "{p} in the OpenAPI document");
    }
}

#[tokio::test]
async fn answers_with_places_come_as_geojson_in_crs84() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let base = &server.base;
    let (id, _, _, lon, lat) = first_outfall(&c, base).await;
    let q = format!("lon={lon}&lat={lat}&radius=2000ft");
    let json = get_json(&c, &format!("{base}/api/nearby?{q}")).await;
    let r = c.get(format!("{base}/api/nearby?{q}&f=geojson")).send().await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/geo+json");
    let fc: serde_json::Value = r.json().await.unwrap();
    let by_accept: serde_json::Value = c
        .get(format!("{base}/api/nearby?{q}"))
        .header("accept", "application/geo+json")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(fc, by_accept);
    assert_eq!(fc["type"], "FeatureCollection");
    let feats = fc["features"].as_array().unwrap();
    let facilities = json["facilities"].as_array().unwrap();
    assert_eq!(feats.len(), facilities.len());
    assert!(!feats.is_empty());
    // The nearest is the outfall asked about, at the position the OGC API gives it, with
    // the answer's distance as a property.
    assert_eq!(feats[0]["properties"]["id"], id.as_str());
    assert_eq!(feats[0]["properties"]["distance"], facilities[0]["distance"]);
    let co = &feats[0]["geometry"]["coordinates"];
    assert!((co[0].as_f64().unwrap() - lon).abs() < 1e-7 && (co[1].as_f64().unwrap() - lat).abs() < 1e-7, "{co}");
    for (f, a) in feats.iter().zip(facilities) {
        assert_eq!(f["properties"]["id"], a["id"]);
        let mut first = &f["geometry"]["coordinates"];
        while first[0].is_array() {
            first = &first[0];
        }
        let (x, y) = (first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
        assert!((-73.9..-73.5).contains(&x) && (41.0..41.3).contains(&y), "CRS84: {x} {y}");
    }

    // Every connection judged: a feature per connection, with its finding.
    let ill: serde_json::Value = get_json(&c, &format!("{base}/api/illicit?status=illicit,needs_review,ok,not_covered&f=geojson")).await;
    let plain = get_json(&c, &format!("{base}/api/illicit?status=illicit,needs_review,ok,not_covered")).await;
    let n = plain["connections"].as_array().unwrap().len();
    assert!(n > 0);
    assert_eq!(ill["features"].as_array().unwrap().len(), n);
    assert!(ill["features"][0]["properties"]["finding"]["result"].is_string());
    assert_eq!(ill["answer"]["jurisdiction"], "north-castle-ny");
    let smps = get_json(&c, &format!("{base}/api/smps-without-easement?all=true&f=geojson")).await;
    assert_eq!(smps["features"][0]["properties"]["layer"], "smps");
    // A format that is not one is a 400 naming f.
    let r = c.get(format!("{base}/api/nearby?{q}&f=kml")).send().await.unwrap();
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json().await.unwrap();
    assert!(e["error"].as_str().unwrap().starts_with("f:"), "{e}");
}

/// The tile-size bound on a synthetic town of 30,000 parcels (the county's density: the
/// generator's lots and streets do not change with its size), rendered in process: every
/// tile over it from zoom 0 to 17. The county itself is measured by `cargo bench --bench
/// tiles`, which reports its largest tile.
#[test]
fn no_tile_of_a_synthetic_town_is_over_500_kb() {
    use ms4::tiles::{self, TileId, TileLayer, TILE_LAYERS};
    let opts = ms4::synth::SynthOptions::new(30_000, 7);
    let layers = ms4::synth::generate(&opts).into_iter().collect();
    let meta = ms4::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
    let snap = std::sync::Arc::new(ms4::spatial::Snapshot::from_features(meta, layers));
    let profile = ms4::rules::Profile::builtin("north-castle-ny").unwrap();
    let net = std::sync::Arc::new(ms4::answer::build_network(&snap, &profile));
    let source = || Ok(net.clone());
    let state = tiles::Tiles::default();
    let all: Vec<&'static TileLayer> = TILE_LAYERS.iter().collect();
    let e = snap.layer(ms4::domain::Layer::Parcels).extent().unwrap();
    let rp = ms4::import::crs::Reprojector::new(2260, 3857).unwrap();
    let (x0, y0) = rp.point(e[0], e[1]).unwrap();
    let (x1, y1) = rp.point(e[2], e[3]).unwrap();
    let today = chrono::Local::now().date_naive();
    let (mut largest, mut at, mut count, mut with_parcels) = (0usize, None, 0, 0);
    for z in 0..=17u8 {
        let (tx0, ty0, tx1, ty1) = TileId::range(z, [x0, y0, x1, y1]);
        for x in tx0..=tx1 {
            for y in ty0..=ty1 {
                let t = TileId { z, x, y };
                let b = tiles::render(&state, &snap, &profile, &source, &all, t, today).unwrap();
                count += 1;
                if z >= 14 && b.windows(7).any(|w| w == b"parcels") {
                    with_parcels += 1;
                }
                if b.len() > largest {
                    (largest, at) = (b.len(), Some(t));
                }
            }
        }
    }
    eprintln!("{count} tiles; largest {} KB at {at:?}", largest / 1024);
    assert!(with_parcels > 10, "parcels drawn from zoom 14");
    assert!(largest <= 500 * 1024, "tile {at:?} is {} KB", largest / 1024);
}
