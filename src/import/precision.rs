//! What a source's format keeps of a position, so that a re-import compares positions at
//! that precision instead of bit for bit (the writer's `store::near` decides).
//!
//! Every position is compared within twelve significant digits, as numbers are: a CSV's
//! WKT keeps fifteen, and a format of doubles keeps every bit. A source in degrees is
//! also allowed a unit of the tenth decimal of a degree: what ms4's GeoJSON export keeps
//! (RFC 7946 wants WGS 84), about 0.01 mm, far inside the 0.001-unit precision the
//! registry promises, and too little for any surveyed change to hide in.

use gdal::spatial_ref::SpatialRef;

/// A unit of the tenth decimal of a degree, in metres, anywhere on Earth (a degree of
/// latitude is at most 111.7 km, one of longitude no more), rounded up.
const TENTH_DECIMAL_OF_A_DEGREE_M: f64 = 1.12e-5;

/// The tolerance, in the registry's unit (`unit_metres` metres each), beyond twelve
/// significant digits, within which a position read from a source in the CRS of
/// `source_wkt` is the stored position: none beyond them for a projected source.
pub(super) fn geometry_tolerance(source_wkt: Option<&str>, unit_metres: f64) -> f64 {
    let in_degrees = source_wkt
        .and_then(|w| SpatialRef::from_wkt(w).ok())
        .is_some_and(|s| s.is_geographic());
    if in_degrees {
        TENTH_DECIMAL_OF_A_DEGREE_M / unit_metres
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degrees_are_allowed_their_tenth_decimal_and_projected_sources_nothing_more() {
        let wgs84 = crate::import::crs::srs_from_epsg(4326)
            .unwrap()
            .to_wkt()
            .unwrap();
        let feet = 0.3048006096012192;
        let t = geometry_tolerance(Some(&wgs84), feet);
        // ms4's GeoJSON of a point in US feet came back 2e-5 ft away.
        assert!(t > 2e-5 && t < 4e-5, "{t}");
        let state_plane = crate::import::crs::srs_from_epsg(2260)
            .unwrap()
            .to_wkt()
            .unwrap();
        assert_eq!(geometry_tolerance(Some(&state_plane), feet), 0.0);
        assert_eq!(geometry_tolerance(None, feet), 0.0);
    }
}
