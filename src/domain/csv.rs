//! CSV cells as ms4 writes them: RFC 4180 quoting, and text that a spreadsheet would run
//! as a formula neutralised, in one place for every CSV ms4 writes (exports, `--format
//! csv` answers, the annual report, over HTTP too).
//!
//! A spreadsheet opening a CSV runs a cell that starts with `=`, `+`, `-` or `@` as a
//! formula (`=HYPERLINK(...)`, `=cmd|' /C calc'!A0`), and some treat a leading tab or
//! carriage return the same way. Stored values come from files and forms anyone may
//! fill, so such a cell is written after a single quote (OWASP's "CSV injection" rule):
//! the spreadsheet shows the text and runs nothing. The stored value is never changed.
//!
//! Two refinements keep the rule exact and reversible:
//! - A cell that is wholly a decimal number (`-3.2`, `-12`, `-1e-5`) is a number, not a
//!   formula, and is written as it is: a coordinate or an elevation below zero stays a
//!   number in the spreadsheet.
//! - Text that itself starts with a single quote gets one more, so [`restore`] undoes
//!   [`neutralise`] exactly: `ms4 import` of ms4's own CSV gives back the stored text.

use std::borrow::Cow;

/// The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
pub const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// What [`neutralise`] puts before text a spreadsheet would run.
pub const GUARD: char = '\'';

/// Text as a cell may hold it without a spreadsheet running it: after a single quote
/// when it starts with one of [`FORMULA_STARTS`] (and is not a plain number) or with the
/// quote itself; otherwise as it is.
pub fn neutralise(text: &str) -> Cow<'_, str> {
    if needs_guard(text) {
        let mut out = String::with_capacity(text.len() + 1);
        out.push(GUARD);
        out.push_str(text);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// The text a neutralised cell was made from: the inverse of [`neutralise`]. A cell
/// that starts with the quote followed by a formula character or another quote loses
/// the first quote; any other cell is returned as it is. A quote before a line feed is
/// taken off too: GDAL's CSV reader gives a carriage return back as a line feed, and
/// [`neutralise`] never writes that pair.
pub fn restore(cell: &str) -> Cow<'_, str> {
    match cell.strip_prefix(GUARD) {
        Some(rest) if needs_guard(rest) || rest.starts_with('\n') => Cow::Borrowed(rest),
        _ => Cow::Borrowed(cell),
    }
}

/// Whether `text` is one [`neutralise`] guards.
fn needs_guard(text: &str) -> bool {
    match text.chars().next() {
        Some(GUARD) => true,
        Some(c) if FORMULA_STARTS.contains(&c) => !is_plain_number(text),
        _ => false,
    }
}

/// `-?digits(.digits)?([eE][+-]?digits)?` within f64's range: what a spreadsheet reads as
/// a number and what Rust's formatting of integers and finite floats writes.
fn is_plain_number(text: &str) -> bool {
    fn digits(s: &str) -> (usize, &str) {
        let n = s.bytes().take_while(u8::is_ascii_digit).count();
        (n, &s[n..])
    }
    let s = text.strip_prefix('-').unwrap_or(text);
    let (n, mut rest) = digits(s);
    if n == 0 {
        return false;
    }
    if let Some(frac) = rest.strip_prefix('.') {
        let (n, r) = digits(frac);
        if n == 0 {
            return false;
        }
        rest = r;
    }
    if let Some(exp) = rest.strip_prefix(['e', 'E']) {
        let (n, r) = digits(exp.strip_prefix(['+', '-']).unwrap_or(exp));
        if n == 0 {
            return false;
        }
        rest = r;
    }
    // An exponent past f64's range (`-1.5e639`, found by the fuzzer) is no number a
    // spreadsheet keeps either: guarded like any other text.
    rest.is_empty() && text.parse::<f64>().is_ok_and(f64::is_finite)
}

/// One cell: [`neutralise`]d, then in double quotes (inner quotes doubled) when it holds
/// a comma, a double quote, a carriage return or a line feed.
pub fn cell(text: &str) -> Cow<'_, str> {
    let safe = neutralise(text);
    if safe.contains([',', '"', '\n', '\r']) {
        Cow::Owned(format!("\"{}\"", safe.replace('"', "\"\"")))
    } else {
        safe
    }
}

/// One line of cells, each written by [`cell`], ending in a line feed.
pub fn row<I, S>(cells: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut out = String::new();
    for (i, c) in cells.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&cell(c.as_ref()));
    }
    out.push('\n');
    out
}

/// A header and rows as a whole CSV text.
pub fn table<S: AsRef<str>>(header: &[&str], rows: &[Vec<S>]) -> String {
    let mut out = row(header);
    for r in rows {
        out.push_str(&row(r));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    /// Reads one RFC 4180 record (the writer's output without its line feed).
    fn parse(line: &str) -> Vec<String> {
        let mut cells = vec![String::new()];
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    cells.last_mut().unwrap().push('"');
                }
                (_, '"') => quoted = !quoted,
                (false, ',') => cells.push(String::new()),
                (_, c) => cells.last_mut().unwrap().push(c),
            }
        }
        cells
    }

    #[rstest]
    #[case::equals("=HYPERLINK(\"http://x\",\"y\")", "'=HYPERLINK(\"http://x\",\"y\")")]
    #[case::at("@SUM(A1:A2)", "'@SUM(A1:A2)")]
    #[case::plus("+1+1", "'+1+1")]
    #[case::minus_formula("-1+1", "'-1+1")]
    #[case::dde("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0")]
    #[case::tab("\t=1", "'\t=1")]
    #[case::carriage_return("\r=1", "'\r=1")]
    #[case::plus_number("+5", "'+5")]
    #[case::minus_word("-inf", "'-inf")]
    #[case::minus_alone("-", "'-")]
    #[case::quote("'x", "''x")]
    #[case::quote_formula("'=1", "''=1")]
    #[case::negative_number("-3.2", "-3.2")]
    #[case::negative_integer("-12", "-12")]
    #[case::negative_exponent("-1.5e-7", "-1.5e-7")]
    #[case::exponent_past_f64("-1.5e639", "'-1.5e639")]
    #[case::plain_text("CB-100", "CB-100")]
    #[case::equals_inside("a=b", "a=b")]
    #[case::space_first(" =1", " =1")]
    #[case::empty("", "")]
    fn formula_looking_text_gets_a_quote_and_numbers_stay_numbers(
        #[case] text: &str,
        #[case] written: &str,
    ) {
        assert_eq!(neutralise(text), written);
        assert_eq!(restore(written), text, "restore undoes neutralise");
        let line = row([text, "next"]);
        let back = parse(line.strip_suffix('\n').unwrap());
        assert_eq!(back, [written, "next"], "{line:?}");
    }

    #[rstest]
    #[case::comma("a, b", "\"a, b\"")]
    #[case::quote_inside("say \"hi\"", "\"say \"\"hi\"\"\"")]
    #[case::line_feed("one\ntwo", "\"one\ntwo\"")]
    #[case::carriage_return_inside("one\rtwo", "\"one\rtwo\"")]
    #[case::formula_with_comma("=SUM(1,2)", "\"'=SUM(1,2)\"")]
    fn quoting_is_rfc_4180(#[case] text: &str, #[case] written: &str) {
        assert_eq!(cell(text), written);
    }

    #[test]
    fn a_cell_that_is_not_ms4s_guard_is_read_as_it_is() {
        // Only a quote ms4 would have written is taken off.
        for c in ["'abc", "'", "'-5", "it's", "-1+1"] {
            assert_eq!(restore(c), c);
        }
        // A carriage return GDAL read back as a line feed.
        assert_eq!(restore("'\n=1"), "\n=1");
    }

    /// The `csv_cell` fuzz target's properties, on its committed seeds.
    #[test]
    fn the_fuzz_seeds_keep_the_fuzz_targets_promises() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds/csv_cell");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            let cells: Vec<&str> = text.split('\u{1f}').collect();
            let line = row(&cells);
            let back = parse(line.strip_suffix('\n').unwrap());
            assert_eq!(back.len(), cells.len(), "{line:?}");
            for (cell, written) in cells.iter().zip(&back) {
                assert_eq!(written.as_str(), neutralise(cell));
                assert_eq!(restore(written), *cell);
                if written.starts_with(FORMULA_STARTS) {
                    assert!(
                        written.starts_with('-')
                            && written.parse::<f64>().is_ok_and(f64::is_finite),
                        "{written:?} would run"
                    );
                }
            }
            n += 1;
        }
        assert!(n >= 4, "{n} seeds");
    }

    #[test]
    fn a_table_is_a_header_then_one_line_per_row() {
        let out = table(&["id", "note"], &[vec!["A", "=1+1"], vec!["B", "-2"]]);
        assert_eq!(out, "id,note\nA,'=1+1\nB,-2\n");
    }
}
