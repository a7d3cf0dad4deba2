//! North Castle, NY: Chapter 267, Part 1 (stormwater management and erosion control).
//!
//! A land development activity (5,000 sq ft of soil disturbance, routine maintenance
//! excluded) that is not exempt needs a SWPPP; from one acre a qualified inspector inspects
//! every seven calendar days (§ 267-7A(5)). There are no Conditions: post-construction and
//! enhanced phosphorus design follow the SPDES construction general permit, which the
//! chapter incorporates but the registry does not encode (AMB-13). So the registry reports
//! what the evidence indicates (e.g. a phosphorus TMDL area under the footprint) and takes
//! the permit's outcome from a reviewer's entry when there is one.

use super::context::{
    and_list, describe_schedule, is_phosphorus, overlap_words, tmdl_evidence, water_evidence, Ctx,
};
use super::{Determination, Finding, Requirement, RequirementKind, RequirementStatus, TmdlOverlap};

const LDA: &str = "northcastle.lda.applicability";
const EXEMPTIONS: &str = "northcastle.lda.exemptions";
const GRANDFATHERING: &str = "northcastle.lda.grandfathering";
const PLAN: &str = "northcastle.lda.larger_common_plan";
const GP: &str = "northcastle.gp_coverage_indicator";
const SWPPP: &str = "northcastle.swppp.required";
const POST: &str = "northcastle.swppp.post_construction";
const PHOSPHORUS: &str = "northcastle.swppp.enhanced_phosphorus";
const ABSENT: &str = "northcastle.conditions.absent";
const SPECIAL: &str = "northcastle.def.special_conditions";
const INSPECTOR: &str = "northcastle.construction.qualified_inspector_7day";
const EASEMENT: &str = "northcastle.maintenance_easement";
const AGREEMENT: &str = "northcastle.maintenance_agreement";

/// Exemptions of § 267-3D and exclusions of § 267-3C that no fact decides.
const NOT_EVALUATED: &[&str] = &[
    "repairs to a stormwater management practice or facility deemed necessary by the SMO",
    "a subdivision whose plat the Town approved on or before the chapter's effective date",
    "a building permit approved on or before the chapter's effective date",
    "cemetery graves",
    "installation of fences, signs, telephone and electric poles and other posts or poles",
    "emergency activity immediately necessary to protect life, property or natural resources",
    "home gardening",
    "landscaping and horticultural activities in connection with an existing structure",
    "a project physically completed before the chapter's effective date (§ 267-3C(5))",
];

pub(super) fn determine(cx: &mut Ctx<'_>) -> Determination {
    let lda = land_development_activity(cx);
    let exempt = exemptions(cx);
    let outside = if !lda.result {
        Some("it is not a land development activity")
    } else if exempt.result {
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
        requirements,
        not_covered: !cx.profile.coverage.land_development.present,
        open_facts: std::mem::take(&mut cx.open_facts),
    }
}

/// § 267-4B LAND DEVELOPMENT ACTIVITY: 5,000 sq ft of soil disturbance, not routine
/// maintenance. The larger common plan plays no part in it.
fn land_development_activity(cx: &mut Ctx<'_>) -> Finding<bool> {
    let facts = cx.facts;
    let mut f = cx.finding(false, &[LDA], &["AMB-10"]);
    f.evidence = cx.area_evidence();
    let (by_area, reason) =
        cx.meets_or_not("land_development_activity", "land development activity");
    f.because(reason);
    let mut result = by_area;
    if facts.routine_maintenance {
        result = false;
        f.because("'land development activity does not include routine maintenance that is performed to maintain the original line and grade, hydraulic capacity or original purpose of a facility' (no size limit in North Castle)");
    }
    if facts.larger_common_plan {
        f.cite(cx.profile, PLAN);
        f.assume(cx.profile, "AMB-12");
        f.because("part of a larger common plan: North Castle's definition of land development activity does not use the term, so the 5,000 sq ft test stands; the plan matters only for the construction general permit");
    }
    f.result = result;
    f
}

/// § 267-3D, as far as the facts decide it (they decide none: the facts carry no
/// exemption North Castle has).
fn exemptions(cx: &mut Ctx<'_>) -> Finding<bool> {
    let facts = cx.facts;
    let mut f = cx.finding(false, &[EXEMPTIONS, GRANDFATHERING], &["AMB-14"]);
    if facts.agricultural_activity {
        f.because("agricultural activity is not exempt in North Castle: § 267-3D has no agricultural or silvicultural exemption");
    }
    if facts.routine_maintenance {
        f.because("routine maintenance is excluded from the definition of land development activity rather than exempted; see land_development_activity");
    }
    f.because("no exemption that the facts decide applies");
    f.because(format!(
        "not evaluated, for want of facts: {}",
        NOT_EVALUATED.join("; ")
    ));
    f
}

/// North Castle has no Conditions One, Two or Three.
fn conditions_absent(cx: &mut Ctx<'_>) -> Finding<bool> {
    let water = cx.water;
    let mut f = cx.finding(true, &[ABSENT], &["AMB-13"]);
    f.because(
        cx.profile
            .coverage
            .conditions
            .note
            .clone()
            .unwrap_or_else(|| "Chapter 267 has no Conditions One, Two or Three".to_string()),
    );
    if !water.waters_303d.is_empty() || !water.tmdl_areas.is_empty() {
        f.cite(cx.profile, SPECIAL);
        f.because("in North Castle 303(d) and TMDL language appears only in the MS4-level SPECIAL CONDITION definitions, which bind the Town's program, not a project; the TMDL areas bear on the enhanced phosphorus indicator");
        f.evidence
            .extend(water.waters_303d.iter().map(water_evidence));
        f.evidence
            .extend(water.tmdl_areas.iter().flat_map(tmdl_evidence));
    }
    f
}

fn requirements(cx: &mut Ctx<'_>, outside: Option<&str>) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let inside = outside.is_none();
    let not_reached = |why: &str| format!("Chapter 267 does not reach the project: {why}");

    let mut swppp = cx.requirement(
        K::Swppp,
        if inside { S::Applies } else { S::DoesNotApply },
        "No application for approval may be reviewed until the SMO or the appropriate board has received a SWPPP prepared by a qualified professional to the chapter's specifications (§ 267-5A-D).",
        &[SWPPP, LDA],
        &[],
    );
    swppp.because(match outside {
        None => "a non-exempt land development activity needs a SWPPP".to_string(),
        Some(why) => not_reached(why),
    });

    let gp = general_permit(cx, outside);

    let (one_acre, reason) = cx.meets_or_not("qualified_inspector", "qualified inspector");
    let schedule = cx.schedule(INSPECTOR);
    let when = if schedule.is_empty() {
        "as § 267-7A(5) requires".to_string()
    } else {
        describe_schedule(&schedule)
    };
    let mut inspections = cx.requirement(
        K::ConstructionInspections,
        if inside && one_acre { S::Applies } else { S::DoesNotApply },
        &format!("A qualified inspector conducts site inspections and documents the effectiveness of all erosion and sediment control practices {when}; reports are kept on site and furnished to the SMO on request (§ 267-7A(5)). The chapter states no storm-event trigger."),
        &[INSPECTOR],
        &["AMB-10", "AMB-13", "AMB-15"],
    );
    inspections.result.schedule = schedule;
    inspections.evidence = cx.area_evidence();
    match outside {
        Some(why) => inspections.because(not_reached(why)),
        None => inspections.because(reason),
    };

    let phosphorus = enhanced_phosphorus(cx, outside);
    let post = post_construction(cx, outside, phosphorus.result.status);
    let post_status = post.result.status;
    let easement = facility_duty(
        cx,
        K::MaintenanceEasement,
        "Before any approval that has a stormwater management facility as a requirement, the applicant executes a maintenance easement binding on later landowners, recorded by the grantor with the County Clerk after approval by the Town Attorney (§ 267-7B).",
        EASEMENT,
        "maintenance easements recorded on the plan (§ 267-5D(2)(b)[10])",
        outside,
        post_status,
    );
    let agreement = facility_duty(
        cx,
        K::MaintenanceAgreement,
        "Before final plan approval, the Town approves a formal maintenance agreement for the stormwater management facilities, binding on later landowners and recorded with the County Clerk as a deed restriction; the Town may accept dedication instead (§ 267-7D).",
        AGREEMENT,
        "an inspection and maintenance agreement (§ 267-5D(2)(b)[11])",
        outside,
        post_status,
    );
    vec![
        swppp,
        gp,
        inspections,
        post,
        phosphorus,
        easement,
        agreement,
    ]
}

/// § 267-5A and the GP definition: coverage is indicated at one acre, or at 5,000 sq ft
/// in the NYC East of Hudson Watershed.
fn general_permit(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Requirement> {
    use RequirementStatus as S;
    let facts = cx.facts;
    let mut f = cx.requirement(
        RequirementKind::ConstructionGeneralPermit,
        S::DoesNotApply,
        "For projects also requiring coverage under the SPDES General Permit for Construction Activities, the application must include all related NYSDEC forms and certifications (§ 267-5A), and the permit's certifications become part of the SWPPP (§ 267-5F(1)).",
        &[GP],
        &["AMB-10", "AMB-13"],
    );
    f.evidence = cx.area_evidence();
    if facts.larger_common_plan {
        f.cite(cx.profile, PLAN);
        f.assume(cx.profile, "AMB-12");
    }
    let plan_note = "part of a larger common plan: the permit counts the plan's total disturbance, though discrete projects at least 1/4 mile apart may be treated separately when no interconnecting road, pipeline or utility of the plan is disturbed at the same time";
    if let Some(why) = outside {
        f.because(format!("Chapter 267 does not reach the project: {why}"));
        if facts.larger_common_plan {
            f.because(format!("{plan_note}; the state permit may still apply through the plan, outside Chapter 267"));
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
    if status != S::Indicated && facts.larger_common_plan {
        status = S::Depends;
        f.because(plan_note);
        cx.open("larger common plan: total disturbance of the plan and separation from its other projects");
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
        "Post-construction stormwater management practices designed to the Enhanced Phosphorus Removal Standards of the Design Manual, with at least SWPPP items D(2)(b)[1]-[11] (§ 267-5D(3)).",
        &[PHOSPHORUS],
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
            f.because(format!("Chapter 267 does not reach the project: {why}"));
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
        (None, None) => {
            f.because("no phosphorus TMDL area overlaps the footprint, on the evidence given; the construction general permit still decides (AMB-13)");
            S::DoesNotApply
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
        "A post-construction component designed to the Design Manual, including green infrastructure, with items [1]-[11] of § 267-5D(2)(b): SMP maps with two-foot contours, an O&M plan naming the responsible entity, maintenance easements recorded on the plan and an inspection and maintenance agreement.",
        &[POST],
        &["AMB-13"],
    );
    let discretion = "the SMO or Town Engineer may also require post-construction controls at their discretion (§ 267-5D(1)(q))";
    let status = match (outside, facts.gp.post_construction, phosphorus) {
        (Some(why), _, _) => {
            f.because(format!("Chapter 267 does not reach the project: {why}"));
            S::DoesNotApply
        }
        (None, Some(true), _) => {
            f.because("the reviewer entered that the construction general permit identifies the project as needing post-construction SMPs (AMB-13)");
            S::Applies
        }
        (None, _, S::Applies) | (None, _, S::Indicated) => {
            f.cite(cx.profile, PHOSPHORUS);
            f.because("enhanced phosphorus design is a post-construction component (§ 267-5D(3)); the construction general permit decides both (AMB-13)");
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

/// The maintenance easement or agreement: due when the post-construction component is
/// (its items [10] and [11]), or when an approval requires a stormwater management
/// facility.
fn facility_duty(
    cx: &mut Ctx<'_>,
    kind: RequirementKind,
    summary: &str,
    rule: &str,
    item: &str,
    outside: Option<&str>,
    post: RequirementStatus,
) -> Finding<Requirement> {
    use RequirementStatus as S;
    let smf = cx.facts.requires_stormwater_management_facility;
    let mut f = cx.requirement(kind, S::DoesNotApply, summary, &[rule], &["AMB-22"]);
    let status = match (outside, smf, post) {
        (Some(why), _, _) => {
            f.because(format!("Chapter 267 does not reach the project: {why}"));
            S::DoesNotApply
        }
        (None, Some(true), _) => {
            f.because(
                "an approval for the project has a stormwater management facility as a requirement",
            );
            S::Applies
        }
        (None, _, S::Applies) | (None, _, S::Indicated) => {
            f.cite(cx.profile, POST);
            f.because(format!("the post-construction component includes {item}"));
            post
        }
        (None, Some(false), _) => {
            f.because("no approval for the project requires a stormwater management facility, and no post-construction component is required");
            S::DoesNotApply
        }
        (None, None, _) => {
            f.because("due if an approval for the project has a stormwater management facility as a requirement, which was not given");
            cx.open("requires_stormwater_management_facility");
            S::Depends
        }
    };
    f.result.status = status;
    f
}
