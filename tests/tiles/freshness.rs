//! Freshness: after an inspection and an import the next TileJSON names a new generation
//! and the tiles show the change; ETags give 304s only while nothing changed.

use super::*;

async fn outfall_in_tile(
    c: &App,
    base: &str,
    id: &str,
    mx: f64,
    my: f64,
    etag: Option<&str>,
) -> (axum::http::StatusCode, String, Option<serde_json::Value>) {
    let z = 16;
    let (x, y) = tile_of(mx, my, z);
    let mut rq = c.get(format!("{base}/tiles/outfalls/{z}/{x}/{y}.mvt"));
    if let Some(e) = etag {
        rq = rq.header("if-none-match", e);
    }
    let r = rq.send().await;
    let status = r.status();
    let tag = r.headers()["etag"].to_str().unwrap().to_string();
    let bytes = r.bytes();
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

async fn wait_for_new_generation(c: &App, base: &str, old: &str) -> String {
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

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn an_inspection_and_an_import_show_in_the_next_tiles(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let inspector = token(&reg.url, "inspector", "Ann Field", &[]);
    let reader = token(&reg.url, "planner", "Pat Plan", &[]);
    let app = App::new(&reg.store).await;
    let base = &app.base;
    let c = app.clone().with_bearer(&reader);
    // Tiles are reads: no token, no tile.
    let r = app.get(format!("{base}/tiles/0/0/0.mvt")).send().await;
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

    let r = app
        .post(format!("{base}/api/inspections"))
        .bearer_auth(&inspector)
        .json(&serde_json::json!({"asset_id": id, "inspected_on": today, "kind": "dry_weather_screening", "result": "needs_follow_up",
            "screening": {"flow": "trickle", "odour": "sewage", "colour": "grey", "turbidity": "cloudy",
                "floatables": "none", "deposits": "staining", "field_tests": {"ph": 6.8, "ammonia_mg_l": 1.4}}}))
        .send()
        .await;
    assert_eq!(r.status(), 201, "{}", r.text());
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

/// A tile kept from an earlier request is the very tile a server keeping none renders,
/// at every zoom of a small pyramid over the demo town, and a kept tile is never served
/// once a write has made a new generation (above).
#[tokio::test]
async fn a_kept_tile_is_the_tile_rendered_afresh() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let reader = token(&reg.url, "planner", "Pat Plan", &[]);
    let keeping = App::new(&reg.store).await;
    let fresh = App::with_config(
        &reg.store,
        ms4::http::ServeConfig {
            tile_cache_bytes: 0,
            ..Default::default()
        },
    )
    .await;
    let (_, mx, my, _, _) = {
        let authed = keeping.clone().with_bearer(&reader);
        first_outfall(&authed, &keeping.base).await
    };
    let mut compared = 0;
    let mut features = 0;
    for z in [12u8, 14, 16] {
        let (x, y) = tile_of(mx, my, z);
        let get = |app: &App| {
            let c = app.clone();
            let reader = reader.clone();
            async move {
                let r = c
                    .get(format!("/tiles/{z}/{x}/{y}.mvt"))
                    .bearer_auth(&reader)
                    .send()
                    .await;
                assert_eq!(r.status(), 200);
                r.bytes()
            }
        };
        let first = get(&keeping).await;
        let kept = get(&keeping).await;
        let afresh = get(&fresh).await;
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

/// Every connection's finding in the tiles (the page's tiles, every layer) is the one
/// `/api/illicit` gives: before any write, after an inspection that leaves the findings'
/// evidence alone (the server keeps the findings it derived), and after screenings that
/// found sewage downstream, which the illicit rule reads (then they are judged again).
#[tokio::test]
async fn connection_findings_in_tiles_follow_the_screenings_that_found_sewage() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let inspector = token(&reg.url, "inspector", "Ann Field", &[]);
    let app = App::public(&reg.store).await;
    let base = &app.base;
    let c = app.clone();
    let findings = || async {
        let v = get_json(
            &c,
            &format!("{base}/api/illicit?status=illicit,needs_review,ok,not_covered"),
        )
        .await;
        v["connections"]
            .as_array()
            .unwrap()
            .iter()
            .map(|k| {
                (
                    k["connection_id"].as_str().unwrap().to_string(),
                    k["finding"]["result"].as_str().unwrap().to_string(),
                )
            })
            .collect::<std::collections::HashMap<String, String>>()
    };
    // The z16 tile of each connection's first position.
    let z = 16;
    let mut tile_of_conn = std::collections::HashMap::new();
    for f in items(&c, base, "connections").await {
        let id = f["id"].as_str().unwrap().to_string();
        let g = &f["geometry"]["coordinates"];
        let first = if g[0].is_array() { &g[0] } else { g };
        let (mx, my) = merc(first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
        tile_of_conn.insert(id, tile_of(mx, my, z));
    }
    assert!(tile_of_conn.len() > 10, "the demo has connections");
    // The tiles' findings of the connections `ids`, compared with the API's.
    let check = |ids: Vec<String>,
                 api: std::collections::HashMap<String, String>,
                 when: &'static str| {
        let c = c.clone();
        let tile_of_conn = tile_of_conn.clone();
        async move {
            let mut tiles: Vec<(u32, u32)> = ids.iter().map(|i| tile_of_conn[i]).collect();
            tiles.sort();
            tiles.dedup();
            let mut seen = 0;
            for (x, y) in tiles.into_iter().take(6) {
                let (s, _, bytes) = get_tile(&c, &format!("{base}/tiles/{z}/{x}/{y}.mvt")).await;
                assert_eq!(s, 200);
                for f in decode(&bytes, z, x, y, "connections") {
                    let id = f["properties"]["id"].as_str().unwrap();
                    assert_eq!(
                        f["properties"]["finding"].as_str(),
                        api.get(id).map(String::as_str),
                        "{when}: connection {id} in tile {z}/{x}/{y}"
                    );
                    seen += 1;
                }
            }
            assert!(seen > 0, "{when}: no connection read from the tiles");
        }
    };
    let before = findings().await;
    check(
        before.keys().cloned().collect(),
        before.clone(),
        "before any write",
    )
    .await;

    let outfalls = items(&c, base, "outfalls").await;
    let today = chrono::Local::now().date_naive().to_string();
    let post = |asset: String, body: serde_json::Value| {
        let c = c.clone();
        let inspector = inspector.clone();
        async move {
            let mut b = body;
            b["asset_id"] = asset.into();
            let r = c
                .post(format!("{base}/api/inspections"))
                .bearer_auth(&inspector)
                .json(&b)
                .send()
                .await;
            // 200 when it replaces the same day's screening of the outfall.
            assert!(r.status() == 201 || r.status() == 200, "{}", r.text());
        }
    };
    // A screening that found no flow: nothing the findings read.
    let first = outfalls[0]["id"].as_str().unwrap().to_string();
    post(first, serde_json::json!({"inspected_on": today, "kind": "dry_weather_screening", "result": "no flow"})).await;
    let after_dry = findings().await;
    assert_eq!(
        after_dry, before,
        "a screening without sewage changed a finding"
    );
    check(
        before.keys().cloned().collect(),
        after_dry,
        "after a screening without sewage",
    )
    .await;

    // Sewage found at every outfall: evidence against the connections upstream.
    for of in &outfalls {
        post(
            of["id"].as_str().unwrap().to_string(),
            serde_json::json!({"inspected_on": today, "kind": "dry_weather_screening", "result": "needs_follow_up",
                "screening": {"flow": "trickle", "odour": "sewage", "colour": "grey", "turbidity": "cloudy"}}),
        )
        .await;
    }
    let after_sewage = findings().await;
    let changed: Vec<String> = after_sewage
        .iter()
        .filter(|(id, f)| before.get(*id) != Some(*f))
        .map(|(id, _)| id.clone())
        .collect();
    assert!(
        !changed.is_empty(),
        "sewage at every outfall changed no connection's finding"
    );
    check(changed, after_sewage, "after screenings that found sewage").await;
}
