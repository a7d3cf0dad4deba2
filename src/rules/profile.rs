//! Jurisdiction profiles: one town's stormwater law as data.
//!
//! A profile is a TOML file, `data/jurisdictions/<id>.toml`. The profiles shipped with the
//! crate are compiled in ([`Profile::builtin`]), so the binary works anywhere; a town adds
//! its own file and loads it with [`Profile::load`], without touching code. Every key is
//! checked at load: unknown keys, units, discharge kinds and conditions are rejected, numbers
//! must be positive, rule ids must look like catalogue ids and be listed under `[rules]`,
//! and nothing may be listed twice. Errors name the file and the key path.
//!
//! A town none of whose law is built in starts from [`Profile::template`] (`ms4 profile
//! new`): a documented profile whose town-specific values cite [`PROGRAM_SETTING`] until
//! the law's section is written over them, so answers that use one say so.
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
//! [wording]                         # law, law_short, definitions, county_clerk, town_counsel,
//!                                   #   easement_plan_item, agreement_plan_item, sections.<role>
//! [family]                          # land_development = "ny-conditions" | "ny-general-permit"
//!                                   #   | "illicit-discharge-only"; illicit_discharge =
//!                                   #   "model-ordinance" | "none"
//! [roles]                           # role = rule id, one for every role the family decides
//! condition_one = "carmel.condition_one"   # (`ms4 profile rules` lists them)
//! [rules."northcastle.lda.applicability"]  # title, citation
//! [[schedules.items]]               # asset, priority?, practice_type?, structural?, every,
//!                                   #   unit, by?, citation, quote? (see `schedules`)
//! [[calendar.items]]                # id, title, rule, on? | months? | days?, citation,
//!                                   #   confirmed (see `calendar`)
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
pub mod bounds;
mod builtin;
mod calendar;
mod coverage;
mod discharges;
mod error;
mod family;
mod idde;
mod issue;
mod land_use;
mod law;
mod locate;
mod measures;
mod readings;
mod schedules;
mod template;
mod validate;
mod wording;

pub use assumptions::{Assumption, AssumptionValue};
pub use calendar::{month_day, CalendarItem, CalendarSettings, DueRule};
pub use coverage::{Coverage, CoverageEntry};
pub use discharges::{
    whole_name, AllowedEntry, AllowedRoute, Determiners, DischargeCondition, ExemptEntry,
    MissingOwner, Ms4Settings, NameMatch,
};
pub use error::ProfileError;
pub use family::{
    ExemptionCutoff, Family, IllicitDischargeFamily, LandDevelopmentFamily, LargerCommonPlan,
    ListCycle, PollutantOfConcern, Reading, Role, StormwaterSourceScope, CITATION_PROCEDURE,
    NOTICE,
};
pub use idde::{
    year_start, ActOffices, DeadlineStep, FineStep, Holiday, IddeSettings, Immunity,
    LandDevelopmentNotice, NoticeItem, Observed, PenaltyTier, PenaltyTiers,
};
pub(crate) use land_use::normalise_words;
pub use land_use::{LandUseClass, LandUseConfig, LandUseList, LandUseMatch};
pub use law::{CrsHint, Law, RuleRef};
pub use measures::{
    Comparison, DistanceUnit, InspectionInterval, Threshold, ThresholdUnit, Thresholds, TimeUnit,
    Tolerance, Tolerances, SQFT_PER_ACRE,
};
pub use readings::{
    ConveyanceReading, DiversionBaseline, ExemptConveyance, ExemptionConditions,
    ExemptionConditionsReading, IrrigationScope, PlanDuty, ReceivingWaterReading, SumpPumpReading,
    TableReading, WaterMethod,
};
pub use schedules::{
    Inspector, IntervalUnit, ScheduleItem, ScheduleSettings, ASSETS as SCHEDULE_ASSETS, PE_WORDS,
};
pub use template::{id_from_name, Template, TemplateRequest, PROGRAM_SETTING};
pub use wording::{NoticeOrder, NoticeOrderText, NoticeWording, Wording, NY_CONDITIONS_SECTIONS};

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
    /// The law families its text follows: which code decides it.
    pub family: Family,
    /// Which of this town's rule ids plays each role the family's code decides.
    pub roles: BTreeMap<Role, String>,
    /// The law's name, offices, clerks and sections that the family's answers quote.
    #[serde(default)]
    pub wording: Wording,
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
    /// Whose conveyances are the MS4 and who approves connections (program settings).
    #[serde(default)]
    pub ms4: Ms4Settings,
    /// Monitoring locations: whose conveyances are the town's on the map, and the
    /// priority rule (`[monitoring]`; the default reading when left out).
    #[serde(
        default,
        skip_serializing_if = "crate::rules::monitoring::MonitoringSettings::is_unset"
    )]
    pub monitoring: crate::rules::monitoring::MonitoringSettings,
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
    /// The illicit discharge programme: dry-weather rule, reporting year, holidays and
    /// the enforcement steps (`[idde]`).
    #[serde(default)]
    pub idde: IddeSettings,
    /// How often each kind of asset is inspected (`[schedules]`; the registry's default
    /// of 365 days, said to be the default's reading, when left out).
    #[serde(default, skip_serializing_if = "ScheduleSettings::is_unset")]
    pub schedules: ScheduleSettings,
    /// The permit's programme items and when each falls due (`[calendar]`; none when
    /// left out).
    #[serde(default, skip_serializing_if = "CalendarSettings::is_unset")]
    pub calendar: CalendarSettings,
    /// Each rule's citation as answers carry it, made on first use (not a key of the
    /// file).
    #[serde(skip)]
    cited: CitedRules,
}

/// The citations of a profile's rules, made once: a determination cites a few dozen
/// rules, and reading each rule's citation text again for every parcel (its bracket
/// notes dropped) was a third of a county's determinations. A clone starts empty, so a
/// profile changed after cloning is never cited from the other's words.
/// Its readings of the ambiguities (`AssumptionTaken`) likewise.
#[derive(Default)]
struct CitedRules(
    std::sync::OnceLock<BTreeMap<String, super::Citation>>,
    std::sync::OnceLock<BTreeMap<String, super::AssumptionTaken>>,
);

impl Clone for CitedRules {
    fn clone(&self) -> Self {
        CitedRules::default()
    }
}

impl PartialEq for CitedRules {
    /// The cache says nothing of the law: two profiles are equal by their keys alone.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for CitedRules {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CitedRules")
    }
}

impl Profile {
    /// A listed rule's citation, made once per profile; none for a rule not listed.
    pub(crate) fn cited(&self, id: &str) -> Option<&super::Citation> {
        self.cited
            .0
            .get_or_init(|| {
                self.rules
                    .iter()
                    .map(|(id, r)| {
                        let c = super::Citation {
                            rule: id.as_str().into(),
                            title: r.title.as_str().into(),
                            citation: super::finding::plain_citation(&r.citation).into(),
                        };
                        (id.clone(), c)
                    })
                    .collect()
            })
            .get(id)
    }

    /// The reading this profile records for an ambiguity id, made once per profile.
    pub(crate) fn assumed(&self, id: &str) -> Option<&super::AssumptionTaken> {
        self.cited
            .1
            .get_or_init(|| {
                self.assumptions
                    .iter()
                    .map(|(id, a)| {
                        let taken = super::AssumptionTaken {
                            id: id.as_str().into(),
                            text: a.text.as_str().into(),
                        };
                        (id.clone(), taken)
                    })
                    .collect()
            })
            .get(id)
    }

    /// The AMB-30 reading: which 303(d) list cycle the listings come from, or `None` when
    /// the profile sets none (loading refuses a setting that is not one).
    pub fn list_cycle(&self) -> Option<ListCycle> {
        self.assumption(ListCycle::AMB)
            .and_then(|a| ListCycle::from_setting(&a.setting).ok())
    }

    /// The AMB-14 reading: the exemption cut-off date and whether it is confirmed, or `None`
    /// when the profile sets none (loading refuses a setting that is not one).
    pub fn exemption_cutoff(&self) -> Option<ExemptionCutoff> {
        self.assumption(ExemptionCutoff::AMB)
            .and_then(|a| ExemptionCutoff::from_setting(&a.setting).ok())
    }

    /// Parse and check a profile. `source_name` labels errors (usually the file name).
    pub fn from_toml_str(text: &str, source_name: &str) -> Result<Profile, ProfileError> {
        // Parse once without the schema so that a syntax error is not blamed on a key.
        if let Err(e) = text.parse::<toml::Table>() {
            return Err(ProfileError::syntax(source_name, text, &e));
        }
        let profile: Profile =
            toml::from_str(text).map_err(|e| ProfileError::schema(source_name, text, &e))?;
        validate::profile(&profile).map_err(|issue| ProfileError::Invalid {
            source_name: source_name.to_string(),
            line: locate::line_of_key(text, &issue.key),
            key: issue.key,
            message: issue.message,
        })?;
        Ok(profile)
    }

    /// Load `<dir>/<id>.toml`; its `id` must be `id`.
    pub fn load(id: &str, dir: impl AsRef<Path>) -> Result<Profile, ProfileError> {
        Self::load_with_text(id, dir).map(|(profile, _)| profile)
    }

    /// Load `<dir>/<id>.toml` as [`Profile::load`] does, and return its text too (what a
    /// registry stores).
    pub fn load_with_text(
        id: &str,
        dir: impl AsRef<Path>,
    ) -> Result<(Profile, String), ProfileError> {
        if !validate::is_profile_id(id) {
            return Err(ProfileError::BadId { id: id.to_string() });
        }
        let file_name = format!("{id}.toml");
        let path = dir.as_ref().join(&file_name);
        let text =
            std::fs::read_to_string(&path).map_err(|source| ProfileError::Read { path, source })?;
        let profile = Self::with_id(id, &text, &file_name)?;
        Ok((profile, text))
    }

    /// Parse and check a profile whose `id` must be `id` (a registry's stored copy).
    pub fn with_id(id: &str, text: &str, source_name: &str) -> Result<Profile, ProfileError> {
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

    /// The town's rule id that plays `role` in its family's code, if it names one (load
    /// checks that it names every role its family decides).
    pub fn role_id(&self, role: Role) -> Option<&str> {
        self.roles.get(&role).map(String::as_str)
    }

    /// The typed reading the profile takes of an ambiguity (see [`Reading`]).
    pub fn reading<R: Reading>(&self) -> R {
        self.assumption(R::AMB)
            .and_then(|a| a.setting.as_str())
            .and_then(R::parse)
            .unwrap_or(R::DEFAULT)
    }

    /// The reading chosen for an ambiguity, by AMB id (`AMB-02`).
    pub fn assumption(&self, id: &str) -> Option<&Assumption> {
        self.assumptions.get(id)
    }
}

#[cfg(test)]
mod tests;
