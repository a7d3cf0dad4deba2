//! Article X's duties that bind every land development activity it reaches, whatever
//! its size or Conditions (§§ 156-81B(4), F, G; 156-83C–F; 156-89), and those that follow
//! the site's practices.

use super::*;

/// The duties of Article X that bind every land development activity it reaches, not
/// only those meeting a Condition, and those that follow the site's practices.
pub(super) fn every_project_duties(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    post: RequirementStatus,
) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    // The law's own name, as the reasons of a duty outside it name it.
    let law = cx.profile.wording.law.clone();
    let mut out = construction_duties(cx, outside, &law);
    out.extend(practice_duties(cx, outside, post, &law));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::Fees,
            summary: &format!("The Town may require reasonable costs at prevailing rates for review of SWPPPs, inspections or SMP maintenance performed by or for the Town ({}).", cx.profile.wording.section(FEES)),
            rules: &[cx.id(FEES)],
            ambs: &[],
            inside: S::MayBeRequired,
            why_inside: "'may require any person undertaking land development activities regulated by this article to pay reasonable costs'",
        },
        outside,
        &law,
    ));
    out
}

/// The duties of the construction itself: someone on site, the disturbance at one time,
/// contractors' certifications, the SWPPP on site, other permits, milestone notices,
/// stopping after a violation, sediment removal.
fn construction_duties(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    law: &str,
) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let every = "binds every non-exempt land development activity, whatever its size or Conditions";
    let mut out = vec![
        cx.every_project_duty(
            Duty {
                kind: K::ApplicantOnSite,
                summary: &format!("The applicant or developer or their representative is on site at all times when construction or grading activity takes place, and inspects and documents the effectiveness of all erosion and sediment control practices ({}).", cx.profile.wording.section(ON_SITE)),
                rules: &[cx.id(ON_SITE)],
                ambs: &[],
                inside: S::Applies,
                why_inside: every,
            },
            outside,
            law,
        ),
    ];
    let summary = format!("Not more than five acres are disturbed at any one time unless pursuant to an approved SWPPP ({}).", cx.profile.wording.section(AT_ONE_TIME));
    out.push(cx.disturbance_at_one_time(
        &summary,
        "the project must be phased so that no more than five acres are disturbed at once, unless the approved SWPPP allows more",
        outside,
        law,
        every,
    ));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::ContractorCertification,
            summary: &format!("Each contractor and subcontractor named in the SWPPP who installs soil or stormwater management practices signs and dates the certification statement before any land development activity; the statements become part of the SWPPP ({}).", cx.profile.wording.section(CONTRACTORS)),
            rules: &[cx.id(CONTRACTORS), cx.id(CONTRACTOR_RECORDS)],
            ambs: &[],
            inside: S::Applies,
            why_inside: every,
        },
        outside,
        law,
    ));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::SwpppOnSite,
            summary: &format!("A copy of the SWPPP is kept at the site from the start of construction to final stabilization ({}).", cx.profile.wording.section(SWPPP_ON_SITE)),
            rules: &[cx.id(SWPPP_ON_SITE)],
            ambs: &[],
            inside: S::Applies,
            why_inside: every,
        },
        outside,
        law,
    ));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::OtherPermits,
            summary: &format!("All other applicable environmental permits have been or will be acquired before approval of the final stormwater design plan ({}).", cx.profile.wording.section(OTHER_PERMITS)),
            rules: &[cx.id(OTHER_PERMITS)],
            ambs: &[],
            inside: S::Applies,
            why_inside: every,
        },
        outside,
        law,
    ));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::MilestoneNotices,
            summary: &format!("The applicant notifies the Town's enforcement official at least 48 hours before each milestone the SMO requires: start of construction, erosion controls installed, site clearing, rough and final grading, close of season, final landscaping, landscaping established in public areas ({}).", cx.profile.wording.section(NOTICE_48H)),
            rules: &[cx.id(NOTICE_48H)],
            ambs: &[],
            inside: S::MayBeRequired,
            why_inside: "the SMO decides which milestone inspections it requires ('as required by the Stormwater Management Officer')",
        },
        outside,
        law,
    ));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::StabilizationOnlyAfterViolation,
            summary: &format!("If an inspection finds a violation, the applicant and developer are notified in writing, and no further work except site stabilization is done until it is corrected and the work approved ({}).", cx.profile.wording.section(VIOLATION_HALT)),
            rules: &[cx.id(VIOLATION_HALT)],
            ambs: &[],
            inside: S::Applies,
            why_inside: every,
        },
        outside,
        law,
    ));
    out.push(cx.every_project_duty(
        Duty {
            kind: K::SedimentRemoval,
            summary: &format!("During construction the applicant operates and maintains all controls, and removes sediment from sediment traps and ponds whenever their design capacity is reduced by 50% ({}).", cx.profile.wording.section(OPERATE)),
            rules: &[cx.id(OPERATE)],
            ambs: &["AMB-27"],
            inside: S::Applies,
            why_inside: every,
        },
        outside,
        law,
    ));
    out
}

/// The duties that follow the site's stormwater management practices: as-built plans and
/// operation and maintenance.
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
            &format!("After final construction, as-built plans of every stormwater management practice on site, showing the final design specifications and certified by a professional engineer ({}).", cx.profile.wording.section(AS_BUILT)),
            cx.id(AS_BUILT),
        ),
        (
            K::OperationAndMaintenance,
            &format!("After construction the owner or operator of permanent practices keeps them operating: a preventive/corrective maintenance program and written operation and maintenance procedures, with training of new personnel ({}).", cx.profile.wording.section(OM)),
            cx.id(OM),
        ),
    ] {
        let mut f = cx.requirement(kind, status, summary, &[rule], &[]);
        f.because(practice_reason(status, outside, law));
        if status == S::Depends && facility.is_none() {
            cx.open("requires_stormwater_management_facility");
        }
        out.push(f);
    }
    out
}
