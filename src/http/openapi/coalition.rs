//! The API definition of a coalition's own routes (`ms4 serve --registry …`), served at
//! the coalition's `/api/openapi.json`: the members' list, the service's health and the
//! joint answers. Each member's own API is under `/r/{name}/`, described by the
//! registry's document ([`super::spec`]) at `/r/{name}/api/openapi.json`.
//!
//! A joint answer passes the caller's query to every member's route, so its parameters
//! are read from that route in the registry's document rather than written again: a
//! parameter added to the member's route is documented here too.

use axum::Json;
use serde_json::{json, Value};

/// The coalition's paths, as its router mounts them (`http::coalition::app`): the
/// tests hold both the router and the document to this list.
#[cfg(test)]
pub(crate) const PATHS: [&str; 7] = [
    "/api/openapi.json",
    "/coalition/inspections/due",
    "/coalition/monitoring-locations",
    "/coalition/report",
    "/coalition/watersheds/{id}/facilities",
    "/health",
    "/registries",
];

/// The parameters of `GET path` in the registry's document that `keep` keeps.
fn member_params(member: &Value, path: &str, keep: impl Fn(&str) -> bool) -> Vec<Value> {
    member["paths"][path]["get"]["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| keep(p["name"].as_str().unwrap_or("")))
        .cloned()
        .collect()
}

/// The answers every joint route may give besides its own: a member's refusal is passed
/// on with its status, naming the member.
fn responses(ok: Value) -> Value {
    let error = json!({"description": "an error; a member's refusal names the member (`carmel: …`)", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    json!({"200": ok, "400": error, "401": error, "403": error, "404": error, "408": error, "422": error, "503": error})
}

fn json_answer(description: &str, schema: Value) -> Value {
    json!({"description": description, "content": {"application/json": {"schema": schema}}})
}

/// A GeoJSON collection of every member's features, each tagged with its member.
fn joint_features(extra: Value) -> Value {
    let mut properties = json!({
        "type": {"type": "string", "enum": ["FeatureCollection"]},
        "features": {"type": "array", "items": {"$ref": "#/components/schemas/Feature"}, "description": "every member's features, each with `member` among its properties"},
        "members": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"},
            "features": {"type": "integer", "description": "how many of the features are this member's"},
            "watershed": {"type": "string", "description": "set when the watershed is not in this member's registry"}}}},
    });
    if let (Some(p), Some(more)) = (properties.as_object_mut(), extra.as_object()) {
        p.extend(more.clone());
    }
    json!({"description": "every member's answer, side by side", "content": {"application/geo+json": {"schema": {
        "type": "object", "required": ["type", "features", "members"], "properties": properties}}}})
}

/// The coalition's document.
pub fn spec() -> Value {
    let member = super::spec();
    let not_f = |name: &str| name != "f";
    let mut year = json!({"name": "year", "in": "query", "required": true, "description": "The common reporting year.", "schema": {"type": "integer", "format": "int32"}});
    if let Some(d) = member_params(&member, "/api/report", |n| n == "year").first() {
        year["schema"] = d["schema"].clone();
    }
    let mut report_params = vec![year];
    report_params.extend(member_params(&member, "/api/report", |n| n == "as_of"));
    let mut facilities_params = member_params(&member, "/api/watersheds/{id}/facilities", not_f);
    if facilities_params.iter().all(|p| p["in"] != "path") {
        facilities_params.insert(
            0,
            json!({"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}),
        );
    }
    let open = json!([]);
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "ms4 coalition",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "A coalition's registries in one service: each member's whole API under /r/{name}/ (its own definition at /r/{name}/api/openapi.json), the list of members, and the joint answers, which ask each member its own question with the caller's token and fail with a member's refusal rather than total over the members that answered.",
        },
        "paths": {
            "/api/openapi.json": {"get": {"summary": "This document", "security": open, "parameters": [],
                "responses": responses(json_answer("the coalition's API definition", json!({"type": "object"})))}},
            "/registries": {"get": {"summary": "The members: each one's name, jurisdiction, title and the address it is served at", "security": open, "parameters": [],
                "responses": responses(json_answer("the members", json!({"type": "object", "required": ["registries"], "properties": {"registries": {"type": "array", "items": {
                    "type": "object", "required": ["name", "jurisdiction", "title", "href"], "properties": {
                        "name": {"type": "string", "description": "the path segment after /r/"},
                        "jurisdiction": {"type": "string"},
                        "title": {"type": "string", "description": "the town's name, as its profile gives it"},
                        "href": {"type": "string", "description": "where the member is served (`…/r/carmel/`)"}}}}}})))}},
            "/health": {"get": {"summary": "Up while any member is; each member's own /r/{name}/health says more", "security": open, "parameters": [],
                "responses": responses(json_answer("the service is up", json!({"type": "object", "properties": {
                    "status": {"type": "string"}, "registries": {"type": "array", "items": {"type": "string"}}}})))}},
            "/coalition/report": {"get": {"summary": "The joint annual report: each member's report (its counts with their records) for the year, and the coalition's totals by measure with each member's share",
                "parameters": report_params,
                "responses": responses(json_answer("the joint report", json!({"type": "object", "required": ["year", "members", "totals"], "properties": {
                    "year": {"type": "integer"},
                    "members": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "report": {"type": "object", "description": "the member's GET /r/{name}/api/report"}}}},
                    "totals": {"type": "array", "items": {"type": "object", "required": ["measure", "count", "by_member"], "properties": {
                        "measure": {"type": "string"}, "label": {"type": "string"},
                        "count": {"type": "integer", "description": "the members' counts added up"},
                        "by_member": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "each member's count (0 where it has none)"},
                        "denominator": {"type": "array", "description": "[measure, the members' denominators added up], for a share"},
                        "dollars": {"type": "number"}}}}}})))}},
            "/coalition/inspections/due": {"get": {"summary": "Every member's assets due or overdue for inspection, each by its own profile's schedule, on one map, each feature tagged with its member; the query is the members' GET /api/inspections/due's",
                "parameters": member_params(&member, "/api/inspections/due", not_f),
                "responses": responses(joint_features(json!({})))}},
            "/coalition/monitoring-locations": {"get": {"summary": "Every member's monitoring locations on one map, each feature tagged with its member; the query is the members' GET /api/monitoring-locations's",
                "parameters": member_params(&member, "/api/monitoring-locations", not_f),
                "responses": responses(joint_features(json!({})))}},
            "/coalition/watersheds/{id}/facilities": {"get": {"summary": "A watershed's facilities across the members it crosses, each tagged with its member; a member it does not reach is listed as such; the query is the members' GET /api/watersheds/{id}/facilities's",
                "parameters": facilities_params,
                "responses": responses(joint_features(json!({"watershed_id": {"type": "string"}})))}},
        },
        "security": [{"bearer": []}, {"basic": []}],
        "components": member["components"].clone(),
    })
}

/// `GET /api/openapi.json` of a coalition.
pub(crate) async fn document() -> Json<Value> {
    Json(spec())
}
