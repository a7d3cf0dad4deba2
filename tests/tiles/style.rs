//! The map style, CORS and the OGC API – Tiles metadata.

use super::*;

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
    let server = serve(
        &reg.url,
        &[
            "--public-read",
            "--basemap-url",
            "https://gis.town.example/basemap/{z}/{x}/{y}.png",
        ],
    );
    let style = get_json(&c, &format!("{}/styles/ms4.json", server.base)).await;
    assert_eq!(
        style["sources"]["basemap"]["tiles"][0],
        "https://gis.town.example/basemap/{z}/{x}/{y}.png"
    );
    assert_eq!(style["layers"][1]["id"], "basemap");
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
fn check_style(style: &serde_json::Value, tj: &serde_json::Value, base: &str) {
    assert_eq!(style["version"], 8);
    assert!(
        style.get("glyphs").is_none() && style.get("sprite").is_none(),
        "no glyphs or sprites"
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
    let vl = tj["vector_layers"].as_array().unwrap();
    for l in style["layers"].as_array().unwrap() {
        let id = l["id"].as_str().unwrap();
        if l["type"] == "background" {
            continue;
        }
        let src = l["source"].as_str().unwrap();
        assert!(sources.contains_key(src), "{id}: source {src}");
        let sl = l["source-layer"].as_str().unwrap();
        let layer = vl
            .iter()
            .find(|v| v["id"] == sl)
            .unwrap_or_else(|| panic!("{id}: source-layer {sl} is not in the TileJSON"));
        let fields = layer["fields"].as_object().unwrap();
        let paint = l["paint"].to_string();
        for (i, _) in paint.match_indices("[\"get\",\"") {
            let name = &paint[i + 8..];
            let name = &name[..name.find('"').unwrap()];
            assert!(
                fields.contains_key(name),
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
    let c = reqwest::Client::new();
    let origin = "https://maps.town.example";
    let server = serve(&reg.url, &["--public-read"]);
    let r = c
        .get(format!("{}/tiles.json", server.base))
        .header("origin", origin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(r.headers().get("access-control-allow-origin").is_none());
    drop(server);
    let server = serve(&reg.url, &["--public-read", "--cors-origin", origin]);
    let r = c
        .get(format!("{}/tiles.json", server.base))
        .header("origin", origin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], origin);
    let r = c
        .get(format!("{}/tiles.json", server.base))
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
    // A preflight for a tile with a token and an ETag.
    let r = c
        .request(
            reqwest::Method::OPTIONS,
            format!("{}/tiles/0/0/0.mvt", server.base),
        )
        .header("origin", origin)
        .header("access-control-request-method", "GET")
        .header(
            "access-control-request-headers",
            "authorization,if-none-match",
        )
        .send()
        .await
        .unwrap();
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
    let server = serve(&reg.url, &["--public-read"]);
    let c = reqwest::Client::new();
    let base = &server.base;
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
