//! The annual report of the illicit discharge programme: every count with its period
//! (the reporting year, or cumulative to its end), its denominator and the ids of the
//! records behind it, so an auditor can check each number against the registry.
//!
//! The reporting year starts on the profile's `[idde] reporting_year_start`; year `Y`
//! runs from that day of `Y` to the day before it in `Y + 1`.

use chrono::{Duration, NaiveDate};
use rustc_hash::FxHashSet;
use serde::Serialize;

use super::case::Case;
use crate::domain::{Closure, Layer, Value};
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
    /// The dry-weather rule applied, in hours since rain.
    pub dry_weather_hours: f64,
    /// The counts.
    pub counts: Vec<Count>,
    /// What the report rests on that the records cannot settle (the year's start where
    /// the profile cites no permit for it).
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

/// One screening as the report reads it.
struct Screened<'a> {
    id: &'a str,
    asset: &'a str,
    on: NaiveDate,
    dry: Option<bool>,
    not_found: bool,
    not_accessible: bool,
}

fn screenings(snap: &Snapshot) -> Vec<Screened<'_>> {
    let l = Layer::Inspections;
    let (ki, ai, di, wi, fi) = (
        l.field_index("kind").expect("field"),
        l.field_index("asset_id").expect("field"),
        l.field_index("inspected_on").expect("field"),
        l.field_index("dry_weather").expect("field"),
        l.field_index("findings").expect("field"),
    );
    snap.layer(l)
        .features
        .iter()
        .filter(|f| f.values[ki].as_str() == Some("dry_weather_screening"))
        .filter_map(|f| {
            let on = match &f.values[di] {
                Value::Date(d) => *d,
                _ => return None,
            };
            let findings = f.values[fi].as_str().unwrap_or("");
            Some(Screened {
                id: &f.id,
                asset: f.values[ai].as_str()?,
                on,
                dry: f.values[wi].as_bool(),
                // Cheap tests on the stored JSON: the keys are written only when true.
                not_found: findings.contains("\"not_found\":true"),
                not_accessible: findings.contains("\"not_accessible\":true"),
            })
        })
        .collect()
}

/// Builds the report of `year` from a snapshot and its cases.
pub fn annual_report(
    snap: &Snapshot,
    profile: &Profile,
    cases: &[Case],
    year: i32,
) -> Option<AnnualReport> {
    let period = year_period(profile, year)?;
    let year_days = YearDays {
        from: period.from.expect("a year has a start"),
        to: period.to,
    };
    let yr = year_days.period();
    let mut counts = inventory_counts(snap, year_days);
    counts.extend(screening_counts(snap, profile, year_days));
    counts.extend(case_counts(profile, cases, year_days));
    counts.extend(inspection_counts(snap, year_days));
    Some(AnnualReport {
        jurisdiction: profile.id.clone(),
        year,
        period: yr,
        dry_weather_hours: profile.idde.dry_weather_hours,
        open_facts: match &profile.idde.reporting_year_source {
            Some(_) => Vec::new(),
            None => vec![format!(
                "the reporting year starts on {} because the profile says so ([idde] \
                 reporting_year_start = \"{}\"); that date has not been checked against the \
                 MS4 general permit's reporting period",
                yr.from.map(|d| d.to_string()).unwrap_or_default(),
                profile.idde.reporting_year_start
            )],
        },
        counts,
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

/// What an outfall count is out of: the outfalls in the inventory.
fn inventory_denominator(snap: &Snapshot) -> Option<(String, usize)> {
    Some((
        "outfalls in the inventory".to_string(),
        snap.layer(Layer::Outfalls).features.len(),
    ))
}

/// The outfalls in the inventory, and those mapped.
fn inventory_counts(snap: &Snapshot, year: YearDays) -> Vec<Count> {
    let cumulative = year.cumulative();
    let outfalls = snap.layer(Layer::Outfalls);
    let inventory: Vec<String> = outfalls.features.iter().map(|f| f.id.clone()).collect();
    let mapped: Vec<String> = outfalls
        .features
        .iter()
        .filter(|f| f.geom.is_some())
        .map(|f| f.id.clone())
        .collect();
    vec![
        count(
            "outfalls_in_inventory",
            "Outfalls in the inventory",
            cumulative,
            None,
            Layer::Outfalls,
            inventory,
            None,
        ),
        count(
            "outfalls_mapped",
            "Outfalls mapped (with a location)",
            cumulative,
            inventory_denominator(snap),
            Layer::Outfalls,
            mapped,
            None,
        ),
    ]
}

/// The dry-weather screenings: outfalls screened in the year and since coverage began,
/// the screenings counted and not, the outfalls not found or not reached.
fn screening_counts(snap: &Snapshot, profile: &Profile, year: YearDays) -> Vec<Count> {
    let (yr, cumulative, to) = (year.period(), year.cumulative(), year.to);
    let in_year = |d: NaiveDate| year.has(d);
    let inv_denom = || inventory_denominator(snap);
    let sc = screenings(snap);
    let counted = |s: &&Screened<'_>| s.dry == Some(true) && !s.not_found && !s.not_accessible;
    let distinct = |it: &mut dyn Iterator<Item = &Screened<'_>>| -> Vec<String> {
        let mut seen = FxHashSet::default();
        let mut v: Vec<String> = it
            .filter(|s| seen.insert(s.asset))
            .map(|s| s.asset.to_string())
            .collect();
        v.sort();
        v
    };
    let ids = |it: &mut dyn Iterator<Item = &Screened<'_>>| -> Vec<String> {
        let mut v: Vec<String> = it.map(|s| s.id.to_string()).collect();
        v.sort();
        v
    };
    vec![
        count(
            "outfalls_screened",
            "Outfalls screened in dry weather in the year",
            yr,
            inv_denom(),
            Layer::Outfalls,
            distinct(&mut sc.iter().filter(|s| in_year(s.on)).filter(counted)),
            Some(format!("a screening counts when at least {} hours had passed since rain of 0.1 inch and the outfall was found and reached", profile.idde.dry_weather_hours)),
        ),
        count(
            "outfalls_screened_cumulative",
            "Outfalls screened in dry weather since coverage began",
            cumulative,
            inv_denom(),
            Layer::Outfalls,
            distinct(&mut sc.iter().filter(|s| s.on <= to).filter(counted)),
            None,
        ),
        count(
            "dry_weather_screenings",
            "Dry-weather screenings in the year",
            yr,
            Some((
                "screenings recorded in the year".into(),
                sc.iter().filter(|s| in_year(s.on)).count(),
            )),
            Layer::Inspections,
            ids(&mut sc.iter().filter(|s| in_year(s.on)).filter(counted)),
            None,
        ),
        count(
            "screenings_not_dry_weather",
            "Screenings too soon after rain (or without the hours since rain): not counted",
            yr,
            None,
            Layer::Inspections,
            ids(&mut sc.iter().filter(|s| in_year(s.on) && s.dry != Some(true))),
            None,
        ),
        count(
            "outfalls_not_found",
            "Outfalls not found in the year",
            yr,
            inv_denom(),
            Layer::Outfalls,
            distinct(&mut sc.iter().filter(|s| in_year(s.on) && s.not_found)),
            None,
        ),
        count(
            "outfalls_not_accessible",
            "Outfalls not accessible in the year",
            yr,
            inv_denom(),
            Layer::Outfalls,
            distinct(&mut sc.iter().filter(|s| in_year(s.on) && s.not_accessible)),
            None,
        ),
    ]
}

/// The cases opened and closed, the illicit discharges found and eliminated, the
/// connections removed, the notices, citations and fines of the year.
fn case_counts(profile: &Profile, cases: &[Case], year: YearDays) -> Vec<Count> {
    let yr = year.period();
    let in_year = |d: NaiveDate| year.has(d);
    let case_ids = |pred: &dyn Fn(&Case) -> bool| -> Vec<String> {
        let mut v: Vec<String> = cases
            .iter()
            .filter(|c| pred(c))
            .map(|c| c.case_id.clone())
            .collect();
        v.sort();
        v
    };
    let mut counts = Vec::new();
    let opened = case_ids(&|c| in_year(c.opened_on));
    let n_opened = opened.len();
    counts.push(count(
        "cases_opened",
        "Cases opened in the year",
        yr,
        None,
        Layer::Cases,
        opened,
        None,
    ));
    counts.push(count(
        "cases_closed",
        "Cases closed in the year",
        yr,
        None,
        Layer::Cases,
        case_ids(&|c| c.closed_on.is_some_and(in_year)),
        None,
    ));
    counts.push(count(
        "illicit_discharges_found",
        "Illicit discharges found: cases opened in the year and not closed unfounded",
        yr,
        Some(("cases opened in the year".into(), n_opened)),
        Layer::Cases,
        case_ids(&|c| in_year(c.opened_on) && c.closure != Some(Closure::Unfounded)),
        Some("a case still open counts as found until it closes unfounded".into()),
    ));
    counts.push(count(
        "illicit_discharges_eliminated",
        "Illicit discharges eliminated in the year",
        yr,
        None,
        Layer::Cases,
        case_ids(&|c| c.closure == Some(Closure::Eliminated) && c.closed_on.is_some_and(in_year)),
        None,
    ));
    let mut eliminated_conns: Vec<String> = cases
        .iter()
        .filter(|c| c.closure == Some(Closure::Eliminated) && c.closed_on.is_some_and(in_year))
        .filter_map(|c| c.connection_id.clone())
        .collect();
    eliminated_conns.sort();
    eliminated_conns.dedup();
    counts.push(count(
        "illicit_connections_eliminated",
        "Illicit connections eliminated in the year (status set to removed)",
        yr,
        None,
        Layer::Connections,
        eliminated_conns,
        None,
    ));
    counts.extend(enforcement_counts(profile, cases, year));
    counts
}

/// The notices and citations served in the year, and the fines accrued on them.
fn enforcement_counts(profile: &Profile, cases: &[Case], year: YearDays) -> Vec<Count> {
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
    let end = year.to.and_hms_opt(23, 59, 59).expect("time");
    let mut fined = Vec::new();
    let mut dollars = 0.0;
    for c in cases {
        for f in super::deadlines::fines_of(c, &profile.idde, end)
            .iter()
            .filter(|f| in_year(f.from.date()))
        {
            dollars += f.accrued;
            fined.push(c.case_id.clone());
        }
    }
    fined.sort();
    fined.dedup();
    let mut fines = count(
        "fines_accrued",
        "Fines accrued on citations issued in the year, computed from the law's amounts",
        yr,
        None,
        Layer::Cases,
        fined,
        Some("counted to the end of the year or the action that stopped them".into()),
    );
    fines.dollars = Some(dollars);
    vec![notices, citations, fines]
}

/// The SMP inspections, catch basins cleaned and construction inspections of the year,
/// in one pass over the inspections by field position.
fn inspection_counts(snap: &Snapshot, year: YearDays) -> Vec<Count> {
    let yr = year.period();
    let l = Layer::Inspections;
    let (ki, ai, di) = (
        l.field_index("kind").expect("field"),
        l.field_index("asset_id").expect("field"),
        l.field_index("inspected_on").expect("field"),
    );
    let mut by_kind: rustc_hash::FxHashMap<&str, (Vec<String>, FxHashSet<&str>)> =
        Default::default();
    for f in &snap.layer(l).features {
        let Some(k) = f.values[ki].as_str() else {
            continue;
        };
        if !matches!(
            k,
            "smp_maintenance" | "catch_basin_cleaning" | "construction_inspection"
        ) {
            continue;
        }
        if !matches!(&f.values[di], Value::Date(d) if year.has(*d)) {
            continue;
        }
        let e = by_kind.entry(k).or_default();
        e.0.push(f.id.clone());
        if let Some(a) = f.values[ai].as_str() {
            e.1.insert(a);
        }
    }
    let mut insp_of = |kind: &str| -> (Vec<String>, Vec<String>) {
        let (mut ids, assets) = by_kind.remove(kind).unwrap_or_default();
        ids.sort_unstable();
        let mut a: Vec<String> = assets.into_iter().map(str::to_string).collect();
        a.sort_unstable();
        (ids, a)
    };
    let (smp_ids, _) = insp_of("smp_maintenance");
    let smp = count(
        "smp_inspections",
        "SMP inspections and maintenance in the year",
        yr,
        Some((
            "SMPs in the registry".into(),
            snap.layer(Layer::Smps).features.len(),
        )),
        Layer::Inspections,
        smp_ids,
        None,
    );
    let (_, cb_assets) = insp_of("catch_basin_cleaning");
    let catch_basins = count(
        "catch_basins_cleaned",
        "Catch basins cleaned in the year",
        yr,
        Some((
            "catch basins in the registry".into(),
            snap.layer(Layer::CatchBasins).features.len(),
        )),
        Layer::CatchBasins,
        cb_assets,
        None,
    );
    let construction = count(
        "construction_inspections",
        "Construction-phase inspections in the year",
        yr,
        None,
        Layer::Inspections,
        insp_of("construction_inspection").0,
        Some(
            "the registry has no construction inspection kind yet: this stays 0 until it does"
                .into(),
        ),
    );
    vec![smp, catch_basins, construction]
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
