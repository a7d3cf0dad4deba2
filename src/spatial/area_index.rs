//! An area with an R-tree of its boundary's edges, to tell cheaply where a box lies: wholly
//! inside, wholly outside or across the boundary.
//!
//! Why: the county's 70,849 sewersheds were each clipped to the town and to every
//! watershed whose box they met, and each clip walked the whole boundary (thousands of
//! vertices) for a sewershed that, nine times in ten, lies wholly inside. A box no edge of
//! the boundary meets lies in one face of it, so one point decides; only a box across the
//! boundary needs the clip.

use geo::{BooleanOps, BoundingRect, Contains, Intersects};
use geo_types::{Coord, Line, LineString, MultiPolygon, Polygon, Rect};
use rstar::primitives::Line as Edge;
use rstar::{RTree, AABB};

/// Where a box lies against an area.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BoxPlace {
    /// Every point of the box is in the area (or on its boundary).
    Inside,
    /// No point of the box is in the area's interior.
    Outside,
    /// The boundary meets the box: only a clip can tell.
    Across,
}

/// An area and its boundary's edges, indexed.
pub struct IndexedArea {
    area: MultiPolygon<f64>,
    edges: RTree<Edge<[f64; 2]>>,
    bounds: Option<Rect<f64>>,
    /// Whether the area is its box (one ring, the box's four corners): then a cut to the
    /// box is the part inside, with no overlay.
    is_box: bool,
}

impl IndexedArea {
    /// Indexes the edges of every ring of `area`.
    pub fn new(area: MultiPolygon<f64>) -> Self {
        let edges = area
            .0
            .iter()
            .flat_map(|p| std::iter::once(p.exterior()).chain(p.interiors()))
            .flat_map(|r| r.lines())
            .map(|l| Edge::new([l.start.x, l.start.y], [l.end.x, l.end.y]))
            .collect();
        let bounds = area.bounding_rect();
        IndexedArea {
            is_box: bounds.is_some_and(|b| is_the_box(&area, &b)),
            bounds,
            edges: RTree::bulk_load(edges),
            area,
        }
    }

    /// The area itself.
    pub fn area(&self) -> &MultiPolygon<f64> {
        &self.area
    }

    /// The area, the index dropped.
    pub fn into_area(self) -> MultiPolygon<f64> {
        self.area
    }

    /// Where `r` lies. A box touched by an edge at all is `Across` (the clip decides what
    /// only touches), so `Inside` and `Outside` are never wrong.
    pub fn place(&self, r: &Rect<f64>) -> BoxPlace {
        let Some(b) = self.bounds else {
            return BoxPlace::Outside;
        };
        let apart = r.max().x < b.min().x
            || b.max().x < r.min().x
            || r.max().y < b.min().y
            || b.max().y < r.min().y;
        if apart {
            return BoxPlace::Outside;
        }
        let env = AABB::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]);
        let crossed = self
            .edges
            .locate_in_envelope_intersecting(&env)
            .any(|e| Line::new(coord(e.from), coord(e.to)).intersects(r));
        if crossed {
            BoxPlace::Across
        } else if self.area.contains(&r.center()) {
            // No edge meets the box, so the whole box lies in the face its centre is in.
            BoxPlace::Inside
        } else {
            BoxPlace::Outside
        }
    }

    /// `m`'s part in the area: `m` itself when its box is inside, nothing when outside,
    /// else the clip.
    pub fn clip(&self, m: &MultiPolygon<f64>) -> MultiPolygon<f64> {
        match m.bounding_rect().map(|r| self.place(&r)) {
            Some(BoxPlace::Inside) => m.clone(),
            Some(BoxPlace::Outside) | None => MultiPolygon::new(Vec::new()),
            Some(BoxPlace::Across) => self.across(m),
        }
    }

    /// The part in the area of `m`, whose box the boundary crosses: cut to the area's
    /// box first (linear in `m`'s vertices), so the overlay sees only what lies near the
    /// area. (A county's trunk sewershed, 187,000 vertices, met a hundred watersheds,
    /// each a few thousand feet wide.)
    pub fn across(&self, m: &MultiPolygon<f64>) -> MultiPolygon<f64> {
        let Some(b) = self.bounds else {
            return MultiPolygon::new(Vec::new());
        };
        let near = cut_to_box(m, &b);
        if near.0.is_empty() {
            return near;
        }
        near.intersection(&self.area)
    }

    /// The part in the area of `m` ([`IndexedArea::across`]), fit for a union that
    /// follows it and not for drawing: when the area is its box (a grid's watershed, a
    /// rectangular town), the cut to that box, whose strips of no area the union drops;
    /// else the clip.
    pub fn across_for_union(&self, m: &MultiPolygon<f64>) -> MultiPolygon<f64> {
        match self.bounds {
            Some(b) if self.is_box => cut_to_box(m, &b),
            _ => self.across(m),
        }
    }
}

/// Whether `area` is the box `b`: one polygon without holes whose ring holds only `b`'s
/// corners.
fn is_the_box(area: &MultiPolygon<f64>, b: &Rect<f64>) -> bool {
    let [p] = area.0.as_slice() else {
        return false;
    };
    let corner = |c: &Coord<f64>| {
        (c.x == b.min().x || c.x == b.max().x) && (c.y == b.min().y || c.y == b.max().y)
    };
    use geo::Area;
    let box_area = b.width() * b.height();
    p.interiors().is_empty()
        && p.exterior().0.iter().all(corner)
        && box_area > 0.0
        && (p.unsigned_area() - box_area).abs() <= box_area * 1e-12
}

/// Each ring of `m` cut to the box (Sutherland and Hodgman: against each side in turn).
/// A ring that leaves the box and comes back may run out and back along a side, a
/// strip of no area; the overlay that follows drops it. Winding and area inside the box
/// are kept, so the polygons are fit for that overlay, not for drawing.
pub fn cut_to_box(m: &MultiPolygon<f64>, b: &Rect<f64>) -> MultiPolygon<f64> {
    let (lo, hi) = (b.min(), b.max());
    let cut = |ring: &LineString<f64>| -> Option<LineString<f64>> {
        let mut pts: Vec<Coord<f64>> = ring.0.clone();
        if pts.first() == pts.last() {
            pts.pop();
        }
        let sides = [
            Side::AtLeastX(lo.x),
            Side::AtMostX(hi.x),
            Side::AtLeastY(lo.y),
            Side::AtMostY(hi.y),
        ];
        for side in sides {
            let (inside, meet) = (|c| side.keeps(c), |a, b| side.meet(a, b));
            if pts.is_empty() {
                break;
            }
            if pts.iter().all(|c| inside(*c)) {
                continue;
            }
            let mut out = Vec::with_capacity(pts.len());
            let mut prev = *pts.last().expect("not empty");
            for &cur in &pts {
                match (inside(prev), inside(cur)) {
                    (true, true) => out.push(cur),
                    (true, false) => out.push(meet(prev, cur)),
                    (false, true) => {
                        out.push(meet(prev, cur));
                        out.push(cur);
                    }
                    (false, false) => {}
                }
                prev = cur;
            }
            pts = out;
        }
        (pts.len() >= 3).then(|| LineString::from(pts))
    };
    MultiPolygon::new(
        m.0.iter()
            .filter_map(|p| {
                let ext = cut(p.exterior())?;
                Some(Polygon::new(
                    ext,
                    p.interiors().iter().filter_map(&cut).collect(),
                ))
            })
            .collect(),
    )
}

/// One side of a box, as the half-plane it keeps.
#[derive(Clone, Copy)]
enum Side {
    AtLeastX(f64),
    AtMostX(f64),
    AtLeastY(f64),
    AtMostY(f64),
}

impl Side {
    fn keeps(self, c: Coord<f64>) -> bool {
        match self {
            Side::AtLeastX(x) => c.x >= x,
            Side::AtMostX(x) => c.x <= x,
            Side::AtLeastY(y) => c.y >= y,
            Side::AtMostY(y) => c.y <= y,
        }
    }

    /// Where the segment a→b, one end kept and one not, crosses the side's line.
    fn meet(self, a: Coord<f64>, b: Coord<f64>) -> Coord<f64> {
        match self {
            Side::AtLeastX(x) | Side::AtMostX(x) => {
                let t = (x - a.x) / (b.x - a.x);
                Coord {
                    x,
                    y: a.y + t * (b.y - a.y),
                }
            }
            Side::AtLeastY(y) | Side::AtMostY(y) => {
                let t = (y - a.y) / (b.y - a.y);
                Coord {
                    x: a.x + t * (b.x - a.x),
                    y,
                }
            }
        }
    }
}

fn coord(p: [f64; 2]) -> Coord<f64> {
    Coord { x: p[0], y: p[1] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::Area;
    use geo_types::{coord, polygon};
    use rstest::rstest;

    /// A 100 x 100 square with a 20 x 20 hole at (40, 40).
    fn square_with_hole() -> IndexedArea {
        let p = polygon!(
            exterior: [(x: 0., y: 0.), (x: 100., y: 0.), (x: 100., y: 100.), (x: 0., y: 100.), (x: 0., y: 0.)],
            interiors: [[(x: 40., y: 40.), (x: 60., y: 40.), (x: 60., y: 60.), (x: 40., y: 60.), (x: 40., y: 40.)]],
        );
        IndexedArea::new(MultiPolygon::new(vec![p]))
    }

    #[rstest]
    #[case::well_inside((10., 10.), (20., 20.), BoxPlace::Inside)]
    #[case::inside_beside_the_hole((62., 10.), (90., 90.), BoxPlace::Inside)]
    #[case::in_the_hole((45., 45.), (55., 55.), BoxPlace::Outside)]
    #[case::round_the_hole((30., 30.), (70., 70.), BoxPlace::Across)]
    #[case::across_the_edge((90., 10.), (110., 20.), BoxPlace::Across)]
    #[case::touching_the_edge((100., 10.), (110., 20.), BoxPlace::Across)]
    #[case::beside_it((120., 10.), (130., 20.), BoxPlace::Outside)]
    #[case::round_all_of_it((-10., -10.), (110., 110.), BoxPlace::Across)]
    fn a_box_is_placed_by_the_edges_it_meets(
        #[case] lo: (f64, f64),
        #[case] hi: (f64, f64),
        #[case] want: BoxPlace,
    ) {
        let r = Rect::new(coord! { x: lo.0, y: lo.1 }, coord! { x: hi.0, y: hi.1 });
        assert_eq!(square_with_hole().place(&r), want);
    }

    #[test]
    fn a_polygon_across_the_boundary_is_cut_as_the_overlay_cuts_it() {
        // A comb: its teeth run out of the area's box and back, and a hole straddles
        // the box's side.
        let comb = polygon!(
            exterior: [(x: -50., y: 10.), (x: 150., y: 10.), (x: 150., y: 30.), (x: 120., y: 30.),
                (x: 120., y: 90.), (x: 110., y: 90.), (x: 110., y: 30.), (x: 90., y: 30.),
                (x: 90., y: 130.), (x: 80., y: 130.), (x: 80., y: 30.), (x: -50., y: 30.), (x: -50., y: 10.)],
            interiors: [[(x: 95., y: 15.), (x: 105., y: 15.), (x: 105., y: 25.), (x: 95., y: 25.), (x: 95., y: 15.)]],
        );
        let m = MultiPolygon::new(vec![comb]);
        let area = square_with_hole();
        let want = m.intersection(area.area());
        let got = area.across(&m);
        approx::assert_relative_eq!(got.unsigned_area(), want.unsigned_area(), epsilon = 1e-9);
        approx::assert_relative_eq!(
            got.unsigned_area(),
            100. * 20. - 5. * 10. + 10. * 70.,
            epsilon = 1e-9
        );
        assert!(area
            .across(&MultiPolygon::new(vec![polygon!(
                (x: 200., y: 200.), (x: 300., y: 200.), (x: 300., y: 300.), (x: 200., y: 200.)
            )]))
            .0
            .is_empty());
    }

    /// The comb of the test above, with no hole.
    fn comb() -> MultiPolygon<f64> {
        MultiPolygon::new(vec![polygon!(
            (x: -50., y: 10.), (x: 150., y: 10.), (x: 150., y: 30.), (x: 120., y: 30.),
            (x: 120., y: 90.), (x: 110., y: 90.), (x: 110., y: 30.), (x: 90., y: 30.),
            (x: 90., y: 130.), (x: 80., y: 130.), (x: 80., y: 30.), (x: -50., y: 30.), (x: -50., y: 10.)
        )])
    }

    #[rstest]
    #[case::a_box(polygon!((x: 0., y: 0.), (x: 100., y: 0.), (x: 100., y: 100.), (x: 0., y: 100.), (x: 0., y: 0.)), true)]
    #[case::a_box_wound_clockwise(polygon!((x: 0., y: 0.), (x: 0., y: 100.), (x: 100., y: 100.), (x: 100., y: 0.), (x: 0., y: 0.)), true)]
    #[case::its_corners_crossed(polygon!((x: 0., y: 0.), (x: 100., y: 100.), (x: 100., y: 0.), (x: 0., y: 100.), (x: 0., y: 0.)), false)]
    #[case::a_triangle(polygon!((x: 0., y: 0.), (x: 100., y: 0.), (x: 100., y: 100.), (x: 0., y: 0.)), false)]
    #[case::a_box_with_an_extra_vertex(polygon!((x: 0., y: 0.), (x: 50., y: 0.), (x: 100., y: 0.), (x: 100., y: 100.), (x: 0., y: 100.), (x: 0., y: 0.)), false)]
    fn a_cut_stands_for_the_clip_only_where_the_area_is_its_box(
        #[case] area: Polygon<f64>,
        #[case] is_box: bool,
    ) {
        let a = IndexedArea::new(MultiPolygon::new(vec![area]));
        assert_eq!(a.is_box, is_box);
        let want = comb().intersection(a.area()).unsigned_area();
        let got = a.across_for_union(&comb());
        approx::assert_relative_eq!(got.unsigned_area(), want, epsilon = 1e-9);
        // Unioned, the cut is the clip (the strips of no area the cut leaves are gone).
        let unioned = geo::unary_union(got.0.iter());
        let apart = unioned
            .difference(&comb().intersection(a.area()))
            .unsigned_area()
            + comb()
                .intersection(a.area())
                .difference(&unioned)
                .unsigned_area();
        assert!(apart < 1e-9, "{apart}");
    }
}
