//! What the three laws' logic shares: the inputs, threshold tests, and the words and
//! evidence an answer is written in.

use super::{
    ListedWater, ProjectFacts, Requirement, RequirementKind, RequirementStatus, TmdlOverlap,
    WaterEvidence,
};
use crate::domain::Area;
use crate::rules::finding::{Evidence, Finding};
use crate::rules::profile::{
    InspectionInterval, Profile, Role, Threshold, ThresholdUnit, TimeUnit, SQFT_PER_ACRE,
};
use crate::rules::quantity::square_feet;

/// What every law's logic shares: the inputs, the area in square feet and the unknown
/// facts collected so far.
pub(super) struct Ctx<'a> {
    pub(super) profile: &'a Profile,
    pub(super) facts: &'a ProjectFacts,
    pub(super) water: &'a WaterEvidence,
    /// The disturbed area in square feet (exact for acres, see `square_feet`).
    pub(super) sqft: f64,
    pub(super) open_facts: Vec<String>,
}

impl<'a> Ctx<'a> {
    /// The town's rule id that plays `role` in the family's code. Loading a profile checks
    /// that it maps every role its family decides; the role's own name stands in should a
    /// profile built in code lack one, so the answer still names what was decided.
    pub(super) fn id(&self, role: Role) -> &'a str {
        self.profile.role_id(role).unwrap_or(role.as_str())
    }

    /// A finding citing `rules` and taking the profile's readings for `ambs`.
    pub(super) fn finding<R>(&self, result: R, rules: &[&str], ambs: &[&str]) -> Finding<R> {
        let mut f = Finding::new(result);
        for rule in rules {
            f.cite(self.profile, rule);
        }
        for amb in ambs {
            f.assume(self.profile, amb);
        }
        f
    }

    /// A requirement finding.
    pub(super) fn requirement(
        &self,
        kind: RequirementKind,
        status: RequirementStatus,
        summary: &str,
        rules: &[&str],
        ambs: &[&str],
    ) -> Finding<Requirement> {
        self.finding(
            Requirement {
                kind,
                status,
                summary: summary.to_string(),
                schedule: Vec::new(),
            },
            rules,
            ambs,
        )
    }

    /// Records a fact that an answer turns on but the caller left unknown.
    pub(super) fn open(&mut self, fact: impl Into<String>) {
        let fact = fact.into();
        if !self.open_facts.contains(&fact) {
            self.open_facts.push(fact);
        }
    }

    /// The threshold named `name` in the profile.
    pub(super) fn threshold(&self, name: &str) -> Option<&'a Threshold> {
        self.profile.thresholds.get(name)
    }

    /// Whether the disturbed area meets threshold `name`, with a sentence saying so; `None`
    /// when the profile states no such threshold.
    pub(super) fn meets(&self, name: &str, label: &str) -> Option<(bool, String)> {
        let t = self.threshold(name)?;
        let met = t.is_met_by_sqft(self.sqft);
        let verb = if met { "meets" } else { "does not meet" };
        Some((
            met,
            format!(
                "{} {verb} the {label} threshold ({} {}, {})",
                self.area(),
                t.comparison,
                threshold_value(t),
                crate::rules::finding::plain_citation(&t.citation)
            ),
        ))
    }

    /// Like [`Ctx::meets`], but a threshold missing from the profile counts as not met and
    /// the reason says so.
    pub(super) fn meets_or_not(&self, name: &str, label: &str) -> (bool, String) {
        self.meets(name, label).unwrap_or_else(|| {
            (
                false,
                format!(
                    "the {} profile states no {name} threshold, so the {label} test was not evaluated",
                    self.profile.id
                ),
            )
        })
    }

    /// The disturbed area in words: `the disturbed area of 4,999 sq ft (0.114761 acre)`.
    pub(super) fn area(&self) -> String {
        format!(
            "the disturbed area of {} sq ft ({} acre)",
            group(self.sqft, 2),
            trim(self.sqft / SQFT_PER_ACRE, 6)
        )
    }

    /// The disturbed area as evidence, in square feet and acres.
    pub(super) fn area_evidence(&self) -> Vec<Evidence> {
        let mut ev = vec![Evidence::Measure {
            what: "disturbed_area".to_string(),
            value: self.sqft,
            unit: "sqft".to_string(),
            of: "the project".to_string(),
        }];
        ev.push(Evidence::Measure {
            what: "disturbed_area".to_string(),
            value: self.sqft / SQFT_PER_ACRE,
            unit: "acre".to_string(),
            of: "the project".to_string(),
        });
        ev
    }

    /// The profile's inspection intervals that belong to `rule`, in name order.
    pub(super) fn schedule(&self, rule: &str) -> Vec<InspectionInterval> {
        self.profile
            .inspections
            .values()
            .filter(|i| i.rule == rule)
            .cloned()
            .collect()
    }
}

/// A threshold's value with its unit: `5,000 sq ft`, `1 acre`, `0.5 acre`, `5 acres`.
pub(super) fn threshold_value(t: &Threshold) -> String {
    match t.unit {
        ThresholdUnit::Sqft => format!("{} sq ft", group(t.value, 2)),
        ThresholdUnit::Acre if t.value > 1.0 => {
            format!("{} acres", trim(t.value, 4))
        }
        ThresholdUnit::Acre => format!("{} acre", trim(t.value, 4)),
    }
}

/// A number with at most `decimals` decimals, trailing zeros dropped: `0.114761`, `5`.
pub(super) fn trim(value: f64, decimals: usize) -> String {
    // Whole numbers (most thresholds and areas) skip exact float formatting, which is
    // the slow part of writing an answer for every parcel of a county.
    if value.fract() == 0.0 && value.abs() < 1e15 {
        return format!("{}", value as i64);
    }
    let s = format!("{value:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A number with thousands separators and at most `decimals` decimals: `217,799`.
pub(super) fn group(value: f64, decimals: usize) -> String {
    let s = trim(value, decimals);
    let (sign, s) = s.strip_prefix('-').map_or(("", s.as_str()), |r| ("-", r));
    let (whole, fraction) = s.split_once('.').map_or((s, None), |(w, f)| (w, Some(f)));
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    match fraction {
        Some(f) => format!("{sign}{out}.{f}"),
        None => format!("{sign}{out}"),
    }
}

/// "a, b and c".
pub(super) fn and_list<S: AsRef<str>>(items: &[S]) -> String {
    let items: Vec<&str> = items.iter().map(AsRef::as_ref).collect();
    match items.as_slice() {
        [] => String::new(),
        [one] => (*one).to_string(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// An inspection schedule in words: `every 7 calendar days and within 24 hours after …`.
pub(super) fn describe_schedule(schedule: &[InspectionInterval]) -> String {
    let parts: Vec<String> = schedule
        .iter()
        .map(|i| {
            let unit = match i.unit {
                TimeUnit::Hours => "hours",
                TimeUnit::CalendarDays => "calendar days",
                TimeUnit::BusinessDays => "business days",
            };
            match (i.every, i.within, i.after.as_deref()) {
                (Some(n), _, _) => format!("every {n} {unit}"),
                (None, Some(n), Some(after)) => format!("within {n} {unit} after {after}"),
                (None, n, _) => format!("within {} {unit}", n.unwrap_or(0)),
            }
        })
        .collect();
    and_list(&parts)
}

/// Sediment or a measure of it: always a pollutant of concern (§ 267-4B, § 156-80).
pub(super) fn is_sediment_class(pollutant: &str) -> bool {
    let p = pollutant.to_lowercase();
    [
        "sediment",
        "suspended solids",
        "tss",
        "turbidity",
        "siltation",
        "silt",
    ]
    .iter()
    .any(|w| p.contains(w))
}

/// Phosphorus in any of its listed forms (`phosphorus`, `total phosphorus`, `phosphate`).
pub(super) fn is_phosphorus(pollutant: &str) -> bool {
    pollutant.to_lowercase().contains("phosph")
}

/// An overlap area in words: `12,500 sq ft`.
pub(super) fn overlap_words(area: Area) -> String {
    format!("{} sq ft", group(square_feet(area), 2))
}

/// The evidence for a TMDL area: the feature and its overlap with the footprint.
pub(super) fn tmdl_evidence(t: &TmdlOverlap) -> [Evidence; 2] {
    let source = match t.stormwater_source {
        Some(true) => "stormwater identified as a source",
        Some(false) => "stormwater not identified as a source",
        None => "the record does not say whether stormwater is a source",
    };
    [
        Evidence::Feature {
            layer: "tmdl_areas".to_string(),
            id: t.tmdl_id.clone(),
            note: format!("TMDL for {}; {source}", t.pollutant),
        },
        Evidence::Measure {
            what: "overlap_area".to_string(),
            value: t.overlap.value,
            unit: t.overlap.unit.symbol().to_string(),
            of: format!("the footprint and TMDL area {}", t.tmdl_id),
        },
    ]
}

/// The evidence for a 303(d)-listed water: the feature, its listings and how it is reached.
pub(super) fn water_evidence(w: &ListedWater) -> Evidence {
    Evidence::Feature {
        layer: "receiving_waters".to_string(),
        id: w.water_id.clone(),
        note: format!(
            "{}: 303(d)-listed for {}; reached by {}",
            w.name,
            and_list(&w.pollutants),
            w.reached_by
        ),
    }
}

/// The exemption finding's result, with its closing reasons: exempt when an exemption the
/// facts decide applies; else undetermined (`None`) when one turns on an unconfirmed
/// effective date; else not exempt. `not_evaluated` lists the exemptions whose facts were
/// not given.
pub(super) fn exemption_result(
    f: &mut Finding<Option<bool>>,
    exempt: bool,
    depends: bool,
    not_evaluated: &[String],
) -> Option<bool> {
    if !exempt && depends {
        f.because("whether the project is exempt depends on the law's effective date, which is not confirmed (AMB-14); until it is, what the law requires of a project that is not exempt depends on it too");
    } else if !exempt {
        f.because("no exemption that the facts decide applies");
    }
    f.because(format!(
        "not evaluated, for want of facts: {}",
        not_evaluated.join("; ")
    ));
    match (exempt, depends) {
        (true, _) => Some(true),
        (false, true) => None,
        (false, false) => Some(false),
    }
}

/// What a date-based exemption (a plat or building permit approved on or before a cut-off)
/// comes to on the facts given.
pub(super) enum DateTest {
    /// The date was not given: the exemption is not evaluated.
    NotGiven,
    /// On or before a confirmed cut-off, or on or before the day the law was adopted
    /// (which no effective date can precede): exempt.
    Exempt,
    /// After a confirmed cut-off: not exempt.
    After,
    /// After the law's adoption (or no adoption date recorded) while its effective date is
    /// not confirmed (AMB-14), or no cut-off recorded: it depends on the effective date.
    Depends,
}

impl Ctx<'_> {
    /// The law's name as the profile's wording gives it (`Chapter 267`), or "the law".
    fn law_name(&self) -> String {
        match self.profile.wording.law.trim() {
            "" => "the law".to_string(),
            law => law.to_string(),
        }
    }

    /// The exemption cut-off in words for a list of exemptions not evaluated: the date
    /// itself when confirmed (`December 17, 2008`), else "the law's effective date".
    pub(super) fn cutoff_words(&self) -> String {
        match self.profile.exemption_cutoff() {
            Some(c) if c.confirmed => c.effective_date.format("%B %-d, %Y").to_string(),
            _ => format!("{}'s effective date", self.law_name()),
        }
    }

    /// Tests an approval date against the profile's exemption cut-off (the AMB-14 setting
    /// `effective_date`, with `confirmed` and `adopted`), writing the reason into `f`.
    /// `what` names the approval: `the subdivision plat`.
    pub(super) fn date_exemption<R>(
        &mut self,
        f: &mut Finding<R>,
        what: &str,
        date: Option<chrono::NaiveDate>,
    ) -> DateTest {
        let Some(date) = date else {
            return DateTest::NotGiven;
        };
        // Loading checks the setting, so only a profile built in code can lack it.
        let Some(reading) = self.profile.exemption_cutoff() else {
            f.assume(self.profile, "AMB-14");
            f.because(format!(
                "{what} was approved on {date}, but the {} profile records no exemption cut-off date (AMB-14): whether it is exempt depends on that date",
                self.profile.id
            ));
            self.open("the exemption cut-off date (AMB-14)");
            return DateTest::Depends;
        };
        f.assume(self.profile, "AMB-14");
        let cutoff = reading.effective_date;
        if reading.confirmed {
            return if date <= cutoff {
                f.because(format!(
                    "{what} was approved on {date}, on or before {cutoff}: exempt"
                ));
                DateTest::Exempt
            } else {
                f.because(format!(
                    "{what} was approved on {date}, after {cutoff}: not exempt on that ground"
                ));
                DateTest::After
            };
        }
        self.unconfirmed_date_exemption(f, what, date, reading.adopted)
    }

    /// [`Ctx::date_exemption`] while the effective date is unconfirmed: a law takes effect
    /// no earlier than the day it is adopted (in New York, on filing with the Secretary of
    /// State, which follows adoption), so an approval on or before adoption is exempt; a
    /// later one depends on the effective date, which becomes the open fact.
    fn unconfirmed_date_exemption<R>(
        &mut self,
        f: &mut Finding<R>,
        what: &str,
        date: chrono::NaiveDate,
        adopted: Option<chrono::NaiveDate>,
    ) -> DateTest {
        let law = self.law_name();
        match adopted {
            Some(a) if date <= a => {
                f.because(format!(
                    "{what} was approved on {date}, on or before {a}, the day {law} was adopted; a law takes effect no earlier than its adoption, so the approval is on or before the effective date whatever that date is confirmed to be: exempt"
                ));
                DateTest::Exempt
            }
            _ => {
                let since = adopted.map_or_else(
                    || "the profile records no adoption date".to_string(),
                    |a| format!("after {law} was adopted on {a}"),
                );
                f.because(format!(
                    "{what} was approved on {date}, {since}; {law}'s effective date is not confirmed (AMB-14), so whether the approval is on or before it is open: exempt if {law} took effect on or after {date}, not exempt if earlier"
                ));
                self.open(format!(
                    "{law}'s effective date, not confirmed (AMB-14): an approval after the law's adoption is exempt only if the law took effect on or after the approval's date"
                ));
                DateTest::Depends
            }
        }
    }

    /// Not more than five acres disturbed at one time (the law's words in `summary`): the
    /// project's own disturbance says whether phasing is needed, `over` saying what
    /// follows when it is.
    pub(super) fn disturbance_at_one_time(
        &mut self,
        summary: &str,
        over: &str,
        outside: Option<&str>,
        law: &str,
        every: &str,
    ) -> Finding<Requirement> {
        let mut at_once = self.every_project_duty(
            Duty {
                kind: RequirementKind::DisturbanceAtOneTime,
                summary,
                rules: &[self.id(Role::AtOneTime)],
                ambs: &["AMB-10"],
                inside: RequirementStatus::Applies,
                why_inside: every,
            },
            outside,
            law,
        );
        if outside.is_none() {
            let (within, reason) =
                self.meets_or_not("max_disturbance_at_one_time", "disturbance at one time");
            at_once.because(reason);
            at_once.because(if within {
                "the whole project is within the limit, so any phasing meets it"
            } else {
                over
            });
        }
        at_once
    }

    /// A duty that binds every project the law reaches: `applies` inside, `does not apply`
    /// outside (with why), at the duty's `inside` status otherwise (`applies` or `may be
    /// required`).
    pub(super) fn every_project_duty(
        &self,
        duty: Duty<'_>,
        outside: Option<&str>,
        law: &str,
    ) -> Finding<Requirement> {
        let Duty {
            kind,
            summary,
            rules,
            ambs,
            inside,
            why_inside,
        } = duty;
        let status = if outside.is_none() {
            inside
        } else {
            RequirementStatus::DoesNotApply
        };
        let mut f = self.requirement(kind, status, summary, rules, ambs);
        match outside {
            Some(why) => f.because(format!("{law} does not reach the project: {why}")),
            None => f.because(why_inside.to_string()),
        };
        f
    }
}

/// A duty of the law as a determination lists it: what it is and says, the rules and
/// ambiguities it rests on, and its status (with why) where the law reaches the project.
pub(super) struct Duty<'d> {
    /// Which duty.
    pub kind: RequirementKind,
    /// What it requires, in the law's words.
    pub summary: &'d str,
    /// The rules it cites.
    pub rules: &'d [&'d str],
    /// The ambiguities it rests on.
    pub ambs: &'d [&'d str],
    /// Its status where the law reaches the project.
    pub inside: RequirementStatus,
    /// Why it has that status there.
    pub why_inside: &'d str,
}

/// A duty that follows stormwater management practices on the site (as-built plans, O&M,
/// PE inspections): it applies when post-construction practices or a stormwater management
/// facility are required, depends when that is undecided.
pub(super) fn practice_status(
    outside: Option<&str>,
    post: RequirementStatus,
    facility: Option<bool>,
) -> RequirementStatus {
    use RequirementStatus as S;
    match (outside, post, facility) {
        (Some(_), _, _) => S::DoesNotApply,
        (None, S::Applies, _) | (None, _, Some(true)) => S::Applies,
        (None, S::Indicated, _) => S::Indicated,
        (None, S::DoesNotApply | S::NotCovered, Some(false)) => S::DoesNotApply,
        (None, _, _) => S::Depends,
    }
}

/// Why a practice duty has its status, in words.
pub(super) fn practice_reason(
    status: RequirementStatus,
    outside: Option<&str>,
    law: &str,
) -> String {
    use RequirementStatus as S;
    match (status, outside) {
        (_, Some(why)) => format!("{law} does not reach the project: {why}"),
        (S::Applies, _) => "the project will have stormwater management practices: post-construction controls or a stormwater management facility are required".to_string(),
        (S::Indicated, _) => "post-construction practices are indicated; the construction general permit decides (AMB-13)".to_string(),
        (S::DoesNotApply, _) => "no post-construction controls and no stormwater management facility are required".to_string(),
        _ => "due if the project will have stormwater management practices, which turns on the post-construction controls or on whether an approval requires a stormwater management facility, not decided on the facts given".to_string(),
    }
}

/// A tri-state result in words: `met`, `not met`, `undetermined`.
pub(super) fn met_words(met: Option<bool>) -> &'static str {
    match met {
        Some(true) => "met",
        Some(false) => "not met",
        None => "undetermined",
    }
}
