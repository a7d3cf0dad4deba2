use rstest::rstest;

use super::*;
use crate::domain::discharge::DischargeKind;

/// Whether a kind is exempt in North Castle and in Windsor, as the catalogue says
/// (RULES.md, northcastle.enum.exempt_discharge_kinds).
#[rstest]
// Exempt in North Castle only.
#[case::other_potable_water_source(DischargeKind::OtherPotableWaterSource, true, false)]
#[case::lawn_watering(DischargeKind::LawnWatering, true, false)]
#[case::irrigation_water(DischargeKind::IrrigationWater, true, false)]
#[case::basement_sump_pump(DischargeKind::BasementSumpPump, true, false)]
#[case::air_conditioning_condensate(DischargeKind::AirConditioningCondensate, true, false)]
#[case::individual_residential_car_washing(
    DischargeKind::IndividualResidentialCarWashing,
    true,
    false
)]
#[case::dechlorinated_swimming_pool_discharge(
    DischargeKind::DechlorinatedSwimmingPoolDischarge,
    true,
    false
)]
#[case::residential_street_wash_water(DischargeKind::ResidentialStreetWashWater, true, false)]
#[case::other_water_not_containing_pollutants(
    DischargeKind::OtherWaterNotContainingPollutants,
    true,
    false
)]
// Exempt in both.
#[case::waterline_flushing(DischargeKind::WaterlineFlushing, true, true)]
#[case::landscape_irrigation(DischargeKind::LandscapeIrrigation, true, true)]
#[case::diverted_stream_flows(DischargeKind::DivertedStreamFlows, true, true)]
#[case::rising_groundwater(DischargeKind::RisingGroundwater, true, true)]
#[case::uncontaminated_groundwater_infiltration(
    DischargeKind::UncontaminatedGroundwaterInfiltration,
    true,
    true
)]
#[case::uncontaminated_pumped_groundwater(
    DischargeKind::UncontaminatedPumpedGroundwater,
    true,
    true
)]
#[case::foundation_drain(DischargeKind::FoundationDrain, true, true)]
#[case::footing_drain(DischargeKind::FootingDrain, true, true)]
#[case::crawl_space_sump_pump(DischargeKind::CrawlSpaceSumpPump, true, true)]
#[case::springs(DischargeKind::Springs, true, true)]
#[case::natural_riparian_habitat_or_wetland_flows(
    DischargeKind::NaturalRiparianHabitatOrWetlandFlows,
    true,
    true
)]
#[case::firefighting_water(DischargeKind::FirefightingWater, true, true)]
// Exempt nowhere.
#[case::stormwater(DischargeKind::Stormwater, false, false)]
#[case::sewage(DischargeKind::Sewage, false, false)]
#[case::process_wastewater(DischargeKind::ProcessWastewater, false, false)]
#[case::wash_water(DischargeKind::WashWater, false, false)]
#[case::indoor_drain(DischargeKind::IndoorDrain, false, false)]
#[case::active_groundwater_dewatering_system(
    DischargeKind::ActiveGroundwaterDewateringSystem,
    false,
    false
)]
#[case::chlorinated_swimming_pool_water(DischargeKind::ChlorinatedSwimmingPoolWater, false, false)]
#[case::unknown(DischargeKind::Unknown, false, false)]
fn north_castle_and_windsor_exempt_lists_differ_where_the_catalogue_says(
    #[case] kind: DischargeKind,
    #[case] in_north_castle: bool,
    #[case] in_windsor: bool,
) {
    let nc = builtin("north-castle-ny");
    let windsor = builtin("windsor-ct");
    assert_eq!(
        nc.is_exempt(kind).is_some(),
        in_north_castle,
        "{kind} in North Castle"
    );
    assert_eq!(
        windsor.is_exempt(kind).is_some(),
        in_windsor,
        "{kind} in Windsor"
    );
}

/// Only Windsor carves out active dewatering; only North Castle has the override.
#[test]
fn the_exemption_conditions_are_each_towns_own() {
    let nc = builtin("north-castle-ny");
    let windsor = builtin("windsor-ct");
    let footing = windsor.is_exempt(DischargeKind::FootingDrain).unwrap();
    assert!(footing.has_condition(DischargeCondition::NotActiveGroundwaterDewatering));
    assert_eq!(footing.rule, "windsor.illegal_discharge.exempt_listed");
    let springs = nc.is_exempt(DischargeKind::Springs).unwrap();
    assert!(springs.has_condition(DischargeCondition::NotSubstantialContributor));
    assert_eq!(springs.citation, "§ 267-12A(1)");
    assert!(windsor
        .exempt_discharges
        .iter()
        .all(|e| !e.has_condition(DischargeCondition::NotSubstantialContributor)));
}

#[test]
fn carmel_has_no_illicit_rules() {
    let carmel = builtin("carmel-ny");
    assert!(!carmel.coverage.illicit_connections.present);
    assert_eq!(
        carmel.coverage.illicit_connections.rule.as_deref(),
        Some("carmel.illicit_discharge.absent")
    );
    assert!(carmel.exempt_discharges.is_empty());
    assert!(carmel.is_exempt(DischargeKind::Springs).is_none());
    let windsor = builtin("windsor-ct");
    assert!(!windsor.coverage.land_development.present);
    assert!(windsor.thresholds.land_development_activity.is_none());
}

/// A land-use value as recorded, classified by the town's code list and words.
#[rstest]
#[case::ny_code_in_the_commercial_range("north-castle-ny", "410", LandUseClass::Commercial)]
#[case::ny_code_in_the_industrial_range("north-castle-ny", "710", LandUseClass::Industrial)]
#[case::ny_one_family_code("north-castle-ny", "210", LandUseClass::Other)]
#[case::ny_commercial_in_words("north-castle-ny", "Commercial", LandUseClass::Commercial)]
#[case::ny_empty("north-castle-ny", "", LandUseClass::Unknown)]
#[case::ny_blank("north-castle-ny", "   ", LandUseClass::Unknown)]
#[case::ny_apartments_code_411_is_left_unknown("north-castle-ny", "411", LandUseClass::Unknown)]
#[case::ny_code_484_with_its_description(
    "north-castle-ny",
    "484 - One story small structure",
    LandUseClass::Unknown
)]
#[case::ny_code_with_decimals("north-castle-ny", "710.00", LandUseClass::Industrial)]
#[case::ny_code_with_a_leading_zero("north-castle-ny", "0210", LandUseClass::Other)]
#[case::ny_industrial_in_capitals("north-castle-ny", "LIGHT INDUSTRIAL", LandUseClass::Industrial)]
#[case::ny_residence_in_words("north-castle-ny", "Single Family Residence", LandUseClass::Other)]
#[case::ny_mixed_use_in_words(
    "north-castle-ny",
    "Mixed use: retail / apartments",
    LandUseClass::Unknown
)]
#[case::ny_a_word_in_no_list("north-castle-ny", "parking", LandUseClass::Unknown)]
#[case::ny_a_two_digit_code("north-castle-ny", "42", LandUseClass::Unknown)]
// Massachusetts-style codes (Windsor): 4-digit and mixed-use codes.
#[case::ma_commercial_code("windsor-ct", "340", LandUseClass::Commercial)]
#[case::ma_four_digit_commercial_code("windsor-ct", "3400", LandUseClass::Commercial)]
#[case::ma_mixed_use_code_0325("windsor-ct", "0325", LandUseClass::Commercial)]
#[case::ma_industrial_code("windsor-ct", "400", LandUseClass::Industrial)]
#[case::ma_four_digit_industrial_code("windsor-ct", "4010", LandUseClass::Industrial)]
#[case::ma_four_digit_residential_code("windsor-ct", "1010", LandUseClass::Other)]
#[case::ma_code_112_is_left_unknown("windsor-ct", "112", LandUseClass::Unknown)]
#[case::ma_mixed_use_code_013("windsor-ct", "013", LandUseClass::Unknown)]
#[case::ma_mixed_use_code_034("windsor-ct", "034", LandUseClass::Commercial)]
fn land_use_codes_and_words_are_classified(
    #[case] id: &str,
    #[case] raw: &str,
    #[case] want: LandUseClass,
) {
    let p = builtin(id);
    assert_eq!(
        p.land_use_class(raw),
        want,
        "{raw:?}: {:?}",
        p.classify_land_use(raw)
    );
}

#[test]
fn a_land_use_class_says_its_basis() {
    let nc = builtin("north-castle-ny");
    let m = nc.classify_land_use("410");
    assert_eq!(m.basis, "code 410 matches commercial code 400-499");
    assert!(LandUseClass::Commercial.is_commercial_or_industrial());
    assert!(!LandUseClass::Unknown.is_commercial_or_industrial());
}

#[test]
fn thresholds_convert_units_and_compare() {
    let carmel = builtin("carmel-ny");
    let t = &carmel.thresholds;
    let lda = t.land_development_activity.as_ref().unwrap();
    assert_eq!(lda.sqft(), 5000.0);
    assert!(lda.is_met_by_sqft(5000.0));
    assert!(!lda.is_met_by_sqft(4999.9));
    let two = t.condition_two.as_ref().unwrap();
    assert_eq!(two.sqft(), 217_800.0);
    assert!(two.is_met_by_sqft(217_800.0));
    let three_max = t.get("condition_three_max").unwrap();
    assert!(!three_max.is_met_by_sqft(217_800.0));
    assert!(three_max.is_met_by_sqft(217_799.0));
    let windsor = builtin("windsor-ct");
    let ca = windsor.thresholds.construction_activity.as_ref().unwrap();
    assert_eq!(ca.sqft(), 21_780.0);
    assert_eq!(ca.acres(), 0.5);
    assert_eq!(windsor.thresholds.iter().count(), 1);
    assert_eq!(Thresholds::NAMES.len(), 11);
}

#[test]
fn tolerances_convert_to_crs_units() {
    let nc = builtin("north-castle-ny");
    let snap = nc.tolerances.snap_tolerance;
    assert_eq!(snap.unit, DistanceUnit::Ft);
    assert!((snap.metres() - 0.3048).abs() < 1e-12);
    let us_ft = snap
        .in_crs_units(DistanceUnit::UsFt.metres_per_unit())
        .unwrap();
    assert!((us_ft - 0.999_998).abs() < 1e-6, "{us_ft}");
    assert_eq!(snap.in_crs_units(1.0), Some(snap.metres()));
    assert_eq!(snap.in_crs_units(0.0), None);
    assert_eq!(snap.in_crs_units(f64::NAN), None);
    assert_eq!(nc.crs_hint.epsg, 2260);
    assert_eq!(builtin("carmel-ny").crs_hint.epsg, 2260);
    assert_eq!(builtin("windsor-ct").crs_hint.epsg, 2234);
}

#[test]
fn rules_citations_and_assumptions_are_looked_up() {
    let nc = builtin("north-castle-ny");
    assert_eq!(
        nc.citation("northcastle.illicit_connection.sewage_line"),
        Some("§ 267-12B(3)")
    );
    assert!(nc.rule("shared.registry.flag_illicit_connection").is_some());
    assert!(nc.rule("carmel.condition_one").is_none());
    let amb02 = nc.assumption("AMB-02").unwrap();
    assert_eq!(amb02.setting.as_str(), Some("documented_and_approved"));
    let amb05 = nc.assumption("AMB-05").unwrap();
    assert_eq!(
        amb05
            .setting
            .get("floor_drains_are_indoor_drains")
            .and_then(|v| v.as_bool()),
        Some(true)
    );
    assert!(
        nc.assumption("AMB-09").is_none(),
        "AMB-09 concerns Carmel only"
    );
    let carmel = builtin("carmel-ny");
    let amb16 = carmel.assumption("AMB-16").unwrap();
    assert_eq!(amb16.setting.as_list().map(|l| l.len()), Some(3));
    let storm = &carmel.inspections["construction_storm"];
    assert_eq!((storm.within, storm.unit), (Some(24), TimeUnit::Hours));
    assert_eq!(storm.min_rainfall_inches, Some(0.5));
    assert!(nc.allowed(AllowedRoute::DyeTesting).is_some());
    assert!(carmel.allowed(AllowedRoute::DyeTesting).is_none());
}

#[test]
fn profile_serialises_to_json() {
    let json = serde_json::to_value(builtin("windsor-ct")).unwrap();
    assert_eq!(json["thresholds"]["construction_activity"]["unit"], "acre");
    assert_eq!(json["exempt_discharges"][0]["kind"], "rising_groundwater");
    assert_eq!(json["crs_hint"]["unit"], "us_ft");
}

/// A rule id: two or more lower-case dotted segments (the town's, or `shared`, first);
/// only the first may not start with a digit.
#[rstest]
#[case::a_town_and_two_parts("northcastle.lda.applicability", true)]
#[case::a_part_starting_with_a_digit("northcastle.inspection.48h_notice", true)]
#[case::shared("shared.def.x", true)]
#[case::a_town_alone("northcastle", false)]
#[case::a_capital("Northcastle.lda", false)]
#[case::an_empty_part("northcastle..lda", false)]
#[case::a_town_starting_with_a_digit("4x.lda", false)]
#[case::a_space("carmel.condition one", false)]
#[case::empty("", false)]
fn rule_ids_are_checked_for_catalogue_shape(#[case] id: &str, #[case] ok: bool) {
    assert_eq!(validate::is_rule_id(id), ok, "{id}");
}
