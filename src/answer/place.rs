//! Where a question is asked about: a parcel, a watershed, or a drawn footprint given as
//! GeoJSON.

use geo_types::{Geometry, MultiPolygon};

use super::AskError;
use crate::domain::Layer;
use crate::import::crs::cached_reprojector;
use crate::spatial::size::{self, Size};
use crate::spatial::{waters, Snapshot};

/// A GeoJSON footprint (one Polygon or MultiPolygon: a geometry, a feature, or a
/// collection of one feature) in the registry's CRS. Coordinates are WGS 84 longitude and
/// latitude, as RFC 7946 says, unless the document carries a legacy `crs` member naming
/// another CRS. `param` names the parameter in errors.
pub fn footprint_from_geojson(
    gj: geojson::GeoJson,
    srid: i32,
    param: &'static str,
) -> Result<MultiPolygon<f64>, AskError> {
    let bad = |m: String| AskError::invalid(param, m);
    let (geometry, members) = match gj {
        geojson::GeoJson::Geometry(g) => {
            let m = g.foreign_members.clone();
            (Some(g), m)
        }
        geojson::GeoJson::Feature(f) => (f.geometry, f.foreign_members),
        geojson::GeoJson::FeatureCollection(fc) => {
            if fc.features.len() != 1 {
                return Err(bad(format!(
                    "holds {} features; give one polygon",
                    fc.features.len()
                )));
            }
            let f = fc.features.into_iter().next().expect("one feature");
            (f.geometry, fc.foreign_members.or(f.foreign_members))
        }
    };
    let geometry = geometry.ok_or_else(|| bad("the feature has no geometry".into()))?;
    // Counted before anything is done with it: everything after (reprojecting, clipping
    // against watersheds, testing every connection) costs more the larger it is.
    footprint_size(param, size_of_value(&geometry.value))?;
    // geojson's conversion indexes x and y without checking: a position such as `[120]`
    // would panic there instead of being refused.
    if let Some(n) = short_position(&geometry.value) {
        return Err(bad(format!(
            "a position has {n} number(s); each needs x and y (longitude and latitude)"
        )));
    }
    let geom: Geometry<f64> = geometry
        .try_into()
        .map_err(|e: geojson::Error| bad(format!("not a geometry: {e}")))?;
    let from = match members.as_ref().and_then(|m| m.get("crs")) {
        None | Some(serde_json::Value::Null) => 4326,
        Some(crs) => legacy_crs(crs).ok_or_else(|| {
            bad(format!(
                "its crs member {crs} names no EPSG code; give WGS 84 coordinates without a crs member, or name the CRS as urn:ogc:def:crs:EPSG::<code>"
            ))
        })?,
    };
    super::validate::footprint_crs(param, from)?;
    let g = if from == srid {
        geom
    } else {
        cached_reprojector(from, srid)
            .and_then(|rp| rp.apply(&geom))
            .map_err(|e| bad(e.to_string()))?
    };
    let mp = waters::as_multipolygon(&g).ok_or_else(|| bad("not a polygon".into()))?;
    super::validate::footprint(param, srid, &mp)?;
    Ok(mp)
}

/// Refuses a footprint over [`size::FOOTPRINT`], naming `param` and both counts
/// ([`size::footprint_refusal`]).
pub fn footprint_size(param: &'static str, size: Size) -> Result<(), AskError> {
    match size::footprint_refusal(size) {
        Some(why) => Err(AskError::invalid(param, why)),
        None => Ok(()),
    }
}

/// Parts and vertices of a GeoJSON geometry, counted without converting it.
fn size_of_value(v: &geojson::GeometryValue) -> Size {
    use geojson::GeometryValue;
    let rings = |rs: &[Vec<geojson::Position>]| rs.iter().map(Vec::len).sum::<usize>();
    match v {
        GeometryValue::Point { .. } => Size {
            parts: 1,
            vertices: 1,
        },
        GeometryValue::MultiPoint { coordinates } | GeometryValue::LineString { coordinates } => {
            Size {
                parts: 1,
                vertices: coordinates.len(),
            }
        }
        GeometryValue::MultiLineString { coordinates } | GeometryValue::Polygon { coordinates } => {
            Size {
                parts: 1,
                vertices: rings(coordinates),
            }
        }
        GeometryValue::MultiPolygon { coordinates } => Size {
            parts: coordinates.len(),
            vertices: coordinates.iter().map(|p| rings(p)).sum(),
        },
        GeometryValue::GeometryCollection { geometries } => geometries
            .iter()
            .map(|g| size_of_value(&g.value))
            .fold(Size::default(), Size::plus),
    }
}

/// The length of the first position with fewer than two numbers, if any.
fn short_position(v: &geojson::GeometryValue) -> Option<usize> {
    use geojson::GeometryValue;
    let short = |ps: &[geojson::Position]| ps.iter().map(|p| p.len()).find(|&n| n < 2);
    match v {
        GeometryValue::Point { coordinates } => Some(coordinates.len()).filter(|&n| n < 2),
        GeometryValue::MultiPoint { coordinates } | GeometryValue::LineString { coordinates } => {
            short(coordinates)
        }
        GeometryValue::MultiLineString { coordinates } | GeometryValue::Polygon { coordinates } => {
            coordinates.iter().find_map(|l| short(l))
        }
        GeometryValue::MultiPolygon { coordinates } => coordinates
            .iter()
            .find_map(|p| p.iter().find_map(|l| short(l))),
        GeometryValue::GeometryCollection { geometries } => {
            geometries.iter().find_map(|g| short_position(&g.value))
        }
    }
}

/// The EPSG code a legacy GeoJSON `crs` member names (`{"type": "name", "properties":
/// {"name": "urn:ogc:def:crs:EPSG::2260"}}`, also `EPSG:2260`); CRS84 is WGS 84.
fn legacy_crs(crs: &serde_json::Value) -> Option<i32> {
    let name = crs.get("properties")?.get("name")?.as_str()?.trim();
    let upper = name.to_ascii_uppercase();
    if upper.ends_with("CRS84") {
        return Some(4326);
    }
    let code = upper
        .strip_prefix("URN:OGC:DEF:CRS:EPSG:")
        .map(|rest| rest.rsplit(':').next().unwrap_or(rest))
        .or_else(|| upper.strip_prefix("EPSG:"))?;
    code.trim().parse().ok().filter(|c: &i32| *c > 0)
}

/// A footprint from GeoJSON text.
pub fn footprint_from_text(
    text: &str,
    srid: i32,
    param: &'static str,
) -> Result<MultiPolygon<f64>, AskError> {
    let gj: geojson::GeoJson = text
        .parse()
        .map_err(|e| AskError::invalid(param, format!("not GeoJSON: {e}")))?;
    footprint_from_geojson(gj, srid, param)
}

/// A footprint from a JSON value: a GeoJSON object, or a string holding one (as a query
/// string gives it). An object is counted as it is, before it is converted.
pub fn footprint_from_value(
    v: &serde_json::Value,
    srid: i32,
    param: &'static str,
) -> Result<MultiPolygon<f64>, AskError> {
    use serde::Deserialize;
    match v {
        serde_json::Value::String(s) => footprint_from_text(s, srid, param),
        v => {
            footprint_size(param, size_of_json(v))?;
            let gj = geojson::GeoJson::deserialize(v)
                .map_err(|e| AskError::invalid(param, format!("not GeoJSON: {e}")))?;
            footprint_from_geojson(gj, srid, param)
        }
    }
}

/// Parts and vertices of a GeoJSON object (a geometry, a feature, a collection of them)
/// still as JSON. Converting 300,000 positions costs far more than counting them.
fn size_of_json(v: &serde_json::Value) -> Size {
    use serde_json::Value;
    // A position is an array of numbers; anything else holds positions or nothing. The
    // depth is bounded by the JSON reader's own nesting limit.
    fn positions(v: &Value) -> usize {
        match v {
            Value::Array(a) if a.iter().any(Value::is_number) => 1,
            Value::Array(a) => a.iter().map(positions).sum(),
            _ => 0,
        }
    }
    let all = |key: &str| {
        v.get(key)
            .and_then(Value::as_array)
            .map(|a| a.iter().map(size_of_json).fold(Size::default(), Size::plus))
            .unwrap_or_default()
    };
    let coordinates = v.get("coordinates");
    match v.get("type").and_then(Value::as_str) {
        Some("FeatureCollection") => all("features"),
        Some("Feature") => v.get("geometry").map(size_of_json).unwrap_or_default(),
        Some("GeometryCollection") => all("geometries"),
        Some("MultiPolygon") => Size {
            parts: coordinates.and_then(Value::as_array).map_or(0, Vec::len),
            vertices: coordinates.map_or(0, positions),
        },
        _ => Size {
            parts: 1,
            vertices: coordinates.map_or(0, positions),
        },
    }
}

/// A footprint from a GeoJSON file (the command line's `--footprint FILE`).
pub fn footprint_from_file(
    path: &std::path::Path,
    srid: i32,
    param: &'static str,
) -> Result<MultiPolygon<f64>, AskError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| AskError::invalid(param, format!("{}: {e}", path.display())))?;
    footprint_from_text(&text, srid, param).map_err(|e| match e {
        AskError::Invalid { param, message } => AskError::Invalid {
            param,
            message: format!("{}: {message}", path.display()),
        },
        e => e,
    })
}

/// A parcel's polygon.
pub fn parcel_polygon(snap: &Snapshot, id: &str) -> Result<MultiPolygon<f64>, AskError> {
    let p = snap
        .layer(Layer::Parcels)
        .get(id)
        .ok_or_else(|| AskError::NotFound(format!("no parcel {id:?} in the registry")))?;
    p.geom
        .as_ref()
        .and_then(waters::as_multipolygon)
        .ok_or_else(|| AskError::invalid("parcel", format!("{id} has no polygon")))
}

/// A watershed's polygon.
pub fn watershed_polygon(snap: &Snapshot, id: &str) -> Result<MultiPolygon<f64>, AskError> {
    let w = snap
        .layer(Layer::Watersheds)
        .get(id)
        .ok_or_else(|| AskError::NotFound(format!("no watershed {id:?} in the registry")))?;
    w.geom
        .as_ref()
        .and_then(waters::as_multipolygon)
        .ok_or_else(|| AskError::invalid("watershed_id", format!("{id} has no polygon")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the footprint fuzz target: a one-number position panicked inside geojson.
    #[test]
    fn a_position_without_y_is_refused_by_name() {
        let text = r#"{"type":"Feature","properties":{},"geometry":{"type":"MultiPolygon","coordinates":[[[[0,0],[120],[1,1],[0,0]]]]}}"#;
        let e = footprint_from_text(text, 4326, "footprint").unwrap_err();
        let m = e.to_string();
        assert!(m.contains("footprint") && m.contains("1 number"), "{m}");
    }

    #[test]
    fn footprints_are_counted_as_json_and_as_geojson_alike() {
        let ring = |n: usize| {
            let mut r: Vec<serde_json::Value> = (0..n - 1)
                .map(|i| {
                    serde_json::json!([-73.85 + i as f64 * 1e-6, 41.22 + (i % 2) as f64 * 1e-4])
                })
                .collect();
            r.push(r[0].clone());
            r
        };
        let polygon = serde_json::json!({"type": "Polygon", "coordinates": [ring(5), ring(4)]});
        let multi =
            serde_json::json!({"type": "MultiPolygon", "coordinates": [[ring(5)], [ring(6)]]});
        let feature = serde_json::json!({"type": "Feature", "properties": {}, "geometry": multi});
        let collection = serde_json::json!({"type": "FeatureCollection", "features": [feature]});
        for (v, parts, vertices) in [
            (&polygon, 1, 9),
            (&multi, 2, 11),
            (&feature, 2, 11),
            (&collection, 2, 11),
        ] {
            let want = Size { parts, vertices };
            assert_eq!(size_of_json(v), want, "{v}");
            let gj: geojson::GeoJson = serde_json::from_value(v.clone()).unwrap();
            let value = match gj {
                geojson::GeoJson::Geometry(g) => g.value,
                geojson::GeoJson::Feature(f) => f.geometry.unwrap().value,
                geojson::GeoJson::FeatureCollection(fc) => {
                    fc.features[0].geometry.clone().unwrap().value
                }
            };
            assert_eq!(size_of_value(&value), want, "{v}");
        }
    }

    #[test]
    fn a_footprint_over_its_budget_is_refused_by_name_with_both_counts() {
        let n = size::FOOTPRINT.vertices + 1;
        let mut ring: Vec<serde_json::Value> = (0..n - 1)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / (n - 1) as f64;
                serde_json::json!([-73.85 + 0.001 * a.cos(), 41.22 + 0.001 * a.sin()])
            })
            .collect();
        ring.push(ring[0].clone());
        let v = serde_json::json!({"type": "Polygon", "coordinates": [ring]});
        let m = footprint_from_value(&v, 2260, "footprint")
            .unwrap_err()
            .to_string();
        assert!(m.starts_with("footprint: too large"), "{m}");
        assert!(
            m.contains(&format!("1 parts, {n} vertices"))
                && m.contains(&format!("{} vertices", size::FOOTPRINT.vertices)),
            "{m}"
        );
        let text = v.to_string();
        let m = footprint_from_text(&text, 2260, "footprint")
            .unwrap_err()
            .to_string();
        assert!(m.starts_with("footprint: too large"), "{m}");
    }

    #[test]
    fn legacy_crs_names_are_read() {
        let named = |n: &str| serde_json::json!({"type": "name", "properties": {"name": n}});
        assert_eq!(legacy_crs(&named("urn:ogc:def:crs:EPSG::2260")), Some(2260));
        assert_eq!(legacy_crs(&named("EPSG:2263")), Some(2263));
        assert_eq!(
            legacy_crs(&named("urn:ogc:def:crs:OGC:1.3:CRS84")),
            Some(4326)
        );
        assert_eq!(legacy_crs(&named("local grid")), None);
    }

    #[test]
    fn a_footprint_in_the_registry_crs_is_taken_as_it_is() {
        let text = r#"{"type":"Feature","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2260"}},
            "properties":{},"geometry":{"type":"Polygon","coordinates":[[[670000,870000],[670010,870000],[670010,870010],[670000,870000]]]}}"#;
        let mp = footprint_from_text(text, 2260, "footprint").unwrap();
        assert_eq!(mp.0[0].exterior().0[1].x, 670010.0);
        let e = footprint_from_text(r#"{"type":"Point","coordinates":[0,0]}"#, 2260, "footprint")
            .unwrap_err();
        assert!(e.to_string().starts_with("footprint: "), "{e}");
    }
}
