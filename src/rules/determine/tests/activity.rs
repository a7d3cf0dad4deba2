//! Land development activity: the area thresholds and the exemptions the facts decide.

use rstest::rstest;

use super::*;

/// A land development activity or not, by (jurisdiction, area, larger common plan), and
/// the SWPPP that follows from it.
#[rstest]
#[case::north_castle_under_5000_sq_ft(NC, sqft(4_999.0), Some(false), Some(false))]
#[case::north_castle_at_5000_sq_ft(NC, sqft(5_000.0), Some(false), Some(true))]
#[case::carmel_under_5000_sq_ft(CARMEL, sqft(4_999.0), Some(false), Some(false))]
#[case::carmel_at_5000_sq_ft(CARMEL, sqft(5_000.0), Some(false), Some(true))]
#[case::windsor_under_5000_sq_ft(WINDSOR, sqft(4_999.0), Some(false), Some(false))]
#[case::windsor_has_none_at_5000_sq_ft(WINDSOR, sqft(5_000.0), Some(false), Some(false))]
#[case::windsor_has_none_at_ten_acres(WINDSOR, acres(10.0), Some(false), Some(false))]
// Larger common plan under 5,000 sq ft: Carmel's definition reaches it at any size under
// one acre; North Castle's definition does not use the term.
#[case::carmel_larger_common_plan_at_2000_sq_ft(CARMEL, sqft(2_000.0), Some(true), Some(true))]
#[case::carmel_larger_common_plan_a_square_foot_under_an_acre(
    CARMEL,
    sqft(43_559.0),
    Some(true),
    Some(true)
)]
#[case::north_castle_larger_common_plan_at_2000_sq_ft(NC, sqft(2_000.0), Some(true), Some(false))]
#[case::north_castle_larger_common_plan_under_5000_sq_ft(
    NC,
    sqft(4_999.0),
    Some(true),
    Some(false)
)]
#[case::windsor_larger_common_plan(WINDSOR, sqft(2_000.0), Some(true), Some(false))]
// Not given whether it is part of a plan: under 5,000 sq ft Carmel's answer turns on it
// (undetermined, and the SWPPP depends); at 5,000 sq ft the area decides; North Castle's
// and Windsor's definitions never read the plan.
#[case::carmel_plan_not_given_at_2000_sq_ft(CARMEL, sqft(2_000.0), None, None)]
#[case::carmel_plan_not_given_at_4999_sq_ft(CARMEL, sqft(4_999.0), None, None)]
#[case::carmel_plan_not_given_at_5000_sq_ft(CARMEL, sqft(5_000.0), None, Some(true))]
#[case::north_castle_plan_not_given_at_4999_sq_ft(NC, sqft(4_999.0), None, Some(false))]
#[case::windsor_plan_not_given(WINDSOR, sqft(2_000.0), None, Some(false))]
// A typed hectare figure: 0.05 ha is 5,381.96 sq ft.
#[case::carmel_500_square_metres_is_over_5000_sq_ft(
    CARMEL,
    Area::new(500.0, AreaUnit::Square(LengthUnit::Metre)),
    Some(false),
    Some(true)
)]
#[case::carmel_450_square_metres_is_under_5000_sq_ft(
    CARMEL,
    Area::new(450.0, AreaUnit::Square(LengthUnit::Metre)),
    Some(false),
    Some(false)
)]
fn land_development_activity_thresholds_are_inclusive_and_read_from_the_profile(
    #[case] id: &str,
    #[case] area: Area,
    #[case] plan: Option<bool>,
    #[case] expected: Option<bool>,
) {
    let f = ProjectFacts {
        larger_common_plan: plan,
        ..facts(area)
    };
    let d = run(id, &f, &no_water());
    assert_eq!(
        d.land_development_activity.result,
        expected,
        "{id} {area:?} plan={plan:?}: {}",
        reasons(&d.land_development_activity)
    );
    let swppp = status(&d, K::Swppp);
    match id {
        WINDSOR => assert_eq!(swppp, None, "Windsor has no SWPPP rule"),
        _ => assert_eq!(
            swppp,
            Some(match expected {
                Some(true) => S::Applies,
                Some(false) => S::DoesNotApply,
                None => S::Depends,
            }),
            "{id} {area:?}"
        ),
    }
}

/// The larger-common-plan reasons name the rule and warn about the literal reading.
#[test]
fn larger_common_plan_reasons_name_the_rule_and_warn_about_the_literal_reading() {
    let f = ProjectFacts {
        larger_common_plan: Some(true),
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
}

/// The threshold comes from the profile, not the code.
#[test]
fn the_land_development_threshold_is_the_profiles() {
    let mut p = profile(CARMEL);
    p.thresholds
        .land_development_activity
        .as_mut()
        .unwrap()
        .value = 10_000.0;
    let d = determine(&p, &facts(sqft(5_000.0)), &no_water());
    assert_eq!(d.land_development_activity.result, Some(false));
}

fn agricultural_activity() -> ProjectFacts {
    ProjectFacts {
        agricultural_activity: Some(true),
        ..facts(acres(3.0))
    }
}

fn routine_maintenance(area: Area) -> ProjectFacts {
    ProjectFacts {
        routine_maintenance: Some(true),
        ..facts(area)
    }
}

/// (jurisdiction, facts, land development activity, exempt)
#[rstest]
#[case::carmel_exempts_agricultural_activity(CARMEL, agricultural_activity(), true, true)]
#[case::north_castle_does_not_exempt_agricultural_activity(
    NC,
    agricultural_activity(),
    true,
    false
)]
#[case::carmel_exempts_routine_maintenance_under_five_acres(
    CARMEL,
    routine_maintenance(acres(4.0)),
    true,
    true
)]
#[case::carmel_routine_maintenance_at_five_acres_is_not_exempt(
    CARMEL,
    routine_maintenance(acres(5.0)),
    true,
    false
)]
// North Castle excludes routine maintenance from the definition, at any size.
#[case::north_castle_routine_maintenance_is_no_land_development_activity(
    NC,
    routine_maintenance(acres(4.0)),
    false,
    false
)]
#[case::north_castle_routine_maintenance_at_five_acres_neither(
    NC,
    routine_maintenance(acres(5.0)),
    false,
    false
)]
#[case::windsor_has_neither(WINDSOR, agricultural_activity(), false, false)]
fn exemptions_the_facts_decide(
    #[case] id: &str,
    #[case] f: ProjectFacts,
    #[case] lda: bool,
    #[case] exempt: bool,
) {
    let d = run(id, &f, &listed("sediment"));
    assert_eq!(d.land_development_activity.result, Some(lda), "{id} {f:?}");
    assert_eq!(
        d.exempt.result,
        Some(exempt),
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

/// Carmel's 5-acre routine maintenance still meets Condition Two (and One by the water).
#[test]
fn carmel_routine_maintenance_at_five_acres_meets_condition_two() {
    let d = run(
        CARMEL,
        &routine_maintenance(acres(5.0)),
        &listed("sediment"),
    );
    assert_eq!(conditions(&d), [true, true, false]);
}
