//! The permit calendar's programme submissions: the annual report, the interim progress
//! certifications and the mapping phases recorded as submitted, each for one occurrence
//! of its `[calendar]` item, shown done (late by so many days when after its day) by the
//! calendar. A request at fault is refused naming its field; an occurrence recorded
//! already is a conflict naming its submission, with nothing written; a request sent
//! again under its idempotency key is stored once. `ms4 calendar record` and `POST
//! /api/calendar/records` are one command with one answer, on both stores.

mod common;

use std::collections::HashMap;

use chrono::NaiveDate;
use common::*;
use ms4::answer::calendar::{calendar, CalendarParams, EntryStatus};
use ms4::answer::Ask;
use ms4::domain::{Feature, Layer, LengthUnit};
use ms4::programme::submission::{check, Submission};
use ms4::programme::SubmissionRequest;
use ms4::rules::Profile;
use ms4::spatial::Snapshot;
use ms4::store::RegistryMeta;
use rstest::rstest;
use serde_json::json;

fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn request(item: &str, due: &str, submitted: &str, by: &str) -> SubmissionRequest {
    SubmissionRequest {
        item_id: item.into(),
        for_due_on: day(due),
        submitted_on: day(submitted),
        submitted_by: by.into(),
        reference: None,
        note: None,
    }
}

/// Carmel's calendar (GP-0-24-001 as its profile reads it): the annual report each 1
/// April, an interim certification every six months from the reporting year's start (3
/// January), Mapping Phase I once on 3 January 2027, and the documentation of each
/// reported illicit discharge within 30 days of its case (per case).
#[rstest]
#[case::annual_report_on_its_day(
    "annual_report",
    "2026-04-01",
    "2026-03-30",
    "Town Engineer",
    None
)]
#[case::interim_in_july(
    "interim_progress_certification",
    "2026-07-03",
    "2026-07-01",
    "SMO",
    None
)]
#[case::mapping_phase_early("mapping_phase_1", "2027-01-03", "2026-11-20", "SMO", None)]
#[case::late_is_accepted("annual_report", "2026-04-01", "2026-05-02", "SMO", None)]
#[case::unknown_item("annual_reports", "2026-04-01", "2026-03-30", "SMO", Some("item_id"))]
#[case::blank_item(" ", "2026-04-01", "2026-03-30", "SMO", Some("item_id"))]
#[case::per_case_item(
    "illicit_discharge_report_documentation",
    "2026-04-01",
    "2026-03-30",
    "SMO",
    Some("item_id")
)]
#[case::not_the_reports_day("annual_report", "2026-04-02", "2026-03-30", "SMO", Some("for_due_on"))]
#[case::not_an_interim_day(
    "interim_progress_certification",
    "2026-04-03",
    "2026-04-01",
    "SMO",
    Some("for_due_on")
)]
#[case::not_the_phases_day(
    "mapping_phase_1",
    "2027-01-04",
    "2026-11-20",
    "SMO",
    Some("for_due_on")
)]
#[case::in_the_future(
    "annual_report",
    "2026-04-01",
    "2999-01-01",
    "SMO",
    Some("submitted_on")
)]
#[case::before_the_previous_report(
    "annual_report",
    "2026-04-01",
    "2025-03-30",
    "SMO",
    Some("submitted_on")
)]
#[case::blank_who(
    "annual_report",
    "2026-04-01",
    "2026-03-30",
    "  ",
    Some("submitted_by")
)]
fn a_submission_is_checked_against_the_calendar(
    #[case] item: &str,
    #[case] due: &str,
    #[case] submitted: &str,
    #[case] by: &str,
    #[case] refused: Option<&str>,
) {
    let profile = Profile::builtin("carmel-ny").unwrap();
    let got = check(
        &profile,
        &request(item, due, submitted, by),
        day("2026-12-01"),
    );
    match (got, refused) {
        (Ok(i), None) => assert_eq!(i.id, item),
        (Err(e), Some(field)) => {
            assert_eq!(e.field, field, "{e}");
            assert!(!e.message.is_empty());
        }
        (got, want) => panic!("{got:?}, expected a refusal of {want:?}"),
    }
}

/// An unknown item's refusal names the items a submission is recorded for, and a wrong
/// day names the nearest days the item falls due.
#[test]
fn a_refusal_says_what_would_do() {
    let profile = Profile::builtin("carmel-ny").unwrap();
    let today = day("2026-12-01");
    let e = check(
        &profile,
        &request("annual_reprot", "2026-04-01", "2026-03-30", "SMO"),
        today,
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("annual_report, interim_progress_certification, mapping_phase_1"),
        "{e}"
    );
    assert!(!e.message.contains("illicit_discharge"), "{e}");
    let e = check(
        &profile,
        &request(
            "interim_progress_certification",
            "2026-05-01",
            "2026-04-01",
            "SMO",
        ),
        today,
    )
    .unwrap_err();
    assert!(
        e.message
            .contains("the nearest are 2026-01-03 and 2026-07-03"),
        "{e}"
    );
}

fn meta() -> RegistryMeta {
    RegistryMeta {
        jurisdiction: "carmel-ny".into(),
        srid: 2260,
        crs_name: String::new(),
        crs_wkt: String::new(),
        linear_unit: LengthUnit::UsSurveyFoot,
    }
}

fn submission(item: &str, due: &str, submitted: &str, reference: Option<&str>) -> Feature {
    let mut r = request(item, due, submitted, "Town Engineer");
    r.reference = reference.map(str::to_string);
    Submission::from_request(&r).to_feature(None)
}

/// Where the annual report due 1 April 2026 stands on a day, by the submission recorded
/// for it: done on or before its day, done late (by so many days) after it, and with no
/// submission by the day asked past and not recorded (never overdue), saying how to
/// record it. A submission made after the day asked does not count on it.
#[rstest]
#[case::early("2026-03-30", "2026-06-01", EntryStatus::Done, None)]
#[case::on_its_day("2026-04-01", "2026-06-01", EntryStatus::Done, None)]
#[case::four_days_late("2026-04-05", "2026-06-01", EntryStatus::DoneLate, Some(4))]
#[case::a_month_late("2026-05-02", "2026-06-01", EntryStatus::DoneLate, Some(31))]
#[case::submitted_after_the_day_asked("2026-04-05", "2026-04-03", EntryStatus::NotRecorded, None)]
fn an_occurrence_is_done_late_or_not_recorded_by_its_submission(
    #[case] submitted: &str,
    #[case] as_of: &str,
    #[case] status: EntryStatus,
    #[case] late: Option<i64>,
) {
    let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
    l.insert(
        Layer::ProgrammeSubmissions,
        vec![
            submission("annual_report", "2026-04-01", submitted, Some("NOI-118")),
            // Another occurrence's submission shows this one nothing.
            submission("annual_report", "2025-04-01", "2025-03-28", None),
        ],
    );
    let snap = Snapshot::from_features(meta(), l);
    let profile = Profile::builtin("carmel-ny").unwrap();
    let a = calendar(
        &Ask::new(&snap, &profile),
        &CalendarParams {
            as_of: Some(as_of.into()),
            within_days: None,
        },
    )
    .unwrap();
    let e = a
        .entries
        .iter()
        .find(|e| e.item == "annual_report" && e.due_on == day("2026-04-01"))
        .unwrap();
    assert_eq!(e.status, status, "{e:?}");
    assert_eq!(e.late_by_days, late, "{e:?}");
    match status {
        EntryStatus::NotRecorded => {
            assert!(e.evidence.is_none());
            let how = e.to_record.as_deref().unwrap_or_default();
            assert!(
                how.contains("ms4 calendar record --item annual_report --for-due-on 2026-04-01"),
                "{how}"
            );
            assert!(how.contains("POST /api/calendar/records"), "{how}");
        }
        _ => {
            let ev = e.evidence.as_ref().unwrap();
            assert_eq!(ev.layer, Layer::ProgrammeSubmissions);
            assert_eq!(ev.id, "annual_report:2026-04-01");
            assert_eq!(
                ev.record,
                "annual report submitted by Town Engineer, reference NOI-118"
            );
            assert_eq!(ev.on, day(submitted));
            assert!(e.to_record.is_none());
        }
    }
    // The JSON says the same: `done_late` with its days, never bare `done`.
    let v = serde_json::to_value(e).unwrap();
    assert_eq!(v["late_by_days"].as_i64(), late, "{v}");
    if late.is_some() {
        assert_eq!(v["status"], "done_late", "{v}");
    }
}

/// With no submission at all, each past occurrence of the items a submission shows done is
/// not recorded and says how to record it; nothing is called overdue.
#[test]
fn without_submissions_past_occurrences_are_not_recorded() {
    let snap = Snapshot::from_features(meta(), HashMap::new());
    let profile = Profile::builtin("carmel-ny").unwrap();
    let a = calendar(
        &Ask::new(&snap, &profile),
        &CalendarParams {
            as_of: Some("2026-06-01".into()),
            within_days: None,
        },
    )
    .unwrap();
    let past: Vec<(&str, EntryStatus, bool)> = a
        .entries
        .iter()
        .filter(|e| e.due_on < day("2026-06-01"))
        .map(|e| (e.item.as_str(), e.status, e.to_record.is_some()))
        .collect();
    assert_eq!(
        past,
        [
            (
                "interim_progress_certification",
                EntryStatus::NotRecorded,
                true
            ),
            ("annual_report", EntryStatus::NotRecorded, true),
        ]
    );
    // An occurrence further off than the window is upcoming, with nothing to record yet.
    assert!(a
        .entries
        .iter()
        .filter(|e| e.status == EntryStatus::Upcoming)
        .all(|e| e.to_record.is_none()));
}

/// A registry of Carmel (its calendar) on a store of `kind`, its file named as
/// [`outside_sql`] finds it.
async fn carmel(kind: &str) -> Registry {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("calrec").unwrap(),
    };
    let meta = ms4::import::crs::registry_meta("carmel-ny", 2260).unwrap();
    let store = ms4::store::create(&url, &meta).await.unwrap();
    Registry { url, store, dir }
}

fn imports(kind: &str, reg: &Registry) -> usize {
    outside_count(kind, reg, "SELECT count(*) AS n FROM ms4_imports")
}

/// Over HTTP: the officer records the annual report four days late under a key; sent
/// again under the key it is stored once (200); another request under the key is refused;
/// the occurrence recorded again is a 409 naming the submission, nothing written (no
/// import row either); each field at fault is a 400 naming it; the inspector may not
/// record; the calendar shows the occurrence done late with the submission as evidence.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn the_officer_records_a_submission_over_http(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let officer = token(&reg.url, "officer", "Town of Carmel SMO", &[]);
    let inspector = token(&reg.url, "inspector", "Ivy Inspector", &[]);
    let app = App::new(&reg.store).await.with_bearer(&officer);
    let body = json!({
        "item_id": "annual_report",
        "for_due_on": "2026-04-01",
        "submitted_on": "2026-04-05",
        "submitted_by": "Town Engineer",
        "reference": "NOI-118"
    });
    let post = |key: Option<&'static str>, body: serde_json::Value| {
        let app = app.clone();
        async move {
            let mut call = app.post("/api/calendar/records").json(&body);
            if let Some(k) = key {
                call = call.header("idempotency-key", k);
            }
            let r = call.send().await;
            (r.status(), r.text())
        }
    };
    let (status, text) = post(Some("report-2026"), body.clone()).await;
    assert_eq!(status, 201, "{text}");
    let first: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        first["submission_id"], "annual_report:2026-04-01",
        "{first}"
    );
    assert_eq!(first["late_by_days"], 4, "{first}");
    assert_eq!(first["again"], false, "{first}");
    let written = imports(kind, &reg);

    // The same request under its key: answered as stored, nothing written.
    let (status, text) = post(Some("report-2026"), body.clone()).await;
    assert_eq!(status, 200, "{text}");
    let again: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(again["again"], true, "{again}");
    assert_eq!(again["submission_id"], first["submission_id"]);
    // Another request under the key: refused, naming the key.
    let mut other = body.clone();
    other["reference"] = json!("NOI-119");
    let (status, text) = post(Some("report-2026"), other.clone()).await;
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("\"field\":\"idempotency_key\""), "{text}");
    // The occurrence recorded again, without a key: a conflict naming the submission.
    let (status, text) = post(None, other).await;
    assert_eq!(status, 409, "{text}");
    assert!(text.contains("annual_report:2026-04-01"), "{text}");
    assert!(text.contains("nothing was written"), "{text}");
    assert_eq!(imports(kind, &reg), written, "a refusal wrote an import");
    assert_eq!(
        reg.store.count(Layer::ProgrammeSubmissions).await.unwrap(),
        1
    );

    // Each field at fault, named.
    for (field, value, named) in [
        (
            "item_id",
            json!("illicit_discharge_report_documentation"),
            "item_id",
        ),
        ("item_id", json!("quarterly_report"), "item_id"),
        ("for_due_on", json!("2026-04-02"), "for_due_on"),
        ("submitted_on", json!("2999-01-01"), "submitted_on"),
        ("submitted_by", json!(" "), "submitted_by"),
        ("for_due_on", json!("April 1"), "for_due_on"),
    ] {
        let mut bad = body.clone();
        bad["for_due_on"] = json!("2027-04-01");
        bad[field] = value.clone();
        let (status, text) = post(None, bad).await;
        assert_eq!(status, 400, "{field}={value}: {text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["field"], named, "{field}={value}: {v}");
    }
    assert_eq!(imports(kind, &reg), written, "a refusal wrote an import");

    // The inspector's token records no programme submission.
    let r = app
        .post("/api/calendar/records")
        .bearer_auth(&inspector)
        .json(&json!({"item_id": "mapping_phase_1", "for_due_on": "2027-01-03", "submitted_on": "2026-11-02", "submitted_by": "Ivy"}))
        .send()
        .await;
    assert_eq!(r.status(), 403, "{}", r.text());

    // The calendar: done late, by four days, the submission its evidence; the interim
    // certification before it past with no record, saying how to record it.
    let r = app.get("/api/calendar?as_of=2026-06-01").send().await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let cal: serde_json::Value = r.json();
    let entries = cal["entries"].as_array().unwrap();
    let report = entries
        .iter()
        .find(|e| e["item"] == "annual_report" && e["due_on"] == "2026-04-01")
        .unwrap();
    assert_eq!(report["status"], "done_late", "{report}");
    assert_eq!(report["late_by_days"], 4, "{report}");
    assert_eq!(
        report["evidence"],
        json!({"layer": "programme_submissions", "id": "annual_report:2026-04-01",
               "record": "annual report submitted by Town Engineer, reference NOI-118", "on": "2026-04-05"})
    );
    let interim = entries
        .iter()
        .find(|e| e["item"] == "interim_progress_certification" && e["due_on"] == "2026-01-03")
        .unwrap();
    assert_eq!(interim["status"], "not_recorded", "{interim}");
    assert!(interim["to_record"]
        .as_str()
        .unwrap()
        .contains("--item interim_progress_certification --for-due-on 2026-01-03"));

    // The list, by item and days.
    let r = app
        .get("/api/calendar/records?item_id=annual_report&from=2026-01-01&to=2026-12-31")
        .send()
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let list: serde_json::Value = r.json();
    assert_eq!(list["count"], 1, "{list}");
    assert_eq!(list["records"][0]["reference"], "NOI-118", "{list}");
    let r = app
        .get("/api/calendar/records?item_id=mapping_phase_1")
        .send()
        .await;
    assert_eq!(r.json::<serde_json::Value>()["count"], 0);
}

/// One command, one contract: the same submission recorded by `ms4 calendar record` on
/// one registry and by `POST /api/calendar/records` on another answers the same JSON; the
/// list and the calendar read the same from both doors; a field at fault is named the
/// same by both.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn the_command_line_and_the_api_record_alike(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let (by_cli, by_api) = (carmel(kind).await, carmel(kind).await);
    let cli: serde_json::Value = serde_json::from_str(&run_ok(
        &by_cli.url,
        &[
            "calendar",
            "record",
            "--item",
            "interim_progress_certification",
            "--for-due-on",
            "2026-07-03",
            "--submitted-on",
            "2026-07-10",
            "--by",
            "Stormwater Management Officer",
            "--reference",
            "eNOI 55120",
            "--note",
            "sent by the portal",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let officer = token(&by_api.url, "officer", "SMO", &[]);
    let app = App::new(&by_api.store).await.with_bearer(&officer);
    let r = app
        .post("/api/calendar/records")
        .json(&json!({
            "item_id": "interim_progress_certification",
            "for_due_on": "2026-07-03",
            "submitted_on": "2026-07-10",
            "submitted_by": "Stormwater Management Officer",
            "reference": "eNOI 55120",
            "note": "sent by the portal"
        }))
        .send()
        .await;
    assert_eq!(r.status(), 201, "{}", r.text());
    let api: serde_json::Value = r.json();
    assert_eq!(api, cli);
    assert_eq!(api["late_by_days"], 7, "{api}");

    // Read back through the other door: the CLI's record by the API, and the reverse.
    let cli_app =
        App::new(&by_cli.store)
            .await
            .with_bearer(token(&by_cli.url, "analyst", "A", &[]));
    for (reg, app) in [(&by_cli, &cli_app), (&by_api, &app)] {
        let listed: serde_json::Value = serde_json::from_str(&run_ok(
            &reg.url,
            &["calendar", "records", "--format", "json"],
        ))
        .unwrap();
        let r = app.get("/api/calendar/records").send().await;
        assert_eq!(r.status(), 200, "{}", r.text());
        assert_eq!(r.json::<serde_json::Value>(), listed);
        assert_eq!(listed["count"], 1, "{listed}");
        let cal: serde_json::Value = serde_json::from_str(&run_ok(
            &reg.url,
            &["calendar", "--as-of", "2026-08-01", "--format", "json"],
        ))
        .unwrap();
        let r = app.get("/api/calendar?as_of=2026-08-01").send().await;
        let api_cal: serde_json::Value = r.json();
        assert_eq!(api_cal["entries"], cal["entries"]);
        assert!(cal["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["item"] == "interim_progress_certification"
                && e["due_on"] == "2026-07-03"
                && e["status"] == "done_late"));
    }
    // The table says it was late.
    let table = run_ok(&by_cli.url, &["calendar", "--as-of", "2026-08-01"]);
    assert!(table.contains("done late, 7 days"), "{table}");

    // Recorded again at the command line: the conflict, naming the submission; the process fails.
    let again = run(
        &by_api.url,
        &[
            "calendar",
            "record",
            "--item",
            "interim_progress_certification",
            "--for-due-on",
            "2026-07-03",
            "--submitted-on",
            "2026-07-11",
            "--by",
            "SMO",
        ],
    );
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("interim_progress_certification:2026-07-03"),
        "{err}"
    );
    // A wrong day: the same field named by both doors.
    let bad = run(
        &by_cli.url,
        &[
            "calendar",
            "record",
            "--item",
            "annual_report",
            "--for-due-on",
            "2026-04-02",
            "--submitted-on",
            "2026-04-01",
            "--by",
            "SMO",
        ],
    );
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("for_due_on: 2026-04-02 is not a day"), "{err}");
    let r = app
        .post("/api/calendar/records")
        .json(&json!({"item_id": "annual_report", "for_due_on": "2026-04-02", "submitted_on": "2026-04-01", "submitted_by": "SMO"}))
        .send()
        .await;
    assert_eq!(r.status(), 400);
    let v: serde_json::Value = r.json();
    assert_eq!(v["field"], "for_due_on");
    assert!(
        err.contains(
            v["error"]
                .as_str()
                .unwrap()
                .trim_start_matches("for_due_on: ")
        ),
        "{err} / {v}"
    );
    // `ms4 calendar` with its flags still answers the calendar.
    let out = run_ok(
        &by_cli.url,
        &["calendar", "--as-of", "2026-06-01", "--within-days", "10"],
    );
    assert!(out.contains("annual_report"), "{out}");
}

/// Two processes recording the same occurrence at once: the second decided from a
/// snapshot taken before the first's write, so only the check under the store's write
/// lock can see it. It is refused as the conflict, naming the submission, and writes
/// nothing (not even an import row); under the first's key it is answered as stored.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_write_racing_another_is_refused_under_the_lock(#[case] kind: &str) {
    use ms4::programme::{CalendarCommand, CalendarRecordAnswer, SubmissionError};
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let store = reg.store.as_ref();
    let profile = ms4::cli::profile::load(store).await.unwrap();
    let stale = Snapshot::load(store).await.unwrap();
    run_ok(
        &reg.url,
        &[
            "calendar",
            "record",
            "--item",
            "mapping_phase_1",
            "--for-due-on",
            "2027-01-03",
            "--submitted-on",
            "2026-10-01",
            "--by",
            "GIS consultant",
            "--idempotency-key",
            "phase-1",
        ],
    );
    let written = imports(kind, &reg);
    let by = ms4::sites::SiteRecorder {
        name: "SMO".into(),
        source: "api".into(),
        what: "POST /api/calendar/records".into(),
        today: day("2026-12-01"),
    };
    let send = |key: Option<&str>, by_whom: &str| CalendarCommand::Record {
        request: request("mapping_phase_1", "2027-01-03", "2026-10-01", by_whom),
        idempotency_key: key.map(str::to_string),
    };
    let reg_of = || ms4::sites::commands::Registry {
        store,
        profile: &profile,
        snap: &stale,
    };
    let e = ms4::programme::run(reg_of(), &by, send(None, "Someone else"))
        .await
        .unwrap_err();
    match &e {
        SubmissionError::Conflict(m) => assert!(m.contains("mapping_phase_1:2027-01-03"), "{m}"),
        e => panic!("{e:?}"),
    }
    assert_eq!(
        imports(kind, &reg),
        written,
        "the refused write left an import"
    );
    assert_eq!(store.count(Layer::ProgrammeSubmissions).await.unwrap(), 1);
    // The first request sent again under its key: answered as stored.
    match ms4::programme::run(reg_of(), &by, send(Some("phase-1"), "GIS consultant"))
        .await
        .unwrap()
    {
        CalendarRecordAnswer::Recorded(r) => {
            assert!(r.again);
            assert_eq!(r.record.submitted_by, "GIS consultant");
        }
        a @ CalendarRecordAnswer::Records(_) => panic!("{a:?}"),
    }
    assert_eq!(imports(kind, &reg), written);
}

/// Writes a CSV of programme submissions beside the registry.
fn submissions_csv(reg: &Registry, name: &str, rows: &[&str]) -> std::path::PathBuf {
    let path = reg.dir.path().join(name);
    let mut text = String::from("item_id,for_due_on,submitted_on,submitted_by,reference\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

/// `ms4 import programme_submissions FILE` holds every row to the check `ms4 calendar
/// record` makes: a file with one good row and one at fault is refused whole, naming the
/// file, the layer, the row (its number and id) and the field, and nothing is stored (no
/// submission, no import row); the good rows alone are imported, again without change,
/// and `ms4 calendar` shows their occurrences done, the imported submissions their
/// evidence; `ms4 calendar record` then finds the occurrence recorded.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn an_import_of_submissions_is_checked_as_a_record_is_and_refused_whole(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let good = "annual_report,2026-04-01,2026-03-30,Town Engineer,NOI 118";
    let bad = "interim_progress_certification,2026-04-03,2026-04-01,SMO,";
    let mixed = submissions_csv(&reg, "mixed.csv", &[good, bad]);
    let before = imports(kind, &reg);
    let out = run(
        &reg.url,
        &["import", "programme_submissions", mixed.to_str().unwrap()],
    );
    assert!(
        !out.status.success(),
        "a file with a row at fault was imported"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    for said in [
        "mixed.csv (layer mixed)",
        "feature 2 id interim_progress_certification:2026-04-03",
        "field for_due_on: 2026-04-03 is not a day interim_progress_certification falls due",
        "the nearest are 2026-01-03 and 2026-07-03",
        "nothing was imported into programme_submissions",
    ] {
        assert!(err.contains(said), "{said:?} not in: {err}");
    }
    assert_eq!(
        reg.store.count(Layer::ProgrammeSubmissions).await.unwrap(),
        0,
        "the good row was stored"
    );
    assert_eq!(
        imports(kind, &reg),
        before,
        "a refused import left an import row"
    );
    // A dry run says the same, and writes nothing.
    let out = run(
        &reg.url,
        &[
            "import",
            "programme_submissions",
            mixed.to_str().unwrap(),
            "--dry-run",
        ],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("field for_due_on"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The good rows alone: imported, and again without change.
    let late = "interim_progress_certification,2026-07-03,2026-07-10,SMO,eNOI 55120";
    let file = submissions_csv(&reg, "submitted.csv", &[good, late]);
    for _ in 0..2 {
        run_ok(
            &reg.url,
            &["import", "programme_submissions", file.to_str().unwrap()],
        );
    }
    assert_eq!(
        reg.store.count(Layer::ProgrammeSubmissions).await.unwrap(),
        2
    );
    let cal: serde_json::Value = serde_json::from_str(&run_ok(
        &reg.url,
        &["calendar", "--as-of", "2026-08-01", "--format", "json"],
    ))
    .unwrap();
    let entry = |item: &str, due: &str| {
        cal["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["item"] == item && e["due_on"] == due)
            .unwrap_or_else(|| panic!("no {item} due {due}: {cal}"))
            .clone()
    };
    let report = entry("annual_report", "2026-04-01");
    assert_eq!(report["status"], "done", "{report}");
    assert_eq!(
        report["evidence"]["id"], "annual_report:2026-04-01",
        "{report}"
    );
    assert_eq!(report["evidence"]["on"], "2026-03-30", "{report}");
    let interim = entry("interim_progress_certification", "2026-07-03");
    assert_eq!(interim["status"], "done_late", "{interim}");
    assert_eq!(interim["late_by_days"], 7, "{interim}");
    // The occurrence the import recorded is recorded, for `ms4 calendar record` too.
    let again = run(
        &reg.url,
        &[
            "calendar",
            "record",
            "--item",
            "annual_report",
            "--for-due-on",
            "2026-04-01",
            "--submitted-on",
            "2026-04-02",
            "--by",
            "SMO",
        ],
    );
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("annual_report:2026-04-01"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
}

/// Each way a row can be at fault refuses the file, naming its field: the checks of `ms4
/// calendar record` (an item due per case, a day in the future, no one who submitted it),
/// a value no date, and an id that is not its occurrence's.
#[rstest]
#[case::per_case_item(
    "illicit_discharge_report_documentation,2026-04-01,2026-03-30,SMO,",
    "item_id"
)]
#[case::in_the_future("annual_report,2026-04-01,2999-01-01,SMO,", "submitted_on")]
#[case::blank_who("annual_report,2026-04-01,2026-03-30, ,", "submitted_by")]
#[case::not_a_date("annual_report,April 1,2026-03-30,SMO,", "for_due_on")]
#[tokio::test(flavor = "multi_thread")]
async fn each_row_at_fault_refuses_the_import_naming_its_field(
    #[case] row: &str,
    #[case] field: &str,
) {
    let reg = carmel("sqlite").await;
    let good = "mapping_phase_1,2027-01-03,2026-10-01,GIS consultant,";
    let file = submissions_csv(&reg, "rows.csv", &[good, row]);
    let out = run(
        &reg.url,
        &["import", "programme_submissions", file.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("feature 2"), "{err}");
    assert!(err.contains(&format!("field {field}:")), "{err}");
    assert!(err.contains("nothing was imported"), "{err}");
    assert_eq!(
        reg.store.count(Layer::ProgrammeSubmissions).await.unwrap(),
        0
    );
}

/// A file whose id column names a row otherwise than its occurrence is refused at that
/// field: one occurrence is never recorded twice under two ids.
#[tokio::test(flavor = "multi_thread")]
async fn an_imported_submission_keeps_its_occurrences_id() {
    let reg = carmel("sqlite").await;
    let path = reg.dir.path().join("ids.csv");
    std::fs::write(
        &path,
        "submission_id,item_id,for_due_on,submitted_on,submitted_by\n\
         annual_report:2026-04-01,annual_report,2026-04-01,2026-03-30,SMO\n\
         AR-2026,annual_report,2026-04-01,2026-03-30,SMO\n",
    )
    .unwrap();
    let out = run(
        &reg.url,
        &["import", "programme_submissions", path.to_str().unwrap()],
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("feature 2 id AR-2026: field submission_id: \"AR-2026\" is not the id of the occurrence"),
        "{err}"
    );
    assert_eq!(
        reg.store.count(Layer::ProgrammeSubmissions).await.unwrap(),
        0
    );
}

/// `ms4 calendar record` of the 2026 annual report, under an idempotency key.
fn record_the_annual_report(reg: &Registry) {
    run_ok(
        &reg.url,
        &[
            "calendar",
            "record",
            "--item",
            "annual_report",
            "--for-due-on",
            "2026-04-01",
            "--submitted-on",
            "2026-03-30",
            "--by",
            "Town Engineer",
            "--reference",
            "NOI 118",
            "--idempotency-key",
            "report-2026",
        ],
    );
}

/// The submissions stored, by id.
async fn stored_submissions(reg: &Registry) -> Vec<Feature> {
    reg.store
        .features(Layer::ProgrammeSubmissions)
        .await
        .unwrap()
}

/// `ms4 import programme_submissions FILE --format json`: what the write did.
fn import_written(reg: &Registry, file: &std::path::Path) -> serde_json::Value {
    let out = run_ok(
        &reg.url,
        &[
            "import",
            "programme_submissions",
            file.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    report["written"].clone()
}

/// A submission recorded by `ms4 calendar record` (under a key) is never overwritten by
/// an import: a file that records the occurrence otherwise is refused whole, naming the
/// file, the row, its id and the fields that differ with both values, and nothing of it
/// is stored (its new row neither, nor an import row), a dry run saying the same; a file
/// recording the same submission is imported, the record kept as stored (its door and
/// key too), the file's other row added.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn an_import_does_not_overwrite_a_recorded_submission(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    record_the_annual_report(&reg);
    let recorded = stored_submissions(&reg).await;
    assert_eq!(recorded.len(), 1);
    let before = imports(kind, &reg);
    let interim = "interim_progress_certification,2026-07-03,2026-07-10,SMO,eNOI 55120";
    let other = submissions_csv(
        &reg,
        "other.csv",
        &[interim, "annual_report,2026-04-01,2026-03-31,SMO,NOI 118"],
    );
    for dry_run in [false, true] {
        let mut args = vec!["import", "programme_submissions", other.to_str().unwrap()];
        if dry_run {
            args.push("--dry-run");
        }
        let out = run(&reg.url, &args);
        assert!(
            !out.status.success(),
            "the recorded submission was overwritten"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        for said in [
            "other.csv (layer other)",
            "feature 2 id annual_report:2026-04-01: field submitted_on, submitted_by: ",
            "recorded already as another submission (annual report submitted by Town Engineer, reference NOI 118, on 2026-03-30)",
            "submitted_on \"2026-03-31\" here, \"2026-03-30\" recorded; submitted_by \"SMO\" here, \"Town Engineer\" recorded",
            "nothing was imported into programme_submissions",
        ] {
            assert!(err.contains(said), "dry run {dry_run}: {said:?} not in: {err}");
        }
    }
    assert_eq!(
        stored_submissions(&reg).await,
        recorded,
        "the record changed"
    );
    assert_eq!(
        imports(kind, &reg),
        before,
        "a refused import left an import row"
    );

    // The same submission (spaced as a spreadsheet may space it), with a new row: the
    // new row is added, the record left as `ms4 calendar record` stored it.
    let same = submissions_csv(
        &reg,
        "same.csv",
        &[
            interim,
            "annual_report,2026-04-01,2026-03-30, Town Engineer ,NOI 118",
        ],
    );
    let written = import_written(&reg, &same);
    assert_eq!(written["inserted"], 1, "{written}");
    assert_eq!(written["updated"], 0, "{written}");
    assert_eq!(written["unchanged"], 1, "{written}");
    let now = stored_submissions(&reg).await;
    assert_eq!(now.len(), 2);
    let report = now
        .iter()
        .find(|f| f.id == "annual_report:2026-04-01")
        .unwrap();
    assert_eq!(report, &recorded[0], "the record was rewritten");
    assert_eq!(
        report.extra.get("idempotency_key").and_then(|k| k.as_str()),
        Some("report-2026")
    );
}

/// The same file imported again is no change at all: nothing inserted or updated, every
/// row unchanged, the stored rows as the first import left them, on both stores.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn the_same_submissions_imported_again_change_nothing(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let file = submissions_csv(
        &reg,
        "submitted.csv",
        &[
            "annual_report,2026-04-01,2026-03-30,Town Engineer,NOI 118",
            "interim_progress_certification,2026-07-03,2026-07-10,SMO,",
        ],
    );
    let first = import_written(&reg, &file);
    assert_eq!(first["inserted"], 2, "{first}");
    let stored = stored_submissions(&reg).await;
    let again = import_written(&reg, &file);
    assert_eq!(
        (&again["inserted"], &again["updated"], &again["unchanged"]),
        (&json!(0), &json!(0), &json!(2)),
        "{again}"
    );
    assert_eq!(stored_submissions(&reg).await, stored);
}

/// A submission an earlier import recorded is not overwritten by a changed file: the
/// file is refused whole, naming the row, its id and the field that changed, and the
/// first import's rows stay as they were (its unchanged row included), a dry run saying
/// the same.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_changed_file_does_not_overwrite_an_imported_submission(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let interim = "interim_progress_certification,2026-07-03,2026-07-10,SMO,eNOI 55120";
    let first = submissions_csv(
        &reg,
        "first.csv",
        &[
            "annual_report,2026-04-01,2026-03-30,Town Engineer,NOI 118",
            interim,
        ],
    );
    import_written(&reg, &first);
    let stored = stored_submissions(&reg).await;
    let before = imports(kind, &reg);
    let changed = submissions_csv(
        &reg,
        "changed.csv",
        &[
            interim,
            "annual_report,2026-04-01,2026-03-30,Town Engineer,NOI 119",
            "mapping_phase_1,2027-01-03,2026-10-01,GIS consultant,",
        ],
    );
    for dry_run in [false, true] {
        let mut args = vec!["import", "programme_submissions", changed.to_str().unwrap()];
        if dry_run {
            args.push("--dry-run");
        }
        let out = run(&reg.url, &args);
        assert!(
            !out.status.success(),
            "the imported submission was overwritten"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        for said in [
            "changed.csv (layer changed)",
            "feature 2 id annual_report:2026-04-01: field reference: ",
            "reference \"NOI 119\" here, \"NOI 118\" recorded",
            "nothing was imported into programme_submissions",
        ] {
            assert!(
                err.contains(said),
                "dry run {dry_run}: {said:?} not in: {err}"
            );
        }
    }
    assert_eq!(
        stored_submissions(&reg).await,
        stored,
        "the first import's rows changed"
    );
    assert_eq!(
        imports(kind, &reg),
        before,
        "a refused import left an import row"
    );
}

/// A submission recorded by each door before a replace: Mapping Phase I by an import of
/// a file, then the annual report by `ms4 calendar record` (under a key).
async fn recorded_by_both_doors(reg: &Registry) -> Vec<Feature> {
    let phase = submissions_csv(
        reg,
        "phase.csv",
        &["mapping_phase_1,2027-01-03,2026-10-01,GIS consultant,"],
    );
    import_written(reg, &phase);
    record_the_annual_report(reg);
    let recorded = stored_submissions(reg).await;
    assert_eq!(recorded.len(), 2);
    recorded
}

/// A later interim certification, which no submission records yet.
const INTERIM: &str = "interim_progress_certification,2026-07-03,2026-07-10,SMO,eNOI 55120";

/// `ms4 import programme_submissions FILE --replace` with `more` flags.
fn replace_with(reg: &Registry, file: &std::path::Path, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "import",
        "programme_submissions",
        file.to_str().unwrap(),
        "--replace",
    ];
    args.extend_from_slice(more);
    run(&reg.url, &args)
}

/// What a replace that leaves out the recorded submissions says: the file, the layer,
/// both submissions by id and their count, and that nothing was imported.
fn says_it_would_remove_both(out: &std::process::Output) {
    assert!(
        !out.status.success(),
        "the replace went ahead: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    for said in [
        "interim.csv: --replace would remove 2 recorded submissions from programme_submissions \
         that the file does not carry (annual_report:2026-04-01, mapping_phase_1:2027-01-03)",
        "nothing was imported",
        "--replace never removes one",
    ] {
        assert!(err.contains(said), "{said:?} not in: {err}");
    }
}

/// `--replace` never removes a recorded submission: with a file that leaves out the one
/// `ms4 calendar record` recorded and the one an earlier import did, even with
/// `--allow-mass-delete`, the import is refused naming both, and nothing is stored (the
/// file's new row neither, nor an import row); both records stay as they were.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_replace_does_not_remove_a_recorded_submission(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let recorded = recorded_by_both_doors(&reg).await;
    let before = imports(kind, &reg);
    let file = submissions_csv(&reg, "interim.csv", &[INTERIM]);
    says_it_would_remove_both(&replace_with(&reg, &file, &["--allow-mass-delete"]));
    assert_eq!(
        stored_submissions(&reg).await,
        recorded,
        "a record was removed, or the file's row stored"
    );
    assert_eq!(
        imports(kind, &reg),
        before,
        "a refused import left an import row"
    );
}

/// A replace whose file carries each recorded submission as recorded, and a new one, is
/// accepted: its dry run would delete nothing, and the write adds the new row and
/// leaves the records as their doors stored them (the key too).
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_replace_carrying_the_recorded_submissions_adds_the_new_one(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let recorded = recorded_by_both_doors(&reg).await;
    let file = submissions_csv(
        &reg,
        "whole.csv",
        &[
            "annual_report,2026-04-01,2026-03-30,Town Engineer,NOI 118",
            INTERIM,
            "mapping_phase_1,2027-01-03,2026-10-01,GIS consultant,",
        ],
    );
    let json = |out: std::process::Output| -> serde_json::Value {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let dry = json(replace_with(
        &reg,
        &file,
        &["--dry-run", "--format", "json"],
    ));
    let would = &dry["would_write"];
    assert_eq!(
        (&would["inserted"], &would["unchanged"], &would["deleted"]),
        (&json!(1), &json!(2), &json!(0)),
        "{dry}"
    );
    let done = json(replace_with(&reg, &file, &["--format", "json"]));
    let written = &done["written"];
    assert_eq!(
        (
            &written["inserted"],
            &written["updated"],
            &written["unchanged"],
            &written["deleted"]
        ),
        (&json!(1), &json!(0), &json!(2), &json!(0)),
        "{done}"
    );
    let now = stored_submissions(&reg).await;
    assert_eq!(now.len(), 3, "{now:?}");
    for r in &recorded {
        assert_eq!(
            now.iter().find(|f| f.id == r.id),
            Some(r),
            "{} was rewritten",
            r.id
        );
    }
    assert!(now
        .iter()
        .any(|f| f.id == "interim_progress_certification:2026-07-03"));
}

/// A dry run of a replace that leaves out the recorded submissions is refused as the
/// import is, naming both, and records nothing (no import row, no row of the file).
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_dry_run_of_a_replace_says_which_recorded_submissions_it_would_remove(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = carmel(kind).await;
    let recorded = recorded_by_both_doors(&reg).await;
    let before = imports(kind, &reg);
    let file = submissions_csv(&reg, "interim.csv", &[INTERIM]);
    says_it_would_remove_both(&replace_with(
        &reg,
        &file,
        &["--dry-run", "--allow-mass-delete"],
    ));
    assert_eq!(stored_submissions(&reg).await, recorded);
    assert_eq!(
        imports(kind, &reg),
        before,
        "the refused dry run was logged"
    );
}
