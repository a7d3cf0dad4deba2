//! Clause one: discharge kinds exempt in one town or in both, and their conditions.

use rstest::rstest;

use super::*;

/// The cases of the kinds exempt in one town only, and the list of the kinds they name,
/// written once: the list is checked against the two profiles, so a kind added to one
/// town's list cannot go without a case.
macro_rules! one_town_only {
    ($($name:ident: $kind:ident, $sampled:expr, $nc:ident, $windsor:ident;)*) => {
        /// The kinds the cases of `kinds_exempt_in_one_town_only_differ_in_outcome` name.
        const ONE_TOWN_ONLY: &[DischargeKind] = &[$(DischargeKind::$kind),*];

        /// (kind, sampling result, North Castle, Windsor), residential source, no records.
        #[rstest]
        $(#[case::$name(DischargeKind::$kind, $sampled, $nc, $windsor)])*
        fn kinds_exempt_in_one_town_only_differ_in_outcome(
            #[case] kind: DischargeKind,
            #[case] sampled: Option<bool>,
            #[case] want_nc: IllicitStatus,
            #[case] want_windsor: IllicitStatus,
        ) {
            one_town_only_case(kind, sampled, want_nc, want_windsor);
        }
    };
}

// North Castle's catch-all needs a sampling result of "no pollutants" (AMB-06), and
// Windsor's AMB-05 reading sends basement sumps to review (their water may be exempt
// uncontaminated pumped groundwater); every other kind is ok in one and illicit in the
// other.
one_town_only! {
    other_potable_water_source: OtherPotableWaterSource, None, Ok, Illicit;
    lawn_watering: LawnWatering, None, Ok, Illicit;
    irrigation_water: IrrigationWater, None, Ok, Illicit;
    basement_sump_pump_unsampled: BasementSumpPump, None, Ok, NeedsReview;
    basement_sump_pump_with_pollutants_found: BasementSumpPump, Some(true), Ok, Illicit;
    air_conditioning_condensate: AirConditioningCondensate, None, Ok, Illicit;
    individual_residential_car_washing:
        IndividualResidentialCarWashing, None, Ok, Illicit;
    dechlorinated_swimming_pool_discharge:
        DechlorinatedSwimmingPoolDischarge, None, Ok, Illicit;
    residential_street_wash_water: ResidentialStreetWashWater, None, Ok, Illicit;
    other_water_sampled_clean: OtherWaterNotContainingPollutants, Some(false), Ok, Illicit;
    other_water_not_sampled: OtherWaterNotContainingPollutants, None, NeedsReview, Illicit;
    other_water_with_pollutants_found:
        OtherWaterNotContainingPollutants, Some(true), Illicit, Illicit;
}

fn one_town_only_case(
    kind: DischargeKind,
    sampled: Option<bool>,
    want_nc: IllicitStatus,
    want_windsor: IllicitStatus,
) {
    let nc = profile("north-castle-ny");
    let windsor = profile("windsor-ct");
    for (p, want) in [(&nc, want_nc), (&windsor, want_windsor)] {
        let mut c = facts(Some(kind.as_str()), Some(residential(p)), vec![]);
        c.pollutants_found = sampled;
        let got = evaluate(p, &c);
        let what = format!("{kind} sampled {sampled:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
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
        if got.result == Illicit && p.id == "windsor-ct" && sampled != Some(true) {
            assert!(reasons(&got).contains("not on Town of Windsor's exempt list"));
        }
    }
}

/// The cases above cover exactly the kinds on one list and not the other.
#[test]
fn the_one_town_cases_cover_every_kind_exempt_in_one_town_only() {
    let nc = profile("north-castle-ny");
    let windsor = profile("windsor-ct");
    let mut differing: Vec<DischargeKind> = DischargeKind::ALL
        .into_iter()
        .filter(|k| nc.is_exempt(*k).is_some() != windsor.is_exempt(*k).is_some())
        .collect();
    let mut tabled: Vec<DischargeKind> = ONE_TOWN_ONLY.to_vec();
    differing.sort();
    tabled.sort();
    tabled.dedup();
    assert_eq!(differing, tabled);
}

/// Kinds exempt in both towns, by (kind, sampling result, substantial-contributor
/// determination): the outcome in North Castle and in Windsor, and a phrase the reasons
/// must contain.
#[rstest]
#[case::waterline_flushing(DischargeKind::WaterlineFlushing, None, false, Ok, Ok, "exempt list")]
#[case::landscape_irrigation(
    DischargeKind::LandscapeIrrigation,
    None,
    false,
    Ok,
    Ok,
    "exempt list"
)]
#[case::rising_groundwater(DischargeKind::RisingGroundwater, None, false, Ok, Ok, "exempt list")]
#[case::springs(DischargeKind::Springs, None, false, Ok, Ok, "exempt list")]
#[case::firefighting_water(DischargeKind::FirefightingWater, None, false, Ok, Ok, "exempt list")]
#[case::crawl_space_sump_pump(
    DischargeKind::CrawlSpaceSumpPump,
    None,
    false,
    Ok,
    Ok,
    "exempt list"
)]
#[case::natural_riparian_habitat_or_wetland_flows(
    DischargeKind::NaturalRiparianHabitatOrWetlandFlows,
    None,
    false,
    Ok,
    Ok,
    "exempt list"
)]
#[case::footing_drain(DischargeKind::FootingDrain, None, false, Ok, Ok, "exempt list")]
#[case::foundation_drain(DischargeKind::FoundationDrain, None, false, Ok, Ok, "exempt list")]
#[case::uncontaminated_pumped_groundwater_unsampled(
    DischargeKind::UncontaminatedPumpedGroundwater,
    None,
    false,
    Ok,
    Ok,
    "uncontaminated"
)]
#[case::pumped_groundwater_with_pollutants_found(
    DischargeKind::UncontaminatedPumpedGroundwater,
    Some(true),
    false,
    Illicit,
    Illicit,
    "sampling found pollutants"
)]
#[case::groundwater_infiltration_with_pollutants_found(
    DischargeKind::UncontaminatedGroundwaterInfiltration,
    Some(true),
    false,
    Illicit,
    Illicit,
    "sampling found pollutants"
)]
// Only North Castle withdraws an exemption on a substantial-contributor finding.
#[case::springs_found_a_substantial_contributor(
    DischargeKind::Springs,
    None,
    true,
    Illicit,
    Ok,
    "exempt list"
)]
// Only North Castle limits the exemption to "existing" diversions (AMB-06, AMB-14).
#[case::diverted_stream_flows(
    DischargeKind::DivertedStreamFlows,
    None,
    false,
    NeedsReview,
    Ok,
    "exempt list"
)]
fn kinds_exempt_in_both_towns_and_their_conditions(
    #[case] kind: DischargeKind,
    #[case] sampled: Option<bool>,
    #[case] determined: bool,
    #[case] want_nc: IllicitStatus,
    #[case] want_windsor: IllicitStatus,
    #[case] phrase: &str,
) {
    let nc = profile("north-castle-ny");
    let windsor = profile("windsor-ct");
    for (p, want) in [(&nc, want_nc), (&windsor, want_windsor)] {
        let mut c = facts(Some(kind.as_str()), Some(residential(p)), vec![]);
        c.pollutants_found = sampled;
        c.substantial_contributor_determined = determined;
        let got = evaluate(p, &c);
        let what = format!("{kind} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(p, &got, &what);
    }
}

/// Windsor's footing-drain exemption excludes dewatering systems: the reason says so.
#[test]
fn windsor_footing_drain_exemption_excludes_dewatering_systems() {
    let windsor = profile("windsor-ct");
    let got = evaluate(&windsor, &facts(Some("footing drain"), Some("101"), vec![]));
    assert!(reasons(&got).contains("not an active groundwater dewatering system"));
    assert!(cites(&got, "windsor.illegal_discharge.exempt_listed"));
}

/// North Castle exempts only diversions existing on its chapter's effective date.
#[test]
fn north_castle_diverted_stream_flows_must_have_existed_at_the_chapters_date() {
    let nc = profile("north-castle-ny");
    let got = evaluate(&nc, &facts(Some("diverted stream"), Some("210"), vec![]));
    assert!(reasons(&got).contains("2007-12-19"), "{}", reasons(&got));
    assert!(assumes(&got, "AMB-14"));
}
