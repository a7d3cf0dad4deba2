//! The soak itself: the server, the traffic, the RSS samples and the final checks.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

use crate::serve::{ms4, start_ms4};
use crate::stats::{ms, rss_kib, Kind, Stats};
use crate::Settings;

/// How often the server's RSS is read.
const RSS_EVERY: Duration = Duration::from_secs(5);
/// Side of the EPSG:2260 bboxes the items requests ask for, in feet.
const BOX_FT: f64 = 400.0;
/// The pass criteria.
const MIN_RATE: f64 = 2000.0;
const MAX_P99_MS: f64 = 50.0;
const MAX_RSS_DRIFT: f64 = 0.10;

fn token(store: &str, role: &str) -> String {
    let out = ms4()
        .args(["--store", store, "token", "create", "--role", role])
        .args(["--subject", &format!("soak {role}")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ms4 token create: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A layer's extent in the registry CRS, from the county's source GeoPackage.
fn extent(data: &Path, layer: &str) -> [f64; 4] {
    use gdal::vector::LayerAccess;
    let ds = gdal::Dataset::open(data.join(format!("{layer}.gpkg"))).unwrap();
    let e = ds.layer(0).unwrap().get_extent().unwrap();
    [e.MinX, e.MinY, e.MaxX, e.MaxY]
}

/// A fresh copy of the county registry for this run, so the soak's writes never reach
/// the registry the other benches measure.
async fn soak_registry(data: &Path) -> String {
    let gpkg = data.join("registry.gpkg");
    drop(crate::common::county_registry(&format!("sqlite://{}", gpkg.display()), data).await);
    let dir = data.join("soak");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // SQLite's online backup: a consistent copy even while the pool just dropped is
    // still closing its connections (copying the file and its -wal then can tear).
    let to = dir.join("registry.gpkg");
    let out = std::process::Command::new("sqlite3")
        .arg(&gpkg)
        .arg(format!(".backup '{}'", to.display()))
        .output()
        .expect("sqlite3 runs (scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "sqlite3 .backup: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    format!("sqlite://{}", to.display())
}

async fn ids(c: &reqwest::Client, url: &str, token: &str) -> Vec<String> {
    let v: Value = c
        .get(url)
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    v["features"]
        .as_array()
        .unwrap_or_else(|| panic!("{url}: {v:.300}"))
        .iter()
        .map(|f| f["id"].as_str().unwrap().to_string())
        .collect()
}

/// What the traffic draws from.
struct Town {
    base: String,
    reader: String,
    analyst: String,
    structures: [f64; 4],
    parcels_ext: [f64; 4],
    parcels: Vec<String>,
    outfalls: Vec<String>,
}

impl Town {
    fn read(&self, c: &reqwest::Client, rng: &mut impl Rng) -> (Kind, reqwest::RequestBuilder) {
        let b = &self.base;
        let roll: f64 = rng.gen();
        let (kind, req) = if roll < 0.6 {
            let e = self.structures;
            let (x, y) = (rng.gen_range(e[0]..e[2]), rng.gen_range(e[1]..e[3]));
            (
                Kind::Nearby,
                c.get(format!(
                    "{b}/api/nearby?x={x:.1}&y={y:.1}&k=10&radius=500ft"
                )),
            )
        } else if roll < 0.9 {
            let e = self.parcels_ext;
            let x = rng.gen_range(e[0]..e[2] - BOX_FT);
            let y = rng.gen_range(e[1]..e[3] - BOX_FT);
            (
                Kind::Items,
                c.get(format!(
                    "{b}/collections/parcels/items?limit=100&bbox={x:.1},{y:.1},{:.1},{:.1}&bbox-crs=http://www.opengis.net/def/crs/EPSG/0/2260",
                    x + BOX_FT,
                    y + BOX_FT
                )),
            )
        } else {
            let p = &self.parcels[rng.gen_range(0..self.parcels.len())];
            let disturbed = ["2000sqft", "0.5acre", "2acres"][rng.gen_range(0..3)];
            (
                Kind::Determination,
                c.post(format!("{b}/api/determinations"))
                    .json(&json!({"parcel": p, "disturbed": disturbed})),
            )
        };
        (kind, req.bearer_auth(&self.reader))
    }

    /// The `n`th inspection: a different (outfall, day) each time, so each is a new row.
    fn inspection(&self, n: usize) -> (String, String) {
        let asset = self.outfalls[n % self.outfalls.len()].clone();
        let day = chrono::NaiveDate::from_ymd_opt(2000, 1, 1).unwrap()
            + chrono::Duration::days((n / self.outfalls.len()) as i64);
        (asset, day.to_string())
    }
}

/// Sends one request; a transport error or a non-2xx status is an error.
async fn send(req: reqwest::RequestBuilder) -> Result<Value, String> {
    let r = req.send().await.map_err(|e| e.to_string())?;
    let status = r.status();
    let body = r.bytes().await.map_err(|e| e.to_string())?;
    if !status.is_success() {
        return Err(format!("{status}: {}", String::from_utf8_lossy(&body)));
    }
    Ok(serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// Runs the soak; true when every criterion is met.
pub(crate) async fn run(s: Settings) -> bool {
    let parcels = crate::common::parcels();
    let data = crate::common::synthetic_county(parcels);
    let store = soak_registry(&data).await;
    let reader = token(&store, "inspector");
    let analyst = token(&store, "analyst");
    let t = Instant::now();
    let (server, base) = start_ms4(&store);
    let pid = server.0.id();
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let (parcel_ids, outfalls) = (
        ids(
            &c,
            &format!("{base}/collections/parcels/items?limit=1000&offset=5000"),
            &reader,
        )
        .await,
        ids(
            &c,
            &format!("{base}/collections/outfalls/items?limit=1000"),
            &reader,
        )
        .await,
    );
    eprintln!(
        "ms4 serve (pid {pid}) on {base}, {:.1} s to load; {} parcels and {} outfalls to draw from",
        t.elapsed().as_secs_f64(),
        parcel_ids.len(),
        outfalls.len()
    );
    let town = Arc::new(Town {
        base: base.clone(),
        reader,
        analyst,
        structures: extent(&data, "catch_basins"),
        parcels_ext: extent(&data, "parcels"),
        parcels: parcel_ids,
        outfalls,
    });
    // One of each first: a mistake in the requests is found now, not after ten minutes.
    let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
    let mut seen = std::collections::BTreeSet::new();
    while seen.len() < 3 {
        let (kind, req) = town.read(&c, &mut rng);
        if let Err(e) = send(req).await {
            panic!("{}: {e}", kind.name());
        }
        seen.insert(kind);
    }

    let stats = Arc::new(Stats::default());
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let mut tasks = Vec::new();

    tasks.extend(spawn_readers(&s, &town, &stats, &stop, &c));
    // Inspection POSTs, a few a second; the ones answered 2xx are kept to check later.
    let accepted: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    tasks.extend(spawn_posts(&s, &town, &stats, &stop, &c, &accepted));
    tasks.extend(spawn_uploads(&s, &town, &stats, &stop, &c));
    let rss = watch_rss(pid, start, &s, &stats).await;
    stop.store(true, Ordering::Relaxed);
    let elapsed = start.elapsed().as_secs_f64();
    for t in tasks {
        let _ = tokio::time::timeout(Duration::from_secs(60), t).await;
    }
    let sum = stats.summary();
    let alive = rss_kib(pid).is_some();

    // Every inspection answered 2xx is in the registry, through the API.
    let accepted = accepted.lock().unwrap().clone();
    let missing = missing_inspections(&c, &base, &town, &accepted).await;
    // And in the store itself, counted by another connection.
    let st = ms4::store::open(&store).await.unwrap();
    let stored = st.count(ms4::domain::Layer::Inspections).await.unwrap();
    drop(st);
    drop(server);

    report(
        &s,
        elapsed,
        &sum,
        &rss,
        accepted.len(),
        missing,
        stored,
        alive,
    )
}

/// The readers: each worker keeps one connection and its share of the offered rate.
fn spawn_readers(
    s: &Settings,
    town: &Arc<Town>,
    stats: &Arc<Stats>,
    stop: &Arc<AtomicBool>,
    c: &reqwest::Client,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    let period = Duration::from_secs_f64(s.workers as f64 / s.rate);
    for w in 0..s.workers {
        let (town, stats, stop, c) = (town.clone(), stats.clone(), stop.clone(), c.clone());
        tasks.push(tokio::spawn(async move {
            let mut rng = rand::rngs::SmallRng::seed_from_u64(100 + w as u64);
            let mut ticker = tokio::time::interval_at(
                tokio::time::Instant::now() + period.mul_f64(w as f64 / 64.0),
                period,
            );
            while !stop.load(Ordering::Relaxed) {
                let due = ticker.tick().await;
                let (kind, req) = town.read(&c, &mut rng);
                let r = send(req).await;
                stats.record(kind, due.elapsed(), r.err());
            }
        }));
    }

    tasks
}

/// The inspection POSTs, a few a second; those answered 2xx go into `accepted`.
fn spawn_posts(
    s: &Settings,
    town: &Arc<Town>,
    stats: &Arc<Stats>,
    stop: &Arc<AtomicBool>,
    c: &reqwest::Client,
    accepted: &Arc<Mutex<Vec<(String, String)>>>,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    {
        let (town, stats, stop, c, accepted) = (
            town.clone(),
            stats.clone(),
            stop.clone(),
            c.clone(),
            accepted.clone(),
        );
        let every = Duration::from_secs_f64(1.0 / s.posts.max(0.01));
        tasks.push(tokio::spawn(async move {
            let mut ticker = tokio::time::interval(every);
            ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                let due = ticker.tick().await;
                let (asset, day) = town.inspection(n);
                n += 1;
                let body = json!({"asset_id": asset, "inspected_on": day,
                    "kind": "dry_weather_screening", "result": "pass", "notes": "soak"});
                let r = send(
                    c.post(format!("{}/api/inspections", town.base))
                        .bearer_auth(&town.reader)
                        .json(&body),
                )
                .await;
                if r.is_ok() {
                    accepted.lock().unwrap().push((asset, day));
                }
                stats.record(Kind::Inspection, due.elapsed(), r.err());
            }
        }));
    }

    tasks
}

/// An upload of a few new catch basins every minute (upserted into catch_basins).
fn spawn_uploads(
    s: &Settings,
    town: &Arc<Town>,
    stats: &Arc<Stats>,
    stop: &Arc<AtomicBool>,
    c: &reqwest::Client,
) -> Vec<tokio::task::JoinHandle<()>> {
    let mut tasks = Vec::new();
    {
        let (town, stats, stop, c) = (town.clone(), stats.clone(), stop.clone(), c.clone());
        let every = Duration::from_secs_f64(s.upload_every);
        // The points in CRS84, made now: the reprojector (GDAL) cannot cross threads.
        let uploads = (s.seconds / s.upload_every.max(1.0)).ceil() as usize + 1;
        let points: Vec<(f64, f64)> = {
            let rp = ms4::import::crs::Reprojector::new(2260, 4326).unwrap();
            let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
            let e = town.structures;
            (0..uploads * 10)
                .map(|_| {
                    let (x, y) = (rng.gen_range(e[0]..e[2]), rng.gen_range(e[1]..e[3]));
                    rp.point(x, y).unwrap()
                })
                .collect()
        };
        tasks.push(tokio::spawn(async move {
            let mut ticker =
                tokio::time::interval_at(tokio::time::Instant::now() + every / 2, every);
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                ticker.tick().await;
                if stop.load(Ordering::Relaxed) {
                    break;
                }
                if (n + 1) * 10 > points.len() {
                    break;
                }
                let features: Vec<Value> = (0..10)
                    .map(|i| {
                        let (lon, lat) = points[n * 10 + i];
                        json!({"type": "Feature",
                               "properties": {"asset_id": format!("CB-SOAK-{n}-{i}"), "status": "active"},
                               "geometry": {"type": "Point", "coordinates": [lon, lat]}})
                    })
                    .collect();
                let file = json!({"type": "FeatureCollection", "features": features}).to_string();
                let form = reqwest::multipart::Form::new().part(
                    "file",
                    reqwest::multipart::Part::bytes(file.into_bytes())
                        .file_name(format!("soak-basins-{n}.geojson")),
                );
                n += 1;
                let t = Instant::now();
                let r = send(
                    c.post(format!("{}/api/layers/catch_basins/import", town.base))
                        .bearer_auth(&town.analyst)
                        .multipart(form),
                )
                .await;
                let r = r.and_then(|v| match v["imported"].as_u64() {
                    Some(10) => Ok(v),
                    _ => Err(format!("the upload did not import 10 features: {v:.300}")),
                });
                stats.record(Kind::Upload, t.elapsed(), r.err());
            }
        }));
    }

    tasks
}

/// The server's RSS every few seconds, with progress, until the soak's time is up (or
/// the server is gone).
async fn watch_rss(pid: u32, start: Instant, s: &Settings, stats: &Stats) -> Vec<(f64, u64)> {
    let mut rss: Vec<(f64, u64)> = Vec::new();
    while start.elapsed() < s.duration() {
        if let Some(kib) = rss_kib(pid) {
            rss.push((start.elapsed().as_secs_f64(), kib));
        } else {
            eprintln!("the server is gone");
            break;
        }
        if rss.len() % 6 == 1 {
            let sum = stats.summary();
            eprintln!(
                "{:>5.0} s: {} requests, {} errors, RSS {:.1} MiB",
                start.elapsed().as_secs_f64(),
                sum.all.len(),
                sum.errors,
                rss.last().unwrap().1 as f64 / 1024.0
            );
        }
        tokio::time::sleep(RSS_EVERY).await;
    }
    rss
}

/// How many of the inspections answered 2xx the API does not show.
async fn missing_inspections(
    c: &reqwest::Client,
    base: &str,
    town: &Town,
    accepted: &[(String, String)],
) -> usize {
    let mut by_asset: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for (a, d) in accepted {
        by_asset.entry(a).or_default().push(d);
    }
    let mut missing = 0;
    for (asset, days) in &by_asset {
        let v = send(
            c.get(format!("{base}/api/assets/{asset}/inspections"))
                .bearer_auth(&town.reader),
        )
        .await
        .unwrap_or_else(|e| panic!("inspections of {asset}: {e}"));
        let have: std::collections::HashSet<&str> = v["inspections"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|i| i["inspected_on"].as_str())
            .collect();
        missing += days.iter().filter(|d| !have.contains(*d)).count();
    }
    missing
}

/// The RSS samples after the warm-up: the first, lowest, highest and last, and the
/// largest drift from the first (a share).
fn after_warmup(s: &Settings, rss: &[(f64, u64)]) -> ([u64; 4], f64) {
    let after: Vec<u64> = rss
        .iter()
        .filter(|(t, _)| *t >= s.warmup)
        .map(|(_, k)| *k)
        .collect();
    let (first, lo, hi, last) = match (after.first(), after.iter().min(), after.iter().max()) {
        (Some(f), Some(lo), Some(hi)) => (*f, *lo, *hi, *after.last().unwrap()),
        _ => (0, 0, 0, 0),
    };
    let drift = if first > 0 {
        (hi as f64 / first as f64 - 1.0).max(1.0 - lo as f64 / first as f64)
    } else {
        f64::INFINITY
    };
    ([first, lo, hi, last], drift)
}

/// The soak's figures, as its table and criteria print them: each request kind's p50 and
/// p99, then over every request the rate, p50, p99 and max, the errors and the RSS drift,
/// with the pass criteria as goals.
fn record_soak(s: &Settings, elapsed: f64, sum: &crate::stats::Summary, drift: f64) {
    use crate::common::results::{record, Figure, Goal};
    let data = format!(
        "{} parcels, {:.0} s, offered {} reads/s, {} inspection POSTs/s, an upload every {} s",
        crate::common::parcels(),
        s.seconds,
        s.rate,
        s.posts,
        s.upload_every
    );
    for (k, v) in &sum.by_kind {
        for (what, p) in [("p50", 0.5), ("p99", 0.99)] {
            let measure = format!("{}, {what}", k.name());
            record(Figure::lower(measure, &*data, ms(v, p), "ms"));
        }
    }
    let rate = sum.all.len() as f64 / elapsed;
    let all = "every request";
    record(
        Figure::higher(format!("{all}, rate"), &*data, rate, "req/s").goal(Goal::AtLeast(MIN_RATE)),
    );
    record(Figure::lower(
        format!("{all}, p50"),
        &*data,
        ms(&sum.all, 0.5),
        "ms",
    ));
    let p99 = Figure::lower(format!("{all}, p99"), &*data, ms(&sum.all, 0.99), "ms");
    record(p99.goal(Goal::Below(MAX_P99_MS)));
    record(Figure::lower(
        format!("{all}, max"),
        &*data,
        ms(&sum.all, 1.0),
        "ms",
    ));
    let errors = Figure::lower("errors", &*data, sum.errors as f64, "errors");
    record(errors.goal(Goal::AtMost(0.0)));
    let drift = Figure::lower(
        "largest RSS drift after warm-up",
        &*data,
        drift * 100.0,
        "%",
    );
    record(drift.goal(Goal::AtMost(MAX_RSS_DRIFT * 100.0)));
}

#[allow(clippy::too_many_arguments)]
fn report(
    s: &Settings,
    elapsed: f64,
    sum: &crate::stats::Summary,
    rss: &[(f64, u64)],
    accepted: usize,
    missing: usize,
    stored: u64,
    alive: bool,
) -> bool {
    let rate = sum.all.len() as f64 / elapsed;
    println!(
        "\n{} requests in {elapsed:.0} s: {rate:.0} requests/s (offered: {} reads/s, {} inspection POSTs/s, an upload every {} s), {} errors",
        sum.all.len(),
        s.rate,
        s.posts,
        s.upload_every,
        sum.errors
    );
    for e in &sum.first_errors {
        println!("  error: {e:.300}");
    }
    println!(
        "\n| request | count | per s | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|---:|"
    );
    for (k, v) in &sum.by_kind {
        println!(
            "| {} | {} | {:.1} | {:.2} | {:.2} | {:.1} |",
            k.name(),
            v.len(),
            v.len() as f64 / elapsed,
            ms(v, 0.5),
            ms(v, 0.99),
            ms(v, 1.0)
        );
    }
    let (p50, p99) = (ms(&sum.all, 0.5), ms(&sum.all, 0.99));
    println!(
        "| all | {} | {rate:.0} | {p50:.2} | {p99:.2} | {:.1} |",
        sum.all.len(),
        ms(&sum.all, 1.0)
    );
    let ([first, lo, hi, last], drift) = after_warmup(s, rss);
    record_soak(s, elapsed, sum, drift);
    let mib = |k: u64| k as f64 / 1024.0;
    println!(
        "\nRSS: {:.1} MiB at start, {:.1} MiB after {:.0} s of warm-up, then {:.1} to {:.1} MiB, {:.1} MiB at the end ({} samples every {} s; largest drift {:.1}%)",
        mib(rss.first().map_or(0, |r| r.1)),
        mib(first),
        s.warmup,
        mib(lo),
        mib(hi),
        mib(last),
        rss.len(),
        RSS_EVERY.as_secs(),
        drift * 100.0
    );
    println!(
        "inspections: {accepted} answered 2xx, {missing} of them missing afterwards; {stored} in the store"
    );
    let checks = [
        (
            format!("requests/s {rate:.0} >= {MIN_RATE}"),
            rate >= MIN_RATE,
        ),
        (format!("errors {} == 0", sum.errors), sum.errors == 0),
        (
            format!("p99 {p99:.2} ms < {MAX_P99_MS} ms"),
            p99 < MAX_P99_MS,
        ),
        (
            format!(
                "RSS after warm-up within {:.0}% ({:.1}%)",
                MAX_RSS_DRIFT * 100.0,
                drift * 100.0
            ),
            drift <= MAX_RSS_DRIFT,
        ),
        (
            format!("every 2xx inspection present ({missing} missing)"),
            missing == 0 && stored as usize >= accepted,
        ),
        ("the server ran to the end".to_string(), alive),
    ];
    println!();
    for (what, ok) in &checks {
        println!("{} {what}", if *ok { "PASS" } else { "FAIL" });
    }
    checks.iter().all(|(_, ok)| *ok)
}
