//! Every profile: Carmel not covered, citations within the profile's rules.

use rstest::rstest;

use super::*;

/// Carmel's code has no illicit discharge rules: whatever the connection, not covered.
#[rstest]
#[case::sewage_from_industrial_land(facts(Some("sewage"), Some("710"), vec![]))]
#[case::stormwater_from_a_residence(facts(Some("stormwater"), Some("210"), vec![]))]
#[case::nothing_known_but_a_record(facts(None, None, vec![record("R-1", None)]))]
fn carmel_is_not_covered(#[case] c: ConnectionFacts) {
    let carmel = profile("carmel-ny");
    let got = evaluate(&carmel, &c);
    assert_eq!(got.result, NotCovered);
    assert_eq!(got.citations.len(), 1);
    assert_eq!(got.citations[0].rule, "carmel.illicit_discharge.absent");
    check_shape(&carmel, &got, "carmel");
}

#[test]
fn every_finding_cites_rules_of_its_profile() {
    let kinds: Vec<Option<&str>> = DischargeKind::ALL
        .iter()
        .map(|k| Some(k.as_str()))
        .chain([None, Some("gizmo")])
        .collect();
    let record_sets = [
        vec![],
        vec![record("R-1", Some(true))],
        vec![record("R-1", Some(false))],
        vec![record("R-1", None)],
    ];
    for id in Profile::builtin_ids() {
        let p = profile(id);
        for kind in &kinds {
            for land_use in [
                None,
                Some("210"),
                Some("101"),
                Some("432"),
                Some("710"),
                Some("411"),
            ] {
                for records in &record_sets {
                    for sampled in [None, Some(true), Some(false)] {
                        let mut c = facts(*kind, land_use, records.clone());
                        c.pollutants_found = sampled;
                        let got = evaluate(&p, &c);
                        check_shape(&p, &got, &format!("{kind:?} {land_use:?} in {id}"));
                    }
                }
            }
        }
    }
}
