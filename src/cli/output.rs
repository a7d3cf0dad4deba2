//! Printing answers: aligned tables for people, CSV and JSON for programs.

use clap::ValueEnum;

/// How a query verb prints its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum QueryFormat {
    /// An aligned table for people.
    #[default]
    Table,
    /// JSON for programs (the same JSON the HTTP API returns).
    Json,
    /// CSV, one row per result.
    Csv,
    /// GeoJSON (RFC 7946, WGS 84), one feature per result, where results have places.
    Geojson,
}

/// An answer as GeoJSON: the places it names, one feature each (see
/// [`crate::answer::places`]), indented as the CLI prints JSON.
pub fn answer_geojson<A: crate::answer::places::Places>(
    snap: &crate::spatial::Snapshot,
    answer: &A,
) -> anyhow::Result<String> {
    let fc = crate::answer::places::feature_collection(snap, answer).map_err(|e| e.into_cli())?;
    Ok(serde_json::to_string_pretty(&fc)?)
}

/// Features that are no answer's (a layer listed whole) as a GeoJSON FeatureCollection
/// in WGS 84: each `(geometry in the registry's CRS, properties)` pair becomes a feature.
pub fn geojson(
    srid: i32,
    items: Vec<(geo_types::Geometry<f64>, serde_json::Value)>,
) -> anyhow::Result<String> {
    let rp = crate::import::crs::Reprojector::new(srid, 4326)?;
    let mut features = Vec::with_capacity(items.len());
    for (g, props) in items {
        let g = rp.apply(&g)?;
        features.push(serde_json::json!({
            "type": "Feature",
            "geometry": serde_json::to_value(geojson::Geometry::new(geojson::GeometryValue::from(&g)))?,
            "properties": props,
        }));
    }
    Ok(serde_json::to_string_pretty(
        &serde_json::json!({"type": "FeatureCollection", "features": features}),
    )?)
}

/// Prints rows under a header as an aligned table.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = line(header.to_vec());
    out.push('\n');
    for r in rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
        out.push('\n');
    }
    out
}

/// Prints rows under a header as CSV: RFC 4180 quoting, and text a spreadsheet would run
/// as a formula after a single quote (see [`crate::domain::csv`]).
pub fn csv(header: &[&str], rows: &[Vec<String>]) -> String {
    crate::domain::csv::table(header, rows)
}

/// Whether an error is a write to a pipe whose reader has gone (`| head`): not a
/// failure to report.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// An error as one plain line (and its causes after colons): no terminal escape codes,
/// whatever produced the message (GDAL, PROJ and PostgreSQL messages may carry them),
/// and each cause once even when a message already repeats its source's text.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut parts: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = plain(&cause.to_string());
        let text = text.trim();
        if text.is_empty() || parts.iter().any(|p| p.contains(text)) {
            continue;
        }
        parts.push(text.to_string());
    }
    parts.join(": ")
}

/// Text without ANSI escape sequences or other control characters (newlines kept).
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters final-byte (a letter).
            if chars.peek() == Some(&'[') {
                chars.next();
                for d in chars.by_ref() {
                    if d.is_ascii_alphabetic() || d == '~' {
                        break;
                    }
                }
            }
            continue;
        }
        if c.is_control() && c != '\n' && c != '\t' {
            continue;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_print_as_plain_text_each_cause_once() {
        let e = anyhow::anyhow!("\u{1b}[31mdatabase is locked\u{1b}[0m")
            .context("writing catch_basins: database is locked")
            .context("import failed");
        assert_eq!(
            error_text(&e),
            "import failed: writing catch_basins: database is locked"
        );
        let pipe = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&pipe.context("printing")));
    }

    #[test]
    fn csv_quotes_what_needs_quoting() {
        let out = csv(
            &["id", "note"],
            &[vec!["A".into(), "says \"hi\", twice".into()]],
        );
        assert_eq!(out, "id,note\nA,\"says \"\"hi\"\", twice\"\n");
    }

    #[test]
    fn csv_answers_neutralise_formulas_and_keep_negative_numbers() {
        let out = csv(
            &["id", "x"],
            &[vec!["=HYPERLINK(\"http://x\")".into(), "-3.2".into()]],
        );
        assert_eq!(out, "id,x\n\"'=HYPERLINK(\"\"http://x\"\")\",-3.2\n");
    }

    #[test]
    fn table_aligns_columns() {
        let out = table(
            &["id", "d"],
            &[
                vec!["CB-100".into(), "1".into()],
                vec!["X".into(), "22".into()],
            ],
        );
        assert_eq!(out, "id      d\nCB-100  1\nX       22\n");
    }
}
