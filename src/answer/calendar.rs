//! The permit calendar: each programme item of the profile's `[calendar]` computed into
//! what is due, what is done (with the record that shows it) and what is overdue on a
//! day.
//!
//! The records that show an item done are the registry's own: for an item per
//! illicit-discharge case, an action logged on the case within its days (the earliest
//! is the evidence). The annual report, the interim certifications and the mapping
//! phases have no record in the registry yet, so once their day has passed the answer
//! says it holds no record (`not_recorded`) rather than calling them done or overdue.
//! An item whose source is not the permit's text, read, is stated as the profile's
//! reading, an open fact.

use chrono::{Datelike, Months, NaiveDate};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::places::{Place, Places};
use super::{Ask, AskError};
use crate::domain::Layer;
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
    /// Past its day; the registry holds no kind of record that would show it done.
    NotRecorded,
    /// Its day falls within the window.
    Due,
    /// Done: the evidence says by which record.
    Done,
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
    let mut entries = Vec::new();
    for item in items {
        entries.extend(occurrences(ask, item, as_of, within));
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
        citation: item.citation.clone(),
        confirmed: item.confirmed,
    }
}

/// The due rule in words.
pub fn describe(item: &CalendarItem) -> String {
    let on = item.on.as_deref().unwrap_or("");
    match item.rule {
        DueRule::Yearly => format!("each year by {on} (MM-DD)"),
        DueRule::Once => format!("once, by {on}"),
        DueRule::EveryMonths => format!(
            "every {} months from the reporting year's start",
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

/// Where a day with no possible record stands: past, not recorded; else due or upcoming.
fn by_day(due_on: NaiveDate, as_of: NaiveDate, within: u32) -> EntryStatus {
    if due_on < as_of {
        EntryStatus::NotRecorded
    } else if (due_on - as_of).num_days() <= i64::from(within) {
        EntryStatus::Due
    } else {
        EntryStatus::Upcoming
    }
}

/// The occurrences of an item the day asked needs: a periodic item's last day before it
/// and its next; a once item's day; a per-case item's day for every case.
fn occurrences(
    ask: &Ask<'_>,
    item: &CalendarItem,
    as_of: NaiveDate,
    within: u32,
) -> Vec<CalendarEntry> {
    let periodic = |days: Vec<NaiveDate>| -> Vec<CalendarEntry> {
        let last = days.iter().copied().filter(|d| *d < as_of).max();
        let next = days.iter().copied().filter(|d| *d >= as_of).min();
        last.into_iter()
            .chain(next)
            .map(|d| entry(item, d, by_day(d, as_of, within)))
            .collect()
    };
    match item.rule {
        DueRule::Once => match item.on.as_deref().and_then(|d| d.parse().ok()) {
            Some(d) => vec![entry(item, d, by_day(d, as_of, within))],
            None => Vec::new(),
        },
        DueRule::Yearly => {
            let Some((m, d)) = item.on.as_deref().and_then(month_day) else {
                return Vec::new();
            };
            periodic(
                (as_of.year() - 1..=as_of.year() + 1)
                    .filter_map(|y| day_in(y, m, d))
                    .collect(),
            )
        }
        DueRule::EveryMonths => {
            let step = item.months.unwrap_or(12).max(1);
            let (m, d) = year_start(&ask.profile.idde.reporting_year_start).unwrap_or((1, 1));
            let mut days = Vec::new();
            for y in as_of.year() - 2..=as_of.year() + 1 {
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
            days.sort();
            days.dedup();
            periodic(days)
        }
        DueRule::PerCase => per_case(ask, item, as_of, within),
    }
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
