//! A layer's extent in CRS84, and the densified rectangles that reproject faithfully: a
//! projected rectangle's edges curve in longitude/latitude, so its corners alone would
//! give a box too small.

use geo_types::{Coord, Geometry, LineString, Polygon};

use crate::domain::Layer;
use crate::import::crs::cached_reprojector;
use crate::spatial::Snapshot;

/// A layer's extent in CRS84: its envelope in the registry CRS, with points along each
/// edge reprojected, since a projected rectangle's edges curve in longitude/latitude.
pub(super) fn extent_crs84(snap: &Snapshot, layer: Layer) -> Option<[f64; 4]> {
    let e = snap.layer(layer).extent()?;
    let ring = densified_rect(e, 8);
    let rp = cached_reprojector(snap.meta.srid, 4326).ok()?;
    let g = rp.apply(&Geometry::Polygon(ring)).ok()?;
    crate::domain::wkb::bounding_rect(&g).map(|r| [r.min().x, r.min().y, r.max().x, r.max().y])
}

/// A rectangle as a polygon with `n` points per edge, for reprojecting faithfully.
pub(super) fn densified_rect(b: [f64; 4], n: usize) -> Polygon<f64> {
    let [x0, y0, x1, y1] = b;
    let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)];
    let mut pts = Vec::with_capacity(4 * n + 1);
    for w in corners.windows(2) {
        let ((ax, ay), (bx, by)) = (w[0], w[1]);
        for i in 0..n {
            let t = i as f64 / n as f64;
            pts.push(Coord {
                x: ax + (bx - ax) * t,
                y: ay + (by - ay) * t,
            });
        }
    }
    pts.push(pts[0]);
    Polygon::new(LineString(pts), vec![])
}
