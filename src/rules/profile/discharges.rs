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
    /// words of the value, case and punctuation ignored: "Town Engineer" matches "Town
    /// Engineer J. Smith").
    #[serde(default)]
    pub approvers: Vec<String>,
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

    /// The listed approver a recorded `approved_by` names, if any.
    pub fn approver_named(&self, approved_by: &str) -> Option<&str> {
        let text = format!(" {} ", super::land_use::normalise_words(approved_by));
        self.approvers
            .iter()
            .find(|a| {
                let w = super::land_use::normalise_words(a);
                !w.is_empty() && text.contains(&format!(" {w} "))
            })
            .map(String::as_str)
    }
}
