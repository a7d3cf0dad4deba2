//! Clause (2) of the illicit connection definition: a drain from a commercial or industrial
//! land use is illicit unless documented in records and approved; which records document a
//! connection, and what an approval lacks.

use super::*;

/// Clause (2): a drain from commercial or industrial land that is not documented and
/// approved.
pub(super) fn clause_two(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    f.cite(profile, &ids.undocumented)
        .cite(profile, &profile.land_use.rule);
    f.assume(profile, "AMB-03").assume(profile, "AMB-04");
    // Records are evidence whatever the land use: a reviewer wants to see them.
    for r in &c.records {
        f.evidence.push(record_evidence(r));
    }

    let Some(parcel) = &c.source_parcel else {
        f.because(
            "clause (2) cannot be decided: no source parcel was found (neither by the \
             connection's parcel_id nor as the parcel holding its upstream end), so the land \
             use the drain comes from is unknown",
        );
        return Verdict::Review;
    };
    let raw = parcel.land_use_raw.as_deref().unwrap_or("");
    let m = profile.classify_land_use(raw);
    f.evidence.push(Evidence::Feature {
        layer: Layer::Parcels.name().to_string(),
        id: parcel.parcel_id.clone(),
        note: format!(
            "source parcel, found by {}; land use {raw:?} is {} ({})",
            parcel.found_by, m.class, m.basis
        ),
    });
    let land = format!("parcel {} ({}: {})", parcel.parcel_id, m.class, m.basis);
    match m.class {
        LandUseClass::Other => {
            f.because(format!(
                "clause (2) does not apply: the source {land} is not a commercial or \
                 industrial land use"
            ));
            Verdict::Clear
        }
        LandUseClass::Unknown => {
            f.because(format!(
                "clause (2) cannot be decided: the land use of the source {land} is unknown or \
                 left to the town to classify, so whether the drain comes from a commercial or \
                 industrial land use needs review"
            ));
            Verdict::Review
        }
        LandUseClass::Commercial | LandUseClass::Industrial => {
            records_verdict(profile, c, &land, f)
        }
    }
}

/// Clause (2) for a commercial or industrial source: documented *and* approved (AMB-02).
fn records_verdict(
    profile: &Profile,
    c: &ConnectionFacts,
    land: &str,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    f.assume(profile, "AMB-01").assume(profile, "AMB-02");
    let authority = profile
        .coverage
        .illicit_connections
        .approving_authority
        .as_deref()
        .unwrap_or("the approving authority");
    let list = |rs: &[&RecordFacts]| {
        rs.iter()
            .map(|r| r.record_id.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let approved: Vec<&RecordFacts> = c
        .records
        .iter()
        .filter(|r| r.approved == Some(true))
        .collect();
    let unknown: Vec<&RecordFacts> = c.records.iter().filter(|r| r.approved.is_none()).collect();
    let all: Vec<&RecordFacts> = c.records.iter().collect();

    if c.records.is_empty() {
        f.because(format!(
            "clause (2) is met: the drain comes from a commercial or industrial land use, the \
             source {land}, and no record documents it; missing: documentation and approval \
             by {authority}"
        ));
        Verdict::Illicit
    } else if let Some(r) = approved
        .iter()
        .find(|r| approval_problem(profile, r).is_none())
    {
        let by = r.approved_by.as_deref().unwrap_or_default();
        let on = r
            .approved_on
            .as_deref()
            .map(|d| format!(" on {d}"))
            .unwrap_or_default();
        let plan = r.plan_ref.as_deref().unwrap_or_default();
        let named = match profile.ms4.approver(by, &towns(profile)) {
            NameMatch::Named(a) => {
                format!("the whole name of {a}, an approver the profile lists for {authority}")
            }
            _ => format!("taken as approval by {authority}: the profile lists no approvers"),
        };
        f.because(format!(
            "clause (2) is not met: the drain from the source {land} is documented in plan \
             {plan} and approved in record {} (approved by {by}{on}; {named})",
            r.record_id
        ));
        Verdict::Clear
    } else if !approved.is_empty() {
        let problems: Vec<String> = approved
            .iter()
            .filter_map(|r| {
                approval_problem(profile, r).map(|p| format!("record {}: {p}", r.record_id))
            })
            .collect();
        f.because(format!(
            "clause (2) cannot be decided: the drain from the source {land} is recorded as \
             approved, but {}; it is illicit unless documented in plans, maps or equivalent \
             records and approved by {authority}",
            problems.join("; ")
        ));
        Verdict::Review
    } else if !unknown.is_empty() {
        // The law asks whether the drain "has not been ... approved"; a record that is silent
        // on approval proves neither, so the registry does not assert a violation on it.
        f.because(format!(
            "clause (2) cannot be decided: the drain from the source {land} is documented in \
             record {} but the record does not say whether it was approved; it is illicit \
             unless approved by {authority}; missing: approval",
            list(&unknown)
        ));
        Verdict::Review
    } else {
        f.because(format!(
            "clause (2) is met: the drain from the source {land} is documented in record {} \
             but not approved; both documentation and approval by {authority} are required; \
             missing: approval",
            list(&all)
        ));
        Verdict::Illicit
    }
}

/// Why an approved record does not show documentation and approval by the approving
/// authority (item 6), or `None` when it does.
fn approval_problem(profile: &Profile, r: &RecordFacts) -> Option<String> {
    let listed = &profile.ms4.approvers;
    if r.plan_ref.as_deref().is_none_or(|p| p.trim().is_empty()) {
        return Some(
            "it names no plan, map or equivalent record (plan_ref), so documentation is not \
             shown"
                .into(),
        );
    }
    let by = match r.approved_by.as_deref() {
        None => return Some("it does not name who approved it (approved_by)".into()),
        Some(_) if listed.is_empty() => return None,
        Some(by) => by,
    };
    match profile.ms4.approver(by, &towns(profile)) {
        NameMatch::Named(_) => None,
        NameMatch::Contains(office) => Some(format!(
            "it was approved by {by:?} (approved_by), which contains the words of the listed \
             office {office:?} but is not that office's whole name for the {}: another \
             public body whose name holds the same words is not the town's approver; \
             what would decide: an approval by the {}'s own {office}",
            profile.name, profile.name
        )),
        NameMatch::Unlisted => Some(format!(
            "it was approved by {by:?}, who is not among the approvers the profile lists \
             (program setting: {})",
            listed.join(", ")
        )),
    }
}

fn record_evidence(r: &RecordFacts) -> Evidence {
    let approved = match r.approved {
        Some(true) => "approved",
        Some(false) => "not approved",
        None => "approval not recorded",
    };
    let mut note = format!("connection record, matched by {}; {approved}", r.matched_by);
    if let Some(by) = &r.approved_by {
        note.push_str(&format!(" by {by}"));
    }
    if let Some(on) = &r.approved_on {
        note.push_str(&format!(" on {on}"));
    }
    if let Some(plan) = &r.plan_ref {
        note.push_str(&format!("; plan {plan}"));
    }
    Evidence::Feature {
        layer: Layer::ConnectionRecords.name().to_string(),
        id: r.record_id.clone(),
        note,
    }
}
