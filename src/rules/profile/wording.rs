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
    /// The words of the town's notice sections that the family's notices quote.
    #[serde(default)]
    pub notice: NoticeWording,
}

str_enum! {
    /// An order the model ordinance lets a notice of violation make ("may require without
    /// limitation"): the family's code knows which one requires a deadline (abatement).
    pub enum NoticeOrder("notice order") {
        /// The performance of monitoring, analyses and reporting.
        Monitoring = "monitoring",
        /// The elimination of illicit connections or discharges.
        Elimination = "elimination",
        /// That violating discharges, practices or operations cease and desist.
        CeaseAndDesist = "cease_and_desist",
        /// The abatement or remediation of hazards and the restoration of affected property:
        /// the notice must then set a deadline and advise of the work done at the
        /// violator's expense.
        Abatement = "abatement",
        /// Payment of a fine (North Castle A(1)(e)).
        Fine = "fine",
        /// The implementation of source control or treatment BMPs.
        Bmps = "bmps",
    }
}

/// One order of the town's list, in its law's words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoticeOrderText {
    /// Which order it is.
    pub key: NoticeOrder,
    /// The law's words.
    pub text: String,
    /// Its clause: `A(1)(c)`.
    pub clause: String,
}

/// `[wording.notice]`: what the family's notices quote from the town's notice sections.
/// The rule ids and citations come from `[roles]` (`notice_of_violation`, `notice_appeal`,
/// and for a citation procedure `written_notice`, `citation`, `continuing_violation`,
/// `fine_payment`); the periods and amounts from `[idde]`'s steps of those rules.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoticeWording {
    /// The office that orders compliance by notice of violation: `Town Engineer`.
    #[serde(default)]
    pub issuer: String,
    /// The orders the law lets the notice make, in the law's order.
    #[serde(default)]
    pub orders: Vec<NoticeOrderText>,
    /// The clause requiring the abatement deadline and the advice: `A(2)`.
    #[serde(default)]
    pub abatement_clause: String,
    /// The right to appeal in the law's words, as the notice advises it.
    #[serde(default)]
    pub appeal: String,
    /// The office that issues the written notice and the citation, and receives a
    /// written plan for correction: `Town Manager`.
    #[serde(default)]
    pub manager: String,
    /// How uncontested fines are paid, in the law's words: `made payable to the Town of
    /// Windsor and shall be received by the Town Manager`.
    #[serde(default)]
    pub payment: String,
    /// What the continuing violation runs after, in the law's words: `the time period
    /// specified in subsection (b)`.
    #[serde(default)]
    pub continuing_after: String,
    /// The Town's address for remittance of fines. The law may not give it: the profile
    /// then holds it as a setting the Town edits, and a citation printed without it says
    /// it is missing.
    #[serde(default)]
    pub remittance_address: Option<String>,
    /// Where the remittance address comes from (the law, or the Town's setting).
    #[serde(default)]
    pub remittance_address_source: Option<String>,
}

impl NoticeWording {
    /// The town's words for an order, if its law lists it.
    pub fn order(&self, key: NoticeOrder) -> Option<&NoticeOrderText> {
        self.orders.iter().find(|o| o.key == key)
    }
}

/// Whether the profile maps a group of roles; `Err` naming the first missing when it maps
/// some of them only.
fn all_or_none(
    p: &super::Profile,
    group: &[Role],
    what: &str,
) -> Result<bool, super::issue::Issue> {
    let mapped = group.iter().filter(|r| p.roles.contains_key(r)).count();
    if mapped == 0 {
        return Ok(false);
    }
    match group.iter().find(|r| !p.roles.contains_key(r)) {
        Some(missing) => Err(super::issue::Issue {
            key: format!("roles.{missing}"),
            message: format!(
                "{what} maps {}, all of them: name the rule of this town that plays this one",
                group
                    .iter()
                    .map(|r| r.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }),
        None => Ok(true),
    }
}

/// Checks `[wording.notice]` against the roles: a model-ordinance town gives the words its
/// notice of violation quotes, each order once; a town with a citation procedure maps all
/// of its roles (or none) and gives the words the written notice and citation quote.
pub(super) fn notice_check(p: &super::Profile) -> super::issue::Check {
    use super::issue::fail;
    let n = &p.wording.notice;
    all_or_none(p, super::family::NOTICE, "a notice of violation")?;
    if !p.roles.contains_key(&Role::NoticeOfViolation) {
        return Ok(());
    }
    for (key, value) in [
        ("issuer", &n.issuer),
        ("abatement_clause", &n.abatement_clause),
        ("appeal", &n.appeal),
    ] {
        if value.trim().is_empty() {
            fail(
                format!("wording.notice.{key}"),
                "the model-ordinance family's notice of violation quotes this: give the town's own text",
            )?;
        }
    }
    if n.orders.is_empty() {
        fail(
            "wording.notice.orders",
            "give the orders the town's law lets a notice of violation make, in its words",
        )?;
    }
    for (i, o) in n.orders.iter().enumerate() {
        if n.orders[..i].iter().any(|e| e.key == o.key) {
            fail(
                format!("wording.notice.orders[{i}].key"),
                format!("{} is listed twice", o.key),
            )?;
        }
        if o.text.trim().is_empty() || o.clause.trim().is_empty() {
            fail(
                format!("wording.notice.orders[{i}]"),
                format!("{}: give the law's words and the clause", o.key),
            )?;
        }
    }
    if !all_or_none(p, super::family::CITATION_PROCEDURE, "a citation procedure")? {
        return Ok(());
    }
    for (key, value) in [
        ("manager", &n.manager),
        ("payment", &n.payment),
        ("continuing_after", &n.continuing_after),
    ] {
        if value.trim().is_empty() {
            fail(
                format!("wording.notice.{key}"),
                "the citation procedure's notices quote this: give the town's own text",
            )?;
        }
    }
    Ok(())
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
