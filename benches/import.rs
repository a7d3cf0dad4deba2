//! Import throughput: `ms4 import` beside `ogr2ogr` loading the same file into the same
//! kind of target (a GeoPackage; PostGIS), reprojecting into the same CRS, in one run.
//!
//! cargo bench --bench import                      # Tacoma layers + 1M synthetic parcels
//! MS4_BENCH_PARCELS=100000 cargo bench --bench import
//!
//! PostGIS runs when MS4_TEST_PG names a server (scripts/test.sh's role works).
//! Then, on the same stores: re-importing the full parcels layer (unchanged, and with one
//! attribute changed), time and peak memory; and one inspection POST at a time with a
//! million inspections stored (`MS4_BENCH_INSPECTIONS`). `MS4_BENCH_PARTS` picks some of
//! `throughput,reimport,posts` (all by default).
//! Prints Markdown tables; BENCHMARKS.md records a run.

mod common;
#[path = "import/history.rs"]
mod history;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::results::{record, Figure, Goal};

const REPS: usize = 3;

struct Case {
    name: String,
    /// The source's name without its size: the same from run to run (the results' key).
    label: &'static str,
    layer: &'static str,
    path: PathBuf,
    maps: Vec<&'static str>,
    target_srid: i32,
    features: u64,
}

fn ms4() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ms4"));
    c.env("RUST_LOG", "ms4=warn");
    c
}

fn check(out: std::process::Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn pg_admin() -> Option<url::Url> {
    std::env::var("MS4_TEST_PG")
        .ok()
        .and_then(|u| url::Url::parse(&u).ok())
}

fn pg_db(name: &str) -> Option<(String, String)> {
    let mut u = pg_admin()?;
    u.set_path(name);
    let conn = format!(
        "PG:host={} port={} user={} password={} dbname={}",
        u.host_str()?,
        u.port().unwrap_or(5432),
        u.username(),
        u.password().unwrap_or(""),
        name
    );
    Some((u.to_string(), conn))
}

fn psql(db: &str, sql: &str) {
    let u = pg_admin().unwrap();
    let out = Command::new("psql")
        .env("PGPASSWORD", u.password().unwrap_or(""))
        .args([
            "-q",
            "-h",
            u.host_str().unwrap(),
            "-U",
            u.username(),
            "-d",
            db,
            "-c",
            sql,
        ])
        .output()
        .unwrap();
    check(out, sql);
}

/// One timed `ms4 import` into a fresh registry of a kind.
fn time_ms4(case: &Case, kind: &str, work: &Path, rep: usize) -> f64 {
    let url = match kind {
        "sqlite" => {
            let f = work.join(format!("ms4_{rep}.gpkg"));
            let _ = std::fs::remove_file(&f);
            format!("sqlite://{}", f.display())
        }
        _ => {
            let name = format!("ms4_bench_ms4_{rep}");
            psql("postgres", &format!("DROP DATABASE IF EXISTS {name}"));
            pg_db(&name).unwrap().0
        }
    };
    check(
        ms4()
            .args([
                "--store",
                &url,
                "init",
                "--jurisdiction",
                "north-castle-ny",
                "--crs",
                &format!("EPSG:{}", case.target_srid),
            ])
            .output()
            .unwrap(),
        "init",
    );
    let mut cmd = ms4();
    cmd.args(["--store", &url, "import", case.layer])
        .arg(&case.path)
        .args(["--format", "json"]);
    for m in &case.maps {
        cmd.args(["--map", m]);
    }
    let t = Instant::now();
    let out = cmd.output().unwrap();
    let secs = t.elapsed().as_secs_f64();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(
        report["read"].as_u64().unwrap(),
        case.features,
        "{}",
        case.name
    );
    secs
}

/// One timed `ogr2ogr` of the same file into the same kind of target and CRS.
fn time_ogr2ogr(case: &Case, kind: &str, work: &Path, rep: usize) -> f64 {
    let srs = format!("EPSG:{}", case.target_srid);
    let mut cmd = Command::new("ogr2ogr");
    match kind {
        "sqlite" => {
            let f = work.join(format!("ogr_{rep}.gpkg"));
            let _ = std::fs::remove_file(&f);
            cmd.args(["-f", "GPKG"]).arg(f);
        }
        _ => {
            let name = format!("ms4_bench_ogr_{rep}");
            psql("postgres", &format!("DROP DATABASE IF EXISTS {name}"));
            psql("postgres", &format!("CREATE DATABASE {name}"));
            psql(&name, "CREATE EXTENSION postgis");
            cmd.args(["-f", "PostgreSQL", &pg_db(&name).unwrap().1]);
        }
    }
    cmd.arg(&case.path).args([
        "-t_srs",
        &srs,
        "-nln",
        case.layer,
        "-nlt",
        "PROMOTE_TO_MULTI",
    ]);
    if case.path.extension().is_some_and(|e| e == "csv") {
        cmd.args([
            "-oo",
            "X_POSSIBLE_NAMES=lon",
            "-oo",
            "Y_POSSIBLE_NAMES=lat",
            "-s_srs",
            "EPSG:4326",
        ]);
    }
    let t = Instant::now();
    let out = cmd.output().unwrap();
    let secs = t.elapsed().as_secs_f64();
    check(out, "ogr2ogr");
    secs
}

fn count(path: &Path) -> u64 {
    let out = Command::new("ogrinfo")
        .args(["-ro", "-so", "-al"])
        .arg(path)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| {
            l.strip_prefix("Feature Count: ")
                .map(|n| n.trim().parse().unwrap())
        })
        .unwrap()
}

fn main() {
    if !common::measuring("import") {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let parcels = common::parcels();
    let mut cases = cases(root, parcels);
    for c in &mut cases {
        c.features = count(&c.path);
    }
    let mut kinds = vec!["sqlite"];
    if pg_admin().is_some() {
        kinds.push("postgis");
    } else {
        eprintln!("MS4_TEST_PG is not set: PostGIS is skipped");
    }

    let parts =
        std::env::var("MS4_BENCH_PARTS").unwrap_or_else(|_| "throughput,reimport,posts".into());
    let part = |p: &str| parts.split(',').any(|x| x.trim() == p);
    if part("reimport") && parcels > 0 {
        let c = cases.last().expect("the parcels case");
        history::reimport(&kinds, &c.path, c.features, work.path());
    }
    if part("posts") {
        history::inspection_posts(&kinds, work.path());
    }
    if !part("throughput") {
        return;
    }
    throughput(&cases, &kinds, work.path());
    if pg_admin().is_some() {
        for r in 0..REPS {
            psql(
                "postgres",
                &format!("DROP DATABASE IF EXISTS ms4_bench_ms4_{r}"),
            );
            psql(
                "postgres",
                &format!("DROP DATABASE IF EXISTS ms4_bench_ogr_{r}"),
            );
        }
    }
}

/// The sources to import: Tacoma's layers (the fixtures when the shared data folder is
/// missing) and, when asked for, the synthetic county's parcels.
fn cases(root: &Path, parcels: usize) -> Vec<Case> {
    let shared = root.join("../shared/data/tacoma_wa_stormpiper");
    let tacoma = |f: &str| {
        let full = shared.join(f);
        if full.exists() {
            full
        } else {
            root.join("tests/fixtures/tacoma").join(f)
        }
    };
    let mut cases = vec![
        Case {
            name: "Tacoma discharge points".into(),
            label: "Tacoma discharge points",
            layer: "outfalls",
            path: tacoma("ActiveSurfacewaterDischargePoint.geojson"),
            maps: vec!["asset_id=ALTID"],
            target_srid: 32610,
            features: 0,
        },
        Case {
            name: "Tacoma trunk mains".into(),
            label: "Tacoma trunk mains",
            layer: "pipes",
            path: tacoma("ActiveSurfacewaterTrunkMain.geojson"),
            maps: vec!["asset_id=ALTID"],
            target_srid: 32610,
            features: 0,
        },
        Case {
            name: "Tacoma subbasins".into(),
            label: "Tacoma subbasins",
            layer: "watersheds",
            path: tacoma("SurfacewaterSubbasinOutline.geojson"),
            maps: vec!["watershed_id=SUBBASIN"],
            target_srid: 32610,
            features: 0,
        },
    ];
    if !cases[1].path.exists() {
        cases[1].path =
            root.join("tests/fixtures/tacoma/ActiveSurfacewaterTrunkMain_FossWaterway.geojson");
    }
    // The largest Tacoma layer, when the shared data folder is there.
    let outlines = shared.join("LocalSWFacilityOutline.geojson");
    if outlines.exists() {
        cases.push(Case {
            name: "Tacoma stormwater facility outlines".into(),
            label: "Tacoma stormwater facility outlines",
            layer: "smps",
            path: outlines,
            maps: vec!["asset_id=ALTID"],
            target_srid: 32610,
            features: 0,
        });
    }
    if parcels > 0 {
        let file = common::synthetic_county(parcels).join("parcels.gpkg");
        cases.push(Case {
            name: format!("synthetic parcels ({parcels})"),
            label: "synthetic parcels",
            layer: "parcels",
            path: file,
            maps: vec![],
            target_srid: 32618,
            features: 0,
        });
    }
    cases
}

/// Imports each source into each store with ms4 and with ogr2ogr, and prints the table.
fn throughput(cases: &[Case], kinds: &[&str], work: &Path) {
    println!();
    println!("| source | features | target | ms4 import (s) | ms4 features/s | ogr2ogr (s) | ogr2ogr features/s | ms4 ÷ ogr2ogr speed |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|");
    for c in cases {
        for kind in kinds {
            let ms: Vec<f64> = (0..REPS).map(|r| time_ms4(c, kind, work, r)).collect();
            let og: Vec<f64> = (0..REPS).map(|r| time_ogr2ogr(c, kind, work, r)).collect();
            let (m, o) = (median(ms), median(og));
            let store = if *kind == "sqlite" {
                "GeoPackage"
            } else {
                "PostGIS"
            };
            println!(
                "| {} | {} | {} EPSG:{} | {:.2} | {:.0} | {:.2} | {:.0} | {:.2}× |",
                c.name,
                c.features,
                store,
                c.target_srid,
                m,
                c.features as f64 / m,
                o,
                c.features as f64 / o,
                o / m
            );
            record_throughput(c, store, m, o);
        }
    }
}

/// One import's figure beside `ogr2ogr`'s (features per second and the ratio follow from
/// the times and the count); into PostGIS, a million parcels at least as fast as `ogr2ogr`.
fn record_throughput(c: &Case, store: &str, ms4: f64, ogr2ogr: f64) {
    let f = Figure::lower(
        format!("import of {} into {store}", c.label),
        format!("{} features, EPSG:{}", c.features, c.target_srid),
        ms4,
        "s",
    )
    .peer("ogr2ogr", ogr2ogr);
    record(if c.label == "synthetic parcels" && store == "PostGIS" {
        f.goal(Goal::Ratio(1.0))
    } else {
        f
    });
}
