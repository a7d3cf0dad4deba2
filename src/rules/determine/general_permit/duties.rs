//! What the general-permit family requires of a project: the SWPPP and the duties every
//! project under the law carries, and the duties of a facility built under it.

use super::*;

pub(super) fn requirements(cx: &mut Ctx<'_>, outside: Option<&str>) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let inside = outside.is_none();
    let not_reached = |why: &str| {
        format!(
            "{} does not reach the project: {why}",
            cx.profile.wording.law
        )
    };

    let mut swppp = cx.requirement(
        K::Swppp,
        if inside { S::Applies } else { S::DoesNotApply },
        &cx.profile.wording.expand("No application for approval may be reviewed until the SMO or the appropriate board has received a SWPPP prepared by a qualified professional to the chapter's specifications ({§5A-D})."),
        &[cx.id(SWPPP), cx.id(LDA)],
        &[],
    );
    swppp.because(match outside {
        None => "a non-exempt land development activity needs a SWPPP".to_string(),
        Some(why) => not_reached(why),
    });

    let gp = general_permit(cx, outside);

    let inspections = construction_inspections(cx, outside);

    let phosphorus = enhanced_phosphorus(cx, outside);
    let post = post_construction(cx, outside, phosphorus.result.status);
    let post_status = post.result.status;
    let easement_summary = cx.profile.wording.expand("Before any approval that has a stormwater management facility as a requirement, the applicant executes a maintenance easement binding on later landowners, recorded by the grantor with the County Clerk after approval by the Town Attorney ({§7B}).");
    let easement_plan_item = cx
        .profile
        .wording
        .expand("maintenance easements recorded on the plan ({§5D(2)(b)[10]})");
    let easement = facility_duty(
        cx,
        K::MaintenanceEasement,
        &easement_summary,
        cx.id(EASEMENT),
        &easement_plan_item,
        outside,
        post_status,
    );
    let agreement_summary = cx.profile.wording.expand("Before final plan approval, the Town approves a formal maintenance agreement for the stormwater management facilities, binding on later landowners and recorded with the County Clerk as a deed restriction; the Town may accept dedication instead ({§7D}).");
    let agreement_plan_item = cx
        .profile
        .wording
        .expand("an inspection and maintenance agreement ({§5D(2)(b)[11]})");
    let agreement = facility_duty(
        cx,
        K::MaintenanceAgreement,
        &agreement_summary,
        cx.id(AGREEMENT),
        &agreement_plan_item,
        outside,
        post_status,
    );
    let mut all = vec![
        swppp,
        gp,
        inspections,
        post,
        phosphorus,
        easement,
        agreement,
    ];
    all.extend(every_project_duties(cx, outside, post_status));
    all
}

/// The qualified inspector's site inspections: due from one acre, and below it when the
/// project needs permit coverage (the permit's inspections then apply).
fn construction_inspections(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Requirement> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let inside = outside.is_none();
    let not_reached = |why: &str| {
        format!(
            "{} does not reach the project: {why}",
            cx.profile.wording.law
        )
    };
    let (one_acre, reason) = cx.meets_or_not("qualified_inspector", "qualified inspector");
    let schedule = cx.schedule(cx.id(INSPECTOR));
    let when = if schedule.is_empty() {
        cx.profile.wording.expand("as {§7A(5)} requires")
    } else {
        describe_schedule(&schedule)
    };
    let gp_coverage = cx.facts.gp.coverage;
    let inspections_status = match (inside, one_acre, gp_coverage) {
        (false, _, _) => S::DoesNotApply,
        (true, true, _) | (true, false, Some(true)) => S::Applies,
        (true, false, Some(false)) => S::DoesNotApply,
        (true, false, None) => S::Depends,
    };
    let mut inspections = cx.requirement(
        K::ConstructionInspections,
        inspections_status,
        &cx.profile.wording.expand(&format!("A qualified inspector conducts site inspections and documents the effectiveness of all erosion and sediment control practices {when}; reports are kept on site and furnished to the SMO on request ({{§7A(5)}}). The chapter states no storm-event trigger.")),
        &[cx.id(INSPECTOR)],
        &["AMB-10", "AMB-13", "AMB-15"],
    );
    inspections.result.schedule = schedule;
    inspections.evidence = cx.area_evidence();
    match outside {
        Some(why) => {
            inspections.because(not_reached(why));
        }
        None => {
            inspections.because(reason);
            if !one_acre {
                inspections.cite(cx.profile, cx.id(GP_INSPECTIONS));
                inspections.because(match gp_coverage {
                    Some(true) => cx.profile.wording.expand("under one acre the chapter's seven-day inspections do not apply, but 'inspection requirements shall be as specified within the SPDES General Permit' ({§7A(1)}), and the reviewer entered that the project needs permit coverage"),
                    Some(false) => cx.profile.wording.expand("under one acre, and the reviewer entered that the project needs no construction general permit coverage, so neither {§7A(5)} nor the permit's inspections ({§7A(1)}) apply"),
                    None => cx.profile.wording.expand("under one acre the chapter's seven-day inspections do not apply, but the permit's inspections do if the project needs permit coverage ({§7A(1)}), which was not entered"),
                });
                if gp_coverage.is_none() {
                    cx.open("gp.coverage");
                }
            }
        }
    }

    inspections
}

/// The duties of Chapter 267 that bind every land development activity it reaches, and
/// those that follow the site's practices.
fn every_project_duties(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    post: RequirementStatus,
) -> Vec<Finding<Requirement>> {
    let law = cx.profile.wording.law.clone();
    use RequirementKind as K;
    use RequirementStatus as S;
    let mut out = construction_duties(cx, outside, &law);
    out.extend(practice_duties(cx, outside, post, &law));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::Fees,
            summary: "The Town may require reasonable costs at prevailing rates for review of SWPPPs, inspections or SMP maintenance performed by or for the Town, in the amounts of the Master Fee Schedule.",
            rules: &[cx.id(FEES)],
            ambs: &[],
            inside: S::MayBeRequired,
            why_inside: &cx.profile.wording.expand("'may require any person undertaking land development activities regulated by {law} ... to pay reasonable costs'"),
        },
        outside,
        &law,
    ));
    out
}

/// The duties of the construction itself: a trained contractor on site, the disturbance
/// at one time, certifications, the SWPPP on site, other permits, milestone notices,
/// stopping after a violation, sediment removal.
fn construction_duties(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    law: &str,
) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let every = "binds every non-exempt land development activity, whatever its size";
    let mut out = vec![cx.every_project_duty(
        Duty {
            kind: K::TrainedContractorOnSite,
            summary: &cx.profile.wording.expand("Each contractor and subcontractor names a trained contractor responsible for the SWPPP, and at least one trained contractor is on site daily when soil disturbance is performed; the applicant inspects the erosion and sediment controls ({§7A(4)})."),
            rules: &[cx.id(TRAINED)],
            ambs: &[],
            inside: S::Applies,
            why_inside: every,
        },
        outside,
        law,
    )];
    let summary = cx.profile.wording.expand("Not more than five acres are disturbed at any one time unless a greater amount is determined necessary pursuant to an approved SWPPP ({§5D(1)(d)}).");
    out.push(cx.disturbance_at_one_time(
        &summary,
        "the construction phasing plan must keep the area disturbed at once to five acres, unless the approved SWPPP allows more",
        outside,
        law,
        every,
    ));
    for (kind, summary, rules, status, why) in [
        (
            K::ContractorCertification,
            cx.profile.wording.expand("The construction general permit's certifications are incorporated into the SWPPP, and each contractor and subcontractor who installs, builds, repairs, inspects or maintains the SWPPP's practices signs and dates the certification statement before any land development activity ({§5F})."),
            &[cx.id(CONTRACTORS), cx.id(CONTRACTOR_RECORDS)][..],
            S::Applies,
            every,
        ),
        (
            K::SwpppOnSite,
            cx.profile.wording.expand("A copy of the SWPPP is kept at the site from the start of construction to final stabilization ({§5G})."),
            &[cx.id(SWPPP_ON_SITE)][..],
            S::Applies,
            every,
        ),
        (
            K::OtherPermits,
            cx.profile.wording.expand("All other applicable environmental permits have been or will be acquired before approval of the final stormwater design plan ({§5E})."),
            &[cx.id(OTHER_PERMITS)][..],
            S::Applies,
            every,
        ),
        (
            K::MilestoneNotices,
            "The applicant notifies the Building Department at least 48 hours before each milestone the SMO requires: start of construction, erosion controls installed, site clearing, rough and final grading, close of season, final landscaping, landscaping established in public areas.".to_string(),
            &[cx.id(NOTICE_48H)][..],
            S::MayBeRequired,
            "the SMO decides which milestone inspections it requires ('as required by the Stormwater Management Officer')",
        ),
        (
            K::StabilizationOnlyAfterViolation,
            "If an inspection finds a violation, the applicant and developer are notified in writing, and no further land development activity except site stabilization is done until it is corrected and the work approved.".to_string(),
            &[cx.id(VIOLATION_HALT)][..],
            S::Applies,
            every,
        ),
        (
            K::SedimentRemoval,
            cx.profile.wording.expand("During construction the applicant operates and maintains all controls, and removes sediment from sediment traps and ponds whenever their design capacity is reduced by 50% ({§7A(2)})."),
            &[cx.id(GP_INSPECTIONS)][..],
            S::Applies,
            every,
        ),
    ] {
        let ambs: &[&str] = if kind == K::SedimentRemoval {
            &["AMB-27"]
        } else {
            &[]
        };
        out.push(cx.every_project_duty(
            Duty {
                kind,
                summary: &summary,
                rules,
                ambs,
                inside: status,
                why_inside: why,
            },
            outside,
            law,
        ));
    }
    out
}

/// The duties that follow the site's stormwater management practices: as-built plans, PE
/// inspections of structural practices, operation and maintenance.
fn practice_duties(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    post: RequirementStatus,
    law: &str,
) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let mut out = Vec::new();
    let facility = cx.facts.requires_stormwater_management_facility;
    let status = practice_status(outside, post, facility);
    for (kind, summary, rule) in [
        (
            K::AsBuiltPlans,
            "After final construction, as-built plans of every stormwater management practice on site, showing the final design specifications and certified by a professional engineer.",
            cx.id(AS_BUILT),
        ),
        (
            K::StructuralPracticeInspections,
            &cx.profile.wording.expand("Inspections of any post-construction stormwater management practice with structural components are performed by a New York State licensed professional engineer ({§7A(6)})."),
            cx.id(PE_INSPECTION),
        ),
        (
            K::OperationAndMaintenance,
            &cx.profile.wording.expand("The owner or operator of permanent practices keeps them operating: a preventive/corrective maintenance program, written O&M procedures with training of new personnel, and discharges within design criteria ({§7C(1)}-(3))."),
            cx.id(OM),
        ),
    ] {
        let mut f = cx.requirement(kind, status, summary, &[rule], &["AMB-13"]);
        f.because(practice_reason(status, outside, law));
        if status == S::Depends && facility.is_none() {
            cx.open("requires_stormwater_management_facility");
        }
        out.push(f);
    }
    out
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
            f.because(format!(
                "{} does not reach the project: {why}",
                cx.profile.wording.law
            ));
            S::DoesNotApply
        }
        (None, Some(true), _) => {
            f.because(
                "an approval for the project has a stormwater management facility as a requirement",
            );
            S::Applies
        }
        (None, _, S::Applies | S::Indicated) => {
            f.cite(cx.profile, cx.id(POST));
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
