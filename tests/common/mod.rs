//! Shared test helpers: fixtures, temporary registries on both stores, the CLI binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use ms4::import::crs;
use ms4::store::{self, Store};

/// A fixture file under tests/fixtures.
pub fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

/// The `ms4` binary built for these tests.
pub fn ms4() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ms4"));
    c.env("RUST_LOG", "ms4=warn");
    c
}

/// Runs `ms4 --store URL args...`.
pub fn run(store: &str, args: &[&str]) -> Output {
    ms4()
        .arg("--store")
        .arg(store)
        .args(args)
        .output()
        .expect("ms4 runs")
}

/// Runs and asserts success; returns stdout.
pub fn run_ok(store: &str, args: &[&str]) -> String {
    let out = run(store, args);
    assert!(
        out.status.success(),
        "ms4 {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The base URL of the test PostgreSQL (a role that may create databases), if any.
///
/// `MS4_TEST_PG` names it (the test script sets it). Without it the PostGIS half of a
/// test is skipped with a loud message, except under CI, where that is a failure: a
/// PostGIS test must never pass by not running.
pub fn pg_base() -> Option<String> {
    match std::env::var("MS4_TEST_PG") {
        Ok(u) if !u.is_empty() => Some(u),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but MS4_TEST_PG is not: the PostGIS tests cannot run (use scripts/test.sh)")
        }
        _ => {
            eprintln!(
                "SKIPPING the PostGIS half: MS4_TEST_PG is not set (scripts/test.sh sets it)"
            );
            None
        }
    }
}

/// A fresh, uniquely named database URL on the test server (created by `ms4 init`).
///
/// The database is dropped when the [`Registry`] holding it is dropped, or else when the
/// test binary exits: a run creates hundreds of them, a dozen megabytes each with PostGIS,
/// and a small CI disk fills up if they all stay until the end.
pub fn fresh_pg_url(tag: &str) -> Option<String> {
    let base = pg_base()?;
    let mut url = url::Url::parse(&base).expect("MS4_TEST_PG is a URL");
    let name = format!("ms4_test_{}_{}_{}", tag, std::process::id(), unique());
    url.set_path(&name);
    let url = url.to_string();
    created_databases().push(url.clone());
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: registers a plain `extern "C"` function with no arguments; it runs once,
        // after `main` returns, when no test holds the list's lock.
        unsafe { libc::atexit(drop_created_databases) };
    });
    Some(url)
}

/// The PostGIS databases this process created and has not dropped yet.
fn created_databases() -> std::sync::MutexGuard<'static, Vec<String>> {
    static CREATED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    // A test that panicked while holding the lock leaves it poisoned; the list is still whole.
    CREATED.lock().unwrap_or_else(|e| e.into_inner())
}

extern "C" fn drop_created_databases() {
    let left: Vec<String> = std::mem::take(&mut *created_databases());
    for url in left {
        drop_database(&url);
    }
}

/// Drops a test database, ending any connection still open to it (a pool the test dropped,
/// a server it killed). A failure is printed, never a panic: this is clean-up, and the test
/// script drops whatever is left before the next run.
fn drop_database(url: &str) {
    created_databases().retain(|u| u != url);
    let Some(base) = std::env::var("MS4_TEST_PG").ok().filter(|b| !b.is_empty()) else {
        return;
    };
    let Ok(parsed) = url::Url::parse(url) else {
        return;
    };
    let name = parsed.path().trim_start_matches('/').replace('"', "");
    let sql = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
    match psql(&base, &sql) {
        Ok(o) if o.status.success() => {}
        Ok(o) => eprintln!(
            "could not drop the test database {name}: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        ),
        Err(e) => eprintln!("could not drop the test database {name}: psql: {e}"),
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    t * 1000 + N.fetch_add(1, Ordering::Relaxed)
}

/// A registry on a store: the URL, and the temp dir that must outlive it.
pub struct Registry {
    /// The store URL.
    pub url: String,
    /// The store, opened.
    pub store: Arc<dyn Store>,
    /// Keeps the SQLite file's folder alive.
    pub dir: tempfile::TempDir,
}

impl Drop for Registry {
    fn drop(&mut self) {
        if self.url.starts_with("postgres") {
            drop_database(&self.url);
        }
    }
}

/// The store kinds every store test runs on.
pub fn kinds() -> Vec<&'static str> {
    let mut k = vec!["sqlite"];
    if pg_base().is_some() {
        k.push("postgis");
    }
    k
}

/// Creates a registry of a kind in an EPSG code.
pub async fn registry(kind: &str, srid: i32) -> Registry {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("s").expect("postgis requested"),
    };
    let meta = crs::registry_meta("north-castle-ny", srid).unwrap();
    let store = store::create(&url, &meta)
        .await
        .unwrap_or_else(|e| panic!("creating {url}: {e}"));
    Registry { url, store, dir }
}

/// Copies a fixture folder (or file) into a temp dir, for tests that change files.
pub fn copy_fixture(rel: &str, into: &Path) -> PathBuf {
    let src = fixture(rel);
    let dst = into.join(src.file_name().unwrap());
    if src.is_dir() {
        std::fs::create_dir_all(&dst).unwrap();
        for e in std::fs::read_dir(&src).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
        }
    } else {
        std::fs::copy(&src, &dst).unwrap();
    }
    dst
}

/// The demo town (data/demo) in a fresh registry of `kind` for a jurisdiction, EPSG:2260.
pub async fn demo_registry(kind: &str, jurisdiction: &str) -> Registry {
    use ms4::domain::Layer;
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("demo").expect("postgis requested"),
    };
    let meta = crs::registry_meta(jurisdiction, 2260).unwrap();
    let store = store::create(&url, &meta).await.unwrap();
    // Boundary first: the import checks every other layer against it.
    let mut layers = vec![Layer::Boundary];
    layers.extend(Layer::ALL.into_iter().filter(|l| *l != Layer::Boundary));
    for l in layers {
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/demo")
            .join(format!("{}.gpkg", l.name()));
        if !file.exists() {
            continue;
        }
        let r = ms4::import::import(store.clone(), ms4::import::ImportOptions::new(l, file))
            .await
            .unwrap();
        assert_eq!(r.rejected, 0, "{l}");
    }
    Registry { url, store, dir }
}

/// A running `ms4 serve` on 127.0.0.1:0, killed when dropped.
pub struct Server {
    /// The process.
    pub child: std::process::Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `ms4 serve` on a store with extra arguments and waits for its URL.
pub fn serve(store: &str, extra: &[&str]) -> Server {
    serve_with_env(store, extra, &[])
}

/// The same, with environment variables set for the server (a lowered limit, say).
pub fn serve_with_env(store: &str, extra: &[&str], env: &[(&str, &str)]) -> Server {
    use std::io::{BufRead, BufReader};
    let mut child = ms4()
        .envs(env.iter().copied())
        .args(["--store", store, "serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let base = loop {
        let line = lines.next().expect("the server prints its URL").unwrap();
        if let Some(u) = line.strip_prefix("serving the registry at ") {
            break u.trim().trim_end_matches('/').to_string();
        }
    };
    Server { child, base }
}

/// Creates a token with the CLI and returns it.
pub fn token(store: &str, role: &str, subject: &str, extra: &[&str]) -> String {
    let mut args = vec!["token", "create", "--role", role, "--subject", subject];
    args.extend_from_slice(extra);
    run_ok(store, &args).trim().to_string()
}

/// Writes a zip holding `(name, bytes)` entries (with Python's standard zipfile, as
/// analysts' tools make them).
pub fn zip_files(zip: &Path, entries: &[(&str, &[u8])]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in entries {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let st = Command::new("python3")
        .args(["-c", "import sys, zipfile, os\nz = zipfile.ZipFile(sys.argv[1], 'w')\nfor f in sorted(os.listdir(sys.argv[2])): z.write(os.path.join(sys.argv[2], f), f)\nz.close()"])
        .arg(zip)
        .arg(dir.path())
        .status()
        .unwrap();
    assert!(st.success(), "python3 zipfile");
}

/// A TCP listener on 127.0.0.1 that records whether anything connected to it, to prove
/// that no request left the process under test.
pub struct Tripwire {
    listener: std::net::TcpListener,
    /// The port it listens on.
    pub port: u16,
}

impl Tripwire {
    /// Starts listening.
    pub fn new() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        Tripwire { listener, port }
    }

    /// True when a connection is waiting (something tried to reach the port).
    pub fn tripped(&self) -> bool {
        std::thread::sleep(std::time::Duration::from_millis(100));
        self.listener.accept().is_ok()
    }
}

// ---------------------------------------------------------------- hand-made towns

/// A legacy GeoJSON `crs` member naming NY East (EPSG:2260), for hand-made towns.
pub const CRS_2260: &str =
    r#""crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::2260"}}"#;

/// A FeatureCollection in EPSG:2260 of `features`.
pub fn fc(features: &[String]) -> String {
    format!(
        r#"{{"type":"FeatureCollection",{CRS_2260},"features":[{}]}}"#,
        features.join(",")
    )
}

/// A feature with `props` (the inside of the properties object) and a geometry.
pub fn feature(props: &str, geom: &str) -> String {
    format!(r#"{{"type":"Feature","properties":{{{props}}},"geometry":{geom}}}"#)
}

/// A `w` by `h` rectangle from `(x, y)`.
pub fn rect(x: f64, y: f64, w: f64, h: f64) -> String {
    format!(
        r#"{{"type":"Polygon","coordinates":[[[{x},{y}],[{},{y}],[{},{}],[{x},{}],[{x},{y}]]]}}"#,
        x + w,
        x + w,
        y + h,
        y + h
    )
}

/// An `s` by `s` square from `(x, y)`.
pub fn square(x: f64, y: f64, s: f64) -> String {
    rect(x, y, s, s)
}

/// A point.
pub fn point(x: f64, y: f64) -> String {
    format!(r#"{{"type":"Point","coordinates":[{x},{y}]}}"#)
}

/// A line through `pts`.
pub fn line(pts: &[(f64, f64)]) -> String {
    let c: Vec<String> = pts.iter().map(|(x, y)| format!("[{x},{y}]")).collect();
    format!(r#"{{"type":"LineString","coordinates":[{}]}}"#, c.join(","))
}

/// The `sqlite3` shell run on a GeoPackage with `sql`, waiting up to ten seconds for
/// the write lock as QGIS and GDAL do. The shell alone waits for no one, and a store
/// dropped in the test's own process closes its connections in the background: the
/// last one checkpoints the WAL, which holds the lock for a moment.
pub fn sqlite3(gpkg: &Path, sql: &str) -> Output {
    Command::new("sqlite3")
        .args(["-cmd", ".timeout 10000"])
        .arg(gpkg)
        .arg(sql)
        .output()
        .expect("sqlite3 runs (scripts/setup.sh installs it)")
}

/// SQL run by each store's own shell, as another program would: `sqlite3` on the
/// GeoPackage in `dir`, `psql` on the PostGIS `url`. Asserts it succeeded.
pub fn shell_sql(kind: &str, dir: &Path, url: &str, sql: &str) {
    let out = match kind {
        "sqlite" => sqlite3(&dir.join("registry.gpkg"), sql),
        _ => psql(url, sql).unwrap(),
    };
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `sql` with `psql` on the database at `url`: stops at the first error, reads no
/// `.psqlrc`, and prints bare values (`-tA`), one row a line.
pub fn psql(url: &str, sql: &str) -> std::io::Result<Output> {
    Command::new("psql")
        .args(["-X", "-qtA", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        .output()
}

/// SQL run by another program: `ogrinfo -sql` on the GeoPackage (GDAL has the functions
/// its triggers call), `psql` on PostGIS. Returns what it printed.
pub fn outside_sql(kind: &str, reg: &Registry, sql: &str) -> String {
    let gpkg = reg.dir.path().join("registry.gpkg").display().to_string();
    let out = match kind {
        "sqlite" => Command::new("ogrinfo")
            .args(["-q", &gpkg, "-sql", sql])
            .output(),
        _ => psql(&reg.url, sql),
    }
    .unwrap();
    assert!(
        out.status.success(),
        "{sql}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The number a `SELECT count(*) AS n ...` run by another program prints.
pub fn outside_count(kind: &str, reg: &Registry, sql: &str) -> usize {
    let out = outside_sql(kind, reg, sql);
    // ogrinfo prints `n (Integer) = 3`; psql -tA prints `3`.
    out.lines()
        .filter_map(|l| l.rsplit('=').next())
        .filter_map(|v| v.trim().parse::<usize>().ok())
        .next_back()
        .unwrap_or_else(|| panic!("no count in {out:?}"))
}
