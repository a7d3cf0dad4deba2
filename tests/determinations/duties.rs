//! The duties every project carries (item 13), the table in words (item 16), and items
//! 8 to 13 over HTTP against the CLI on both stores.

use super::*;

#[test]
fn item13_duties_of_every_project_carmel_156_81_83_89_and_north_castle_267_5_7() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    let small = det(&c, "P-FALSE", "0.5acre", &[]);
    let none = det(
        &c,
        "P-FALSE",
        "4000sqft",
        &["--larger-common-plan", "false"],
    );
    for (kind, inside) in [
        ("applicant_on_site", "applies"),
        ("disturbance_at_one_time", "applies"),
        ("contractor_certification", "applies"),
        ("swppp_on_site", "applies"),
        ("other_permits", "applies"),
        ("milestone_notices", "may_be_required"),
        ("stabilization_only_after_violation", "applies"),
        ("sediment_removal", "applies"),
        ("as_built_plans", "depends"),
        ("operation_and_maintenance", "depends"),
        ("fees", "may_be_required"),
    ] {
        assert_eq!(status(&small, kind), inside, "Carmel 0.5 acre {kind}");
        assert_eq!(
            status(&none, kind),
            "does_not_apply",
            "Carmel 4,000 sq ft {kind}"
        );
    }
    let d = det(
        &c,
        "P-FALSE",
        "0.5acre",
        &["--requires-stormwater-management-facility", "false"],
    );
    assert_eq!(status(&d, "as_built_plans"), "does_not_apply");
    let d = det(
        &c,
        "P-FALSE",
        "2acres",
        &["--single-family", "false", "--agricultural", "false"],
    );
    assert_eq!(
        status(&d, "as_built_plans"),
        "applies",
        "Condition Three met"
    );
    // Item 8: without the Condition Three exclusions, Condition Three is undetermined and
    // what follows from it depends on them.
    let d = det(&c, "P-FALSE", "2acres", &[]);
    assert_eq!(
        d["conditions"]["condition_three"]["result"],
        serde_json::Value::Null
    );
    assert_eq!(
        status(&d, "as_built_plans"),
        "depends",
        "Condition Three open"
    );
    let open = d["open_facts"].to_string();
    assert!(open.contains("single-family residence"), "{open}");

    let dir2 = tempfile::tempdir().unwrap();
    let nc = build(dir2.path(), "north-castle-ny", None);
    let small = det(&nc, "P-FALSE", "0.5acre", &[]);
    for (kind, want) in [
        ("trained_contractor_on_site", "applies"),
        ("disturbance_at_one_time", "applies"),
        ("contractor_certification", "applies"),
        ("swppp_on_site", "applies"),
        ("structural_practice_inspections", "depends"),
        ("fees", "may_be_required"),
        // § 267-7A(1): the permit's inspections, under one acre, depend on coverage.
        ("construction_inspections", "depends"),
        // Enhanced phosphorus depends while the permit's outcome is unknown.
        ("enhanced_phosphorus", "depends"),
    ] {
        assert_eq!(status(&small, kind), want, "NC 0.5 acre {kind}");
    }
    let d = det(&nc, "P-FALSE", "0.5acre", &["--gp-coverage"]);
    assert_eq!(status(&d, "construction_inspections"), "applies");
    let d = det(&nc, "P-FALSE", "0.5acre", &["--gp-coverage", "false"]);
    assert_eq!(status(&d, "construction_inspections"), "does_not_apply");
    assert_eq!(status(&d, "enhanced_phosphorus"), "does_not_apply");
    let d = det(&nc, "P-FALSE", "1.5acres", &[]);
    assert_eq!(
        status(&d, "construction_inspections"),
        "applies",
        "§ 267-7A(5)"
    );
    let d = det(
        &nc,
        "P-FALSE",
        "0.5acre",
        &["--gp-enhanced-phosphorus", "false"],
    );
    assert_eq!(status(&d, "enhanced_phosphorus"), "does_not_apply");
    let none = det(&nc, "P-FALSE", "4000sqft", &[]);
    assert_eq!(
        status(&none, "trained_contractor_on_site"),
        "does_not_apply"
    );
}

#[test]
fn item16_the_table_reads_in_words_and_fits_100_columns() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    let out = run_ok(
        &c,
        &["determine", "--parcel", "P-IN", "--disturbed", "2acres"],
    );
    assert!(out.contains("Post-construction controls: applies"), "{out}");
    assert!(!out.contains("PostConstructionControls"), "{out}");
    assert!(out.contains("*land development activity*"), "{out}");
    assert!(!out.contains("inferred"), "{out}");
    for l in out.lines() {
        // A single word longer than the width is the only excuse.
        assert!(
            l.chars().count() <= 100 || !l.trim().contains(' '),
            "{} columns: {l}",
            l.chars().count()
        );
    }
}

/// The same questions over `/api/determinations` on both stores equal the CLI's answers.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn items8_to_13_over_http_equal_the_cli_on_both_stores(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => None,
        _ => Some(fresh_pg_url("det").unwrap()),
    };
    let url = build(dir.path(), "carmel-ny", url);
    let store = ms4::store::open(&url).await.unwrap();
    let client = App::public(&store).await;
    let cases: &[(&str, &str, &[&str])] = &[
        (
            r#"{"parcel":"P-FALSE","disturbed":"0.5acre","agricultural_activity":true}"#,
            "P-FALSE",
            &["--agricultural-activity"],
        ),
        (
            r#"{"parcel":"P-FALSE","disturbed":"0.5acre","agricultural_activity":"false","routine_maintenance":false}"#,
            "P-FALSE",
            &[
                "--agricultural-activity",
                "false",
                "--routine-maintenance",
                "false",
            ],
        ),
        (
            r#"{"parcel":"P-FALSE","disturbed":"0.5acre","plat_approved_on":"2008-12-17"}"#,
            "P-FALSE",
            &["--plat-approved-on", "2008-12-17"],
        ),
        (
            r#"{"parcel":"P-OUT","disturbed":"0.5acre","requires_stormwater_management_facility":null}"#,
            "P-OUT",
            &[],
        ),
        (
            r#"{"parcel":"P-SLIVER","disturbed":"0.5acre"}"#,
            "P-SLIVER",
            &[],
        ),
        (
            r#"{"parcel":"P-DOWN","disturbed":"0.5acre"}"#,
            "P-DOWN",
            &[],
        ),
        (
            r#"{"parcel":"P-TMDL","disturbed":"0.5acre","silviculture":false}"#,
            "P-TMDL",
            &["--silviculture", "false"],
        ),
    ];
    for (body, parcel, flags) in cases {
        let r = client
            .post(format!("{}/api/determinations", client.base))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await;
        assert_eq!(r.status().as_u16(), 200, "{kind} {body}");
        let http: Value = r.json();
        let mut args = vec![
            "determine",
            "--parcel",
            parcel,
            "--disturbed",
            "0.5acre",
            "--format",
            "json",
        ];
        args.extend_from_slice(flags);
        let cli: Value = serde_json::from_str(&run_ok(&url, &args)).unwrap();
        assert_eq!(http, cli, "{kind} {body}");
    }
    // The facts as given decide the answer over HTTP too.
    let r: Value = client
        .post(format!("{}/api/determinations", client.base))
        .header("content-type", "application/json")
        .body(r#"{"parcel":"P-FALSE","disturbed":"0.5acre","agricultural_activity":true}"#)
        .send()
        .await
        .json();
    assert_eq!(r["determination"]["exempt"]["result"], true, "{kind}");
    let r: Value = client
        .post(format!("{}/api/determinations", client.base))
        .header("content-type", "application/json")
        .body(r#"{"parcel":"P-OUT","disturbed":"0.5acre"}"#)
        .send()
        .await
        .json();
    assert!(
        r["determination"]["conditions"]["condition_one"]["result"].is_null(),
        "{kind}"
    );
    let bad = client
        .post(format!("{}/api/determinations", client.base))
        .header("content-type", "application/json")
        .body(r#"{"parcel":"P-OUT","disturbed":"0.5acre","plat_approved_on":"last year"}"#)
        .send()
        .await;
    assert_eq!(
        bad.status().as_u16(),
        400,
        "{kind}: a bad date is the caller's error"
    );
}

/// Carmel § 156-80: under 5,000 sq ft and not given whether the project is part of a
/// larger common plan, the definition cannot say whether it is a land development
/// activity: each duty that binds one depends (none is said to apply, none not to).
#[test]
fn carmel_duties_depend_on_a_larger_common_plan_not_given() {
    let dir = tempfile::tempdir().unwrap();
    let c = build(dir.path(), "carmel-ny", None);
    let open = det(&c, "P-FALSE", "4000sqft", &[]);
    assert_eq!(open["land_development_activity"]["result"], Value::Null);
    assert!(open["open_facts"]
        .as_array()
        .unwrap()
        .contains(&Value::from("larger_common_plan")));
    for kind in [
        "applicant_on_site",
        "disturbance_at_one_time",
        "swppp_on_site",
        "milestone_notices",
        "fees",
    ] {
        assert_eq!(
            status(&open, kind),
            "depends",
            "Carmel 4,000 sq ft, the plan not given: {kind}"
        );
    }
}
