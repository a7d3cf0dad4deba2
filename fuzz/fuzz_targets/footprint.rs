//! Project footprints as planners send them: GeoJSON text with or without a legacy `crs`
//! member. Reading one must never panic; what reads is a polygon with finite coordinates
//! in the registry's CRS.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::answer::place::footprint_from_text;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(mp) = footprint_from_text(text, 2260, "footprint") {
        for p in &mp.0 {
            for c in p.exterior().coords() {
                assert!(c.x.is_finite() && c.y.is_finite(), "{c:?} from {text:?}");
            }
        }
    }
});
