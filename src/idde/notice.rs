//! A notice of violation as a printable HTML document, filled from the case: who and
//! where (the parcel's owner and address), the violation (the case's finding and its
//! record), what the law makes the notice say, the deadlines computed for the case, and
//! the citation of each. What the record does not hold is printed as a blank to fill in
//! and listed under "open facts", never guessed.

use super::case::Case;
use super::deadlines::CaseDeadlines;
use crate::domain::Layer;
use crate::rules::Profile;
use crate::spatial::Snapshot;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The items the town's illicit discharge notice must or may carry, with the citation.
fn required_items(profile: &Profile) -> (Vec<&'static str>, &'static str) {
    match profile.rule_prefix.as_str() {
        "windsor" => (
            vec![
                "The performance of monitoring, analyses, and reporting",
                "The elimination of illicit discharges or connections",
                "That violating discharges, practices, or operations shall cease and desist",
                "The abatement or remediation of stormwater pollution or contamination hazards and the restoration of any affected property",
                "The implementation of source control or treatment BMPs",
                "A deadline for abatement or restoration, and that should the violator fail to meet it the work will be done by a designated governmental agency or a contractor and the expense charged to the violator",
            ],
            "windsor.notice_of_violation",
        ),
        _ => (
            vec![
                "The elimination of illicit connections or discharges",
                "That violating discharges, practices or operations shall cease and desist",
                "The abatement or remediation of stormwater pollution or contamination hazards and the restoration of any affected property",
                "The performance of monitoring, analyses and reporting",
                "Payment of a fine",
                "The implementation of source control or treatment BMPs",
                "A deadline for abatement or restoration, and that should the violator fail to meet it the work will be done by a designated governmental agency or a contractor and the expense charged to the violator",
            ],
            "northcastle.illicit.notice_of_violation",
        ),
    }
}

/// The notice for a case, as a whole HTML document.
pub fn render(
    snap: &Snapshot,
    profile: &Profile,
    case: &Case,
    deadlines: &CaseDeadlines,
) -> String {
    let mut open_facts = Vec::new();
    let parcel = case
        .parcel_id
        .as_deref()
        .and_then(|p| snap.layer(Layer::Parcels).get(p));
    let field = |name: &str| {
        parcel
            .and_then(|p| p.get(Layer::Parcels, name).as_str())
            .map(esc)
    };
    let owner = field("owner").unwrap_or_else(|| {
        open_facts.push("the owner (no parcel owner on record)");
        "______________________".into()
    });
    let address = field("address").unwrap_or_else(|| {
        open_facts.push("the address (no parcel address on record)");
        "______________________".into()
    });
    let (items, rule) = required_items(profile);
    let citation = profile.citation(rule).unwrap_or("");
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str(&format!(
        "<title>Notice of violation, case {}</title>",
        esc(&case.case_id)
    ));
    h.push_str("<style>body{font-family:serif;max-width:40em;margin:2em auto}@media print{a{color:inherit}}td,th{text-align:left;padding:.2em .5em}</style></head><body>\n");
    h.push_str(&format!(
        "<h1>{}</h1>\n<h2>Notice of violation</h2>\n",
        esc(&profile.name)
    ));
    h.push_str(&format!(
        "<p>Case {} · opened {}</p>\n",
        esc(&case.case_id),
        case.opened_on
    ));
    h.push_str(&format!(
        "<p><b>To:</b> {owner}<br><b>Property:</b> {address}"
    ));
    if let Some(p) = &case.parcel_id {
        h.push_str(&format!(" (parcel {})", esc(p)));
    }
    h.push_str("</p>\n<h3>The violation</h3>\n<p>");
    h.push_str(&esc(case.description.as_deref().unwrap_or(
        "An illicit discharge to the municipal separate storm sewer system",
    )));
    if let Some(a) = &case.asset_id {
        h.push_str(&format!(", observed at outfall {}", esc(a)));
    }
    if let Some(c) = &case.connection_id {
        h.push_str(&format!(", from connection {}", esc(c)));
    }
    h.push_str(".</p>\n<h3>You are required to</h3>\n<ol>\n");
    for i in items {
        h.push_str(&format!("<li>{}</li>\n", esc(i)));
    }
    h.push_str(&format!(
        "</ol>\n<p><small>{} ({})</small></p>\n",
        esc(citation),
        esc(rule)
    ));
    if !deadlines.deadlines.is_empty() {
        h.push_str("<h3>Deadlines</h3>\n<table><tr><th>What</th><th>By</th><th>Law</th></tr>\n");
        for d in &deadlines.deadlines {
            let by = d
                .due_at
                .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
                .unwrap_or_else(|| d.due_on.to_string());
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&d.what),
                by,
                esc(&d.citation)
            ));
        }
        h.push_str("</table>\n");
    }
    if !open_facts.is_empty() {
        h.push_str("<h3>Open facts</h3>\n<ul>\n");
        for f in &open_facts {
            h.push_str(&format!("<li>{}</li>\n", esc(f)));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</body></html>\n");
    h
}
