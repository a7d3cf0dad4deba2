//! Deadlines and fines of a case, computed from the profile's enforcement steps
//! (`[[idde.deadlines]]`, `[[idde.fines]]`) and the actions logged on the case: never
//! stored, never typed, so a corrected action date moves every deadline after it.
//!
//! A step counted in hours runs from the minute of its start; one counted in days or
//! business days ends with its last day. A notice served by mail starts its period only
//! after the step's `mail_business_days` (Windsor's three), at the time of day it was
//! mailed: the law says when the period commences, not at what hour, and the answer says
//! which reading it took.

use chrono::{NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::calendar::{self, Calendar, ClockError};
use super::case::{Action, Case};
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
    /// When the period started.
    pub starts: NaiveDateTime,
    /// The last day.
    pub due_on: NaiveDate,
    /// For a period in hours, the minute it ends.
    pub due_at: Option<NaiveDateTime>,
    /// due, overdue, met, met_late, lapsed (a window unused) or moot (the case closed
    /// before it was met).
    pub status: String,
    /// The day an action met it.
    pub met_on: Option<NaiveDate>,
    /// How it was counted, in words.
    pub counted: String,
    /// The weekend days and holidays a business-day count skipped.
    pub skipped: Vec<String>,
    /// The reading taken where the law is open.
    pub assumption: Option<String>,
}

/// A fine accrued on one case under one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Fine {
    /// The rule id.
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// From when.
    pub from: NaiveDateTime,
    /// Until when it was counted: the stopping action, or the time asked about.
    pub until: NaiveDateTime,
    /// What stopped it, if anything has.
    pub stopped_by: Option<String>,
    /// Violations cited.
    pub violations: u32,
    /// Periods counted (1 for a one-off fine).
    pub periods: i64,
    /// Dollars per violation per period.
    pub amount: f64,
    /// Dollars accrued: amount × violations × periods.
    pub accrued: f64,
    /// The amount is the law's maximum: a court or board may set less.
    pub maximum: bool,
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
    /// Dollars accrued, all fines.
    pub accrued: f64,
    /// The steps the clock could not count, each with its rule id and why (a date past
    /// the calendar's end in the record, a period over the profile's bounds); left out
    /// of the deadlines, and the case's other deadlines still counted.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncounted: Vec<String>,
}

fn end_of(d: NaiveDate) -> NaiveDateTime {
    d.and_hms_opt(23, 59, 59).expect("a valid time")
}

fn triggers<'a>(case: &'a Case, kind: &str, outcome: Option<&str>) -> Option<&'a Action> {
    case.actions
        .iter()
        .filter(|a| a.kind == kind && outcome.is_none_or(|o| a.outcome.as_deref() == Some(o)))
        .max_by_key(|a| a.datetime())
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
        match one_deadline(
            case,
            step,
            &done,
            cal,
            s.periods_roll_to_business_day,
            as_of,
        ) {
            Ok(Some(d)) => done.push(d),
            Ok(None) => {}
            Err(e) => uncounted.push(format!("{}: {e}", step.rule)),
        }
    }
    let fines: Vec<Fine> = s
        .fines
        .iter()
        .flat_map(|f| case_fines(case, f, as_of))
        .collect();
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

fn one_deadline(
    case: &Case,
    step: &DeadlineStep,
    earlier: &[Deadline],
    cal: &Calendar<'_>,
    rolls: bool,
    as_of: NaiveDateTime,
) -> Result<Option<Deadline>, ClockError> {
    let mut counted = Vec::new();
    let mut skipped = Vec::new();
    let (mut start, met_from) = match (&step.trigger, &step.after) {
        (Some(kind), _) => {
            let Some(a) = triggers(case, kind, step.trigger_outcome.as_deref()) else {
                return Ok(None);
            };
            counted.push(format!(
                "{} on {}",
                a.kind,
                a.datetime().format("%Y-%m-%d %H:%M")
            ));
            let mut start = a.datetime();
            if let (Some(n), Some("mail")) = (step.mail_business_days, a.method.as_deref()) {
                let day = cal.add_business_days(a.on, n)?;
                skipped.extend(cal.skipped(a.on, day));
                counted.push(format!(
                    "mailed: {n} business days allowed for delivery, to {day}"
                ));
                start = day.and_time(start.time());
            }
            (start, a.datetime())
        }
        (None, Some(prev)) => {
            let Some(p) = earlier.iter().find(|d| &d.rule == prev) else {
                return Ok(None);
            };
            let end = p.due_at.unwrap_or_else(|| end_of(p.due_on));
            counted.push(format!(
                "after {prev} expired ({})",
                end.format("%Y-%m-%d %H:%M")
            ));
            (end, p.starts)
        }
        _ => return Ok(None),
    };
    let (due_on, due_at) = if let Some(h) = step.hours {
        let end = calendar::add_hours(start, h)?;
        counted.push(format!("{h} hours from {}", start.format("%Y-%m-%d %H:%M")));
        (end.date(), Some(end))
    } else if let Some(n) = step.days {
        counted.push(format!("{n} days from {}", start.date()));
        let end = calendar::add_days(start.date(), n)?;
        (roll(cal, rolls, end, &mut counted, &mut skipped)?, None)
    } else {
        let n = step.business_days.unwrap_or(0);
        let day = cal.add_business_days(start.date(), n)?;
        skipped.extend(cal.skipped(start.date(), day));
        counted.push(format!("{n} business days from {}", start.date()));
        (day, None)
    };
    let deadline = due_at.unwrap_or_else(|| end_of(due_on));
    let met = case
        .actions
        .iter()
        .filter(|a| step.met_by.iter().any(|k| a.is(k)) && a.datetime() >= met_from)
        .min_by_key(|a| a.datetime());
    let status = match met {
        Some(a) if a.datetime() <= deadline => "met",
        Some(_) => "met_late",
        None if !case.is_open() && !step.survives_closure => "moot",
        None if as_of > deadline && step.window => "lapsed",
        None if as_of > deadline => "overdue",
        None => "due",
    };
    // `start` is the period's start; reassigned only for the mail allowance above.
    start = start.min(deadline);
    Ok(Some(Deadline {
        rule: step.rule.clone(),
        citation: step.citation.clone(),
        what: step.what.clone(),
        starts: start,
        due_on,
        due_at,
        status: status.into(),
        met_on: met.map(|a| a.on),
        counted: counted.join("; "),
        skipped,
        assumption: step.assumption.clone(),
    }))
}

/// The fines of a case as of `as_of`, without its deadlines (what the report sums).
pub fn fines_of(case: &Case, s: &IddeSettings, as_of: NaiveDateTime) -> Vec<Fine> {
    s.fines
        .iter()
        .flat_map(|f| case_fines(case, f, as_of))
        .collect()
}

fn case_fines(case: &Case, f: &FineStep, as_of: NaiveDateTime) -> Vec<Fine> {
    case.actions
        .iter()
        .filter(|a| a.kind == f.trigger)
        .map(|a| {
            let from = a.datetime();
            let stop = case
                .actions
                .iter()
                .filter(|s| f.stops_at.iter().any(|k| s.is(k)) && s.datetime() >= from)
                .min_by_key(|s| s.datetime());
            let closed = (!case.is_open())
                .then(|| case.closed_on.map(|d| d.and_time(chrono::NaiveTime::MIN)))
                .flatten();
            let until = stop
                .map(|s| s.datetime())
                .or(closed)
                .unwrap_or(as_of)
                .min(as_of)
                .max(from);
            let elapsed = until - from;
            // A period of 0 (refused at load) is read as none: a one-off fine.
            let periods = match (f.per_hours, f.per_days) {
                (Some(h), _) if h > 0 => elapsed.num_hours() / i64::from(h),
                (_, Some(d)) if d > 0 => elapsed.num_days() / i64::from(d) + 1,
                _ => 1,
            };
            let violations = a.violations.unwrap_or(1);
            Fine {
                rule: f.rule.clone(),
                citation: f.citation.clone(),
                from,
                until,
                stopped_by: stop.map(|s| format!("{} on {}", s.kind, s.on)),
                violations,
                periods,
                amount: f.amount,
                accrued: f.amount * violations as f64 * periods as f64,
                maximum: f.maximum,
            }
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
        assert!(d.uncounted[0].contains("hours"), "{:?}", d.uncounted);
    }
}
