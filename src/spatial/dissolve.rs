//! The union of polygons that mostly share their edges — a sewershed's parcels — as a
//! coverage is dissolved: every edge two neighbours share (once each way) is cancelled
//! before any overlay, and only what is left, the outline, is overlaid.
//!
//! Why it is exact: with exteriors wound counter-clockwise and holes clockwise, how many
//! polygons cover a point is the winding number of all their edges about it. An edge
//! a→b and its twin b→a add nothing to any winding number, so cancelling them leaves
//! every point covered as often as before; the edges left still close into rings (each
//! vertex keeps as many edges in as out). The overlay then fills what is wound
//! positively, which is the union. Parcels that overlap, or meet where one has a vertex
//! the other lacks, cancel less and are left to the overlay, never lost.
//!
//! Why: overlaying every parcel's every edge was most of the time a sewershed took on
//! the county (70,849 of them); a block's lots share all their side lines.

use std::borrow::Borrow;

use geo_types::{Coord, LineString, MultiPolygon, Polygon};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::float::overlay::OverlayOptions;
use i_overlay::float::simplify::SimplifyShape;
use rustc_hash::FxHashMap;

/// A coordinate's exact bits (a zero's sign dropped), so shared vertices meet.
type Key = (u64, u64);

fn key(c: Coord<f64>) -> Key {
    ((c.x + 0.0).to_bits(), (c.y + 0.0).to_bits())
}

fn at(k: Key) -> [f64; 2] {
    [f64::from_bits(k.0), f64::from_bits(k.1)]
}

/// The union of `pieces`, their shared edges cancelled first (see the module docs).
pub fn dissolve(pieces: Vec<Polygon<f64>>) -> MultiPolygon<f64> {
    fill(outline(pieces))
}

/// The rings left of `pieces` once the edges they share are cancelled, wound so that
/// what they wind round positively is the pieces' union: to be filled by [`fill`], with
/// anything else wound so (exteriors counter-clockwise, holes clockwise) beside them.
pub fn outline(pieces: Vec<Polygon<f64>>) -> Vec<Vec<[f64; 2]>> {
    outline_of(pieces.iter())
}

/// [`outline`] of polygons read where they lie (a sewershed's parcels, in the snapshot),
/// not copied first.
pub fn outline_of<'p>(pieces: impl IntoIterator<Item = &'p Polygon<f64>>) -> Vec<Vec<[f64; 2]>> {
    use geo::winding_order::{Winding, WindingOrder};
    // Turned as [`wind`] turns it: only a ring running the other way (one of no area is
    // left as it is).
    let wound = |r: &LineString<f64>, want: WindingOrder| -> Vec<[f64; 2]> {
        let mut ring: Vec<[f64; 2]> = r.0.iter().map(|c| [c.x, c.y]).collect();
        if r.winding_order().is_some_and(|w| w != want) {
            ring.reverse();
        }
        ring
    };
    let rings: Vec<Vec<[f64; 2]>> = pieces
        .into_iter()
        .flat_map(|p| {
            std::iter::once(wound(p.exterior(), WindingOrder::CounterClockwise)).chain(
                p.interiors()
                    .iter()
                    .map(move |h| wound(h, WindingOrder::Clockwise)),
            )
        })
        .collect();
    // Twice: lots of a row, merged, leave one straight rear line the row behind shares
    // whole only once the lots' vertices along it are gone.
    cancel_shared_edges(&cancel_shared_edges(&rings))
}

/// What `rings` wind round positively, as polygons: one overlay.
pub fn fill(rings: Vec<Vec<[f64; 2]>>) -> MultiPolygon<f64> {
    let shapes = rings.simplify_shape_custom(
        FillRule::Positive,
        OverlayOptions::ogc(),
        Default::default(),
    );
    MultiPolygon::new(
        shapes
            .into_iter()
            .filter_map(|shape| {
                let mut rings = shape
                    .into_iter()
                    .map(|c| LineString::new(c.into_iter().map(|[x, y]| Coord { x, y }).collect()));
                let ext = rings.next()?;
                Some(Polygon::new(ext, rings.collect()))
            })
            .collect(),
    )
}

/// The area of the union of `pieces`, without making the union: one overlay finds which
/// side of each edge is filled, and the edges with one side filled, the union's boundary,
/// are summed as trapezoids down to the x-axis (those with the filling below added, those
/// with it above taken away; an upright edge has no width and adds nothing), in the
/// overlay's integer grid, exactly. Why: a watershed's coverage is an area, and tracing
/// and checking the union's rings (most of an overlay's time after its split) made
/// rings nobody reads. A piece may be wound either way: each ring is read as
/// [`wind`] winds it, and what any ring winds round either way is filled (a piece cut to
/// a box may cross itself, a lobe each way round).
pub fn union_area<P: Borrow<Polygon<f64>>>(pieces: &[P]) -> f64 {
    use i_overlay::core::overlay::{IntOverlayOptions, Overlay, ShapeType};
    use i_overlay::core::solver::Solver;
    use i_overlay::i_float::adapter::FloatPointAdapter;
    use i_overlay::i_float::float::rect::FloatRect;
    use i_overlay::i_float::int::point::IntPoint;
    use i_overlay::vector::edge::{SUBJ_LEFT, SUBJ_RIGHT};
    let coords = || {
        pieces
            .iter()
            .map(Borrow::borrow)
            .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()))
            .flat_map(|r| r.0.iter())
    };
    let Some(rect) = FloatRect::with_iter(coords().map(|c| [c.x, c.y]).collect::<Vec<_>>().iter())
    else {
        return 0.0;
    };
    let adapter = FloatPointAdapter::<[f64; 2], f64>::new(rect);
    let mut overlay =
        Overlay::new_custom(coords().count(), IntOverlayOptions::default(), Solver::AUTO);
    let mut ring_of = |r: &LineString<f64>, ccw: bool| {
        use geo::Winding;
        let mut pts: Vec<IntPoint> =
            r.0.iter()
                .map(|c| adapter.float_to_int(&[c.x, c.y]))
                .collect();
        if pts.len() > 1 && pts.first() == pts.last() {
            pts.pop();
        }
        if r.is_ccw() != ccw {
            pts.reverse();
        }
        overlay.add_contour(&pts, ShapeType::Subject);
    };
    for p in pieces.iter().map(Borrow::borrow) {
        ring_of(p.exterior(), true);
        for h in p.interiors() {
            ring_of(h, false);
        }
    }
    // Twice the area, in the grid's units squared: (b.x - a.x)(a.y + b.y) for each edge
    // (a before b in x), filled below it (+) or above it (-).
    let mut twice: i128 = 0;
    for e in overlay.build_separate_vectors(FillRule::NonZero) {
        let (above, below) = (e.fill & SUBJ_LEFT != 0, e.fill & SUBJ_RIGHT != 0);
        if above == below {
            continue;
        }
        let t = (e.b.x as i128 - e.a.x as i128) * (e.a.y as i128 + e.b.y as i128);
        twice += if below { t } else { -t };
    }
    (twice.unsigned_abs() as f64) / 2.0 * adapter.inv_scale * adapter.inv_scale
}

/// `p` wound as the overlay reads a filled shape (exterior counter-clockwise, holes
/// clockwise), in place: each ring is turned only when it runs the other way.
pub fn wind(p: &mut Polygon<f64>) {
    use geo::Winding;
    p.exterior_mut(|e| e.make_ccw_winding());
    p.interiors_mut(|holes| {
        for h in holes {
            h.make_cw_winding();
        }
    });
}

/// The rings of `p`, wound as [`wind`] winds them, open (the overlay closes each), as
/// [`fill`] reads rings.
pub fn rings_of(mut p: Polygon<f64>) -> impl Iterator<Item = Vec<[f64; 2]>> {
    wind(&mut p);
    let (ext, holes) = p.into_inner();
    std::iter::once(ext).chain(holes).map(|r| {
        let mut ring: Vec<[f64; 2]> = r.0.into_iter().map(|c| [c.x, c.y]).collect();
        if ring.len() > 1 && ring.first() == ring.last() {
            ring.pop();
        }
        ring
    })
}

/// The rings left once every edge met both ways is cancelled, each vertex between two
/// edges running straight on dropped. Rings are read closed or open.
fn cancel_shared_edges(rings: &[Vec<[f64; 2]>]) -> Vec<Vec<[f64; 2]>> {
    // How many times each edge runs low→high, less the times it runs high→low.
    // Fx: keys are coordinates' bits, made here, not chosen by a client.
    // Sized for every edge at once: grown step by step, its rehashing was an eighth of
    // this function's time on the county.
    let edges: usize = rings.iter().map(Vec::len).sum();
    let mut net: FxHashMap<(Key, Key), i64> =
        FxHashMap::with_capacity_and_hasher(edges, Default::default());
    for r in rings {
        let n = r.len();
        for i in 0..n {
            let (a, b) = (key(coord(r[i])), key(coord(r[(i + 1) % n])));
            if a == b {
                continue;
            }
            if a < b {
                *net.entry((a, b)).or_default() += 1;
            } else {
                *net.entry((b, a)).or_default() -= 1;
            }
        }
    }
    // What is left, as edges out of each vertex. Sorted, so the rings come out the same
    // on every run.
    let mut left: Vec<(Key, Key)> = Vec::new();
    for ((lo, hi), n) in net {
        let (from, to) = if n > 0 { (lo, hi) } else { (hi, lo) };
        for _ in 0..n.unsigned_abs() {
            left.push((from, to));
        }
    }
    left.sort_unstable();
    let mut out: FxHashMap<Key, Vec<Key>> = FxHashMap::default();
    for (from, to) in left.iter().rev() {
        out.entry(*from).or_default().push(*to);
    }
    let mut rings = Vec::new();
    for (start, _) in &left {
        // Each vertex has as many edges in as out, so a walk from a vertex returns to it.
        while let Some(first) = out.get_mut(start).and_then(Vec::pop) {
            let mut ring = vec![*start, first];
            let mut here = first;
            while here != *start {
                let Some(next) = out.get_mut(&here).and_then(Vec::pop) else {
                    break;
                };
                ring.push(next);
                here = next;
            }
            ring.pop(); // the start again
            rings.push(straighten(ring));
        }
    }
    rings
}

/// The ring without the vertices where it runs straight on (the same direction exactly).
fn straighten(ring: Vec<Key>) -> Vec<[f64; 2]> {
    let pts: Vec<[f64; 2]> = ring.into_iter().map(at).collect();
    let n = pts.len();
    if n < 4 {
        return pts;
    }
    let straight = |a: [f64; 2], b: [f64; 2], c: [f64; 2]| {
        let (u, v) = ([b[0] - a[0], b[1] - a[1]], [c[0] - b[0], c[1] - b[1]]);
        u[0] * v[1] - u[1] * v[0] == 0.0 && u[0] * v[0] + u[1] * v[1] > 0.0
    };
    (0..n)
        .filter(|&i| !straight(pts[(i + n - 1) % n], pts[i], pts[(i + 1) % n]))
        .map(|i| pts[i])
        .collect()
}

fn coord(p: [f64; 2]) -> Coord<f64> {
    Coord { x: p[0], y: p[1] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::orient::{Direction, Orient};
    use geo::{Area, BooleanOps};
    use geo_types::polygon;

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> Polygon<f64> {
        polygon![(x: x0, y: y0), (x: x1, y: y0), (x: x1, y: y1), (x: x0, y: y1), (x: x0, y: y0)]
    }

    #[test]
    fn a_block_of_lots_is_its_outline() {
        // Two rows of lots whose side lines do not line up across the rear line, one lot
        // stored clockwise.
        let mut lots = Vec::new();
        for (i, x) in [0., 10., 25., 30.].windows(2).enumerate() {
            let r = rect(x[0], 0., x[1], 20.);
            lots.push(if i == 1 {
                r.orient(Direction::Reversed)
            } else {
                r
            });
        }
        for x in [0., 7., 30.].windows(2) {
            lots.push(rect(x[0], 20., x[1], 50.));
        }
        let u = dissolve(lots);
        assert_eq!(u.0.len(), 1);
        assert_eq!(u.0[0].exterior().0.len(), 5, "{u:?}");
        assert_eq!(u.unsigned_area(), 1500.0);
    }

    #[test]
    fn a_courtyard_no_lot_covers_stays_a_hole() {
        // Four lots round a 10 x 10 yard.
        let lots = vec![
            rect(0., 0., 30., 10.),
            rect(0., 20., 30., 30.),
            rect(0., 10., 10., 20.),
            rect(20., 10., 30., 20.),
        ];
        let u = dissolve(lots);
        assert_eq!(u.0.len(), 1);
        assert_eq!(u.0[0].interiors().len(), 1);
        assert_eq!(u.unsigned_area(), 800.0);
    }

    #[test]
    fn the_union_area_is_the_area_of_the_union() {
        let holed = Polygon::new(
            rect(100., 0., 130., 30.).exterior().clone(),
            vec![rect(110., 10., 120., 20.).exterior().clone()],
        );
        let cases: Vec<(Vec<Polygon<f64>>, f64)> = vec![
            (vec![], 0.0),
            (vec![rect(0., 0., 10., 10.)], 100.0),
            // Overlapping, one wound clockwise: their common 5 x 5 once.
            (
                vec![
                    rect(0., 0., 10., 10.),
                    rect(5., 5., 15., 15.).orient(Direction::Reversed),
                ],
                175.0,
            ),
            // A square with a hole, and a piece filling half of the hole.
            (vec![holed.clone()], 800.0),
            (vec![holed, rect(110., 10., 115., 20.)], 850.0),
            // A triangle inside a square adds nothing; one apart adds its own.
            (
                vec![
                    rect(0., 0., 10., 10.),
                    polygon![(x: 1., y: 1.), (x: 9., y: 1.), (x: 5., y: 8.)],
                    polygon![(x: 661_200., y: 870_000.), (x: 661_210., y: 870_000.), (x: 661_200., y: 870_010.)],
                ],
                150.0,
            ),
        ];
        for (pieces, want) in cases {
            let got = union_area(&pieces);
            approx::assert_relative_eq!(got, want, max_relative = 1e-9, epsilon = 1e-9);
            // geo's union reads a ring wound clockwise as a hole's: wound first.
            let mut wound = pieces.clone();
            wound.iter_mut().for_each(wind);
            let unioned = geo::unary_union(&wound).unsigned_area();
            approx::assert_relative_eq!(got, unioned, max_relative = 1e-9, epsilon = 1e-9);
        }
    }

    #[test]
    fn a_piece_crossing_itself_is_filled_in_both_its_lobes() {
        // Its larger lobe clockwise (4.8 + 10.8). Filled by winding, not by sign: on the
        // county, a few sewersheds' pieces cut to a watershed's box wind so, and only so
        // is the covered area the staged union's (to a millionth of a percent).
        let bow = polygon![(x: 0., y: 0.), (x: 6., y: 6.), (x: 6., y: 0.), (x: 0., y: 4.)];
        approx::assert_relative_eq!(union_area(&[bow]), 15.6, max_relative = 1e-9);
    }

    #[test]
    fn overlapping_and_touching_pieces_are_unioned_as_the_overlay_unions_them() {
        let pieces = vec![
            rect(0., 0., 10., 10.),
            rect(5., 5., 15., 15.),   // overlaps the first
            rect(10., 0., 20., 5.),   // shares part of an edge, no vertex of it
            rect(40., 40., 50., 50.), // apart
            rect(50., 50., 60., 60.), // meets the one before at a corner
            rect(42., 42., 48., 48.), // inside another
        ];
        let want = geo::unary_union(&pieces);
        let got = dissolve(pieces);
        approx::assert_relative_eq!(got.unsigned_area(), want.unsigned_area(), epsilon = 1e-9);
        approx::assert_relative_eq!(
            got.difference(&want).unsigned_area() + want.difference(&got).unsigned_area(),
            0.0,
            epsilon = 1e-9
        );
    }
}
