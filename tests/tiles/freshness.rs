//! Freshness: after an inspection and an import the next TileJSON names a new generation
//! and the tiles show the change; ETags give 304s only while nothing changed.

use super::*;

async fn outfall_in_tile(
    c: &reqwest::Client,
    base: &str,
    id: &str,
    mx: f64,
    my: f64,
    etag: Option<&str>,
) -> (reqwest::StatusCode, String, Option<serde_json::Value>) {
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
    let f = decode(&bytes, z, x, y, "outfalls")
        .into_iter()
        .find(|f| f["properties"]["id"] == id);
    (
        status,
        tag,
        Some(f.expect("the outfall is in its tile")["properties"].clone()),
    )
}

async fn wait_for_new_generation(c: &reqwest::Client, base: &str, old: &str) -> String {
    for _ in 0..100 {
        let g = get_json(c, &format!("{base}/tiles.json")).await["generation"]
            .as_str()
            .unwrap()
            .to_string();
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
        let r = reqwest::get(format!("{base}/tiles/0/0/0.mvt"))
            .await
            .unwrap();
        assert_eq!(r.status(), 401);

        let g1 = get_json(&c, &format!("{base}/tiles.json")).await["generation"]
            .as_str()
            .unwrap()
            .to_string();
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
        let g2 = get_json(&c, &format!("{base}/tiles.json")).await["generation"]
            .as_str()
            .unwrap()
            .to_string();
        assert_ne!(
            g1, g2,
            "{kind}: the inspection's commit names a new generation at once"
        );
        // The old ETag gets the fresh tile, with the inspection in it.
        let (s, etag2, props) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag1)).await;
        assert_eq!(s, 200);
        assert_ne!(etag2, etag1);
        let props = props.unwrap();
        assert_eq!(props["last_inspection"], today.as_str(), "{kind}: {props}");
        assert_eq!(
            props["last_screening"], "needs_follow_up",
            "{kind}: {props}"
        );
        assert_eq!(
            props["overdue"]
                .as_i64()
                .or(props["overdue"].as_bool().map(i64::from)),
            Some(0),
            "{props}"
        );
        let (s, _, _) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag2)).await;
        assert_eq!(s, 304);

        // An analyst's import from another process: the server reloads the layer, the
        // generation moves and the tile shows the new status.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("status.geojson");
        let items = items(&c, base, "outfalls").await;
        let mut of = items
            .into_iter()
            .find(|f| id_of(f, "asset_id") == id)
            .unwrap();
        of["properties"]["status"] = "abandoned".into();
        std::fs::write(
            &file,
            serde_json::json!({"type": "FeatureCollection", "features": [of]}).to_string(),
        )
        .unwrap();
        run_ok(&reg.url, &["import", "outfalls", file.to_str().unwrap()]);
        let g3 = wait_for_new_generation(&c, base, &g2).await;
        assert_ne!(g3, g2);
        let (s, _, props) = outfall_in_tile(&c, base, &id, mx, my, Some(&etag2)).await;
        assert_eq!(s, 200);
        assert_eq!(props.unwrap()["status"], "abandoned", "{kind}");
    }
}

/// A tile kept from an earlier request is the very tile a server keeping none renders,
/// at every zoom of a small pyramid over the demo town, and a kept tile is never served
/// once a write has made a new generation (above).
#[tokio::test]
async fn a_kept_tile_is_the_tile_rendered_afresh() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let reader = token(&reg.url, "planner", "Pat Plan", &[]);
    let keeping = serve(&reg.url, &[]);
    let fresh = serve(&reg.url, &["--tile-cache", "0"]);
    let c = reqwest::Client::new();
    let (_, mx, my, _, _) = {
        let authed = reqwest::Client::builder()
            .default_headers({
                let mut h = reqwest::header::HeaderMap::new();
                h.insert("authorization", format!("Bearer {reader}").parse().unwrap());
                h
            })
            .build()
            .unwrap();
        first_outfall(&authed, &keeping.base).await
    };
    let mut compared = 0;
    let mut features = 0;
    for z in [12u8, 14, 16] {
        let (x, y) = tile_of(mx, my, z);
        let get = |base: String| {
            let c = c.clone();
            let reader = reader.clone();
            async move {
                let r = c
                    .get(format!("{base}/tiles/{z}/{x}/{y}.mvt"))
                    .bearer_auth(&reader)
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status(), 200);
                r.bytes().await.unwrap()
            }
        };
        let first = get(keeping.base.clone()).await;
        let kept = get(keeping.base.clone()).await;
        let afresh = get(fresh.base.clone()).await;
        assert_eq!(
            first, kept,
            "z{z}: the kept tile differs from its first render"
        );
        assert_eq!(
            kept, afresh,
            "z{z}: the kept tile differs from a fresh render"
        );
        features += decode(&kept, z, x, y, "outfalls").len();
        compared += 1;
    }
    assert_eq!(compared, 3);
    assert!(
        features > 0,
        "the pyramid holds no outfall: nothing was compared"
    );
}
