//! The stored-hash pass of a GeoPackage (see `store::hash`), read through SQLite's own
//! API on the write's connection.
//!
//! A re-import of a million features reads a million (id, hash, source hash) rows before
//! it can compare anything. Through sqlx each row crosses from the connection's worker
//! thread as a row object, about 2 µs apiece; stepping the statement here costs a few
//! hundred nanoseconds, so the pass that was most of an unchanged re-import's time is a
//! small part of it. It runs on the transaction's own connection, so it sees the layer
//! exactly as the write does.

use std::ffi::c_int;

use libsqlite3_sys as ffi;

use super::raw::Stmt;
use crate::domain::Layer;
use crate::store::hash::{StoredHashes, COLUMN, SOURCE_COLUMN};
use crate::store::{Result, StoreError};

/// Reads the id, content hash and source hash of every row of `layer`. A row whose id is
/// not text cannot be named, so it is left out (it stays, as the write engine says); a
/// hash that is not an integer counts as none.
pub(super) async fn stored_hashes(
    conn: &mut sqlx::SqliteConnection,
    layer: Layer,
) -> Result<StoredHashes> {
    let sql = format!(
        "SELECT {}, {COLUMN}, {SOURCE_COLUMN} FROM {}",
        layer.id_field(),
        layer.name()
    );
    let mut handle = conn.lock_handle().await?;
    let db = handle.as_raw_handle().as_ptr();
    // SAFETY: `db` is the live connection, held locked by `handle` for the whole scan,
    // and nothing else runs statements on it meanwhile.
    unsafe { scan(db, &sql) }.map_err(|why| {
        StoreError::Aborted(format!(
            "reading the stored hashes of {layer} failed: {why}"
        ))
    })
}

/// Steps `sql` to the end, collecting its rows.
///
/// # Safety
/// `db` must be an open connection no other thread uses during the call.
unsafe fn scan(db: *mut ffi::sqlite3, sql: &str) -> std::result::Result<StoredHashes, String> {
    let stmt = Stmt::prepare(db, sql)?;
    let int = |i: c_int| {
        (ffi::sqlite3_column_type(stmt.0, i) == ffi::SQLITE_INTEGER)
            .then(|| ffi::sqlite3_column_int64(stmt.0, i))
    };
    let mut out = StoredHashes::default();
    while stmt.row(db)? {
        if ffi::sqlite3_column_type(stmt.0, 0) != ffi::SQLITE_TEXT {
            continue;
        }
        let text = ffi::sqlite3_column_text(stmt.0, 0);
        let len = ffi::sqlite3_column_bytes(stmt.0, 0);
        if text.is_null() || len < 0 {
            continue;
        }
        let bytes = std::slice::from_raw_parts(text, len as usize);
        if let Ok(id) = std::str::from_utf8(bytes) {
            out.push(id, int(1), int(2));
        }
    }
    Ok(out.sorted())
}
