//! The API definition (OpenAPI 3.0) at `/api/openapi.json`, built from one route table;
//! a test checks that every route the service mounts is in it.

use axum::Json;

/// Who may call a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone.
    Open,
    /// Any valid token (or none on a public-read server).
    Read,
    /// A token of the role named (or admin).
    Role(&'static str),
}

/// One route: method, path (axum's `{param}` syntax, which is also OpenAPI's), summary,
/// query parameters (name, description) and who may call it.
pub struct Route {
    /// `get`, `post` or `delete`.
    pub method: &'static str,
    /// The path.
    pub path: &'static str,
    /// What it does.
    pub summary: &'static str,
    /// Query parameters.
    pub query: &'static [(&'static str, &'static str)],
    /// Whether it takes a body, and its media type.
    pub body: Option<&'static str>,
    /// Who may call it.
    pub access: Access,
}

const fn r(
    method: &'static str,
    path: &'static str,
    summary: &'static str,
    query: &'static [(&'static str, &'static str)],
    body: Option<&'static str>,
    access: Access,
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

const JSON: Option<&str> = Some("application/json");
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
const PLACE: &[(&str, &str)] = &[("parcel", "a parcel id")];

/// Every route of the service.
pub const ROUTES: &[Route] = &[
    r("get", "/", "Landing page (OGC API – Features)", &[], None, Access::Open),
    r("get", "/conformance", "Conformance classes", &[], None, Access::Open),
    r("get", "/health", "Liveness (200 while serving), readiness (`ready`, `database`: reachable or unreachable), store kind, jurisdiction and CRS", &[], None, Access::Open),
    r("get", "/api/openapi.json", "This document", &[], None, Access::Open),
    r("get", "/api/session", "Who the token (or no token) is and what it may do: {signed_in, public_read, may_read, subject, role, may: {read, inspect, import, admin}}; a token that is not valid is a 401", &[], None, Access::Open),
    r("get", "/collections", "The registry's layers with extent and CRS list", &[], None, Access::Read),
    r("get", "/collections/{layer}", "One layer", &[], None, Access::Read),
    r("get", "/collections/{layer}/items", "A layer's features (GeoJSON), by page", ITEMS_QUERY, None, Access::Read),
    r("get", "/collections/{layer}/items/{id}", "One feature", &[("crs", "CRS84 (default) or the registry's CRS URI")], None, Access::Read),
    r("get", "/api/nearby", "Facilities near a point, nearest first, as `ms4 nearby`", &[
        ("lon", "WGS 84 longitude (with lat)"), ("lat", "WGS 84 latitude"),
        ("x", "easting in the registry CRS (with y)"), ("y", "northing"),
        ("radius", "with unit: 500ft, 150m"), ("k", "at most this many"),
        ("kinds", "catch_basin,manhole,outfall,smp"),
    ], None, Access::Read),
    r("get", "/api/watersheds/{id}/facilities", "Facilities in a watershed ranked for inspection, as `ms4 watershed-facilities`", &[
        ("kinds", "catch_basin,manhole,outfall,smp"), ("hot_spot_distance", "with unit: 200ft"),
        ("overdue_after_days", "days since the last inspection"),
    ], None, Access::Read),
    r("post", "/api/watersheds/{id}/facilities", "The same inside a GeoJSON polygon sent as the body", &[], JSON, Access::Read),
    r("get", "/api/watersheds/{id}/inspections", "Inspections of the facilities in a watershed, newest first", &[], None, Access::Read),
    r("get", "/api/trace/{asset_id}", "Trace the drainage network, as `ms4 trace`", &[
        ("direction", "upstream or downstream"), ("upstream", "true"), ("downstream", "true"),
    ], None, Access::Read),
    r("get", "/api/illicit", "Every connection judged, with citations, as `ms4 illicit`", &[("status", "illicit,needs_review,ok,not_covered")], None, Access::Read),
    r("get", "/api/smps-without-easement", "Structural SMPs without a recorded maintenance easement", &[("all", "true: every SMP")], None, Access::Read),
    r("get", "/api/network-check", "Dangling ends, parts, cycles, reversed pipes, orphans", &[], None, Access::Read),
    r("get", "/api/receiving-waters", "Receiving waters of a parcel, by watershed and by the network", PLACE, None, Access::Read),
    r("post", "/api/receiving-waters", "Receiving waters of a footprint: {\"footprint\": GeoJSON} or {\"parcel\": id}", &[], JSON, Access::Read),
    r("post", "/api/determinations", "Land development activity, exemptions, Conditions One/Two/Three and requirements, as `ms4 determine`: the place (parcel or footprint) and the project's facts (the schema DetermineRequest)", &[], JSON, Access::Read),
    r("get", "/api/screen", "Condition One for a project on every parcel, as `ms4 screen`", &[], None, Access::Read),
    r("get", "/api/assets/{id}/inspections", "An asset's inspections, newest first", &[], None, Access::Read),
    r("post", "/api/inspections", "Record an inspection: {asset_id, inspected_on, kind (dry_weather_screening | smp_maintenance | catch_basin_cleaning), result, inspector?, notes?, screening?: {flow, odour, colour, turbidity, floatables, deposits, field_tests: {ph, ammonia_mg_l, ...}}}", &[], JSON, Access::Role("inspector")),
    r("get", "/api/cases", "Illicit discharge cases with their candidates and action logs", &[("status", "open or closed")], None, Access::Read),
    r("get", "/api/cases/{id}", "A case with its deadlines and fines computed as of a time", &[("as_of", "YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now)")], None, Access::Read),
    r("get", "/api/cases/{id}/notice", "The case's notice of violation as printable HTML", &[("as_of", "YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now)")], None, Access::Read),
    r("post", "/api/notices/land-development", "The land development notice of violation (NC ch. 267 Part 1 C(1), Carmel § 156-88A) as printable HTML: {case_id?, parcel_id?, owner?, owner_address?, site?, violation?, remedial_measures?: [{measure, complete_by?}], served_on?, earlier_offences?, offence_on?}; the print view is the paper form", &[], JSON, Access::Read),
    r("get", "/api/deadlines", "What is due and overdue, by case, and the fines accrued (computed from the profile)", &[("as_of", "YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now)"), ("all", "true: closed cases too")], None, Access::Read),
    r("get", "/api/report", "The annual report: each count with its period, denominator and record ids", &[("year", "the reporting year"), ("format", "json (default) or csv")], None, Access::Read),
    r("get", "/api/inspections/{id}/photos", "An inspection's photos with their SHA-256", &[], None, Access::Read),
    r("get", "/api/photos/{sha256}", "A photo's bytes, by its SHA-256", &[], None, Access::Read),
    r("post", "/api/cases", "Open a case: {origin (complaint | hotline | screening | connection | staff), opened_on, reported_by?, description?, asset_id?, connection_id?, parcel_id?, inspection_id?}", &[], JSON, Access::Role("inspector")),
    r("post", "/api/cases/from-connections", "Open a case for each connection found illicit or needing review that no case names: {opened_on}", &[], JSON, Access::Role("inspector")),
    r("post", "/api/cases/{id}/actions", "Log an action: {kind, on, at?, by?, method?, outcome?, violations?, results?, connection_id?, notes?}", &[], JSON, Access::Role("inspector")),
    r("post", "/api/cases/{id}/close", "Close a case: {closure (eliminated | unfounded | referred), on, by?, notes?, referred_to?, connection_id?}", &[], JSON, Access::Role("inspector")),
    r("post", "/api/inspections/{id}/photos", "Store a photo of an inspection: the image bytes as the body with its Content-Type; answers {photo_id, sha256}", &[], Some("image/*"), Access::Role("inspector")),
    r("post", "/api/layers/{layer}/import", "Upload a file for a layer (multipart: file, map, src_layer, s_srs, dry_run, replace, invalid); answers the quality report", &[], Some("multipart/form-data"), Access::Role("analyst")),
    r("post", "/api/footprint", "A footprint from a file (multipart: file, s_srs): a zipped shapefile, GeoPackage, GeoJSON, KML or FlatGeobuf, answered as one GeoJSON feature in CRS84", &[], Some("multipart/form-data"), Access::Read),
    r("get", "/api/tokens", "List tokens (never the tokens themselves)", &[], None, Access::Role("admin")),
    r("post", "/api/tokens", "Create a token: {role, subject, expires_at?}; the answer shows it once", &[], JSON, Access::Role("admin")),
    r("delete", "/api/tokens/{id}", "Revoke a token", &[], None, Access::Role("admin")),
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

/// A query parameter's schema, with the constraints the service checks.
fn param_schema(path: &str, name: &str) -> serde_json::Value {
    use serde_json::json;
    match name {
        "limit" => json!({"type": "integer", "minimum": 1, "maximum": 10000, "default": 100}),
        "offset" => json!({"type": "integer", "minimum": 0, "default": 0}),
        "k" => json!({"type": "integer", "minimum": 1, "maximum": crate::answer::nearby::MAX_K}),
        "lon" => json!({"type": "number", "minimum": -180, "maximum": 180}),
        "lat" => json!({"type": "number", "minimum": -90, "maximum": 90}),
        "x" | "y" => json!({"type": "number"}),
        "overdue_after_days" => json!({"type": "integer", "minimum": 0}),
        "all" | "upstream" | "downstream" => json!({"type": "boolean"}),
        "direction" => json!({"type": "string", "enum": ["upstream", "downstream"]}),
        "year" => json!({"type": "integer", "minimum": 1900, "maximum": 2200}),
        "status" if path == "/api/cases" => json!({"type": "string", "enum": ["open", "closed"]}),
        "format" if path == "/api/report" => json!({"type": "string", "enum": ["json", "csv"]}),
        "bbox" if path.contains("/items") => json!({
            "type": "array", "minItems": 4, "maxItems": 6,
            "items": {"type": "number"},
        }),
        _ => json!({"type": "string"}),
    }
}

/// The OpenAPI document.
pub fn spec() -> serde_json::Value {
    let mut typed = super::openapi_types::Typed::new();
    let mut paths = serde_json::Map::new();
    for route in ROUTES {
        let mut params: Vec<serde_json::Value> = route
            .path
            .split('/')
            .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
            .map(|p| serde_json::json!({"name": p, "in": "path", "required": true, "schema": {"type": "string"}}))
            .collect();
        params.extend(typed.query(route.method, route.path));
        params.extend(route.query.iter().filter(|(n, _)| !n.starts_with('{')).map(|(n, d)| {
            let schema = param_schema(route.path, n);
            let mut p = serde_json::json!({"name": n, "in": "query", "required": false, "description": d, "schema": schema});
            if p["schema"]["type"] == "array" {
                // bbox=1,2,3,4 (OGC API Features), not bbox=1&bbox=2...
                p["style"] = "form".into();
                p["explode"] = false.into();
            }
            p
        }));
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
            Access::Open => op["security"] = serde_json::json!([]),
            Access::Read => {
                op["responses"]["401"] = error.clone();
            }
            Access::Role(role) => {
                op["description"] =
                    format!("Needs a token with the {role} role (or admin).").into();
                op["responses"]["401"] = error.clone();
                op["responses"]["403"] = error.clone();
            }
        }
        if route.path == "/api/session" {
            op["responses"]["401"] = error.clone();
        }
        if let Some(ty) = route.body {
            let schema = typed
                .body(route.method, route.path)
                .unwrap_or_else(|| serde_json::json!({}));
            op["requestBody"] = serde_json::json!({"required": true, "content": {ty: schema}});
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

    /// The routes mounted in the service's source, as (method, full path): each
    /// `.route("path", get(..).post(..))` of the files under src/http, with `/api` in
    /// front for the routers nested there.
    fn mounted() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/http");
        let mut out = Vec::new();
        for (file, prefix) in [
            ("mod.rs", ""),
            ("ogc.rs", ""),
            ("api.rs", "/api"),
            ("inspections.rs", "/api"),
            ("cases.rs", "/api"),
            ("upload.rs", "/api"),
            ("tokens.rs", "/api"),
            ("footprint.rs", "/api"),
            // The page's own files are not API routes; its `/api/session` is.
            ("page.rs", ""),
        ] {
            let src = std::fs::read_to_string(dir.join(file)).unwrap();
            for chunk in src.split(".route(").skip(1) {
                let chunk = chunk.trim_start();
                let Some(rest) = chunk.strip_prefix('"') else {
                    continue;
                };
                let path = &rest[..rest.find('"').unwrap()];
                if file == "page.rs" && !path.starts_with("/api/") {
                    continue;
                }
                // The handlers: up to the end of this .route( call.
                let mut depth = 1;
                let mut end = chunk.len();
                for (i, c) in chunk.char_indices() {
                    match c {
                        '(' => depth += 1,
                        ')' => {
                            depth -= 1;
                            if depth == 0 {
                                end = i;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let handlers = &chunk[..end];
                let full = if path.starts_with("/api/") && prefix == "/api" {
                    path.to_string()
                } else {
                    format!("{prefix}{path}")
                };
                for m in ["get", "post", "delete", "put", "patch"] {
                    let calls = [format!("{m}("), format!(".{m}(")];
                    if handlers
                        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '(' || c == '.'))
                        .any(|tok| calls.iter().any(|c| tok.starts_with(c.as_str())))
                    {
                        out.push((m.to_string(), full.clone()));
                    }
                }
            }
        }
        out
    }

    #[test]
    fn every_mounted_route_is_documented_and_every_documented_one_mounted() {
        let mounted = mounted();
        assert!(mounted.len() >= 20, "found only {mounted:?}");
        let doc = spec();
        for (m, p) in &mounted {
            assert!(
                doc["paths"][p.as_str()][m.as_str()].is_object(),
                "{m} {p} is mounted but not in the OpenAPI document"
            );
        }
        for route in ROUTES {
            assert!(
                mounted
                    .iter()
                    .any(|(m, p)| m == route.method && p == route.path),
                "{} {} is documented but not mounted",
                route.method,
                route.path
            );
        }
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
    }
}
