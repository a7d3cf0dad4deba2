//! What the soak counts: latencies by kind of request, errors, and the server's RSS.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// The kinds of request the soak sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Kind {
    Nearby,
    Items,
    Determination,
    Inspection,
    Upload,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Nearby => "nearby",
            Kind::Items => "items in a bbox",
            Kind::Determination => "determination",
            Kind::Inspection => "inspection POST",
            Kind::Upload => "upload",
        }
    }
}

/// Latencies (microseconds) by kind, and the errors seen.
#[derive(Default)]
pub(crate) struct Stats {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    latencies: BTreeMap<Kind, Vec<u32>>,
    errors: u64,
    first_errors: Vec<String>,
}

impl Stats {
    /// One answered request; `error` when it was not a 2xx (or never came).
    pub(crate) fn record(&self, kind: Kind, took: Duration, error: Option<String>) {
        let mut g = self.inner.lock().unwrap();
        g.latencies
            .entry(kind)
            .or_default()
            .push(took.as_micros().min(u32::MAX as u128) as u32);
        if let Some(e) = error {
            g.errors += 1;
            if g.first_errors.len() < 10 {
                g.first_errors.push(format!("{}: {e}", kind.name()));
            }
        }
    }

    /// The totals, sorted.
    pub(crate) fn summary(&self) -> Summary {
        let g = self.inner.lock().unwrap();
        let mut all: Vec<u32> = Vec::new();
        let mut by_kind = Vec::new();
        for (k, v) in &g.latencies {
            let mut v = v.clone();
            v.sort_unstable();
            all.extend_from_slice(&v);
            by_kind.push((*k, v));
        }
        all.sort_unstable();
        Summary {
            all,
            by_kind,
            errors: g.errors,
            first_errors: g.first_errors.clone(),
        }
    }
}

/// Sorted latencies, overall and by kind.
pub(crate) struct Summary {
    pub(crate) all: Vec<u32>,
    pub(crate) by_kind: Vec<(Kind, Vec<u32>)>,
    pub(crate) errors: u64,
    pub(crate) first_errors: Vec<String>,
}

/// The `q` quantile (0..1) of sorted microseconds, in milliseconds.
pub(crate) fn ms(sorted: &[u32], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i] as f64 / 1000.0
}

/// The resident set size of a process, in KiB, from `/proc/PID/status`.
pub(crate) fn rss_kib(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}
