//! An import killed part-way leaves the registry exactly as it was, on both stores.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;
use ms4::domain::Layer;

/// Writes a GeoJSON file of `n` points in EPSG:2260 (big enough to take seconds).
fn big_points(path: &Path, n: usize) {
    points(path, n, "active");
}

/// Writes `n` points `K-0`... with one status, so two files differ in every feature.
fn points(path: &Path, n: usize, status: &str) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(w, r#"{{"type":"FeatureCollection","crs":{{"type":"name","properties":{{"name":"urn:ogc:def:crs:EPSG::2260"}}}},"features":["#).unwrap();
    for i in 0..n {
        let sep = if i + 1 == n { "" } else { "," };
        let (x, y) = (
            600_000.0 + (i % 1000) as f64 * 10.0,
            800_000.0 + (i / 1000) as f64 * 10.0,
        );
        writeln!(w, r#"{{"type":"Feature","properties":{{"asset_id":"K-{i}","status":"{status}"}},"geometry":{{"type":"Point","coordinates":[{x},{y}]}}}}{sep}"#).unwrap();
    }
    writeln!(w, "]}}").unwrap();
}

async fn kill_midway(kind: &str) {
    let reg = registry(kind, 2260).await;
    // What is there before: 959 points in the registry's CRS (Tacoma's would lie
    // outside New York East's area of use, which the import refuses).
    let small = reg.dir.path().join("before.geojson");
    big_points(&small, 959);
    let out = run(
        &reg.url,
        &["import", "catch_basins", small.to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let before = reg.store.features(Layer::CatchBasins).await.unwrap();
    let audit_before = reg.store.audit(None, 1_000_000).await.unwrap().len();
    assert_eq!(before.len(), 959);

    let big = reg.dir.path().join("big.geojson");
    big_points(&big, 400_000);
    let mut child = ms4()
        .args(["--store", &reg.url, "import", "catch_basins"])
        .arg(&big)
        .args(["--replace"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();

    // Wait until the import's transaction is open and writing, then kill it.
    let started = Instant::now();
    loop {
        assert!(
            child.try_wait().unwrap().is_none(),
            "{kind}: the import finished before it could be killed"
        );
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "{kind}: the import never started writing"
        );
        if writing(kind, &reg).await {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        child.try_wait().unwrap().is_none(),
        "{kind}: still running when killed"
    );
    child.kill().unwrap();
    child.wait().unwrap();

    let store = ms4::store::open(&reg.url).await.unwrap();
    assert_eq!(
        store.features(Layer::CatchBasins).await.unwrap(),
        before,
        "{kind}: the layer is as it was"
    );
    assert_eq!(
        store.audit(None, 1_000_000).await.unwrap().len(),
        audit_before,
        "{kind}: no audit rows either"
    );
}

/// Whether a write transaction is under way: on SQLite another connection cannot take
/// the write lock (the `sqlite3` shell waits for no one); PostgreSQL shows another
/// session holding a write lock on the layer.
async fn writing(kind: &str, reg: &Registry) -> bool {
    match kind {
        "sqlite" => {
            let out = std::process::Command::new("sqlite3")
                .arg(reg.dir.path().join("registry.gpkg"))
                .arg("BEGIN IMMEDIATE; ROLLBACK;")
                .output()
                .unwrap();
            !out.status.success()
        }
        _ => {
            let pool = sqlx::PgPool::connect(&reg.url).await.unwrap();
            let (n,): (i64,) = sqlx::query_as(
                "SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
                 WHERE c.relname = 'catch_basins' AND l.mode = 'RowExclusiveLock' AND l.pid <> pg_backend_pid()",
            )
            .fetch_one(&pool)
            .await
            .unwrap();
            pool.close().await;
            n > 0
        }
    }
}

#[tokio::test]
async fn killed_import_leaves_the_geopackage_unchanged() {
    kill_midway("sqlite").await;
}

#[tokio::test]
async fn killed_import_leaves_postgis_unchanged() {
    if pg_base().is_some() {
        kill_midway("postgis").await;
    }
}

/// How many kills per store: `MS4_KILLS` (the release script asks for 50), else 10.
fn kills() -> usize {
    std::env::var("MS4_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10)
}

/// The catch basins' statuses: the layer is "all a" or "all b" between writes.
async fn statuses(store: &dyn ms4::store::Store) -> std::collections::BTreeSet<String> {
    store
        .features(Layer::CatchBasins)
        .await
        .unwrap()
        .iter()
        .map(|f| {
            f.get(Layer::CatchBasins, "status")
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

/// What a kill may leave: the state before the write or after it, the audit in step.
async fn check_after_kill(
    kind: &str,
    reg: &Registry,
    i: usize,
    before: &str,
    after: &str,
    audit_before: usize,
) {
    let store = ms4::store::open(&reg.url).await.unwrap();
    let got = statuses(store.as_ref()).await;
    assert_eq!(
        store.count(Layer::CatchBasins).await.unwrap(),
        N as u64,
        "{kind} kill {i}"
    );
    assert_eq!(got.len(), 1, "{kind} kill {i}: a mix of states {got:?}");
    let state = got.into_iter().next().unwrap();
    assert!(
        state == before || state == after,
        "{kind} kill {i}: {state}"
    );
    let audit = store.audit(None, 10_000_000).await.unwrap();
    if state == before {
        assert_eq!(
            audit.len(),
            audit_before,
            "{kind} kill {i}: nothing written, nothing audited"
        );
    } else {
        // The whole import, audited once: N updates and its summary row.
        assert_eq!(audit.len(), audit_before + N + 1, "{kind} kill {i}");
        assert_eq!(audit[0].action, "import", "{kind} kill {i}");
    }
    if kind == "sqlite" {
        let file = reg.dir.path().join("registry.gpkg");
        let out = std::process::Command::new("ogrinfo")
            .args(["-ro", "-so"])
            .arg(&file)
            .arg("catch_basins")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && !text.contains("readonly"),
            "{kind} kill {i}: ogrinfo -ro: {text}"
        );
        assert!(
            text.contains(&format!("Feature Count: {N}")),
            "{kind} kill {i}: {text}"
        );
    }
}

/// Features per file: big enough that an import takes a while in a debug build.
const N: usize = 20_000;

/// A pseudo-random delay in milliseconds, the same on every run.
fn delay(i: usize, max: u64) -> Duration {
    let x = (i as u64 + 1)
        .wrapping_mul(6_364_136_223_846_793_005)
        .rotate_right(29);
    Duration::from_millis(x % max)
}

async fn kill_soak(kind: &str) {
    let reg = registry(kind, 2260).await;
    let files: Vec<std::path::PathBuf> = ["a", "b"]
        .iter()
        .map(|s| {
            let p = reg.dir.path().join(format!("{s}.geojson"));
            points(&p, N, s);
            p
        })
        .collect();
    run_ok(
        &reg.url,
        &["import", "catch_basins", files[0].to_str().unwrap()],
    );
    run_ok(
        &reg.url,
        &[
            "import",
            "outfalls",
            fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson")
                .to_str()
                .unwrap(),
            "--map",
            "asset_id=ALTID",
        ],
    );
    let analyst = token(&reg.url, "analyst", "Kill Analyst", &[]);
    let inspector = token(&reg.url, "inspector", "Kill Inspector", &[]);
    let mut state = "a";
    let mut outcomes = std::collections::BTreeMap::<&str, usize>::new();
    for i in 0..kills() {
        let next = if state == "a" { "b" } else { "a" };
        let file = &files[usize::from(next == "b")];
        let audit_before = reg.store.audit(None, 10_000_000).await.unwrap().len();
        match i % 3 {
            // A CLI import, killed.
            0 => {
                let mut child = ms4()
                    .args(["--store", &reg.url, "import", "catch_basins"])
                    .arg(file)
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                tokio::time::sleep(delay(i, 8000)).await;
                child.kill().unwrap();
                child.wait().unwrap();
                check_after_kill(kind, &reg, i, state, next, audit_before).await;
            }
            // An upload, the server killed while it imports.
            1 => {
                let mut server = serve(&reg.url, &[]);
                let url = format!("{}/api/layers/catch_basins/import", server.base);
                let form = reqwest::multipart::Form::new().part(
                    "file",
                    reqwest::multipart::Part::bytes(std::fs::read(file).unwrap())
                        .file_name("up.geojson"),
                );
                let t = analyst.clone();
                let up = tokio::spawn(async move {
                    reqwest::Client::new()
                        .post(url)
                        .bearer_auth(t)
                        .multipart(form)
                        .send()
                        .await
                });
                tokio::time::sleep(delay(i, 8000)).await;
                server.child.kill().unwrap();
                server.child.wait().unwrap();
                let _ = up.await;
                check_after_kill(kind, &reg, i, state, next, audit_before).await;
            }
            // A burst of inspections, the server killed in the middle of it.
            _ => {
                let mut server = serve(&reg.url, &[]);
                let inspections_before = reg.store.count(Layer::Inspections).await.unwrap();
                let base = server.base.clone();
                let t = inspector.clone();
                let burst = tokio::spawn(async move {
                    let i = i;
                    let c = reqwest::Client::new();
                    let mut made = Vec::new();
                    for j in 0..200 {
                        let r = c
                            .post(format!("{base}/api/inspections"))
                            .bearer_auth(&t)
                            .json(&serde_json::json!({
                                "asset_id": format!("SWDP-{}", 100001 + j % 50),
                                // A new day for every inspection: an inspection's id follows
                                // from its asset, day and kind, so each one is new.
                                "inspected_on": (chrono::NaiveDate::from_ymd_opt(2000, 1, 1).unwrap()
                                    + chrono::Duration::days((i * 200 + j) as i64)).to_string(),
                                "kind": "dry_weather_screening",
                                "result": "pass",
                            }))
                            .send()
                            .await;
                        match r {
                            Ok(r) if r.status() == 201 => {
                                let v: serde_json::Value = r.json().await.unwrap_or_default();
                                made.push(
                                    v["inspection"][Layer::Inspections.id_field()]
                                        .as_str()
                                        .unwrap_or("")
                                        .to_string(),
                                );
                            }
                            _ => break,
                        }
                    }
                    made
                });
                tokio::time::sleep(delay(i, 3000)).await;
                server.child.kill().unwrap();
                server.child.wait().unwrap();
                let made = burst.await.unwrap();
                let store = ms4::store::open(&reg.url).await.unwrap();
                let stored = store.features(Layer::Inspections).await.unwrap();
                let ids: std::collections::HashSet<&str> =
                    stored.iter().map(|f| f.id.as_str()).collect();
                for id in &made {
                    assert!(
                        ids.contains(id.as_str()),
                        "{kind} kill {i}: answered 201 but lost: {id}"
                    );
                }
                let new = stored.len() as u64 - inspections_before;
                assert!(
                    new >= made.len() as u64 && new <= made.len() as u64 + 1,
                    "{kind} kill {i}: {new} stored, {} answered",
                    made.len()
                );
                assert_eq!(
                    store.audit(None, 10_000_000).await.unwrap().len(),
                    audit_before + 2 * new as usize,
                    "{kind} kill {i}: each inspection audited once, with its write"
                );
                // The layer under the burst is untouched.
                check_after_kill(kind, &reg, i, state, state, audit_before + 2 * new as usize)
                    .await;
                *outcomes.entry("inspections").or_default() += made.len();
                continue;
            }
        }
        let now = statuses(reg.store.as_ref())
            .await
            .into_iter()
            .next()
            .unwrap();
        *outcomes
            .entry(if now == state {
                "rolled back"
            } else {
                "committed"
            })
            .or_default() += 1;
        state = if now == "a" { "a" } else { "b" };
    }
    // The next import works.
    let target = if state == "a" { &files[1] } else { &files[0] };
    run_ok(
        &reg.url,
        &["import", "catch_basins", target.to_str().unwrap()],
    );
    eprintln!("{kind}: {} kills: {outcomes:?}", kills());
}

#[tokio::test]
async fn killed_writes_leave_the_geopackage_before_or_after_and_readable() {
    kill_soak("sqlite").await;
}

#[tokio::test]
async fn killed_writes_leave_postgis_before_or_after() {
    if pg_base().is_some() {
        kill_soak("postgis").await;
    }
}
