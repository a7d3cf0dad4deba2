//! The places an answer names, and the answer as GeoJSON.
//!
//! Each answer type says which features it names (a layer and an id) and which
//! geometries it makes itself (a dangling end's point, an outfall's path), with the
//! answer's own fields for each. The GeoJSON the command line prints and the API sends is
//! built from that declaration alone: one feature per place, whatever its layer, so a map
//! shows exactly what the answer says and nothing is found by reading the JSON back.

use geo_types::{Geometry, MultiLineString, Point};
use serde::Serialize;
use serde_json::{Map, Value};

use super::AskError;
use crate::domain::Layer;
use crate::spatial::Snapshot;

/// Where a place is drawn.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A feature's own geometry, from the snapshot.
    Feature(Layer, String),
    /// The pipes named, as one multi-line (a cycle, an outfall's path).
    Pipes(Vec<String>),
    /// A point the answer computed, in the registry's CRS.
    Point([f64; 2]),
    /// An area the answer computed (a sewershed), in the registry's CRS.
    Area(geo_types::MultiPolygon<f64>),
    /// Nowhere: the place has no geometry (an unreadable row). Its feature is still
    /// written, with a null geometry, so no place the answer names is dropped.
    Nowhere,
}

/// One place an answer names.
#[derive(Debug, Clone, PartialEq)]
pub struct Place {
    /// The feature's id (the GeoJSON feature's `id`), when it has one.
    pub id: Option<String>,
    /// The layer, written as the `layer` property, when the place is a layer's feature.
    pub layer: Option<Layer>,
    /// Where it is drawn.
    pub shape: Shape,
    /// The answer's fields for this place.
    pub properties: Map<String, Value>,
}

impl Place {
    /// A layer's feature, with the answer's fields for it.
    pub fn feature(layer: Layer, id: &str, properties: Map<String, Value>) -> Self {
        Place {
            id: Some(id.to_string()),
            layer: Some(layer),
            shape: Shape::Feature(layer, id.to_string()),
            properties,
        }
    }
}

/// The fields of a serializable item, as properties (an item that is not an object is
/// kept under `value`).
pub fn fields<T: Serialize + ?Sized>(item: &T) -> Map<String, Value> {
    match serde_json::to_value(item) {
        Ok(Value::Object(o)) => o,
        Ok(v) => Map::from_iter([("value".to_string(), v)]),
        Err(_) => Map::new(),
    }
}

/// An answer that names places.
pub trait Places: Serialize {
    /// Every place the answer names, in the order it names them.
    fn places(&self) -> Vec<Place>;
}

/// An answer as a GeoJSON FeatureCollection in CRS84: one feature per place it names,
/// with the answer's fields for that place as properties, and the answer's other
/// top-level fields (those that are not lists) as the collection's `answer` member.
pub fn feature_collection<A: Places + ?Sized>(
    snap: &Snapshot,
    answer: &A,
) -> Result<Value, AskError> {
    // This thread's transform: making one reads PROJ's database (two fifths of a nearby
    // request's time when each answer made its own).
    let rp = crate::import::crs::cached_reprojector(snap.meta.srid, 4326)
        .map_err(|e| AskError::Other(e.into()))?;
    let places = answer.places();
    let shapes: Vec<Option<Geometry<f64>>> =
        places.iter().map(|p| geometry(snap, &p.shape)).collect();
    let drawn: Vec<bool> = shapes.iter().map(Option::is_some).collect();
    let mut in84 = rp
        .apply_each(shapes.into_iter().flatten().collect())
        .map_err(|e| AskError::Other(e.into()))?
        .into_iter();
    let mut features = Vec::with_capacity(places.len());
    for (p, drawn) in places.into_iter().zip(drawn) {
        // The reprojected geometries are those of the places that have one, in order.
        let geometry = match drawn.then(|| in84.next()).flatten() {
            Some(g84) => serde_json::to_value(geojson::Geometry::from(&g84))
                .map_err(|e| AskError::Other(e.into()))?,
            None => Value::Null,
        };
        let mut props = p.properties;
        if let Some(l) = p.layer {
            props.insert("layer".into(), l.name().into());
        }
        let mut f = Map::new();
        f.insert("type".into(), "Feature".into());
        if let Some(id) = p.id {
            f.insert("id".into(), id.into());
        }
        f.insert("geometry".into(), geometry);
        f.insert("properties".into(), Value::Object(props));
        features.push(Value::Object(f));
    }
    let summary: Map<String, Value> = fields(answer)
        .into_iter()
        .filter(|(_, v)| !v.is_array())
        .collect();
    Ok(serde_json::json!({
        "type": "FeatureCollection",
        "features": features,
        "answer": summary,
    }))
}

/// A shape's geometry in the registry's CRS; `None` when it has none in the snapshot.
fn geometry(snap: &Snapshot, shape: &Shape) -> Option<Geometry<f64>> {
    match shape {
        Shape::Feature(layer, id) => snap.geometry(*layer, id).cloned(),
        Shape::Pipes(ids) => {
            let lines = pipe_lines(snap, ids);
            (!lines.0.is_empty()).then_some(Geometry::MultiLineString(lines))
        }
        Shape::Point([x, y]) => Some(Geometry::Point(Point::new(*x, *y))),
        Shape::Area(m) => Some(Geometry::MultiPolygon(m.clone())),
        Shape::Nowhere => None,
    }
}

/// The pipes among `ids`, as one multi-line (ids that are no pipe are left out: a path
/// names its structures too).
fn pipe_lines(snap: &Snapshot, ids: &[String]) -> MultiLineString<f64> {
    let mut parts = Vec::new();
    for id in ids {
        match snap.geometry(Layer::Pipes, id) {
            Some(Geometry::LineString(l)) => parts.push(l.clone()),
            Some(Geometry::MultiLineString(m)) => parts.extend(m.0.iter().cloned()),
            _ => {}
        }
    }
    MultiLineString(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;
    use std::collections::HashMap;

    /// An answer naming a headwall, a pipe twice over (as itself and as a path), a point
    /// of its own and a row with no geometry.
    #[derive(Serialize)]
    struct Named {
        note: &'static str,
        ids: Vec<&'static str>,
    }

    impl Places for Named {
        fn places(&self) -> Vec<Place> {
            let props = |k: &str| Map::from_iter([("kind".to_string(), k.into())]);
            vec![
                Place::feature(Layer::Structures, "HW-1", props("headwall")),
                // Between places that have a geometry: the next ones keep their own.
                Place {
                    id: Some("X-9".into()),
                    layer: Some(Layer::Manholes),
                    shape: Shape::Nowhere,
                    properties: props("unreadable"),
                },
                Place::feature(Layer::Pipes, "P-1", props("pipe")),
                Place {
                    id: None,
                    layer: None,
                    shape: Shape::Pipes(vec!["HW-1".into(), "P-1".into()]),
                    properties: props("path"),
                },
                Place {
                    id: None,
                    layer: None,
                    shape: Shape::Point([660050.0, 870000.0]),
                    properties: props("end"),
                },
            ]
        }
    }

    fn town() -> Snapshot {
        let meta = crate::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
        let mut hw = crate::domain::Feature::new(Layer::Structures, "HW-1");
        hw.geom = Some(wkt!(POINT(660000. 870000.)).into());
        let mut p = crate::domain::Feature::new(Layer::Pipes, "P-1");
        p.geom = Some(wkt!(LINESTRING(660000. 870000.,660100. 870000.)).into());
        let layers = HashMap::from([(Layer::Structures, vec![hw]), (Layer::Pipes, vec![p])]);
        Snapshot::from_features(meta, layers)
    }

    #[test]
    fn every_place_is_one_feature_in_crs84_whatever_its_layer() {
        let answer = Named {
            note: "kept",
            ids: vec!["HW-1"],
        };
        let fc = feature_collection(&town(), &answer).unwrap();
        let f = fc["features"].as_array().unwrap();
        let kinds: Vec<&str> = f
            .iter()
            .map(|f| f["properties"]["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["headwall", "unreadable", "pipe", "path", "end"]);
        assert_eq!(f[0]["id"], "HW-1");
        assert_eq!(f[0]["properties"]["layer"], "structures");
        assert_eq!(f[0]["geometry"]["type"], "Point");
        let lon = |f: &Value| f["geometry"]["coordinates"][0].as_f64().unwrap();
        assert!(
            (-74.0..-73.5).contains(&lon(&f[0])),
            "CRS84: {}",
            lon(&f[0])
        );
        // A place without a geometry is still a feature.
        assert!(f[1]["geometry"].is_null());
        assert_eq!(f[1]["properties"]["layer"], "manholes");
        assert_eq!(f[2]["geometry"]["type"], "LineString");
        // A path is drawn from its pipes only; a point of the answer's own has no layer.
        assert_eq!(f[3]["geometry"]["type"], "MultiLineString");
        assert_eq!(f[3]["geometry"]["coordinates"].as_array().unwrap().len(), 1);
        assert!(f[4].get("id").is_none() && f[4]["properties"].get("layer").is_none());
        // The end is its own point, 50 ft east of the headwall.
        assert_eq!(f[4]["geometry"]["type"], "Point");
        assert!(lon(&f[4]) > lon(&f[0]), "{} {}", lon(&f[4]), lon(&f[0]));
        // The answer's fields that are not lists ride along.
        assert_eq!(fc["answer"], serde_json::json!({"note": "kept"}));
    }
}
