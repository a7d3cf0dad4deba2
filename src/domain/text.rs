//! Text a person writes into the registry (an id, a name, an office, a note): bounded in
//! length and free of the characters that forge lines in logs and notices, cut a value
//! short in a C string, or reorder what a reader sees.
//!
//! Two shapes of text, each with its limit in characters (JSON Schema's `maxLength`
//! counts characters too, so the API definition states the same figure):
//! - a **line** (ids, names, offices, kinds): at most [`MAX_LINE_CHARS`], no control
//!   character at all, no bidirectional override or isolate (U+202A–U+202E,
//!   U+2066–U+2069: "Trojan Source" text that reads one way and sorts another);
//! - a **note** (descriptions, notes, results): at most [`MAX_NOTE_CHARS`] (the 64 KiB
//!   an imported value may hold), line breaks and tabs allowed, no other control
//!   character (a NUL ends the text in SQLite's C API; an escape rewrites a terminal).
//!
//! The `serde` helpers make a request type refuse such text as it is read, so the error
//! names the field (`notes: …`) and nothing reaches a store.

use serde::{Deserialize, Deserializer};

/// The most characters a line of text (an id, a name, an office) may hold.
pub const MAX_LINE_CHARS: usize = 1024;

/// The most characters a note may hold: the 64 KiB an imported value may hold.
pub const MAX_NOTE_CHARS: usize = 64 * 1024;

/// The most bytes a free JSON value (a sample's results, field tests) may take, written
/// compactly.
pub const MAX_JSON_BYTES: usize = 64 * 1024;

/// Bidirectional overrides and isolates: they make text display in an order other than
/// the one stored.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Why a line of text is refused, or `None`.
pub fn line_problem(s: &str) -> Option<String> {
    let n = s.chars().count();
    if n > MAX_LINE_CHARS {
        return Some(format!(
            "{n} characters is over the limit of {MAX_LINE_CHARS} for a line of text"
        ));
    }
    if let Some(c) = s.chars().find(|c| c.is_control()) {
        return Some(format!(
            "holds the control character U+{:04X}; a line of text is printable characters only",
            c as u32
        ));
    }
    if let Some(c) = s.chars().find(|c| is_bidi_control(*c)) {
        return Some(format!(
            "holds the bidirectional control U+{:04X}, which makes text display in another order than it is stored",
            c as u32
        ));
    }
    None
}

/// Why a note is refused, or `None`.
pub fn note_problem(s: &str) -> Option<String> {
    let n = s.chars().count();
    if n > MAX_NOTE_CHARS {
        return Some(format!(
            "{n} characters is over the limit of {MAX_NOTE_CHARS} for a note"
        ));
    }
    if let Some(c) = s
        .chars()
        .find(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Some(format!(
            "holds the control character U+{:04X}; a note may break lines and hold tabs, no other control character",
            c as u32
        ));
    }
    None
}

/// Why a free JSON value is refused, or `None`: its compact size, and every string in
/// it (keys too) as a note.
pub fn json_problem(v: &serde_json::Value) -> Option<String> {
    let bytes = serde_json::to_vec(v).map(|b| b.len()).unwrap_or(usize::MAX);
    if bytes > MAX_JSON_BYTES {
        return Some(format!(
            "{bytes} bytes is over the limit of {MAX_JSON_BYTES} for a value"
        ));
    }
    fn walk(v: &serde_json::Value) -> Option<String> {
        match v {
            serde_json::Value::String(s) => note_problem(s),
            serde_json::Value::Array(a) => a.iter().find_map(walk),
            serde_json::Value::Object(o) => o
                .iter()
                .find_map(|(k, v)| note_problem(k).or_else(|| walk(v))),
            _ => None,
        }
    }
    walk(v)
}

fn refuse<E: serde::de::Error>(problem: Option<String>) -> Result<(), E> {
    match problem {
        Some(p) => Err(E::custom(p)),
        None => Ok(()),
    }
}

/// `#[serde(deserialize_with = "text::line")]`: a line of text.
pub fn line<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    refuse(line_problem(&s))?;
    Ok(s)
}

/// `#[serde(default, deserialize_with = "text::line_opt")]`: an optional line of text.
pub fn line_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    if let Some(s) = &s {
        refuse(line_problem(s))?;
    }
    Ok(s)
}

/// `#[serde(default, deserialize_with = "text::note_opt")]`: an optional note.
pub fn note_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let s = Option::<String>::deserialize(d)?;
    if let Some(s) = &s {
        refuse(note_problem(s))?;
    }
    Ok(s)
}

/// The earliest day a record of the programme may carry: no MS4 programme, inspection
/// or case predates it, and a year-1 date is a typing error, not a record.
pub const EARLIEST_RECORD_YEAR: i32 = 1900;

/// Why a day of something that has happened (an inspection, a case opened, an action)
/// is refused: before [`EARLIEST_RECORD_YEAR`] or after `today`.
pub fn past_day_problem(day: chrono::NaiveDate, today: chrono::NaiveDate) -> Option<String> {
    use chrono::Datelike;
    if day.year() < EARLIEST_RECORD_YEAR {
        return Some(format!(
            "{day} is before {EARLIEST_RECORD_YEAR}; give the real date, YYYY-MM-DD"
        ));
    }
    if day > today {
        return Some(format!("{day} is in the future (today is {today})"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::plain("CB-0001", true)]
    #[case::accented("Stormwater Management Officer – Tōwn", true)]
    #[case::nul("CB-1\u{0}x", false)]
    #[case::newline("Town Manager\nforged line", false)]
    #[case::escape("\u{1b}[2J", false)]
    #[case::c1("a\u{85}b", false)]
    #[case::rlo("Town \u{202E}reganaM", false)]
    #[case::isolate("a\u{2066}b", false)]
    fn lines_are_printable(#[case] s: &str, #[case] ok: bool) {
        assert_eq!(
            line_problem(s).is_none(),
            ok,
            "{s:?}: {:?}",
            line_problem(s)
        );
    }

    #[rstest]
    #[case::lines("clear flow\r\nno odour\tok", true)]
    #[case::rtl_text("שלום \u{200F}ok", true)]
    #[case::nul("a\u{0}", false)]
    #[case::bell("a\u{7}", false)]
    fn notes_break_lines_but_hold_no_other_control(#[case] s: &str, #[case] ok: bool) {
        assert_eq!(note_problem(s).is_none(), ok, "{s:?}");
    }

    #[test]
    fn limits_count_characters() {
        assert!(line_problem(&"é".repeat(MAX_LINE_CHARS)).is_none());
        assert!(line_problem(&"a".repeat(MAX_LINE_CHARS + 1)).is_some());
        assert!(note_problem(&"a".repeat(MAX_NOTE_CHARS)).is_none());
        let e = note_problem(&"a".repeat(MAX_NOTE_CHARS + 1)).unwrap();
        assert!(e.contains("65537 characters"), "{e}");
    }

    #[test]
    fn json_values_are_bounded_and_their_strings_checked() {
        let ok = serde_json::json!({"ph": 7.1, "note": "fine"});
        assert!(json_problem(&ok).is_none());
        let big = serde_json::json!({"x": "a".repeat(MAX_JSON_BYTES)});
        assert!(json_problem(&big).unwrap().contains("bytes"));
        let nul = serde_json::json!({"x": ["ok", "a\u{0}"]});
        assert!(json_problem(&nul).unwrap().contains("U+0000"));
    }

    #[test]
    fn days_are_between_1900_and_today() {
        let today = chrono::NaiveDate::from_ymd_opt(2026, 12, 3).unwrap();
        let d = |y, m, dd| chrono::NaiveDate::from_ymd_opt(y, m, dd).unwrap();
        assert!(past_day_problem(d(2026, 12, 3), today).is_none());
        assert!(past_day_problem(d(1990, 1, 1), today).is_none());
        assert!(past_day_problem(d(1, 1, 1), today)
            .unwrap()
            .contains("before 1900"));
        assert!(past_day_problem(d(2999, 1, 1), today)
            .unwrap()
            .contains("future"));
    }
}
