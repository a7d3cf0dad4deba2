//! A fourth town that exists only as test data: Quarry Hollow, NY, a fictional town whose
//! profile (tests/fixtures/quarry-hollow) follows the NY model law with Conditions and the
//! model illicit-discharge ordinance, with its own threshold (4,000 sq ft), exempt list
//! (no landscape irrigation or lawn watering), sections (ch. 41) and readings (AMB-08
//! "matched", AMB-12 "plan_total_one_acre"). It goes through `init`, `import`, `illicit`,
//! `determine`, `screen`, `smps-without-easement` and the HTTP API on both stores with
//! no code of its own; and profiles with a misspelt reading, a role without a rule id or
//! a family not named are refused at `init` with file, key and line.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::path::Path;

use common::*;
use rstest::rstest;
use serde_json::Value;

const X0: f64 = 670_000.0;
const Y0: f64 = 870_000.0;
const ID: &str = "quarry-hollow-ny";

fn profile_text() -> String {
    std::fs::read_to_string(fixture("quarry-hollow/quarry-hollow-ny.toml")).unwrap()
}

fn conn(id: &str, kind: &str) -> String {
    feature(
        &format!(
            r#""connection_id":"{id}","discharge_kind":"{kind}","status":"active","parcel_id":"P-RES""#
        ),
        &line(&[(X0 + 50.0, Y0 + 100.0), (X0 + 100.0, Y0 + 400.0)]),
    )
}

/// The town's layers: a residential and a commercial parcel, one Town catch basin piped
/// to an outfall on a phosphorus-listed stream, two connections, one private SMP.
fn load_town(url: &str, dir: &Path) {
    let files = [
        (
            "parcels",
            fc(&[
                feature(
                    r#""parcel_id":"P-RES","land_use":"210""#,
                    &square(X0, Y0, 300.0),
                ),
                feature(
                    r#""parcel_id":"P-COM","land_use":"450""#,
                    &square(X0 + 400.0, Y0, 300.0),
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
            "receiving_waters",
            fc(&[feature(
                r#""water_id":"W-1","name":"Quarry Brook","listed_303d":true"#,
                &line(&[(X0 - 100.0, Y0 + 700.0), (X0 + 1000.0, Y0 + 700.0)]),
            )]),
        ),
        (
            "watersheds",
            fc(&[feature(
                r#""watershed_id":"WS-1","name":"Quarry Brook","drains_to":"W-1""#,
                &rect(X0 - 100.0, Y0 - 100.0, 1200.0, 900.0),
            )]),
        ),
        (
            "connections",
            fc(&[conn("C-LAWN", "lawn watering"), conn("C-SPR", "springs")]),
        ),
        (
            "smps",
            fc(&[feature(
                r#""asset_id":"SMP-1","practice_type":"bioretention","structural":true,"owner_kind":"private","status":"active""#,
                &square(X0 + 450.0, Y0 + 100.0, 30.0),
            )]),
        ),
    ];
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
    let path = dir.join("impairments.csv");
    std::fs::write(
        &path,
        "impairment_id,water_id,pollutant,cycle\nI-1,W-1,phosphorus,2022\n",
    )
    .unwrap();
    run_ok(url, &["import", "impairments", path.to_str().unwrap()]);
}

fn citations(f: &Value) -> String {
    f["citations"].to_string()
}

/// The illicit answer: lawn watering is not on this town's exempt list (it is on North
/// Castle's), springs are; both cite chapter 41.
fn check_illicit(v: &Value, via: &str) {
    let find = |id: &str| {
        v["connections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["connection_id"] == id)
            .unwrap_or_else(|| panic!("{via}: {id} missing: {v}"))["finding"]
            .clone()
    };
    let lawn = find("C-LAWN");
    assert_eq!(lawn["result"], "illicit", "{via}: {lawn}");
    assert!(
        citations(&lawn).contains("quarryhollow.illicit_connection.nonstormwater_conveyance"),
        "{via}: {lawn}"
    );
    assert!(citations(&lawn).contains("§ 41-"), "{via}: {lawn}");
    assert!(
        !lawn.to_string().contains("267-"),
        "{via}: another town's section: {lawn}"
    );
    let springs = find("C-SPR");
    assert_eq!(springs["result"], "ok", "{via}: {springs}");
    assert!(
        springs["reasons"].to_string().contains("exempt list"),
        "{via}: {springs}"
    );
}

/// The determination: 4,500 sq ft is a land development activity at this town's
/// 4,000 sq ft (not at the model law's 5,000), citing § 41-1.
fn check_determination(answer: &Value, via: &str) {
    let d = &answer["determination"];
    assert_eq!(d["jurisdiction"], ID, "{via}: {answer}");
    let lda = &d["land_development_activity"];
    assert_eq!(lda["result"], true, "{via}: {lda}");
    assert!(
        citations(lda).contains("quarryhollow.lda.applicability"),
        "{via}: {lda}"
    );
    assert!(citations(lda).contains("§ 41-1"), "{via}: {lda}");
    assert!(
        lda["reasons"].to_string().contains("4,000 sq ft"),
        "{via}: {lda}"
    );
    // AMB-08 "matched": a phosphorus listing does not meet Condition One by itself.
    let c1 = &d["conditions"]["condition_one"];
    assert_ne!(c1["result"], true, "{via}: {c1}");
    assert!(
        c1["assumptions"].to_string().contains("AMB-08"),
        "{via}: {c1}"
    );
    assert!(
        citations(c1).contains("quarryhollow.condition_one"),
        "{via}: {c1}"
    );
    assert!(
        !d.to_string().contains("carmel."),
        "{via}: another town's rule: {d}"
    );
    // Reasons and duty summaries quote this town's law, offices and sections, from its
    // profile's [wording], never a model town's.
    let text = d.to_string();
    for other in [
        "156-",
        "267",
        "Putnam",
        "Carmel",
        "North Castle",
        "Article X",
    ] {
        assert!(
            !text.contains(other),
            "{via}: another town's wording {other:?}: {d}"
        );
    }
    let summary = |kind: &str| {
        d["requirements"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["result"]["kind"] == kind)
            .unwrap_or_else(|| panic!("{via}: no {kind} requirement: {d}"))["result"]["summary"]
            .to_string()
    };
    assert!(summary("swppp").contains("(§ 41-2A-B)"), "{via}: {d}");
    assert!(
        summary("swppp").contains("the chapter's specifications"),
        "{via}: {d}"
    );
    let easement = summary("maintenance_easement");
    assert!(
        easement.contains("Granite County Clerk")
            && easement.contains("the Town Attorney")
            && easement.contains("(§ 41-7)"),
        "{via}: {easement}"
    );
    assert!(
        summary("maintenance_agreement").contains("(§ 41-6)"),
        "{via}: {d}"
    );
    assert!(summary("fees").contains("(§ 41-10)"), "{via}: {d}");
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_fourth_town_as_data_goes_through_every_question_on_both_stores(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", work.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("fourth").expect("postgis requested"),
    };
    let dir = fixture("quarry-hollow").display().to_string();
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            ID,
            "--crs",
            "EPSG:2260",
            "--profiles",
            &dir,
        ],
    );
    load_town(&url, work.path());

    let v: Value = serde_json::from_str(&run_ok(
        &url,
        &[
            "illicit",
            "--status",
            "illicit,needs_review,ok,not_covered",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    check_illicit(&v, &format!("{kind} cli"));

    let d: Value = serde_json::from_str(&run_ok(
        &url,
        &[
            "determine",
            "--parcel",
            "P-COM",
            "--disturbed",
            "4500sqft",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    check_determination(&d, &format!("{kind} cli"));

    let s: Value = serde_json::from_str(&run_ok(
        &url,
        &[
            "screen",
            "--disturbed",
            "1acre",
            "--all",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    assert_eq!(s["parcels"], 2, "{kind}: {s}");
    assert_eq!(s["met"], 0, "{kind}: AMB-08 matched: {s}");
    assert!(
        s["results"]
            .to_string()
            .contains("quarryhollow.condition_one"),
        "{kind}: {s}"
    );

    let m: Value = serde_json::from_str(&run_ok(
        &url,
        &["smps-without-easement", "--format", "json"],
    ))
    .unwrap();
    let smp = m["smps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["smp_id"] == "SMP-1")
        .unwrap_or_else(|| panic!("{kind}: SMP-1 not flagged: {m}"));
    assert_eq!(smp["finding"]["result"], "missing", "{kind}: {smp}");
    assert!(
        citations(&smp["finding"]).contains("quarryhollow.maintenance_easement"),
        "{kind}: {smp}"
    );
    assert!(
        citations(&smp["finding"]).contains("§ 41-"),
        "{kind}: {smp}"
    );

    let rules: Value =
        serde_json::from_str(&run_ok(&url, &["profile", "rules", "--format", "json"])).unwrap();
    assert_eq!(
        rules["family"]["land_development"], "ny-conditions",
        "{kind}"
    );
    assert!(
        rules["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["rule"] == "quarryhollow.condition_one"
                && r["roles"][0] == "condition_one"
                && r["decided_in"][0] == "ms4::rules::determine::conditions"),
        "{kind}: {rules}"
    );

    // The same over HTTP.
    let store = ms4::store::open(&url).await.unwrap();
    let app = App::public(&store).await;
    let v: Value = app
        .get("/api/illicit?status=illicit,needs_review,ok,not_covered")
        .send()
        .await
        .json();
    check_illicit(&v, &format!("{kind} http"));
    let r = app
        .post("/api/determinations")
        .header("content-type", "application/json")
        .body(r#"{"parcel":"P-COM","disturbed":"4500sqft"}"#)
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 200, "{kind}");
    check_determination(&r.json(), &format!("{kind} http"));
}

/// Runs `init` on a profile changed by `edit` and returns the error it must print.
fn refused(edit: impl Fn(&str) -> String) -> String {
    let work = tempfile::tempdir().unwrap();
    let profiles = work.path().join("p");
    std::fs::create_dir(&profiles).unwrap();
    let text = edit(&profile_text());
    assert_ne!(text, profile_text(), "the edit applies");
    std::fs::write(profiles.join(format!("{ID}.toml")), &text).unwrap();
    let url = format!("sqlite://{}", work.path().join("r.gpkg").display());
    let out = run(
        &url,
        &[
            "init",
            "--jurisdiction",
            ID,
            "--crs",
            "EPSG:2260",
            "--profiles",
            profiles.to_str().unwrap(),
        ],
    );
    assert!(!out.status.success());
    assert!(!work.path().join("r.gpkg").exists(), "nothing is created");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The 1-based line of the first line of the fixture starting with `start`.
fn line_of(start: &str) -> usize {
    profile_text()
        .lines()
        .position(|l| l.starts_with(start))
        .unwrap_or_else(|| panic!("no line {start:?}"))
        + 1
}

#[test]
fn a_profile_with_a_misspelt_reading_a_role_without_a_rule_or_an_unnamed_family_is_refused() {
    let file = format!("{ID}.toml");
    // A misspelt reading.
    let err = refused(|t| {
        t.replacen(
            "setting = \"plan_total_one_acre\"",
            "setting = \"plan_total_one_acer\"",
            1,
        )
    });
    let want = format!("line {}", line_of("setting = \"plan_total_one_acre\""));
    assert!(
        err.contains(&file)
            && err.contains("assumptions.AMB-12.setting")
            && err.contains("plan_total_one_acer")
            && err.contains(&want),
        "{err}"
    );
    // A role the family decides, without a rule id.
    let err = refused(|t| t.replacen("condition_two = \"quarryhollow.condition_two\"\n", "", 1));
    let want = format!("line {}", line_of("[roles]"));
    assert!(
        err.contains(&file) && err.contains("roles.condition_two") && err.contains(&want),
        "{err}"
    );
    // A role naming a rule the profile does not list.
    let err = refused(|t| {
        t.replacen(
            "condition_two = \"quarryhollow.condition_two\"",
            "condition_two = \"quarryhollow.condition_2\"",
            1,
        )
    });
    let want = format!("line {}", line_of("condition_two = "));
    assert!(
        err.contains("roles.condition_two")
            && err.contains("quarryhollow.condition_2")
            && err.contains(&want),
        "{err}"
    );
    // A family it does not name, and one it names wrongly.
    let err = refused(|t| t.replacen("land_development = \"ny-conditions\"\n", "", 1));
    let want = format!("line {}", line_of("[family]"));
    assert!(
        err.contains(&file) && err.contains("family.land_development") && err.contains(&want),
        "{err}"
    );
    let err = refused(|t| {
        t.replacen(
            "land_development = \"ny-conditions\"",
            "land_development = \"ny-condition\"",
            1,
        )
    });
    let want = format!("line {}", line_of("land_development = "));
    assert!(
        err.contains("family.land_development")
            && err.contains("ny-condition")
            && err.contains(&want),
        "{err}"
    );
    // The AMB-14 reading: a key misspelt, a date that is not one, a key left out.
    let line = "setting = { effective_date = \"2008-12-17\", confirmed = true }";
    let want = format!("line {}", line_of(line));
    let err = refused(|t| {
        t.replacen(
            line,
            "setting = { effective_date = \"2008-12-17\", confirmd = true }",
            1,
        )
    });
    assert!(
        err.contains(&file)
            && err.contains("assumptions.AMB-14.setting")
            && err.contains("confirmd")
            && err.contains(&want),
        "{err}"
    );
    let err = refused(|t| {
        t.replacen(
            line,
            "setting = { effective_date = \"2008-13-17\", confirmed = true }",
            1,
        )
    });
    assert!(
        err.contains("assumptions.AMB-14.setting")
            && err.contains("2008-13-17")
            && err.contains(&want),
        "{err}"
    );
    let err = refused(|t| t.replacen(line, "setting = { effective_date = \"2008-12-17\" }", 1));
    assert!(
        err.contains("assumptions.AMB-14.setting")
            && err.contains("confirmed is missing")
            && err.contains(&want),
        "{err}"
    );
    // The AMB-30 reading: a misspelt cycle word.
    let line = "setting = { list_cycle = \"latest\" }";
    let want = format!("line {}", line_of(line));
    let err = refused(|t| t.replacen(line, "setting = { list_cycle = \"lastest\" }", 1));
    assert!(
        err.contains(&file)
            && err.contains("assumptions.AMB-30.setting")
            && err.contains("lastest")
            && err.contains(&want),
        "{err}"
    );
    // A section the family cites in its answers, not given.
    let err = refused(|t| t.replacen("fees = \"§ 41-10\"\n", "", 1));
    let want = format!("line {}", line_of("[wording.sections]"));
    assert!(
        err.contains(&file) && err.contains("wording.sections.fees") && err.contains(&want),
        "{err}"
    );
    // An unknown role.
    let err = refused(|t| {
        t.replacen(
            "[roles]\n",
            "[roles]\ncondition_four = \"quarryhollow.condition_two\"\n",
            1,
        )
    });
    assert!(
        err.contains("roles") && err.contains("condition_four"),
        "{err}"
    );
}
