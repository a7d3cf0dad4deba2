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
    /// Whether `reporting_year_source` is the permit's own text, read; `false` (a
    /// secondary source, or none), the report lists the start as an open fact.
    #[serde(default)]
    pub reporting_year_confirmed: bool,
    /// The day the annual report is due, `MM-DD`: the first such day after the reporting
    /// year's last day. `None`, the report states no due date and says so.
    #[serde(default)]
    pub reporting_year_due: Option<String>,
    /// Where the due date comes from, cited.
    #[serde(default)]
    pub reporting_year_due_source: Option<String>,
    /// Whether `reporting_year_due_source` is the permit's own text, read; `false`, the
    /// report lists the due date as an open fact.
    #[serde(default)]
    pub reporting_year_due_confirmed: bool,
    /// The offices the law names as acting in enforcement (`Town Manager`, `Stormwater
    /// Management Officer`): what an action's `by` may name. The first is the office a
    /// logged action of a kind `acts` does not list is taken to be by when it names
    /// none. Empty (a profile that lists none), `by` must be given, any name of printable
    /// text: who recorded an action is never taken for who acted.
    #[serde(default)]
    pub offices: Vec<String>,
    /// Per kind of action, the offices the law gives it, with the clause: an action of a
    /// kind listed here is by one of its offices (left out, the first), any other is
    /// refused naming them. A kind may have several rows (one per clause).
    #[serde(default)]
    pub acts: Vec<ActOffices>,
    /// Actions the law bars against some respondents (Windsor: no written notice and no
    /// fine against the State), and whether fines accrue against them.
    #[serde(default)]
    pub immunities: Vec<Immunity>,
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
            reporting_year_confirmed: false,
            reporting_year_due: None,
            reporting_year_due_source: None,
            reporting_year_due_confirmed: false,
            offices: Vec::new(),
            acts: Vec::new(),
            immunities: Vec::new(),
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

/// An action the law gives to named offices: `kind` is by one of `offices` ([idde]
/// `offices`, as the profile spells them), under `citation`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActOffices {
    /// The kind of action.
    pub kind: crate::domain::ActionKind,
    /// The offices the law gives it, the one an action names none of first.
    pub offices: Vec<String>,
    /// The clause that gives it.
    pub citation: String,
}

/// Actions a law bars against some respondents: against a respondent of one of `kinds`
/// (or, with `acting_for_state`, a State official or employee acting within the scope of
/// employment), an action of a kind in `refuses` is refused naming the clause, and with
/// `fines_accrue = false` no fine accrues.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Immunity {
    /// The rule id (catalogue).
    pub rule: String,
    /// The clause.
    pub citation: String,
    /// The law's words.
    pub text: String,
    /// The kinds of respondent it covers (`state`).
    pub kinds: Vec<crate::domain::enforcement::RespondentKind>,
    /// It also covers a person acting for the State within the scope of employment.
    #[serde(default)]
    pub acting_for_state: bool,
    /// The kinds of action it bars.
    #[serde(default)]
    pub refuses: Vec<crate::domain::ActionKind>,
    /// Whether a fine accrues against them (`false`: none does).
    #[serde(default = "accrues")]
    pub fines_accrue: bool,
}

fn accrues() -> bool {
    true
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
/// `hours`, `days` or `business_days`, or ends on the day the trigger action itself sets
/// (`due_on_trigger_deadline`: a notice's deadline for abatement). `mail_business_days`
/// are allowed for delivery first when the triggering action was served by mail, whole
/// days: the period commences at 00:00 after the last of them; `from_receipt` counts
/// from the day the trigger was received instead (hand delivery: its day; mail: its
/// `received_on`, else an open fact). An action of a `met_by` kind on or after the
/// trigger meets it. `suspended_by`, `resumed_by` and `moot_by` follow a contest of it
/// (a hearing, an appeal).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// The period runs "from receipt" of the trigger: a hand delivery's day, a mailed
    /// one's `received_on` (without it the deadline is an open fact, never counted from
    /// the mailing).
    #[serde(default)]
    pub from_receipt: bool,
    /// The due day is the trigger action's own `deadline` (the notice's deadline for
    /// abatement or restoration); a trigger without one makes it an open fact.
    #[serde(default)]
    pub due_on_trigger_deadline: bool,
    /// With `after`: an action kind (a written plan for correction) whose `deadline`, the
    /// end of the period it agreed, starts this step instead of the earlier step's expiry
    /// when one is logged; a plan without a deadline makes it an open fact.
    #[serde(default)]
    pub plan: Option<String>,
    /// Actions that suspend it while no `resumed_by` or `moot_by` action follows (a
    /// hearing requested on a contested fine, an appeal filed).
    #[serde(default)]
    pub suspended_by: Vec<String>,
    /// Actions that end a suspension with the step still owed (a decision upholding).
    #[serde(default)]
    pub resumed_by: Vec<String>,
    /// After a resuming action, the step runs this many business days from it.
    #[serde(default)]
    pub resumed_business_days: Option<u32>,
    /// After a resuming action, what the law the registry lacks must say: the step is an
    /// open fact in these words.
    #[serde(default)]
    pub resumed_open_fact: Option<String>,
    /// Actions after which nothing is owed (a decision reversing the officer).
    #[serde(default)]
    pub moot_by: Vec<String>,
}

/// One fine of the law: `amount` per violation at the triggering action, and again for
/// each further `per_hours` / `per_days` until an action of a `stops_at` kind. One stream
/// per violation: a later trigger naming the same `violation` (or none) while a stream
/// runs adds nothing. A violator's `report` confirmed by a later `confirmed_by` action
/// stops it at the report; an unconfirmed one leaves the rest pending. A `void_at`
/// action (a decision reversing the officer) voids it. `maximum` says the amount is a
/// ceiling the law lets a court or board set below: the accrued figure is then "up to".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
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
    /// The violator's report of compliance (`compliance_report`): with a later
    /// `confirmed_by` action, accrual stops at the report, not at the confirmation.
    #[serde(default)]
    pub report: Option<String>,
    /// Actions that confirm a report (`reinspection:corrected`).
    #[serde(default)]
    pub confirmed_by: Vec<String>,
    /// Actions that refute a report (`reinspection:not_corrected`): accrual runs on.
    #[serde(default)]
    pub refuted_by: Vec<String>,
    /// Actions that void the fine (a decision reversing the officer): nothing accrued.
    #[serde(default)]
    pub void_at: Vec<String>,
    /// The reading this fine takes where the law is open, as the answer shows it.
    #[serde(default)]
    pub assumption: Option<String>,
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
    validate_reporting_year(s)?;
    validate_holidays(s)?;
    validate_deadlines(s)?;
    validate_fines(s)?;
    validate_acts(s)?;
    validate_immunities(s)?;
    validate_ld_notice(s)
}

/// The reporting year's start and the report's due date are days every year has, and
/// neither is called confirmed without the source it was read in.
fn validate_reporting_year(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: &str, message: String| {
        Err(Issue {
            key: format!("idde.{key}"),
            message,
        })
    };
    if year_start(&s.reporting_year_start).is_none() {
        return fail(
            "reporting_year_start",
            format!("{:?} is not a month and day, MM-DD", s.reporting_year_start),
        );
    }
    if let Some(due) = &s.reporting_year_due {
        if year_start(due).is_none() {
            return fail(
                "reporting_year_due",
                format!("{due:?} is not a month and day, MM-DD"),
            );
        }
    }
    let unsourced = |src: &Option<String>| src.as_deref().is_none_or(|t| t.trim().is_empty());
    if s.reporting_year_confirmed && unsourced(&s.reporting_year_source) {
        return fail(
            "reporting_year_confirmed",
            "is true but reporting_year_source names no source it was read in".into(),
        );
    }
    if s.reporting_year_due_confirmed
        && (s.reporting_year_due.is_none() || unsourced(&s.reporting_year_due_source))
    {
        return fail(
            "reporting_year_due_confirmed",
            "is true but reporting_year_due and reporting_year_due_source do not both say \
             what was read where"
                .into(),
        );
    }
    Ok(())
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
            d.due_on_trigger_deadline,
        ];
        if lengths.iter().filter(|x| **x).count() != 1 {
            return fail(
                key,
                format!(
                    "{}: give one of hours, days, business_days or due_on_trigger_deadline",
                    d.rule
                ),
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
        validate_step_options(&key, d)?;
    }
    Ok(())
}

/// The options that say where a step starts and how a contest changes it: each needs
/// what it works from, and two that would say the same thing differently are refused.
fn validate_step_options(key: &str, d: &DeadlineStep) -> Result<(), Issue> {
    let fail = |field: &str, message: String| {
        Err(Issue {
            key: format!("{key}.{field}"),
            message: format!("{}: {message}", d.rule),
        })
    };
    let starts = [
        ("due_on_trigger_deadline", d.due_on_trigger_deadline),
        ("from_receipt", d.from_receipt),
        ("mail_business_days", d.mail_business_days.is_some()),
    ];
    for (field, set) in starts {
        if set && d.trigger.is_none() {
            return fail(field, "needs a trigger (an action to count from)".into());
        }
    }
    if starts.iter().filter(|(_, set)| *set).count() > 1 {
        let (field, _) = starts.iter().rev().find(|(_, set)| *set).expect("one set");
        return fail(
            field,
            "give one of due_on_trigger_deadline, from_receipt or mail_business_days: each says when the period starts".into(),
        );
    }
    if let Some(p) = &d.plan {
        if d.after.is_none() {
            return fail(
                "plan",
                "needs after (the step whose expiry a plan replaces)".into(),
            );
        }
        action_word(format!("{key}.plan"), &d.rule, p)?;
    }
    for (field, words) in [
        ("suspended_by", &d.suspended_by),
        ("resumed_by", &d.resumed_by),
        ("moot_by", &d.moot_by),
    ] {
        for (j, w) in words.iter().enumerate() {
            action_word(format!("{key}.{field}[{j}]"), &d.rule, w)?;
        }
    }
    if !d.resumed_by.is_empty() && d.suspended_by.is_empty() {
        return fail(
            "resumed_by",
            "needs suspended_by (what it resumes from)".into(),
        );
    }
    let afters = [
        d.resumed_business_days.is_some(),
        d.resumed_open_fact.is_some(),
    ];
    match (
        d.resumed_by.is_empty(),
        afters.iter().filter(|x| **x).count(),
    ) {
        (false, 1) | (true, 0) => {}
        (false, _) => {
            return fail(
                "resumed_by",
                "give one of resumed_business_days or resumed_open_fact: what is owed after it"
                    .into(),
            )
        }
        (true, _) => {
            let field = if d.resumed_business_days.is_some() {
                "resumed_business_days"
            } else {
                "resumed_open_fact"
            };
            return fail(field, "needs resumed_by (the action it follows)".into());
        }
    }
    if let Some(n) = d.resumed_business_days {
        if n > super::bounds::MAX_BUSINESS_DAYS {
            return fail(
                "resumed_business_days",
                format!(
                    "{n} is over the {} business days a period may run",
                    super::bounds::MAX_BUSINESS_DAYS
                ),
            );
        }
    }
    if d.resumed_open_fact
        .as_deref()
        .is_some_and(|t| t.trim().is_empty())
    {
        return fail(
            "resumed_open_fact",
            "is empty: say what is not known".into(),
        );
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
        for (field, words) in [
            ("stops_at", &f.stops_at),
            ("confirmed_by", &f.confirmed_by),
            ("refuted_by", &f.refuted_by),
            ("void_at", &f.void_at),
        ] {
            for (j, w) in words.iter().enumerate() {
                action_word(format!("idde.fines[{i}].{field}[{j}]"), &f.rule, w)?;
            }
        }
        validate_report(i, f)?;
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

/// A violator's report stops a fine only when something can confirm it; what confirms
/// or refutes a report means nothing without one.
fn validate_report(i: usize, f: &FineStep) -> Result<(), Issue> {
    let fail = |field: &str, message: &str| {
        Err(Issue {
            key: format!("idde.fines[{i}].{field}"),
            message: format!("{}: {message}", f.rule),
        })
    };
    match &f.report {
        Some(r) => {
            action_word(format!("idde.fines[{i}].report"), &f.rule, r)?;
            if f.confirmed_by.is_empty() {
                return fail(
                    "confirmed_by",
                    "a report needs confirmed_by: the action that confirms it",
                );
            }
        }
        None if !f.confirmed_by.is_empty() => {
            return fail("confirmed_by", "needs report: the action it confirms")
        }
        None if !f.refuted_by.is_empty() => {
            return fail("refuted_by", "needs report: the action it refutes")
        }
        None => {}
    }
    Ok(())
}

/// Each act names offices of `[idde] offices` (a misspelt office would refuse every
/// action of its kind) and a clause, and is an act of the Town, not of the respondent.
fn validate_acts(s: &IddeSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    for (i, a) in s.acts.iter().enumerate() {
        let key = format!("idde.acts[{i}]");
        if a.kind.is_respondents() || a.kind == crate::domain::ActionKind::Eliminated {
            return fail(
                format!("{key}.kind"),
                format!(
                    "a {} is not an office's act (the respondent's, or logged by the closing)",
                    a.kind
                ),
            );
        }
        if a.offices.is_empty() {
            return fail(
                format!("{key}.offices"),
                format!("{}: name the offices the law gives it", a.kind),
            );
        }
        for (j, o) in a.offices.iter().enumerate() {
            if !s.offices.contains(o) {
                return fail(
                    format!("{key}.offices[{j}]"),
                    format!(
                        "{o:?} is not one of [idde] offices ({})",
                        s.offices.join(", ")
                    ),
                );
            }
        }
        if a.citation.trim().is_empty() {
            return fail(
                format!("{key}.citation"),
                format!("{}: no citation", a.kind),
            );
        }
    }
    Ok(())
}

/// Each immunity covers a known kind of respondent, bars something, and cites its clause.
fn validate_immunities(s: &IddeSettings) -> Result<(), Issue> {
    use crate::domain::enforcement::RespondentKind;
    let fail = |key: String, message: String| Err(Issue { key, message });
    for (i, m) in s.immunities.iter().enumerate() {
        let key = format!("idde.immunities[{i}]");
        if m.kinds.is_empty() || m.kinds.contains(&RespondentKind::Unknown) {
            return fail(
                format!("{key}.kinds"),
                format!(
                    "{}: name the kinds of respondent it covers (not unknown: an unknown respondent is flagged, never taken as one)",
                    m.rule
                ),
            );
        }
        if m.refuses.is_empty() && m.fines_accrue {
            return fail(
                key,
                format!("{}: give refuses, or fines_accrue = false", m.rule),
            );
        }
        if let Some(k) = m.refuses.iter().find(|k| k.is_respondents()) {
            return fail(
                format!("{key}.refuses"),
                format!("{}: a {k} is the respondent's own act", m.rule),
            );
        }
        if m.citation.trim().is_empty() || m.text.trim().is_empty() {
            return fail(
                key,
                format!("{}: give the citation and the law's words", m.rule),
            );
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
            ..DeadlineStep::default()
        });
        let e = validate(&s).unwrap_err();
        assert_eq!(e.key, "idde.deadlines[0]");
        assert!(e.message.contains("x.step"), "{}", e.message);
        s.reporting_year_start = "13-01".into();
        assert_eq!(validate(&s).unwrap_err().key, "idde.reporting_year_start");
    }
}
