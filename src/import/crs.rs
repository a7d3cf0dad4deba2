//! Coordinate reference systems, through GDAL's OSR (PROJ underneath).

use gdal::spatial_ref::{AxisMappingStrategy, CoordTransform, SpatialRef};

use super::error::{CrsError, CrsStep, ImportError, Result};
use crate::domain::LengthUnit;
use crate::store::RegistryMeta;

/// Parses `EPSG:<code>` (or a bare code) into the code.
pub fn parse_epsg(s: &str) -> Result<i32> {
    let t = s.trim();
    let code = t
        .strip_prefix("EPSG:")
        .or_else(|| t.strip_prefix("epsg:"))
        .unwrap_or(t);
    code.parse::<i32>().ok().filter(|c| *c > 0).ok_or_else(|| {
        CrsError::NotACode {
            given: s.to_string(),
        }
        .into()
    })
}

/// An SRS from an EPSG code, with longitude/easting first whatever the authority says.
pub fn srs_from_epsg(code: i32) -> Result<SpatialRef> {
    let mut srs = SpatialRef::from_epsg(code as u32).map_err(|source| ImportError::Gdal {
        doing: format!("EPSG:{code} is not known to PROJ"),
        source,
    })?;
    srs.set_axis_mapping_strategy(AxisMappingStrategy::TraditionalGisOrder);
    Ok(srs)
}

/// Describes the working CRS of a new registry. It must be projected: distances and areas
/// in answers are planar, in its linear unit.
pub fn registry_crs(code: i32) -> Result<(String, String, LengthUnit)> {
    let srs = srs_from_epsg(code)?;
    if !srs.is_projected() {
        return Err(CrsError::NotProjected { code }.into());
    }
    let factor = srs.linear_units();
    let unit = LengthUnit::from_metres_per_unit(factor).ok_or(CrsError::UnsupportedUnit {
        code,
        metres_per_unit: factor,
    })?;
    let wkt = srs.to_wkt().map_err(|source| CrsError::Gdal {
        step: CrsStep::ToWkt { code: Some(code) },
        source,
    })?;
    Ok((
        srs.name().unwrap_or_else(|| format!("EPSG:{code}")),
        wkt,
        unit,
    ))
}

/// The registry metadata for a jurisdiction and EPSG code.
pub fn registry_meta(jurisdiction: &str, code: i32) -> Result<RegistryMeta> {
    let (crs_name, crs_wkt, linear_unit) = registry_crs(code)?;
    Ok(RegistryMeta {
        jurisdiction: jurisdiction.to_string(),
        srid: code,
        crs_name,
        crs_wkt,
        linear_unit,
    })
}

/// A transform between two SRSs, both in traditional GIS axis order.
pub fn transform(from: &SpatialRef, to: &SpatialRef) -> Result<CoordTransform> {
    CoordTransform::new(from, to).map_err(|source| ImportError::Gdal {
        doing: "no transformation between the CRSs".into(),
        source,
    })
}

/// The share of its area of use a CRS's box is grown by on each side: positions just
/// across a zone's edge are still real (a town on a state line); tens of millions of
/// feet off are not.
const AREA_OF_USE_MARGIN: f64 = 0.1;

/// The area of use of a CRS (as PROJ's database records it, in degrees), as a box in the
/// CRS's own coordinates grown by [`AREA_OF_USE_MARGIN`]; `None` when PROJ knows none.
/// The edges are densified before projecting because a projected box's extremes often
/// lie between the corners.
pub fn area_of_use_rect(srs: &SpatialRef) -> Option<geo_types::Rect<f64>> {
    let a = srs.area_of_use()?;
    let (w, s, e, n) = (
        a.west_lon_degree,
        a.south_lat_degree,
        a.east_lon_degree,
        a.north_lat_degree,
    );
    // An area across the antimeridian (west > east) would need two boxes; skip the check.
    if !(w.is_finite() && s.is_finite() && e.is_finite() && n.is_finite()) || w > e || s > n {
        return None;
    }
    let wgs84 = srs_from_epsg(4326).ok()?;
    let ct = CoordTransform::new(&wgs84, srs).ok()?;
    const STEPS: usize = 32;
    let (mut min_x, mut min_y, mut max_x, mut max_y) = (f64::MAX, f64::MAX, f64::MIN, f64::MIN);
    for i in 0..=STEPS {
        for j in 0..=STEPS {
            // The edges and a grid inside: a polar or conic projection bulges.
            let lon = w + (e - w) * i as f64 / STEPS as f64;
            let lat = s + (n - s) * j as f64 / STEPS as f64;
            let (mut xs, mut ys, mut zs) = ([lon], [lat], [0.0]);
            if ct.transform_coords(&mut xs, &mut ys, &mut zs).is_ok()
                && xs[0].is_finite()
                && ys[0].is_finite()
            {
                min_x = min_x.min(xs[0]);
                min_y = min_y.min(ys[0]);
                max_x = max_x.max(xs[0]);
                max_y = max_y.max(ys[0]);
            }
        }
    }
    if min_x > max_x || min_y > max_y {
        return None;
    }
    let m = (max_x - min_x).max(max_y - min_y) * AREA_OF_USE_MARGIN;
    Some(geo_types::Rect::new(
        geo_types::coord! { x: min_x - m, y: min_y - m },
        geo_types::coord! { x: max_x + m, y: max_y + m },
    ))
}

/// A short human name for an SRS: `EPSG:2927 (NAD83(HARN) / Washington South (ftUS))`.
pub fn describe(srs: &SpatialRef) -> String {
    let name = srs.name().unwrap_or_else(|| "unnamed CRS".into());
    match (srs.auth_name(), srs.auth_code()) {
        (Some(a), Ok(c)) => format!("{a}:{c} ({name})"),
        _ => name,
    }
}

/// Reprojects `geo` geometries with one OSR transform, all coordinates of a geometry in
/// one PROJ call.
pub struct Reprojector {
    ct: CoordTransform,
}

impl Reprojector {
    /// From EPSG code to EPSG code.
    pub fn new(from: i32, to: i32) -> Result<Self> {
        Ok(Reprojector {
            ct: transform(&srs_from_epsg(from)?, &srs_from_epsg(to)?)?,
        })
    }

    /// The geometry in the target CRS.
    pub fn apply(&self, g: &geo_types::Geometry<f64>) -> Result<geo_types::Geometry<f64>> {
        Ok(self
            .apply_each(vec![g.clone()])?
            .pop()
            .expect("one geometry in, one out"))
    }

    /// Each geometry in the target CRS, reprojected in place, all their positions in one
    /// PROJ call (a call has a cost of its own: an answer naming ten points pays it once,
    /// not ten times).
    pub fn apply_each(
        &self,
        mut gs: Vec<geo_types::Geometry<f64>>,
    ) -> Result<Vec<geo_types::Geometry<f64>>> {
        use geo::{CoordsIter, MapCoordsInPlace};
        let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = gs
            .iter()
            .flat_map(|g| g.coords_iter())
            .map(|c| (c.x, c.y))
            .unzip();
        let mut zs = vec![0.0; xs.len()];
        self.ct
            .transform_coords(&mut xs, &mut ys, &mut zs)
            .map_err(|source| CrsError::Gdal {
                step: CrsStep::Coordinates,
                source,
            })?;
        // map_coords_in_place wants a Copy closure: count positions in a Cell.
        let i = std::cell::Cell::new(0usize);
        let (xs, ys, i) = (&xs, &ys, &i);
        for g in &mut gs {
            g.map_coords_in_place(move |_| {
                let k = i.get();
                i.set(k + 1);
                geo_types::coord! { x: xs[k], y: ys[k] }
            });
        }
        Ok(gs)
    }

    /// A single position in the target CRS.
    pub fn point(&self, x: f64, y: f64) -> Result<(f64, f64)> {
        let (mut xs, mut ys, mut zs) = ([x], [y], [0.0]);
        self.ct
            .transform_coords(&mut xs, &mut ys, &mut zs)
            .map_err(|source| CrsError::Gdal {
                step: CrsStep::Point { x, y },
                source,
            })?;
        Ok((xs[0], ys[0]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_plane_area_of_use_holds_the_town_and_not_a_point_far_away() {
        // NAD83 / New York East (ftUS): North Castle is at about (690000, 850000).
        let r = area_of_use_rect(&srs_from_epsg(2260).unwrap()).unwrap();
        let inside =
            |x: f64, y: f64| x >= r.min().x && x <= r.max().x && y >= r.min().y && y <= r.max().y;
        assert!(inside(690_000.0, 850_000.0), "{r:?}");
        assert!(!inside(690_000.0, 40_000_000.0), "{r:?}");
        assert!(!inside(1e308, 1e308));
    }
}

/// Transforms by (from, to) EPSG codes.
type TransformCache = Vec<((i32, i32), std::rc::Rc<Reprojector>)>;

thread_local! {
    // Transforms made on this thread, by (from, to). Creating one costs far more than
    // reprojecting a page of features, and GDAL transforms may not cross threads.
    static CACHED: std::cell::RefCell<TransformCache> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// This thread's transform from one EPSG code to another, made on first use.
pub fn cached_reprojector(from: i32, to: i32) -> Result<std::rc::Rc<Reprojector>> {
    CACHED.with(|c| {
        if let Some((_, r)) = c.borrow().iter().find(|(k, _)| *k == (from, to)) {
            return Ok(r.clone());
        }
        let r = std::rc::Rc::new(Reprojector::new(from, to)?);
        c.borrow_mut().push(((from, to), r.clone()));
        Ok(r)
    })
}
