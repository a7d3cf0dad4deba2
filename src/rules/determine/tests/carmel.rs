//! Carmel: Conditions Two and Three, and the inspection schedule.

use rstest::rstest;

use super::*;

/// Conditions Two and Three by area and the § 156-81C(3) exclusions: [Condition One, Two,
/// Three] met, and the requirements that follow.
#[rstest]
#[case::at_the_land_development_threshold(sqft(5_000.0), false, false, [false, false, false])]
#[case::a_square_foot_under_one_acre(sqft(43_559.0), false, false, [false, false, false])]
#[case::one_acre(acres(1.0), false, false, [false, false, true])]
#[case::one_acre_in_square_feet(sqft(43_560.0), false, false, [false, false, true])]
#[case::two_and_a_half_acres(acres(2.5), false, false, [false, false, true])]
#[case::a_square_foot_under_five_acres(sqft(217_799.0), false, false, [false, false, true])]
#[case::five_acres_is_condition_two(acres(5.0), false, false, [false, true, false])]
#[case::five_acres_in_square_feet(sqft(217_800.0), false, false, [false, true, false])]
#[case::twelve_acres(acres(12.0), false, false, [false, true, false])]
// Exclusions from Condition Three, never from Condition Two.
#[case::single_family_at_one_acre(acres(1.0), true, false, [false, false, false])]
#[case::single_family_at_two_and_a_half(acres(2.5), true, false, [false, false, false])]
#[case::agricultural_at_two_and_a_half(acres(2.5), false, true, [false, false, false])]
#[case::both_excluded_under_five(sqft(217_799.0), true, true, [false, false, false])]
#[case::single_family_at_five_acres(acres(5.0), true, false, [false, true, false])]
#[case::agricultural_at_five_acres(acres(5.0), false, true, [false, true, false])]
#[case::both_excluded_at_eight_acres(acres(8.0), true, true, [false, true, false])]
fn carmel_conditions_two_and_three_split_at_one_and_five_acres(
    #[case] area: Area,
    #[case] single_family: bool,
    #[case] agricultural: bool,
    #[case] expected: [bool; 3],
) {
    let f = ProjectFacts {
        single_family: Some(single_family),
        agricultural: Some(agricultural),
        ..facts(area)
    };
    let d = run(CARMEL, &f, &unlisted_water());
    assert_eq!(
        conditions(&d),
        expected,
        "{area:?} sf={single_family} ag={agricultural}: {:?}",
        d.conditions
    );
    // Agricultural property is not the agricultural-activity exemption.
    assert_eq!(d.exempt.result, Some(false), "{area:?}");
    let any = expected.iter().any(|m| *m);
    let due = if any { S::Applies } else { S::DoesNotApply };
    assert_eq!(status(&d, K::PostConstructionControls), Some(due));
    assert_eq!(status(&d, K::ConstructionInspections), Some(due));
    assert_eq!(
        status(&d, K::ConditionOnePreparerCertification),
        Some(S::DoesNotApply)
    );
    let facility = if any { S::Applies } else { S::Depends };
    assert_eq!(status(&d, K::MaintenanceEasement), Some(facility));
    assert_eq!(status(&d, K::MaintenanceAgreement), Some(facility));
    assert_eq!(status(&d, K::EnhancedPhosphorus), None);
}

#[test]
fn a_single_family_residence_is_excluded_from_condition_three_with_its_readings() {
    let excluded = run(
        CARMEL,
        &ProjectFacts {
            single_family: Some(true),
            ..facts(acres(2.0))
        },
        &no_water(),
    );
    let c3 = &excluded.conditions.as_ref().unwrap().condition_three;
    assert!(reasons(c3).contains("single-family"), "{}", reasons(c3));
    assert!(c3.assumptions.iter().any(|a| a.id == "AMB-11"));
    assert!(c3.assumptions.iter().any(|a| a.id == "AMB-10"));
}

#[test]
fn carmel_inspections_carry_the_seven_day_and_storm_schedule() {
    let d = run(CARMEL, &facts(acres(6.0)), &no_water());
    let r = d.requirement(K::ConstructionInspections).unwrap();
    assert_eq!(r.result.status, S::Applies);
    let every: Vec<_> = r.result.schedule.iter().map(|i| i.every).collect();
    let within: Vec<_> = r.result.schedule.iter().map(|i| i.within).collect();
    assert!(every.contains(&Some(7)), "{:?}", r.result.schedule);
    assert!(within.contains(&Some(24)), "{:?}", r.result.schedule);
    assert!(r
        .result
        .schedule
        .iter()
        .any(|i| i.min_rainfall_inches == Some(0.5)));
    assert!(
        r.result.summary.contains("every 7 calendar days"),
        "{}",
        r.result.summary
    );
    assert!(
        r.result.summary.contains("within 24 hours"),
        "{}",
        r.result.summary
    );
    assert!(r.assumptions.iter().any(|a| a.id == "AMB-15"));
}

/// Issue 8 item 8: the Condition Three exclusions are facts like the others. Not given,
/// a project of one to five acres is neither in nor out of Condition Three: undetermined,
/// with each missing fact open; given false, Condition Three is met; outside the range
/// they do not matter.
#[rstest]
#[case::neither_given(None, None, None)]
#[case::not_single_family_agricultural_not_given(Some(false), None, None)]
#[case::not_agricultural_single_family_not_given(None, Some(false), None)]
#[case::neither_exclusion_applies(Some(false), Some(false), Some(true))]
#[case::agricultural_excludes_it_single_family_not_given(None, Some(true), Some(false))]
#[case::single_family_excludes_it_agricultural_not_given(Some(true), None, Some(false))]
fn carmel_156_81c3_exclusions_not_given_leave_condition_three_undetermined(
    #[case] sf: Option<bool>,
    #[case] ag: Option<bool>,
    #[case] want: Option<bool>,
) {
    let f = ProjectFacts {
        single_family: sf,
        agricultural: ag,
        ..facts(acres(2.5))
    };
    let d = run(CARMEL, &f, &unlisted_water());
    assert_eq!(conditions_tri(&d)[2], want, "sf={sf:?} ag={ag:?}");
    let open = d.open_facts.join("; ");
    assert_eq!(
        open.contains("single-family residence"),
        want.is_none() && sf.is_none(),
        "sf={sf:?} ag={ag:?}: {open}"
    );
    assert_eq!(
        open.contains("agricultural property"),
        want.is_none() && ag.is_none(),
        "sf={sf:?} ag={ag:?}: {open}"
    );
}

/// Above five acres Condition Two decides, and the exclusions are not asked for.
#[test]
fn above_five_acres_condition_two_decides_without_the_exclusions() {
    let d = run(CARMEL, &facts(acres(8.0)), &unlisted_water());
    assert_eq!(conditions_tri(&d)[1..], [Some(true), Some(false)]);
}
