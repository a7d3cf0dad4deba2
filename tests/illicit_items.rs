//! Issue 8, items 1-3, 5-7 and 14: a small hand-made town per jurisdiction, written as
//! GeoJSON and CSV files, imported through the CLI, and asked `ms4 illicit`,
//! `ms4 smps-without-easement` and `ms4 nearby`, then the same through `/api` on both
//! stores. Each case is at the law's words, with its counter-case.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;
use rstest::rstest;
use serde_json::Value;

const X0: f64 = 670_000.0;
const Y0: f64 = 870_000.0;

/// Three small systems: CB-1 → OF-1 (the Town's; its dry-weather screening found sewage
/// indicators), CB-2 → OF-2 (the Town's, clean), CB-DOT → OF-DOT (NYSDOT's).
fn structures() -> (String, String, String) {
    let s = |x: f64| (X0 + x, Y0 + 400.0);
    let o = |x: f64| (X0 + x, Y0 + 600.0);
    let mut cbs = Vec::new();
    let mut ofs = Vec::new();
    let mut pipes = Vec::new();
    for (n, x, owner) in [
        ("1", 100.0, "Town"),
        ("2", 400.0, "TOWN"),
        ("DOT", 700.0, "NYSDOT"),
    ] {
        let (cx, cy) = s(x);
        let (ox, oy) = o(x);
        cbs.push(feature(
            &format!(r#""asset_id":"CB-{n}","owner":"{owner}""#),
            &point(cx, cy),
        ));
        ofs.push(feature(
            &format!(r#""asset_id":"OF-{n}","owner":"{owner}","receiving_water_id":"W-1""#),
            &point(ox, oy),
        ));
        pipes.push(feature(
            &format!(
                r#""asset_id":"PI-{n}","from_id":"CB-{n}","to_id":"OF-{n}","owner":"{owner}""#
            ),
            &line(&[(cx, cy), (ox, oy)]),
        ));
    }
    (fc(&cbs), fc(&ofs), fc(&pipes))
}

/// A connection from `(x, 100)` on a parcel to the catch basin at `cb_x`.
fn conn(id: &str, props: &str, x: f64, cb_x: f64) -> String {
    feature(
        &format!(r#""connection_id":"{id}",{props}"#),
        &line(&[(X0 + x, Y0 + 100.0), (X0 + cb_x, Y0 + 400.0)]),
    )
}

/// A connection from `(x, 100)` to a point on pipe PI-2, `dy` above CB-2.
fn conn_to_pipe(id: &str, props: &str, x: f64, dy: f64) -> String {
    feature(
        &format!(r#""connection_id":"{id}",{props}"#),
        &line(&[(X0 + x, Y0 + 100.0), (X0 + 400.0, Y0 + 400.0 + dy)]),
    )
}

/// Writes the town into `dir` and imports it into a new registry at `url`.
fn build(dir: &Path, url: &str, jurisdiction: &str) {
    let (res, ind, vac) = if jurisdiction == "windsor-ct" {
        ("101", "400", "101")
    } else {
        ("210", "710", "330")
    };
    let (cbs, ofs, pipes) = structures();
    let files: Vec<(&str, String)> = vec![
        (
            "parcels",
            fc(&[
                feature(
                    &format!(r#""parcel_id":"P-RES","land_use":"{res}""#),
                    &square(X0, Y0, 600.0),
                ),
                feature(
                    &format!(r#""parcel_id":"P-IND","land_use":"{ind}""#),
                    &square(X0 + 600.0, Y0, 300.0),
                ),
                // Item 4: vacant commercial land (NY class 330); Windsor's is residential,
                // the counter-case.
                feature(
                    &format!(r#""parcel_id":"P-VAC","land_use":"{vac}""#),
                    &square(X0 + 900.0, Y0, 300.0),
                ),
            ]),
        ),
        ("catch_basins", cbs),
        ("outfalls", ofs),
        ("pipes", pipes),
        (
            "connections",
            fc(&[
                // Item 1: status.
                conn(
                    "C-REM",
                    r#""discharge_kind":"sewage","status":"abandoned","removed_on":"2019-04-02""#,
                    10.0,
                    100.0,
                ),
                conn(
                    "C-PROP",
                    r#""discharge_kind":"sewage","status":"proposed""#,
                    20.0,
                    100.0,
                ),
                conn("C-NOST", r#""discharge_kind":"sewage""#, 30.0, 100.0),
                conn(
                    "C-ACT",
                    r#""discharge_kind":"sewage","status":"active""#,
                    40.0,
                    100.0,
                ),
                // Item 2: a NYSDOT system that never reaches the Town's.
                conn("C-DOT", r#""discharge_kind":"sewage""#, 650.0, 700.0),
                // Item 3: a permitted discharge, and its counter-case.
                conn(
                    "C-PERM",
                    r#""discharge_kind":"process wastewater""#,
                    50.0,
                    400.0,
                ),
                conn(
                    "C-NOPERM",
                    r#""discharge_kind":"process wastewater""#,
                    60.0,
                    400.0,
                ),
                // Item 5: an unqualified word, and the qualified one.
                conn("C-WASH", r#""discharge_kind":"street wash""#, 70.0, 400.0),
                // Item 7: an exempt kind upstream of the screened outfall, and of the clean one.
                conn("C-SPR-1", r#""discharge_kind":"springs""#, 80.0, 100.0),
                conn("C-SPR-2", r#""discharge_kind":"springs""#, 90.0, 400.0),
                conn("C-DET", r#""discharge_kind":"springs""#, 95.0, 400.0),
                // Item 6: approvals of drains from industrial land.
                conn("C-IND-OK", r#""discharge_kind":"stormwater""#, 700.0, 400.0),
                conn(
                    "C-IND-BAD",
                    r#""discharge_kind":"stormwater""#,
                    800.0,
                    400.0,
                ),
                // A record naming no connection documents the nearest one only.
                conn_to_pipe(
                    "C-IND-NEAR",
                    r#""discharge_kind":"stormwater""#,
                    850.0,
                    50.0,
                ),
                conn_to_pipe("C-IND-FAR", r#""discharge_kind":"stormwater""#, 860.0, 70.0),
                // Item 4: an undocumented drain from vacant commercial land.
                conn(
                    "C-VAC",
                    r#""discharge_kind":"stormwater","parcel_id":"P-VAC""#,
                    1000.0,
                    400.0,
                ),
            ]),
        ),
        (
            "connection_records",
            fc(&[
                feature(
                    r#""record_id":"R-P","connection_id":"C-PERM","permit_number":"NY0012345","permit_kind":"SPDES","permit_holder":"Acme Plating","ms4_approval":"yes","ms4_approved_on":"2020-03-01""#,
                    &point(X0 + 50.0, Y0 + 100.0),
                ),
                feature(
                    r#""record_id":"R-OK","connection_id":"C-IND-OK","approved":"yes","approved_by":"Town Engineer","approved_on":"2015-06-01","plan_ref":"SP-2015-12""#,
                    &point(X0 + 700.0, Y0 + 100.0),
                ),
                feature(
                    r#""record_id":"R-NEAR","parcel_id":"P-IND","approved":"yes","approved_by":"Town Engineer","plan_ref":"SP-2017-03""#,
                    &point(X0 + 402.0, Y0 + 452.0),
                ),
                feature(
                    r#""record_id":"R-BAD","connection_id":"C-IND-BAD","approved":"yes","approved_by":"Acme facilities manager","plan_ref":"SP-2016-01""#,
                    &point(X0 + 800.0, Y0 + 100.0),
                ),
            ]),
        ),
        (
            "smps",
            fc(&[
                feature(
                    r#""asset_id":"SMP-A","structural":"yes","owner_kind":"private""#,
                    &point(X0 + 100.0, Y0 + 200.0),
                ),
                feature(
                    r#""asset_id":"SMP-B","structural":"yes","owner_kind":"private""#,
                    &point(X0 + 200.0, Y0 + 200.0),
                ),
                feature(
                    r#""asset_id":"SMP-C","structural":"yes","owner_kind":"dedicated""#,
                    &point(X0 + 300.0, Y0 + 200.0),
                ),
                feature(
                    r#""asset_id":"SMP-D","structural":"yes","status":"removed""#,
                    &point(X0 + 400.0, Y0 + 200.0),
                ),
                feature(
                    r#""asset_id":"SMP-E","structural":"no","owner_kind":"private""#,
                    &point(X0 + 500.0, Y0 + 200.0),
                ),
            ]),
        ),
        (
            "easements",
            fc(&[
                feature(
                    r#""easement_id":"E-A","purpose":"stormwater maintenance and access","instrument":"Liber 1 cp 2""#,
                    &square(X0 + 90.0, Y0 + 190.0, 20.0),
                ),
                feature(
                    r#""easement_id":"E-B","purpose":"sanitary sewer","instrument":"Liber 3 cp 4""#,
                    &square(X0 + 190.0, Y0 + 190.0, 20.0),
                ),
            ]),
        ),
    ];
    run_ok(
        url,
        &["init", "--jurisdiction", jurisdiction, "--crs", "EPSG:2260"],
    );
    for (layer, text) in files {
        let path = dir.join(format!("{layer}.geojson"));
        std::fs::write(&path, text).unwrap();
        let json = run_ok(
            url,
            &["import", layer, path.to_str().unwrap(), "--format", "json"],
        );
        let r: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(r["rejected"], 0, "{layer}: {json}");
    }
    // The facts of item 7 are tables: a dry-weather screening and a determination.
    let csvs = [
        (
            "inspections",
            "inspection_id,asset_id,inspected_on,kind,sewage_indicators\nI-7,OF-1,2024-07-10,dry weather screening,yes\nI-8,OF-2,2024-07-10,dry weather screening,no\n",
        ),
        (
            "discharge_determinations",
            "determination_id,scope,subject,determined_on,determined_by,finding\nD-1,connection,C-DET,2023-01-05,NYSDEC,substantial contributor\n",
        ),
    ];
    for (layer, text) in csvs {
        let path = dir.join(format!("{layer}.csv"));
        std::fs::write(&path, text).unwrap();
        let json = run_ok(
            url,
            &["import", layer, path.to_str().unwrap(), "--format", "json"],
        );
        let r: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(r["rejected"], 0, "{layer}: {json}");
    }
}

/// (connection, North Castle, Windsor, a phrase of the reasons in both)
const ILLICIT: &[(&str, &str, &str, &str)] = &[
    ("C-REM", "ok", "ok", "removed on 2019-04-02"),
    ("C-PROP", "needs_review", "needs_review", "a plan to review"),
    ("C-NOST", "illicit", "illicit", "no status is recorded"),
    ("C-ACT", "illicit", "illicit", "clause (1) is met"),
    ("C-DOT", "not_covered", "not_covered", "refer it to NYSDOT"),
    ("C-PERM", "needs_review", "needs_review", "permit NY0012345"),
    ("C-NOPERM", "illicit", "illicit", "none is on record"),
    ("C-WASH", "needs_review", "needs_review", "ambiguous"),
    (
        "C-SPR-1",
        "needs_review",
        "needs_review",
        "dry-weather screening I-7",
    ),
    ("C-SPR-2", "ok", "ok", "exempt list"),
    ("C-DET", "illicit", "ok", "exempt list"),
    ("C-IND-OK", "ok", "ok", "an approver the profile lists"),
    (
        "C-IND-BAD",
        "needs_review",
        "needs_review",
        "not among the approvers",
    ),
    ("C-IND-NEAR", "ok", "ok", "record R-NEAR"),
    ("C-IND-FAR", "illicit", "illicit", "no record documents it"),
];

/// (smp, North Castle and Carmel status, a phrase)
const SMPS: &[(&str, &str, &str)] = &[
    ("SMP-A", "covered", "covers the practice"),
    ("SMP-B", "missing", "does not count"),
    ("SMP-C", "town_owned", "outside the rule"),
    ("SMP-D", "removed", "skipped"),
    ("SMP-E", "needs_review", "nonstructural"),
];

fn check_illicit(v: &Value, jurisdiction: &str, via: &str) {
    let by_id: HashMap<&str, &Value> = v["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["connection_id"].as_str().unwrap(), &c["finding"]))
        .collect();
    for (id, nc, w, phrase) in ILLICIT {
        let want = if jurisdiction == "windsor-ct" { w } else { nc };
        let f = by_id
            .get(id)
            .unwrap_or_else(|| panic!("{via} {jurisdiction}: {id} missing"));
        let reasons = f["reasons"].to_string();
        assert_eq!(f["result"], *want, "{via} {jurisdiction} {id}: {reasons}");
        assert!(
            reasons.contains(phrase),
            "{via} {jurisdiction} {id}: {reasons}"
        );
    }
    // Item 4: NY class 330 (vacant commercial land) is neither "other" nor commercial:
    // review. A residential parcel's stormwater drain is not clause (2)'s business.
    let vac = by_id
        .get("C-VAC")
        .unwrap_or_else(|| panic!("{via} {jurisdiction}: C-VAC missing"));
    let reasons = vac["reasons"].to_string();
    let want = if jurisdiction == "windsor-ct" {
        "ok"
    } else {
        "needs_review"
    };
    assert_eq!(vac["result"], want, "{via} {jurisdiction} C-VAC: {reasons}");
    if jurisdiction != "windsor-ct" {
        assert!(
            reasons.contains("330"),
            "{via} {jurisdiction} C-VAC: {reasons}"
        );
    }
    // C-DET's determination is on record as evidence; C-SPR-1's screening too.
    assert!(by_id["C-SPR-1"]["evidence"].to_string().contains("I-7"));
    assert!(by_id["C-DET"]["evidence"].to_string().contains("D-1"));
}

fn check_smps(v: &Value, jurisdiction: &str, via: &str) {
    let by_id: HashMap<&str, &Value> = v["smps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["smp_id"].as_str().unwrap(), &c["finding"]))
        .collect();
    for (id, want, phrase) in SMPS {
        let f = by_id[id];
        if jurisdiction == "windsor-ct" {
            assert_eq!(f["result"], "not_covered", "{via} {id}");
            continue;
        }
        let reasons = f["reasons"].to_string();
        assert_eq!(f["result"], *want, "{via} {jurisdiction} {id}: {reasons}");
        assert!(
            reasons.contains(phrase),
            "{via} {jurisdiction} {id}: {reasons}"
        );
    }
}

fn check_nearby(v: &Value, via: &str) {
    let access: HashMap<&str, &Value> = v["facilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), &f["access"]))
        .collect();
    assert_eq!(access["SMP-A"]["kind"], "easement", "{via}");
    assert_eq!(access["SMP-A"]["easement_id"], "E-A", "{via}");
    // The sanitary-sewer easement gives no access, as in smps-without-easement.
    assert_eq!(access["SMP-B"]["kind"], "no_recorded_easement", "{via}");
}

const ALL: &str = "illicit,needs_review,ok,not_covered";

#[test]
fn issue_8_items_1_to_7_and_14_through_the_cli_per_jurisdiction() {
    let dir = tempfile::tempdir().unwrap();
    for j in ["north-castle-ny", "windsor-ct", "carmel-ny"] {
        let sub = dir.path().join(j);
        std::fs::create_dir_all(&sub).unwrap();
        let url = format!("sqlite://{}", sub.join("r.gpkg").display());
        build(&sub, &url, j);
        let v: Value = serde_json::from_str(&run_ok(
            &url,
            &["illicit", "--status", ALL, "--format", "json"],
        ))
        .unwrap();
        if j == "carmel-ny" {
            let all = v["connections"].as_array().unwrap();
            assert!(all.iter().all(|c| c["finding"]["result"] == "not_covered"));
        } else {
            check_illicit(&v, j, "cli");
        }
        if j != "windsor-ct" {
            let s: Value = serde_json::from_str(&run_ok(
                &url,
                &["smps-without-easement", "--all", "--format", "json"],
            ))
            .unwrap();
            check_smps(&s, j, "cli");
        }
        let n: Value = serde_json::from_str(&run_ok(
            &url,
            &[
                "nearby",
                "--x",
                &(X0 + 150.0).to_string(),
                "--y",
                &(Y0 + 200.0).to_string(),
                "--kinds",
                "smp",
                "--k",
                "2",
                "--format",
                "json",
            ],
        ))
        .unwrap();
        check_nearby(&n, "cli");
        // The tables fit a 100-column terminal.
        for args in [
            vec!["illicit", "--status", ALL],
            vec!["smps-without-easement", "--all"],
        ] {
            let out = run_ok(&url, &args);
            for l in out.lines() {
                assert!(l.chars().count() <= 100, "{j} {args:?}: {l:?}");
            }
        }
    }
}

async fn get(client: &App, base: &str, path: &str, q: &[(&str, &str)]) -> Value {
    let r = client.get(format!("{base}{path}")).query(q).send().await;
    assert_eq!(r.status().as_u16(), 200, "{path}");
    r.json()
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn issue_8_items_1_to_7_and_14_through_the_api_on_both_stores(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for j in ["north-castle-ny", "windsor-ct"] {
        let sub = dir.path().join(format!("{kind}-{j}"));
        std::fs::create_dir_all(&sub).unwrap();
        let url = match kind {
            "sqlite" => format!("sqlite://{}", sub.join("r.gpkg").display()),
            _ => fresh_pg_url("illicit").unwrap(),
        };
        build(&sub, &url, j);
        let store = ms4::store::open(&url).await.unwrap();
        let client = App::public(&store).await;
        let via = format!("api {kind}");
        let v = get(&client, &client.base, "/api/illicit", &[("status", ALL)]).await;
        check_illicit(&v, j, &via);
        let s = get(
            &client,
            &client.base,
            "/api/smps-without-easement",
            &[("all", "true")],
        )
        .await;
        check_smps(&s, j, &via);
        let x = (X0 + 150.0).to_string();
        let y = (Y0 + 200.0).to_string();
        let n = get(
            &client,
            &client.base,
            "/api/nearby",
            &[("x", &x), ("y", &y), ("kinds", "smp"), ("k", "2")],
        )
        .await;
        check_nearby(&n, &via);
    }
}
