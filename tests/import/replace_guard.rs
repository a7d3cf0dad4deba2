//! `--replace` with an empty file, or with a file that carries a small part of the
//! layer: refused unless asked for explicitly, and the dry run lists what would go.

use super::*;

fn ten_outfalls(store: &str, dir: &std::path::Path) {
    let ids: Vec<String> = (1..=10).map(|i| format!("OF-{i:02}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let f = dir.join("ten.geojson");
    std::fs::write(&f, north_castle_points(&refs)).unwrap();
    run_ok(store, &["import", "outfalls", f.to_str().unwrap()]);
}

fn count(store: &str, dir: &std::path::Path) -> u64 {
    let out = run_ok(
        store,
        &[
            "export",
            "outfalls",
            dir.join("count.geojson").to_str().unwrap(),
        ],
    );
    out.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn replace_with_an_empty_file_is_refused_unless_allow_empty() {
    let (dir, store) = cli_registry();
    ten_outfalls(&store, dir.path());
    let empty = dir.path().join("empty.geojson");
    std::fs::write(&empty, r#"{"type":"FeatureCollection","features":[]}"#).unwrap();
    let e = empty.to_str().unwrap();
    let err = run_err(&store, &["import", "outfalls", e, "--replace"]);
    assert!(
        err.contains("empty.geojson")
            && err.contains("would delete all 10 features of outfalls")
            && err.contains("--allow-empty"),
        "{err}"
    );
    assert_eq!(count(&store, dir.path()), 10);
    // The dry run says what would go, and that the real import would be refused.
    let json = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            e,
            "--replace",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(r["deletes"].as_array().unwrap().len(), 10, "{json}");
    assert!(
        r["warnings"].to_string().contains("would be refused"),
        "{json}"
    );
    let table = run_ok(&store, &["import", "outfalls", e, "--replace", "--dry-run"]);
    assert!(table.contains("would delete 10: OF-01, OF-02"), "{table}");
    assert_eq!(count(&store, dir.path()), 10);

    let out = run_ok(
        &store,
        &["import", "outfalls", e, "--replace", "--allow-empty"],
    );
    assert!(out.contains("10 deleted"), "{out}");
    assert_eq!(count(&store, dir.path()), 0);
}

#[test]
fn replace_deleting_more_than_half_is_refused_unless_allow_mass_delete() {
    let (dir, store) = cli_registry();
    ten_outfalls(&store, dir.path());
    let few = dir.path().join("few.geojson");
    std::fs::write(
        &few,
        north_castle_points(&["OF-01", "OF-02", "OF-03", "OF-04"]),
    )
    .unwrap();
    let f = few.to_str().unwrap();
    let err = run_err(&store, &["import", "outfalls", f, "--replace"]);
    assert!(
        err.contains("few.geojson")
            && err.contains("delete 6 of the 10")
            && err.contains("--allow-mass-delete"),
        "{err}"
    );
    assert_eq!(count(&store, dir.path()), 10);
    // Half is within the share.
    let half = dir.path().join("half.geojson");
    std::fs::write(
        &half,
        north_castle_points(&["OF-01", "OF-02", "OF-03", "OF-04", "OF-05"]),
    )
    .unwrap();
    let out = run_ok(
        &store,
        &["import", "outfalls", half.to_str().unwrap(), "--replace"],
    );
    assert!(out.contains("5 deleted"), "{out}");
    let out = run_ok(
        &store,
        &["import", "outfalls", f, "--replace", "--allow-mass-delete"],
    );
    assert!(out.contains("1 deleted"), "{out}");
    assert_eq!(count(&store, dir.path()), 4);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn an_upload_replacing_with_nothing_needs_allow_empty_and_dry_runs_are_logged(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let n = reg.store.count(Layer::CatchBasins).await.unwrap();
    assert!(n > 0);
    let t = token(&reg.url, "analyst", "Careless Analyst", &[]);
    let server = App::new(&reg.store).await;
    let empty = br#"{"type":"FeatureCollection","features":[]}"#.to_vec();
    let (s, body) = upload(
        &server,
        &t,
        "catch_basins",
        "empty.geojson",
        empty.clone(),
        &[("replace", "true")],
    )
    .await;
    assert_eq!(s, 422, "{kind}: {body}");
    assert!(
        body["error"].as_str().unwrap().contains("allow_empty=true"),
        "{body}"
    );
    assert_eq!(
        reg.store.count(Layer::CatchBasins).await.unwrap(),
        n,
        "{kind}"
    );

    let (s, body) = upload(
        &server,
        &t,
        "catch_basins",
        "empty.geojson",
        empty.clone(),
        &[("replace", "true"), ("dry_run", "true")],
    )
    .await;
    assert_eq!(s, 200, "{kind}: {body}");
    assert_eq!(
        body["deletes"].as_array().unwrap().len() as u64,
        n,
        "{body}"
    );
    // The dry run is in the import log, with its actor and report.
    let audit = reg.store.audit(Some(Layer::CatchBasins), 1).await.unwrap();
    assert_eq!(audit[0].action, "import", "{audit:?}");
    assert_eq!(audit[0].actor, "Careless Analyst");
    assert_eq!(
        audit[0].after.as_ref().unwrap()["source"],
        "empty.geojson (dry run)"
    );
    assert_eq!(audit[0].after.as_ref().unwrap()["deleted"], 0);
    assert_eq!(
        reg.store.count(Layer::CatchBasins).await.unwrap(),
        n,
        "{kind}"
    );

    let (s, body) = upload(
        &server,
        &t,
        "catch_basins",
        "empty.geojson",
        empty,
        &[("replace", "true"), ("allow_empty", "true")],
    )
    .await;
    assert_eq!(s, 201, "{kind}: {body}");
    assert_eq!(
        reg.store.count(Layer::CatchBasins).await.unwrap(),
        0,
        "{kind}"
    );
}

/// A fresh registry through the CLI on a store kind (a GeoPackage, or a new PostGIS
/// database).
fn cli_registry_on(kind: &str) -> (tempfile::TempDir, String) {
    if kind == "sqlite" {
        return cli_registry();
    }
    let dir = tempfile::tempdir().unwrap();
    let store = fresh_pg_url("share").expect("postgis requested");
    run_ok(
        &store,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    (dir, store)
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
fn the_share_a_replace_may_delete_is_a_stored_registry_setting(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let (dir, store) = cli_registry_on(kind);
    ten_outfalls(&store, dir.path());
    let seven = dir.path().join("seven.geojson");
    let ids: Vec<String> = (1..=7).map(|i| format!("OF-{i:02}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    std::fs::write(&seven, north_castle_points(&refs)).unwrap();
    let f = seven.to_str().unwrap();

    let bad = run_err(&store, &["profile", "set", "max_delete_share", "1.5"]);
    assert!(bad.contains("not a share"), "{kind}: {bad}");
    let out = run_ok(&store, &["profile", "set", "max_delete_share", "20%"]);
    assert!(out.contains("max_delete_share set to 0.2"), "{kind}: {out}");

    // Three of ten (30%) is more than the 20% now allowed, in the import and in
    // the dry run's refusal alike.
    let err = run_err(&store, &["import", "outfalls", f, "--replace"]);
    assert!(
        err.contains("delete 3 of the 10")
            && err.contains("more than the 20% allowed")
            && err.contains("max_delete_share"),
        "{kind}: {err}"
    );
    assert_eq!(count(&store, dir.path()), 10, "{kind}");
    let json = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            f,
            "--replace",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&json).unwrap();
    let warnings = r["warnings"].to_string();
    assert!(
        warnings.contains("would be refused") && warnings.contains("the 20% allowed"),
        "{kind}: {json}"
    );
    assert_eq!(r["deletes"].as_array().unwrap().len(), 3, "{kind}: {json}");

    // Raised to 30%, the same replace goes ahead.
    run_ok(&store, &["profile", "set", "max_delete_share", "0.3"]);
    let out = run_ok(&store, &["import", "outfalls", f, "--replace"]);
    assert!(out.contains("3 deleted"), "{kind}: {out}");
    assert_eq!(count(&store, dir.path()), 7, "{kind}");
}
