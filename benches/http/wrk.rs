//! Driving wrk: the Lua scripts it runs, a warm-up, and what it measured.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::{CONNECTIONS, THREADS};

pub(crate) fn seconds() -> u64 {
    std::env::var("MS4_BENCH_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
}

/// What wrk measured.
pub(crate) struct Load {
    pub(crate) rps: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) requests: u64,
    pub(crate) bad: u64,
    pub(crate) errors: String,
}

/// wrk's latency figure (`812.00us`, `1.23ms`, `2.01s`) in milliseconds.
pub(crate) fn ms(v: &str) -> f64 {
    let split = v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len());
    let (n, unit) = v.split_at(split);
    let n: f64 = n.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        "m" => n * 60_000.0,
        _ => f64::NAN,
    }
}

pub(crate) fn wrk(base: &str, script: &Path) -> Load {
    let out = Command::new("wrk")
        .args(["-t", &THREADS.to_string(), "-c", &CONNECTIONS.to_string()])
        .args([
            "-d",
            &format!("{}s", seconds()),
            "--timeout",
            "10s",
            "--latency",
            "-s",
        ])
        .arg(script)
        .arg(base)
        .output()
        .expect("wrk runs (apt-get install wrk)");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "wrk: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    let mut l = Load {
        rps: f64::NAN,
        p50_ms: f64::NAN,
        p99_ms: f64::NAN,
        requests: 0,
        bad: 0,
        errors: String::new(),
    };
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["Requests/sec:", v] => l.rps = v.parse().unwrap(),
            ["50%", v] => l.p50_ms = ms(v),
            ["99%", v] => l.p99_ms = ms(v),
            [n, "requests", "in", ..] => l.requests = n.parse().unwrap(),
            ["Non-2xx", "or", "3xx", "responses:", n] => l.bad = n.parse().unwrap(),
            ["Socket", "errors:", ..] => l.errors = line.trim().to_string(),
            _ => {}
        }
    }
    l
}

/// A short untimed run of the same load first, on either server: threads and
/// connections (gunicorn's workers, ms4's blocking pool) are up, and the data touched once.
pub(crate) fn warm(base: &str, script: &Path) {
    let st = Command::new("wrk")
        .args([
            "-t",
            &THREADS.to_string(),
            "-c",
            &CONNECTIONS.to_string(),
            "-d",
            "3s",
        ])
        .args(["--timeout", "10s", "-s"])
        .arg(script)
        .arg(base)
        .stdout(Stdio::null())
        .status()
        .expect("wrk runs");
    assert!(st.success());
}

/// A Lua script for wrk: `request_body` is the body of `request()`, after every thread
/// has its own `id` (0, 1, ...) and random seed. Every request asks for GeoJSON and
/// carries the token, when there is one.
pub(crate) fn lua(path: &Path, token: Option<&str>, prelude: &str, request_body: &str) {
    let auth = token
        .map(|t| format!("wrk.headers[\"Authorization\"] = \"Bearer {t}\"\n"))
        .unwrap_or_default();
    let s = format!(
        r#"-- Written by benches/http.rs.
wrk.headers["Accept"] = "application/geo+json, application/json"
{auth}{prelude}
local threads = 0
function setup(thread)
  thread:set("id", threads)
  threads = threads + 1
end
function init(args)
  math.randomseed(7919 * (id + 1))
end
function request()
{request_body}
end
"#
    );
    std::fs::write(path, s).unwrap();
}
