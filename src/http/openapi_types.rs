//! The parts of the OpenAPI document generated from the request types themselves (their
//! `JsonSchema` derive), so a parameter's name, type and description are the ones the
//! handler deserializes and the CLI's flags take: the body of `POST /api/determinations`
//! (the place and [`ProjectFactsParams`]) and the query of `GET /api/screen`.

use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::answer::determine::{PlaceWire, ScreenParams};
use crate::answer::facts::ProjectFactsParams;

/// The generator and the schemas it has named, for one document.
pub(super) struct Typed {
    gen: SchemaGenerator,
    extra: Map<String, Value>,
}

impl Typed {
    /// A generator for OpenAPI 3.0 schemas (`nullable`, definitions under
    /// `#/components/schemas/`).
    pub(super) fn new() -> Self {
        Typed {
            gen: SchemaSettings::openapi3().into_generator(),
            extra: Map::new(),
        }
    }

    /// The object schema of `T`, inline (its nested definitions kept for `schemas`).
    fn object<T: JsonSchema>(&mut self) -> Value {
        let schema = self.gen.root_schema_for::<T>();
        for (name, def) in schema.definitions {
            self.extra
                .insert(name, serde_json::to_value(def).unwrap_or_default());
        }
        let mut v = serde_json::to_value(schema.schema).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("title");
        }
        v
    }

    /// The query parameters of a route whose query is a typed struct: one per field,
    /// required when the struct requires it, described by the field's doc comment.
    pub(super) fn query(&mut self, method: &str, path: &str) -> Vec<Value> {
        let schema = match (method, path) {
            ("get", "/api/screen") => self.object::<ScreenParams>(),
            _ => return Vec::new(),
        };
        let required: Vec<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(props) = schema["properties"].as_object() else {
            return Vec::new();
        };
        props
            .iter()
            .map(|(name, prop)| {
                let mut prop = prop.clone();
                let description = prop
                    .as_object_mut()
                    .and_then(|o| o.remove("description"))
                    .unwrap_or_default();
                json!({
                    "name": name, "in": "query",
                    "required": required.contains(&name.as_str()),
                    "description": description, "schema": prop,
                })
            })
            .collect()
    }

    /// The body (media type object) of a route whose body is a typed struct.
    pub(super) fn body(&mut self, method: &str, path: &str) -> Option<Value> {
        match (method, path) {
            ("post", "/api/determinations") => {
                let facts = self.object::<ProjectFactsParams>();
                self.extra
                    .insert("ProjectFactsParams".into(), facts.clone());
                // The place's keys beside the facts, in one object: the handler reads the
                // two from the same body.
                let place = self.object::<PlaceWire>();
                let mut request = facts;
                if let (Some(to), Some(from)) = (
                    request["properties"].as_object_mut(),
                    place["properties"].as_object(),
                ) {
                    for (k, v) in from {
                        to.insert(k.clone(), v.clone());
                    }
                }
                request["description"] =
                    "Where the project is (`parcel` or `footprint`, one of them) and its facts"
                        .into();
                self.extra.insert("DetermineRequest".into(), request);
                Some(json!({"schema": {"$ref": "#/components/schemas/DetermineRequest"}}))
            }
            _ => None,
        }
    }

    /// `fixed` with every schema the document named.
    pub(super) fn schemas(&mut self, fixed: Value) -> Value {
        let mut all = self.extra.clone();
        if let Value::Object(f) = fixed {
            all.extend(f);
        }
        Value::Object(all)
    }
}
