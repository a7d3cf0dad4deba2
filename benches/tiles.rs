//! Vector tile speed on the synthetic county: ms4's tiles from the snapshot beside
//! PostGIS's `ST_AsMVT` + `ST_AsMVTGeom` over GiST-indexed tables (the SQL martin's table
//! sources issue), the same tile list, the same data, the same run; then the tiles over
//! HTTP with wrk, and how soon an inspection shows in the tiles.
//!
//! MS4_TEST_PG=postgres://ms4:ms4@127.0.0.1:5432/postgres cargo bench --bench tiles
//!
//! The PostGIS ratio is taken from rounds that alternate between PostGIS and ms4, so a
//! drift in the machine's speed during the run falls on both sides alike; the same tiles
//! asked of both in turn, tile by tile, give the cold figure beside it. The tile is the
//! page's `/tiles/{z}/{x}/{y}.mvt`, the registry's layers, as PostGIS and martin make it;
//! the mapping layers (answers derived from the whole snapshot, each in tiles of its own)
//! are timed apart.
//! MS4_BENCH_PARCELS=100000 ... for a smaller county; MS4_BENCH_SECONDS for wrk's run.
//!
//! `MS4_BENCH_ONLY=render` times the in-process renders alone (for a profiler), over
//! `MS4_BENCH_ROUNDS` rounds of the list (3 by default): back to back, after a 4 ms sleep
//! and after 4 ms of spinning, then each layer alone.
//!
//! When a `martin` binary is on PATH (or in cargo's bin folder), it serves the same
//! PostGIS tables and the same tile list is timed through it over HTTP, beside `ms4 serve`
//! over HTTP. `MS4_BENCH_INSTALL_MARTIN=1` lets the set-up run `cargo install martin
//! --version 1.14.0 --locked` first (a long build; never under CI).

mod common;
#[path = "tiles/peers.rs"]
mod peers;
#[allow(dead_code)]
#[path = "http/serve.rs"]
mod serve;
#[allow(dead_code)]
#[path = "http/wrk.rs"]
mod wrk;

use std::sync::Arc;
use std::time::Instant;

use common::results::{record, Figure, Goal};
use ms4::domain::Layer;
use ms4::spatial::Snapshot;
use ms4::tiles::{self, TileId, TileLayer, TILE_LAYERS};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// wrk's threads and connections (two cores: two threads).
pub(crate) const THREADS: usize = 2;
pub(crate) const CONNECTIONS: usize = 32;
/// The sample of the county tiled: a square this many metres across at its centre.
const SAMPLE_M: f64 = 3000.0;

fn main() {
    common::block_on("tiles", run());
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

/// What the figures were measured on, as the results record it.
fn figure_data(tiles: usize, parcels: usize) -> String {
    format!("{tiles} tiles z12–z16, {parcels} parcels")
}

/// Every tile z12 to z16 over the sample square.
fn tile_list(snap: &Snapshot) -> Vec<TileId> {
    let e = snap.layer(Layer::Parcels).extent().expect("parcels");
    let rp = ms4::import::crs::Reprojector::new(snap.meta.srid, 3857).unwrap();
    let (cx, cy) = rp.point((e[0] + e[2]) / 2.0, (e[1] + e[3]) / 2.0).unwrap();
    let h = SAMPLE_M / 2.0;
    let b = [cx - h, cy - h, cx + h, cy + h];
    let mut out = Vec::new();
    for z in 12..=16u8 {
        let (x0, y0, x1, y1) = TileId::range(z, b);
        for x in x0..=x1 {
            for y in y0..=y1 {
                out.push(TileId { z, x, y });
            }
        }
    }
    out
}

async fn run() {
    let parcels = common::parcels();
    let data = common::synthetic_county(parcels);
    let gpkg = format!("sqlite://{}", data.join("registry.gpkg").display());
    let sqlite = common::county_registry(&gpkg, &data).await;
    let snap = Arc::new(Snapshot::load(sqlite.as_ref()).await.unwrap());
    let profile = ms4::rules::Profile::builtin(&snap.meta.jurisdiction).unwrap();
    let list = tile_list(&snap);
    eprintln!(
        "{} tiles z12-z16 over a {SAMPLE_M} m square at the county's centre",
        list.len()
    );

    // ms4 in process: every tile of the list, the registry's layers (the page's tile).
    let state = tiles::Tiles::default();
    let net = std::sync::OnceLock::new();
    let source = || -> anyhow::Result<Arc<ms4::spatial::network::Network>> {
        Ok(net
            .get_or_init(|| Arc::new(ms4::answer::build_network(&snap, &profile)))
            .clone())
    };
    let layers = tiles::spec::registry_layers();
    let mapping: Vec<&'static TileLayer> = TILE_LAYERS
        .iter()
        .filter(|l| l.registry().is_none())
        .collect();
    let today = chrono::Local::now().date_naive();
    let r = Renderer {
        state: &state,
        snap: &snap,
        profile: &profile,
        source: &source,
        layers: &layers,
        today,
    };
    let t = Instant::now();
    let mut sizes = Vec::new();
    for tile in &list {
        let b = r.render(*tile);
        sizes.push((b.len(), *tile));
    }
    eprintln!(
        "first pass (Web Mercator copies, findings, network built): {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let only_render = std::env::var("MS4_BENCH_ONLY").is_ok_and(|o| o == "render");
    let rounds: usize = std::env::var("MS4_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let mut ours = Vec::new();
    for _ in 0..rounds {
        for tile in &list {
            let t = Instant::now();
            std::hint::black_box(r.render(*tile));
            ours.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    let ours_med = median(&mut ours);
    let ours_p99 = pct(&mut ours, 0.99);
    sizes.sort_by_key(|s| s.0);
    let (max_size, max_tile) = *sizes.last().unwrap();
    let bytes: usize = sizes.iter().map(|s| s.0).sum();
    println!(
        "ms4 (in process): median {ours_med:.3} ms per tile, p99 {ours_p99:.3} ms; largest tile {:.1} KB (z{} {}/{}), mean {:.1} KB",
        max_size as f64 / 1024.0,
        max_tile.z,
        max_tile.x,
        max_tile.y,
        bytes as f64 / list.len() as f64 / 1024.0
    );
    let fig_data = figure_data(list.len(), parcels);
    for (measure, v) in [
        (
            "tiles in process, ms4's own rounds: median per tile",
            ours_med,
        ),
        ("tiles in process, ms4's own rounds: p99 per tile", ours_p99),
    ] {
        record(Figure::lower(measure, &*fig_data, v, "ms"));
    }
    record_largest("largest tile", &fig_data, max_tile, max_size);
    let mean_kb = bytes as f64 / list.len() as f64 / 1024.0;
    record(Figure::lower("mean tile size", &*fig_data, mean_kb, "KB"));
    mapping_tiles(&r, &mapping, &list, rounds, &fig_data);
    if only_render {
        render_detail(&r, &list, rounds, max_tile);
        return;
    }
    let martin_med = postgis_side(&r, &list, rounds, parcels, &data).await;
    http_side(&gpkg, &list, &snap, today, martin_med).await;
    println!(
        "{parcels} parcels; {} tiles; the machine: see BENCHMARKS.md",
        list.len()
    );
}

/// What every render of the bench shares: the tiles' state, the snapshot, the profile,
/// the network's source, the style's layers and the day.
struct Renderer<'a> {
    state: &'a tiles::Tiles,
    snap: &'a Arc<Snapshot>,
    profile: &'a ms4::rules::Profile,
    source: &'a dyn Fn() -> anyhow::Result<Arc<ms4::spatial::network::Network>>,
    layers: &'a [&'static TileLayer],
    today: chrono::NaiveDate,
}

impl Renderer<'_> {
    /// One tile, all the style's layers.
    fn render(&self, tile: TileId) -> Vec<u8> {
        self.render_layers(self.layers, tile)
    }

    /// One tile, these layers only.
    fn render_layers(&self, layers: &[&'static TileLayer], tile: TileId) -> Vec<u8> {
        tiles::render(
            self.state,
            self.snap,
            self.profile,
            self.source,
            layers,
            tile,
            self.today,
        )
        .unwrap()
    }

    /// How long one tile takes to render, in milliseconds.
    fn timed(&self, tile: TileId) -> f64 {
        let t = Instant::now();
        std::hint::black_box(self.render(tile));
        t.elapsed().as_secs_f64() * 1000.0
    }
}

/// The mapping layers' own tiles (monitoring locations, sewersheds), each layer's tile of
/// every tile of the list, once derived: the median and the largest.
fn mapping_tiles(
    r: &Renderer<'_>,
    mapping: &[&'static TileLayer],
    list: &[TileId],
    rounds: usize,
    fig_data: &str,
) {
    let t = Instant::now();
    for l in mapping {
        r.render_layers(&[*l], list[0]);
    }
    eprintln!(
        "the mapping layers derived (every monitoring location and sewershed): {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let mut times = Vec::new();
    let mut largest = (0usize, "", list[0]);
    for _ in 0..rounds {
        for l in mapping {
            for tile in list {
                let t = Instant::now();
                let n = r.render_layers(&[*l], *tile).len();
                times.push(t.elapsed().as_secs_f64() * 1000.0);
                if n > largest.0 {
                    largest = (n, l.name(), *tile);
                }
            }
        }
    }
    let med = median(&mut times);
    let p99 = pct(&mut times, 0.99);
    let (n, name, tile) = largest;
    println!(
        "the mapping layers' own tiles (in process): median {med:.3} ms per tile, p99 {p99:.3} ms; largest {:.1} KB ({name}, z{} {}/{})",
        n as f64 / 1024.0,
        tile.z,
        tile.x,
        tile.y
    );
    let data = format!("{fig_data}, monitoring_locations and sewersheds each");
    record(Figure::lower(
        "mapping layers' own tiles in process: median per tile",
        &*data,
        med,
        "ms",
    ));
    record_largest(
        "largest mapping layer tile",
        &format!("{data}; {name}"),
        tile,
        n,
    );
}

/// The largest tile's size (`bytes`), held to 500 KB.
fn record_largest(measure: &str, data: &str, tile: TileId, bytes: usize) {
    record(
        Figure::lower(
            measure,
            format!("{data}; z{} {}/{}", tile.z, tile.x, tile.y),
            bytes as f64 / 1024.0,
            "KB",
        )
        .goal(Goal::Below(500.0)),
    );
}

/// Only the render (`MS4_BENCH_ONLY=render`): the same renders after a pause, what a
/// write costs the next tile, and each layer's share.
fn render_detail(r: &Renderer<'_>, list: &[TileId], rounds: usize, largest: TileId) {
    // The same renders after a pause, idle or busy: how much of a lone tile's time
    // is the machine's, not the render's (see BENCHMARKS.md, the tile-by-tile figure).
    for (label, pause) in [
        ("back to back", None),
        ("after sleeping 4 ms", Some(false)),
        ("after spinning 4 ms", Some(true)),
    ] {
        let mut v = Vec::new();
        for _ in 0..rounds {
            for tile in list {
                match pause {
                    Some(false) => std::thread::sleep(std::time::Duration::from_millis(4)),
                    Some(true) => {
                        let t = Instant::now();
                        while t.elapsed().as_micros() < 4000 {
                            std::hint::spin_loop();
                        }
                    }
                    None => {}
                }
                let t = Instant::now();
                std::hint::black_box(r.render(*tile));
                v.push(t.elapsed().as_secs_f64() * 1000.0);
            }
        }
        eprintln!("  {label:<20} median {:.3} ms per tile", median(&mut v));
    }
    // What a write costs the next tile with connections or SMPs: the findings and
    // easement states derived again for the new snapshot (the network kept).
    let t = Instant::now();
    let d = tiles::props::Derived::of(r.snap, r.profile, r.source).unwrap();
    eprintln!(
        "findings of {} connections and {} SMPs derived again: {:.1} ms",
        d.findings.len(),
        d.easements.len(),
        t.elapsed().as_secs_f64() * 1000.0
    );
    // Where the time goes: each layer alone over the same list, summed.
    for l in r.layers {
        let one = [*l];
        let t = Instant::now();
        let mut n = 0usize;
        for _ in 0..rounds {
            for tile in list {
                n += r.render_layers(&one, *tile).len();
            }
        }
        eprintln!(
            "  {:<18} {:>8.3} ms per round, {:>8.1} KB per round",
            l.name(),
            t.elapsed().as_secs_f64() * 1000.0 / rounds as f64,
            n as f64 / rounds as f64 / 1024.0
        );
    }
    // What the largest tile is made of.
    let parts: Vec<String> = r
        .layers
        .iter()
        .map(|l| (l.name(), r.render_layers(&[*l], largest).len()))
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {:.1} KB", n as f64 / 1024.0))
        .collect();
    eprintln!(
        "the largest tile, z{} {}/{}: {}",
        largest.z,
        largest.x,
        largest.y,
        parts.join(", ")
    );
}

/// PostGIS (`ST_AsMVT`) on the same tiles, alternating with ms4, then tile by tile, and
/// martin when it is there; returns martin's median.
async fn postgis_side(
    r: &Renderer<'_>,
    list: &[TileId],
    rounds: usize,
    parcels: usize,
    data: &std::path::Path,
) -> Option<f64> {
    // PostGIS: the same tiles, the same layers, over GiST indexes.
    let mut martin_med: Option<f64> = None;
    if let Ok(base) = std::env::var("MS4_TEST_PG") {
        let mut u = url::Url::parse(&base).unwrap();
        u.set_path(&format!("ms4_bench_county_{parcels}"));
        let _pg = common::county_registry(u.as_str(), data).await;
        let pool = sqlx::PgPool::connect(u.as_str()).await.unwrap();
        sqlx::query("ANALYZE").execute(&pool).await.unwrap();
        let sql: Vec<String> = (0..=22)
            .map(|z| peers::pg_sql(z, r.snap.meta.srid))
            .collect();
        let pg_tile = |tile: TileId| {
            let q = sql[tile.z as usize].clone();
            let pool = &pool;
            async move {
                let (b,): (Vec<u8>,) = sqlx::query_as(sqlx::AssertSqlSafe(q))
                    .bind(tile.z as i32)
                    .bind(tile.x as i32)
                    .bind(tile.y as i32)
                    .fetch_one(pool)
                    .await
                    .unwrap();
                b
            }
        };
        let render = |tile: TileId| r.timed(tile);
        // Alternating rounds: this machine's speed drifts over a run (a shared virtual
        // machine), and a side timed a minute after the other would carry the drift into
        // the ratio. So PostGIS answers the whole list, then ms4 renders it, round after
        // round (after one round that warms PostgreSQL's cache and plans): a drift falls
        // on both sides alike, and each side takes its tiles one after another, as a tile
        // server under steady use does.
        let mut theirs = Vec::new();
        let mut ours_alt = Vec::new();
        let mut pg_bytes = 0usize;
        for round in 0..(1 + rounds) {
            for tile in list {
                let t = Instant::now();
                let b = pg_tile(*tile).await;
                if round > 0 {
                    theirs.push(t.elapsed().as_secs_f64() * 1000.0);
                    pg_bytes += b.len();
                }
            }
            if round > 0 {
                ours_alt.extend(list.iter().map(|t| render(*t)));
            }
        }
        // Then tile by tile: PostGIS one tile, ms4 the same tile. Each ms4 render then
        // starts with its caches taken by PostgreSQL and by the wait, as a lone request
        // to an idle server does: the cold figure, reported beside the other.
        let mut theirs_tbt = Vec::new();
        let mut ours_tbt = Vec::new();
        for _ in 0..rounds {
            for tile in list {
                let t = Instant::now();
                std::hint::black_box(pg_tile(*tile).await);
                theirs_tbt.push(t.elapsed().as_secs_f64() * 1000.0);
                ours_tbt.push(render(*tile));
            }
        }
        pg_bytes /= rounds.max(1);
        peers::martin_side(u.as_str(), list, &mut martin_med).await;
        let pg_med = median(&mut theirs);
        let alt_med = median(&mut ours_alt);
        println!(
            "PostGIS (ST_AsMVT), rounds alternating with ms4's: median {pg_med:.3} ms per tile, p99 {:.3} ms, mean {:.1} KB; ms4 in those rounds: median {alt_med:.3} ms, p99 {:.3} ms; ms4 is {:.1}x faster at the median",
            pct(&mut theirs, 0.99),
            pg_bytes as f64 / list.len() as f64 / 1024.0,
            pct(&mut ours_alt, 0.99),
            pg_med / alt_med,
        );
        let (pg_tbt, ours_tbt_med) = (median(&mut theirs_tbt), median(&mut ours_tbt));
        println!(
            "tile by tile, each ms4 render right after PostGIS's answer of the same tile: PostGIS median {pg_tbt:.3} ms, ms4 median {ours_tbt_med:.3} ms (p99 {:.3} ms); ms4 is {:.1}x faster at the median",
            pct(&mut ours_tbt, 0.99),
            pg_tbt / ours_tbt_med
        );
        let alt_p99 = [pct(&mut ours_alt, 0.99), pct(&mut theirs, 0.99)];
        let tbt_p99 = pct(&mut ours_tbt, 0.99);
        let fig_data = figure_data(list.len(), parcels);
        let [alt, tbt] = [[alt_med, pg_med], [ours_tbt_med, pg_tbt]];
        record_beside_postgis(&fig_data, alt, alt_p99, tbt, tbt_p99);
    } else {
        eprintln!("MS4_TEST_PG is not set: no PostGIS side to compare with");
    }

    martin_med
}

/// The figures beside PostGIS, each `[ms4, PostGIS]` in milliseconds: the medians of the
/// alternating rounds and of the tiles asked in turn held to 10× (issue 31), the p99s.
fn record_beside_postgis(
    data: &str,
    alt: [f64; 2],
    alt_p99: [f64; 2],
    tbt: [f64; 2],
    tbt_p99: f64,
) {
    let pg = "PostGIS `ST_AsMVT`";
    let beside = |measure: &str, [ours, theirs]: [f64; 2]| {
        Figure::lower(measure, data, ours, "ms").peer(pg, theirs)
    };
    let ten = Goal::Ratio(10.0);
    record(
        beside(
            "tiles beside PostGIS, alternating rounds: median per tile",
            alt,
        )
        .goal(ten),
    );
    record(beside(
        "tiles beside PostGIS, alternating rounds: p99 per tile",
        alt_p99,
    ));
    record(beside("tiles beside PostGIS, tile by tile: median per tile", tbt).goal(ten));
    let p99 = "tiles beside PostGIS, tile by tile: ms4's p99 per tile";
    record(Figure::lower(p99, data, tbt_p99, "ms"));
}

/// ms4 over HTTP: wrk with every tile rendered afresh, then with the tiles kept for the
/// snapshot (and what an inspection costs that), and one request at a time against
/// martin.
async fn http_side(
    gpkg: &str,
    list: &[TileId],
    snap: &Arc<Snapshot>,
    today: chrono::NaiveDate,
    martin_med: Option<f64>,
) {
    // Over HTTP: wrk cycling through the same tile list, with a token; first with every
    // tile rendered afresh (`--tile-cache 0`), then as served by default, keeping the
    // tiles rendered from the current snapshot.
    let token = serve::read_token(gpkg);
    let c = reqwest::Client::new();
    let data = figure_data(list.len(), snap.layer(Layer::Parcels).features.len());
    let mut rendered_rps = None;
    for (label, extra) in [
        (
            "each tile rendered afresh (--tile-cache 0)",
            &["--tile-cache", "0"][..],
        ),
        ("tiles kept for the snapshot (default)", &[][..]),
    ] {
        let (server, base) = serve::start_ms4_with(gpkg, extra);
        let load = over_http(&c, &base, &token, list, &data).await;
        if rendered_rps.is_none() {
            // One request at a time, every tile rendered: the same measure as martin's.
            let ours = sequential(&c, &base, Some(&token), list, |t| {
                format!("/tiles/{}/{}/{}.mvt", t.z, t.x, t.y)
            })
            .await;
            let f = Figure::lower(
                "tiles over HTTP, one request at a time, every tile rendered (`--tile-cache 0`): median per tile",
                &*data,
                ours,
                "ms",
            )
            .goal(Goal::Ratio(5.0));
            match martin_med {
                Some(m) => {
                    println!(
                        "ms4 over HTTP, one request at a time (--tile-cache 0): median {ours:.3} ms per tile; martin {m:.3} ms; ms4 is {:.1}x faster at the median",
                        m / ours
                    );
                    record(f.peer("martin", m));
                }
                None => {
                    println!(
                        "ms4 over HTTP, one request at a time (--tile-cache 0): median {ours:.3} ms per tile (no martin to compare with)"
                    );
                    record(f);
                }
            }
        }
        println!(
            "ms4 over HTTP, {label} (wrk, {THREADS} threads, {CONNECTIONS} connections): {:.0} tiles/s, p50 {:.2} ms, p99 {:.2} ms, {} requests, {} non-2xx {}",
            load.rps, load.p50_ms, load.p99_ms, load.requests, load.bad, load.errors
        );
        record_wrk(label, &data, &load, rendered_rps);
        match rendered_rps {
            None => {
                rendered_rps = Some(load.rps);
                drop(server);
            }
            Some(r) => {
                println!(
                    "keeping tiles for the snapshot serves {:.1}x the tiles per second",
                    load.rps / r
                );
                inspection_shows(server, base, &c, &token, gpkg, snap, today).await;
            }
        }
    }
}

/// The figures of one wrk run over the tiles; the run keeping tiles beside the one
/// rendering every tile (`rendered_rps`), with its goals.
fn record_wrk(label: &str, data: &str, load: &wrk::Load, rendered_rps: Option<f64>) {
    let rps = Figure::higher(
        format!("tiles over HTTP, wrk, {label}: tiles/s"),
        data,
        load.rps,
        "tiles/s",
    );
    let p99 = Figure::lower(
        format!("tiles over HTTP, wrk, {label}: p99"),
        data,
        load.p99_ms,
        "ms",
    );
    match rendered_rps {
        Some(r) => {
            record(
                rps.peer("the same server rendering every tile", r)
                    .goal(Goal::AtLeast(3000.0)),
            );
            record(p99.goal(Goal::Below(20.0)));
        }
        None => {
            record(rps);
            record(p99);
        }
    }
    let p50 = format!("tiles over HTTP, wrk, {label}: p50");
    record(Figure::lower(p50, data, load.p50_ms, "ms"));
}

/// wrk over the tile list after every tile was fetched once (the first fetch of a tile
/// with connections derives the snapshot's findings: the drainage network and every
/// connection's answer, which on the county takes longer than wrk's request timeout; the
/// derivation is printed apart).
async fn over_http(
    c: &reqwest::Client,
    base: &str,
    token: &str,
    list: &[TileId],
    data: &str,
) -> wrk::Load {
    let tj: serde_json::Value = c
        .get(format!("{base}/tiles.json"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let g = tj["generation"].as_str().unwrap().to_string();
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tiles.lua");
    let paths: Vec<String> = list
        .iter()
        .map(|t| format!("\"/tiles/{}/{}/{}.mvt?g={g}\"", t.z, t.x, t.y))
        .collect();
    wrk::lua(
        &script,
        Some(token),
        &format!("local paths = {{{}}}\nlocal n = 0", paths.join(",")),
        "  n = n + 1\n  return wrk.format(\"GET\", paths[((n + id * 7919) % #paths) + 1])",
    );
    let first = Instant::now();
    for t in list {
        let r = c
            .get(format!("{base}/tiles/{}/{}/{}.mvt?g={g}", t.z, t.x, t.y))
            .bearer_auth(token)
            .timeout(std::time::Duration::from_secs(600))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "tile {t:?}: {}", r.status());
        r.bytes().await.unwrap();
    }
    let first = first.elapsed().as_secs_f64();
    println!(
        "ms4 over HTTP, each tile of the list once from a fresh server (the first derives the findings): {first:.1} s"
    );
    record(Figure::lower(
        "tiles over HTTP, each tile of the list once from a fresh server",
        data,
        first,
        "s",
    ));
    wrk::warm(base, &script);
    wrk::wrk(base, &script)
}

/// The median time of the tiles of `list`, asked for one at a time at `path(tile)` on
/// `base`, after one untimed round (the same warm-up PostGIS gets).
pub(crate) async fn sequential(
    c: &reqwest::Client,
    base: &str,
    token: Option<&str>,
    list: &[TileId],
    path: impl Fn(&TileId) -> String,
) -> f64 {
    let mut times = Vec::new();
    for round in 0..2 {
        for t in list {
            let start = Instant::now();
            let mut req = c.get(format!("{base}{}", path(t)));
            if let Some(token) = token {
                req = req.bearer_auth(token);
            }
            let r = req
                .timeout(std::time::Duration::from_secs(600))
                .send()
                .await
                .unwrap();
            assert!(
                r.status().is_success() || r.status() == 204,
                "{t:?}: {}",
                r.status()
            );
            r.bytes().await.unwrap();
            if round == 1 {
                times.push(start.elapsed().as_secs_f64() * 1000.0);
            }
        }
    }
    median(&mut times)
}

/// A generation change: an inspection POSTed, then the tile holding the asset asked for
/// until it shows the inspection (on the server keeping tiles, so the kept tile must go).
async fn inspection_shows(
    _server: serve::Proc,
    base: String,
    c: &reqwest::Client,
    token: &str,
    gpkg: &str,
    snap: &ms4::spatial::Snapshot,
    today: chrono::NaiveDate,
) {
    let inspector = serve::read_token(gpkg);
    let outfalls = &snap.layer(Layer::Outfalls).features;
    let rp = ms4::import::crs::Reprojector::new(snap.meta.srid, 3857).unwrap();
    let mut seen_ms = Vec::new();
    let mut seen_all_ms = Vec::new();
    for (k, of) in outfalls
        .iter()
        .step_by(outfalls.len().max(5) / 5)
        .take(5)
        .enumerate()
    {
        let geo_types::Geometry::Point(p) = of.geom.clone().unwrap() else {
            continue;
        };
        let (mx, my) = rp.point(p.x(), p.y()).unwrap();
        let (x, y, _, _) = TileId::range(16, [mx, my, mx, my]);
        let day = today - chrono::Duration::days(k as i64);
        // The page's tile (every layer, connections and their findings among them) and
        // the outfalls' own.
        let all_url = format!("{base}/tiles/16/{x}/{y}.mvt");
        let tile_url = format!("{base}/tiles/outfalls/16/{x}/{y}.mvt");
        // Asked for once before, so the server keeps them: the write must drop them.
        for u in [&all_url, &tile_url] {
            let before = c.get(u).bearer_auth(token).send().await.unwrap();
            assert!(before.status().is_success());
            before.bytes().await.unwrap();
        }
        let t = Instant::now();
        let r = c
            .post(format!("{base}/api/inspections"))
            .bearer_auth(&inspector)
            .json(&serde_json::json!({"asset_id": of.id, "inspected_on": today.to_string(), "kind": "dry_weather_screening", "result": format!("bench-{k}-{day}")}))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success(), "{}", r.text().await.unwrap());
        for (u, out) in [(&all_url, &mut seen_all_ms), (&tile_url, &mut seen_ms)] {
            loop {
                let b = c
                    .get(u)
                    .bearer_auth(token)
                    .send()
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap();
                if shows(&b, &of.id, &format!("bench-{k}-{day}")) {
                    break;
                }
                assert!(
                    t.elapsed().as_secs() < 120,
                    "the inspection never showed in {u}"
                );
            }
            out.push(t.elapsed().as_secs_f64() * 1000.0);
        }
    }
    println!(
        "an inspection POSTed shows in the page's tile (every layer) after (POST included): median {:.1} ms, max {:.1} ms over {} inspections",
        median(&mut seen_all_ms),
        seen_all_ms.iter().cloned().fold(0.0, f64::max),
        seen_all_ms.len()
    );
    println!(
        "and in the outfalls' own tile after (POST included, then the page's tile first): median {:.1} ms, max {:.1} ms over {} inspections",
        median(&mut seen_ms),
        seen_ms.iter().cloned().fold(0.0, f64::max),
        seen_ms.len()
    );
    record_inspection_shows(snap, &mut seen_all_ms, &mut seen_ms);
}

/// The figures of an inspection shown in the tiles: the page's tile (held to 100 ms) and
/// the outfalls' own, median and max.
fn record_inspection_shows(snap: &Snapshot, all: &mut [f64], own: &mut [f64]) {
    let data = format!(
        "{} inspections POSTed, z16 tiles, {} parcels",
        all.len(),
        snap.layer(Layer::Parcels).features.len()
    );
    for (what, v) in [
        ("the page's tile (every layer)", all),
        ("the outfalls' own tile", own),
    ] {
        let max = v.iter().cloned().fold(0.0, f64::max);
        let med = Figure::lower(
            format!("an inspection POSTed shows in {what}: median"),
            &*data,
            median(v),
            "ms",
        );
        record(med.goal(Goal::Below(100.0)));
        record(Figure::lower(
            format!("an inspection POSTed shows in {what}: max"),
            &*data,
            max,
            "ms",
        ));
    }
}

/// Whether an outfalls tile has the feature `id` with `last_screening` = `result`.
fn shows(bytes: &[u8], id: &str, result: &str) -> bool {
    use geozero::mvt::{Message, Tile};
    let Ok(tile) = Tile::decode(bytes) else {
        return false;
    };
    tile.layers.iter().any(|l| {
        let key = |k: &str| l.keys.iter().position(|x| x == k);
        let (Some(ki), Some(ks)) = (key("id"), key("last_screening")) else {
            return false;
        };
        l.features.iter().any(|f| {
            let tag = |k: usize| {
                f.tags
                    .chunks(2)
                    .find(|c| c[0] as usize == k)
                    .and_then(|c| l.values[c[1] as usize].string_value.clone())
            };
            tag(ki).as_deref() == Some(id) && tag(ks).as_deref() == Some(result)
        })
    })
}
