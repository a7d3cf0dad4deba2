//! What the report's year rests on: the day it is due, and the open facts for a start or
//! a due date the profile has not read in the MS4 general permit's own text (it says so
//! with `reporting_year_confirmed` and `reporting_year_due_confirmed`), or does not
//! state at all. A date taken from a secondary source is the profile's reading, shown
//! with that source, never a fact the report vouches for.

use chrono::{Datelike, NaiveDate};

use super::Period;
use crate::rules::Profile;

/// The day the report of a year ending on `last` is due: the first `reporting_year_due`
/// after `last`, where the profile states one.
pub(super) fn due_on(profile: &Profile, last: NaiveDate) -> Option<NaiveDate> {
    let (m, d) = crate::rules::year_start(profile.idde.reporting_year_due.as_deref()?)?;
    let same = NaiveDate::from_ymd_opt(last.year(), m, d)?;
    if same > last {
        Some(same)
    } else {
        NaiveDate::from_ymd_opt(last.year().checked_add(1)?, m, d)
    }
}

/// The cited source, or that none is cited.
fn cited(source: Option<&str>) -> String {
    match source.filter(|s| !s.trim().is_empty()) {
        Some(s) => format!("source: {s}"),
        None => "no source cited".into(),
    }
}

/// The open facts of the year's start and the due date.
pub(super) fn open_facts(profile: &Profile, period: Period, due: Option<NaiveDate>) -> Vec<String> {
    let s = &profile.idde;
    let mut facts = Vec::new();
    if !s.reporting_year_confirmed {
        facts.push(format!(
            "the reporting year starts on {} and ends on {} as the profile reads it ([idde] \
             reporting_year_start = \"{}\"; {}); that date has not been checked against the \
             MS4 general permit's own text",
            period.from.map(|d| d.to_string()).unwrap_or_default(),
            period.to,
            s.reporting_year_start,
            cited(s.reporting_year_source.as_deref())
        ));
    }
    match (due, s.reporting_year_due_confirmed) {
        (None, _) => facts.push(
            "the profile states no due date for the annual report ([idde] reporting_year_due): \
             the MS4 general permit's reporting requirements decide it"
                .into(),
        ),
        (Some(d), false) => facts.push(format!(
            "the annual report is due on {d} as the profile reads it ([idde] \
             reporting_year_due = \"{}\"; {}); that date has not been checked against the \
             MS4 general permit's own text",
            s.reporting_year_due.as_deref().unwrap_or_default(),
            cited(s.reporting_year_due_source.as_deref())
        )),
        (Some(_), true) => {}
    }
    facts
}
