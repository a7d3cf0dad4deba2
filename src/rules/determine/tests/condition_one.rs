//! Condition One: Carmel's reading of the water evidence, and the screen on its own.

use rstest::rstest;

use super::*;

/// Carmel's Condition One from the runoff's water evidence: (area, larger common plan,
/// water, Condition One met, the open fact expected).
#[rstest]
#[case::a_303d_water(sqft(10_000.0), false, listed("phosphorus"), true, None)]
#[case::a_tmdl_with_stormwater_a_source(
    sqft(10_000.0),
    false,
    tmdl("phosphorus", Some(true), 8_000.0),
    true,
    None
)]
#[case::a_tmdl_with_stormwater_not_a_source(
    sqft(10_000.0),
    false,
    tmdl("phosphorus", Some(false), 8_000.0),
    false,
    None
)]
#[case::a_tmdl_whose_sources_are_unknown_is_left_open(
    sqft(10_000.0),
    false,
    tmdl("pathogens", None, 8_000.0),
    false,
    Some("TMDL-7")
)]
#[case::a_tmdl_touching_only(
    sqft(10_000.0),
    false,
    tmdl("phosphorus", Some(true), 0.0),
    false,
    None
)]
#[case::neither_a_listed_water_nor_a_tmdl(sqft(10_000.0), false, no_water(), false, None)]
#[case::a_303d_water_but_not_a_land_development_activity(
    sqft(4_000.0),
    false,
    listed("sediment"),
    false,
    None
)]
#[case::a_303d_water_and_a_larger_common_plan(sqft(1_000.0), true, listed("sediment"), true, None)]
#[case::a_303d_water_at_six_acres(acres(6.0), false, listed("pathogens"), true, None)]
fn carmel_condition_one_is_decided_from_the_water_evidence(
    #[case] area: Area,
    #[case] plan: bool,
    #[case] water: WaterEvidence,
    #[case] expected: bool,
    #[case] open: Option<&str>,
) {
    let label = format!("{area:?} plan={plan}");
    let f = ProjectFacts {
        larger_common_plan: Some(plan),
        ..facts(area)
    };
    let d = run(CARMEL, &f, &water);
    let c1 = &d.conditions.as_ref().unwrap().condition_one;
    assert_eq!(
        c1.result == Some(true),
        expected,
        "{label}: {}",
        reasons(c1)
    );
    for amb in ["AMB-07", "AMB-08", "AMB-09", "AMB-30"] {
        assert!(c1.assumptions.iter().any(|a| a.id == amb), "{label}: {amb}");
    }
    // Each water and TMDL area found is named as evidence.
    for w in &water.waters_303d {
        assert!(
            c1.evidence.iter().any(|e| matches!(e,
                Evidence::Feature { layer, id, note }
                    if layer == "receiving_waters" && *id == w.water_id
                        && note.contains(&w.reached_by) && note.contains(&w.pollutants[0]))),
            "{label}: {:?}",
            c1.evidence
        );
    }
    for t in &water.tmdl_areas {
        assert!(
            c1.evidence.iter().any(|e| matches!(e,
                Evidence::Feature { layer, id, .. } if layer == "tmdl_areas" && *id == t.tmdl_id)),
            "{label}"
        );
        assert!(
            c1.evidence.iter().any(|e| matches!(e,
                Evidence::Measure { what, .. } if what == "overlap_area")),
            "{label}"
        );
    }
    match open {
        Some(fact) => assert!(
            d.open_facts.iter().any(|o| o.contains(fact)),
            "{label}: {:?}",
            d.open_facts
        ),
        None => assert!(
            !d.open_facts.iter().any(|o| o.contains("TMDL")),
            "{label}: {:?}",
            d.open_facts
        ),
    }
    let one = if expected {
        S::Applies
    } else if c1.result.is_none() {
        S::Depends
    } else {
        S::DoesNotApply
    };
    assert_eq!(
        status(&d, K::ConditionOnePreparerCertification),
        Some(one),
        "{label}"
    );
    if expected {
        assert_eq!(status(&d, K::PostConstructionControls), Some(S::Applies));
        assert_eq!(status(&d, K::ConstructionInspections), Some(S::Applies));
        assert_eq!(status(&d, K::MaintenanceEasement), Some(S::Applies));
        assert_eq!(status(&d, K::MaintenanceAgreement), Some(S::Applies));
    }
}

/// How a TMDL that does not name stormwater was treated is said, with AMB-09.
#[test]
fn a_tmdl_not_naming_stormwater_is_said_not_counted() {
    let d = run(
        CARMEL,
        &facts(sqft(10_000.0)),
        &tmdl("phosphorus", Some(false), 1.0),
    );
    let c1 = &d.conditions.as_ref().unwrap().condition_one;
    assert!(reasons(c1).contains("AMB-09"), "{}", reasons(c1));
    assert!(reasons(c1).contains("not counted"), "{}", reasons(c1));
}

/// The reached-by path of a 303(d) water is in the reasons as well as the evidence.
#[test]
fn the_path_to_a_303d_water_is_in_the_reasons() {
    let d = run(CARMEL, &facts(sqft(10_000.0)), &listed("phosphorus"));
    let c1 = &d.conditions.as_ref().unwrap().condition_one;
    assert!(
        reasons(c1).contains("CB-12 → P-88 → OF-4"),
        "{}",
        reasons(c1)
    );
}

#[test]
fn carmel_condition_one_follows_the_profiles_pollutant_reading() {
    // AMB-08 "matched": only listings the project's runoff is known to carry count, and
    // the facts know only that construction runoff carries sediment.
    let mut p = profile(CARMEL);
    p.assumptions.get_mut("AMB-08").unwrap().setting = AssumptionValue::Text("matched".into());
    let f = facts(sqft(10_000.0));
    let phosphorus = determine(&p, &f, &listed("phosphorus"));
    assert!(!conditions(&phosphorus)[0]);
    assert!(phosphorus
        .open_facts
        .iter()
        .any(|o| o.contains("pollutants expected")));
    let sediment = determine(&p, &f, &listed("silt/sediment"));
    assert!(conditions(&sediment)[0]);
}

/// A lake listed for phosphorus, reached through watershed WS-1.
fn lake() -> WaterEvidence {
    WaterEvidence {
        waters_303d: vec![ListedWater {
            water_id: "NY-1".into(),
            name: "Lake".into(),
            pollutants: vec!["phosphorus".into()],
            reached_by: "watershed WS-1".into(),
        }],
        ..WaterEvidence::default()
    }
}

/// The screen's Condition One on its own is the whole determination's.
#[rstest]
#[case::two_acres_reaching_a_listed_water(2.0, lake())]
#[case::two_acres_reaching_no_water(2.0, WaterEvidence::default())]
#[case::under_the_land_development_threshold_reaching_a_listed_water(0.05, lake())]
fn condition_one_alone_agrees_with_the_whole_determination(
    #[case] acres: f64,
    #[case] water: WaterEvidence,
) {
    let carmel = Profile::builtin("carmel-ny").unwrap();
    let facts = ProjectFacts::new(crate::domain::Area::new(
        acres,
        crate::domain::AreaUnit::Acre,
    ));
    let alone = condition_one(&carmel, &facts, &water).unwrap();
    let whole = determine(&carmel, &facts, &water)
        .conditions
        .unwrap()
        .condition_one;
    assert_eq!(alone, whole, "{acres} acres");
}

#[test]
fn condition_one_alone_is_none_in_a_town_without_conditions() {
    let nc = Profile::builtin("north-castle-ny").unwrap();
    assert!(condition_one(
        &nc,
        &ProjectFacts::new(crate::domain::Area::new(2.0, crate::domain::AreaUnit::Acre)),
        &lake()
    )
    .is_none());
}

/// Under 5,000 sq ft and not given whether the project is part of a larger common plan,
/// Carmel's definition (§ 156-80, "or under one acre as part of a larger common plan")
/// cannot say whether it is a land development activity: at a 303(d) water Condition One
/// is undetermined, never "met" nor "not met"; the SWPPP depends, and the plan is the open
/// fact. Where Condition One is not met on the evidence, it is not met either way; and the
/// screen of many parcels answers as the determination does.
#[rstest]
#[case::at_a_303d_water(listed("sediment"), None, Some(RequirementStatus::Depends))]
#[case::draining_to_an_unlisted_water(
    unlisted_water(),
    Some(false),
    Some(RequirementStatus::Depends)
)]
fn carmel_a_plan_not_given_under_5000_sq_ft_leaves_the_answer_open(
    #[case] water: WaterEvidence,
    #[case] condition_one: Option<bool>,
    #[case] swppp: Option<RequirementStatus>,
) {
    let f = ProjectFacts {
        larger_common_plan: None,
        ..facts(sqft(4_000.0))
    };
    let d = run(CARMEL, &f, &water);
    assert_eq!(d.land_development_activity.result, None);
    assert!(
        reasons(&d.land_development_activity).contains("was not given"),
        "{}",
        reasons(&d.land_development_activity)
    );
    let c1 = &d.conditions.as_ref().unwrap().condition_one;
    assert_eq!(c1.result, condition_one, "{}", reasons(c1));
    if condition_one.is_none() {
        assert!(reasons(c1).contains("met if the law reaches the project"));
    }
    assert_eq!(status(&d, RequirementKind::Swppp), swppp);
    assert!(d.open_facts.contains(&"larger_common_plan".to_string()));
    let screen = crate::rules::determine::condition_one(&profile(CARMEL), &f, &water).unwrap();
    assert_eq!(
        screen.result,
        condition_one,
        "the screen: {}",
        reasons(&screen)
    );
    // Given that it is not part of one, the facts decide: not a land development
    // activity, Condition One not met, no SWPPP.
    let no_plan = run(CARMEL, &facts(sqft(4_000.0)), &water);
    assert_eq!(no_plan.land_development_activity.result, Some(false));
    assert_eq!(
        no_plan.conditions.as_ref().unwrap().condition_one.result,
        Some(false)
    );
    assert!(!no_plan
        .open_facts
        .contains(&"larger_common_plan".to_string()));
}
