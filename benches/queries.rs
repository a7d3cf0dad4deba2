//! Query speed on the county synthetic data: the in-memory snapshot beside PostGIS (GiST
//! indexes, the equivalent SQL, the same data, the same run).
//!
//! MS4_TEST_PG=postgres://ms4:ms4@127.0.0.1:5432/postgres cargo bench --bench queries
//! MS4_BENCH_PARCELS=100000 ... for a smaller county.
//!
//! The registries are built once (a GeoPackage and a PostGIS database under the names
//! below) and reused by later runs.

mod common;

use std::time::Instant;

use common::results::{record, Figure, Goal};
use geo_types::Point;
use ms4::domain::Layer;
use ms4::spatial::query::{self, NearbyQuery, FACILITY_LAYERS};
use ms4::spatial::Snapshot;
use rand::{Rng, SeedableRng};

// The same allocator as the `ms4` binary the service runs in.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const QUERIES: usize = 2000;
/// 500 US survey feet, in the registry's unit (EPSG:2260 is in US feet).
const RADIUS: f64 = 500.0;
const K: usize = 10;
fn main() {
    common::block_on("queries", run());
}

/// A nearby row from PostGIS: layer, id, distance, status, easement, last inspection.
type NearbyRow = (
    String,
    String,
    f64,
    Option<String>,
    Option<String>,
    Option<String>,
);

/// Rounds of the nearby queries timed on each side; the median round is reported.
const ROUNDS: usize = 5;
const PG_ROUNDS: usize = 3;

/// The median of a few timings.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

async fn run() {
    let parcels = common::parcels();
    let data = common::synthetic_county(parcels);
    let gpkg = format!("sqlite://{}", data.join("registry.gpkg").display());
    let sqlite = common::county_registry(&gpkg, &data).await;
    let t = Instant::now();
    let snap = Snapshot::load(sqlite.as_ref()).await.unwrap();
    eprintln!("snapshot loaded in {:.1} s", t.elapsed().as_secs_f64());

    let only = std::env::var("MS4_BENCH_ONLY").unwrap_or_default();
    // The mapping figures have no PostGIS peer: they need no PostGIS registry.
    if only.is_empty() || only == "mapping" {
        mapping_bench(&snap);
    }
    if only == "mapping" {
        return;
    }
    let Some(base) = std::env::var("MS4_TEST_PG").ok() else {
        eprintln!("MS4_TEST_PG is not set: no PostGIS side to compare with");
        return;
    };
    let mut u = url::Url::parse(&base).unwrap();
    // `v2`: the synthetic town with its trunk district (a registry of older data is not
    // reused).
    u.set_path(&format!("ms4_bench_county_v2_{parcels}"));
    let pg = common::county_registry(u.as_str(), &data).await;
    let pool = sqlx::PgPool::connect(u.as_str()).await.unwrap();
    sqlx::query("ANALYZE").execute(&pool).await.unwrap();

    // Query points spread over the town's extent.
    let ext = snap.layer(Layer::CatchBasins).extent().unwrap();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let points: Vec<Point<f64>> = (0..QUERIES)
        .map(|_| Point::new(rng.gen_range(ext[0]..ext[2]), rng.gen_range(ext[1]..ext[3])))
        .collect();

    let (ours, found) = time_nearby(&snap, &points);
    let (theirs, pg_found) = time_postgis_nearby(&pool, &points).await;
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
    record(
        Figure::lower(
            "nearby, k = 10, radius 500 ftUS, 4 facility layers, with status, last inspection and easement",
            format!(
                "{QUERIES} random points, {found} hits; {structures} structures, {} SMPs, {} easements",
                snap.layer(Layer::Smps).features.len(),
                snap.layer(Layer::Easements).features.len()
            ),
            ours * 1e6,
            "µs",
        )
        .peer("PostGIS", theirs * 1e6)
        .goal(Goal::Ratio(100.0)),
    );
    if only.is_empty() || only == "illicit" {
        illicit_bench(&snap, &pool).await;
    }
    if only.is_empty() || only == "waters" {
        waters_bench(&snap, &pool).await;
    }
    if only.is_empty() || only == "trace" {
        trace_bench(&snap, &pool).await;
    }
    drop(pg);
}

/// ms4's nearby answer per query (the median of the rounds) and the facilities found.
fn time_nearby(snap: &Snapshot, points: &[Point<f64>]) -> (f64, usize) {
    // ms4: the whole answer (distance, bearing, status, last inspection, easement). Both
    // sides answer the same points; each first answers 200 others untimed, as a running
    // service would be warm.
    let layers = FACILITY_LAYERS.to_vec();
    for p in points.iter().rev().take(200) {
        let q = NearbyQuery {
            at: Point::new(p.x() + 7.0, p.y() + 3.0),
            radius: Some(RADIUS),
            k: Some(K),
            layers: layers.clone(),
        };
        std::hint::black_box(query::nearby(snap, &q));
    }
    // The median of several rounds over the same points: one round is only tens of
    // milliseconds, short enough for a scheduler hiccup to move it.
    let mut rounds = Vec::new();
    let mut found = 0usize;
    for _ in 0..ROUNDS {
        let t = Instant::now();
        found = 0;
        for p in points {
            let q = NearbyQuery {
                at: *p,
                radius: Some(RADIUS),
                k: Some(K),
                layers: layers.clone(),
            };
            found += query::nearby(snap, &q).len();
        }
        rounds.push(t.elapsed().as_secs_f64() / QUERIES as f64);
    }
    let ours = median(&mut rounds);

    (ours, found)
}

/// PostGIS's nearby answer per query (the median of the rounds) and the facilities found.
async fn time_postgis_nearby(pool: &sqlx::PgPool, points: &[Point<f64>]) -> (f64, usize) {
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
    for p in points.iter().rev().take(200) {
        let _: Vec<NearbyRow> = sqlx::query_as(sql)
            .bind(p.x() + 7.0)
            .bind(p.y() + 3.0)
            .bind(RADIUS)
            .bind(K as i64)
            .fetch_all(pool)
            .await
            .unwrap();
    }
    let mut rounds = Vec::new();
    let mut pg_found = 0usize;
    for _ in 0..PG_ROUNDS {
        let t = Instant::now();
        pg_found = 0;
        for p in points {
            let rows: Vec<NearbyRow> = sqlx::query_as(sql)
                .bind(p.x())
                .bind(p.y())
                .bind(RADIUS)
                .bind(K as i64)
                .fetch_all(pool)
                .await
                .unwrap();
            pg_found += rows.len();
        }
        rounds.push(t.elapsed().as_secs_f64() / QUERIES as f64);
    }
    let theirs = median(&mut rounds);
    (theirs, pg_found)
}

/// Every connection judged (facts gathered from the snapshot, then the rules) beside SQL
/// that gathers the same facts — source parcel by parcel_id or by the upstream end,
/// records by connection_id or within the record tolerance of the MS4 end — and applies
/// the commercial/industrial and non-stormwater tests with CASE.
async fn illicit_bench(snap: &Snapshot, pool: &sqlx::PgPool) {
    let profile = ms4::rules::Profile::builtin("north-castle-ny").unwrap();
    let tol = profile
        .tolerances
        .record_tolerance
        .in_crs_units(snap.meta.linear_unit.metres())
        .unwrap();
    let t = Instant::now();
    let facts = ms4::spatial::connections::connection_facts(snap, tol);
    let findings = ms4::rules::illicit::evaluate_each(&profile, &facts);
    let summary = ms4::rules::illicit::summarize(&findings);
    let ours = t.elapsed().as_secs_f64();
    let sql = "
      WITH c AS (
        SELECT c.connection_id, c.discharge_kind, c.geom,
          COALESCE(c.parcel_id, (SELECT p.parcel_id FROM parcels p
             WHERE ST_Intersects(p.geom, ST_StartPoint(c.geom)) ORDER BY p.parcel_id LIMIT 1)) AS parcel_id
        FROM connections c),
      d AS (
        SELECT c.*, p.land_use,
          (SELECT bool_or(r.approved) FROM connection_records r
            WHERE r.connection_id = c.connection_id
               OR (r.connection_id IS NULL AND ST_DWithin(r.geom, ST_EndPoint(c.geom), $1)
                   AND (r.parcel_id IS NULL OR r.parcel_id = c.parcel_id))) AS approved
        FROM c LEFT JOIN parcels p ON p.parcel_id = c.parcel_id)
      SELECT connection_id,
        CASE WHEN lower(discharge_kind) NOT IN ('stormwater') THEN 'illicit'
             WHEN land_use ~ '^[47][0-9][0-9]$' AND approved IS NOT TRUE THEN 'illicit'
             ELSE 'ok' END
      FROM d";
    let t = Instant::now();
    let rows: Vec<(String, String)> = sqlx::query_as(sql).bind(tol).fetch_all(pool).await.unwrap();
    let theirs = t.elapsed().as_secs_f64();
    assert_eq!(rows.len(), findings.len());
    println!(
        "| illicit scan of every connection ({} connections, {} illicit, {} to review) | facts + full rules | {:.3} s | {:.3} s (facts + CASE) | {:.0}× |",
        summary.total, summary.illicit, summary.needs_review, ours, theirs, theirs / ours
    );
    record(
        Figure::lower(
            "illicit scan of every connection (facts + full rules)",
            format!(
                "{} connections, {} illicit, {} to review",
                summary.total, summary.illicit, summary.needs_review
            ),
            ours,
            "s",
        )
        .peer("PostGIS (facts + CASE)", theirs)
        .goal(Goal::Ratio(30.0)),
    );
}

/// Parcels sampled for the full-determination row (the spatial row covers every parcel).
const WATER_SAMPLE: usize = 50_000;

/// Receiving waters and Condition One for every parcel — watershed overlaps by area, TMDL
/// overlaps, the 303(d) listings of the waters drained to, and Condition One with its
/// citations and evidence — beside SQL computing the same overlaps, listings and test.
async fn waters_bench(snap: &Snapshot, pool: &sqlx::PgPool) {
    use ms4::domain::Area;
    use ms4::rules::determine::{Determiner, ProjectFacts};
    let profile = ms4::rules::Profile::builtin("carmel-ny").unwrap();
    let parcels = &snap.layer(Layer::Parcels).features;
    let facts = ProjectFacts::new(Area::new(1.5, ms4::domain::AreaUnit::Acre));
    let sql = "
      WITH p AS (SELECT parcel_id, geom FROM parcels WHERE $1::text[] IS NULL OR parcel_id = ANY($1)),
      ws AS (SELECT p.parcel_id, w.drains_to, ST_Area(ST_Intersection(p.geom, w.geom)) AS a
             FROM p JOIN watersheds w ON ST_Intersects(p.geom, w.geom)),
      listed AS (SELECT DISTINCT ws.parcel_id FROM ws
             LEFT JOIN receiving_waters r ON r.water_id = ws.drains_to
             WHERE ws.a > 0 AND (r.listed_303d OR EXISTS (SELECT 1 FROM impairments i WHERE i.water_id = ws.drains_to))),
      tmdl AS (SELECT DISTINCT p.parcel_id FROM p JOIN tmdl_areas t ON ST_Intersects(p.geom, t.geom)
             WHERE t.stormwater_source AND ST_Area(ST_Intersection(p.geom, t.geom)) > 0)
      SELECT count(*) FROM (SELECT parcel_id FROM listed UNION SELECT parcel_id FROM tmdl) x";

    // Every parcel: receiving waters and Condition One (what `ms4 screen` runs).
    let t = Instant::now();
    let mut met = 0usize;
    ms4::spatial::screen::condition_one_each(
        snap,
        &profile,
        &facts,
        &ms4::spatial::waters::WaterOptions::new(100.0, 0.0),
        |_, f| {
            met += usize::from(f.is_some_and(|f| f.result == Some(true)));
        },
    );
    let ours = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(None::<Vec<String>>)
        .fetch_one(pool)
        .await
        .unwrap();
    let theirs = t.elapsed().as_secs_f64();
    assert_eq!(
        met as i64, n,
        "both find Condition One for the same number of parcels"
    );
    println!(
        "| receiving waters (by watershed: overlap areas, TMDL overlaps, 303(d) listings) and Condition One for every parcel, as `ms4 screen` ({} parcels; met for {met}, SQL: {n}) | Condition One with citations and evidence | {:.2} s | {:.2} s | {:.1}× |",
        parcels.len(),
        ours,
        theirs,
        theirs / ours
    );
    let screen = "receiving waters and Condition One for every parcel, as `ms4 screen`";
    let data = format!("{} parcels; met for {met}, SQL: {n}", parcels.len());
    record_beside(screen, data, (ours, theirs), "PostGIS", 15.0);

    // A sample: the whole determination (every finding, every requirement).
    let step = (parcels.len() / WATER_SAMPLE).max(1);
    let sample: Vec<&ms4::domain::Feature> = parcels.iter().step_by(step).collect();
    let t = Instant::now();
    let determiner = Determiner::new(&profile, &facts);
    let mut c1 = 0usize;
    for p in &sample {
        let fp = ms4::spatial::waters::as_multipolygon(p.geom.as_ref().unwrap()).unwrap();
        let rw = ms4::spatial::waters::receiving_waters(snap, None, &fp, Some(&p.id), 100.0, 1.0);
        let d = determiner.determine(&ms4::spatial::screen::water_evidence(&rw));
        if d.conditions
            .as_ref()
            .is_some_and(|c| c.condition_one.result == Some(true))
        {
            c1 += 1;
        }
    }
    let ours = t.elapsed().as_secs_f64();
    let ids: Vec<String> = sample.iter().map(|p| p.id.clone()).collect();
    let t = Instant::now();
    let (n,): (i64,) = sqlx::query_as(sql)
        .bind(Some(ids))
        .fetch_one(pool)
        .await
        .unwrap();
    let theirs = t.elapsed().as_secs_f64();
    println!(
        "| … with the whole determination (every finding and requirement) for every {step}th parcel ({}; Condition One met for {c1}, SQL: {n}) | the whole answer | {:.2} s | {:.2} s (Condition One only) | {:.1}× |",
        sample.len(),
        ours,
        theirs,
        theirs / ours
    );
    let whole = "the whole determination (every finding and requirement) for a sample of parcels";
    let data = format!(
        "{} parcels, every {step}th; Condition One met for {c1}, SQL: {n}",
        sample.len()
    );
    record_beside(
        whole,
        data,
        (ours, theirs),
        "PostGIS (Condition One only)",
        5.0,
    );
}

/// A figure in seconds beside the SQL's in the same run, held to a ratio (issue 31).
fn record_beside(measure: &str, data: String, (ours, theirs): (f64, f64), peer: &str, goal: f64) {
    let f = Figure::lower(measure, data, ours, "s").peer(peer, theirs);
    record(f.goal(Goal::Ratio(goal)));
}

/// Upstream trace from the outfall with the largest drainage (the synthetic town's trunk
/// main: about 20,000 structures in the county), beside a recursive CTE over the same
/// graph (ms4's own resolved edges, loaded untimed), which must reach the same count.
async fn trace_bench(snap: &Snapshot, pool: &sqlx::PgPool) {
    use ms4::spatial::network::{Direction, Network, NetworkOptions};
    let t = Instant::now();
    let net = Network::from_snapshot(snap, NetworkOptions::new(0.999998));
    let build = t.elapsed().as_secs_f64();
    // The outfall with the largest drainage: the most structures upstream.
    let (outfall, n) = snap
        .layer(Layer::Outfalls)
        .features
        .iter()
        .map(|o| {
            (
                o.id.clone(),
                net.trace(&o.id, Direction::Upstream)
                    .map_or(0, |t| t.structures.len()),
            )
        })
        .max_by_key(|(_, n)| *n)
        .unwrap();
    let reps = 50;
    let t = Instant::now();
    for _ in 0..reps {
        assert_eq!(
            net.trace(&outfall, Direction::Upstream)
                .unwrap()
                .structures
                .len(),
            n
        );
    }
    let ours = t.elapsed().as_secs_f64() / reps as f64;
    // The SQL walk is given exactly the graph ms4 walks (its snapped ends, junctions,
    // T-junction pieces, bidirectional pipes both ways), as numbered edges, loaded
    // untimed: what is timed is the walk alone, on both sides, over the same edges.
    let mut conn = pool.acquire().await.unwrap();
    let (ups, downs): (Vec<i32>, Vec<i32>) = net
        .numbered_edges()
        .into_iter()
        .map(|(u, d)| (u as i32, d as i32))
        .unzip();
    sqlx::raw_sql(
        "DROP TABLE IF EXISTS bench_edges; DROP TABLE IF EXISTS bench_s;
         DROP TABLE IF EXISTS bench_graph; CREATE TABLE bench_graph (up int4 NOT NULL, down int4 NOT NULL);",
    )
    .execute(&mut *conn)
    .await
    .unwrap();
    sqlx::query("INSERT INTO bench_graph SELECT * FROM unnest($1::int4[], $2::int4[])")
        .bind(&ups)
        .bind(&downs)
        .execute(&mut *conn)
        .await
        .unwrap();
    sqlx::raw_sql("CREATE INDEX ON bench_graph (down); ANALYZE bench_graph;")
        .execute(&mut *conn)
        .await
        .unwrap();
    let start = net.structure_node(&outfall).unwrap() as i32;
    let structures = net.structure_count() as i32;
    let cte = "WITH RECURSIVE up(node) AS (SELECT $1::int4 UNION SELECT g.up FROM bench_graph g JOIN up ON g.down = up.node) SELECT count(*) FILTER (WHERE node < $2) FROM up";
    let t = Instant::now();
    let mut theirs_n = 0;
    for _ in 0..reps {
        let (c,): (i64,) = sqlx::query_as(cte)
            .bind(start)
            .bind(structures)
            .fetch_one(&mut *conn)
            .await
            .unwrap();
        theirs_n = c as usize;
    }
    assert_eq!(
        theirs_n, n,
        "the SQL walk over ms4's edges reaches what ms4's trace reaches"
    );
    let theirs = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "| upstream trace from the outfall with the largest drainage ({outfall}: {n} structures; SQL reaches {theirs_n}) | graph built in {build:.2} s | {:.1} µs | {:.1} µs (recursive CTE over the same {} edges) | {:.0}× |",
        ours * 1e6,
        theirs * 1e6,
        ups.len(),
        theirs / ours
    );
    record(
        Figure::lower(
            "upstream trace from the outfall with the largest drainage",
            format!("{outfall}: {n} structures; graph built in {build:.2} s"),
            ours * 1e6,
            "µs",
        )
        .peer(
            format!("PostGIS (recursive CTE over the same {} edges)", ups.len()),
            theirs * 1e6,
        )
        .goal(Goal::Ratio(15.0)),
    );
}

/// The permit's first mapping phase on the county (issue 29): every monitoring location
/// with its priority, every outfall's sewershed and the mapping status with the
/// sewersheds' coverage, as `ms4 monitoring-locations`, `ms4 sewersheds` and
/// `ms4 mapping-status` compute them (the network built once, untimed, as the service
/// caches it). Goal: the three under 5 s.
fn mapping_bench(snap: &Snapshot) {
    use ms4::answer::mapping::{
        mapping_status, monitoring_locations, sewersheds, MappingStatusParams,
        MonitoringLocationsParams, SewershedsParams,
    };
    use ms4::answer::Ask;
    let profile = ms4::rules::Profile::builtin("north-castle-ny").unwrap();
    let net = std::sync::Arc::new(ms4::answer::build_network(snap, &profile));
    let source = || -> anyhow::Result<_> { Ok(net.clone()) };
    let ask = Ask::new(snap, &profile).with_network(&source);
    let t = Instant::now();
    let locations = monitoring_locations(&ask, &MonitoringLocationsParams::default()).unwrap();
    let found = t.elapsed().as_secs_f64();
    let sheds = sewersheds(&ask, &SewershedsParams::default()).unwrap();
    let built = t.elapsed().as_secs_f64() - found;
    let status = mapping_status(&ask, &MappingStatusParams::default()).unwrap();
    let took = t.elapsed().as_secs_f64();
    eprintln!(
        "mapping: locations {found:.2} s, sewersheds {built:.2} s, status {:.2} s",
        took - found - built
    );
    let data = format!(
        "{} outfalls, {} interconnections, {} sewersheds, {} pipes",
        locations.summary.outfalls,
        locations.summary.interconnections,
        sheds.sewersheds.len(),
        status.status.town.pipes_with_direction.total
    );
    println!("| monitoring locations, sewersheds and mapping status | {data} | {took:.2} s |");
    record(
        Figure::lower(
            "monitoring locations, sewersheds and mapping status",
            data,
            took,
            "s",
        )
        .goal(Goal::Below(5.0)),
    );
}
