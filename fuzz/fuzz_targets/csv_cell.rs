//! A CSV row as ms4 writes it (an export's cells, a `--format csv` answer, the annual
//! report): stored text from anyone's files and forms. Writing must never panic; read
//! back as RFC 4180 the row gives each cell as written; no written cell starts with a
//! character a spreadsheet runs as a formula unless it is a plain number; and taking the
//! guard off gives the stored text back, as `ms4 import` of ms4's own CSV does.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ms4::domain::csv::{neutralise, restore, row, FORMULA_STARTS};

/// One RFC 4180 record (without its line feed) into its cells.
fn parse(line: &str) -> Vec<String> {
    let mut cells = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        let cell = cells.last_mut().expect("one cell at least");
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (_, '"') => quoted = !quoted,
            (false, ',') => cells.push(String::new()),
            (_, c) => cell.push(c),
        }
    }
    cells
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // The unit separator splits an input into the cells of one row.
    let cells: Vec<&str> = text.split('\u{1f}').collect();
    let line = row(&cells);
    let record = line
        .strip_suffix('\n')
        .expect("a row ends with its line feed");
    let back = parse(record);
    assert_eq!(back.len(), cells.len(), "{line:?}");
    for (cell, written) in cells.iter().zip(&back) {
        assert_eq!(written.as_str(), neutralise(cell), "{line:?}");
        assert_eq!(restore(written), *cell, "{line:?}");
        if written.starts_with(FORMULA_STARTS) {
            assert!(
                written.starts_with('-') && written.parse::<f64>().is_ok_and(f64::is_finite),
                "{written:?} would run"
            );
        }
    }
});
