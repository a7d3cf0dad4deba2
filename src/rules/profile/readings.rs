//! Readings whose setting is a small table (AMB-05, AMB-06, AMB-07): each is a typed struct
//! read from `[assumptions.AMB-xx] setting`, and loading refuses a key that is unknown,
//! missing or of the wrong type, and a word that is not one of the reading's.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{AssumptionValue, DischargeCondition, Profile};

/// A reading whose setting is a table of typed keys.
pub trait TableReading: DeserializeOwned + 'static {
    /// The ambiguity's id.
    const AMB: &'static str;

    /// Checks that need the rest of the profile (a key the town's exempt list makes
    /// necessary, a value the code does not decide); the error names the key.
    fn check(&self, _profile: &Profile) -> Result<(), String> {
        Ok(())
    }

    /// Reads the setting; the error says which key is unknown, missing or wrong.
    fn from_setting(setting: &AssumptionValue) -> Result<Self, String> {
        let value = serde_json::to_value(setting).map_err(|e| e.to_string())?;
        serde_json::from_value(value).map_err(|e| e.to_string())
    }
}

/// AMB-05 "chapeau": which conveyances carrying exempt water are illicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConveyanceReading {
    /// A conveyance carrying only exempt water is not illicit ("allows an illegal
    /// discharge"); indoor drains and sinks are illicit per se.
    Chapeau,
}

/// AMB-05: what a basement sump pump not on the exempt list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SumpPumpReading {
    /// Decided by the exempt list alone (exempt when listed, illicit when not).
    Exempt,
    /// Not listed, but its water may be uncontaminated pumped groundwater: review.
    Review,
}

/// AMB-05: the reading of the illicit-connection definition's chapeau.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExemptConveyance {
    /// How a conveyance carrying exempt water is read.
    pub reading: ConveyanceReading,
    /// Whether floor drains count as indoor drains (the registry decides only `true`).
    pub floor_drains_are_indoor_drains: bool,
    /// What a basement sump pump is.
    pub basement_sump_pump: SumpPumpReading,
}

impl TableReading for ExemptConveyance {
    const AMB: &'static str = "AMB-05";

    fn check(&self, _profile: &Profile) -> Result<(), String> {
        if !self.floor_drains_are_indoor_drains {
            // The discharge kinds have no separate floor drain: refusing is better than
            // deciding a floor drain as an indoor drain against the town's reading.
            return Err(
                "floor_drains_are_indoor_drains = false is not a reading the registry \
                        decides: floor drains are recorded as indoor drains"
                    .into(),
            );
        }
        Ok(())
    }
}

/// AMB-06: the plan clause of a conditional exemption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlanDuty {
    /// A missing pollutant-reduction plan is flagged as a separate duty.
    SeparateDuty,
    /// The plan is a condition of the exemption: without one, review.
    Condition,
}

/// AMB-06: the date an "existing" diverted stream flow is measured from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiversionBaseline {
    /// The chapter's effective date (AMB-14).
    ChapterEffectiveDate,
}

/// AMB-06: whether the exemptions carry conditions at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExemptionConditionsReading {
    /// No general condition on the exemptions: no substantial-contributor override, no
    /// plan duty (a kind's own words, such as "uncontaminated", still apply).
    None,
}

/// AMB-06: which irrigation the exempt list covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IrrigationScope {
    /// Landscape irrigation only.
    LandscapeOnly,
}

/// AMB-06: the reading of the exemptions' conditions. Each key is needed only by a town whose
/// exempt list uses the condition it reads; load refuses a profile that lacks one it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExemptionConditions {
    /// The plan clause (needed by `pollutant_reduction_plan` conditions).
    pub pollutant_reduction_plan: Option<PlanDuty>,
    /// "Existing" diversions' date (needed by `existing_diversion` conditions).
    pub existing_diversion_baseline: Option<DiversionBaseline>,
    /// Whether the catch-all needs a sampling result (needed by `no_pollutants_by_sampling`).
    pub catch_all_requires_sampling: Option<bool>,
    /// `"none"`: the exemptions carry no general condition.
    pub conditions: Option<ExemptionConditionsReading>,
    /// Which irrigation is exempt.
    pub irrigation: Option<IrrigationScope>,
}

impl TableReading for ExemptionConditions {
    const AMB: &'static str = "AMB-06";

    fn check(&self, profile: &Profile) -> Result<(), String> {
        use DischargeCondition as D;
        let used = |want: D| {
            profile
                .exempt_discharges
                .iter()
                .find(|e| e.conditions.contains(&want))
        };
        if self.conditions.is_some() {
            // "none" is about the chapeau's conditions on every exemption (the
            // substantial-contributor override, the plan); a kind's own words
            // ("uncontaminated") stay with the kind.
            if let Some((e, c)) = profile.exempt_discharges.iter().find_map(|e| {
                e.conditions
                    .iter()
                    .find(|c| matches!(c, D::NotSubstantialContributor | D::PollutantReductionPlan))
                    .map(|c| (e, c))
            }) {
                return Err(format!(
                    "conditions = \"none\" says the exemptions carry no general condition, but \
                     the exempt discharge {} has the condition {}",
                    e.kind,
                    c.as_str()
                ));
            }
        }
        let needs = [
            (
                D::PollutantReductionPlan,
                "pollutant_reduction_plan",
                self.pollutant_reduction_plan.is_some(),
            ),
            (
                D::ExistingDiversion,
                "existing_diversion_baseline",
                self.existing_diversion_baseline.is_some(),
            ),
            (
                D::NoPollutantsBySampling,
                "catch_all_requires_sampling",
                self.catch_all_requires_sampling.is_some(),
            ),
        ];
        for (condition, key, given) in needs {
            if let (Some(e), false) = (used(condition), given) {
                return Err(format!(
                    "{key} is missing: the exempt discharge {} has the condition {}",
                    e.kind,
                    condition.as_str()
                ));
            }
        }
        Ok(())
    }
}

/// AMB-07: how receiving waters are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaterMethod {
    /// Both by network trace and by watershed overlap, both reported.
    TraceAndWatershed,
}

/// AMB-07: the receiving-water method, the sliver bounds and the downstream bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReceivingWaterReading {
    /// How receiving waters are found.
    pub method: WaterMethod,
    /// An overlap below this share of the footprint (and below the area) is a sliver.
    pub min_watershed_share: f64,
    /// An overlap below this many square feet (and below the share) is a sliver.
    pub min_watershed_overlap_sqft: f64,
    /// How many `flows_to` steps are followed downstream.
    pub downstream_steps: u32,
}

impl TableReading for ReceivingWaterReading {
    const AMB: &'static str = "AMB-07";

    fn check(&self, _profile: &Profile) -> Result<(), String> {
        if !(0.0..1.0).contains(&self.min_watershed_share) {
            return Err(format!(
                "min_watershed_share {} is not a share of the footprint (0 to below 1)",
                self.min_watershed_share
            ));
        }
        if !(self.min_watershed_overlap_sqft >= 0.0 && self.min_watershed_overlap_sqft.is_finite())
        {
            return Err(format!(
                "min_watershed_overlap_sqft {} is not an area of 0 or more",
                self.min_watershed_overlap_sqft
            ));
        }
        Ok(())
    }
}

/// A table reading's check, run at load wherever a profile sets it.
pub(super) struct TableCheck {
    pub amb: &'static str,
    pub check: fn(&AssumptionValue, &Profile) -> Result<(), String>,
}

fn table_check<R: TableReading>() -> TableCheck {
    TableCheck {
        amb: R::AMB,
        check: |setting, profile| R::from_setting(setting)?.check(profile),
    }
}

/// Every table reading.
pub(super) fn table_checks() -> Vec<TableCheck> {
    vec![
        table_check::<ExemptConveyance>(),
        table_check::<ExemptionConditions>(),
        table_check::<ReceivingWaterReading>(),
    ]
}

impl Profile {
    /// The typed table reading `R` the profile takes, or `None` when it sets none (load
    /// refuses a setting that is not one, and a missing one its family reads).
    pub fn table_reading<R: TableReading>(&self) -> Option<R> {
        self.assumption(R::AMB)
            .and_then(|a| R::from_setting(&a.setting).ok())
    }
}
