//! The parts of the OpenAPI document generated from the request types themselves (their
//! `JsonSchema` derive), so a parameter's name, type and description are the ones the
//! handler deserializes and the CLI's flags take: every answer route's query (the
//! `*Params` of `crate::answer`), the OGC items' and item's (the structs `ogc.rs` reads
//! them into), the body of `POST /api/determinations` (the place and
//! [`ProjectFactsParams`]) and the place of the receiving waters.

use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::JsonSchema;
use serde_json::{json, Map, Value};

use crate::answer::determine::PlaceWire;
use crate::answer::facts::ProjectFactsParams;

/// The generator and the schemas it has named, for one document.
pub struct Typed {
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

    /// `fixed` with every schema the document named.
    pub(super) fn schemas(&mut self, fixed: Value) -> Value {
        let mut all = self.extra.clone();
        if let Value::Object(f) = fixed {
            all.extend(f);
        }
        Value::Object(all)
    }
}

/// The object schema of `T`, inline (its nested definitions kept for `schemas`).
pub(super) fn object<T: JsonSchema>(t: &mut Typed) -> Value {
    let schema = t.gen.root_schema_for::<T>();
    for (name, def) in schema.definitions {
        t.extra
            .insert(name, serde_json::to_value(def).unwrap_or_default());
    }
    let mut v = serde_json::to_value(schema.schema).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("title");
    }
    v
}

/// The schema of `T` as a named schema of `components/schemas` (its type's name), and the
/// reference to it: an answer's type, which the page's generated types name.
pub(super) fn named<T: JsonSchema>(t: &mut Typed) -> Value {
    let schema = object::<T>(t);
    let name = T::schema_name();
    t.extra.insert(name.clone(), schema);
    json!({"$ref": format!("#/components/schemas/{name}")})
}

/// A GeoJSON FeatureCollection (RFC 7946), as the OGC items and the answers' GeoJSON
/// form carry it; the answers add `answer`, the answer's own fields that are not lists.
pub(super) fn feature_collection(t: &mut Typed) -> Value {
    feature(t);
    t.extra.insert(
        "FeatureCollection".into(),
        json!({"type": "object", "required": ["type", "features"], "properties": {
            "type": {"type": "string", "enum": ["FeatureCollection"]},
            "features": {"type": "array", "items": {"$ref": "#/components/schemas/Feature"}},
            "answer": {"type": "object", "additionalProperties": {}, "description": "the answer's own fields (not its lists), on an answer's GeoJSON form"},
        }}),
    );
    json!({"$ref": "#/components/schemas/FeatureCollection"})
}

/// A GeoJSON Feature (RFC 7946): its geometry (null when it has none) and its
/// properties, a layer's fields or an answer's facts of the place.
pub(super) fn feature(t: &mut Typed) -> Value {
    t.extra.insert(
        "Feature".into(),
        json!({"type": "object", "required": ["type", "geometry", "properties"], "properties": {
            "type": {"type": "string", "enum": ["Feature"]},
            "id": {"description": "the feature's id", "oneOf": [{"type": "string"}, {"type": "number"}]},
            "geometry": {"type": "object", "nullable": true, "required": ["type"], "properties": {
                "type": {"type": "string", "description": "Point, LineString, Polygon, MultiPoint, MultiLineString, MultiPolygon or GeometryCollection"},
                "coordinates": {"type": "array", "items": {}, "description": "the positions, nested as the type has them"},
            }},
            "properties": {"type": "object", "additionalProperties": {}, "description": "a layer's fields, or an answer's facts of the place (the server always sends an object)"},
        }}),
    );
    json!({"$ref": "#/components/schemas/Feature"})
}

/// The query parameters of a struct's schema: one per field, required when the struct
/// requires it, described by the field's doc comment. A query leaves a value out rather
/// than sending null, so `nullable` and a `null` default are dropped; a field of any
/// JSON (a GeoJSON footprint) is one string holding it.
pub(super) fn query_params(schema: &Value) -> Vec<Value> {
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
            let mut description = Value::Null;
            if let Some(o) = prop.as_object_mut() {
                description = o.remove("description").unwrap_or_default();
                o.remove("nullable");
                if o.get("default").is_some_and(Value::is_null) {
                    o.remove("default");
                }
                if !o.contains_key("type") && !o.contains_key("$ref") {
                    o.insert("type".into(), "string".into());
                }
            } else {
                // `true`: any JSON.
                prop = json!({"type": "string"});
            }
            json!({
                "name": name, "in": "query",
                "required": required.contains(&name.as_str()),
                "description": description, "schema": prop,
            })
        })
        .collect()
}

/// The body of `POST /api/determinations`: the place's keys beside the facts, in one
/// object (the handler reads the two from the same body), named `DetermineRequest`, and
/// the facts alone as `ProjectFactsParams` for the page's list.
pub(super) fn determine_request(t: &mut Typed) -> Value {
    let facts = object::<ProjectFactsParams>(t);
    t.extra.insert("ProjectFactsParams".into(), facts.clone());
    let place = object::<PlaceWire>(t);
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
        "Where the project is (`parcel` or `footprint`, one of them) and its facts".into();
    t.extra.insert("DetermineRequest".into(), request);
    json!({"$ref": "#/components/schemas/DetermineRequest"})
}
