//! `ms4 illicit`: every connection judged under the registry's jurisdiction.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::illicit::{illicit, IllicitParams};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::Snapshot;

/// Arguments of `ms4 illicit`.
#[derive(Debug, Args)]
pub struct IllicitArgs {
    /// The question (the same parameters as `GET /api/illicit`).
    #[command(flatten)]
    pub ask: IllicitParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: IllicitArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let answer = illicit(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let header = ["connection", "status", "reasons", "citations"];
    let rows = || -> Vec<Vec<String>> {
        answer
            .connections
            .iter()
            .map(|c| {
                let f = &c.finding;
                vec![
                    c.connection_id.clone(),
                    f.result.as_str().to_string(),
                    f.reasons.join("; "),
                    f.citation_line(),
                ]
            })
            .collect()
    };
    // The table wraps reasons and citations into one column to fit 100 columns.
    let table_rows = || -> Vec<Vec<String>> {
        rows()
            .into_iter()
            .map(|r| {
                vec![
                    r[0].clone(),
                    r[1].clone(),
                    format!("{} (cited: {})", r[2], r[3]),
                ]
            })
            .collect()
    };
    match a.format {
        QueryFormat::Table => {
            let s = &answer.summary;
            print!(
                "{}",
                wrapped_table(&["connection", "status", "reasons"], &table_rows(), 100)
            );
            println!(
                "{} connections: {} illicit, {} need review, {} ok, {} not covered ({})",
                s.total, s.illicit, s.needs_review, s.ok, s.not_covered, profile.name
            );
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows())),
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}

/// A table that fits `width` columns: every column but the last as wide as its widest
/// cell, the last wrapped at word boundaries into the room left (the full text is in the
/// JSON).
pub(super) fn wrapped_table(header: &[&str], rows: &[Vec<String>], width: usize) -> String {
    let n = header.len();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r).take(n - 1) {
            *w = (*w).max(c.chars().count());
        }
    }
    let used: usize = widths[..n - 1].iter().map(|w| w + 2).sum();
    let room = width.saturating_sub(used).max(20);
    let wrap = |text: &str| -> Vec<String> {
        let mut lines = vec![String::new()];
        for word in text.split_whitespace() {
            let mut word = word.to_string();
            // A word longer than the room is cut.
            while word.chars().count() > room {
                let head: String = word.chars().take(room).collect();
                word = word.chars().skip(room).collect();
                lines.push(head);
                lines.push(String::new());
            }
            let last = lines.last_mut().expect("one line");
            if last.is_empty() {
                last.push_str(&word);
            } else if last.chars().count() + 1 + word.chars().count() <= room {
                last.push(' ');
                last.push_str(&word);
            } else {
                lines.push(word);
            }
        }
        lines.retain(|l| !l.is_empty());
        if lines.is_empty() {
            lines.push(String::new());
        }
        lines
    };
    let line = |cells: &[&str]| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let mut out = line(header);
    out.push('\n');
    for r in rows {
        for (i, text) in wrap(&r[n - 1]).iter().enumerate() {
            let mut cells: Vec<&str> = if i == 0 {
                r[..n - 1].iter().map(String::as_str).collect()
            } else {
                vec![""; n - 1]
            };
            cells.push(text);
            out.push_str(&line(&cells));
            out.push('\n');
        }
    }
    out
}
