//! Land development activity: the area thresholds and the exemptions the facts decide.

use super::*;

#[test]
fn land_development_activity_thresholds_are_inclusive_and_read_from_the_profile() {
    // (jurisdiction, area, larger common plan, is a land development activity)
    let cases: &[(&str, Area, bool, bool)] = &[
        (NC, sqft(4_999.0), false, false),
        (NC, sqft(5_000.0), false, true),
        (CARMEL, sqft(4_999.0), false, false),
        (CARMEL, sqft(5_000.0), false, true),
        (WINDSOR, sqft(4_999.0), false, false),
        (WINDSOR, sqft(5_000.0), false, false),
        (WINDSOR, acres(10.0), false, false),
        // Larger common plan under 5,000 sq ft: Carmel's definition reaches it at any
        // size under one acre; North Castle's definition does not use the term.
        (CARMEL, sqft(2_000.0), true, true),
        (CARMEL, sqft(43_559.0), true, true),
        (NC, sqft(2_000.0), true, false),
        (NC, sqft(4_999.0), true, false),
        (WINDSOR, sqft(2_000.0), true, false),
        // A typed hectare figure: 0.05 ha is 5,381.96 sq ft.
        (
            CARMEL,
            Area::new(500.0, AreaUnit::Square(LengthUnit::Metre)),
            false,
            true,
        ),
        (
            CARMEL,
            Area::new(450.0, AreaUnit::Square(LengthUnit::Metre)),
            false,
            false,
        ),
    ];
    for &(id, area, plan, expected) in cases {
        let f = ProjectFacts {
            larger_common_plan: plan,
            ..facts(area)
        };
        let d = run(id, &f, &no_water());
        assert_eq!(
            d.land_development_activity.result,
            expected,
            "{id} {area:?} plan={plan}: {}",
            reasons(&d.land_development_activity)
        );
        let swppp = status(&d, K::Swppp);
        match id {
            WINDSOR => assert_eq!(swppp, None, "Windsor has no SWPPP rule"),
            _ => assert_eq!(
                swppp,
                Some(if expected {
                    S::Applies
                } else {
                    S::DoesNotApply
                }),
                "{id} {area:?}"
            ),
        }
    }

    // The larger-common-plan reasons name the rule and warn about the literal reading.
    let f = ProjectFacts {
        larger_common_plan: true,
        ..facts(sqft(2_000.0))
    };
    let carmel = run(CARMEL, &f, &no_water());
    let why = reasons(&carmel.land_development_activity);
    assert!(
        why.contains("no minimum size") && why.contains("warning"),
        "{why}"
    );
    assert!(carmel
        .land_development_activity
        .assumptions
        .iter()
        .any(|a| a.id == "AMB-12"));
    let nc = run(NC, &f, &no_water());
    assert!(nc
        .land_development_activity
        .citations
        .iter()
        .any(|c| c.rule == "northcastle.lda.larger_common_plan"));
    assert!(reasons(&nc.land_development_activity).contains("does not use the term"));

    // The threshold comes from the profile, not the code.
    let mut p = profile(CARMEL);
    p.thresholds
        .land_development_activity
        .as_mut()
        .unwrap()
        .value = 10_000.0;
    let d = determine(&p, &facts(sqft(5_000.0)), &no_water());
    assert!(!d.land_development_activity.result);
}

#[test]
fn exemptions_the_facts_decide() {
    // (jurisdiction, facts, land development activity, exempt)
    let ag_activity = ProjectFacts {
        agricultural_activity: Some(true),
        ..facts(acres(3.0))
    };
    let maintenance_small = ProjectFacts {
        routine_maintenance: Some(true),
        ..facts(acres(4.0))
    };
    let maintenance_large = ProjectFacts {
        routine_maintenance: Some(true),
        ..facts(acres(5.0))
    };
    let cases: &[(&str, &ProjectFacts, bool, bool)] = &[
        (CARMEL, &ag_activity, true, true),
        (NC, &ag_activity, true, false),
        (CARMEL, &maintenance_small, true, true),
        (CARMEL, &maintenance_large, true, false),
        // North Castle excludes routine maintenance from the definition, at any size.
        (NC, &maintenance_small, false, false),
        (NC, &maintenance_large, false, false),
        (WINDSOR, &ag_activity, false, false),
    ];
    for &(id, f, lda, exempt) in cases {
        let d = run(id, f, &listed("sediment"));
        assert_eq!(d.land_development_activity.result, lda, "{id} {f:?}");
        assert_eq!(
            d.exempt.result,
            exempt,
            "{id} {f:?}: {}",
            reasons(&d.exempt)
        );
        if id != WINDSOR {
            assert!(reasons(&d.exempt).contains("not evaluated"), "{id}");
        }
        if let Some(c) = &d.conditions {
            if exempt || !lda {
                assert_eq!(conditions(&d), [false; 3], "{id}: {c:?}");
                assert_eq!(status(&d, K::Swppp), Some(S::DoesNotApply));
            }
        }
    }
    // Carmel's 5-acre routine maintenance still meets Condition Two (and One by the water).
    let d = run(CARMEL, &maintenance_large, &listed("sediment"));
    assert_eq!(conditions(&d), [true, true, false]);
}
