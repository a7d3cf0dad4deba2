//! Who and what the rules apply to (status, whose MS4), permits, unqualified words,
//! approvals and screening: one table per item, per jurisdiction, at the law's words and
//! the counter-case.

use rstest::rstest;

use super::*;

fn both() -> [Profile; 2] {
    [profile("north-castle-ny"), profile("windsor-ct")]
}

/// A sewage connection from a residence by its recorded status: (status, removed_on),
/// the outcome in both towns and a phrase the reasons must hold.
#[rstest]
#[case::abandoned_with_a_removal_date(
    Some("abandoned"),
    Some("2019-04-02"),
    Ok,
    "recorded as \"abandoned\", removed on 2019-04-02"
)]
#[case::removed_without_a_date(Some("Removed"), None, Ok, "a date the registry does not record")]
#[case::proposed_is_a_plan_to_review(
    Some("proposed"),
    None,
    NeedsReview,
    "a plan to review, not a violation"
)]
#[case::no_status_is_taken_as_existing(
    None,
    None,
    Illicit,
    "no status is recorded for the connection, so it is taken"
)]
// Counter-case: an active connection is still judged.
#[case::active_is_judged(Some("active"), None, Illicit, "clause (1) is met")]
// Issue 25 item 14: "inactive" says out of use, not removed: review (it was taken as
// existing and judged illicit).
#[case::inactive_is_for_review(
    Some("inactive"),
    None,
    NeedsReview,
    "out of use, not that it was removed"
)]
fn item_1_connection_status_removed_proposed_missing_and_active(
    #[case] status: Option<&str>,
    #[case] removed_on: Option<&str>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for p in both() {
        let mut c = facts(Some("sewage"), Some(residential(&p)), vec![]);
        c.status_raw = status.map(str::to_string);
        c.removed_on = removed_on.map(str::to_string);
        let got = evaluate(&p, &c);
        let what = format!("{status:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
    }
}

/// A proposed plan says what it would be if built.
#[test]
fn item_1_a_proposed_connection_says_what_it_would_be_if_built() {
    let p = profile("north-castle-ny");
    let mut c = facts(Some("sewage"), Some("210"), vec![]);
    c.status_raw = Some("proposed".into());
    assert!(reasons(&evaluate(&p, &c)).contains("if built as recorded it would be illicit"));
}

/// A sewage connection from a residence by the MS4 it reaches: the outcome in both towns,
/// a phrase the reasons must hold, and whether the missing-owner reading (AMB-19) is used.
#[rstest]
#[case::a_town_asset(
    Ms4Reach::Ms4 {
        asset: "CB-1".into(),
        owner: Some("Town".into()),
        path: vec!["CB-1".into()],
    },
    Illicit,
    "clause (1) is met",
    false
)]
#[case::an_asset_without_an_owner(
    Ms4Reach::Ms4 {
        asset: "MH-9".into(),
        owner: None,
        path: vec!["CB-9".into(), "PI-9".into(), "MH-9".into()],
    },
    Illicit,
    "reads an asset without an owner as part of",
    true
)]
#[case::joined_to_no_structure(Ms4Reach::Unjoined, Illicit, "joins no structure or pipe", true)]
#[case::another_owners_system_is_referred(
    Ms4Reach::Other {
        joined: "CB-DOT".into(),
        owners: vec!["NYSDOT".into()],
    },
    NotCovered,
    "refer it to NYSDOT",
    true
)]
#[case::owners_unknown_downstream(
    Ms4Reach::OwnerUnknown {
        joined: "CB-X".into(),
        assets: vec!["CB-X".into()],
    },
    NeedsReview,
    "record no owner",
    true
)]
fn item_2_whose_ms4_first_town_asset_or_referral(
    #[case] reach: Ms4Reach,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
    #[case] amb19: bool,
) {
    for p in both() {
        let mut c = facts(Some("sewage"), Some(residential(&p)), vec![]);
        c.ms4 = reach.clone();
        let got = evaluate(&p, &c);
        let what = format!("{reach:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        assert_eq!(assumes(&got, "AMB-19"), amb19, "{what}");
        check_shape(&p, &got, &what);
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

/// The rule of each town for a discharge under a SPDES or NPDES permit.
fn permit_rule(p: &Profile) -> String {
    let permit_rule = format!(
        "{}.illicit_discharge.{}",
        p.rule_prefix,
        if p.id == "windsor-ct" {
            "npdes_permitted"
        } else {
            "spdes_permitted"
        }
    );
    permit_rule.replace("windsor.illicit_discharge", "windsor.illegal_discharge")
}

/// Process wastewater from a residence (clause (2) out) under a permit, by the MS4's
/// written approval: the outcome in both towns and a phrase the reasons must hold.
#[rstest]
#[case::approved_by_the_ms4(
    Some(true),
    NeedsReview,
    "on one reading the prohibition does not apply"
)]
#[case::approval_not_recorded(None, NeedsReview, "does not say whether written approval")]
#[case::approval_refused(Some(false), Illicit, "was not granted")]
fn item_3_permitted_discharges_are_at_most_review(
    #[case] approval: Option<bool>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for p in both() {
        let permit_rule = permit_rule(&p);
        let c = facts(
            Some("process wastewater"),
            Some(residential(&p)),
            vec![permit_record(approval)],
        );
        let got = evaluate(&p, &c);
        let what = format!("{approval:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
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
}

/// Counter-case: without a permit the discharge is illicit, and the reason says no permit
/// is on record.
#[test]
fn item_3_without_a_permit_process_wastewater_is_illicit() {
    for p in both() {
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

/// A discharge kind as written, from a residence: the outcome in North Castle and Windsor.
#[rstest]
#[case::street_wash("street wash", NeedsReview, NeedsReview)]
#[case::condensate("condensate", NeedsReview, NeedsReview)]
#[case::flushing("flushing", NeedsReview, NeedsReview)]
#[case::infiltration("infiltration", NeedsReview, NeedsReview)]
#[case::irrigation("irrigation", NeedsReview, NeedsReview)]
#[case::lawn_sprinkler("lawn sprinkler", NeedsReview, NeedsReview)]
// Counter-cases: the qualified words are the exempt kinds.
#[case::residential_street_wash_water("residential street wash water", Ok, Illicit)]
#[case::air_conditioning_condensate("air-conditioning condensate", Ok, Illicit)]
#[case::waterline_flushing("waterline flushing", Ok, Ok)]
#[case::landscape_irrigation("landscape irrigation", Ok, Ok)]
fn item_5_unqualified_words_never_widen_an_exemption(
    #[case] raw: &str,
    #[case] nc: IllicitStatus,
    #[case] w: IllicitStatus,
) {
    for (p, want) in [(profile("north-castle-ny"), nc), (profile("windsor-ct"), w)] {
        let got = evaluate(&p, &facts(Some(raw), Some(residential(&p)), vec![]));
        let what = format!("{raw:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        if want == NeedsReview {
            assert!(
                reasons(&got).contains("ambiguous"),
                "{what}: {}",
                reasons(&got)
            );
        }
    }
}

/// Windsor's dewatering system: review under AMB-33; sampling that finds pollutants
/// decides it under either reading.
#[test]
fn item_5_windsor_dewatering_systems_need_review_unless_sampled() {
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

/// Stormwater from industrial land with an approved record, by who approved it and the
/// plan it names: the outcome in both towns and a phrase the reasons must hold.
#[rstest]
#[case::a_listed_approver_and_a_plan(
    Some("Town Engineer"),
    Some("SP-1"),
    Ok,
    "an approver the profile lists"
)]
#[case::an_approver_the_profile_does_not_list(
    Some("Acme Corp. facilities manager"),
    Some("SP-1"),
    NeedsReview,
    "not among the approvers the profile lists"
)]
#[case::no_approver_named(None, Some("SP-1"), NeedsReview, "does not name who approved it")]
#[case::no_plan_named(
    Some("Town Engineer"),
    None,
    NeedsReview,
    "names no plan, map or equivalent record"
)]
fn item_6_approver_and_plan_reference_for_clause_two(
    #[case] by: Option<&str>,
    #[case] plan: Option<&str>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for p in both() {
        let c = facts(
            Some("stormwater"),
            Some(industrial(&p)),
            vec![approval(by, plan)],
        );
        let got = evaluate(&p, &c);
        let what = format!("{by:?} {plan:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
    }
}

fn screening() -> ScreeningFacts {
    ScreeningFacts {
        inspection_id: "I-7".into(),
        outfall: "OF-1".into(),
        inspected_on: Some("2024-07-10".into()),
    }
}

fn determination(finding: Option<bool>) -> DeterminationFacts {
    DeterminationFacts {
        determination_id: "D-1".into(),
        scope: "parcel".into(),
        subject: "P-1".into(),
        determined_on: Some("2023-01-05".into()),
        determined_by: Some("NYSDEC".into()),
        substantial_contributor: finding,
        finding_raw: None,
    }
}

/// Springs from a residence by (screened, substantial-contributor determination): the
/// outcome in North Castle and Windsor, and a phrase the reasons must hold in both.
#[rstest]
#[case::a_screening_finding_needs_review(
    true,
    None,
    NeedsReview,
    NeedsReview,
    "dry-weather screening I-7 of outfall OF-1"
)]
// Counter-case: no screening finding, no determination: exempt, conditions taken as met
// and said so.
#[case::no_screening_and_no_determination(false, None, Ok, Ok, "exempt list")]
// North Castle withdraws the exemption on a determination; Windsor has no such condition.
#[case::determined_a_substantial_contributor(false, Some(true), Illicit, Ok, "exempt list")]
#[case::determined_not_a_substantial_contributor(false, Some(false), Ok, Ok, "exempt list")]
fn item_7_screening_and_determinations_feed_the_exemptions(
    #[case] screened: bool,
    #[case] d: Option<bool>,
    #[case] nc: IllicitStatus,
    #[case] w: IllicitStatus,
    #[case] phrase: &str,
) {
    for (p, want) in [(profile("north-castle-ny"), nc), (profile("windsor-ct"), w)] {
        let mut c = facts(Some("springs"), Some(residential(&p)), vec![]);
        if screened {
            c.screenings = vec![screening()];
        }
        c.determinations = d.map(|x| vec![determination(Some(x))]).unwrap_or_default();
        let got = evaluate(&p, &c);
        let what = format!("screened {screened} determination {d:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        if screened {
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
                    assert!(r.contains(
                        "no determination by the Department or the municipality is on record"
                    ));
                }
            }
        }
    }
}

/// Uncontaminated: no sampling result is taken as met, and the answer says why.
#[test]
fn item_7_uncontaminated_is_taken_as_met_until_sampling_shows_pollutants() {
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

/// North Castle's land-use classes for stormwater: 5xx recreation and entertainment,
/// 330/340 vacant commercial or industrial land; counter-cases: vacant residential land
/// and a one-family home.
#[rstest]
#[case::recreation_552("552", NeedsReview)]
#[case::recreation_570("570", NeedsReview)]
#[case::vacant_commercial_330("330", NeedsReview)]
#[case::vacant_industrial_340("340", NeedsReview)]
#[case::vacant_residential_311("311", Ok)]
#[case::one_family_210("210", Ok)]
#[case::a_golf_course_in_words("Golf course", NeedsReview)]
fn item_4_ny_recreation_and_vacant_commercial_classes_need_review(
    #[case] code: &str,
    #[case] want: IllicitStatus,
) {
    let nc = profile("north-castle-ny");
    let got = evaluate(&nc, &facts(Some("stormwater"), Some(code), vec![]));
    assert_eq!(got.result, want, "{code}: {}", reasons(&got));
    let amb03 = got.assumptions.iter().find(|a| a.id == "AMB-03").unwrap();
    // The reading shown says what the profile does.
    assert!(amb03.text.contains("recreation and entertainment (5xx)"));
    assert!(amb03.text.contains("(330, 340)"));
}
