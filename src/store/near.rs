//! Whether a geometry read back from a file is the stored one, at the precision the file
//! keeps. An export and its re-import are not bit for bit: GeoJSON keeps ten decimals of
//! a degree and goes through WGS 84 and back, a CSV's WKT keeps fifteen significant
//! digits, and a shapefile writes outer rings clockwise. None of that is an edit, so a
//! re-import of ms4's own export must not count it as one.
//!
//! Two coordinates are the same when they differ by no more than the source's tolerance
//! plus twelve significant digits of their size ([`super::write::FLOAT_RELATIVE_TOLERANCE`],
//! as numbers compare). A ring is the same ring whichever vertex it starts at and
//! whichever way it runs; a line keeps its direction (a pipe's is its flow). A one-part
//! multi-geometry is its part.

use geo_types::{Coord, Geometry, LineString, Polygon};

use super::write::FLOAT_RELATIVE_TOLERANCE;

/// Whether `a` and `b` are the same geometry within `tolerance` (in their unit).
pub(crate) fn near_geometry(a: &Geometry<f64>, b: &Geometry<f64>, tolerance: f64) -> bool {
    use Geometry as G;
    let close = |p: Coord<f64>, q: Coord<f64>| near_coord(p, q, tolerance);
    match (&single(a), &single(b)) {
        (G::Point(p), G::Point(q)) => close(p.0, q.0),
        (G::LineString(l), G::LineString(m)) => near_line(l, m, tolerance),
        (G::Polygon(p), G::Polygon(q)) => near_polygon(p, q, tolerance),
        (G::MultiPoint(p), G::MultiPoint(q)) => {
            p.0.len() == q.0.len() && p.0.iter().zip(&q.0).all(|(x, y)| close(x.0, y.0))
        }
        (G::MultiLineString(l), G::MultiLineString(m)) => {
            l.0.len() == m.0.len()
                && l.0
                    .iter()
                    .zip(&m.0)
                    .all(|(x, y)| near_line(x, y, tolerance))
        }
        (G::MultiPolygon(p), G::MultiPolygon(q)) => {
            p.0.len() == q.0.len()
                && p.0
                    .iter()
                    .zip(&q.0)
                    .all(|(x, y)| near_polygon(x, y, tolerance))
        }
        // Anything else (a collection) only as it is stored.
        (x, y) => crate::domain::wkb::to_wkb(x) == crate::domain::wkb::to_wkb(y),
    }
}

/// A one-part multi-geometry as its part (a format may write either).
fn single(g: &Geometry<f64>) -> Geometry<f64> {
    use Geometry as G;
    match g {
        G::MultiPoint(m) if m.0.len() == 1 => G::Point(m.0[0]),
        G::MultiLineString(m) if m.0.len() == 1 => G::LineString(m.0[0].clone()),
        G::MultiPolygon(m) if m.0.len() == 1 => G::Polygon(m.0[0].clone()),
        other => other.clone(),
    }
}

fn near_coord(p: Coord<f64>, q: Coord<f64>, tolerance: f64) -> bool {
    let near = |a: f64, b: f64| {
        a == b || (a - b).abs() <= tolerance + FLOAT_RELATIVE_TOLERANCE * a.abs().max(b.abs())
    };
    near(p.x, q.x) && near(p.y, q.y)
}

/// Lines vertex by vertex, in their direction.
fn near_line(l: &LineString<f64>, m: &LineString<f64>, tolerance: f64) -> bool {
    l.0.len() == m.0.len()
        && l.0
            .iter()
            .zip(&m.0)
            .all(|(p, q)| near_coord(*p, *q, tolerance))
}

/// The outer rings, and the holes each matched with one of the other's (a format may
/// list them in another order).
fn near_polygon(p: &Polygon<f64>, q: &Polygon<f64>, tolerance: f64) -> bool {
    if p.interiors().len() != q.interiors().len()
        || !near_ring(p.exterior(), q.exterior(), tolerance)
    {
        return false;
    }
    let mut free: Vec<&LineString<f64>> = q.interiors().iter().collect();
    p.interiors().iter().all(
        |hole| match free.iter().position(|h| near_ring(hole, h, tolerance)) {
            Some(i) => {
                free.swap_remove(i);
                true
            }
            None => false,
        },
    )
}

/// Closed rings, whichever vertex each starts at and whichever way it runs.
fn near_ring(r: &LineString<f64>, s: &LineString<f64>, tolerance: f64) -> bool {
    let (a, b) = (open_ring(r), open_ring(s));
    if a.len() != b.len() {
        return false;
    }
    let n = a.len();
    if n == 0 {
        return true;
    }
    let close = |p: Coord<f64>, q: Coord<f64>| near_coord(p, q, tolerance);
    (0..n).filter(|&k| close(a[0], b[k])).any(|k| {
        let forward = (0..n).all(|i| close(a[i], b[(k + i) % n]));
        forward || (0..n).all(|i| close(a[i], b[(k + n - i) % n]))
    })
}

/// A ring's vertices without the closing repeat of the first.
fn open_ring(r: &LineString<f64>) -> &[Coord<f64>] {
    match r.0.as_slice() {
        [first @ .., last] if !first.is_empty() && first[0] == *last => first,
        all => all,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::wkt;

    #[test]
    fn a_ring_starting_elsewhere_or_running_the_other_way_is_the_same_ring() {
        let a: Geometry<f64> = wkt!(MULTIPOLYGON(((0. 0.,10. 0.,10. 10.,0. 10.,0. 0.)))).into();
        let turned: Geometry<f64> = wkt!(POLYGON((10. 10.,0. 10.,0. 0.,10. 0.,10. 10.))).into();
        let reversed: Geometry<f64> = wkt!(POLYGON((0. 0.,0. 10.,10. 10.,10. 0.,0. 0.))).into();
        let moved: Geometry<f64> = wkt!(POLYGON((0. 0.,0. 10.,10. 10.,10. 0.1,0. 0.))).into();
        assert!(near_geometry(&a, &turned, 0.0));
        assert!(near_geometry(&a, &reversed, 0.0));
        assert!(!near_geometry(&a, &moved, 0.001), "a vertex moved");
        let bow: Geometry<f64> = wkt!(POLYGON((0. 0.,10. 10.,10. 0.,0. 10.,0. 0.))).into();
        assert!(
            !near_geometry(&a, &bow, 0.0),
            "the same vertices in another order"
        );
    }

    #[test]
    fn positions_compare_within_the_tolerance_and_twelve_digits() {
        let p = |x: f64, y: f64| Geometry::Point(geo_types::Point::new(x, y));
        let stored = p(1132001.1332801431, 703277.9006480575);
        // A CSV's fifteen digits, GeoJSON's ten decimals of a degree through WGS 84.
        assert!(near_geometry(
            &stored,
            &p(1132001.13328014, 703277.900648057),
            0.0
        ));
        assert!(near_geometry(
            &stored,
            &p(1132001.1332718383, 703277.900636183),
            3.6e-5
        ));
        assert!(!near_geometry(
            &stored,
            &p(1132001.1342, 703277.9006),
            3.6e-5
        ));
        let line: Geometry<f64> = wkt!(LINESTRING(0. 0.,5. 5.)).into();
        let back: Geometry<f64> = wkt!(LINESTRING(5. 5.,0. 0.)).into();
        assert!(
            !near_geometry(&line, &back, 0.0),
            "a line keeps its direction"
        );
    }
}
