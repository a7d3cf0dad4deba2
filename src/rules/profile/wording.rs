//! The words an answer takes from the town's own law.
//!
//! A family's code writes the reasons and duty summaries of every town that follows the
//! model law; what differs between those towns' texts (the law's name, the offices and
//! clerks an obligation names, the section a sentence cites) is profile data, so a new
//! town's answers cite its own sections and offices and never a model town's.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Role;

/// The `[wording]` table: names and section references that answers quote.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Wording {
    /// The law's own name, as a reason names it: `Article X`.
    #[serde(default)]
    pub law: String,
    /// What the law calls itself in its own text: `Article` ("the Article's specifications").
    #[serde(default)]
    pub law_short: String,
    /// The definitions section: `§ 156-80`.
    #[serde(default)]
    pub definitions: String,
    /// The clerk who records easements and agreements: `Putnam County Clerk`.
    #[serde(default)]
    pub county_clerk: String,
    /// Who approves a maintenance easement for the town: `counsel for the Town`.
    #[serde(default)]
    pub town_counsel: String,
    /// The SWPPP item that holds the maintenance easements: `§ 156-81D(8)`.
    #[serde(default)]
    pub easement_plan_item: String,
    /// The SWPPP item that holds the maintenance agreement: `§ 156-81D(9)`.
    #[serde(default)]
    pub agreement_plan_item: String,
    /// The section a duty's summary cites, by the role the family's code decides it as.
    #[serde(default)]
    pub sections: BTreeMap<Role, String>,
}

impl Wording {
    /// The section cited in the text of the rule playing `role`, or an empty string when the
    /// profile gives none (loading a profile checks that its family's sections are given).
    pub fn section(&self, role: Role) -> &str {
        self.sections.get(&role).map(String::as_str).unwrap_or("")
    }
}

/// The sections the NY Conditions family's text cites, each of which its profile must give.
pub const NY_CONDITIONS_SECTIONS: &[Role] = &[
    Role::Exemptions,
    Role::Swppp,
    Role::PostConstruction,
    Role::PreparerCertification,
    Role::ConstructionInspections,
    Role::MaintenanceEasement,
    Role::MaintenanceAgreement,
    Role::DeveloperOnSite,
    Role::AtOneTime,
    Role::Contractors,
    Role::SwpppOnSite,
    Role::OtherPermits,
    Role::Notice48h,
    Role::ViolationHalt,
    Role::OperateMaintain,
    Role::AsBuilt,
    Role::OmProgram,
    Role::Fees,
];
