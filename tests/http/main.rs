//! The HTTP service end to end, on both stores, each its own case. Most tests drive the
//! router in process (`common::App`, no socket); those whose point is the server itself
//! (a signal, idle sockets, hyper's own refusals, the `--write-wait` the command sets)
//! run the real `ms4 serve` on 127.0.0.1:0 over HTTP. Roles (every write route with no
//! token, a revoked token, an expired one and each role), OGC API Features paging, bbox
//! and CRS, inspections feeding the answers, uploads in one transaction, limits and
//! errors, the API definition.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod case_versions;
#[path = "../common/mod.rs"]
mod common;
mod features;
mod field_errors;
mod import_options;
mod inspection_versions;
mod integrity;
mod photos;
mod roles;
mod security;
mod writes;

use common::*;
use ms4::domain::Layer;
use rstest::rstest;
use serde_json::{json, Value};

/// Sends a request to the router in process: its status and its JSON body.
async fn send(req: Call) -> (u16, Value) {
    let r = req.send().await;
    (r.status.as_u16(), r.json())
}

/// Sends a request to a served process over HTTP: its status and its JSON body.
async fn send_http(req: reqwest::RequestBuilder) -> (u16, Value) {
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status}: not JSON: {text}"));
    (status, v)
}

fn bearer(req: Call, token: Option<&str>) -> Call {
    match token {
        Some(t) => req.bearer_auth(t),
        None => req,
    }
}

/// Three new catch basins inside the demo town, as RFC 7946 GeoJSON.
fn new_catch_basins() -> String {
    json!({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"asset_id": "CB-UP-1", "status": "active"},
         "geometry": {"type": "Point", "coordinates": [-73.8530, 41.2200]}},
        {"type": "Feature", "properties": {"asset_id": "CB-UP-2", "status": "active"},
         "geometry": {"type": "Point", "coordinates": [-73.8531, 41.2201]}},
        {"type": "Feature", "properties": {"asset_id": "CB-UP-3", "status": "abandoned"},
         "geometry": {"type": "Point", "coordinates": [-73.8532, 41.2202]}},
    ]})
    .to_string()
}

fn upload_form(name: &str, bytes: Vec<u8>, extra: &[(&str, &str)]) -> Form {
    let mut form = Form::new().file("file", name, bytes);
    for (k, v) in extra {
        form = form.text(*k, *v);
    }
    form
}

/// The API definition is served and lists the routes with their security.
#[tokio::test]
async fn the_api_definition_is_served() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::new(&reg.store).await;
    let (s, doc) = send(app.get("/api/openapi.json")).await;
    assert_eq!(s, 200);
    assert_eq!(doc["openapi"], "3.0.3");
    assert!(doc["paths"]["/api/inspections"]["post"]["responses"]["403"].is_object());
    let (s, e) = send(app.delete("/api/openapi.json")).await;
    assert_eq!(s, 405, "{e}");
    assert!(e["error"].as_str().unwrap().contains("DELETE"), "{e}");
    assert!(
        doc["paths"]["/collections/{layer}/items"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "bbox-crs")
    );
}

/// SIGTERM lets the server finish and exit cleanly.
#[tokio::test]
async fn the_server_shuts_down_gracefully() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let mut server = serve(&reg.url, &["--public-read"]);
    let (s, _) = send_http(reqwest::Client::new().get(format!("{}/health", server.base))).await;
    assert_eq!(s, 200);
    // Signalled from here, not with kill(1): a minimal system has no procps.
    let pid = server.child.id() as libc::pid_t;
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let t = std::time::Instant::now();
    loop {
        if let Some(st) = server.child.try_wait().unwrap() {
            assert!(st.success(), "exit status {st:?}");
            break;
        }
        assert!(
            t.elapsed().as_secs() < 10,
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
