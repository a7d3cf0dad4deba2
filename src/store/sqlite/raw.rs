//! SQLite's own API, for the few passes that take a million rows on the write's
//! connection (`scan`, `rtree_load`): a prepared statement finalized when dropped, a
//! statement run for its effect, and the connection's last error.

use std::ffi::{CStr, CString};

use libsqlite3_sys as ffi;

/// A prepared statement, finalized when dropped.
pub(super) struct Stmt(pub(super) *mut ffi::sqlite3_stmt);

impl Stmt {
    /// Prepares `sql` on `db`.
    ///
    /// # Safety
    /// `db` must be an open connection no other thread uses meanwhile.
    pub(super) unsafe fn prepare(
        db: *mut ffi::sqlite3,
        sql: &str,
    ) -> std::result::Result<Self, String> {
        let sql = CString::new(sql).map_err(|_| "a NUL in SQL".to_string())?;
        let mut stmt = std::ptr::null_mut();
        if ffi::sqlite3_prepare_v2(db, sql.as_ptr(), -1, &mut stmt, std::ptr::null_mut())
            != ffi::SQLITE_OK
        {
            return Err(message(db));
        }
        Ok(Stmt(stmt))
    }

    /// Steps to the next row; false at the end.
    pub(super) unsafe fn row(&self, db: *mut ffi::sqlite3) -> std::result::Result<bool, String> {
        match ffi::sqlite3_step(self.0) {
            ffi::SQLITE_ROW => Ok(true),
            ffi::SQLITE_DONE => Ok(false),
            _ => Err(message(db)),
        }
    }

    /// Runs the bound statement once and resets it for the next binding.
    pub(super) unsafe fn done(&self, db: *mut ffi::sqlite3) -> std::result::Result<(), String> {
        let rc = ffi::sqlite3_step(self.0);
        ffi::sqlite3_reset(self.0);
        if rc == ffi::SQLITE_DONE {
            Ok(())
        } else {
            Err(message(db))
        }
    }
}

impl Drop for Stmt {
    fn drop(&mut self) {
        // SAFETY: prepared by `Stmt::prepare`, finalized once, here.
        unsafe { ffi::sqlite3_finalize(self.0) };
    }
}

/// Runs `sql` for its effect.
///
/// # Safety
/// `db` must be an open connection no other thread uses meanwhile.
pub(super) unsafe fn exec(db: *mut ffi::sqlite3, sql: &str) -> std::result::Result<(), String> {
    let sql = CString::new(sql).map_err(|_| "a NUL in SQL".to_string())?;
    if ffi::sqlite3_exec(
        db,
        sql.as_ptr(),
        None,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    ) != ffi::SQLITE_OK
    {
        return Err(message(db));
    }
    Ok(())
}

/// The connection's last error message.
///
/// # Safety
/// `db` must be an open connection.
pub(super) unsafe fn message(db: *mut ffi::sqlite3) -> String {
    let m = ffi::sqlite3_errmsg(db);
    if m.is_null() {
        "unknown SQLite error".into()
    } else {
        CStr::from_ptr(m).to_string_lossy().into_owned()
    }
}
