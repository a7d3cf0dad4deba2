//! A town's profile as TOML, the one piece of code-like input a town writes. Reading and
//! checking it must never panic, whatever the text; a profile that reads must read again
//! from the same text to the same jurisdiction.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::rules::profile::Profile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Profile::from_toml_str(text, "fuzz.toml") {
        Ok(p) => {
            let again = Profile::from_toml_str(text, "fuzz.toml").expect("reads twice");
            assert_eq!(p.id, again.id);
        }
        Err(e) => assert!(!e.to_string().trim().is_empty()),
    }
});
