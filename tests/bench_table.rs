//! The benches' record of their figures (benches/common/results.rs) and the script that
//! makes BENCHMARKS.md's table of current figures from it and compares a new run with
//! the table (scripts/bench_table.py), together: runs recorded here are read by the
//! script, on the fixture table in tests/fixtures/bench/ (no bench is run).

#[path = "../benches/common/results.rs"]
mod results;

use std::path::{Path, PathBuf};
use std::process::Command;

use results::{Figure, Goal, Run};
use rstest::rstest;
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of the fixture table and sample BENCHMARKS.md, and an empty results folder.
struct Work {
    dir: tempfile::TempDir,
}

impl Work {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for f in ["current.json", "BENCHMARKS.md"] {
            std::fs::copy(
                root().join("tests/fixtures/bench").join(f),
                dir.path().join(f),
            )
            .unwrap();
        }
        std::fs::create_dir(dir.path().join("results")).unwrap();
        Work { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// One run of `bench` with these figures, written as the benches write it.
    fn run(&self, bench: &str, figures: &[Figure]) {
        let mut run = Run::start(bench, &self.path("results"));
        for f in figures {
            run.record(f).unwrap();
        }
    }

    /// `python3 scripts/bench_table.py` on this folder's files: its exit code and output.
    fn script(&self, args: &[&str]) -> (i32, String) {
        let mut cmd = Command::new("python3");
        cmd.arg(root().join("scripts/bench_table.py"))
            .arg("--results")
            .arg(self.path("results"))
            .arg("--current")
            .arg(self.path("current.json"));
        cmd.args(&args[..1]);
        if args[0] == "table" {
            cmd.arg("--benchmarks").arg(self.path("BENCHMARKS.md"));
        }
        let out = cmd.args(&args[1..]).output().expect("python3 runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.code().unwrap_or(-1), text)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap()
    }
}

const TILES: &str = "tiles beside PostGIS, alternating rounds: median per tile";
const REIMPORT: &str = "parcels into PostGIS: the same file again, time";
const NEARBY_RPS: &str = "nearby (`/api/nearby`, random points): requests/s";

#[test]
fn a_run_is_one_line_written_again_at_each_figure() {
    let w = Work::new();
    let dir = w.path("results");
    let mut run = Run::start("tiles", &dir);
    let tiles = Figure::lower(TILES, "57 tiles", 0.4, "ms")
        .peer("PostGIS", 4.4)
        .goal(Goal::Ratio(10.0));
    run.record(&tiles).unwrap();
    run.record(&Figure::higher("tiles/s", "57 tiles", f64::NAN, "tiles/s"))
        .unwrap();
    let text = std::fs::read_to_string(dir.join("tiles.json")).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    let doc: Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(doc["bench"], "tiles");
    assert_eq!(doc["figures"].as_array().unwrap().len(), 2);
    assert_eq!(doc["figures"][0]["peer"], 4.4);
    assert_eq!(doc["figures"][0]["goals"][0]["kind"], "ratio_at_least");
    assert_eq!(doc["figures"][1]["higher_is_better"], true);
    // No figure: a rate wrk could not read is null, not a number.
    assert!(doc["figures"][1]["ms4"].is_null());
    let date = doc["date"].as_str().unwrap();
    assert!(date.len() == 20 && date.ends_with('Z'), "{date}");
    assert!(!doc["commit"].as_str().unwrap().is_empty());
    assert!(doc["machine"]["cores"].as_u64().unwrap() > 0);

    // A second run appends its own line; the first stays as it was.
    w.run("tiles", &[Figure::lower(TILES, "57 tiles", 0.5, "ms")]);
    let again = std::fs::read_to_string(dir.join("tiles.json")).unwrap();
    assert_eq!(again.lines().count(), 2);
    assert_eq!(again.lines().next(), text.lines().next());

    // A line a killed run left cut stays apart from the next run's, which the script reads.
    let cut = format!("{again}{{\"bench\":\"tiles\",\"da");
    std::fs::write(dir.join("tiles.json"), cut).unwrap();
    w.run("tiles", &[Figure::lower(TILES, "57 tiles", 0.6, "ms")]);
    let after = std::fs::read_to_string(dir.join("tiles.json")).unwrap();
    let last: Value = serde_json::from_str(after.lines().last().unwrap()).unwrap();
    assert_eq!(last["figures"][0]["ms4"], 0.6);
    let (code, out) = w.script(&["compare"]);
    assert!(out.contains("tiles.json:3: not a JSON document"), "{out}");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(&format!("- tiles: {TILES}: 0.6 ms, was 0.4 ms")),
        "{out}"
    );
}

#[test]
fn table_takes_the_newest_figures_and_keeps_the_history() {
    let w = Work::new();
    let before = w.read("BENCHMARKS.md");
    let history = before
        .split("<!-- current figures: end -->")
        .nth(1)
        .unwrap();
    w.run(
        "tiles",
        &[
            Figure::lower(TILES, "57 tiles z12–z16, 1000000 parcels", 0.5, "ms")
                .peer("PostGIS `ST_AsMVT`", 4.0)
                .goal(Goal::Ratio(10.0)),
            Figure::lower("largest tile", "57 tiles", 429.1, "KB").goal(Goal::Below(500.0)),
        ],
    );
    let (code, out) = w.script(&["table"]);
    assert_eq!(code, 0, "{out}");

    let md = w.read("BENCHMARKS.md");
    assert!(
        md.ends_with(history),
        "the history below the table changed:\n{md}"
    );
    assert!(!md.contains("(stale"), "{md}");
    let row = |measure: &str| {
        md.lines()
            .find(|l| l.starts_with("| ") && l.contains(measure))
            .unwrap_or_else(|| panic!("no row for {measure}:\n{md}"))
            .to_string()
    };
    let tiles = row(TILES);
    assert!(
        tiles.contains("| 0.5 ms | PostGIS `ST_AsMVT` 4.00 ms | 8.0× |"),
        "{tiles}"
    );
    assert!(tiles.contains("≥ 10×: **not met**"), "{tiles}");
    assert!(row("largest tile").contains("< 500 KB: met"));
    assert!(row(REIMPORT).contains("< 5 s: met"));
    assert!(row(NEARBY_RPS).contains("≥ 50,000 req/s: **not met**"));
    // The figures not measured again keep their source; the run's carry their run.
    assert!(
        md.contains("- § HTTP, run of 2026-11-30: http, every figure."),
        "{md}"
    );
    assert!(!md.contains("§ Vector tiles, run 5"), "{md}");

    let current: Value = serde_json::from_str(&w.read("current.json")).unwrap();
    let figures = current["figures"].as_array().unwrap();
    let measures: Vec<&str> = figures
        .iter()
        .map(|f| f["measure"].as_str().unwrap())
        .collect();
    assert_eq!(
        measures,
        [REIMPORT, NEARBY_RPS, "errors", TILES, "largest tile"],
        "the new measure goes after its bench's"
    );
    assert_eq!(figures[3]["ms4"], 0.5);
    assert!(figures[3]["date"].as_str().unwrap() > "2026-12-02T14:42Z");

    // Run again on the same files, the table is the same.
    assert_eq!(w.script(&["table"]).0, 0);
    assert_eq!(w.read("BENCHMARKS.md"), md);
}

/// How a new run's figure compares with the fixture table's: (bench, measure, ms4, peer,
/// higher is better) and whether it is named as more than 20% worse.
#[rstest]
#[case::a_time_a_quarter_longer("import", REIMPORT, 2.5, None, false, true)]
#[case::a_time_a_little_longer("import", REIMPORT, 2.3, None, false, false)]
#[case::a_rate_a_quarter_lower("http", NEARBY_RPS, 30_000.0, None, true, true)]
#[case::a_rate_higher("http", NEARBY_RPS, 52_000.0, None, true, false)]
#[case::a_ratio_fallen_by_30_percent("tiles", TILES, 0.4, Some(3.08), false, true)]
#[case::both_sides_slower_alike("tiles", TILES, 0.6, Some(6.6), false, false)]
#[case::errors_where_there_were_none("soak", "errors", 1.0, None, false, true)]
fn compare_names_every_figure_more_than_20_percent_worse(
    #[case] bench: &str,
    #[case] measure: &str,
    #[case] ms4: f64,
    #[case] peer: Option<f64>,
    #[case] higher: bool,
    #[case] worse: bool,
) {
    let w = Work::new();
    let mut f = if higher {
        Figure::higher(measure, "the same data", ms4, "x")
    } else {
        Figure::lower(measure, "the same data", ms4, "x")
    };
    if let Some(p) = peer {
        f = f.peer("PostGIS", p);
    }
    w.run(
        bench,
        &[f, Figure::lower("a measure new to the table", "", 1.0, "s")],
    );
    let (code, out) = w.script(&["compare"]);
    let named = out
        .lines()
        .any(|l| l.starts_with(&format!("- {bench}: {measure}:")));
    assert_eq!((code, named), (i32::from(worse), worse), "{out}");
    assert!(
        out.contains(&format!("- {bench}: a measure new to the table")),
        "{out}"
    );
    assert!(out.contains("Not in the table yet (1):"), "{out}");
}

#[test]
fn compare_holds_the_files_named_and_says_when_there_are_none() {
    let w = Work::new();
    let (code, out) = w.script(&["compare"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no results files"), "{out}");

    // Two benches ran; only the file named is compared.
    w.run("import", &[Figure::lower(REIMPORT, "", 4.0, "s")]);
    w.run("http", &[Figure::higher(NEARBY_RPS, "", 40_000.0, "req/s")]);
    let http = w.path("results/http.json");
    let (code, out) = w.script(&["compare", http.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("Figures of the run compared with the table's: 1 "),
        "{out}"
    );
    let (code, out) = w.script(&["compare"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("- import: parcels into PostGIS: the same file again, time: 4.00 s, was 2.00 s (2026-12-02 11:20 UTC, `c8b7793`): 100% worse"),
        "{out}"
    );
}
