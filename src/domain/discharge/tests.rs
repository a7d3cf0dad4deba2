use super::parse::normalise;
use super::synonyms::{AMBIGUOUS, SYNONYMS};
use super::*;

#[test]
fn every_kind_round_trips_through_its_name() {
    for kind in DischargeKind::ALL {
        assert_eq!(DischargeKind::from_name(kind.as_str()), Some(kind));
        assert_eq!(DischargeKind::parse(kind.as_str()), Ok(kind), "{kind}");
        assert_eq!(kind.as_str().parse::<DischargeKind>(), Ok(kind));
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{}\"", kind.as_str()));
        assert_eq!(serde_json::from_str::<DischargeKind>(&json).unwrap(), kind);
    }
}

#[test]
fn names_are_unique_snake_case() {
    let mut names: Vec<&str> = DischargeKind::ALL.iter().map(|k| k.as_str()).collect();
    for name in &names {
        assert!(name.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
    }
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), DischargeKind::ALL.len());
}

#[test]
fn forgiving_parse_accepts_real_world_spellings() {
    let cases: &[(&str, DischargeKind)] = &[
        ("Stormwater", Stormwater),
        ("STORM WATER", Stormwater),
        ("storm-water", Stormwater),
        ("Roof leader", Stormwater),
        ("sanitary", Sewage),
        ("Sanitary Sewer", Sewage),
        ("sewage (treated or untreated)", Sewage),
        ("Process Wastewater", ProcessWastewater),
        ("process-water", ProcessWastewater),
        ("wash water", WashWater),
        ("Washwater", WashWater),
        ("car wash", WashWater),
        ("floor drain", IndoorDrain),
        ("Floor Drains", IndoorDrain),
        ("indoor drains and sinks", IndoorDrain),
        ("SINK", IndoorDrain),
        ("indoor_drain", IndoorDrain),
        ("Foundation Drain", FoundationDrain),
        ("foundation or footing drains", FoundationDrain),
        ("footing drains", FootingDrain),
        ("Footer drain", FootingDrain),
        ("A/C condensate", AirConditioningCondensate),
        ("AC condensate", AirConditioningCondensate),
        ("air-conditioning condensate", AirConditioningCondensate),
        ("Air conditioner condensate", AirConditioningCondensate),
        ("water line flushing", WaterlineFlushing),
        ("Waterline flushing", WaterlineFlushing),
        ("hydrant flushing", WaterlineFlushing),
        ("potable water sources", OtherPotableWaterSource),
        ("other potable water sources", OtherPotableWaterSource),
        ("Landscape irrigation", LandscapeIrrigation),
        ("lawn watering", LawnWatering),
        ("irrigation water", IrrigationWater),
        ("existing diverted stream flows", DivertedStreamFlows),
        ("diverted stream flows", DivertedStreamFlows),
        ("rising ground water", RisingGroundwater),
        ("rising groundwaters", RisingGroundwater),
        (
            "uncontaminated ground water infiltration",
            UncontaminatedGroundwaterInfiltration,
        ),
        (
            "uncontaminated groundwater infiltration to storm drains",
            UncontaminatedGroundwaterInfiltration,
        ),
        (
            "uncontaminated pumped ground water",
            UncontaminatedPumpedGroundwater,
        ),
        (
            "active groundwater dewatering systems",
            ActiveGroundwaterDewateringSystem,
        ),
        ("crawl space pumps", CrawlSpaceSumpPump),
        ("Crawlspace sump pump", CrawlSpaceSumpPump),
        ("basement sump pump", BasementSumpPump),
        ("sump pump", BasementSumpPump),
        ("springs", Springs),
        ("Spring", Springs),
        (
            "flows from riparian habitats and wetlands",
            NaturalRiparianHabitatOrWetlandFlows,
        ),
        (
            "natural riparian habitat or wetland flows",
            NaturalRiparianHabitatOrWetlandFlows,
        ),
        (
            "individual residential car washing",
            IndividualResidentialCarWashing,
        ),
        (
            "residential (non-commercial) car washing",
            IndividualResidentialCarWashing,
        ),
        (
            "dechlorinated swimming pool discharges",
            DechlorinatedSwimmingPoolDischarge,
        ),
        ("residential street wash water", ResidentialStreetWashWater),
        ("fire fighting", FirefightingWater),
        ("Fire fighting activities", FirefightingWater),
        ("water from firefighting activities", FirefightingWater),
        (
            "any other water source not containing pollutants",
            OtherWaterNotContainingPollutants,
        ),
        ("Dye testing", DyeTesting),
        ("  unknown ", Unknown),
    ];
    for (raw, want) in cases {
        assert_eq!(DischargeKind::parse(raw), Ok(*want), "{raw:?}");
    }
}

#[test]
fn unrecognised_values_are_errors_with_a_reason() {
    let cases: &[(&str, &str)] = &[
        ("", "empty"),
        ("   ", "empty"),
        ("wastewater", "ambiguous"),
        ("pool water", "ambiguous"),
        ("groundwater", "ambiguous"),
        ("widget runoff", "not recognised"),
        // Unqualified words never widen an exemption (issue item 5).
        ("street wash", "ambiguous"),
        ("Street wash water", "ambiguous"),
        ("condensate", "ambiguous"),
        ("Flushing", "ambiguous"),
        ("infiltration", "ambiguous"),
        ("irrigation", "ambiguous"),
        ("lawn sprinkler", "ambiguous"),
        ("42", "not recognised"),
    ];
    for (raw, needle) in cases {
        let err = DischargeKind::parse(raw).unwrap_err();
        assert_eq!(err.input(), *raw);
        assert!(err.reason().contains(needle), "{raw:?}: {}", err.reason());
        let (kind, reason) = DischargeKind::parse_or_unknown(raw);
        assert_eq!(kind, Unknown);
        assert_eq!(reason, Some(err.reason()));
    }
    assert!(DischargeKind::parse("").unwrap_err().is_empty_input());
}

#[test]
fn only_stormwater_is_stormwater() {
    for kind in DischargeKind::ALL {
        assert_eq!(kind.is_stormwater(), kind == Stormwater, "{kind}");
    }
}

#[test]
fn serde_is_strict_and_suggests_the_name() {
    let err = serde_json::from_str::<DischargeKind>("\"floor drain\"").unwrap_err();
    assert!(
        err.to_string().contains("did you mean \"indoor_drain\""),
        "{err}"
    );
    let err = serde_json::from_str::<DischargeKind>("\"gizmo\"").unwrap_err();
    assert!(err.to_string().contains("expected one of"), "{err}");
}

#[test]
fn synonyms_are_normalised_and_not_shadowed() {
    for (syn, kind) in SYNONYMS {
        assert_eq!(
            normalise(syn),
            *syn,
            "synonym {syn:?} is not in normalised form"
        );
        assert_eq!(DischargeKind::parse(syn), Ok(*kind), "{syn:?}");
    }
    for (amb, _) in AMBIGUOUS {
        assert_eq!(
            normalise(amb),
            *amb,
            "ambiguous {amb:?} is not in normalised form"
        );
        assert!(DischargeKind::parse(amb).is_err(), "{amb:?}");
    }
}
