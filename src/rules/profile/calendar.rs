//! `[calendar]`: the permit's programme items as data — the annual report, the interim
//! certifications, the documentation of each illicit-discharge report, the mapping
//! phases — each with its citation, its due rule and the records that show it done.
//!
//! An item whose source is not the permit's own text, read, is `confirmed = false`, and
//! every answer built on it says it is the profile's reading. A profile without the
//! section has no calendar: `ms4 calendar` says so and lists nothing, so existing
//! profiles answer as before until their calendar is written. The dates are computed in
//! `crate::rules::calendar`.
//!
//! ```toml
//! [[calendar.items]]
//! id = "annual_report"
//! title = "Annual report"
//! rule = "yearly"          # yearly (on = "MM-DD") | every_months (months, from the
//!                          #   reporting year's start) | once (on = "YYYY-MM-DD")
//!                          #   | per_case (days after a case opens)
//! on = "04-01"
//! citation = "…"
//! confirmed = false
//! ```

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::issue::Issue;

/// How an item falls due.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DueRule {
    /// Each year on `on` (`MM-DD`).
    Yearly,
    /// Every `months` months from the reporting year's start (`[idde]
    /// reporting_year_start`).
    EveryMonths,
    /// Once, on `on` (`YYYY-MM-DD`).
    Once,
    /// `days` calendar days after each illicit-discharge case of `case_origins` opens;
    /// met by an action logged on the case within them.
    PerCase,
}

impl DueRule {
    /// The word written in profiles and answers.
    pub fn as_str(self) -> &'static str {
        match self {
            DueRule::Yearly => "yearly",
            DueRule::EveryMonths => "every_months",
            DueRule::Once => "once",
            DueRule::PerCase => "per_case",
        }
    }
}

/// One programme item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalendarItem {
    /// A short id, lower case with underscores (`annual_report`).
    pub id: String,
    /// What is due, for people.
    pub title: String,
    /// How it falls due.
    pub rule: DueRule,
    /// `yearly`: `MM-DD`; `once`: `YYYY-MM-DD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on: Option<String>,
    /// `every_months`: the number of months.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub months: Option<u32>,
    /// `per_case`: the number of calendar days.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days: Option<u32>,
    /// `per_case`: the origins of the cases it applies to (`complaint`, `hotline`...);
    /// left out, every case.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub case_origins: Vec<String>,
    /// Where the item comes from.
    pub citation: String,
    /// Whether `citation` is the permit's own text, read; `false`, the answer states the
    /// item as the profile's reading, an open fact.
    #[serde(default)]
    pub confirmed: bool,
}

/// `[calendar]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalendarSettings {
    /// The items, in the order the answer lists them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<CalendarItem>,
}

impl CalendarSettings {
    /// Whether nothing is set (the profile has no `[calendar]`): not written back.
    pub fn is_unset(&self) -> bool {
        self.items.is_empty()
    }
}

/// `MM-DD` as (month, day), a day some year has.
pub fn month_day(s: &str) -> Option<(u32, u32)> {
    let (m, d) = s.split_once('-')?;
    if m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (m, d) = (m.parse().ok()?, d.parse().ok()?);
    // 2024 is a leap year: 02-29 is a day some year has.
    NaiveDate::from_ymd_opt(2024, m, d).map(|_| (m, d))
}

/// The load-time checks of `[calendar]`: ids once each, the keys each rule needs (and
/// no others), dates that are dates, a citation.
pub(super) fn validate(s: &CalendarSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    for (n, item) in s.items.iter().enumerate() {
        let key = |k: &str| format!("calendar.items[{n}].{k}");
        let id_ok = !item.id.is_empty()
            && item
                .id
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
        if !id_ok {
            return fail(
                key("id"),
                format!(
                    "{:?} is not an item id: lower-case letters, digits and underscores",
                    item.id
                ),
            );
        }
        if let Some(first) = s.items[..n].iter().position(|o| o.id == item.id) {
            return fail(
                key("id"),
                format!("{:?} is calendar.items[{first}]'s id too", item.id),
            );
        }
        if item.title.trim().is_empty() {
            return fail(key("title"), "say what is due".into());
        }
        if item.citation.trim().is_empty() {
            return fail(key("citation"), "say where the item comes from".into());
        }
        let rule = item.rule.as_str();
        let wants = |k: &str| match item.rule {
            DueRule::Yearly | DueRule::Once => k == "on",
            DueRule::EveryMonths => k == "months",
            DueRule::PerCase => k == "days" || k == "case_origins",
        };
        for (k, given) in [
            ("on", item.on.is_some()),
            ("months", item.months.is_some()),
            ("days", item.days.is_some()),
            ("case_origins", !item.case_origins.is_empty()),
        ] {
            if given && !wants(k) {
                return fail(key(k), format!("a {rule} item takes no {k}"));
            }
        }
        match item.rule {
            DueRule::Yearly => match item.on.as_deref() {
                Some(on) if month_day(on).is_some() => {}
                Some(on) => {
                    return fail(key("on"), format!("{on:?} is not a month and day, MM-DD"))
                }
                None => return fail(key("on"), "a yearly item needs its day, MM-DD".into()),
            },
            DueRule::Once => match item.on.as_deref() {
                Some(on) if on.parse::<NaiveDate>().is_ok() => {}
                Some(on) => return fail(key("on"), format!("{on:?} is not a date, YYYY-MM-DD")),
                None => return fail(key("on"), "a once item needs its date, YYYY-MM-DD".into()),
            },
            DueRule::EveryMonths => match item.months {
                Some(m) if (1..=120).contains(&m) => {}
                Some(m) => return fail(key("months"), format!("{m} is not 1 to 120 months")),
                None => return fail(key("months"), "an every_months item needs months".into()),
            },
            DueRule::PerCase => match item.days {
                Some(d) if (1..=3660).contains(&d) => {}
                Some(d) => return fail(key("days"), format!("{d} is not 1 to 3660 days")),
                None => return fail(key("days"), "a per_case item needs days".into()),
            },
        }
        for (i, o) in item.case_origins.iter().enumerate() {
            if let Err(why) = o.parse::<crate::domain::Origin>() {
                return fail(key(&format!("case_origins[{i}]")), why);
            }
        }
    }
    Ok(())
}
