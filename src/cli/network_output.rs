//! `ms4 network-check` for people and spreadsheets: a summary table and a table of
//! findings, or one CSV row per finding (the GeoJSON is the answer's own places).

use super::output;
use crate::answer::network_findings::{CheckFinding, NetworkCheckAnswer};

/// Rows of a kind shown in the table before "... and N more".
const TABLE_ROWS_PER_KIND: usize = 20;
/// A finding's detail is cut to this in the table, to keep it within a terminal.
const TABLE_DETAIL_CHARS: usize = 80;

/// The summary as a two-column table, then the findings, a few of each kind.
pub(super) fn table(r: &NetworkCheckAnswer) -> anyhow::Result<String> {
    let summary = serde_json::to_value(&r.summary)?;
    let rows: Vec<Vec<String>> = summary
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| vec![k.replace('_', " "), v.to_string()])
        .collect();
    let mut text = output::table(&["count", "value"], &rows);
    let all = r.findings();
    let mut shown = Vec::new();
    let mut more: Vec<(&str, usize)> = Vec::new();
    let mut kinds: Vec<&str> = all.iter().map(|f| f.kind).collect();
    kinds.dedup();
    for k in kinds {
        let of: Vec<&CheckFinding> = all.iter().filter(|f| f.kind == k).collect();
        for f in of.iter().take(TABLE_ROWS_PER_KIND) {
            let mut detail = f.detail.clone();
            if detail.chars().count() > TABLE_DETAIL_CHARS {
                detail = detail.chars().take(TABLE_DETAIL_CHARS).collect::<String>() + "...";
            }
            shown.push(vec![f.kind.to_string(), f.id.clone(), detail]);
        }
        if of.len() > TABLE_ROWS_PER_KIND {
            more.push((k, of.len() - TABLE_ROWS_PER_KIND));
        }
    }
    if !shown.is_empty() {
        text.push('\n');
        text.push_str(&output::table(&["finding", "id", "detail"], &shown));
    }
    for (k, n) in more {
        text.push_str(&format!(
            "... and {n} more of {k} (--format csv lists all)\n"
        ));
    }
    Ok(text)
}

/// One CSV row per finding: kind, id, detail and the point (x, y in the registry's CRS)
/// where it has one.
pub(super) fn csv(r: &NetworkCheckAnswer) -> String {
    let rows: Vec<Vec<String>> = r
        .findings()
        .into_iter()
        .map(|f| {
            let (x, y) = f
                .at()
                .map(|a| (a[0].to_string(), a[1].to_string()))
                .unwrap_or_default();
            vec![f.kind.to_string(), f.id, f.detail, x, y]
        })
        .collect();
    output::csv(&["finding", "id", "detail", "x", "y"], &rows)
}
