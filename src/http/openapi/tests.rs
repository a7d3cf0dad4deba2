//! The document against the service it describes: every route the router mounts is in
//! it and every route in it is mounted, with the access it states; every query parameter
//! it gives is one the handler takes; the typed parts are the types the handlers and the
//! command line read.

use clap::{Args, Command};

use super::*;
use crate::answer::determine::DetermineParams;
use crate::http::routes::routes;

/// The service itself, on a new SQLite registry, public-read so a read is answered
/// without a token (a write still asks for one, which is an answer of its route).
async fn service() -> (tempfile::TempDir, axum::Router) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("routes.gpkg").display());
    let meta = crate::import::crs::registry_meta("carmel-ny", 2263).unwrap();
    let store = crate::store::create(&url, &meta).await.unwrap();
    let snapshot = crate::spatial::SnapshotHandle::load(store.as_ref())
        .await
        .unwrap();
    let profile = crate::rules::Profile::builtin("carmel-ny").unwrap();
    let config = super::super::ServeConfig {
        public_read: true,
        ..Default::default()
    };
    let state = super::super::AppState::with_config(store, snapshot, profile, config);
    (dir, super::super::app(state))
}

/// The paths the router holds. axum lists no routes, but its router's debug form names
/// every path it matches (`RouteId(3): "/api/nearby"`): read from the router the
/// service runs, not from the source text.
fn router_paths(app: &axum::Router) -> Vec<String> {
    let text = format!("{app:?}");
    let mut out: Vec<String> = text
        .split("RouteId(")
        .filter_map(|chunk| {
            let rest = chunk.split_once("): \"")?.1;
            Some(rest[..rest.find('"')?].to_string())
        })
        .filter(|p| p.starts_with('/') && !p.contains("__private__"))
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Whether the router routes `method path` to a handler: any answer but its own
/// fallbacks' (a route's 400, 401 or 404 is an answer of that route).
async fn routed(app: &axum::Router, method: &str, path: &str) -> bool {
    answer(app, method, path).await.is_some()
}

/// The status the service answers `method path` with, without a token; `None` when
/// only its fallbacks answer.
async fn answer(app: &axum::Router, method: &str, path: &str) -> Option<axum::http::StatusCode> {
    use tower::ServiceExt;
    let uri: String = path
        .split('/')
        .map(|seg| if seg.starts_with('{') { "x" } else { seg })
        .collect::<Vec<_>>()
        .join("/");
    let req = axum::http::Request::builder()
        .method(method.to_ascii_uppercase().as_str())
        .uri(if uri.is_empty() { "/".to_string() } else { uri })
        .body(axum::body::Body::empty())
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    match res.extensions().get::<super::super::Unrouted>() {
        Some(_) => None,
        None => Some(res.status()),
    }
}

/// Whether an answer refuses `name` as a parameter its route does not take: the typed
/// routes say `name: unknown parameter` (see `extract.rs`), the OGC items and item
/// `name: not a parameter of ...`.
fn refused_as_unknown(body: &str, name: &str) -> bool {
    body.contains(&format!("{name}: unknown parameter"))
        || body.contains(&format!("{name}: not a parameter"))
}

/// Every query parameter the document gives a route is one its handler takes: sent alone
/// through the service, it is never refused as unknown (a name the type does not have is,
/// naming it). The OGC routes are asked of a real layer, since an unknown one is a 404
/// before the query is read.
#[tokio::test]
async fn every_documented_query_parameter_is_one_the_handler_takes() {
    use tower::ServiceExt;
    let (_dir, app) = service().await;
    let doc = spec();
    let ask = |uri: String| {
        let app = app.clone();
        async move {
            let req = axum::http::Request::builder()
                .uri(uri)
                .body(axum::body::Body::empty())
                .unwrap();
            let res = app.oneshot(req).await.unwrap();
            let body = axum::body::to_bytes(res.into_body(), 1 << 20)
                .await
                .unwrap();
            String::from_utf8_lossy(&body).to_string()
        }
    };
    let mut checked = 0;
    let mut ogc = 0;
    for route in routes().iter().filter(|r| r.method == "get") {
        if !matches!(&route.doc, Doc::Api(op) if matches!(op.query, Query::Typed(_))) {
            continue;
        }
        let path: String = route
            .path
            .split('/')
            .map(|seg| match seg {
                "{layer}" => "outfalls",
                _ if seg.starts_with('{') => "x",
                _ => seg,
            })
            .collect::<Vec<_>>()
            .join("/");
        let params = doc["paths"][route.path]["get"]["parameters"]
            .as_array()
            .unwrap();
        for p in params.iter().filter(|p| p["in"] == "query") {
            let schema = &p["schema"];
            let value = match (schema["type"].as_str(), schema["enum"][0].as_str()) {
                (_, Some(first)) => first.to_string(),
                (Some("integer" | "number"), _) => "1".into(),
                (Some("boolean"), _) => "true".into(),
                // As many numbers as the list needs (a bbox: 1,1,1,1).
                (Some("array"), _) if schema["items"]["type"] == "number" => {
                    let n = schema["minItems"].as_u64().unwrap_or(1) as usize;
                    vec!["1"; n].join(",")
                }
                _ => "a".into(),
            };
            let name = p["name"].as_str().unwrap();
            let body = ask(format!("{path}?{name}={value}")).await;
            assert!(
                !refused_as_unknown(&body, name),
                "{} documents {name}, which its handler refuses: {body}",
                route.path
            );
            checked += 1;
            if route.path.starts_with("/collections/") {
                ogc += 1;
            }
        }
        // The check can fail: a name the route does not take is refused as unknown.
        let body = ask(format!("{path}?no_such_parameter=1")).await;
        assert!(
            refused_as_unknown(&body, "no_such_parameter"),
            "{}: {body}",
            route.path
        );
    }
    assert!(checked >= 15, "only {checked} parameters checked");
    // limit, offset, bbox, bbox-crs and crs on items; crs on one item.
    assert_eq!(ogc, 6, "OGC parameters checked");
}

/// The router is mounted from the table and the document written from it, so the two
/// agree by construction; this checks the construction: the router holds the table's
/// paths and nothing else, routes each entry's method there, and asks what the entry
/// says it needs; the document has every entry (the map's files under their names) and
/// nothing that is not one.
#[tokio::test]
async fn every_mounted_route_is_documented_and_every_documented_one_mounted() {
    let (_dir, app) = service().await;
    let table = routes();
    let mut paths: Vec<String> = table.iter().map(|r| r.path.to_string()).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(
        router_paths(&app),
        paths,
        "the router holds other paths than the table"
    );
    assert!(table.len() >= 50, "only {} routes", table.len());
    let doc = spec();
    let mut documented = Vec::new();
    for route in &table {
        assert!(
            routed(&app, route.method, route.path).await,
            "{} {} is in the table but not mounted",
            route.method,
            route.path
        );
        let name = match route.doc {
            Doc::Api(_) => route.path,
            Doc::Map(name) => name,
            Doc::PageFile => continue,
        };
        let op = &doc["paths"][name][route.method];
        assert!(
            op.is_object(),
            "{} {name} is not in the document",
            route.method
        );
        assert_eq!(
            op["security"] == serde_json::json!([]),
            route.access.is_none(),
            "{} {name}: the document says otherwise of its access",
            route.method
        );
        documented.push((route.method.to_string(), name.to_string()));
    }
    for (path, item) in doc["paths"].as_object().unwrap() {
        for method in item.as_object().unwrap().keys() {
            assert!(
                documented.contains(&(method.clone(), path.clone())),
                "{method} {path} is in the document but no route's"
            );
        }
    }
    // What the table says a route needs is what the router asks: on a public-read
    // server a write without a token is a 401, a read is not.
    for route in &table {
        let status = answer(&app, route.method, route.path).await.unwrap();
        let refused = status == axum::http::StatusCode::UNAUTHORIZED;
        assert_eq!(
            refused,
            matches!(route.access, Some(Need::Role(_))),
            "{} {} answered {status} without a token",
            route.method,
            route.path
        );
    }
    // The check can fail: a path the router does not hold is not routed, nor a method a
    // path does not take.
    assert!(!routed(&app, "get", "/api/no-such-question").await);
    assert!(!routed(&app, "delete", "/api/nearby").await);
}

/// Several methods of one path are one route, each method behind its own access: a read
/// of the cases is not a write's, and a method the path does not take is the router's 405
/// (never the 401 of a method it does).
#[tokio::test]
async fn one_path_of_several_methods_keeps_each_methods_access() {
    let (_dir, app) = service().await;
    let get = answer(&app, "get", "/api/cases").await.unwrap();
    assert_ne!(get, axum::http::StatusCode::UNAUTHORIZED);
    let post = answer(&app, "post", "/api/cases").await.unwrap();
    assert_eq!(post, axum::http::StatusCode::UNAUTHORIZED);
    assert!(!routed(&app, "delete", "/api/cases").await);
    assert!(!routed(&app, "put", "/api/tokens").await);
}

/// The body limits of the table: the record writes take a JSON write's, a photo the
/// photo limit (or the server's, when smaller), the rest the server's.
#[test]
fn the_writes_of_records_have_the_json_write_limit() {
    use super::super::routes::Limit;
    for route in routes() {
        let want = match (route.method, route.path) {
            (
                "post",
                "/api/inspections"
                | "/api/cases"
                | "/api/cases/from-connections"
                | "/api/cases/{id}/actions"
                | "/api/cases/{id}/close"
                | "/api/sites"
                | "/api/sites/{id}/actions"
                | "/api/calendar/records",
            ) => Limit::JsonWrite,
            ("put", "/api/cases/{id}/respondent") => Limit::JsonWrite,
            ("post", "/api/inspections/{id}/photos") => Limit::Photo,
            _ => Limit::Server,
        };
        assert_eq!(route.limit, want, "{} {}", route.method, route.path);
    }
}

fn determine_request_schema() -> serde_json::Value {
    spec()["components"]["schemas"]["DetermineRequest"].clone()
}

/// One type: every property of the body schema is a flag of `ms4 determine` and a key
/// the handler's deserializer takes, and every flag is a property.
#[test]
fn the_determination_body_is_generated_from_the_type_the_flags_and_the_handler_use() {
    let doc = spec();
    let op = &doc["paths"]["/api/determinations"]["post"];
    assert_eq!(
        op["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/DetermineRequest"
    );
    let req = determine_request_schema();
    let props = req["properties"].as_object().unwrap();
    let cmd = DetermineParams::augment_args(Command::new("determine"));
    let flags: Vec<String> = cmd
        .get_arguments()
        .filter_map(|a| a.get_long().map(|l| l.replace('-', "_")))
        .collect();
    for name in props.keys() {
        assert!(
            flags.contains(name),
            "{name} is in the body schema but not a flag"
        );
    }
    for flag in &flags {
        assert!(
            props.contains_key(flag),
            "--{flag} is a flag but not in the body schema"
        );
    }
    assert_eq!(req["required"], serde_json::json!(["disturbed"]));
    assert_eq!(props["single_family"]["type"], "boolean");
    assert_eq!(props["single_family"]["nullable"], true);
    assert_eq!(props["larger_common_plan"]["type"], "boolean");
    assert_eq!(props["larger_common_plan"]["nullable"], true);
    assert_eq!(props["plat_approved_on"]["format"], "date");
    assert!(props["gp_coverage"]["description"]
        .as_str()
        .unwrap()
        .contains("AMB-13"));
    // The facts alone, for the page's list.
    let facts = &doc["components"]["schemas"]["ProjectFactsParams"]["properties"];
    assert!(facts["disturbed"].is_object() && facts["parcel"].is_null());

    // The handler takes every property (here with a value of its type) and refuses a
    // key the schema does not have, naming it.
    let mut body = serde_json::Map::new();
    for (name, p) in props {
        let v = match (p["type"].as_str(), p["format"].as_str()) {
            (Some("boolean"), _) => serde_json::json!(true),
            (Some("string"), Some("date")) => serde_json::json!("2020-01-02"),
            _ if name == "footprint" => serde_json::Value::Null,
            _ => serde_json::json!("1acre"),
        };
        body.insert(name.clone(), v);
    }
    let p: DetermineParams = serde_json::from_value(serde_json::Value::Object(body.clone()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.facts.disturbed, "1acre");
    assert_eq!(p.facts.gp_enhanced_phosphorus, Some(true));
    body.insert("single_familly".into(), serde_json::json!(true));
    let err = serde_json::from_value::<DetermineParams>(serde_json::Value::Object(body))
        .unwrap_err()
        .to_string();
    assert!(err.contains("single_familly"), "{err}");
}

#[test]
fn the_screen_query_is_generated_from_its_type_and_the_session_is_documented() {
    let doc = spec();
    // A body with no typed schema is still a media type object, never null.
    let cases = &doc["paths"]["/api/cases"]["post"]["requestBody"]["content"];
    assert!(cases["application/json"].is_object(), "{cases}");
    let params = doc["paths"]["/api/screen"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .clone();
    let by = |n: &str| {
        params
            .iter()
            .find(|p| p["name"] == n)
            .unwrap_or_else(|| panic!("{n}: {params:?}"))
            .clone()
    };
    assert_eq!(by("disturbed")["required"], true);
    assert_eq!(by("disturbed")["schema"]["type"], "string");
    assert_eq!(by("all")["required"], false);
    assert_eq!(by("all")["schema"]["type"], "boolean");
    assert!(by("all")["description"]
        .as_str()
        .unwrap()
        .contains("every parcel"));
    let session = &doc["paths"]["/api/session"]["get"];
    assert!(session["responses"]["200"].is_object());
    assert!(session["responses"]["401"].is_object());
    // bbox is numbers, limit an integer.
    let items = doc["paths"]["/collections/{layer}/items"]["get"]["parameters"]
        .as_array()
        .unwrap();
    let bbox = items.iter().find(|p| p["name"] == "bbox").unwrap();
    assert_eq!(bbox["schema"]["items"]["type"], "number");
    let limit = items.iter().find(|p| p["name"] == "limit").unwrap();
    assert_eq!(limit["schema"]["type"], "integer");
    // The answer routes' queries come from their types: integers as integers, lists
    // as one comma-separated value, a direction as its two words.
    let param = |path: &str, name: &str| {
        doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{path} {name}"))
            .clone()
    };
    let k = param("/api/nearby", "k");
    assert_eq!(k["schema"]["type"], "integer");
    assert_eq!(k["schema"]["maximum"], crate::answer::nearby::MAX_K as f64);
    assert_eq!(param("/api/nearby", "lon")["schema"]["type"], "number");
    assert!(param("/api/nearby", "lon")["schema"]
        .get("nullable")
        .is_none());
    let kinds = param("/api/nearby", "kinds");
    assert_eq!(kinds["schema"]["type"], "array");
    assert_eq!(kinds["explode"], false);
    assert_eq!(
        param("/api/watersheds/{id}/facilities", "overdue_after_days")["schema"]["type"],
        "integer"
    );
    assert_eq!(
        param("/api/trace/{asset_id}", "direction")["schema"]["enum"],
        serde_json::json!(["upstream", "downstream"])
    );
    assert_eq!(
        param("/api/smps-without-easement", "all")["schema"]["type"],
        "boolean"
    );
    assert_eq!(param("/api/report", "year")["schema"]["type"], "integer");
    assert!(param("/api/nearby", "radius")["description"]
        .as_str()
        .unwrap()
        .contains("500ft"));
}

/// The OGC items parameters are the handler's typed struct: its names (with the hyphen of
/// `bbox-crs`), an integer page size with the handler's limits, offsets that are whole
/// numbers, a bbox of four to six numbers sent as one value; one item takes `crs` alone.
#[test]
fn the_ogc_items_parameters_come_from_the_type_the_handler_reads() {
    let doc = spec();
    let params = |path: &str| -> Vec<serde_json::Value> {
        doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["in"] == "query")
            .cloned()
            .collect()
    };
    let items = params("/collections/{layer}/items");
    let names: Vec<&str> = items.iter().map(|p| p["name"].as_str().unwrap()).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["bbox", "bbox-crs", "crs", "limit", "offset"]);
    let by = |n: &str| &items[names.iter().position(|x| *x == n).unwrap()];
    let limit = &by("limit")["schema"];
    assert_eq!(limit["type"], "integer");
    assert_eq!(limit["minimum"].as_f64(), Some(1.0));
    assert_eq!(limit["maximum"].as_f64(), Some(10_000.0));
    assert_eq!(limit["default"], 100);
    let offset = &by("offset")["schema"];
    assert_eq!(offset["type"], "integer");
    assert_eq!(offset["minimum"].as_f64(), Some(0.0));
    assert_eq!(offset["default"], 0);
    let bbox = by("bbox");
    assert_eq!(bbox["schema"]["type"], "array");
    assert_eq!(bbox["schema"]["items"]["type"], "number");
    assert_eq!(bbox["schema"]["minItems"], 4);
    assert_eq!(bbox["schema"]["maxItems"], 6);
    assert_eq!(bbox["explode"], false);
    for p in &items {
        assert_eq!(p["required"], false, "{p}");
        assert!(p["schema"].get("nullable").is_none(), "{p}");
        assert!(!p["description"].as_str().unwrap_or("").is_empty(), "{p}");
    }
    assert_eq!(by("bbox-crs")["schema"]["type"], "string");
    let item = params("/collections/{layer}/items/{id}");
    let names: Vec<&str> = item.iter().map(|p| p["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["crs"]);
}

/// The committed copy the page's types are generated from (`web/openapi.json`).
fn committed_document_path() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web/openapi.json")
}

/// The document as committed: pretty JSON, one key order (sorted), a final newline.
fn document_text() -> String {
    let mut text = serde_json::to_string_pretty(&spec()).unwrap();
    text.push('\n');
    text
}

/// Writes `web/openapi.json`; `scripts/openapi.sh` runs it (with `--ignored`), then
/// writes the page's types (`web/src/api-types.ts`) from it.
#[test]
#[ignore]
fn write_the_committed_document() {
    std::fs::write(committed_document_path(), document_text()).unwrap();
}

/// The page's copy of the document, which its types are generated from, is the one the
/// service serves: a field or route changed on the server changes the page's types, and
/// the page's type check then names every use of the old one.
#[test]
fn the_pages_copy_of_the_document_is_the_one_served() {
    let committed = std::fs::read_to_string(committed_document_path()).unwrap_or_default();
    let same = serde_json::from_str::<serde_json::Value>(&committed).ok() == Some(spec());
    assert!(
        same,
        "web/openapi.json is not the document the service serves: run scripts/openapi.sh, \
         which writes it and the page's types (web/src/api-types.ts) from it, then fix what \
         the page's type check (scripts/web.sh) finds"
    );
}

/// A coalition's document is its router's: every path the coalition mounts itself (its
/// members' are under `/r/{name}/`, each with the registry's document) and nothing else;
/// a joint answer documents the query of the member route it passes the query to.
#[test]
fn the_coalitions_document_has_its_routes_and_the_members_queries() {
    let app = crate::http::coalition::app(Vec::new(), super::super::ServeConfig::default());
    let mut want: Vec<String> = coalition::PATHS.iter().map(|p| p.to_string()).collect();
    want.sort();
    // axum routes `/` to the fallback (the coalition's 404) too: not a route of its own.
    let mounted: Vec<String> = router_paths(&app)
        .into_iter()
        .filter(|p| p != "/")
        .collect();
    assert_eq!(mounted, want, "the coalition mounts other paths");
    let doc = coalition::spec();
    let mut documented: Vec<String> = doc["paths"].as_object().unwrap().keys().cloned().collect();
    documented.sort();
    assert_eq!(documented, want);
    let names = |path: &str| -> Vec<String> {
        doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names("/coalition/report"), ["year", "as_of"]);
    assert_eq!(
        doc["paths"]["/coalition/report"]["get"]["parameters"][0]["required"],
        true
    );
    assert!(names("/coalition/monitoring-locations").contains(&"priority".to_string()));
    let facilities = names("/coalition/watersheds/{id}/facilities");
    assert_eq!(facilities[0], "id");
    assert!(facilities.contains(&"kinds".to_string()), "{facilities:?}");
    assert!(
        !facilities.contains(&"f".to_string()),
        "the joint answer sets f itself"
    );
    // Every schema it refers to is in it.
    let text = doc.to_string();
    for r in text.split("\"#/components/schemas/").skip(1) {
        let name = &r[..r.find('"').unwrap()];
        assert!(
            doc["components"]["schemas"][name].is_object(),
            "{name} is referred to but not defined"
        );
    }
}
