//! More than one machine, and more than one registry: what reading from a hot standby and
//! serving a coalition cost.
//!
//! - the lag between a write through the server reading the primary and the server
//!   reading a hot standby serving it (median and p99 of 40 writes);
//! - `/api/nearby` under wrk against one server, and against two (one on the primary, one
//!   on the standby) sharing the load, each server held to one core (`taskset`);
//! - start-up time and memory of one service serving 1 and 20 demo-sized registries, one
//!   schema each in one database (`--registry`), per registry served.
//!
//! cargo bench --bench replication   (needs PostgreSQL's server programs, PostGIS, wrk
//! and taskset; the clusters are the bench's own, on free ports of 127.0.0.1)

#[path = "../tests/common/cluster.rs"]
mod cluster;
mod common;
#[path = "http/wrk.rs"]
mod wrk;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cluster::{load_demo, Cluster};
use common::results::{record, Figure};
use serde_json::json;

// The same allocator as the `ms4` binary.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// wrk's threads and connections per server measured.
const THREADS: usize = 1;
const CONNECTIONS: usize = 32;
/// Writes timed for the standby's lag.
const WRITES: usize = 40;
/// Registries served at once for the per-registry figures.
const MEMBERS: usize = 20;

fn main() {
    common::block_on("replication", run());
}

/// A running `ms4 serve`, killed when dropped.
struct Served {
    child: Child,
    base: String,
    started_in: Duration,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `ms4 [--store URL] serve ARGS` (on one core when `core` is given) and waits for
/// the line that says where it listens.
fn serve(store: Option<&str>, args: &[&str], core: Option<usize>) -> Served {
    let exe = env!("CARGO_BIN_EXE_ms4");
    let mut c = match core {
        Some(n) => {
            let mut c = Command::new("taskset");
            c.args(["-c", &n.to_string(), exe]);
            c
        }
        None => Command::new(exe),
    };
    if let Some(s) = store {
        c.args(["--store", s]);
    }
    let t = Instant::now();
    let mut child = c
        .env("RUST_LOG", "ms4=warn")
        .args(["serve", "--listen", "127.0.0.1:0", "--public-read"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("ms4 serve starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines
            .next()
            .expect("the server says where it listens")
            .unwrap();
        if let Some(rest) = line.strip_prefix("serving ") {
            let url = rest
                .split_whitespace()
                .find(|w| w.starts_with("http://"))
                .unwrap();
            let host = url.trim_start_matches("http://").split('/').next().unwrap();
            break format!("http://{host}");
        }
    };
    Served {
        child,
        base,
        started_in: t.elapsed(),
    }
}

/// The resident memory of a process, in MB.
fn rss_mb(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    kb / 1024.0
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn token(store: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ms4"))
        .args(["--store", store, "token", "create", "--role", "inspector"])
        .args(["--subject", "Bench Inspector"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

async fn run() {
    let Some(primary) = Cluster::new() else {
        return;
    };
    let db = "ms4_bench_replica";
    let url = primary.url(db);
    load_demo(&url).await;
    let standby = primary.standby();
    let standby_url = standby.url(db);
    lag(&primary, &url, &standby_url).await;
    nearby_over_two(&primary, &url, &standby_url);
    per_registry(&primary).await;
    drop(standby);
}

/// The lag: a write through the primary's server, served by the standby's.
async fn lag(primary: &Cluster, url: &str, standby_url: &str) {
    let db = "ms4_bench_replica";
    let inspector = token(url);
    let outfall = primary.psql(
        db,
        "SELECT asset_id FROM outfalls ORDER BY asset_id LIMIT 1",
    );
    let on_primary = serve(Some(url), &[], None);
    let on_standby = serve(Some(url), &["--read-store", standby_url], None);
    let c = reqwest::Client::new();
    let mut lags = Vec::new();
    for i in 0..WRITES {
        let day = format!("2025-{:02}-{:02}", 1 + i / 28, 1 + i % 28);
        let r = c
            .post(format!("{}/api/inspections", on_primary.base))
            .bearer_auth(&inspector)
            .json(&json!({"asset_id": outfall, "inspected_on": day,
                          "kind": "dry_weather_screening", "result": "pass"}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
        let t = Instant::now();
        loop {
            let v: serde_json::Value = c
                .get(format!(
                    "{}/api/assets/{outfall}/inspections",
                    on_standby.base
                ))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let seen = v["inspections"]
                .as_array()
                .unwrap()
                .iter()
                .any(|x| x["inspected_on"] == day.as_str());
            if seen {
                break;
            }
            assert!(t.elapsed() < Duration::from_secs(30), "never seen");
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        lags.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    let (p50, p99) = (percentile(&mut lags, 0.5), percentile(&mut lags, 0.99));
    println!("| the standby's server serving a write through the primary's | median {p50:.0} ms, p99 {p99:.0} ms |");
    let data = format!("the demo town; {WRITES} inspections POSTed to the primary's server, polled every 5 ms on the standby's (it polls its change numbers every 500 ms)");
    record(Figure::lower(
        "standby server's lag after a write: median",
        data.clone(),
        p50,
        "ms",
    ));
    record(Figure::lower(
        "standby server's lag after a write: p99",
        data,
        p99,
        "ms",
    ));
}

/// nearby over one server, and over two sharing the load, each on one core.
fn nearby_over_two(primary: &Cluster, url: &str, standby_url: &str) {
    let db = "ms4_bench_replica";
    let ext: Vec<f64> = primary
        .psql(db, "SELECT concat_ws(',', ST_XMin(e), ST_YMin(e), ST_XMax(e), ST_YMax(e)) FROM (SELECT ST_Extent(geom) e FROM catch_basins) x")
        .split(',')
        .map(|v| v.parse().unwrap())
        .collect();
    let work = tempfile::tempdir().unwrap();
    let script = work.path().join("nearby.lua");
    wrk::lua(
        &script,
        None,
        &format!(
            "local minx, miny, maxx, maxy = {}, {}, {}, {}",
            ext[0], ext[1], ext[2], ext[3]
        ),
        r#"  local x = minx + math.random() * (maxx - minx)
  local y = miny + math.random() * (maxy - miny)
  return wrk.format("GET", string.format("/api/nearby?x=%.1f&y=%.1f&k=10&radius=500ft", x, y))"#,
    );
    let one = serve(Some(url), &[], Some(0));
    wrk::warm(&one.base, &script);
    let alone = wrk::wrk(&one.base, &script);
    drop(one);
    let a = serve(Some(url), &[], Some(0));
    let b = serve(Some(url), &["--read-store", standby_url], Some(1));
    wrk::warm(&a.base, &script);
    wrk::warm(&b.base, &script);
    let (la, lb) = std::thread::scope(|s| {
        let ha = s.spawn(|| wrk::wrk(&a.base, &script));
        let hb = s.spawn(|| wrk::wrk(&b.base, &script));
        (ha.join().unwrap(), hb.join().unwrap())
    });
    let together = la.rps + lb.rps;
    println!(
        "| nearby, one server on one core | {:.0} req/s | two servers (primary, standby) on a core each | {together:.0} req/s | {:.2}× |",
        alone.rps,
        together / alone.rps
    );
    let data = format!("`/api/nearby` random points, the demo town; wrk {THREADS} thread, {CONNECTIONS} connections per server, {} s; wrk shares the 2 cores", wrk::seconds());
    record(
        Figure::higher(
            "nearby over two servers (primary and standby readers), one core each",
            data,
            together,
            "req/s",
        )
        .peer("one server on one core", alone.rps),
    );
}

/// Start-up and memory per registry served: 1 and MEMBERS members in one database.
async fn per_registry(primary: &Cluster) {
    let base_url = primary.url("ms4_bench_members");
    let mut members = Vec::new();
    for i in 0..MEMBERS {
        let u = format!("{base_url}?schema=member_{i:02}");
        load_demo(&u).await;
        members.push(format!("m{i:02}={u}"));
    }
    let mut figures = Vec::new();
    for n in [1, MEMBERS] {
        let args: Vec<&str> = members[..n]
            .iter()
            .flat_map(|m| ["--registry", m.as_str()])
            .collect();
        let s = serve(None, &args, None);
        tokio::time::sleep(Duration::from_secs(2)).await;
        let rss = rss_mb(s.child.id());
        figures.push((n, s.started_in.as_secs_f64(), rss));
    }
    let (n1, t1, m1) = figures[0];
    let (nn, tn, mn) = figures[1];
    let per_t = (tn - t1) / (nn - n1) as f64;
    let per_m = (mn - m1) / (nn - n1) as f64;
    println!("| {n1} registry: start {t1:.2} s, {m1:.0} MB | {nn} registries: start {tn:.2} s, {mn:.0} MB | per registry: {per_t:.3} s, {per_m:.1} MB |");
    let data = format!("demo-sized registries, one schema each in one database; {n1} and {nn} served by one `ms4 serve`");
    record(Figure::lower(
        "start-up time per registry served",
        data.clone(),
        per_t * 1000.0,
        "ms",
    ));
    record(Figure::lower(
        "memory per registry served",
        data,
        per_m,
        "MB",
    ));
}
