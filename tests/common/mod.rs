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

// ---------------------------------------------------------------- the router in process

/// The service's router in this process, as `ms4 serve` builds it (the snapshot and the
/// profile loaded from the store and kept in step with other programs' writes), driven
/// with `oneshot` and no socket. Requests read like reqwest's: `get`, `post`, `delete`,
/// then `bearer_auth`, `query`, `json`, `multipart`, `send`. A URL may be a path or start
/// with [`App::base`], as the service's own links do. What only a process shows (a
/// signal, sockets, hyper's own refusals, the command's flags and process-wide settings)
/// is tested on [`serve`]'s real server instead.
#[derive(Clone)]
pub struct App {
    /// What the service's state holds (the store, the snapshot, the limits).
    pub state: ms4::http::AppState,
    /// The address links are made with when no public URL is set, as `Server::base`:
    /// `http://127.0.0.1:8080`.
    pub base: String,
    /// Headers every request carries (a reqwest client's default headers).
    defaults: Vec<(String, String)>,
}

/// The address an [`App`] says it listens on (it listens on none).
pub const APP_ADDR: &str = "127.0.0.1:8080";

impl App {
    /// The service on a store with the default limits (reads need a token).
    pub async fn new(store: &Arc<dyn Store>) -> App {
        App::with_config(store, ms4::http::ServeConfig::default()).await
    }

    /// The same, with reads open to anyone (`--public-read`).
    pub async fn public(store: &Arc<dyn Store>) -> App {
        App::with_config(
            store,
            ms4::http::ServeConfig {
                public_read: true,
                ..Default::default()
            },
        )
        .await
    }

    /// The service with the limits given (`--body-limit`, `--public-url`, ...). The
    /// listening address is [`APP_ADDR`] unless the config names one.
    pub async fn with_config(store: &Arc<dyn Store>, mut config: ms4::http::ServeConfig) -> App {
        let addr = *config
            .listen_addr
            .get_or_insert_with(|| APP_ADDR.parse().unwrap());
        let snapshot = ms4::spatial::SnapshotHandle::load(store.as_ref())
            .await
            .unwrap();
        // The state `ms4 serve` builds, with its watchers: an outside write (a CLI
        // import, psql) is seen within a second, and so is a profile update.
        let state = ms4::serve::state(store.clone(), snapshot, config)
            .await
            .unwrap();
        App {
            state,
            base: format!("http://{addr}"),
            defaults: Vec::new(),
        }
    }

    /// The same service, with a header every request of this handle carries (a client
    /// built with default headers); another handle's requests do not.
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> App {
        self.defaults.push((name.to_string(), value.into()));
        self
    }

    /// The same service, every request of this handle with `Authorization: Bearer TOKEN`.
    pub fn with_bearer(self, token: impl std::fmt::Display) -> App {
        self.with_header("authorization", format!("Bearer {token}"))
    }

    /// A request of `method` to `url` (a path, or a URL whose path and query are used),
    /// read as reqwest reads a URL (percent-encoded where it must be, dot segments gone)
    /// with the `Host` header it would send.
    pub fn request(&self, method: &str, url: impl AsRef<str>) -> Call {
        let url = url.as_ref();
        let full = if url.contains("://") {
            url.to_string()
        } else {
            format!("{}{url}", self.base)
        };
        let parsed = url::Url::parse(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
        let host = match parsed.port() {
            Some(p) => format!("{}:{p}", parsed.host_str().unwrap()),
            None => parsed.host_str().unwrap().to_string(),
        };
        let target = parsed[url::Position::BeforePath..url::Position::AfterQuery].to_string();
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(axum::http::header::HOST, host.parse().unwrap());
        for (k, v) in &self.defaults {
            headers.insert(
                axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(),
                v.parse().unwrap(),
            );
        }
        Call {
            state: self.state.clone(),
            method: method.parse().unwrap(),
            target,
            headers,
            query: Vec::new(),
            body: None,
        }
    }

    /// `GET url`.
    pub fn get(&self, url: impl AsRef<str>) -> Call {
        self.request("GET", url)
    }

    /// `POST url`.
    pub fn post(&self, url: impl AsRef<str>) -> Call {
        self.request("POST", url)
    }

    /// `PUT url`.
    pub fn put(&self, url: impl AsRef<str>) -> Call {
        self.request("PUT", url)
    }

    /// `DELETE url`.
    pub fn delete(&self, url: impl AsRef<str>) -> Call {
        self.request("DELETE", url)
    }
}

/// A request to an [`App`], being built.
pub struct Call {
    state: ms4::http::AppState,
    method: axum::http::Method,
    target: String,
    headers: axum::http::HeaderMap,
    query: Vec<(String, String)>,
    body: Option<Vec<u8>>,
}

impl Call {
    /// `Authorization: Bearer TOKEN`.
    pub fn bearer_auth(self, token: impl std::fmt::Display) -> Call {
        self.header("authorization", format!("Bearer {token}"))
    }

    /// Sets a header (replacing one of the same name, `Host` included).
    pub fn header(mut self, name: &str, value: impl AsRef<str>) -> Call {
        let name = axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap();
        self.headers.insert(
            name,
            axum::http::HeaderValue::from_str(value.as_ref()).unwrap(),
        );
        self
    }

    /// Adds query parameters, encoded as a form (pairs, or a map).
    pub fn query<T: serde::Serialize + ?Sized>(mut self, q: &T) -> Call {
        let text = serde_urlencoded::to_string(q).unwrap();
        self.query
            .extend(serde_urlencoded::from_str::<Vec<(String, String)>>(&text).unwrap());
        self
    }

    /// A JSON body.
    pub fn json<T: serde::Serialize + ?Sized>(self, v: &T) -> Call {
        self.header("content-type", "application/json")
            .body(serde_json::to_vec(v).unwrap())
    }

    /// A body as it is.
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Call {
        self.body = Some(bytes.into());
        self
    }

    /// A `multipart/form-data` body.
    pub fn multipart(self, form: Form) -> Call {
        let (content_type, bytes) = form.finish();
        self.header("content-type", content_type).body(bytes)
    }

    /// Sends it through the router; the whole answer.
    pub async fn send(self) -> Answer {
        use tower::ServiceExt;
        let mut uri = self.target;
        if !self.query.is_empty() {
            uri.push(if uri.contains('?') { '&' } else { '?' });
            uri.push_str(&serde_urlencoded::to_string(&self.query).unwrap());
        }
        let mut req = axum::http::Request::builder()
            .method(self.method)
            .uri(uri.as_str());
        let mut headers = self.headers;
        if let Some(b) = &self.body {
            headers.insert(axum::http::header::CONTENT_LENGTH, b.len().into());
        }
        *req.headers_mut().unwrap() = headers;
        let req = req
            .body(axum::body::Body::from(self.body.unwrap_or_default()))
            .unwrap();
        let res = ms4::http::app(self.state).oneshot(req).await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let body = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        Answer {
            status,
            headers,
            body,
        }
    }
}

/// A response from an [`App`], read whole.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The status.
    pub status: axum::http::StatusCode,
    /// The headers.
    pub headers: axum::http::HeaderMap,
    /// The body.
    pub body: bytes::Bytes,
}

impl Answer {
    /// The status.
    pub fn status(&self) -> axum::http::StatusCode {
        self.status
    }

    /// The headers.
    pub fn headers(&self) -> &axum::http::HeaderMap {
        &self.headers
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as bytes.
    pub fn bytes(&self) -> bytes::Bytes {
        self.body.clone()
    }

    /// The body read as JSON; a body that is not JSON fails the test, naming the status.
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> T {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {}", self.status, self.text()))
    }
}

/// A `multipart/form-data` body, built as reqwest's `Form` is (a file part names its file
/// and, as reqwest's `Part::bytes`, no type).
#[derive(Default)]
pub struct Form {
    parts: Vec<(String, Option<String>, Vec<u8>)>,
}

impl Form {
    /// No parts yet.
    pub fn new() -> Form {
        Form::default()
    }

    /// A text field.
    pub fn text(mut self, name: impl Into<String>, value: impl Into<String>) -> Form {
        self.parts
            .push((name.into(), None, value.into().into_bytes()));
        self
    }

    /// A file field: its file name and bytes.
    pub fn file(
        mut self,
        name: impl Into<String>,
        file_name: impl Into<String>,
        bytes: impl Into<Vec<u8>>,
    ) -> Form {
        self.parts
            .push((name.into(), Some(file_name.into()), bytes.into()));
        self
    }

    /// The content type (with its boundary) and the body.
    pub fn finish(self) -> (String, Vec<u8>) {
        let boundary = format!("ms4-test-boundary-{:016x}", unique());
        let mut out = Vec::new();
        for (name, file_name, bytes) in self.parts {
            out.extend_from_slice(format!("--{boundary}\r\n").as_bytes());
            match file_name {
                Some(f) => out.extend_from_slice(
                    format!(
                        "Content-Disposition: form-data; name=\"{name}\"; filename=\"{f}\"\r\n\r\n"
                    )
                    .as_bytes(),
                ),
                None => out.extend_from_slice(
                    format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes(),
                ),
            }
            out.extend_from_slice(&bytes);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        (format!("multipart/form-data; boundary={boundary}"), out)
    }
}
