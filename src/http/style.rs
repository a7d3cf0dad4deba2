//! `/styles/ms4.json`: a MapLibre style that draws every tiled layer from the service's
//! own tiles, with no outside resource — no glyphs, sprites or basemap from the internet,
//! so no text labels; symbols are circles and lines. A town may add a raster basemap of its
//! own (`ms4 serve --basemap-url`), drawn under everything; there is none by default.
//!
//! Pipes show their flow with arrows along the line (a symbol layer with line placement),
//! from a sprite of one image the service serves itself (`/styles/sprite.json` and
//! `.png`, with `@2x` for dense screens): the tiles give each pipe's line in its flow
//! direction, so the arrows point downstream.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::{links, AppState};

/// The sprite's files: an arrow (pointing the way of the line) at one and two device
/// pixels per CSS pixel.
const SPRITE: [(&str, &str, &[u8]); 4] = [
    (
        "sprite.json",
        "application/json",
        include_bytes!("../../web/sprite/sprite.json"),
    ),
    (
        "sprite.png",
        "image/png",
        include_bytes!("../../web/sprite/sprite.png"),
    ),
    (
        "sprite@2x.json",
        "application/json",
        include_bytes!("../../web/sprite/sprite@2x.json"),
    ),
    (
        "sprite@2x.png",
        "image/png",
        include_bytes!("../../web/sprite/sprite@2x.png"),
    ),
];

pub(super) async fn sprite(Path(file): Path<String>) -> Response {
    match SPRITE.iter().find(|(name, ..)| *name == file) {
        Some((_, ty, bytes)) => (
            [
                (header::CONTENT_TYPE, *ty),
                // Fixed in the binary: a day's caching costs nothing.
                (header::CACHE_CONTROL, "public, max-age=86400"),
            ],
            *bytes,
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("no style file {file:?}: the sprite is sprite.json, sprite.png and their @2x"),
        )
            .into_response(),
    }
}

pub(super) async fn style(State(state): State<AppState>, headers: HeaderMap) -> Json<Value> {
    let base = links::base(&state.config, &headers);
    Json(document(&base, state.config.basemap_url.as_deref()))
}

/// Polygons only (the layers whose features may be of any type draw each type apart).
fn polys() -> Value {
    json!(["==", ["geometry-type"], "Polygon"])
}
fn lines() -> Value {
    json!(["==", ["geometry-type"], "LineString"])
}
fn points() -> Value {
    json!(["==", ["geometry-type"], "Point"])
}

fn layer(
    id: &str,
    ty: &str,
    source_layer: &str,
    minzoom: u8,
    paint: Value,
    filter: Option<Value>,
) -> Value {
    let mut l = json!({
        "id": id, "type": ty, "source": "ms4", "source-layer": source_layer,
        "minzoom": minzoom, "paint": paint,
    });
    if let Some(f) = filter {
        l["filter"] = f;
    }
    l
}

/// The style, with tile metadata at `base` and an optional basemap tile URL template.
// One JSON document, written as it is served: split, it would no longer read as a style.
#[allow(clippy::too_many_lines)]
pub fn document(base: &str, basemap: Option<&str>) -> Value {
    let m = |name: &str| {
        crate::tiles::TileLayer::by_name(name)
            .map(|t| t.minzoom)
            .expect("a tiled layer")
    };
    let mut sources = json!({
        "ms4": {"type": "vector", "url": format!("{base}/tiles.json")},
    });
    let mut layers = vec![
        json!({"id": "background", "type": "background", "paint": {"background-color": "#f4f1ea"}}),
    ];
    if let Some(url) = basemap {
        sources["basemap"] = json!({"type": "raster", "tiles": [url], "tileSize": 256});
        layers.push(json!({"id": "basemap", "type": "raster", "source": "basemap"}));
    }
    let finding = json!([
        "match",
        ["get", "finding"],
        "illicit",
        "#d7191c",
        "needs_review",
        "#fdae61",
        "ok",
        "#1a9641",
        "#888888"
    ]);
    let easement = json!([
        "match",
        ["get", "easement"],
        "missing",
        "#d7191c",
        "needs_review",
        "#fdae61",
        "covered",
        "#1a9641",
        "town_owned",
        "#2b83ba",
        "#888888"
    ]);
    let overdue = json!([
        "case",
        ["==", ["get", "overdue"], true],
        "#d7191c",
        "#2b83ba"
    ]);
    // A monitoring location's priority (and its sewershed's), by the profile's rule.
    let priority = json!([
        "match",
        ["get", "priority"],
        "high",
        "#b2182b",
        "medium",
        "#ef8a62",
        "low",
        "#4393c3",
        "#888888"
    ]);
    layers.extend([
        layer("watersheds-fill", "fill", "watersheds", m("watersheds"), json!({"fill-color": "#9ecae1", "fill-opacity": 0.12}), None),
        layer("watersheds-line", "line", "watersheds", m("watersheds"), json!({"line-color": "#3182bd", "line-width": 1.5, "line-dasharray": [4, 2]}), None),
        layer("tmdl-areas", "fill", "tmdl_areas", m("tmdl_areas"), json!({
            "fill-color": ["case", ["==", ["get", "stormwater_source"], true], "#e6550d", "#fdae6b"],
            "fill-opacity": 0.18}), None),
        layer("tmdl-areas-line", "line", "tmdl_areas", m("tmdl_areas"), json!({"line-color": "#e6550d", "line-width": 1}), None),
        layer("receiving-waters-fill", "fill", "receiving_waters", m("receiving_waters"), json!({
            "fill-color": ["case", ["==", ["get", "listed_303d"], true], "#8856a7", "#6baed6"],
            "fill-opacity": 0.6}), Some(polys())),
        layer("receiving-waters-line", "line", "receiving_waters", m("receiving_waters"), json!({
            "line-color": ["case", ["==", ["get", "listed_303d"], true], "#8856a7", "#3182bd"],
            "line-width": ["interpolate", ["linear"], ["zoom"], 10, 1.5, 16, 4]}), Some(lines())),
        layer("boundary", "line", "boundary", m("boundary"), json!({"line-color": "#444444", "line-width": 2}), None),
        layer("parcels", "fill", "parcels", m("parcels"), json!({
            "fill-color": ["match", ["get", "land_use_class"],
                "commercial", "#fb6a4a", "industrial", "#9e9ac8", "other", "#e5f5e0", "#f0f0f0"],
            "fill-opacity": 0.7, "fill-outline-color": "#bbbbbb"}), None),
        layer("easements", "line", "easements", m("easements"), json!({"line-color": "#31a354", "line-width": 1.5, "line-dasharray": [2, 2]}), None),
        // Construction sites: outlined by status, the active ones strongest.
        layer("sites", "line", "sites", m("sites"), json!({
            "line-color": ["match", ["get", "status"], "active", "#d94801", "approved", "#fd8d3c", "proposed", "#fdae6b", "stabilized", "#74c476", "#969696"],
            "line-width": ["match", ["get", "status"], "active", 3, 2]}), None),
        // Sewersheds: a light fill by their location's priority, a dashed outline.
        layer("sewersheds-fill", "fill", "sewersheds", m("sewersheds"), json!({"fill-color": priority.clone(), "fill-opacity": 0.12}), None),
        layer("sewersheds-line", "line", "sewersheds", m("sewersheds"), json!({"line-color": priority.clone(), "line-width": 1.5, "line-dasharray": [3, 2]}), None),
        layer("pipes", "line", "pipes", m("pipes"), json!({
            "line-color": ["match", ["get", "kind"], "ditch", "#74c476", "swale", "#74c476", "culvert", "#636363", "#2171b5"],
            "line-width": ["interpolate", ["linear"], ["zoom"], 12, 0.5, 18,
                ["max", 1.5, ["/", ["coalesce", ["get", "diameter_in"], 12], 4]]]}), None),
        // The flow: arrows along each pipe, pointing downstream (the tiles' line order).
        json!({
            "id": "pipes-flow", "type": "symbol", "source": "ms4", "source-layer": "pipes",
            "minzoom": m("pipes").max(16),
            "layout": {
                "symbol-placement": "line", "symbol-spacing": 80, "icon-image": "pipe-arrow",
                "icon-rotation-alignment": "map", "icon-allow-overlap": true,
                "icon-ignore-placement": true,
                "icon-size": ["interpolate", ["linear"], ["zoom"], 16, 0.8, 20, 1.2]
            },
            "paint": {"icon-opacity": ["match", ["get", "status"], "abandoned", 0.4, 1]}
        }),
        layer("smps-fill", "fill", "smps", m("smps"), json!({"fill-color": easement.clone(), "fill-opacity": 0.5}), Some(polys())),
        layer("smps-point", "circle", "smps", m("smps"), json!({"circle-color": easement, "circle-radius": 5, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1}), Some(points())),
        layer("connections-line", "line", "connections", m("connections"), json!({"line-color": finding.clone(), "line-width": 2}), Some(lines())),
        layer("connections-point", "circle", "connections", m("connections"), json!({"circle-color": finding, "circle-radius": 4}), Some(points())),
        layer("connection-records", "circle", "connection_records", m("connection_records"), json!({"circle-color": "#ffffff", "circle-radius": 2.5, "circle-stroke-color": "#555555", "circle-stroke-width": 1}), None),
        layer("manholes", "circle", "manholes", m("manholes"), json!({
            "circle-color": "#ffffff", "circle-radius": 3.5, "circle-stroke-color": overdue.clone(), "circle-stroke-width": 1.5}), None),
        layer("catch-basins", "circle", "catch_basins", m("catch_basins"), json!({
            "circle-color": overdue, "circle-radius": 3.5, "circle-stroke-color": "#ffffff", "circle-stroke-width": 1}), None),
        layer("structures", "circle", "structures", m("structures"), json!({"circle-color": "#bdbdbd", "circle-radius": 3, "circle-stroke-color": "#555555", "circle-stroke-width": 1}), None),
        layer("outfalls", "circle", "outfalls", m("outfalls"), json!({
            "circle-color": ["case",
                ["==", ["get", "sewage_indicators"], true], "#a50f15",
                ["has", "last_screening"], "#1a9641",
                "#fdae61"],
            "circle-radius": ["interpolate", ["linear"], ["zoom"], 10, 3, 16, 7],
            "circle-stroke-color": "#000000", "circle-stroke-width": 1}), None),
        // Monitoring locations over the outfalls: a ring coloured by priority (wider at an
        // interconnection), so the outfall's own screening colour shows inside it.
        layer("monitoring-locations", "circle", "monitoring_locations", m("monitoring_locations"), json!({
            "circle-color": "rgba(0,0,0,0)",
            "circle-radius": ["interpolate", ["linear"], ["zoom"], 10, 5, 16, 11],
            "circle-stroke-color": priority,
            "circle-stroke-width": ["match", ["get", "kind"], "interconnection", 4, 2.5]}), None),
    ]);
    json!({
        "version": 8,
        "name": "ms4",
        "metadata": {"ms4:note": "drawn without text labels: no glyphs are needed; the one sprite (the pipes' flow arrow) comes from this server"},
        "sprite": format!("{base}/styles/sprite"),
        "sources": sources,
        "layers": layers,
    })
}
