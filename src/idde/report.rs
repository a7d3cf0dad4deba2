//! The annual report of the illicit discharge programme: every count with its period
//! (the reporting year, or cumulative to its end), its denominator and the ids of the
//! records behind it, so an auditor can check each number against the registry. Each
//! count says what it counts; a share counts only what its denominator holds (outfalls,
//! SMPs and catch basins that stand, [`standing`]), and distinct assets, not visits.
//!
//! The reporting year starts on the profile's `[idde] reporting_year_start`; year `Y`
//! runs from that day of `Y` to the day before it in `Y + 1` (a year from 3 January
//! counts a screening of 2 January in the year before). The report is due on the
//! profile's `reporting_year_due`, the first such day after the year ends. Each is stated
//! with its source, and where the profile does not say it read the permit's own text, the
//! report lists it as an open fact ([`basis`]).

mod basis;
mod cases;
mod construction;
mod outfalls;
mod overdue;
pub(crate) mod standing;
mod upkeep;

pub use overdue::OverdueBySchedule;

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime};
use serde::Serialize;

use super::case::Case;
use crate::domain::Layer;
use crate::rules::Profile;
use crate::spatial::Snapshot;

/// A period of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Period {
    /// First day (none for a cumulative count: since records began).
    pub from: Option<NaiveDate>,
    /// Last day.
    pub to: NaiveDate,
}

/// One count of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Count {
    /// What is counted (`outfalls_screened`, ...).
    pub measure: &'static str,
    /// In words.
    pub label: String,
    /// The year, or cumulative to its end.
    pub period: Period,
    /// The number.
    pub count: usize,
    /// What it is out of, when it is a share: its name and number.
    pub denominator: Option<(String, usize)>,
    /// The ids of the records counted (features of `layer`, or cases).
    pub layer: Layer,
    /// The ids.
    pub records: Vec<String>,
    /// A sum in dollars, for fines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dollars: Option<f64>,
    /// What the count leaves out or assumes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnualReport {
    /// The jurisdiction.
    pub jurisdiction: String,
    /// The reporting year, by the year it starts in.
    pub year: i32,
    /// Its first and last days.
    pub period: Period,
    /// Where the year's start comes from, as the profile cites it.
    pub period_source: Option<String>,
    /// The day the report is due, where the profile states one.
    pub due_on: Option<NaiveDate>,
    /// Where the due date comes from, as the profile cites it.
    pub due_source: Option<String>,
    /// The dry-weather rule applied, in hours since rain.
    pub dry_weather_hours: f64,
    /// The counts.
    pub counts: Vec<Count>,
    /// What the report rests on that the records cannot settle: the year's start and the
    /// due date where the profile has not read them in the permit's own text, statuses
    /// it does not read.
    pub open_facts: Vec<String>,
}

/// The first and last day of reporting year `year`.
pub fn year_period(profile: &Profile, year: i32) -> Option<Period> {
    let (m, d) = crate::rules::year_start(&profile.idde.reporting_year_start)?;
    let from = NaiveDate::from_ymd_opt(year, m, d)?;
    let next = NaiveDate::from_ymd_opt(year.checked_add(1)?, m, d)?;
    Some(Period {
        from: Some(from),
        to: next - Duration::days(1),
    })
}

/// Builds the report of `year` from a snapshot and its cases, as the record stands at
/// `as_of` (a year not yet over counts the fines accrued so far, not those to come).
pub fn annual_report(
    snap: &Snapshot,
    profile: &Profile,
    cases: &[Case],
    year: i32,
    as_of: NaiveDateTime,
    overdue: &OverdueBySchedule,
) -> Option<AnnualReport> {
    let period = year_period(profile, year)?;
    let year_days = YearDays {
        from: period.from.expect("a year has a start"),
        to: period.to,
    };
    let outfalls = standing::Inventory::of(snap, Layer::Outfalls);
    let smps = standing::Inventory::of(snap, Layer::Smps);
    let basins = standing::Inventory::of(snap, Layer::CatchBasins);
    let mut counts = outfalls::inventory_counts(snap, &outfalls, year_days);
    counts.extend(outfalls::screening_counts(
        snap, profile, &outfalls, year_days,
    ));
    counts.extend(cases::case_counts(snap, cases, year_days));
    counts.extend(enforcement_counts(profile, cases, year_days, as_of));
    counts.extend(upkeep::upkeep_counts(snap, &smps, &basins, year_days));
    counts.extend(construction::construction_counts(snap, year_days));
    counts.extend(overdue::overdue_counts(
        overdue,
        &[
            (Layer::Outfalls, &outfalls, "outfalls"),
            (Layer::Smps, &smps, "SMPs"),
            (Layer::CatchBasins, &basins, "catch basins"),
        ],
    ));
    let due_on = basis::due_on(profile, period.to);
    let mut open_facts = basis::open_facts(profile, period, due_on);
    open_facts.extend(
        [
            outfalls.unread_fact("outfalls"),
            smps.unread_fact("SMPs"),
            basins.unread_fact("catch basins"),
            overdue::unjudged_fact(overdue),
        ]
        .into_iter()
        .flatten(),
    );
    Some(AnnualReport {
        jurisdiction: profile.id.clone(),
        year,
        period,
        period_source: profile.idde.reporting_year_source.clone(),
        due_on,
        due_source: profile.idde.reporting_year_due_source.clone(),
        dry_weather_hours: profile.idde.dry_weather_hours,
        counts,
        open_facts,
    })
}

/// The first and last days of a reporting year.
#[derive(Clone, Copy)]
struct YearDays {
    from: NaiveDate,
    to: NaiveDate,
}

impl YearDays {
    /// Whether the day falls in the year.
    fn has(self, d: NaiveDate) -> bool {
        d >= self.from && d <= self.to
    }

    /// The year as a report period.
    fn period(self) -> Period {
        Period {
            from: Some(self.from),
            to: self.to,
        }
    }

    /// Since records began, to the end of the year.
    fn cumulative(self) -> Period {
        Period {
            from: None,
            to: self.to,
        }
    }
}

/// The notices and citations served in the year, and the fines that accrued in it: a
/// fine counts in the year its period accrued, whatever year the citation was issued in,
/// so no dollar falls between two reports or counts in both.
fn enforcement_counts(
    profile: &Profile,
    cases: &[Case],
    year: YearDays,
    as_of: NaiveDateTime,
) -> Vec<Count> {
    let yr = year.period();
    let in_year = |d: NaiveDate| year.has(d);
    let actions_of = |kinds: &[&str]| -> Vec<String> {
        let mut v = Vec::new();
        for c in cases {
            for (i, a) in c.actions.iter().enumerate() {
                if kinds.contains(&a.kind.as_str()) && in_year(a.on) {
                    v.push(format!("{}#{}", c.case_id, i + 1));
                }
            }
        }
        v.sort();
        v
    };
    let notices = count(
        "notices",
        "Notices of violation and written notices served in the year (case#action)",
        yr,
        None,
        Layer::Cases,
        actions_of(&["notice_of_violation", "written_notice"]),
        None,
    );
    let citations = count(
        "citations",
        "Citations issued in the year (case#action)",
        yr,
        None,
        Layer::Cases,
        actions_of(&["citation_issued"]),
        None,
    );
    let from = year.from.and_time(NaiveTime::MIN);
    let year_end = (year.to + Duration::days(1)).and_time(NaiveTime::MIN);
    let to = year_end.min(as_of).max(from);
    let mut fined = Vec::new();
    let mut dollars = 0.0;
    for c in cases {
        let d = super::deadlines::fines_accrued_in(c, &profile.idde, from, to);
        if d > 0.0 {
            dollars += d;
            fined.push(c.case_id.clone());
        }
    }
    fined.sort();
    let note = if to < year_end {
        format!(
            "the periods that accrued from the year's start up to {} (the year is not over), whichever year the citation was issued in",
            to.format("%Y-%m-%d %H:%M")
        )
    } else {
        "the periods that accrued in the year, whichever year the citation was issued in".into()
    };
    let mut fines = count(
        "fines_accrued",
        "Fines accrued in the year (cases), computed from the law's amounts",
        yr,
        None,
        Layer::Cases,
        fined,
        Some(note),
    );
    fines.dollars = Some(dollars);
    vec![notices, citations, fines]
}

#[allow(clippy::too_many_arguments)]
fn count(
    measure: &'static str,
    label: &str,
    period: Period,
    denominator: Option<(String, usize)>,
    layer: Layer,
    records: Vec<String>,
    note: Option<String>,
) -> Count {
    Count {
        measure,
        label: label.to_string(),
        period,
        count: records.len(),
        denominator,
        layer,
        records,
        dollars: None,
        note,
    }
}

/// The report as CSV: one row per count, the record ids joined by `;`, then one
/// `open_fact` row per open fact (its text in the label column). Cells are written by
/// [`crate::domain::csv`]: a label or record id a spreadsheet would run is neutralised.
pub fn to_csv(r: &AnnualReport) -> String {
    use crate::domain::csv::row;
    let mut out = row([
        "measure",
        "label",
        "period_from",
        "period_to",
        "count",
        "denominator",
        "denominator_count",
        "dollars",
        "layer",
        "records",
    ]);
    for c in &r.counts {
        out.push_str(&row([
            c.measure.to_string(),
            c.label.clone(),
            c.period.from.map(|d| d.to_string()).unwrap_or_default(),
            c.period.to.to_string(),
            c.count.to_string(),
            c.denominator
                .as_ref()
                .map(|d| d.0.clone())
                .unwrap_or_default(),
            c.denominator
                .as_ref()
                .map(|d| d.1.to_string())
                .unwrap_or_default(),
            c.dollars.map(|d| format!("{d:.2}")).unwrap_or_default(),
            c.layer.name().to_string(),
            c.records.join(";"),
        ]));
    }
    // What the report rests on but nobody has checked goes with the figures, so a
    // spreadsheet made from the CSV carries it too: one row each, after the counts.
    for f in &r.open_facts {
        out.push_str(&row(["open_fact", f, "", "", "", "", "", "", "", ""]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_csv_neutralises_what_a_spreadsheet_would_run() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 31).unwrap();
        let r = AnnualReport {
            jurisdiction: "windsor-ct".into(),
            year: 2026,
            period: Period {
                from: None,
                to: day,
            },
            period_source: None,
            due_on: None,
            due_source: None,
            dry_weather_hours: 48.0,
            counts: vec![Count {
                dollars: Some(-250.0),
                ..count(
                    "outfalls_screened",
                    "=HYPERLINK(\"http://x\",\"y\")",
                    Period {
                        from: None,
                        to: day,
                    },
                    Some(("@SUM(A1)".into(), 2)),
                    Layer::Outfalls,
                    vec!["=cmd|' /C calc'!A0".into(), "OF-2".into()],
                    None,
                )
            }],
            open_facts: vec!["+1+1".into(), "-1+1".into()],
        };
        let csv = to_csv(&r);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(
            lines[1],
            "outfalls_screened,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",,2026-12-31,2,'@SUM(A1),2,-250.00,outfalls,'=cmd|' /C calc'!A0;OF-2"
        );
        assert_eq!(lines[2], "open_fact,'+1+1,,,,,,,,");
        assert_eq!(lines[3], "open_fact,'-1+1,,,,,,,,");
    }
}
