//! The demo and the synthetic town, end to end through the binary.

mod common;

use std::io::{BufRead, BufReader};
use std::process::Stdio;

use common::*;
use ms4::domain::Layer;

#[tokio::test]
async fn demo_builds_every_layer_and_serves_it_on_loopback() {
    let dir = tempfile::tempdir().unwrap();
    let registry = dir.path().join("demo.gpkg");
    let mut child = ms4()
        .args(["demo", "--listen", "127.0.0.1:0", "--registry"])
        .arg(&registry)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("demo prints its URL").unwrap();
        if let Some(u) = line.strip_prefix("serving the registry at ") {
            break u.trim_end_matches('/').to_string();
        }
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let health: serde_json::Value = reqwest::get(format!("{url}/health"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["jurisdiction"], "north-castle-ny");
    let parcels: serde_json::Value =
        reqwest::get(format!("{url}/collections/parcels/items?limit=5"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(parcels["numberMatched"], 2000);
    let _ = child.kill();
    let _ = child.wait();

    let store = ms4::store::open(&format!("sqlite://{}", registry.display()))
        .await
        .unwrap();
    for layer in Layer::ALL {
        let n = store.count(layer).await.unwrap();
        // The demo town has no programme records yet: no inspections, no cases, no
        // construction sites or rainfall, no submissions.
        if matches!(
            layer,
            Layer::Inspections
                | Layer::Cases
                | Layer::Sites
                | Layer::Rainfall
                | Layer::ProgrammeSubmissions
        ) {
            assert_eq!(n, 0);
        } else {
            assert!(n > 0, "demo layer {layer} is empty");
        }
    }
}

#[tokio::test]
async fn synthetic_town_is_deterministic_and_imports_cleanly_into_both_stores() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b] {
        run_ok(
            "sqlite://unused.gpkg",
            &[
                "synth",
                "--scale",
                "400",
                "--seed",
                "9",
                "--crs",
                "EPSG:2260",
                "--out",
                out.to_str().unwrap(),
            ],
        );
    }
    for layer in ["parcels", "pipes", "connections"] {
        let fa = std::fs::read(a.join(format!("{layer}.gpkg"))).unwrap();
        let fb = std::fs::read(b.join(format!("{layer}.gpkg"))).unwrap();
        assert!(
            fa == fb,
            "{layer}.gpkg differs between two runs with the same seed"
        );
    }
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        for layer in [
            "boundary",
            "parcels",
            "pipes",
            "connections",
            "catch_basins",
            "watersheds",
        ] {
            let json = run_ok(
                &reg.url,
                &[
                    "import",
                    layer,
                    a.join(format!("{layer}.gpkg")).to_str().unwrap(),
                    "--format",
                    "json",
                ],
            );
            let r: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(r["rejected"], 0, "{kind} {layer}: {json}");
            assert_eq!(
                r["outside_boundary"].as_array().unwrap().len(),
                0,
                "{kind} {layer}"
            );
        }
        assert_eq!(reg.store.count(Layer::Parcels).await.unwrap(), 400);
    }
}
