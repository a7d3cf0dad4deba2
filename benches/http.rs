//! The HTTP service under load: `ms4 serve` (release build, the county GeoPackage) driven by
//! `wrk` on 127.0.0.1, beside pygeoapi (PostgreSQL provider on the same county in PostGIS,
//! under gunicorn) answering the same OGC API – Features requests.
//!
//! MS4_TEST_PG=postgres://ms4:ms4@127.0.0.1:5432/postgres cargo bench --bench http
//! MS4_BENCH_PARCELS=100000 ... for a smaller county; MS4_BENCH_SECONDS=20 for longer runs.
//!
//! Needs `wrk` (Debian package) and the Python tools of scripts/python.sh (run here when
//! missing). Prints a Markdown table; BENCHMARKS.md records a run.

#[path = "http/bbox.rs"]
mod bbox;
mod common;
#[path = "http/pygeoapi.rs"]
mod pygeoapi;
#[path = "http/serve.rs"]
mod serve;
#[path = "http/wrk.rs"]
mod wrk;

use std::time::Instant;

use bbox::{bbox_param, bboxes, extent, returned};
use common::results::{record, Figure, Goal};
use pygeoapi::start_pygeoapi;
use serve::{get_json, ids, read_token, start_ms4, wait_ready};
use wrk::{lua, seconds, warm, wrk};

const THREADS: usize = 2;
const CONNECTIONS: usize = 64;
/// Parcels a bbox should return on average.
const BBOX_TARGET: f64 = 100.0;
/// Distinct bboxes the load cycles through (the same list for both servers).
const BBOXES: usize = 2000;
/// Bboxes fetched one by one to measure how many parcels they return.
const SAMPLE: usize = 100;
/// Enough for any bbox of ~100 parcels to come back in one page on both servers.
const LIMIT: usize = 1000;

fn main() {
    common::block_on("http", run());
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let n = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{n} CPUs ({cpu})")
}

async fn run() {
    let machine = machine();
    let parcels = common::parcels();
    let data = common::synthetic_county(parcels);
    let work = data.join("http");
    std::fs::create_dir_all(&work).unwrap();
    let gpkg = format!("sqlite://{}", data.join("registry.gpkg").display());
    drop(common::county_registry(&gpkg, &data).await);
    let pg = std::env::var("MS4_TEST_PG").ok().map(|base| {
        let mut u = url::Url::parse(&base).unwrap();
        u.set_path(&format!("ms4_bench_county_{parcels}"));
        u
    });
    if let Some(u) = &pg {
        let s = common::county_registry(u.as_str(), &data).await;
        drop(s);
        let pool = sqlx::PgPool::connect(u.as_str()).await.unwrap();
        sqlx::query("ANALYZE parcels").execute(&pool).await.unwrap();
        pool.close().await;
    } else {
        eprintln!("MS4_TEST_PG is not set: no pygeoapi (PostGIS) side to compare with");
    }

    let token = read_token(&gpkg);
    let t = Instant::now();
    let (ms4_proc, base) = start_ms4(&gpkg);
    eprintln!(
        "ms4 serve on {base} ({:.1} s to load the county)",
        t.elapsed().as_secs_f64()
    );
    let c = reqwest::Client::new();
    let tok = Some(token.as_str());
    let mut rows = Vec::new();

    // nearby: random points over the structures' extent, in the registry's CRS.
    let nearby = nearby_load(&c, &base, tok, &data, &work).await;
    rows.push((
        "`/api/nearby?x=&y=&k=10&radius=500ft` (random points)".to_string(),
        nearby,
        None,
    ));

    // items in a bbox: sized on a sample to return about BBOX_TARGET parcels.
    let pe = extent(&data, "parcels");
    let rp = ms4::import::crs::Reprojector::new(2260, 4326).unwrap();
    let (x0, y0) = rp.point(pe[0], pe[1]).unwrap();
    let (x1, y1) = rp.point(pe[2], pe[3]).unwrap();
    let (x2, y2) = rp.point(pe[0], pe[3]).unwrap();
    let (x3, y3) = rp.point(pe[2], pe[1]).unwrap();
    // The CRS84 box inside the projected extent's four corners.
    let lonlat = [x0.max(x2), y0.max(y3), x1.min(x3), y1.min(y2)];
    let (boxes, side, mean) = size_bboxes(&c, &base, tok, lonlat, pe, parcels).await;
    let table: Vec<String> = boxes
        .iter()
        .map(|b| format!("\"{}\"", bbox_param(b)))
        .collect();
    let prelude = format!(
        "local boxes = {{{}}}\nlocal path = \"/collections/parcels/items?limit={LIMIT}&bbox=\"\nlocal i = 0",
        table.join(",")
    );
    let body = r#"  if i == 0 then i = (id * 997) % #boxes end
  i = i % #boxes + 1
  return wrk.format("GET", path .. boxes[i])"#;
    let script = work.join("items-ms4.lua");
    lua(&script, tok, &prelude, body);
    warm(&base, &script);
    let items = wrk(&base, &script);

    // pygeoapi on the same parcels in PostGIS: the same bboxes, the same wrk settings.
    let mut peer = None;
    let mut crs84_diff = None;
    if let Some(pgu) = &pg {
        let (py_proc, py_base) = start_pygeoapi(&work, pgu);
        wait_ready(&c, &format!("{py_base}/collections/parcels"), None).await;
        crs84_diff = Some(same_answers(&c, &base, &py_base, tok, pe, side, &boxes).await);
        drop(ms4_proc);
        let script = work.join("items-pygeoapi.lua");
        lua(&script, None, &prelude, body);
        warm(&py_base, &script);
        peer = Some(wrk(&py_base, &script));
        drop(py_proc);
    } else {
        drop(ms4_proc);
    }
    rows.push((
        format!("`/collections/parcels/items?bbox=…&limit={LIMIT}` (CRS84, {mean:.0} parcels on average)"),
        items,
        peer,
    ));

    print_table(&machine, parcels, &rows, crs84_diff);
}

/// `/api/nearby` under wrk: random points over the structures' extent, in the registry's
/// CRS (one sample answer printed first).
async fn nearby_load(
    c: &reqwest::Client,
    base: &str,
    tok: Option<&str>,
    data: &std::path::Path,
    work: &std::path::Path,
) -> wrk::Load {
    let ext = extent(data, "catch_basins");
    let sample = get_json(
        c,
        &format!(
            "{base}/api/nearby?x={:.1}&y={:.1}&k=10&radius=500ft",
            (ext[0] + ext[2]) / 2.0,
            (ext[1] + ext[3]) / 2.0
        ),
        tok,
    )
    .await;
    eprintln!("nearby sample answer: {:.300}", sample.to_string());
    let script = work.join("nearby.lua");
    lua(
        &script,
        tok,
        &format!(
            "local minx, miny, maxx, maxy = {}, {}, {}, {}",
            ext[0], ext[1], ext[2], ext[3]
        ),
        r#"  local x = minx + math.random() * (maxx - minx)
  local y = miny + math.random() * (maxy - miny)
  return wrk.format("GET", string.format("/api/nearby?x=%.1f&y=%.1f&k=10&radius=500ft", x, y))"#,
    );
    warm(base, &script);
    wrk(base, &script)
}

/// Bboxes sized on a sample to return about `BBOX_TARGET` parcels: their side and the
/// mean returned.
async fn size_bboxes(
    c: &reqwest::Client,
    base: &str,
    tok: Option<&str>,
    lonlat: [f64; 4],
    pe: [f64; 4],
    parcels: usize,
) -> (Vec<[f64; 4]>, f64, f64) {
    let area_ft2 = (pe[2] - pe[0]) * (pe[3] - pe[1]);
    let mut side = (BBOX_TARGET * area_ft2 / parcels as f64).sqrt();
    let mut boxes = bboxes(lonlat, side, BBOXES, 3);
    let (mut mean, mut lo, mut hi) = returned(c, base, tok, &boxes).await;
    for _ in 0..3 {
        if (mean - BBOX_TARGET).abs() / BBOX_TARGET < 0.05 {
            break;
        }
        side *= (BBOX_TARGET / mean).sqrt();
        boxes = bboxes(lonlat, side, BBOXES, 3);
        (mean, lo, hi) = returned(c, base, tok, &boxes).await;
    }
    eprintln!(
        "bboxes of about {side:.0} ft: {mean:.1} parcels returned on average over {SAMPLE} (min {lo}, max {hi})"
    );
    (boxes, side, mean)
}

/// ms4 and pygeoapi must answer the same: the same parcels exactly for a bbox in the
/// storage CRS; on CRS84 bboxes, the parcels only one returns (edge parcels), counted.
/// Returns those and how many parcels ms4 returned.
async fn same_answers(
    c: &reqwest::Client,
    base: &str,
    py_base: &str,
    tok: Option<&str>,
    pe: [f64; 4],
    side: f64,
    boxes: &[[f64; 4]],
) -> (usize, usize) {
    // Both must answer the same. A bbox in the storage CRS (bbox-crs) is a plain
    // rectangle to both, so the parcels must be the same ones exactly. A CRS84 bbox
    // is not: ms4 reprojects the box's edges densified (they curve in the projected
    // plane), pygeoapi only its two corners, so parcels along the edges may differ;
    // those are counted and reported.
    let q = |b: &[f64; 4], extra: &str| {
        format!(
            "/collections/parcels/items?limit={LIMIT}&bbox={}{extra}",
            bbox_param(b)
        )
    };
    let both = |path: String| {
        let c = c.clone();
        let (base, py_base) = (base.to_string(), py_base.to_string());
        async move {
            (
                ids(&get_json(&c, &format!("{base}{path}"), tok).await),
                ids(&get_json(&c, &format!("{py_base}{path}"), None).await),
            )
        }
    };
    let mid = [(pe[0] + pe[2]) / 2.0, (pe[1] + pe[3]) / 2.0];
    let native = [mid[0], mid[1], mid[0] + side * 1.3, mid[1] + side * 0.9];
    let (ours, theirs) = both(q(
        &native.map(|v| (v * 1000.0).round() / 1000.0),
        "&bbox-crs=http://www.opengis.net/def/crs/EPSG/0/2260",
    ))
    .await;
    eprintln!(
        "EPSG:2260 bbox: ms4 {} parcels, pygeoapi {}",
        ours.len(),
        theirs.len()
    );
    assert!(!ours.is_empty());
    assert_eq!(
        ours, theirs,
        "ms4 and pygeoapi return different parcels for one EPSG:2260 bbox"
    );
    let mut edge_diff = 0;
    let mut compared = 0;
    for b in boxes.iter().take(20) {
        let (ours, theirs) = both(q(b, "")).await;
        edge_diff += ours.iter().filter(|i| !theirs.contains(i)).count()
            + theirs.iter().filter(|i| !ours.contains(i)).count();
        compared += ours.len();
    }
    eprintln!(
        "CRS84 bboxes: {compared} parcels from ms4 over 20 bboxes, {edge_diff} returned by only one of the two"
    );
    assert!(
        edge_diff * 20 < compared,
        "ms4 and pygeoapi differ by more than edge parcels on CRS84 bboxes"
    );
    (edge_diff, compared)
}

/// The table of routes, the comparison's note and the goals.
fn print_table(
    machine: &str,
    parcels: usize,
    rows: &[(String, wrk::Load, Option<wrk::Load>)],
    crs84_diff: Option<(usize, usize)>,
) {
    println!();
    println!("Machine: {machine}");
    println!(
        "wrk: {THREADS} threads, {CONNECTIONS} connections, {} s per route, on 127.0.0.1; {parcels} parcels; a bearer token on every request to ms4",
        seconds()
    );
    println!();
    println!("| route | ms4 req/s | ms4 p50 / p99 | pygeoapi req/s | pygeoapi p50 / p99 | ms4 ÷ pygeoapi |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (route, ours, theirs) in rows {
        for l in std::iter::once(ours).chain(theirs.iter()) {
            if l.bad > 0 || !l.errors.is_empty() {
                eprintln!(
                    "{route}: {} of {} responses not 2xx; {}",
                    l.bad, l.requests, l.errors
                );
            }
        }
        let (py, pyl, ratio) = match theirs {
            Some(t) => (
                format!("{:.0}", t.rps),
                format!("{:.2} / {:.2} ms", t.p50_ms, t.p99_ms),
                format!("{:.0}×", ours.rps / t.rps),
            ),
            None => ("—".into(), "—".into(), "—".into()),
        };
        println!(
            "| {route} | {:.0} | {:.2} / {:.2} ms | {py} | {pyl} | {ratio} |",
            ours.rps, ours.p50_ms, ours.p99_ms
        );
    }
    let goals = [
        ("nearby ≥ 20,000 req/s", rows[0].1.rps >= 20_000.0),
        ("nearby p99 < 10 ms", rows[0].1.p99_ms < 10.0),
        ("items ≥ 5,000 req/s", rows[1].1.rps >= 5_000.0),
        (
            "items ≥ 20× pygeoapi",
            rows[1]
                .2
                .as_ref()
                .is_some_and(|t| rows[1].1.rps / t.rps >= 20.0),
        ),
    ];
    if let Some((d, n)) = crs84_diff {
        println!();
        println!("Same parcels on both for an EPSG:2260 bbox; on 20 CRS84 bboxes {d} of {n} parcels (edge parcels) differ, as pygeoapi reprojects only a bbox's two corners.");
    }
    println!();
    for (g, met) in goals {
        println!("- {g}: {}", if met { "met" } else { "NOT met" });
    }
    record_rows(parcels, rows);
}

/// The table's figures: each route's requests/s, p50 and p99 beside pygeoapi's, with the
/// goals of each (issue 31 for nearby).
fn record_rows(parcels: usize, rows: &[(String, wrk::Load, Option<wrk::Load>)]) {
    let measures = [
        "nearby (`/api/nearby`, random points)",
        "parcels in a CRS84 bbox (`/collections/parcels/items`)",
    ];
    let goals: [(&[Goal], &[Goal]); 2] = [
        (&[Goal::AtLeast(50_000.0)], &[Goal::Below(5.0)]),
        (&[Goal::AtLeast(5_000.0), Goal::Ratio(20.0)], &[]),
    ];
    for ((measure, (rps_goals, p99_goals)), (route, ours, theirs)) in
        measures.iter().zip(goals).zip(rows)
    {
        let data = format!(
            "{route}; {parcels} parcels; wrk, {THREADS} threads, {CONNECTIONS} connections, {} s",
            seconds()
        );
        let mut rps = Figure::higher(format!("{measure}: requests/s"), &*data, ours.rps, "req/s");
        let mut p50 = Figure::lower(format!("{measure}: p50"), &*data, ours.p50_ms, "ms");
        let mut p99 = Figure::lower(format!("{measure}: p99"), &*data, ours.p99_ms, "ms");
        if let Some(t) = theirs {
            rps = rps.peer("pygeoapi", t.rps);
            p50 = p50.peer("pygeoapi", t.p50_ms);
            p99 = p99.peer("pygeoapi", t.p99_ms);
        }
        for g in rps_goals {
            rps = rps.goal(*g);
        }
        for g in p99_goals {
            p99 = p99.goal(*g);
        }
        record(rps);
        record(p50);
        record(p99);
    }
}
