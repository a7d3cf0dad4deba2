//! What the Conditions family requires of a project: the SWPPP, the post-construction
//! controls where a Condition is met, inspections, the easement and agreement.

use super::*;

/// What follows from the Conditions.
pub(super) fn requirements(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    c: &Conditions,
) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
    let ConditionWords {
        met_rules,
        which,
        none_met,
    } = condition_words(cx, c);
    let profile = cx.profile;
    let cite_met = |f: &mut Finding<Requirement>| {
        for rule in &met_rules {
            f.cite(profile, rule);
        }
    };

    let w = &profile.wording;
    let mut swppp = cx.requirement(
        K::Swppp,
        if outside.is_none() { S::Applies } else { S::DoesNotApply },
        &format!("No application for approval may be reviewed until the appropriate board has received a SWPPP prepared to the {}'s specifications ({}).", w.law_short, w.section(SWPPP)),
        &[cx.id(SWPPP), cx.id(LDA)],
        &[],
    );
    swppp.because(match outside {
        None => "a non-exempt land development activity needs a SWPPP".to_string(),
        Some(why) => format!("no SWPPP is required under {}: {why}", w.law),
    });

    let any = c.any();
    let by_conditions = |met: Option<bool>| match met {
        Some(true) => S::Applies,
        Some(false) => S::DoesNotApply,
        None => S::Depends,
    };
    let mut post = cx.requirement(
        K::PostConstructionControls,
        by_conditions(any),
        &format!("The SWPPP must also include water quantity and water quality controls (post-construction stormwater runoff controls), items (2)-(9) of {}, among them maintenance easements recorded on the plan and an inspection and maintenance agreement.", w.section(POST)),
        &[cx.id(POST)],
        &["AMB-25"],
    );
    cite_met(&mut post);
    post.because(if any == Some(true) {
        format!("{which} met: such land development activities 'shall also include water quantity and water quality controls'")
    } else {
        none_met.clone()
    });

    let one = c.condition_one.result;
    let mut preparer = cx.requirement(
        K::ConditionOnePreparerCertification,
        by_conditions(one),
        &format!("For Condition One, the SWPPP must be prepared and signed by a landscape architect, certified professional or professional engineer, who certifies that the design of all stormwater management practices meets the {} ({}).", w.law_short, w.section(PREPARER)),
        &[cx.id(PREPARER), cx.id(C1)],
        &["AMB-16"],
    );
    preparer.because(format!("Condition One {}", met_words(one)));

    let schedule = cx.schedule(cx.id(INSPECTIONS));
    let when = if schedule.is_empty() {
        format!("as {} requires", w.section(INSPECTIONS))
    } else {
        describe_schedule(&schedule)
    };
    let mut inspections = cx.requirement(
        K::ConstructionInspections,
        by_conditions(any),
        &format!("A qualified professional inspects and documents the effectiveness of all erosion and sediment control practices {when}; reports are kept in a site logbook ({}).", w.section(INSPECTIONS)),
        &[cx.id(INSPECTIONS), cx.id(LOGBOOK)],
        &["AMB-15", "AMB-16"],
    );
    cite_met(&mut inspections);
    inspections.result.schedule = schedule;
    inspections.because(if any == Some(true) {
        format!("{which} met: {} applies to land development activities meeting Condition One, Two or Three", w.section(INSPECTIONS))
    } else {
        format!("{none_met}; {} applies only to those", w.section(INSPECTIONS))
    });

    let reach = Reach {
        outside,
        which: &which,
        any,
    };
    let easement = facility_duty(
        cx,
        K::MaintenanceEasement,
        &format!("Before any approval that has a stormwater management facility as a requirement, the applicant executes a maintenance easement binding on later landowners, recorded by the grantor with the {} after approval by {} ({}).", w.county_clerk, w.town_counsel, w.section(EASEMENT)),
        cx.id(EASEMENT),
        &format!("maintenance easements recorded on the plan ({})", w.easement_plan_item),
        &reach,
    );
    let agreement = facility_duty(
        cx,
        K::MaintenanceAgreement,
        &format!("Before final plan approval, the Town approves a formal maintenance agreement for the stormwater management facilities, binding on later landowners and recorded with the {} as a deed restriction; the Town may accept dedication instead ({}).", w.county_clerk, w.section(AGREEMENT)),
        cx.id(AGREEMENT),
        &format!("an inspection and maintenance agreement binding on later landowners ({})", w.agreement_plan_item),
        &reach,
    );
    let post_status = post.result.status;
    let mut all = vec![swppp, post, preparer, inspections, easement, agreement];
    all.extend(duties::every_project_duties(cx, outside, post_status));
    all
}

/// The Conditions in words: the rules of those met, their names as a list (empty when
/// none is), and what "none met" says (naming the undetermined ones).
struct ConditionWords<'a> {
    met_rules: Vec<&'a str>,
    which: String,
    none_met: String,
}

fn condition_words<'a>(cx: &Ctx<'a>, c: &Conditions) -> ConditionWords<'a> {
    let met: Vec<(&str, &str)> = [
        (c.condition_one.result, "Condition One", cx.id(C1)),
        (c.condition_two.result, "Condition Two", cx.id(C2)),
        (c.condition_three.result, "Condition Three", cx.id(C3)),
    ]
    .into_iter()
    .filter(|(m, _, _)| *m == Some(true))
    .map(|(_, name, rule)| (name, rule))
    .collect();
    let undetermined: Vec<&str> = [
        (c.condition_one.result, "Condition One"),
        (c.condition_two.result, "Condition Two"),
        (c.condition_three.result, "Condition Three"),
    ]
    .into_iter()
    .filter(|(m, _)| m.is_none())
    .map(|(_, name)| name)
    .collect();
    let names: Vec<&str> = met.iter().map(|(n, _)| *n).collect();
    let met_rules: Vec<&str> = met.iter().map(|(_, r)| *r).collect();
    let which = and_list(&names);
    let none_met = if undetermined.is_empty() {
        "none of Conditions One, Two and Three is met".to_string()
    } else {
        format!(
            "no Condition is met, and {} is undetermined: it depends on that",
            and_list(&undetermined)
        )
    };
    ConditionWords {
        met_rules,
        which,
        none_met,
    }
}

/// What a facility duty turns on: whether the law reaches the project (`outside` says why
/// not), the Conditions met in words (empty when none is), and whether any is.
#[derive(Clone, Copy)]
struct Reach<'a> {
    outside: Option<&'a str>,
    which: &'a str,
    any: Option<bool>,
}

/// The maintenance easement or agreement: due when the Conditions call for
/// post-construction practices, or when an approval requires a stormwater management
/// facility.
fn facility_duty(
    cx: &mut Ctx<'_>,
    kind: RequirementKind,
    summary: &str,
    rule: &str,
    item: &str,
    reach: &Reach<'_>,
) -> Finding<Requirement> {
    use RequirementStatus as S;
    let Reach {
        outside,
        which,
        any,
    } = *reach;
    let smf = cx.facts.requires_stormwater_management_facility;
    let status = match (outside, which.is_empty(), smf) {
        (Some(_), _, _) => S::DoesNotApply,
        (None, false, _) | (None, true, Some(true)) => S::Applies,
        (None, true, Some(false)) if any.is_none() => S::Depends,
        (None, true, Some(false)) => S::DoesNotApply,
        (None, true, None) => S::Depends,
    };
    let mut f = cx.requirement(kind, status, summary, &[rule], &["AMB-22"]);
    match (outside, which.is_empty(), smf) {
        (Some(why), _, _) => {
            f.because(format!(
                "{} does not reach the project: {why}",
                cx.profile.wording.law
            ));
        }
        (None, false, _) => {
            f.cite(cx.profile, cx.id(POST));
            f.because(format!(
                "{which} met: the post-construction controls include {item}"
            ));
        }
        (None, true, Some(true)) => {
            f.because(
                "an approval for the project has a stormwater management facility as a requirement",
            );
        }
        (None, true, Some(false)) if any.is_none() => {
            f.because("no approval for the project requires a stormwater management facility, but a Condition is undetermined, and if it is met the post-construction controls include this");
        }
        (None, true, Some(false)) => {
            f.because("no Condition is met and no approval for the project requires a stormwater management facility");
        }
        (None, true, None) => {
            f.because("no Condition is met; it is still due if an approval for the project has a stormwater management facility as a requirement, which was not given");
            cx.open("requires_stormwater_management_facility");
        }
    }
    f
}
