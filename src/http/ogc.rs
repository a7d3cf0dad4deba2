//! OGC API – Features, Part 1 (Core, GeoJSON, OpenAPI 3.0) and Part 2 (CRS by reference),
//! over every layer of the snapshot: what QGIS, GDAL's OAPIF driver and OWSLib read.
//!
//! Features are returned in CRS84 (longitude, latitude) unless `crs` asks for the
//! registry's own CRS; `bbox` may be given in either with `bbox-crs`. Pages are in id
//! order, so `next` links are stable while the snapshot is.

use std::collections::HashMap;
use std::fmt::Write as _;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use geo::Intersects;
use geo_types::{Coord, Geometry};

use super::extent::{densified_rect, extent_crs84};
use super::geojson::feature;
use super::links::base;
use super::{AppState, HttpError};
use crate::domain::{GeomKind, Layer};
use crate::import::crs::cached_reprojector;
use crate::spatial::envelope::rect_position;
use crate::spatial::Snapshot;

mod params;
use params::{parse_item_query, parse_items_query};
pub(super) use params::{ItemParams, ItemsParams};

/// CRS84: WGS 84 longitude, latitude — the default of OGC API Features and GeoJSON.
pub const CRS84: &str = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";

/// The conformance classes implemented.
const CONFORMS_TO: [&str; 4] = [
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/geojson",
    "http://www.opengis.net/spec/ogcapi-features-1/1.0/conf/oas30",
    "http://www.opengis.net/spec/ogcapi-features-2/1.0/conf/crs",
];

/// The URI of an EPSG code's CRS.
pub fn epsg_uri(srid: i32) -> String {
    format!("http://www.opengis.net/def/crs/EPSG/0/{srid}")
}

/// Reads a CRS parameter: CRS84 (by URI or name) or the registry's CRS (by URI or
/// `EPSG:n`); the EPSG code to use, with 4326 standing for CRS84 (lon/lat order).
fn parse_crs(param: &str, value: &str, srid: i32) -> Result<i32, HttpError> {
    let v = value.trim().trim_start_matches('[').trim_end_matches(']');
    let crs84 = [CRS84, "CRS84", "OGC:CRS84", "urn:ogc:def:crs:OGC:1.3:CRS84"];
    if crs84.iter().any(|c| c.eq_ignore_ascii_case(v)) {
        return Ok(4326);
    }
    let own = [
        epsg_uri(srid),
        format!("EPSG:{srid}"),
        format!("urn:ogc:def:crs:EPSG::{srid}"),
    ];
    if own.iter().any(|c| c.eq_ignore_ascii_case(v)) {
        return Ok(srid);
    }
    Err(HttpError::BadRequest(format!(
        "{param}: {value:?} is not offered; use {CRS84} or {}",
        epsg_uri(srid)
    )))
}

fn link(href: String, rel: &str, ty: &str, title: &str) -> serde_json::Value {
    serde_json::json!({"href": href, "rel": rel, "type": ty, "title": title})
}

pub(super) async fn landing(
    headers: HeaderMap,
    State(state): State<AppState>,
    axum::extract::RawQuery(q): axum::extract::RawQuery,
    axum::extract::OriginalUri(asked): axum::extract::OriginalUri,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    // A browser gets the web page; JSON clients (and `?f=json`) the OGC landing page.
    if super::page::wants_html(&headers, super::page::format(q.as_deref()).as_deref()) {
        return super::page::index(&asked);
    }
    let b = base(&state.config, &headers);
    let snap = state.snapshot.current();
    Json(serde_json::json!({
        "title": format!("MS4 registry: {}", snap.meta.jurisdiction),
        "description": "The municipal separate storm sewer system registry: facilities, pipes, parcels, receiving waters, watersheds and TMDL areas, with the registry's answers under /api.",
        "links": [
            link(format!("{b}/"), "self", "application/json", "this document"),
            link(format!("{b}/api/openapi.json"), "service-desc", "application/vnd.oai.openapi+json;version=3.0", "the API definition"),
            link(format!("{b}/conformance"), "conformance", "application/json", "conformance classes"),
            link(format!("{b}/collections"), "data", "application/json", "the registry's layers"),
        ],
    }))
    .into_response()
}

pub(super) async fn conformance() -> Json<serde_json::Value> {
    let all: Vec<&str> = CONFORMS_TO
        .iter()
        .chain(super::tiles::CONFORMS_TO.iter())
        .copied()
        .collect();
    Json(serde_json::json!({ "conformsTo": all }))
}

fn collection_json(b: &str, snap: &Snapshot, layer: Layer) -> serde_json::Value {
    let name = layer.name();
    let srid = snap.meta.srid;
    let spatial = layer.geom_kind() != GeomKind::None;
    let mut c = serde_json::json!({
        "id": name,
        "title": name.replace('_', " "),
        "description": format!("The registry's {} ({} features); id field {}", name.replace('_', " "), snap.layer(layer).features.len(), layer.id_field()),
        "itemType": "feature",
        "crs": [CRS84, epsg_uri(srid)],
        "storageCrs": epsg_uri(srid),
        "links": [
            link(format!("{b}/collections/{name}"), "self", "application/json", "this collection"),
            link(format!("{b}/collections/{name}/items"), "items", "application/geo+json", "its features"),
        ],
    });
    if spatial {
        if let Some(bbox) = extent_crs84(snap, layer) {
            c["extent"] = serde_json::json!({"spatial": {"bbox": [bbox], "crs": CRS84}});
        }
    }
    c
}

pub(super) async fn collections(
    headers: HeaderMap,
    State(state): State<AppState>,
) -> Json<serde_json::Value> {
    let b = base(&state.config, &headers);
    let snap = state.snapshot.current();
    let cols: Vec<_> = Layer::ALL
        .iter()
        .map(|l| collection_json(&b, &snap, *l))
        .collect();
    Json(serde_json::json!({
        "links": [link(format!("{b}/collections"), "self", "application/json", "the registry's layers")],
        "crs": [CRS84, epsg_uri(snap.meta.srid)],
        "collections": cols,
    }))
}

fn layer_of(name: &str) -> Result<Layer, HttpError> {
    name.parse()
        .map_err(|e: crate::domain::layer::UnknownLayer| {
            HttpError::NotFound(format!("collection: {e}"))
        })
}

pub(super) async fn collection(
    headers: HeaderMap,
    State(state): State<AppState>,
    Path(layer): Path<String>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let layer = layer_of(&layer)?;
    Ok(Json(collection_json(
        &base(&state.config, &headers),
        &state.snapshot.current(),
        layer,
    )))
}

/// A property value as the text a filter compares with.
fn value_text(f: &crate::domain::Feature, layer: Layer, field: &str) -> Option<String> {
    if field == layer.id_field() {
        return Some(f.id.clone());
    }
    match f.get(layer, field).to_json() {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s),
        v => Some(v.to_string()),
    }
}

/// An attribute kept from the source as the text a filter compares with.
fn extra_text(f: &crate::domain::Feature, key: &str) -> Option<String> {
    match f.extra.get(key)? {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        v => Some(v.to_string()),
    }
}

/// `GET /collections/{layer}/queryables`: every property an item shows that a filter
/// takes, as a JSON Schema (OGC API – Features Part 3): the layer's own fields, then
/// each attribute kept from the source that some feature carries, typed by its values.
pub(super) async fn queryables(
    headers: HeaderMap,
    State(state): State<AppState>,
    Path(layer): Path<String>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let layer = layer_of(&layer)?;
    let snap = state.snapshot.current();
    let id = format!(
        "{}/collections/{}/queryables",
        base(&state.config, &headers),
        layer.name()
    );
    // Reading every feature's attributes: off the runtime's threads.
    let body = tokio::task::spawn_blocking(move || queryables_json(&snap, layer, &id))
        .await
        .map_err(HttpError::Internal)?;
    Ok(Json(body))
}

fn queryables_json(snap: &Snapshot, layer: Layer, id: &str) -> serde_json::Value {
    use serde_json::{json, Map, Value};
    let mut props = Map::new();
    props.insert(
        layer.id_field().to_string(),
        json!({"type": "string", "title": layer.id_field()}),
    );
    for f in layer.fields() {
        let mut p = match f.ty {
            crate::domain::FieldType::Text => json!({"type": "string"}),
            crate::domain::FieldType::Integer => json!({"type": "integer"}),
            crate::domain::FieldType::Bool => json!({"type": "boolean"}),
            crate::domain::FieldType::Date => json!({"type": "string", "format": "date"}),
            _ => json!({"type": "number"}),
        };
        p["title"] = f.name.into();
        props.insert(f.name.to_string(), p);
    }
    // Kept attributes in first-seen order, each typed by the first value it has.
    let mut extras: Vec<(String, Option<&'static str>)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for f in snap.layer(layer).features.iter() {
        for (k, v) in &f.extra {
            let ty = match v {
                Value::Null => None,
                Value::Bool(_) => Some("boolean"),
                Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
                Value::Number(_) => Some("number"),
                _ => Some("string"),
            };
            match at.get(k) {
                Some(&i) => {
                    let t = &mut extras[i].1;
                    *t = match (*t, ty) {
                        (None, x) | (x, None) => x,
                        (Some(a), Some(b)) if a == b => Some(a),
                        (Some("integer"), Some("number")) | (Some("number"), Some("integer")) => {
                            Some("number")
                        }
                        _ => Some("string"),
                    };
                }
                None => {
                    at.insert(k.clone(), extras.len());
                    extras.push((k.clone(), ty));
                }
            }
        }
    }
    for (k, ty) in extras {
        if props.contains_key(&k) {
            continue;
        }
        let mut p = json!({"title": k, "description": "kept from the source file"});
        if let Some(t) = ty {
            p["type"] = t.into();
        }
        props.insert(k, p);
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": id,
        "type": "object",
        "title": layer.name(),
        "properties": props,
        "additionalProperties": false,
    })
}

fn geojson_response(body: String, crs: i32, srid: i32) -> Response {
    let crs_uri = if crs == 4326 {
        CRS84.to_string()
    } else {
        epsg_uri(srid)
    };
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/geo+json"),
            ),
            (
                header::HeaderName::from_static("content-crs"),
                HeaderValue::from_str(&format!("<{crs_uri}>")).expect("a URI is a header value"),
            ),
        ],
        body,
    )
        .into_response()
}

pub(super) async fn items(
    headers: HeaderMap,
    State(state): State<AppState>,
    Path(layer): Path<String>,
    RawQuery(raw): RawQuery,
) -> Result<Response, HttpError> {
    let layer = layer_of(&layer)?;
    let q = parse_items_query(raw.as_deref(), layer)?;
    let snap = state.snapshot.current();
    let srid = snap.meta.srid;
    let out_crs = q
        .crs
        .as_deref()
        .map(|c| parse_crs("crs", c, srid))
        .transpose()?
        .unwrap_or(4326);
    let bbox_crs = q
        .bbox_crs
        .as_deref()
        .map(|c| parse_crs("bbox-crs", c, srid))
        .transpose()?
        .unwrap_or(4326);
    if q.bbox_crs.is_some() && q.bbox.is_none() {
        return Err(HttpError::field("bbox-crs", "given without bbox"));
    }
    let self_url = format!(
        "{}/collections/{}/items{}",
        base(&state.config, &headers),
        layer.name(),
        raw.as_deref().map(|r| format!("?{r}")).unwrap_or_default()
    );
    // A page of up to a thousand features takes well under a millisecond: answered on the
    // runtime's own thread, which saves a hand-off per request; bigger pages go to the
    // blocking pool so they cannot stall other requests.
    let body = if q.limit <= 1000 {
        page(&snap, layer, &q, out_crs, bbox_crs, &self_url)?
    } else {
        tokio::task::spawn_blocking(move || page(&snap, layer, &q, out_crs, bbox_crs, &self_url))
            .await
            .map_err(HttpError::Internal)??
    };
    Ok(geojson_response(body, out_crs, srid))
}

/// The features of a layer meeting a box given in `bbox_crs`, as positions in id order;
/// `None` when the box lies outside the registry CRS's area of use (an empty page).
fn in_bbox(
    idx: &crate::spatial::LayerIndex,
    layer: Layer,
    b: [f64; 4],
    bbox_crs: i32,
    srid: i32,
) -> Result<Option<Vec<usize>>, HttpError> {
    if layer.geom_kind() == GeomKind::None {
        return Err(HttpError::BadRequest(format!(
            "bbox: {} has no geometry",
            layer.name()
        )));
    }
    // Only what lies inside the CRS's area of use can be reprojected (and the
    // registry holds nothing else): clip the box to it first.
    let Some(b) = crate::answer::validate::clip_box(b, bbox_crs, srid)? else {
        return Ok(None);
    };
    // The box in the registry's CRS: exactly as given when it is already there,
    // else a densified ring reprojected (its edges curve).
    let area: Geometry<f64> = if bbox_crs == srid {
        Geometry::Polygon(
            geo_types::Rect::new(Coord { x: b[0], y: b[1] }, Coord { x: b[2], y: b[3] })
                .to_polygon(),
        )
    } else {
        let rp = cached_reprojector(4326, srid).map_err(HttpError::Internal)?;
        rp.apply(&Geometry::Polygon(densified_rect(b, 8)))
            .map_err(|e| HttpError::field("bbox", e.to_string()))?
    };
    let Some(r) = crate::domain::wkb::bounding_rect(&area) else {
        return Err(HttpError::field("bbox", "empty"));
    };
    let env = rstar::AABB::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]);
    let mut v: Vec<usize> = idx
        .tree
        .locate_in_envelope_intersecting(&env)
        .filter(|e| {
            // A feature whose envelope lies wholly inside (or outside) the box
            // needs no exact test: only those on its edge do.
            let (lo, hi) = (e.geom().lower(), e.geom().upper());
            let fr =
                geo_types::Rect::new(Coord { x: lo[0], y: lo[1] }, Coord { x: hi[0], y: hi[1] });
            match rect_position(&area, &fr) {
                Some(inside) => inside,
                None => idx.features[e.data]
                    .geom
                    .as_ref()
                    .is_some_and(|g| g.intersects(&area)),
            }
        })
        .map(|e| e.data)
        .collect();
    v.sort_unstable();
    Ok(Some(v))
}

/// Builds one page of items as GeoJSON text.
fn page(
    snap: &Snapshot,
    layer: Layer,
    q: &ItemsParams,
    out_crs: i32,
    bbox_crs: i32,
    self_url: &str,
) -> Result<String, HttpError> {
    let srid = snap.meta.srid;
    let idx = snap.layer(layer);
    // The features matching, as positions in id order.
    let n = idx.features.len();
    if let Some((name, _)) = q
        .extra_filters
        .iter()
        .find(|(k, _)| !idx.features.iter().any(|f| f.extra.contains_key(k)))
    {
        return Err(HttpError::field(
            name,
            format!(
                "not a parameter of {} items nor one of its properties (no feature carries it; GET /collections/{}/queryables lists them)",
                layer.name(),
                layer.name()
            ),
        ));
    }
    let filtered = !(q.filters.is_empty() && q.extra_filters.is_empty());
    let mut hits: Vec<usize> = match q.bbox {
        // Neither box nor filter: the page is a slice of the layer, and nothing else
        // needs listing (a million parcels would be a million indexes per request).
        None if !filtered => (q.offset.min(n)..q.offset.saturating_add(q.limit).min(n)).collect(),
        None => (0..n).collect(),
        Some(b) => match in_bbox(idx, layer, b, bbox_crs, srid)? {
            Some(v) => v,
            None => return Ok(empty_page(self_url)),
        },
    };
    if filtered {
        hits.retain(|&i| {
            let f = &idx.features[i];
            q.filters
                .iter()
                .all(|(k, v)| value_text(f, layer, k).as_deref() == Some(v.as_str()))
                && q.extra_filters
                    .iter()
                    .all(|(k, v)| extra_text(f, k).as_deref() == Some(v.as_str()))
        });
    }
    let (matched, page): (usize, &[usize]) = if q.bbox.is_none() && !filtered {
        (n, &hits)
    } else {
        let m = hits.len();
        (
            m,
            hits.get(q.offset.min(m)..q.offset.saturating_add(q.limit).min(m))
                .unwrap_or(&[]),
        )
    };
    let rp = if out_crs == srid {
        None
    } else {
        Some(cached_reprojector(srid, 4326).map_err(HttpError::Internal)?)
    };
    let mut out = String::with_capacity(256 + page.len() * 512);
    out.push_str(r#"{"type":"FeatureCollection","features":["#);
    for (n, &i) in page.iter().enumerate() {
        if n > 0 {
            out.push(',');
        }
        feature(&mut out, &idx.features[i], layer, rp.as_deref())?;
    }
    let _ = write!(
        out,
        r#"],"numberMatched":{matched},"numberReturned":{},"timeStamp":"{}","links":["#,
        page.len(),
        chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
    );
    let link_to = |rel: &str, offset: usize| {
        serde_json::json!({
            "href": with_offset(self_url, offset),
            "rel": rel,
            "type": "application/geo+json",
        })
        .to_string()
    };
    out.push_str(
        &serde_json::json!({"href": self_url, "rel": "self", "type": "application/geo+json"})
            .to_string(),
    );
    if q.offset + page.len() < matched {
        out.push(',');
        out.push_str(&link_to("next", q.offset + page.len()));
    }
    if q.offset > 0 {
        out.push(',');
        out.push_str(&link_to("prev", q.offset.saturating_sub(q.limit)));
    }
    out.push_str("]}");
    Ok(out)
}

/// A page with no features: a box outside the area the registry's CRS covers.
fn empty_page(self_url: &str) -> String {
    serde_json::json!({
        "type": "FeatureCollection", "features": [], "numberMatched": 0, "numberReturned": 0,
        "timeStamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "links": [{"href": self_url, "rel": "self", "type": "application/geo+json"}],
    })
    .to_string()
}

/// The same URL with `offset` set.
fn with_offset(url: &str, offset: usize) -> String {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in url::form_urlencoded::parse(query.as_bytes()) {
        if k != "offset" {
            s.append_pair(&k, &v);
        }
    }
    s.append_pair("offset", &offset.to_string());
    format!("{path}?{}", s.finish())
}

pub(super) async fn item(
    headers: HeaderMap,
    State(state): State<AppState>,
    Path((layer, id)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Result<Response, HttpError> {
    let layer = layer_of(&layer)?;
    let snap = state.snapshot.current();
    let srid = snap.meta.srid;
    let out_crs = parse_item_query(raw.as_deref())?
        .crs
        .map(|c| parse_crs("crs", &c, srid))
        .transpose()?
        .unwrap_or(4326);
    let f = snap.layer(layer).get(&id).ok_or_else(|| {
        HttpError::NotFound(format!("{}: no feature with id {id:?}", layer.name()))
    })?;
    let rp = if out_crs == srid {
        None
    } else {
        Some(cached_reprojector(srid, 4326).map_err(HttpError::Internal)?)
    };
    let mut out = String::new();
    feature(&mut out, f, layer, rp.as_deref())?;
    // Links belong inside the feature object: splice them in before its closing brace.
    out.pop();
    let b = base(&state.config, &headers);
    let _ = write!(
        out,
        r#","links":[{},{}]}}"#,
        serde_json::json!({"href": format!("{b}/collections/{}/items/{id}", layer.name()), "rel": "self", "type": "application/geo+json"}),
        serde_json::json!({"href": format!("{b}/collections/{}", layer.name()), "rel": "collection", "type": "application/json"}),
    );
    // Its version: the ETag a client sends back as If-Match when it writes the feature
    // back whole (an inspection re-recorded).
    let mut res = geojson_response(out, out_crs, srid);
    let (name, tag) = super::versions::etag(&crate::store::update::version(f));
    if let Ok(v) = HeaderValue::from_str(&tag) {
        res.headers_mut().insert(name, v);
    }
    Ok(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crs_parameters_accept_crs84_and_the_registry_crs_only() {
        assert_eq!(parse_crs("crs", CRS84, 2260).unwrap(), 4326);
        assert_eq!(parse_crs("crs", "EPSG:2260", 2260).unwrap(), 2260);
        assert_eq!(parse_crs("crs", &epsg_uri(2260), 2260).unwrap(), 2260);
        let e = parse_crs("bbox-crs", "EPSG:3857", 2260)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("bbox-crs:"), "{e}");
    }

    #[test]
    fn next_links_replace_the_offset() {
        assert_eq!(
            with_offset(
                "http://h/collections/x/items?limit=2&offset=4&bbox=1%2C2%2C3%2C4",
                6
            ),
            "http://h/collections/x/items?limit=2&bbox=1%2C2%2C3%2C4&offset=6"
        );
    }
}
