//! The area a polygon layer's shape shares with a convex footprint, without an overlay.
//!
//! Why: screening a county measures, for every parcel on a watershed's or a TMDL area's
//! edge, how much of it lies on each side; a general overlay of two small rings was a tenth
//! of the screen's time. Against a convex ring, any ring can be clipped edge by edge
//! (Sutherland–Hodgman): the clipped ring may hold zero-width bridges where the shape
//! leaves the footprint and comes back, but those have no area, so its area is the
//! overlap's. Parcels are nearly all convex; any other footprint goes to the overlay.

use geo_types::{Coord, Geometry, LineString, MultiPolygon, Polygon};

/// The area `shape` (a polygon or multipolygon) shares with `footprint`, when the
/// footprint is one convex polygon without holes; `None` otherwise (the caller overlays).
pub fn overlap_area(shape: &Geometry<f64>, footprint: &MultiPolygon<f64>) -> Option<f64> {
    let [part] = footprint.0.as_slice() else {
        return None;
    };
    if !part.interiors().is_empty() {
        return None;
    }
    let window = ConvexWindow::of(part.exterior())?;
    let polys: &[Polygon<f64>] = match shape {
        Geometry::Polygon(p) => std::slice::from_ref(p),
        Geometry::MultiPolygon(m) => &m.0,
        _ => return None,
    };
    let mut scratch = (Vec::new(), Vec::new());
    let mut area = 0.0;
    for p in polys {
        // A valid polygon's holes lie inside its exterior and apart from each other.
        area += window.clipped_area(p.exterior(), &mut scratch);
        for hole in p.interiors() {
            area -= window.clipped_area(hole, &mut scratch);
        }
    }
    // Where the shapes only touch, or the footprint lies all but wholly inside, the
    // clip's rounding (a sliver of a billionth) could differ from the overlay's, which
    // snaps to a grid: an answer that turns on a sliver is left to the overlay.
    let clear = SLIVER * window.area;
    (area > clear && area < window.area - clear).then_some(area)
}

/// The share of a footprint below which (or above one less than which) an overlap is
/// left to the overlay.
const SLIVER: f64 = 1e-6;

/// A convex ring's edges, turned so that its inside is on their left.
struct ConvexWindow {
    edges: Vec<(Coord<f64>, Coord<f64>)>,
    /// Its area.
    area: f64,
}

impl ConvexWindow {
    /// The window of a closed ring; `None` when the ring is not convex (or has no area).
    fn of(ring: &LineString<f64>) -> Option<ConvexWindow> {
        let mut pts: Vec<Coord<f64>> = Vec::with_capacity(ring.0.len());
        for &c in &ring.0 {
            if !c.x.is_finite() || !c.y.is_finite() {
                return None;
            }
            if pts.last() != Some(&c) {
                pts.push(c);
            }
        }
        if pts.len() > 1 && pts.first() == pts.last() {
            pts.pop();
        }
        if pts.len() < 3 || !is_convex(&pts) {
            return None;
        }
        let mut area = signed_area(&pts);
        if area < 0.0 {
            pts.reverse();
            area = -area;
        }
        let edges = (0..pts.len())
            .map(|i| (pts[i], pts[(i + 1) % pts.len()]))
            .collect();
        Some(ConvexWindow { edges, area })
    }

    /// The unsigned area of `ring` clipped to the window. `scratch` holds the two working
    /// lists, kept from ring to ring.
    fn clipped_area(
        &self,
        ring: &LineString<f64>,
        (input, output): &mut (Vec<Coord<f64>>, Vec<Coord<f64>>),
    ) -> f64 {
        output.clear();
        output.extend_from_slice(&ring.0);
        if output.len() > 1 && output.first() == output.last() {
            output.pop();
        }
        for &(a, b) in &self.edges {
            if output.is_empty() {
                break;
            }
            std::mem::swap(input, output);
            output.clear();
            let side = |p: Coord<f64>| (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
            let mut prev = *input.last().expect("not empty");
            let mut prev_side = side(prev);
            for &cur in input.iter() {
                let cur_side = side(cur);
                if cur_side >= 0.0 {
                    if prev_side < 0.0 {
                        output.push(crossing(prev, cur, prev_side, cur_side));
                    }
                    output.push(cur);
                } else if prev_side >= 0.0 {
                    output.push(crossing(prev, cur, prev_side, cur_side));
                }
                prev = cur;
                prev_side = cur_side;
            }
        }
        signed_area(output).abs()
    }
}

/// Where segment p–q crosses the line its end sides were measured against.
fn crossing(p: Coord<f64>, q: Coord<f64>, p_side: f64, q_side: f64) -> Coord<f64> {
    let t = p_side / (p_side - q_side);
    Coord {
        x: p.x + t * (q.x - p.x),
        y: p.y + t * (q.y - p.y),
    }
}

/// The shoelace area of an open ring, positive counter-clockwise.
fn signed_area(pts: &[Coord<f64>]) -> f64 {
    let n = pts.len();
    if n < 3 {
        return 0.0;
    }
    // Measured from the first point, so large map coordinates cancel before they multiply.
    let o = pts[0];
    let mut twice = 0.0;
    for i in 1..n - 1 {
        let (p, q) = (pts[i] - o, pts[i + 1] - o);
        twice += p.x * q.y - q.x * p.y;
    }
    twice / 2.0
}

/// Whether an open ring (no repeated neighbours) is convex: every turn the same way, and
/// its direction swings round once (a star turns the same way at every point too, but its
/// edges' x direction changes sign more than twice).
fn is_convex(pts: &[Coord<f64>]) -> bool {
    let n = pts.len();
    let edge = |i: usize| pts[(i + 1) % n] - pts[i];
    let (mut left, mut right, mut spike) = (false, false, false);
    for i in 0..n {
        let (e, f) = (edge(i), edge((i + 1) % n));
        let turn = e.x * f.y - e.y * f.x;
        left |= turn > 0.0;
        right |= turn < 0.0;
        // A turn straight back along an edge has no cross product but reverses.
        spike |= turn == 0.0 && e.x * f.x + e.y * f.y < 0.0;
    }
    let flips = |component: fn(Coord<f64>) -> f64| {
        let signs: Vec<bool> = (0..n)
            .map(|i| component(edge(i)))
            .filter(|&v| v != 0.0)
            .map(|v| v > 0.0)
            .collect();
        (0..signs.len())
            .filter(|&i| signs[i] != signs[(i + 1) % signs.len()])
            .count()
    };
    left != right && !spike && flips(|c| c.x) <= 2 && flips(|c| c.y) <= 2
}

#[cfg(test)]
mod tests {
    use geo::{Area, BooleanOps};
    use geo_types::{polygon, MultiPolygon};
    use rand::{Rng, SeedableRng};

    use super::*;

    fn overlay_area(shape: &Geometry<f64>, fp: &MultiPolygon<f64>) -> f64 {
        match shape {
            Geometry::Polygon(p) => p.intersection(fp).unsigned_area(),
            Geometry::MultiPolygon(m) => m.intersection(fp).unsigned_area(),
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_square_half_over_a_watershed_edge_shares_half_its_area() {
        let watershed = Geometry::Polygon(polygon![
            (x: 0.0, y: 0.0), (x: 100.0, y: 0.0), (x: 100.0, y: 100.0), (x: 0.0, y: 100.0)
        ]);
        let parcel = MultiPolygon(vec![polygon![
            (x: 90.0, y: 10.0), (x: 110.0, y: 10.0), (x: 110.0, y: 30.0), (x: 90.0, y: 30.0)
        ]]);
        assert_eq!(overlap_area(&watershed, &parcel), Some(200.0));
        // Clockwise, the same.
        let clockwise = MultiPolygon(vec![polygon![
            (x: 90.0, y: 10.0), (x: 90.0, y: 30.0), (x: 110.0, y: 30.0), (x: 110.0, y: 10.0)
        ]]);
        assert_eq!(overlap_area(&watershed, &clockwise), Some(200.0));
    }

    #[test]
    fn a_hole_of_the_shape_is_not_shared() {
        let shape = Geometry::Polygon(polygon![
            exterior: [(x: 0.0, y: 0.0), (x: 100.0, y: 0.0), (x: 100.0, y: 100.0), (x: 0.0, y: 100.0)],
            interiors: [[(x: 40.0, y: 40.0), (x: 60.0, y: 40.0), (x: 60.0, y: 60.0), (x: 40.0, y: 60.0)]],
        ]);
        let parcel = MultiPolygon(vec![polygon![
            (x: 30.0, y: 30.0), (x: 70.0, y: 30.0), (x: 70.0, y: 70.0), (x: 30.0, y: 70.0)
        ]]);
        assert_eq!(overlap_area(&shape, &parcel), Some(1600.0 - 400.0));
    }

    #[rstest::rstest]
    #[case::an_l_shape(polygon![
        (x: 0.0, y: 0.0), (x: 20.0, y: 0.0), (x: 20.0, y: 10.0), (x: 10.0, y: 10.0),
        (x: 10.0, y: 20.0), (x: 0.0, y: 20.0)
    ])]
    #[case::a_star(polygon![
        (x: 0.0, y: 10.0), (x: 6.0, y: -8.0), (x: -9.5, y: 3.0), (x: 9.5, y: 3.0), (x: -6.0, y: -8.0)
    ])]
    #[case::a_line(polygon![(x: 0.0, y: 0.0), (x: 10.0, y: 0.0), (x: 20.0, y: 0.0)])]
    #[case::a_spike(polygon![
        (x: 0.0, y: 0.0), (x: 10.0, y: 0.0), (x: 10.0, y: 10.0), (x: 10.0, y: 20.0),
        (x: 10.0, y: 5.0), (x: 0.0, y: 10.0)
    ])]
    fn a_footprint_that_is_not_convex_is_left_to_the_overlay(#[case] fp: Polygon<f64>) {
        let shape = Geometry::Polygon(polygon![
            (x: -50.0, y: -50.0), (x: 50.0, y: -50.0), (x: 50.0, y: 50.0), (x: -50.0, y: 50.0)
        ]);
        assert_eq!(overlap_area(&shape, &MultiPolygon(vec![fp])), None);
    }

    #[test]
    fn a_footprint_of_two_parts_or_with_a_hole_is_left_to_the_overlay() {
        let shape = Geometry::Polygon(polygon![
            (x: 0.0, y: 0.0), (x: 100.0, y: 0.0), (x: 100.0, y: 100.0), (x: 0.0, y: 100.0)
        ]);
        let square = |x: f64| polygon![(x: x, y: 0.0), (x: x + 5.0, y: 0.0), (x: x + 5.0, y: 5.0), (x: x, y: 5.0)];
        assert_eq!(
            overlap_area(&shape, &MultiPolygon(vec![square(1.0), square(20.0)])),
            None
        );
        let holed = polygon![
            exterior: [(x: 0.0, y: 0.0), (x: 10.0, y: 0.0), (x: 10.0, y: 10.0), (x: 0.0, y: 10.0)],
            interiors: [[(x: 4.0, y: 4.0), (x: 6.0, y: 4.0), (x: 6.0, y: 6.0), (x: 4.0, y: 6.0)]],
        ];
        assert_eq!(overlap_area(&shape, &MultiPolygon(vec![holed])), None);
    }

    /// Random convex footprints (hulls of random points) in map coordinates against
    /// random star-shaped shapes with holes: the clip's area is the overlay's.
    #[test]
    fn the_clips_area_is_the_overlays_for_random_shapes() {
        use geo::ConvexHull;
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let (x0, y0) = (612_345.0, 4_567_890.0);
        let mut compared = 0;
        for _ in 0..500 {
            let pts: Vec<Coord<f64>> = (0..rng.gen_range(3..9))
                .map(|_| Coord {
                    x: x0 + rng.gen_range(-60.0..60.0),
                    y: y0 + rng.gen_range(-60.0..60.0),
                })
                .collect();
            let hull = geo_types::MultiPoint::from(pts).convex_hull();
            if hull.unsigned_area() < 1.0 {
                continue;
            }
            let star = |r0: f64, r1: f64, n: usize, rng: &mut rand::rngs::SmallRng| {
                let mut ring: Vec<Coord<f64>> = (0..n)
                    .map(|i| {
                        let a = i as f64 / n as f64 * std::f64::consts::TAU;
                        let r = rng.gen_range(r0..r1);
                        Coord {
                            x: x0 + r * a.cos(),
                            y: y0 + r * a.sin(),
                        }
                    })
                    .collect();
                ring.push(ring[0]);
                LineString(ring)
            };
            let hole = star(5.0, 15.0, 7, &mut rng);
            let shape = Geometry::Polygon(Polygon::new(star(30.0, 90.0, 23, &mut rng), vec![hole]));
            let fp = MultiPolygon(vec![hull]);
            let overlaid = overlay_area(&shape, &fp);
            let Some(clipped) = overlap_area(&shape, &fp) else {
                // Left to the overlay only where the footprint is (all but) in or out.
                let share = overlaid / fp.unsigned_area();
                assert!(
                    !(1e-5..=1.0 - 1e-5).contains(&share),
                    "a hull is convex: {share}"
                );
                continue;
            };
            compared += 1;
            assert!(
                (clipped - overlaid).abs() <= 1e-6 * overlaid.max(1.0),
                "clip {clipped} against overlay {overlaid}"
            );
        }
        assert!(
            compared > 100,
            "only {compared} footprints straddled the shape"
        );
    }

    #[test]
    fn a_footprint_touching_the_shape_or_all_inside_it_is_left_to_the_overlay() {
        let watershed = Geometry::Polygon(polygon![
            (x: 0.0, y: 0.0), (x: 100.0, y: 0.0), (x: 100.0, y: 100.0), (x: 0.0, y: 100.0)
        ]);
        let square = |x: f64, y: f64| {
            MultiPolygon(vec![polygon![
                (x: x, y: y), (x: x + 10.0, y: y), (x: x + 10.0, y: y + 10.0), (x: x, y: y + 10.0)
            ]])
        };
        // Sharing the edge x = 100 from outside, and from inside.
        assert_eq!(overlap_area(&watershed, &square(100.0, 40.0)), None);
        assert_eq!(overlap_area(&watershed, &square(90.0, 40.0)), None);
    }
}
