//! Determinations (issue 8, items 8-13) on a small hand-made town, written as GeoJSON
//! files and imported through the CLI, asked per jurisdiction through the CLI and through
//! `/api` on both stores. Each case is at the law's words, with its counter-case.

mod common;
#[path = "determinations/duties.rs"]
mod duties;

use std::path::Path;

use common::*;
use rstest::rstest;
use serde_json::Value;

const X0: f64 = 670_000.0;
const Y0: f64 = 870_000.0;

fn parcel(id: &str, x: f64, y: f64) -> String {
    feature(
        &format!(r#""parcel_id":"{id}","land_use":"210""#),
        &rect(x, y, 300.0, 300.0),
    )
}

fn watershed(id: &str, drains_to: &str, x: f64, y: f64, w: f64, h: f64) -> String {
    feature(
        &format!(r#""watershed_id":"{id}","drains_to":"{drains_to}""#),
        &rect(x, y, w, h),
    )
}

fn water(props: &str, x: f64) -> String {
    feature(props, &line(&[(x, Y0 + 2000.0), (x + 300.0, Y0 + 2000.0)]))
}

/// The town: one parcel per situation, 300 ft square (90,000 sq ft), each in its own
/// watershed.
/// - P-IN: WS-1 drains to W-1, listed for phosphorus in the 2022 cycle.
/// - P-OUT: no watershed, no inlet, no connection: no evidence where its runoff goes.
/// - P-SLIVER: mostly in WS-9 (to unlisted W-9); WS-2 (to W-2, listed for sediment)
///   overlaps it by 0.2 ft x 300 ft = 60 sq ft, a sliver. P-WIDE overlaps WS-2 by 9,060 sq ft.
/// - P-FALSE: WS-3 drains to W-3, whose record says listed_303d = false though an
///   impairment row names it.
/// - P-OLD: WS-6 drains to W-6, listed only in the 2018 cycle.
/// - P-DOWN: WS-4 drains to W-4 (unlisted), which flows to W-5 (listed for sediment).
/// - P-TMDL: WS-7 drains to W-7 (unlisted), which sediment TMDL T-9 names as covered; the
///   TMDL's polygon lies far away.
fn build(dir: &Path, jurisdiction: &str, url: Option<String>) -> String {
    let x = |i: f64| X0 + 2000.0 * i;
    let files: Vec<(&str, String)> = vec![
        (
            "parcels",
            fc(&[
                parcel("P-IN", x(0.0), Y0),
                parcel("P-OUT", x(1.0), Y0),
                parcel("P-SLIVER", x(2.0), Y0),
                parcel("P-WIDE", x(2.0) + 30.0, Y0 + 400.0),
                parcel("P-FALSE", x(3.0), Y0),
                parcel("P-OLD", x(4.0), Y0),
                parcel("P-DOWN", x(5.0), Y0),
                parcel("P-TMDL", x(6.0), Y0),
            ]),
        ),
        (
            "receiving_waters",
            fc(&[
                water(r#""water_id":"W-1","name":"Byram River""#, x(0.0)),
                water(r#""water_id":"W-2","name":"Sliver Brook""#, x(2.0)),
                water(
                    r#""water_id":"W-3","name":"Delisted Creek","listed_303d":"N""#,
                    x(3.0),
                ),
                water(
                    r#""water_id":"W-4","name":"Upper Run","flows_to":"W-5""#,
                    x(5.0),
                ),
                water(r#""water_id":"W-5","name":"Lower Run""#, x(5.0) + 500.0),
                water(r#""water_id":"W-6","name":"Old Pond""#, x(4.0)),
                water(r#""water_id":"W-7","name":"Covered Lake""#, x(6.0)),
                water(r#""water_id":"W-9","name":"Clean Brook""#, x(2.0) + 500.0),
            ]),
        ),
        (
            "watersheds",
            fc(&[
                watershed("WS-1", "W-1", x(0.0) - 50.0, Y0 - 50.0, 400.0, 400.0),
                watershed("WS-9", "W-9", x(2.0) - 100.0, Y0 - 100.0, 399.8, 1000.0),
                watershed("WS-2", "W-2", x(2.0) + 299.8, Y0 - 100.0, 400.0, 1000.0),
                watershed("WS-3", "W-3", x(3.0) - 50.0, Y0 - 50.0, 400.0, 400.0),
                watershed("WS-6", "W-6", x(4.0) - 50.0, Y0 - 50.0, 400.0, 400.0),
                watershed("WS-4", "W-4", x(5.0) - 50.0, Y0 - 50.0, 400.0, 400.0),
                watershed("WS-7", "W-7", x(6.0) - 50.0, Y0 - 50.0, 400.0, 400.0),
            ]),
        ),
        (
            "tmdl_areas",
            fc(&[feature(
                r#""tmdl_id":"T-9","pollutant":"sediment","stormwater_source":1,"waters":"W-7""#,
                &rect(x(9.0), Y0, 300.0, 300.0),
            )]),
        ),
    ];
    let url = url.unwrap_or_else(|| {
        format!(
            "sqlite://{}",
            dir.join(format!("{jurisdiction}.gpkg")).display()
        )
    });
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
        let r: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(r["rejected"], 0, "{layer}: {json}");
    }
    let imp = dir.join("impairments.csv");
    std::fs::write(
        &imp,
        "water_id,pollutant,cycle\nW-1,Phosphorus,2022\nW-2,Sediment,2022\nW-3,Sediment,2022\nW-5,Sediment,2022\nW-6,Sediment,2018\n",
    )
    .unwrap();
    run_ok(&url, &["import", "impairments", imp.to_str().unwrap()]);
    url
}

fn det(url: &str, parcel: &str, area: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "determine",
        "--parcel",
        parcel,
        "--disturbed",
        area,
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let v: Value = serde_json::from_str(&run_ok(url, &args)).unwrap();
    v["determination"].clone()
}

fn status(d: &Value, kind: &str) -> String {
    d["requirements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["result"]["kind"] == kind)
        .unwrap_or_else(|| panic!("no requirement {kind}: {d}"))["result"]["status"]
        .as_str()
        .unwrap()
        .to_string()
}

fn reasons(f: &Value) -> String {
    f["reasons"].to_string()
}

fn open(d: &Value) -> String {
    d["open_facts"].to_string()
}

#[test]
fn item8_carmel_156_80_exempt_activities_tri_state_facts_and_their_counter_cases() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    // Not given: listed as not evaluated, for want of facts (agricultural activity and
    // routine maintenance included), and not exempt.
    let d = det(&c, "P-FALSE", "0.5acre", &[]);
    assert_eq!(d["exempt"]["result"], false);
    let r = reasons(&d["exempt"]);
    for item in [
        "not evaluated, for want of facts",
        "agricultural activity",
        "routine maintenance under five acres",
        "silvicultural activity",
        "December 17, 2008",
    ] {
        assert!(r.contains(item), "{item}: {r}");
    }
    // (fact flags, exempt?, the not-evaluated list must no longer name)
    let cases: &[(&[&str], bool, &str)] = &[
        (&["--agricultural-activity"], true, "agricultural activity;"),
        (
            &["--agricultural-activity", "false"],
            false,
            "agricultural activity;",
        ),
        (&["--silviculture"], true, "silvicultural activity (except"),
        (
            &["--silviculture=false"],
            false,
            "silvicultural activity (except",
        ),
        (
            &["--routine-maintenance"],
            true,
            "routine maintenance under",
        ),
        (
            &["--routine-maintenance", "false"],
            false,
            "routine maintenance under",
        ),
        (
            &["--plat-approved-on", "2008-12-17"],
            true,
            "plat the Planning Board",
        ),
        (
            &["--plat-approved-on", "2008-12-18"],
            false,
            "plat the Planning Board",
        ),
        (
            &["--building-permit-approved-on", "2008-12-17"],
            true,
            "a building permit approved",
        ),
        (
            &["--building-permit-approved-on", "2009-01-02"],
            false,
            "a building permit approved",
        ),
    ];
    for (flags, exempt, gone) in cases {
        let d = det(&c, "P-FALSE", "0.5acre", flags);
        assert_eq!(
            d["exempt"]["result"],
            *exempt,
            "{flags:?}: {}",
            reasons(&d["exempt"])
        );
        let r = reasons(&d["exempt"]);
        let listed = r
            .split("not evaluated, for want of facts")
            .nth(1)
            .unwrap_or_default();
        assert!(!listed.contains(gone), "{flags:?}: {r}");
        let swppp = if *exempt { "does_not_apply" } else { "applies" };
        assert_eq!(status(&d, "swppp"), swppp, "{flags:?}");
    }
    // Routine maintenance at five acres or more is not exempt (§ 156-80: "less than five acres").
    let d = det(&c, "P-FALSE", "5acres", &["--routine-maintenance"]);
    assert_eq!(d["exempt"]["result"], false, "{}", reasons(&d["exempt"]));
    // An agricultural property is not agricultural activity.
    let d = det(&c, "P-FALSE", "0.5acre", &["--agricultural"]);
    assert_eq!(d["exempt"]["result"], false);
}

#[test]
fn item8_facility_eoh_construction_permit_and_north_castle_267_3_facts() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    // Carmel § 156-86: the facility fact decides the easement when no Condition is met.
    for (flags, want) in [
        (&[][..], "depends"),
        (
            &["--requires-stormwater-management-facility"][..],
            "applies",
        ),
        (
            &["--requires-stormwater-management-facility", "false"][..],
            "does_not_apply",
        ),
    ] {
        let d = det(&c, "P-FALSE", "0.5acre", flags);
        assert_eq!(status(&d, "maintenance_easement"), want, "{flags:?}");
    }
    let dir2 = tempfile::tempdir().unwrap();
    let nc = build(dir2.path(), "north-castle-ny", None);
    // § 267-4B: routine maintenance is not a land development activity.
    let d = det(&nc, "P-FALSE", "0.5acre", &["--routine-maintenance"]);
    assert_eq!(d["land_development_activity"]["result"], false);
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--routine-maintenance", "false"],
    );
    assert_eq!(d["land_development_activity"]["result"], true);
    let d = det(&nc, "P-FALSE", "0.5acre", &[]);
    assert!(reasons(&d["land_development_activity"]).contains("not evaluated, for want of facts"));
    // § 267-3C(5)-(6) and § 267-3D(2): listed when not given; a completed project is
    // outside; a plat date waits for the effective date's confirmation (AMB-14).
    let d = det(&nc, "P-FALSE", "0.5acre", &[]);
    let r = reasons(&d["exempt"]);
    assert!(
        r.contains("§ 267-3C(5)") && r.contains("§ 267-3C(6)"),
        "{r}"
    );
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--completed-before-effective-date"],
    );
    assert_eq!(d["exempt"]["result"], true);
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--completed-before-effective-date", "false"],
    );
    assert_eq!(d["exempt"]["result"], false);
    // Issue 25 item 17: a plat approved before the chapter's adoption is exempt whatever
    // its unconfirmed effective date; one approved later depends on that date.
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--plat-approved-on", "2007-01-01"],
    );
    assert_eq!(d["exempt"]["result"], true);
    assert!(!open(&d).contains("AMB-14"), "{}", open(&d));
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--plat-approved-on", "2008-01-02"],
    );
    assert_eq!(d["exempt"]["result"], Value::Null);
    assert!(open(&d).contains("AMB-14"), "{}", open(&d));
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--approved-before-effective-date"],
    );
    assert!(open(&d).contains("§ 267-3C(6)"), "{}", open(&d));

    let dir3 = tempfile::tempdir().unwrap();
    let w = build(dir3.path(), "windsor-ct", None);
    for (flags, want) in [
        (&["--construction-permit"][..], "applies"),
        (&["--construction-permit", "false"][..], "does_not_apply"),
        (&[][..], "depends"),
    ] {
        let d = det(&w, "P-FALSE", "0.2acre", flags);
        assert_eq!(status(&d, "premises_inspection"), want, "{flags:?}");
    }
}

#[test]
fn item9_carmel_156_81c1_no_evidence_is_undetermined_and_what_follows_depends() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    let d = det(&c, "P-OUT", "0.5acre", &[]);
    let c1 = &d["conditions"]["condition_one"];
    assert!(c1["result"].is_null(), "{c1}");
    assert!(reasons(c1).contains("undetermined"), "{c1}");
    assert!(open(&d).contains("receiving water"), "{}", open(&d));
    for kind in [
        "post_construction_controls",
        "condition_one_preparer_certification",
        "construction_inspections",
    ] {
        assert_eq!(status(&d, kind), "depends", "{kind}");
    }
    // Counter-case: the runoff reaches a water, which is not listed: not met.
    let d = det(&c, "P-FALSE", "0.5acre", &[]);
    assert_eq!(d["conditions"]["condition_one"]["result"], false);
    assert_eq!(status(&d, "post_construction_controls"), "does_not_apply");
    // The table says so in words.
    let out = run_ok(
        &c,
        &["determine", "--parcel", "P-OUT", "--disturbed", "0.5acre"],
    );
    assert!(out.contains("Condition One: undetermined"), "{out}");
}

#[test]
fn item10_carmel_amb30_explicit_false_and_the_list_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    // listed_303d = false is not overridden by W-3's impairment row.
    let d = det(&c, "P-FALSE", "0.5acre", &[]);
    let c1 = &d["conditions"]["condition_one"];
    assert_eq!(c1["result"], false, "{c1}");
    assert!(reasons(c1).contains("listed_303d = false"), "{c1}");
    // Counter-case: W-1 has no flag and a 2022 row: listed, and the cycle is recorded.
    let d = det(&c, "P-IN", "0.5acre", &[]);
    let c1 = &d["conditions"]["condition_one"];
    assert_eq!(c1["result"], true, "{c1}");
    assert!(reasons(c1).contains("2022 list cycle"), "{c1}");
    assert!(c1["evidence"]
        .to_string()
        .contains("303(d) list cycle used: 2022"));
    // W-6 is listed only in 2018; the profile reads the latest cycle (2022).
    let d = det(&c, "P-OLD", "0.5acre", &[]);
    let c1 = &d["conditions"]["condition_one"];
    assert_eq!(c1["result"], false, "{c1}");
    assert!(reasons(c1).contains("only in cycle(s) 2018"), "{c1}");
}

#[test]
fn item11_carmel_amb07_a_sliver_goes_to_review_a_real_overlap_counts() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    let v: Value = serde_json::from_str(&run_ok(
        &c,
        &[
            "determine",
            "--parcel",
            "P-SLIVER",
            "--disturbed",
            "0.5acre",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let ws2 = v["receiving_waters"]["by_watershed"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["watershed_id"] == "WS-2")
        .cloned()
        .expect("the sliver is reported");
    assert_eq!(ws2["counted"], false);
    let c1 = &v["determination"]["conditions"]["condition_one"];
    assert!(c1["result"].is_null(), "{c1}");
    assert!(reasons(c1).contains("sliver"), "{c1}");
    assert!(open(&v["determination"]).contains("review"));
    // Counter-case: P-WIDE overlaps WS-2 by 10%: W-2 is reached and Condition One met.
    let d = det(&c, "P-WIDE", "0.5acre", &[]);
    assert_eq!(d["conditions"]["condition_one"]["result"], true, "{d}");
}

#[test]
fn item12_carmel_156_81c1_downstream_waters_and_tmdl_covered_waters() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    // W-4 flows to W-5, listed: met, and the answer says how far it went.
    let d = det(&c, "P-DOWN", "0.5acre", &[]);
    let c1 = &d["conditions"]["condition_one"];
    assert_eq!(c1["result"], true, "{c1}");
    let r = reasons(c1);
    assert!(
        r.contains("W-4 → W-5") && r.contains("1 of at most 10 steps"),
        "{r}"
    );
    // T-9 names W-7 as covered: met although its polygon is far away.
    let d = det(&c, "P-TMDL", "0.5acre", &[]);
    let c1 = &d["conditions"]["condition_one"];
    assert_eq!(c1["result"], true, "{c1}");
    assert!(reasons(c1).contains("covers water W-7"), "{c1}");
    // Counter-case: W-9 flows nowhere and no TMDL names it (P-SLIVER without the sliver
    // is P-FALSE's situation): not met.
    let d = det(&c, "P-FALSE", "0.5acre", &[]);
    assert_eq!(d["conditions"]["condition_one"]["result"], false);
}

/// North Castle § 267-5A: the NYC East of Hudson Watershed decides the permit indicator at
/// 5,000 sq ft, with the larger common plan (the permit counts a plan's whole disturbance):
/// outside the watershed and not given whether it is part of a plan, the permit depends.
#[test]
fn north_castle_east_of_hudson_and_the_plan_decide_the_permit_indicator() {
    let dir = tempfile::tempdir().unwrap();
    let nc = build(dir.path(), "north-castle-ny", None);
    for (flags, want) in [
        (&["--in-nyc-east-of-hudson-watershed"][..], "indicated"),
        (
            &[
                "--in-nyc-east-of-hudson-watershed",
                "false",
                "--larger-common-plan",
                "false",
            ][..],
            "does_not_apply",
        ),
        (
            &["--in-nyc-east-of-hudson-watershed", "false"][..],
            "depends",
        ),
        (&[][..], "depends"),
    ] {
        let d = det(&nc, "P-FALSE", "5000sqft", flags);
        assert_eq!(status(&d, "construction_general_permit"), want, "{flags:?}");
    }
}
