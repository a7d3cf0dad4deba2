//! North Castle: the general permit indicator and enhanced phosphorus.

use rstest::rstest;

use super::*;

/// North Castle has no Conditions; the general permit indicator and the qualified
/// inspector by (area, in the NYC East of Hudson watershed, larger common plan).
#[rstest]
#[case::under_5000_sq_ft_nothing_applies(
    sqft(4_999.0),
    Some(true),
    Some(false),
    S::DoesNotApply,
    S::DoesNotApply
)]
// Under one acre the chapter's own inspections do not apply, but the permit's do if the
// project needs coverage (§ 267-7A(1)), which is not entered: depends.
#[case::at_5000_sq_ft_east_of_hudson_the_permit_is_indicated(
    sqft(5_000.0),
    Some(true),
    Some(false),
    S::Indicated,
    S::Depends
)]
#[case::at_5000_sq_ft_outside_east_of_hudson_no_permit(
    sqft(5_000.0),
    Some(false),
    Some(false),
    S::DoesNotApply,
    S::Depends
)]
#[case::east_of_hudson_not_entered_leaves_the_permit_open(
    sqft(5_000.0),
    None,
    Some(false),
    S::Depends,
    S::Depends
)]
#[case::a_larger_common_plan_under_an_acre_leaves_the_permit_open(
    sqft(5_000.0),
    Some(false),
    Some(true),
    S::Depends,
    S::Depends
)]
// Not given whether it is part of a plan: under an acre the permit counts the plan's whole
// disturbance, so it is open, and the fact is listed; at an acre the area decides.
#[case::a_plan_not_given_under_an_acre_leaves_the_permit_open(
    sqft(5_000.0),
    Some(false),
    None,
    S::Depends,
    S::Depends
)]
#[case::a_plan_not_given_at_an_acre_the_area_decides(
    acres(1.0),
    Some(false),
    None,
    S::Indicated,
    S::Applies
)]
#[case::a_square_foot_under_an_acre_outside_east_of_hudson(
    sqft(43_559.0),
    Some(false),
    Some(false),
    S::DoesNotApply,
    S::Depends
)]
#[case::one_acre_needs_the_permit_anywhere(acres(1.0), None, Some(false), S::Indicated, S::Applies)]
#[case::five_acres_needs_the_permit(acres(5.0), None, Some(false), S::Indicated, S::Applies)]
#[case::a_square_foot_under_five_acres_outside_east_of_hudson(
    sqft(217_799.0),
    Some(false),
    Some(false),
    S::Indicated,
    S::Applies
)]
fn north_castle_has_no_conditions_and_reads_the_general_permit_indicator(
    #[case] area: Area,
    #[case] eoh: Option<bool>,
    #[case] plan: Option<bool>,
    #[case] gp: S,
    #[case] inspector: S,
) {
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
        "{area:?} {eoh:?} plan={plan:?}: {}",
        reasons(g)
    );
    assert_eq!(
        d.open_facts.contains(&"larger_common_plan".to_string()),
        plan.is_none() && gp == S::Depends,
        "the plan is an open fact exactly when the permit turns on it: {:?}",
        d.open_facts
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

#[test]
fn north_castle_inspections_are_weekly_without_a_storm_trigger() {
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
}

/// A reviewer's entry of the permit's outcome wins over the indicator.
#[test]
fn a_reviewers_general_permit_entry_wins_over_the_indicator() {
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

/// Enhanced phosphorus and post-construction controls by (jurisdiction, area, water, the
/// reviewer's entry of enhanced phosphorus).
#[rstest]
#[case::a_total_phosphorus_tmdl_overlap_indicates_it(
    NC,
    sqft(10_000.0),
    tmdl("Phosphorus, total", Some(true), 6_000.0),
    None,
    Some(S::Indicated),
    Some(S::Indicated)
)]
#[case::a_phosphorus_tmdl_overlap_indicates_it_whatever_its_sources(
    NC,
    sqft(10_000.0),
    tmdl("phosphorus", None, 6_000.0),
    None,
    Some(S::Indicated),
    Some(S::Indicated)
)]
#[case::a_tmdl_for_another_pollutant_does_not(
    NC,
    sqft(10_000.0),
    tmdl("pathogens", Some(true), 6_000.0),
    None,
    Some(S::Depends),
    Some(S::Depends)
)]
#[case::a_phosphorus_tmdl_touching_only_does_not(
    NC,
    sqft(10_000.0),
    tmdl("phosphorus", Some(true), 0.0),
    None,
    Some(S::Depends),
    Some(S::Depends)
)]
#[case::a_303d_phosphorus_listing_is_not_a_tmdl(
    NC,
    sqft(10_000.0),
    listed("phosphorus"),
    None,
    Some(S::Depends),
    Some(S::Depends)
)]
#[case::no_water_evidence_leaves_it_open(
    NC,
    sqft(10_000.0),
    no_water(),
    None,
    Some(S::Depends),
    Some(S::Depends)
)]
#[case::under_5000_sq_ft_it_does_not_apply(
    NC,
    sqft(4_000.0),
    tmdl("phosphorus", Some(true), 4_000.0),
    None,
    Some(S::DoesNotApply),
    Some(S::DoesNotApply)
)]
#[case::the_reviewers_yes_applies_it(
    NC,
    sqft(10_000.0),
    no_water(),
    Some(true),
    Some(S::Applies),
    Some(S::Applies)
)]
#[case::the_reviewers_no_wins_over_the_overlap(
    NC,
    sqft(10_000.0),
    tmdl("phosphorus", Some(true), 6_000.0),
    Some(false),
    Some(S::DoesNotApply),
    Some(S::Depends)
)]
#[case::carmel_has_no_enhanced_phosphorus_rule(
    CARMEL,
    sqft(10_000.0),
    tmdl("phosphorus", Some(true), 6_000.0),
    None,
    None,
    Some(S::Applies)
)]
#[case::windsor_has_neither_rule(
    WINDSOR,
    sqft(10_000.0),
    tmdl("phosphorus", Some(true), 6_000.0),
    None,
    None,
    None
)]
fn enhanced_phosphorus_only_in_north_castle_and_only_with_a_phosphorus_tmdl_overlap(
    #[case] id: &str,
    #[case] area: Area,
    #[case] water: WaterEvidence,
    #[case] ep: Option<bool>,
    #[case] expected: Option<S>,
    #[case] post: Option<S>,
) {
    let f = ProjectFacts {
        gp: GpDeterminations {
            enhanced_phosphorus: ep,
            ..Default::default()
        },
        ..facts(area)
    };
    let d = run(id, &f, &water);
    assert_eq!(
        status(&d, K::EnhancedPhosphorus),
        expected,
        "{id} {area:?} {water:?}"
    );
    assert_eq!(
        status(&d, K::PostConstructionControls),
        post,
        "{id} {area:?}"
    );
    if expected == Some(S::Indicated) {
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

/// The family's text in another town's words: a town that follows the same model law as
/// chapter 180, with one clause numbered its own way, gets every reason, duty summary and
/// open fact in its own sections and name, and none of North Castle's.
#[test]
fn a_general_permit_town_numbered_otherwise_reads_its_own_sections() {
    // North Castle's profile with every "267" and "North Castle" of its data made the
    // other town's: whatever of them remains in an answer comes from the code.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/jurisdictions/north-castle-ny.toml"
    ))
    .unwrap()
    .replace("267", "180")
    .replace("North Castle", "Millbrook")
    .replace("NORTH CASTLE", "MILLBROOK")
    .replace("north-castle-ny", "millbrook-ny");
    let mut p = Profile::with_id("millbrook-ny", &text, "millbrook-ny.toml").unwrap();
    assert_eq!(p.wording.section_prefix, "§ 180-");
    p.wording.clauses.insert("7B".into(), "§ 180-12(b)".into());
    // Every branch that quotes a clause: exempt-date facts left open, larger common plan,
    // agricultural activity, under and over an acre, inside and outside the chapter.
    let mut texts = Vec::new();
    for (area, plan, completed) in [
        (acres(2.0), true, None),
        (sqft(6_000.0), false, Some(true)),
        (sqft(1_000.0), false, Some(false)),
    ] {
        let f = ProjectFacts {
            larger_common_plan: Some(plan),
            agricultural_activity: Some(true),
            routine_maintenance: Some(false),
            completed_before_effective_date: completed,
            approved_before_effective_date: Some(true),
            requires_stormwater_management_facility: Some(true),
            ..facts(area)
        };
        let mut d = serde_json::to_value(determine(&p, &f, &listed("Phosphorus"))).unwrap();
        // Citations and assumptions are the profile's own rows (a town writes its own);
        // what is checked is the family code's text.
        strip(
            &mut d,
            &["citations", "assumptions", "jurisdiction", "rules"],
        );
        texts.push(d.to_string());
    }
    let all = texts.join("\n");
    for theirs in ["267", "North Castle"] {
        let at = all
            .find(theirs)
            .map(|i| &all[i.saturating_sub(200)..(i + 100).min(all.len())]);
        assert!(
            at.is_none(),
            "{theirs:?} quoted in another town's answer: {at:?}"
        );
    }
    for ours in [
        "§ 180-7A(4)",
        "§ 180-3D(2)",
        "§ 180-3C(6)",
        "§ 180-12(b)",
        "Chapter 180 does not reach the project",
        "not exempt in Millbrook",
    ] {
        assert!(all.contains(ours), "{ours:?} missing");
    }
    // North Castle's own answer is what its law says, word for word as before.
    let nc = serde_json::to_string(&run(NC, &ProjectFacts::new(acres(2.0)), &no_water())).unwrap();
    assert!(
        nc.contains("§ 267-7A(5)") && nc.contains("§ 267-5A-D"),
        "{nc}"
    );
    for marker in ["{§", "{law}", "{town}"] {
        assert!(
            !nc.contains(marker) && !all.contains(marker),
            "{marker} left unexpanded"
        );
    }
}

/// `v` without the members named `keys`, at any depth.
fn strip(v: &mut serde_json::Value, keys: &[&str]) {
    match v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| !keys.contains(&k.as_str()));
            m.values_mut().for_each(|x| strip(x, keys));
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| strip(x, keys)),
        _ => {}
    }
}

/// A general-permit town that leaves out a word the family quotes is refused at load,
/// naming the key, instead of answering with a blank where its section belongs.
#[test]
fn a_general_permit_profile_without_its_section_prefix_is_refused() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/jurisdictions/north-castle-ny.toml"
    ))
    .unwrap();
    assert!(Profile::with_id("north-castle-ny", &text, "north-castle-ny.toml").is_ok());
    let without = text.replace("section_prefix = \"§ 267-\"\n", "");
    assert_ne!(without, text);
    let e = Profile::with_id("north-castle-ny", &without, "north-castle-ny.toml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("wording.section_prefix"), "{e}");
}

/// Issue 25 item 17, § 267-3C(6) with AMB-14 (adopted 19 December 2007, the effective date
/// not confirmed): "a law takes effect no earlier than its adoption", so a plat approved
/// on or before that day is exempt whatever the effective date proves to be; a day later
/// it depends on that date (never "not exempt"). Counter-case: once the profile confirms
/// the effective date as the adoption day, a plat a day later is not exempt on that
/// ground. The same holds of a building permit, the exemption's other approval.
#[rstest]
#[case::the_day_before_adoption("2007-12-18", false, Some(true), false)]
#[case::the_day_of_adoption("2007-12-19", false, Some(true), false)]
#[case::the_day_after_unconfirmed("2007-12-20", false, None, true)]
#[case::years_after_unconfirmed("2015-06-01", false, None, true)]
#[case::the_day_after_confirmed("2007-12-20", true, Some(false), false)]
#[case::the_day_of_adoption_confirmed("2007-12-19", true, Some(true), false)]
fn a_plat_on_or_before_adoption_is_exempt_whatever_the_effective_date(
    #[case] plat: &str,
    #[case] confirmed: bool,
    #[case] exempt: Option<bool>,
    #[case] open: bool,
    #[values("plat", "building permit")] approval: &str,
) {
    let text = Profile::builtin_text(NC).unwrap();
    let text = if confirmed {
        let from = "effective_date = \"2007-12-19\", confirmed = false";
        assert!(text.contains(from));
        text.replacen(from, "effective_date = \"2007-12-19\", confirmed = true", 1)
    } else {
        text.to_string()
    };
    let p = Profile::with_id(NC, &text, "test").unwrap();
    let on = chrono::NaiveDate::parse_from_str(plat, "%Y-%m-%d").ok();
    let f = if approval == "plat" {
        ProjectFacts {
            plat_approved_on: on,
            ..facts(sqft(6_000.0))
        }
    } else {
        ProjectFacts {
            building_permit_approved_on: on,
            ..facts(sqft(6_000.0))
        }
    };
    let d = determine(&p, &f, &unlisted_water());
    assert_eq!(
        d.exempt.result,
        exempt,
        "{approval} {plat}: {}",
        reasons(&d.exempt)
    );
    assert_eq!(
        d.open_facts.iter().any(|o| o.contains("AMB-14")),
        open,
        "{plat}: {:?}",
        d.open_facts
    );
    if exempt == Some(true) {
        assert!(
            reasons(&d.exempt).contains("on or before"),
            "{}",
            reasons(&d.exempt)
        );
    }
}
