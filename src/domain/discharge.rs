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
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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

    /// Forgiving parse of a value found in real data: case, spaces, hyphens, underscores,
    /// slashes, plurals and common synonyms ("A/C condensate", "floor drain", "sanitary") are
    /// accepted. Anything else is an error that names the input and says why; turn it into
    /// `Unknown` with [`ParseDischargeKindError::reason`] or [`DischargeKind::parse_or_unknown`].
    pub fn parse(raw: &str) -> Result<DischargeKind, ParseDischargeKindError> {
        let key = normalise(raw);
        if key.is_empty() {
            return Err(ParseDischargeKindError::new(raw, Problem::Empty));
        }
        if let Some(kind) = Self::ALL
            .iter()
            .copied()
            .find(|k| normalise(k.as_str()) == key)
        {
            return Ok(kind);
        }
        if let Some((_, kind)) = SYNONYMS.iter().find(|(s, _)| *s == key) {
            return Ok(*kind);
        }
        if let Some((_, why)) = AMBIGUOUS.iter().find(|(s, _)| *s == key) {
            return Err(ParseDischargeKindError::new(raw, Problem::Ambiguous(why)));
        }
        Err(ParseDischargeKindError::new(raw, Problem::Unrecognised))
    }

    /// [`parse`](Self::parse), with an unrecognised value mapped to `Unknown` and the reason.
    pub fn parse_or_unknown(raw: &str) -> (DischargeKind, Option<String>) {
        match Self::parse(raw) {
            Ok(kind) => (kind, None),
            Err(e) => (Unknown, Some(e.reason())),
        }
    }
}

impl fmt::Display for DischargeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DischargeKind {
    type Err = ParseDischargeKindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DischargeKind::parse(s)
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

/// Why a raw value is not a discharge kind.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    Empty,
    Ambiguous(&'static str),
    Unrecognised,
}

/// A raw value [`DischargeKind::parse`] could not map to a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDischargeKindError {
    input: String,
    problem: Problem,
}

impl ParseDischargeKindError {
    fn new(input: &str, problem: Problem) -> Self {
        ParseDischargeKindError {
            input: input.to_string(),
            problem,
        }
    }

    /// The value as it was found.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// True when the value was empty or blank (a missing attribute, not a wrong one).
    pub fn is_empty_input(&self) -> bool {
        self.problem == Problem::Empty
    }

    /// A sentence for the `Unknown` classification, e.g. for an import report.
    pub fn reason(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ParseDischargeKindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            Problem::Empty => f.write_str("discharge kind is empty"),
            Problem::Ambiguous(why) => {
                write!(f, "discharge kind {:?} is ambiguous: {why}", self.input)
            }
            Problem::Unrecognised => {
                write!(f, "discharge kind {:?} is not recognised", self.input)
            }
        }
    }
}

impl std::error::Error for ParseDischargeKindError {}

/// Lower case; punctuation to spaces; a few compounds joined; plurals made singular per word.
fn normalise(raw: &str) -> String {
    let spaced: String = raw
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut text = format!(
        " {} ",
        spaced.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    for (from, to) in [
        (" a c ", " ac "),
        (" ground water", " groundwater"),
        (" storm water", " stormwater"),
        (" water line", " waterline"),
        (" water main", " waterline"),
        (" fire fighting", " firefighting"),
        (" crawlspace", " crawl space"),
        (" air conditioning", " ac"),
        (" air conditioner", " ac"),
        (" airconditioning", " ac"),
        (" waste water", " wastewater"),
        (" wash water", " washwater"),
        (" non commercial", " noncommercial"),
    ] {
        text = text.replace(from, to);
    }
    text.split_whitespace()
        .map(singular)
        .collect::<Vec<_>>()
        .join(" ")
}

/// "drains" -> "drain", "activities" -> "activity"; "process", "gas" and "basis" stay.
fn singular(word: &str) -> String {
    if word.len() > 4 && word.ends_with("ies") {
        format!("{}y", &word[..word.len() - 3])
    } else if word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    }
}

/// Synonyms, already in normalised form (see `normalise`).
const SYNONYMS: &[(&str, DischargeKind)] = &[
    ("storm", Stormwater),
    ("stormwater runoff", Stormwater),
    ("runoff", Stormwater),
    ("rain", Stormwater),
    ("rainwater", Stormwater),
    ("roof drain", Stormwater),
    ("roof leader", Stormwater),
    ("downspout", Stormwater),
    ("yard drain", Stormwater),
    ("area drain", Stormwater),
    ("sanitary", Sewage),
    ("sanitary sewage", Sewage),
    ("sanitary sewer", Sewage),
    ("sanitary lateral", Sewage),
    ("sanitary waste", Sewage),
    ("sewer", Sewage),
    ("sewer lateral", Sewage),
    ("sewer line", Sewage),
    ("treated sewage", Sewage),
    ("untreated sewage", Sewage),
    ("treated or untreated sewage", Sewage),
    ("sewage treated or untreated", Sewage),
    ("septic", Sewage),
    ("septic effluent", Sewage),
    ("septic system", Sewage),
    ("blackwater", Sewage),
    ("black water", Sewage),
    ("toilet", Sewage),
    ("process water", ProcessWastewater),
    ("process", ProcessWastewater),
    ("process line", ProcessWastewater),
    ("industrial wastewater", ProcessWastewater),
    ("industrial process water", ProcessWastewater),
    ("washwater", WashWater),
    ("wash", WashWater),
    ("washing", WashWater),
    ("washwater non residential", WashWater),
    ("non residential washwater", WashWater),
    ("commercial washwater", WashWater),
    ("car wash", WashWater),
    ("commercial car wash", WashWater),
    ("vehicle wash", WashWater),
    ("vehicle washing", WashWater),
    ("truck wash", WashWater),
    ("equipment wash", WashWater),
    ("equipment washing", WashWater),
    ("power washing", WashWater),
    ("pressure washing", WashWater),
    ("mop water", WashWater),
    ("indoor drain or sink", IndoorDrain),
    ("indoor drain and sink", IndoorDrain),
    ("indoor drain or sink discharge", IndoorDrain),
    ("interior drain", IndoorDrain),
    ("floor drain", IndoorDrain),
    ("basement floor drain", IndoorDrain),
    ("garage floor drain", IndoorDrain),
    ("shop drain", IndoorDrain),
    ("sink", IndoorDrain),
    ("sink drain", IndoorDrain),
    ("foundation", FoundationDrain),
    ("foundation or footing drain", FoundationDrain),
    ("foundation footing drain", FoundationDrain),
    ("foundation and footing drain", FoundationDrain),
    ("footing", FootingDrain),
    ("footer drain", FootingDrain),
    ("perimeter drain", FootingDrain),
    ("ac condensate", AirConditioningCondensate),
    ("ac", AirConditioningCondensate),
    ("hvac condensate", AirConditioningCondensate),
    ("condensate", AirConditioningCondensate),
    ("waterline flush", WaterlineFlushing),
    ("waterline flushing", WaterlineFlushing),
    ("hydrant flushing", WaterlineFlushing),
    ("main flushing", WaterlineFlushing),
    ("flushing", WaterlineFlushing),
    ("potable water", OtherPotableWaterSource),
    ("potable water source", OtherPotableWaterSource),
    ("drinking water", OtherPotableWaterSource),
    ("waterline break", OtherPotableWaterSource),
    ("landscape watering", LandscapeIrrigation),
    ("landscaping irrigation", LandscapeIrrigation),
    ("lawn irrigation", LawnWatering),
    ("lawn sprinkler", LawnWatering),
    ("irrigation", IrrigationWater),
    ("irrigation return flow", IrrigationWater),
    ("existing diverted stream flow", DivertedStreamFlows),
    ("diverted stream flow", DivertedStreamFlows),
    ("diverted stream", DivertedStreamFlows),
    ("stream diversion", DivertedStreamFlows),
    ("rising groundwater", RisingGroundwater),
    (
        "groundwater infiltration",
        UncontaminatedGroundwaterInfiltration,
    ),
    (
        "uncontaminated groundwater infiltration to storm drain",
        UncontaminatedGroundwaterInfiltration,
    ),
    ("infiltration", UncontaminatedGroundwaterInfiltration),
    ("pumped groundwater", UncontaminatedPumpedGroundwater),
    ("groundwater pumping", UncontaminatedPumpedGroundwater),
    ("dewatering", ActiveGroundwaterDewateringSystem),
    ("dewatering system", ActiveGroundwaterDewateringSystem),
    ("groundwater dewatering", ActiveGroundwaterDewateringSystem),
    (
        "active groundwater dewatering",
        ActiveGroundwaterDewateringSystem,
    ),
    ("construction dewatering", ActiveGroundwaterDewateringSystem),
    ("crawl space pump", CrawlSpaceSumpPump),
    ("crawl space sump", CrawlSpaceSumpPump),
    ("crawl space sump pump", CrawlSpaceSumpPump),
    ("basement sump", BasementSumpPump),
    ("basement pump", BasementSumpPump),
    // Unqualified sump pumps are read as basement sumps: the narrower exemption (Windsor
    // exempts only crawl space pumps), so an unqualified value never widens an exemption.
    ("sump pump", BasementSumpPump),
    ("sump", BasementSumpPump),
    ("spring", Springs),
    ("natural spring", Springs),
    (
        "riparian habitat or wetland flow",
        NaturalRiparianHabitatOrWetlandFlows,
    ),
    (
        "riparian habitat and wetland flow",
        NaturalRiparianHabitatOrWetlandFlows,
    ),
    (
        "flow from riparian habitat and wetland",
        NaturalRiparianHabitatOrWetlandFlows,
    ),
    (
        "flow from riparian habitat or wetland",
        NaturalRiparianHabitatOrWetlandFlows,
    ),
    (
        "riparian habitat flow",
        NaturalRiparianHabitatOrWetlandFlows,
    ),
    ("riparian flow", NaturalRiparianHabitatOrWetlandFlows),
    ("wetland flow", NaturalRiparianHabitatOrWetlandFlows),
    (
        "individual residential car wash",
        IndividualResidentialCarWashing,
    ),
    (
        "water from individual residential car washing",
        IndividualResidentialCarWashing,
    ),
    ("residential car wash", IndividualResidentialCarWashing),
    ("residential car washing", IndividualResidentialCarWashing),
    (
        "residential noncommercial car washing",
        IndividualResidentialCarWashing,
    ),
    ("noncommercial car washing", IndividualResidentialCarWashing),
    ("noncommercial car wash", IndividualResidentialCarWashing),
    ("home car wash", IndividualResidentialCarWashing),
    ("home car washing", IndividualResidentialCarWashing),
    ("dechlorinated pool", DechlorinatedSwimmingPoolDischarge),
    (
        "dechlorinated pool water",
        DechlorinatedSwimmingPoolDischarge,
    ),
    (
        "dechlorinated pool discharge",
        DechlorinatedSwimmingPoolDischarge,
    ),
    (
        "dechlorinated swimming pool water",
        DechlorinatedSwimmingPoolDischarge,
    ),
    ("chlorinated pool", ChlorinatedSwimmingPoolWater),
    ("chlorinated pool water", ChlorinatedSwimmingPoolWater),
    (
        "chlorinated swimming pool discharge",
        ChlorinatedSwimmingPoolWater,
    ),
    ("street washwater", ResidentialStreetWashWater),
    ("street wash", ResidentialStreetWashWater),
    ("street washing", ResidentialStreetWashWater),
    ("residential street washwater", ResidentialStreetWashWater),
    ("firefighting", FirefightingWater),
    ("firefighting activity", FirefightingWater),
    ("water from firefighting activity", FirefightingWater),
    ("fire suppression", FirefightingWater),
    (
        "any other water source not containing pollutant",
        OtherWaterNotContainingPollutants,
    ),
    (
        "other water source not containing pollutant",
        OtherWaterNotContainingPollutants,
    ),
    ("clean water", OtherWaterNotContainingPollutants),
    ("dye test", DyeTesting),
    ("dye test water", DyeTesting),
    ("unk", Unknown),
    ("not known", Unknown),
    ("tbd", Unknown),
];

/// Values that are common in data but could be more than one kind, with the reason.
const AMBIGUOUS: &[(&str, &str)] = &[
    ("wastewater", "sewage or process wastewater"),
    ("effluent", "sewage or process wastewater"),
    ("greywater", "sewage or an indoor drain or sink"),
    ("gray water", "sewage or an indoor drain or sink"),
    ("grey water", "sewage or an indoor drain or sink"),
    ("graywater", "sewage or an indoor drain or sink"),
    ("laundry", "sewage or wash water"),
    (
        "car washing",
        "individual residential or commercial car washing",
    ),
    ("pool", "dechlorinated or chlorinated pool water"),
    ("pool water", "dechlorinated or chlorinated pool water"),
    ("swimming pool", "dechlorinated or chlorinated pool water"),
    ("pool discharge", "dechlorinated or chlorinated pool water"),
    ("pool drain", "dechlorinated or chlorinated pool water"),
    (
        "groundwater",
        "rising, infiltrating or pumped groundwater, or a dewatering system",
    ),
    (
        "drain",
        "which drain (floor, foundation, footing, roof, yard)?",
    ),
    ("sprinkler", "lawn sprinkler or fire sprinkler"),
    ("mixed", "more than one kind"),
    ("other", "which other kind?"),
];

#[cfg(test)]
mod tests {
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
            ("street wash water", ResidentialStreetWashWater),
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
}
