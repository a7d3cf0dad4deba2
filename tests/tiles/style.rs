//! The map style, CORS and the OGC API – Tiles metadata.

use super::*;

#[tokio::test]
async fn the_style_draws_only_layers_the_tiles_have_and_loads_nothing_from_outside() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::public(&reg.store).await;
    let c = app.clone();
    let base = &app.base;
    let style = get_json(&c, &format!("{base}/styles/ms4.json")).await;
    // Each vector source's TileJSON: the registry's, and each mapping layer's own.
    let mut tjs = std::collections::BTreeMap::new();
    for (name, src) in style["sources"].as_object().unwrap() {
        if let Some(url) = src["url"].as_str() {
            tjs.insert(name.clone(), get_json(&c, url).await);
        }
    }
    check_style(&style, &tjs, base);
    // Every tiled layer is drawn, from its source.
    let every: Vec<&serde_json::Value> = tjs
        .values()
        .flat_map(|tj| tj["vector_layers"].as_array().unwrap())
        .collect();
    assert_eq!(every.len(), ms4::tiles::TILE_LAYERS.len());
    for l in every {
        let id = l["id"].as_str().unwrap();
        assert!(
            style["layers"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["source-layer"] == id),
            "{id} is not drawn"
        );
    }
    assert!(
        style["sources"].get("basemap").is_none(),
        "no basemap by default"
    );
    pipes_by_kind_and_flow(&c, &style, base).await;
    if let Some(npm) = style_validator() {
        let f = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(f.path(), style.to_string()).unwrap();
        let out = Command::new(npm.0)
            .arg(npm.1)
            .arg(f.path())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "the style spec's validator: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // A town's own basemap, by configuration.
    let with_basemap = App::with_config(
        &reg.store,
        ms4::http::ServeConfig {
            public_read: true,
            basemap_url: Some("https://gis.town.example/basemap/{z}/{x}/{y}.png".into()),
            ..Default::default()
        },
    )
    .await;
    let style = get_json(
        &with_basemap,
        &format!("{}/styles/ms4.json", with_basemap.base),
    )
    .await;
    assert_eq!(
        style["sources"]["basemap"]["tiles"][0],
        "https://gis.town.example/basemap/{z}/{x}/{y}.png"
    );
    assert_eq!(style["layers"][1]["id"], "basemap");
}

/// Pipes are coloured by kind and carry arrows (a line-placed symbol) from the server's
/// sprite, whose image is there at both densities; and the tiles give a pipe's line from
/// its `from_id` structure to its `to_id` one, so the arrows point downstream.
async fn pipes_by_kind_and_flow(c: &App, style: &serde_json::Value, base: &str) {
    let layers = style["layers"].as_array().unwrap();
    let pipes: Vec<&serde_json::Value> = layers
        .iter()
        .filter(|l| l["source-layer"] == "pipes")
        .collect();
    assert!(
        pipes.iter().any(|l| l["type"] == "line"
            && l["paint"]["line-color"]
                .to_string()
                .contains("[\"get\",\"kind\"]")),
        "pipes coloured by kind: {pipes:?}"
    );
    let flow = pipes
        .iter()
        .find(|l| l["type"] == "symbol")
        .expect("a symbol layer along the pipes");
    assert_eq!(flow["layout"]["symbol-placement"], "line");
    assert_eq!(flow["layout"]["icon-rotation-alignment"], "map");
    let icon = flow["layout"]["icon-image"].as_str().unwrap();
    for (json, png, ratio) in [
        ("sprite.json", "sprite.png", 1),
        ("sprite@2x.json", "sprite@2x.png", 2),
    ] {
        let index = get_json(c, &format!("{base}/styles/{json}")).await;
        let entry = &index[icon];
        assert_eq!(entry["pixelRatio"], ratio, "{json}: {index}");
        let r = c.get(format!("{base}/styles/{png}")).send().await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-type"], "image/png");
        let b = r.bytes();
        assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n", "{png} is a PNG");
        // IHDR: width and height, big-endian, after the signature and the chunk header.
        let w = u32::from_be_bytes(b[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(b[20..24].try_into().unwrap());
        assert!(
            entry["x"].as_u64().unwrap() + entry["width"].as_u64().unwrap() <= w as u64
                && entry["y"].as_u64().unwrap() + entry["height"].as_u64().unwrap() <= h as u64,
            "{icon} lies inside {png} ({w}x{h}): {entry}"
        );
    }
    let r = c.get(format!("{base}/styles/other.png")).send().await;
    assert_eq!(r.status(), 404);
    assert!(r.text().contains("other.png"));

    // A pipe in its tile runs from the structure its from_id names to its to_id one.
    let pipes = get_json(c, &format!("{base}/collections/pipes/items?limit=1000")).await;
    let mut checked = 0;
    for p in pipes["features"].as_array().unwrap() {
        let props = &p["properties"];
        let (Some(from), Some(to)) = (props["from_id"].as_str(), props["to_id"].as_str()) else {
            continue;
        };
        let (Some(a), Some(b)) = (
            structure_at(c, base, from).await,
            structure_at(c, base, to).await,
        ) else {
            continue;
        };
        let id = p["id"].as_str().unwrap().to_string();
        let coords = match p["geometry"]["type"].as_str() {
            Some("LineString") => p["geometry"]["coordinates"].as_array().unwrap(),
            Some("MultiLineString")
                if p["geometry"]["coordinates"].as_array().unwrap().len() == 1 =>
            {
                p["geometry"]["coordinates"][0].as_array().unwrap()
            }
            _ => continue,
        };
        let mid = |i: usize| {
            (
                coords[i][0].as_f64().unwrap(),
                coords[i][1].as_f64().unwrap(),
            )
        };
        let (x0, y0) = mid(0);
        let (mx, my) = merc(x0, y0);
        let (x, y) = tile_of(mx, my, 18);
        let (s, _, tile) = get_tile(c, &format!("{base}/tiles/pipes/18/{x}/{y}.mvt")).await;
        assert_eq!(s, 200);
        let feats = decode(&tile, 18, x, y, "pipes");
        let Some(f) = feats.iter().find(|f| f["properties"]["id"] == id.as_str()) else {
            continue;
        };
        let line = match f["geometry"]["type"].as_str() {
            Some("LineString") => f["geometry"]["coordinates"].as_array().unwrap().clone(),
            _ => continue,
        };
        let pt = |v: &serde_json::Value| (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());
        let (first, last) = (pt(&line[0]), pt(line.last().unwrap()));
        let d = |p: (f64, f64), q: (f64, f64)| (p.0 - q.0).hypot(p.1 - q.1);
        // Only lines wholly in the tile (their ends are the pipe's, within a metre).
        let (e0, e1) = (merc(x0, y0), {
            let (xn, yn) = mid(coords.len() - 1);
            merc(xn, yn)
        });
        let whole =
            (d(first, e0) < 1.0 && d(last, e1) < 1.0) || (d(first, e1) < 1.0 && d(last, e0) < 1.0);
        if !whole {
            continue;
        }
        let (a, b) = (merc(a.0, a.1), merc(b.0, b.1));
        assert!(
            d(first, a) <= d(first, b) && d(last, b) <= d(last, a),
            "pipe {id} runs from {from} at {a:?} to {to} at {b:?}; the tile has {first:?} .. {last:?}"
        );
        checked += 1;
        if checked == 5 {
            break;
        }
    }
    assert!(checked > 0, "no pipe with both structures was checked");
}

/// A structure's position (lon, lat) by id, from whichever structure layer holds it.
async fn structure_at(c: &App, base: &str, id: &str) -> Option<(f64, f64)> {
    for layer in ["manholes", "catch_basins", "outfalls"] {
        let r = c
            .get(format!("{base}/collections/{layer}/items/{id}"))
            .send()
            .await;
        if r.status() == 200 {
            let f: serde_json::Value = r.json();
            let g = &f["geometry"]["coordinates"];
            return Some((g[0].as_f64()?, g[1].as_f64()?));
        }
    }
    None
}

/// `node` and the validator script under tests/style, when its packages are installed
/// (`npm ci` there); under CI their absence fails the test.
fn style_validator() -> Option<(String, std::path::PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/style");
    let script = dir.join("validate.mjs");
    let installed = dir
        .join("node_modules/@maplibre/maplibre-gl-style-spec")
        .exists();
    if !installed {
        if std::env::var_os("CI").is_some() {
            let st = Command::new("npm")
                .arg("ci")
                .current_dir(&dir)
                .status()
                .expect("npm");
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
fn check_style(
    style: &serde_json::Value,
    tjs: &std::collections::BTreeMap<String, serde_json::Value>,
    base: &str,
) {
    assert_eq!(style["version"], 8);
    assert!(style.get("glyphs").is_none(), "no glyphs");
    assert_eq!(
        style["sprite"],
        format!("{base}/styles/sprite"),
        "the one sprite comes from the server"
    );
    let s = style.to_string();
    for (i, _) in s.match_indices("http") {
        let rest = &s[i..];
        assert!(
            rest.starts_with(base),
            "a URL outside the server: {}",
            &rest[..rest.len().min(80)]
        );
    }
    let sources = style["sources"].as_object().unwrap();
    assert_eq!(sources["ms4"]["url"], format!("{base}/tiles.json"));
    for name in ["monitoring_locations", "sewersheds"] {
        assert_eq!(sources[name]["url"], format!("{base}/tiles/{name}.json"));
    }
    for l in style["layers"].as_array().unwrap() {
        let id = l["id"].as_str().unwrap();
        if l["type"] == "background" {
            continue;
        }
        let src = l["source"].as_str().unwrap();
        assert!(sources.contains_key(src), "{id}: source {src}");
        let sl = l["source-layer"].as_str().unwrap();
        let layer = tjs[src]["vector_layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["id"] == sl)
            .unwrap_or_else(|| panic!("{id}: source-layer {sl} is not in the TileJSON"));
        let fields = layer["fields"].as_object().unwrap();
        let paint = l["paint"].to_string();
        for (i, _) in paint.match_indices("[\"get\",\"") {
            let name = &paint[i + 8..];
            let name = &name[..name.find('"').unwrap()];
            // The one property read that no feature has, on purpose: a value shared by
            // every feature, written per feature so that layers share a shader.
            assert!(
                fields.contains_key(name) || name == ms4::http::style::NO_PROPERTY,
                "{id} reads {name}, which {sl} lacks"
            );
        }
        assert!(
            l["minzoom"].as_u64().unwrap() >= layer["minzoom"].as_u64().unwrap(),
            "{id} asks for tiles below {sl}'s minimum zoom"
        );
    }
}

#[tokio::test]
async fn cors_is_off_unless_an_origin_is_given() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let origin = "https://maps.town.example";
    let c = App::public(&reg.store).await;
    let r = c.get("/tiles.json").header("origin", origin).send().await;
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    let c = App::with_config(
        &reg.store,
        ms4::http::ServeConfig {
            public_read: true,
            cors_origins: vec![origin.to_string()],
            ..Default::default()
        },
    )
    .await;
    let r = c.get("/tiles.json").header("origin", origin).send().await;
    assert_eq!(r.headers()["access-control-allow-origin"], origin);
    let r = c
        .get("/tiles.json")
        .header("origin", "https://evil.example")
        .send()
        .await;
    assert!(r.headers().get("access-control-allow-origin").is_none());
    // A preflight for a tile with a token and an ETag.
    let r = c
        .request("OPTIONS", "/tiles/0/0/0.mvt")
        .header("origin", origin)
        .header("access-control-request-method", "GET")
        .header(
            "access-control-request-headers",
            "authorization,if-none-match",
        )
        .send()
        .await;
    assert!(r.status().is_success(), "{}", r.status());
    assert_eq!(r.headers()["access-control-allow-origin"], origin);
    let allowed = r.headers()["access-control-allow-headers"]
        .to_str()
        .unwrap()
        .to_ascii_lowercase();
    assert!(
        allowed.contains("authorization") && allowed.contains("if-none-match"),
        "{allowed}"
    );
}

#[tokio::test]
async fn ogc_tiles_metadata_is_listed_and_matches_the_tiles() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::public(&reg.store).await;
    let c = app.clone();
    let base = &app.base;
    let conf = get_json(&c, &format!("{base}/conformance")).await;
    let list = conf["conformsTo"].to_string();
    assert!(
        list.contains("ogcapi-tiles-1/1.0/conf/core")
            && list.contains("ogcapi-features-1/1.0/conf/core"),
        "{list}"
    );
    let tms = get_json(&c, &format!("{base}/tileMatrixSets/WebMercatorQuad")).await;
    assert_eq!(tms["tileMatrices"].as_array().unwrap().len(), 23);
    let sets = get_json(&c, &format!("{base}/collections/outfalls/tiles")).await;
    assert_eq!(sets["tilesets"][0]["dataType"], "vector");
    let ts = get_json(
        &c,
        &format!("{base}/collections/outfalls/tiles/WebMercatorQuad"),
    )
    .await;
    let item = ts["links"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["rel"] == "item")
        .unwrap()["href"]
        .as_str()
        .unwrap()
        .to_string();
    // The OGC tile (z/row/col) is the /tiles one (z/x/y).
    let (id, mx, my, _, _) = first_outfall(&c, base).await;
    let (x, y) = tile_of(mx, my, 15);
    let url = item
        .replace("{tileMatrix}", "15")
        .replace("{tileRow}", &y.to_string())
        .replace("{tileCol}", &x.to_string());
    let (s, _, ogc) = get_tile(&c, &url).await;
    assert_eq!(s, 200);
    let feats = decode(&ogc, 15, x, y, "outfalls");
    assert!(feats.iter().any(|f| f["properties"]["id"] == id.as_str()));
    let (_, _, plain) = get_tile(&c, &format!("{base}/tiles/outfalls/15/{x}/{y}.mvt")).await;
    assert_eq!(ogc, plain);
    let doc = get_json(&c, &format!("{base}/api/openapi.json")).await;
    for p in [
        "/tiles/{z}/{x}/{y}.mvt",
        "/tiles.json",
        "/collections/{layer}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}",
        "/styles/ms4.json",
        "/tileMatrixSets",
    ] {
        assert!(
            doc["paths"][p]["get"].is_object(),
            "{p} in the OpenAPI document"
        );
    }
}
