//! `ms4 profile rules`: every rule id of the registry's profile with its citation.

use super::output;
use super::Format;
use crate::rules::Profile;

/// Prints the profile's rules as a table or JSON.
pub(super) fn print(profile: &Profile, format: Format) -> anyhow::Result<()> {
    let rows: Vec<serde_json::Value> = profile
        .rules
        .iter()
        .map(|(id, r)| {
            serde_json::json!({
                "rule": id,
                "citation": r.citation,
                "title": r.title,
            })
        })
        .collect();
    match format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&rows)?),
        Format::Table => {
            let table: Vec<Vec<String>> = profile
                .rules
                .iter()
                .map(|(id, r)| vec![id.clone(), r.citation.clone()])
                .collect();
            print!("{}", output::table(&["rule", "citation"], &table));
        }
    }
    Ok(())
}
