//! Table-driven tests of the illicit-connection evaluation against the builtin profiles.

mod clause_two;
mod coverage;
mod edges;
mod exempt_kinds;
mod issue_items;
mod prohibited_kinds;
mod reporting;

use super::*;
use crate::domain::discharge::DischargeKind;
use IllicitStatus::{Illicit, NeedsReview, NotCovered, Ok};

fn profile(id: &str) -> Profile {
    Profile::builtin(id).unwrap_or_else(|e| panic!("{e}"))
}

/// A residential code of each profile's assessor code list.
fn residential(p: &Profile) -> &'static str {
    if p.id == "windsor-ct" {
        "101"
    } else {
        "210"
    }
}

/// An industrial code of each profile's assessor code list.
fn industrial(p: &Profile) -> &'static str {
    if p.id == "windsor-ct" {
        "400"
    } else {
        "710"
    }
}

fn facts(kind: Option<&str>, land_use: Option<&str>, records: Vec<RecordFacts>) -> ConnectionFacts {
    ConnectionFacts {
        connection_id: "C-1".into(),
        discharge_kind_raw: kind.map(str::to_string),
        source_parcel: Some(SourceParcel {
            parcel_id: "P-1".into(),
            land_use_raw: land_use.map(str::to_string),
            found_by: "connection's parcel_id".into(),
        }),
        records,
        ..ConnectionFacts::default()
    }
}

fn record(id: &str, approved: Option<bool>) -> RecordFacts {
    RecordFacts {
        record_id: id.into(),
        approved,
        approved_by: approved.map(|_| "Town Engineer".to_string()),
        approved_on: approved.map(|_| "2015-06-01".to_string()),
        plan_ref: Some("SP-2015-12".into()),
        permit: None,
        matched_by: "connection_id".into(),
    }
}

/// Every citation must name a rule of the profile, and every covered finding must have a
/// reason and name the connection.
fn check_shape(p: &Profile, finding: &Finding<IllicitStatus>, what: &str) {
    assert!(!finding.citations.is_empty(), "{what}: no citation");
    for c in &finding.citations {
        assert!(
            p.rule(&c.rule).is_some(),
            "{what}: cites {} which is not in the {} profile's [rules]",
            c.rule,
            p.id
        );
    }
    assert!(!finding.reasons.is_empty(), "{what}: no reason");
    assert!(
        finding.evidence.iter().any(|e| matches!(
            e,
            Evidence::Feature { layer, id, .. } if layer == "connections" && id == "C-1"
        )),
        "{what}: connection missing from the evidence"
    );
}

fn cites(finding: &Finding<IllicitStatus>, rule: &str) -> bool {
    finding.citations.iter().any(|c| c.rule == rule)
}

fn assumes(finding: &Finding<IllicitStatus>, amb: &str) -> bool {
    finding.assumptions.iter().any(|a| a.id == amb)
}

fn reasons(finding: &Finding<IllicitStatus>) -> String {
    finding.reasons.join(" | ")
}
