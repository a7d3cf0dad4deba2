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
    /// The town's name as its law's text stands beside it: `North Castle`.
    #[serde(default)]
    pub town: String,
    /// How the law writes a section of itself, before the model law's clause number:
    /// `§ 267-` (so the model's clause 7A(5) reads `§ 267-7A(5)`).
    #[serde(default)]
    pub section_prefix: String,
    /// Clauses the town numbers otherwise than the model law: the model's clause number
    /// (`7A(5)`) to the town's own reference (`§ 12-9(e)`).
    #[serde(default)]
    pub clauses: BTreeMap<String, String>,
}

impl Wording {
    /// The section cited in the text of the rule playing `role`, or an empty string when the
    /// profile gives none (loading a profile checks that its family's sections are given).
    pub fn section(&self, role: Role) -> &str {
        self.sections.get(&role).map(String::as_str).unwrap_or("")
    }

    /// The town's reference for the model law's clause `model` (`7A(5)`): its own entry
    /// in `clauses`, else the clause number after the town's `section_prefix`.
    pub fn clause(&self, model: &str) -> String {
        match self.clauses.get(model) {
            Some(own) => own.clone(),
            None => format!("{}{model}", self.section_prefix),
        }
    }

    /// A family's text in this town's words: `{law}` becomes the law's name, `{town}` the
    /// town's, and `{§7A(5)}` the town's reference for the model clause 7A(5). Any other
    /// `{...}` is left as it stands, so a slip shows in the answer (and fails its test)
    /// rather than vanishing.
    pub fn expand(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 16);
        let mut rest = text;
        while let Some(open) = rest.find('{') {
            out.push_str(&rest[..open]);
            let after = &rest[open + 1..];
            let Some(close) = after.find('}') else {
                out.push_str(&rest[open..]);
                return out;
            };
            let key = &after[..close];
            match key {
                "law" => out.push_str(&self.law),
                "town" => out.push_str(&self.town),
                _ => match key.strip_prefix('§') {
                    Some(model) => out.push_str(&self.clause(model)),
                    None => {
                        out.push('{');
                        out.push_str(key);
                        out.push('}');
                    }
                },
            }
            rest = &after[close + 1..];
        }
        out.push_str(rest);
        out
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

#[cfg(test)]
mod tests {
    use super::*;

    fn chapter_180() -> Wording {
        Wording {
            law: "Chapter 180".into(),
            town: "Millbrook".into(),
            section_prefix: "§ 180-".into(),
            clauses: BTreeMap::from([("7B".to_string(), "§ 180-12".to_string())]),
            ..Wording::default()
        }
    }

    #[test]
    fn a_family_text_reads_in_the_towns_own_words() {
        let w = chapter_180();
        assert_eq!(
            w.expand("{law} applies in {town} ({§7A(5)}; {§7B}; {§3C(6)}(a)-(d))"),
            "Chapter 180 applies in Millbrook (§ 180-7A(5); § 180-12; § 180-3C(6)(a)-(d))"
        );
    }

    #[test]
    fn an_unknown_marker_and_an_unclosed_brace_stay_visible() {
        let w = chapter_180();
        assert_eq!(w.expand("{lwa} and {§7A"), "{lwa} and {§7A");
        assert_eq!(w.expand("no markers"), "no markers");
    }
}
