//! A small hand-made town, written as real files, imported through the CLI, and asked
//! the registry's questions: illicit connections and determinations, per jurisdiction.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// Writes the town's files into `dir` and builds a registry for `jurisdiction` from them.
fn build(dir: &Path, jurisdiction: &str) -> String {
    let (x0, y0) = (670_000.0, 870_000.0);
    let files: Vec<(&str, String)> = vec![
        (
            "parcels",
            fc(&[
                feature(
                    r#""parcel_id":"P-IND","land_use":"710""#,
                    &square(x0, y0, 300.0),
                ),
                feature(
                    r#""parcel_id":"P-RES","land_use":"210""#,
                    &square(x0 + 300.0, y0, 300.0),
                ),
                feature(
                    r#""parcel_id":"P-COM","land_use":"432""#,
                    &square(x0 + 600.0, y0, 300.0),
                ),
            ]),
        ),
        (
            "catch_basins",
            fc(&[feature(
                r#""asset_id":"CB-1","status":"active""#,
                &point(x0 + 450.0, y0 + 320.0),
            )]),
        ),
        (
            "outfalls",
            fc(&[feature(
                r#""asset_id":"OF-1","receiving_water_id":"W-1""#,
                &point(x0 + 450.0, y0 + 600.0),
            )]),
        ),
        (
            "pipes",
            fc(&[feature(
                r#""asset_id":"PI-1","from_id":"CB-1","to_id":"OF-1""#,
                &line(&[(x0 + 450.0, y0 + 320.0), (x0 + 450.0, y0 + 600.0)]),
            )]),
        ),
        (
            "receiving_waters",
            fc(&[feature(
                r#""water_id":"W-1","name":"Byram River","listed_303d":"Y""#,
                &line(&[(x0, y0 + 620.0), (x0 + 900.0, y0 + 620.0)]),
            )]),
        ),
        (
            "watersheds",
            fc(&[feature(
                r#""watershed_id":"WS-1","drains_to":"W-1""#,
                &square(x0 - 100.0, y0 - 100.0, 1200.0),
            )]),
        ),
        (
            "tmdl_areas",
            fc(&[feature(
                r#""tmdl_id":"T-1","pollutant":"phosphorus","stormwater_source":1"#,
                &square(x0, y0, 300.0),
            )]),
        ),
        (
            "connections",
            fc(&[
                // Industrial, no parcel_id (found by its upstream end), undocumented.
                feature(
                    r#""connection_id":"C-1","discharge_kind":"stormwater""#,
                    &line(&[(x0 + 150.0, y0 + 150.0), (x0 + 450.0, y0 + 320.0)]),
                ),
                // Industrial, documented by a record that names it.
                feature(
                    r#""connection_id":"C-2","discharge_kind":"Stormwater","parcel_id":"P-IND""#,
                    &line(&[(x0 + 100.0, y0 + 100.0), (x0 + 450.5, y0 + 320.0)]),
                ),
                // Residential sewage.
                feature(
                    r#""connection_id":"C-3","discharge_kind":"sanitary sewer","parcel_id":"P-RES""#,
                    &line(&[(x0 + 400.0, y0 + 100.0), (x0 + 450.0, y0 + 318.0)]),
                ),
                // Residential, unknown kind.
                feature(
                    r#""connection_id":"C-4","discharge_kind":"mystery pipe","parcel_id":"P-RES""#,
                    &line(&[(x0 + 420.0, y0 + 100.0), (x0 + 451.0, y0 + 318.0)]),
                ),
                // Commercial, documented by a nearby record that names no connection.
                feature(
                    r#""connection_id":"C-5","discharge_kind":"stormwater","parcel_id":"P-COM""#,
                    &line(&[(x0 + 700.0, y0 + 100.0), (x0 + 700.0, y0 + 310.0)]),
                ),
                // Commercial, the only record lies beyond the tolerance.
                feature(
                    r#""connection_id":"C-6","discharge_kind":"stormwater","parcel_id":"P-COM""#,
                    &line(&[(x0 + 800.0, y0 + 100.0), (x0 + 800.0, y0 + 310.0)]),
                ),
            ]),
        ),
        (
            "connection_records",
            fc(&[
                feature(
                    r#""record_id":"R-2","connection_id":"C-2","approved":"yes","approved_by":"Town Engineer","plan_ref":"SP-2012-04""#,
                    &point(x0 + 449.0, y0 + 319.0),
                ),
                feature(
                    r#""record_id":"R-5","parcel_id":"P-COM","approved":"yes","approved_by":"Town Engineer","plan_ref":"SP-2014-09""#,
                    &point(x0 + 710.0, y0 + 310.0),
                ),
                feature(
                    r#""record_id":"R-6","parcel_id":"P-COM","approved":"yes","approved_by":"Town Engineer","plan_ref":"SP-2014-10""#,
                    &point(x0 + 900.0, y0 + 310.0),
                ),
            ]),
        ),
    ];
    let url = format!(
        "sqlite://{}",
        dir.join(format!("{jurisdiction}.gpkg")).display()
    );
    run_ok(
        &url,
        &["init", "--jurisdiction", jurisdiction, "--crs", "EPSG:2260"],
    );
    for (layer, text) in files {
        let path = dir.join(format!("{layer}.geojson"));
        std::fs::write(&path, text).unwrap();
        let json = run_ok(
            &url,
            &["import", layer, path.to_str().unwrap(), "--format", "json"],
        );
        let r: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(r["rejected"], 0, "{layer}: {json}");
    }
    let imp = dir.join("impairments.csv");
    std::fs::write(&imp, "water_id,pollutant,cycle\nW-1,Phosphorus,2022\n").unwrap();
    run_ok(&url, &["import", "impairments", imp.to_str().unwrap()]);
    url
}

fn statuses(url: &str) -> HashMap<String, String> {
    let json = run_ok(
        url,
        &[
            "illicit",
            "--status",
            "illicit,needs_review,ok,not_covered",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    v["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["connection_id"].as_str().unwrap().to_string(),
                c["finding"]["result"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn undocumented_industrial_connection_is_illicit_and_the_rest_as_the_law_says() {
    let dir = tempfile::tempdir().unwrap();
    let nc = build(dir.path(), "north-castle-ny");
    let s = statuses(&nc);
    let want: HashMap<String, String> = [
        ("C-1", "illicit"),
        ("C-2", "ok"),
        ("C-3", "illicit"),
        ("C-4", "needs_review"),
        ("C-5", "ok"),
        ("C-6", "illicit"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(s, want);
    // The source parcel of C-1 was found by its upstream end, and the record of C-5 by distance.
    let json = run_ok(&nc, &["illicit", "--format", "json"]);
    assert!(
        json.contains("the parcel holding the connection's upstream end"),
        "{json}"
    );
    let all = run_ok(&nc, &["illicit", "--status", "ok", "--format", "json"]);
    assert!(
        all.contains("within 10.0 ftUS of the connection's MS4 end"),
        "{all}"
    );

    let carmel = build(dir.path(), "carmel-ny");
    assert!(statuses(&carmel).values().all(|v| v == "not_covered"));
}

#[test]
fn determinations_at_the_thresholds_with_condition_one_evidence() {
    let dir = tempfile::tempdir().unwrap();
    let nc = build(dir.path(), "north-castle-ny");
    let det = |url: &str, area: &str, extra: &[&str]| -> serde_json::Value {
        let mut args = vec![
            "determine",
            "--parcel",
            "P-IND",
            "--disturbed",
            area,
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        serde_json::from_str(&run_ok(url, &args)).unwrap()
    };
    assert_eq!(
        det(&nc, "4999sqft", &[])["determination"]["land_development_activity"]["result"],
        false
    );
    let d = det(&nc, "5000 sq ft", &[]);
    assert_eq!(
        d["determination"]["land_development_activity"]["result"],
        true
    );
    // Both methods reach W-1 from P-IND: by watershed, and by C-1 and C-2 through CB-1 and OF-1.
    let rw = &d["receiving_waters"];
    assert_eq!(rw["by_watershed"][0]["watershed_id"], "WS-1");
    let froms: Vec<&str> = rw["by_network"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["from"].as_str().unwrap())
        .collect();
    assert_eq!(froms, ["C-1", "C-2"]);
    assert_eq!(rw["listed"][0]["water_id"], "W-1");
    assert_eq!(rw["tmdl_areas"][0]["tmdl_id"], "T-1");
    // North Castle: enhanced phosphorus indicated by the phosphorus TMDL overlap.
    let reqs = d["determination"]["requirements"].as_array().unwrap();
    let ep = reqs
        .iter()
        .find(|r| r["result"]["kind"] == "enhanced_phosphorus")
        .unwrap();
    assert_ne!(ep["result"]["status"], "does_not_apply", "{ep}");

    let carmel = build(dir.path(), "carmel-ny");
    let d = det(
        &carmel,
        "2.5acres",
        &["--single-family", "false", "--agricultural", "false"],
    );
    let c = &d["determination"]["conditions"];
    assert_eq!(c["condition_one"]["result"], true);
    assert!(c["condition_one"]["evidence"].to_string().contains("W-1"));
    assert_eq!(c["condition_two"]["result"], false);
    assert_eq!(c["condition_three"]["result"], true);
    // Not given, the exclusions leave Condition Three undetermined (issue 8 item 8).
    let d = det(&carmel, "2.5acres", &[]);
    assert!(d["determination"]["conditions"]["condition_three"]["result"].is_null());
    let d = det(&carmel, "2.5acres", &["--single-family"]);
    assert_eq!(
        d["determination"]["conditions"]["condition_three"]["result"],
        false
    );
    let d = det(&carmel, "5acres", &["--single-family"]);
    assert_eq!(
        d["determination"]["conditions"]["condition_two"]["result"],
        true
    );
    let out = run(
        &carmel,
        &["determine", "--parcel", "P-NONE", "--disturbed", "1acre"],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no parcel \"P-NONE\""));
}

#[test]
fn watershed_inspection_list_puts_the_priority_area_and_due_facilities_first() {
    let dir = tempfile::tempdir().unwrap();
    let nc = build(dir.path(), "north-castle-ny");
    let json = run_ok(
        &nc,
        &[
            "watershed-facilities",
            "WS-1",
            "--hot-spot-distance",
            "160ft",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let list = &v["list"];
    assert_eq!(list["drains_to"], "W-1");
    assert_eq!(list["drains_to_303d"], true);
    assert_eq!(list["priority_area"], true);
    let ids: Vec<(&str, u64)> = list["facilities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap(), f["score"].as_u64().unwrap()))
        .collect();
    // CB-1 lies 150 ft from the industrial and the commercial parcel: a hot spot at 160 ft.
    assert_eq!(ids, [("CB-1", 3), ("OF-1", 1)]);
    let none = run(&nc, &["watershed-facilities", "WS-9"]);
    assert!(String::from_utf8_lossy(&none.stderr).contains("no watershed \"WS-9\""));
}

#[test]
fn traces_reach_the_water_downstream_and_the_connections_and_parcels_upstream() {
    let dir = tempfile::tempdir().unwrap();
    let nc = build(dir.path(), "north-castle-ny");
    let down: serde_json::Value = serde_json::from_str(&run_ok(
        &nc,
        &["trace", "CB-1", "--downstream", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(down["trace"]["outfalls"][0]["outfall"], "OF-1");
    assert_eq!(
        down["trace"]["outfalls"][0]["path"],
        serde_json::json!(["CB-1", "PI-1", "OF-1"])
    );
    assert_eq!(down["receiving_waters"][0]["water_id"], "W-1");
    assert_eq!(
        down["receiving_waters"][0]["found_by"],
        "the outfall's receiving_water_id"
    );
    let up: serde_json::Value = serde_json::from_str(&run_ok(
        &nc,
        &["trace", "OF-1", "--upstream", "--format", "json"],
    ))
    .unwrap();
    let mut structures: Vec<&str> = up["trace"]["structures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    structures.sort();
    assert_eq!(structures, ["CB-1", "OF-1"]);
    // C-1 and C-2 end within the 1 ft snap tolerance of CB-1; C-3 and C-4 stop 2 ft short.
    let conns: Vec<&str> = up["connections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["connection_id"].as_str().unwrap())
        .collect();
    assert_eq!(conns, ["C-1", "C-2"]);
    let out = run(&nc, &["trace", "NOPE", "--upstream"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("\"NOPE\" is neither a structure nor a pipe")
    );

    let rw: serde_json::Value = serde_json::from_str(&run_ok(
        &nc,
        &["receiving-waters", "--parcel", "P-RES", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(rw["by_watershed"][0]["share"], 1.0);
    assert!(rw["by_network"].as_array().unwrap().is_empty());
    assert_eq!(
        rw["unresolved"],
        serde_json::json!(["C-3", "C-4"]),
        "their MS4 ends meet nothing"
    );
    assert!(
        rw["tmdl_areas"].as_array().unwrap().is_empty(),
        "T-1 covers P-IND only; they share an edge"
    );
}

#[test]
fn screening_every_parcel_finds_condition_one_where_the_watershed_drains_to_a_listed_water() {
    let dir = tempfile::tempdir().unwrap();
    let carmel = build(dir.path(), "carmel-ny");
    let v: serde_json::Value = serde_json::from_str(&run_ok(
        &carmel,
        &["screen", "--disturbed", "1.5acres", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(
        (v["parcels"].as_u64(), v["met"].as_u64()),
        (Some(3), Some(3))
    );
    let v: serde_json::Value = serde_json::from_str(&run_ok(
        &carmel,
        &["screen", "--disturbed", "4000sqft", "--format", "json"],
    ))
    .unwrap();
    assert_eq!(
        v["met"], 0,
        "under 5,000 sq ft it is no land development activity"
    );
    let nc = build(dir.path(), "north-castle-ny");
    let out = run(&nc, &["screen", "--disturbed", "1acre"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("has no Condition One"));
}

/// `screen --whole` gives each parcel the determination `determine --parcel` gives it for
/// the same project (but for the ways Condition One's waters are reached: the screen's are
/// by watershed only), and its table says whether the post-construction controls follow.
#[test]
fn screening_whole_gives_each_parcel_the_determination_it_has_alone() {
    let dir = tempfile::tempdir().unwrap();
    let carmel = build(dir.path(), "carmel-ny");
    for disturbed in ["1.5acres", "4000sqft"] {
        let json = |args: &[&str]| -> serde_json::Value {
            serde_json::from_str(&run_ok(&carmel, args)).unwrap()
        };
        let whole = json(&[
            "screen",
            "--disturbed",
            disturbed,
            "--all",
            "--whole",
            "--format",
            "json",
        ]);
        let alone = json(&[
            "screen",
            "--disturbed",
            disturbed,
            "--all",
            "--format",
            "json",
        ]);
        let results = whole["results"].as_array().unwrap();
        assert_eq!(results.len(), 3, "{whole}");
        for (i, r) in results.iter().enumerate() {
            let id = r["parcel_id"].as_str().unwrap();
            let one = json(&[
                "determine",
                "--parcel",
                id,
                "--disturbed",
                disturbed,
                "--format",
                "json",
            ]);
            // The screen reads waters by watershed overlap only; `determine` also traces
            // the parcel's connections, so its Condition One may name more ways the
            // runoff reaches the water. Here both reach it, or neither does; all else is
            // the same answer.
            let (mut screened, mut asked) =
                (r["determination"].clone(), one["determination"].clone());
            let c1 = |d: &mut serde_json::Value| d["conditions"]["condition_one"].take();
            let (screened_one, asked_one) = (c1(&mut screened), c1(&mut asked));
            assert_eq!(screened, asked, "{disturbed} at {id}");
            assert_eq!(
                screened_one["result"], asked_one["result"],
                "{disturbed} at {id}"
            );
            assert_eq!(screened_one, r["condition_one"], "{disturbed} at {id}");
            assert_eq!(r["condition_one"], alone["results"][i]["condition_one"]);
            assert!(alone["results"][i].get("determination").is_none());
        }
    }
    let table = run_ok(&carmel, &["screen", "--disturbed", "1.5acres", "--whole"]);
    assert!(table.contains("post_construction_controls"), "{table}");
    assert!(table.contains("applies"), "{table}");
}
