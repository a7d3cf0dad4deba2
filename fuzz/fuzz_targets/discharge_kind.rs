//! Discharge-kind words as they come in real connection layers. The forgiving parser must
//! never panic, must agree with its `Unknown` mapping, and what it accepts must be stable:
//! the kind's own name parses back to the same kind.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::domain::discharge::DischargeKind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = DischargeKind::parse(text);
    let (kind, reason) = DischargeKind::parse_or_unknown(text);
    match parsed {
        Ok(k) => {
            assert_eq!(k, kind);
            assert!(reason.is_none());
            assert_eq!(DischargeKind::parse(k.as_str()).ok(), Some(k));
        }
        Err(e) => {
            assert_eq!(kind, DischargeKind::Unknown);
            // The reason is shown to the analyst: it must say something.
            assert!(!e.reason().trim().is_empty());
            assert_eq!(reason, Some(e.reason()));
        }
    }
});
