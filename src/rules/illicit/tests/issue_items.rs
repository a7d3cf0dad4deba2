//! Who and what the rules apply to (status, whose MS4), permits, unqualified words,
//! approvals and screening: one table per item, per jurisdiction, at the law's words and
//! the counter-case.

use super::*;

fn both() -> [Profile; 2] {
    [profile("north-castle-ny"), profile("windsor-ct")]
}

#[test]
fn item_1_connection_status_removed_proposed_missing_and_active() {
    // (status, removed_on, expected, phrase); a sewage connection from a residence.
    let table: &[(Option<&str>, Option<&str>, IllicitStatus, &str)] = &[
        (
            Some("abandoned"),
            Some("2019-04-02"),
            Ok,
            "recorded as \"abandoned\", removed on 2019-04-02",
        ),
        (
            Some("Removed"),
            None,
            Ok,
            "a date the registry does not record",
        ),
        (
            Some("proposed"),
            None,
            NeedsReview,
            "a plan to review, not a violation",
        ),
        (
            None,
            None,
            Illicit,
            "no status is recorded for the connection, so it is taken",
        ),
        // Counter-case: an active connection is still judged.
        (Some("active"), None, Illicit, "clause (1) is met"),
        (Some("inactive"), None, Illicit, "taken as existing"),
    ];
    for p in both() {
        for (status, removed_on, want, phrase) in table {
            let mut c = facts(Some("sewage"), Some(residential(&p)), vec![]);
            c.status_raw = status.map(str::to_string);
            c.removed_on = removed_on.map(str::to_string);
            let got = evaluate(&p, &c);
            let what = format!("{status:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            check_shape(&p, &got, &what);
        }
    }
    // A proposed plan says what it would be if built.
    let p = profile("north-castle-ny");
    let mut c = facts(Some("sewage"), Some("210"), vec![]);
    c.status_raw = Some("proposed".into());
    assert!(reasons(&evaluate(&p, &c)).contains("if built as recorded it would be illicit"));
}

#[test]
fn item_2_whose_ms4_first_town_asset_or_referral() {
    let town = Ms4Reach::Ms4 {
        asset: "CB-1".into(),
        owner: Some("Town".into()),
        path: vec!["CB-1".into()],
    };
    let unowned = Ms4Reach::Ms4 {
        asset: "MH-9".into(),
        owner: None,
        path: vec!["CB-9".into(), "PI-9".into(), "MH-9".into()],
    };
    let other = Ms4Reach::Other {
        joined: "CB-DOT".into(),
        owners: vec!["NYSDOT".into()],
    };
    let unknown = Ms4Reach::OwnerUnknown {
        joined: "CB-X".into(),
        assets: vec!["CB-X".into()],
    };
    // (reach, expected, phrase, assumes AMB-19)
    let table: Vec<(Ms4Reach, IllicitStatus, &str, bool)> = vec![
        (town, Illicit, "clause (1) is met", false),
        (
            unowned,
            Illicit,
            "reads an asset without an owner as part of",
            true,
        ),
        (
            Ms4Reach::Unjoined,
            Illicit,
            "joins no structure or pipe",
            true,
        ),
        (other, NotCovered, "refer it to NYSDOT", true),
        (unknown, NeedsReview, "record no owner", true),
    ];
    for p in both() {
        for (reach, want, phrase, amb19) in &table {
            let mut c = facts(Some("sewage"), Some(residential(&p)), vec![]);
            c.ms4 = reach.clone();
            let got = evaluate(&p, &c);
            let what = format!("{reach:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            assert_eq!(assumes(&got, "AMB-19"), *amb19, "{what}");
            check_shape(&p, &got, &what);
        }
    }
}

fn permit_record(approval: Option<bool>) -> RecordFacts {
    RecordFacts {
        record_id: "R-P".into(),
        permit: Some(PermitFacts {
            number: "NY0012345".into(),
            kind: Some("SPDES".into()),
            holder: Some("Acme Plating".into()),
            ms4_approval: approval,
            ms4_approved_on: approval.map(|_| "2020-03-01".into()),
        }),
        matched_by: "names the connection".into(),
        ..RecordFacts::default()
    }
}

#[test]
fn item_3_permitted_discharges_are_at_most_review() {
    // (approval, expected, phrase), process wastewater from a residence (clause (2) out).
    let table: &[(Option<bool>, IllicitStatus, &str)] = &[
        (
            Some(true),
            NeedsReview,
            "on one reading the prohibition does not apply",
        ),
        (None, NeedsReview, "does not say whether written approval"),
        (Some(false), Illicit, "was not granted"),
    ];
    for p in both() {
        let permit_rule = format!(
            "{}.illicit_discharge.{}",
            p.rule_prefix,
            if p.id == "windsor-ct" {
                "npdes_permitted"
            } else {
                "spdes_permitted"
            }
        );
        let permit_rule =
            permit_rule.replace("windsor.illicit_discharge", "windsor.illegal_discharge");
        for (approval, want, phrase) in table {
            let c = facts(
                Some("process wastewater"),
                Some(residential(&p)),
                vec![permit_record(*approval)],
            );
            let got = evaluate(&p, &c);
            let what = format!("{approval:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            assert!(!reasons(&got).contains("none is on record"), "{what}");
            assert!(!reasons(&got).contains("no exemption covers"), "{what}");
            assert!(cites(&got, &permit_rule), "{what}: {:?}", got.citations);
            // Both readings are cited: the permit route and clause (1).
            assert!(cites(
                &got,
                &format!(
                    "{}.illicit_connection.nonstormwater_conveyance",
                    p.rule_prefix
                )
            ));
            check_shape(&p, &got, &what);
        }
        // Counter-case: without a permit the discharge is illicit, and the reason says no
        // permit is on record.
        let got = evaluate(
            &p,
            &facts(Some("process wastewater"), Some(residential(&p)), vec![]),
        );
        assert_eq!(got.result, Illicit);
        assert!(
            reasons(&got).contains("none is on record"),
            "{}",
            reasons(&got)
        );
    }
}

#[test]
fn item_5_unqualified_words_never_widen_an_exemption() {
    // (raw, North Castle, Windsor)
    let table: &[(&str, IllicitStatus, IllicitStatus)] = &[
        ("street wash", NeedsReview, NeedsReview),
        ("condensate", NeedsReview, NeedsReview),
        ("flushing", NeedsReview, NeedsReview),
        ("infiltration", NeedsReview, NeedsReview),
        ("irrigation", NeedsReview, NeedsReview),
        ("lawn sprinkler", NeedsReview, NeedsReview),
        // Counter-cases: the qualified words are the exempt kinds.
        ("residential street wash water", Ok, Illicit),
        ("air-conditioning condensate", Ok, Illicit),
        ("waterline flushing", Ok, Ok),
        ("landscape irrigation", Ok, Ok),
    ];
    for (raw, nc, w) in table {
        for (p, want) in [(profile("north-castle-ny"), nc), (profile("windsor-ct"), w)] {
            let got = evaluate(&p, &facts(Some(raw), Some(residential(&p)), vec![]));
            let what = format!("{raw:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            if *want == NeedsReview {
                assert!(
                    reasons(&got).contains("ambiguous"),
                    "{what}: {}",
                    reasons(&got)
                );
            }
        }
    }
    // Windsor's dewatering system: review under AMB-33; sampling that finds pollutants
    // decides it under either reading.
    let w = profile("windsor-ct");
    let mut c = facts(
        Some("active groundwater dewatering system"),
        Some("101"),
        vec![],
    );
    let got = evaluate(&w, &c);
    assert_eq!(got.result, NeedsReview);
    assert!(assumes(&got, "AMB-33") && reasons(&got).contains("AMB-33"));
    c.pollutants_found = Some(true);
    assert_eq!(evaluate(&w, &c).result, Illicit);
}

fn approval(by: Option<&str>, plan: Option<&str>) -> RecordFacts {
    RecordFacts {
        record_id: "R-1".into(),
        approved: Some(true),
        approved_by: by.map(str::to_string),
        approved_on: Some("2015-06-01".into()),
        plan_ref: plan.map(str::to_string),
        matched_by: "names the connection".into(),
        ..RecordFacts::default()
    }
}

#[test]
fn item_6_approver_and_plan_reference_for_clause_two() {
    // (approved_by, plan_ref, expected, phrase), stormwater from industrial land.
    let table: &[(Option<&str>, Option<&str>, IllicitStatus, &str)] = &[
        (
            Some("Town Engineer"),
            Some("SP-1"),
            Ok,
            "an approver the profile lists",
        ),
        (
            Some("Acme Corp. facilities manager"),
            Some("SP-1"),
            NeedsReview,
            "not among the approvers the profile lists",
        ),
        (
            None,
            Some("SP-1"),
            NeedsReview,
            "does not name who approved it",
        ),
        (
            Some("Town Engineer"),
            None,
            NeedsReview,
            "names no plan, map or equivalent record",
        ),
    ];
    for p in both() {
        for (by, plan, want, phrase) in table {
            let c = facts(
                Some("stormwater"),
                Some(industrial(&p)),
                vec![approval(*by, *plan)],
            );
            let got = evaluate(&p, &c);
            let what = format!("{by:?} {plan:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            check_shape(&p, &got, &what);
        }
    }
}

#[test]
fn item_7_screening_and_determinations_feed_the_exemptions() {
    let screening = ScreeningFacts {
        inspection_id: "I-7".into(),
        outfall: "OF-1".into(),
        inspected_on: Some("2024-07-10".into()),
    };
    let det = |finding: Option<bool>| DeterminationFacts {
        determination_id: "D-1".into(),
        scope: "parcel".into(),
        subject: "P-1".into(),
        determined_on: Some("2023-01-05".into()),
        determined_by: Some("NYSDEC".into()),
        substantial_contributor: finding,
        finding_raw: None,
    };
    // (screened, determination, North Castle, Windsor, phrase in both)
    type Row = (
        bool,
        Option<bool>,
        IllicitStatus,
        IllicitStatus,
        &'static str,
    );
    let table: &[Row] = &[
        (
            true,
            None,
            NeedsReview,
            NeedsReview,
            "dry-weather screening I-7 of outfall OF-1",
        ),
        // Counter-case: no screening finding, no determination: exempt, conditions taken
        // as met and said so.
        (false, None, Ok, Ok, "exempt list"),
        // North Castle withdraws the exemption on a determination; Windsor has no such
        // condition.
        (false, Some(true), Illicit, Ok, "exempt list"),
        (false, Some(false), Ok, Ok, "exempt list"),
    ];
    for (screened, d, nc, w, phrase) in table {
        for (p, want) in [(profile("north-castle-ny"), nc), (profile("windsor-ct"), w)] {
            let mut c = facts(Some("springs"), Some(residential(&p)), vec![]);
            if *screened {
                c.screenings = vec![screening.clone()];
            }
            c.determinations = d.map(|x| vec![det(Some(x))]).unwrap_or_default();
            let got = evaluate(&p, &c);
            let what = format!("screened {screened} determination {d:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            if *screened {
                assert!(got.evidence.iter().any(|e| matches!(
                    e,
                    Evidence::Feature { layer, id, .. } if layer == "inspections" && id == "I-7"
                )));
            }
            if p.id == "north-castle-ny" {
                let r = reasons(&got);
                match d {
                    Some(true) => assert!(r.contains("determination D-1 by NYSDEC on 2023-01-05")),
                    Some(false) => assert!(r.contains("determined not a substantial contributor")),
                    None => {
                        assert!(r.contains("no determination by NYSDEC or the Town is on record"))
                    }
                }
            }
        }
    }
    // Uncontaminated: no sampling result is taken as met, and the answer says why.
    let nc = profile("north-castle-ny");
    let got = evaluate(
        &nc,
        &facts(
            Some("uncontaminated pumped groundwater"),
            Some("210"),
            vec![],
        ),
    );
    assert_eq!(got.result, Ok);
    assert!(
        reasons(&got).contains("taken as met until one shows pollutants"),
        "{}",
        reasons(&got)
    );
}

#[test]
fn item_15_every_assumption_id_emitted_is_one_a_test_exercises() {
    // The ids the tests above and beside assert on (clause_two, exempt_kinds,
    // prohibited_kinds, issue_items).
    let tested = [
        "AMB-01", "AMB-02", "AMB-03", "AMB-04", "AMB-05", "AMB-06", "AMB-14", "AMB-19", "AMB-31",
        "AMB-33",
    ];
    let reaches = [
        Ms4Reach::NotTraced,
        Ms4Reach::Unjoined,
        Ms4Reach::Other {
            joined: "CB".into(),
            owners: vec!["NYSDOT".into()],
        },
        Ms4Reach::OwnerUnknown {
            joined: "CB".into(),
            assets: vec!["CB".into()],
        },
    ];
    let mut emitted = std::collections::BTreeSet::new();
    for p in both() {
        for kind in DischargeKind::ALL
            .iter()
            .map(|k| Some(k.as_str()))
            .chain([None])
        {
            for land in [residential(&p), industrial(&p)] {
                for reach in &reaches {
                    for records in [vec![], vec![permit_record(Some(true))]] {
                        let mut c = facts(kind, Some(land), records);
                        c.ms4 = reach.clone();
                        let got = evaluate(&p, &c);
                        for a in &got.assumptions {
                            // The text shown is the profile's.
                            assert_eq!(a.text, p.assumption(&a.id).unwrap().text);
                            emitted.insert(a.id.clone());
                        }
                    }
                }
            }
        }
    }
    for id in &emitted {
        assert!(
            tested.contains(&id.as_str()),
            "{id} is emitted but no test checks it"
        );
    }
}

#[test]
fn item_4_ny_recreation_and_vacant_commercial_classes_need_review() {
    let nc = profile("north-castle-ny");
    // (class, expected): 5xx recreation and entertainment, 330/340 vacant commercial or
    // industrial land; counter-cases: vacant residential land and a one-family home.
    let table = [
        ("552", NeedsReview),
        ("570", NeedsReview),
        ("330", NeedsReview),
        ("340", NeedsReview),
        ("311", Ok),
        ("210", Ok),
        ("Golf course", NeedsReview),
    ];
    for (code, want) in table {
        let got = evaluate(&nc, &facts(Some("stormwater"), Some(code), vec![]));
        assert_eq!(got.result, want, "{code}: {}", reasons(&got));
        let amb03 = got.assumptions.iter().find(|a| a.id == "AMB-03").unwrap();
        // The reading shown says what the profile does.
        assert!(amb03.text.contains("recreation and entertainment (5xx)"));
        assert!(amb03.text.contains("(330, 340)"));
    }
}
