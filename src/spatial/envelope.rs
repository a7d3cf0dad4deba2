//! Where a feature's envelope lies against a polygon: wholly inside, wholly outside, or
//! on an edge. Only the last needs exact geometry, and in a town nearly every parcel lies
//! well inside its watershed and nearly every feature of a box well inside the box.

use geo_types::{Coord, Geometry, Point, Polygon, Rect};

/// The box holding all of `boxes`; none when there are none.
pub fn extent_of(boxes: impl IntoIterator<Item = Rect<f64>>) -> Option<Rect<f64>> {
    let mut boxes = boxes.into_iter();
    let first = boxes.next()?;
    Some(boxes.fold(first, |a, b| {
        Rect::new(
            Coord {
                x: a.min().x.min(b.min().x),
                y: a.min().y.min(b.min().y),
            },
            Coord {
                x: a.max().x.max(b.max().x),
                y: a.max().y.max(b.max().y),
            },
        )
    }))
}

/// Where a rectangle lies against a polygon layer's shape: `Some(true)` wholly inside,
/// `Some(false)` wholly outside, `None` when a ring of the shape meets it. Answered by
/// clipping each ring segment to the rectangle and one point-in-polygon test, because a
/// general relate of a million parcels against their watersheds is most of a screen's
/// time, and nearly every parcel lies well inside one watershed.
pub fn rect_position(g: &Geometry<f64>, r: &Rect<f64>) -> Option<bool> {
    use geo::Contains;
    let polys: &[Polygon<f64>] = match g {
        Geometry::Polygon(p) => std::slice::from_ref(p),
        Geometry::MultiPolygon(m) => &m.0,
        _ => return None,
    };
    for p in polys {
        for ring in std::iter::once(p.exterior()).chain(p.interiors()) {
            if ring.lines().any(|l| segment_meets_rect(l.start, l.end, r)) {
                return None;
            }
        }
    }
    // No ring meets the rectangle: it is all inside one polygon or outside all of them,
    // and any corner tells which.
    let corner = Point::from(r.min());
    Some(polys.iter().any(|p| p.contains(&corner)))
}

/// Whether segment a–b meets the closed rectangle (Liang–Barsky clipping).
fn segment_meets_rect(a: Coord<f64>, b: Coord<f64>, r: &Rect<f64>) -> bool {
    let (lo, hi) = (r.min(), r.max());
    if a.x.max(b.x) < lo.x || a.x.min(b.x) > hi.x || a.y.max(b.y) < lo.y || a.y.min(b.y) > hi.y {
        return false;
    }
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, a.x - lo.x),
        (dx, hi.x - a.x),
        (-dy, a.y - lo.y),
        (dy, hi.y - a.y),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                if t > t1 {
                    return false;
                }
                t0 = t0.max(t);
            } else {
                if t < t0 {
                    return false;
                }
                t1 = t1.min(t);
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;

    #[test]
    fn rectangles_are_placed_inside_outside_or_across() {
        use geo_types::coord;
        let square: Geometry<f64> =
            wkt! { POLYGON((0. 0.,10. 0.,10. 10.,0. 10.,0. 0.),(4. 4.,6. 4.,6. 6.,4. 6.,4. 4.)) }
                .into();
        let rect = |x0: f64, y0: f64, x1: f64, y1: f64| {
            Rect::new(coord! {x: x0, y: y0}, coord! {x: x1, y: y1})
        };
        assert_eq!(rect_position(&square, &rect(1., 1., 2., 2.)), Some(true));
        assert_eq!(rect_position(&square, &rect(11., 1., 12., 2.)), Some(false));
        assert_eq!(
            rect_position(&square, &rect(4.5, 4.5, 5.5, 5.5)),
            Some(false),
            "inside the hole"
        );
        assert_eq!(
            rect_position(&square, &rect(9., 1., 11., 2.)),
            None,
            "across the edge"
        );
        assert_eq!(
            rect_position(&square, &rect(3., 3., 7., 7.)),
            None,
            "around the hole"
        );
        assert_eq!(
            rect_position(&square, &rect(10., 1., 11., 2.)),
            None,
            "touching counts as meeting"
        );
        assert_eq!(
            rect_position(&square, &rect(-1., -1., 11., 11.)),
            None,
            "around it all"
        );
    }
}
