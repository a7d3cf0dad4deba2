//! Summaries and serialisation of the statuses.

use rstest::rstest;

use super::*;

#[test]
fn summaries_count_statuses() {
    let nc = profile("north-castle-ny");
    let carmel = profile("carmel-ny");
    let inputs = [
        ("A", &nc, facts(Some("sewage"), Some("210"), vec![])),
        ("B", &nc, facts(Some("stormwater"), Some("210"), vec![])),
        ("C", &nc, facts(Some("gizmo"), Some("210"), vec![])),
        ("D", &nc, facts(Some("stormwater"), Some("710"), vec![])),
        ("E", &carmel, facts(Some("sewage"), Some("710"), vec![])),
    ];
    let findings: Vec<(String, Finding<IllicitStatus>)> = inputs
        .iter()
        .map(|(id, p, c)| (id.to_string(), evaluate(p, c)))
        .collect();
    let s = summarize(&findings);
    assert_eq!(
        (s.total, s.illicit, s.needs_review, s.ok, s.not_covered),
        (5, 2, 1, 1, 1)
    );
    assert_eq!(s.illicit_ids, ["A", "D"]);
    assert_eq!(s.needs_review_ids, ["C"]);
    let sum: usize = IllicitStatus::ALL.iter().map(|st| s.count(*st)).sum();
    assert_eq!(sum, s.total);
    assert_eq!(summarize(&[]), IllicitSummary::default());
}

#[test]
fn statuses_serialise_as_their_names_and_back() {
    for status in IllicitStatus::ALL {
        let json = serde_json::to_string(&status).unwrap();
        assert_eq!(json, format!("\"{}\"", status.as_str()));
        assert_eq!(
            serde_json::from_str::<IllicitStatus>(&json).unwrap(),
            status
        );
    }
}

/// Each status by its wire name, in snake case.
#[rstest]
#[case::ok(Ok, "\"ok\"")]
#[case::illicit(Illicit, "\"illicit\"")]
#[case::needs_review(NeedsReview, "\"needs_review\"")]
#[case::not_covered(NotCovered, "\"not_covered\"")]
fn statuses_serialise_as_snake_case(#[case] status: IllicitStatus, #[case] json: &str) {
    assert_eq!(serde_json::to_string(&status).unwrap(), json);
}

#[test]
fn a_finding_serialises_its_status() {
    let got = evaluate(
        &profile("windsor-ct"),
        &facts(Some("sewage"), Some("101"), vec![]),
    );
    let json = serde_json::to_value(&got).unwrap();
    assert_eq!(json["result"], "illicit");
}
