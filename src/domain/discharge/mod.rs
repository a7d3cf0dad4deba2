//! What a connection or an observed discharge carries: the discharge kinds the local laws name.
//!
//! The set is the union of the kinds in the rule catalogue's enumeration `discharge_kinds`
//! (`rules/RULES.md`, "Non-stormwater discharge kinds: exempt or allowed, per jurisdiction"):
//! every kind either North Castle (§ 267-12A(1)) or Windsor (Sec. 3-169(a)(1)) lists as exempt,
//! the kinds the illicit-connection definitions name (sewage, process wastewater, wash water,
//! indoor drains and sinks), the ones a list carves out or leaves out (active groundwater
//! dewatering, chlorinated pool water), dye testing, plain stormwater and `Unknown`.
//!
//! Whether a kind is exempt is *not* decided here: that is jurisdiction data (the profile's
//! `exempt_discharges`), because North Castle and Windsor exempt different kinds.
//!
//! Two deliberate splits and merges, so that real attribute values keep their meaning:
//! - "foundation or footing drains" is one item in both laws but two kinds here
//!   (`foundation_drain`, `footing_drain`), because asset data names them separately; both laws
//!   treat them alike. The combined phrase parses as `foundation_drain`.
//! - floor drains and sinks are `indoor_drain`: the laws make connections "from indoor drains
//!   and sinks" illicit, and the catalogue's default (AMB-05) counts floor drains as indoor drains.
//!
//! Serialised names are the snake_case names returned by [`DischargeKind::as_str`]; serde
//! accepts exactly those. [`DischargeKind::parse`] (and `FromStr`) is the forgiving parser for
//! attribute values found in real data.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

mod parse;
mod synonyms;

pub use parse::ParseDischargeKindError;

/// A kind of discharge a conveyance carries or an inspector observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DischargeKind {
    /// Water from natural precipitation only (both laws define stormwater this way).
    Stormwater,
    /// Treated or untreated sewage, a sanitary lateral, septic effluent.
    Sewage,
    /// Process wastewater from industrial or commercial operations.
    ProcessWastewater,
    /// Wash water other than the residential kinds North Castle exempts (vehicle and equipment
    /// washing, commercial car washes, power washing).
    WashWater,
    /// Indoor drains and sinks, floor drains included (AMB-05 default).
    IndoorDrain,
    /// Foundation drain ("foundation or footing drains" in both laws).
    FoundationDrain,
    /// Footing drain ("foundation or footing drains" in both laws).
    FootingDrain,
    /// Air-conditioning condensate.
    AirConditioningCondensate,
    /// Water line flushing (hydrant and main flushing).
    WaterlineFlushing,
    /// Other potable water sources (North Castle).
    OtherPotableWaterSource,
    /// Landscape irrigation.
    LandscapeIrrigation,
    /// Lawn watering (North Castle).
    LawnWatering,
    /// Irrigation water (North Castle).
    IrrigationWater,
    /// Diverted stream flows (North Castle: only "existing" ones).
    DivertedStreamFlows,
    /// Rising groundwater.
    RisingGroundwater,
    /// Uncontaminated groundwater infiltration (to storm drains; Windsor: per 40 CFR 35.2005(20)).
    UncontaminatedGroundwaterInfiltration,
    /// Uncontaminated pumped groundwater.
    UncontaminatedPumpedGroundwater,
    /// Active groundwater dewatering systems (Windsor carves these out of its footing-drain item).
    ActiveGroundwaterDewateringSystem,
    /// Crawl space sump pumps ("crawl space pumps" in Windsor).
    CrawlSpaceSumpPump,
    /// Basement sump pumps (exempt in North Castle only).
    BasementSumpPump,
    /// Springs.
    Springs,
    /// Natural riparian habitat or wetland flows.
    NaturalRiparianHabitatOrWetlandFlows,
    /// Water from individual residential car washing (North Castle).
    IndividualResidentialCarWashing,
    /// Dechlorinated swimming pool discharges (North Castle).
    DechlorinatedSwimmingPoolDischarge,
    /// Chlorinated swimming pool water (exempt nowhere).
    ChlorinatedSwimmingPoolWater,
    /// Residential street wash water (North Castle).
    ResidentialStreetWashWater,
    /// Water from firefighting activities.
    FirefightingWater,
    /// North Castle's catch-all "any other water source not containing pollutants".
    OtherWaterNotContainingPollutants,
    /// Dye testing (allowed with verbal notice in both laws).
    DyeTesting,
    /// Not known, or not recognised in the source data.
    Unknown,
}

use DischargeKind::*;

impl DischargeKind {
    /// Every kind, in declaration order.
    pub const ALL: [DischargeKind; 30] = [
        Stormwater,
        Sewage,
        ProcessWastewater,
        WashWater,
        IndoorDrain,
        FoundationDrain,
        FootingDrain,
        AirConditioningCondensate,
        WaterlineFlushing,
        OtherPotableWaterSource,
        LandscapeIrrigation,
        LawnWatering,
        IrrigationWater,
        DivertedStreamFlows,
        RisingGroundwater,
        UncontaminatedGroundwaterInfiltration,
        UncontaminatedPumpedGroundwater,
        ActiveGroundwaterDewateringSystem,
        CrawlSpaceSumpPump,
        BasementSumpPump,
        Springs,
        NaturalRiparianHabitatOrWetlandFlows,
        IndividualResidentialCarWashing,
        DechlorinatedSwimmingPoolDischarge,
        ChlorinatedSwimmingPoolWater,
        ResidentialStreetWashWater,
        FirefightingWater,
        OtherWaterNotContainingPollutants,
        DyeTesting,
        Unknown,
    ];

    /// The snake_case name used in files, the database and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Stormwater => "stormwater",
            Sewage => "sewage",
            ProcessWastewater => "process_wastewater",
            WashWater => "wash_water",
            IndoorDrain => "indoor_drain",
            FoundationDrain => "foundation_drain",
            FootingDrain => "footing_drain",
            AirConditioningCondensate => "air_conditioning_condensate",
            WaterlineFlushing => "waterline_flushing",
            OtherPotableWaterSource => "other_potable_water_source",
            LandscapeIrrigation => "landscape_irrigation",
            LawnWatering => "lawn_watering",
            IrrigationWater => "irrigation_water",
            DivertedStreamFlows => "diverted_stream_flows",
            RisingGroundwater => "rising_groundwater",
            UncontaminatedGroundwaterInfiltration => "uncontaminated_groundwater_infiltration",
            UncontaminatedPumpedGroundwater => "uncontaminated_pumped_groundwater",
            ActiveGroundwaterDewateringSystem => "active_groundwater_dewatering_system",
            CrawlSpaceSumpPump => "crawl_space_sump_pump",
            BasementSumpPump => "basement_sump_pump",
            Springs => "springs",
            NaturalRiparianHabitatOrWetlandFlows => "natural_riparian_habitat_or_wetland_flows",
            IndividualResidentialCarWashing => "individual_residential_car_washing",
            DechlorinatedSwimmingPoolDischarge => "dechlorinated_swimming_pool_discharge",
            ChlorinatedSwimmingPoolWater => "chlorinated_swimming_pool_water",
            ResidentialStreetWashWater => "residential_street_wash_water",
            FirefightingWater => "firefighting_water",
            OtherWaterNotContainingPollutants => "other_water_not_containing_pollutants",
            DyeTesting => "dye_testing",
            Unknown => "unknown",
        }
    }

    /// True only for stormwater: everything else, `Unknown` included, is a non-stormwater
    /// discharge or may be one.
    pub fn is_stormwater(self) -> bool {
        matches!(self, Stormwater)
    }

    /// The kind whose [`as_str`](Self::as_str) name is exactly `name`; no normalisation.
    pub fn from_name(name: &str) -> Option<DischargeKind> {
        Self::ALL.iter().copied().find(|k| k.as_str() == name)
    }
}

impl fmt::Display for DischargeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DischargeKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for DischargeKind {
    /// Strict: only the snake_case names. A near miss gets a suggestion in the error.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        if let Some(kind) = DischargeKind::from_name(&name) {
            return Ok(kind);
        }
        let msg = match DischargeKind::parse(&name) {
            Ok(kind) => format!("unknown discharge kind {name:?}; did you mean \"{kind}\"?"),
            Err(_) => {
                let names: Vec<&str> = DischargeKind::ALL.iter().map(|k| k.as_str()).collect();
                format!(
                    "unknown discharge kind {name:?}, expected one of: {}",
                    names.join(", ")
                )
            }
        };
        Err(serde::de::Error::custom(msg))
    }
}

#[cfg(test)]
mod tests;
