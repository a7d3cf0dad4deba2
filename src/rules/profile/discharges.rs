//! Non-stormwater discharges a law exempts from its prohibition or allows by another route.

use serde::{Deserialize, Serialize};

use crate::domain::discharge::DischargeKind;

str_enum! {
    /// A condition the law attaches to an exemption or an allowance. Evaluation code checks
    /// each against the discharge's facts; the profile only says which ones apply.
    pub enum DischargeCondition("discharge condition") {
        /// North Castle: lost if NYSDEC or the Town has found the discharge a substantial
        /// contributor of pollutants.
        NotSubstantialContributor = "not_substantial_contributor",
        /// North Castle: made under an appropriate plan for reducing pollutants (a condition
        /// or a separate duty: see assumption AMB-06).
        PollutantReductionPlan = "pollutant_reduction_plan",
        /// The water must be uncontaminated: not exempt when sampling finds pollutants.
        Uncontaminated = "uncontaminated",
        /// Exempt only when sampling shows no pollutants (North Castle's catch-all).
        NoPollutantsBySampling = "no_pollutants_by_sampling",
        /// North Castle: only "existing" diverted stream flows (baseline date: AMB-06).
        ExistingDiversion = "existing_diversion",
        /// Pool water must be dechlorinated.
        Dechlorinated = "dechlorinated",
        /// Windsor: not an active groundwater dewatering system.
        NotActiveGroundwaterDewatering = "not_active_groundwater_dewatering",
        /// Dye testing: verbal notice to the official before the test starts.
        VerbalNoticeBeforeTest = "verbal_notice_before_test",
        /// North Castle dye testing: done in compliance with state and local laws.
        CompliesWithStateAndLocalLaws = "complies_with_state_and_local_laws",
        /// Approved (or specified) in writing by the official named as `authority`.
        WrittenApproval = "written_approval",
        /// Within the period and conditions the written approval sets.
        WithinApprovedPeriodAndConditions = "within_approved_period_and_conditions",
        /// The discharger is in full compliance with its permit, waiver or order.
        PermitInFullCompliance = "permit_in_full_compliance",
        /// Written approval has been granted for the discharge to the MS4 / storm drainage
        /// system.
        WrittenApprovalForDischargeToSystem = "written_approval_for_discharge_to_system",
    }
}

str_enum! {
    /// A route by which the law allows a discharge that is not on its exempt list.
    pub enum AllowedRoute("allowed-discharge route") {
        /// Approved in writing by the official to protect life, property, health or safety.
        EmergencyWrittenApproval = "emergency_written_approval",
        /// Dye testing, with verbal notice.
        DyeTesting = "dye_testing",
        /// Under a SPDES / NPDES permit, waiver or waste discharge order.
        Permitted = "permitted",
    }
}

/// One exempt discharge kind of a jurisdiction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExemptEntry {
    /// The discharge kind (snake_case name of [`DischargeKind`]).
    pub kind: DischargeKind,
    /// The law's words for the item, verbatim.
    pub text: String,
    /// Catalogue id of the exemption rule.
    pub rule: String,
    /// Where the law states it.
    pub citation: String,
    /// Conditions the exemption carries; empty when unconditional.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<DischargeCondition>,
    /// What a reader should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl ExemptEntry {
    /// Whether the exemption carries `condition`.
    pub fn has_condition(&self, condition: DischargeCondition) -> bool {
        self.conditions.contains(&condition)
    }
}

/// A discharge the law allows by another route than its exempt list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllowedEntry {
    /// Which route.
    pub route: AllowedRoute,
    /// Who approves, is notified or issues the permit.
    pub authority: String,
    /// The law's words, verbatim.
    pub text: String,
    /// Catalogue id of the rule.
    pub rule: String,
    /// Where the law states it.
    pub citation: String,
    /// Conditions of the allowance.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<DischargeCondition>,
    /// The recorded names of the office that gives the approval (whole names, case and
    /// punctuation ignored: "Stormwater Management Officer", "SMO"); `authority` alone
    /// when empty. A record approved by one of them is weighed as this route.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offices: Vec<String>,
}

impl AllowedEntry {
    /// The names a record's approver is matched against: `offices`, else `authority`.
    pub fn office_names(&self) -> Vec<String> {
        if self.offices.is_empty() {
            vec![self.authority.clone()]
        } else {
            self.offices.clone()
        }
    }
}

str_enum! {
    /// How an asset with no owner recorded is read when tracing a connection to the MS4.
    pub enum MissingOwner("missing-owner reading") {
        /// Taken as an MS4 asset: the registry is the Town's inventory of its system, and
        /// the answer says the reading was taken.
        Ms4 = "ms4",
        /// Whose asset it is needs review: the answer is `needs_review`.
        Review = "review",
    }
}

/// Program settings for the illicit-connection answers: whose conveyances are the MS4, and
/// who may approve a connection. Settings of the registry's program, not words of the law.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ms4Settings {
    /// Recorded `owner` values (whole values, case and punctuation ignored) of assets that
    /// are the MS4 (AMB-19): the Town's own names, and for a law whose system is every
    /// publicly owned facility, the other public owners.
    #[serde(default)]
    pub owners: Vec<String>,
    /// How an asset with no owner recorded is read; `review` when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing_owner: Option<MissingOwner>,
    /// Recorded `approved_by` values that are the approving authority of clause (2) (whole
    /// names, case and punctuation ignored, alone or qualified by the town's name: "Town
    /// of North Castle Planning Board" matches "Planning Board", "Putnam County Planning
    /// Board" does not and goes to review).
    #[serde(default)]
    pub approvers: Vec<String>,
    /// Who may determine a discharge a substantial contributor of pollutants, which
    /// withdraws an exemption (North Castle § 267-12A(1)); `None` when the law names no one
    /// or the profile has not said, and then no determination withdraws an exemption by
    /// itself: each goes to review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub determiners: Option<Determiners>,
}

/// The bodies whose determination that a discharge is a substantial contributor of
/// pollutants withdraws its exemption.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Determiners {
    /// The law's words for them: `the Department or the municipality`.
    pub authority: String,
    /// Where the law names them: `§ 267-12A(1)`.
    pub citation: String,
    /// Recorded `determined_by` values that are those bodies (whole names, case and
    /// punctuation ignored; "the Town's" or "of the Town" qualifiers allowed, see
    /// [`whole_name`]).
    pub names: Vec<String>,
}

/// How a recorded name (an approver, a determining body) stands against a list of the
/// town's offices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch<'a> {
    /// The whole name of a listed office (alone, or qualified by the town's name).
    Named(&'a str),
    /// It contains a listed office's words but names some other body ("Putnam County
    /// Planning Board" against "Planning Board").
    Contains(&'a str),
    /// Nothing listed.
    Unlisted,
}

/// Matches `value` against `names` as whole names: equal after normalising, or one of
/// them qualified by one of `towns` ("Town of North Castle Planning Board", "Planning
/// Board of the Town of North Castle", "North Castle's Planning Board"). A value holding a
/// name's words in any other company is [`NameMatch::Contains`]: another public body (a
/// county's board, a state department) whose name shares the words is not the town's.
pub fn whole_name<'a>(value: &str, names: &'a [String], towns: &[&str]) -> NameMatch<'a> {
    let norm = super::land_use::normalise_words;
    let v = norm(value);
    let v = v.strip_prefix("the ").unwrap_or(&v).to_string();
    if v.is_empty() {
        return NameMatch::Unlisted;
    }
    let towns: Vec<String> = towns
        .iter()
        .map(|t| norm(t))
        .filter(|t| !t.is_empty())
        .collect();
    let mut contains = None;
    for name in names {
        let n = norm(name);
        if n.is_empty() {
            continue;
        }
        let qualified = towns.iter().any(|t| {
            [
                format!("{t} {n}"),
                format!("{t} s {n}"),
                format!("{n} of {t}"),
                format!("{n} of the {t}"),
            ]
            .contains(&v)
        });
        if v == n || qualified {
            return NameMatch::Named(name);
        }
        if contains.is_none() && format!(" {v} ").contains(&format!(" {n} ")) {
            contains = Some(name.as_str());
        }
    }
    contains.map_or(NameMatch::Unlisted, NameMatch::Contains)
}

impl Ms4Settings {
    /// The reading for a missing owner.
    pub fn missing_owner(&self) -> MissingOwner {
        self.missing_owner.unwrap_or(MissingOwner::Review)
    }

    /// Whether a recorded owner is one of the MS4's owners.
    pub fn is_ms4_owner(&self, owner: &str) -> bool {
        let o = super::land_use::normalise_words(owner);
        !o.is_empty()
            && self
                .owners
                .iter()
                .any(|t| super::land_use::normalise_words(t) == o)
    }

    /// How a recorded `approved_by` stands against the listed approvers, as a whole name
    /// of one of them for the town named by `towns` (see [`whole_name`]).
    pub fn approver(&self, approved_by: &str, towns: &[&str]) -> NameMatch<'_> {
        whole_name(approved_by, &self.approvers, towns)
    }
}
