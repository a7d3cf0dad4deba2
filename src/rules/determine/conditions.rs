//! Carmel, NY: Zoning Code ch. 156, Article X (§§ 156-80 to 156-89).
//!
//! A land development activity (5,000 sq ft, or any activity under one acre that is part
//! of a larger common plan) that is not exempt needs a SWPPP; if it meets Condition One,
//! Two or Three (§ 156-81C) it also needs post-construction controls, inspections every
//! seven days and within 24 hours of a 0.5-inch storm (§ 156-83B), and a maintenance
//! easement and agreement (§§ 156-85, 156-86).

use super::context::{
    and_list, describe_schedule, is_sediment_class, met_words, overlap_words, practice_reason,
    practice_status, tmdl_evidence, water_evidence, Ctx, DateTest, Duty,
};
use super::{
    Conditions, Determination, Finding, Requirement, RequirementKind, RequirementStatus,
    WaterEvidence,
};
use std::sync::Arc;

use crate::rules::finding::Evidence;
use crate::rules::profile::{
    LargerCommonPlan, PollutantOfConcern, Profile, Role, StormwaterSourceScope,
};

mod criteria;
mod duties;
mod requirements;

pub(super) use criteria::{condition_one, condition_one_from, condition_one_skeleton};
use criteria::{condition_three, condition_two};
use requirements::requirements;

const LDA: Role = Role::LandDevelopmentActivity;
const EXEMPTIONS: Role = Role::Exemptions;
const SWPPP: Role = Role::Swppp;
const C1: Role = Role::ConditionOne;
const C2: Role = Role::ConditionTwo;
const C3: Role = Role::ConditionThree;
const POC: Role = Role::PollutantOfConcern;
const POST: Role = Role::PostConstruction;
const PREPARER: Role = Role::PreparerCertification;
const INSPECTIONS: Role = Role::ConstructionInspections;
const LOGBOOK: Role = Role::SiteLogbook;
const EASEMENT: Role = Role::MaintenanceEasement;
const AGREEMENT: Role = Role::MaintenanceAgreement;
const ON_SITE: Role = Role::DeveloperOnSite;
const AT_ONE_TIME: Role = Role::AtOneTime;
const CONTRACTORS: Role = Role::Contractors;
const CONTRACTOR_RECORDS: Role = Role::ContractorRecords;
const SWPPP_ON_SITE: Role = Role::SwpppOnSite;
const OTHER_PERMITS: Role = Role::OtherPermits;
const NOTICE_48H: Role = Role::Notice48h;
const VIOLATION_HALT: Role = Role::ViolationHalt;
const OPERATE: Role = Role::OperateMaintain;
const AS_BUILT: Role = Role::AsBuilt;
const OM: Role = Role::OmProgram;
const FEES: Role = Role::Fees;

/// Exemptions of § 156-80 that no fact of [`super::ProjectFacts`] decides (those that one
/// does are listed as not evaluated only when their fact is not given).
const NOT_EVALUATED: &[&str] = &[
    "repairs to a stormwater management practice or facility deemed necessary by the SMO",
    "cemetery graves",
    "installation of fences, signs, telephone and electric poles and other posts or poles",
    "emergency activity immediately necessary to protect life, property or natural resources",
    "home gardening",
    "landscaping and horticultural activities in connection with an existing structure",
];

/// Why Article X does not reach the project, if it does not: it reaches only non-exempt
/// land development activities (§ 156-81A: "except exempt activities"), and outside it no
/// Condition can be met.
fn outside_reason(
    cx: &Ctx<'_>,
    lda: &Finding<Option<bool>>,
    exempt: &Finding<Option<bool>>,
) -> Option<String> {
    if lda.result == Some(false) {
        Some("it is not a land development activity".to_string())
    } else if exempt.result == Some(true) {
        Some(format!(
            "it is an exempt activity ({} reviews land development activities 'except exempt activities')",
            cx.profile.wording.section(EXEMPTIONS)
        ))
    } else {
        None
    }
}

/// Why Article X does not reach a project of these facts, if it does not, with whether it
/// is a land development activity and exempt (either may be undetermined); decided once for
/// screening many parcels, since it turns on the project's facts and not on the place.
pub(super) fn outside(cx: &mut Ctx<'_>) -> (Option<String>, Option<bool>, Option<bool>) {
    let lda = land_development_activity(cx);
    let exempt = exemptions(cx);
    (outside_reason(cx, &lda, &exempt), lda.result, exempt.result)
}

/// A Conditions determination for one project made ready for many places: all but
/// Condition One turns on the project's facts, and what follows from the Conditions turns
/// on Condition One only through its result, so each is decided once here.
pub(super) struct Plan {
    lda: Finding<Option<bool>>,
    exempt: Finding<Option<bool>>,
    /// The open facts of the two findings above, in the order they were found.
    head_open: Vec<String>,
    condition_two: Finding<Option<bool>>,
    condition_three: Finding<Option<bool>>,
    /// The open facts of Conditions Two and Three.
    middle_open: Vec<String>,
    /// What follows when Condition One is met, not met and undetermined (in that order,
    /// see [`Plan::after`]).
    after: [After; 3],
}

/// What follows from the Conditions, with the facts it leaves open.
struct After {
    requirements: Arc<Vec<Finding<Requirement>>>,
    open_facts: Vec<String>,
}

impl Plan {
    /// The plan for `cx`'s facts (its water evidence is not read). `outside` is why the law
    /// does not reach the project, as [`outside`] finds it.
    pub(super) fn new(cx: &mut Ctx<'_>, outside: Option<&str>) -> Plan {
        let lda = land_development_activity(cx);
        let exempt = exemptions(cx);
        let head_open = std::mem::take(&mut cx.open_facts);
        let condition_two = condition_two(cx, outside);
        let condition_three = condition_three(cx, outside);
        let middle_open = std::mem::take(&mut cx.open_facts);
        let skeleton = condition_one_skeleton(cx);
        let after = [Some(true), Some(false), None].map(|one| {
            let conditions = Conditions {
                condition_one: Finding {
                    result: one,
                    ..skeleton.clone()
                },
                condition_two: condition_two.clone(),
                condition_three: condition_three.clone(),
            };
            let requirements = requirements(cx, outside, &conditions);
            After {
                requirements: Arc::new(requirements),
                open_facts: std::mem::take(&mut cx.open_facts),
            }
        });
        Plan {
            lda,
            exempt,
            head_open,
            condition_two,
            condition_three,
            middle_open,
            after,
        }
    }

    /// Applies `f` to every finding but Condition One, which the plan does not hold: how
    /// the law's reach, when it is open, changes them (see `pending_reach`).
    pub(super) fn each_condition_and_requirement(
        &mut self,
        mut condition: impl FnMut(&mut Finding<Option<bool>>),
        mut requirement: impl FnMut(&mut Finding<Requirement>),
    ) {
        condition(&mut self.condition_two);
        condition(&mut self.condition_three);
        for after in &mut self.after {
            Arc::make_mut(&mut after.requirements)
                .iter_mut()
                .for_each(&mut requirement);
        }
    }

    /// The whole determination with Condition One as found at a place (`one`, its open
    /// facts `one_open`), as [`determine`] makes it; `decided` is Condition One's result on
    /// the evidence, before an open reach of the law made it undetermined, which is what
    /// the requirements follow.
    pub(super) fn determination(
        &self,
        profile: &Profile,
        decided: Option<bool>,
        one: Finding<Option<bool>>,
        one_open: Vec<String>,
    ) -> Determination {
        let after = self.after(decided);
        let mut open_facts = self.head_open.clone();
        // As `Ctx::open` keeps them: each once, where it was first found.
        for fact in one_open
            .into_iter()
            .chain(self.middle_open.iter().chain(&after.open_facts).cloned())
        {
            if !open_facts.contains(&fact) {
                open_facts.push(fact);
            }
        }
        Determination {
            jurisdiction: profile.id.clone(),
            land_development_activity: self.lda.clone(),
            exempt: self.exempt.clone(),
            conditions: Some(Conditions {
                condition_one: one,
                condition_two: self.condition_two.clone(),
                condition_three: self.condition_three.clone(),
            }),
            conditions_absent: None,
            requirements: Arc::clone(&after.requirements),
            not_covered: !profile.coverage.land_development.present,
            open_facts,
        }
    }

    /// What follows when Condition One's result is `one`.
    fn after(&self, one: Option<bool>) -> &After {
        match one {
            Some(true) => &self.after[0],
            Some(false) => &self.after[1],
            None => &self.after[2],
        }
    }
}

pub(super) fn determine(cx: &mut Ctx<'_>) -> Determination {
    let lda = land_development_activity(cx);
    let exempt = exemptions(cx);
    let outside = outside_reason(cx, &lda, &exempt);
    let outside = outside.as_deref();
    let conditions = Conditions {
        condition_one: condition_one(cx, outside),
        condition_two: condition_two(cx, outside),
        condition_three: condition_three(cx, outside),
    };
    let requirements = Arc::new(requirements(cx, outside, &conditions));
    Determination {
        jurisdiction: cx.profile.id.clone(),
        land_development_activity: lda,
        exempt,
        conditions: Some(conditions),
        conditions_absent: None,
        requirements,
        not_covered: !cx.profile.coverage.land_development.present,
        open_facts: std::mem::take(&mut cx.open_facts),
    }
}

/// § 156-80 LAND DEVELOPMENT ACTIVITY: 5,000 sq ft or more, or under one acre as part of a
/// larger common plan. Under 5,000 sq ft it turns on the plan: not given, or given under a
/// reading that needs the plan's total disturbance, it is undetermined (`None`) and open.
fn land_development_activity(cx: &mut Ctx<'_>) -> Finding<Option<bool>> {
    let mut f = cx.finding(Some(false), &[cx.id(LDA)], &["AMB-10"]);
    f.evidence = cx.area_evidence();
    let (by_area, reason) =
        cx.meets_or_not("land_development_activity", "land development activity");
    f.because(reason);
    f.result = if by_area {
        Some(true)
    } else {
        by_the_plan(cx, &mut f)
    };
    if by_area && cx.facts.larger_common_plan == Some(true) {
        f.because("part of a larger common plan of development or sale; the area alone already makes it a land development activity");
    }
    f
}

/// The larger-common-plan clause for an activity the area alone does not reach: whether
/// it is a land development activity, with the reasons and the open facts.
fn by_the_plan(cx: &mut Ctx<'_>, f: &mut Finding<Option<bool>>) -> Option<bool> {
    let (under, reason) = cx.meets_or_not("larger_common_plan", "larger common plan clause");
    let plan = match cx.facts.larger_common_plan {
        Some(false) => {
            f.because("given: not part of a larger common plan of development or sale");
            return Some(false);
        }
        Some(true) => {
            f.because(format!(
                "part of a larger common plan of development or sale; {reason}"
            ));
            true
        }
        None => {
            f.because(format!(
                "whether the project is part of a larger common plan of development or sale was not given; {reason}"
            ));
            false
        }
    };
    if !under {
        return Some(false);
    }
    f.assume(cx.profile, "AMB-12");
    match cx.profile.reading::<LargerCommonPlan>() {
        LargerCommonPlan::Literal if plan => {
            f.because("an activity disturbing less than one acre that is part of a larger common plan is a land development activity; the definition states no minimum size (AMB-12, literal reading)");
            f.because("warning: this makes even an activity under 5,000 sq ft a land development activity, because it belongs to a larger common plan");
            Some(true)
        }
        LargerCommonPlan::Literal => {
            f.because("undetermined: under the literal reading (AMB-12) an activity under one acre that is part of a larger common plan is a land development activity whatever its size, so the answer turns on whether it is part of one");
            cx.open("larger_common_plan");
            None
        }
        other => {
            // Any other reading tests the plan's total disturbance, which the facts do
            // not carry.
            f.because(format!(
                "undetermined: the profile reads the larger-common-plan clause as {:?} (AMB-12), which turns on the plan's total disturbance; that was not given",
                other.as_str()
            ));
            if !plan {
                cx.open("larger_common_plan");
            }
            cx.open("larger common plan: total disturbance of the plan");
            None
        }
    }
}

/// § 156-80 EXEMPT ACTIVITIES, as far as the facts decide them; every exemption whose
/// fact was not given is listed as not evaluated. `None` when no exemption is met but one
/// turns on an unconfirmed effective date (AMB-14).
fn exemptions(cx: &mut Ctx<'_>) -> Finding<Option<bool>> {
    let facts = cx.facts;
    let mut f = cx.finding(Some(false), &[cx.id(EXEMPTIONS)], &[]);
    let mut exempt = false;
    let mut depends = false;
    let mut not_evaluated: Vec<String> = Vec::new();
    match facts.agricultural_activity {
        Some(true) => {
            exempt = true;
            f.because(format!("agricultural activity is exempt from review ({}: 'agricultural activity as defined herein')", cx.profile.wording.definitions));
        }
        Some(false) => {
            f.because("given: the activity is not agricultural activity");
        }
        None => not_evaluated.push("agricultural activity".into()),
    }
    if facts.agricultural == Some(true) && facts.agricultural_activity != Some(true) {
        f.assume(cx.profile, "AMB-11");
        f.because(
            "construction at an agricultural property is not by itself exempt: 'agricultural activity' does not include 'the construction of new structures associated with agricultural activities'; the property only takes the project out of Condition Three",
        );
    }
    match facts.silviculture {
        Some(true) => {
            exempt = true;
            f.because(format!("silvicultural activity is exempt from review, 'except landing areas and log haul roads', which stay subject to {}", cx.profile.wording.law));
        }
        Some(false) => {
            f.because("given: the activity is not silvicultural activity");
        }
        None => {
            not_evaluated
                .push("silvicultural activity (except landing areas and log haul roads)".into());
        }
    }
    match facts.routine_maintenance {
        Some(true) => {
            let (under, reason) = cx.meets_or_not(
                "routine_maintenance_exemption",
                "routine maintenance exemption",
            );
            f.because(format!("routine maintenance; {reason}"));
            if under {
                exempt = true;
                f.because("routine maintenance that disturbs less than five acres and keeps a facility's original line and grade, hydraulic capacity or purpose is exempt");
            } else {
                f.because("routine maintenance disturbing five acres or more is not exempt");
            }
        }
        Some(false) => {
            f.because("given: the activity is not routine maintenance to the original line and grade, hydraulic capacity or purpose of a facility");
        }
        None => not_evaluated.push(
            "routine maintenance under five acres to the original line and grade, hydraulic capacity or purpose of a facility".into(),
        ),
    }
    match cx.date_exemption(
        &mut f,
        "the subdivision plat (signed by the Planning Board)",
        facts.plat_approved_on,
    ) {
        DateTest::Exempt => exempt = true,
        DateTest::NotGiven => not_evaluated.push(format!(
            "a subdivision whose plat the Planning Board approved (signed) on or before {}",
            cx.cutoff_words()
        )),
        DateTest::Depends => depends = true,
        DateTest::After => {}
    }
    match cx.date_exemption(
        &mut f,
        "the building permit",
        facts.building_permit_approved_on,
    ) {
        DateTest::Exempt => exempt = true,
        DateTest::NotGiven => not_evaluated.push(format!(
            "a building permit approved on or before {}",
            cx.cutoff_words()
        )),
        DateTest::Depends => depends = true,
        DateTest::After => {}
    }
    not_evaluated.extend(NOT_EVALUATED.iter().map(|s| s.to_string()));
    f.result = super::context::exemption_result(&mut f, exempt, depends, &not_evaluated);
    f
}
