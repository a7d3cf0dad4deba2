//! The API definition (OpenAPI 3.0) at `/api/openapi.json`, built from one route table;
//! a test checks that every route the service mounts is in it.

use axum::Json;

use super::auth::Need;
use crate::auth::Role;

/// Anyone may call the route: it holds no registry data.
const OPEN: Option<Need> = None;
/// Any valid token (or none on a public-read server).
const READ: Option<Need> = Some(Need::Read);

/// A token of this role (or admin).
const fn role(r: Role) -> Option<Need> {
    Some(Need::Role(r))
}

/// A schema written by the generator: a typed struct's schema, its nested definitions
/// kept for `components/schemas`.
pub type SchemaOf = fn(&mut Typed) -> serde_json::Value;

/// A route's query parameters.
#[derive(Clone, Copy)]
pub enum Query {
    /// None.
    None,
    /// One parameter per field of the struct the handler deserializes the query into.
    Typed(SchemaOf),
    /// The OGC API – Features items parameters, read by hand in `ogc.rs` (their names
    /// have hyphens and any other name filters a property): (name, description).
    Ogc(&'static [(&'static str, &'static str)]),
}

/// A route's body: its media type and, for JSON, the schema of the type the handler
/// deserializes it into (none: a body the handler reads as any JSON, or a file).
#[derive(Clone, Copy)]
pub struct Body {
    /// The media type.
    pub media: &'static str,
    /// The body's schema.
    pub schema: Option<SchemaOf>,
}

/// One route: method, path (axum's `{param}` syntax, which is also OpenAPI's), summary,
/// query, body and who may call it.
pub struct Route {
    /// `get`, `post` or `delete`.
    pub method: &'static str,
    /// The path.
    pub path: &'static str,
    /// What it does.
    pub summary: &'static str,
    /// Query parameters.
    pub query: Query,
    /// Whether it takes a body, and its media type.
    pub body: Option<Body>,
    /// What a caller needs (none: open to anyone).
    pub access: Option<Need>,
}

const fn r(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    query: Query,
    body: Option<Body>,
    access: Option<Need>,
) -> Route {
    Route {
        method,
        path,
        summary,
        query,
        body,
        access,
    }
}

/// The query of type `T`.
const fn q(schema: SchemaOf) -> Query {
    Query::Typed(schema)
}

/// A JSON body of type `T` (`Some`) or of any JSON (`None`).
const fn json(schema: Option<SchemaOf>) -> Option<Body> {
    Some(Body {
        media: "application/json",
        schema,
    })
}

/// A body that is not JSON (a file, a form).
const fn raw(media: &'static str) -> Option<Body> {
    Some(Body {
        media,
        schema: None,
    })
}

const JSON: Option<Body> = json(None);
const NO: Query = Query::None;
const ITEMS_QUERY: &[(&str, &str)] = &[
    ("limit", "features per page, 1 to 10000 (default 100)"),
    ("offset", "features to skip (the next link sets it)"),
    ("bbox", "minx,miny,maxx,maxy in bbox-crs"),
    ("bbox-crs", "CRS84 (default) or the registry's CRS URI"),
    (
        "crs",
        "the CRS of the answer: CRS84 (default) or the registry's CRS URI",
    ),
    (
        "{property}",
        "any property name: features whose value equals this text",
    ),
];
const ITEM_QUERY: &[(&str, &str)] = &[("crs", "CRS84 (default) or the registry's CRS URI")];

use super::cases::{AsOf, ListParams, ReportParams};
use super::openapi_types::{determine_request, object as t, Typed};
use crate::answer::determine::{PlaceWire, ScreenParams};
use crate::answer::illicit::IllicitParams;
use crate::answer::nearby::NearbyParams;
use crate::answer::smps::SmpsParams;
use crate::answer::trace::{NetworkCheckParams, TraceParams};
use crate::answer::watershed_facilities::WatershedFacilitiesParams;

/// Every route of the service.
pub const ROUTES: &[Route] = &[
    r("get", "/", "Landing page (OGC API – Features)", NO, None, OPEN),
    r("get", "/conformance", "Conformance classes", NO, None, OPEN),
    r("get", "/health", "Liveness (200 while serving), readiness (`ready`, `database`: reachable or unreachable), store kind, jurisdiction and CRS", NO, None, OPEN),
    r("get", "/api/openapi.json", "This document", NO, None, OPEN),
    r("get", "/api/session", "Who the token (or no token) is and what it may do: {signed_in, public_read, may_read, subject, role, may: {read, inspect, import, admin}}; a token that is not valid is a 401", NO, None, OPEN),
    r("get", "/collections", "The registry's layers with extent and CRS list", NO, None, READ),
    r("get", "/collections/{layer}", "One layer", NO, None, READ),
    r("get", "/collections/{layer}/items", "A layer's features (GeoJSON), by page", Query::Ogc(ITEMS_QUERY), None, READ),
    r("get", "/collections/{layer}/items/{id}", "One feature", Query::Ogc(ITEM_QUERY), None, READ),
    r("get", "/api/nearby", "Facilities near a point, nearest first, as `ms4 nearby`", q(t::<NearbyParams>), None, READ),
    r("get", "/api/watersheds/{id}/facilities", "Facilities in a watershed ranked for inspection, as `ms4 watershed-facilities`", q(t::<WatershedFacilitiesParams>), None, READ),
    r("post", "/api/watersheds/{id}/facilities", "The same inside a GeoJSON polygon sent as the body", q(t::<WatershedFacilitiesParams>), JSON, READ),
    r("get", "/api/watersheds/{id}/inspections", "Inspections of the facilities in a watershed, newest first", NO, None, READ),
    r("get", "/api/trace/{asset_id}", "Trace the drainage network, as `ms4 trace`", q(t::<TraceParams>), None, READ),
    r("get", "/api/illicit", "Every connection judged, with citations, as `ms4 illicit`", q(t::<IllicitParams>), None, READ),
    r("get", "/api/smps-without-easement", "Structural SMPs without a recorded maintenance easement", q(t::<SmpsParams>), None, READ),
    r("get", "/api/network-check", "Dangling ends, parts, cycles, reversed pipes, orphans", q(t::<NetworkCheckParams>), None, READ),
    r("get", "/api/receiving-waters", "Receiving waters of a parcel, by watershed and by the network", q(t::<PlaceWire>), None, READ),
    r("post", "/api/receiving-waters", "Receiving waters of a footprint: {\"footprint\": GeoJSON} or {\"parcel\": id}", NO, json(Some(t::<PlaceWire>)), READ),
    r("post", "/api/determinations", "Land development activity, exemptions, Conditions One/Two/Three and requirements, as `ms4 determine`: the place (parcel or footprint) and the project's facts (the schema DetermineRequest)", NO, json(Some(determine_request)), READ),
    r("get", "/api/screen", "Condition One for a project on every parcel, as `ms4 screen`", q(t::<ScreenParams>), None, READ),
    r("get", "/api/assets/{id}/inspections", "An asset's inspections, newest first", NO, None, READ),
    r("post", "/api/inspections", "Record an inspection: {asset_id, inspected_on, kind (dry_weather_screening | smp_maintenance | catch_basin_cleaning), result, inspector?, notes?, screening?: {flow, odour, colour, turbidity, floatables, deposits, field_tests: {ph, ammonia_mg_l, ...}}}", NO, JSON, role(Role::Inspector)),
    r("get", "/api/cases", "Illicit discharge cases with their candidates and action logs", q(t::<ListParams>), None, READ),
    r("get", "/api/cases/{id}", "A case with its deadlines and fines computed as of a time", q(t::<AsOf>), None, READ),
    r("get", "/api/cases/{id}/notice", "The case's notice of violation as printable HTML", q(t::<AsOf>), None, READ),
    r("post", "/api/notices/land-development", "The land development notice of violation (NC ch. 267 Part 1 C(1), Carmel § 156-88A) as printable HTML: {case_id?, parcel_id?, owner?, owner_address?, site?, violation?, remedial_measures?: [{measure, complete_by?}], served_on?, earlier_offences?, offence_on?}; the print view is the paper form", NO, JSON, READ),
    r("get", "/api/deadlines", "What is due and overdue, by case, and the fines accrued (computed from the profile)", q(t::<AsOf>), None, READ),
    r("get", "/api/report", "The annual report: each count with its period, denominator and record ids", q(t::<ReportParams>), None, READ),
    r("get", "/api/inspections/{id}/photos", "An inspection's photos with their SHA-256", NO, None, READ),
    r("get", "/api/photos/{sha256}", "A photo's bytes, by its SHA-256", NO, None, READ),
    r("post", "/api/cases", "Open a case: {origin (complaint | hotline | screening | connection | staff), opened_on, reported_by?, description?, asset_id?, connection_id?, parcel_id?, inspection_id?}", NO, JSON, role(Role::Inspector)),
    r("post", "/api/cases/from-connections", "Open a case for each connection found illicit or needing review that no case names: {opened_on}", NO, JSON, role(Role::Inspector)),
    r("post", "/api/cases/{id}/actions", "Log an action: {kind, on, at?, by?, method?, outcome?, violations?, results?, connection_id?, notes?}", NO, JSON, role(Role::Inspector)),
    r("post", "/api/cases/{id}/close", "Close a case: {closure (eliminated | unfounded | referred), on, by?, notes?, referred_to?, connection_id?}", NO, JSON, role(Role::Inspector)),
    r("post", "/api/inspections/{id}/photos", "Store a photo of an inspection: the image bytes as the body with its Content-Type; answers {photo_id, sha256}", NO, raw("image/*"), role(Role::Inspector)),
    r("post", "/api/layers/{layer}/import", "Upload a file for a layer (multipart: file, map, src_layer, s_srs, dry_run, replace, invalid); answers the quality report", NO, raw("multipart/form-data"), role(Role::Analyst)),
    r("post", "/api/footprint", "A footprint from a file (multipart: file, s_srs): a zipped shapefile, GeoPackage, GeoJSON, KML or FlatGeobuf, answered as one GeoJSON feature in CRS84", NO, raw("multipart/form-data"), READ),
    r("get", "/api/tokens", "List tokens (never the tokens themselves)", NO, None, role(Role::Admin)),
    r("post", "/api/tokens", "Create a token: {role, subject, expires_at?}; the answer shows it once", NO, JSON, role(Role::Admin)),
    r("delete", "/api/tokens/{id}", "Revoke a token", NO, None, role(Role::Admin)),
];

/// The media type of a route's answer: GeoJSON for features, printable HTML for the
/// notices, JSON otherwise.
fn media_type(path: &str) -> &'static str {
    if path.contains("/items") {
        "application/geo+json"
    } else if path.ends_with("/notice") || path.starts_with("/api/notices/") {
        "text/html"
    } else {
        "application/json"
    }
}

/// An OGC items parameter's schema, with the constraints `ogc.rs` checks.
fn ogc_param_schema(name: &str) -> serde_json::Value {
    use serde_json::json;
    match name {
        "limit" => json!({"type": "integer", "minimum": 1, "maximum": 10000, "default": 100}),
        "offset" => json!({"type": "integer", "minimum": 0, "default": 0}),
        "bbox" => json!({
            "type": "array", "minItems": 4, "maxItems": 6,
            "items": {"type": "number"},
        }),
        _ => json!({"type": "string"}),
    }
}

/// A route's query parameters.
fn query_params(typed: &mut Typed, query: Query) -> Vec<serde_json::Value> {
    let mut params = match query {
        Query::None => Vec::new(),
        Query::Typed(schema) => {
            let schema = schema(typed);
            super::openapi_types::query_params(&schema)
        }
        Query::Ogc(list) => list
            .iter()
            .filter(|(n, _)| !n.starts_with('{'))
            .map(|(n, d)| {
                serde_json::json!({"name": n, "in": "query", "required": false, "description": d, "schema": ogc_param_schema(n)})
            })
            .collect(),
    };
    for p in &mut params {
        if p["schema"]["type"] == "array" {
            // bbox=1,2,3,4 (OGC API Features), kinds=a,b: one comma-separated value, as
            // the handlers read a list, not bbox=1&bbox=2...
            p["style"] = "form".into();
            p["explode"] = false.into();
        }
    }
    params
}

/// The OpenAPI document.
pub fn spec() -> serde_json::Value {
    let mut typed = Typed::new();
    let mut paths = serde_json::Map::new();
    for route in ROUTES {
        let mut params: Vec<serde_json::Value> = route
            .path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
            .map(|p| serde_json::json!({"name": p, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        params.extend(query_params(&mut typed, route.query));
        let error = serde_json::json!({"description": "an error; the message names the parameter at fault", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
        let ok = if route.method == "post"
            && (route.path == "/api/inspections"
                || route.path == "/api/tokens"
                || route.path.starts_with("/api/cases")
                || route.path.ends_with("/photos"))
            && !route.path.ends_with("/close")
        {
            "201"
        } else {
            "200"
        };
        let mut op = serde_json::json!({
            "summary": route.summary,
            "parameters": params,
            "responses": {
                ok: {"description": "the answer", "content": {media_type(route.path): {}}},
                "400": error, "404": error, "405": error, "408": error, "413": error,
                "414": error, "422": error, "431": error, "503": error,
            },
        });
        if route.path == "/api/inspections" {
            op["responses"]["200"] = serde_json::json!({"description": "the same inspection again, updated", "content": {"application/json": {}}});
        }
        if route.path == "/api/report" {
            // `format=csv` answers the same report as CSV.
            op["responses"]["200"] = serde_json::json!({"description": "the report", "content": {"application/json": {}, "text/csv": {}}});
        }
        if route.path.ends_with("/import") {
            // An upload's file can be refused as a whole (422) besides the form's errors.
            op["responses"]["201"] = serde_json::json!({"description": "imported: the quality report", "content": {"application/json": {}}});
            op["responses"]["422"] = error.clone();
        }
        match route.access {
            None => op["security"] = serde_json::json!([]),
            Some(Need::Read) => {
                op["responses"]["401"] = error.clone();
            }
            Some(Need::Role(role)) => {
                op["description"] =
                    format!("Needs a token with the {} role (or admin).", role.name()).into();
                op["responses"]["401"] = error.clone();
                op["responses"]["403"] = error.clone();
            }
        }
        if route.path == "/api/session" {
            op["responses"]["401"] = error.clone();
        }
        if let Some(body) = route.body {
            let media = match body.schema {
                Some(schema) => serde_json::json!({"schema": schema(&mut typed)}),
                // A body without a typed schema is still a media type object, never null.
                None => serde_json::json!({}),
            };
            op["requestBody"] =
                serde_json::json!({"required": true, "content": {body.media: media}});
        }
        let entry = paths
            .entry(route.path.to_string())
            .or_insert_with(|| serde_json::json!({}));
        entry[route.method] = op;
    }
    super::tiles::openapi_paths(&mut paths);
    serde_json::json!({
        "openapi": "3.0.3",
        "info": {
            "title": "ms4 registry",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "OGC API – Features over the registry's layers, and the registry's answers with the law's citations under /api.",
        },
        "paths": paths,
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
            "schemas": typed.schemas(serde_json::json!({"Error": {"type": "object", "required": ["error"], "properties": {
                "error": {"type": "string"}, "status": {"type": "integer"}}}})),
        },
    })
}

pub(super) async fn document() -> Json<serde_json::Value> {
    Json(spec())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The map's files: the document names them by file (`/tiles/{z}/{x}/{y}.mvt`) where
    /// the router has one `{file}` segment, and the page's own files are not API routes.
    fn is_map_file(path: &str) -> bool {
        [
            "/tiles",
            "/styles/",
            "/page/",
            "/tileMatrixSets",
            "/sw.js",
            "/manifest.webmanifest",
        ]
        .iter()
        .any(|p| path.starts_with(p))
            || path.ends_with("/tiles")
            || path.contains("/tiles/")
    }

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
    async fn answer(
        app: &axum::Router,
        method: &str,
        path: &str,
    ) -> Option<axum::http::StatusCode> {
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

    /// Every query parameter the document gives an answer route is one its handler takes:
    /// sent alone through the service, it is never refused as unknown (a name the type does
    /// not have is, naming it).
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
        for route in ROUTES.iter().filter(|r| r.method == "get") {
            if !matches!(route.query, Query::Typed(_)) {
                continue;
            }
            let path: String = route
                .path
                .split('/')
                .map(|seg| if seg.starts_with('{') { "x" } else { seg })
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
                    _ => "a".into(),
                };
                let name = p["name"].as_str().unwrap();
                let body = ask(format!("{path}?{name}={value}")).await;
                assert!(
                    !body.contains("unknown field"),
                    "{} documents {name}, which its handler refuses: {body}",
                    route.path
                );
                checked += 1;
            }
            let body = ask(format!("{path}?no_such_parameter=1")).await;
            assert!(body.contains("no_such_parameter"), "{}: {body}", route.path);
        }
        assert!(checked >= 15, "only {checked} parameters checked");
    }

    #[tokio::test]
    async fn every_mounted_route_is_documented_and_every_documented_one_mounted() {
        let (_dir, app) = service().await;
        let paths = router_paths(&app);
        assert!(paths.len() >= 20, "found only {paths:?}");
        let doc = spec();
        let mut mounted = Vec::new();
        for path in paths.iter().filter(|p| !is_map_file(p)) {
            for m in ["get", "post", "delete", "put", "patch"] {
                if routed(&app, m, path).await {
                    mounted.push((m, path.clone()));
                }
            }
        }
        assert!(mounted.len() >= 40, "found only {mounted:?}");
        for (m, p) in &mounted {
            assert!(
                doc["paths"][p.as_str()][*m].is_object(),
                "{m} {p} is mounted but not in the OpenAPI document"
            );
        }
        for route in ROUTES {
            assert!(
                routed(&app, route.method, route.path).await,
                "{} {} is documented but not mounted",
                route.method,
                route.path
            );
        }
        // What the table says a route needs is what the router asks: on a public-read
        // server a write without a token is a 401, a read is not.
        for route in ROUTES {
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
        // The check can fail: a path the router does not hold is not routed.
        assert!(!routed(&app, "get", "/api/no-such-question").await);
        assert!(!routed(&app, "delete", "/api/nearby").await);
    }
}

#[cfg(test)]
mod typed_tests {
    use clap::{Args, Command};

    use super::*;
    use crate::answer::determine::DetermineParams;

    fn determine_request() -> serde_json::Value {
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
        let req = determine_request();
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
}
