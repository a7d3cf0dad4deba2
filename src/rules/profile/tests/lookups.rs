use super::*;
use crate::domain::discharge::DischargeKind;

#[test]
fn north_castle_and_windsor_exempt_lists_differ_where_the_catalogue_says() {
    let nc = builtin("north-castle-ny");
    let windsor = builtin("windsor-ct");
    // Exempt in North Castle only (RULES.md, northcastle.enum.exempt_discharge_kinds).
    for kind in [
        DischargeKind::OtherPotableWaterSource,
        DischargeKind::LawnWatering,
        DischargeKind::IrrigationWater,
        DischargeKind::BasementSumpPump,
        DischargeKind::AirConditioningCondensate,
        DischargeKind::IndividualResidentialCarWashing,
        DischargeKind::DechlorinatedSwimmingPoolDischarge,
        DischargeKind::ResidentialStreetWashWater,
        DischargeKind::OtherWaterNotContainingPollutants,
    ] {
        assert!(
            nc.is_exempt(kind).is_some(),
            "{kind} should be exempt in North Castle"
        );
        assert!(
            windsor.is_exempt(kind).is_none(),
            "{kind} should not be exempt in Windsor"
        );
    }
    // Exempt in both.
    for kind in [
        DischargeKind::WaterlineFlushing,
        DischargeKind::LandscapeIrrigation,
        DischargeKind::DivertedStreamFlows,
        DischargeKind::RisingGroundwater,
        DischargeKind::UncontaminatedGroundwaterInfiltration,
        DischargeKind::UncontaminatedPumpedGroundwater,
        DischargeKind::FoundationDrain,
        DischargeKind::FootingDrain,
        DischargeKind::CrawlSpaceSumpPump,
        DischargeKind::Springs,
        DischargeKind::NaturalRiparianHabitatOrWetlandFlows,
        DischargeKind::FirefightingWater,
    ] {
        assert!(nc.is_exempt(kind).is_some(), "{kind} in North Castle");
        assert!(windsor.is_exempt(kind).is_some(), "{kind} in Windsor");
    }
    // Exempt nowhere.
    for kind in [
        DischargeKind::Stormwater,
        DischargeKind::Sewage,
        DischargeKind::ProcessWastewater,
        DischargeKind::WashWater,
        DischargeKind::IndoorDrain,
        DischargeKind::ActiveGroundwaterDewateringSystem,
        DischargeKind::ChlorinatedSwimmingPoolWater,
        DischargeKind::Unknown,
    ] {
        assert!(nc.is_exempt(kind).is_none(), "{kind} in North Castle");
        assert!(windsor.is_exempt(kind).is_none(), "{kind} in Windsor");
    }
    // Only Windsor carves out active dewatering; only North Castle has the override.
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

#[test]
fn land_use_codes_and_words_are_classified() {
    let nc = builtin("north-castle-ny");
    let cases = [
        ("410", LandUseClass::Commercial),
        ("710", LandUseClass::Industrial),
        ("210", LandUseClass::Other),
        ("Commercial", LandUseClass::Commercial),
        ("", LandUseClass::Unknown),
        ("   ", LandUseClass::Unknown),
        ("411", LandUseClass::Unknown),
        ("484 - One story small structure", LandUseClass::Unknown),
        ("710.00", LandUseClass::Industrial),
        ("0210", LandUseClass::Other),
        ("LIGHT INDUSTRIAL", LandUseClass::Industrial),
        ("Single Family Residence", LandUseClass::Other),
        ("Mixed use: retail / apartments", LandUseClass::Unknown),
        ("parking", LandUseClass::Unknown),
        ("42", LandUseClass::Unknown),
    ];
    for (raw, want) in cases {
        assert_eq!(
            nc.land_use_class(raw),
            want,
            "{raw:?}: {:?}",
            nc.classify_land_use(raw)
        );
    }
    let m = nc.classify_land_use("410");
    assert_eq!(m.basis, "code 410 matches commercial code 400-499");
    assert!(LandUseClass::Commercial.is_commercial_or_industrial());
    assert!(!LandUseClass::Unknown.is_commercial_or_industrial());

    // Massachusetts-style codes (Windsor): 4-digit and mixed-use codes.
    let windsor = builtin("windsor-ct");
    let cases = [
        ("340", LandUseClass::Commercial),
        ("3400", LandUseClass::Commercial),
        ("0325", LandUseClass::Commercial),
        ("400", LandUseClass::Industrial),
        ("4010", LandUseClass::Industrial),
        ("1010", LandUseClass::Other),
        ("112", LandUseClass::Unknown),
        ("013", LandUseClass::Unknown),
        ("034", LandUseClass::Commercial),
    ];
    for (raw, want) in cases {
        assert_eq!(
            windsor.land_use_class(raw),
            want,
            "{raw:?}: {:?}",
            windsor.classify_land_use(raw)
        );
    }
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

#[test]
fn rule_ids_are_checked_for_catalogue_shape() {
    for ok in [
        "northcastle.lda.applicability",
        "northcastle.inspection.48h_notice",
        "shared.def.x",
    ] {
        assert!(validate::is_rule_id(ok), "{ok}");
    }
    for bad in [
        "northcastle",
        "Northcastle.lda",
        "northcastle..lda",
        "4x.lda",
        "carmel.condition one",
        "",
    ] {
        assert!(!validate::is_rule_id(bad), "{bad}");
    }
}
