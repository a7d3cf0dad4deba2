//! The routes out of the discharge prohibition other than the exempt list and the permit
//! fields: an approval by the official the law lets approve a discharge in writing
//! (North Castle § 267-12A(2), Windsor Sec. 3-169(a)(2)), and a record whose words name a
//! permit or a written approval. Each is weighed like the permit route: the registry cannot
//! read the document's terms, so a record that shows one takes clause (1) to review at
//! most, and the answer never says "none is on record" while a record says otherwise.

use crate::rules::{whole_name, AllowedEntry, AllowedRoute, DischargeCondition, NameMatch};

use super::{towns, ConnectionFacts, Finding, IllicitStatus, Profile, RecordFacts, Verdict};
use crate::rules::profile::normalise_words as norm;

/// Words that name a discharge permit (SPDES, NPDES, a waiver or order of the permit
/// route) in a record's free text.
const PERMIT_WORDS: &[&str] = &[
    "spdes",
    "npdes",
    "discharge permit",
    "waste discharge order",
];

/// Words that name a written approval in a record's free text.
const WRITTEN_WORDS: &[&str] = &[
    "written approval",
    "approved in writing",
    "approval in writing",
    "letter of approval",
    "approval letter",
    "specified in writing",
];

fn names_any(text: &str, words: &[&str]) -> bool {
    let t = format!(" {} ", norm(text));
    words.iter().any(|w| t.contains(&format!(" {w} ")))
}

/// A record approved by the official of the written-approval route.
fn approved_by_route_office<'r>(
    profile: &Profile,
    route: &AllowedEntry,
    r: &'r RecordFacts,
) -> Option<&'r str> {
    if r.approved != Some(true) {
        return None;
    }
    let by = r.approved_by.as_deref()?;
    let names = route.office_names();
    matches!(whole_name(by, &names, &towns(profile)), NameMatch::Named(_)).then_some(by)
}

/// A record's free-text field that names a permit or a written approval, when the record
/// holds no permit in its permit fields: (field, its text, "a permit" or "a written
/// approval").
fn mention(r: &RecordFacts) -> Option<(&'static str, &str, &'static str)> {
    if r.permit.is_some() {
        return None;
    }
    let fields = [
        ("plan_ref", r.plan_ref.as_deref()),
        ("approved_by", r.approved_by.as_deref()),
    ];
    fields.into_iter().find_map(|(field, text)| {
        let text = text?;
        if names_any(text, PERMIT_WORDS) {
            Some((field, text, "an SPDES/NPDES permit, waiver or order"))
        } else if names_any(text, WRITTEN_WORDS) {
            Some((field, text, "a written approval"))
        } else {
            None
        }
    })
}

/// Whether any record of the connection shows a route out of the prohibition: a permit in
/// its permit fields, an approval by the written-approval route's official, or words naming
/// a permit or a written approval.
pub(super) fn any_on_record(profile: &Profile, c: &ConnectionFacts) -> bool {
    let route = profile.allowed(AllowedRoute::EmergencyWrittenApproval);
    c.records.iter().any(|r| {
        r.permit.is_some()
            || mention(r).is_some()
            || route.is_some_and(|a| approved_by_route_office(profile, a, r).is_some())
    })
}

/// The written-approval route and the records' words, for a discharge clause (1) would
/// otherwise find illicit (or cannot decide): each record that shows one takes the verdict
/// to review at most, naming the law's words and the record's fields.
pub(super) fn weigh(
    profile: &Profile,
    clause: &str,
    c: &ConnectionFacts,
    verdict: Verdict,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    let mut out = verdict;
    let route = profile.allowed(AllowedRoute::EmergencyWrittenApproval);
    for r in &c.records {
        if let Some((route, by)) =
            route.and_then(|a| approved_by_route_office(profile, a, r).map(|by| (a, by)))
        {
            f.cite(profile, &route.rule);
            f.because(approval_reason(route, r, by, clause));
            out = out.min(Verdict::Review);
        } else if let Some((field, text, what)) = mention(r) {
            let routes: Vec<String> = profile
                .allowed_discharges
                .iter()
                .filter(|a| a.route != AllowedRoute::DyeTesting)
                .map(|a| {
                    f.cite(profile, &a.rule);
                    format!("{:?} ({})", a.text, a.citation)
                })
                .collect();
            f.because(format!(
                "clause (1) cannot be decided: record {}'s {field} {text:?} names {what}; the \
                 prohibition does not reach {}; the record's permit fields (permit_number, \
                 ms4_approval) are empty, so the registry cannot check the document's terms; \
                 review; what would decide: the permit's number and the written approval of \
                 the discharge to the MS4, or the written approval's terms",
                r.record_id,
                routes.join(" or ")
            ));
            out = out.min(Verdict::Review);
        }
    }
    out
}

/// Why a record approved by the route's official takes clause (1) to review.
fn approval_reason(route: &AllowedEntry, r: &RecordFacts, by: &str, clause: &str) -> String {
    let on = r
        .approved_on
        .as_deref()
        .map(|d| format!(" on {d} (approved_on)"))
        .unwrap_or_default();
    let period = if route
        .conditions
        .contains(&DischargeCondition::WithinApprovedPeriodAndConditions)
    {
        format!(
            ", which the {} may permit for a specified time period and under such conditions \
             as it deems appropriate; whether the approval was given in writing for that \
             purpose, and whether its period still runs, is not recorded",
            route.authority
        )
    } else {
        "; whether the approval was given in writing for that purpose is not recorded".into()
    };
    format!(
        "clause (1) cannot be decided: record {} records an approval by {by:?} \
         (approved_by){on}; the prohibition does not reach {:?} ({}){period}; on one reading \
         the discharge is then not an illegal discharge and clause (1) is not met; on the \
         other, clause (1) reaches a conveyance that lets a non-stormwater discharge in \
         whether or not it was previously allowed, permitted or approved ({clause}); review; \
         what would decide: the approval's written terms (its purpose, period and conditions)",
        r.record_id, route.text, route.citation
    )
}
