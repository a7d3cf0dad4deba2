//! Areas and lengths as people type them (`2.5 acres`, `8,000 sq ft`, `500 ftUS`). The
//! parser must never panic, and what it accepts is a finite, non-negative quantity whose
//! error-free conversion to square feet or feet is finite too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::rules::quantity::{parse_area, parse_length, square_feet};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match parse_area(text) {
        Ok(a) => {
            assert!(a.value.is_finite() && a.value >= 0.0, "{text:?} -> {a:?}");
            assert!(square_feet(a).is_finite(), "{text:?} -> {a:?}");
        }
        Err(e) => assert!(e.to_string().contains("area"), "{e}"),
    }
    match parse_length(text) {
        Ok(l) => assert!(l.value.is_finite() && l.value >= 0.0, "{text:?} -> {l:?}"),
        Err(e) => assert!(e.to_string().contains("length"), "{e}"),
    }
});
