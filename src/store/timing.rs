//! Where an import's time goes, phase by phase, when `MS4_IMPORT_TIMING` is set: a
//! profile of the real path (GDAL's read, reprojection, GEOS validation, hashing, the
//! stored-hash pass, the transaction) that costs nothing when it is off, so the figures
//! in BENCHMARKS.md can be taken again on any machine without a profiler.
//!
//! Each phase is a sum of the wall time spent in it on every thread, so phases run by
//! two conversion threads at once may add up to more than the process's time.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// One timed phase: a name and the nanoseconds spent in it so far.
pub(crate) struct Phase {
    name: &'static str,
    nanos: AtomicU64,
}

impl Phase {
    const fn new(name: &'static str) -> Self {
        Phase {
            name,
            nanos: AtomicU64::new(0),
        }
    }
}

macro_rules! phases {
    ($($id:ident = $name:literal),* $(,)?) => {
        $(
            #[doc = concat!("The phase \"", $name, "\".")]
            pub(crate) static $id: Phase = Phase::new($name);
        )*
        static ALL: &[&Phase] = &[$(&$id),*];
    };
}

phases! {
    GDAL_READ = "reader: GDAL read (fields and WKB)",
    READER_WAIT = "reader: waiting for a free conversion thread",
    ATTRIBUTES = "convert: attributes",
    REPROJECT = "convert: reprojection",
    DECODE = "convert: WKB decode and checks",
    VALIDATE = "convert: GEOS validation",
    CONTENT_HASH = "convert: content hash",
    SOURCE_HASH = "convert: source hash and lookup",
    COLLECT = "collector: ids, bounds, report",
    COLLECT_WAIT = "collector: waiting for the writer",
    HASHES_READ = "write: stored id+hash pass",
    HASH_COMPARE = "write: content hashes and comparison",
    WRITER_WAIT = "write: waiting for features",
    EXISTING = "write: reading stored rows back",
    INSERT_UPDATE = "write: inserts and updates",
    AUDIT = "write: audit rows",
    FINISH = "write: import record, extent, change number",
    COMMIT = "write: commit",
}

/// Whether phases are being timed (`MS4_IMPORT_TIMING` set and not `0`).
pub(crate) fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var("MS4_IMPORT_TIMING").is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// A start time when timing is on.
pub(crate) fn start() -> Option<Instant> {
    enabled().then(Instant::now)
}

/// Adds the time since `from` (from [`start`]) to `phase`.
pub(crate) fn add(phase: &Phase, from: Option<Instant>) {
    if let Some(t) = from {
        phase
            .nanos
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }
}

/// Adds nanoseconds measured by the caller to `phase`.
pub(crate) fn add_nanos(phase: &Phase, nanos: u64) {
    phase.nanos.fetch_add(nanos, Ordering::Relaxed);
}

/// Prints every phase with time in it to stderr, then starts them all again from zero.
pub(crate) fn report(total: f64) {
    if !enabled() {
        return;
    }
    eprintln!("import timing (seconds, summed over threads; the whole import took {total:.2}):");
    for p in ALL {
        let n = p.nanos.swap(0, Ordering::Relaxed);
        if n > 0 {
            eprintln!("  {:<50} {:>8.2}", p.name, n as f64 / 1e9);
        }
    }
}
