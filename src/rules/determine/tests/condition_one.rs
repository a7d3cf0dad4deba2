//! Condition One: Carmel's reading of the water evidence, and the screen on its own.

use super::*;

/// (label, area, larger common plan, water, Condition One, open fact expected)
type WaterCase<'a> = (&'a str, Area, bool, WaterEvidence, bool, Option<&'a str>);

#[test]
fn carmel_condition_one_is_decided_from_the_water_evidence() {
    // (area, larger common plan, water, Condition One, open fact expected)
    let cases: &[WaterCase] = &[
        (
            "303(d) water",
            sqft(10_000.0),
            false,
            listed("phosphorus"),
            true,
            None,
        ),
        (
            "TMDL, stormwater a source",
            sqft(10_000.0),
            false,
            tmdl("phosphorus", Some(true), 8_000.0),
            true,
            None,
        ),
        (
            "TMDL, stormwater not a source",
            sqft(10_000.0),
            false,
            tmdl("phosphorus", Some(false), 8_000.0),
            false,
            None,
        ),
        (
            "TMDL, source unknown",
            sqft(10_000.0),
            false,
            tmdl("pathogens", None, 8_000.0),
            false,
            Some("TMDL-7"),
        ),
        (
            "TMDL touching only",
            sqft(10_000.0),
            false,
            tmdl("phosphorus", Some(true), 0.0),
            false,
            None,
        ),
        ("neither", sqft(10_000.0), false, no_water(), false, None),
        (
            "303(d) water, not an LDA",
            sqft(4_000.0),
            false,
            listed("sediment"),
            false,
            None,
        ),
        (
            "303(d) water, larger common plan",
            sqft(1_000.0),
            true,
            listed("sediment"),
            true,
            None,
        ),
        (
            "303(d) water, 6 acres",
            acres(6.0),
            false,
            listed("pathogens"),
            true,
            None,
        ),
    ];
    for (label, area, plan, water, expected, open) in cases {
        let f = ProjectFacts {
            larger_common_plan: *plan,
            ..facts(*area)
        };
        let d = run(CARMEL, &f, water);
        let c1 = &d.conditions.as_ref().unwrap().condition_one;
        assert_eq!(
            c1.result == Some(true),
            *expected,
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
        let one = if *expected {
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
        if *expected {
            assert_eq!(status(&d, K::PostConstructionControls), Some(S::Applies));
            assert_eq!(status(&d, K::ConstructionInspections), Some(S::Applies));
            assert_eq!(status(&d, K::MaintenanceEasement), Some(S::Applies));
            assert_eq!(status(&d, K::MaintenanceAgreement), Some(S::Applies));
        }
    }

    // How a TMDL that does not name stormwater was treated is said, with AMB-09.
    let d = run(
        CARMEL,
        &facts(sqft(10_000.0)),
        &tmdl("phosphorus", Some(false), 1.0),
    );
    let c1 = &d.conditions.as_ref().unwrap().condition_one;
    assert!(reasons(c1).contains("AMB-09"), "{}", reasons(c1));
    assert!(reasons(c1).contains("not counted"), "{}", reasons(c1));
    // The reached-by path of a 303(d) water is in the reasons as well as the evidence.
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

#[test]
fn condition_one_alone_agrees_with_the_whole_determination() {
    let carmel = Profile::builtin("carmel-ny").unwrap();
    let water = WaterEvidence {
        waters_303d: vec![ListedWater {
            water_id: "NY-1".into(),
            name: "Lake".into(),
            pollutants: vec!["phosphorus".into()],
            reached_by: "watershed WS-1".into(),
        }],
        ..WaterEvidence::default()
    };
    for (acres, water) in [
        (2.0, &water),
        (2.0, &WaterEvidence::default()),
        (0.05, &water),
    ] {
        let facts = ProjectFacts::new(crate::domain::Area::new(
            acres,
            crate::domain::AreaUnit::Acre,
        ));
        let alone = condition_one(&carmel, &facts, water).unwrap();
        let whole = determine(&carmel, &facts, water)
            .conditions
            .unwrap()
            .condition_one;
        assert_eq!(alone, whole, "{acres} acres");
    }
    let nc = Profile::builtin("north-castle-ny").unwrap();
    assert!(condition_one(
        &nc,
        &ProjectFacts::new(crate::domain::Area::new(2.0, crate::domain::AreaUnit::Acre)),
        &water
    )
    .is_none());
}
