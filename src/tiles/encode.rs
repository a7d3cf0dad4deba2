//! One layer of one tile: geometries moved into tile coordinates, clipped to the tile and
//! its buffer, simplified for the zoom, snapped to the tile's integer grid and written as
//! MVT features with their properties.

use crate::spatial::area_index::cut_to_box;
use geo::{BoundingRect, MapCoords, Orient, Simplify, SimplifyVw};
use geo_types::{
    Coord, Geometry, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon, Rect,
};
use geozero::mvt::{tile, TileValue};
use geozero::ToMvt;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay::{ContourDirection, IntOverlayOptions, Overlay};
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::i_float::int::point::IntPoint;
use i_overlay::i_shape::int::shape::{IntContour, IntShape};
use rustc_hash::FxHashMap;

use super::grid::TileId;
use super::mercator::MercatorLayer;
use super::props::{self, Context, Prop};
use super::spec::TileLayer;

mod cut;
use cut::{cut_line, cut_to_buffer, plainly_simple};

/// Tile coordinates run from 0 to this across a tile (MVT's usual extent).
pub const EXTENT: u32 = 4096;

/// How far past the tile's edge geometry is kept, in tile units, so lines and outlines
/// that cross the edge join up and point symbols near it are not cut.
pub const BUFFER: f64 = 64.0;

/// A tile's place in Web Mercator and the scale to its coordinates.
#[derive(Debug, Clone, Copy)]
pub struct Frame {
    minx: f64,
    maxy: f64,
    /// Tile units per metre.
    k: f64,
}

impl Frame {
    /// The frame of a tile.
    pub fn of(t: TileId) -> Frame {
        let b = t.bounds();
        Frame {
            minx: b[0],
            maxy: b[3],
            k: EXTENT as f64 / t.size(),
        }
    }

    /// The tile and its buffer in Web Mercator, `[minx, miny, maxx, maxy]`.
    pub fn query_box(&self) -> [f64; 4] {
        let m = BUFFER / self.k;
        let size = EXTENT as f64 / self.k;
        [
            self.minx - m,
            self.maxy - size - m,
            self.minx + size + m,
            self.maxy + m,
        ]
    }

    fn to_tile(self, c: Coord<f64>) -> Coord<f64> {
        Coord {
            x: (c.x - self.minx) * self.k,
            y: (self.maxy - c.y) * self.k,
        }
    }
}

/// The clip rectangle in tile units.
fn clip_rect() -> Rect<f64> {
    Rect::new(
        Coord {
            x: -BUFFER,
            y: -BUFFER,
        },
        Coord {
            x: EXTENT as f64 + BUFFER,
            y: EXTENT as f64 + BUFFER,
        },
    )
}

fn inside(r: &Rect<f64>, inner: &Rect<f64>) -> bool {
    inner.min().x >= r.min().x
        && inner.min().y >= r.min().y
        && inner.max().x <= r.max().x
        && inner.max().y <= r.max().y
}

/// Snaps a line to the integer grid, dropping repeated positions.
fn snap_line(l: &LineString<f64>) -> LineString<f64> {
    let mut out: Vec<Coord<f64>> = Vec::with_capacity(l.0.len());
    for c in &l.0 {
        let s = Coord {
            x: c.x.round(),
            y: c.y.round(),
        };
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    LineString(out)
}

fn lines(mls: MultiLineString<f64>) -> Option<Geometry<f64>> {
    let rect = clip_rect();
    let clipped = match mls.bounding_rect() {
        Some(b) if inside(&rect, &b) => mls,
        Some(_) => MultiLineString(mls.0.iter().flat_map(cut_line).collect()),
        None => return None,
    };
    let parts: Vec<LineString<f64>> = clipped
        .0
        .iter()
        // Two positions are already as simple as a line gets (most pipes and connections).
        .map(|l| {
            if l.0.len() > 2 {
                snap_line(&l.simplify(0.5))
            } else {
                snap_line(l)
            }
        })
        .filter(|l| l.0.len() >= 2)
        .collect();
    match parts.len() {
        0 => None,
        1 => parts.into_iter().next().map(Geometry::LineString),
        _ => Some(Geometry::MultiLineString(MultiLineString(parts))),
    }
}

/// A ring snapped to the tile's grid as the integer overlay takes it: repeated positions
/// dropped, not closed.
fn snapped_contour(r: &LineString<f64>) -> IntContour {
    let mut out: IntContour = Vec::with_capacity(r.0.len());
    for c in &r.0 {
        let s = IntPoint::new(c.x.round() as i32, c.y.round() as i32);
        if out.last() != Some(&s) {
            out.push(s);
        }
    }
    if out.len() > 1 && out.first() == out.last() {
        out.pop();
    }
    out
}

/// The clip rectangle as the integer overlay's clip shape.
fn clip_shape() -> IntShape {
    let (lo, hi) = (-BUFFER as i32, EXTENT as i32 + BUFFER as i32);
    vec![vec![
        IntPoint::new(lo, lo),
        IntPoint::new(hi, lo),
        IntPoint::new(hi, hi),
        IntPoint::new(lo, hi),
    ]]
}

/// An integer ring closed as geo wants it, or none when it holds under a unit of area.
fn closed_ring(c: &[IntPoint]) -> Option<LineString<f64>> {
    if c.len() < 3 {
        return None;
    }
    let twice: i64 = c
        .iter()
        .zip(c.iter().cycle().skip(1))
        .map(|(a, b)| a.x as i64 * b.y as i64 - b.x as i64 * a.y as i64)
        .sum();
    if twice.abs() < 2 {
        return None;
    }
    let mut ring: Vec<Coord<f64>> = c
        .iter()
        .map(|p| Coord {
            x: p.x as f64,
            y: p.y as f64,
        })
        .collect();
    ring.push(ring[0]);
    Some(LineString(ring))
}

fn polygons(mp: MultiPolygon<f64>) -> Option<Geometry<f64>> {
    let rect = clip_rect();
    let b = mp.bounding_rect()?;
    // Cut to the buffer in one linear pass before anything else: a county's sewershed
    // has tens of thousands of vertices, and only those near the tile matter to it.
    let near = if inside(&rect, &b) {
        mp
    } else {
        cut_to_box(&mp, &rect)
    };
    // Simplify only outlines with more vertices than a lot's corners.
    let vertices: usize = near.0.iter().map(|p| p.exterior().0.len()).sum();
    let near = if vertices > 8 {
        near.simplify_vw(0.5)
    } else {
        near
    };
    // Exteriors one way and holes the other, so the non-zero rule below reads a hole
    // as a hole whatever way its source wound it.
    let near = near.orient(geo::orient::Direction::Default);
    let shapes: Vec<IntShape> = near
        .0
        .iter()
        .filter_map(|p| {
            // A hole is read only with its exterior: alone, the non-zero rule would fill it.
            let ext = snapped_contour(p.exterior());
            (ext.len() >= 3).then(|| {
                std::iter::once(ext)
                    .chain(p.interiors().iter().map(snapped_contour))
                    .filter(|c| c.len() >= 3)
                    .collect::<IntShape>()
            })
        })
        .collect();
    if shapes.is_empty() {
        return None;
    }
    // Clipped to the buffer and made valid in one overlay on the tile's integer grid:
    // whatever the simplification or the snapping crossed (a vertex moved over an edge
    // a fraction of a unit away, the cut's strips along the buffer's edge) is resolved by
    // the overlay, whose output is OGC-valid in whole units, with nothing left to round.
    let options = IntOverlayOptions {
        preserve_input_collinear: true,
        output_direction: ContourDirection::CounterClockwise,
        preserve_output_collinear: true,
        min_output_area: 0,
        ogc: true,
    };
    let out = Overlay::with_shapes_options(&shapes, &[clip_shape()], options, Default::default())
        .overlay(OverlayRule::Intersect, FillRule::NonZero);
    // MVT: exterior rings have positive area in tile coordinates (y down), which is the
    // overlay's counter-clockwise, as geo's; holes the other way.
    let polys: Vec<Polygon<f64>> = out
        .iter()
        .filter_map(|shape| {
            let (ext, holes) = shape.split_first()?;
            let ext = closed_ring(ext)?;
            Some(Polygon::new(
                ext,
                holes.iter().filter_map(|h| closed_ring(h)).collect(),
            ))
        })
        .collect();
    match polys.len() {
        0 => None,
        1 => polys.into_iter().next().map(Geometry::Polygon),
        _ => Some(Geometry::MultiPolygon(MultiPolygon(polys))),
    }
}

fn points(pts: Vec<Point<f64>>) -> Option<Geometry<f64>> {
    let r = clip_rect();
    let kept: Vec<Point<f64>> = pts
        .into_iter()
        .filter(|p| {
            p.x() >= r.min().x && p.x() <= r.max().x && p.y() >= r.min().y && p.y() <= r.max().y
        })
        .map(|p| Point::new(p.x().round(), p.y().round()))
        .collect();
    match kept.len() {
        0 => None,
        1 => Some(Geometry::Point(kept[0])),
        _ => Some(Geometry::MultiPoint(MultiPoint(kept))),
    }
}

/// The common case of [`polygons`] without its allocations and checks: a ring of a few
/// corners (a lot, a watershed's rectangle), no holes. Inside the buffer it is only
/// snapped; across its edge it is first cut to the buffer by Sutherland-Hodgman, which
/// for a simple ring gives the intersection exactly unless the ring leaves and enters
/// the buffer more than once (then the cut ring runs along the edge twice, is not plainly
/// simple, and the general path decides). Gives `None` when the polygon is not that case,
/// or when its snapped ring is not plainly simple, so the result is always a polygon the
/// general path also gives (the same shape, perhaps from another first vertex).
fn small_polygon(p: &Polygon<f64>, frame: &Frame) -> Option<Option<Geometry<f64>>> {
    let ext = &p.exterior().0;
    // As in `polygons`: more than 8 positions are simplified first.
    if !p.interiors().is_empty() || ext.len() > 8 || ext.is_empty() {
        return None;
    }
    let (lo, hi) = (-BUFFER, EXTENT as f64 + BUFFER);
    let mut tile: Vec<Coord<f64>> = Vec::with_capacity(ext.len() + 4);
    let mut outside = false;
    for c in ext {
        let t = frame.to_tile(*c);
        outside |= t.x < lo || t.y < lo || t.x > hi || t.y > hi;
        tile.push(t);
    }
    if outside {
        tile = cut_to_buffer(tile);
        if tile.is_empty() {
            // Only its box met the tile's: nothing of it inside.
            return Some(None);
        }
    }
    let mut ring: Vec<Coord<f64>> = Vec::with_capacity(tile.len() + 1);
    for t in tile {
        let s = Coord {
            x: t.x.round(),
            y: t.y.round(),
        };
        if ring.last() != Some(&s) {
            ring.push(s);
        }
    }
    if ring.len() > 1 && ring.first() == ring.last() {
        ring.pop();
    }
    if ring.is_empty() {
        return Some(None);
    }
    ring.push(ring[0]);
    if ring.len() < 4 {
        return Some(None);
    }
    // Whole tile units: twice the signed area is exact in integers. At most 8 corners
    // and 4 more from the cut, closed: the positions fit on the stack.
    let mut buf = [(0i64, 0i64); 16];
    if ring.len() > buf.len() {
        return None;
    }
    for (b, c) in buf.iter_mut().zip(&ring) {
        *b = (c.x as i64, c.y as i64);
    }
    let pts = &buf[..ring.len()];
    let twice: i64 = pts
        .windows(2)
        .map(|w| w[0].0 * w[1].1 - w[1].0 * w[0].1)
        .sum();
    if twice.abs() < 2 {
        return if outside { None } else { Some(None) };
    }
    if !plainly_simple(pts) {
        return None;
    }
    // Positive area is geo's counter-clockwise, the winding `polygons` gives exteriors.
    if twice < 0 {
        ring.reverse();
    }
    Some(Some(Geometry::Polygon(Polygon::new(
        LineString(ring),
        vec![],
    ))))
}

/// A Web Mercator geometry as one or more tile geometries (a collection's members become
/// features of their own: an MVT feature has one type).
fn in_tile(g: &Geometry<f64>, frame: &Frame, out: &mut Vec<Geometry<f64>>) {
    let t = |c: Coord<f64>| frame.to_tile(c);
    let one = match g {
        Geometry::Point(p) => points(vec![p.map_coords(t)]),
        Geometry::MultiPoint(m) => points(m.map_coords(t).0),
        Geometry::LineString(l) => lines(MultiLineString(vec![l.map_coords(t)])),
        Geometry::MultiLineString(m) => lines(m.map_coords(t)),
        Geometry::Line(l) => lines(MultiLineString(vec![LineString::from(*l).map_coords(t)])),
        Geometry::Polygon(p) => match small_polygon(p, frame) {
            Some(done) => done,
            None => polygons(MultiPolygon(vec![p.map_coords(t)])),
        },
        // Polygon layers are stored as multipolygons (single and multi parts mix), and most
        // hold one part: a lot is then the small case as much as a plain polygon is.
        Geometry::MultiPolygon(m) if m.0.len() == 1 => match small_polygon(&m.0[0], frame) {
            Some(done) => done,
            None => polygons(m.map_coords(t)),
        },
        Geometry::MultiPolygon(m) => polygons(m.map_coords(t)),
        Geometry::Rect(r) => polygons(MultiPolygon(vec![r.to_polygon().map_coords(t)])),
        Geometry::Triangle(r) => polygons(MultiPolygon(vec![r.to_polygon().map_coords(t)])),
        Geometry::GeometryCollection(c) => {
            for m in c {
                in_tile(m, frame, out);
            }
            None
        }
    };
    out.extend(one);
}

/// Turns lines round (their parts in the other order, each part reversed), so a pipe the
/// network turned by its inverts runs downstream in the tile.
fn turn(parts: &mut [Geometry<f64>]) {
    parts.reverse();
    for p in parts.iter_mut() {
        match p {
            Geometry::LineString(l) => l.0.reverse(),
            Geometry::MultiLineString(m) => {
                m.0.reverse();
                for l in &mut m.0 {
                    l.0.reverse();
                }
            }
            _ => {}
        }
    }
}

/// A tile layer's key and value tables, filled as its features are written: each
/// distinct value is copied into the table once, found again by a cheap hash of the
/// borrowed value, so a feature's properties cost no allocation unless they are new.
#[derive(Default)]
struct Tags<'a> {
    keys: Vec<String>,
    /// The key index of each of the layer's fields, once used.
    key_of: Vec<Option<u32>>,
    values: Vec<tile::Value>,
    strs: FxHashMap<&'a str, u32>,
    dates: FxHashMap<chrono::NaiveDate, u32>,
    ints: FxHashMap<i64, u32>,
    reals: FxHashMap<u64, u32>,
    bools: [Option<u32>; 2],
}

impl<'a> Tags<'a> {
    /// The tables of a layer with `fields` fields and up to `features` features: sized
    /// for one text value per feature (ids apart), so a tile of distinct owners is
    /// written without the table growing as it fills.
    fn new(fields: usize, features: usize) -> Self {
        Tags {
            key_of: vec![None; fields],
            values: Vec::with_capacity(features),
            strs: FxHashMap::with_capacity_and_hasher(features, Default::default()),
            ..Default::default()
        }
    }

    fn key(&mut self, field: usize, name: &str) -> u32 {
        *self.key_of[field].get_or_insert_with(|| {
            self.keys.push(name.to_string());
            self.keys.len() as u32 - 1
        })
    }

    /// Adds a value without looking for it first (one known to be new to the table).
    fn push(&mut self, t: TileValue) -> u32 {
        self.values.push(t.into());
        self.values.len() as u32 - 1
    }

    fn value(&mut self, v: Prop<'a>) -> u32 {
        let values = &mut self.values;
        let mut push = |t: TileValue| {
            values.push(t.into());
            values.len() as u32 - 1
        };
        match v {
            Prop::Str(s) => *self
                .strs
                .entry(s)
                .or_insert_with(|| push(TileValue::Str(s.to_string()))),
            Prop::Date(d) => *self
                .dates
                .entry(d)
                .or_insert_with(|| push(Prop::Date(d).to_tile_value())),
            Prop::Int(i) => *self
                .ints
                .entry(i)
                .or_insert_with(|| push(TileValue::Sint(i))),
            Prop::Real(r) => *self
                .reals
                .entry(r.to_bits())
                .or_insert_with(|| push(TileValue::Double(r))),
            Prop::Bool(b) => {
                *self.bools[b as usize].get_or_insert_with(|| push(TileValue::Bool(b)))
            }
            // Rare (an outfall's screening): looked for among the values made so far.
            Prop::Owned(t) => {
                let t: tile::Value = t.into();
                match self.values.iter().position(|v| *v == t) {
                    Some(i) => i as u32,
                    None => {
                        self.values.push(t);
                        self.values.len() as u32 - 1
                    }
                }
            }
        }
    }
}

/// Writes the features `hits` (positions in `merc`) of one registry layer, or none when no
/// feature has anything left in the tile.
pub fn layer(
    spec: &TileLayer,
    frame: &Frame,
    merc: &MercatorLayer,
    hits: &[usize],
    ctx: &Context<'_>,
) -> Option<tile::Layer> {
    let registry = spec.registry()?;
    let index = ctx.snap.layer(registry);
    let sources: Vec<props::Source> = spec
        .fields
        .iter()
        .map(|f| props::Source::of(registry, f.name))
        .collect();
    write(
        spec,
        frame,
        merc,
        hits,
        |pos, k| props::prop(sources[k], &index.features[pos], ctx),
        |pos| {
            ctx.flows
                .is_some_and(|fl| fl.turned.contains(&index.features[pos].id))
        },
    )
}

/// Writes the features `hits` of a layer whose properties are already made (an answer's,
/// see [`super::mapping`]), each one's values in the order of the layer's fields.
pub fn made_layer<'a>(
    spec: &TileLayer,
    frame: &Frame,
    merc: &MercatorLayer,
    hits: &[usize],
    values: impl Fn(usize, usize) -> Option<Prop<'a>>,
) -> Option<tile::Layer> {
    write(spec, frame, merc, hits, values, |_| false)
}

/// The writing shared by both kinds of layer: `value(pos, k)` gives field `k` of the
/// feature at `pos`, `turned(pos)` whether its line is drawn against its order.
fn write<'a>(
    spec: &TileLayer,
    frame: &Frame,
    merc: &MercatorLayer,
    hits: &[usize],
    value: impl Fn(usize, usize) -> Option<Prop<'a>>,
    turned: impl Fn(usize) -> bool,
) -> Option<tile::Layer> {
    let mut tags = Tags::new(spec.fields.len(), hits.len());
    let mut features = Vec::with_capacity(hits.len());
    let mut parts = Vec::new();
    for &h in hits {
        let (pos, g) = &merc.geoms[h];
        parts.clear();
        in_tile(g, frame, &mut parts);
        if parts.is_empty() {
            continue;
        }
        if turned(*pos) {
            turn(&mut parts);
        }
        let mut feature_tags = Vec::with_capacity(spec.fields.len() * 2);
        for (k, field) in spec.fields.iter().enumerate() {
            if let Some(v) = value(*pos, k) {
                feature_tags.push(tags.key(k, field.name));
                feature_tags.push(match (field.name, v) {
                    // Ids are unique within a layer: looking each up before adding it would
                    // only cost a hash and a probe per feature.
                    ("id", Prop::Str(s)) => tags.push(TileValue::Str(s.to_string())),
                    (_, v) => tags.value(v),
                });
            }
        }
        let last = parts.len() - 1;
        for (i, part) in parts.iter().enumerate() {
            // Unscaled: the coordinates are already whole tile units.
            let Ok(mut mf) = part.to_mvt_unscaled() else {
                continue;
            };
            mf.id = Some(*pos as u64 + 1);
            mf.tags = if i == last {
                std::mem::take(&mut feature_tags)
            } else {
                feature_tags.clone()
            };
            features.push(mf);
        }
    }
    if features.is_empty() {
        return None;
    }
    Some(tile::Layer {
        version: 2,
        name: spec.name().to_string(),
        features,
        keys: tags.keys,
        values: tags.values,
        extent: Some(EXTENT),
    })
}

#[cfg(test)]
mod tests;
