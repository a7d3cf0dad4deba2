//! Issue 25, items 19-21: the annual report's counts, on both stores, from a town built
//! by importing files (the field crew's inspections from a real CSV,
//! `tests/fixtures/screenings/inspections.csv`, whose rows each say what they test).
//!
//! - A screening read from a file is held to the profile's dry-weather rule by the
//!   function the API records one with; a `dry_weather` column its hours contradict, or
//!   a screening of anything but an outfall, is refused naming the feature and field.
//! - A proposed connection's case is no illicit discharge found; removed and proposed
//!   outfalls are in no inventory or denominator; SMPs are counted as SMPs, not visits.
//! - The year runs as the profile reads the permit (New York's GP-0-24-001: 3 January
//!   to 2 January, due 1 April; Connecticut's: the calendar year, due 1 April), each with
//!   its source, and an open fact where the permit's own text was not read.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

use chrono::{NaiveDate, NaiveDateTime};
use ms4::domain::{Layer, Value};
use ms4::idde::report::{annual_report, AnnualReport, OverdueBySchedule};
use ms4::idde::Case;
use ms4::rules::Profile;
use ms4::spatial::Snapshot;
use rstest::rstest;
use serde_json::json;

use crate::common::*;

const X0: f64 = 1_010_000.0;
const Y0: f64 = 870_000.0;

/// A town as its files made it: the snapshot, and the inspections import's report.
struct Built {
    snap: Snapshot,
    import: serde_json::Value,
}

/// The layers besides the inspections: outfalls, catch basins and SMPs that stand, are
/// removed, proposed, or carry a status the report does not read; connections built and
/// proposed.
fn layers() -> Vec<(Layer, String)> {
    let pt = |i: f64| point(X0 + 100.0 * i, Y0 + 700.0);
    let ln = |i: f64| line(&[(X0 + 100.0 * i, Y0), (X0 + 100.0 * i, Y0 + 400.0)]);
    let outfalls = [
        ("OF-1", Some("active")),
        ("OF-2", None),
        ("OF-3", Some("active")),
        ("OF-REMOVED", Some("removed")),
        ("OF-PROPOSED", Some("proposed")),
        ("OF-CAPPED", Some("capped")),
    ];
    let with_status = |id: &str, s: Option<&str>| match s {
        Some(s) => format!(r#""asset_id":"{id}","status":"{s}""#),
        None => format!(r#""asset_id":"{id}""#),
    };
    let fcs = |items: &[(&str, Option<&str>)], off: f64| {
        fc(&items
            .iter()
            .enumerate()
            .map(|(i, (id, s))| feature(&with_status(id, *s), &pt(off + i as f64)))
            .collect::<Vec<_>>())
    };
    vec![
        (Layer::Outfalls, fcs(&outfalls, 0.0)),
        (
            Layer::CatchBasins,
            fcs(
                &[("CB-1", Some("active")), ("CB-GONE", Some("abandoned"))],
                10.0,
            ),
        ),
        (
            Layer::Smps,
            fcs(
                &[
                    ("SMP-1", Some("active")),
                    ("SMP-2", None),
                    ("SMP-GONE", Some("removed")),
                ],
                20.0,
            ),
        ),
        (
            Layer::Connections,
            fc(&[
                feature(
                    r#""connection_id":"C-PLAN","discharge_kind":"sewage","status":"proposed""#,
                    &ln(30.0),
                ),
                feature(
                    r#""connection_id":"C-LIVE","discharge_kind":"sewage","status":"active""#,
                    &ln(31.0),
                ),
                feature(
                    r#""connection_id":"C-OPEN","discharge_kind":"sewage","status":"active""#,
                    &ln(32.0),
                ),
            ]),
        ),
    ]
}

/// Builds the town in a new registry of `kind` under `town`'s built-in profile; the
/// registry (a PostGIS database too) is gone when it returns, the snapshot kept.
async fn build(kind: &str, town: &str) -> Built {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("report").expect("postgis requested"),
    };
    let meta = ms4::import::crs::registry_meta(town, 2234).unwrap();
    let store = ms4::store::create(&url, &meta).await.unwrap();
    let reg = Registry { url, store, dir };
    let at = reg.dir.path();
    for (layer, text) in layers() {
        let path = at.join(format!("{}.geojson", layer.name()));
        std::fs::write(&path, text).unwrap();
        let mut o = ms4::import::ImportOptions::new(layer, &path);
        o.s_srs = Some(2234);
        let r = ms4::import::import(reg.store.clone(), o).await.unwrap();
        assert_eq!(r.rejected, 0, "{layer}: {r}");
    }
    let csv = copy_fixture("screenings/inspections.csv", at);
    let r = ms4::import::import(
        reg.store.clone(),
        ms4::import::ImportOptions::new(Layer::Inspections, &csv),
    )
    .await
    .unwrap();
    Built {
        snap: Snapshot::load(reg.store.as_ref()).await.unwrap(),
        import: serde_json::to_value(&r).unwrap(),
    }
}

/// The towns built, by store kind and profile.
type Towns = HashMap<(String, String), Arc<Built>>;

/// The town of `kind` under `town`, built once per test binary (each test reads it).
fn town(kind: &str, town: &str) -> Option<Arc<Built>> {
    if kind == "postgis" && pg_base().is_none() {
        return None;
    }
    static BUILT: LazyLock<Mutex<Towns>> = LazyLock::new(Default::default);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    let key = (kind.to_string(), town.to_string());
    if let Some(b) = built.get(&key) {
        return Some(b.clone());
    }
    // Its own runtime on its own thread: the registry's pools live and die with it.
    let (k, t) = key.clone();
    let b = std::thread::spawn(move || {
        tokio::runtime::Runtime::new()
            .unwrap()
            .block_on(build(&k, &t))
    })
    .join()
    .expect("the town builds");
    let b = Arc::new(b);
    built.insert(key, b.clone());
    Some(b)
}

/// The year's cases: about a proposed connection, one the Town served a notice on, one
/// still open with nothing served, one closed unfounded.
fn cases() -> Vec<Case> {
    let case = |n: u32, conn: Option<&str>, extra: serde_json::Value| -> Case {
        let mut v = json!({"case_id": format!("CASE-2026-000{n}"), "opened_on": format!("2026-03-0{n}"),
            "origin": "staff", "status": "open", "candidates": [], "actions": []});
        if let Some(c) = conn {
            v["connection_id"] = c.into();
        }
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    };
    vec![
        case(1, Some("C-PLAN"), json!({})),
        case(
            2,
            Some("C-LIVE"),
            json!({"actions": [{"kind": "notice_of_violation", "on": "2026-03-05", "method": "hand",
                "by": "Stormwater Management Officer"}]}),
        ),
        case(3, Some("C-OPEN"), json!({})),
        case(
            4,
            None,
            json!({"status": "closed", "closed_on": "2026-03-09", "closure": "unfounded"}),
        ),
    ]
}

/// A moment after every year these tests report on: the record as it finally stands.
fn later() -> NaiveDateTime {
    NaiveDate::from_ymd_opt(2031, 1, 1)
        .unwrap()
        .and_hms_opt(0, 0, 0)
        .unwrap()
}

/// The assets overdue by the town's schedule, as the report's doors judge them.
fn judged(snap: &Snapshot, p: &Profile, year: i32, as_of: NaiveDateTime) -> OverdueBySchedule {
    ms4::answer::schedule::overdue_for_report(&ms4::answer::Ask::new(snap, p), year, as_of)
}

fn report(b: &Built, town: &str, year: i32) -> AnnualReport {
    let p = Profile::builtin(town).unwrap();
    annual_report(
        &b.snap,
        &p,
        &cases(),
        year,
        later(),
        &judged(&b.snap, &p, year, later()),
    )
    .unwrap()
}

fn records<'a>(r: &'a AnnualReport, measure: &str) -> &'a ms4::idde::report::Count {
    r.counts
        .iter()
        .find(|c| c.measure == measure)
        .unwrap_or_else(|| panic!("no {measure}"))
}

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

const SCREENING: &str = "dry_weather_screening";

/// GP-0-24-001, as the New York profiles read it: the reporting year runs "from
/// January 3 to January 2", so a screening on 2 January counts in the year before.
/// Connecticut's general permit, as Windsor's profile reads it: a calendar year.
#[rstest]
#[case::ny_2_january_ends_the_year_begun_3_january(
    "north-castle-ny",
    2026,
    ("2026-01-03", "2027-01-02"),
    &["OF-1:2026-05-14", "OF-2:2027-01-02", "OF-CAPPED:2026-07-01"]
)]
#[case::ny_counter_2_january_2026_is_the_year_before(
    "carmel-ny",
    2025,
    ("2025-01-03", "2026-01-02"),
    &["OF-2:2026-01-02"]
)]
#[case::ct_a_calendar_year_keeps_2_january_in_its_own(
    "windsor-ct",
    2026,
    ("2026-01-01", "2026-12-31"),
    &["OF-1:2026-05-14", "OF-2:2026-01-02", "OF-CAPPED:2026-07-01"]
)]
#[case::ct_counter_2_january_2027_opens_the_next(
    "windsor-ct",
    2027,
    ("2027-01-01", "2027-12-31"),
    &["OF-2:2027-01-02"]
)]
fn a_year_runs_as_the_profile_reads_the_permit(
    #[values("sqlite", "postgis")] kind: &str,
    #[case] town: &str,
    #[case] year: i32,
    #[case] period: (&str, &str),
    #[case] counted: &[&str],
) {
    let Some(b) = self::town(kind, town) else {
        return;
    };
    let r = report(&b, town, year);
    assert_eq!(r.period.from, Some(d(period.0)), "{town} {year}");
    assert_eq!(r.period.to, d(period.1), "{town} {year}");
    let want: Vec<String> = counted.iter().map(|s| format!("{s}:{SCREENING}")).collect();
    assert_eq!(
        records(&r, "dry_weather_screenings").records,
        want,
        "{town} {year}"
    );
}

/// Each count counts what it says, and a share only what its denominator holds: a
/// proposed connection's case is no illicit discharge found (nothing is built to
/// discharge); a removed or proposed outfall, SMP or catch basin is in no inventory or
/// denominator; an SMP inspected twice is one SMP inspected. Each case has its
/// counter-case in the same count or the one beside it.
#[rstest]
#[case::removed_and_proposed_outfalls_are_no_inventory(
    "outfalls_in_inventory",
    &["OF-1", "OF-2", "OF-3", "OF-CAPPED"],
    None
)]
#[case::counter_they_are_listed_apart("outfalls_not_in_inventory", &["OF-PROPOSED", "OF-REMOVED"], None)]
#[case::screened_outfalls_out_of_the_inventory(
    "outfalls_screened",
    &["OF-1", "OF-2", "OF-CAPPED"],
    Some(4)
)]
#[case::counter_screenings_of_outfalls_outside_it_stand_apart(
    "screenings_outside_inventory",
    &["OF-PROPOSED:2026-06-06:dry_weather_screening", "OF-REMOVED:2026-06-01:dry_weather_screening"],
    None
)]
#[case::too_soon_after_rain_is_not_counted(
    "screenings_not_dry_weather",
    &["OF-1:2026-05-12:dry_weather_screening"],
    None
)]
#[case::a_proposed_connections_case_is_no_discharge_found(
    "cases_about_proposed_connections",
    &["CASE-2026-0001"],
    Some(4)
)]
#[case::counter_a_notice_served_is_a_discharge_found("illicit_discharges_found", &["CASE-2026-0002"], Some(4))]
#[case::an_open_case_with_nothing_served_is_undetermined("cases_undetermined", &["CASE-2026-0003"], Some(4))]
#[case::unfounded("cases_unfounded", &["CASE-2026-0004"], Some(4))]
#[case::smps_inspected_are_smps_that_stand("smps_inspected", &["SMP-1"], Some(2))]
#[case::counter_the_visits_are_records(
    "smp_inspection_records",
    &["SMP-1:2026-04-01:smp_maintenance", "SMP-1:2026-09-01:smp_maintenance", "SMP-GONE:2026-04-02:smp_maintenance"],
    None
)]
#[case::catch_basins_cleaned_that_stand("catch_basins_cleaned", &["CB-1"], Some(1))]
fn each_count_counts_what_it_says(
    #[values("sqlite", "postgis")] kind: &str,
    #[case] measure: &str,
    #[case] want: &[&str],
    #[case] out_of: Option<usize>,
) {
    let Some(b) = town(kind, "north-castle-ny") else {
        return;
    };
    let r = report(&b, "north-castle-ny", 2026);
    let c = records(&r, measure);
    assert_eq!(c.records, want, "{measure}");
    assert_eq!(c.count, want.len(), "{measure}");
    assert_eq!(c.denominator.as_ref().map(|d| d.1), out_of, "{measure}");
    // A status the report does not read is counted and said.
    assert!(
        r.open_facts
            .iter()
            .any(|f| f.starts_with("outfalls OF-CAPPED (\"capped\") have a status")),
        "{:?}",
        r.open_facts
    );
}

/// The rows a profile's dry-weather rule refuses, by their place in the file and the
/// field at fault: a `dry_weather` column that the hours since rain contradict (24 hours
/// is under the 48-hour rule; 72 meets it) or cannot support (no hours), and a screening
/// of a catch basin. The rest are imported, the agreeing `dry_weather` among them.
#[rstest]
#[case::says_dry_at_24_hours(7, "dry_weather", "says true, but 24 hours since rain is less than")]
#[case::says_dry_without_hours(8, "dry_weather", "says true, but hours_since_rain is empty")]
#[case::screens_a_catch_basin(9, "asset_id", "no outfall has id \"CB-1\"")]
#[case::says_wet_at_72_hours(10, "dry_weather", "says false, but 72 hours since rain is at least")]
fn a_file_screening_the_rule_refuses_is_named(
    #[values("sqlite", "postgis")] kind: &str,
    #[case] feature: u64,
    #[case] field: &str,
    #[case] says: &str,
) {
    let Some(b) = town(kind, "north-castle-ny") else {
        return;
    };
    let rej = b.import["rejections"].as_array().unwrap();
    assert_eq!(b.import["rejected"], 4, "{}", b.import);
    assert_eq!(b.import["imported"], 12, "{}", b.import);
    assert!(
        b.import["source"]
            .as_str()
            .unwrap()
            .ends_with("inspections.csv"),
        "the report names the file"
    );
    let r = rej
        .iter()
        .find(|r| r["feature"] == feature)
        .unwrap_or_else(|| panic!("feature {feature} not refused: {rej:?}"));
    assert_eq!(r["field"], field, "{r}");
    assert!(r["reason"].as_str().unwrap().contains(says), "{r}");
}

/// One rule for both doors: a screening read from the file gets the `dry_weather` the
/// API's command gives the same hours since rain (72 meets the 48-hour rule, 30 does
/// not), and the file's agreeing `true` is kept.
#[rstest]
#[case::meets_the_rule("OF-1:2026-05-14:dry_weather_screening", 72.0, Some(true))]
#[case::counter_too_soon("OF-1:2026-05-12:dry_weather_screening", 30.0, Some(false))]
#[case::the_files_agreeing_column_kept("OF-2:2027-01-02:dry_weather_screening", 96.0, Some(true))]
fn a_file_screening_gets_the_apis_dry_weather(
    #[values("sqlite", "postgis")] kind: &str,
    #[case] id: &str,
    #[case] hours: f64,
    #[case] dry: Option<bool>,
) {
    let Some(b) = town(kind, "north-castle-ny") else {
        return;
    };
    let row = b.snap.layer(Layer::Inspections).get(id).expect("imported");
    let l = Layer::Inspections;
    assert_eq!(row.get(l, "dry_weather").as_bool(), dry, "{id}");
    assert_eq!(row.get(l, "hours_since_rain"), &Value::Real(hours), "{id}");
    // The API's command, on the same snapshot and profile.
    let p = Profile::builtin("north-castle-ny").unwrap();
    let n: ms4::idde::inspection::NewInspection = serde_json::from_value(json!({
        "asset_id": "OF-3", "inspected_on": "2026-06-10", "kind": SCREENING, "result": "done",
        "screening": {"hours_since_rain": hours}}))
    .unwrap();
    let f = ms4::idde::inspection::to_feature(
        &b.snap,
        n,
        "Ann Field",
        d("2026-06-11"),
        p.idde.dry_weather_hours,
    )
    .unwrap();
    assert_eq!(
        f.get(l, "dry_weather").as_bool(),
        dry,
        "{id} through the API"
    );
}

/// The report states the year's start and its due date with the source of each, and
/// lists as an open fact whatever the profile has not read in the permit's own text; a
/// town added as data with no reporting year gets the defaults, each an open fact.
#[rstest]
#[case::ny_gp_0_24_001_due_1_april("north-castle-ny", 2026, Some("2027-04-01"), &["GP-0-24-001", "GP-0-24-001"])]
#[case::carmel_reads_the_same_permit("carmel-ny", 2024, Some("2025-04-01"), &["GP-0-24-001", "GP-0-24-001"])]
#[case::ct_due_1_april_after_the_calendar_year("windsor-ct", 2026, Some("2027-04-01"), &["DEEP-WPED-GP-021", "1 April"])]
#[case::a_fourth_town_with_no_reporting_year("quarry-hollow-ny", 2026, None, &["no source cited", "states no due date"])]
fn the_year_and_its_due_date_say_their_sources(
    #[case] town: &str,
    #[case] year: i32,
    #[case] due: Option<&str>,
    #[case] facts_say: &[&str],
) {
    let Some(b) = self::town("sqlite", "north-castle-ny") else {
        return;
    };
    let p = match Profile::builtin(town) {
        Ok(p) => p,
        Err(_) => Profile::load(town, fixture("quarry-hollow")).unwrap(),
    };
    let r = annual_report(
        &b.snap,
        &p,
        &cases(),
        year,
        later(),
        &judged(&b.snap, &p, year, later()),
    )
    .unwrap();
    assert_eq!(r.due_on, due.map(d), "{town}");
    let year_facts: Vec<&String> = r
        .open_facts
        .iter()
        .filter(|f| {
            [
                "the reporting year",
                "the annual report",
                "the profile states no due",
            ]
            .iter()
            .any(|s| f.starts_with(s))
        })
        .collect();
    assert_eq!(year_facts.len(), 2, "{town}: {:?}", r.open_facts);
    for (f, says) in year_facts.iter().zip(facts_say) {
        assert!(f.contains(says), "{town}: {f}");
        assert!(
            f.contains("has not been checked against") || f.contains("decide it"),
            "{town}: {f}"
        );
    }
    assert_eq!(
        r.period_source.is_some(),
        p.idde.reporting_year_source.is_some()
    );
}

/// The counter-case: a profile that says it read the permit's own text gets no open fact
/// for what it read; one that says so without a source does not load.
#[test]
fn a_confirmed_reading_is_no_open_fact_and_needs_its_source() {
    let text = Profile::builtin_text("windsor-ct").unwrap();
    let confirmed = text
        .replace(
            "reporting_year_confirmed = false",
            "reporting_year_confirmed = true",
        )
        .replace(
            "reporting_year_due_confirmed = false",
            "reporting_year_due_confirmed = true",
        );
    let p = Profile::with_id("windsor-ct", &confirmed, "test").unwrap();
    let snap = Snapshot::from_features(
        ms4::import::crs::registry_meta("windsor-ct", 2234).unwrap(),
        HashMap::new(),
    );
    let r = annual_report(
        &snap,
        &p,
        &[],
        2026,
        later(),
        &judged(&snap, &p, 2026, later()),
    )
    .unwrap();
    assert!(r.open_facts.is_empty(), "{:?}", r.open_facts);
    let unsourced: String = confirmed
        .lines()
        .filter(|l| !l.starts_with("reporting_year_source ="))
        .map(|l| format!("{l}\n"))
        .collect();
    let e = Profile::with_id("windsor-ct", &unsourced, "test").unwrap_err();
    assert!(format!("{e:#}").contains("reporting_year"), "{e:#}");
}

/// Item 8: a fine counts in the report of the year its period accrued. Windsor's year is
/// the calendar year; a citation hand-delivered 30 December 2026 at 10:00 and eliminated
/// 3 January 2027 at 12:00 is one $250 (b)(3) fine at the citation and four full 24-hour
/// periods under (c)(1): $500 in 2026 (the $250 at the citation and the period ending
/// 31 December 10:00) and $750 in 2027 (the periods ending 1, 2 and 3 January at 10:00).
/// Against the State, none.
#[rstest]
#[case::year_of_the_citation(2026, later(), 500.0, 1)]
#[case::the_next_year(2027, later(), 750.0, 1)]
#[case::the_next_year_not_yet_over(2027, at("2027-01-02T00:00"), 250.0, 1)]
#[case::a_year_before_any_citation(2025, later(), 0.0, 0)]
fn fines_count_in_the_year_they_accrue(
    #[case] year: i32,
    #[case] as_of: NaiveDateTime,
    #[case] dollars: f64,
    #[case] cases: usize,
) {
    let p = Profile::builtin("windsor-ct").unwrap();
    let snap = Snapshot::from_features(
        ms4::import::crs::registry_meta("windsor-ct", 2234).unwrap(),
        HashMap::new(),
    );
    let r = annual_report(
        &snap,
        &p,
        &[cited_in_december(None)],
        year,
        as_of,
        &judged(&snap, &p, year, as_of),
    )
    .unwrap();
    let f = records(&r, "fines_accrued");
    assert_eq!(f.dollars, Some(dollars), "{year}");
    assert_eq!(f.count, cases, "{year}");
    // The counter-case: the same case against the State of Connecticut accrues nothing
    // in any year ((b)(3): "No such fine shall be levied against the state").
    let state = cited_in_december(Some(
        json!({"name": "State of Connecticut", "kind": "state", "acting_for_state": "no", "source": "given"}),
    ));
    let r = annual_report(
        &snap,
        &p,
        &[state],
        year,
        as_of,
        &judged(&snap, &p, year, as_of),
    )
    .unwrap();
    let f = records(&r, "fines_accrued");
    assert_eq!((f.dollars, f.count), (Some(0.0), 0), "{year}");
}

/// No dollar falls between two reports: the years' sums are the case's fines.
#[test]
fn the_years_sum_to_the_case_fines() {
    let p = Profile::builtin("windsor-ct").unwrap();
    let snap = Snapshot::from_features(
        ms4::import::crs::registry_meta("windsor-ct", 2234).unwrap(),
        HashMap::new(),
    );
    let c = cited_in_december(None);
    let by_year: f64 = (2025..=2028)
        .map(|y| {
            let r = annual_report(
                &snap,
                &p,
                std::slice::from_ref(&c),
                y,
                later(),
                &judged(&snap, &p, y, later()),
            )
            .unwrap();
            records(&r, "fines_accrued").dollars.unwrap()
        })
        .sum();
    let whole: f64 = ms4::idde::deadlines::fines_of(&c, &p.idde, later())
        .iter()
        .map(|f| f.accrued)
        .sum();
    assert_eq!((by_year, whole), (1250.0, 1250.0));
}

fn at(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M").unwrap()
}

fn cited_in_december(respondent: Option<serde_json::Value>) -> Case {
    let mut v = json!({"case_id": "CASE-2026-0042", "opened_on": "2026-12-01",
        "origin": "staff", "status": "open", "candidates": [], "actions": [
            {"kind": "citation_issued", "on": "2026-12-30", "at": "10:00", "method": "hand", "by": "Town Manager"},
            {"kind": "eliminated", "on": "2027-01-03", "at": "12:00", "by": "Town Engineer"}]});
    if let Some(r) = respondent {
        v["respondent"] = r;
    }
    serde_json::from_value(v).unwrap()
}

/// Item 8 in each town's year: a citation hand-delivered Wed 30 December 2026 at 10:00 and
/// the violation eliminated Mon 4 January 2027 at 12:00. North Castle's fine ("not
/// exceeding $1,000 ... Each day's continued violation shall constitute a separate
/// additional violation", a ceiling) accrues a day at the citation and one as each day
/// begins: 30, 31 December, 1, 2, 3 and 4 January at 10:00. GP-0-24-001's year runs 3
/// January to 2 January, so 1 and 2 January are the 2026 report's: $4,000, and 2027's
/// $2,000. Counter-case, Windsor's calendar year: the $250 at the citation and the 24
/// hours ending 31 December are 2026's ($500); those ending 1-4 January are 2027's ($1,000).
/// Either way the years sum to the case's whole.
#[rstest]
#[case::ny_1_and_2_january_are_the_year_before(
    "north-castle-ny",
    "Stormwater Management Officer",
    4000.0,
    2000.0
)]
#[case::ct_counter_1_january_opens_the_next("windsor-ct", "Town Manager", 500.0, 1000.0)]
fn fines_count_in_the_permits_year(
    #[case] town: &str,
    #[case] by: &str,
    #[case] y2026: f64,
    #[case] y2027: f64,
) {
    let p = Profile::builtin(town).unwrap();
    let snap = Snapshot::from_features(
        ms4::import::crs::registry_meta(town, 2234).unwrap(),
        HashMap::new(),
    );
    let c: Case = serde_json::from_value(json!({"case_id": "CASE-2026-0043",
        "opened_on": "2026-12-01", "origin": "staff", "status": "open", "candidates": [],
        "actions": [
            {"kind": "citation_issued", "on": "2026-12-30", "at": "10:00", "method": "hand", "by": by},
            {"kind": "eliminated", "on": "2027-01-04", "at": "12:00", "by": by}]}))
    .unwrap();
    let year = |y: i32| {
        let r = annual_report(
            &snap,
            &p,
            std::slice::from_ref(&c),
            y,
            later(),
            &judged(&snap, &p, y, later()),
        )
        .unwrap();
        records(&r, "fines_accrued").dollars.unwrap()
    };
    assert_eq!((year(2026), year(2027)), (y2026, y2027), "{town}");
    let whole: f64 = ms4::idde::deadlines::fines_of(&c, &p.idde, later())
        .iter()
        .map(|f| f.accrued)
        .sum();
    assert_eq!(
        year(2025) + year(2026) + year(2027) + year(2028),
        whole,
        "{town}"
    );
}
