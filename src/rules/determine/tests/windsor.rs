//! Windsor: no land development rules.

use super::*;

#[test]
fn windsor_has_no_land_development_rules() {
    // (area, construction permit, premises inspection)
    let cases: &[(Area, Option<bool>, S)] = &[
        (sqft(4_999.0), None, S::Depends),
        (sqft(21_779.0), None, S::Depends),
        (sqft(21_779.0), Some(true), S::Applies),
        (sqft(21_779.0), Some(false), S::DoesNotApply),
        (acres(0.5), None, S::Applies),
        (sqft(21_780.0), Some(false), S::Applies),
        (acres(5.0), None, S::Applies),
    ];
    for &(area, permit, premises) in cases {
        let f = ProjectFacts {
            construction_permit: permit,
            single_family: Some(true),
            ..facts(area)
        };
        let d = run(WINDSOR, &f, &listed("sediment"));
        assert!(d.not_covered);
        assert!(!d.land_development_activity.result);
        assert!(!d.exempt.result);
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
}
