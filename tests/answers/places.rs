//! GeoJSON answers are the places their JSON names, one feature each and in its order,
//! whatever the layer: on the demo town with its `structures` layer (two structures no
//! pipe meets) and a small network whose pipes end on a headwall, a junction box and an
//! SMP, over HTTP (in process) and from every CLI verb with `--format geojson`.

use axum::body::Body as AxBody;
use axum::http::{header, Request};
use ms4::http::{app, AppState, ServeConfig};
use ms4::spatial::{Snapshot, SnapshotHandle};
use serde_json::Value;
use tower::ServiceExt;

use super::common::{self, fixture, run_ok, Registry};
use super::Layer;

/// The demo town, its structures, and the structures fixture network beside it.
async fn town() -> Registry {
    let reg = common::demo_registry("sqlite", "north-castle-ny").await;
    let demo =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo/structures.geojson");
    run_ok(&reg.url, &["import", "structures", demo.to_str().unwrap()]);
    let s = fixture("networks/structures.structures.geojson");
    run_ok(
        &reg.url,
        &[
            "import",
            s.to_str().unwrap(),
            "--layer-by",
            "kind=structures:'structure';smps:'smp';outfalls:'outfall';catch_basins:'catch_basin'",
        ],
    );
    let p = fixture("networks/structures.pipes.geojson");
    run_ok(&reg.url, &["import", "pipes", p.to_str().unwrap()]);
    reg
}

fn public(reg: &Registry, snapshot: SnapshotHandle, profile: ms4::rules::Profile) -> AppState {
    let config = ServeConfig {
        public_read: true,
        ..ServeConfig::default()
    };
    AppState::with_config(reg.store.clone(), snapshot, profile, config)
}

/// An answer over HTTP: its status, media type and body.
async fn call(state: &AppState, req: Request<AxBody>) -> (u16, String, Value) {
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let media = res
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (
        status,
        media,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// The JSON answer and the GeoJSON one for a GET, the GeoJSON asked both ways.
async fn get_both(state: &AppState, uri: &str) -> (Value, Value) {
    let req = |u: &str| Request::get(u).body(AxBody::empty()).unwrap();
    let (s, media, json) = call(state, req(uri)).await;
    assert_eq!(
        (s, media.as_str()),
        (200, "application/json"),
        "{uri}: {json}"
    );
    let sep = if uri.contains('?') { '&' } else { '?' };
    let (s, media, geo) = call(state, req(&format!("{uri}{sep}f=geojson"))).await;
    assert_eq!(
        (s, media.as_str()),
        (200, "application/geo+json"),
        "{uri}: {geo}"
    );
    let by_accept = Request::get(uri)
        .header(header::ACCEPT, "application/geo+json")
        .body(AxBody::empty())
        .unwrap();
    assert_eq!(call(state, by_accept).await.2, geo, "{uri}: Accept");
    (json, geo)
}

async fn post_both(state: &AppState, uri: &str, body: &Value) -> (Value, Value) {
    let req = |u: String| {
        Request::post(u)
            .header(header::CONTENT_TYPE, "application/json")
            .body(AxBody::from(body.to_string()))
            .unwrap()
    };
    let (s, _, json) = call(state, req(uri.to_string())).await;
    assert_eq!(s, 200, "{uri}: {json}");
    let (s, media, geo) = call(state, req(format!("{uri}?f=geojson"))).await;
    assert_eq!(
        (s, media.as_str()),
        (200, "application/geo+json"),
        "{uri}: {geo}"
    );
    (json, geo)
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn ids_of(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .unwrap_or_else(|| panic!("not a list: {list}"))
        .iter()
        .map(|x| x[key].as_str().unwrap().to_string())
        .collect()
}

/// The places a JSON answer names, read from the JSON as a person would.
fn named(route: &str, a: &Value) -> Vec<String> {
    match route {
        "nearby" => ids_of(&a["facilities"], "id"),
        "watershed" => {
            let mut v = vec![a["list"]["watershed_id"].as_str().unwrap().to_string()];
            v.extend(ids_of(&a["list"]["facilities"], "id"));
            v
        }
        "trace" => {
            let t = &a["trace"];
            let mut v = strs(&t["structures"]);
            v.extend(strs(&t["pipes"]));
            v.extend(
                ids_of(&t["outfalls"], "outfall")
                    .into_iter()
                    .map(|o| format!("path to {o}")),
            );
            v.extend(ids_of(&a["connections"], "connection_id"));
            v
        }
        "illicit" => ids_of(&a["connections"], "connection_id"),
        "smps" => ids_of(&a["smps"], "smp_id"),
        "screen" => ids_of(&a["results"], "parcel_id"),
        "network-check" => {
            let mut v = Vec::new();
            let mut kind = |k: &str, list: &Value, key: Option<&str>| {
                for (i, x) in list.as_array().unwrap().iter().enumerate() {
                    let id = match key {
                        Some(key) => x[key].as_str().unwrap_or("").to_string(),
                        None if k == "cycle" => format!("cycle {}", i + 1),
                        None => x.as_str().unwrap().to_string(),
                    };
                    v.push(format!("{k} {id}"));
                }
            };
            kind("dangling_end", &a["dangling_ends"], Some("pipe"));
            kind("t_junction", &a["t_junctions"], Some("pipe"));
            kind("cycle", &a["cycles"], None);
            kind("zero_length_pipe", &a["zero_length_pipes"], Some("pipe"));
            kind("reversed_pipe", &a["reversed_pipes"], Some("pipe"));
            kind("bidirectional_pipe", &a["bidirectional_pipes"], None);
            kind("unknown_id", &a["unknown_ids"], Some("pipe"));
            kind("id_collision", &a["id_collisions"], Some("id"));
            kind("duplicate_id", &a["duplicate_ids"], Some("id"));
            kind("orphan_structure", &a["orphan_structures"], Some("id"));
            kind("part", &a["parts"], Some("example"));
            kind("unreadable_row", &a["unreadable_rows"], Some("id"));
            v
        }
        "receiving-waters" => waters(a, &mut Vec::new()),
        "determination" => {
            let mut seen = Vec::new();
            let mut v = Vec::new();
            if let Some(p) = a["parcel"].as_str() {
                seen.push(format!("parcels/{p}"));
                v.push(p.to_string());
            }
            v.extend(waters(&a["receiving_waters"], &mut seen));
            let mut evidence = Vec::new();
            collect_feature_evidence(&a["determination"], &mut evidence);
            for (layer, id) in evidence {
                let key = format!("{layer}/{id}");
                if !seen.contains(&key) {
                    seen.push(key);
                    v.push(id);
                }
            }
            v
        }
        other => panic!("no route {other}"),
    }
}

fn waters(rw: &Value, seen: &mut Vec<String>) -> Vec<String> {
    let mut v = Vec::new();
    for (list, key, layer) in [
        ("by_watershed", "watershed_id", "watersheds"),
        ("by_network", "outfall", "outfalls"),
        ("listed", "water_id", "receiving_waters"),
        ("tmdl_areas", "tmdl_id", "tmdl_areas"),
    ] {
        for id in ids_of(&rw[list], key) {
            seen.push(format!("{layer}/{id}"));
            v.push(id);
        }
    }
    v
}

/// The features a determination's findings cite as evidence, in answer order.
fn collect_feature_evidence(v: &Value, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(o) => {
            if o.get("kind").and_then(Value::as_str) == Some("feature") {
                out.push((
                    o["layer"].as_str().unwrap().to_string(),
                    o["id"].as_str().unwrap().to_string(),
                ));
            }
            o.values().for_each(|x| collect_feature_evidence(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_feature_evidence(x, out)),
        _ => {}
    }
}

/// A feature's key in [`named`]'s terms.
fn key(route: &str, f: &Value) -> String {
    let p = &f["properties"];
    match route {
        "network-check" => format!(
            "{} {}",
            p["finding"].as_str().unwrap(),
            p["id"].as_str().unwrap()
        ),
        "trace" if p["role"] == "path" => format!("path to {}", p["outfall"].as_str().unwrap()),
        _ => f["id"]
            .as_str()
            .unwrap_or_else(|| panic!("no id: {f}"))
            .to_string(),
    }
}

/// The GeoJSON is the JSON's places, one for one and in order, each drawn where the
/// registry has it in CRS84, its layer the one that holds it.
fn assert_places(route: &str, snap: &Snapshot, json: &Value, geo: &Value) {
    assert_eq!(geo["type"], "FeatureCollection", "{route}");
    assert!(geo["answer"].is_object(), "{route}: {}", geo["answer"]);
    let features = geo["features"].as_array().unwrap();
    let got: Vec<String> = features.iter().map(|f| key(route, f)).collect();
    let want = named(route, json);
    assert!(!want.is_empty(), "{route}: the question names nothing");
    assert_eq!(got, want, "{route}");
    for f in features {
        let p = &f["properties"];
        if p["finding"] == "unreadable_row" {
            continue;
        }
        if let Some(layer) = p["layer"].as_str() {
            let layer: Layer = layer.parse().unwrap();
            let id = f["id"].as_str().or(p["id"].as_str()).unwrap();
            assert!(
                snap.layer(layer).get(id).is_some(),
                "{route}: no {id} in {layer}"
            );
        }
        let mut first = &f["geometry"]["coordinates"];
        while first[0].is_array() {
            first = &first[0];
        }
        let (lon, lat) = (first[0].as_f64(), first[1].as_f64());
        let (Some(lon), Some(lat)) = (lon, lat) else {
            panic!("{route}: no geometry: {f}");
        };
        assert!(
            (-74.5..-73.0).contains(&lon) && (40.5..42.0).contains(&lat),
            "{route}: CRS84 {lon} {lat}"
        );
    }
}

fn layer_of<'a>(geo: &'a Value, id: &str) -> &'a Value {
    &geo["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == id)
        .unwrap_or_else(|| panic!("no feature {id}"))["properties"]["layer"]
}

#[tokio::test]
async fn geojson_answers_are_the_places_their_json_names_on_every_route_and_verb() {
    let reg = town().await;
    let snapshot = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let snap = snapshot.current();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    // The network check's answer carries its places beside the report, not in its JSON.
    let ask = ms4::answer::Ask::new(&snap, &profile);
    let a = ms4::answer::trace::network_check(&ask, &Default::default()).unwrap();
    assert_eq!(
        serde_json::to_string_pretty(&a).unwrap(),
        serde_json::to_string_pretty(&a.report).unwrap()
    );
    assert_eq!(
        serde_json::to_vec(&a).unwrap(),
        serde_json::to_vec(&a.report).unwrap()
    );
    let state = public(&reg, snapshot.clone(), profile);
    let carmel = public(
        &reg,
        snapshot,
        ms4::rules::Profile::builtin("carmel-ny").unwrap(),
    );

    // Over HTTP: every answer route, each GeoJSON against its own JSON.
    let near = "/api/nearby?x=660000&y=870000&k=8&kinds=structure,catch_basin,smp,outfall";
    let gets = [
        ("nearby", near.to_string()),
        ("watershed", "/api/watersheds/WS-0001/facilities".into()),
        ("trace", "/api/trace/OF-1?direction=upstream".into()),
        ("trace", "/api/trace/HW-1?direction=downstream".into()),
        ("trace", "/api/trace/OF-000001?direction=upstream".into()),
        (
            "illicit",
            "/api/illicit?status=illicit,needs_review,ok,not_covered".into(),
        ),
        ("smps", "/api/smps-without-easement?all=true".into()),
        ("network-check", "/api/network-check".into()),
        (
            "receiving-waters",
            "/api/receiving-waters?parcel=P-000001".into(),
        ),
    ];
    let mut http = std::collections::HashMap::new();
    for (route, uri) in &gets {
        let (json, geo) = get_both(&state, uri).await;
        assert_places(route, &snap, &json, &geo);
        http.insert(uri.clone(), geo);
    }
    let (json, geo) = get_both(&carmel, "/api/screen?disturbed=1acre&all=true").await;
    assert_places("screen", &snap, &json, &geo);
    let body = serde_json::json!({"parcel": "P-000001", "disturbed": "2acres"});
    let (json, geo) = post_both(&carmel, "/api/determinations", &body).await;
    assert_places("determination", &snap, &json, &geo);
    let (json, geo) = post_both(&state, "/api/determinations", &body).await;
    assert_places("determination", &snap, &json, &geo);
    http.insert("/api/determinations".into(), geo);

    // The headwall, junction box and SMP the upstream trace passes are drawn from their
    // own layers, and the demo's two structures no pipe meets are findings on the map.
    let up = &http["/api/trace/OF-1?direction=upstream"];
    assert_eq!(layer_of(up, "HW-1"), "structures");
    assert_eq!(layer_of(up, "JB-1"), "structures");
    assert_eq!(layer_of(up, "SMP-1"), "smps");
    let check = &http["/api/network-check"];
    let orphans: Vec<&Value> = check["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["properties"]["finding"] == "orphan_structure")
        .filter(|f| f["properties"]["layer"] == "structures")
        .collect();
    assert_eq!(orphans.len(), 2, "HW-0001 and CO-0001");
    let near_geo = &http[near];
    assert_eq!(layer_of(near_geo, "HW-1"), "structures");

    // The CLI verbs print the same collections.
    let verbs: [(&str, Vec<&str>, &str); 9] = [
        (
            "nearby",
            vec![
                "nearby",
                "--x",
                "660000",
                "--y",
                "870000",
                "--k",
                "8",
                "--kinds",
                "structure,catch_basin,smp,outfall",
            ],
            near,
        ),
        (
            "watershed",
            vec!["watershed-facilities", "WS-0001"],
            "/api/watersheds/WS-0001/facilities",
        ),
        (
            "trace",
            vec!["trace", "OF-1", "--upstream"],
            "/api/trace/OF-1?direction=upstream",
        ),
        (
            "trace",
            vec!["trace", "HW-1", "--downstream"],
            "/api/trace/HW-1?direction=downstream",
        ),
        (
            "illicit",
            vec!["illicit", "--status", "illicit,needs_review,ok,not_covered"],
            "/api/illicit?status=illicit,needs_review,ok,not_covered",
        ),
        (
            "smps",
            vec!["smps-without-easement", "--all"],
            "/api/smps-without-easement?all=true",
        ),
        ("network-check", vec!["network-check"], "/api/network-check"),
        (
            "receiving-waters",
            vec!["receiving-waters", "--parcel", "P-000001"],
            "/api/receiving-waters?parcel=P-000001",
        ),
        (
            "determination",
            vec!["determine", "--parcel", "P-000001", "--disturbed", "2acres"],
            "/api/determinations",
        ),
    ];
    for (route, args, uri) in verbs {
        let with = |format: &str| {
            let mut a = args.clone();
            a.extend(["--format", format]);
            let out = run_ok(&reg.url, &a);
            serde_json::from_str::<Value>(&out).unwrap_or_else(|e| panic!("{a:?}: {e}: {out}"))
        };
        let (json, geo) = (with("json"), with("geojson"));
        assert_places(route, &snap, &json, &geo);
        assert_eq!(geo, http[uri], "{route}: the CLI and the API agree");
    }
}
