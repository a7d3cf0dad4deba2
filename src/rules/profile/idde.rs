//! The illicit discharge programme's settings (`[idde]`): the dry-weather rule, the
//! reporting year, the holiday calendar that business days skip, and the enforcement
//! steps of the town's law as deadlines and fines, each with its rule id and citation.
//!
//! The steps are data so a fourth town writes its own; the code in `crate::idde` only
//! counts hours, days and business days from the actions logged on a case. A step says
//! what starts it (an action kind, or another step's expiry) and what meets it (action
//! kinds), never a date: dates come from the records.

use chrono::{Datelike, NaiveDate, Weekday};
use serde::{Deserialize, Serialize};

use super::issue::Issue;

/// Hours without rain before a screening counts as a dry-weather screening when the
/// profile sets none (the common 48-hour practice: Brown, Caraco and Pitt 2004, ch. 11).
pub const DEFAULT_DRY_WEATHER_HOURS: f64 = 48.0;

/// `[idde]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IddeSettings {
    /// Hours since the last rain of at least 0.1 inch below which a screening is not a
    /// dry-weather screening.
    #[serde(default = "default_dry_hours")]
    pub dry_weather_hours: f64,
    /// Where the dry-weather rule comes from (the permit or the programme's plan).
    #[serde(default)]
    pub dry_weather_source: Option<String>,
    /// The reporting year's first day, `MM-DD` (a year `Y` runs from `Y-MM-DD`).
    #[serde(default = "default_year_start")]
    pub reporting_year_start: String,
    /// Where the reporting year's start comes from (the MS4 general permit's reporting
    /// period, cited); without it the report lists the start as an open fact.
    #[serde(default)]
    pub reporting_year_source: Option<String>,
    /// The offices the law names as acting in enforcement (`Town Manager`, `Stormwater
    /// Management Officer`): what an action's `by` may name. The first is the office a
    /// logged action is taken to be by when it names none. Empty (a profile that lists
    /// none), `by` is any name of printable text.
    #[serde(default)]
    pub offices: Vec<String>,
    /// Whether a period of days that ends on a Saturday, Sunday or holiday runs to the
    /// next business day (N.Y. Gen. Constr. Law § 25-a); `false`, it ends where it is
    /// counted to.
    #[serde(default)]
    pub periods_roll_to_business_day: bool,
    /// The law that says so, or why the profile takes the reading it does.
    #[serde(default)]
    pub periods_roll_source: Option<String>,
    /// Days business-day counts skip besides Saturdays and Sundays.
    #[serde(default)]
    pub holidays: Vec<Holiday>,
    /// The law's deadlines.
    #[serde(default)]
    pub deadlines: Vec<DeadlineStep>,
    /// The law's fines.
    #[serde(default)]
    pub fines: Vec<FineStep>,
    /// Fines a court sets within tiers by the offender's record (the NY model law's
    /// land development penalties).
    #[serde(default)]
    pub penalty_tiers: Vec<PenaltyTiers>,
    /// The notice of violation the law prescribes for a land development activity (the
    /// NY model law's six items); `None` where the town's law has no such section.
    #[serde(default)]
    pub land_development_notice: Option<LandDevelopmentNotice>,
}

/// The items a land development notice of violation must contain, as the law words
/// them, each with its citation; the code fills them from the record and lists what the
/// record lacks. Keys: `owner`, `site`, `violation`, `remedial_measures`, `penalties`,
/// `appeal`, each once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LandDevelopmentNotice {
    /// The rule id (catalogue).
    pub rule: String,
    /// The citation of the whole list.
    pub citation: String,
    /// Who issues it ("the Town of Carmel").
    pub issuer: String,
    /// Days from service of the notice to file a written notice of appeal.
    pub appeal_days: u32,
    /// The rule id of the penalty tiers the penalties item states (`[[idde.penalty_tiers]]`).
    pub penalties_rule: String,
    /// What the penalties item adds to the fines, in the law's words (imprisonment, ...).
    #[serde(default)]
    pub penalties_also: Option<String>,
    /// The items, in the law's order.
    pub items: Vec<NoticeItem>,
}

/// One item of a notice the law prescribes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoticeItem {
    /// What the code fills it with (see [`LandDevelopmentNotice`]).
    pub key: String,
    /// The law's words.
    pub text: String,
    /// Its citation.
    pub citation: String,
}

/// The keys a land development notice's items take, each once.
pub const LD_NOTICE_KEYS: [&str; 6] = [
    "owner",
    "site",
    "violation",
    "remedial_measures",
    "penalties",
    "appeal",
];

/// A penalty in tiers: the first offence, a second within `window_years`, a third or
/// later within them, each a range of dollars per violation; a continued violation is a
/// separate additional violation each `continued_per_days` (7: each week).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PenaltyTiers {
    /// The rule id (catalogue).
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// What the penalty is for.
    pub applies_to: String,
    /// The years within which earlier offences raise the tier.
    pub window_years: u32,
    /// Days of continued violation that make a separate additional violation.
    pub continued_per_days: u32,
    /// The tiers, first offence first; the last also covers every later offence.
    pub tiers: Vec<PenaltyTier>,
}

/// One tier: dollars per violation, from `min` (0 when the law sets only a ceiling) to `max`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PenaltyTier {
    /// The least fine.
    #[serde(default)]
    pub min: f64,
    /// The greatest fine.
    pub max: f64,
}

fn default_dry_hours() -> f64 {
    DEFAULT_DRY_WEATHER_HOURS
}

fn default_year_start() -> String {
    "01-01".into()
}

impl Default for IddeSettings {
    fn default() -> Self {
        IddeSettings {
            dry_weather_hours: DEFAULT_DRY_WEATHER_HOURS,
            dry_weather_source: None,
            reporting_year_start: default_year_start(),
            reporting_year_source: None,
            offices: Vec::new(),
            periods_roll_to_business_day: false,
            periods_roll_source: None,
            holidays: Vec::new(),
            deadlines: Vec::new(),
            fines: Vec::new(),
            penalty_tiers: Vec::new(),
            land_development_notice: None,
        }
    }
}

/// A holiday: a fixed date (`month`, `day`), the `nth` `weekday` of a month (`nth = -1`
/// is the last), or a day counted from Easter Sunday (`easter_offset`, -2 for Good
/// Friday, with no month). `observed` says where a fixed holiday on a weekend is kept
/// ([`Observed`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Holiday {
    /// Its name, for answers.
    pub name: String,
    /// 1-12 (0, or left out, for a day counted from Easter).
    #[serde(default)]
    pub month: u32,
    /// The day of the month, for a fixed holiday.
    #[serde(default)]
    pub day: Option<u32>,
    /// `mon` ... `sun`, with `nth`.
    #[serde(default)]
    pub weekday: Option<String>,
    /// 1-5, or -1 for the last.
    #[serde(default)]
    pub nth: Option<i32>,
    /// Days from Easter Sunday (Western, Gregorian): -2 is Good Friday.
    #[serde(default)]
    pub easter_offset: Option<i32>,
    /// With `weekday` and no `nth`: the first such weekday on or after this day of the
    /// month (New York's Election Day, the Tuesday after the first Monday of November, is
    /// the first Tuesday on or after the 2nd).
    #[serde(default)]
    pub on_or_after: Option<u32>,
    /// Where a fixed holiday on a weekend is kept: `true` (a Saturday's on the Friday
    /// before, a Sunday's on the Monday after), `"sunday"` (only a Sunday's moves, to the
    /// Monday: New York's General Construction Law § 24), or `false` (not moved).
    #[serde(default)]
    pub observed: Observed,
}

/// Where a fixed holiday that falls on a weekend is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Observed {
    /// On its date.
    #[default]
    No,
    /// A Saturday's on the Friday before, a Sunday's on the Monday after.
    Weekend,
    /// Only a Sunday's moves, to the Monday after (N.Y. Gen. Constr. Law § 24).
    SundayOnly,
}

impl Serialize for Observed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Observed::No => s.serialize_bool(false),
            Observed::Weekend => s.serialize_bool(true),
            Observed::SundayOnly => s.serialize_str("sunday"),
        }
    }
}

impl<'de> Deserialize<'de> for Observed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Wire {
            Flag(bool),
            Word(String),
        }
        match Wire::deserialize(d)? {
            Wire::Flag(true) => Ok(Observed::Weekend),
            Wire::Flag(false) => Ok(Observed::No),
            Wire::Word(w) if w == "sunday" => Ok(Observed::SundayOnly),
            Wire::Word(w) => Err(serde::de::Error::custom(format!(
                "observed: {w:?} is not true, false or \"sunday\""
            ))),
        }
    }
}

/// Easter Sunday of a year in the Gregorian calendar (the anonymous Gregorian algorithm,
/// as Meeus gives it).
pub fn easter(year: i32) -> Option<NaiveDate> {
    let (a, b, c) = (year % 19, year / 100, year % 100);
    let (d, e) = (b / 4, b % 4);
    let f = (b + 8) / 25;
    let g = (b - f + 1) / 3;
    let h = (19 * a + b - d - g + 15) % 30;
    let (i, k) = (c / 4, c % 4);
    let l = (32 + 2 * e + 2 * i - h - k) % 7;
    let m = (a + 11 * h + 22 * l) / 451;
    let n = h + l - 7 * m + 114;
    NaiveDate::from_ymd_opt(year, (n / 31) as u32, (n % 31 + 1) as u32)
}

impl Holiday {
    /// The day the town's offices are closed for it in `year`, if it falls in that year.
    pub fn date_in(&self, year: i32) -> Option<NaiveDate> {
        if let Some(off) = self.easter_offset {
            return easter(year)?.checked_add_signed(chrono::Duration::days(off.into()));
        }
        if let Some(day) = self.day {
            let d = NaiveDate::from_ymd_opt(year, self.month, day)?;
            return Some(match (self.observed, d.weekday()) {
                (Observed::Weekend, Weekday::Sat) => d.pred_opt()?,
                (Observed::Weekend | Observed::SundayOnly, Weekday::Sun) => d.succ_opt()?,
                _ => d,
            });
        }
        let wd = parse_weekday(self.weekday.as_deref()?)?;
        if let Some(after) = self.on_or_after {
            let from = NaiveDate::from_ymd_opt(year, self.month, after)?;
            let ahead = (7 + wd.num_days_from_monday() - from.weekday().num_days_from_monday()) % 7;
            return from.checked_add_signed(chrono::Duration::days(ahead.into()));
        }
        let nth = self.nth?;
        if nth > 0 {
            NaiveDate::from_weekday_of_month_opt(year, self.month, wd, nth as u8)
        } else {
            // The last: the fifth if there is one, else the fourth.
            NaiveDate::from_weekday_of_month_opt(year, self.month, wd, 5)
                .or_else(|| NaiveDate::from_weekday_of_month_opt(year, self.month, wd, 4))
        }
    }
}

fn parse_weekday(s: &str) -> Option<Weekday> {
    Some(match s.trim().to_ascii_lowercase().as_str() {
        "mon" | "monday" => Weekday::Mon,
        "tue" | "tuesday" => Weekday::Tue,
        "wed" | "wednesday" => Weekday::Wed,
        "thu" | "thursday" => Weekday::Thu,
        "fri" | "friday" => Weekday::Fri,
        "sat" | "saturday" => Weekday::Sat,
        "sun" | "sunday" => Weekday::Sun,
        _ => return None,
    })
}

/// One deadline of the law. It starts at an action (`trigger`, an action kind logged on
/// the case) or when another step expires (`after`, that step's rule id), and runs for
/// `hours`, `days` or `business_days`. `mail_business_days` are allowed for delivery
/// first when the triggering action was served by mail. An action of a `met_by` kind on
/// or after the start meets it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeadlineStep {
    /// The rule id (catalogue).
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// What must happen, and by whom.
    pub what: String,
    /// The action kind that starts it.
    #[serde(default)]
    pub trigger: Option<String>,
    /// Only when the triggering action's outcome is this (`upheld`, ...).
    #[serde(default)]
    pub trigger_outcome: Option<String>,
    /// The step whose expiry starts it.
    #[serde(default)]
    pub after: Option<String>,
    /// Business days allowed for delivery when the trigger was mailed.
    #[serde(default)]
    pub mail_business_days: Option<u32>,
    /// Length in hours.
    #[serde(default)]
    pub hours: Option<u32>,
    /// Length in calendar days.
    #[serde(default)]
    pub days: Option<u32>,
    /// Length in business days.
    #[serde(default)]
    pub business_days: Option<u32>,
    /// Action kinds that meet it.
    #[serde(default)]
    pub met_by: Vec<String>,
    /// A reading the law leaves open that this step takes (an AMB id and its words).
    #[serde(default)]
    pub assumption: Option<String>,
    /// A window the law gives someone (to appeal), not a duty: passing it unmet is
    /// `lapsed`, not `overdue`.
    #[serde(default)]
    pub window: bool,
    /// Still owed after the case closes (a fine's payment); other steps are then moot.
    #[serde(default)]
    pub survives_closure: bool,
}

/// One fine of the law: `amount` per violation at the triggering action, and again for
/// each further `per_hours` / `per_days` / `per_weeks` until an action of a `stops_at`
/// kind. `maximum` says the amount is a ceiling the law lets a court or board set below:
/// the accrued figure is then "up to".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FineStep {
    /// The rule id (catalogue).
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// The action kind that imposes it (`citation_issued`).
    pub trigger: String,
    /// Dollars per violation per period.
    pub amount: f64,
    /// The amount is a maximum.
    #[serde(default)]
    pub maximum: bool,
    /// A new violation every this many hours.
    #[serde(default)]
    pub per_hours: Option<u32>,
    /// A new violation every this many days.
    #[serde(default)]
    pub per_days: Option<u32>,
    /// Action kinds after which no more accrues.
    #[serde(default)]
    pub stops_at: Vec<String>,
}

/// Checks `[idde]`; keys are named as the file spells them.
pub(super) fn validate(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    if !(s.dry_weather_hours.is_finite() && s.dry_weather_hours >= 0.0) {
        return fail(
            "idde.dry_weather_hours".into(),
            format!("{} is not a number of hours", s.dry_weather_hours),
        );
    }
    if year_start(&s.reporting_year_start).is_none() {
        return fail(
            "idde.reporting_year_start".into(),
            format!("{:?} is not a month and day, MM-DD", s.reporting_year_start),
        );
    }
    validate_holidays(s)?;
    validate_deadlines(s)?;
    validate_fines(s)?;
    validate_ld_notice(s)
}

/// Each holiday is one of the shapes a day can be given in.
fn validate_holidays(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    for (i, h) in s.holidays.iter().enumerate() {
        let ok = match (h.day, &h.weekday, h.nth) {
            _ if h.easter_offset.is_some() => {
                h.day.is_none()
                    && h.weekday.is_none()
                    && h.nth.is_none()
                    && h.month == 0
                    && h.observed == Observed::No
                    && h.easter_offset.is_some_and(|o| o.abs() <= 60)
            }
            (Some(_), None, None) => h.on_or_after.is_none() && h.date_in(2024).is_some(),
            (None, Some(w), None) if h.on_or_after.is_some() => {
                parse_weekday(w).is_some()
                    && h.date_in(2024).is_some()
                    && h.observed == Observed::No
            }
            (None, Some(w), Some(n)) if h.on_or_after.is_none() => {
                parse_weekday(w).is_some()
                    && (n == -1 || (1..=5).contains(&n))
                    && (1..=12).contains(&h.month)
            }
            _ => false,
        };
        if !ok {
            return fail(
                format!("idde.holidays[{i}]"),
                format!(
                    "{:?}: give month and day, or month, weekday (mon..sun) and nth (1-5 or -1), or month, weekday and on_or_after (a day of the month), or only easter_offset (days from Easter Sunday, -60 to 60)",
                    h.name
                ),
            );
        }
    }
    Ok(())
}

/// Each deadline has one length, a trigger or an earlier deadline to run after, and a citation.
fn validate_deadlines(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    let ids: Vec<&str> = s.deadlines.iter().map(|d| d.rule.as_str()).collect();
    for (i, d) in s.deadlines.iter().enumerate() {
        let key = format!("idde.deadlines[{i}]");
        let lengths = [
            d.hours.is_some(),
            d.days.is_some(),
            d.business_days.is_some(),
        ];
        if lengths.iter().filter(|x| **x).count() != 1 {
            return fail(
                key,
                format!("{}: give one of hours, days or business_days", d.rule),
            );
        }
        match (&d.trigger, &d.after) {
            (Some(_), None) => {}
            (None, Some(a)) if ids[..i].contains(&a.as_str()) => {}
            (None, Some(a)) => {
                return fail(
                    format!("{key}.after"),
                    format!("{}: {a:?} is not a deadline listed before it", d.rule),
                )
            }
            _ => {
                return fail(
                    key,
                    format!("{}: give trigger or after, one of them", d.rule),
                )
            }
        }
        if d.citation.trim().is_empty() {
            return fail(
                format!("{key}.citation"),
                format!("{}: no citation", d.rule),
            );
        }
        if let Some(t) = &d.trigger {
            action_word(format!("{key}.trigger"), &d.rule, t)?;
        }
        for (j, m) in d.met_by.iter().enumerate() {
            action_word(format!("{key}.met_by[{j}]"), &d.rule, m)?;
        }
    }
    Ok(())
}

/// A word naming a kind of action a case's log records (`notice_of_violation`), or a
/// kind and its outcome (`reinspection:corrected`): a misspelt one would never start or
/// meet a step, so it is refused with the list, naming the key.
fn action_word(key: String, rule: &str, word: &str) -> Result<(), Issue> {
    let kind = word.split_once(':').map_or(word, |(k, _)| k);
    kind.parse::<crate::domain::ActionKind>()
        .map(|_| ())
        .map_err(|why| Issue {
            key,
            message: format!("{rule}: {why}"),
        })
}

/// Each fine is an amount per one period; each penalty tier a range of dollars.
fn validate_fines(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    for (i, f) in s.fines.iter().enumerate() {
        if !(f.amount.is_finite() && f.amount > 0.0) {
            return fail(
                format!("idde.fines[{i}].amount"),
                format!("{}: {} is not an amount of dollars", f.rule, f.amount),
            );
        }
        if f.per_hours.is_some() && f.per_days.is_some() {
            return fail(
                format!("idde.fines[{i}]"),
                format!("{}: per_hours or per_days, not both", f.rule),
            );
        }
        action_word(format!("idde.fines[{i}].trigger"), &f.rule, &f.trigger)?;
        for (j, w) in f.stops_at.iter().enumerate() {
            action_word(format!("idde.fines[{i}].stops_at[{j}]"), &f.rule, w)?;
        }
    }
    for (i, p) in s.penalty_tiers.iter().enumerate() {
        let key = format!("idde.penalty_tiers[{i}]");
        if p.tiers.is_empty() || p.window_years == 0 || p.continued_per_days == 0 {
            return fail(
                key,
                format!(
                    "{}: give tiers, window_years and continued_per_days",
                    p.rule
                ),
            );
        }
        for (j, t) in p.tiers.iter().enumerate() {
            if !(t.min >= 0.0 && t.max >= t.min) {
                return fail(
                    format!("{key}.tiers[{j}]"),
                    format!(
                        "{}: min {} and max {} are not a range of dollars",
                        p.rule, t.min, t.max
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The land development notice has each item once and names a penalty tier.
fn validate_ld_notice(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    if let Some(n) = &s.land_development_notice {
        let key = "idde.land_development_notice";
        let mut keys: Vec<&str> = n.items.iter().map(|i| i.key.as_str()).collect();
        keys.sort_unstable();
        let mut want = LD_NOTICE_KEYS.to_vec();
        want.sort_unstable();
        if keys != want {
            return fail(
                format!("{key}.items"),
                format!(
                    "{}: give each of {} once (got {})",
                    n.rule,
                    LD_NOTICE_KEYS.join(", "),
                    keys.join(", ")
                ),
            );
        }
        if !s.penalty_tiers.iter().any(|p| p.rule == n.penalties_rule) {
            return fail(
                format!("{key}.penalties_rule"),
                format!(
                    "{}: {:?} is not one of [[idde.penalty_tiers]]",
                    n.rule, n.penalties_rule
                ),
            );
        }
    }
    Ok(())
}

/// `MM-DD` as (month, day).
pub fn year_start(s: &str) -> Option<(u32, u32)> {
    let (m, d) = s.trim().split_once('-')?;
    let (m, d) = (m.parse().ok()?, d.parse().ok()?);
    // A day every year has (no 29 February).
    NaiveDate::from_ymd_opt(2023, m, d).map(|_| (m, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(
        name: &str,
        month: u32,
        day: Option<u32>,
        wd: Option<&str>,
        nth: Option<i32>,
        observed: Observed,
    ) -> Holiday {
        Holiday {
            name: name.into(),
            month,
            day,
            weekday: wd.map(str::to_string),
            nth,
            easter_offset: None,
            on_or_after: None,
            observed,
        }
    }

    #[test]
    fn holidays_fall_where_the_calendar_puts_them() {
        // Thanksgiving 2026: the fourth Thursday of November is the 26th.
        let t = h("Thanksgiving", 11, None, Some("thu"), Some(4), Observed::No);
        assert_eq!(t.date_in(2026), NaiveDate::from_ymd_opt(2026, 11, 26));
        // Memorial Day 2026: the last Monday of May is the 25th.
        let m = h("Memorial Day", 5, None, Some("mon"), Some(-1), Observed::No);
        assert_eq!(m.date_in(2026), NaiveDate::from_ymd_opt(2026, 5, 25));
        // Independence Day 2026 is a Saturday: observed on Friday the 3rd where a
        // Saturday's holiday moves (`true`), kept on the Saturday under New York's § 24,
        // which moves only a Sunday's (`"sunday"`).
        let j = h(
            "Independence Day",
            7,
            Some(4),
            None,
            None,
            Observed::Weekend,
        );
        assert_eq!(j.date_in(2026), NaiveDate::from_ymd_opt(2026, 7, 3));
        let j = h(
            "Independence Day",
            7,
            Some(4),
            None,
            None,
            Observed::SundayOnly,
        );
        assert_eq!(j.date_in(2026), NaiveDate::from_ymd_opt(2026, 7, 4));
        // Christmas 2022 was a Sunday, observed on Monday the 26th under either reading.
        for o in [Observed::Weekend, Observed::SundayOnly] {
            let c = h("Christmas", 12, Some(25), None, None, o);
            assert_eq!(c.date_in(2022), NaiveDate::from_ymd_opt(2022, 12, 26));
        }
    }

    /// A trigger, a step's `met_by` or a fine's `stops_at` naming no kind of action a
    /// case's log records is refused, naming the key: it would never fire.
    #[test]
    fn a_misspelt_action_kind_is_refused_naming_the_key() {
        let p = crate::rules::Profile::builtin("north-castle-ny").unwrap();
        assert!(validate(&p.idde).is_ok());
        let mut s = p.idde.clone();
        s.deadlines[0].trigger = Some("notce_of_violation".into());
        let e = validate(&s).unwrap_err();
        assert_eq!(e.key, "idde.deadlines[0].trigger");
        assert!(
            e.message
                .contains("\"notce_of_violation\" is not an action"),
            "{}",
            e.message
        );
        let mut s = p.idde.clone();
        s.deadlines[0].met_by = vec!["reinspection:corrected".into(), "elimnated".into()];
        assert_eq!(validate(&s).unwrap_err().key, "idde.deadlines[0].met_by[1]");
        let w = crate::rules::Profile::builtin("windsor-ct").unwrap();
        let mut s = w.idde.clone();
        s.fines[0].stops_at.push("paid".into());
        let e = validate(&s).unwrap_err();
        assert!(e.key.starts_with("idde.fines[0].stops_at["), "{}", e.key);
    }

    #[test]
    fn a_step_without_a_length_is_refused_naming_it() {
        let mut s = IddeSettings::default();
        s.deadlines.push(DeadlineStep {
            rule: "x.step".into(),
            citation: "Sec. 1".into(),
            what: "w".into(),
            trigger: Some("notice_served".into()),
            trigger_outcome: None,
            after: None,
            mail_business_days: None,
            hours: None,
            days: None,
            business_days: None,
            met_by: vec![],
            assumption: None,
            window: false,
            survives_closure: false,
        });
        let e = validate(&s).unwrap_err();
        assert_eq!(e.key, "idde.deadlines[0]");
        assert!(e.message.contains("x.step"), "{}", e.message);
        s.reporting_year_start = "13-01".into();
        assert_eq!(validate(&s).unwrap_err().key, "idde.reporting_year_start");
    }
}
