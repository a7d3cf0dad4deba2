//! Item 15: every assumption id an answer emits shows the profile's text, and each one's
//! text is exercised here by a check of what the code does.

use super::*;
use std::collections::BTreeSet;

/// Every finding of a determination.
fn all_assumptions(d: &Determination) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut take = |a: &[crate::rules::finding::AssumptionTaken]| {
        out.extend(a.iter().map(|a| (a.id.to_string(), a.text.to_string())));
    };
    take(&d.land_development_activity.assumptions);
    take(&d.exempt.assumptions);
    if let Some(c) = &d.conditions {
        take(&c.condition_one.assumptions);
        take(&c.condition_two.assumptions);
        take(&c.condition_three.assumptions);
    }
    if let Some(c) = &d.conditions_absent {
        take(&c.assumptions);
    }
    for r in d.requirements.iter() {
        take(&r.assumptions);
    }
    out
}

/// A check that the code does what the assumption's text says, per profile and id.
// One arm per assumption, each a few lines: split up, the table would no longer read
// as the list of assumptions it checks.
#[allow(clippy::too_many_lines)]
fn check(id: &str, amb: &str) {
    let p = profile(id);
    match amb {
        // Inclusive thresholds; exactly five acres is Condition Two, not Three.
        "AMB-10" => {
            if id == CARMEL {
                let d = run(CARMEL, &facts(acres(5.0)), &unlisted_water());
                assert_eq!(conditions(&d), [false, true, false]);
            }
            if id != WINDSOR {
                let d = run(id, &facts(sqft(5_000.0)), &unlisted_water());
                assert_eq!(d.land_development_activity.result, Some(true));
            }
        }
        // Larger common plan under one acre: an LDA at any size (Carmel); not imported (NC).
        "AMB-12" => {
            let f = ProjectFacts {
                larger_common_plan: Some(true),
                ..facts(sqft(100.0))
            };
            let d = run(id, &f, &unlisted_water());
            assert_eq!(d.land_development_activity.result, Some(id == CARMEL));
        }
        // Condition Three exclusions never reach Conditions One or Two.
        "AMB-11" => {
            let f = ProjectFacts {
                single_family: Some(true),
                agricultural: Some(true),
                ..facts(acres(6.0))
            };
            let d = run(CARMEL, &f, &listed("sediment"));
            assert_eq!(conditions(&d), [true, true, false]);
        }
        // Reviewer entries decide the permit's outcomes.
        "AMB-13" => {
            if id == NC {
                let f = ProjectFacts {
                    gp: GpDeterminations {
                        coverage: Some(true),
                        post_construction: Some(true),
                        enhanced_phosphorus: Some(false),
                    },
                    ..facts(sqft(6_000.0))
                };
                let d = run(NC, &f, &no_water());
                assert_eq!(status(&d, K::ConstructionGeneralPermit), Some(S::Applies));
                assert_eq!(status(&d, K::EnhancedPhosphorus), Some(S::DoesNotApply));
            }
        }
        // Any listing counts (sediment always a pollutant of concern), and is shown.
        "AMB-08" => {
            let d = run(CARMEL, &facts(sqft(6_000.0)), &listed("pathogens"));
            let c1 = &d.conditions.unwrap().condition_one;
            assert_eq!(c1.result, Some(true));
            assert!(c1
                .evidence
                .iter()
                .any(|e| format!("{e:?}").contains("pathogens")));
        }
        // The stormwater-source qualifier binds TMDL watersheds only.
        "AMB-09" => {
            let d = run(
                CARMEL,
                &facts(sqft(6_000.0)),
                &tmdl("sediment", Some(false), 9.0),
            );
            assert_eq!(conditions_tri(&d)[0], Some(false));
            let d = run(CARMEL, &facts(sqft(6_000.0)), &listed("sediment"));
            assert_eq!(conditions_tri(&d)[0], Some(true));
        }
        // Review of slivers is carried into Condition One (the spatial side is tested in
        // spatial::waters and tests/determinations.rs).
        "AMB-07" => {
            let w = WaterEvidence {
                review: vec!["watershed WS-2 overlaps only a sliver".into()],
                waters_reached: vec!["W-9".into()],
                ..WaterEvidence::default()
            };
            let d = run(CARMEL, &facts(sqft(6_000.0)), &w);
            assert_eq!(conditions_tri(&d)[0], None);
        }
        // The cycle used is recorded.
        "AMB-30" => {
            let mut w = listed("sediment");
            w.list_cycle = Some("2022".into());
            let d = run(CARMEL, &facts(sqft(6_000.0)), &w);
            let c1 = d.conditions.unwrap().condition_one;
            assert!(c1.reasons.iter().any(|r| r.contains("2022 list cycle")));
        }
        // Exemption cut-off dates: Carmel's is the law's; North Castle's effective date
        // awaits confirmation, so a plat before its adoption is exempt in both towns and
        // one after North Castle's adoption depends on the effective date there.
        "AMB-14" => {
            let plat = |y, m, d| ProjectFacts {
                plat_approved_on: chrono::NaiveDate::from_ymd_opt(y, m, d),
                ..facts(sqft(6_000.0))
            };
            let d = run(id, &plat(2007, 1, 1), &unlisted_water());
            assert_eq!(d.exempt.result, Some(true));
            assert!(!d.open_facts.iter().any(|o| o.contains("AMB-14")));
            let d = run(id, &plat(2008, 1, 2), &unlisted_water());
            let want = if id == NC { None } else { Some(true) };
            assert_eq!(d.exempt.result, want);
            assert_eq!(d.open_facts.iter().any(|o| o.contains("AMB-14")), id == NC);
        }
        // Seven calendar days; the storm window of 24 hours (Carmel).
        "AMB-15" => {
            let d = run(id, &facts(acres(2.0)), &unlisted_water());
            let i = d.requirement(K::ConstructionInspections).unwrap();
            assert!(
                i.result.summary.contains("every 7 calendar days"),
                "{}",
                i.result.summary
            );
        }
        // The qualified professional list is the profile's.
        "AMB-16" => {
            let list = p.assumption("AMB-16").unwrap().setting.as_list().unwrap();
            assert!(!list.is_empty());
        }
        // Easements gated on every approval with a facility.
        "AMB-22" => {
            let f = ProjectFacts {
                requires_stormwater_management_facility: Some(true),
                ..facts(sqft(6_000.0))
            };
            let d = run(id, &f, &unlisted_water());
            assert_eq!(status(&d, K::MaintenanceEasement), Some(S::Applies));
        }
        // Missing text: the post-construction answer carries the note.
        "AMB-25" => {
            let d = run(CARMEL, &facts(acres(2.0)), &unlisted_water());
            let post = d.requirement(K::PostConstructionControls).unwrap();
            assert!(post.assumptions.iter().any(|a| a.id == "AMB-25"));
            assert!(
                !p.assumption("AMB-25").unwrap().text.contains("156-89"),
                "the fee text is in the seed"
            );
        }
        // Sediment removal at 50% of design capacity.
        "AMB-27" => {
            let s = &p.assumption("AMB-27").unwrap().setting;
            assert_eq!(
                s.get("trigger_percent").and_then(|v| v.as_f64()),
                Some(50.0)
            );
            let d = run(id, &facts(sqft(6_000.0)), &unlisted_water());
            let r = d.requirement(K::SedimentRemoval).unwrap();
            assert!(r.result.summary.contains("50%"));
        }
        // Windsor's construction activity and premises inspections.
        "AMB-24" => {
            let d = run(WINDSOR, &facts(acres(0.5)), &no_water());
            assert_eq!(status(&d, K::PremisesInspection), Some(S::Applies));
        }
        other => panic!("{id} emits {other}, which no check here exercises: add one"),
    }
}

#[test]
fn every_assumption_id_the_determinations_emit_is_exercised() {
    let areas = [sqft(100.0), sqft(6_000.0), acres(2.0), acres(6.0)];
    let waters = [
        no_water(),
        unlisted_water(),
        listed("sediment"),
        tmdl("phosphorus", Some(true), 5_000.0),
        tmdl("sediment", None, 5_000.0),
    ];
    for id in [CARMEL, NC, WINDSOR] {
        let p = profile(id);
        let mut seen = BTreeSet::new();
        for area in areas {
            for w in &waters {
                for plan in [false, true] {
                    for flag in [None, Some(true), Some(false)] {
                        let f = ProjectFacts {
                            larger_common_plan: Some(plan),
                            single_family: flag,
                            agricultural: flag,
                            routine_maintenance: flag,
                            plat_approved_on: flag
                                .map(|_| chrono::NaiveDate::from_ymd_opt(2008, 1, 1).unwrap()),
                            requires_stormwater_management_facility: flag,
                            ..facts(area)
                        };
                        for (amb, text) in all_assumptions(&determine(&p, &f, w)) {
                            assert_eq!(
                                Some(text.as_str()),
                                p.assumption(&amb).map(|a| a.text.as_str()),
                                "{id} {amb}"
                            );
                            seen.insert(amb);
                        }
                    }
                }
            }
        }
        assert!(!seen.is_empty(), "{id}");
        for amb in &seen {
            check(id, amb);
        }
    }
}
