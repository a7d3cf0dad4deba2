//! Deadlines and fines of a case, computed from the profile's enforcement steps
//! (`[[idde.deadlines]]`, `[[idde.fines]]`) and the actions logged on the case: never
//! stored, never typed, so a corrected action date moves every deadline after it.
//!
//! A step counted in hours runs from the minute of its start; one counted in days or
//! business days ends with its last day. The clock's readings of service and receipt:
//!
//! - A mail allowance is whole days: a notice mailed with `mail_business_days` (Windsor's
//!   three) starts its period at 00:00 after the last day allowed, whatever the hour it
//!   was mailed.
//! - An action recorded without an hour that starts a count of hours is taken as done at
//!   the end of its day: the period starts at 00:00 the next day, and the answer says so;
//!   a fine counted in hours from a citation without an hour likewise, its hour an open
//!   fact.
//! - A period "from receipt" counts from a hand delivery's day or a mailed notice's
//!   `received_on`; a mailed one without it is an open fact (`needs_fact`), never a date
//!   counted from the mailing.
//! - A step may end on the day its trigger sets (a notice's deadline for abatement), or
//!   run from the end of the period a written plan agreed; either missing is an open fact.
//!
//! The record as logged is the record: an action after `as_of` still decides how a
//! period is counted (a report confirmed later, a decision reversing the officer), and
//! `as_of` only says when counting stops.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};
use serde::Serialize;

use super::calendar::{self, end_of, Calendar, ClockError};
use super::case::{Action, Case};
use super::respondent::{covers, describe, Respondent, Standing};
use crate::rules::profile::Immunity;
use crate::rules::{DeadlineStep, FineStep, IddeSettings};

/// One deadline of one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Deadline {
    /// The rule id.
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// What must happen.
    pub what: String,
    /// When the period started; none while an open fact decides it.
    pub starts: Option<NaiveDateTime>,
    /// The last day; none while an open fact decides it (`needs_fact`) or a contest
    /// suspends it (`suspended`).
    pub due_on: Option<NaiveDate>,
    /// For a period in hours, the minute it ends.
    pub due_at: Option<NaiveDateTime>,
    /// due, overdue, met, met_late, lapsed (a window unused), moot (the case closed
    /// before it was met, or a decision left nothing owed), suspended (a contest pending)
    /// or needs_fact (the record lacks what decides it: see `open_fact`).
    pub status: String,
    /// The day an action met it.
    pub met_on: Option<NaiveDate>,
    /// How it was counted, in words.
    pub counted: String,
    /// The weekend days and holidays a business-day count skipped.
    pub skipped: Vec<String>,
    /// The reading taken where the law is open.
    pub assumption: Option<String>,
    /// What the record must say before the deadline can be counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_fact: Option<String>,
    /// When the trigger was done: what a later step compares its actions with.
    #[serde(skip)]
    began: Option<NaiveDateTime>,
}

impl Deadline {
    /// The deadline as printed: the minute for a period of hours, else the day, else why
    /// there is none yet.
    pub fn by(&self) -> String {
        match (self.due_at, self.due_on) {
            (Some(t), _) => t.format("%Y-%m-%d %H:%M").to_string(),
            (None, Some(d)) => d.to_string(),
            (None, None) if self.status == "suspended" => "suspended".into(),
            (None, None) => "undetermined".into(),
        }
    }
}

/// A fine accrued on one case under one rule: one stream of one violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fine {
    /// The rule id.
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// The violation the citation names (none: the case's one violation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub violation: Option<String>,
    /// From when.
    pub from: NaiveDateTime,
    /// Until when it was counted: the stopping action, or the time asked about.
    pub until: NaiveDateTime,
    /// What stopped it, if anything has.
    pub stopped_by: Option<String>,
    /// Violations cited.
    pub violations: u32,
    /// Periods counted (1 for a one-off fine; 0 when void).
    pub periods: i64,
    /// Dollars per violation per period.
    pub amount: f64,
    /// Dollars accrued for certain: amount × violations × periods.
    pub accrued: f64,
    /// The amount is the law's maximum: a court or board may set less.
    pub maximum: bool,
    /// The decision that voided it, and why nothing is owed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub voided_by: Option<String>,
    /// Later citations of the same violation while this stream ran: they add nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub absorbed: Vec<String>,
    /// What the record leaves open about the dollars: a compliance report not yet
    /// confirmed or refuted, the hour of a citation recorded by its day only, whether the
    /// respondent is one the law bars fines against.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub open_fact: Option<String>,
    /// With an open fact: the dollars if the report is not confirmed (counted on to
    /// `until` of the stream as if no report had been made).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accrued_if_unconfirmed: Option<f64>,
    /// The reading the profile takes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assumption: Option<String>,
    /// When the stream stopped or was voided (none: still running): a later citation
    /// before it is the same stream's.
    #[serde(skip)]
    ended: Option<NaiveDateTime>,
    /// When the citation was made as recorded (its day's start without an hour): what
    /// later actions are compared with, where `from` is when counting starts.
    #[serde(skip)]
    cited: NaiveDateTime,
}

/// Every deadline and fine of one case.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CaseDeadlines {
    /// The case.
    pub case_id: String,
    /// open or closed.
    pub case_status: String,
    /// Its deadlines, in the profile's order.
    pub deadlines: Vec<Deadline>,
    /// Its fines.
    pub fines: Vec<Fine>,
    /// Dollars accrued for certain, all fines (a pending report's further dollars are
    /// each fine's `accrued_if_unconfirmed`).
    pub accrued: f64,
    /// The steps the clock could not count, each with its rule id and why (a date past
    /// the calendar's end in the record, a period over the profile's bounds); left out
    /// of the deadlines, and the case's other deadlines still counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncounted: Vec<String>,
}

/// The start of the day after `d` (the end of `d`, to the minute).
fn after_day(d: NaiveDate) -> Result<NaiveDateTime, ClockError> {
    d.succ_opt()
        .map(|n| n.and_time(NaiveTime::MIN))
        .ok_or_else(|| ClockError::OutOfRange {
            from: d.to_string(),
            span: "1 day".into(),
        })
}

fn triggers<'a>(case: &'a Case, kind: &str, outcome: Option<&str>) -> Option<&'a Action> {
    case.actions
        .iter()
        .filter(|a| a.kind == kind && outcome.is_none_or(|o| a.outcome.as_deref() == Some(o)))
        .max_by_key(|a| a.datetime())
}

fn any_of(a: &Action, words: &[String]) -> bool {
    words.iter().any(|k| a.is(k))
}

fn said(a: &Action) -> String {
    match &a.outcome {
        Some(o) => format!("{}:{o} on {}", a.kind, a.on),
        None => format!("{} on {}", a.kind, a.on),
    }
}

/// The deadlines and fines of a case as of `as_of`.
pub fn case_deadlines(case: &Case, s: &IddeSettings, as_of: NaiveDateTime) -> CaseDeadlines {
    case_deadlines_on(case, s, &Calendar::new(&s.holidays), as_of)
}

/// The same with the jurisdiction's calendar already made: making it works out sixty
/// years of holidays, which an answer over every case does once, not once per case.
pub fn case_deadlines_on(
    case: &Case,
    s: &IddeSettings,
    cal: &Calendar<'_>,
    as_of: NaiveDateTime,
) -> CaseDeadlines {
    let mut done: Vec<Deadline> = Vec::new();
    let mut uncounted = Vec::new();
    for step in &s.deadlines {
        let clock = Clock {
            cal,
            rolls: s.periods_roll_to_business_day,
            as_of,
        };
        match one_deadline(case, step, &done, &clock) {
            Ok(Some(d)) => done.push(d),
            Ok(None) => {}
            Err(e) => uncounted.push(format!("{}: {e}", step.rule)),
        }
    }
    let fines = fines_of(case, s, as_of);
    // `+ 0.0`: an empty f64 sum is -0.0, which would print as "-0" dollars.
    let accrued = fines.iter().map(|f| f.accrued).sum::<f64>() + 0.0;
    CaseDeadlines {
        case_id: case.case_id.clone(),
        case_status: case.status.to_string(),
        deadlines: done,
        fines,
        accrued,
        uncounted,
    }
}

/// A period of days that ends on a day the offices are closed ends on the next business
/// day where the profile's law says so (`periods_roll_to_business_day`); the days passed
/// over are listed, and the roll is said in how the deadline was counted.
pub(crate) fn roll(
    cal: &Calendar<'_>,
    rolls: bool,
    end: NaiveDate,
    counted: &mut Vec<String>,
    skipped: &mut Vec<String>,
) -> Result<NaiveDate, ClockError> {
    if !rolls || cal.is_business_day(end) {
        return Ok(end);
    }
    let to = cal.next_business_day_from(end)?;
    skipped.extend(cal.skipped(end.pred_opt().unwrap_or(end), to.pred_opt().unwrap_or(to)));
    counted.push(format!(
        "{end} is not a business day: the period runs to the next, {to}"
    ));
    Ok(to)
}

/// The calendar, its rule for periods ending on a closed day, and the time asked about.
struct Clock<'c, 'h> {
    cal: &'c Calendar<'h>,
    rolls: bool,
    as_of: NaiveDateTime,
}

/// How a step was counted, in words, and the closed days a count skipped.
#[derive(Default)]
struct Tally {
    counted: Vec<String>,
    skipped: Vec<String>,
}

/// Where a step's period starts, as far as the record says.
enum Begin {
    /// Counted from `start`; `date_only` when the record gives a day without an hour.
    At {
        start: NaiveDateTime,
        began: NaiveDateTime,
        date_only: bool,
    },
    /// The record itself sets the last day (a notice's deadline).
    DueOn {
        day: NaiveDate,
        began: NaiveDateTime,
    },
    /// The record lacks what decides it.
    Open {
        question: String,
        began: NaiveDateTime,
    },
}

impl Begin {
    fn began(&self) -> NaiveDateTime {
        match self {
            Begin::At { began, .. } | Begin::DueOn { began, .. } | Begin::Open { began, .. } => {
                *began
            }
        }
    }
}

/// Where a step triggered by action `a` starts: the day the action sets, its receipt,
/// the end of a mail allowance, or the action itself.
fn begin_at_trigger(
    step: &DeadlineStep,
    a: &Action,
    cal: &Calendar<'_>,
    t: &mut Tally,
) -> Result<Begin, ClockError> {
    let began = a.datetime();
    let hour = a.at.as_deref().map(|h| format!(" {h}")).unwrap_or_default();
    t.counted.push(format!("{} on {}{hour}", a.kind, a.on));
    if step.due_on_trigger_deadline {
        return Ok(match a.deadline {
            Some(day) => {
                t.counted.push(format!("the deadline it sets: {day}"));
                Begin::DueOn { day, began }
            }
            None => Begin::Open {
                question: format!(
                    "the {} of {} records no deadline: if it requires abatement or restoration, the law requires it to set one (record it as the action's deadline); if it requires neither, this step does not apply",
                    a.kind, a.on
                ),
                began,
            },
        });
    }
    let mailed = a.method.as_deref() == Some("mail");
    if step.from_receipt {
        let day = match (mailed, a.received_on) {
            (true, Some(r)) => {
                t.counted
                    .push(format!("mailed; received on {r} (the return receipt)"));
                r
            }
            (true, None) => {
                return Ok(Begin::Open {
                    question: format!(
                        "the day the {} mailed on {} was received (its return receipt): the period runs from receipt, not from the mailing",
                        a.kind, a.on
                    ),
                    began,
                })
            }
            (false, _) => {
                t.counted.push("received the day it was delivered".into());
                a.on
            }
        };
        return Ok(Begin::At {
            start: day.and_time(NaiveTime::MIN),
            began,
            date_only: true,
        });
    }
    if let (Some(n), true) = (step.mail_business_days, mailed) {
        let day = cal.add_business_days(a.on, n)?;
        t.skipped.extend(cal.skipped(a.on, day));
        let start = after_day(day)?;
        t.counted.push(format!(
            "mailed: {n} business days allowed for delivery, to {day}; the period commences when that day ends, {}",
            start.format("%Y-%m-%d %H:%M")
        ));
        return Ok(Begin::At {
            start,
            began,
            date_only: false,
        });
    }
    Ok(Begin::At {
        start: began,
        began,
        date_only: a.at.is_none(),
    })
}

/// Where a step that runs after `prev` starts: the end of the period a written plan
/// agreed when one was logged (`plan`), else `prev`'s expiry.
fn begin_after(case: &Case, step: &DeadlineStep, p: &Deadline, t: &mut Tally) -> Begin {
    let since = p.began.or(p.starts).unwrap_or(NaiveDateTime::MIN);
    let plan = step.plan.as_deref().and_then(|kind| {
        case.actions
            .iter()
            .filter(|a| a.is(kind) && a.datetime() >= since)
            .max_by_key(|a| a.datetime())
    });
    if let Some(plan) = plan {
        let began = plan.datetime();
        return match plan.deadline {
            Some(day) => {
                t.counted.push(format!(
                    "the {} of {} agreed a period for correction ending {day}: runs from its end",
                    plan.kind, plan.on
                ));
                Begin::At {
                    start: end_of(day),
                    began,
                    date_only: false,
                }
            }
            None => Begin::Open {
                question: format!(
                    "the end of the period for correction agreed on the {} of {} (record it as the plan's deadline): this step runs from it, not from {}",
                    plan.kind, plan.on, p.rule
                ),
                began,
            },
        };
    }
    let began = p.starts.unwrap_or(since);
    match (p.due_at, p.due_on) {
        (Some(end), _) => after_expiry(&p.rule, end, began, t),
        (None, Some(day)) => after_expiry(&p.rule, end_of(day), began, t),
        (None, None) => Begin::Open {
            question: format!(
                "when {} expires ({}): this step runs from it",
                p.rule,
                p.open_fact.as_deref().unwrap_or("it is suspended")
            ),
            began,
        },
    }
}

/// A step that runs after another's expiry counts its days after the day the other's
/// period last ran: a period of hours that expires at 00:00 ran to the end of the day
/// before, so that day, not the one beginning, is the day of expiry.
fn after_expiry(prev: &str, end: NaiveDateTime, began: NaiveDateTime, t: &mut Tally) -> Begin {
    t.counted.push(format!(
        "after {prev} expired ({})",
        end.format("%Y-%m-%d %H:%M")
    ));
    let start = if end.time() == NaiveTime::MIN {
        end - Duration::seconds(1)
    } else {
        end
    };
    Begin::At {
        start,
        began,
        date_only: false,
    }
}

/// The last day (and minute, for hours) of a period that starts at `start`.
fn due_from(
    step: &DeadlineStep,
    mut start: NaiveDateTime,
    date_only: bool,
    clock: &Clock<'_, '_>,
    t: &mut Tally,
) -> Result<(NaiveDateTime, NaiveDate, Option<NaiveDateTime>), ClockError> {
    if let Some(h) = step.hours {
        if date_only {
            // A day without an hour is not midnight: the hours cannot have begun before
            // the day ended, which is the latest the action can have been done.
            start = after_day(start.date())?;
            t.counted.push(format!(
                "no hour recorded: taken as done at the end of that day, so the hours start at {}",
                start.format("%Y-%m-%d %H:%M")
            ));
        }
        let end = calendar::add_hours(start, h)?;
        t.counted
            .push(format!("{h} hours from {}", start.format("%Y-%m-%d %H:%M")));
        return Ok((start, end.date(), Some(end)));
    }
    if let Some(n) = step.days {
        t.counted.push(format!("{n} days from {}", start.date()));
        let end = calendar::add_days(start.date(), n)?;
        let day = roll(clock.cal, clock.rolls, end, &mut t.counted, &mut t.skipped)?;
        return Ok((start, day, None));
    }
    let n = step.business_days.unwrap_or(0);
    let day = clock.cal.add_business_days(start.date(), n)?;
    t.skipped.extend(clock.cal.skipped(start.date(), day));
    t.counted
        .push(format!("{n} business days from {}", start.date()));
    Ok((start, day, None))
}

/// What a contest of the step (a hearing, an appeal) did to it.
enum Contest<'a> {
    None,
    Moot(&'a Action),
    Suspended(&'a Action),
    Resumed(&'a Action, &'a Action),
}

fn contest<'a>(case: &'a Case, step: &DeadlineStep, began: NaiveDateTime) -> Contest<'a> {
    let after = |words: &[String], from: NaiveDateTime| {
        case.actions
            .iter()
            .filter(move |a| any_of(a, words) && a.datetime() >= from)
            .min_by_key(|a| a.datetime())
    };
    if let Some(m) = after(&step.moot_by, began) {
        return Contest::Moot(m);
    }
    let suspended = case
        .actions
        .iter()
        .filter(|a| any_of(a, &step.suspended_by) && a.datetime() >= began)
        .max_by_key(|a| a.datetime());
    match suspended {
        None => Contest::None,
        Some(s) => match after(&step.resumed_by, s.datetime()) {
            Some(r) => Contest::Resumed(s, r),
            None => Contest::Suspended(s),
        },
    }
}

fn one_deadline(
    case: &Case,
    step: &DeadlineStep,
    earlier: &[Deadline],
    clock: &Clock<'_, '_>,
) -> Result<Option<Deadline>, ClockError> {
    let mut t = Tally::default();
    let begin = match (&step.trigger, &step.after) {
        (Some(kind), _) => {
            let Some(a) = triggers(case, kind, step.trigger_outcome.as_deref()) else {
                return Ok(None);
            };
            begin_at_trigger(step, a, clock.cal, &mut t)?
        }
        (None, Some(prev)) => {
            let Some(p) = earlier.iter().find(|d| &d.rule == prev) else {
                return Ok(None);
            };
            begin_after(case, step, p, &mut t)
        }
        _ => return Ok(None),
    };
    let began = begin.began();
    let (mut starts, mut due, mut open_fact) = match begin {
        Begin::At {
            start, date_only, ..
        } => {
            let (s, day, at) = due_from(step, start, date_only, clock, &mut t)?;
            (Some(s), Some((day, at)), None)
        }
        Begin::DueOn { day, began } => (Some(began), Some((day, None)), None),
        Begin::Open { question, .. } => (None, None, Some(question)),
    };
    let mut moot = false;
    let mut suspended = false;
    match contest(case, step, began) {
        Contest::None => {}
        Contest::Moot(m) => {
            t.counted.push(format!("{}: nothing is owed", said(m)));
            moot = true;
        }
        Contest::Suspended(s) => {
            let late = due
                .map(|(d, at)| at.unwrap_or_else(|| end_of(d)))
                .filter(|d| s.datetime() > *d);
            t.counted.push(match late {
                Some(d) => format!(
                    "{}: suspended while it is pending (made after the period ended, {}: whether a late contest is timely is not decided here)",
                    said(s),
                    d.format("%Y-%m-%d %H:%M")
                ),
                None => format!("{}: suspended while it is pending", said(s)),
            });
            suspended = true;
            due = None;
        }
        Contest::Resumed(s, r) => {
            t.counted
                .push(format!("{} suspended it; {} resumed it", said(s), said(r)));
            due = None;
            if let Some(n) = step.resumed_business_days {
                let day = clock.cal.add_business_days(r.on, n)?;
                t.skipped.extend(clock.cal.skipped(r.on, day));
                t.counted.push(format!("{n} business days from {}", r.on));
                starts = Some(r.datetime());
                due = Some((day, None));
                open_fact = None;
            } else {
                open_fact =
                    Some(step.resumed_open_fact.clone().unwrap_or_else(|| {
                        format!("what is owed after the {} of {}", r.kind, r.on)
                    }));
            }
        }
    }
    let deadline = due.map(|(d, at)| at.unwrap_or_else(|| end_of(d)));
    let met = case
        .actions
        .iter()
        .filter(|a| any_of(a, &step.met_by) && a.datetime() >= began)
        .min_by_key(|a| a.datetime());
    let status = status_of(case, step, met, deadline, moot, suspended, clock.as_of);
    Ok(Some(Deadline {
        rule: step.rule.clone(),
        citation: step.citation.clone(),
        what: step.what.clone(),
        starts: starts.map(|s| deadline.map_or(s, |d| s.min(d))),
        due_on: due.map(|(d, _)| d),
        due_at: due.and_then(|(_, at)| at),
        status: status.into(),
        met_on: met.map(|a| a.on),
        counted: t.counted.join("; "),
        skipped: t.skipped,
        assumption: step.assumption.clone(),
        open_fact: open_fact.filter(|_| status != "moot"),
        began: Some(began),
    }))
}

fn status_of(
    case: &Case,
    step: &DeadlineStep,
    met: Option<&Action>,
    deadline: Option<NaiveDateTime>,
    moot: bool,
    suspended: bool,
    as_of: NaiveDateTime,
) -> &'static str {
    match (met, deadline) {
        (Some(a), Some(d)) if a.datetime() <= d => "met",
        (Some(_), Some(_)) => "met_late",
        // Met, but whether on time turns on the open fact, which stays listed.
        (Some(_), None) => "met",
        (None, _) if moot => "moot",
        (None, _) if !case.is_open() && !step.survives_closure => "moot",
        (None, _) if suspended => "suspended",
        (None, None) => "needs_fact",
        (None, Some(d)) if as_of > d && step.window => "lapsed",
        (None, Some(d)) if as_of > d => "overdue",
        (None, Some(_)) => "due",
    }
}

/// The fines of a case as of `as_of`, without its deadlines (what the report sums).
pub fn fines_of(case: &Case, s: &IddeSettings, as_of: NaiveDateTime) -> Vec<Fine> {
    s.fines
        .iter()
        .flat_map(|f| levied(case, s, f, as_of))
        .collect()
}

/// The streams of one fine rule as the law lets them be levied against this case's
/// respondent: none accrues against one the profile's immunities bar (Windsor (b)(3): "No
/// such fine shall be levied against the state"); against one they may bar (kind not
/// recorded, or a person not known to act for the State) the fine is counted and the
/// fact that decides it stays open.
fn levied(case: &Case, s: &IddeSettings, f: &FineStep, as_of: NaiveDateTime) -> Vec<Fine> {
    let mut fines = case_fines(case, f, as_of);
    for m in s.immunities.iter().filter(|m| !m.fines_accrue) {
        match covers(&case.respondent, m) {
            Some(Standing::Barred) => {
                for fine in &mut fines {
                    bar(fine, m, &case.respondent);
                }
            }
            Some(Standing::MayBeBarred) => {
                for fine in fines.iter_mut().filter(|x| x.voided_by.is_none()) {
                    let q = format!(
                        "whether the respondent, {}, is one {} ({}) covers: if so, no fine is levied",
                        describe(&case.respondent),
                        m.rule,
                        m.citation
                    );
                    fine.open_fact = Some(match fine.open_fact.take() {
                        Some(o) => format!("{o}; {q}"),
                        None => q,
                    });
                }
            }
            None => {}
        }
    }
    fines
}

/// A stream the law does not let accrue: kept, at nothing, saying why.
fn bar(fine: &mut Fine, m: &Immunity, who: &Respondent) {
    fine.voided_by = Some(format!(
        "{} ({}): {:?}; the respondent is {}",
        m.rule,
        m.citation,
        m.text,
        describe(who)
    ));
    fine.periods = 0;
    fine.accrued = 0.0;
    fine.accrued_if_unconfirmed = None;
    fine.open_fact = None;
}

/// The dollars of a case's fines whose accrual moment falls in `[from, to)`: what a
/// report for that period counts, so a December citation's fines that accrue after
/// 31 December count in the next year's report and no dollar falls between two reports.
///
/// A one-off fine accrues at its trigger (the citation, to the minute). A fine per
/// `per_hours` accrues each period when the period is complete: the citation (or the end
/// of its day, when no hour is recorded) plus 24, 48, ... hours. A fine per `per_days`
/// accrues its first day at the trigger and each further day as it begins. Counted from
/// the log as it stands, as of `to`: only what is certain (the further dollars a report
/// not yet confirmed leaves open are not), and nothing of a fine a decision voided.
pub fn fines_accrued_in(
    case: &Case,
    s: &IddeSettings,
    from: NaiveDateTime,
    to: NaiveDateTime,
) -> f64 {
    let mut sum = 0.0;
    for f in &s.fines {
        for fine in levied(case, s, f, to) {
            let n = accrual_moments(f, &fine)
                .filter(|t| from <= *t && *t < to)
                .count();
            sum += fine.amount * f64::from(fine.violations) * n as f64;
        }
    }
    // `+ 0.0`: an empty f64 sum is -0.0.
    sum + 0.0
}

/// When each counted period of a fine accrued (see [`fines_accrued_in`]).
fn accrual_moments<'a>(f: &FineStep, fine: &'a Fine) -> impl Iterator<Item = NaiveDateTime> + 'a {
    let every = match (f.per_hours, f.per_days) {
        (Some(h), _) if h > 0 => Some((Duration::hours(h.into()), 1)),
        (_, Some(d)) if d > 0 => Some((Duration::days(d.into()), 0)),
        _ => None,
    };
    (0..fine.periods.max(0)).filter_map(move |k| match every {
        Some((p, first)) => p
            .checked_mul(i32::try_from(k + first).ok()?)
            .and_then(|span| fine.from.checked_add_signed(span)),
        None => Some(fine.from),
    })
}

/// Periods counted over `elapsed`: each full `per_hours`; each `per_days` begun (the
/// first at the trigger); one for a one-off fine. A period of 0 (refused at load) is
/// read as none: a one-off fine.
fn periods(f: &FineStep, elapsed: Duration) -> i64 {
    match (f.per_hours, f.per_days) {
        (Some(h), _) if h > 0 => elapsed.num_hours() / i64::from(h),
        (_, Some(d)) if d > 0 => elapsed.num_days() / i64::from(d) + 1,
        _ => 1,
    }
}

/// Whether an action bears on the stream of violation `label`: one naming no violation
/// bears on every stream; one naming a violation, on that violation's only.
fn bears_on(a: &Action, label: Option<&str>) -> bool {
    a.violation.is_none() || a.violation.as_deref() == label
}

/// One stream per violation: the first citation of a violation starts it; a later one
/// naming the same violation (or none, when the first named none) while it runs is the
/// same continuing violation, and adds no fine and no period.
fn case_fines(case: &Case, f: &FineStep, as_of: NaiveDateTime) -> Vec<Fine> {
    let mut cites: Vec<&Action> = case.actions.iter().filter(|a| a.is(&f.trigger)).collect();
    cites.sort_by_key(|a| a.datetime());
    let mut out: Vec<Fine> = Vec::new();
    for a in cites {
        let at = a.datetime();
        let running = out.iter_mut().find(|s| {
            s.violation == a.violation && s.cited <= at && s.ended.is_none_or(|e| at < e)
        });
        if let Some(s) = running {
            s.absorbed.push(format!(
                "{} on {}: the same continuing violation, already counted from {}",
                a.kind,
                a.on,
                s.from.format("%Y-%m-%d %H:%M")
            ));
            continue;
        }
        out.push(stream(case, f, a, as_of));
    }
    out
}

/// When a stream's periods start counting: at the citation, to the minute; a count of
/// hours from a citation recorded without an hour starts when its day ends, the latest it
/// can have been served (the day is not midnight: counting from 00:00 would bill periods
/// that may not have run), with the hour as an open fact. A one-off fine, or one per day,
/// is the citation day's whatever the hour.
fn counting_from(f: &FineStep, a: &Action) -> (NaiveDateTime, Option<String>) {
    let cited = a.datetime();
    let Some(h) = f.per_hours.filter(|h| *h > 0) else {
        return (cited, None);
    };
    if a.at.is_some() {
        return (cited, None);
    }
    match after_day(a.on) {
        Ok(from) => (
            from,
            Some(format!(
                "the hour the {} of {} was served (record it as the action's `at`): each {h} hours are counted from it; until it is recorded they are counted from the end of that day, {}, the latest it can have been served",
                a.kind,
                a.on,
                from.format("%Y-%m-%d %H:%M")
            )),
        ),
        Err(_) => (cited, None),
    }
}

/// The stream a citation starts, counted to its stop, the case's closing or `as_of`.
fn stream(case: &Case, f: &FineStep, a: &Action, as_of: NaiveDateTime) -> Fine {
    let cited = a.datetime();
    let (from, hour_open) = counting_from(f, a);
    let label = a.violation.as_deref();
    let violations = a.violations.unwrap_or(1);
    let mut fine = Fine {
        rule: f.rule.clone(),
        citation: f.citation.clone(),
        violation: a.violation.clone(),
        from,
        until: from,
        stopped_by: None,
        violations,
        periods: 0,
        amount: f.amount,
        accrued: 0.0,
        maximum: f.maximum,
        voided_by: None,
        absorbed: Vec::new(),
        open_fact: None,
        accrued_if_unconfirmed: None,
        assumption: f.assumption.clone(),
        ended: None,
        cited,
    };
    let void = case
        .actions
        .iter()
        .filter(|x| any_of(x, &f.void_at) && bears_on(x, label) && x.datetime() >= cited)
        .min_by_key(|x| x.datetime());
    if let Some(v) = void {
        fine.voided_by = Some(format!(
            "{}: the decision reverses the officer, so the fine is void and nothing accrued",
            said(v)
        ));
        fine.ended = Some(v.datetime());
        fine.until = v.datetime().min(as_of).max(from);
        return fine;
    }
    let stop = stop_of(case, f, cited, label);
    let closed = (!case.is_open())
        .then(|| case.closed_on.map(|d| d.and_time(NaiveTime::MIN)))
        .flatten();
    fine.ended = stop.as_ref().map(|s| s.0).or(closed);
    fine.stopped_by = stop.map(|s| s.1);
    let until = fine.ended.unwrap_or(as_of).min(as_of).max(from);
    let dollars = |p: i64| f.amount * f64::from(violations) * p as f64;
    fine.until = until;
    fine.periods = periods(f, until - from);
    if let Some(r) = pending_report(case, f, cited, label).filter(|r| r.datetime() < until) {
        let certain = r.datetime().max(from);
        let p = periods(f, certain - from);
        if p != fine.periods {
            fine.open_fact = Some(format!(
                "the {} of {} is neither confirmed nor refuted by the Town's re-inspection: if confirmed, accrual stopped at the report (${:.2}); if not, it runs on (${:.2} to {})",
                r.kind,
                r.on,
                dollars(p),
                dollars(fine.periods),
                until.format("%Y-%m-%d %H:%M")
            ));
            fine.accrued_if_unconfirmed = Some(dollars(fine.periods));
            fine.until = certain;
            fine.periods = p;
        }
    }
    fine.accrued = dollars(fine.periods);
    if let Some(q) = hour_open {
        fine.open_fact = Some(match fine.open_fact.take() {
            Some(o) => format!("{q}; {o}"),
            None => q,
        });
    }
    fine
}

/// What stops a stream, and when: the first `stops_at` action, or earlier, a report a
/// later re-inspection confirmed (the violation stopped when reported, not when the
/// Town came to see).
fn stop_of(
    case: &Case,
    f: &FineStep,
    from: NaiveDateTime,
    label: Option<&str>,
) -> Option<(NaiveDateTime, String)> {
    let direct = case
        .actions
        .iter()
        .filter(|x| any_of(x, &f.stops_at) && bears_on(x, label) && x.datetime() >= from)
        .min_by_key(|x| x.datetime());
    let confirmed = reports(case, f, from, label)
        .into_iter()
        .find_map(|(r, decided)| {
            decided
                .filter(|d| any_of(d, &f.confirmed_by))
                .map(|d| (r, d))
        });
    match (direct, confirmed) {
        (d, Some((r, c))) if d.is_none_or(|d| r.datetime() <= d.datetime()) => Some((
            r.datetime(),
            format!(
                "{}, confirmed by {}: accrual stops at the report (the Town's time to confirm is not billed)",
                said(r),
                said(c)
            ),
        )),
        (Some(d), _) => Some((d.datetime(), said(d))),
        _ => None,
    }
}

/// The first report no action has confirmed or refuted yet.
fn pending_report<'a>(
    case: &'a Case,
    f: &FineStep,
    from: NaiveDateTime,
    label: Option<&str>,
) -> Option<&'a Action> {
    reports(case, f, from, label)
        .into_iter()
        .find_map(|(r, decided)| decided.is_none().then_some(r))
}

/// The violator's reports from `from` on, in order, each with the first action after it
/// that confirmed or refuted it.
fn reports<'a>(
    case: &'a Case,
    f: &FineStep,
    from: NaiveDateTime,
    label: Option<&str>,
) -> Vec<(&'a Action, Option<&'a Action>)> {
    let Some(kind) = &f.report else {
        return Vec::new();
    };
    let mut rs: Vec<&Action> = case
        .actions
        .iter()
        .filter(|x| x.is(kind) && bears_on(x, label) && x.datetime() >= from)
        .collect();
    rs.sort_by_key(|x| x.datetime());
    rs.into_iter()
        .map(|r| {
            let decided = case
                .actions
                .iter()
                .filter(|x| {
                    (any_of(x, &f.confirmed_by) || any_of(x, &f.refuted_by))
                        && bears_on(x, label)
                        && x.datetime() >= r.datetime()
                        && !std::ptr::eq(*x, r)
                })
                .min_by_key(|x| x.datetime());
            (r, decided)
        })
        .collect()
}

/// `ms4 deadlines` and `GET /api/deadlines`: every case with a deadline or a fine.
#[derive(Debug, Clone, Serialize)]
pub struct DeadlinesAnswer {
    /// The time the answer is for.
    pub as_of: NaiveDateTime,
    /// The jurisdiction.
    pub jurisdiction: String,
    /// Deadlines due (not yet past), across cases.
    pub due: usize,
    /// Deadlines overdue, across cases.
    pub overdue: usize,
    /// Dollars accrued across cases.
    pub accrued: f64,
    /// Cases with a deadline or a fine, by id.
    pub cases: Vec<CaseDeadlines>,
    /// Where the profile has no enforcement steps, why nothing is listed.
    pub note: Option<String>,
}

/// The deadlines of every case; `open_only` leaves closed cases out.
pub fn all_deadlines(
    cases: &[Case],
    s: &IddeSettings,
    jurisdiction: &str,
    as_of: NaiveDateTime,
    open_only: bool,
) -> DeadlinesAnswer {
    let cal = Calendar::new(&s.holidays);
    let mut out: Vec<CaseDeadlines> = cases
        .iter()
        .filter(|c| !open_only || c.is_open())
        .map(|c| case_deadlines_on(c, s, &cal, as_of))
        .filter(|c| !c.deadlines.is_empty() || !c.fines.is_empty())
        .collect();
    out.sort_by(|a, b| a.case_id.cmp(&b.case_id));
    let count = |st: &str| {
        out.iter()
            .flat_map(|c| &c.deadlines)
            .filter(|d| d.status == st)
            .count()
    };
    DeadlinesAnswer {
        as_of,
        jurisdiction: jurisdiction.to_string(),
        due: count("due"),
        overdue: count("overdue"),
        accrued: out.iter().map(|c| c.accrued).sum::<f64>() + 0.0,
        note: (s.deadlines.is_empty() && s.fines.is_empty())
            .then(|| "the profile lists no enforcement deadlines or fines ([idde])".to_string()),
        cases: out,
    }
}

/// `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`; a day alone means its end.
pub fn parse_as_of(s: Option<&str>) -> Result<NaiveDateTime, String> {
    match s.map(str::trim) {
        None | Some("") => Ok(chrono::Utc::now().naive_utc()),
        Some(t) => NaiveDateTime::parse_from_str(t, "%Y-%m-%dT%H:%M")
            .or_else(|_| {
                NaiveDate::parse_from_str(t, "%Y-%m-%d")
                    .map(|d| d.and_hms_opt(23, 59, 59).expect("time"))
            })
            .map_err(|_| format!("as_of: {t:?} is not YYYY-MM-DD or YYYY-MM-DDTHH:MM")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Profile;

    fn case_with(kind: &str, on: &str) -> Case {
        serde_json::from_value(serde_json::json!({
            "case_id": "CASE-2026-0001",
            "opened_on": "2026-05-01",
            "origin": "screening",
            "status": "open",
            "candidates": [],
            "actions": [{"kind": kind, "on": on, "by": "Town Manager"}],
        }))
        .unwrap()
    }

    /// A profile built in code is not checked at load: the clock refuses a period no law
    /// gives by itself, at once, and still counts the case's other steps.
    #[test]
    fn a_hundred_million_business_days_are_not_counted_and_say_why_at_once() {
        let mut p = Profile::builtin("windsor-ct").unwrap();
        let step = p
            .idde
            .deadlines
            .iter_mut()
            .find(|d| d.rule == "windsor.fine_payment")
            .unwrap();
        step.business_days = Some(100_000_000);
        assert!(p.validate("windsor-ct.toml").is_err(), "refused at load");
        let case = case_with("citation_issued", "2026-05-04");
        let as_of = NaiveDate::from_ymd_opt(2026, 6, 1)
            .unwrap()
            .and_hms_opt(12, 0, 0)
            .unwrap();
        let t = std::time::Instant::now();
        let d = case_deadlines(&case, &p.idde, as_of);
        assert!(
            t.elapsed() < std::time::Duration::from_millis(100),
            "{:?}",
            t.elapsed()
        );
        assert_eq!(d.uncounted.len(), 1, "{:?}", d.uncounted);
        assert!(
            d.uncounted[0].starts_with("windsor.fine_payment: 100000000 business days"),
            "{:?}",
            d.uncounted
        );
        assert!(d.deadlines.iter().all(|x| x.rule != "windsor.fine_payment"));
        // The fines of the same citation are still counted.
        assert!(!d.fines.is_empty());
    }

    #[test]
    fn a_date_at_the_calendars_end_is_not_counted_and_does_not_panic() {
        let mut p = Profile::builtin("windsor-ct").unwrap();
        for step in &mut p.idde.deadlines {
            step.hours = step.hours.map(|_| u32::MAX);
        }
        let last = NaiveDate::MAX.to_string();
        let case = case_with("written_notice", &last);
        let d = case_deadlines(&case, &p.idde, NaiveDate::MAX.and_hms_opt(0, 0, 0).unwrap());
        assert!(!d.uncounted.is_empty(), "{d:?}");
        // Recorded without an hour, the 72 hours would start when that day ends: past
        // the calendar's last day, said as such.
        assert!(
            d.uncounted[0].starts_with("windsor.citation.written_notice_72h: ")
                && d.uncounted[0].contains("past the last date"),
            "{:?}",
            d.uncounted
        );
    }
}
