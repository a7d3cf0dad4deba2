//! What every answer carries: the rule, its citation, the inputs used, the evidence and
//! the assumptions taken where the law is ambiguous.

use std::sync::Arc;

use serde::Serialize;

use super::Profile;

/// A profile's words carried by every answer (a rule's title and citation, an
/// assumption's text): shared, not copied. Screening a million parcels cloned Condition
/// One's citations and readings for each, and those copies and their frees were a sixth
/// of the screen's time.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Words(Arc<str>);

impl Words {
    /// The words.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Words {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Words {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Words {
    fn from(s: &str) -> Self {
        Words(s.into())
    }
}

impl From<String> for Words {
    fn from(s: String) -> Self {
        Words(s.into())
    }
}

impl From<&String> for Words {
    fn from(s: &String) -> Self {
        Words(s.as_str().into())
    }
}

impl PartialEq<str> for Words {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Words {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Words {
    fn eq(&self, other: &String) -> bool {
        &*self.0 == other.as_str()
    }
}

impl Serialize for Words {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// A rule of the catalogue and where the law states it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Citation {
    /// The catalogue id, e.g. `carmel.condition_one`.
    pub rule: Words,
    /// The rule's short title, from the profile.
    pub title: Words,
    /// Where the law says it, e.g. `§ 156-81C(1)`.
    pub citation: Words,
}

impl Citation {
    /// The citation of a rule as the profile records it; a rule the profile does not list
    /// is cited by its id alone (and flagged, so a missing entry is visible, not silent).
    pub fn of(profile: &Profile, rule: &str) -> Citation {
        match profile.cited(rule) {
            Some(c) => c.clone(),
            None => Citation {
                rule: rule.into(),
                title: Words::default(),
                citation: format!("(rule {rule} is not listed in the {} profile)", profile.id)
                    .into(),
            },
        }
    }
}

/// A citation as people read it, without the catalogue's bracket notes: "§ 156-80,
/// definition of [LAND DEVELOPMENT ACTIVITY, inferred; amended …]" becomes "§ 156-80,
/// *land development activity*"; other bracketed notes lose their brackets and editorial
/// asides ("(uncited)", "(amended …)", "(added …)", "(heading only …)") are dropped.
pub fn plain_citation(raw: &str) -> String {
    const ASIDES: &[&str] = &[
        "uncited",
        "amended",
        "added",
        "subsection",
        "heading only",
        "inferred",
        "term heading",
    ];
    let mut out = String::new();
    let mut rest = raw;
    while let Some(open) = rest.find(['[', '(']) {
        let bracket = rest[open..].starts_with('[');
        let close_ch = if bracket { ']' } else { ')' };
        let Some(len) = rest[open..].find(close_ch) else {
            break;
        };
        let inner = &rest[open + 1..open + len];
        let mut before = &rest[..open];
        if bracket {
            let head = inner.split([',', ';']).next().unwrap_or("").trim();
            if let Some(b) = before.strip_suffix("definition of ") {
                before = b;
                out.push_str(before);
                out.push('*');
                out.push_str(&head.to_lowercase());
                out.push('*');
            } else {
                out.push_str(before);
                out.push_str(head);
            }
        } else {
            let lower = inner.trim().to_lowercase();
            if ASIDES.iter().any(|a| lower.starts_with(a)) {
                out.push_str(before.trim_end());
            } else {
                out.push_str(before);
                out.push_str(&rest[open..=open + len]);
            }
        }
        rest = &rest[open + len + 1..];
    }
    out.push_str(rest);
    let words: Vec<&str> = out.split_whitespace().collect();
    words.join(" ").trim_end_matches([',', ';']).to_string()
}

/// A reading taken where the law is silent or ambiguous (the catalogue's AMB ids).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AssumptionTaken {
    /// The ambiguity id, e.g. `AMB-03`.
    pub id: Words,
    /// What was assumed, in one line, from the profile.
    pub text: Words,
}

impl AssumptionTaken {
    /// The assumption a profile records for an ambiguity id, if it records one.
    pub fn of(profile: &Profile, id: &str) -> Option<AssumptionTaken> {
        profile.assumed(id).cloned()
    }
}

/// One piece of evidence: a feature, a measurement or a path, with units.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Evidence {
    /// A feature of a layer.
    Feature {
        /// The layer.
        layer: String,
        /// Its id.
        id: String,
        /// Why it matters.
        #[serde(skip_serializing_if = "String::is_empty")]
        note: String,
    },
    /// A measured quantity.
    Measure {
        /// What was measured, e.g. `distance` or `overlap_area`.
        what: String,
        /// The value.
        value: f64,
        /// Its unit, e.g. `ftUS`, `sqft`, `acre`.
        unit: String,
        /// Between or of what.
        #[serde(skip_serializing_if = "String::is_empty")]
        of: String,
    },
    /// A path through the drainage network, as feature ids in flow order.
    Trace {
        /// Ids from start to end.
        path: Vec<String>,
    },
    /// A fact in words.
    Fact {
        /// The fact.
        text: String,
    },
}

/// A finding: a result with its rule, reasons, evidence and assumptions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding<R> {
    /// The result (a status, a yes/no, a list...).
    pub result: R,
    /// The rules that decided it.
    pub citations: Vec<Citation>,
    /// Why, in words.
    pub reasons: Vec<String>,
    /// What it was decided on.
    pub evidence: Vec<Evidence>,
    /// Readings taken where the law is ambiguous.
    pub assumptions: Vec<AssumptionTaken>,
}

impl<R> Finding<R> {
    /// A finding with a result and nothing else yet.
    pub fn new(result: R) -> Self {
        Finding {
            result,
            citations: Vec::new(),
            reasons: Vec::new(),
            evidence: Vec::new(),
            assumptions: Vec::new(),
        }
    }

    /// Adds a citation (once).
    pub fn cite(&mut self, profile: &Profile, rule: &str) -> &mut Self {
        if !self.citations.iter().any(|c| c.rule == rule) {
            self.citations.push(Citation::of(profile, rule));
        }
        self
    }

    /// Adds the profile's assumption for an ambiguity id, when it has one (once).
    pub fn assume(&mut self, profile: &Profile, amb: &str) -> &mut Self {
        if !self.assumptions.iter().any(|a| a.id == amb) {
            if let Some(a) = AssumptionTaken::of(profile, amb) {
                self.assumptions.push(a);
            }
        }
        self
    }

    /// Adds a reason.
    pub fn because(&mut self, reason: impl Into<String>) -> &mut Self {
        self.reasons.push(reason.into());
        self
    }

    /// The citations as one line of text for tables: `§ 267-3; § 267-4`.
    pub fn citation_line(&self) -> String {
        let cites: Vec<&str> = self.citations.iter().map(|c| c.citation.as_str()).collect();
        cites.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_changed_after_cloning_is_cited_from_its_own_words() {
        let p = Profile::builtin("carmel-ny").unwrap();
        let id = p.rules.keys().next().unwrap().clone();
        let before = Citation::of(&p, &id);
        let mut q = p.clone();
        q.rules.get_mut(&id).unwrap().citation = "§ 1-1".into();
        assert_eq!(Citation::of(&q, &id).citation, "§ 1-1");
        assert_eq!(Citation::of(&p, &id), before);
        assert_ne!(before.citation, "§ 1-1");
        // And its readings of the ambiguities.
        let amb = p.assumptions.keys().next().unwrap().clone();
        let read = AssumptionTaken::of(&p, &amb).unwrap();
        let mut r = p.clone();
        r.assumptions.get_mut(&amb).unwrap().text = "read otherwise".into();
        assert_eq!(
            AssumptionTaken::of(&r, &amb).unwrap().text,
            "read otherwise"
        );
        assert_eq!(AssumptionTaken::of(&p, &amb).unwrap(), read);
        assert!(AssumptionTaken::of(&p, "AMB-none").is_none());
    }

    #[test]
    fn shared_words_are_written_as_plain_strings() {
        let c = Citation {
            rule: "r.one".into(),
            title: "A \"rule\"".into(),
            citation: "§ 1".into(),
        };
        assert_eq!(
            serde_json::to_string(&c).unwrap(),
            r#"{"rule":"r.one","title":"A \"rule\"","citation":"§ 1"}"#
        );
    }

    #[test]
    fn citations_lose_the_catalogues_bracket_notes() {
        for (raw, plain) in [
            (
                "§ 156-80, definition of [LAND DEVELOPMENT ACTIVITY, inferred; amended 4-8-2015 by L.L. No. 1-2015]",
                "§ 156-80, *land development activity*",
            ),
            (
                "§ 156-80, definition of [EXEMPT ACTIVITIES, inferred]; § 156-81A ('except exempt activities')",
                "§ 156-80, *exempt activities*; § 156-81A ('except exempt activities')",
            ),
            (
                "Ch. 267 Part 1, [Inspection/guarantee/enforcement section] A(2) (uncited)",
                "Ch. 267 Part 1, Inspection/guarantee/enforcement section A(2)",
            ),
            ("§ 267-7A(1)-(3) (amended 11-18-2015)", "§ 267-7A(1)-(3)"),
            ("§ 156-81C(1)", "§ 156-81C(1)"),
        ] {
            assert_eq!(plain_citation(raw), plain, "{raw}");
        }
    }

    #[test]
    fn citations_come_from_the_profile_and_unknown_rules_are_flagged() {
        let p = Profile::builtin("carmel-ny").unwrap();
        let c = Citation::of(&p, "carmel.condition_one");
        assert!(c.citation.contains("156-81"), "{c:?}");
        assert_eq!(
            Citation::of(&p, "carmel.lda.applicability").citation,
            "§ 156-80, *land development activity*"
        );
        let missing = Citation::of(&p, "carmel.no_such_rule");
        assert!(missing.citation.contains("not listed"), "{missing:?}");
        let mut f = Finding::new(true);
        f.cite(&p, "carmel.condition_one")
            .cite(&p, "carmel.condition_one");
        assert_eq!(f.citations.len(), 1);
    }
}
