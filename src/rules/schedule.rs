//! Inspection schedules: which of the profile's `[schedules]` items an asset falls under,
//! when its next inspection is due from its latest one, and whether it is due or overdue
//! on a day. The one definition of "due" and "overdue" every answer uses (the CLI's and
//! the API's lists, the map's `overdue`, the watershed lists).
//!
//! Pure: the facts about an asset (its kind, priority, practice type) and its latest
//! inspection come in; finding them in a snapshot is `crate::answer::schedule`'s job.
//!
//! An asset no item covers takes the registry's default, every [`DEFAULT_EVERY_DAYS`]
//! days, and the answer says that is the default's reading ([`DEFAULT_READING`]), not the
//! town's law. Sites are the exception: a site's own schedule is the construction
//! programme's (`ms4 sites due`), so only a profile's `site` items put them here.

use chrono::{Days, Months, NaiveDate};
use serde::Serialize;

use super::monitoring::Priority;
use super::profile::{Inspector, IntervalUnit, ScheduleItem, ScheduleSettings, PE_WORDS};

/// Days between inspections of an asset no `[schedules]` item covers.
pub const DEFAULT_EVERY_DAYS: u32 = 365;

/// What an answer says of the default interval.
pub const DEFAULT_READING: &str = "the registry's default reading: at least one inspection every 365 days; the profile's [schedules] has no item for this asset (program setting, not from your law)";

/// Days ahead of its due day that an inspection is listed as due, unless asked otherwise.
pub const DEFAULT_WITHIN_DAYS: u32 = 30;

/// What the schedule needs to know of one asset.
#[derive(Debug, Clone, Copy, Default)]
pub struct AssetFacts<'a> {
    /// Its kind, one of the profile's schedule assets (`outfall`, `smp`, `site`...).
    pub asset: &'a str,
    /// Its priority, when worked out (outfalls and interconnections by the monitoring
    /// rule, sites as recorded).
    pub priority: Option<Priority>,
    /// An SMP's recorded practice type.
    pub practice_type: Option<&'a str>,
    /// Whether an SMP is recorded as structural.
    pub structural: Option<bool>,
}

/// The interval an asset is held to, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Requirement {
    /// Who must inspect.
    pub by: Inspector,
    /// How many `unit`s between inspections.
    pub every: u32,
    /// The unit.
    pub unit: IntervalUnit,
    /// Where it comes from: the item's citation, or [`DEFAULT_READING`].
    pub citation: String,
    /// The law's words, when the item quotes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
    /// Whether this is the registry's default, not an item of the profile.
    pub default_reading: bool,
}

impl Requirement {
    /// The registry's default: anyone, every 365 days.
    pub fn default_reading() -> Self {
        Requirement {
            by: Inspector::Anyone,
            every: DEFAULT_EVERY_DAYS,
            unit: IntervalUnit::Days,
            citation: DEFAULT_READING.into(),
            quote: None,
            default_reading: true,
        }
    }

    /// A flat interval of `days` a caller asked for instead of the schedule (a watershed
    /// list's `overdue_after_days`).
    pub fn days_asked(days: u32) -> Self {
        Requirement {
            by: Inspector::Anyone,
            every: days,
            unit: IntervalUnit::Days,
            citation: format!("every {days} days, as asked (overdue_after_days)"),
            quote: None,
            default_reading: false,
        }
    }

    fn of(item: &ScheduleItem) -> Self {
        Requirement {
            by: item.by,
            every: item.every,
            unit: item.unit,
            citation: item.citation.clone(),
            quote: item.quote.clone(),
            default_reading: false,
        }
    }

    /// The day the next inspection is due by, after one on `last`.
    pub fn next_due(&self, last: NaiveDate) -> NaiveDate {
        add(last, self.every, self.unit)
    }

    /// `every 6 months`, `every 365 days`.
    pub fn describe(&self) -> String {
        let unit = self.unit.as_str();
        if self.every == 1 {
            format!("every {}", unit.trim_end_matches('s'))
        } else {
            format!("every {} {unit}", self.every)
        }
    }
}

/// `last` plus `n` `unit`s (the last day of the month where the month is shorter).
fn add(last: NaiveDate, n: u32, unit: IntervalUnit) -> NaiveDate {
    let later = match unit {
        IntervalUnit::Days => last.checked_add_days(Days::new(n.into())),
        IntervalUnit::Weeks => last.checked_add_days(Days::new(u64::from(n) * 7)),
        IntervalUnit::Months => last.checked_add_months(Months::new(n)),
        IntervalUnit::Years => last.checked_add_months(Months::new(n.saturating_mul(12))),
    };
    later.unwrap_or(NaiveDate::MAX)
}

/// What holds an asset to an interval: an item of the profile, or the default. Borrowed,
/// so the map judges a feature without copying an item's words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Holds<'s> {
    /// A `[schedules]` item.
    Item(&'s ScheduleItem),
    /// The registry's default ([`DEFAULT_EVERY_DAYS`]).
    Default,
}

impl Holds<'_> {
    /// Who must inspect.
    pub fn by(self) -> Inspector {
        match self {
            Holds::Item(i) => i.by,
            Holds::Default => Inspector::Anyone,
        }
    }

    /// The day the next inspection is due by, after one on `last`.
    pub fn next_due(self, last: NaiveDate) -> NaiveDate {
        match self {
            Holds::Item(i) => add(last, i.every, i.unit),
            Holds::Default => add(last, DEFAULT_EVERY_DAYS, IntervalUnit::Days),
        }
    }

    /// The requirement, with its words, for an answer.
    pub fn requirement(self) -> Requirement {
        match self {
            Holds::Item(i) => Requirement::of(i),
            Holds::Default => Requirement::default_reading(),
        }
    }
}

/// Where an asset stands on a day.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// No inspection recorded: due now.
    NeverInspected,
    /// Past the day it was due by.
    Overdue,
    /// Due by a day within the window asked for.
    Due,
    /// Not due within the window.
    NotDue,
}

impl Standing {
    /// The word written in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Standing::NeverInspected => "never_inspected",
            Standing::Overdue => "overdue",
            Standing::Due => "due",
            Standing::NotDue => "not_due",
        }
    }

    /// What the map's `overdue` shows: never inspected, or past its day.
    pub fn is_overdue(self) -> bool {
        matches!(self, Standing::NeverInspected | Standing::Overdue)
    }
}

/// Where an asset last inspected on `last` (never, when none) stands on `as_of`, with
/// its next inspection due by `due_by`: overdue the day after `due_by`, due from
/// `within` days before it.
pub fn standing(
    last: Option<NaiveDate>,
    due_by: Option<NaiveDate>,
    as_of: NaiveDate,
    within: u32,
) -> Standing {
    match (last, due_by) {
        (None, _) | (_, None) => Standing::NeverInspected,
        (Some(_), Some(by)) if as_of > by => Standing::Overdue,
        (Some(_), Some(by)) if (by - as_of).num_days() <= i64::from(within) => Standing::Due,
        _ => Standing::NotDue,
    }
}

fn matches(item: &ScheduleItem, a: &AssetFacts<'_>) -> bool {
    let norm = super::profile::normalise_words;
    item.asset == a.asset
        && item.priority.is_none_or(|p| a.priority == Some(p))
        && item.structural.is_none_or(|s| a.structural == Some(s))
        && item
            .practice_type
            .as_deref()
            .is_none_or(|p| a.practice_type.is_some_and(|t| norm(t) == norm(p)))
}

fn specificity(item: &ScheduleItem) -> u8 {
    u8::from(item.priority.is_some())
        + u8::from(item.structural.is_some())
        + 2 * u8::from(item.practice_type.is_some())
}

/// What holds an asset: the routine interval (the most specific matching item, the
/// first of equals; else the default, but for a site, which has none), then each other
/// inspector's (a professional engineer's) whose item matches.
pub fn holds<'s>(s: &'s ScheduleSettings, a: &AssetFacts<'_>) -> [Option<Holds<'s>>; 2] {
    let best = |by: Inspector| {
        s.items
            .iter()
            .filter(|i| i.by == by && matches(i, a))
            // max_by_key keeps the last of equals: reverse so the first in the file wins.
            .rev()
            .max_by_key(|i| specificity(i))
    };
    let routine = match best(Inspector::Anyone) {
        Some(i) => Some(Holds::Item(i)),
        None if a.asset != "site" => Some(Holds::Default),
        None => None,
    };
    [
        routine,
        best(Inspector::ProfessionalEngineer).map(Holds::Item),
    ]
}

/// The requirements an asset is held to, with their words ([`holds`]).
pub fn requirements(s: &ScheduleSettings, a: &AssetFacts<'_>) -> Vec<Requirement> {
    holds(s, a)
        .into_iter()
        .flatten()
        .map(Holds::requirement)
        .collect()
}

/// Whether an inspection's `inspector` names a professional engineer ([`PE_WORDS`], as
/// whole words, dots and case ignored).
pub fn by_engineer(inspector: &str) -> bool {
    let words = super::profile::normalise_words(&inspector.replace('.', " "));
    let padded = format!(" {words} ");
    PE_WORDS.iter().any(|w| padded.contains(&format!(" {w} ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engineer_is_named_by_title_or_letters() {
        assert!(by_engineer("J. Smith, P.E."));
        assert!(by_engineer("Professional Engineer A. Jones"));
        assert!(by_engineer("PE"));
        assert!(!by_engineer("Pete Smith"));
        assert!(!by_engineer("SMO"));
    }

    #[test]
    fn a_month_after_the_last_day_of_january_is_the_last_of_february() {
        let r = Requirement {
            every: 1,
            unit: IntervalUnit::Months,
            ..Requirement::default_reading()
        };
        let d = |s: &str| s.parse::<NaiveDate>().unwrap();
        assert_eq!(r.next_due(d("2027-01-31")), d("2027-02-28"));
        assert_eq!(r.describe(), "every month");
    }
}
