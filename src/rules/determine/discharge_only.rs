//! The illicit-discharge-only family, in the shape of Windsor, CT: the supplied text is an
//! illicit discharge and connection article only. The town's name and the section its
//! premises inspections cite come from the profile's `[wording]`.
//!
//! It has no land development activity, SWPPP or post-construction rules, so the answer is
//! "not covered". Its one area figure, 0.5 acre, defines construction activity, and
//! premises with stormwater discharges associated with construction activity are subject
//! to the Town Engineer's inspection and monitoring: that much the registry can say.

use std::sync::Arc;

use super::context::Ctx;
use super::{Determination, Finding, Requirement, RequirementKind, RequirementStatus};
use crate::rules::profile::Role;

const APPLICABILITY: Role = Role::Applicability;
const CONSTRUCTION: Role = Role::ConstructionThreshold;
const PREMISES: Role = Role::PremisesAccess;

pub(super) fn determine(cx: &mut Ctx<'_>) -> Determination {
    let coverage = &cx.profile.coverage;
    let no_rules = coverage.land_development.note.clone().unwrap_or_else(|| {
        "the supplied article has no land development activity, SWPPP or post-construction rules"
            .to_string()
    });

    let mut lda = cx.finding(Some(false), &[cx.id(APPLICABILITY)], &[]);
    lda.evidence = cx.area_evidence();
    lda.because(no_rules.clone());
    lda.because("the article applies to water entering the storm drainage system, not to land development as such");

    let mut exempt = cx.finding(Some(false), &[cx.id(APPLICABILITY)], &[]);
    exempt.because("the article has no land development exemptions, as it has no land development rules to be exempt from (the Town Engineer's power to exempt water entering the storm drainage system is a different matter)");

    let mut absent = cx.finding(true, &[cx.id(APPLICABILITY)], &[]);
    absent.because(
        coverage.conditions.note.clone().unwrap_or_else(|| {
            "no Conditions One, Two or Three in the supplied article".to_string()
        }),
    );

    let mut rules = cx.requirement(
        RequirementKind::LandDevelopmentRules,
        RequirementStatus::NotCovered,
        "No land development activity, SWPPP or post-construction rules in the supplied article.",
        &[cx.id(APPLICABILITY)],
        &[],
    );
    rules.because(no_rules);

    let premises = premises_inspection(cx);
    Determination {
        jurisdiction: cx.profile.id.clone(),
        land_development_activity: lda,
        exempt,
        conditions: None,
        conditions_absent: Some(absent),
        requirements: Arc::new(vec![rules, premises]),
        not_covered: !cx.profile.coverage.land_development.present,
        open_facts: std::mem::take(&mut cx.open_facts),
    }
}

/// CONSTRUCTION ACTIVITY (0.5 acre or more, or any activity under a construction or
/// erosion control permit) scopes the monitoring section's premises inspections.
fn premises_inspection(cx: &mut Ctx<'_>) -> Finding<Requirement> {
    use RequirementStatus as S;
    let mut f = cx.requirement(
        RequirementKind::PremisesInspection,
        S::DoesNotApply,
        &format!("Premises with stormwater discharges associated with construction activity are subject to the Town Engineer's inspection, sampling and monitoring powers ({}).", cx.profile.wording.section(PREMISES)),
        &[cx.id(CONSTRUCTION), cx.id(PREMISES)],
        &["AMB-10", "AMB-24"],
    );
    f.evidence = cx.area_evidence();
    let (by_area, reason) = cx.meets_or_not("construction_activity", "construction activity");
    f.because(reason);
    let status = match (by_area, cx.facts.construction_permit) {
        (true, _) => {
            f.because("construction activity: 'These include construction projects resulting in land disturbance of 0.5 acre or more'");
            S::Applies
        }
        (false, Some(true)) => {
            f.because(cx.profile.wording.expand("construction activity whatever its size: it is subject to an NPDES or CT DEP construction permit or a {town} erosion and sediment control permit"));
            S::Applies
        }
        (false, Some(false)) => {
            f.because("not construction activity: under 0.5 acre and under no construction or erosion control permit");
            S::DoesNotApply
        }
        (false, None) => {
            f.because(cx.profile.wording.expand("under 0.5 acre, it is still construction activity if it is subject to an NPDES or CT DEP construction permit or a {town} erosion and sediment control permit, which was not given"));
            cx.open("construction_permit");
            S::Depends
        }
    };
    f.result.status = status;
    f
}
