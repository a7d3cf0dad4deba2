//! Business days: weekdays that are not one of the jurisdiction's holidays (its
//! `[[idde.holidays]]`), so a deadline "in two business days" skips a weekend and a
//! holiday as the town's offices do.

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use rustc_hash::FxHashMap;

use crate::rules::Holiday;

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

    /// The `n`th business day after `d` (`d` itself when `n` is 0).
    pub fn add_business_days(&self, d: NaiveDate, n: u32) -> NaiveDate {
        let mut day = d;
        let mut left = n;
        while left > 0 {
            day += Duration::days(1);
            if self.is_business_day(day) {
                left -= 1;
            }
        }
        day
    }

    /// The days skipped between `from` (exclusive) and `to` (inclusive) that were not
    /// business days, with why: what an answer shows so a reader can check the count.
    pub fn skipped(&self, from: NaiveDate, to: NaiveDate) -> Vec<String> {
        let mut out = Vec::new();
        let mut d = from + Duration::days(1);
        while d <= to {
            if let Some(h) = self.holiday(d) {
                out.push(format!("{d} ({h})"));
            } else if matches!(d.weekday(), Weekday::Sat | Weekday::Sun) {
                out.push(format!("{d} ({})", d.format("%A")));
            }
            d += Duration::days(1);
        }
        out
    }
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
            observed: false,
        }];
        let c = Calendar::new(&hs);
        // Thursday 21 May 2026 + 3 business days: Fri 22, (Sat, Sun, Memorial Day
        // Mon 25), Tue 26, Wed 27.
        assert_eq!(c.add_business_days(d("2026-05-21"), 3), d("2026-05-27"));
        assert_eq!(c.holiday(d("2026-05-25")), Some("Memorial Day"));
        assert_eq!(c.skipped(d("2026-05-21"), d("2026-05-27")).len(), 3);
        assert_eq!(c.add_business_days(d("2026-05-21"), 0), d("2026-05-21"));
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
            observed: false,
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
        assert_eq!(c.add_business_days(d("2026-04-02"), 1), d("2026-04-06"));
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
            observed: false,
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
