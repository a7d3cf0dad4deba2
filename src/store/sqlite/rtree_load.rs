//! The R-tree of a load into an empty GeoPackage layer, built beside the row inserts.
//!
//! Every layer carries the GeoPackage R-tree (`rtree_<layer>_geom`), kept by the
//! standard triggers: one R-tree insertion per row, on the writer's thread, which on a
//! million parcels is most of the load (an SQLite R-tree takes about 7 s for a million
//! boxes). For a load into an empty layer the writer instead drops the insert trigger
//! inside its transaction, gives each row its fid itself, and hands the rows' boxes to a
//! thread that inserts them, in the same order, into an R-tree of the same shape in an
//! in-memory database. At the end the tree's three tables (nodes, rowids, parents) are
//! copied into the layer's R-tree tables and the trigger is put back as it was, all in
//! the write's transaction: a failed or killed load leaves the layer, its R-tree and its
//! triggers as they were. This is what GDAL does for its own GeoPackage loads.
//!
//! It is used only where the copy is known to fit: the layer's R-tree is the standard
//! 2-D one (`rtree(id, minx, maxx, miny, maxy)`), empty, with its insert trigger, and the
//! tree built has nodes of the size the layer's own tree uses. Otherwise the rows are
//! indexed one by one by the trigger, as for any other write.

use std::ffi::c_int;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use libsqlite3_sys as ffi;
use sqlx::SqliteConnection;

use super::raw::{exec, Stmt};
use crate::domain::Layer;
use crate::store::{trusted, Result, StoreError};

/// A row's fid and box: min x, max x, min y, max y (the R-tree's column order).
pub(super) type RowBox = (i64, [f64; 4]);

/// A load into an empty layer whose R-tree is being built apart.
pub(super) struct RtreeLoad {
    pub layer: Layer,
    next_fid: i64,
    node_size: i64,
    trigger_sql: String,
    boxes: Option<SyncSender<Vec<RowBox>>>,
    builder: Option<std::thread::JoinHandle<std::result::Result<Tree, String>>>,
}

/// The three tables of a built R-tree.
struct Tree {
    nodes: Vec<(i64, Vec<u8>)>,
    rowids: Vec<(i64, i64)>,
    parents: Vec<(i64, i64)>,
}

fn rtree(layer: Layer) -> String {
    format!("rtree_{}_geom", layer.name())
}

impl RtreeLoad {
    /// Starts building `layer`'s R-tree apart, when it fits (see the module docs); the
    /// layer must be empty inside the transaction.
    pub async fn start(db: &mut SqliteConnection, layer: Layer) -> Result<Option<Self>> {
        let r = rtree(layer);
        let vtab: Option<String> =
            sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?")
                .bind(&r)
                .fetch_optional(&mut *db)
                .await?;
        let standard = vtab.is_some_and(|sql| {
            let sql: String = sql.split_whitespace().collect::<String>().to_lowercase();
            sql.ends_with("usingrtree(id,minx,maxx,miny,maxy)")
        });
        let trigger: Option<String> =
            sqlx::query_scalar("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?")
                .bind(format!("{r}_insert"))
                .fetch_optional(&mut *db)
                .await?;
        let (true, Some(trigger_sql)) = (standard, trigger) else {
            return Ok(None);
        };
        let entries: i64 = sqlx::query_scalar(trusted(format!("SELECT count(*) FROM \"{r}\"")))
            .fetch_one(&mut *db)
            .await?;
        let node_size: Option<i64> = sqlx::query_scalar(trusted(format!(
            "SELECT length(data) FROM \"{r}_node\" WHERE nodeno = 1"
        )))
        .fetch_optional(&mut *db)
        .await?;
        let Some(node_size) = node_size.filter(|_| entries == 0) else {
            return Ok(None);
        };
        let page_size: i64 = sqlx::query_scalar("PRAGMA page_size")
            .fetch_one(&mut *db)
            .await?;
        // The fids the rows get: after any the layer ever used (AUTOINCREMENT).
        let next_fid: i64 = sqlx::query_scalar(trusted(format!(
            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = '{t}'), 0), coalesce((SELECT max(fid) FROM {t}), 0)) + 1",
            t = layer.name()
        )))
        .fetch_one(&mut *db)
        .await?;
        sqlx::query(trusted(format!("DROP TRIGGER \"{r}_insert\"")))
            .execute(&mut *db)
            .await?;
        let (boxes, rx) = sync_channel::<Vec<RowBox>>(64);
        let builder = std::thread::Builder::new()
            .name(format!("{r} builder"))
            .spawn(move || build(page_size, rx))
            .map_err(|e| StoreError::Aborted(format!("starting the R-tree builder: {e}")))?;
        Ok(Some(RtreeLoad {
            layer,
            next_fid,
            node_size,
            trigger_sql,
            boxes: Some(boxes),
            builder: Some(builder),
        }))
    }

    /// The fids of the next `n` rows, the first returned.
    pub fn take_fids(&mut self, n: usize) -> i64 {
        let first = self.next_fid;
        self.next_fid += n as i64;
        first
    }

    /// Hands boxes to the builder.
    pub fn send(&mut self, boxes: Vec<RowBox>) -> Result<()> {
        let sent = self.boxes.as_ref().is_some_and(|s| s.send(boxes).is_ok());
        if sent {
            Ok(())
        } else {
            // The builder stopped: its own error says why.
            Err(self.builder_error())
        }
    }

    fn builder_error(&mut self) -> StoreError {
        self.boxes = None;
        let why = match self.builder.take().map(|b| b.join()) {
            Some(Ok(Err(e))) => e,
            Some(Err(_)) => "it panicked".into(),
            _ => "it stopped".into(),
        };
        StoreError::Aborted(format!("building the R-tree failed: {why}"))
    }

    /// Waits for the tree and copies it into the layer's R-tree, then puts the insert
    /// trigger back.
    pub async fn finish(mut self, db: &mut SqliteConnection) -> Result<()> {
        self.boxes = None;
        let tree = match self.builder.take().map(|b| b.join()) {
            Some(Ok(Ok(tree))) => tree,
            Some(Ok(Err(e))) => {
                return Err(StoreError::Aborted(format!(
                    "building the R-tree failed: {e}"
                )))
            }
            _ => return Err(StoreError::Aborted("building the R-tree failed".into())),
        };
        let r = rtree(self.layer);
        let root_fits = tree
            .nodes
            .iter()
            .all(|(_, data)| data.len() as i64 == self.node_size);
        if root_fits {
            let mut handle = db.lock_handle().await?;
            let raw = handle.as_raw_handle().as_ptr();
            // SAFETY: `raw` is the live connection, held locked by `handle` throughout.
            unsafe { copy_tree(raw, &r, &tree) }.map_err(|why| {
                StoreError::Aborted(format!(
                    "copying the R-tree of {} failed: {why}",
                    self.layer
                ))
            })?;
        } else {
            // Nodes of another size than the layer's tree reads: index row by row.
            sqlx::query(trusted(format!(
                "INSERT INTO \"{r}\" SELECT fid, ST_MinX(geom), ST_MaxX(geom), ST_MinY(geom), ST_MaxY(geom) FROM \"{t}\" WHERE geom NOT NULL AND NOT ST_IsEmpty(geom)",
                t = self.layer.name()
            )))
            .execute(&mut *db)
            .await?;
        }
        sqlx::query(trusted(self.trigger_sql.clone()))
            .execute(&mut *db)
            .await?;
        Ok(())
    }
}

/// A connection of the builder's own, closed when dropped.
struct Db(*mut ffi::sqlite3);

impl Drop for Db {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by `build` and is closed once, here.
        unsafe { ffi::sqlite3_close(self.0) };
    }
}

/// The builder: an in-memory R-tree of the boxes, in the order they come.
fn build(page_size: i64, rx: Receiver<Vec<RowBox>>) -> std::result::Result<Tree, String> {
    let mut raw = std::ptr::null_mut();
    // SAFETY: a fresh in-memory connection, used by this thread only.
    let rc = unsafe { ffi::sqlite3_open(c":memory:".as_ptr(), &mut raw) };
    let db = Db(raw);
    if rc != ffi::SQLITE_OK {
        return Err("opening an in-memory database failed".into());
    }
    // SAFETY: `db` is this thread's open connection throughout.
    unsafe {
        exec(db.0, &format!("PRAGMA page_size = {page_size}"))?;
        exec(
            db.0,
            "CREATE VIRTUAL TABLE r USING rtree(id, minx, maxx, miny, maxy)",
        )?;
        exec(db.0, "BEGIN")?;
        let insert = Stmt::prepare(db.0, "INSERT INTO r VALUES (?, ?, ?, ?, ?)")?;
        for batch in rx {
            for (fid, b) in batch {
                ffi::sqlite3_bind_int64(insert.0, 1, fid);
                for (i, v) in b.iter().enumerate() {
                    ffi::sqlite3_bind_double(insert.0, i as c_int + 2, *v);
                }
                insert.done(db.0)?;
            }
        }
        drop(insert);
        exec(db.0, "COMMIT")?;
        let mut tree = Tree {
            nodes: Vec::new(),
            rowids: Vec::new(),
            parents: Vec::new(),
        };
        let nodes = Stmt::prepare(db.0, "SELECT nodeno, data FROM r_node ORDER BY nodeno")?;
        while nodes.row(db.0)? {
            let data = ffi::sqlite3_column_blob(nodes.0, 1) as *const u8;
            let len = ffi::sqlite3_column_bytes(nodes.0, 1) as usize;
            let bytes = if data.is_null() {
                Vec::new()
            } else {
                std::slice::from_raw_parts(data, len).to_vec()
            };
            tree.nodes
                .push((ffi::sqlite3_column_int64(nodes.0, 0), bytes));
        }
        for (sql, out) in [
            (
                "SELECT rowid, nodeno FROM r_rowid ORDER BY rowid",
                &mut tree.rowids,
            ),
            (
                "SELECT nodeno, parentnode FROM r_parent ORDER BY nodeno",
                &mut tree.parents,
            ),
        ] {
            let s = Stmt::prepare(db.0, sql)?;
            while s.row(db.0)? {
                out.push((
                    ffi::sqlite3_column_int64(s.0, 0),
                    ffi::sqlite3_column_int64(s.0, 1),
                ));
            }
        }
        Ok(tree)
    }
}

/// Replaces the contents of R-tree `r`'s three tables with `tree`'s.
///
/// # Safety
/// `db` must be an open connection no other thread uses during the call.
unsafe fn copy_tree(
    db: *mut ffi::sqlite3,
    r: &str,
    tree: &Tree,
) -> std::result::Result<(), String> {
    for t in ["node", "rowid", "parent"] {
        exec(db, &format!("DELETE FROM \"{r}_{t}\""))?;
    }
    let nodes = Stmt::prepare(
        db,
        &format!("INSERT INTO \"{r}_node\" (nodeno, data) VALUES (?, ?)"),
    )?;
    for (no, data) in &tree.nodes {
        ffi::sqlite3_bind_int64(nodes.0, 1, *no);
        ffi::sqlite3_bind_blob(
            nodes.0,
            2,
            data.as_ptr().cast(),
            data.len() as c_int,
            ffi::SQLITE_TRANSIENT(),
        );
        nodes.done(db)?;
    }
    for (sql, rows) in [
        (
            format!("INSERT INTO \"{r}_rowid\" (rowid, nodeno) VALUES (?, ?)"),
            &tree.rowids,
        ),
        (
            format!("INSERT INTO \"{r}_parent\" (nodeno, parentnode) VALUES (?, ?)"),
            &tree.parents,
        ),
    ] {
        let s = Stmt::prepare(db, &sql)?;
        for (a, b) in rows {
            ffi::sqlite3_bind_int64(s.0, 1, *a);
            ffi::sqlite3_bind_int64(s.0, 2, *b);
            s.done(db)?;
        }
    }
    Ok(())
}
