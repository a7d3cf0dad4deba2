//! Table-driven tests of the determination against the builtin profiles.

use super::context::{group, trim};
use super::*;
use crate::domain::{AreaUnit, LengthUnit};
use crate::rules::answer::Evidence;
use crate::rules::profile::{AssumptionValue, SQFT_PER_ACRE};
use RequirementKind as K;
use RequirementStatus as S;

const NC: &str = "north-castle-ny";
const CARMEL: &str = "carmel-ny";
const WINDSOR: &str = "windsor-ct";

fn profile(id: &str) -> Profile {
    Profile::builtin(id).unwrap_or_else(|e| panic!("{e}"))
}

fn sqft(v: f64) -> Area {
    Area::new(v, AreaUnit::Square(LengthUnit::Foot))
}

fn acres(v: f64) -> Area {
    Area::new(v, AreaUnit::Acre)
}

fn facts(area: Area) -> ProjectFacts {
    ProjectFacts::new(area)
}

fn run(id: &str, facts: &ProjectFacts, water: &WaterEvidence) -> Determination {
    determine(&profile(id), facts, water)
}

fn status(d: &Determination, kind: RequirementKind) -> Option<RequirementStatus> {
    d.requirement(kind).map(|r| r.result.status)
}

fn conditions(d: &Determination) -> [bool; 3] {
    let c = d.conditions.as_ref().expect("Carmel has Conditions");
    [
        c.condition_one.result,
        c.condition_two.result,
        c.condition_three.result,
    ]
}

fn no_water() -> WaterEvidence {
    WaterEvidence::default()
}

fn listed(pollutant: &str) -> WaterEvidence {
    WaterEvidence {
        waters_303d: vec![ListedWater {
            water_id: "NY-1301-0021".to_string(),
            name: "Byram River".to_string(),
            pollutants: vec![pollutant.to_string()],
            reached_by: "trace CB-12 → P-88 → OF-4".to_string(),
        }],
        tmdl_areas: Vec::new(),
    }
}

fn tmdl(pollutant: &str, stormwater_source: Option<bool>, overlap_sqft: f64) -> WaterEvidence {
    WaterEvidence {
        waters_303d: Vec::new(),
        tmdl_areas: vec![TmdlOverlap {
            tmdl_id: "TMDL-7".to_string(),
            pollutant: pollutant.to_string(),
            stormwater_source,
            overlap: sqft(overlap_sqft),
        }],
    }
}

/// (label, area, larger common plan, water, Condition One, open fact expected)
type WaterCase<'a> = (&'a str, Area, bool, WaterEvidence, bool, Option<&'a str>);

/// (jurisdiction, area, water, reviewer's entry, enhanced phosphorus, post-construction)
type PhosphorusCase<'a> = (
    &'a str,
    Area,
    WaterEvidence,
    Option<bool>,
    Option<S>,
    Option<S>,
);

fn reasons(f: &Finding<impl Sized>) -> String {
    f.reasons.join(" | ")
}

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
fn carmel_conditions_two_and_three_split_at_one_and_five_acres() {
    // (area, single-family, agricultural, [Condition One, Two, Three])
    let cases: &[(Area, bool, bool, [bool; 3])] = &[
        (sqft(5_000.0), false, false, [false, false, false]),
        (sqft(43_559.0), false, false, [false, false, false]),
        (acres(1.0), false, false, [false, false, true]),
        (sqft(43_560.0), false, false, [false, false, true]),
        (acres(2.5), false, false, [false, false, true]),
        (sqft(217_799.0), false, false, [false, false, true]),
        (acres(5.0), false, false, [false, true, false]),
        (sqft(217_800.0), false, false, [false, true, false]),
        (acres(12.0), false, false, [false, true, false]),
        // Exclusions from Condition Three, never from Condition Two.
        (acres(1.0), true, false, [false, false, false]),
        (acres(2.5), true, false, [false, false, false]),
        (acres(2.5), false, true, [false, false, false]),
        (sqft(217_799.0), true, true, [false, false, false]),
        (acres(5.0), true, false, [false, true, false]),
        (acres(5.0), false, true, [false, true, false]),
        (acres(8.0), true, true, [false, true, false]),
    ];
    for &(area, single_family, agricultural, expected) in cases {
        let f = ProjectFacts {
            single_family,
            agricultural,
            ..facts(area)
        };
        let d = run(CARMEL, &f, &no_water());
        assert_eq!(
            conditions(&d),
            expected,
            "{area:?} sf={single_family} ag={agricultural}: {:?}",
            d.conditions
        );
        // Agricultural property is not the agricultural-activity exemption.
        assert!(!d.exempt.result, "{area:?}");
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

    let excluded = run(
        CARMEL,
        &ProjectFacts {
            single_family: true,
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
        assert_eq!(c1.result, *expected, "{label}: {}", reasons(c1));
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
fn exemptions_the_facts_decide() {
    // (jurisdiction, facts, land development activity, exempt)
    let ag_activity = ProjectFacts {
        agricultural_activity: true,
        ..facts(acres(3.0))
    };
    let maintenance_small = ProjectFacts {
        routine_maintenance: true,
        ..facts(acres(4.0))
    };
    let maintenance_large = ProjectFacts {
        routine_maintenance: true,
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

#[test]
fn north_castle_has_no_conditions_and_reads_the_general_permit_indicator() {
    // (area, in NYC East of Hudson, larger common plan, GP status, qualified inspector)
    let cases: &[(Area, Option<bool>, bool, S, S)] = &[
        (
            sqft(4_999.0),
            Some(true),
            false,
            S::DoesNotApply,
            S::DoesNotApply,
        ),
        (
            sqft(5_000.0),
            Some(true),
            false,
            S::Indicated,
            S::DoesNotApply,
        ),
        (
            sqft(5_000.0),
            Some(false),
            false,
            S::DoesNotApply,
            S::DoesNotApply,
        ),
        (sqft(5_000.0), None, false, S::Depends, S::DoesNotApply),
        (
            sqft(5_000.0),
            Some(false),
            true,
            S::Depends,
            S::DoesNotApply,
        ),
        (
            sqft(43_559.0),
            Some(false),
            false,
            S::DoesNotApply,
            S::DoesNotApply,
        ),
        (acres(1.0), None, false, S::Indicated, S::Applies),
        (acres(5.0), None, false, S::Indicated, S::Applies),
        (
            sqft(217_799.0),
            Some(false),
            false,
            S::Indicated,
            S::Applies,
        ),
    ];
    for &(area, eoh, plan, gp, inspector) in cases {
        let f = ProjectFacts {
            in_nyc_east_of_hudson_watershed: eoh,
            larger_common_plan: plan,
            ..facts(area)
        };
        let d = run(NC, &f, &no_water());
        assert!(d.conditions.is_none());
        let absent = d
            .conditions_absent
            .as_ref()
            .expect("North Castle: no Conditions");
        assert!(absent.result);
        assert!(absent
            .citations
            .iter()
            .any(|c| c.rule == "northcastle.conditions.absent"));
        let g = d.requirement(K::ConstructionGeneralPermit).unwrap();
        assert_eq!(
            g.result.status,
            gp,
            "{area:?} {eoh:?} plan={plan}: {}",
            reasons(g)
        );
        assert_eq!(
            status(&d, K::ConstructionInspections),
            Some(inspector),
            "{area:?}"
        );
        if gp == S::Depends && eoh.is_none() {
            assert!(d
                .open_facts
                .contains(&"in_nyc_east_of_hudson_watershed".to_string()));
        }
        assert_eq!(status(&d, K::ConditionOnePreparerCertification), None);
        assert!(!d.not_covered);
    }
    let d = run(NC, &facts(acres(2.0)), &no_water());
    let r = d.requirement(K::ConstructionInspections).unwrap();
    assert_eq!(r.result.schedule.len(), 1);
    assert_eq!(r.result.schedule[0].every, Some(7));
    assert!(
        r.result.summary.contains("every 7 calendar days"),
        "{}",
        r.result.summary
    );
    assert!(r.result.summary.contains("no storm-event trigger"));

    // A reviewer's entry of the permit's outcome wins over the indicator.
    let f = ProjectFacts {
        gp: GpDeterminations {
            coverage: Some(false),
            ..Default::default()
        },
        ..facts(acres(3.0))
    };
    let d = run(NC, &f, &no_water());
    assert_eq!(
        status(&d, K::ConstructionGeneralPermit),
        Some(S::DoesNotApply)
    );
}

#[test]
fn enhanced_phosphorus_only_in_north_castle_and_only_with_a_phosphorus_tmdl_overlap() {
    let reviewer = |ep: Option<bool>| GpDeterminations {
        enhanced_phosphorus: ep,
        ..Default::default()
    };
    // (jurisdiction, area, water, reviewer's entry, enhanced phosphorus, post-construction)
    let cases: &[PhosphorusCase] = &[
        (
            NC,
            sqft(10_000.0),
            tmdl("Phosphorus, total", Some(true), 6_000.0),
            None,
            Some(S::Indicated),
            Some(S::Indicated),
        ),
        (
            NC,
            sqft(10_000.0),
            tmdl("phosphorus", None, 6_000.0),
            None,
            Some(S::Indicated),
            Some(S::Indicated),
        ),
        (
            NC,
            sqft(10_000.0),
            tmdl("pathogens", Some(true), 6_000.0),
            None,
            Some(S::DoesNotApply),
            Some(S::Depends),
        ),
        (
            NC,
            sqft(10_000.0),
            tmdl("phosphorus", Some(true), 0.0),
            None,
            Some(S::DoesNotApply),
            Some(S::Depends),
        ),
        (
            NC,
            sqft(10_000.0),
            listed("phosphorus"),
            None,
            Some(S::DoesNotApply),
            Some(S::Depends),
        ),
        (
            NC,
            sqft(10_000.0),
            no_water(),
            None,
            Some(S::DoesNotApply),
            Some(S::Depends),
        ),
        (
            NC,
            sqft(4_000.0),
            tmdl("phosphorus", Some(true), 4_000.0),
            None,
            Some(S::DoesNotApply),
            Some(S::DoesNotApply),
        ),
        (
            NC,
            sqft(10_000.0),
            no_water(),
            Some(true),
            Some(S::Applies),
            Some(S::Applies),
        ),
        (
            NC,
            sqft(10_000.0),
            tmdl("phosphorus", Some(true), 6_000.0),
            Some(false),
            Some(S::DoesNotApply),
            Some(S::Depends),
        ),
        (
            CARMEL,
            sqft(10_000.0),
            tmdl("phosphorus", Some(true), 6_000.0),
            None,
            None,
            Some(S::Applies),
        ),
        (
            WINDSOR,
            sqft(10_000.0),
            tmdl("phosphorus", Some(true), 6_000.0),
            None,
            None,
            None,
        ),
    ];
    for (id, area, water, ep, expected, post) in cases {
        let f = ProjectFacts {
            gp: reviewer(*ep),
            ..facts(*area)
        };
        let d = run(id, &f, water);
        assert_eq!(
            status(&d, K::EnhancedPhosphorus),
            *expected,
            "{id} {area:?} {water:?}"
        );
        assert_eq!(
            status(&d, K::PostConstructionControls),
            *post,
            "{id} {area:?}"
        );
        if *expected == Some(S::Indicated) {
            let r = d.requirement(K::EnhancedPhosphorus).unwrap();
            assert!(r
                .evidence
                .iter()
                .any(|e| matches!(e, Evidence::Feature { id, .. } if id == "TMDL-7")));
            assert!(r.assumptions.iter().any(|a| a.id == "AMB-13"));
            // Enhanced phosphorus design brings the easement and agreement with it.
            assert_eq!(status(&d, K::MaintenanceEasement), Some(S::Indicated));
        }
    }
}

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
            single_family: true,
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

#[test]
fn every_finding_cites_rules_listed_in_the_profile() {
    let variants: Vec<ProjectFacts> = vec![
        facts(sqft(1_000.0)),
        facts(sqft(5_000.0)),
        facts(acres(2.0)),
        facts(acres(7.0)),
        ProjectFacts {
            larger_common_plan: true,
            routine_maintenance: true,
            agricultural_activity: true,
            single_family: true,
            agricultural: true,
            ..facts(sqft(3_000.0))
        },
        ProjectFacts {
            requires_stormwater_management_facility: Some(true),
            in_nyc_east_of_hudson_watershed: Some(true),
            construction_permit: Some(true),
            gp: GpDeterminations {
                coverage: Some(true),
                post_construction: Some(true),
                enhanced_phosphorus: Some(true),
            },
            ..facts(acres(1.5))
        },
    ];
    let waters = [
        no_water(),
        listed("phosphorus"),
        tmdl("phosphorus", None, 100.0),
        tmdl("phosphorus", Some(false), 100.0),
    ];
    for id in [NC, CARMEL, WINDSOR] {
        let p = profile(id);
        for f in &variants {
            for w in &waters {
                let d = determine(&p, f, w);
                assert_eq!(d.jurisdiction, id);
                for (name, citations) in d.citations() {
                    assert!(!citations.is_empty(), "{id}: {name} cites nothing");
                    for c in citations {
                        assert!(
                            p.rules.contains_key(&c.rule),
                            "{id}: {name} cites {} which is not in [rules]",
                            c.rule
                        );
                        assert!(!c.citation.is_empty() && !c.title.is_empty());
                    }
                }
                for r in &d.requirements {
                    assert!(
                        !r.reasons.is_empty(),
                        "{id}: {:?} gives no reason",
                        r.result.kind
                    );
                    for a in &r.assumptions {
                        assert!(p.assumption(&a.id).is_some());
                    }
                }
                let json = serde_json::to_value(&d).unwrap();
                assert!(json["land_development_activity"]["citations"][0]["rule"].is_string());
                assert!(json["requirements"][0]["result"]["status"].is_string());
            }
        }
    }
}

#[test]
fn determination_serialises_for_the_planner() {
    let d = run(CARMEL, &facts(acres(2.0)), &listed("phosphorus"));
    let json = serde_json::to_value(&d).unwrap();
    assert_eq!(json["jurisdiction"], CARMEL);
    assert_eq!(json["conditions"]["condition_one"]["result"], true);
    assert_eq!(json["conditions"]["condition_three"]["result"], true);
    assert!(json["conditions_absent"].is_null());
    let kinds: Vec<&str> = json["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["result"]["kind"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"condition_one_preparer_certification"),
        "{kinds:?}"
    );
    assert_eq!(json["not_covered"], false);
    // Facts and evidence come in as JSON too, optional facts left out.
    let f: ProjectFacts =
        serde_json::from_str(r#"{"disturbed": {"value": 2.0, "unit": "acre"}}"#).unwrap();
    assert_eq!(f, facts(acres(2.0)));
    let w: WaterEvidence = serde_json::from_str(r#"{"tmdl_areas": []}"#).unwrap();
    assert_eq!(w, no_water());
}

#[test]
fn numbers_in_reasons_are_readable() {
    assert_eq!(group(217_799.0, 2), "217,799");
    assert_eq!(group(5_000.0, 2), "5,000");
    assert_eq!(group(999.5, 2), "999.5");
    assert_eq!(group(1_234_567.25, 2), "1,234,567.25");
    assert_eq!(trim(4_999.0 / SQFT_PER_ACRE, 6), "0.114761");
    assert_eq!(trim(217_799.0 / SQFT_PER_ACRE, 6), "4.999977");
    let d = run(NC, &facts(sqft(4_999.0)), &no_water());
    let why = reasons(&d.land_development_activity);
    assert!(
        why.contains("4,999 sq ft") && why.contains(">= 5,000 sq ft"),
        "{why}"
    );
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
        tmdl_areas: vec![],
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
