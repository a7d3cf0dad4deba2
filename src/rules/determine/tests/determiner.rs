//! The determiner answers as `determine` does, finding for finding and open fact for open
//! fact, for every built-in town and readings that change Condition One or the law's reach,
//! across the facts and water evidence that move each finding.

use super::*;
use std::collections::BTreeMap;

/// Carmel with one reading changed: the pollutant matched to the runoff (AMB-08), the
/// stormwater-source qualifier on 303(d) waters too (AMB-09), or its exemption cut-off
/// unconfirmed (AMB-14), which leaves the law's reach open for a plat after it.
fn readings() -> Vec<(String, Profile)> {
    let mut out: Vec<(String, Profile)> = Profile::builtin_ids()
        .iter()
        .map(|id| (id.to_string(), profile(id)))
        .collect();
    let mut set = |name: &str, amb: &str, setting: AssumptionValue| {
        let mut p = profile(CARMEL);
        p.assumptions.get_mut(amb).unwrap().setting = setting;
        out.push((format!("carmel-ny with {name}"), p));
    };
    set(
        "AMB-08 matched",
        "AMB-08",
        AssumptionValue::Text("matched".into()),
    );
    set(
        "AMB-09 both",
        "AMB-09",
        AssumptionValue::Text("both".into()),
    );
    let unconfirmed = BTreeMap::from([
        (
            "effective_date".to_string(),
            AssumptionValue::Text("2008-12-17".into()),
        ),
        ("confirmed".to_string(), AssumptionValue::Bool(false)),
        (
            "adopted".to_string(),
            AssumptionValue::Text("2008-01-01".into()),
        ),
    ]);
    set(
        "AMB-14 unconfirmed",
        "AMB-14",
        AssumptionValue::Table(unconfirmed),
    );
    out
}

/// Facts that move each finding: the area across every threshold, the larger common plan,
/// the Condition Three exclusions, an exemption, a plat after the cut-off and the facility
/// trigger, each given true, false or not given.
fn every_facts() -> Vec<ProjectFacts> {
    let areas = [
        sqft(2_000.0),
        sqft(4_999.0),
        sqft(5_000.0),
        acres(0.99),
        acres(1.0),
        acres(2.0),
        acres(5.0),
        acres(6.0),
    ];
    let tri = [None, Some(false), Some(true)];
    let mut out = Vec::new();
    for area in areas {
        for plan in tri {
            for single_family in tri {
                for smf in tri {
                    out.push(ProjectFacts {
                        larger_common_plan: plan,
                        single_family,
                        agricultural: single_family.map(|_| false),
                        requires_stormwater_management_facility: smf,
                        ..ProjectFacts::new(area)
                    });
                }
            }
            out.push(ProjectFacts {
                routine_maintenance: Some(true),
                larger_common_plan: plan,
                ..ProjectFacts::new(area)
            });
            out.push(ProjectFacts {
                plat_approved_on: chrono::NaiveDate::from_ymd_opt(2008, 6, 1),
                larger_common_plan: plan,
                in_nyc_east_of_hudson_watershed: Some(true),
                ..ProjectFacts::new(area)
            });
        }
    }
    out
}

/// Water evidence that meets, misses and leaves Condition One open.
fn every_water() -> Vec<WaterEvidence> {
    let mut cycle = listed("silt/sediment");
    cycle.list_cycle = Some("2022".into());
    cycle.notes = vec!["followed two waters downstream".into()];
    let mut both = listed("phosphorus");
    both.tmdl_areas = tmdl("sediment", None, 40.0).tmdl_areas;
    both.review = vec!["watershed WS-2 overlaps only a sliver".into()];
    vec![
        no_water(),
        unlisted_water(),
        listed("sediment"),
        listed("phosphorus"),
        cycle,
        tmdl("sediment", Some(true), 9.0),
        tmdl("sediment", Some(false), 9.0),
        tmdl("phosphorus", None, 9.0),
        tmdl("sediment", Some(true), 0.0),
        both,
        WaterEvidence {
            review: vec!["watershed WS-2 overlaps only a sliver".into()],
            ..WaterEvidence::default()
        },
    ]
}

#[test]
fn the_determiner_answers_as_the_determination_at_every_place() {
    let (facts, waters) = (every_facts(), every_water());
    let mut compared = 0;
    let mut seen = std::collections::HashSet::new();
    let readings = readings();
    for (name, p) in &readings {
        for f in &facts {
            let determiner = Determiner::new(p, f);
            for w in &waters {
                let whole = determine(p, f, w);
                assert_eq!(determiner.determine(w), whole, "{name}: {f:?} at {w:?}");
                if let Some(c) = &whole.conditions {
                    seen.insert((
                        c.condition_one.result,
                        whole.land_development_activity.result,
                        whole.exempt.result,
                    ));
                }
                compared += 1;
            }
        }
    }
    assert_eq!(compared, readings.len() * facts.len() * waters.len());
    // Condition One met, not met and undetermined, with the law's reach certain and open
    // both ways (the plan, the exemption's date), were all compared.
    for one in [Some(true), Some(false), None] {
        assert!(seen.contains(&(one, Some(true), Some(false))), "{one:?}");
    }
    assert!(seen.iter().any(|(_, lda, _)| lda.is_none()));
    assert!(seen.iter().any(|(_, _, exempt)| exempt.is_none()));
}
