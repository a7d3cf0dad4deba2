//! Table-driven tests of the illicit-connection evaluation against the builtin profiles.

use super::*;
use crate::domain::discharge::DischargeKind as K;
use IllicitStatus::{Illicit, NeedsReview, NotCovered, Ok};

fn profile(id: &str) -> Profile {
    Profile::builtin(id).unwrap_or_else(|e| panic!("{e}"))
}

/// A residential code of each profile's assessor code list.
fn residential(p: &Profile) -> &'static str {
    if p.id == "windsor-ct" {
        "101"
    } else {
        "210"
    }
}

/// An industrial code of each profile's assessor code list.
fn industrial(p: &Profile) -> &'static str {
    if p.id == "windsor-ct" {
        "400"
    } else {
        "710"
    }
}

fn facts(kind: Option<&str>, land_use: Option<&str>, records: Vec<RecordFacts>) -> ConnectionFacts {
    ConnectionFacts {
        connection_id: "C-1".into(),
        discharge_kind_raw: kind.map(str::to_string),
        source_parcel: Some(SourceParcel {
            parcel_id: "P-1".into(),
            land_use_raw: land_use.map(str::to_string),
            found_by: "connection's parcel_id".into(),
        }),
        records,
        ..ConnectionFacts::default()
    }
}

fn record(id: &str, approved: Option<bool>) -> RecordFacts {
    RecordFacts {
        record_id: id.into(),
        approved,
        approved_by: approved.map(|_| "Town Engineer".to_string()),
        approved_on: approved.map(|_| "2015-06-01".to_string()),
        plan_ref: Some("SP-2015-12".into()),
        matched_by: "connection_id".into(),
    }
}

/// Every citation must name a rule of the profile, and every covered finding must have a
/// reason and name the connection.
fn check_shape(p: &Profile, finding: &Finding<IllicitStatus>, what: &str) {
    assert!(!finding.citations.is_empty(), "{what}: no citation");
    for c in &finding.citations {
        assert!(
            p.rule(&c.rule).is_some(),
            "{what}: cites {} which is not in the {} profile's [rules]",
            c.rule,
            p.id
        );
    }
    assert!(!finding.reasons.is_empty(), "{what}: no reason");
    assert!(
        finding.evidence.iter().any(|e| matches!(
            e,
            Evidence::Feature { layer, id, .. } if layer == "connections" && id == "C-1"
        )),
        "{what}: connection missing from the evidence"
    );
}

fn cites(finding: &Finding<IllicitStatus>, rule: &str) -> bool {
    finding.citations.iter().any(|c| c.rule == rule)
}

fn assumes(finding: &Finding<IllicitStatus>, amb: &str) -> bool {
    finding.assumptions.iter().any(|a| a.id == amb)
}

fn reasons(finding: &Finding<IllicitStatus>) -> String {
    finding.reasons.join(" | ")
}

#[test]
fn kinds_exempt_in_one_town_only_differ_in_outcome() {
    let nc = profile("north-castle-ny");
    let windsor = profile("windsor-ct");
    // (kind, sampling result, North Castle, Windsor), residential source, no records.
    // North Castle's catch-all needs a sampling result of "no pollutants" (AMB-06), and
    // Windsor's AMB-05 reading sends basement sumps to review (their water may be exempt
    // uncontaminated pumped groundwater); every other kind is ok in one and illicit in the
    // other.
    let table: &[(K, Option<bool>, IllicitStatus, IllicitStatus)] = &[
        (K::OtherPotableWaterSource, None, Ok, Illicit),
        (K::LawnWatering, None, Ok, Illicit),
        (K::IrrigationWater, None, Ok, Illicit),
        (K::BasementSumpPump, None, Ok, NeedsReview),
        (K::BasementSumpPump, Some(true), Ok, Illicit),
        (K::AirConditioningCondensate, None, Ok, Illicit),
        (K::IndividualResidentialCarWashing, None, Ok, Illicit),
        (K::DechlorinatedSwimmingPoolDischarge, None, Ok, Illicit),
        (K::ResidentialStreetWashWater, None, Ok, Illicit),
        (
            K::OtherWaterNotContainingPollutants,
            Some(false),
            Ok,
            Illicit,
        ),
        (
            K::OtherWaterNotContainingPollutants,
            None,
            NeedsReview,
            Illicit,
        ),
        (
            K::OtherWaterNotContainingPollutants,
            Some(true),
            Illicit,
            Illicit,
        ),
    ];
    // The table covers exactly the kinds on one list and not the other.
    let mut differing: Vec<K> = K::ALL
        .into_iter()
        .filter(|k| nc.is_exempt(*k).is_some() != windsor.is_exempt(*k).is_some())
        .collect();
    let mut tabled: Vec<K> = table.iter().map(|row| row.0).collect();
    differing.sort();
    tabled.sort();
    tabled.dedup();
    assert_eq!(differing, tabled);

    for (kind, sampled, want_nc, want_windsor) in table {
        for (p, want) in [(&nc, want_nc), (&windsor, want_windsor)] {
            let mut c = facts(Some(kind.as_str()), Some(residential(p)), vec![]);
            c.pollutants_found = *sampled;
            let got = evaluate(p, &c);
            let what = format!("{kind} sampled {sampled:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            check_shape(p, &got, &what);
            if got.result == Ok {
                // The exemption rule is cited, and the unverifiable conditions are named.
                assert!(
                    cites(&got, "northcastle.illicit_discharge.exempt_listed"),
                    "{what}"
                );
                assert!(
                    reasons(&got).contains("substantial contributor"),
                    "{what}: {}",
                    reasons(&got)
                );
                assert!(reasons(&got).contains("plan for reducing pollutants"));
                assert!(assumes(&got, "AMB-06"), "{what}");
            }
            if got.result == Illicit && p.id == "windsor-ct" && *sampled != Some(true) {
                assert!(reasons(&got).contains("not on Town of Windsor's exempt list"));
            }
        }
    }
}

/// (kind, sampling result, substantial-contributor determination, North Castle, Windsor, a
/// phrase the reasons must contain)
type BothRow = (
    K,
    Option<bool>,
    bool,
    IllicitStatus,
    IllicitStatus,
    &'static str,
);

#[test]
fn kinds_exempt_in_both_towns_and_their_conditions() {
    let nc = profile("north-castle-ny");
    let windsor = profile("windsor-ct");
    let table: &[BothRow] = &[
        (K::WaterlineFlushing, None, false, Ok, Ok, "exempt list"),
        (K::LandscapeIrrigation, None, false, Ok, Ok, "exempt list"),
        (K::RisingGroundwater, None, false, Ok, Ok, "exempt list"),
        (K::Springs, None, false, Ok, Ok, "exempt list"),
        (K::FirefightingWater, None, false, Ok, Ok, "exempt list"),
        (K::CrawlSpaceSumpPump, None, false, Ok, Ok, "exempt list"),
        (
            K::NaturalRiparianHabitatOrWetlandFlows,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (K::FootingDrain, None, false, Ok, Ok, "exempt list"),
        (K::FoundationDrain, None, false, Ok, Ok, "exempt list"),
        (
            K::UncontaminatedPumpedGroundwater,
            None,
            false,
            Ok,
            Ok,
            "uncontaminated",
        ),
        (
            K::UncontaminatedPumpedGroundwater,
            Some(true),
            false,
            Illicit,
            Illicit,
            "sampling found pollutants",
        ),
        (
            K::UncontaminatedGroundwaterInfiltration,
            Some(true),
            false,
            Illicit,
            Illicit,
            "sampling found pollutants",
        ),
        // Only North Castle withdraws an exemption on a substantial-contributor finding.
        (K::Springs, None, true, Illicit, Ok, "exempt list"),
        // Only North Castle limits the exemption to "existing" diversions (AMB-06, AMB-14).
        (
            K::DivertedStreamFlows,
            None,
            false,
            NeedsReview,
            Ok,
            "exempt list",
        ),
    ];
    for (kind, sampled, determined, want_nc, want_windsor, phrase) in table {
        for (p, want) in [(&nc, want_nc), (&windsor, want_windsor)] {
            let mut c = facts(Some(kind.as_str()), Some(residential(p)), vec![]);
            c.pollutants_found = *sampled;
            c.substantial_contributor_determined = *determined;
            let got = evaluate(p, &c);
            let what = format!("{kind} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            check_shape(p, &got, &what);
        }
    }
    // Windsor's footing-drain exemption excludes dewatering systems: the reason says so.
    let got = evaluate(&windsor, &facts(Some("footing drain"), Some("101"), vec![]));
    assert!(reasons(&got).contains("not an active groundwater dewatering system"));
    assert!(cites(&got, "windsor.illegal_discharge.exempt_listed"));
    let got = evaluate(&nc, &facts(Some("diverted stream"), Some("210"), vec![]));
    assert!(reasons(&got).contains("2007-12-19"), "{}", reasons(&got));
    assert!(assumes(&got, "AMB-14"));
}

#[test]
fn named_non_stormwater_kinds_are_illicit_in_both_towns() {
    // (raw kind, North Castle, Windsor, extra rule id suffix that must be cited)
    let table: &[(&str, IllicitStatus, IllicitStatus, &str)] = &[
        ("sewage", Illicit, Illicit, "illicit_connection.sewage_line"),
        (
            "sanitary lateral",
            Illicit,
            Illicit,
            "illicit_connection.sewage_line",
        ),
        (
            "process wastewater",
            Illicit,
            Illicit,
            "enum.exempt_discharge_kinds",
        ),
        (
            "wash water",
            Illicit,
            Illicit,
            "enum.exempt_discharge_kinds",
        ),
        (
            "floor drain",
            Illicit,
            Illicit,
            "enum.exempt_discharge_kinds",
        ),
        ("sink", Illicit, Illicit, "enum.exempt_discharge_kinds"),
        (
            "chlorinated pool water",
            Illicit,
            Illicit,
            "enum.exempt_discharge_kinds",
        ),
        // Windsor expressly excludes dewatering systems; North Castle does not name them, and
        // they may be its exempt "uncontaminated pumped groundwater".
        (
            "active groundwater dewatering system",
            NeedsReview,
            Illicit,
            "illicit_connection.nonstormwater_conveyance",
        ),
        // Dye testing is allowed with verbal notice, which the registry does not hold.
        ("dye testing", NeedsReview, NeedsReview, "dye_testing"),
    ];
    for (raw, want_nc, want_windsor, rule) in table {
        for (p, want) in [
            (profile("north-castle-ny"), want_nc),
            (profile("windsor-ct"), want_windsor),
        ] {
            // A residential source with an approved record: clause (1) ignores approvals.
            let c = facts(
                Some(*raw),
                Some(residential(&p)),
                vec![record("R-1", Some(true))],
            );
            let got = evaluate(&p, &c);
            let what = format!("{raw:?} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            check_shape(&p, &got, &what);
            let suffix_cited = got.citations.iter().any(|c| c.rule.ends_with(rule));
            assert!(
                suffix_cited,
                "{what}: {rule} not cited in {:?}",
                got.citations
            );
            if got.result == Illicit {
                assert!(
                    reasons(&got).contains("does not clear clause (1)"),
                    "{what}: {}",
                    reasons(&got)
                );
                assert!(assumes(&got, "AMB-31"));
            }
        }
    }
}

#[test]
fn clause_two_needs_documentation_and_approval() {
    // (land use for North Castle, for Windsor, records, expected, phrase)
    let table: &[(&str, &str, Vec<RecordFacts>, IllicitStatus, &str)] = &[
        (
            "710",
            "400",
            vec![],
            Illicit,
            "missing: documentation and approval",
        ),
        (
            "710",
            "400",
            vec![record("R-1", Some(true))],
            Ok,
            "documented and approved",
        ),
        (
            "710",
            "400",
            vec![record("R-1", Some(false))],
            Illicit,
            "missing: approval",
        ),
        // A record that is silent on approval proves neither way: review.
        (
            "710",
            "400",
            vec![record("R-1", None)],
            NeedsReview,
            "does not say whether it was approved",
        ),
        (
            "710",
            "400",
            vec![record("R-1", Some(false)), record("R-2", Some(true))],
            Ok,
            "record R-2",
        ),
        ("432", "340", vec![], Illicit, "commercial"),
        (
            "432",
            "340",
            vec![record("R-1", Some(true))],
            Ok,
            "taken as approval by",
        ),
        // Commercial-looking codes the town has to classify, codes in no list, no value.
        (
            "484",
            "13",
            vec![],
            NeedsReview,
            "unknown or left to the town",
        ),
        ("42", "9", vec![], NeedsReview, "is in no land-use list"),
        ("", "", vec![], NeedsReview, "no land-use value"),
        // Residential: clause (2) does not apply, records or not.
        (
            "210",
            "101",
            vec![],
            Ok,
            "not a commercial or industrial land use",
        ),
        (
            "210",
            "101",
            vec![record("R-1", Some(false))],
            Ok,
            "not a commercial",
        ),
    ];
    for (nc_code, w_code, records, want, phrase) in table {
        for (p, code) in [
            (profile("north-castle-ny"), nc_code),
            (profile("windsor-ct"), w_code),
        ] {
            let land_use = (!code.is_empty()).then_some(*code);
            let c = facts(Some("stormwater"), land_use, records.clone());
            let got = evaluate(&p, &c);
            let what = format!(
                "land use {code:?} with {} record(s) in {}",
                records.len(),
                p.id
            );
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            check_shape(&p, &got, &what);
            let clause2 = format!(
                "{}.illicit_connection.undocumented_commercial_industrial",
                p.rule_prefix
            );
            assert!(cites(&got, &clause2), "{what}");
            assert!(
                cites(&got, "shared.def.commercial_industrial_land_use"),
                "{what}"
            );
            assert!(assumes(&got, "AMB-03") && assumes(&got, "AMB-04"), "{what}");
            let parcel_named = got.evidence.iter().any(|e| matches!(
                e,
                Evidence::Feature { layer, id, note } if layer == "parcels" && id == "P-1" && note.contains("found by")
            ));
            assert!(parcel_named, "{what}: {:?}", got.evidence);
            for r in records.iter() {
                let named = got.evidence.iter().any(|e| matches!(
                    e,
                    Evidence::Feature { layer, id, .. } if layer == "connection_records" && *id == r.record_id
                ));
                assert!(named, "{what}: record {} missing", r.record_id);
            }
        }
    }
}

#[test]
fn evidence_gives_the_land_use_class_and_basis() {
    let nc = profile("north-castle-ny");
    let got = evaluate(&nc, &facts(Some("stormwater"), Some("432"), vec![]));
    assert_eq!(got.result, Illicit);
    let note = got
        .evidence
        .iter()
        .find_map(|e| match e {
            Evidence::Feature { layer, note, .. } if layer == "parcels" => Some(note.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        note.contains("commercial (code 432 matches commercial code 400-499)"),
        "{note}"
    );
    assert!(assumes(&got, "AMB-01") && assumes(&got, "AMB-02"));
    assert!(got
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::Fact { text } if text.contains("stormwater"))));
}

#[test]
fn unknown_discharge_kinds_need_review_unless_clause_two_decides() {
    for p in [profile("north-castle-ny"), profile("windsor-ct")] {
        // (raw kind, land use, expected, phrase)
        let table: &[(Option<&str>, &str, IllicitStatus, &str)] = &[
            (
                Some("widget runoff"),
                residential(&p),
                NeedsReview,
                "is not recognised",
            ),
            (
                Some("wastewater"),
                residential(&p),
                NeedsReview,
                "is ambiguous",
            ),
            (
                Some("unknown"),
                residential(&p),
                NeedsReview,
                "recorded as unknown",
            ),
            (
                None,
                residential(&p),
                NeedsReview,
                "no discharge kind is recorded",
            ),
            (
                Some(""),
                residential(&p),
                NeedsReview,
                "discharge kind is empty",
            ),
            // An undocumented industrial drain is illicit whatever it carries.
            (
                Some("widget runoff"),
                industrial(&p),
                Illicit,
                "is not recognised",
            ),
        ];
        for (raw, land_use, want, phrase) in table {
            let got = evaluate(&p, &facts(*raw, Some(*land_use), vec![]));
            let what = format!("{raw:?} on {land_use} in {}", p.id);
            assert_eq!(got.result, *want, "{what}: {}", reasons(&got));
            assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
            check_shape(&p, &got, &what);
        }
    }
}

#[test]
fn no_source_parcel_needs_review() {
    let p = profile("windsor-ct");
    let mut c = facts(Some("stormwater"), None, vec![]);
    c.source_parcel = None;
    let got = evaluate(&p, &c);
    assert_eq!(got.result, NeedsReview);
    assert!(
        reasons(&got).contains("no source parcel"),
        "{}",
        reasons(&got)
    );
    // Sewage stays illicit without a parcel.
    c.discharge_kind_raw = Some("sewage".into());
    assert_eq!(evaluate(&p, &c).result, Illicit);
}

#[test]
fn residential_stormwater_without_records_is_ok() {
    for p in [profile("north-castle-ny"), profile("windsor-ct")] {
        let mut c = facts(Some("Stormwater"), Some(residential(&p)), vec![]);
        c.source_parcel.as_mut().unwrap().found_by = "parcel holding the upstream end".into();
        let got = evaluate(&p, &c);
        assert_eq!(got.result, Ok, "{}: {}", p.id, reasons(&got));
        check_shape(&p, &got, &p.id);
        assert!(cites(&got, "shared.registry.flag_illicit_connection"));
        assert!(got.evidence.iter().any(|e| matches!(
            e,
            Evidence::Feature { note, .. } if note.contains("parcel holding the upstream end")
        )));
    }
}

#[test]
fn carmel_is_not_covered() {
    let carmel = profile("carmel-ny");
    let cases = [
        facts(Some("sewage"), Some("710"), vec![]),
        facts(Some("stormwater"), Some("210"), vec![]),
        facts(None, None, vec![record("R-1", None)]),
    ];
    for c in &cases {
        let got = evaluate(&carmel, c);
        assert_eq!(got.result, NotCovered);
        assert_eq!(got.citations.len(), 1);
        assert_eq!(got.citations[0].rule, "carmel.illicit_discharge.absent");
        check_shape(&carmel, &got, "carmel");
    }
}

#[test]
fn every_finding_cites_rules_of_its_profile() {
    let kinds: Vec<Option<&str>> = K::ALL
        .iter()
        .map(|k| Some(k.as_str()))
        .chain([None, Some("gizmo")])
        .collect();
    let record_sets = [
        vec![],
        vec![record("R-1", Some(true))],
        vec![record("R-1", Some(false))],
        vec![record("R-1", None)],
    ];
    for id in Profile::builtin_ids() {
        let p = profile(id);
        for kind in &kinds {
            for land_use in [
                None,
                Some("210"),
                Some("101"),
                Some("432"),
                Some("710"),
                Some("411"),
            ] {
                for records in &record_sets {
                    for sampled in [None, Some(true), Some(false)] {
                        let mut c = facts(*kind, land_use, records.clone());
                        c.pollutants_found = sampled;
                        let got = evaluate(&p, &c);
                        check_shape(&p, &got, &format!("{kind:?} {land_use:?} in {id}"));
                    }
                }
            }
        }
    }
}

#[test]
fn summaries_count_statuses() {
    let nc = profile("north-castle-ny");
    let carmel = profile("carmel-ny");
    let inputs = [
        ("A", &nc, facts(Some("sewage"), Some("210"), vec![])),
        ("B", &nc, facts(Some("stormwater"), Some("210"), vec![])),
        ("C", &nc, facts(Some("gizmo"), Some("210"), vec![])),
        ("D", &nc, facts(Some("stormwater"), Some("710"), vec![])),
        ("E", &carmel, facts(Some("sewage"), Some("710"), vec![])),
    ];
    let findings: Vec<(String, Finding<IllicitStatus>)> = inputs
        .iter()
        .map(|(id, p, c)| (id.to_string(), evaluate(p, c)))
        .collect();
    let s = summarize(&findings);
    assert_eq!(
        (s.total, s.illicit, s.needs_review, s.ok, s.not_covered),
        (5, 2, 1, 1, 1)
    );
    assert_eq!(s.illicit_ids, ["A", "D"]);
    assert_eq!(s.needs_review_ids, ["C"]);
    let sum: usize = IllicitStatus::ALL.iter().map(|st| s.count(*st)).sum();
    assert_eq!(sum, s.total);
    assert_eq!(summarize(&[]), IllicitSummary::default());
}

#[test]
fn statuses_serialise_as_snake_case() {
    for status in IllicitStatus::ALL {
        let json = serde_json::to_string(&status).unwrap();
        assert_eq!(json, format!("\"{}\"", status.as_str()));
        assert_eq!(
            serde_json::from_str::<IllicitStatus>(&json).unwrap(),
            status
        );
    }
    assert_eq!(
        serde_json::to_string(&NeedsReview).unwrap(),
        "\"needs_review\""
    );
    assert_eq!(
        serde_json::to_string(&NotCovered).unwrap(),
        "\"not_covered\""
    );
    let got = evaluate(
        &profile("windsor-ct"),
        &facts(Some("sewage"), Some("101"), vec![]),
    );
    let json = serde_json::to_value(&got).unwrap();
    assert_eq!(json["result"], "illicit");
}
