//! The key path (`thresholds.land_development_activity.unit`, `exempt_discharges[3].kind`)
//! of the TOML item at a byte offset, so that an error the TOML deserializer reports with a
//! span can name the key. A small scanner of TOML's structure, not a validating parser: the
//! text has already parsed when it runs.

use std::collections::HashMap;

/// One step of a key path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Seg {
    Key(String),
    Index(usize),
}

/// Render a path: keys joined by dots (quoted when not bare), indexes as `[i]`.
pub(super) fn render(path: &[Seg]) -> String {
    let mut out = String::new();
    for seg in path {
        match seg {
            Seg::Key(key) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(&key_segment(key));
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A key as it would be written in a TOML path: bare if it can be, else quoted.
pub(super) fn key_segment(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        key.to_string()
    } else {
        format!("{key:?}")
    }
}

/// The 1-based line of the key a key path names (`roles.condition_one`), or of the table
/// that should hold it when the key itself is absent; `None` when neither is found.
/// Paths with array indexes (`idde.deadlines[2].business_days`) and keys of inline
/// tables (`assumptions.AMB-07.setting.downstream_steps`) are found by
/// [`line_of_indexed`].
pub(super) fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let Some(segs) = split_key(key) else {
        return line_of_indexed(text, key);
    };
    line_of_table_key(text, &segs).or_else(|| line_of_indexed(text, key))
}

/// [`line_of_key`] for a key of a `[table]` header's table.
fn line_of_table_key(text: &str, segs: &[String]) -> Option<usize> {
    let (tables, last) = segs.split_at(segs.len().checked_sub(1)?);
    let mut header_line = None;
    let mut in_table = tables.is_empty();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if let Some(h) = line.strip_prefix('[').filter(|h| !h.starts_with('[')) {
            let name = h.split(']').next().unwrap_or("");
            in_table = split_key(name).as_deref() == Some(tables);
            if in_table {
                header_line = Some(n + 1);
            }
            continue;
        }
        if in_table {
            let k = line.split('=').next().unwrap_or("").trim();
            if !k.is_empty() && split_key(k).as_deref() == Some(last) {
                return Some(n + 1);
            }
        }
    }
    header_line
}

/// A dotted key split into its keys, quotes removed; `None` for an index (`[3]`).
fn split_key(key: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in key.trim().chars() {
        match c {
            '"' => quoted = !quoted,
            '.' if !quoted => out.push(std::mem::take(&mut cur).trim().to_string()),
            '[' | ']' if !quoted => return None,
            c => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    Some(out)
}

/// The key path of the item at byte `offset` of `text` ("" for the top level).
pub(super) fn key_path_at(text: &str, offset: usize) -> String {
    let mut scanner = Scanner::new(text, offset);
    scanner.document();
    render(&scanner.found.unwrap_or(scanner.table))
}

/// The 1-based line where a key path with array indexes is written
/// (`idde.deadlines[2].business_days`, `idde.penalty_tiers[0].tiers[1].max`), or, when
/// that key is not written (a default), the line of the nearest key or table above it
/// in the path; `None` when the text has none of them.
pub(super) fn line_of_indexed(text: &str, key: &str) -> Option<usize> {
    let mut scanner = Scanner::new(text, usize::MAX);
    scanner.keys = Some(Vec::new());
    scanner.document();
    let within = |path: &str| {
        key.strip_prefix(path)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    };
    // The longest path wins; of equals, the first written.
    let mut best: Option<(usize, usize)> = None;
    for (path, offset) in scanner.keys? {
        let path = render(&path);
        if !path.is_empty() && within(&path) && best.is_none_or(|(len, _)| path.len() > len) {
            best = Some((path.len(), offset));
        }
    }
    let (_, offset) = best?;
    Some(text.get(..offset).unwrap_or(text).matches('\n').count() + 1)
}

struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
    target: usize,
    table: Vec<Seg>,
    array_tables: HashMap<String, usize>,
    found: Option<Vec<Seg>>,
    /// When set, every key and table header met, with the offset it starts at.
    keys: Option<Vec<(Vec<Seg>, usize)>>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, target: usize) -> Self {
        Scanner {
            b: text.as_bytes(),
            pos: 0,
            target,
            table: Vec::new(),
            array_tables: HashMap::new(),
            found: None,
            keys: None,
        }
    }

    /// Records a key or header at `start`, when keys are being recorded.
    fn met(&mut self, path: &[Seg], start: usize) {
        if let Some(keys) = self.keys.as_mut() {
            keys.push((path.to_vec(), start));
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn done(&self) -> bool {
        self.found.is_some() || self.pos >= self.b.len()
    }

    /// Record `path` if the token that just ended covers the target.
    fn note_end(&mut self, path: &[Seg]) {
        if self.found.is_none() && self.pos > self.target {
            self.found = Some(path.to_vec());
        }
    }

    /// Record `path` if a token starting here starts at or after the target.
    fn note_start(&mut self, path: &[Seg]) {
        if self.found.is_none() && self.pos >= self.target {
            self.found = Some(path.to_vec());
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.pos += 1;
        }
    }

    fn skip_comment(&mut self) {
        if self.peek() == Some(b'#') {
            while !matches!(self.peek(), None | Some(b'\n')) {
                self.pos += 1;
            }
        }
    }

    /// Blanks, newlines and comments.
    fn skip_space(&mut self) {
        loop {
            self.skip_blanks();
            self.skip_comment();
            match self.peek() {
                Some(b'\n' | b'\r') => self.pos += 1,
                _ => return,
            }
        }
    }

    fn document(&mut self) {
        loop {
            self.skip_space();
            if self.done() {
                return;
            }
            if self.peek() == Some(b'[') {
                if !self.header() {
                    return;
                }
                continue;
            }
            let mut path = self.table.clone();
            let start = self.pos;
            let Some(keys) = self.key() else { return };
            path.extend(keys.into_iter().map(Seg::Key));
            self.met(&path, start);
            self.note_end(&path);
            self.skip_blanks();
            if self.found.is_some() || self.peek() != Some(b'=') {
                return;
            }
            self.pos += 1;
            self.value(&mut path);
        }
    }

    /// `[a.b]` or `[[a.b]]`; false when malformed.
    fn header(&mut self) -> bool {
        let start = self.pos;
        let array = self.b.get(self.pos + 1) == Some(&b'[');
        self.pos += if array { 2 } else { 1 };
        let Some(keys) = self.key() else { return false };
        self.skip_blanks();
        while self.peek() == Some(b']') {
            self.pos += 1;
        }
        let mut path: Vec<Seg> = keys.into_iter().map(Seg::Key).collect();
        if array {
            let count = self.array_tables.entry(render(&path)).or_insert(0);
            path.push(Seg::Index(*count));
            *count += 1;
        }
        if start >= self.target || self.pos > self.target {
            self.found = Some(path.clone());
        }
        self.met(&path, start);
        self.table = path;
        true
    }

    /// A dotted key; `None` when there is none here.
    fn key(&mut self) -> Option<Vec<String>> {
        let mut keys = Vec::new();
        loop {
            self.skip_blanks();
            match self.peek()? {
                b'"' | b'\'' => keys.push(self.quoted()?),
                _ => {
                    let start = self.pos;
                    while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_' || c == b'-')
                    {
                        self.pos += 1;
                    }
                    if self.pos == start {
                        return None;
                    }
                    keys.push(String::from_utf8_lossy(&self.b[start..self.pos]).into_owned());
                }
            }
            self.skip_blanks();
            if self.peek() == Some(b'.') {
                self.pos += 1;
            } else {
                return Some(keys);
            }
        }
    }

    /// A one-line quoted key; escapes are kept as written except `\"` and `\\`.
    fn quoted(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            let c = self.peek()?;
            self.pos += 1;
            match c {
                b'\\' if quote == b'"' => {
                    out.push(self.peek()?);
                    self.pos += 1;
                }
                b'\n' => return None,
                c if c == quote => return Some(String::from_utf8_lossy(&out).into_owned()),
                c => out.push(c),
            }
        }
    }

    /// Skip a string value of any of TOML's four kinds.
    fn skip_string(&mut self) {
        let quote = self.b[self.pos];
        let triple = self.b[self.pos..].starts_with(&[quote, quote, quote]);
        self.pos += if triple { 3 } else { 1 };
        while let Some(c) = self.peek() {
            if c == b'\\' && quote == b'"' {
                self.pos += 2;
                continue;
            }
            if !triple && c == b'\n' {
                return;
            }
            if c == quote && (!triple || self.b[self.pos..].starts_with(&[quote, quote, quote])) {
                self.pos += if triple { 3 } else { 1 };
                return;
            }
            self.pos += 1;
        }
    }

    fn value(&mut self, path: &mut Vec<Seg>) {
        self.skip_blanks();
        self.note_start(path);
        match self.peek() {
            None => {}
            Some(b'"' | b'\'') => {
                self.skip_string();
                self.note_end(path);
            }
            Some(b'[') => {
                self.pos += 1;
                self.array(path);
                self.note_end(path);
            }
            Some(b'{') => {
                self.pos += 1;
                self.inline_table(path);
                self.note_end(path);
            }
            Some(_) => {
                while !matches!(
                    self.peek(),
                    None | Some(b',' | b']' | b'}' | b'\n' | b'\r' | b'#')
                ) {
                    self.pos += 1;
                }
                self.note_end(path);
            }
        }
    }

    fn array(&mut self, path: &mut Vec<Seg>) {
        let mut index = 0;
        loop {
            self.skip_space();
            match self.peek() {
                None => return,
                Some(b']') => {
                    self.pos += 1;
                    return;
                }
                _ => {}
            }
            path.push(Seg::Index(index));
            self.value(path);
            path.pop();
            if self.found.is_some() {
                return;
            }
            self.skip_space();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    index += 1;
                }
                Some(b']') => {
                    self.pos += 1;
                    return;
                }
                _ => return,
            }
        }
    }

    fn inline_table(&mut self, path: &mut Vec<Seg>) {
        loop {
            self.skip_blanks();
            match self.peek() {
                None => return,
                Some(b'}') => {
                    self.pos += 1;
                    return;
                }
                _ => {}
            }
            let start = self.pos;
            let Some(keys) = self.key() else { return };
            let depth = path.len();
            path.extend(keys.into_iter().map(Seg::Key));
            self.met(path, start);
            self.note_end(path);
            self.skip_blanks();
            if self.found.is_some() || self.peek() != Some(b'=') {
                return;
            }
            self.pos += 1;
            self.value(path);
            path.truncate(depth);
            if self.found.is_some() {
                return;
            }
            self.skip_blanks();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return;
                }
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The path at the first occurrence of `needle` in `text`.
    fn path_at(text: &str, needle: &str) -> String {
        key_path_at(text, text.find(needle).expect(needle))
    }

    #[test]
    fn names_keys_values_headers_and_indexes() {
        let text = r#"
id = "x" # comment with [brackets] and "quotes"
[thresholds.land_development_activity]
value = 5000
unit = "sqm"

[[exempt_discharges]]
kind = "springs"
[[exempt_discharges]]
kind = "gizmo"
conditions = ["uncontaminated", "bogus"]

[tolerances]
snap_tolerance = { value = 1.0, unit = "yd" }
record_tolerance = { value = { nested = 1 }, unit = "ft" }

[rules."northcastle.lda.applicability"]
citation = "§ 267-3C(1)"

[land_use.commercial]
codes = [
  "400-499",
  "4xx",
]
"#;
        let cases = [
            ("\"x\"", "id"),
            ("\"sqm\"", "thresholds.land_development_activity.unit"),
            ("5000", "thresholds.land_development_activity.value"),
            ("[thresholds.land", "thresholds.land_development_activity"),
            ("\"springs\"", "exempt_discharges[0].kind"),
            ("\"gizmo\"", "exempt_discharges[1].kind"),
            ("\"bogus\"", "exempt_discharges[1].conditions[1]"),
            ("\"yd\"", "tolerances.snap_tolerance.unit"),
            ("{ nested", "tolerances.record_tolerance.value"),
            ("\"§", "rules.\"northcastle.lda.applicability\".citation"),
            ("\"4xx\"", "land_use.commercial.codes[1]"),
        ];
        for (needle, want) in cases {
            assert_eq!(path_at(text, needle), want, "at {needle:?}");
        }
    }

    #[test]
    fn offset_zero_of_a_key_names_the_key_and_bad_text_does_not_panic() {
        assert_eq!(key_path_at("id = 1\n", 0), "id");
        assert_eq!(key_path_at("", 0), "");
        assert_eq!(key_path_at("[a\n", 1), "a");
        assert_eq!(key_path_at("a = \"unterminated\n", 6), "a");
        assert_eq!(key_path_at("a = 1\n", 99), "");
        assert_eq!(key_path_at("a = '''x\ny''' \nb = 2", 15), "b");
    }

    #[test]
    fn indexed_paths_find_their_lines() {
        let text = "[idde]\nx = 1\n\n[[idde.deadlines]]\nrule = \"a\"\nhours = 2\n\n[[idde.deadlines]]\nrule = \"b\"\nbusiness_days = 100000000\n\n[[idde.penalty_tiers]]\ntiers = [{ max = 350 },\n  { min = 350, max = 1e12 }]\n";
        assert_eq!(
            line_of_key(text, "idde.deadlines[1].business_days"),
            Some(10)
        );
        assert_eq!(line_of_key(text, "idde.deadlines[0].hours"), Some(6));
        // A key left out (a default): the table it belongs in.
        assert_eq!(line_of_key(text, "idde.deadlines[1].days"), Some(8));
        assert_eq!(
            line_of_key(text, "idde.penalty_tiers[0].tiers[1].max"),
            Some(14)
        );
        // Nothing of the path but its first table: that table.
        assert_eq!(line_of_key(text, "idde.fines[0].amount"), Some(1));
        assert_eq!(line_of_key("a = 1\n", "idde.fines[0].amount"), None);
    }

    #[test]
    fn renders_quoted_and_bare_keys() {
        let path = [
            Seg::Key("assumptions".into()),
            Seg::Key("AMB-01".into()),
            Seg::Key("a.b".into()),
            Seg::Index(2),
        ];
        assert_eq!(render(&path), "assumptions.AMB-01.\"a.b\"[2]");
    }
}
