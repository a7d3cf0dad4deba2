//! The real server, started as a process on 127.0.0.1:0.

mod common;

use common::*;

/// The server, readable by anyone (these tests are about serving, not tokens).
fn start(store: &str) -> Server {
    serve(store, &["--public-read"])
}

#[tokio::test]
async fn serve_answers_health_and_a_layer_as_wgs84_geojson() {
    for kind in kinds() {
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
}

#[tokio::test]
async fn a_running_server_picks_up_an_import_committed_by_another_process() {
    for kind in kinds() {
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
}
