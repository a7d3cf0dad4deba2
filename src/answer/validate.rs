//! Where a question may be asked: inside the registry CRS's area of use.
//!
//! A projected CRS is made for one region (a State Plane zone covers part of a state);
//! outside it the projection's numbers stop meaning distances, and far outside they
//! overflow. So a point or footprint outside the area of use (a nearby point at 1e308 or
//! at 0,0, a world-sized footprint) is refused with an error naming the parameter, and a
//! search box is clipped to the area before it is reprojected (a CRS84 box of the whole
//! world then finds every feature the registry holds). The area is EPSG's, widened by
//! [`MARGIN_DEGREES`] so a question asked just across a zone's edge still gets answered.

use std::collections::HashMap;
use std::sync::Mutex;

use geo::{Area, BoundingRect};
use geo_types::{Coord, MultiPolygon, Point, Rect};

use super::AskError;

/// How far past EPSG's area of use questions are still answered, in degrees.
pub const MARGIN_DEGREES: f64 = 1.0;

/// The area of use of a CRS and its bounds in that CRS.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AreaOfUse {
    /// West, south, east, north in WGS 84 degrees (with the margin).
    pub lon_lat: [f64; 4],
    /// The same area's bounding box in the CRS's own coordinates.
    pub projected: [f64; 4],
}

/// The area of use of `srid`, cached: GDAL reads it from PROJ's database.
pub fn area_of_use(srid: i32) -> Result<AreaOfUse, AskError> {
    static CACHE: Mutex<Option<HashMap<i32, AreaOfUse>>> = Mutex::new(None);
    if let Some(a) = CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .get(&srid)
    {
        return Ok(*a);
    }
    let a = compute(srid).map_err(AskError::Other)?;
    CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get_or_insert_with(HashMap::new)
        .insert(srid, a);
    Ok(a)
}

fn compute(srid: i32) -> anyhow::Result<AreaOfUse> {
    let srs = crate::import::crs::srs_from_epsg(srid)?;
    let a = srs
        .area_of_use()
        .ok_or_else(|| anyhow::anyhow!("EPSG:{srid} has no area of use"))?;
    let m = MARGIN_DEGREES;
    let lon_lat = [
        (a.west_lon_degree - m).max(-180.0),
        (a.south_lat_degree - m).max(-90.0),
        (a.east_lon_degree + m).min(180.0),
        (a.north_lat_degree + m).min(90.0),
    ];
    if srid == 4326 {
        return Ok(AreaOfUse {
            lon_lat,
            projected: lon_lat,
        });
    }
    // The box's edges curve once projected: reproject points along each edge.
    let rp = crate::import::crs::cached_reprojector(4326, srid)?;
    let [w, s, e, n] = lon_lat;
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    const STEPS: usize = 16;
    for i in 0..=STEPS {
        let t = i as f64 / STEPS as f64;
        let (lon, lat) = (w + (e - w) * t, s + (n - s) * t);
        for (x, y) in [(lon, s), (lon, n), (w, lat), (e, lat)] {
            if let Ok((px, py)) = rp.point(x, y) {
                if px.is_finite() && py.is_finite() {
                    lo = [lo[0].min(px), lo[1].min(py)];
                    hi = [hi[0].max(px), hi[1].max(py)];
                }
            }
        }
    }
    if !(lo[0] < hi[0] && lo[1] < hi[1]) {
        anyhow::bail!("EPSG:{srid}: its area of use does not project");
    }
    Ok(AreaOfUse {
        lon_lat,
        projected: [lo[0], lo[1], hi[0], hi[1]],
    })
}

fn inside(b: [f64; 4], x: f64, y: f64) -> bool {
    x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3]
}

fn say(b: [f64; 4]) -> String {
    let r = |v: f64| (v * 1000.0).round() / 1000.0;
    format!("{},{} to {},{}", r(b[0]), r(b[1]), r(b[2]), r(b[3]))
}

/// Refuses a point in the registry's CRS outside its area of use; `param` names it.
pub fn position(param: &'static str, srid: i32, at: Point<f64>) -> Result<(), AskError> {
    let a = area_of_use(srid)?;
    if at.x().is_finite() && at.y().is_finite() && inside(a.projected, at.x(), at.y()) {
        return Ok(());
    }
    Err(AskError::invalid(
        param,
        format!(
            "({}, {}) in EPSG:{srid} is outside the area the registry's CRS is made for ({} in EPSG:{srid}; {} in longitude/latitude)",
            at.x(),
            at.y(),
            say(a.projected),
            say(a.lon_lat)
        ),
    ))
}

/// Refuses a footprint (in the registry's CRS) that is empty, encloses no area (one
/// point, a line drawn twice) or reaches outside the CRS's area of use.
pub fn footprint(param: &'static str, srid: i32, mp: &MultiPolygon<f64>) -> Result<(), AskError> {
    let Some(r) = mp.bounding_rect() else {
        return Err(AskError::invalid(param, "is empty: draw a polygon"));
    };
    let finite = [r.min().x, r.min().y, r.max().x, r.max().y]
        .iter()
        .all(|v| v.is_finite());
    // `partial_cmp`, not `<=`: a NaN area is no area either.
    if !finite || mp.unsigned_area().partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return Err(AskError::invalid(
            param,
            "encloses no area (one point, or all points on a line): draw a polygon",
        ));
    }
    let a = area_of_use(srid)?;
    let p = a.projected;
    if r.min().x < p[0] || r.min().y < p[1] || r.max().x > p[2] || r.max().y > p[3] {
        return Err(AskError::invalid(
            param,
            format!(
                "reaches outside the area the registry's CRS is made for ({} in longitude/latitude): draw it inside the jurisdiction",
                say(a.lon_lat)
            ),
        ));
    }
    Ok(())
}

/// Refuses a CRS a footprint may not be given in: one neither geographic nor projected
/// (EPSG:4978 is geocentric X, Y, Z: its two first numbers are no place on a map).
pub fn footprint_crs(param: &'static str, code: i32) -> Result<(), AskError> {
    let srs = crate::import::crs::srs_from_epsg(code)
        .map_err(|e| AskError::invalid(param, format!("its crs EPSG:{code}: {e}")))?;
    if srs.is_geographic() || srs.is_projected() {
        Ok(())
    } else {
        Err(AskError::invalid(
            param,
            format!("its crs EPSG:{code} is neither geographic nor projected; give longitude/latitude (no crs member) or a projected CRS"),
        ))
    }
}

/// A box `[minx, miny, maxx, maxy]` in `crs` (4326 for CRS84, or the registry's `srid`)
/// clipped to the registry CRS's area of use, or `None` when nothing of it is inside.
pub fn clip_box(b: [f64; 4], crs: i32, srid: i32) -> Result<Option<[f64; 4]>, AskError> {
    let a = area_of_use(srid)?;
    let area = if crs == srid { a.projected } else { a.lon_lat };
    let c = [
        b[0].max(area[0]),
        b[1].max(area[1]),
        b[2].min(area[2]),
        b[3].min(area[3]),
    ];
    Ok((c[0] <= c[2] && c[1] <= c[3]).then_some(c))
}

/// A rectangle of `[minx, miny, maxx, maxy]`.
pub fn rect(b: [f64; 4]) -> Rect<f64> {
    Rect::new(Coord { x: b[0], y: b[1] }, Coord { x: b[2], y: b[3] })
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::{polygon, MultiPolygon};

    // EPSG:2260: NAD83 / New York East (ftUS), the demo town's CRS.
    const NY_EAST: i32 = 2260;

    #[test]
    fn points_outside_the_crs_area_are_refused_by_name() {
        let rp = crate::import::crs::Reprojector::new(4326, NY_EAST).unwrap();
        let (x, y) = rp.point(-73.85, 41.22).unwrap();
        assert!(position("lon/lat", NY_EAST, Point::new(x, y)).is_ok());
        for (x, y) in [(0.0, 0.0), (1e308, 1e308), (f64::NAN, 1.0)] {
            let e = position("x/y", NY_EAST, Point::new(x, y)).unwrap_err();
            assert!(e.to_string().starts_with("x/y: "), "{e}");
        }
    }

    #[test]
    fn empty_degenerate_and_huge_footprints_are_refused() {
        let rp = crate::import::crs::Reprojector::new(4326, NY_EAST).unwrap();
        let (x, y) = rp.point(-73.85, 41.22).unwrap();
        let square = |d: f64| {
            MultiPolygon(vec![
                polygon![(x: x, y: y), (x: x + d, y: y), (x: x + d, y: y + d), (x: x, y: y + d), (x: x, y: y)],
            ])
        };
        assert!(footprint("footprint", NY_EAST, &square(100.0)).is_ok());
        assert!(footprint("footprint", NY_EAST, &square(0.0)).is_err());
        assert!(footprint("footprint", NY_EAST, &MultiPolygon(vec![])).is_err());
        let e = footprint("footprint", NY_EAST, &square(1e9)).unwrap_err();
        assert!(e.to_string().contains("outside the area"), "{e}");
        assert!(footprint_crs("footprint", 4978).is_err());
        assert!(footprint_crs("footprint", 4326).is_ok());
    }

    #[test]
    fn boxes_are_clipped_to_the_area_of_use() {
        let world = clip_box([-180.0, -90.0, 180.0, 90.0], 4326, NY_EAST)
            .unwrap()
            .unwrap();
        assert!(world[0] > -80.0 && world[2] < -70.0, "{world:?}");
        assert_eq!(
            clip_box([10.0, 10.0, 20.0, 20.0], 4326, NY_EAST).unwrap(),
            None
        );
    }
}
