//! Query speed on the county synthetic data: the in-memory snapshot beside PostGIS (GiST
//! indexes, the equivalent SQL, the same data, the same run).
//!
//! MS4_TEST_PG=postgres://ms4:ms4@127.0.0.1:5432/postgres cargo bench --bench queries
//! MS4_BENCH_PARCELS=100000 ... for a smaller county.
//!
//! The registries are built once (a GeoPackage and a PostGIS database under the names
//! below) and reused by later runs.

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use geo_types::Point;
use ms4::domain::Layer;
use ms4::import::{crs, import, ImportOptions};
use ms4::spatial::query::{self, NearbyQuery, FACILITY_LAYERS};
use ms4::spatial::Snapshot;
use ms4::store::{self, Store};
use rand::{Rng, SeedableRng};

// The same allocator as the `ms4` binary the service runs in.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const QUERIES: usize = 2000;
/// 500 US survey feet, in the registry's unit (EPSG:2260 is in US feet).
const RADIUS: f64 = 500.0;
const K: usize = 10;
const LAYERS: [Layer; 6] = [
    Layer::CatchBasins,
    Layer::Manholes,
    Layer::Outfalls,
    Layer::Smps,
    Layer::Easements,
    Layer::Boundary,
];

async fn build(url: &str, data: &Path) -> Arc<dyn Store> {
    if let Ok(s) = store::open(url).await {
        if s.count(Layer::CatchBasins).await.unwrap_or(0) > 0 {
            return s;
        }
    }
    let meta = crs::registry_meta("north-castle-ny", 2260).unwrap();
    let s = store::create(url, &meta)
        .await
        .expect("create the bench registry");
    for layer in LAYERS {
        let file = data.join(format!("{layer}.gpkg"));
        let r = import(s.clone(), ImportOptions::new(layer, &file))
            .await
            .expect("import");
        eprintln!("  {layer}: {} features into {}", r.imported, s.kind());
    }
    s
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("query benchmark: run with `cargo bench --bench queries`");
        return;
    }
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(run());
}

async fn run() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let parcels: usize = std::env::var("MS4_BENCH_PARCELS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let data = root
        .join("target/bench-data")
        .join(format!("synth-{parcels}"));
    if !data.join("catch_basins.gpkg").exists() {
        let st = std::process::Command::new(env!("CARGO_BIN_EXE_ms4"))
            .args([
                "synth",
                "--scale",
                &parcels.to_string(),
                "--seed",
                "7",
                "--crs",
                "EPSG:2260",
                "--out",
            ])
            .arg(&data)
            .status()
            .unwrap();
        assert!(st.success());
    }
    let gpkg = format!("sqlite://{}", data.join("registry.gpkg").display());
    let sqlite = build(&gpkg, &data).await;
    let t = Instant::now();
    let snap = Snapshot::load(sqlite.as_ref()).await.unwrap();
    eprintln!("snapshot loaded in {:.1} s", t.elapsed().as_secs_f64());

    let Some(base) = std::env::var("MS4_TEST_PG").ok() else {
        eprintln!("MS4_TEST_PG is not set: no PostGIS side to compare with");
        return;
    };
    let mut u = url::Url::parse(&base).unwrap();
    u.set_path(&format!("ms4_bench_county_{parcels}"));
    let pg = build(u.as_str(), &data).await;
    let pool = sqlx::PgPool::connect(u.as_str()).await.unwrap();
    sqlx::query("ANALYZE").execute(&pool).await.unwrap();

    // Query points spread over the town's extent.
    let ext = snap.layer(Layer::CatchBasins).extent().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let points: Vec<Point<f64>> = (0..QUERIES)
        .map(|_| Point::new(rng.gen_range(ext[0]..ext[2]), rng.gen_range(ext[1]..ext[3])))
        .collect();

    // ms4: the whole answer (distance, bearing, status, last inspection, easement).
    let t = Instant::now();
    let mut found = 0usize;
    let layers = FACILITY_LAYERS.to_vec();
    for p in &points {
        let q = NearbyQuery {
            at: *p,
            radius: Some(RADIUS),
            k: Some(K),
            layers: layers.clone(),
        };
        found += query::nearby(&snap, &q).len();
    }
    let ours = t.elapsed().as_secs_f64() / QUERIES as f64;

    // PostGIS: the same answer in SQL, one prepared statement per query.
    let sql = "
        WITH pt AS (SELECT ST_SetSRID(ST_MakePoint($1, $2), 2260) AS g),
        near AS (
          SELECT * FROM (
            SELECT 'catch_basins' AS layer, asset_id AS id, status, geom, ST_Distance(geom, pt.g) AS d FROM catch_basins, pt WHERE ST_DWithin(geom, pt.g, $3)
            UNION ALL SELECT 'manholes', asset_id, status, geom, ST_Distance(geom, pt.g) FROM manholes, pt WHERE ST_DWithin(geom, pt.g, $3)
            UNION ALL SELECT 'outfalls', asset_id, status, geom, ST_Distance(geom, pt.g) FROM outfalls, pt WHERE ST_DWithin(geom, pt.g, $3)
            UNION ALL SELECT 'smps', asset_id, status, geom, ST_Distance(geom, pt.g) FROM smps, pt WHERE ST_DWithin(geom, pt.g, $3)
          ) x ORDER BY d, layer LIMIT $4)
        SELECT near.layer, near.id, near.d, near.status, e.easement_id,
               (SELECT max(inspected_on)::text FROM inspections i WHERE i.asset_id = near.id)
        FROM near LEFT JOIN LATERAL (
          SELECT easement_id FROM easements e WHERE ST_Intersects(e.geom, near.geom) ORDER BY easement_id LIMIT 1
        ) e ON true ORDER BY near.d, near.layer";
    let t = Instant::now();
    let mut pg_found = 0usize;
    for p in &points {
        let rows: Vec<(
            String,
            String,
            f64,
            Option<String>,
            Option<String>,
            Option<String>,
        )> = sqlx::query_as(sql)
            .bind(p.x())
            .bind(p.y())
            .bind(RADIUS)
            .bind(K as i64)
            .fetch_all(&pool)
            .await
            .unwrap();
        pg_found += rows.len();
    }
    let theirs = t.elapsed().as_secs_f64() / QUERIES as f64;
    assert_eq!(
        found, pg_found,
        "both sides find the same number of facilities"
    );
    let structures = snap.layer(Layer::CatchBasins).features.len()
        + snap.layer(Layer::Manholes).features.len()
        + snap.layer(Layer::Outfalls).features.len();

    println!("| query | data | ms4 per query | PostGIS per query | ms4 ÷ PostGIS speed |");
    println!("|---|---|---:|---:|---:|");
    println!(
        "| nearby, k = {K}, radius {RADIUS} ftUS, 4 facility layers, with status, last inspection and easement ({QUERIES} random points, {found} hits) | {structures} structures, {} SMPs, {} easements | {:.1} µs | {:.1} µs | {:.0}× |",
        snap.layer(Layer::Smps).features.len(),
        snap.layer(Layer::Easements).features.len(),
        ours * 1e6,
        theirs * 1e6,
        theirs / ours
    );
    drop(pg);
}
