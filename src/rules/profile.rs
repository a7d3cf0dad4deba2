//! Jurisdiction profiles: one town's stormwater law as data.
//!
//! A profile is a TOML file, `data/jurisdictions/<id>.toml`. The profiles shipped with the
//! crate are compiled in ([`Profile::builtin`]), so the binary works anywhere; a town adds
//! its own file and loads it with [`Profile::load`], without touching code. Every key is
//! checked at load: unknown keys, units, discharge kinds and conditions are rejected, numbers
//! must be positive, rule ids must look like catalogue ids and be listed under `[rules]`,
//! and nothing may be listed twice. Errors name the file and the key path.
//!
//! # Schema
//!
//! ```toml
//! id = "north-castle-ny"            # = file stem
//! name = "Town of North Castle"
//! state = "NY"
//! rule_prefix = "northcastle"       # own rule ids start "northcastle." (or "shared.")
//! catalogue_version = "1.0"
//!
//! [law]                             # title, seed (law file name), history, administrator?
//! [crs_hint]                        # epsg, name, unit ("ft" | "us_ft" | "m")
//! [coverage.illicit_discharges]     # also illicit_connections, land_development, conditions:
//! present = true                    #   present, rule?, citation?, approving_authority?, note?
//!
//! [thresholds.land_development_activity]   # keys: see `Thresholds`
//! value = 5000
//! unit = "sqft"                     # "sqft" | "acre"
//! comparison = ">="                 # ">=" (default) | ">" | "<=" | "<"
//! rule = "northcastle.lda.applicability"
//! citation = "§ 267-4B LAND DEVELOPMENT ACTIVITY"
//! quote = "…"                       # optional; also note
//!
//! [[exempt_discharges]]             # kind, text, rule, citation, conditions = [..], note?
//! [[allowed_discharges]]            # route, authority, text, rule, citation, conditions
//! [land_use]                        # rule, citation, basis, code_digits?
//! [land_use.commercial]             # also industrial, review, other: codes = ["400-499"], words
//! [tolerances]                      # snap_tolerance, record_tolerance, receiving_water_tolerance
//! snap_tolerance = { value = 1.0, unit = "ft" }
//! [inspections.construction_routine]  # every | within (+ after), unit, rule, citation, ...
//! [assumptions.AMB-02]              # setting (any TOML value), text (one line)
//! [rules."northcastle.lda.applicability"]  # title, citation
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::domain::discharge::DischargeKind;

/// A fieldless enum written as fixed strings in TOML and JSON, with a helpful error for an
/// unknown string (`unknown unit "sqm", expected sqft or acre`).
macro_rules! str_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)+];

            /// The name used in profile files and JSON.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)+
                }
            }

            /// The value written exactly as `name`.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|v| v.as_str() == name)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let name = <String as serde::Deserialize>::deserialize(deserializer)?;
                Self::from_name(&name).ok_or_else(|| {
                    let names: Vec<&str> = Self::ALL.iter().map(|v| v.as_str()).collect();
                    serde::de::Error::custom(format!(
                        "unknown {} {:?}, expected {}",
                        $what,
                        name,
                        $crate::rules::profile::one_of(&names)
                    ))
                })
            }
        }
    };
}

mod assumptions;
mod discharges;
mod error;
mod land_use;
mod locate;
mod measures;
mod validate;

pub use assumptions::{Assumption, AssumptionValue};
pub use discharges::{AllowedEntry, AllowedRoute, DischargeCondition, ExemptEntry};
pub use error::ProfileError;
pub use land_use::{LandUseClass, LandUseConfig, LandUseList, LandUseMatch};
pub use measures::{
    Comparison, DistanceUnit, InspectionInterval, Threshold, ThresholdUnit, Thresholds, TimeUnit,
    Tolerance, Tolerances, SQFT_PER_ACRE,
};

/// Profiles compiled into the binary: (id, TOML text).
const BUILTIN: &[(&str, &str)] = &[
    (
        "north-castle-ny",
        include_str!("../../data/jurisdictions/north-castle-ny.toml"),
    ),
    (
        "carmel-ny",
        include_str!("../../data/jurisdictions/carmel-ny.toml"),
    ),
    (
        "windsor-ct",
        include_str!("../../data/jurisdictions/windsor-ct.toml"),
    ),
];

const BUILTIN_IDS: &[&str] = &["north-castle-ny", "carmel-ny", "windsor-ct"];

/// "a", "a or b", "a, b or c".
pub(crate) fn one_of(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// One jurisdiction's law as data; mirrors the TOML file key for key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Profile id, also the file stem: `north-castle-ny`.
    pub id: String,
    /// The municipality: `Town of North Castle`.
    pub name: String,
    /// Two-letter state code.
    pub state: String,
    /// First segment of this jurisdiction's rule ids in the catalogue: `northcastle`.
    pub rule_prefix: String,
    /// Version of the rule catalogue the ids and citations come from.
    pub catalogue_version: String,
    /// The law the profile encodes.
    pub law: Law,
    /// Suggested working CRS.
    pub crs_hint: CrsHint,
    /// Which parts of the rule set the law contains.
    pub coverage: Coverage,
    /// Area thresholds.
    #[serde(default)]
    pub thresholds: Thresholds,
    /// Non-stormwater discharges exempt from the prohibition, one entry per kind.
    #[serde(default)]
    pub exempt_discharges: Vec<ExemptEntry>,
    /// Discharges allowed by another route (written approval, dye test, permit).
    #[serde(default)]
    pub allowed_discharges: Vec<AllowedEntry>,
    /// Which land uses count as commercial or industrial.
    pub land_use: LandUseConfig,
    /// Distances the spatial code uses.
    pub tolerances: Tolerances,
    /// Inspection intervals by name.
    #[serde(default)]
    pub inspections: BTreeMap<String, InspectionInterval>,
    /// Readings chosen for the law's ambiguities, by AMB id.
    #[serde(default)]
    pub assumptions: BTreeMap<String, Assumption>,
    /// Every rule the registry evaluates here, by catalogue id.
    pub rules: BTreeMap<String, RuleRef>,
}

/// The law a profile encodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Law {
    /// Title of the chapter or article.
    pub title: String,
    /// File name of the law text in the project's seed folder.
    pub seed: String,
    /// Adoption and amendment history.
    pub history: String,
    /// Who administers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub administrator: Option<String>,
}

/// The projected CRS a registry for this jurisdiction should use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrsHint {
    /// EPSG code, e.g. 2260.
    pub epsg: u32,
    /// Its name, e.g. `NAD83 / New York East (ftUS)`.
    pub name: String,
    /// Its linear unit.
    pub unit: DistanceUnit,
}

/// Which parts of the registry's rule set the law contains.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// A prohibition of illicit (illegal) discharges.
    pub illicit_discharges: CoverageEntry,
    /// Illicit-connection rules.
    pub illicit_connections: CoverageEntry,
    /// Land development activity rules (SWPPP, exemptions).
    pub land_development: CoverageEntry,
    /// Carmel's Conditions One, Two and Three (post-construction triggers).
    pub conditions: CoverageEntry,
}

impl Coverage {
    /// Each entry with its TOML key.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &CoverageEntry)> + '_ {
        [
            ("illicit_discharges", &self.illicit_discharges),
            ("illicit_connections", &self.illicit_connections),
            ("land_development", &self.land_development),
            ("conditions", &self.conditions),
        ]
        .into_iter()
    }
}

/// Whether the law contains one part of the rule set, and which rule says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverageEntry {
    /// True when the law has these rules.
    pub present: bool,
    /// The rule that establishes them, or records their absence
    /// (`carmel.illicit_discharge.absent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Its citation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
    /// Who approves (e.g. connections: "the Town").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approving_authority: Option<String>,
    /// What a reader should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A catalogue rule as this profile cites it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleRef {
    /// Short title.
    pub title: String,
    /// Where the law states it.
    pub citation: String,
}

impl Profile {
    /// Parse and check a profile. `source_name` labels errors (usually the file name).
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<Profile, ProfileError> {
        // Parse once without the schema so that a syntax error is not blamed on a key.
        if let Err(e) = text.parse::<toml::Table>() {
            return Err(ProfileError::syntax(source_name, text, &e));
        }
        let profile: Profile =
            toml::from_str(text).map_err(|e| ProfileError::schema(source_name, text, &e))?;
        profile.validate(source_name)?;
        Ok(profile)
    }

    /// Load `<dir>/<id>.toml`; its `id` must be `id`.
    pub fn load(id: &str, dir: impl AsRef<Path>) -> Result<Profile, ProfileError> {
        if !validate::is_profile_id(id) {
            return Err(ProfileError::BadId { id: id.to_string() });
        }
        let file_name = format!("{id}.toml");
        let path = dir.as_ref().join(&file_name);
        let text =
            std::fs::read_to_string(&path).map_err(|source| ProfileError::Read { path, source })?;
        Self::with_id(id, &text, &file_name)
    }

    /// A profile compiled into the binary (see [`Profile::builtin_ids`]).
    pub fn builtin(id: &str) -> Result<Profile, ProfileError> {
        let (_, text) = BUILTIN
            .iter()
            .find(|(builtin_id, _)| *builtin_id == id)
            .ok_or_else(|| ProfileError::UnknownBuiltin {
                id: id.to_string(),
                known: BUILTIN_IDS.iter().map(|s| s.to_string()).collect(),
            })?;
        Self::with_id(id, text, &format!("{id}.toml"))
    }

    /// Ids of the profiles compiled into the binary.
    pub fn builtin_ids() -> &'static [&'static str] {
        BUILTIN_IDS
    }

    fn with_id(id: &str, text: &str, source_name: &str) -> Result<Profile, ProfileError> {
        let profile = Self::from_toml_str(text, source_name)?;
        if profile.id != id {
            return Err(ProfileError::invalid(
                source_name,
                "id".to_string(),
                format!(
                    "profile id {:?} does not match the file name {source_name:?}",
                    profile.id
                ),
            ));
        }
        Ok(profile)
    }

    /// Run the load-time checks on a profile built or changed in code.
    pub fn validate(&self, source_name: &str) -> Result<(), ProfileError> {
        validate::profile(self)
            .map_err(|issue| ProfileError::invalid(source_name, issue.key, issue.message))
    }

    /// The exemption covering `kind`, if the law exempts it. Its `conditions` still have to
    /// be checked against the discharge. `None` also for a law with no discharge prohibition
    /// at all: check `coverage.illicit_discharges` first.
    pub fn is_exempt(&self, kind: DischargeKind) -> Option<&ExemptEntry> {
        self.exempt_discharges.iter().find(|e| e.kind == kind)
    }

    /// The allowance by `route`, if the law has one.
    pub fn allowed(&self, route: AllowedRoute) -> Option<&AllowedEntry> {
        self.allowed_discharges.iter().find(|a| a.route == route)
    }

    /// The land-use class of a raw parcel value (code or words).
    pub fn land_use_class(&self, raw: &str) -> LandUseClass {
        self.land_use.classify(raw).class
    }

    /// The land-use class of a raw parcel value, with the evidence for it.
    pub fn classify_land_use(&self, raw: &str) -> LandUseMatch {
        self.land_use.classify(raw)
    }

    /// A rule of this profile by catalogue id.
    pub fn rule(&self, id: &str) -> Option<&RuleRef> {
        self.rules.get(id)
    }

    /// The citation of a rule of this profile.
    pub fn citation(&self, id: &str) -> Option<&str> {
        self.rules.get(id).map(|r| r.citation.as_str())
    }

    /// The reading chosen for an ambiguity, by AMB id (`AMB-02`).
    pub fn assumption(&self, id: &str) -> Option<&Assumption> {
        self.assumptions.get(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::discharge::DischargeKind as K;

    fn builtin(id: &str) -> Profile {
        Profile::builtin(id).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn every_builtin_profile_loads() {
        assert_eq!(Profile::builtin_ids().len(), BUILTIN.len());
        for (i, id) in Profile::builtin_ids().iter().enumerate() {
            assert_eq!(BUILTIN[i].0, *id);
            let profile = builtin(id);
            assert_eq!(profile.id, *id);
            assert!(!profile.rules.is_empty(), "{id}");
            assert!(profile.tolerances.snap_tolerance.value > 0.0, "{id}");
        }
    }

    #[test]
    fn builtin_profiles_load_from_the_data_folder_too() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/jurisdictions");
        for id in Profile::builtin_ids() {
            assert_eq!(Profile::load(id, &dir).unwrap(), builtin(id));
        }
    }

    #[test]
    fn unknown_and_malformed_ids_are_errors() {
        let err = Profile::builtin("gotham-ny").unwrap_err();
        assert!(err.to_string().contains("north-castle-ny"), "{err}");
        let err = Profile::load("../etc/passwd", ".").unwrap_err();
        assert!(matches!(err, ProfileError::BadId { .. }), "{err}");
        let err = Profile::load("no-such-town", ".").unwrap_err();
        assert!(matches!(err, ProfileError::Read { .. }), "{err}");
    }

    /// Replace the first occurrence of `from` in the Carmel profile.
    fn carmel_with(from: &str, to: &str) -> String {
        let text = BUILTIN[1].1;
        assert!(text.contains(from), "fixture text not found: {from:?}");
        text.replacen(from, to, 1)
    }

    #[test]
    fn bad_profiles_name_file_and_key() {
        let lda = "[thresholds.land_development_activity]\nvalue = 5000\nunit = \"sqft\"";
        let cases: Vec<(&str, String, &str, &str)> = vec![
            (
                "bad unit",
                carmel_with(lda, "[thresholds.land_development_activity]\nvalue = 5000\nunit = \"sqm\""),
                "thresholds.land_development_activity.unit",
                "unknown unit \"sqm\", expected sqft or acre",
            ),
            (
                "unknown key",
                carmel_with(lda, &format!("{lda}\nvalu = 5")),
                "thresholds.land_development_activity.valu",
                "unknown key `valu`",
            ),
            (
                "negative threshold",
                carmel_with(lda, "[thresholds.land_development_activity]\nvalue = -5000\nunit = \"sqft\""),
                "thresholds.land_development_activity.value",
                "must be a positive number",
            ),
            (
                "zero threshold",
                carmel_with(lda, "[thresholds.land_development_activity]\nvalue = 0\nunit = \"sqft\""),
                "thresholds.land_development_activity.value",
                "must be a positive number",
            ),
            (
                "unknown discharge kind",
                carmel_with(
                    "\n[land_use]\n",
                    "\n[[exempt_discharges]]\nkind = \"gizmo_water\"\ntext = \"x\"\nrule = \"carmel.lda.exemptions\"\ncitation = \"x\"\n\n[land_use]\n",
                ),
                "exempt_discharges[0].kind",
                "unknown discharge kind \"gizmo_water\"",
            ),
            (
                "near-miss discharge kind",
                carmel_with(
                    "\n[land_use]\n",
                    "\n[[exempt_discharges]]\nkind = \"floor drain\"\ntext = \"x\"\nrule = \"carmel.lda.exemptions\"\ncitation = \"x\"\n\n[land_use]\n",
                ),
                "exempt_discharges[0].kind",
                "did you mean \"indoor_drain\"",
            ),
            (
                "unknown tolerance unit",
                carmel_with("snap_tolerance = { value = 1.0, unit = \"ft\" }", "snap_tolerance = { value = 1.0, unit = \"yd\" }"),
                "tolerances.snap_tolerance.unit",
                "unknown unit \"yd\", expected ft, us_ft or m",
            ),
            (
                "zero tolerance",
                carmel_with("snap_tolerance = { value = 1.0,", "snap_tolerance = { value = 0.0,"),
                "tolerances.snap_tolerance.value",
                "must be a positive number",
            ),
            (
                "rule id not shaped like a catalogue id",
                carmel_with("rule = \"carmel.condition_two\"", "rule = \"Condition Two\""),
                "thresholds.condition_two.rule",
                "does not look like a catalogue rule id",
            ),
            (
                "rule id missing from [rules]",
                carmel_with("rule = \"carmel.condition_two\"", "rule = \"carmel.condition_four\""),
                "thresholds.condition_two.rule",
                "not listed under [rules]",
            ),
            (
                "rule of another jurisdiction",
                carmel_with("[rules.\"carmel.fees\"]", "[rules.\"windsor.fees\"]"),
                "rules.\"windsor.fees\"",
                "belongs to another jurisdiction",
            ),
            (
                "duplicate land-use code",
                carmel_with("codes = [\"700-799\"]", "codes = [\"700-799\", \"400-499\"]"),
                "land_use.commercial.codes[0]",
                "duplicate code \"400-499\"",
            ),
            (
                "bad land-use code",
                carmel_with("codes = [\"700-799\"]", "codes = [\"7xx\"]"),
                "land_use.industrial.codes[0]",
                "bad code \"7xx\"",
            ),
            (
                "duplicate land-use word",
                carmel_with("\"industrial\", \"ind\"", "\"industrial\", \"Commercial\""),
                "land_use.commercial.words[0]",
                "duplicate word",
            ),
            (
                "bad ambiguity id",
                carmel_with("[assumptions.AMB-07]", "[assumptions.AMBIGUITY-7]"),
                "assumptions.AMBIGUITY-7",
                "not an ambiguity id",
            ),
            (
                "missing required key",
                carmel_with("name = \"Town of Carmel\"\n", ""),
                "name",
                "required key is missing",
            ),
            (
                "missing key in a table",
                carmel_with("[thresholds.condition_two]\nvalue = 5\nunit = \"acre\"\n", "[thresholds.condition_two]\nvalue = 5\n"),
                "thresholds.condition_two.unit",
                "required key is missing",
            ),
            (
                "missing key in an inline table",
                carmel_with("snap_tolerance = { value = 1.0, unit = \"ft\" }", "snap_tolerance = { value = 1.0 }"),
                "tolerances.snap_tolerance.unit",
                "required key is missing",
            ),
            (
                "every and within together",
                carmel_with("every = 7\n", "every = 7\nwithin = 2\n"),
                "inspections.construction_routine",
                "not both",
            ),
            (
                "id that does not match the file",
                carmel_with("id = \"carmel-ny\"", "id = \"carmel\""),
                "id",
                "does not match the file name",
            ),
        ];
        for (what, text, key, needle) in cases {
            let err = Profile::with_id("carmel-ny", &text, "carmel-ny.toml").unwrap_err();
            let msg = err.to_string();
            assert_eq!(err.key(), Some(key), "{what}: {msg}");
            assert!(
                msg.starts_with(&format!("carmel-ny.toml: {key}: ")),
                "{what}: {msg}"
            );
            assert!(msg.contains(needle), "{what}: {msg}");
        }
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let err = Profile::from_toml_str("id = \"x\"\n[thresholds\n", "x.toml").unwrap_err();
        match err {
            ProfileError::Syntax { line, .. } => assert_eq!(line, 2),
            other => panic!("expected a syntax error, got {other}"),
        }
    }

    #[test]
    fn north_castle_and_windsor_exempt_lists_differ_where_the_catalogue_says() {
        let nc = builtin("north-castle-ny");
        let windsor = builtin("windsor-ct");
        // Exempt in North Castle only (RULES.md, northcastle.enum.exempt_discharge_kinds).
        for kind in [
            K::OtherPotableWaterSource,
            K::LawnWatering,
            K::IrrigationWater,
            K::BasementSumpPump,
            K::AirConditioningCondensate,
            K::IndividualResidentialCarWashing,
            K::DechlorinatedSwimmingPoolDischarge,
            K::ResidentialStreetWashWater,
            K::OtherWaterNotContainingPollutants,
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
            K::WaterlineFlushing,
            K::LandscapeIrrigation,
            K::DivertedStreamFlows,
            K::RisingGroundwater,
            K::UncontaminatedGroundwaterInfiltration,
            K::UncontaminatedPumpedGroundwater,
            K::FoundationDrain,
            K::FootingDrain,
            K::CrawlSpaceSumpPump,
            K::Springs,
            K::NaturalRiparianHabitatOrWetlandFlows,
            K::FirefightingWater,
        ] {
            assert!(nc.is_exempt(kind).is_some(), "{kind} in North Castle");
            assert!(windsor.is_exempt(kind).is_some(), "{kind} in Windsor");
        }
        // Exempt nowhere.
        for kind in [
            K::Stormwater,
            K::Sewage,
            K::ProcessWastewater,
            K::WashWater,
            K::IndoorDrain,
            K::ActiveGroundwaterDewateringSystem,
            K::ChlorinatedSwimmingPoolWater,
            K::Unknown,
        ] {
            assert!(nc.is_exempt(kind).is_none(), "{kind} in North Castle");
            assert!(windsor.is_exempt(kind).is_none(), "{kind} in Windsor");
        }
        // Only Windsor carves out active dewatering; only North Castle has the override.
        let footing = windsor.is_exempt(K::FootingDrain).unwrap();
        assert!(footing.has_condition(DischargeCondition::NotActiveGroundwaterDewatering));
        assert_eq!(footing.rule, "windsor.illegal_discharge.exempt_listed");
        let springs = nc.is_exempt(K::Springs).unwrap();
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
        assert!(carmel.is_exempt(K::Springs).is_none());
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
}
