//! Stormwater management practices and the recorded maintenance easement that gives the
//! town access to them: "Maintenance easements to ensure access to all stormwater
//! management practices at the site for the purpose of inspection and repair" (North
//! Castle § 267-5D(2)(b)[10], Carmel § 156-81D(8); the easement before approval, § 267-7B,
//! § 156-86). Windsor's article has no such rule.
//!
//! - A practice the Town owns, or whose dedication it accepted, is outside the rule: the
//!   Town accepts dedication "in lieu of a maintenance agreement" (§ 267-7D, § 156-85).
//! - A removed or abandoned practice is skipped.
//! - The law asks for access to *all* practices; a nonstructural one without an access
//!   easement is flagged for review, with the reading that would leave it out named.
//! - Only a recorded easement whose purpose names maintenance or access counts (a
//!   sanitary-sewer or utility easement does not). One without a recorded purpose, or
//!   whose purpose names neither (a "drainage easement"), needs review: its terms, which
//!   the registry does not hold, decide whether it gives the Town access to the practice.
//!
//! `nearby` answers access with the same test ([`access_test`]).

use serde::Serialize;

use super::{Evidence, Finding, Profile, Role};

/// Whether an SMP has the recorded easement the law requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EasementStatus {
    /// A recorded maintenance or access easement covers it.
    Covered,
    /// No recorded maintenance or access easement covers it.
    Missing,
    /// Someone has to look: a nonstructural practice without one, an easement with no
    /// recording or no recorded purpose.
    NeedsReview,
    /// Town-owned or dedicated to the Town: outside the rule.
    TownOwned,
    /// Recorded as removed or abandoned: skipped.
    Removed,
    /// The jurisdiction's law has no such rule.
    NotCovered,
}

impl EasementStatus {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            EasementStatus::Covered => "covered",
            EasementStatus::Missing => "missing",
            EasementStatus::NeedsReview => "needs_review",
            EasementStatus::TownOwned => "town_owned",
            EasementStatus::Removed => "removed",
            EasementStatus::NotCovered => "not_covered",
        }
    }
}

/// An easement that meets an SMP.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CoveringEasement {
    /// The easement's id.
    pub easement_id: String,
    /// Its recording instrument, if recorded.
    pub instrument: Option<String>,
    /// When it was recorded, if it was.
    pub recorded_on: Option<String>,
    /// What it is for, as recorded.
    pub purpose: Option<String>,
}

impl CoveringEasement {
    /// An easement feature as this rule reads it: blank text is no text.
    pub fn from_feature(e: &crate::domain::Feature) -> Self {
        use crate::domain::{Layer, Value};
        let text = |field: &str| {
            e.get(Layer::Easements, field)
                .as_str()
                .map(str::to_string)
                .filter(|s| !s.trim().is_empty())
        };
        CoveringEasement {
            easement_id: e.id.clone(),
            instrument: text("instrument"),
            recorded_on: match e.get(Layer::Easements, "recorded_on") {
                Value::Null => None,
                v => Some(v.to_string()),
            },
            purpose: text("purpose"),
        }
    }

    /// An easement counts as recorded when it carries a recording date or instrument.
    pub fn recorded(&self) -> bool {
        self.instrument.is_some() || self.recorded_on.is_some()
    }
}

/// The facts about one SMP.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SmpFacts {
    /// The SMP's id.
    pub smp_id: String,
    /// Whether it is structural; `None` when not recorded.
    pub structural: Option<bool>,
    /// `owner_kind` as recorded (private, municipal, town, dedicated...).
    pub owner_kind: Option<String>,
    /// `status` as recorded.
    pub status: Option<String>,
}

/// What one easement does for access: the test `smps-without-easement` and `nearby` share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccessTest {
    /// Recorded, and its purpose gives maintenance or access.
    Gives,
    /// Its purpose gives maintenance or access, but no recording is shown.
    Unrecorded,
    /// No purpose is recorded.
    PurposeUnknown,
    /// Its purpose names neither maintenance nor access nor another utility (a "drainage
    /// easement"): its terms decide whether it gives access, and the registry does not
    /// hold them.
    TermsDecide,
    /// Its purpose is another utility's (a sanitary sewer, a utility line).
    OtherPurpose,
}

/// Words of a purpose that give the Town maintenance or access.
const ACCESS_WORDS: &[&str] = &["maintenance", "access", "inspection", "repair"];

/// Words of a purpose that name another utility than the storm system: such an easement
/// gives access to that utility, not to a stormwater practice.
const OTHER_UTILITY_WORDS: &[&str] = &[
    "sanitary",
    "sewage",
    "utility",
    "utilities",
    "gas",
    "electric",
    "telephone",
    "cable",
];

fn words(s: &str) -> Vec<String> {
    s.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// The shared access test for one easement.
pub fn access_test(e: &CoveringEasement) -> AccessTest {
    let Some(purpose) = e.purpose.as_deref().filter(|p| !p.trim().is_empty()) else {
        return AccessTest::PurposeUnknown;
    };
    let w = words(purpose);
    let other = w.iter().any(|x| OTHER_UTILITY_WORDS.contains(&x.as_str()))
        || (w.iter().any(|x| x == "sewer") && !w.iter().any(|x| x == "storm"));
    // A sanitary-sewer easement gives access to the sewer, not to the practice.
    if other {
        return AccessTest::OtherPurpose;
    }
    // Only words that name maintenance or access decide yes; any other purpose (drainage,
    // conservation) may or may not carry access in its terms, which the layer lacks.
    if !w.iter().any(|x| ACCESS_WORDS.contains(&x.as_str())) {
        return AccessTest::TermsDecide;
    }
    if e.recorded() {
        AccessTest::Gives
    } else {
        AccessTest::Unrecorded
    }
}

/// The rule id of a jurisdiction's maintenance-easement requirement, if it has one.
pub fn rule_id(profile: &Profile) -> Option<String> {
    profile
        .role_id(Role::MaintenanceEasement)
        .map(str::to_string)
}

/// The rule that asks for easements to all practices (the post-construction component).
fn all_practices_rule(profile: &Profile) -> Option<String> {
    profile.role_id(Role::PostConstruction).map(str::to_string)
}

/// The rule on dedication to the Town in lieu of a maintenance agreement.
fn dedication_rule(profile: &Profile) -> Option<String> {
    profile
        .role_id(Role::MaintenanceAgreement)
        .map(str::to_string)
}

fn norm(s: &str) -> String {
    words(s).join(" ")
}

/// Judges one SMP from its facts and the easements that meet it.
pub fn evaluate(
    profile: &Profile,
    smp: &SmpFacts,
    easements: &[CoveringEasement],
) -> Finding<EasementStatus> {
    let Some(rule) = rule_id(profile) else {
        let mut f = Finding::new(EasementStatus::NotCovered);
        f.because(format!(
            "the {} profile records no maintenance-easement rule",
            profile.name
        ));
        return f;
    };
    let mut f = Finding::new(EasementStatus::Missing);
    f.cite(profile, &rule);
    let all = all_practices_rule(profile);
    if let Some(all) = &all {
        f.cite(profile, all);
    }
    f.evidence.push(Evidence::Feature {
        layer: "smps".into(),
        id: smp.smp_id.clone(),
        note: String::new(),
    });

    if outside_the_rule(profile, smp, &mut f) {
        return f;
    }
    let (gives, review) = weigh_easements(easements, &mut f);
    conclude(profile, smp, all.as_deref(), &gives, &review, &mut f);
    f
}

/// A practice the rule does not reach: removed, or owned by or dedicated to the Town;
/// says so in `f` and returns true.
fn outside_the_rule(profile: &Profile, smp: &SmpFacts, f: &mut Finding<EasementStatus>) -> bool {
    if let Some(status) = smp.status.as_deref() {
        if ["removed", "abandoned", "decommissioned"].contains(&norm(status).as_str()) {
            f.result = EasementStatus::Removed;
            f.because(format!(
                "skipped: the practice is recorded as {status:?}, so no easement is needed \
                 for it"
            ));
            return true;
        }
    }
    if let Some(owner) = smp.owner_kind.as_deref() {
        let o = norm(owner);
        if [
            "town",
            "municipal",
            "dedicated",
            "town owned",
            "dedicated to the town",
        ]
        .contains(&o.as_str())
        {
            if let Some(d) = dedication_rule(profile) {
                f.cite(profile, &d);
            }
            f.result = EasementStatus::TownOwned;
            f.because(format!(
                "outside the rule: the practice is recorded as {owner:?} (owned by or \
                 dedicated to the Town), and the Town accepts dedication in lieu of a \
                 maintenance agreement ({})",
                dedication_rule(profile)
                    .and_then(|d| profile.citation(&d).map(str::to_string))
                    .unwrap_or_default()
            ));
            return true;
        }
    }
    false
}

/// Weighs each easement meeting the practice, as evidence: those that give maintenance
/// access, and what needs review about the others.
fn weigh_easements(
    easements: &[CoveringEasement],
    f: &mut Finding<EasementStatus>,
) -> (Vec<String>, Vec<String>) {
    // AMB-22 (the approval gate) is the planner's; this rule reads only the easement layer.
    let mut gives = Vec::new();
    let mut review = Vec::new();
    for e in easements {
        let test = access_test(e);
        let recorded = match (&e.instrument, &e.recorded_on) {
            (Some(i), _) => format!("recorded ({i})"),
            (None, Some(d)) => format!("recorded on {d}"),
            (None, None) => "no recording shown".into(),
        };
        let purpose = e
            .purpose
            .as_deref()
            .map(|p| format!("purpose {p:?}"))
            .unwrap_or_else(|| "no purpose recorded".into());
        f.evidence.push(Evidence::Feature {
            layer: "easements".into(),
            id: e.easement_id.clone(),
            note: format!("{recorded}; {purpose}"),
        });
        match test {
            AccessTest::Gives => gives.push(e.easement_id.clone()),
            AccessTest::Unrecorded => review.push(format!(
                "easement {} gives access but shows no recording",
                e.easement_id
            )),
            AccessTest::PurposeUnknown => review.push(format!(
                "easement {} is {recorded} but records no purpose, so whether it gives \
                 maintenance access is not shown",
                e.easement_id
            )),
            AccessTest::TermsDecide => review.push(format!(
                "easement {} is {recorded} for the {purpose}, which names neither maintenance \
                 nor access: its terms decide whether it gives the Town access to the \
                 practice for inspection and repair, and the registry does not hold them; \
                 read the instrument",
                e.easement_id
            )),
            AccessTest::OtherPurpose => {
                f.because(format!(
                    "easement {} does not count: its {purpose} gives no maintenance or access \
                     to the practice",
                    e.easement_id
                ));
            }
        }
    }
    (gives, review)
}

/// The status: covered by a recorded easement, for review, or missing.
fn conclude(
    profile: &Profile,
    smp: &SmpFacts,
    all: Option<&str>,
    gives: &[String],
    review: &[String],
    f: &mut Finding<EasementStatus>,
) {
    let law = all
        .and_then(|a| profile.citation(a))
        .unwrap_or_default()
        .to_string();
    if !gives.is_empty() {
        f.result = EasementStatus::Covered;
        f.because(format!(
            "a recorded maintenance or access easement ({}) covers the practice (recorded: it \
             carries an instrument or a recording date)",
            gives.join(", ")
        ));
    } else if !review.is_empty() {
        f.result = EasementStatus::NeedsReview;
        f.because(review.join("; "));
    } else if smp.structural == Some(false) {
        f.result = EasementStatus::NeedsReview;
        f.because(format!(
            "flagged: the practice is nonstructural and no recorded maintenance or access \
             easement covers it; the law asks for easements to ensure access to all \
             stormwater management practices ({law}); only the reading that an easement is \
             needed for structural facilities alone would leave it out"
        ));
    } else {
        let what = match smp.structural {
            Some(true) => "structural practice",
            _ => "practice (structural or not, the law asks for access to all practices)",
        };
        f.because(format!(
            "no recorded maintenance or access easement covers this {what} ({law})"
        ));
    }
}

#[cfg(test)]
mod tests;
