//! Clause one: discharge kinds exempt in one town or in both, and their conditions.

use super::*;

#[test]
fn kinds_exempt_in_one_town_only_differ_in_outcome() {
    let nc = profile("north-castle-ny");
    let windsor = profile("windsor-ct");
    // (kind, sampling result, North Castle, Windsor), residential source, no records.
    // North Castle's catch-all needs a sampling result of "no pollutants" (AMB-06), and
    // Windsor's AMB-05 reading sends basement sumps to review (their water may be exempt
    // uncontaminated pumped groundwater); every other kind is ok in one and illicit in the
    // other.
    let table: &[(DischargeKind, Option<bool>, IllicitStatus, IllicitStatus)] = &[
        (DischargeKind::OtherPotableWaterSource, None, Ok, Illicit),
        (DischargeKind::LawnWatering, None, Ok, Illicit),
        (DischargeKind::IrrigationWater, None, Ok, Illicit),
        (DischargeKind::BasementSumpPump, None, Ok, NeedsReview),
        (DischargeKind::BasementSumpPump, Some(true), Ok, Illicit),
        (DischargeKind::AirConditioningCondensate, None, Ok, Illicit),
        (
            DischargeKind::IndividualResidentialCarWashing,
            None,
            Ok,
            Illicit,
        ),
        (
            DischargeKind::DechlorinatedSwimmingPoolDischarge,
            None,
            Ok,
            Illicit,
        ),
        (DischargeKind::ResidentialStreetWashWater, None, Ok, Illicit),
        (
            DischargeKind::OtherWaterNotContainingPollutants,
            Some(false),
            Ok,
            Illicit,
        ),
        (
            DischargeKind::OtherWaterNotContainingPollutants,
            None,
            NeedsReview,
            Illicit,
        ),
        (
            DischargeKind::OtherWaterNotContainingPollutants,
            Some(true),
            Illicit,
            Illicit,
        ),
    ];
    // The table covers exactly the kinds on one list and not the other.
    let mut differing: Vec<DischargeKind> = DischargeKind::ALL
        .into_iter()
        .filter(|k| nc.is_exempt(*k).is_some() != windsor.is_exempt(*k).is_some())
        .collect();
    let mut tabled: Vec<DischargeKind> = table.iter().map(|row| row.0).collect();
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
    DischargeKind,
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
        (
            DischargeKind::WaterlineFlushing,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::LandscapeIrrigation,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::RisingGroundwater,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (DischargeKind::Springs, None, false, Ok, Ok, "exempt list"),
        (
            DischargeKind::FirefightingWater,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::CrawlSpaceSumpPump,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::NaturalRiparianHabitatOrWetlandFlows,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::FootingDrain,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::FoundationDrain,
            None,
            false,
            Ok,
            Ok,
            "exempt list",
        ),
        (
            DischargeKind::UncontaminatedPumpedGroundwater,
            None,
            false,
            Ok,
            Ok,
            "uncontaminated",
        ),
        (
            DischargeKind::UncontaminatedPumpedGroundwater,
            Some(true),
            false,
            Illicit,
            Illicit,
            "sampling found pollutants",
        ),
        (
            DischargeKind::UncontaminatedGroundwaterInfiltration,
            Some(true),
            false,
            Illicit,
            Illicit,
            "sampling found pollutants",
        ),
        // Only North Castle withdraws an exemption on a substantial-contributor finding.
        (
            DischargeKind::Springs,
            None,
            true,
            Illicit,
            Ok,
            "exempt list",
        ),
        // Only North Castle limits the exemption to "existing" diversions (AMB-06, AMB-14).
        (
            DischargeKind::DivertedStreamFlows,
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
