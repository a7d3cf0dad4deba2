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
    /// One parameter per field of the struct the handler deserializes the query into
    /// (the OGC items' too, which `ogc.rs` reads by hand into its typed struct).
    Typed(SchemaOf),
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

use super::cases::{AsOf, ListParams, ReportParams};
use super::inspections::NewInspection;
use super::ogc::{ItemParams, ItemsParams};
use super::openapi_types::{determine_request, object as t, Typed};
use crate::answer::determine::{PlaceWire, ScreenParams};
use crate::answer::illicit::IllicitParams;
use crate::answer::nearby::NearbyParams;
use crate::answer::smps::SmpsParams;
use crate::answer::trace::{NetworkCheckParams, TraceParams};
use crate::answer::watershed_facilities::WatershedFacilitiesParams;
use crate::idde::case::{Action, Closing};
use crate::idde::open::OpenCase;

/// Every route of the service.
pub const ROUTES: &[Route] = &[
    r("get", "/", "Landing page (OGC API – Features)", NO, None, OPEN),
    r("get", "/conformance", "Conformance classes", NO, None, OPEN),
    r("get", "/health", "Liveness (200 while serving), readiness (`ready`, `database`: reachable or unreachable), store kind, jurisdiction and CRS", NO, None, OPEN),
    r("get", "/api/openapi.json", "This document", NO, None, OPEN),
    r("get", "/api/session", "Who the token (or no token) is and what it may do: {signed_in, public_read, may_read, subject, role, may: {read, inspect, import, admin}}; a token that is not valid is a 401", NO, None, OPEN),
    r("get", "/collections", "The registry's layers with extent and CRS list", NO, None, READ),
    r("get", "/collections/{layer}", "One layer", NO, None, READ),
    r("get", "/collections/{layer}/items", "A layer's features (GeoJSON), by page", q(t::<ItemsParams>), None, READ),
    r("get", "/collections/{layer}/items/{id}", "One feature", q(t::<ItemParams>), None, READ),
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
    r("post", "/api/inspections", "Record an inspection: {asset_id, inspected_on, kind (dry_weather_screening | smp_maintenance | catch_basin_cleaning), result, inspector?, notes?, screening?: {flow, odour, colour, turbidity, floatables, deposits, field_tests: {ph, ammonia_mg_l, ...}}}", NO, json(Some(t::<NewInspection>)), role(Role::Inspector)),
    r("get", "/api/cases", "Illicit discharge cases with their candidates and action logs", q(t::<ListParams>), None, READ),
    r("get", "/api/cases/{id}", "A case with its deadlines and fines computed as of a time; its version is the ETag", q(t::<AsOf>), None, READ),
    r("get", "/api/cases/{id}/notice", "The case's notice of violation as printable HTML", q(t::<AsOf>), None, READ),
    r("post", "/api/notices/land-development", "The land development notice of violation (NC ch. 267 Part 1 C(1), Carmel § 156-88A) as printable HTML: {case_id?, parcel_id?, owner?, owner_address?, site?, violation?, remedial_measures?: [{measure, complete_by?}], served_on?, earlier_offences?, offence_on?}; the print view is the paper form", NO, JSON, READ),
    r("get", "/api/deadlines", "What is due and overdue, by case, and the fines accrued (computed from the profile)", q(t::<AsOf>), None, READ),
    r("get", "/api/report", "The annual report: each count with its period, denominator and record ids", q(t::<ReportParams>), None, READ),
    r("get", "/api/inspections/{id}/photos", "An inspection's photos with their SHA-256", NO, None, READ),
    r("get", "/api/photos/{sha256}", "A photo's bytes, by its SHA-256, under the type its bytes name, with nosniff and a sandboxing Content-Security-Policy", NO, None, READ),
    r("post", "/api/cases", "Open a case: {origin (complaint | hotline | screening | connection | staff), opened_on, reported_by?, description?, asset_id?, connection_id?, parcel_id?, inspection_id?}", NO, json(Some(t::<OpenCase>)), role(Role::Officer)),
    r("post", "/api/cases/from-connections", "Open a case for each connection found illicit or needing review that no case names: {opened_on}", NO, JSON, role(Role::Officer)),
    r("post", "/api/cases/{id}/actions", "Log an action: {kind, on, at?, by?, method?, outcome?, violations?, results?, connection_id?, notes?}", NO, json(Some(t::<Action>)), role(Role::Officer)),
    r("post", "/api/cases/{id}/close", "Close a case: {closure (eliminated | unfounded | referred), on, by?, notes?, referred_to?, connection_id?}; with If-Match (the case's ETag), a case changed since is a 412", NO, json(Some(t::<Closing>)), role(Role::Officer)),
    r("post", "/api/inspections/{id}/photos", "Store a photo of an inspection: the image bytes as the body, a JPEG, PNG, WebP or HEIC/HEIF image (its type is read from the bytes, never the Content-Type; any other bytes are a 415); answers {photo_id, sha256, size, content_type}", NO, raw("image/*"), role(Role::Inspector)),
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
    } else if path.starts_with("/api/photos/") {
        "image/*"
    } else {
        "application/json"
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
        if route.path == "/api/cases/{id}/close" {
            // Sent with the case's ETag, a close of a case changed since is refused.
            op["responses"]["412"] = error.clone();
            if let Some(p) = op["parameters"].as_array_mut() {
                p.push(serde_json::json!({"name": "If-Match", "in": "header", "required": false,
                    "description": "the case's ETag (GET /api/cases/{id})", "schema": {"type": "string"}}));
            }
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
            // A body of another media type than the route reads.
            op["responses"]["415"] = error.clone();
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
        "security": [{"bearer": []}, {"basic": []}],
        "components": {
            // The token as a bearer token, or as the password of HTTP Basic (any user
            // name) for clients that send only Basic.
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer"},
                "basic": {"type": "http", "scheme": "basic", "description": "the token as the password, any user name"},
            },
            "schemas": typed.schemas(serde_json::json!({"Error": {"type": "object", "required": ["error", "status"], "properties": {
                "error": {"type": "string", "description": "what is wrong, for a person; a field's error starts with the field (`k: invalid digit found in string`)"},
                "status": {"type": "integer", "description": "the response's status code"},
                "field": {"type": "string", "description": "the parameter or body field at fault, as its path into the request (`k`, `screening.field_tests.ph`, `actions[0].by`); absent when no one field is"}}}})),
        },
    })
}

pub(super) async fn document() -> Json<serde_json::Value> {
    Json(spec())
}

#[cfg(test)]
mod tests;
