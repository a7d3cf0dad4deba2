//! The permit calendar: each programme item of the profile's `[calendar]` computed into
//! what is due, what is done (with the record that shows it) and what is overdue on a
//! day.
//!
//! The records that show an item done are the registry's own. An item per
//! illicit-discharge case is done by an action logged on the case within its days (the
//! earliest is the evidence). The annual report, the interim certifications and the
//! mapping phases are done by a programme submission recorded for the occurrence
//! (`ms4 calendar record`, `POST /api/calendar/records`; see [`crate::programme`]): the
//! occurrence is `done` with the submission as its evidence, or `done_late` with the days
//! it was late when it was submitted after its day; a submission made after the day
//! judged on does not count yet. Once its day has passed with no submission recorded the
//! occurrence is `not_recorded`, never overdue (missing evidence is not a "no"), and the
//! entry says how to record it. An item whose source is not the permit's text, read, is
//! stated as the profile's reading, an open fact.

use std::ops::RangeInclusive;

use chrono::{Datelike, Months, NaiveDate};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::places::{Place, Places};
use super::{Ask, AskError};
use crate::domain::Layer;
use crate::programme::submission::{all_submissions, Submission};
use crate::rules::profile::{month_day, year_start, CalendarItem, DueRule};
use crate::rules::schedule::DEFAULT_WITHIN_DAYS;

/// `ms4 calendar` and `GET /api/calendar`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CalendarParams {
    /// The day to judge on, YYYY-MM-DD (default: today).
    #[arg(long)]
    pub as_of: Option<String>,
    /// List an item as due this many days before its day (default 30).
    #[arg(long)]
    #[schemars(range(max = 3660))]
    pub within_days: Option<u32>,
}

impl CalendarParams {
    /// The day asked for, or `today`.
    pub fn day(&self, today: NaiveDate) -> Result<NaiveDate, AskError> {
        match self.as_of.as_deref() {
            None => Ok(today),
            Some(s) => s.trim().parse().map_err(|_| {
                AskError::invalid("as_of", format!("{s:?} is not a date, YYYY-MM-DD"))
            }),
        }
    }
}

/// Where an entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryStatus {
    /// Past its day with no record that shows it done, where the registry holds such
    /// records.
    Overdue,
    /// Past its day with no submission recorded for it: the registry cannot say it was
    /// not done, only that it holds no record; the entry says how to record one.
    NotRecorded,
    /// Its day falls within the window.
    Due,
    /// Done: the evidence says by which record.
    Done,
    /// Done after its day: the evidence says by which record, `late_by_days` how late.
    DoneLate,
    /// Its day is further off than the window.
    Upcoming,
}

/// The record that shows an entry done.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DoneEvidence {
    /// The layer of the record.
    pub layer: Layer,
    /// Its id.
    pub id: String,
    /// What it is (`site_visit logged on the case`).
    pub record: String,
    /// Its day.
    pub on: NaiveDate,
}

/// One occurrence of a programme item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CalendarEntry {
    /// The item's id.
    pub item: String,
    /// What is due.
    pub title: String,
    /// The due rule, in words.
    pub rule: String,
    /// The day it is due by.
    pub due_on: NaiveDate,
    /// The case it is for, for a per-case item.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_id: Option<String>,
    /// Where it stands.
    pub status: EntryStatus,
    /// The record that shows it done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<DoneEvidence>,
    /// For an occurrence done after its day: how many days after.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_by_days: Option<i64>,
    /// For an occurrence past or due with no submission recorded: how to record it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_record: Option<String>,
    /// Where the item comes from.
    pub citation: String,
    /// Whether that is the permit's own text, read.
    pub confirmed: bool,
}

/// The calendar on a day.
#[derive(Debug, Clone, Serialize)]
pub struct CalendarAnswer {
    /// The jurisdiction.
    pub jurisdiction: String,
    /// The day judged on.
    pub as_of: NaiveDate,
    /// Days ahead an item is listed as due.
    pub within_days: u32,
    /// Said when the profile has no `[calendar]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The items stated as the profile's reading, not the permit's text read.
    pub open_facts: Vec<String>,
    /// Each occurrence, by day.
    pub entries: Vec<CalendarEntry>,
}

impl Places for CalendarAnswer {
    /// The cases of per-case entries.
    fn places(&self) -> Vec<Place> {
        self.entries
            .iter()
            .filter_map(|e| {
                let id = e.case_id.as_deref()?;
                Some(Place::feature(Layer::Cases, id, super::places::fields(e)))
            })
            .collect()
    }
}

/// The calendar on the day asked.
pub fn calendar(ask: &Ask<'_>, p: &CalendarParams) -> Result<CalendarAnswer, AskError> {
    let as_of = p.day(chrono::Local::now().date_naive())?;
    let within = p.within_days.unwrap_or(DEFAULT_WITHIN_DAYS);
    let profile = ask.profile;
    let items = &profile.calendar.items;
    let submissions = all_submissions(ask.snap);
    let mut entries = Vec::new();
    for item in items {
        entries.extend(occurrences(ask, item, as_of, within, &submissions));
    }
    entries.sort_by(|a, b| {
        a.due_on
            .cmp(&b.due_on)
            .then_with(|| a.item.cmp(&b.item))
            .then_with(|| a.case_id.cmp(&b.case_id))
    });
    Ok(CalendarAnswer {
        jurisdiction: profile.id.clone(),
        as_of,
        within_days: within,
        note: items.is_empty().then(|| {
            format!(
                "the profile of {} has no [calendar]: no programme item is computed until it is written",
                profile.name
            )
        }),
        open_facts: items
            .iter()
            .filter(|i| !i.confirmed)
            .map(|i| {
                format!(
                    "{} ({}): the profile's reading, source: {}; not read in the permit's own text",
                    i.title, i.id, i.citation
                )
            })
            .collect(),
        entries,
    })
}

fn entry(item: &CalendarItem, due_on: NaiveDate, status: EntryStatus) -> CalendarEntry {
    CalendarEntry {
        item: item.id.clone(),
        title: item.title.clone(),
        rule: describe(item),
        due_on,
        case_id: None,
        status,
        evidence: None,
        late_by_days: None,
        to_record: None,
        citation: item.citation.clone(),
        confirmed: item.confirmed,
    }
}

/// The due rule in words.
pub fn describe(item: &CalendarItem) -> String {
    let on = item.on.as_deref().unwrap_or("");
    match item.rule {
        DueRule::Yearly => format!("each year by {on} (MM-DD): a submission recorded"),
        DueRule::Once => format!("once, by {on}: a submission recorded"),
        DueRule::EveryMonths => format!(
            "every {} months from the reporting year's start: a submission recorded",
            item.months.unwrap_or(0)
        ),
        DueRule::PerCase => {
            let of = if item.case_origins.is_empty() {
                "each illicit-discharge case".to_string()
            } else {
                format!("each case from a {}", item.case_origins.join(" or "))
            };
            format!(
                "within {} days of {of} opening: an action logged on the case",
                item.days.unwrap_or(0)
            )
        }
    }
}

/// Where a day stands before its submissions are read: past, not recorded; else due or
/// upcoming.
fn by_day(due_on: NaiveDate, as_of: NaiveDate, within: u32) -> EntryStatus {
    if due_on < as_of {
        EntryStatus::NotRecorded
    } else if (due_on - as_of).num_days() <= i64::from(within) {
        EntryStatus::Due
    } else {
        EntryStatus::Upcoming
    }
}

/// The days an item not per case falls due in the years `years`, in order: a yearly
/// item's day in each, a once item's day if it falls in them, an every-months item's days
/// counted from each reporting year's start (`reporting_year_start`, `MM-DD`). A per-case
/// item has none: its days are its cases'.
pub fn due_days(
    item: &CalendarItem,
    reporting_year_start: &str,
    years: RangeInclusive<i32>,
) -> Vec<NaiveDate> {
    let mut days: Vec<NaiveDate> = match item.rule {
        DueRule::Once => item
            .on
            .as_deref()
            .and_then(|d| d.parse().ok())
            .into_iter()
            .collect(),
        DueRule::Yearly => match item.on.as_deref().and_then(month_day) {
            Some((m, d)) => years.clone().filter_map(|y| day_in(y, m, d)).collect(),
            None => Vec::new(),
        },
        DueRule::EveryMonths => {
            let step = item.months.unwrap_or(12).max(1);
            let (m, d) = year_start(reporting_year_start).unwrap_or((1, 1));
            let mut days = Vec::new();
            // A reporting year that starts the year before counts into these years.
            for y in years.start() - 1..=*years.end() {
                let Some(start) = day_in(y, m, d) else {
                    continue;
                };
                let mut k = 1;
                while k * step <= 12 {
                    if let Some(x) = start.checked_add_months(Months::new(k * step)) {
                        days.push(x);
                    }
                    k += 1;
                }
            }
            days
        }
        DueRule::PerCase => Vec::new(),
    };
    days.retain(|d| years.contains(&d.year()));
    days.sort();
    days.dedup();
    days
}

/// Whether `day` is one of the days an item not per case falls due.
pub fn is_due_day(item: &CalendarItem, reporting_year_start: &str, day: NaiveDate) -> bool {
    due_days(item, reporting_year_start, day.year()..=day.year()).contains(&day)
}

/// The item's days nearest `day` (the last before it and the first after), to say what
/// would do when a day is not one of them.
pub fn nearest_due_days(
    item: &CalendarItem,
    reporting_year_start: &str,
    day: NaiveDate,
) -> (Option<NaiveDate>, Option<NaiveDate>) {
    let days = due_days(item, reporting_year_start, day.year() - 2..=day.year() + 2);
    (
        days.iter().copied().filter(|d| *d < day).max(),
        days.iter().copied().filter(|d| *d > day).min(),
    )
}

/// The occurrences of an item the day asked needs: a periodic item's last day before it
/// and its next; a once item's day; a per-case item's day for every case. Each but a
/// per-case one is judged by the submissions recorded for it.
fn occurrences(
    ask: &Ask<'_>,
    item: &CalendarItem,
    as_of: NaiveDate,
    within: u32,
    submissions: &[Submission],
) -> Vec<CalendarEntry> {
    let judged =
        |d: NaiveDate| submitted(entry(item, d, by_day(d, as_of, within)), submissions, as_of);
    let start = &ask.profile.idde.reporting_year_start;
    let days = due_days(item, start, as_of.year() - 1..=as_of.year() + 1);
    match item.rule {
        DueRule::PerCase => per_case(ask, item, as_of, within),
        DueRule::Once => days.into_iter().map(judged).collect(),
        DueRule::Yearly | DueRule::EveryMonths => {
            let last = days.iter().copied().filter(|d| *d < as_of).max();
            let next = days.iter().copied().filter(|d| *d >= as_of).min();
            last.into_iter().chain(next).map(judged).collect()
        }
    }
}

/// An occurrence as the submissions recorded by `as_of` leave it: done by the earliest
/// submission for it (late when made after its day); else, past or due, with how to
/// record one.
fn submitted(mut e: CalendarEntry, submissions: &[Submission], as_of: NaiveDate) -> CalendarEntry {
    let done = submissions
        .iter()
        .filter(|s| s.item_id == e.item && s.for_due_on == e.due_on && s.submitted_on <= as_of)
        .min_by_key(|s| s.submitted_on);
    match done {
        Some(s) => {
            let late = (s.submitted_on - e.due_on).num_days();
            e.status = if late > 0 {
                EntryStatus::DoneLate
            } else {
                EntryStatus::Done
            };
            e.late_by_days = (late > 0).then_some(late);
            e.evidence = Some(DoneEvidence {
                layer: Layer::ProgrammeSubmissions,
                id: s.submission_id.clone(),
                record: s.describe(),
                on: s.submitted_on,
            });
        }
        None if matches!(e.status, EntryStatus::NotRecorded | EntryStatus::Due) => {
            e.to_record = Some(format!(
                "no submission recorded: record it with `ms4 calendar record --item {0} --for-due-on {1} --submitted-on YYYY-MM-DD --by NAME [--reference R]` or POST /api/calendar/records {{\"item_id\": \"{0}\", \"for_due_on\": \"{1}\", \"submitted_on\": \"YYYY-MM-DD\", \"submitted_by\": \"NAME\"}}",
                e.item, e.due_on
            ));
        }
        None => {}
    }
    e
}

/// A month and day in year `y`; 29 February is the 28th in a common year.
fn day_in(y: i32, m: u32, d: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(y, m, d).or_else(|| NaiveDate::from_ymd_opt(y, m, d - 1))
}

/// One entry per case of the item's origins: done by the earliest action logged within
/// its days, else overdue past them, else due.
fn per_case(
    ask: &Ask<'_>,
    item: &CalendarItem,
    as_of: NaiveDate,
    within: u32,
) -> Vec<CalendarEntry> {
    let days = u64::from(item.days.unwrap_or(0));
    let (cases, _unreadable) = crate::idde::case::all_cases(ask.snap);
    cases
        .iter()
        .filter(|c| {
            item.case_origins.is_empty() || item.case_origins.iter().any(|o| o == c.origin.as_str())
        })
        .filter(|c| c.opened_on <= as_of)
        .map(|c| {
            let due_on = c.opened_on + chrono::Days::new(days);
            let done = c
                .actions
                .iter()
                .filter(|a| a.on >= c.opened_on && a.on <= due_on && a.on <= as_of)
                .min_by_key(|a| a.on);
            let mut e = entry(item, due_on, EntryStatus::Upcoming);
            e.case_id = Some(c.case_id.clone());
            match done {
                Some(a) => {
                    e.status = EntryStatus::Done;
                    e.evidence = Some(DoneEvidence {
                        layer: Layer::Cases,
                        id: c.case_id.clone(),
                        record: format!("{} logged on the case", a.kind.as_str()),
                        on: a.on,
                    });
                }
                None if due_on < as_of => e.status = EntryStatus::Overdue,
                None if (due_on - as_of).num_days() <= i64::from(within) => {
                    e.status = EntryStatus::Due;
                }
                None => {}
            }
            e
        })
        .collect()
}
