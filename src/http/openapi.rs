//! The API definition (OpenAPI 3.0) at `/api/openapi.json`, written from the route table
//! the router is mounted from ([`super::routes`]); the page's copy is `web/openapi.json`,
//! which its typed client (`web/src/api-types.ts`) is generated from.

use axum::Json;

use super::caller::Need;
use super::openapi_types::Typed;
use super::routes::{routes, Doc, Op, Query, Route};

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

/// The operation object of a route the table documents.
fn operation(typed: &mut Typed, route: &Route, op: &Op) -> serde_json::Value {
    let mut params: Vec<serde_json::Value> = route
        .path
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{')?.strip_suffix('}'))
        .map(|p| serde_json::json!({"name": p, "in": "path", "required": true, "schema": {"type": "string"}}))
        .collect();
    params.extend(query_params(typed, op.query));
    if op.if_match {
        params.push(
            serde_json::json!({"name": "If-Match", "in": "header", "required": false,
            "description": "the version the client read and writes back over: the ETag of GET /api/cases/{id} (a case) or of GET /collections/inspections/items/{id} (an inspection); another version stored by then is a 412", "schema": {"type": "string"}}),
        );
    }
    let error = serde_json::json!({"description": "an error; the message names the parameter at fault", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    let mut responses = serde_json::json!({
        "400": error, "404": error, "405": error, "408": error, "413": error,
        "414": error, "422": error, "431": error, "503": error,
    });
    for answer in &op.answers {
        let mut content = serde_json::Map::new();
        for (media, schema) in &answer.media {
            let body = match schema {
                Some(schema) => serde_json::json!({"schema": schema(typed)}),
                None => serde_json::json!({}),
            };
            content.insert(media.to_string(), body);
        }
        responses[answer.status] =
            serde_json::json!({"description": answer.description, "content": content});
    }
    let mut op_doc = serde_json::json!({"summary": op.summary, "parameters": params});
    match route.access {
        None => op_doc["security"] = serde_json::json!([]),
        Some(Need::Read) => responses["401"] = error.clone(),
        Some(Need::Role(role)) => {
            op_doc["description"] =
                format!("Needs a token with the {} role (or admin).", role.name()).into();
            responses["401"] = error.clone();
            responses["403"] = error.clone();
        }
    }
    for status in &op.errors {
        responses[*status] = error.clone();
    }
    if let Some(body) = op.body {
        let media = match body.schema {
            Some(schema) => serde_json::json!({"schema": schema(typed)}),
            // A body without a typed schema is still a media type object, never null.
            None => serde_json::json!({}),
        };
        op_doc["requestBody"] =
            serde_json::json!({"required": true, "content": {body.media: media}});
        // A body of another media type than the route reads.
        responses["415"] = error.clone();
    }
    op_doc["responses"] = responses;
    op_doc
}

/// The OpenAPI document.
pub fn spec() -> serde_json::Value {
    let mut typed = Typed::new();
    let mut paths = serde_json::Map::new();
    // The map's files, as `tiles.rs` writes them: by their names (`/tiles/{z}/{x}/{y}.mvt`)
    // where the router has one `{file}` segment.
    let mut map_files = serde_json::Map::new();
    super::tiles::openapi_paths(&mut map_files);
    for route in routes() {
        let (path, op) = match &route.doc {
            Doc::Api(op) => (route.path, operation(&mut typed, &route, op)),
            Doc::Map(name) => match map_files.get(*name).and_then(|p| p.get(route.method)) {
                Some(op) => (*name, op.clone()),
                None => continue,
            },
            // The page's own files are not API routes.
            Doc::PageFile => continue,
        };
        let entry = paths
            .entry(path.to_string())
            .or_insert_with(|| serde_json::json!({}));
        entry[route.method] = op;
    }
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

pub(crate) mod coalition;

#[cfg(test)]
mod tests;
