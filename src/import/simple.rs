//! A quick proof that a small polygon is valid, so most parcels need no GEOS call.
//!
//! Validating through GEOS copies every polygon into GEOS's own structures first, and on
//! a million parcels that copy and the check cost more than reading the file. Most
//! parcels are one ring of a handful of vertices whose validity takes a few dozen
//! orientation tests to see: a ring whose consecutive edges turn (never double back or go
//! straight on) and whose other edges lie strictly apart is simple, so the polygon is
//! valid. The test is one-sided: it answers "valid" only when every test is clear-cut,
//! with exact orientation predicates; a touch, a collinear edge, a repeated vertex, a
//! hole, a second part or a ring of more than [`MAX_EDGES`] edges goes to GEOS, which
//! decides (and names what is wrong).

use geo::kernels::{Kernel, Orientation, RobustKernel};
use geo_types::{Coord, Geometry, LineString};

/// The most edges a ring may have for the quick test (the pairs grow as the square).
pub(super) const MAX_EDGES: usize = 32;

/// Whether `g` is plainly a valid polygon: one part, one ring, simple (see the module
/// docs). `false` means "not shown here", not "invalid".
pub(super) fn plainly_valid(g: &Geometry<f64>) -> bool {
    let polygon = match g {
        Geometry::Polygon(p) => p,
        Geometry::MultiPolygon(m) if m.0.len() == 1 => &m.0[0],
        _ => return false,
    };
    polygon.interiors().is_empty() && plainly_simple_ring(polygon.exterior())
}

/// Whether a closed ring is simple by clear-cut tests only.
fn plainly_simple_ring(ring: &LineString<f64>) -> bool {
    let c = &ring.0;
    let n = c.len().saturating_sub(1); // edges
    if !(3..=MAX_EDGES).contains(&n) || c[0] != c[n] {
        return false;
    }
    // Consecutive edges turn at their shared vertex: no spike, no straight run, no
    // repeated vertex.
    for i in 0..n {
        let (a, b, d) = (c[i], c[i + 1], c[(i + 2) % n]);
        if a == b || RobustKernel::orient2d(a, b, d) == Orientation::Collinear {
            return false;
        }
    }
    // Edges that share no vertex lie strictly apart.
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue; // the closing edge meets the first at the first vertex
            }
            if !apart((c[i], c[i + 1]), (c[j], c[j + 1])) {
                return false;
            }
        }
    }
    true
}

/// Whether two segments are strictly separated: their boxes are apart, or one lies
/// wholly on one side of the other's line (no endpoint on it).
fn apart(p: (Coord<f64>, Coord<f64>), q: (Coord<f64>, Coord<f64>)) -> bool {
    let boxes_apart = p.0.x.max(p.1.x) < q.0.x.min(q.1.x)
        || q.0.x.max(q.1.x) < p.0.x.min(p.1.x)
        || p.0.y.max(p.1.y) < q.0.y.min(q.1.y)
        || q.0.y.max(q.1.y) < p.0.y.min(p.1.y);
    if boxes_apart {
        return true;
    }
    let one_side = |s: (Coord<f64>, Coord<f64>), t: (Coord<f64>, Coord<f64>)| {
        let a = RobustKernel::orient2d(s.0, s.1, t.0);
        let b = RobustKernel::orient2d(s.0, s.1, t.1);
        a == b && a != Orientation::Collinear
    };
    one_side(p, q) || one_side(q, p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;

    /// GEOS's judgement, through OGR, as the import asks for it.
    fn geos_valid(g: &Geometry<f64>) -> bool {
        gdal::vector::Geometry::from_wkb(&crate::domain::wkb::to_wkb(g))
            .unwrap()
            .is_valid()
    }

    #[test]
    fn plain_rings_pass_and_anything_doubtful_goes_to_geos() {
        let plain: Geometry<f64> = wkt!(POLYGON((0. 0.,10. 0.,10. 10.,0. 10.,0. 0.))).into();
        assert!(plainly_valid(&plain));
        let concave: Geometry<f64> =
            wkt!(MULTIPOLYGON(((0. 0.,10. 0.,10. 10.,5. 3.,0. 10.,0. 0.)))).into();
        assert!(plainly_valid(&concave), "a dent is still simple");
        for (what, g) in [
            (
                "bow-tie",
                wkt!(POLYGON((0. 0.,10. 10.,10. 0.,0. 10.,0. 0.))).into(),
            ),
            (
                "spike",
                wkt!(POLYGON((0. 0.,10. 0.,10. 10.,10. 20.,10. 10.,0. 10.,0. 0.))).into(),
            ),
            (
                "straight run",
                wkt!(POLYGON((0. 0.,5. 0.,10. 0.,10. 10.,0. 10.,0. 0.))).into(),
            ),
            (
                "repeated vertex",
                wkt!(POLYGON((0. 0.,10. 0.,10. 0.,10. 10.,0. 10.,0. 0.))).into(),
            ),
            (
                "touching itself",
                wkt!(POLYGON((0. 0.,10. 0.,5. 5.,10. 10.,0. 10.,5. 5.,0. 0.))).into(),
            ),
            (
                "a hole",
                wkt!(POLYGON((0. 0.,10. 0.,10. 10.,0. 10.,0. 0.),(2. 2.,3. 2.,3. 3.,2. 2.))).into(),
            ),
            (
                "two parts",
                wkt!(MULTIPOLYGON(((0. 0.,1. 0.,1. 1.,0. 0.)),((5. 5.,6. 5.,6. 6.,5. 5.)))).into(),
            ),
            ("flat", wkt!(POLYGON((0. 0.,10. 0.,20. 0.,0. 0.))).into()),
        ] {
            let g: Geometry<f64> = g;
            assert!(!plainly_valid(&g), "{what}");
            if what == "bow-tie" || what == "spike" || what == "touching itself" || what == "flat" {
                assert!(!geos_valid(&g), "{what} is invalid indeed");
            }
        }
    }

    #[test]
    fn whatever_passes_is_valid_to_geos_as_well() {
        // Pseudo-random small rings on a coarse grid (so touches and collinear edges are
        // common): every one the quick test passes, GEOS (through OGR) passes too.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 21) as f64
        };
        let mut passed = 0;
        for _ in 0..20_000 {
            let k = 3 + (next() as usize % 5);
            let mut pts: Vec<(f64, f64)> = (0..k).map(|_| (next(), next())).collect();
            pts.push(pts[0]);
            let g: Geometry<f64> = geo_types::Polygon::new(LineString::from(pts), vec![]).into();
            if plainly_valid(&g) {
                passed += 1;
                assert!(geos_valid(&g), "{g:?}");
            }
        }
        assert!(passed > 1000, "the test passes plain rings ({passed})");
    }
}
