//! Issue 25, items 12 to 15, through `ms4 illicit` and `/api/illicit` on both stores: a
//! small town per jurisdiction, written as GeoJSON and CSV files and imported, whose
//! connections sit at the law's words (North Castle § 267-12A(1), (2), (4), § 267-12B;
//! Windsor Sec. 3-169(a)(2), (a)(4), (b)), each with its counter-case.

use std::collections::HashMap;
use std::path::Path;

use rstest::rstest;
use serde_json::Value;

use crate::common::*;

const X0: f64 = 670_000.0;
const Y0: f64 = 870_000.0;
const ALL: &str = "illicit,needs_review,ok,not_covered";

/// A connection from `(x, 100)` on its parcel to the Town's catch basin CB-1.
fn conn(id: &str, props: &str, x: f64) -> String {
    feature(
        &format!(r#""connection_id":"{id}",{props}"#),
        &line(&[(X0 + x, Y0 + 100.0), (X0 + 100.0, Y0 + 400.0)]),
    )
}

/// A record of connection `c`, at its upstream end.
fn rec(id: &str, c: &str, props: &str, x: f64) -> String {
    feature(
        &format!(r#""record_id":"{id}","connection_id":"{c}",{props}"#),
        &point(X0 + x, Y0 + 100.0),
    )
}

/// Each town's words for the cases: (a county's or another town's body holding a listed
/// office's words, the town's own office qualified by its name, the written-approval
/// route's official, a permit named in free text).
fn words(j: &str) -> (&'static str, &'static str, &'static str, &'static str) {
    if j == "windsor-ct" {
        (
            "Bloomfield Town Manager",
            "Town of Windsor Town Manager",
            "Town Engineer",
            "NPDES permit CT0001234",
        )
    } else {
        (
            "Putnam County Planning Board",
            "Town of North Castle Planning Board",
            "SMO",
            "SPDES permit NY0001234",
        )
    }
}

fn layers(j: &str) -> Vec<(&'static str, String)> {
    let (res, ind) = if j == "windsor-ct" {
        ("101", "400")
    } else {
        ("210", "710")
    };
    let (other_body, own_office, route_office, permit_text) = words(j);
    let res_conn =
        |id: &str, props: &str, x: f64| conn(id, &format!(r#"{props},"parcel_id":"P-RES""#), x);
    let ind_conn = |id: &str, x: f64| {
        conn(
            id,
            r#""discharge_kind":"stormwater","parcel_id":"P-IND""#,
            x,
        )
    };
    vec![
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
            ]),
        ),
        (
            "catch_basins",
            fc(&[feature(
                r#""asset_id":"CB-1","owner":"Town""#,
                &point(X0 + 100.0, Y0 + 400.0),
            )]),
        ),
        (
            "outfalls",
            fc(&[feature(
                r#""asset_id":"OF-1","owner":"Town","receiving_water_id":"W-1""#,
                &point(X0 + 100.0, Y0 + 600.0),
            )]),
        ),
        (
            "pipes",
            fc(&[feature(
                r#""asset_id":"PI-1","from_id":"CB-1","to_id":"OF-1","owner":"Town""#,
                &line(&[(X0 + 100.0, Y0 + 400.0), (X0 + 100.0, Y0 + 600.0)]),
            )]),
        ),
        (
            "connections",
            fc(&[
                // Item 12: springs, by their determinations.
                res_conn("C-DEC", r#""discharge_kind":"springs""#, 10.0),
                res_conn("C-CTY", r#""discharge_kind":"springs""#, 20.0),
                res_conn("C-NOLONGER", r#""discharge_kind":"springs""#, 30.0),
                res_conn("C-UNREAD", r#""discharge_kind":"springs""#, 40.0),
                // Item 13: approvals of drains from industrial land.
                ind_conn("C-APP-OTHER", 700.0),
                ind_conn("C-APP-OWN", 720.0),
                // Item 14: statuses and later sampling.
                res_conn(
                    "C-CAP",
                    r#""discharge_kind":"sewage","status":"capped""#,
                    50.0,
                ),
                res_conn(
                    "C-CAP-R",
                    r#""discharge_kind":"sewage","status":"capped","removed_on":"2019-04-02""#,
                    60.0,
                ),
                res_conn(
                    "C-REM-S",
                    r#""discharge_kind":"sewage","status":"removed","removed_on":"2019-12-31","sampled_on":"2020-01-02","pollutants_found":"yes""#,
                    70.0,
                ),
                // Item 15: routes out of the prohibition.
                res_conn("C-APPR", r#""discharge_kind":"process wastewater""#, 80.0),
                res_conn("C-TEXT", r#""discharge_kind":"process wastewater""#, 90.0),
                res_conn("C-NONE", r#""discharge_kind":"process wastewater""#, 95.0),
            ]),
        ),
        (
            "connection_records",
            fc(&[
                rec(
                    "R-OTHER",
                    "C-APP-OTHER",
                    &format!(r#""approved":"yes","approved_by":"{other_body}","plan_ref":"SP-1""#),
                    700.0,
                ),
                rec(
                    "R-OWN",
                    "C-APP-OWN",
                    &format!(r#""approved":"yes","approved_by":"{own_office}","plan_ref":"SP-2""#),
                    720.0,
                ),
                rec(
                    "R-APPR",
                    "C-APPR",
                    &format!(
                        r#""approved":"yes","approved_by":"{route_office}","approved_on":"2024-12-31","plan_ref":"SP-3""#
                    ),
                    80.0,
                ),
                rec(
                    "R-TEXT",
                    "C-TEXT",
                    &format!(r#""plan_ref":"{permit_text}""#),
                    90.0,
                ),
            ]),
        ),
    ]
}

/// The determinations of item 12: by the Department, by a county body, a withdrawal that
/// replaces an earlier one (across a year's end), and words the code cannot read.
const DETERMINATIONS: &str = "determination_id,scope,subject,determined_on,determined_by,finding
D-1,connection,C-DEC,2022-12-30,NYSDEC,substantial contributor
D-2,connection,C-CTY,2022-12-30,Westchester County Department of Health,substantial contributor
D-3,connection,C-NOLONGER,2022-12-30,NYSDEC,substantial contributor
D-4,connection,C-NOLONGER,2023-01-02,NYSDEC,no longer a substantial contributor
D-5,connection,C-UNREAD,2022-12-30,NYSDEC,see attached letter
";

/// Writes the town into `dir` and imports it into a new registry at `url`.
fn build(dir: &Path, url: &str, j: &str) {
    run_ok(url, &["init", "--jurisdiction", j, "--crs", "EPSG:2260"]);
    for (layer, text) in layers(j) {
        let path = dir.join(format!("{layer}.geojson"));
        std::fs::write(&path, text).unwrap();
        let json = run_ok(
            url,
            &["import", layer, path.to_str().unwrap(), "--format", "json"],
        );
        let r: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(r["rejected"], 0, "{layer}: {json}");
    }
    let path = dir.join("discharge_determinations.csv");
    std::fs::write(&path, DETERMINATIONS).unwrap();
    let json = run_ok(
        url,
        &[
            "import",
            "discharge_determinations",
            path.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let r: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["rejected"], 0, "{json}");
}

/// (connection, North Castle, Windsor, a phrase of North Castle's reasons, of Windsor's)
const CASES: &[(&str, &str, &str, &str, &str)] = &[
    // § 267-12A(1) "unless the Department or the municipality has determined them to be
    // substantial contributors of pollutants"; Windsor's exemptions carry no such clause.
    (
        "C-DEC",
        "illicit",
        "ok",
        "withdraws the exemption (§ 267-12A(1))",
        "exempt list",
    ),
    (
        "C-CTY",
        "needs_review",
        "ok",
        "only a determination by the Department or the municipality does",
        "exempt list",
    ),
    ("C-NOLONGER", "ok", "ok", "replaces D-3", "exempt list"),
    (
        "C-UNREAD",
        "needs_review",
        "ok",
        "what would decide: the determination's terms",
        "exempt list",
    ),
    // Approved "by an authorized enforcement agency" / "by the Town": whole names.
    (
        "C-APP-OTHER",
        "needs_review",
        "needs_review",
        "is not that office's whole name",
        "is not that office's whole name",
    ),
    (
        "C-APP-OWN",
        "ok",
        "ok",
        "the whole name of Planning Board",
        "the whole name of Town Manager",
    ),
    // "continued existence of illicit connections".
    (
        "C-CAP",
        "needs_review",
        "needs_review",
        "out of use, not that it was removed",
        "out of use, not that it was removed",
    ),
    (
        "C-CAP-R",
        "ok",
        "ok",
        "so it is read as removed",
        "so it is read as removed",
    ),
    (
        "C-REM-S",
        "needs_review",
        "needs_review",
        "contradict each other",
        "contradict each other",
    ),
    // § 267-12A(2) / Sec. 3-169(a)(2), and § 267-12A(4) / Sec. 3-169(a)(4).
    (
        "C-APPR",
        "needs_review",
        "needs_review",
        "(§ 267-12A(2))",
        "(Sec. 3-169(a)(2))",
    ),
    (
        "C-TEXT",
        "needs_review",
        "needs_review",
        "names an SPDES/NPDES permit",
        "names an SPDES/NPDES permit",
    ),
    (
        "C-NONE",
        "illicit",
        "illicit",
        "none is on record",
        "none is on record",
    ),
];

fn check(v: &Value, j: &str, via: &str) {
    let by_id: HashMap<&str, &Value> = v["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["connection_id"].as_str().unwrap(), &c["finding"]))
        .collect();
    for (id, nc, w, nc_phrase, w_phrase) in CASES {
        let (want, phrase) = if j == "windsor-ct" {
            (w, w_phrase)
        } else {
            (nc, nc_phrase)
        };
        let f = by_id
            .get(id)
            .unwrap_or_else(|| panic!("{via} {j}: {id} missing"));
        let reasons = f["reasons"].to_string();
        assert_eq!(f["result"], *want, "{via} {j} {id}: {reasons}");
        assert!(reasons.contains(phrase), "{via} {j} {id}: {reasons}");
        if *want == "needs_review" {
            assert!(
                !reasons.contains("none is on record"),
                "{via} {j} {id}: {reasons}"
            );
        }
    }
    // The determinations are the evidence of North Castle's answers, by id.
    if j != "windsor-ct" {
        assert!(by_id["C-NOLONGER"]["evidence"].to_string().contains("D-4"));
        assert!(by_id["C-CTY"]["evidence"].to_string().contains("D-2"));
    }
}

#[test]
fn issue_25_items_12_to_15_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    for j in ["north-castle-ny", "windsor-ct"] {
        let sub = dir.path().join(j);
        std::fs::create_dir_all(&sub).unwrap();
        let url = format!("sqlite://{}", sub.join("r.gpkg").display());
        build(&sub, &url, j);
        let v: Value = serde_json::from_str(&run_ok(
            &url,
            &["illicit", "--status", ALL, "--format", "json"],
        ))
        .unwrap();
        check(&v, j, "cli");
    }
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn issue_25_items_12_to_15_through_the_api_on_both_stores(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    for j in ["north-castle-ny", "windsor-ct"] {
        let sub = dir.path().join(format!("{kind}-{j}"));
        std::fs::create_dir_all(&sub).unwrap();
        let url = match kind {
            "sqlite" => format!("sqlite://{}", sub.join("r.gpkg").display()),
            _ => fresh_pg_url("illicit_edges").unwrap(),
        };
        build(&sub, &url, j);
        let store = ms4::store::open(&url).await.unwrap();
        let client = App::public(&store).await;
        let r = client
            .get(format!("{}/api/illicit", client.base))
            .query(&[("status", ALL)])
            .send()
            .await;
        assert_eq!(r.status().as_u16(), 200);
        let v: Value = r.json();
        check(&v, j, &format!("api {kind}"));
    }
}
