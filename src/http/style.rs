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
use crate::tiles::{TileLayer, TILE_LAYERS};

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

/// The source a tile layer is drawn from: the registry's tiles, or a mapping layer's own
/// (derived after each write, so kept out of the registry's tile; see `http::tiles`).
fn source_of(tile_layer: &str) -> &str {
    match TileLayer::by_name(tile_layer) {
        Some(t) if t.registry().is_none() => t.name(),
        _ => "ms4",
    }
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
        "id": id, "type": ty, "source": source_of(source_layer), "source-layer": source_layer,
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
    for t in TILE_LAYERS.iter().filter(|t| t.registry().is_none()) {
        sources[t.name()] =
            json!({"type": "vector", "url": format!("{base}/tiles/{}.json", t.name())});
    }
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
    share_shaders(&mut layers);
    json!({
        "version": 8,
        "name": "ms4",
        "metadata": {"ms4:note": "drawn without text labels: no glyphs are needed; the one sprite (the pipes' flow arrow) comes from this server"},
        "sprite": format!("{base}/styles/sprite"),
        "sources": sources,
        "layers": layers,
    })
}

/// A property no feature has: `["coalesce", ["get", NO_PROPERTY], v]` is `v` for every
/// feature, written per feature.
pub const NO_PROPERTY: &str = "ms4:none";

/// Writes the paint of every circle, fill and line layer so that each type binds the same
/// properties per feature (as MapLibre decides it: a constant or a zoom-only value is one
/// uniform, a value read from the feature a vertex attribute, both a zoomed attribute):
/// MapLibre compiles a shader for each such binding, and in a software renderer (a
/// browser without a GPU, as the page bench runs) each took 20–25 ms of the first draw;
/// the style had eighteen, now eight. A constant becomes a per-feature expression that
/// gives it for every feature ([`NO_PROPERTY`]); what is drawn is the same.
///
/// - circles: colour, stroke colour and stroke width per feature (radius as written);
/// - fills: colour per feature, and the outline colour where one is set (else it is the
///   colour's);
/// - lines: colour per feature; a solid line's width per feature and zoom (the pipes' is
///   both), a dashed line's as written (none reads the feature).
fn share_shaders(layers: &mut [Value]) {
    for l in layers.iter_mut() {
        let ty = l["type"].as_str().unwrap_or_default().to_string();
        let dashed = l["paint"].get("line-dasharray").is_some();
        let Some(paint) = l.get_mut("paint").and_then(Value::as_object_mut) else {
            continue;
        };
        let per_feature =
            |paint: &mut serde_json::Map<String, Value>, key: &str, default: Value| {
                let v = paint.remove(key).unwrap_or(default);
                let v = if reads_feature(&v) {
                    v
                } else {
                    same_for_every_feature(v)
                };
                paint.insert(key.to_string(), v);
            };
        match ty.as_str() {
            "circle" => {
                per_feature(paint, "circle-color", json!("#000000"));
                per_feature(paint, "circle-stroke-color", json!("#000000"));
                per_feature(paint, "circle-stroke-width", json!(0));
            }
            "fill" => {
                per_feature(paint, "fill-color", json!("#000000"));
                if paint.contains_key("fill-outline-color") {
                    per_feature(paint, "fill-outline-color", json!("#000000"));
                }
            }
            "line" => {
                per_feature(paint, "line-color", json!("#000000"));
                if !dashed {
                    let w = paint.remove("line-width").unwrap_or(json!(1));
                    paint.insert("line-width".into(), by_feature_and_zoom(w));
                }
            }
            _ => {}
        }
    }
}

/// `v` for every feature, read per feature.
fn same_for_every_feature(v: Value) -> Value {
    json!(["coalesce", ["get", NO_PROPERTY], v])
}

/// A width read per feature and zoom: as it is when it reads both; a zoom-only curve with
/// each stop read per feature; one that reads neither or the feature alone the same at
/// every zoom. (Another zoom expression is left as written: the zoom may only be the
/// input of a curve at an expression's top.)
fn by_feature_and_zoom(w: Value) -> Value {
    match (reads_feature(&w), reads_zoom(&w)) {
        (true, true) => w,
        (false, true) if !is_zoom_curve(&w) => w,
        (false, true) => {
            let mut curve = w.as_array().cloned().unwrap_or_default();
            // ["interpolate", type, ["zoom"], z0, v0, z1, v1, ...]: the outputs from 4 on.
            for v in curve.iter_mut().skip(4).step_by(2) {
                *v = same_for_every_feature(v.take());
            }
            Value::Array(curve)
        }
        (feature, _) => {
            let v = if feature {
                w
            } else {
                same_for_every_feature(w)
            };
            json!(["interpolate", ["linear"], ["zoom"], 0, v.clone(), 24, v])
        }
    }
}

/// Whether an expression reads the feature (its properties, geometry type or id).
fn reads_feature(v: &Value) -> bool {
    uses(
        v,
        &[
            "get",
            "has",
            "properties",
            "geometry-type",
            "id",
            "feature-state",
        ],
    )
}

/// Whether an expression reads the zoom.
fn reads_zoom(v: &Value) -> bool {
    uses(v, &["zoom"])
}

/// An `interpolate` over `["zoom"]` at its top.
fn is_zoom_curve(v: &Value) -> bool {
    v.as_array().is_some_and(|a| {
        a.first() == Some(&json!("interpolate")) && a.get(2) == Some(&json!(["zoom"]))
    })
}

fn uses(v: &Value, operators: &[&str]) -> bool {
    match v {
        Value::Array(a) => {
            a.first()
                .and_then(Value::as_str)
                .is_some_and(|op| operators.contains(&op))
                || a.iter().any(|x| uses(x, operators))
        }
        Value::Object(o) => o.values().any(|x| uses(x, operators)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// How MapLibre binds a paint value to its shader: one uniform (a constant, or read
    /// from the zoom alone), a vertex attribute (read from the feature), or both.
    fn binding(v: Option<&Value>) -> &'static str {
        match v {
            None => "default",
            Some(v) => match (reads_feature(v), reads_zoom(v)) {
                (false, _) => "uniform",
                (true, false) => "attribute",
                (true, true) => "zoomed attribute",
            },
        }
    }

    /// A layer's kind, and the shader it needs: the bindings of the paint properties
    /// that choose one.
    fn shader(l: &Value) -> (String, String) {
        let p = &l["paint"];
        let keys: &[&str] = match l["type"].as_str().unwrap() {
            "circle" => &[
                "circle-color",
                "circle-stroke-color",
                "circle-stroke-width",
                "circle-radius",
                "circle-opacity",
            ],
            "fill" => &["fill-color", "fill-outline-color", "fill-opacity"],
            "line" => &["line-color", "line-width", "line-opacity"],
            other => return (other.to_string(), String::new()),
        };
        let dashed = if p.get("line-dasharray").is_some() {
            " dashed"
        } else {
            ""
        };
        // An unset outline colour is the fill's colour, bound as it is.
        let value = |k: &str| match (k, p.get(k)) {
            ("fill-outline-color", None) => p.get("fill-color"),
            (_, v) => v,
        };
        let b: Vec<String> = keys
            .iter()
            .map(|k| format!("{k}: {}", binding(value(k))))
            .collect();
        (
            format!("{}{dashed}", l["type"].as_str().unwrap()),
            b.join(", "),
        )
    }

    /// Each kind of layer (its type, and for a line whether it is dashed) and the shaders
    /// its layers need.
    fn shaders(layers: &[Value]) -> BTreeMap<String, BTreeSet<String>> {
        let mut by_kind: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for l in layers {
            let (kind, bindings) = shader(l);
            by_kind.entry(kind).or_default().insert(bindings);
        }
        by_kind
    }

    #[test]
    fn every_layer_of_a_kind_needs_the_same_shader() {
        let style = document("http://town.example", None);
        let by_kind = shaders(style["layers"].as_array().unwrap());
        for (kind, s) in &by_kind {
            assert_eq!(s.len(), 1, "{kind}: {s:#?}");
        }
        let kinds: Vec<&str> = by_kind.keys().map(String::as_str).collect();
        assert_eq!(
            kinds,
            [
                "background",
                "circle",
                "fill",
                "line",
                "line dashed",
                "symbol"
            ]
        );
    }

    #[test]
    fn a_constant_and_a_per_feature_circle_share_a_shader_once_shared() {
        let mut layers = vec![
            json!({"id": "a", "type": "circle", "paint": {"circle-color": "#ffffff", "circle-radius": 3}}),
            json!({"id": "b", "type": "circle", "paint": {"circle-color": ["get", "c"], "circle-radius": 3, "circle-stroke-width": 1}}),
        ];
        assert_eq!(shaders(&layers)["circle"].len(), 2);
        share_shaders(&mut layers);
        assert_eq!(shaders(&layers)["circle"].len(), 1, "{layers:#?}");
        // What each draws is as written: a's stroke, unset, is none.
        assert_eq!(
            layers[0]["paint"]["circle-stroke-width"],
            same_for_every_feature(json!(0))
        );
        assert_eq!(layers[1]["paint"]["circle-color"], json!(["get", "c"]));
    }

    #[test]
    fn a_value_shared_by_every_feature_is_the_value_written() {
        // The colour every feature gets when none has the property read.
        let v = same_for_every_feature(json!("#9ecae1"));
        assert_eq!(v, json!(["coalesce", ["get", "ms4:none"], "#9ecae1"]));
        // A zoom curve keeps its stops and reads each output per feature.
        let w = by_feature_and_zoom(json!(["interpolate", ["linear"], ["zoom"], 10, 1.5, 16, 4]));
        assert_eq!(
            w,
            json!([
                "interpolate",
                ["linear"],
                ["zoom"],
                10,
                ["coalesce", ["get", "ms4:none"], 1.5],
                16,
                ["coalesce", ["get", "ms4:none"], 4]
            ])
        );
        // A width read per feature is the same at every zoom.
        let sites = json!(["match", ["get", "status"], "active", 3, 2]);
        assert_eq!(
            by_feature_and_zoom(sites.clone()),
            json!([
                "interpolate",
                ["linear"],
                ["zoom"],
                0,
                sites.clone(),
                24,
                sites
            ])
        );
        // One that reads both is left as it is.
        let pipes = json!([
            "interpolate",
            ["linear"],
            ["zoom"],
            12,
            0.5,
            18,
            ["get", "d"]
        ]);
        assert_eq!(by_feature_and_zoom(pipes.clone()), pipes);
    }
}
