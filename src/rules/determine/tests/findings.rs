//! Every profile: citations, serialisation and readable numbers.

use rstest::rstest;

use super::*;

/// Every finding of a town's determinations, over a spread of facts and water evidence,
/// cites rules of its own profile.
#[rstest]
#[case::north_castle(NC)]
#[case::carmel(CARMEL)]
#[case::windsor(WINDSOR)]
fn every_finding_cites_rules_listed_in_the_profile(#[case] id: &str) {
    let variants: Vec<ProjectFacts> = vec![
        facts(sqft(1_000.0)),
        facts(sqft(5_000.0)),
        facts(acres(2.0)),
        facts(acres(7.0)),
        ProjectFacts {
            larger_common_plan: Some(true),
            routine_maintenance: Some(true),
            agricultural_activity: Some(true),
            single_family: Some(true),
            agricultural: Some(true),
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
    let p = profile(id);
    for f in &variants {
        for w in &waters {
            let d = determine(&p, f, w);
            assert_eq!(d.jurisdiction, id);
            for (name, citations) in d.citations() {
                assert!(!citations.is_empty(), "{id}: {name} cites nothing");
                for c in citations {
                    assert!(
                        p.rules.contains_key(c.rule.as_str()),
                        "{id}: {name} cites {} which is not in [rules]",
                        c.rule
                    );
                    assert!(!c.citation.is_empty() && !c.title.is_empty());
                }
            }
            for r in d.requirements.iter() {
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

#[test]
fn determination_serialises_for_the_planner() {
    let f = ProjectFacts {
        single_family: Some(false),
        agricultural: Some(false),
        ..facts(acres(2.0))
    };
    let d = run(CARMEL, &f, &listed("phosphorus"));
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
    assert_eq!(f, ProjectFacts::new(acres(2.0)));
    let w: WaterEvidence = serde_json::from_str(r#"{"tmdl_areas": []}"#).unwrap();
    assert_eq!(w, no_water());
}

/// Square feet in reasons are grouped by thousands, with at most two decimals.
#[rstest]
#[case::under_five_acres(217_799.0, "217,799")]
#[case::the_land_development_threshold(5_000.0, "5,000")]
#[case::under_a_thousand_with_a_decimal(999.5, "999.5")]
#[case::millions_with_decimals(1_234_567.25, "1,234,567.25")]
fn square_feet_in_reasons_are_grouped_by_thousands(#[case] value: f64, #[case] text: &str) {
    assert_eq!(group(value, 2), text);
}

/// Acres in reasons carry six decimals at most, without trailing zeros.
#[rstest]
#[case::a_square_foot_under_5000_sq_ft(4_999.0, "0.114761")]
#[case::a_square_foot_under_five_acres(217_799.0, "4.999977")]
fn acres_in_reasons_are_trimmed_to_six_decimals(#[case] sqft: f64, #[case] text: &str) {
    assert_eq!(trim(sqft / SQFT_PER_ACRE, 6), text);
}

#[test]
fn numbers_in_reasons_are_readable() {
    let d = run(NC, &facts(sqft(4_999.0)), &no_water());
    let why = reasons(&d.land_development_activity);
    assert!(
        why.contains("4,999 sq ft") && why.contains(">= 5,000 sq ft"),
        "{why}"
    );
}
