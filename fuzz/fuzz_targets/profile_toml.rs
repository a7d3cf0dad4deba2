//! A town's profile as TOML, the one piece of code-like input a town writes. Reading and
//! checking it must never panic, whatever the text; a profile that reads must read again
//! from the same text to the same jurisdiction, and every period it gives is one the
//! clock counts (its numbers are within their bounds).
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::idde::calendar::{add_days, add_hours, Calendar};
use ms4::rules::profile::Profile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Profile::from_toml_str(text, "fuzz.toml") {
        Ok(p) => {
            let again = Profile::from_toml_str(text, "fuzz.toml").expect("reads twice");
            assert_eq!(p.id, again.id);
            let start =
                ms4::idde::deadlines::parse_as_of(Some("2026-05-21T09:00")).expect("a time");
            let cal = Calendar::new(&p.idde.holidays);
            for step in &p.idde.deadlines {
                for n in [step.business_days, step.mail_business_days]
                    .into_iter()
                    .flatten()
                {
                    cal.add_business_days(start.date(), n)
                        .expect("a bounded count");
                }
                if let Some(n) = step.days {
                    add_days(start.date(), n).expect("a bounded count");
                }
                if let Some(h) = step.hours {
                    add_hours(start, h).expect("a bounded count");
                }
            }
        }
        Err(e) => assert!(!e.to_string().trim().is_empty()),
    }
});
