//! The answers with places as GeoJSON: `Accept: application/geo+json` or `f=geojson` on
//! any `/api` answer gives a FeatureCollection in CRS84, one feature per place the answer
//! names (a facility, connection, SMP, parcel, water, watershed...), its properties the
//! answer's own fields for that place, so a map can draw what it was told.
//!
//! The answer is made as JSON first, exactly as without the option, and then dressed with
//! the snapshot's geometries: the GeoJSON can never say something the JSON does not.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::{AppState, HttpError};
use crate::domain::Layer;
use crate::spatial::Snapshot;

/// Whether the request asks for GeoJSON; strips `f` from the query so the answer's own
/// parameters are read as always. `f` other than `json` or `geojson` is a 400.
fn wants_geojson(req: &mut Request) -> Result<bool, HttpError> {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/geo+json"));
    let Some(q) = req.uri().query() else {
        return Ok(accept);
    };
    let mut f = None;
    let kept: Vec<&str> = q
        .split('&')
        .filter(|kv| match kv.strip_prefix("f=") {
            Some(v) => {
                f = Some(v.to_string());
                false
            }
            None => true,
        })
        .collect();
    let Some(f) = f else { return Ok(accept) };
    let geo = match f.as_str() {
        "geojson" => true,
        "json" => false,
        other => {
            return Err(HttpError::BadRequest(format!(
                "f: {other:?} is not a format; expected json or geojson"
            )))
        }
    };
    let path = req.uri().path().to_string();
    let pq = if kept.is_empty() {
        path
    } else {
        format!("{path}?{}", kept.join("&"))
    };
    let mut parts = req.uri().clone().into_parts();
    parts.path_and_query = Some(
        pq.parse()
            .map_err(|_| HttpError::BadRequest("bad query".into()))?,
    );
    *req.uri_mut() =
        Uri::from_parts(parts).map_err(|_| HttpError::BadRequest("bad query".into()))?;
    Ok(geo)
}

/// Middleware on the `/api` answers: turns a JSON answer into GeoJSON when asked.
pub(super) async fn convert(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let geo = match wants_geojson(&mut req) {
        Ok(g) => g,
        Err(e) => return e.into_response(),
    };
    let res = next.run(req).await;
    if !geo || res.status() != StatusCode::OK {
        return res;
    }
    let (parts, body) = res.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, usize::MAX).await else {
        return HttpError::Internal("reading an answer failed".into()).into_response();
    };
    let Ok(answer) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    let snap = state.snapshot.current();
    let fc = tokio::task::spawn_blocking(move || collection(&snap, answer)).await;
    match fc {
        Ok(Ok(v)) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/geo+json"),
            )],
            v.to_string(),
        )
            .into_response(),
        Ok(Err(e)) => HttpError::Internal(format!("{e:#}")).into_response(),
        Err(e) => HttpError::Internal(format!("{e}")).into_response(),
    }
}

/// The layers an id field names, most specific first.
const KEYS: &[(&str, &[Layer])] = &[
    ("connection_id", &[Layer::Connections]),
    ("smp_id", &[Layer::Smps]),
    ("record_id", &[Layer::ConnectionRecords]),
    ("easement_id", &[Layer::Easements]),
    (
        "asset_id",
        &[
            Layer::Outfalls,
            Layer::CatchBasins,
            Layer::Manholes,
            Layer::Pipes,
            Layer::Smps,
        ],
    ),
    ("outfall", &[Layer::Outfalls]),
    ("parcel_id", &[Layer::Parcels]),
    ("watershed_id", &[Layer::Watersheds]),
    ("tmdl_id", &[Layer::TmdlAreas]),
    ("water_id", &[Layer::ReceivingWaters]),
];

/// The place an answer object is about: its layer and id, if it has a geometry.
fn place<'a>(
    snap: &'a Snapshot,
    o: &Map<String, Value>,
) -> Option<(Layer, &'a geo_types::Geometry<f64>)> {
    if let (Some(l), Some(id)) = (
        o.get("layer").and_then(Value::as_str),
        o.get("id").and_then(Value::as_str),
    ) {
        if let Ok(l) = l.parse::<Layer>() {
            if let Some(g) = snap.geometry(l, id) {
                return Some((l, g));
            }
        }
    }
    for (key, layers) in KEYS {
        let Some(id) = o.get(*key).and_then(Value::as_str) else {
            continue;
        };
        for l in *layers {
            if let Some(g) = snap.geometry(*l, id) {
                return Some((*l, g));
            }
        }
    }
    None
}

fn walk(
    snap: &Snapshot,
    v: &Value,
    out: &mut Vec<(Layer, geo_types::Geometry<f64>, Map<String, Value>)>,
) {
    match v {
        Value::Object(o) => {
            if let Some((l, g)) = place(snap, o) {
                out.push((l, g.clone(), o.clone()));
                return;
            }
            for x in o.values() {
                walk(snap, x, out);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| walk(snap, x, out)),
        _ => {}
    }
}

/// An answer as a FeatureCollection in CRS84; the answer's top-level fields that are not
/// places ride along as the collection's `answer` member.
pub fn collection(snap: &Snapshot, answer: Value) -> anyhow::Result<Value> {
    let mut found = Vec::new();
    walk(snap, &answer, &mut found);
    let rp = crate::import::crs::Reprojector::new(snap.meta.srid, 4326)?;
    let mut features = Vec::with_capacity(found.len());
    for (layer, g, mut props) in found {
        let g84 = rp.apply(&g)?;
        props.insert("layer".into(), layer.name().into());
        let id = props
            .get("id")
            .cloned()
            .or_else(|| props.get(layer.id_field()).cloned());
        let mut f = serde_json::json!({
            "type": "Feature",
            "geometry": serde_json::to_value(geojson::Geometry::from(&g84))?,
            "properties": props,
        });
        if let Some(id) = id {
            f["id"] = id;
        }
        features.push(f);
    }
    let summary: Map<String, Value> = match answer {
        Value::Object(o) => o.into_iter().filter(|(_, v)| !v.is_array()).collect(),
        _ => Map::new(),
    };
    Ok(serde_json::json!({
        "type": "FeatureCollection",
        "features": features,
        "answer": summary,
    }))
}
