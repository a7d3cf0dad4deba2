//! Geometry blobs as another program may have written them into a registry: WKB, ISO WKB
//! with Z/M, EWKB (PostGIS) and GeoPackage blobs. Reading must never panic, and what
//! reads must write back to bytes that read as the same geometry.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::domain::wkb;

fuzz_target!(|data: &[u8]| {
    if let Ok((g, _)) = wkb::read_wkb(data) {
        round_trips(&g);
    }
    if let Ok((g, srs)) = wkb::read_gpkg(data) {
        round_trips(&g);
        let blob = wkb::to_gpkg(&g, srs);
        let (again, srs_again) = wkb::read_gpkg(&blob).expect("a blob ms4 wrote reads back");
        assert_eq!(srs_again, srs);
        assert_eq!(wkb::to_wkb(&again), wkb::to_wkb(&g));
    }
});

/// Writing and reading again is the identity on what was written (compared as bytes, so
/// NaN coordinates compare equal to themselves).
fn round_trips(g: &geo_types::Geometry<f64>) {
    let bytes = wkb::to_wkb(g);
    let (again, srid) = wkb::read_wkb(&bytes).expect("WKB ms4 wrote reads back");
    assert_eq!(srid, None);
    assert_eq!(wkb::to_wkb(&again), bytes);
    let ewkb = wkb::to_ewkb(g, 2260);
    let (again, srid) = wkb::read_wkb(&ewkb).expect("EWKB ms4 wrote reads back");
    assert_eq!(srid, Some(2260));
    assert_eq!(wkb::to_wkb(&again), bytes);
}
