//! Windsor: no land development rules.

use rstest::rstest;

use super::*;

/// Windsor has no land development rules; its premises inspection by (area, whether a
/// construction permit is needed), at and around its half-acre threshold.
#[rstest]
#[case::under_5000_sq_ft_the_permit_not_entered(sqft(4_999.0), None, S::Depends)]
#[case::a_square_foot_under_half_an_acre_the_permit_not_entered(sqft(21_779.0), None, S::Depends)]
#[case::under_half_an_acre_with_a_construction_permit(sqft(21_779.0), Some(true), S::Applies)]
#[case::under_half_an_acre_without_a_construction_permit(
    sqft(21_779.0),
    Some(false),
    S::DoesNotApply
)]
#[case::half_an_acre(acres(0.5), None, S::Applies)]
#[case::half_an_acre_in_square_feet_without_a_permit(sqft(21_780.0), Some(false), S::Applies)]
#[case::five_acres(acres(5.0), None, S::Applies)]
fn windsor_has_no_land_development_rules(
    #[case] area: Area,
    #[case] permit: Option<bool>,
    #[case] premises: S,
) {
    let f = ProjectFacts {
        construction_permit: permit,
        single_family: Some(true),
        ..facts(area)
    };
    let d = run(WINDSOR, &f, &listed("sediment"));
    assert!(d.not_covered);
    assert_eq!(d.land_development_activity.result, Some(false));
    assert_eq!(d.exempt.result, Some(false));
    assert!(d.conditions.is_none());
    assert!(d.conditions_absent.as_ref().unwrap().result);
    assert_eq!(status(&d, K::LandDevelopmentRules), Some(S::NotCovered));
    let p = d.requirement(K::PremisesInspection).unwrap();
    assert_eq!(
        p.result.status,
        premises,
        "{area:?} {permit:?}: {}",
        reasons(p)
    );
    assert!(p
        .citations
        .iter()
        .any(|c| c.rule == "windsor.construction_activity_threshold"));
    assert_eq!(
        d.open_facts.contains(&"construction_permit".to_string()),
        premises == S::Depends
    );
    for kind in [
        K::Swppp,
        K::PostConstructionControls,
        K::ConstructionInspections,
    ] {
        assert_eq!(status(&d, kind), None, "{kind:?}");
    }
}

/// The illicit-discharge-only family in another town's words: Windsor's profile with its
/// name made another town's gives answers that name only that town.
#[test]
fn a_discharge_only_town_reads_its_own_name() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/jurisdictions/windsor-ct.toml"
    ))
    .unwrap()
    .replace("Windsor", "Ashford")
    .replace("windsor", "ashford");
    let p = Profile::with_id("ashford-ct", &text, "ashford-ct.toml").unwrap();
    let mut all = String::new();
    for (area, permit) in [
        (sqft(1_000.0), None),
        (sqft(1_000.0), Some(true)),
        (acres(1.0), None),
    ] {
        let f = ProjectFacts {
            construction_permit: permit,
            ..facts(area)
        };
        all.push_str(&serde_json::to_string(&determine(&p, &f, &no_water())).unwrap());
    }
    assert!(!all.contains("Windsor"), "{all}");
    assert!(
        all.contains("Ashford erosion and sediment control permit"),
        "{all}"
    );
    assert!(
        all.contains("(Ashford [Monitoring of discharges section])"),
        "{all}"
    );
}
