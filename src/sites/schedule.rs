//! The schedule the law sets for a site, computed from the profile and the site's log,
//! never typed: the qualified inspector's inspection every seven calendar days (North
//! Castle § 267-7A(5), for one acre or more; Carmel § 156-83B, for projects meeting
//! Condition One, Two or Three), Carmel's inspection within 24 hours of a storm of 0.5
//! inch or more, the trained contractor on site daily while soil is disturbed (North
//! Castle § 267-7A(4)) and the 48-hour notices before each milestone; and, in
//! [`enforcement`], the deficiencies to correct, sediment traps past half full, more
//! than five acres disturbed at once and the stop-work orders in effect; and, in
//! [`hand_over`], the close-out's agreement, easement and as-built plans and the
//! evidence of final stabilization. Each duty cites the profile's rule; what the record cannot decide
//! is an open fact, never a guess.
//!
//! Clocks: the seven days are calendar days (AMB-15) counted with the enforcement
//! clock's [`calendar::add_days`]; they are not rolled to a business day, as the
//! qualified inspector's visit is the applicant's duty at the site, not an act at the
//! Town's offices. The 24 and 48 hours are clock hours ([`calendar::add_hours`]).

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};
use serde::Serialize;

mod enforcement;
mod hand_over;

use super::rainfall::{storms, RainDay};
use super::site::Site;
use crate::domain::{InspectorRole, SiteActionKind, SiteStatus};
use crate::idde::calendar::{self, end_of, Calendar};
use crate::rules::profile::Role;
use crate::rules::Profile;
use enforcement::{at_one_time, deficiencies, sediment, stop_work};

/// One duty of one site.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Due {
    /// The rule id.
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// What must happen.
    pub what: String,
    /// The minute it is due by.
    pub due_at: Option<NaiveDateTime>,
    /// due, overdue, met, met_late, in_effect (an order) or needs_fact.
    pub status: String,
    /// When an action met it.
    pub met_at: Option<NaiveDateTime>,
    /// How it was counted, in words.
    pub counted: Vec<String>,
    /// Weekend days and holidays inside the period (counted like any other day).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub closed_days: Vec<String>,
    /// The reading taken where the law is open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumption: Option<String>,
}

/// A site's schedule as of a time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SiteSchedule {
    /// The site.
    pub site_id: String,
    /// Its status.
    pub status: SiteStatus,
    /// Its duties, due and overdue first.
    pub duties: Vec<Due>,
    /// What the record lacks to count a duty (no rain gauge, days without rainfall, no
    /// determination): said, never assumed.
    pub open_facts: Vec<String>,
}

impl SiteSchedule {
    /// The duties of a status (`due`, `overdue`).
    pub fn count(&self, status: &str) -> usize {
        self.duties.iter().filter(|d| d.status == status).count()
    }
}

/// Whether the qualified inspector's inspections apply to a site: `Ok(Ok(reason))`
/// they do, `Err(reason)` they do not, `Ok(Err(question))` the record cannot say (an
/// open fact, in words).
fn inspections_apply(site: &Site, profile: &Profile) -> Result<Result<String, String>, String> {
    // North Castle: a threshold on the area disturbed (§ 267-7A(5): "one or more acres").
    if let Some(t) = &profile.thresholds.qualified_inspector {
        let Some(sqft) = site.disturbed_sqft else {
            return Ok(Err(format!(
                "the area site {} disturbs is not on record (disturbed_sqft): whether the qualified inspector's inspections of {} apply turns on it",
                site.site_id, t.citation
            )));
        };
        let acres = sqft / 43_560.0;
        return if t.is_met_by_sqft(sqft) {
            Ok(Ok(format!(
                "{sqft:.0} sq ft ({acres:.2} acres) disturbed meets the {} {} of {}: \"{}\"",
                t.value,
                t.unit,
                t.citation,
                t.quote.as_deref().unwrap_or("")
            )))
        } else {
            Err(format!(
                "{sqft:.0} sq ft ({acres:.2} acres) disturbed: under the {} {} of {}",
                t.value, t.unit, t.citation
            ))
        };
    }
    // Carmel: the Conditions as the stored determination answered them.
    let Some(c) = site
        .determination
        .as_ref()
        .and_then(|d| {
            d.pointer("/determination/conditions")
                .or_else(|| d.pointer("/conditions"))
        })
        .filter(|c| !c.is_null())
    else {
        return Ok(Err(format!(
            "site {} has no determination answering Conditions One, Two and Three: whether the seven-day and storm inspections apply turns on them",
            site.site_id
        )));
    };
    let names = ["condition_one", "condition_two", "condition_three"];
    let results: Vec<(&str, Option<bool>)> = names
        .iter()
        .map(|n| {
            (
                *n,
                c.pointer(&format!("/{n}/result")).and_then(|r| r.as_bool()),
            )
        })
        .collect();
    if let Some((n, _)) = results.iter().find(|(_, r)| *r == Some(true)) {
        return Ok(Ok(format!("the determination finds {n} met")));
    }
    if results.iter().all(|(_, r)| *r == Some(false)) {
        return Err("the determination finds none of Conditions One, Two and Three met".into());
    }
    let open: Vec<&str> = results
        .iter()
        .filter(|(_, r)| r.is_none())
        .map(|(n, _)| *n)
        .collect();
    Ok(Err(format!(
        "the determination leaves {} undetermined (see its open facts): whether the seven-day and storm inspections apply turns on them; determine again with the facts and open a new site, or record them",
        open.join(" and ")
    )))
}

fn rule_of(profile: &Profile, id: &str) -> (String, String) {
    (
        id.to_string(),
        profile.citation(id).unwrap_or("(uncited)").to_string(),
    )
}

/// Due, overdue or met by `met`.
fn status_of(
    due_at: NaiveDateTime,
    met: Option<NaiveDateTime>,
    as_of: NaiveDateTime,
) -> &'static str {
    match met {
        Some(m) if m <= due_at => "met",
        Some(_) => "met_late",
        None if as_of > due_at => "overdue",
        None => "due",
    }
}

/// The site's schedule as of `as_of`, under the profile's law, with the rainfall
/// recorded.
pub fn site_schedule(
    site: &Site,
    profile: &Profile,
    rain: &[RainDay],
    as_of: NaiveDateTime,
) -> SiteSchedule {
    let mut duties = Vec::new();
    let mut open_facts = Vec::new();
    let cal = Calendar::new(&profile.idde.holidays);
    if site.status != SiteStatus::Closed {
        milestone_notices(site, profile, &cal, as_of, &mut duties);
        stop_work(site, profile, &mut duties);
    }
    let start = site.started_at();
    let construction = matches!(site.status, SiteStatus::Active) && start.is_some();
    if construction {
        let start = start.expect("checked");
        let until = site.stabilized_at().map_or(as_of, |s| s.min(as_of));
        match inspections_apply(site, profile) {
            Ok(Ok(why)) => {
                routine(site, profile, start, as_of, &why, &mut duties);
                storm(
                    site,
                    profile,
                    rain,
                    start,
                    until,
                    as_of,
                    &mut duties,
                    &mut open_facts,
                );
            }
            Ok(Err(question)) => open_facts.push(question),
            Err(_) => {}
        }
        contractor(site, profile, start, as_of, &mut duties, &mut open_facts);
        at_one_time(site, profile, &mut duties);
    }
    if site.status != SiteStatus::Closed {
        deficiencies(site, profile, as_of, &mut duties);
        sediment(site, profile, &mut duties);
        hand_over::hand_over(site, profile, as_of, &mut duties, &mut open_facts);
    }
    duties.sort_by_key(|d| (order(&d.status), d.due_at));
    SiteSchedule {
        site_id: site.site_id.clone(),
        status: site.status,
        duties,
        open_facts,
    }
}

fn order(status: &str) -> u8 {
    match status {
        "overdue" | "exceeded" => 0,
        "in_effect" => 1,
        "due" => 2,
        _ => 3,
    }
}

/// The qualified inspector's inspection every N calendar days from the start, or from
/// the last such inspection.
fn routine(
    site: &Site,
    profile: &Profile,
    start: NaiveDateTime,
    as_of: NaiveDateTime,
    why: &str,
    out: &mut Vec<Due>,
) {
    let Some(r) = profile.inspections.get("construction_routine") else {
        return;
    };
    let every = r.amount();
    let last = site
        .actions
        .iter()
        .filter(|a| a.is_inspection_by(InspectorRole::QualifiedInspector) && a.datetime() <= as_of)
        .map(|a| a.on)
        .max();
    let (from, from_words) = match last {
        Some(d) => (d, format!("the last qualified inspection, on {d}")),
        None => (
            start.date(),
            format!("the start of construction, {}", start.date()),
        ),
    };
    let (counted_due, note) = match calendar::add_days(from, every) {
        Ok(d) => (end_of(d), None),
        Err(e) => (end_of(from), Some(e.to_string())),
    };
    let mut counted = vec![
        why.to_string(),
        format!(
            "{every} calendar days from {from_words}: by the end of {}",
            counted_due.date()
        ),
    ];
    counted.extend(note);
    let (rule, citation) = (r.rule.clone(), r.citation.clone());
    out.push(Due {
        rule,
        citation,
        what: format!(
            "a qualified inspector's inspection of the erosion and sediment controls (every {every} calendar days)"
        ),
        due_at: Some(counted_due),
        status: status_of(counted_due, None, as_of).into(),
        met_at: None,
        counted,
        closed_days: Vec::new(),
        assumption: profile.assumption("AMB-15").map(|a| a.text.clone()),
    });
}

/// An inspection within N hours of the end of each storm of the profile's least rainfall
/// at the site's gauge.
#[allow(clippy::too_many_arguments)]
fn storm(
    site: &Site,
    profile: &Profile,
    rain: &[RainDay],
    start: NaiveDateTime,
    until: NaiveDateTime,
    as_of: NaiveDateTime,
    out: &mut Vec<Due>,
    open: &mut Vec<String>,
) {
    let Some(r) = profile.inspections.get("construction_storm") else {
        return;
    };
    let min = r.min_rainfall_inches.unwrap_or(0.5);
    let Some(gauge) = &site.rain_gauge else {
        open.push(format!(
            "no rain gauge is named for site {}: its storm-triggered inspections ({}) cannot be counted, and no storm is assumed away",
            site.site_id, r.citation
        ));
        return;
    };
    let (found, missing) = storms(rain, gauge, start.date(), until.date(), min);
    if !missing.is_empty() {
        open.push(format!(
            "no rainfall recorded at gauge {gauge} on {} day(s) from {} to {}: a storm of {min} inch or more on them would make an inspection due within {} hours ({}); not assumed dry",
            missing.len(),
            missing[0],
            missing[missing.len() - 1],
            r.amount(),
            r.citation
        ));
    }
    for s in found {
        let ended = s.to.and_time(NaiveTime::MIN) + Duration::days(1);
        let Ok(due_at) = calendar::add_hours(ended, r.amount()) else {
            continue;
        };
        let met = site
            .actions
            .iter()
            .filter(|a| {
                a.is_inspection_by(InspectorRole::QualifiedInspector)
                    && a.datetime() >= s.from.and_time(NaiveTime::MIN)
            })
            .map(|a| a.datetime())
            .min();
        let span = if s.from == s.to {
            s.from.to_string()
        } else {
            format!("{} to {}", s.from, s.to)
        };
        out.push(Due {
            rule: r.rule.clone(),
            citation: r.citation.clone(),
            what: format!(
                "an inspection within {} hours of the storm of {:.2} inch at gauge {gauge} ({span})",
                r.amount(),
                s.inches
            ),
            due_at: Some(due_at),
            status: status_of(due_at, met, as_of).into(),
            met_at: met,
            counted: vec![
                format!("{:.2} inch at gauge {gauge} on {span}: at least the {min} inch of {}", s.inches, r.citation),
                format!(
                    "daily totals give no hour: the storm is taken to end at the end of {}, and the {} hours run from then",
                    s.to,
                    r.amount()
                ),
            ],
            closed_days: Vec::new(),
            assumption: profile.assumption("AMB-15").map(|a| a.text.clone()),
        });
    }
}

/// The trained contractor on site daily while soil is disturbed (North Castle
/// § 267-7A(4)): due today; the days without a record are an open fact (the registry
/// does not know on which days soil was disturbed).
fn contractor(
    site: &Site,
    profile: &Profile,
    start: NaiveDateTime,
    as_of: NaiveDateTime,
    out: &mut Vec<Due>,
    open: &mut Vec<String>,
) {
    let Some(id) = profile.role_id(Role::TrainedContractor) else {
        return;
    };
    let (rule, citation) = rule_of(profile, id);
    let today = as_of.date();
    let met = site
        .actions
        .iter()
        .filter(|a| a.is_inspection_by(InspectorRole::TrainedContractor) && a.on == today)
        .map(|a| a.datetime())
        .min();
    let recorded: std::collections::BTreeSet<NaiveDate> = site
        .actions
        .iter()
        .filter(|a| {
            a.kind == SiteActionKind::Inspection && a.role == Some(InspectorRole::TrainedContractor)
        })
        .map(|a| a.on)
        .collect();
    let gaps: Vec<NaiveDate> = std::iter::successors(Some(start.date()), |d| d.succ_opt())
        .take_while(|d| *d < today)
        .take(calendar::MAX_WALK_DAYS as usize)
        .filter(|d| !recorded.contains(d))
        .collect();
    if !gaps.is_empty() {
        open.push(format!(
            "no trained contractor's record on {} day(s) from {} to {}: on a day soil was disturbed that is a missed duty ({citation}); the record does not say which days soil was disturbed",
            gaps.len(),
            gaps[0],
            gaps[gaps.len() - 1]
        ));
    }
    out.push(Due {
        rule,
        citation,
        what: "a trained contractor on site today, while soil disturbance activities are performed"
            .into(),
        due_at: Some(end_of(today)),
        status: if met.is_some() { "met" } else { "due" }.into(),
        met_at: met,
        counted: vec![format!("daily while active; today is {today}")],
        closed_days: Vec::new(),
        assumption: None,
    });
}

/// The notice at least 48 hours before each milestone planned or noticed.
///
/// 48 hours are 48 clock hours counted back from the milestone: a Saturday, Sunday or
/// holiday inside them counts like any other hour, and the last moment for the notice is
/// not moved. N.Y. Gen. Constr. Law § 25-a, which the enforcement clock applies to
/// periods of days, rolls a period that ends on a closed day forward to the next
/// business day; rolling a notice that must come *before* a milestone forward would
/// leave less than the 48 hours the law requires, so it is not done. The closed days
/// inside the 48 hours are listed, as the office may not be open to receive a notice on
/// them.
fn milestone_notices(
    site: &Site,
    profile: &Profile,
    cal: &Calendar<'_>,
    as_of: NaiveDateTime,
    out: &mut Vec<Due>,
) {
    let Some(id) = profile.role_id(Role::Notice48h) else {
        return;
    };
    let (rule, citation) = rule_of(profile, id);
    let mut planned: Vec<(crate::domain::Milestone, NaiveDateTime)> = site
        .milestones
        .iter()
        .map(|m| (m.milestone, m.at))
        .collect();
    for a in &site.actions {
        if let (SiteActionKind::MilestoneNotice, Some(m), Some(at)) =
            (a.kind, a.milestone, a.milestone_at)
        {
            if !planned.contains(&(m, at)) {
                planned.push((m, at));
            }
        }
    }
    for (m, at) in planned {
        let due_at = at - Duration::hours(48);
        let met = site
            .actions
            .iter()
            .filter(|a| a.kind == SiteActionKind::MilestoneNotice && a.milestone == Some(m))
            .map(|a| a.datetime())
            .filter(|t| *t <= at)
            .min();
        let closed_days = cal.skipped(due_at.date().pred_opt().unwrap_or(due_at.date()), at.date());
        out.push(Due {
            rule: rule.clone(),
            citation: citation.clone(),
            what: format!("notice to the Town at least 48 hours before {m} ({})", at.format("%Y-%m-%d %H:%M")),
            due_at: Some(due_at),
            status: status_of(due_at, met, as_of).into(),
            met_at: met,
            counted: vec![format!(
                "48 clock hours before {}: by {}; a weekend or holiday inside them counts and does not move the deadline",
                at.format("%Y-%m-%d %H:%M"),
                due_at.format("%Y-%m-%d %H:%M")
            )],
            closed_days,
            assumption: None,
        });
    }
}
