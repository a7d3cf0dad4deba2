//! Business days: weekdays that are not one of the jurisdiction's holidays (its
//! `[[idde.holidays]]`), so a deadline "in two business days" skips a weekend and a
//! holiday as the town's offices do.
//!
//! Every walk over days is bounded whatever the data: a count over the profile's bound
//! ([`MAX_BUSINESS_DAYS`]) is refused before any day is walked, a walk that meets no
//! business day for [`MAX_WALK_DAYS`] days (a calendar of holidays only) stops, and a
//! date past the calendar's end is an error, never a panic.

use chrono::{Datelike, NaiveDate, NaiveDateTime, Weekday};
use rustc_hash::FxHashMap;

use crate::rules::bounds::{MAX_BUSINESS_DAYS, MAX_DAYS, MAX_HOURS};
use crate::rules::Holiday;

/// The most calendar days a business-day count walks: twice the longest count's span,
/// far more than weekends and any list of holidays add.
pub const MAX_WALK_DAYS: i64 = 2 * MAX_DAYS as i64 + 366;

/// Why the clock could not count a period.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClockError {
    /// A longer period than any law gives.
    #[error("{n} {unit} is more than the {max} a period may run (ten years)")]
    TooLong {
        /// The count asked for.
        n: u32,
        /// Its unit: `hours`, `days` or `business days`.
        unit: &'static str,
        /// The bound.
        max: u32,
    },
    /// The calendar's holidays leave no business day within the walk's bound.
    #[error(
        "no {n} business days after {from} within {MAX_WALK_DAYS} days: the holidays leave too few"
    )]
    TooFewBusinessDays {
        /// The start.
        from: NaiveDate,
        /// The count asked for.
        n: u32,
    },
    /// A date past the last (or before the first) the calendar holds.
    #[error("{from} plus {span} is past the last date the calendar holds")]
    OutOfRange {
        /// The start.
        from: String,
        /// What was added, in words (`3 days`).
        span: String,
    },
}

/// The years whose holidays a calendar works out once, when it is made; a day outside
/// them is worked out when asked.
const YEARS: std::ops::RangeInclusive<i32> = 2000..=2060;

/// A jurisdiction's working calendar.
#[derive(Debug, Clone)]
pub struct Calendar<'a> {
    holidays: &'a [Holiday],
    // Every holiday of YEARS by date: deadlines over ten thousand cases ask it often.
    dates: FxHashMap<NaiveDate, &'a str>,
}

impl<'a> Calendar<'a> {
    /// The calendar of these holidays.
    pub fn new(holidays: &'a [Holiday]) -> Self {
        let mut dates = FxHashMap::default();
        for y in YEARS {
            for h in holidays {
                if let Some(d) = h.date_in(y) {
                    dates.entry(d).or_insert(h.name.as_str());
                }
            }
        }
        Calendar { holidays, dates }
    }

    /// The holiday the town observes on `d`, if any. A fixed holiday observed on the
    /// Friday before can fall in the year before (1 January on a Saturday), so the next
    /// year's dates are checked too.
    pub fn holiday(&self, d: NaiveDate) -> Option<&'a str> {
        if YEARS.contains(&d.year()) && YEARS.contains(&(d.year() + 1)) {
            return self.dates.get(&d).copied();
        }
        self.holidays
            .iter()
            .find(|h| h.date_in(d.year()) == Some(d) || h.date_in(d.year() + 1) == Some(d))
            .map(|h| h.name.as_str())
    }

    /// Whether `d` is a business day.
    pub fn is_business_day(&self, d: NaiveDate) -> bool {
        !matches!(d.weekday(), Weekday::Sat | Weekday::Sun) && self.holiday(d).is_none()
    }

    /// The `n`th business day after `d` (`d` itself when `n` is 0). Refused, before
    /// any day is walked, when `n` is over [`MAX_BUSINESS_DAYS`]; an error when the walk
    /// finds too few business days or leaves the calendar's dates.
    pub fn add_business_days(&self, d: NaiveDate, n: u32) -> Result<NaiveDate, ClockError> {
        too_long(n, "business days", MAX_BUSINESS_DAYS)?;
        let mut day = d;
        let mut left = n;
        let mut walked = 0;
        while left > 0 {
            if walked == MAX_WALK_DAYS {
                return Err(ClockError::TooFewBusinessDays { from: d, n });
            }
            day = day.succ_opt().ok_or_else(|| ClockError::OutOfRange {
                from: d.to_string(),
                span: format!("{n} business days"),
            })?;
            walked += 1;
            if self.is_business_day(day) {
                left -= 1;
            }
        }
        Ok(day)
    }

    /// The first business day on or after `d`: where a period of days that ends on a
    /// Saturday, Sunday or holiday ends when the law rolls it (N.Y. Gen. Constr. Law
    /// § 25-a: "the act may be done on the next succeeding business day").
    pub fn next_business_day_from(&self, d: NaiveDate) -> Result<NaiveDate, ClockError> {
        if self.is_business_day(d) {
            return Ok(d);
        }
        self.add_business_days(d, 1)
    }

    /// The days skipped between `from` (exclusive) and `to` (inclusive) that were not
    /// business days, with why: what an answer shows so a reader can check the count.
    /// At most [`MAX_WALK_DAYS`] days are looked at.
    pub fn skipped(&self, from: NaiveDate, to: NaiveDate) -> Vec<String> {
        let mut out = Vec::new();
        let days = std::iter::successors(from.succ_opt(), |d| d.succ_opt())
            .take_while(|d| *d <= to)
            .take(MAX_WALK_DAYS as usize);
        for d in days {
            if let Some(h) = self.holiday(d) {
                out.push(format!("{d} ({h})"));
            } else if matches!(d.weekday(), Weekday::Sat | Weekday::Sun) {
                out.push(format!("{d} ({})", d.format("%A")));
            }
        }
        out
    }
}

/// The last second of day `d`: where a period "of that day" ends.
pub fn end_of(d: NaiveDate) -> NaiveDateTime {
    d.and_hms_opt(23, 59, 59).expect("a valid time")
}

/// A time of day written `HH:MM`, as an action's `at` gives it; none when it is not one.
pub fn time_of_day(t: &str) -> Option<chrono::NaiveTime> {
    chrono::NaiveTime::parse_from_str(t, "%H:%M").ok()
}

/// When something recorded on day `on` at `at` (`HH:MM`) happened, to the minute: the
/// start of its day when no time (or no readable time) was recorded.
pub fn at_time(on: NaiveDate, at: Option<&str>) -> NaiveDateTime {
    on.and_time(at.and_then(time_of_day).unwrap_or(chrono::NaiveTime::MIN))
}

/// `d` and `n` calendar days (at most [`MAX_DAYS`]).
pub fn add_days(d: NaiveDate, n: u32) -> Result<NaiveDate, ClockError> {
    too_long(n, "days", MAX_DAYS)?;
    d.checked_add_days(chrono::Days::new(n.into()))
        .ok_or_else(|| ClockError::OutOfRange {
            from: d.to_string(),
            span: format!("{n} days"),
        })
}

/// `t` and `h` hours (at most [`MAX_HOURS`]).
pub fn add_hours(t: NaiveDateTime, h: u32) -> Result<NaiveDateTime, ClockError> {
    too_long(h, "hours", MAX_HOURS)?;
    t.checked_add_signed(chrono::Duration::hours(h.into()))
        .ok_or_else(|| ClockError::OutOfRange {
            from: t.format("%Y-%m-%d %H:%M").to_string(),
            span: format!("{h} hours"),
        })
}

fn too_long(n: u32, unit: &'static str, max: u32) -> Result<(), ClockError> {
    if n > max {
        return Err(ClockError::TooLong { n, unit, max });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn business_days_skip_the_weekend_and_a_holiday() {
        let hs = vec![Holiday {
            name: "Memorial Day".into(),
            month: 5,
            day: None,
            weekday: Some("mon".into()),
            nth: Some(-1),
            easter_offset: None,
            on_or_after: None,
            observed: crate::rules::profile::Observed::No,
        }];
        let c = Calendar::new(&hs);
        // Thursday 21 May 2026 + 3 business days: Fri 22, (Sat, Sun, Memorial Day
        // Mon 25), Tue 26, Wed 27.
        assert_eq!(
            c.add_business_days(d("2026-05-21"), 3).unwrap(),
            d("2026-05-27")
        );
        assert_eq!(c.holiday(d("2026-05-25")), Some("Memorial Day"));
        assert_eq!(c.skipped(d("2026-05-21"), d("2026-05-27")).len(), 3);
        assert_eq!(
            c.add_business_days(d("2026-05-21"), 0).unwrap(),
            d("2026-05-21")
        );
    }

    #[test]
    fn a_huge_count_is_refused_at_once_and_no_walk_runs_past_its_bounds() {
        let c = Calendar::new(&[]);
        let t = std::time::Instant::now();
        assert_eq!(
            c.add_business_days(d("2026-05-21"), 100_000_000),
            Err(ClockError::TooLong {
                n: 100_000_000,
                unit: "business days",
                max: MAX_BUSINESS_DAYS
            })
        );
        assert!(c
            .add_business_days(d("2026-05-21"), MAX_BUSINESS_DAYS)
            .is_ok());
        assert!(matches!(
            add_days(d("2026-05-21"), u32::MAX),
            Err(ClockError::TooLong { .. })
        ));
        let noon = d("2026-05-21").and_hms_opt(12, 0, 0).unwrap();
        assert!(matches!(
            add_hours(noon, u32::MAX),
            Err(ClockError::TooLong { .. })
        ));
        assert!(matches!(
            add_days(NaiveDate::MAX, 1),
            Err(ClockError::OutOfRange { .. })
        ));
        // The calendar's last day: an error, not a panic.
        let last = NaiveDate::MAX;
        assert!(matches!(
            c.add_business_days(last, 1),
            Err(ClockError::OutOfRange { .. })
        ));
        assert!(c.skipped(last, last).is_empty());
        assert!(c.skipped(NaiveDate::MIN, NaiveDate::MAX).len() <= MAX_WALK_DAYS as usize);
        assert!(
            t.elapsed() < std::time::Duration::from_millis(100),
            "{:?}",
            t.elapsed()
        );
    }

    #[test]
    fn a_calendar_of_holidays_only_stops_the_walk() {
        // Every day of the year a holiday: no business day is ever found.
        let every_day: Vec<Holiday> = (1..=12)
            .flat_map(|m| (1..=31).map(move |day| (m, day)))
            .filter(|(m, day)| NaiveDate::from_ymd_opt(2024, *m, *day).is_some())
            .map(|(month, day)| Holiday {
                name: format!("{month}-{day}"),
                month,
                day: Some(day),
                weekday: None,
                nth: None,
                easter_offset: None,
                on_or_after: None,
                observed: crate::rules::profile::Observed::No,
            })
            .collect();
        let c = Calendar::new(&every_day);
        assert!(matches!(
            c.add_business_days(d("2026-05-21"), 1),
            Err(ClockError::TooFewBusinessDays { .. })
        ));
    }

    #[test]
    fn good_friday_is_counted_from_easter() {
        let hs = vec![Holiday {
            name: "Good Friday".into(),
            month: 0,
            day: None,
            weekday: None,
            nth: None,
            easter_offset: Some(-2),
            on_or_after: None,
            observed: crate::rules::profile::Observed::No,
        }];
        // Easter Sunday fell on 31 March 2024, 20 April 2025 and falls on 5 April 2026
        // and 28 March 2027.
        for (year, good_friday) in [
            (2024, "2024-03-29"),
            (2025, "2025-04-18"),
            (2026, "2026-04-03"),
            (2027, "2027-03-26"),
        ] {
            assert_eq!(hs[0].date_in(year), Some(d(good_friday)), "{year}");
        }
        let c = Calendar::new(&hs);
        // Thursday 2 April 2026 + 1 business day: Good Friday and the weekend skipped.
        assert_eq!(
            c.add_business_days(d("2026-04-02"), 1).unwrap(),
            d("2026-04-06")
        );
    }

    #[test]
    fn election_day_is_the_tuesday_after_the_first_monday_of_november() {
        let h = Holiday {
            name: "Election Day".into(),
            month: 11,
            day: None,
            weekday: Some("tue".into()),
            nth: None,
            easter_offset: None,
            on_or_after: Some(2),
            observed: crate::rules::profile::Observed::No,
        };
        // 1 November 2022 was a Tuesday: Election Day was the 8th. 2 November 2026 is the
        // first Monday, so it is the 3rd.
        for (year, day) in [
            (2022, "2022-11-08"),
            (2024, "2024-11-05"),
            (2026, "2026-11-03"),
        ] {
            assert_eq!(h.date_in(year), Some(d(day)), "{year}");
        }
    }
}

#[cfg(test)]
mod state_holidays {
    use super::*;
    use crate::rules::Profile;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    /// The built-in towns' calendars hold their states' holidays (Conn. Gen. Stat. § 1-4;
    /// N.Y. Gen. Constr. Law § 24), the ones a federal list lacks included.
    #[test]
    fn the_built_in_calendars_hold_their_states_holidays() {
        let windsor = Profile::builtin("windsor-ct").unwrap();
        let c = Calendar::new(&windsor.idde.holidays);
        for (day, name) in [
            ("2026-02-12", "Lincoln's Birthday"),
            ("2026-04-03", "Good Friday"),
            ("2026-06-19", "Juneteenth Independence Day"),
        ] {
            assert_eq!(c.holiday(d(day)), Some(name), "Windsor {day}");
        }
        let nc = Profile::builtin("north-castle-ny").unwrap();
        let c = Calendar::new(&nc.idde.holidays);
        for (day, name) in [
            ("2026-02-12", "Lincoln's Birthday"),
            ("2026-06-19", "Juneteenth"),
            ("2026-10-12", "Columbus Day"),
            ("2026-11-03", "Election Day"),
            ("2026-11-11", "Veterans Day"),
        ] {
            assert_eq!(c.holiday(d(day)), Some(name), "North Castle {day}");
        }
        // Good Friday is not a New York public holiday.
        assert_eq!(c.holiday(d("2026-04-03")), None);
    }
}
