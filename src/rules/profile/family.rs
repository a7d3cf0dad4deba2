//! Law families: which body of rule code decides a town's law, and which of the town's rule
//! ids plays each role in it.
//!
//! New York's towns follow the NYS DEC model local laws, and Connecticut's article the
//! model illicit-discharge ordinance: the code is written once per family, and a profile
//! names its family (`[family]`) and maps every role the family's code decides to the
//! town's own rule id (`[roles]`), whose citation the `[rules]` table gives. No code
//! compares a town's id or rule prefix; searching for a role (`Role::ConditionOne`) finds
//! the code that decides it, and [`Role::decided_in`] names that code for
//! `ms4 profile rules`.

use serde::{Deserialize, Serialize};

str_enum! {
    /// The land development law a town's text follows.
    pub enum LandDevelopmentFamily("land development family") {
        /// The NYS DEC model law with Conditions One, Two and Three deciding the extra
        /// duties (the shape of Carmel's Article X).
        NyConditions = "ny-conditions",
        /// The NYS DEC model law that follows the State general permit's route instead of
        /// Conditions (the shape of North Castle's chapter 267).
        NyGeneralPermit = "ny-general-permit",
        /// No land development rules: an illicit-discharge article with a construction
        /// threshold and premises access only (the shape of Windsor's article).
        IllicitDischargeOnly = "illicit-discharge-only",
    }
}

str_enum! {
    /// The illicit-discharge law a town's text follows.
    pub enum IllicitDischargeFamily("illicit discharge family") {
        /// The model illicit-discharge ordinance: the conveyance and undocumented-connection
        /// clauses, exempt discharges, documentation and approval.
        ModelOrdinance = "model-ordinance",
        /// The law has no illicit discharge or connection rules.
        None = "none",
    }
}

/// `[family]`: the families a profile's law follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// Its land development law.
    pub land_development: LandDevelopmentFamily,
    /// Its illicit discharge law.
    pub illicit_discharge: IllicitDischargeFamily,
}

str_enum! {
    /// A rule the family code decides, by what it is in the law; the profile's `[roles]`
    /// table maps each to the town's rule id.
    pub enum Role("rule role") {
        /// Land development activity threshold: 5,000 sq ft.
        LandDevelopmentActivity = "land_development_activity",
        /// Exempt activities.
        Exemptions = "exemptions",
        /// No review until a SWPPP is received.
        Swppp = "swppp",
        /// Condition One: discharge of a pollutant of concern to a 303(d) water or TMDL watershed.
        ConditionOne = "condition_one",
        /// Condition Two: disturbing five or more acres.
        ConditionTwo = "condition_two",
        /// Condition Three: 1 to 5 acres, excluding single-family residences and agricultural properties.
        ConditionThree = "condition_three",
        /// Pollutant of concern.
        PollutantOfConcern = "pollutant_of_concern",
        /// Post-construction SMP component.
        PostConstruction = "post_construction",
        /// Condition One SWPPP preparer and certification.
        PreparerCertification = "preparer_certification",
        /// Conditions One/Two/Three: qualified-professional inspections every 7 days and within 24 h of a storm of 0.5 inch or more.
        ConstructionInspections = "construction_inspections",
        /// Inspection reports kept in a site logbook.
        SiteLogbook = "site_logbook",
        /// Maintenance easement before any approval that requires an SMF.
        MaintenanceEasement = "maintenance_easement",
        /// Recorded maintenance agreement before final plan approval, or dedication.
        MaintenanceAgreement = "maintenance_agreement",
        /// Applicant/developer or representative on site at all times during construction or grading.
        DeveloperOnSite = "developer_on_site",
        /// No more than 5 acres disturbed at one time.
        AtOneTime = "at_one_time",
        /// Contractor certifications before any land development activity.
        Contractors = "contractors",
        /// Contractor and GP certifications become part of the SWPPP.
        ContractorRecords = "contractor_records",
        /// SWPPP kept on site from start of construction to final stabilization.
        SwpppOnSite = "swppp_on_site",
        /// Other environmental permits before final stormwater design approval.
        OtherPermits = "other_permits",
        /// 48-hour notice before construction milestones.
        Notice48h = "notice_48h",
        /// Written notice of inspection violations; only stabilization until corrected.
        ViolationHalt = "violation_halt",
        /// Operate and maintain controls; clean sediment traps at 50%.
        OperateMaintain = "operate_maintain",
        /// PE-certified as-built plans for SMPs.
        AsBuilt = "as_built",
        /// Post-construction O&M minimums.
        OmProgram = "om_program",
        /// Fees for SWPPP review, inspections, SMP maintenance.
        Fees = "fees",
        /// Completed and previously approved projects.
        Grandfathering = "grandfathering",
        /// Larger common plan and the 1/4-mile separation rule.
        LargerCommonPlan = "larger_common_plan",
        /// Construction GP indicator: 1 acre, or 5,000 sq ft in the NYC East of Hudson Watershed.
        GpCoverageIndicator = "gp_coverage_indicator",
        /// Enhanced Phosphorus Removal Standards.
        Phosphorus = "phosphorus",
        /// The law has no Condition One / Two / Three.
        ConditionsAbsent = "conditions_absent",
        /// MS4 special conditions (303(d), TMDL) and their deadlines.
        SpecialConditions = "special_conditions",
        /// Qualified-inspector inspections every 7 calendar days for projects of 1 acre or more.
        QualifiedInspector = "qualified_inspector",
        /// Operate and maintain controls; clean sediment traps at 50%.
        GpInspections = "gp_inspections",
        /// Trained contractor on site daily during soil disturbance.
        TrainedContractor = "trained_contractor",
        /// Structural post-construction SMP inspections by a NY-licensed PE.
        PeInspection = "pe_inspection",
        /// Scope of the illicit discharge article.
        Applicability = "applicability",
        /// The construction activity threshold that scopes the premises-inspection section.
        ConstructionThreshold = "construction_threshold",
        /// Town Engineer access, monitoring equipment and obstruction removal.
        PremisesAccess = "premises_access",
        /// Illicit connection, clause (1): conveyances that let non-stormwater in.
        NonstormwaterConveyance = "nonstormwater_conveyance",
        /// Illicit connection, clause (2): undocumented or unapproved drains from commercial or industrial land.
        UndocumentedCommercialIndustrial = "undocumented_commercial_industrial",
        /// Prohibition of illicit connections, including past ones.
        IllicitConnectionProhibition = "illicit_connection_prohibition",
        /// Sewage line connected to the MS4.
        SewageLine = "sewage_line",
        /// Exempt non-stormwater discharge kinds.
        ExemptDischargeKinds = "exempt_discharge_kinds",
        /// What counts as the MS4.
        Ms4Definition = "ms4_definition",
        /// The registry's recipe for flagging a connection illicit (the catalogue's
        /// `shared.registry.flag_illicit_connection`), cited with the town's own sections:
        /// the id may be shared between towns, the citation is each town's.
        FlagIllicitConnection = "flag_illicit_connection",
        /// The notice of violation ordering compliance: the orders it may make and the
        /// deadline it must set where abatement or restoration is required.
        NoticeOfViolation = "notice_of_violation",
        /// The right to appeal a notice, which the notice states.
        NoticeAppeal = "notice_appeal",
        /// A written notice giving a period to correct the violation or submit a plan
        /// (a town whose law has a citation procedure, like Windsor's (b)(1)).
        WrittenNotice = "written_notice",
        /// The citation and its fine per violation, with what it must state.
        Citation = "citation",
        /// The notice a citation carries that each further period of noncompliance is a
        /// new violation and a new fine.
        ContinuingViolation = "continuing_violation",
        /// The period within which a fine must be paid.
        FinePayment = "fine_payment",
    }
}

const NY_CONDITIONS: &[Role] = &[
    Role::LandDevelopmentActivity,
    Role::Exemptions,
    Role::Swppp,
    Role::ConditionOne,
    Role::ConditionTwo,
    Role::ConditionThree,
    Role::PollutantOfConcern,
    Role::PostConstruction,
    Role::PreparerCertification,
    Role::ConstructionInspections,
    Role::SiteLogbook,
    Role::MaintenanceEasement,
    Role::MaintenanceAgreement,
    Role::DeveloperOnSite,
    Role::AtOneTime,
    Role::Contractors,
    Role::ContractorRecords,
    Role::SwpppOnSite,
    Role::OtherPermits,
    Role::Notice48h,
    Role::ViolationHalt,
    Role::OperateMaintain,
    Role::AsBuilt,
    Role::OmProgram,
    Role::Fees,
];

const NY_GENERAL_PERMIT: &[Role] = &[
    Role::LandDevelopmentActivity,
    Role::Exemptions,
    Role::Grandfathering,
    Role::LargerCommonPlan,
    Role::GpCoverageIndicator,
    Role::Swppp,
    Role::PostConstruction,
    Role::Phosphorus,
    Role::ConditionsAbsent,
    Role::SpecialConditions,
    Role::QualifiedInspector,
    Role::MaintenanceEasement,
    Role::MaintenanceAgreement,
    Role::GpInspections,
    Role::TrainedContractor,
    Role::AtOneTime,
    Role::Contractors,
    Role::ContractorRecords,
    Role::SwpppOnSite,
    Role::OtherPermits,
    Role::Notice48h,
    Role::ViolationHalt,
    Role::AsBuilt,
    Role::PeInspection,
    Role::OmProgram,
    Role::Fees,
];

const DISCHARGE_ONLY: &[Role] = &[
    Role::Applicability,
    Role::ConstructionThreshold,
    Role::PremisesAccess,
];

const ILLICIT_MODEL: &[Role] = &[
    Role::NonstormwaterConveyance,
    Role::UndocumentedCommercialIndustrial,
    Role::SewageLine,
    Role::ExemptDischargeKinds,
    Role::Ms4Definition,
    Role::FlagIllicitConnection,
];

/// The roles of a model-ordinance town's notice of violation: a town whose profile maps
/// them (both, with `[wording.notice]`) prints its notice; one that maps neither is told
/// its profile names no notice, never given another town's.
pub const NOTICE: &[Role] = &[Role::NoticeOfViolation, Role::NoticeAppeal];

/// The roles of a citation procedure (a written notice, then a citation with its fine):
/// a model-ordinance town whose law has one maps all four, and its notices then include
/// the written notice and the citation; a town that maps none has the notice of
/// violation only.
pub const CITATION_PROCEDURE: &[Role] = &[
    Role::WrittenNotice,
    Role::Citation,
    Role::ContinuingViolation,
    Role::FinePayment,
];

/// The code that writes the notices.
const NOTICE_CODE: &[&str] = &["ms4::idde::notice"];

impl Role {
    /// The module paths of the code that decides this role.
    pub fn decided_in(self) -> &'static [&'static str] {
        match self {
            Role::LandDevelopmentActivity => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::Exemptions => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::Swppp => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::ConditionOne => &["ms4::rules::determine::conditions"],
            Role::ConditionTwo => &["ms4::rules::determine::conditions"],
            Role::ConditionThree => &["ms4::rules::determine::conditions"],
            Role::PollutantOfConcern => &["ms4::rules::determine::conditions"],
            Role::PostConstruction => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
                "ms4::rules::easement",
            ],
            Role::PreparerCertification => &["ms4::rules::determine::conditions"],
            Role::ConstructionInspections => &["ms4::rules::determine::conditions"],
            Role::SiteLogbook => &["ms4::rules::determine::conditions"],
            Role::MaintenanceEasement => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
                "ms4::rules::easement",
            ],
            Role::MaintenanceAgreement => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
                "ms4::rules::easement",
            ],
            Role::DeveloperOnSite => &["ms4::rules::determine::conditions"],
            Role::AtOneTime => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::Contractors => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::ContractorRecords => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::SwpppOnSite => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::OtherPermits => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::Notice48h => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::ViolationHalt => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::OperateMaintain => &["ms4::rules::determine::conditions"],
            Role::AsBuilt => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::OmProgram => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::Fees => &[
                "ms4::rules::determine::conditions",
                "ms4::rules::determine::general_permit",
            ],
            Role::Grandfathering => &["ms4::rules::determine::general_permit"],
            Role::LargerCommonPlan => &["ms4::rules::determine::general_permit"],
            Role::GpCoverageIndicator => &["ms4::rules::determine::general_permit"],
            Role::Phosphorus => &["ms4::rules::determine::general_permit"],
            Role::ConditionsAbsent => &["ms4::rules::determine::general_permit"],
            Role::SpecialConditions => &["ms4::rules::determine::general_permit"],
            Role::QualifiedInspector => &["ms4::rules::determine::general_permit"],
            Role::GpInspections => &["ms4::rules::determine::general_permit"],
            Role::TrainedContractor => &["ms4::rules::determine::general_permit"],
            Role::PeInspection => &["ms4::rules::determine::general_permit"],
            Role::Applicability => &["ms4::rules::determine::discharge_only"],
            Role::ConstructionThreshold => &["ms4::rules::determine::discharge_only"],
            Role::PremisesAccess => &["ms4::rules::determine::discharge_only"],
            Role::NonstormwaterConveyance => &["ms4::rules::illicit"],
            Role::UndocumentedCommercialIndustrial => &["ms4::rules::illicit"],
            Role::IllicitConnectionProhibition => &["ms4::rules::illicit"],
            Role::SewageLine => &["ms4::rules::illicit"],
            Role::ExemptDischargeKinds => &["ms4::rules::illicit"],
            Role::Ms4Definition => &["ms4::rules::illicit::status"],
            Role::FlagIllicitConnection => &["ms4::rules::illicit"],
            Role::NoticeOfViolation | Role::NoticeAppeal | Role::WrittenNotice => NOTICE_CODE,
            Role::Citation | Role::ContinuingViolation | Role::FinePayment => NOTICE_CODE,
        }
    }
}

impl LandDevelopmentFamily {
    /// The module path of this family's determination code.
    pub fn module(self) -> &'static str {
        match self {
            LandDevelopmentFamily::NyConditions => "ms4::rules::determine::conditions",
            LandDevelopmentFamily::NyGeneralPermit => "ms4::rules::determine::general_permit",
            LandDevelopmentFamily::IllicitDischargeOnly => "ms4::rules::determine::discharge_only",
        }
    }
}

impl Family {
    /// The roles this family's code decides, each of which the profile must map to one of
    /// its rules.
    pub fn required_roles(self) -> Vec<Role> {
        let mut roles: Vec<Role> = match self.land_development {
            LandDevelopmentFamily::NyConditions => NY_CONDITIONS.to_vec(),
            LandDevelopmentFamily::NyGeneralPermit => NY_GENERAL_PERMIT.to_vec(),
            LandDevelopmentFamily::IllicitDischargeOnly => DISCHARGE_ONLY.to_vec(),
        };
        if self.illicit_discharge == IllicitDischargeFamily::ModelOrdinance {
            roles.extend_from_slice(ILLICIT_MODEL);
        }
        roles
    }
}

/// A typed reading of one ambiguity of the catalogue (`[assumptions.AMB-xx] setting`): the
/// family's code matches on the variant, and loading refuses a word that is not one.
pub trait Reading: Sized + Copy + 'static {
    /// The ambiguity's id.
    const AMB: &'static str;
    /// The catalogue's recommended reading, taken only for a profile built in code that
    /// lacks the setting (a loaded profile of a family that reads it must give it).
    const DEFAULT: Self;
    /// The reading written as `name`.
    fn parse(name: &str) -> Option<Self>;
    /// Every reading's name.
    fn names() -> Vec<&'static str>;
}

macro_rules! reading {
    ($name:ident, $amb:literal, $default:ident) => {
        impl Reading for $name {
            const AMB: &'static str = $amb;
            const DEFAULT: Self = $name::$default;
            fn parse(name: &str) -> Option<Self> {
                $name::from_name(name)
            }
            fn names() -> Vec<&'static str> {
                $name::ALL.iter().map(|v| v.as_str()).collect()
            }
        }
    };
}

str_enum! {
    /// AMB-08: is sediment always a pollutant of concern?
    pub enum PollutantOfConcern("AMB-08 reading") {
        /// Any 303(d)-listed water (or TMDL watershed) receiving the runoff counts.
        Literal = "literal",
        /// Only a listed pollutant the project's runoff is known to carry counts.
        Matched = "matched",
    }
}
reading!(PollutantOfConcern, "AMB-08", Literal);

str_enum! {
    /// AMB-09: what the "pollutants in stormwater identified as a source" qualifier binds.
    pub enum StormwaterSourceScope("AMB-09 reading") {
        /// The TMDL watershed only (the closest antecedent).
        TmdlOnly = "tmdl_only",
        /// Both the TMDL watershed and the 303(d)-listed water.
        Both = "both",
    }
}
reading!(StormwaterSourceScope, "AMB-09", TmdlOnly);

str_enum! {
    /// AMB-12: the larger-common-plan clause of the land development activity definition.
    pub enum LargerCommonPlan("AMB-12 reading") {
        /// Any activity of a larger common plan is a land development activity, any size.
        Literal = "literal",
        /// Only when the plan's total disturbance is one acre or more (the permit's reading).
        PlanTotalOneAcre = "plan_total_one_acre",
        /// Only when the plan's total disturbance is 5,000 sq ft or more.
        PlanTotal5000Sqft = "plan_total_5000_sqft",
        /// Plan membership is recorded; the activity test stays the area threshold.
        PlanMembershipOnly = "plan_membership_only",
    }
}
reading!(LargerCommonPlan, "AMB-12", Literal);

/// AMB-14: the date a model law's exemptions for earlier approvals are measured from, and
/// whether the town has confirmed it (an unconfirmed date leaves the exemption open).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExemptionCutoff {
    /// The law's effective date as the profile takes it (`effective_date = "2008-12-17"`).
    pub effective_date: chrono::NaiveDate,
    /// Whether that date is confirmed (`confirmed = true`).
    pub confirmed: bool,
    /// The day the law was adopted, as its history states (`adopted = "2007-12-19"`), when
    /// the profile gives it. A law takes effect no earlier than the day it is adopted, so
    /// an approval on or before that day is on or before the effective date whatever the
    /// unconfirmed effective date turns out to be.
    pub adopted: Option<chrono::NaiveDate>,
}

impl ExemptionCutoff {
    /// The AMB id whose setting this is.
    pub const AMB: &'static str = "AMB-14";

    /// Reads the setting `{ effective_date = "YYYY-MM-DD", confirmed = BOOL, adopted =
    /// "YYYY-MM-DD" }` (`adopted` optional); the error says which key is missing, misspelt
    /// or of the wrong type, or that a confirmed effective date falls before adoption.
    pub fn from_setting(setting: &super::AssumptionValue) -> Result<Self, String> {
        let super::AssumptionValue::Table(table) = setting else {
            return Err(
                "expected { effective_date = \"YYYY-MM-DD\", confirmed = true | false, adopted = \"YYYY-MM-DD\" }".into(),
            );
        };
        if let Some(other) = table
            .keys()
            .find(|k| !matches!(k.as_str(), "effective_date" | "confirmed" | "adopted"))
        {
            return Err(format!(
                "unknown key {other:?}, expected effective_date, confirmed and adopted"
            ));
        }
        let date = |key: &str| -> Result<Option<chrono::NaiveDate>, String> {
            match table.get(key) {
                None => Ok(None),
                Some(v) => {
                    let text = v.as_str().unwrap_or_default();
                    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
                        .map(Some)
                        .map_err(|_| format!("{key} {text:?} is not a date written YYYY-MM-DD"))
                }
            }
        };
        let effective_date = date("effective_date")?
            .ok_or_else(|| "effective_date is missing: give it as \"YYYY-MM-DD\"".to_string())?;
        let adopted = date("adopted")?;
        let confirmed = table
            .get("confirmed")
            .and_then(|v| v.as_bool())
            .ok_or_else(|| "confirmed is missing: give true or false".to_string())?;
        if let Some(a) = adopted.filter(|a| confirmed && *a > effective_date) {
            return Err(format!(
                "the confirmed effective_date {effective_date} is before adopted {a}: a law takes effect no earlier than its adoption"
            ));
        }
        Ok(ExemptionCutoff {
            effective_date,
            confirmed,
            adopted,
        })
    }
}

/// AMB-30: which 303(d) list cycle the listings are read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListCycle {
    /// The latest cycle in the impairments table (`list_cycle = "latest"`).
    Latest,
    /// A named cycle year (`list_cycle = 2022`).
    Year(i64),
}

impl ListCycle {
    /// The AMB id whose setting this is.
    pub const AMB: &'static str = "AMB-30";

    /// Reads the setting `{ list_cycle = "latest" | YEAR }`; the error says what is wrong.
    pub fn from_setting(setting: &super::AssumptionValue) -> Result<Self, String> {
        use super::AssumptionValue as V;
        let V::Table(table) = setting else {
            return Err("expected { list_cycle = \"latest\" } or { list_cycle = YEAR }".into());
        };
        if let Some(other) = table.keys().find(|k| k.as_str() != "list_cycle") {
            return Err(format!("unknown key {other:?}, expected list_cycle"));
        }
        match table.get("list_cycle") {
            Some(V::Text(word)) if word == "latest" => Ok(ListCycle::Latest),
            Some(V::Integer(year)) if (1970..=2100).contains(year) => Ok(ListCycle::Year(*year)),
            Some(V::Text(word)) => Err(format!(
                "unknown list_cycle {word:?}, expected \"latest\" or a cycle year"
            )),
            Some(other) => Err(format!(
                "list_cycle {other:?} is neither \"latest\" nor a cycle year"
            )),
            None => Err("list_cycle is missing: give \"latest\" or a cycle year".into()),
        }
    }
}

/// A reading's check: its AMB id, its names, whether `name` is one.
pub(super) struct ReadingCheck {
    pub amb: &'static str,
    pub names: fn() -> Vec<&'static str>,
    pub known: fn(&str) -> bool,
}

fn check<R: Reading>() -> ReadingCheck {
    ReadingCheck {
        amb: R::AMB,
        names: R::names,
        known: |name| R::parse(name).is_some(),
    }
}

/// Every typed reading, checked wherever a profile sets it.
pub(super) fn reading_checks() -> Vec<ReadingCheck> {
    vec![
        check::<PollutantOfConcern>(),
        check::<StormwaterSourceScope>(),
        check::<LargerCommonPlan>(),
    ]
}

impl Family {
    /// The ambiguities this family's code reads, which its profiles must set.
    pub fn required_readings(self) -> Vec<&'static str> {
        let mut ambs: Vec<&'static str> = match self.land_development {
            LandDevelopmentFamily::NyConditions => {
                vec!["AMB-07", "AMB-08", "AMB-09", "AMB-12", "AMB-14", "AMB-30"]
            }
            LandDevelopmentFamily::NyGeneralPermit => vec!["AMB-07", "AMB-14", "AMB-30"],
            LandDevelopmentFamily::IllicitDischargeOnly => vec![],
        };
        if self.illicit_discharge == IllicitDischargeFamily::ModelOrdinance {
            ambs.extend(["AMB-05", "AMB-06"]);
        }
        ambs
    }
}
