//! A GeoPackage from outside, looked at with SQLite before GDAL opens it.
//!
//! A GeoPackage is an SQLite database, and GDAL reads whatever its `gpkg_contents` lists.
//! A view listed there is read like a table, running its own SQL as it is read: a
//! recursive query counting to a billion keeps a core busy for as long as it likes, inside
//! one GDAL call that nothing outside can interrupt. So a GeoPackage someone else made may
//! hold only plain tables: no view; no trigger but the standard ones (the spatial index's,
//! the tile matrix checks and metadata checks the standard defines, GDAL's feature
//! counts), each on the table its name says; no virtual table but the spatial index's
//! R-trees; and nothing in `gpkg_contents` but plain `features` and `attributes` tables.
//! The first object at fault is named.

use std::ffi::{c_int, CStr, CString};
use std::path::Path;
use std::time::Duration;

use libsqlite3_sys as ffi;

use super::cancel::Cancel;

/// The first bytes of every SQLite database (a GeoPackage among them).
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// How long looking through a file's schema may take: a few milliseconds for any real
/// GeoPackage.
const INSPECT_BUDGET: Duration = Duration::from_secs(10);

/// Whether bytes begin an SQLite database.
pub fn is_sqlite(head: &[u8]) -> bool {
    head.starts_with(SQLITE_MAGIC)
}

/// Whether the file at `path` begins as an SQLite database.
pub fn file_is_sqlite(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok()
        && is_sqlite(&head)
}

/// Refuses a GeoPackage holding anything but plain tables, saying what and why.
pub fn check(path: &Path) -> Result<(), String> {
    let cancel = Cancel::within(INSPECT_BUDGET);
    let db = Db::open(path)?;
    // SAFETY: the token outlives the connection (declared first, it is dropped after the
    // connection is closed).
    unsafe {
        ffi::sqlite3_progress_handler(
            db.0,
            10_000,
            Some(stop_when_cancelled),
            &cancel as *const Cancel as *mut std::ffi::c_void,
        );
    };
    let objects = db.rows(
        "SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master",
        4,
    )?;
    let plain: Vec<&str> = objects
        .iter()
        .filter(|o| o[0] == "table" && !is_virtual(&o[3]))
        .map(|o| o[1].as_str())
        .collect();
    if !plain
        .iter()
        .any(|t| t.eq_ignore_ascii_case("gpkg_contents"))
    {
        return Err("it is an SQLite database without gpkg_contents: not a GeoPackage".into());
    }
    for o in &objects {
        let (kind, name, table, sql) = (&o[0], &o[1], &o[2], &o[3]);
        match kind.as_str() {
            "view" => return Err(format!(
                "the GeoPackage holds a view, {name}; a GeoPackage sent to ms4 may hold only plain tables (a view runs SQL of its own each time it is read): save the layer as a table (ogr2ogr -f GPKG out.gpkg in.gpkg {name})"
            )),
            "trigger" if !standard_trigger(name, table) => return Err(format!(
                "the GeoPackage holds a trigger, {name} (on {table}), that is not one of a GeoPackage's standard triggers; a GeoPackage sent to ms4 may hold only plain tables: save the layer again with GDAL or QGIS"
            )),
            "table" if is_virtual(sql) && !rtree(name, sql) => return Err(format!(
                "the GeoPackage holds a virtual table, {name}, that is not a spatial index; a GeoPackage sent to ms4 may hold only plain tables: save the layer again with GDAL or QGIS"
            )),
            _ => {}
        }
    }
    for row in db.rows(
        "SELECT coalesce(table_name, ''), coalesce(data_type, '') FROM gpkg_contents",
        2,
    )? {
        let (table, kind) = (&row[0], &row[1]);
        if !(kind.eq_ignore_ascii_case("features") || kind.eq_ignore_ascii_case("attributes")) {
            return Err(format!(
                "the GeoPackage lists {table} as {kind:?} data; ms4 reads only feature and attribute tables"
            ));
        }
        if !plain.iter().any(|t| t.eq_ignore_ascii_case(table)) {
            return Err(format!(
                "the GeoPackage lists {table} among its layers, but holds no plain table of that name; a GeoPackage sent to ms4 may hold only plain tables"
            ));
        }
    }
    Ok(())
}

unsafe extern "C" fn stop_when_cancelled(token: *mut std::ffi::c_void) -> c_int {
    let token = &*(token as *const Cancel);
    c_int::from(token.check().is_err())
}

/// Whether a `CREATE` statement from `sqlite_master` makes a virtual table.
fn is_virtual(sql: &str) -> bool {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(3)
        .map(str::to_ascii_uppercase)
        .collect();
    words == ["CREATE", "VIRTUAL", "TABLE"]
}

/// Whether a virtual table is a spatial index: `rtree_<table>_<column>` using rtree.
fn rtree(name: &str, sql: &str) -> bool {
    let lower = sql.to_ascii_lowercase();
    let module = lower
        .find(" using ")
        .map(|i| lower[i + 7..].trim_start())
        .is_some_and(|rest| {
            rest.strip_prefix("rtree")
                .is_some_and(|r| r.trim_start().starts_with('('))
        });
    module && name.to_ascii_lowercase().starts_with("rtree_")
}

/// Whether a trigger is one a GeoPackage writer makes: the spatial index's on its table
/// (`rtree_<table>_<column>_insert`, `_update1`..`_update7`, `_delete`; 1.4 renamed some),
/// GDAL's feature counts (`trigger_insert_feature_count_<table>`), and the checks the
/// standard itself defines on `gpkg_tile_matrix` and the metadata tables.
fn standard_trigger(name: &str, table: &str) -> bool {
    let name = name.to_ascii_lowercase();
    let table = table.to_ascii_lowercase();
    const RTREE_EVENTS: [&str; 9] = [
        "insert", "update1", "update2", "update3", "update4", "update5", "update6", "update7",
        "delete",
    ];
    let rtree = name
        .strip_prefix("rtree_")
        .and_then(|rest| rest.strip_prefix(table.as_str()))
        .and_then(|rest| rest.strip_prefix('_'))
        .and_then(|rest| rest.rsplit_once('_'))
        .is_some_and(|(column, event)| !column.is_empty() && RTREE_EVENTS.contains(&event));
    let counts = [
        "trigger_insert_feature_count_",
        "trigger_delete_feature_count_",
    ]
    .iter()
    .any(|p| name.strip_prefix(p) == Some(table.as_str()));
    let checks: &[(&str, &[&str])] = &[
        (
            "gpkg_tile_matrix",
            &[
                "zoom_level",
                "matrix_width",
                "matrix_height",
                "pixel_x_size",
                "pixel_y_size",
            ],
        ),
        ("gpkg_metadata", &["md_scope"]),
        (
            "gpkg_metadata_reference",
            &[
                "reference_scope",
                "column_name",
                "row_id_value",
                "timestamp",
            ],
        ),
    ];
    let standard = checks.iter().any(|(t, columns)| {
        *t == table
            && columns.iter().any(|c| {
                ["insert", "update"]
                    .iter()
                    .any(|e| name == format!("{t}_{c}_{e}"))
            })
    });
    rtree || counts || standard
}

/// A read-only connection, closed when dropped.
struct Db(*mut ffi::sqlite3);

impl Db {
    fn open(path: &Path) -> Result<Self, String> {
        use std::os::unix::ffi::OsStrExt;
        let c = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| "its name holds a NUL byte".to_string())?;
        let mut db = std::ptr::null_mut();
        // SAFETY: opens a connection this value owns; closed in drop even when the open
        // failed (SQLite hands back a handle to report the error with).
        let rc = unsafe {
            ffi::sqlite3_open_v2(
                c.as_ptr(),
                &mut db,
                ffi::SQLITE_OPEN_READONLY | ffi::SQLITE_OPEN_NOMUTEX,
                std::ptr::null(),
            )
        };
        let db = Db(db);
        if rc != ffi::SQLITE_OK {
            return Err(db.unreadable());
        }
        Ok(db)
    }

    /// Every row of `sql`, its first `columns` columns as text.
    fn rows(&self, sql: &str, columns: c_int) -> Result<Vec<Vec<String>>, String> {
        let c = CString::new(sql).expect("no NUL in our own SQL");
        let mut stmt = std::ptr::null_mut();
        // SAFETY: the statement is prepared on this open connection, stepped, read while
        // its row is current (the text is copied out at once) and finalized on every path.
        unsafe {
            if ffi::sqlite3_prepare_v2(self.0, c.as_ptr(), -1, &mut stmt, std::ptr::null_mut())
                != ffi::SQLITE_OK
            {
                return Err(self.unreadable());
            }
            let mut out = Vec::new();
            let result = loop {
                match ffi::sqlite3_step(stmt) {
                    ffi::SQLITE_ROW => out.push(
                        (0..columns)
                            .map(|i| {
                                let p = ffi::sqlite3_column_text(stmt, i);
                                if p.is_null() {
                                    String::new()
                                } else {
                                    CStr::from_ptr(p as *const std::ffi::c_char)
                                        .to_string_lossy()
                                        .into_owned()
                                }
                            })
                            .collect(),
                    ),
                    ffi::SQLITE_DONE => break Ok(out),
                    _ => break Err(self.unreadable()),
                }
            };
            ffi::sqlite3_finalize(stmt);
            result
        }
    }

    /// The connection's error, said as a refusal.
    fn unreadable(&self) -> String {
        // SAFETY: sqlite3_errmsg takes a null or open handle and returns a static or
        // connection-owned string, copied at once.
        let m = unsafe {
            let p = ffi::sqlite3_errmsg(self.0);
            if p.is_null() {
                "unknown error".to_string()
            } else {
                CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        format!("it is not a readable GeoPackage (SQLite: {m})")
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: closes the handle this value owns (a null handle is a no-op).
        unsafe { ffi::sqlite3_close(self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_triggers_are_known_by_name_and_table() {
        for (name, table) in [
            ("rtree_parcels_geom_insert", "parcels"),
            ("rtree_parcels_geom_update4", "parcels"),
            ("rtree_parcels_geom_update7", "parcels"),
            ("RTREE_Parcels_Shape_delete", "parcels"),
            ("trigger_insert_feature_count_parcels", "parcels"),
            ("trigger_delete_feature_count_parcels", "parcels"),
            ("gpkg_tile_matrix_zoom_level_insert", "gpkg_tile_matrix"),
            ("gpkg_tile_matrix_pixel_y_size_update", "gpkg_tile_matrix"),
            (
                "gpkg_metadata_reference_row_id_value_update",
                "gpkg_metadata_reference",
            ),
        ] {
            assert!(standard_trigger(name, table), "{name} on {table}");
        }
        for (name, table) in [
            ("rtree_parcels_geom_insert", "outfalls"),
            ("rtree_parcels_geom_rewrite", "parcels"),
            ("rtree_parcels__insert", "parcels"),
            ("trigger_insert_feature_count_parcels", "ms4_tokens"),
            ("ms4_outside_parcels_insert", "parcels"),
            ("gpkg_tile_matrix_zoom_level_insert", "parcels"),
            ("slow", "parcels"),
        ] {
            assert!(!standard_trigger(name, table), "{name} on {table}");
        }
    }

    #[test]
    fn only_rtree_virtual_tables_are_spatial_indexes() {
        let r = "CREATE VIRTUAL TABLE \"rtree_fp_geom\" USING rtree(id, minx, maxx, miny, maxy)";
        assert!(is_virtual(r) && rtree("rtree_fp_geom", r));
        let fts = "CREATE VIRTUAL TABLE rtree_x USING fts5(a)";
        assert!(is_virtual(fts) && !rtree("rtree_x", fts));
        assert!(!rtree("other", r));
        assert!(!is_virtual("CREATE TABLE rtree_fp_geom_node(nodeno, data)"));
        assert!(is_sqlite(b"SQLite format 3\0\x10\x00"));
        assert!(!is_sqlite(b"{\"type\":"));
    }
}
