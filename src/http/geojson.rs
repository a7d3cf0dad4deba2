//! GeoJSON written straight into a page of items: a page of a hundred parcels is written
//! thousands of times a second, and a JSON tree per feature would double that cost.

use std::fmt::Write as _;

use geo_types::{Coord, Geometry, Polygon};

use super::HttpError;
use crate::domain::Layer;

/// Writes a number as JSON (shortest form that reads back the same).
fn num(out: &mut String, v: f64) {
    if v.is_finite() {
        out.push_str(ryu::Buffer::new().format_finite(v));
    } else {
        out.push_str("null");
    }
}

fn coords(out: &mut String, cs: &[Coord<f64>]) {
    out.push('[');
    for (i, c) in cs.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        num(out, c.x);
        out.push(',');
        num(out, c.y);
        out.push(']');
    }
    out.push(']');
}

fn rings(out: &mut String, p: &Polygon<f64>) {
    out.push('[');
    coords(out, &p.exterior().0);
    for r in p.interiors() {
        out.push(',');
        coords(out, &r.0);
    }
    out.push(']');
}

/// Writes a geometry as GeoJSON, straight into the page: a page of a hundred parcels is
/// written thousands of times a second, and a JSON tree per feature would double that cost.
fn geometry(out: &mut String, g: &Geometry<f64>) {
    match g {
        Geometry::Point(p) => {
            out.push_str(r#"{"type":"Point","coordinates":["#);
            num(out, p.x());
            out.push(',');
            num(out, p.y());
            out.push_str("]}");
        }
        Geometry::MultiPoint(m) => {
            out.push_str(r#"{"type":"MultiPoint","coordinates":"#);
            let cs: Vec<Coord<f64>> = m.0.iter().map(|p| p.0).collect();
            coords(out, &cs);
            out.push('}');
        }
        Geometry::LineString(l) => {
            out.push_str(r#"{"type":"LineString","coordinates":"#);
            coords(out, &l.0);
            out.push('}');
        }
        Geometry::MultiLineString(m) => {
            out.push_str(r#"{"type":"MultiLineString","coordinates":["#);
            for (i, l) in m.0.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                coords(out, &l.0);
            }
            out.push_str("]}");
        }
        Geometry::Polygon(p) => {
            out.push_str(r#"{"type":"Polygon","coordinates":"#);
            rings(out, p);
            out.push('}');
        }
        Geometry::MultiPolygon(m) => {
            out.push_str(r#"{"type":"MultiPolygon","coordinates":["#);
            for (i, p) in m.0.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                rings(out, p);
            }
            out.push_str("]}");
        }
        other => {
            // Rect, Triangle, Line and collections do not come out of the stores; written
            // through the geojson crate should one ever appear.
            let v = geojson::Geometry::new(geojson::GeometryValue::from(other));
            out.push_str(&serde_json::to_string(&v).unwrap_or_else(|_| "null".into()));
        }
    }
}

/// Writes one feature, reprojected with `rp` when given.
pub(super) fn feature(
    out: &mut String,
    f: &crate::domain::Feature,
    layer: Layer,
    rp: Option<&crate::import::crs::Reprojector>,
) -> Result<(), HttpError> {
    out.push_str(r#"{"type":"Feature","id":"#);
    string(out, &f.id);
    out.push_str(r#","geometry":"#);
    match (&f.geom, rp) {
        (None, _) => out.push_str("null"),
        (Some(g), None) => geometry(out, g),
        (Some(g), Some(rp)) => {
            let g = rp.apply(g).map_err(|e| {
                HttpError::internal(format!("writing {} {}", layer.name(), f.id), e)
            })?;
            geometry(out, &g);
        }
    }
    out.push_str(r#","properties":"#);
    properties(out, f, layer);
    out.push('}');
    Ok(())
}

/// Writes a JSON string.
fn string(out: &mut String, s: &str) {
    out.push('"');
    // Ids and values almost never need escaping: copy those whole.
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Writes a feature's properties as `Feature::properties` has them (the id field, the
/// canonical fields, then the source's extra fields), without building a map per feature.
fn properties(out: &mut String, f: &crate::domain::Feature, layer: Layer) {
    use crate::domain::Value;
    out.push('{');
    string(out, layer.id_field());
    out.push(':');
    string(out, &f.id);
    for (spec, v) in layer.fields().iter().zip(&f.values) {
        out.push(',');
        string(out, spec.name);
        out.push(':');
        match v {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(out, "{i}");
            }
            Value::Real(r) => num(out, *r),
            Value::Date(d) => {
                let _ = write!(out, "\"{}\"", d.format("%Y-%m-%d"));
            }
            Value::Text(t) => string(out, t),
        }
    }
    for (k, v) in &f.extra {
        if k == layer.id_field() || layer.fields().iter().any(|s| s.name == k) {
            continue;
        }
        out.push(',');
        string(out, k);
        out.push(':');
        out.push_str(&v.to_string());
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_are_written_as_the_feature_has_them() {
        use crate::domain::{Feature, Value};
        let mut f = Feature::new(Layer::Outfalls, "OF-\"1\"");
        f.values[Layer::Outfalls.field_index("status").unwrap()] = Value::Text("a\tb\u{1}é".into());
        f.extra.insert("LEGACY".into(), serde_json::json!([1, "x"]));
        let mut out = String::new();
        properties(&mut out, &f, Layer::Outfalls);
        let parsed: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            parsed,
            serde_json::Value::Object(f.properties(Layer::Outfalls))
        );
    }
}
