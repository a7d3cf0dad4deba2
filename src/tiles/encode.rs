//! One layer of one tile: geometries moved into tile coordinates, clipped to the tile and
//! its buffer, simplified for the zoom, snapped to the tile's integer grid and written as
//! MVT features with their properties.

use geo::{BooleanOps, BoundingRect, MapCoords, Orient, Simplify, SimplifyVwPreserve, Validation};
use geo_types::{
    Coord, Geometry, LineString, MultiLineString, MultiPoint, MultiPolygon, Point, Polygon, Rect,
};
use geozero::mvt::{tile, TileValue};
use geozero::ToMvt;
use rustc_hash::FxHashMap;

use super::grid::TileId;
use super::mercator::MercatorLayer;
use super::props::{self, Context, Prop};
use super::spec::TileLayer;

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

    fn to_tile(&self, c: Coord<f64>) -> Coord<f64> {
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

/// A line cut to the tile and its buffer: the parts inside, each in the line's own
/// direction (a pipe's flow), segment by segment (Liang-Barsky), so a line that leaves and
/// comes back gives one part per stay.
fn cut_line(l: &LineString<f64>) -> Vec<LineString<f64>> {
    let (lo, hi) = (-BUFFER, EXTENT as f64 + BUFFER);
    let mut parts = Vec::new();
    let mut part: Vec<Coord<f64>> = Vec::new();
    for w in l.0.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        // The segment is a + t (b - a), kept for t in [t0, t1].
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let mut keep = true;
        for (p, q) in [
            (-dx, a.x - lo),
            (dx, hi - a.x),
            (-dy, a.y - lo),
            (dy, hi - a.y),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    keep = false;
                    break;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        if !keep || t0 > t1 {
            if part.len() >= 2 {
                parts.push(LineString(std::mem::take(&mut part)));
            }
            part.clear();
            continue;
        }
        let at = |t: f64| Coord {
            x: a.x + dx * t,
            y: a.y + dy * t,
        };
        let (p0, p1) = (
            if t0 > 0.0 { at(t0) } else { a },
            if t1 < 1.0 { at(t1) } else { b },
        );
        if t0 > 0.0 || part.is_empty() {
            // Entering (or the first segment inside): a new part.
            if part.len() >= 2 {
                parts.push(LineString(std::mem::take(&mut part)));
            }
            part.clear();
            part.push(p0);
        }
        part.push(p1);
        if t1 < 1.0 {
            // Leaving.
            if part.len() >= 2 {
                parts.push(LineString(std::mem::take(&mut part)));
            }
            part.clear();
        }
    }
    if part.len() >= 2 {
        parts.push(LineString(part));
    }
    parts
}

/// A ring snapped to the grid, or none when it collapses to under a unit of area.
fn snap_ring(r: &LineString<f64>) -> Option<LineString<f64>> {
    let mut s = snap_line(r);
    if s.0.first() != s.0.last() {
        let first = s.0[0];
        s.0.push(first);
    }
    if s.0.len() < 4 {
        return None;
    }
    let p = Polygon::new(s.clone(), vec![]);
    (geo::Area::unsigned_area(&p) >= 1.0).then_some(s)
}

fn snap_polygons(mp: &MultiPolygon<f64>) -> MultiPolygon<f64> {
    MultiPolygon(
        mp.0.iter()
            .filter_map(|p| {
                let ext = snap_ring(p.exterior())?;
                let holes = p.interiors().iter().filter_map(snap_ring).collect();
                Some(Polygon::new(ext, holes))
            })
            .collect(),
    )
}

fn polygons(mp: MultiPolygon<f64>) -> Option<Geometry<f64>> {
    let rect = clip_rect();
    let b = mp.bounding_rect()?;
    // Simplify only outlines with more vertices than a lot's corners, and never so far
    // that two rings cross (the topology-preserving Visvalingam-Whyatt).
    let vertices: usize = mp.0.iter().map(|p| p.exterior().0.len()).sum();
    let mp = if vertices > 8 {
        mp.simplify_vw_preserve(0.5)
    } else {
        mp
    };
    let clipped = if inside(&rect, &b) {
        mp
    } else {
        mp.intersection(&rect.to_polygon())
    };
    let mut snapped = snap_polygons(&clipped);
    if !snapped.is_valid() {
        // Snapping moved a vertex across an edge a fraction of a unit away: rebuild the
        // outline by union (which resolves crossings), and snap again.
        snapped = snap_polygons(&snapped.union(&MultiPolygon::<f64>(vec![])));
        if !snapped.is_valid() {
            return None;
        }
    }
    if snapped.0.is_empty() {
        return None;
    }
    // MVT: exterior rings have positive area in tile coordinates (y down), which is
    // geo's counter-clockwise.
    let snapped = snapped.orient(geo::orient::Direction::Default);
    Some(if snapped.0.len() == 1 {
        Geometry::Polygon(snapped.0.into_iter().next().expect("one polygon"))
    } else {
        Geometry::MultiPolygon(snapped)
    })
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
/// general path also gives (the same shape; where it was cut, perhaps from another first
/// vertex).
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
    // Whole tile units: twice the signed area is exact in integers.
    let pts: Vec<(i64, i64)> = ring.iter().map(|c| (c.x as i64, c.y as i64)).collect();
    let twice: i64 = pts
        .windows(2)
        .map(|w| w[0].0 * w[1].1 - w[1].0 * w[0].1)
        .sum();
    if twice.abs() < 2 {
        return if outside { None } else { Some(None) };
    }
    if !plainly_simple(&pts) {
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

/// A ring (open or closed) cut to the tile and its buffer, Sutherland-Hodgman, one edge
/// of the buffer at a time; open, and empty when nothing is inside.
fn cut_to_buffer(mut ring: Vec<Coord<f64>>) -> Vec<Coord<f64>> {
    let (lo, hi) = (-BUFFER, EXTENT as f64 + BUFFER);
    if ring.len() > 1 && ring.first() == ring.last() {
        ring.pop();
    }
    // Each edge: which side is kept, and where a segment crosses it.
    type Keep = fn(Coord<f64>, f64) -> bool;
    type Cross = fn(Coord<f64>, Coord<f64>, f64) -> Coord<f64>;
    let at_x: Cross = |a, b, x| Coord {
        x,
        y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x),
    };
    let at_y: Cross = |a, b, y| Coord {
        x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y),
        y,
    };
    let edges: [(Keep, Cross, f64); 4] = [
        (|c, v| c.x >= v, at_x, lo),
        (|c, v| c.x <= v, at_x, hi),
        (|c, v| c.y >= v, at_y, lo),
        (|c, v| c.y <= v, at_y, hi),
    ];
    let mut out = Vec::with_capacity(ring.len() + 4);
    for (keep, cross, v) in edges {
        out.clear();
        let Some(&last) = ring.last() else {
            return ring;
        };
        let mut prev = last;
        for &c in &ring {
            match (keep(c, v), keep(prev, v)) {
                (true, true) => out.push(c),
                (true, false) => {
                    out.push(cross(prev, c, v));
                    out.push(c);
                }
                (false, true) => out.push(cross(prev, c, v)),
                (false, false) => {}
            }
            prev = c;
        }
        std::mem::swap(&mut ring, &mut out);
    }
    ring
}

/// Whether no two non-neighbouring edges of a closed ring meet at all (not even touch):
/// stricter than geo's validity, so a ring passing it is valid there too.
fn plainly_simple(pts: &[(i64, i64)]) -> bool {
    let n = pts.len() - 1;
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            if segments_meet(pts[i], pts[i + 1], pts[j], pts[j + 1]) {
                return false;
            }
        }
    }
    true
}

fn orient2(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> i64 {
    ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)).signum()
}

fn on_segment(a: (i64, i64), b: (i64, i64), p: (i64, i64)) -> bool {
    p.0 >= a.0.min(b.0) && p.0 <= a.0.max(b.0) && p.1 >= a.1.min(b.1) && p.1 <= a.1.max(b.1)
}

fn segments_meet(a: (i64, i64), b: (i64, i64), c: (i64, i64), d: (i64, i64)) -> bool {
    let (o1, o2, o3, o4) = (
        orient2(a, b, c),
        orient2(a, b, d),
        orient2(c, d, a),
        orient2(c, d, b),
    );
    if o1 != o2 && o3 != o4 {
        return true;
    }
    (o1 == 0 && on_segment(a, b, c))
        || (o2 == 0 && on_segment(a, b, d))
        || (o3 == 0 && on_segment(c, d, a))
        || (o4 == 0 && on_segment(c, d, b))
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
            for m in c.iter() {
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
    values: Vec<TileValue>,
    strs: FxHashMap<&'a str, u32>,
    dates: FxHashMap<chrono::NaiveDate, u32>,
    ints: FxHashMap<i64, u32>,
    reals: FxHashMap<u64, u32>,
    bools: [Option<u32>; 2],
}

impl<'a> Tags<'a> {
    fn new(fields: usize) -> Self {
        Tags {
            key_of: vec![None; fields],
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
        self.values.push(t);
        self.values.len() as u32 - 1
    }

    fn value(&mut self, v: Prop<'a>) -> u32 {
        let values = &mut self.values;
        let mut push = |t: TileValue| {
            values.push(t);
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
                drop(push);
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

/// Writes the features `hits` (positions in `merc`) of one layer, or none when no feature
/// has anything left in the tile.
pub fn layer(
    spec: &TileLayer,
    frame: &Frame,
    merc: &MercatorLayer,
    hits: &[usize],
    ctx: &Context<'_>,
) -> Option<tile::Layer> {
    let index = ctx.snap.layer(spec.layer);
    let sources: Vec<props::Source> = spec
        .fields
        .iter()
        .map(|f| props::Source::of(spec.layer, f.name))
        .collect();
    let mut tags = Tags::new(sources.len());
    let mut features = Vec::new();
    let mut parts = Vec::new();
    for &h in hits {
        let (pos, g) = &merc.geoms[h];
        parts.clear();
        in_tile(g, frame, &mut parts);
        if parts.is_empty() {
            continue;
        }
        let f = &index.features[*pos];
        if ctx.flows.is_some_and(|fl| fl.turned.contains(&f.id)) {
            turn(&mut parts);
        }
        let mut feature_tags = Vec::with_capacity(sources.len() * 2);
        for (k, (src, field)) in sources.iter().zip(spec.fields).enumerate() {
            if let Some(v) = props::prop(*src, f, ctx) {
                feature_tags.push(tags.key(k, field.name));
                feature_tags.push(match (src, v) {
                    // Ids are unique within a layer: looking each up before adding it would
                    // only cost a hash and a probe per feature.
                    (props::Source::Id, Prop::Str(s)) => tags.push(TileValue::Str(s.to_string())),
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
        values: tags.values.into_iter().map(Into::into).collect(),
        extent: Some(EXTENT),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::Area;
    use geo_types::wkt;

    fn frame() -> Frame {
        Frame {
            minx: 0.0,
            maxy: 4096.0,
            k: 1.0,
        }
    }

    #[test]
    fn polygons_are_clipped_to_the_buffer_and_wound_as_mvt_wants() {
        // A square from the tile's middle to well past its right edge, in metres = units.
        let g: Geometry<f64> =
            wkt!(POLYGON((2000. 1000.,9000. 1000.,9000. 3000.,2000. 3000.,2000. 1000.))).into();
        let mut out = Vec::new();
        in_tile(&g, &frame(), &mut out);
        let Geometry::Polygon(p) = &out[0] else {
            panic!("{out:?}")
        };
        assert!(p.is_valid());
        let xs: Vec<f64> = p.exterior().0.iter().map(|c| c.x).collect();
        assert_eq!(
            xs.iter().cloned().fold(f64::MIN, f64::max),
            EXTENT as f64 + BUFFER
        );
        // Positive area in tile coordinates (y down): MVT's exterior ring.
        assert!(p.signed_area() > 0.0);
    }

    #[test]
    fn a_polygon_under_a_unit_disappears_instead_of_turning_invalid() {
        let g: Geometry<f64> = wkt!(POLYGON((10. 10.,10.3 10.,10.3 10.2,10. 10.2,10. 10.))).into();
        let mut out = Vec::new();
        in_tile(&g, &frame(), &mut out);
        assert!(out.is_empty(), "{out:?}");
        // A sliver: snapping squashes it to a line, which is dropped, never sent invalid.
        let g: Geometry<f64> = wkt!(POLYGON((10. 10.,500. 10.,500. 10.4,10. 10.4,10. 10.))).into();
        let mut out = Vec::new();
        in_tile(&g, &frame(), &mut out);
        for o in &out {
            assert!(o.is_valid(), "{o:?}");
        }
    }

    #[test]
    fn the_small_polygon_path_gives_what_the_full_path_gives() {
        // Lots of every winding and a few odd shapes, at sub-unit offsets so snapping
        // moves them differently; each must come out as the general path makes it.
        let mut seen = 0;
        for k in 0..400 {
            let (ox, oy) = (37.0 + k as f64 * 9.37, 4000.0 - k as f64 * 7.91);
            let w = 0.3 + (k % 13) as f64 * 1.7;
            let h = 0.2 + (k % 7) as f64 * 2.3;
            let mut ring = vec![
                Coord { x: ox, y: oy },
                Coord { x: ox + w, y: oy },
                Coord {
                    x: ox + w,
                    y: oy + h,
                },
                Coord {
                    x: ox + w * 0.5,
                    y: oy + h * (k % 3) as f64 * 0.5,
                },
                Coord { x: ox, y: oy + h },
            ];
            if k % 2 == 1 {
                ring.reverse();
            }
            let p = Polygon::new(LineString(ring), vec![]);
            let full = polygons(MultiPolygon(vec![p.map_coords(|c| frame().to_tile(c))]));
            if let Some(quick) = small_polygon(&p, &frame()) {
                seen += 1;
                assert_eq!(quick, full, "lot {k}: {p:?}");
            }
        }
        // A third of them touch their own first edge (the fourth corner on it): those fall back.
        assert!(seen > 250, "the small path took only {seen} of 400");
    }

    /// A polygon's ring from its lowest vertex, without the closing one: the same shape
    /// from another first vertex compares equal.
    fn from_lowest(g: &Option<Geometry<f64>>) -> Option<Vec<(i64, i64)>> {
        let Some(Geometry::Polygon(p)) = g else {
            return None;
        };
        let mut r: Vec<(i64, i64)> = p
            .exterior()
            .0
            .iter()
            .map(|c| (c.x as i64, c.y as i64))
            .collect();
        r.pop();
        let k = (0..r.len()).min_by_key(|&i| r[i]).unwrap();
        r.rotate_left(k);
        Some(r)
    }

    #[test]
    fn polygons_across_the_buffer_cut_quickly_give_the_full_paths_shape() {
        // Rectangles and quadrilaterals across every edge and corner of the buffer, and
        // over the whole tile, at sub-unit offsets away from half a unit (where the general
        // path's overlay, which works on its own integer grid, may round the other way).
        let mut seen = 0;
        for k in 0..300 {
            let f = k as f64;
            let (ox, oy) = (
                -900.3 + ((f * 37.3) % 5200.0).floor(),
                -900.2 + ((f * 53.9) % 5200.0).floor(),
            );
            let (w, h) = (
                200.4 + ((f * 91.7) % 6000.0).floor(),
                150.3 + ((f * 71.1) % 6000.0).floor(),
            );
            let mut ring = vec![
                Coord { x: ox, y: oy },
                Coord {
                    x: ox + w,
                    y: oy + (k % 5) as f64 * 3.3,
                },
                Coord {
                    x: ox + w,
                    y: oy + h,
                },
                Coord { x: ox, y: oy + h },
            ];
            if k % 2 == 1 {
                ring.reverse();
            }
            let p = Polygon::new(LineString(ring), vec![]);
            let full = polygons(MultiPolygon(vec![p.map_coords(|c| frame().to_tile(c))]));
            if let Some(quick) = small_polygon(&p, &frame()) {
                seen += 1;
                assert_eq!(
                    from_lowest(&quick),
                    from_lowest(&full),
                    "polygon {k}: {p:?}"
                );
                if let Some(g) = &quick {
                    assert!(g.is_valid(), "{g:?}");
                }
            }
        }
        assert!(seen > 250, "the quick cut took only {seen} of 300");
        // A triangle out past the right edge: cut to the buffer's edge.
        let g: Polygon<f64> = wkt!(POLYGON((2000. 1000.,9000. 1000.,9000. 3000.,2000. 1000.)));
        let quick = small_polygon(&g, &frame()).expect("a simple cut");
        let full = polygons(MultiPolygon(vec![g.map_coords(|c| frame().to_tile(c))]));
        assert_eq!(from_lowest(&quick), from_lowest(&full));
        // An n whose top is out past the tile's top: inside, two legs, which the cut joins
        // along the edge (a ring that runs along it twice), so the general path decides.
        let u: Polygon<f64> = wkt!(POLYGON((1000. 1000.,1500. 1000.,2000. 8000.,2500. 1000.,3000. 1000.,2000. 9000.,1000. 1000.)));
        assert!(small_polygon(&u, &frame()).is_none());
    }

    #[test]
    fn lines_crossing_the_edge_are_cut_at_the_buffer() {
        let g: Geometry<f64> = wkt!(LINESTRING(100. 100.,8000. 100.)).into();
        let mut out = Vec::new();
        in_tile(&g, &frame(), &mut out);
        let Geometry::LineString(l) = &out[0] else {
            panic!("{out:?}")
        };
        assert_eq!(l.0.last().unwrap().x, EXTENT as f64 + BUFFER);
        assert_eq!(l.0[0].y, 4096.0 - 100.0);
    }

    #[test]
    fn the_line_cut_keeps_what_the_general_clip_keeps_in_the_line_s_direction() {
        use geo::{Euclidean, Length};
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let rect = clip_rect();
        let mut crossing = 0;
        for _ in 0..2000 {
            // Polylines of 2 to 6 positions, from well outside to well inside the buffer.
            let n = rng.gen_range(2..7);
            let l = LineString(
                (0..n)
                    .map(|_| Coord {
                        x: rng.gen_range(-3000.0..7000.0),
                        y: rng.gen_range(-3000.0..7000.0),
                    })
                    .collect(),
            );
            let ours = cut_line(&l);
            let theirs = rect
                .to_polygon()
                .clip(&MultiLineString(vec![l.clone()]), false);
            let len = |ls: &[LineString<f64>]| ls.iter().map(|p| Euclidean.length(p)).sum::<f64>();
            let (a, b) = (len(&ours), len(&theirs.0));
            assert!((a - b).abs() < 1e-6 * (1.0 + b), "{l:?}: {a} against {b}");
            crossing += usize::from(!ours.is_empty());
            for part in &ours {
                assert!(part.0.len() >= 2);
                for c in &part.0 {
                    assert!(
                        c.x >= rect.min().x - 1e-9 && c.x <= rect.max().x + 1e-9,
                        "{c:?}"
                    );
                    assert!(
                        c.y >= rect.min().y - 1e-9 && c.y <= rect.max().y + 1e-9,
                        "{c:?}"
                    );
                }
                // Each piece runs the way its segment of the line runs (a pipe's flow).
                let (p, q) = (part.0[0], part.0[1]);
                let seg = l.lines().find(|s| {
                    let d = (s.end - s.start, q - p);
                    let cross = d.0.x * d.1.y - d.0.y * d.1.x;
                    cross.abs() < 1e-6 * (d.0.x.hypot(d.0.y) * d.1.x.hypot(d.1.y) + 1.0)
                        && d.0.x * d.1.x + d.0.y * d.1.y > 0.0
                });
                assert!(seg.is_some(), "{part:?} runs against {l:?}");
            }
        }
        assert!(crossing > 500, "only {crossing} of 2000 lines met the tile");
        // Out and back in: two parts, in order.
        let l: LineString<f64> = wkt!(LINESTRING(100. 100.,100. 9000.,200. 9000.,200. 100.));
        let parts = cut_line(&l);
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert_eq!(parts[0].0[0], Coord { x: 100., y: 100. });
        assert_eq!(parts[1].0.last(), Some(&Coord { x: 200., y: 100. }));
    }
}
