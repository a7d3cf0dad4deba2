//! Every figure a bench prints, kept as data too, so a run can be compared with the last
//! one: one JSON document per run of a bench (its date, commit, machine, the load average
//! when it began, and its figures), a line each in `target/bench-results/<bench>.json`.
//! `scripts/bench_table.py` makes BENCHMARKS.md's table of current figures from them and
//! names the figures a new run made more than 20% worse.
//!
//! The run's document is written again at each figure, so what was measured before a
//! bench fails is kept.

// Each bench includes this file and uses a part of it.
#![allow(dead_code)]

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::{json, Value};

/// A goal a figure is held to (the issue that set it says why).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Goal {
    /// ms4 at least this many times its peer, as a speed (the table's ratio column).
    Ratio(f64),
    /// The figure at least this, in its unit.
    AtLeast(f64),
    /// The figure at most this.
    AtMost(f64),
    /// The figure under this.
    Below(f64),
}

impl Goal {
    fn to_json(self) -> Value {
        let (kind, value) = match self {
            Goal::Ratio(v) => ("ratio_at_least", v),
            Goal::AtLeast(v) => ("at_least", v),
            Goal::AtMost(v) => ("at_most", v),
            Goal::Below(v) => ("below", v),
        };
        json!({ "kind": kind, "value": value })
    }
}

/// One figure: what was measured (`measure`, the same words from run to run, so runs can
/// be matched), on what (`data`, which may change), ms4's value and its peer's in the
/// same run, and which way is better.
#[derive(Clone, Debug)]
pub struct Figure {
    measure: String,
    data: String,
    ms4: f64,
    peer: Option<(String, f64)>,
    unit: &'static str,
    higher_is_better: bool,
    goals: Vec<Goal>,
}

impl Figure {
    /// A figure where less is better: a time, a latency, a size.
    pub fn lower(
        measure: impl Into<String>,
        data: impl Into<String>,
        ms4: f64,
        unit: &'static str,
    ) -> Self {
        Figure {
            measure: measure.into(),
            data: data.into(),
            ms4,
            peer: None,
            unit,
            higher_is_better: false,
            goals: Vec::new(),
        }
    }

    /// A figure where more is better: a rate.
    pub fn higher(
        measure: impl Into<String>,
        data: impl Into<String>,
        ms4: f64,
        unit: &'static str,
    ) -> Self {
        Figure {
            higher_is_better: true,
            ..Figure::lower(measure, data, ms4, unit)
        }
    }

    /// The peer's value of the same measure, in the same unit and run.
    pub fn peer(mut self, name: impl Into<String>, value: f64) -> Self {
        self.peer = Some((name.into(), value));
        self
    }

    /// A goal the figure is held to (a figure may have several).
    pub fn goal(mut self, goal: Goal) -> Self {
        self.goals.push(goal);
        self
    }

    fn to_json(&self) -> Value {
        json!({
            "measure": self.measure,
            "data": self.data,
            "ms4": self.ms4,
            "peer_name": self.peer.as_ref().map(|p| &p.0),
            "peer": self.peer.as_ref().map(|p| p.1),
            "unit": self.unit,
            "higher_is_better": self.higher_is_better,
            "goals": self.goals.iter().map(|g| g.to_json()).collect::<Vec<_>>(),
        })
    }
}

/// One run of one bench: when, at which commit, on what machine and load, and what it
/// measured; appended to its bench's file as one line.
#[derive(Debug)]
pub struct Run {
    head: Value,
    figures: Vec<Value>,
    file: PathBuf,
    /// Where this run's line starts in the file, once written.
    at: Option<u64>,
}

impl Run {
    /// A run of `bench` beginning now, to be written to `<dir>/<bench>.json`.
    pub fn start(bench: &str, dir: &Path) -> Self {
        let (commit, dirty) = commit();
        Run {
            head: json!({
                "bench": bench,
                "date": chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string(),
                "commit": commit,
                "dirty": dirty,
                "machine": machine(),
                "load_at_start": load_average(),
            }),
            figures: Vec::new(),
            file: dir.join(format!("{bench}.json")),
            at: None,
        }
    }

    /// Adds a figure and writes the run's document again, in place of its earlier line.
    pub fn record(&mut self, figure: &Figure) -> std::io::Result<()> {
        self.figures.push(figure.to_json());
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(&self.file)?;
        let at = match self.at {
            Some(at) => at,
            None => end_of_last_line(&mut f)?,
        };
        self.at = Some(at);
        f.set_len(at)?;
        f.seek(SeekFrom::Start(at))?;
        let mut line = serde_json::to_string(&self.document())?;
        line.push('\n');
        f.write_all(line.as_bytes())
    }

    /// The run as one JSON document.
    pub fn document(&self) -> Value {
        let mut doc = self.head.clone();
        doc["figures"] = Value::Array(self.figures.clone());
        doc
    }
}

/// Where a new line goes: the file's end, after a newline added to a last line a killed
/// run left without one (so the new run's line is never glued to it).
fn end_of_last_line(f: &mut std::fs::File) -> std::io::Result<u64> {
    let len = f.seek(SeekFrom::End(0))?;
    if len == 0 {
        return Ok(0);
    }
    let mut last = [0u8];
    f.seek(SeekFrom::End(-1))?;
    std::io::Read::read_exact(f, &mut last)?;
    if last[0] == b'\n' {
        return Ok(len);
    }
    f.write_all(b"\n")?;
    Ok(len + 1)
}

/// The run of this process, once the bench measures (`common::measuring`).
static RUN: Mutex<Option<Run>> = Mutex::new(None);

/// Where the benches' results go: `target/bench-results/`, beside the benches' data.
pub fn results_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-results")
}

/// Begins this process's run of `bench` (its date and the load average are taken now).
pub fn start(bench: &str) {
    let run = Run::start(bench, &results_dir());
    *RUN.lock().unwrap_or_else(|e| e.into_inner()) = Some(run);
}

/// Records a figure of this process's run; a figure that cannot be written is said on
/// stderr, never a failed bench.
pub fn record(figure: Figure) {
    let mut run = RUN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(run) = run.as_mut() {
        if let Err(e) = run.record(&figure) {
            eprintln!("could not write {}: {e}", run.file.display());
        }
    }
}

/// The commit measured (`git rev-parse --short HEAD`, "unknown" outside a checkout) and
/// whether the work tree had changes to tracked files.
fn commit() -> (String, bool) {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--short", "HEAD"]).unwrap_or_else(|| "unknown".into());
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    (commit, dirty)
}

/// The CPU's model, its cores and the memory, from the kernel's files.
fn machine() -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo").ok().and_then(|s| {
        s.lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map(|m| m.trim().to_string())
    });
    let ram_kib = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
    });
    json!({
        "cpu": cpu.unwrap_or_else(|| "unknown CPU".into()),
        "cores": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "ram_gib": ram_kib.map(|k| (k / 1024.0 / 1024.0 * 10.0).round() / 10.0),
    })
}

/// The 1, 5 and 15 minute load averages.
fn load_average() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut v = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([v.next()??, v.next()??, v.next()??])
}
