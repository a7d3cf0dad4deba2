//! Vector tiles over HTTP: `/tiles/...` (MVT), TileJSON 3.0, and OGC API – Tiles core for
//! the WebMercatorQuad grid.
//!
//! Tile URLs handed out carry the generation of the snapshot and profile the metadata was
//! made from (`?g=...`). A tile is always rendered from the current snapshot with the
//! current profile, so it is never older than the generation its URL names; when the URL
//! names the current generation the tile is cacheable for a year (the next write, or the
//! next profile update, changes the URL), otherwise the browser must revalidate, which
//! the ETag (generation and tile) makes a 304 while nothing changed.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::{links, AppState, HttpError};
use crate::tiles::{self, TileId, TileLayer, TILE_LAYERS};

/// The media type of a tile.
pub const MVT: &str = "application/vnd.mapbox-vector-tile";

/// The conformance classes of OGC API – Tiles implemented.
pub const CONFORMS_TO: [&str; 4] = [
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
    "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/mvt",
];

fn layer_named(name: &str) -> Result<&'static TileLayer, HttpError> {
    TileLayer::by_name(name).ok_or_else(|| {
        HttpError::NotFound(format!(
            "layer {name:?} has no tiles; tiled layers: {}",
            TILE_LAYERS
                .iter()
                .map(|t| t.name())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })
}

fn strip<'a>(file: &'a str, ext: &str, what: &str) -> Result<&'a str, HttpError> {
    file.strip_suffix(ext)
        .ok_or_else(|| HttpError::NotFound(format!("{file:?}: expected {what}{ext}")))
}

fn tile_id(z: &str, x: &str, y: &str) -> Result<TileId, HttpError> {
    TileId::parse(z, x, y).map_err(|e| HttpError::BadRequest(e.to_string()))
}

pub(super) async fn tile_all(
    State(state): State<AppState>,
    Path((z, x, file)): Path<(String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let t = tile_id(&z, &x, strip(&file, ".mvt", "{y}")?)?;
    tile(
        state,
        "all",
        crate::tiles::spec::registry_layers(),
        t,
        q.get("g"),
        &headers,
    )
    .await
}

pub(super) async fn tile_one(
    State(state): State<AppState>,
    Path((layer, z, x, file)): Path<(String, String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let spec = layer_named(&layer)?;
    let t = tile_id(&z, &x, strip(&file, ".mvt", "{y}")?)?;
    tile(state, spec.name(), vec![spec], t, q.get("g"), &headers).await
}

pub(super) async fn ogc_tile(
    State(state): State<AppState>,
    Path((layer, z, y, x)): Path<(String, String, String, String)>,
    Query(q): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let spec = layer_named(&layer)?;
    let t = tile_id(&z, &x, &y)?;
    tile(state, spec.name(), vec![spec], t, q.get("g"), &headers).await
}

/// Renders (or answers 304 for) one tile of the current snapshot.
async fn tile(
    state: AppState,
    set: &'static str,
    layers: Vec<&'static TileLayer>,
    t: TileId,
    asked: Option<&String>,
    headers: &HeaderMap,
) -> Result<Response, HttpError> {
    state.tiles.mark_used();
    let snap = state.snapshot.current();
    // Taken with the snapshot: the tile is rendered with the profile its name counts.
    let (profile_now, profile_number) = state.profile.numbered();
    let generation = state.tiles.generations.of(&snap, profile_number);
    let newness = (snap.seq, profile_number);
    let today = chrono::Local::now().date_naive();
    // "overdue" turns with the day: the day is part of the tile's identity.
    let etag = format!("\"{generation}.{today}.{set}.{}.{}.{}\"", t.z, t.x, t.y);
    let cache = if asked == Some(&generation) {
        let who = if state.config.public_read {
            "public"
        } else {
            "private"
        };
        format!("{who}, max-age=31536000, immutable")
    } else {
        "no-cache".to_string()
    };
    let head = |r: &mut Response| {
        let h = r.headers_mut();
        h.insert(header::ETAG, HeaderValue::from_str(&etag).expect("ascii"));
        h.insert(
            header::CACHE_CONTROL,
            HeaderValue::from_str(&cache).expect("ascii"),
        );
        h.insert(
            "x-ms4-generation",
            HeaderValue::from_str(&generation).expect("ascii"),
        );
    };
    let matches = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| etag_matches(v, &etag));
    if matches {
        let mut r = StatusCode::NOT_MODIFIED.into_response();
        head(&mut r);
        return Ok(r);
    }
    if let Some(bytes) = state.tiles.rendered.get(&generation, today, set, t) {
        let mut r = (
            [(header::CONTENT_TYPE, HeaderValue::from_static(MVT))],
            bytes,
        )
            .into_response();
        head(&mut r);
        return Ok(r);
    }
    let keep = state.tiles.rendered.clone();
    let bytes = tokio::task::spawn_blocking(move || {
        let profile = &*profile_now;
        let networks = &state.networks;
        let source =
            || networks.get_or_build(&snap, |s| Ok(crate::answer::build_network(s, profile)));
        tiles::render(&state.tiles, &snap, profile, &source, &layers, t, today)
    })
    .await
    .map_err(|e| HttpError::internal("rendering a tile", e))?
    .map_err(|e| HttpError::internal("rendering a tile", e))?;
    // Kept under the generation its snapshot was named when the request began: the tile
    // was rendered from that very snapshot.
    let bytes = bytes::Bytes::from(bytes);
    keep.put(&generation, newness, today, set, t, bytes.clone());
    let mut r = (
        [(header::CONTENT_TYPE, HeaderValue::from_static(MVT))],
        bytes,
    )
        .into_response();
    head(&mut r);
    Ok(r)
}

/// The registry's extent in longitude/latitude, over the tiled layers.
fn lon_lat_bounds(snap: &crate::spatial::Snapshot, layers: &[&TileLayer]) -> [f64; 4] {
    let mut b = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
    // The answers' layers lie within the registry's (a location is an outfall or a
    // structure; a sewershed is clipped to the town).
    for l in layers.iter().filter_map(|l| l.registry()) {
        if let Some(e) = snap.layer(l).extent() {
            b = [
                b[0].min(e[0]),
                b[1].min(e[1]),
                b[2].max(e[2]),
                b[3].max(e[3]),
            ];
        }
    }
    if b[0] > b[2] {
        return [-180.0, -85.051_128_78, 180.0, 85.051_128_78];
    }
    let Ok(rp) = crate::import::crs::cached_reprojector(snap.meta.srid, 4326) else {
        return [-180.0, -85.051_128_78, 180.0, 85.051_128_78];
    };
    // The edges, not only the corners: a conic projection bends them.
    let mut out = [f64::MAX, f64::MAX, f64::MIN, f64::MIN];
    for i in 0..=8 {
        for j in 0..=8 {
            let x = b[0] + (b[2] - b[0]) * i as f64 / 8.0;
            let y = b[1] + (b[3] - b[1]) * j as f64 / 8.0;
            if let Ok((lon, lat)) = rp.point(x, y) {
                out = [
                    out[0].min(lon),
                    out[1].min(lat),
                    out[2].max(lon),
                    out[3].max(lat),
                ];
            }
        }
    }
    if out[0] > out[2] {
        return [-180.0, -85.051_128_78, 180.0, 85.051_128_78];
    }
    out
}

/// TileJSON 3.0 for some layers; `path` is the tile URL's path before `/{z}/{x}/{y}.mvt`.
fn tilejson(
    state: &AppState,
    headers: &HeaderMap,
    path: &str,
    layers: &[&TileLayer],
) -> serde_json::Value {
    let snap = state.snapshot.current();
    let generation = state
        .tiles
        .generations
        .of(&snap, state.profile.numbered().1);
    let base = links::base(&state.config, headers);
    let bounds = lon_lat_bounds(&snap, layers);
    let minzoom = layers.iter().map(|l| l.minzoom).min().unwrap_or(0);
    let centre_zoom = 14.max(minzoom);
    serde_json::json!({
        "tilejson": "3.0.0",
        "name": format!("ms4 {}", snap.meta.jurisdiction),
        "description": "The registry's layers as vector tiles, rendered from its current snapshot.",
        "version": "1.0.0",
        "scheme": "xyz",
        "tiles": [format!("{base}{path}/{{z}}/{{x}}/{{y}}.mvt?g={generation}")],
        "minzoom": minzoom,
        "maxzoom": tiles::grid::MAX_ZOOM,
        "bounds": bounds,
        "center": [(bounds[0] + bounds[2]) / 2.0, (bounds[1] + bounds[3]) / 2.0, centre_zoom],
        "generation": generation,
        "vector_layers": layers.iter().map(|l| serde_json::json!({
            "id": l.name(),
            "minzoom": l.minzoom,
            "maxzoom": tiles::grid::MAX_ZOOM,
            "fields": l.fields.iter().map(|f| (f.name.to_string(), serde_json::Value::from(format!("{} ({})", f.doc, f.kind.as_str())))).collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The answer's generation is fresh at every request: never cached.
fn no_store(v: serde_json::Value) -> Response {
    (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"))],
        Json(v),
    )
        .into_response()
}

pub(super) async fn tilejson_all(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let layers = crate::tiles::spec::registry_layers();
    no_store(tilejson(&state, &headers, "/tiles", &layers))
}

pub(super) async fn tilejson_one(
    State(state): State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Result<Response, HttpError> {
    let spec = layer_named(strip(&file, ".json", "{layer}")?)?;
    Ok(no_store(tilejson(
        &state,
        &headers,
        &format!("/tiles/{}", spec.name()),
        &[spec],
    )))
}

pub(super) async fn ogc_tilesets(
    State(state): State<AppState>,
    Path(layer): Path<String>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, HttpError> {
    let spec = layer_named(&layer)?;
    let b = links::base(&state.config, &headers);
    Ok(Json(serde_json::json!({
        "tilesets": [{
            "title": format!("{} (WebMercatorQuad)", spec.name()),
            "dataType": "vector",
            "crs": "http://www.opengis.net/def/crs/EPSG/0/3857",
            "tileMatrixSetURI": "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad",
            "links": [
                {"rel": "self", "type": "application/json", "href": format!("{b}/collections/{}/tiles/WebMercatorQuad", spec.name())},
                {"rel": "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme", "type": "application/json", "href": format!("{b}/tileMatrixSets/WebMercatorQuad")},
            ],
        }],
        "links": [{"rel": "self", "type": "application/json", "href": format!("{b}/collections/{}/tiles", spec.name())}],
    })))
}

pub(super) async fn ogc_tileset(
    State(state): State<AppState>,
    Path(layer): Path<String>,
    headers: HeaderMap,
) -> Result<Json<serde_json::Value>, HttpError> {
    let spec = layer_named(&layer)?;
    let b = links::base(&state.config, &headers);
    let generation = state
        .tiles
        .generations
        .of(&state.snapshot.current(), state.profile.numbered().1);
    Ok(Json(serde_json::json!({
        "title": format!("{} (WebMercatorQuad)", spec.name()),
        "dataType": "vector",
        "crs": "http://www.opengis.net/def/crs/EPSG/0/3857",
        "tileMatrixSetURI": "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad",
        "tileMatrixSetLimits": (spec.minzoom..=tiles::grid::MAX_ZOOM).map(|z| serde_json::json!({
            "tileMatrix": z.to_string(), "minTileRow": 0, "maxTileRow": (1u64 << z) - 1,
            "minTileCol": 0, "maxTileCol": (1u64 << z) - 1,
        })).collect::<Vec<_>>(),
        "layers": [{"id": spec.name(), "dataType": "vector", "minTileMatrix": spec.minzoom.to_string(), "maxTileMatrix": tiles::grid::MAX_ZOOM.to_string()}],
        "links": [
            {"rel": "self", "type": "application/json", "href": format!("{b}/collections/{}/tiles/WebMercatorQuad", spec.name())},
            {"rel": "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme", "type": "application/json", "href": format!("{b}/tileMatrixSets/WebMercatorQuad")},
            {"rel": "item", "type": MVT, "templated": true, "href": format!("{b}/collections/{}/tiles/WebMercatorQuad/{{tileMatrix}}/{{tileRow}}/{{tileCol}}?g={generation}", spec.name())},
        ],
    })))
}

pub(super) async fn matrix_sets(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Json<serde_json::Value> {
    let b = links::base(&state.config, &headers);
    Json(serde_json::json!({
        "tileMatrixSets": [{
            "id": "WebMercatorQuad",
            "title": "Google Maps Compatible for the World",
            "uri": "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad",
            "links": [{"rel": "self", "type": "application/json", "href": format!("{b}/tileMatrixSets/WebMercatorQuad")}],
        }],
    }))
}

pub(super) async fn web_mercator_quad() -> Json<serde_json::Value> {
    let w = tiles::grid::WORLD;
    Json(serde_json::json!({
        "id": "WebMercatorQuad",
        "title": "Google Maps Compatible for the World",
        "uri": "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad",
        "crs": "http://www.opengis.net/def/crs/EPSG/0/3857",
        "orderedAxes": ["X", "Y"],
        "wellKnownScaleSet": "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible",
        "tileMatrices": (0..=tiles::grid::MAX_ZOOM).map(|z| {
            let n = 1u64 << z;
            let cell = 2.0 * w / (256.0 * n as f64);
            serde_json::json!({
                "id": z.to_string(),
                "scaleDenominator": cell / 0.00028,
                "cellSize": cell,
                "cornerOfOrigin": "topLeft",
                "pointOfOrigin": [-w, w],
                "tileWidth": 256, "tileHeight": 256,
                "matrixWidth": n, "matrixHeight": n,
            })
        }).collect::<Vec<_>>(),
    }))
}

/// The tile routes for the OpenAPI document (added by [`super::openapi::spec`]).
// One JSON fragment of the document, written as it is served.
#[allow(clippy::too_many_lines)]
pub(super) fn openapi_paths(paths: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::json;
    let error = json!({"description": "an error; the message names the parameter at fault", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}});
    let text = json!({"type": "string"});
    let param = |n: &str, d: &str| json!({"name": n, "in": "path", "required": true, "description": d, "schema": text});
    let g = json!({"name": "g", "in": "query", "required": false, "description": "the generation named by the TileJSON (makes the tile cacheable until it changes)", "schema": text});
    let tile_op = |summary: &str, params: Vec<serde_json::Value>| {
        json!({"get": {
            "summary": summary,
            "parameters": params,
            "responses": {
                "200": {"description": "the tile (empty when nothing is in it)", "content": {MVT: {}}},
                "304": {"description": "the tile has not changed since the ETag given"},
                "400": error, "401": error, "404": error, "405": error, "408": error, "414": error, "431": error, "503": error,
            },
        }})
    };
    let json_op = |summary: &str, params: Vec<serde_json::Value>, open: bool| {
        let mut op = json!({"get": {
            "summary": summary,
            "parameters": params,
            "responses": {
                "200": {"description": "the answer", "content": {"application/json": {}}},
                "400": error, "404": error, "405": error, "408": error, "414": error, "431": error, "503": error,
            },
        }});
        if open {
            op["get"]["security"] = json!([]);
        } else {
            op["get"]["responses"]["401"] = error.clone();
        }
        op
    };
    let (z, x, y) = (
        param("z", "zoom, 0 to 22"),
        param("x", "column, 0 to 2^z - 1"),
        param("y", "row from the north, 0 to 2^z - 1"),
    );
    let layer = param("layer", "a tiled layer (parcels, pipes, outfalls...)");
    paths.insert(
        "/tiles.json".into(),
        json_op(
            "TileJSON 3.0 for the registry's tiled layers (the mapping layers have their own)",
            vec![],
            false,
        ),
    );
    paths.insert(
        "/tiles/{layer}.json".into(),
        json_op("TileJSON 3.0 for one layer", vec![layer.clone()], false),
    );
    paths.insert(
        "/tiles/{z}/{x}/{y}.mvt".into(),
        tile_op(
            "A vector tile (MVT) of every registry layer (the mapping layers, monitoring_locations and sewersheds, are at /tiles/{layer}/...)",
            vec![z.clone(), x.clone(), y.clone(), g.clone()],
        ),
    );
    paths.insert(
        "/tiles/{layer}/{z}/{x}/{y}.mvt".into(),
        tile_op(
            "A vector tile (MVT) of one layer",
            vec![layer.clone(), z.clone(), x.clone(), y.clone(), g.clone()],
        ),
    );
    paths.insert(
        "/collections/{layer}/tiles".into(),
        json_op(
            "The layer's tilesets (OGC API – Tiles)",
            vec![layer.clone()],
            false,
        ),
    );
    paths.insert(
        "/collections/{layer}/tiles/WebMercatorQuad".into(),
        json_op(
            "The layer's WebMercatorQuad tileset",
            vec![layer.clone()],
            false,
        ),
    );
    paths.insert(
        "/collections/{layer}/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}".into(),
        tile_op(
            "A vector tile (OGC API – Tiles)",
            vec![
                layer,
                param("tileMatrix", "zoom, 0 to 22"),
                param("tileRow", "row from the north"),
                param("tileCol", "column"),
                g,
            ],
        ),
    );
    paths.insert(
        "/tileMatrixSets".into(),
        json_op("The tile matrix sets served", vec![], true),
    );
    paths.insert(
        "/tileMatrixSets/WebMercatorQuad".into(),
        json_op("The WebMercatorQuad tile matrix set", vec![], true),
    );
    paths.insert(
        "/styles/ms4.json".into(),
        json_op(
            "A MapLibre style drawing every layer from the tiles",
            vec![],
            true,
        ),
    );
}

/// Whether an `If-None-Match` list names `etag`, by the weak comparison RFC 9110
/// (§ 13.1.2) prescribes for it: `W/"x"` matches `"x"`, as a cache or proxy that
/// weakened the tag sends it back.
pub(super) fn etag_matches(if_none_match: &str, etag: &str) -> bool {
    let opaque = |t: &str| t.trim().trim_start_matches("W/").to_string();
    let want = opaque(etag);
    if_none_match
        .split(',')
        .any(|e| e.trim() == "*" || opaque(e) == want)
}

#[cfg(test)]
mod etag_tests {
    use super::etag_matches;

    #[test]
    fn if_none_match_compares_weakly() {
        assert!(etag_matches("\"g1-abc\"", "\"g1-abc\""));
        assert!(etag_matches("W/\"g1-abc\"", "\"g1-abc\""));
        assert!(etag_matches("\"x\", W/\"g1-abc\"", "\"g1-abc\""));
        assert!(etag_matches("*", "\"g1-abc\""));
        assert!(!etag_matches("\"g2-abc\"", "\"g1-abc\""));
        assert!(!etag_matches("g1-abc", "\"g1-abc\""));
    }
}
