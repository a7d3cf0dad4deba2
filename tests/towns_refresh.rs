//! `ms4 profile update` while `ms4 serve` runs: the server answers with the new profile
//! without a restart, on both stores. A served process: the point is that the command's
//! server watches the stored profile.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::*;
use rstest::rstest;

/// A footprint of about 9,000 square metres in North Castle, WGS 84.
const FOOTPRINT: &str = r#"{"type":"Polygon","coordinates":[[[-73.700,41.100],[-73.699,41.100],[-73.699,41.101],[-73.700,41.101],[-73.700,41.100]]]}"#;

/// The generation the tiles are named by (their URLs and ETags carry it).
async fn generation(base: &str) -> String {
    let v: serde_json::Value = reqwest::get(format!("{base}/tiles.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["generation"].as_str().unwrap().to_string()
}

/// The land development activity finding for 6,000 sq ft disturbed on the footprint.
async fn lda(base: &str) -> serde_json::Value {
    let body = format!(r#"{{"footprint":{FOOTPRINT},"disturbed":"6000sqft"}}"#);
    let r = reqwest::Client::new()
        .post(format!("{base}/api/determinations"))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let v: serde_json::Value = r.json().await.unwrap();
    v["determination"]["land_development_activity"].clone()
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_profile_update_is_answered_by_the_running_server(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", work.path().join("r.gpkg").display()),
        _ => fresh_pg_url("refresh").expect("postgis requested"),
    };
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    let server = serve(&url, &["--public-read"]);
    let before = lda(&server.base).await;
    let generation_before = generation(&server.base).await;
    assert_eq!(
        before["result"], true,
        "{kind}: 6,000 sq ft >= 5,000: {before}"
    );
    assert!(
        before.to_string().contains("5,000") || before.to_string().contains("5000"),
        "{kind}: {before}"
    );

    // The threshold raised to 10,000 sq ft, stored while the server runs.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/jurisdictions/north-castle-ny.toml"),
    )
    .unwrap();
    let from = "[thresholds.land_development_activity]\nvalue = 5000\n";
    assert!(
        text.contains(from),
        "the threshold is where the test expects it"
    );
    let newer = text.replacen(
        from,
        "[thresholds.land_development_activity]\nvalue = 10000\n",
        1,
    );
    let file = work.path().join("north-castle-ny.toml");
    std::fs::write(&file, &newer).unwrap();
    let said = run_ok(&url, &["profile", "update", file.to_str().unwrap()]);
    assert!(said.contains("answers with it"), "{kind}: {said}");

    let start = Instant::now();
    let after = loop {
        let a = lda(&server.base).await;
        if a["result"] == false || start.elapsed() > Duration::from_secs(10) {
            break a;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        after["result"], false,
        "{kind}: 6,000 sq ft < 10,000 within 10 s of the update: {after}"
    );
    assert!(
        after.to_string().contains("10,000") || after.to_string().contains("10000"),
        "{kind}: the new threshold is cited: {after}"
    );
    // An answer changed, so the tiles' generation did: no tile cached under the old
    // one is taken for current.
    assert_ne!(
        generation(&server.base).await,
        generation_before,
        "{kind}: a new profile is a new generation"
    );

    // A profile stored by hand that no longer loads is not taken: the server keeps
    // answering with the last good one.
    let registry = ms4::store::open(&url).await.unwrap();
    let broken = newer.replacen("value = 10000\n", "value = \"lots\"\n", 1);
    registry
        .store_profile(
            &ms4::store::StoredProfile::new("north-castle-ny", &broken, "by hand", "test"),
            false,
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let kept = lda(&server.base).await;
    assert_eq!(
        kept["result"], false,
        "{kind}: the last good profile: {kept}"
    );
    drop(server);
}

/// `ms4 profile update` refuses a number out of its range with the key and its line, in
/// well under a second, and the stored profile stays the one before.
#[test]
fn a_deadline_of_a_hundred_million_business_days_is_refused_by_profile_update() {
    let work = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", work.path().join("r.gpkg").display());
    run_ok(
        &url,
        &["init", "--jurisdiction", "windsor-ct", "--crs", "EPSG:2234"],
    );
    let before = run_ok(&url, &["profile", "show"]);
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/jurisdictions/windsor-ct.toml"),
    )
    .unwrap();
    let newer = text.replacen("\nbusiness_days = 2\n", "\nbusiness_days = 100000000\n", 1);
    let line = newer
        .lines()
        .position(|l| l == "business_days = 100000000")
        .unwrap()
        + 1;
    let file = work.path().join("windsor-ct.toml");
    std::fs::write(&file, &newer).unwrap();
    let start = Instant::now();
    let out = run(&url, &["profile", "update", file.to_str().unwrap()]);
    assert!(start.elapsed() < Duration::from_secs(5));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("idde.deadlines[1].business_days")
            && err.contains(&format!("(line {line})"))
            && err.contains("100000000 is out of range: give 0 to 2610 business days"),
        "{err}"
    );
    assert_eq!(run_ok(&url, &["profile", "show"]), before, "nothing stored");
}
