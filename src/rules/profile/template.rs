//! `ms4 profile new`: a documented profile for a town whose law is none of the built-in
//! three, to fill in from its own text.
//!
//! The template parses with the real schema, so a registry can start on it at once; what it
//! cannot know is the town's law. Every value that should come from that law is written as
//! a program setting: a common default (the federal Phase II one acre, the model
//! ordinance's exempt list, the catalogue's proposed readings) whose `citation` is
//! [`PROGRAM_SETTING`]. That citation is the mark, and it is the one the answers carry:
//! a finding that uses an unfilled threshold or rule cites "program setting, not from your
//! law" instead of a section, with no change to the rules code, and filling the field is
//! writing the law's section over it (the comment above each field says where a typical
//! ordinance states it). [`Profile::unfilled`] lists the keys still so marked.
//!
//! The text is written here rather than kept as a file per family: the roles, thresholds
//! and readings a family needs come from the family's own lists ([`Family::required_roles`],
//! [`Family::required_readings`]), so a role added to a family is in its template too.

use std::fmt::Write as _;

use super::{
    Family, IllicitDischargeFamily, LandDevelopmentFamily, Profile, ProfileError, Role,
    NY_CONDITIONS_SECTIONS,
};

/// The citation of a value the town's law has not yet been read for: answers that use it
/// say so instead of citing a section.
pub const PROGRAM_SETTING: &str = "program setting, not from your law";

/// What `ms4 profile new` is asked for.
#[derive(Debug, Clone)]
pub struct TemplateRequest {
    /// The families the town's law follows.
    pub family: Family,
    /// The municipality: `Town of Quarry Hollow`.
    pub name: String,
    /// The profile id (file stem); derived from the name and state when `None`.
    pub id: Option<String>,
    /// Two-letter state code; `None` writes the placeholder `XX` to fill.
    pub state: Option<String>,
}

/// A written template: its id (the file stem it must be saved under) and its text.
#[derive(Debug, Clone)]
pub struct Template {
    /// The profile id.
    pub id: String,
    /// The TOML text.
    pub text: String,
}

impl Profile {
    /// A documented profile for a town not built in, every town-specific value marked as a
    /// program setting (see the module doc); it parses and checks as any profile does.
    pub fn template(req: &TemplateRequest) -> Result<Template, ProfileError> {
        let t = Template::write(req)?;
        Profile::with_id(&t.id, &t.text, &format!("{}.toml", t.id))?;
        Ok(t)
    }

    /// The keys whose citation is still [`PROGRAM_SETTING`]: what the analyst has left to
    /// read from the law.
    pub fn unfilled(&self) -> Vec<String> {
        let unfilled = |c: &str| c.contains(PROGRAM_SETTING);
        let mut keys = Vec::new();
        for (key, text) in [
            ("law.title", &self.law.title),
            ("law.history", &self.law.history),
        ] {
            if unfilled(text) {
                keys.push(key.to_string());
            }
        }
        for (name, c) in self.coverage.iter() {
            if c.citation.as_deref().is_some_and(unfilled) {
                keys.push(format!("coverage.{name}"));
            }
        }
        for (name, t) in self.thresholds.iter() {
            if unfilled(&t.citation) {
                keys.push(format!("thresholds.{name}"));
            }
        }
        for (i, e) in self.exempt_discharges.iter().enumerate() {
            if unfilled(&e.citation) {
                keys.push(format!("exempt_discharges[{i}] ({})", e.kind.as_str()));
            }
        }
        if unfilled(&self.land_use.citation) {
            keys.push("land_use".to_string());
        }
        for (amb, a) in &self.assumptions {
            if unfilled(&a.text) {
                keys.push(format!("assumptions.{amb}"));
            }
        }
        let w = &self.wording;
        for (key, text) in [
            ("definitions", &w.definitions),
            ("easement_plan_item", &w.easement_plan_item),
            ("agreement_plan_item", &w.agreement_plan_item),
            ("section_prefix", &w.section_prefix),
        ] {
            if unfilled(text) {
                keys.push(format!("wording.{key}"));
            }
        }
        for (role, s) in &w.sections {
            if unfilled(s) {
                keys.push(format!("wording.sections.{role}"));
            }
        }
        for (id, r) in &self.rules {
            if unfilled(&r.citation) {
                keys.push(format!("rules.\"{id}\""));
            }
        }
        keys
    }
}

impl Family {
    /// The families named on the command line: a land development family, an illicit
    /// discharge family, or both. A land development family alone is taken with the model
    /// ordinance (an MS4 town has an illicit discharge law); an illicit discharge family
    /// alone with no land development rules.
    pub fn from_names(names: &[String]) -> Result<Family, String> {
        let mut land = None;
        let mut illicit = None;
        for name in names {
            let name = name.trim();
            if let Some(f) = LandDevelopmentFamily::from_name(name) {
                if land.replace(f).is_some_and(|old| old != f) {
                    return Err(format!(
                        "two land development families given: {name:?} and another"
                    ));
                }
            } else if let Some(f) = IllicitDischargeFamily::from_name(name) {
                if illicit.replace(f).is_some_and(|old| old != f) {
                    return Err(format!(
                        "two illicit discharge families given: {name:?} and another"
                    ));
                }
            } else {
                let known: Vec<&str> = LandDevelopmentFamily::ALL
                    .iter()
                    .map(|f| f.as_str())
                    .chain(IllicitDischargeFamily::ALL.iter().map(|f| f.as_str()))
                    .collect();
                return Err(format!(
                    "unknown family {name:?}, expected {}",
                    super::one_of(&known)
                ));
            }
        }
        if land.is_none() && illicit.is_none() {
            return Err(
                "name a family: a land development family, an illicit discharge family, or both"
                    .into(),
            );
        }
        let family = Family {
            land_development: land.unwrap_or(LandDevelopmentFamily::IllicitDischargeOnly),
            illicit_discharge: illicit.unwrap_or(IllicitDischargeFamily::ModelOrdinance),
        };
        if family.land_development == LandDevelopmentFamily::IllicitDischargeOnly
            && family.illicit_discharge == IllicitDischargeFamily::None
        {
            return Err("illicit-discharge-only with none leaves the registry no law to apply: name ny-conditions or ny-general-permit, or model-ordinance".into());
        }
        Ok(family)
    }
}

/// `"Town of Quarry Hollow"`, `Some("NY")` -> `quarry-hollow-ny`.
pub fn id_from_name(name: &str, state: Option<&str>) -> String {
    let mut words: Vec<String> = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    for prefix in ["town", "city", "village", "borough", "township", "county"] {
        if words.len() > 2 && words[0] == prefix && words[1] == "of" {
            words.drain(..2);
            break;
        }
    }
    if let Some(st) = state {
        words.push(st.to_ascii_lowercase());
    }
    words.join("-")
}

/// The rule-id prefix of a profile id: its letters and digits before the state
/// (`quarry-hollow-ny` -> `quarryhollow`), starting with a letter.
fn rule_prefix(id: &str, state: Option<&str>) -> String {
    let stem = match state {
        Some(st) => id
            .strip_suffix(&format!("-{}", st.to_ascii_lowercase()))
            .unwrap_or(id),
        None => id,
    };
    let prefix: String = stem.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
    match prefix.chars().next() {
        Some(c) if c.is_ascii_lowercase() => prefix,
        _ => format!("town{prefix}"),
    }
}

/// A TOML basic string.
fn q(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// A TOML array of basic strings.
fn list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|s| q(s)).collect();
    format!("[{}]", quoted.join(", "))
}

/// A role's rule as the template titles it, and where a typical ordinance states it (the
/// comment above it).
fn role_text(role: Role) -> (&'static str, &'static str) {
    use Role as R;
    match role {
        R::LandDevelopmentActivity => ("Land development activity: the area threshold", "definitions section: 'land development activity' (the area that brings an activity under the law)"),
        R::Exemptions => ("Exempt activities", "applicability or exemptions section: 'exempt activities'"),
        R::Swppp => ("No review until a SWPPP is received", "SWPPP section: no application reviewed until a SWPPP is received"),
        R::ConditionOne => ("Condition One: a pollutant of concern discharged to a 303(d) water or TMDL watershed", "SWPPP contents section: Condition One (303(d) water or TMDL watershed)"),
        R::ConditionTwo => ("Condition Two: the larger disturbance", "SWPPP contents section: Condition Two (five acres or more)"),
        R::ConditionThree => ("Condition Three: the middle range, except single-family residences and agricultural properties", "SWPPP contents section: Condition Three (one to five acres)"),
        R::PollutantOfConcern => ("Pollutant of concern", "definitions section: 'pollutant of concern'"),
        R::PostConstruction => ("Post-construction stormwater management practices in the SWPPP", "SWPPP contents section: post-construction stormwater management practices"),
        R::PreparerCertification => ("SWPPP preparer and certification", "SWPPP contents section: who prepares and certifies the SWPPP"),
        R::ConstructionInspections => ("Construction inspections by a qualified professional", "construction inspection section: inspections by a qualified professional"),
        R::SiteLogbook => ("Inspection reports kept in a site logbook", "construction inspection section: the site logbook"),
        R::MaintenanceEasement => ("Maintenance easement before an approval that requires a stormwater management facility", "maintenance easement section (post-construction)"),
        R::MaintenanceAgreement => ("Recorded maintenance agreement before final plan approval", "maintenance agreement section (post-construction)"),
        R::DeveloperOnSite => ("Developer or representative on site during construction", "construction inspection section: the developer or representative on site"),
        R::AtOneTime => ("Most area disturbed at one time", "SWPPP contents section: most area disturbed at one time"),
        R::Contractors => ("Contractor certifications before land development activity", "SWPPP section: contractor certifications"),
        R::ContractorRecords => ("Contractor certifications kept with the SWPPP", "SWPPP section: certifications kept with the SWPPP"),
        R::SwpppOnSite => ("SWPPP kept on site until final stabilization", "SWPPP section: the SWPPP kept on site"),
        R::OtherPermits => ("Other environmental permits before final stormwater design approval", "SWPPP section: other environmental permits"),
        R::Notice48h => ("Notice before construction milestones", "construction inspection section: notice before milestones"),
        R::ViolationHalt => ("Written notice of violations; only stabilization until corrected", "construction inspection section: violations and stop-work"),
        R::OperateMaintain => ("Operate and maintain erosion and sediment controls", "maintenance during construction section"),
        R::AsBuilt => ("As-built plans for stormwater management practices", "construction completion section: as-built plans"),
        R::OmProgram => ("Operation and maintenance after construction", "maintenance after construction section"),
        R::Fees => ("Fees for SWPPP review, inspections and maintenance", "fees section"),
        R::Grandfathering => ("Completed and previously approved projects", "applicability section: completed and previously approved projects"),
        R::LargerCommonPlan => ("Larger common plan of development or sale", "definitions section: 'larger common plan of development or sale'"),
        R::GpCoverageIndicator => ("State construction general permit coverage", "applicability section: coverage under the State construction general permit"),
        R::Phosphorus => ("Enhanced phosphorus removal standards", "performance and design criteria section: phosphorus removal"),
        R::ConditionsAbsent => ("The law has no Conditions One, Two or Three", "SWPPP contents section (a law with no Conditions One, Two or Three)"),
        R::SpecialConditions => ("MS4 special conditions for impaired waters and TMDLs", "performance and design criteria section: impaired waters and TMDLs"),
        R::QualifiedInspector => ("Qualified-inspector inspections during construction", "construction inspection section: qualified-inspector inspections"),
        R::GpInspections => ("Operate and maintain controls under the general permit", "maintenance during construction section"),
        R::TrainedContractor => ("Trained contractor on site during soil disturbance", "construction section: trained contractor on site"),
        R::PeInspection => ("Inspections of structural practices by a licensed engineer", "maintenance after construction section: inspections by a licensed engineer"),
        R::Applicability => ("Scope of the illicit discharge law", "applicability section of the illicit discharge article"),
        R::ConstructionThreshold => ("Construction activity: the area that scopes premises inspections", "definitions section: 'construction activity'"),
        R::PremisesAccess => ("Access to premises, monitoring and obstruction removal", "monitoring of discharges or access to facilities section"),
        R::NonstormwaterConveyance => ("Illicit connection, clause (1): conveyances that let non-stormwater in", "definitions section: 'illicit connection', clause (1)"),
        R::UndocumentedCommercialIndustrial => ("Illicit connection, clause (2): undocumented or unapproved drains from commercial or industrial land", "definitions section: 'illicit connection', clause (2)"),
        R::IllicitConnectionProhibition => ("Prohibition of illicit connections, including past ones", "prohibition of illicit connections section"),
        R::SewageLine => ("Sewage line connected to the storm sewer system", "prohibition of illicit connections section: sewage lines"),
        R::ExemptDischargeKinds => ("Exempt non-stormwater discharges", "prohibition of illegal discharges section: the exempt list"),
        R::Ms4Definition => ("What counts as the town's storm sewer system", "definitions section: 'municipal separate storm sewer system' or 'storm drainage system'"),
        R::FlagIllicitConnection => ("Flagging a connection as illicit", "definitions section: 'illicit connection', and the prohibition section"),
        R::NoticeOfViolation => ("Notice of violation", "enforcement section: notice of violation"),
        R::NoticeAppeal => ("Appeal of a notice", "appeal of notice of violation section"),
        R::WrittenNotice => ("Written notice and correction period", "enforcement section: written notice and correction period"),
        R::Citation => ("Citation and fine", "enforcement section: citation and fine"),
        R::ContinuingViolation => ("Continuing violation", "enforcement section: continuing violation"),
        R::FinePayment => ("Payment of fines", "enforcement section: payment of fines"),
    }
}

/// A threshold the family's code reads: key, value, unit, comparison, the role whose rule
/// uses it, what it means and where a typical ordinance states it.
struct ThresholdShape {
    name: &'static str,
    value: f64,
    unit: &'static str,
    comparison: &'static str,
    role: Role,
    about: &'static str,
}

const LDA: ThresholdShape = ThresholdShape {
    name: "land_development_activity",
    value: 1.0,
    unit: "acre",
    comparison: ">=",
    role: Role::LandDevelopmentActivity,
    about: "the disturbed area that makes an activity a land development activity; default: the federal Phase II one acre (40 CFR 122.26(b)(15)); many laws set less (5,000 sq ft). Definitions section: 'land development activity'",
};
const AT_ONE_TIME: ThresholdShape = ThresholdShape {
    name: "max_disturbance_at_one_time",
    value: 5.0,
    unit: "acre",
    comparison: "<=",
    role: Role::AtOneTime,
    about: "the most area disturbed at one time without an approved SWPPP allowing more; default five acres. SWPPP contents or erosion control section",
};

const NY_CONDITIONS_THRESHOLDS: &[ThresholdShape] = &[
    LDA,
    ThresholdShape {
        name: "larger_common_plan",
        value: 1.0,
        unit: "acre",
        comparison: "<",
        role: Role::LandDevelopmentActivity,
        about: "an activity under this area that is part of a larger common plan is still a land development activity; default one acre. Definitions section: 'land development activity' (the larger-common-plan clause)",
    },
    ThresholdShape {
        name: "condition_two",
        value: 5.0,
        unit: "acre",
        comparison: ">=",
        role: Role::ConditionTwo,
        about: "Condition Two: stormwater runoff from land disturbance of this area or more; default five acres. SWPPP contents section: Condition Two",
    },
    ThresholdShape {
        name: "condition_three_min",
        value: 1.0,
        unit: "acre",
        comparison: ">=",
        role: Role::ConditionThree,
        about: "Condition Three's lower bound; default one acre. SWPPP contents section: Condition Three",
    },
    ThresholdShape {
        name: "condition_three_max",
        value: 5.0,
        unit: "acre",
        comparison: "<",
        role: Role::ConditionThree,
        about: "Condition Three's upper bound; default under five acres. SWPPP contents section: Condition Three",
    },
    AT_ONE_TIME,
    ThresholdShape {
        name: "routine_maintenance_exemption",
        value: 5.0,
        unit: "acre",
        comparison: "<",
        role: Role::Exemptions,
        about: "routine maintenance is exempt when it disturbs less than this; default five acres. Definitions section: 'exempt activities'",
    },
];

const NY_GENERAL_PERMIT_THRESHOLDS: &[ThresholdShape] = &[
    LDA,
    ThresholdShape {
        name: "construction_activity",
        value: 1.0,
        unit: "acre",
        comparison: ">=",
        role: Role::GpCoverageIndicator,
        about: "construction activity needing State permit coverage; default one acre. Definitions section: 'construction activity'",
    },
    ThresholdShape {
        name: "gp_coverage",
        value: 1.0,
        unit: "acre",
        comparison: ">=",
        role: Role::GpCoverageIndicator,
        about: "the State construction general permit's coverage area; default one acre. Applicability section, or the State permit the law incorporates",
    },
    ThresholdShape {
        name: "qualified_inspector",
        value: 1.0,
        unit: "acre",
        comparison: ">=",
        role: Role::QualifiedInspector,
        about: "projects from this area get qualified-inspector inspections; default one acre. Construction inspection section",
    },
    AT_ONE_TIME,
];

const DISCHARGE_ONLY_THRESHOLDS: &[ThresholdShape] = &[ThresholdShape {
    name: "construction_activity",
    value: 1.0,
    unit: "acre",
    comparison: ">=",
    role: Role::ConstructionThreshold,
    about: "the land disturbance that makes an activity 'construction activity' (it scopes the premises-inspection section); default the federal Phase II one acre. Definitions section: 'construction activity'",
}];

/// The exempt list of the model illicit discharge ordinance (EPA's model, the list most
/// towns adopt): kind, the model's words, conditions.
const MODEL_EXEMPT: &[(&str, &str, &[&str])] = &[
    ("waterline_flushing", "water line flushing", &[]),
    ("landscape_irrigation", "landscape irrigation", &[]),
    ("diverted_stream_flows", "diverted stream flows", &[]),
    ("rising_groundwater", "rising ground waters", &[]),
    (
        "uncontaminated_groundwater_infiltration",
        "uncontaminated ground water infiltration",
        &["uncontaminated"],
    ),
    (
        "uncontaminated_pumped_groundwater",
        "uncontaminated pumped ground water",
        &["uncontaminated"],
    ),
    ("foundation_drain", "foundation drains", &[]),
    ("footing_drain", "footing drains", &[]),
    ("crawl_space_sump_pump", "crawl space pumps", &[]),
    (
        "air_conditioning_condensate",
        "air conditioning condensation",
        &[],
    ),
    ("springs", "springs", &[]),
    (
        "natural_riparian_habitat_or_wetland_flows",
        "natural riparian habitat or wet-land flows",
        &[],
    ),
    ("firefighting_water", "fire fighting activities", &[]),
];

/// The readings the template gives: the catalogue's proposed setting, what it means and
/// where a law speaks to it; only those a family reads are written.
const READINGS: &[(&str, &str, &str, &str)] = &[
    (
        "AMB-05",
        "Where: the exempt list's lead-in, prohibition of illegal discharges section.",
        "{ reading = \"chapeau\", floor_drains_are_indoor_drains = true, basement_sump_pump = \"review\" }",
        "A conveyance carrying only exempt water is not illicit, except indoor drains and sinks; floor drains count as indoor drains; a basement sump pump not on the exempt list goes to review.",
    ),
    (
        "AMB-06",
        "Where: the exempt list's conditions (substantial contributors, pollution-prevention plans), same section.",
        "{ conditions = \"none\", irrigation = \"landscape_only\" }",
        "The exemptions carry no general condition (no substantial-contributor override, no plan duty); only landscape irrigation is exempt.",
    ),
    (
        "AMB-07",
        "Not in the law: how the registry finds the waters a project's runoff reaches.",
        "{ method = \"trace_and_watershed\", min_watershed_share = 0.01, min_watershed_overlap_sqft = 100, downstream_steps = 10 }",
        "Receiving waters are found both by a network trace and by the watersheds the footprint overlaps; an overlap under 1% and under 100 sq ft goes to review; waters are followed downstream for at most 10 steps.",
    ),
    (
        "AMB-08",
        "Where: definitions section, 'pollutant of concern'.",
        "\"literal\"",
        "Sediment is always a pollutant of concern, so any 303(d)-listed water or TMDL watershed receiving the runoff counts.",
    ),
    (
        "AMB-09",
        "Where: SWPPP contents section, Condition One's TMDL clause.",
        "\"tmdl_only\"",
        "'for which pollutants in stormwater have been identified as a source' qualifies the TMDL watershed only.",
    ),
    (
        "AMB-12",
        "Where: definitions section, 'land development activity' (the larger-common-plan clause).",
        "\"literal\"",
        "Any activity of a larger common plan is a land development activity whatever its size.",
    ),
    (
        "AMB-14",
        "Where: applicability or exemptions section (approvals before the effective date); the date from the law's history.",
        "{ effective_date = \"2000-01-01\", confirmed = false }",
        "The law's effective date, from which earlier approvals are exempt, is not yet read: 2000-01-01 unconfirmed, so the exemption stays an open fact.",
    ),
    (
        "AMB-30",
        "Not in the law: the State's 303(d) list cycle the listings come from.",
        "{ list_cycle = \"latest\" }",
        "303(d) listings are read from the latest list cycle in the impairments table.",
    ),
];

impl Template {
    fn write(req: &TemplateRequest) -> Result<Template, ProfileError> {
        if req.name.trim().is_empty() {
            return Err(ProfileError::invalid(
                "(new profile)",
                "name".to_string(),
                "give the municipality's name: \"Town of …\"".to_string(),
            ));
        }
        let state = req.state.as_deref().map(str::to_ascii_uppercase);
        let id = match &req.id {
            Some(id) => id.clone(),
            None => id_from_name(&req.name, state.as_deref()),
        };
        if !super::validate::is_profile_id(&id) {
            return Err(ProfileError::BadId { id });
        }
        let prefix = rule_prefix(&id, state.as_deref());
        let w = Writer {
            family: req.family,
            name: req.name.trim().to_string(),
            id: id.clone(),
            state: state.unwrap_or_else(|| "XX".to_string()),
            prefix,
        };
        let mut text = String::new();
        for part in [
            w.head(),
            w.law(),
            w.coverage(),
            w.thresholds(),
            w.discharges(),
            w.land_use(),
            w.tolerances(),
            w.readings(),
            w.wording(),
            w.roles_and_rules(),
            w.calendar(),
        ] {
            text.push_str(&part);
            text.push('\n');
        }
        Ok(Template { id, text })
    }
}

/// Writes the template's sections for one request.
struct Writer {
    family: Family,
    name: String,
    id: String,
    state: String,
    prefix: String,
}

impl Writer {
    fn illicit(&self) -> bool {
        self.family.illicit_discharge == IllicitDischargeFamily::ModelOrdinance
    }

    /// The town's rule id for a role: `<prefix>.<role>`.
    fn rule(&self, role: Role) -> String {
        format!("{}.{}", self.prefix, role.as_str())
    }

    /// The rule of the discharge prohibition (no family role decides it alone).
    fn prohibition_rule(&self) -> String {
        format!("{}.illicit_discharge.prohibition", self.prefix)
    }

    fn land_use_rule(&self) -> String {
        format!("{}.def.commercial_industrial_land_use", self.prefix)
    }

    fn head(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "# Jurisdiction profile: {}, {} (written by `ms4 profile new`).",
            self.name, self.state
        );
        s.push_str(&format!(
            "#\n\
             # This file is the town's stormwater law as data, to fill in from its own text. It already\n\
             # loads: `ms4 init --jurisdiction {id} --profiles <folder of this file> --crs EPSG:<code>`.\n\
             # Families: land development \"{ld}\", illicit discharge \"{ill}\" (see [family]).\n\
             #\n\
             # Every value that must come from the law is written as a program setting: a common\n\
             # default whose `citation` is \"{ps}\".\n\
             # Answers that use it cite exactly that, never a section. To fill a field, check the\n\
             # value against the law and write the law's section over that citation (the comment\n\
             # above says where a typical ordinance states it); `ms4 profile unfilled` lists what is left.\n\
             # Areas: \"sqft\" or \"acre\"; distances: \"ft\", \"us_ft\" or \"m\".\n\n",
            id = self.id,
            ld = self.family.land_development.as_str(),
            ill = self.family.illicit_discharge.as_str(),
            ps = PROGRAM_SETTING,
        ));
        let _ = writeln!(
            s,
            "# The profile id, also the file's name (`{}.toml`).",
            self.id
        );
        let _ = writeln!(s, "id = {}", q(&self.id));
        let _ = writeln!(
            s,
            "# The municipality as the registry names itself (init, reports, answers)."
        );
        let _ = writeln!(s, "name = {}", q(&self.name));
        let _ = writeln!(
            s,
            "# Two-letter state code{}.",
            if self.state == "XX" {
                " (XX: not yet given)"
            } else {
                ""
            }
        );
        let _ = writeln!(s, "state = {}", q(&self.state));
        let _ = writeln!(
            s,
            "# First segment of this town's rule ids below (`{}.…`); ids may also start \"shared.\".",
            self.prefix
        );
        let _ = writeln!(s, "rule_prefix = {}", q(&self.prefix));
        let _ = writeln!(
            s,
            "# Version of the rule catalogue whose ids and ambiguity readings (AMB-xx) this uses."
        );
        s.push_str("catalogue_version = \"1.0\"\n");
        s
    }

    fn law(&self) -> String {
        let mut s = String::new();
        s.push_str(
            "# The law itself: its title as the code prints it (chapter or article heading), the\n\
             # file name of its text, and its adoption history (the local law or ordinance numbers\n\
             # and dates at the end of the chapter). Title and history are quoted in answers.\n\
             [law]\n",
        );
        let _ = writeln!(
            s,
            "title = {}",
            q(&format!(
                "Stormwater law of the {} ({PROGRAM_SETTING}: write the law's title)",
                self.name
            ))
        );
        let _ = writeln!(s, "seed = \"law.txt\"");
        let _ = writeln!(
            s,
            "history = {}",
            q(&format!("not yet given: {PROGRAM_SETTING}"))
        );
        s.push_str(
            "# administrator = \"the office that administers the law (its administration section)\"\n\n",
        );
        s.push_str(
            "# Suggested working CRS for `ms4 init` (a hint only: `--crs` decides). Replace with the\n\
             # state plane zone of the town; the default is the national equal-area CRS, metres.\n\
             [crs_hint]\n\
             epsg = 5070\n\
             name = \"NAD83 / Conus Albers\"\n\
             unit = \"m\"\n",
        );
        s
    }

    fn coverage(&self) -> String {
        let mut s = String::from(
            "# Which parts of the registry's rule set the law contains; each `rule` is listed under\n\
             # [rules] below. `present` follows the families chosen.\n",
        );
        let illicit = self.illicit();
        let ld = self.family.land_development;
        let entry = |s: &mut String, key: &str, present: bool, rule: Option<String>, hint: &str| {
            let _ = writeln!(s, "\n# {hint}");
            let _ = writeln!(s, "[coverage.{key}]");
            let _ = writeln!(s, "present = {present}");
            if let Some(rule) = rule.filter(|_| present) {
                let _ = writeln!(s, "rule = {}", q(&rule));
                let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
            }
        };
        entry(
            &mut s,
            "illicit_discharges",
            illicit,
            Some(self.prohibition_rule()),
            "A prohibition of illegal discharges: prohibition of illegal discharges section.",
        );
        entry(
            &mut s,
            "illicit_connections",
            illicit,
            Some(self.rule(Role::IllicitConnectionProhibition)),
            "Illicit-connection rules: prohibition of illicit connections section.",
        );
        if illicit {
            let _ = writeln!(
                s,
                "# Who approves a connection, as the law names it (definitions: 'illicit connection' (2))."
            );
            let _ = writeln!(s, "approving_authority = {}", q(&self.name));
        }
        let has_ld = ld != LandDevelopmentFamily::IllicitDischargeOnly;
        entry(
            &mut s,
            "land_development",
            has_ld,
            Some(self.rule(Role::LandDevelopmentActivity)),
            "Land development rules (SWPPP, exemptions): applicability and SWPPP sections.",
        );
        entry(
            &mut s,
            "conditions",
            ld == LandDevelopmentFamily::NyConditions,
            Some(self.rule(Role::ConditionOne)),
            "Conditions One, Two and Three: SWPPP contents section.",
        );
        s
    }

    fn thresholds(&self) -> String {
        let shapes = match self.family.land_development {
            LandDevelopmentFamily::NyConditions => NY_CONDITIONS_THRESHOLDS,
            LandDevelopmentFamily::NyGeneralPermit => NY_GENERAL_PERMIT_THRESHOLDS,
            LandDevelopmentFamily::IllicitDischargeOnly => DISCHARGE_ONLY_THRESHOLDS,
        };
        let mut s = String::from(
            "# Area thresholds the family's code compares a project's disturbed area with:\n\
             # `value` `unit`, `comparison` how the area is compared (\">=\", \">\", \"<=\", \"<\"),\n\
             # `rule` the rule that uses it, `citation` where the law states it, `quote` (optional)\n\
             # the law's words. Each value below is a common default until the law is read.\n",
        );
        for t in shapes {
            let _ = writeln!(s, "\n# {}.", capitalised(t.about));
            let _ = writeln!(s, "[thresholds.{}]", t.name);
            let _ = writeln!(s, "value = {}", t.value);
            let _ = writeln!(s, "unit = {}", q(t.unit));
            let _ = writeln!(s, "comparison = {}", q(t.comparison));
            let _ = writeln!(s, "rule = {}", q(&self.rule(t.role)));
            let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
        }
        s
    }

    fn discharges(&self) -> String {
        if !self.illicit() {
            return String::new();
        }
        let rule = self.rule(Role::ExemptDischargeKinds);
        let mut s = String::from(
            "# Non-stormwater discharges exempt from the prohibition (prohibition of illegal\n\
             # discharges section: \"The following discharges are exempt …\"), one entry per kind.\n\
             # Below: the model ordinance's list in its words. Keep the kinds your law lists, with its\n\
             # words in `text` and its section in `citation`; delete the rest; add others from the\n\
             # discharge kinds `ms4 profile rules` documents. `conditions`: what must hold for the\n\
             # exemption (uncontaminated, dechlorinated, ...).\n",
        );
        for (kind, text, conditions) in MODEL_EXEMPT {
            s.push_str("\n[[exempt_discharges]]\n");
            let _ = writeln!(s, "kind = {}", q(kind));
            let _ = writeln!(s, "text = {}", q(text));
            let _ = writeln!(s, "rule = {}", q(&rule));
            let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
            if !conditions.is_empty() {
                let _ = writeln!(s, "conditions = {}", list(conditions));
            }
        }
        s.push_str(
            "\n# Discharges the law allows by another route (emergency written approval, dye testing\n\
             # with notice, a State or federal discharge permit): same section, after the exempt list.\n\
             # None is assumed; an example to adapt (its rule must be listed under [rules]):\n\
             # [[allowed_discharges]]\n\
             # route = \"dye_testing\"\n\
             # authority = \"the office the law names\"\n\
             # text = \"the law's words\"\n\
             # rule = \"<prefix>.illicit_discharge.dye_testing\"\n\
             # citation = \"the section\"\n\
             # conditions = [\"verbal_notice_before_test\"]\n\n",
        );
        s.push_str(
            "# Program settings of the illicit-connection answers (never words of the law): which\n\
             # recorded `owner` values put an asset in the town's system (definitions section: 'MS4'\n\
             # or 'storm drainage system'; AMB-19), how an asset with no owner is read (\"ms4\" or\n\
             # \"review\"), and which recorded `approved_by` values are the town's approvers\n\
             # ('illicit connection' (2): \"approved by …\"). Add the offices your law names.\n\
             [ms4]\n",
        );
        let _ = writeln!(s, "owners = {}", list(&[&self.name, "Town"]));
        s.push_str("missing_owner = \"review\"\n");
        let _ = writeln!(s, "approvers = {}", list(&[&self.name]));
        s
    }

    fn land_use(&self) -> String {
        let mut s = String::from(
            "# Which parcel land uses count as \"commercial or industrial\" (definitions section:\n\
             # 'illicit connection' (2), 'industrial activity'; laws rarely define the phrase, AMB-03).\n\
             # A value is classified by its code first (the most specific code or range wins), then by\n\
             # whole words. Codes differ by state: add the assessor's class codes, e.g.\n\
             # codes = [\"400-499\"]; `code_digits` = significant digits compared. Until then,\n\
             # words only; `review` words classify as unknown so an answer asks for review.\n\
             [land_use]\n",
        );
        let _ = writeln!(s, "rule = {}", q(&self.land_use_rule()));
        let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
        s.push_str(
            "basis = \"Words of the parcel's land use (program setting: add the assessor's codes)\"\n\n\
             [land_use.commercial]\n\
             words = [\"commercial\", \"retail\", \"store\", \"shop\", \"shopping center\", \"office\", \"bank\", \"restaurant\", \"hotel\", \"motel\", \"gas station\", \"service station\", \"car wash\", \"auto repair\", \"parking lot\"]\n\n\
             [land_use.industrial]\n\
             words = [\"industrial\", \"industry\", \"manufacturing\", \"factory\", \"warehouse\", \"distribution\", \"truck terminal\", \"junkyard\", \"salvage\", \"quarry\", \"mining\", \"contractor yard\"]\n\n\
             [land_use.review]\n\
             words = [\"mixed use\", \"apartment\", \"apartments\", \"agricultural\", \"farm\", \"school\", \"church\", \"hospital\", \"municipal\", \"utility\"]\n\n\
             [land_use.other]\n\
             words = [\"residential\", \"single family\", \"two family\", \"condominium\", \"vacant\", \"open space\", \"park\", \"forest\"]\n",
        );
        s
    }

    /// The state's business-day calendar, as the built-in town of the same state keeps
    /// it (its holidays by the state's statute, and whether a period of days that ends
    /// on a closed day rolls to the next business day): a deadline this town's law sets
    /// later is counted on it. A state with no built-in town gets none, said in a comment.
    fn calendar(&self) -> String {
        let (town, rolls, source) = match self.state.as_str() {
            "NY" => ("north-castle-ny", true, "N.Y. General Construction Law § 25-a"),
            "CT" => (
                "windsor-ct",
                false,
                "program setting, not from your law: Windsor's reading (its article states no roll); check the town's own law",
            ),
            _ => {
                return format!(
                    "# No business-day calendar for {}: every day counts and no period rolls until\n\
                     # [idde] periods_roll_to_business_day and its [[idde.holidays]] are written in.\n",
                    self.state
                )
            }
        };
        let text = super::Profile::builtin_text(town).expect("the state's built-in town");
        let mut s = format!(
            "# The state's business days, as the built-in {town} profile keeps them: check them\n\
             # against the town's own calendar.\n[idde]\n\
             periods_roll_to_business_day = {rolls}\n\
             periods_roll_source = {}\n",
            q(source)
        );
        let mut holidays = false;
        for line in text.lines() {
            if line.starts_with('[') {
                holidays = line == "[[idde.holidays]]";
                if holidays {
                    s.push('\n');
                }
            }
            if holidays && !line.trim().is_empty() {
                s.push_str(line);
                s.push('\n');
            }
        }
        s
    }

    fn tolerances(&self) -> String {
        String::from(
            "# Distances the spatial code uses: design defaults, not law (no ordinance states them).\n\
             [tolerances]\n\
             # pipe ends and structures closer than this are one node of the drainage network\n\
             snap_tolerance = { value = 1.0, unit = \"ft\" }\n\
             # a connection record that names no connection documents connections whose MS4 end lies within this distance of its point\n\
             record_tolerance = { value = 25.0, unit = \"ft\" }\n\
             # an outfall without receiving_water_id discharges to the nearest receiving water within this distance\n\
             receiving_water_tolerance = { value = 100.0, unit = \"ft\" }\n",
        )
    }

    fn readings(&self) -> String {
        let needed = self.family.required_readings();
        let mut s = String::from(
            "# Readings taken where a law is silent or ambiguous, by the catalogue's AMB id: `setting`\n\
             # is what the code reads, `text` the line an answer shows as its assumption. Below: the\n\
             # catalogue's proposed reading for each one this family reads; confirm each against the\n\
             # law (the comment above it says where) and reword `text` once it is the town's.\n",
        );
        for (amb, hint, setting, text) in READINGS {
            if !needed.contains(amb) {
                continue;
            }
            let _ = writeln!(s, "\n# {hint}");
            let _ = writeln!(s, "[assumptions.{amb}]");
            let _ = writeln!(s, "setting = {setting}");
            let _ = writeln!(s, "text = {}", q(&format!("{text} ({PROGRAM_SETTING})")));
        }
        s
    }

    fn wording(&self) -> String {
        let mut s = String::from(
            "# The words the family's answers quote from the town's law.\n[wording]\n",
        );
        let town = self
            .name
            .split_once(" of ")
            .map_or(self.name.as_str(), |(_, t)| t);
        let _ = writeln!(
            s,
            "# The town's name as its law writes it beside a section."
        );
        let _ = writeln!(s, "town = {}", q(town));
        match self.family.land_development {
            LandDevelopmentFamily::NyConditions => {
                // Names read in sentences are plain words until replaced; the sections
                // answers cite are program settings.
                for (key, value, hint) in [
                    ("law", q("the stormwater law"), "The law's name as a reason names it: \"Chapter 12\", \"Article X\"."),
                    ("law_short", q("law"), "What the law calls itself in its text: \"Article\", \"Chapter\"."),
                    ("definitions", q(PROGRAM_SETTING), "The definitions section: \"§ 12-2\"."),
                    ("county_clerk", q("County Clerk"), "The clerk who records easements and agreements, by name (maintenance easement section)."),
                    ("town_counsel", q("counsel for the Town"), "Who approves an easement for the town (maintenance easement section)."),
                    ("easement_plan_item", q(PROGRAM_SETTING), "The SWPPP item holding the maintenance easements (SWPPP contents section)."),
                    ("agreement_plan_item", q(PROGRAM_SETTING), "The SWPPP item holding the maintenance agreement (SWPPP contents section)."),
                ] {
                    let _ = writeln!(s, "# {hint}");
                    let _ = writeln!(s, "{key} = {value}");
                }
                s.push_str(
                    "\n# The section each duty's summary cites, by role (see [roles]).\n[wording.sections]\n",
                );
                for role in NY_CONDITIONS_SECTIONS {
                    let _ = writeln!(s, "# {}", role_hint(*role));
                    let _ = writeln!(s, "{} = {}", role.as_str(), q(PROGRAM_SETTING));
                }
            }
            LandDevelopmentFamily::NyGeneralPermit => {
                let _ = writeln!(s, "# The law's name as a reason names it: \"Chapter 12\".");
                let _ = writeln!(s, "law = {}", q("the stormwater law"));
                let _ = writeln!(
                    s,
                    "# How the law writes its sections before the model law's clause number (\"§ 12-\"\n# makes the model's 7A(5) read \"§ 12-7A(5)\"); [wording.clauses] maps clauses numbered otherwise."
                );
                let _ = writeln!(
                    s,
                    "section_prefix = {}",
                    q(&format!("({PROGRAM_SETTING}) § "))
                );
            }
            LandDevelopmentFamily::IllicitDischargeOnly => {
                s.push_str("\n[wording.sections]\n");
                let _ = writeln!(s, "# {}", role_hint(Role::PremisesAccess));
                let _ = writeln!(s, "premises_access = {}", q(PROGRAM_SETTING));
            }
        }
        s
    }

    fn roles_and_rules(&self) -> String {
        let mut s = String::from(
            "# The law families the town's text follows: the code that decides it (`ms4 profile\n\
             # rules` lists it). land_development: \"ny-conditions\" (a model law with Conditions One,\n\
             # Two and Three), \"ny-general-permit\" (a model law following the State construction\n\
             # general permit) or \"illicit-discharge-only\" (no land development rules);\n\
             # illicit_discharge: \"model-ordinance\" or \"none\".\n\
             [family]\n",
        );
        let _ = writeln!(
            s,
            "land_development = {}",
            q(self.family.land_development.as_str())
        );
        let _ = writeln!(
            s,
            "illicit_discharge = {}\n",
            q(self.family.illicit_discharge.as_str())
        );
        s.push_str(
            "# Which of the town's rules plays each role the family's code decides (each listed below).\n[roles]\n",
        );
        let mut roles = self.family.required_roles();
        if self.illicit() && !roles.contains(&Role::IllicitConnectionProhibition) {
            // Not decided by the family's code, but the coverage entry cites it.
            roles.push(Role::IllicitConnectionProhibition);
        }
        for role in &roles {
            let _ = writeln!(s, "{} = {}", role.as_str(), q(&self.rule(*role)));
        }
        s.push_str(
            "\n# Every rule the registry evaluates here: `title` (what it decides) and `citation`\n\
             # (where the law states it; answers cite it). Each citation is a program setting until\n\
             # the law's section is written over it.\n",
        );
        for role in &roles {
            let _ = writeln!(s, "\n# Typically: {}.", role_hint(*role));
            let _ = writeln!(s, "[rules.{}]", q(&self.rule(*role)));
            let _ = writeln!(s, "title = {}", q(&role_title(*role)));
            let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
        }
        if self.illicit() {
            let _ = writeln!(
                s,
                "\n# Typically: prohibition of illegal discharges section (\"No person shall discharge …\")."
            );
            let _ = writeln!(s, "[rules.{}]", q(&self.prohibition_rule()));
            let _ = writeln!(s, "title = \"Prohibition of illegal discharges\"");
            let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
        }
        let _ = writeln!(
            s,
            "\n# Typically: definitions section: 'illicit connection' (2) and 'industrial activity'."
        );
        let _ = writeln!(s, "[rules.{}]", q(&self.land_use_rule()));
        let _ = writeln!(
            s,
            "title = \"Commercial or industrial land use (configuration)\""
        );
        let _ = writeln!(s, "citation = {}", q(PROGRAM_SETTING));
        s
    }
}

/// Where a typical ordinance states a role's rule.
fn role_hint(role: Role) -> &'static str {
    role_text(role).1
}

/// A role's rule title, without a model town's figures.
fn role_title(role: Role) -> String {
    role_text(role).0.to_string()
}

/// `text` with its first letter upper-case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => format!("{}{}", c.to_ascii_uppercase(), chars.as_str()),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_the_name_and_state() {
        assert_eq!(
            id_from_name("Town of Quarry Hollow", Some("ny")),
            "quarry-hollow-ny"
        );
        assert_eq!(id_from_name("Springfield", None), "springfield");
        assert_eq!(rule_prefix("quarry-hollow-ny", Some("NY")), "quarryhollow");
        assert_eq!(rule_prefix("1st-ward", None), "town1stward");
    }
}
