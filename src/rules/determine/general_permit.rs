//! The NY general-permit family: the NYS DEC model law as North Castle, NY adopted it
//! (Chapter 267, Part 1, stormwater management and erosion control); its text cites the
//! model clauses (`{§7A(5)}`), which each town's `[wording]` turns into its own sections.
//!
//! A land development activity (5,000 sq ft of soil disturbance, routine maintenance
//! excluded) that is not exempt needs a SWPPP; from one acre a qualified inspector inspects
//! every seven calendar days (§ 267-7A(5)). There are no Conditions: post-construction and
//! enhanced phosphorus design follow the SPDES construction general permit, which the
//! chapter incorporates but the registry does not encode (AMB-13). So the registry reports
//! what the evidence indicates (e.g. a phosphorus TMDL area under the footprint) and takes
//! the permit's outcome from a reviewer's entry when there is one.

use std::sync::Arc;

use super::context::{
    and_list, describe_schedule, is_phosphorus, overlap_words, practice_reason, practice_status,
    tmdl_evidence, water_evidence, Ctx, DateTest, Duty,
};
use super::{Determination, Finding, Requirement, RequirementKind, RequirementStatus, TmdlOverlap};
use crate::rules::profile::Role;

mod duties;

use duties::requirements;

const LDA: Role = Role::LandDevelopmentActivity;
const EXEMPTIONS: Role = Role::Exemptions;
const GRANDFATHERING: Role = Role::Grandfathering;
const PLAN: Role = Role::LargerCommonPlan;
const GP: Role = Role::GpCoverageIndicator;
const SWPPP: Role = Role::Swppp;
const POST: Role = Role::PostConstruction;
const PHOSPHORUS: Role = Role::Phosphorus;
const ABSENT: Role = Role::ConditionsAbsent;
const SPECIAL: Role = Role::SpecialConditions;
const INSPECTOR: Role = Role::QualifiedInspector;
const EASEMENT: Role = Role::MaintenanceEasement;
const AGREEMENT: Role = Role::MaintenanceAgreement;
const GP_INSPECTIONS: Role = Role::GpInspections;
const TRAINED: Role = Role::TrainedContractor;
const CONTRACTORS: Role = Role::Contractors;
const CONTRACTOR_RECORDS: Role = Role::ContractorRecords;
const SWPPP_ON_SITE: Role = Role::SwpppOnSite;
const OTHER_PERMITS: Role = Role::OtherPermits;
const NOTICE_48H: Role = Role::Notice48h;
const VIOLATION_HALT: Role = Role::ViolationHalt;
const AS_BUILT: Role = Role::AsBuilt;
const PE_INSPECTION: Role = Role::PeInspection;
const OM: Role = Role::OmProgram;
const FEES: Role = Role::Fees;

/// Exemptions of § 267-3D that no fact of [`super::ProjectFacts`] decides (those that one
/// does are listed as not evaluated only when their fact is not given).
const NOT_EVALUATED: &[&str] = &[
    "repairs to a stormwater management practice or facility deemed necessary by the SMO",
    "cemetery graves",
    "installation of fences, signs, telephone and electric poles and other posts or poles",
    "emergency activity immediately necessary to protect life, property or natural resources",
    "home gardening",
    "landscaping and horticultural activities in connection with an existing structure",
];

pub(super) fn determine(cx: &mut Ctx<'_>) -> Determination {
    let lda = land_development_activity(cx);
    let exempt = exemptions(cx);
    let outside = if lda.result == Some(false) {
        Some("it is not a land development activity")
    } else if exempt.result == Some(true) {
        Some("it is an exempt activity")
    } else {
        None
    };
    let absent = conditions_absent(cx);
    let requirements = requirements(cx, outside);
    Determination {
        jurisdiction: cx.profile.id.clone(),
        land_development_activity: lda,
        exempt,
        conditions: None,
        conditions_absent: Some(absent),
        requirements: Arc::new(requirements),
        not_covered: !cx.profile.coverage.land_development.present,
        open_facts: std::mem::take(&mut cx.open_facts),
    }
}

/// § 267-4B LAND DEVELOPMENT ACTIVITY: 5,000 sq ft of soil disturbance, not routine
/// maintenance. The larger common plan plays no part in it, so the facts always decide it.
fn land_development_activity(cx: &mut Ctx<'_>) -> Finding<Option<bool>> {
    let facts = cx.facts;
    let mut f = cx.finding(Some(false), &[cx.id(LDA)], &["AMB-10"]);
    f.evidence = cx.area_evidence();
    let (by_area, reason) =
        cx.meets_or_not("land_development_activity", "land development activity");
    f.because(reason);
    let mut result = by_area;
    match facts.routine_maintenance {
        Some(true) => {
            result = false;
            f.because(cx.profile.wording.expand("'land development activity does not include routine maintenance that is performed to maintain the original line and grade, hydraulic capacity or original purpose of a facility' (no size limit in {town})"));
        }
        Some(false) => {
            f.because(
                "given: the activity is not routine maintenance to the original line and grade",
            );
        }
        None if by_area => {
            f.because("not evaluated, for want of facts: whether the activity is routine maintenance to the original line and grade, hydraulic capacity or original purpose of a facility, which the definition excludes");
        }
        None => {}
    }
    if facts.larger_common_plan == Some(true) {
        f.cite(cx.profile, cx.id(PLAN));
        f.assume(cx.profile, "AMB-12");
        f.because(cx.profile.wording.expand("part of a larger common plan: {town}'s definition of land development activity does not use the term, so the 5,000 sq ft test stands; the plan matters only for the construction general permit"));
    }
    f.result = Some(result);
    f
}

/// § 267-3D and § 267-3C(5)-(6), as far as the facts decide them; every one whose fact
/// was not given is listed as not evaluated. `None` when no exemption is met but one turns
/// on the chapter's unconfirmed effective date (AMB-14).
fn exemptions(cx: &mut Ctx<'_>) -> Finding<Option<bool>> {
    let facts = cx.facts;
    let mut f = cx.finding(
        Some(false),
        &[cx.id(EXEMPTIONS), cx.id(GRANDFATHERING)],
        &[],
    );
    let mut exempt = false;
    let mut depends = false;
    let mut not_evaluated: Vec<String> = Vec::new();
    if facts.agricultural_activity == Some(true) || facts.silviculture == Some(true) {
        f.because(cx.profile.wording.expand("agricultural and silvicultural activity are not exempt in {town}: {§3D} has no agricultural or silvicultural exemption"));
    }
    if facts.routine_maintenance == Some(true) {
        f.because("routine maintenance is excluded from the definition of land development activity rather than exempted; see land_development_activity");
    }
    match cx.date_exemption(
        &mut f,
        "the subdivision plat",
        facts.plat_approved_on,
    ) {
        DateTest::Exempt => exempt = true,
        DateTest::NotGiven => not_evaluated.push(
            cx.profile.wording.expand("a subdivision whose plat the Town approved on or before the chapter's effective date ({§3D(2)})"),
        ),
        DateTest::Depends => depends = true,
        DateTest::After => {}
    }
    match cx.date_exemption(
        &mut f,
        "the building permit",
        facts.building_permit_approved_on,
    ) {
        DateTest::Exempt => exempt = true,
        DateTest::NotGiven => not_evaluated.push(cx.profile.wording.expand(
            "a building permit approved on or before the chapter's effective date ({§3D(3)})",
        )),
        DateTest::Depends => depends = true,
        DateTest::After => {}
    }
    match facts.completed_before_effective_date {
        Some(true) => {
            exempt = true;
            f.because(cx.profile.wording.expand("'the provisions of this chapter shall not apply to any project that has been physically completed prior to the effective date of this chapter' ({§3C(5)})"));
        }
        Some(false) => {
            f.because("given: the project was not physically completed before the chapter's effective date");
        }
        None => not_evaluated.push(cx.profile.wording.expand(
            "a project physically completed before the chapter's effective date ({§3C(5)})",
        )),
    }
    match facts.approved_before_effective_date {
        Some(true) => {
            f.because(cx.profile.wording.expand("approved before the chapter's effective date: it may be continued under the Town's present regulations, but not expanded, changed, enlarged or altered without complying with the chapter, nor resumed in nonconformity after 12 consecutive months' discontinuance or destruction ({§3C(6)(a)}-(d)); which of these holds was not given"));
            cx.open(cx.profile.wording.expand("whether the previously approved project is expanded, changed, enlarged or altered, discontinued for 12 consecutive months, or destroyed ({§3C(6)})"));
        }
        Some(false) => {
            f.because("given: the project was not approved before the chapter's effective date");
        }
        None => not_evaluated.push(
            cx.profile.wording.expand("a project approved before the chapter's effective date, which may continue under the present regulations ({§3C(6)})"),
        ),
    }
    not_evaluated.extend(NOT_EVALUATED.iter().map(|s| s.to_string()));
    f.result = super::context::exemption_result(&mut f, exempt, depends, &not_evaluated);
    f
}

/// North Castle has no Conditions One, Two or Three.
fn conditions_absent(cx: &mut Ctx<'_>) -> Finding<bool> {
    let water = cx.water;
    let mut f = cx.finding(true, &[cx.id(ABSENT)], &["AMB-13"]);
    f.because(
        cx.profile
            .coverage
            .conditions
            .note
            .clone()
            .unwrap_or_else(|| {
                cx.profile
                    .wording
                    .expand("{law} has no Conditions One, Two or Three")
            }),
    );
    if !water.waters_303d.is_empty() || !water.tmdl_areas.is_empty() {
        f.cite(cx.profile, cx.id(SPECIAL));
        f.because(cx.profile.wording.expand("in {town} 303(d) and TMDL language appears only in the MS4-level SPECIAL CONDITION definitions, which bind the Town's program, not a project; the TMDL areas bear on the enhanced phosphorus indicator"));
        f.evidence
            .extend(water.waters_303d.iter().map(water_evidence));
        f.evidence
            .extend(water.tmdl_areas.iter().flat_map(tmdl_evidence));
    }
    f
}

/// § 267-5A and the GP definition: coverage is indicated at one acre, or at 5,000 sq ft
/// in the NYC East of Hudson Watershed.
fn general_permit(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Requirement> {
    use RequirementStatus as S;
    let facts = cx.facts;
    let mut f = cx.requirement(
        RequirementKind::ConstructionGeneralPermit,
        S::DoesNotApply,
        &cx.profile.wording.expand("For projects also requiring coverage under the SPDES General Permit for Construction Activities, the application must include all related NYSDEC forms and certifications ({§5A}), and the permit's certifications become part of the SWPPP ({§5F(1)})."),
        &[cx.id(GP)],
        &["AMB-10", "AMB-13"],
    );
    f.evidence = cx.area_evidence();
    if facts.larger_common_plan != Some(false) {
        f.cite(cx.profile, cx.id(PLAN));
        f.assume(cx.profile, "AMB-12");
    }
    let plan_note = "part of a larger common plan: the permit counts the plan's total disturbance, though discrete projects at least 1/4 mile apart may be treated separately when no interconnecting road, pipeline or utility of the plan is disturbed at the same time";
    if let Some(why) = outside {
        f.because(format!(
            "{} does not reach the project: {why}",
            cx.profile.wording.law
        ));
        match facts.larger_common_plan {
            Some(true) => {
                f.because(format!(
                    "{plan_note}; the state permit may still apply through the plan, outside {}",
                    cx.profile.wording.law
                ));
            }
            None => {
                f.because(format!(
                    "whether the project is part of a larger common plan was not given: if it is, {plan_note}, and the state permit may apply through the plan, outside {}",
                    cx.profile.wording.law
                ));
            }
            Some(false) => {}
        }
        return f;
    }
    if let Some(covered) = facts.gp.coverage {
        f.result.status = if covered { S::Applies } else { S::DoesNotApply };
        f.because(format!(
            "the reviewer entered that the project {} coverage under the construction general permit (AMB-13)",
            if covered { "needs" } else { "does not need" }
        ));
        return f;
    }
    let (acre, reason) = cx.meets_or_not("gp_coverage", "general permit");
    f.because(reason);
    let mut status = S::DoesNotApply;
    if acre {
        status = S::Indicated;
    } else {
        let (eoh_area, reason) = cx.meets_or_not(
            "gp_coverage_nyc_east_of_hudson",
            "NYC East of Hudson Watershed general permit",
        );
        f.because(reason);
        if eoh_area {
            match facts.in_nyc_east_of_hudson_watershed {
                Some(true) => {
                    status = S::Indicated;
                    f.because("the site lies in the New York City East of Hudson Watershed");
                }
                Some(false) => {
                    f.because(
                        "the site does not lie in the New York City East of Hudson Watershed",
                    );
                }
                None => {
                    status = S::Depends;
                    f.because("whether the site lies in the New York City East of Hudson Watershed was not given, and it decides coverage at this size");
                    cx.open("in_nyc_east_of_hudson_watershed");
                }
            }
        }
    }
    if status != S::Indicated {
        match facts.larger_common_plan {
            Some(true) => {
                status = S::Depends;
                f.because(plan_note);
                cx.open("larger common plan: total disturbance of the plan and separation from its other projects");
            }
            None => {
                status = S::Depends;
                f.because(format!("whether the project is part of a larger common plan of development or sale was not given, and it decides coverage at this size: {plan_note}"));
                cx.open("larger_common_plan");
            }
            Some(false) => {
                f.because("given: not part of a larger common plan of development or sale");
            }
        }
    }
    if status == S::Indicated {
        f.because("the construction general permit itself decides coverage (AMB-13); this is the chapter's own indicator");
    }
    f.result.status = status;
    f
}

/// § 267-5D(3): the Enhanced Phosphorus Removal Standards, when the permit requires them.
/// A phosphorus TMDL area under the footprint indicates them; the permit decides.
fn enhanced_phosphorus(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Requirement> {
    use RequirementStatus as S;
    let facts = cx.facts;
    let overlaps: Vec<&TmdlOverlap> = cx
        .water
        .tmdl_areas
        .iter()
        .filter(|t| is_phosphorus(&t.pollutant) && t.overlap.value > 0.0)
        .collect();
    let mut f = cx.requirement(
        RequirementKind::EnhancedPhosphorus,
        S::DoesNotApply,
        &cx.profile.wording.expand("Post-construction stormwater management practices designed to the Enhanced Phosphorus Removal Standards of the Design Manual, with at least SWPPP items D(2)(b)[1]-[11] ({§5D(3)})."),
        &[cx.id(PHOSPHORUS)],
        &["AMB-13"],
    );
    f.evidence
        .extend(overlaps.iter().flat_map(|t| tmdl_evidence(t)));
    let found = overlaps
        .iter()
        .map(|t| {
            format!(
                "{} ({}, overlapping {} of the footprint)",
                t.tmdl_id,
                t.pollutant,
                overlap_words(t.overlap)
            )
        })
        .collect::<Vec<_>>();
    let status = match (outside, facts.gp.enhanced_phosphorus) {
        (Some(why), _) => {
            f.because(format!(
                "{} does not reach the project: {why}",
                cx.profile.wording.law
            ));
            S::DoesNotApply
        }
        (None, Some(required)) => {
            f.because(format!(
                "the reviewer entered that the construction general permit {} the Enhanced Phosphorus Removal Standards (AMB-13)",
                if required { "requires" } else { "does not require" }
            ));
            if required {
                S::Applies
            } else {
                S::DoesNotApply
            }
        }
        (None, None) if !found.is_empty() => {
            f.because(format!(
                "the footprint lies in phosphorus TMDL area {}; the construction general permit decides whether the standards apply (AMB-13)",
                and_list(&found)
            ));
            cx.open("gp.enhanced_phosphorus");
            S::Indicated
        }
        (None, None) if facts.gp.coverage == Some(false) => {
            f.because("the reviewer entered that the project needs no construction general permit coverage, and the standards apply only 'pursuant to the SPDES General Permit' (AMB-13)");
            S::DoesNotApply
        }
        (None, None) => {
            f.because("no phosphorus TMDL area overlaps the footprint, on the evidence given, but the construction general permit decides whether the standards apply, and its outcome was not entered (AMB-13): missing evidence is not a 'no'");
            cx.open("gp.enhanced_phosphorus");
            S::Depends
        }
    };
    if outside.is_some() && !found.is_empty() {
        f.because(format!(
            "the footprint lies in phosphorus TMDL area {}",
            and_list(&found)
        ));
    }
    f.result.status = status;
    f
}

/// § 267-5D(2) and (1)(q): a post-construction component when the permit identifies the
/// need, when enhanced phosphorus design is required, or at the SMO's discretion.
fn post_construction(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    phosphorus: RequirementStatus,
) -> Finding<Requirement> {
    use RequirementStatus as S;
    let facts = cx.facts;
    let mut f = cx.requirement(
        RequirementKind::PostConstructionControls,
        S::DoesNotApply,
        &cx.profile.wording.expand("A post-construction component designed to the Design Manual, including green infrastructure, with items [1]-[11] of {§5D(2)(b)}: SMP maps with two-foot contours, an O&M plan naming the responsible entity, maintenance easements recorded on the plan and an inspection and maintenance agreement."),
        &[cx.id(POST)],
        &["AMB-13"],
    );
    let discretion = cx.profile.wording.expand("the SMO or Town Engineer may also require post-construction controls at their discretion ({§5D(1)(q)})");
    let status = match (outside, facts.gp.post_construction, phosphorus) {
        (Some(why), _, _) => {
            f.because(format!(
                "{} does not reach the project: {why}",
                cx.profile.wording.law
            ));
            S::DoesNotApply
        }
        (None, Some(true), _) => {
            f.because("the reviewer entered that the construction general permit identifies the project as needing post-construction SMPs (AMB-13)");
            S::Applies
        }
        (None, _, S::Applies | S::Indicated) => {
            f.cite(cx.profile, cx.id(PHOSPHORUS));
            f.because(cx.profile.wording.expand("enhanced phosphorus design is a post-construction component ({§5D(3)}); the construction general permit decides both (AMB-13)"));
            phosphorus
        }
        (None, Some(false), _) => {
            f.because(format!("the reviewer entered that the construction general permit does not identify a need for post-construction SMPs (AMB-13); {discretion}"));
            S::DoesNotApply
        }
        (None, None, _) => {
            f.because(format!("the construction general permit decides whether the project needs post-construction SMPs, and it was not entered (AMB-13); {discretion}"));
            cx.open("gp.post_construction");
            S::Depends
        }
    };
    f.result.status = status;
    f
}
