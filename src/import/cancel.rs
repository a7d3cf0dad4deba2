//! Stopping GDAL work that no one waits for any more.
//!
//! A file is read on a blocking thread, and dropping the request that asked for it stops
//! nothing there: the thread reads on to the end of the file. So a read carries a
//! [`Cancel`], checked between features and, on a GeoPackage, by SQLite itself every few
//! thousand instructions of a statement ([`Cancel::watch_sqlite`]), since one statement
//! can run for minutes. It trips when its deadline passes, when the request it serves is
//! dropped (a client that went away, a request timeout: [`Cancel::on_drop`]), or when the
//! server is shutting down ([`shut_down`]).

use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use libsqlite3_sys as ffi;

/// Set once, when the server is asked to stop: every read still running stops at its
/// next check, whoever started it.
static SHUTTING_DOWN: AtomicBool = AtomicBool::new(false);

/// Stops every read in the process at its next check (the server calls this on Ctrl-C or
/// SIGTERM). There is no way back: the process is on its way out.
pub fn shut_down() {
    SHUTTING_DOWN.store(true, Ordering::SeqCst);
}

/// Whether [`shut_down`] was called.
pub fn shutting_down() -> bool {
    SHUTTING_DOWN.load(Ordering::Relaxed)
}

/// Why a read was stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// It ran past its time budget.
    Deadline(Duration),
    /// The request it served was dropped.
    Gone,
    /// The server is shutting down.
    ShuttingDown,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Deadline(d) => write!(
                f,
                "reading it took longer than the {} s allowed",
                d.as_secs().max(1)
            ),
            Stop::Gone => f.write_str("the request that asked for it went away"),
            Stop::ShuttingDown => f.write_str("the server is shutting down"),
        }
    }
}

/// A read's stop flag and deadline, shared by the request and the thread reading.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    /// When the budget runs out, and the budget.
    deadline: Option<(Instant, Duration)>,
}

impl Cancel {
    /// A read without a time budget (stopped only by [`Cancel::cancel`] or shutdown).
    pub fn new() -> Self {
        Self::default()
    }

    /// A read that must be done within `budget` from now.
    pub fn within(budget: Duration) -> Self {
        Cancel {
            inner: Arc::new(Inner {
                cancelled: AtomicBool::new(false),
                deadline: Some((Instant::now() + budget, budget)),
            }),
        }
    }

    /// Stops the read at its next check.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
    }

    /// Whether the read may go on, and if not, why.
    pub fn check(&self) -> Result<(), Stop> {
        if shutting_down() {
            return Err(Stop::ShuttingDown);
        }
        if self.inner.cancelled.load(Ordering::Relaxed) {
            return Err(Stop::Gone);
        }
        match self.inner.deadline {
            Some((at, budget)) if Instant::now() >= at => Err(Stop::Deadline(budget)),
            _ => Ok(()),
        }
    }

    /// A guard that cancels the read when dropped: held by the request's future, so a
    /// client that hangs up (or a request timeout, which drops the future) stops the
    /// thread reading for it. Dropped after the read is done, it stops nothing.
    pub fn on_drop(&self) -> CancelOnDrop {
        CancelOnDrop(self.clone())
    }

    /// Lets SQLite check this token while it runs a statement on `ds`'s connection, when
    /// `ds` is a GeoPackage (else does nothing). GDAL and this crate link the same SQLite
    /// (the system's), so GDAL's connection takes a progress handler set from here; an
    /// interrupted statement ends GDAL's read with an error, which the reader then
    /// explains with [`Cancel::check`].
    ///
    /// The returned value holds the token the handler points to: keep it until the
    /// dataset is closed (after it, in a struct's field order).
    pub fn watch_sqlite(&self, ds: &gdal::Dataset) -> Option<SqliteWatch> {
        let key = CString::new("SQLITE_HANDLE").expect("no NUL");
        // SAFETY: asks the dataset for its connection; null for any other driver.
        let db = unsafe { gdal_sys::GDALGetInternalHandle(ds.c_dataset(), key.as_ptr()) }
            as *mut ffi::sqlite3;
        if db.is_null() {
            return None;
        }
        let token = Box::new(self.clone());
        // SAFETY: the handler reads the boxed token, which `SqliteWatch` keeps alive
        // until after the dataset (and so the connection) is closed. The connection is
        // used only by the thread that reads the dataset.
        unsafe {
            ffi::sqlite3_progress_handler(
                db,
                SQLITE_CHECK_EVERY,
                Some(sqlite_progress),
                &*token as *const Cancel as *mut c_void,
            );
        };
        Some(SqliteWatch { _token: token })
    }
}

/// SQLite virtual-machine instructions between two checks: well under a millisecond.
const SQLITE_CHECK_EVERY: c_int = 10_000;

unsafe extern "C" fn sqlite_progress(token: *mut c_void) -> c_int {
    let token = &*(token as *const Cancel);
    c_int::from(token.check().is_err())
}

/// Keeps the token a GeoPackage's progress handler points to alive.
pub struct SqliteWatch {
    _token: Box<Cancel>,
}

/// Cancels its read when dropped; see [`Cancel::on_drop`].
pub struct CancelOnDrop(Cancel);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_trips_on_cancel_on_a_dropped_guard_and_on_its_deadline() {
        let c = Cancel::new();
        assert_eq!(c.check(), Ok(()));
        let reader = c.clone();
        drop(c.on_drop());
        assert_eq!(reader.check(), Err(Stop::Gone));

        let late = Cancel::within(Duration::from_millis(1));
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(late.check(), Err(Stop::Deadline(Duration::from_millis(1))));
        assert_eq!(
            Stop::Deadline(Duration::from_secs(300)).to_string(),
            "reading it took longer than the 300 s allowed"
        );
    }
}
