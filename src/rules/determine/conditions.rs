//! Carmel, NY: Zoning Code ch. 156, Article X (§§ 156-80 to 156-89).
//!
//! A land development activity (5,000 sq ft, or any activity under one acre that is part
//! of a larger common plan) that is not exempt needs a SWPPP; if it meets Condition One,
//! Two or Three (§ 156-81C) it also needs post-construction controls, inspections every
//! seven days and within 24 hours of a 0.5-inch storm (§ 156-83B), and a maintenance
//! easement and agreement (§§ 156-85, 156-86).

use super::context::{
    and_list, describe_schedule, is_sediment_class, met_words, overlap_words, practice_reason,
    practice_status, tmdl_evidence, water_evidence, Ctx, DateTest,
};
use super::{Conditions, Determination, Finding, Requirement, RequirementKind, RequirementStatus};
use crate::rules::finding::Evidence;
use crate::rules::profile::{LargerCommonPlan, PollutantOfConcern, Role, StormwaterSourceScope};

mod duties;

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
fn outside_reason(cx: &Ctx<'_>, lda: &Finding<bool>, exempt: &Finding<bool>) -> Option<String> {
    if !lda.result {
        Some("it is not a land development activity".to_string())
    } else if exempt.result {
        Some(format!(
            "it is an exempt activity ({} reviews land development activities 'except exempt activities')",
            cx.profile.wording.section(EXEMPTIONS)
        ))
    } else {
        None
    }
}

/// Why Article X does not reach a project of these facts, if it does not; decided once
/// for screening many parcels, since it turns on the project's facts and not on the place.
pub(super) fn outside(cx: &mut Ctx<'_>) -> Option<String> {
    let lda = land_development_activity(cx);
    let exempt = exemptions(cx);
    outside_reason(cx, &lda, &exempt)
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
    let requirements = requirements(cx, outside, &conditions);
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
/// larger common plan.
fn land_development_activity(cx: &mut Ctx<'_>) -> Finding<bool> {
    let mut f = cx.finding(false, &[cx.id(LDA)], &["AMB-10"]);
    f.evidence = cx.area_evidence();
    let (by_area, reason) =
        cx.meets_or_not("land_development_activity", "land development activity");
    f.because(reason);
    let mut result = by_area;
    if cx.facts.larger_common_plan {
        f.assume(cx.profile, "AMB-12");
        let (under, reason) = cx.meets_or_not("larger_common_plan", "larger common plan clause");
        f.because(format!(
            "part of a larger common plan of development or sale; {reason}"
        ));
        if under {
            match cx.profile.reading::<LargerCommonPlan>() {
                LargerCommonPlan::Literal => {
                    result = true;
                    f.because(
                        "an activity disturbing less than one acre that is part of a larger common plan is a land development activity; the definition states no minimum size (AMB-12, literal reading)",
                    );
                    if !by_area {
                        f.because(
                            "warning: this makes even an activity under 5,000 sq ft a land development activity, because it belongs to a larger common plan",
                        );
                    }
                }
                other => {
                    // Any other reading tests the plan's total disturbance, which the
                    // facts do not carry.
                    f.because(format!(
                        "the profile reads the larger-common-plan clause as {:?} (AMB-12), which turns on the plan's total disturbance; that was not given",
                        other.as_str()
                    ));
                    if !by_area {
                        cx.open("larger common plan: total disturbance of the plan");
                    }
                }
            }
        }
    } else if !by_area {
        f.because("not part of a larger common plan of development or sale");
    }
    f.result = result;
    f
}

/// § 156-80 EXEMPT ACTIVITIES, as far as the facts decide them; every exemption whose
/// fact was not given is listed as not evaluated.
fn exemptions(cx: &mut Ctx<'_>) -> Finding<bool> {
    let facts = cx.facts;
    let mut f = cx.finding(false, &[cx.id(EXEMPTIONS)], &[]);
    let mut exempt = false;
    let mut not_evaluated: Vec<&str> = Vec::new();
    match facts.agricultural_activity {
        Some(true) => {
            exempt = true;
            f.because(format!("agricultural activity is exempt from review ({}: 'agricultural activity as defined herein')", cx.profile.wording.definitions));
        }
        Some(false) => {
            f.because("given: the activity is not agricultural activity");
        }
        None => not_evaluated.push("agricultural activity"),
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
            not_evaluated.push("silvicultural activity (except landing areas and log haul roads)")
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
            "routine maintenance under five acres to the original line and grade, hydraulic capacity or purpose of a facility",
        ),
    }
    match cx.date_exemption(
        &mut f,
        "the subdivision plat (signed by the Planning Board)",
        facts.plat_approved_on,
    ) {
        DateTest::Exempt => exempt = true,
        DateTest::NotGiven => not_evaluated.push(
            "a subdivision whose plat the Planning Board approved (signed) on or before December 17, 2008",
        ),
        DateTest::After | DateTest::Unconfirmed => {}
    }
    match cx.date_exemption(
        &mut f,
        "the building permit",
        facts.building_permit_approved_on,
    ) {
        DateTest::Exempt => exempt = true,
        DateTest::NotGiven => {
            not_evaluated.push("a building permit approved on or before December 17, 2008")
        }
        DateTest::After | DateTest::Unconfirmed => {}
    }
    if !exempt {
        f.because("no exemption that the facts decide applies");
    }
    not_evaluated.extend_from_slice(NOT_EVALUATED);
    f.because(format!(
        "not evaluated, for want of facts: {}",
        not_evaluated.join("; ")
    ));
    f.result = exempt;
    f
}

/// Closes a Condition finding: outside Article X nothing is met, whatever the evidence.
fn close(f: &mut Finding<Option<bool>>, met: Option<bool>, outside: Option<&str>, name: &str) {
    match outside {
        Some(why) if met != Some(false) => {
            f.because(format!(
                "whatever the evidence says of {name}, {name} covers only non-exempt land development activities, and {why}"
            ));
            f.result = Some(false);
        }
        Some(why) => {
            f.because(format!(
                "{name} covers only non-exempt land development activities, and {why}"
            ));
            f.result = Some(false);
        }
        None => f.result = met,
    }
}

/// § 156-81C(1): runoff discharging a pollutant of concern to a 303(d)-listed water or a
/// TMDL watershed whose TMDL names stormwater as a source.
pub(super) fn condition_one(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Option<bool>> {
    let water = cx.water;
    let mut f = cx.finding(
        None,
        &[cx.id(C1), cx.id(POC)],
        &["AMB-07", "AMB-08", "AMB-09", "AMB-30"],
    );
    // AMB-08 "literal": sediment is always a pollutant of concern and always in
    // construction runoff, so any listing counts; "matched": only a listed pollutant the
    // project discharges, of which the facts know only the sediment class.
    let literal = cx.profile.reading::<PollutantOfConcern>() == PollutantOfConcern::Literal;
    // AMB-09 "tmdl_only": the stormwater-source qualifier attaches to TMDL watersheds only.
    let tmdl_only =
        cx.profile.reading::<StormwaterSourceScope>() == StormwaterSourceScope::TmdlOnly;
    let mut hits: Vec<String> = Vec::new();
    // Unknowns that would decide Condition One if nothing else meets it.
    let mut pending: Vec<String> = Vec::new();

    for w in &water.waters_303d {
        f.evidence.push(water_evidence(w));
        let label = format!("303(d)-listed water {} ({})", w.name, w.water_id);
        if !literal && !w.pollutants.iter().any(|p| is_sediment_class(p)) {
            f.because(format!(
                "{label} is listed for {}, none of them sediment; under the profile's matched reading (AMB-08) it counts only if the project's runoff carries a listed pollutant, which was not given",
                and_list(&w.pollutants)
            ));
            pending.push(format!(
                "pollutants expected in the project's runoff (for {})",
                w.water_id
            ));
            continue;
        }
        if !tmdl_only {
            f.because(format!(
                "{label}: the profile applies the stormwater-source qualifier to 303(d) waters too (AMB-09), and whether the listing names stormwater as a source was not given"
            ));
            pending.push(format!(
                "whether the 303(d) listing of {} names stormwater as a source",
                w.water_id
            ));
            continue;
        }
        hits.push(format!(
            "{label}, listed for {}, reached by {}",
            and_list(&w.pollutants),
            w.reached_by
        ));
    }

    for t in &water.tmdl_areas {
        f.evidence.extend(tmdl_evidence(t));
        let label = format!("TMDL area {} ({})", t.tmdl_id, t.pollutant);
        let how = match &t.reached_by {
            Some(how) => how.clone(),
            None if t.overlap.value <= 0.0 => {
                f.because(format!(
                    "{label} touches the footprint without overlapping it; not counted"
                ));
                continue;
            }
            None => format!("overlapping {} of the footprint", overlap_words(t.overlap)),
        };
        if !literal && !is_sediment_class(&t.pollutant) {
            f.because(format!(
                "{label}: under the profile's matched reading (AMB-08) it counts only if the project's runoff carries {}, which was not given",
                t.pollutant
            ));
            pending.push(format!(
                "pollutants expected in the project's runoff (for {})",
                t.tmdl_id
            ));
            continue;
        }
        match t.stormwater_source {
            Some(true) => hits.push(format!(
                "{label}, a TMDL watershed for which pollutants in stormwater are identified as a source, {how}"
            )),
            Some(false) => {
                f.because(format!(
                    "{label} does not identify pollutants in stormwater as a source of the impairment, which Condition One requires of a TMDL watershed (AMB-09); not counted"
                ));
            }
            None => {
                f.because(format!(
                    "the record of {label} does not say whether pollutants in stormwater are a source of the impairment; Condition One requires that of a TMDL watershed (AMB-09), so it is not counted until the TMDL is checked"
                ));
                pending.push(format!(
                    "whether TMDL {} identifies stormwater as a source",
                    t.tmdl_id
                ));
            }
        }
    }

    if !water.waters_303d.is_empty() {
        match &water.list_cycle {
            Some(cycle) => {
                f.because(format!(
                    "the 303(d) listings are those of the {cycle} list cycle (AMB-30)"
                ));
                f.evidence.push(Evidence::Fact {
                    text: format!("303(d) list cycle used: {cycle}"),
                });
            }
            None => {
                f.because("the impairment records name no 303(d) list cycle; the listings used are shown (AMB-30)");
            }
        }
    }
    for d in &water.notes {
        f.because(d.clone());
    }
    for r in &water.review {
        f.because(format!("for review: {r}"));
        pending.push(format!("review: {r}"));
    }
    let nothing_reached = water.waters_303d.is_empty()
        && water.tmdl_areas.is_empty()
        && water.waters_reached.is_empty()
        && water.review.is_empty();
    let met = if !hits.is_empty() {
        f.because(format!(
            "the runoff carries sediment, always a pollutant of concern, to {}",
            and_list(&hits)
        ));
        Some(true)
    } else if nothing_reached {
        f.because("undetermined: the footprint overlaps no watershed that drains to a recorded water and no trace from it reaches a water, so the evidence cannot say where its runoff goes; missing evidence is not a 'no'. A watershed with its drains_to, or a trace to an outfall with its receiving water, would decide it");
        pending.push("the receiving water of the project's runoff (no watershed overlapped and no trace reached a water)".to_string());
        None
    } else if !pending.is_empty() {
        f.because("undetermined: nothing found meets Condition One yet, and the open facts could");
        None
    } else {
        f.because(format!(
            "none of the waters and TMDL areas found meets Condition One (waters reached: {})",
            if water.waters_reached.is_empty() {
                "none besides those listed".to_string()
            } else {
                and_list(&water.waters_reached)
            }
        ));
        Some(false)
    };
    if met != Some(true) && outside.is_none() {
        for fact in pending {
            cx.open(fact);
        }
    }
    close(&mut f, met, outside, "Condition One");
    f
}

/// § 156-81C(2): five or more acres, with no exclusions.
fn condition_two(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Option<bool>> {
    let mut f = cx.finding(None, &[cx.id(C2)], &["AMB-10"]);
    f.evidence = cx.area_evidence();
    let (met, reason) = cx.meets_or_not("condition_two", "Condition Two");
    f.because(reason);
    if met && (cx.facts.single_family == Some(true) || cx.facts.agricultural == Some(true)) {
        f.assume(cx.profile, "AMB-11");
        f.because("the single-family residence and agricultural property exclusions belong to Condition Three only; Condition Two has none");
    }
    close(&mut f, Some(met), outside, "Condition Two");
    f
}

/// § 156-81C(3): one to five acres, except single-family residences and agricultural
/// properties.
fn condition_three(cx: &mut Ctx<'_>, outside: Option<&str>) -> Finding<Option<bool>> {
    let facts = cx.facts;
    let mut f = cx.finding(None, &[cx.id(C3)], &["AMB-10", "AMB-11"]);
    f.evidence = cx.area_evidence();
    let (above, low) = cx.meets_or_not("condition_three_min", "Condition Three lower");
    let (below, high) = cx.meets_or_not("condition_three_max", "Condition Three upper");
    f.because(low);
    f.because(high);
    let in_range = above && below;
    let mut met = Some(in_range);
    if in_range && facts.single_family == Some(true) {
        met = Some(false);
        f.because("excluded: construction of a single-family residence ('exclusive of the construction of single-family residences')");
    }
    if in_range && facts.agricultural == Some(true) {
        met = Some(false);
        f.because("excluded: construction activities at an agricultural property ('and construction activities at agricultural properties')");
    }
    if in_range && met == Some(true) {
        // Neither exclusion was given as true: met only when both were given as false.
        let unknown: Vec<&str> = [
            (
                facts.single_family,
                "whether it is the construction of a single-family residence",
            ),
            (
                facts.agricultural,
                "whether it is construction at an agricultural property",
            ),
        ]
        .into_iter()
        .filter(|(given, _)| given.is_none())
        .map(|(_, what)| what)
        .collect();
        if unknown.is_empty() {
            f.because("neither exclusion applies: given as not a single-family residence and not an agricultural property");
        } else {
            met = None;
            for what in &unknown {
                cx.open(format!("Condition Three exclusion: {what}"));
            }
            f.because(format!(
                "undetermined: in the one-to-five-acre range, but {} was not given (--single-family / --agricultural, true or false)",
                unknown.join(" nor ")
            ));
        }
    }
    close(&mut f, met, outside, "Condition Three");
    f
}

/// What follows from the Conditions.
fn requirements(
    cx: &mut Ctx<'_>,
    outside: Option<&str>,
    c: &Conditions,
) -> Vec<Finding<Requirement>> {
    use RequirementKind as K;
    use RequirementStatus as S;
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

    let easement = facility_duty(
        cx,
        K::MaintenanceEasement,
        &format!("Before any approval that has a stormwater management facility as a requirement, the applicant executes a maintenance easement binding on later landowners, recorded by the grantor with the {} after approval by {} ({}).", w.county_clerk, w.town_counsel, w.section(EASEMENT)),
        cx.id(EASEMENT),
        &format!("maintenance easements recorded on the plan ({})", w.easement_plan_item),
        outside,
        &which,
        any,
    );
    let agreement = facility_duty(
        cx,
        K::MaintenanceAgreement,
        &format!("Before final plan approval, the Town approves a formal maintenance agreement for the stormwater management facilities, binding on later landowners and recorded with the {} as a deed restriction; the Town may accept dedication instead ({}).", w.county_clerk, w.section(AGREEMENT)),
        cx.id(AGREEMENT),
        &format!("an inspection and maintenance agreement binding on later landowners ({})", w.agreement_plan_item),
        outside,
        &which,
        any,
    );
    let post_status = post.result.status;
    let mut all = vec![swppp, post, preparer, inspections, easement, agreement];
    all.extend(duties::every_project_duties(cx, outside, post_status));
    all
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
    outside: Option<&str>,
    which: &str,
    any: Option<bool>,
) -> Finding<Requirement> {
    use RequirementStatus as S;
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
