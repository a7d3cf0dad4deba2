//! The real server, started as a process on 127.0.0.1:0.

mod common;

use common::*;
use rstest::rstest;

/// The server, readable by anyone (these tests are about serving, not tokens).
fn start(store: &str) -> Server {
    serve(store, &["--public-read"])
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn serve_answers_health_and_a_layer_as_wgs84_geojson(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2927).await;
    run_ok(
        &reg.url,
        &[
            "import",
            "outfalls",
            fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson")
                .to_str()
                .unwrap(),
            "--map",
            "asset_id=ALTID",
        ],
    );
    let server = start(&reg.url);
    let c = reqwest::Client::new();
    let health: serde_json::Value = c
        .get(format!("{}/health", server.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["status"], "ok");
    assert_eq!(health["store"], kind);
    assert_eq!(health["crs"], "EPSG:2927");

    let r = c
        .get(format!(
            "{}/collections/outfalls/items?limit=1000",
            server.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let fc: serde_json::Value = r.json().await.unwrap();
    assert_eq!(fc["numberMatched"], 959);
    let feats = fc["features"].as_array().unwrap();
    assert_eq!(feats.len(), 959);
    // Tacoma is near 122.4 W, 47.2 N.
    for f in feats {
        let c = &f["geometry"]["coordinates"];
        let (lon, lat) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
        assert!(
            (-122.7..-122.2).contains(&lon) && (47.0..47.4).contains(&lat),
            "{f}"
        );
    }

    let bad = c
        .get(format!(
            "{}/collections/outfalls/items?limit=0",
            server.base
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    let body: serde_json::Value = bad.json().await.unwrap();
    assert!(
        body["error"].as_str().unwrap().starts_with("limit:"),
        "{body}"
    );
    let missing = c
        .get(format!("{}/collections/nope/items", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), 404);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_running_server_picks_up_an_import_committed_by_another_process(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2927).await;
    let server = start(&reg.url);
    let count = || async {
        let fc: serde_json::Value = reqwest::get(format!(
            "{}/collections/watersheds/items?limit=1",
            server.base
        ))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
        fc["numberMatched"].as_u64().unwrap()
    };
    assert_eq!(count().await, 0);
    run_ok(
        &reg.url,
        &[
            "import",
            "watersheds",
            fixture("tacoma/SurfacewaterSubbasinOutline.geojson")
                .to_str()
                .unwrap(),
            "--map",
            "watershed_id=SUBBASIN",
        ],
    );
    let started = std::time::Instant::now();
    while count().await != 67 {
        assert!(
            started.elapsed().as_secs() < 15,
            "{kind}: the server never saw the import"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// The command's flags reach the service it runs: `--public-read`, `--public-url` and
/// `--allowed-host` (the links), `--cors-origin`, `--basemap-url` and `--body-limit`. What
/// each does is tested on the router in process (tests/http, tests/tiles); this is the
/// command's reading of them, on one served process.
#[tokio::test]
async fn the_serve_flags_reach_the_service() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let origin = "https://maps.town.example";
    let basemap = "https://gis.town.example/basemap/{z}/{x}/{y}.png";
    let server = serve(
        &reg.url,
        &[
            "--public-read",
            "--public-url",
            "https://ms4.town.example/",
            "--allowed-host",
            "gis.town.example",
            "--cors-origin",
            origin,
            "--basemap-url",
            basemap,
            "--body-limit",
            "64KB",
        ],
    );
    let c = reqwest::Client::new();
    let b = &server.base;
    let json = |r: reqwest::Response| async move {
        let s = r.status().as_u16();
        (s, r.json::<serde_json::Value>().await.unwrap())
    };
    let hrefs = |v: &serde_json::Value| -> Vec<String> {
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["href"].as_str().unwrap().to_string())
            .collect()
    };
    // No token: read anyway. Links: the public URL, or an allowed host; never another.
    let r = c
        .get(format!("{b}/collections"))
        .header("host", "evil.example")
        .send()
        .await
        .unwrap();
    let (s, v) = json(r).await;
    assert_eq!(s, 200, "{v}");
    let h = hrefs(&v);
    assert!(!h.is_empty(), "{v}");
    for h in h {
        assert!(h.starts_with("https://ms4.town.example/collections"), "{h}");
    }
    let r = c
        .get(format!("{b}/"))
        .header("host", "gis.town.example")
        .send()
        .await
        .unwrap();
    let (_, v) = json(r).await;
    assert!(
        hrefs(&v)
            .iter()
            .all(|h| h.starts_with("https://gis.town.example/")),
        "{v}"
    );
    // CORS for the origin given.
    let r = c
        .get(format!("{b}/tiles.json"))
        .header("origin", origin)
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["access-control-allow-origin"], origin);
    // The basemap in the style.
    let (s, style) = json(c.get(format!("{b}/styles/ms4.json")).send().await.unwrap()).await;
    assert_eq!(s, 200);
    assert_eq!(style["sources"]["basemap"]["tiles"][0], basemap);
    // A body over the limit: 413.
    let r = c
        .post(format!("{b}/api/determinations"))
        .header("content-type", "application/json")
        .body(vec![b' '; 100 * 1024])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 413);
}
