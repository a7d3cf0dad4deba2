//! The command line's errors name what was wrong and where.

mod common;

use common::*;

fn init_err(store: &str, args: &[&str]) -> String {
    let mut all = vec!["init"];
    all.extend_from_slice(args);
    let out = run(store, &all);
    assert!(!out.status.success(), "{args:?} should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn init_refuses_unknown_jurisdictions_geographic_crs_and_bad_profiles() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    let e = init_err(
        &store,
        &["--jurisdiction", "gotham-ny", "--crs", "EPSG:2260"],
    );
    assert!(
        e.contains("gotham-ny") && e.contains("north-castle-ny"),
        "{e}"
    );
    let e = init_err(
        &store,
        &["--jurisdiction", "carmel-ny", "--crs", "EPSG:4326"],
    );
    assert!(e.contains("EPSG:4326 is not a projected CRS"), "{e}");
    let e = init_err(&store, &["--jurisdiction", "carmel-ny", "--crs", "NAD83"]);
    assert!(e.contains("\"NAD83\" is not a CRS"), "{e}");

    // A town's own profile with a wrong unit: the message names the file and the key.
    let profiles = dir.path().join("profiles");
    std::fs::create_dir(&profiles).unwrap();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/jurisdictions/carmel-ny.toml"
    ))
    .unwrap();
    let bad = text.replacen("unit = \"sqft\"", "unit = \"sqm\"", 1);
    assert_ne!(bad, text);
    std::fs::write(profiles.join("carmel-ny.toml"), bad).unwrap();
    let e = init_err(
        &store,
        &[
            "--jurisdiction",
            "carmel-ny",
            "--crs",
            "EPSG:2260",
            "--profiles",
            profiles.to_str().unwrap(),
        ],
    );
    assert!(
        e.contains("carmel-ny.toml") && e.contains(".unit") && e.contains("sqm"),
        "{e}"
    );
    assert!(
        !dir.path().join("r.gpkg").exists(),
        "nothing was created by a failed init"
    );

    let ok = run_ok(
        &store,
        &["init", "--jurisdiction", "windsor-ct", "--crs", "EPSG:2234"],
    );
    assert!(ok.contains("Windsor") && ok.contains("ftUS"), "{ok}");
    let e = init_err(
        &store,
        &["--jurisdiction", "windsor-ct", "--crs", "EPSG:2234"],
    );
    assert!(e.contains("already holds a registry for windsor-ct"), "{e}");
}

#[test]
fn import_into_a_missing_registry_or_from_a_missing_file_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    let out = run(&store, &["import", "parcels", "nowhere.shp"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("ms4 init"), "{e}");
    run_ok(
        &store,
        &["init", "--jurisdiction", "carmel-ny", "--crs", "EPSG:2260"],
    );
    let out = run(&store, &["import", "parcels", "nowhere.shp"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("nowhere.shp") && e.contains("no such file"),
        "{e}"
    );
    let out = run(&store, &["import", "basins", "nowhere.shp"]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(e.contains("unknown layer \"basins\""), "{e}");
    let garbage = dir.path().join("garbage.geojson");
    std::fs::write(&garbage, "{ this is not json").unwrap();
    let out = run(&store, &["import", "parcels", garbage.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("garbage.geojson") && e.contains("cannot be opened"),
        "{e}"
    );
}

/// An error prints once, as one plain line: no ANSI colour, no log line repeating it,
/// no Rust `Debug` structure, when stderr is not a terminal.
#[test]
fn errors_print_once_as_plain_text() {
    let dir = tempfile::tempdir().unwrap();
    let store = format!("sqlite://{}", dir.path().join("none.gpkg").display());
    // As a user runs it: no RUST_LOG asking for logs.
    let out = ms4()
        .env_remove("RUST_LOG")
        .args(["--store", &store, "illicit"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("error: ") && lines[0].contains("holds no registry"));
    assert!(!err.contains('\u{1b}'), "ANSI codes: {err:?}");
    assert!(!err.contains(" { ") && !err.contains("Some("), "{err}");
}

/// Output into a pipe whose reader has gone ends quietly: exit 0, nothing on stderr,
/// no panic message or backtrace hint.
#[tokio::test]
async fn output_to_a_closed_pipe_ends_quietly() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let mut child = ms4()
        .args(["--store", &reg.url, "illicit"])
        .env_remove("RUST_BACKTRACE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the first line is written, as `| head -0` would.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(err.trim().is_empty(), "{err}");
}

/// A distance is echoed without conversion noise (300 ft is 299.9994 ftUS, not
/// 299.99940000000004), and a unit has one name in the JSON: the symbol answers print.
#[tokio::test]
async fn distances_are_echoed_without_conversion_noise_and_units_have_one_name() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let out = run_ok(
        &reg.url,
        &[
            "nearby", "--lon", "-73.86", "--lat", "41.2136", "--radius", "300ft", "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["query"]["radius"],
        // In the registry's unit, as every distance in an answer, rounded honestly.
        serde_json::json!({"value": 299.9994, "unit": "ftUS"})
    );
    // And as it was typed: 300 ft reads back as 300 ft.
    assert_eq!(v["query"]["radius_given"], "300 ft");
    let f = v["facilities"].as_array().unwrap();
    assert!(!f.is_empty(), "{v}");
    assert!(f.iter().all(|f| f["unit"] == "ftUS"), "{v}");
}
