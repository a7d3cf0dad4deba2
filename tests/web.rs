//! The web page end to end: a real `ms4 serve` on 127.0.0.1:0 with the demo registry,
//! driven in Debian's headless Chromium by the flows in `tests/web/*.mjs` (playwright-core
//! from `web/node_modules`, installed by `scripts/web.sh`). Each flow checks what the page
//! shows against what the API answers, and takes a screenshot whose map pixels must show
//! drawn layers.
//!
//! Without chromium or the page's packages a flow is skipped with a loud message, except
//! under CI, where that is a failure.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};

use common::*;

/// One browser at a time: two cores do not run several software-rendered Chromiums well.
static BROWSER: Mutex<()> = Mutex::new(());

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn chromium() -> PathBuf {
    std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Whether the browser and the page's packages are here; under CI their absence fails.
fn ready() -> bool {
    let mut missing = Vec::new();
    if !chromium().exists() {
        missing.push(format!(
            "{} (apt-get install chromium; scripts/setup.sh does)",
            chromium().display()
        ));
    }
    if Command::new("node").arg("--version").output().is_err() {
        missing.push("node (scripts/setup.sh installs it)".into());
    }
    if !root().join("web/node_modules/playwright-core").exists() {
        missing.push("web/node_modules (run scripts/web.sh)".into());
    }
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os("CI").is_some() {
        panic!(
            "CI is set but the browser tests cannot run: missing {}",
            missing.join(", ")
        );
    }
    eprintln!("SKIPPING the browser flows: missing {}", missing.join(", "));
    false
}

/// The demo registry, built once per test run; each server gets its own copy.
fn demo() -> &'static PathBuf {
    static DEMO: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DEMO
        .get_or_init(|| {
            let dir = tempfile::tempdir().unwrap();
            let reg = dir.path().join("demo.gpkg");
            let out = ms4()
                .args(["demo", "--no-serve", "--registry"])
                .arg(&reg)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "ms4 demo: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            (dir, reg)
        })
        .1
}

/// A running server over a fresh copy of the demo, with a token per role.
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    /// The registry's store URL.
    pub store: String,
    /// Tokens: inspector, analyst, planner.
    pub tokens: [(String, String); 3],
    public_read: bool,
    _dir: tempfile::TempDir,
}

impl Server {
    /// Starts `ms4 serve` on port 0 (public-read or not).
    pub fn start(public_read: bool) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let reg = dir.path().join("demo.gpkg");
        // The registry with its write-ahead log, which may hold the last writes.
        for suffix in ["", "-wal", "-shm"] {
            let from = PathBuf::from(format!("{}{suffix}", demo().display()));
            if from.exists() {
                std::fs::copy(&from, format!("{}{suffix}", reg.display())).unwrap();
            }
        }
        let store = format!("sqlite://{}", reg.display());
        Server::on(dir, store, public_read)
    }

    /// Starts `ms4 serve` on a new registry of a town with its profile and no layers
    /// (a Carmel registry: the demo is North Castle's).
    pub fn start_town(jurisdiction: &str, public_read: bool) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let store = format!("sqlite://{}", dir.path().join("town.gpkg").display());
        run_ok(
            &store,
            &["init", "--jurisdiction", jurisdiction, "--crs", "EPSG:2260"],
        );
        Server::on(dir, store, public_read)
    }

    /// Serves a registry in `dir`, with a token per role.
    fn on(dir: tempfile::TempDir, store: String, public_read: bool) -> Server {
        let tokens = ["inspector", "analyst", "planner"].map(|role| {
            let t = run_ok(
                &store,
                &[
                    "token",
                    "create",
                    "--role",
                    role,
                    "--subject",
                    &format!("{role}-1"),
                ],
            );
            (role.to_string(), t.trim().to_string())
        });
        let (child, url) = Server::spawn(&store, public_read);
        Server {
            child,
            url,
            store,
            tokens,
            public_read,
            _dir: dir,
        }
    }

    /// Stops the server and starts it again on the same registry (a new port).
    pub fn restart(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let (child, url) = Server::spawn(&self.store, self.public_read);
        self.child = child;
        self.url = url;
    }

    fn spawn(store: &str, public_read: bool) -> (Child, String) {
        let mut cmd = ms4();
        cmd.args(["--store", store, "serve", "--listen", "127.0.0.1:0"]);
        if public_read {
            cmd.arg("--public-read");
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let url = loop {
            let line = lines.next().expect("serve prints its URL").unwrap();
            if let Some(u) = line.strip_prefix("serving the registry at ") {
                break u.trim_end_matches('/').to_string();
            }
        };
        // Keep reading its output so the server never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        (child, url)
    }

    fn token(&self, role: &str) -> &str {
        &self.tokens.iter().find(|(r, _)| r == role).unwrap().1
    }

    /// Runs a flow; panics with its output when it fails.
    pub fn flow(&self, script: &str) {
        self.flow_with(script, &[]);
    }

    /// Runs a flow with more environment for it.
    pub fn flow_with(&self, script: &str, env: &[(&str, &str)]) {
        let _one = BROWSER.lock().unwrap_or_else(|p| p.into_inner());
        let shots = std::env::var_os("MS4_SHOTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target/web-shots"));
        std::fs::create_dir_all(&shots).unwrap();
        let out = Command::new("node")
            .arg(root().join("tests/web").join(script))
            .env("MS4_URL", &self.url)
            .env("MS4_SHOTS", &shots)
            .env("MS4_TOKEN_INSPECTOR", self.token("inspector"))
            .env("MS4_TOKEN_ANALYST", self.token("analyst"))
            .env("MS4_TOKEN_PLANNER", self.token("planner"))
            .env("MS4_FIXTURES", root().join("tests/fixtures"))
            .envs(env.iter().copied())
            .output()
            .unwrap();
        let text = format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        print!("{text}");
        assert!(out.status.success(), "flow {script} failed:\n{text}");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn page_is_served_to_browsers_and_draws_the_map_with_sign_in_by_role() {
    if !ready() {
        return;
    }
    Server::start(true).flow("page.mjs");
}

#[test]
fn a_registry_without_public_read_asks_for_a_token_before_drawing() {
    if !ready() {
        return;
    }
    Server::start(false).flow("signin.mjs");
}

#[test]
fn inspector_finds_what_is_near_opens_a_card_and_records_a_screening() {
    if !ready() {
        return;
    }
    Server::start(true).flow("inspector.mjs");
}

#[test]
fn inspections_recorded_offline_are_sent_once_when_the_network_returns() {
    if !ready() {
        return;
    }
    Server::start(true).flow("offline.mjs");
}

#[tokio::test]
async fn an_idempotency_key_returns_the_first_answer_and_writes_once_across_a_restart() {
    let s = Server::start(false);
    let token = s.token("inspector").to_string();
    let http = reqwest::Client::new();
    let body = serde_json::json!({
        "asset_id": "OF-000002", "inspected_on": "2026-11-30", "kind": "dry_weather_screening",
        "result": "pass", "position": {"lon": -73.8574, "lat": 41.2137},
        "observed_at": "2026-11-30T14:05:00Z",
    });
    let post = |url: String, key: &'static str, body: serde_json::Value| {
        let http = http.clone();
        let token = token.clone();
        async move {
            let r = http
                .post(format!("{url}/api/inspections"))
                .bearer_auth(token)
                .header("Idempotency-Key", key)
                .json(&body)
                .send()
                .await
                .unwrap();
            (
                r.status().as_u16(),
                r.json::<serde_json::Value>().await.unwrap(),
            )
        }
    };
    let (st, first) = post(s.url.clone(), "key-1", body.clone()).await;
    assert_eq!(st, 201, "{first}");
    assert_eq!(first["write"]["inserted"], 1, "{first}");
    assert_eq!(
        first["inspection"]["position"],
        serde_json::json!([-73.8574, 41.2137])
    );
    // The server restarts (the key is stored with the inspection, not in memory).
    let mut s = s;
    s.restart();
    let (st, again) = post(s.url.clone(), "key-1", body.clone()).await;
    assert_eq!(st, 201, "{again}");
    assert_eq!(again["replayed"], true, "{again}");
    assert_eq!(
        again["inspection"]["inspection_id"],
        first["inspection"]["inspection_id"]
    );
    let listed: serde_json::Value = http
        .get(format!("{}/api/assets/OF-000002/inspections", s.url))
        .bearer_auth(s.token("inspector"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        listed["inspections"].as_array().unwrap().len(),
        1,
        "{listed}"
    );
    // The key names one inspection: used for another, it is refused, naming the header.
    let mut other = body.clone();
    other["asset_id"] = "OF-000001".into();
    let (st, refused) = post(s.url.clone(), "key-1", other).await;
    assert_eq!(st, 422, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .starts_with("Idempotency-Key:"),
        "{refused}"
    );
}

#[test]
fn planner_gets_a_determination_for_a_parcel_a_drawn_and_an_uploaded_footprint() {
    if !ready() {
        return;
    }
    Server::start(true).flow("planner.mjs");
}

#[test]
fn officer_lists_connections_traces_upstream_and_exports_a_watershed_list() {
    if !ready() {
        return;
    }
    Server::start(true).flow("officer.mjs");
}

#[test]
fn analyst_maps_fields_reads_the_quality_report_commits_and_sees_it_drawn() {
    if !ready() {
        return;
    }
    Server::start(true).flow("analyst.mjs");
}

/// The page's own logic (the queue, the forms, the fact mapping), with Vitest.
#[test]
fn page_unit_tests_pass() {
    if !ready() {
        return;
    }
    let out = Command::new("npx")
        .args(["--no-install", "vitest", "run"])
        .current_dir(root().join("web"))
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    print!("{text}");
    assert!(out.status.success(), "vitest failed:\n{text}");
}

/// A photo taken with an inspection goes to `POST /api/inspections/{id}/photos` once the
/// inspection is accepted, and comes back from `GET /api/photos/{sha256}`.
#[test]
fn photo_taken_with_an_inspection_reaches_the_server_after_the_inspection() {
    if !ready() {
        return;
    }
    Server::start(true).flow("photo.mjs");
}

/// Hostile photos never run script on the service's origin: an SVG, an HTML page said to
/// be a PNG and a GIF/JS polyglot are refused; a PNG with a script appended and a
/// JPEG/HTML polyglot are served inert; an SVG and an HTML page stored by an older version
/// under the client's type are served as downloads. Opened in a signed-in admin's tab, as
/// an image and as a frame, none runs nor reads the token.
#[test]
fn hostile_photos_are_refused_or_served_inert_in_a_browser() {
    if !ready() {
        return;
    }
    let s = Server::start(true);
    let admin = run_ok(
        &s.store,
        &["token", "create", "--role", "admin", "--subject", "admin-1"],
    );
    let gpkg = Path::new(s.store.strip_prefix("sqlite://").unwrap());
    let legacy: Vec<String> = [
        (&b"<svg xmlns='http://www.w3.org/2000/svg'><script>document.title='pwned';fetch('/__pwned?t='+sessionStorage.getItem('ms4.token'))</script></svg>"[..], "image/svg+xml"),
        (&b"<!doctype html><script>document.title='pwned';fetch('/__pwned?t='+sessionStorage.getItem('ms4.token'))</script>"[..], "text/html"),
    ]
    .iter()
    .map(|(bytes, ty)| {
        let sha = ms4::store::photos::sha256_hex(bytes);
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let out = sqlite3(
            gpkg,
            &format!(
                "INSERT INTO ms4_photos (inspection_id, sha256, content_type, bytes, size, taken_by, stored_at) \
                 VALUES ('legacy', '{sha}', '{ty}', X'{hex}', {}, 'an older version', '2025-01-01T00:00:00+00:00')",
                bytes.len()
            ),
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        sha
    })
    .collect();
    s.flow_with(
        "hostile_photo.mjs",
        &[
            ("MS4_TOKEN_ADMIN", admin.trim()),
            ("MS4_LEGACY", &legacy.join(",")),
        ],
    );
}

/// The planner's footprint from a zipped shapefile: the server reads it through the
/// uploads' GDAL opening and answers it in CRS84; a determination takes it as it is; a
/// file that is no footprint is refused naming `file`.
#[tokio::test]
async fn a_zipped_shapefile_footprint_comes_back_in_crs84_and_a_determination_takes_it() {
    let s = Server::start(true);
    let http = reqwest::Client::new();
    let planner = s.token("planner").to_string();
    let parcels: serde_json::Value = http
        .get(format!("{}/collections/parcels/items?limit=1", s.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let parcel = &parcels["features"][0];
    let dir = tempfile::tempdir().unwrap();
    let gj = dir.path().join("fp.geojson");
    std::fs::write(
        &gj,
        serde_json::json!({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"name": "site"}, "geometry": parcel["geometry"]}]}).to_string(),
    )
    .unwrap();
    // A shapefile in the state plane (with its .prj), zipped, as a surveyor sends one.
    // (GDAL writes a zipped shapefile under the .shz name; it is a plain zip.)
    let shz = dir.path().join("site.shz");
    let st = Command::new("ogr2ogr")
        .args(["-f", "ESRI Shapefile", "-t_srs", "EPSG:2260"])
        .arg(&shz)
        .arg(&gj)
        .output()
        .unwrap();
    assert!(
        st.status.success(),
        "{}",
        String::from_utf8_lossy(&st.stderr)
    );
    let zip = dir.path().join("site.zip");
    std::fs::rename(&shz, &zip).unwrap();
    let send = |name: &'static str, bytes: Vec<u8>| {
        let http = http.clone();
        let url = format!("{}/api/footprint", s.url);
        let token = planner.clone();
        async move {
            let form = reqwest::multipart::Form::new().part(
                "file",
                reqwest::multipart::Part::bytes(bytes).file_name(name),
            );
            let r = http
                .post(url)
                .bearer_auth(token)
                .multipart(form)
                .send()
                .await
                .unwrap();
            let status = r.status().as_u16();
            (status, r.text().await.unwrap())
        }
    };
    let (status, body) = send("site.zip", std::fs::read(&zip).unwrap()).await;
    assert_eq!(status, 200, "{body}");
    let fp: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(fp["type"], "Feature");
    assert_eq!(fp["properties"]["features"], 1);
    // Back in longitude/latitude, within a centimetre or so of the parcel's corners.
    let ring = |g: &serde_json::Value| -> Vec<(f64, f64)> {
        let c = match g["type"].as_str().unwrap() {
            "Polygon" => &g["coordinates"][0],
            _ => &g["coordinates"][0][0],
        };
        c.as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_f64().unwrap(), p[1].as_f64().unwrap()))
            .collect()
    };
    let got = ring(&fp["geometry"]);
    let want = ring(&parcel["geometry"]);
    for w in &want {
        assert!(
            got.iter()
                .any(|g| (g.0 - w.0).abs() < 1e-7 && (g.1 - w.1).abs() < 1e-7),
            "corner {w:?} of the parcel is not in the footprint {got:?}"
        );
    }
    assert!(
        (-75.0..-72.0).contains(&got[0].0) && (40.0..43.0).contains(&got[0].1),
        "CRS84 order: {:?}",
        got[0]
    );
    // The determination takes the footprint the page was given.
    let r = http
        .post(format!("{}/api/determinations", s.url))
        .bearer_auth(&planner)
        .json(&serde_json::json!({"footprint": fp["geometry"], "disturbed": "2acre"}))
        .send()
        .await
        .unwrap();
    let st = r.status();
    let text = r.text().await.unwrap();
    assert!(st.is_success(), "{st}: {text}");
    // What is no footprint is refused, naming the file.
    let (status, body) = send("site.csv", b"a,b\n1,2\n".to_vec()).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("file") && body.contains("site.csv"), "{body}");
    let (status, body) = send("site.zip", b"not a zip".to_vec()).await;
    assert!(status == 422 || status == 400, "{status} {body}");
    assert!(body.contains("file"), "{body}");
    let point = dir.path().join("pt.geojson");
    std::fs::write(&point, r#"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Point","coordinates":[-73.85,41.21]}}]}"#).unwrap();
    let (status, body) = send("pt.geojson", std::fs::read(&point).unwrap()).await;
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("not a polygon"), "{body}");
}

/// A day of field work on a phone (issue 26): a full screening recorded the day after is
/// counted by the annual report as dry-weather screened and opens a case when suspect; a
/// second inspection of the outfall that day is kept beside it; two inspections queued
/// when the token is revoked wait, marked, and arrive exactly once after a new sign-in;
/// one the server refuses is reopened in its form to fix, not only discarded.
#[test]
fn fieldwork_from_a_phone_is_counted_kept_apart_and_survives_a_revoked_token() {
    if !ready() {
        return;
    }
    let s = Server::start(true);
    let token = || -> (String, String) {
        let out = run_ok(
            &s.store,
            &[
                "token",
                "create",
                "--role",
                "inspector",
                "--subject",
                "field-1",
                "--format",
                "json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        (
            v["token_id"].to_string(),
            v["token"].as_str().unwrap().to_string(),
        )
    };
    let (revoked_id, first) = token();
    let (_, again) = token();
    s.flow_with(
        "fieldwork.mjs",
        &[
            ("MS4_TOKEN_FIELD", &first),
            ("MS4_TOKEN_FIELD_AGAIN", &again),
            ("MS4_REVOKE_ID", &revoked_id),
            ("MS4_BIN", env!("CARGO_BIN_EXE_ms4")),
            ("MS4_STORE", &s.store),
        ],
    );
}

/// The officer's cases on a registry that is not public-read, with an officer's token: a
/// case from a suspect screening, an action refused naming `by` (the error gone once the
/// next is logged), a notice of violation with its deadline overdue, the notice printed
/// with the orders chosen, the deadlines and fines as `/api/deadlines` has them, the case
/// closed as eliminated, a case by hand, cases from connections, and the year's report
/// with its CSV, each step checked against the API's answer.
#[test]
fn officer_takes_a_case_from_a_screening_to_notice_and_elimination_and_reads_the_report() {
    if !ready() {
        return;
    }
    let s = Server::start(false);
    let officer = run_ok(
        &s.store,
        &[
            "token",
            "create",
            "--role",
            "officer",
            "--subject",
            "officer-1",
        ],
    );
    s.flow_with("cases.mjs", &[("MS4_TOKEN_OFFICER", officer.trim())]);
}

/// Issue 28 in the page, on a Carmel registry: a site opened from a determination meeting
/// Condition One, a 0.5-inch storm making an inspection due within 24 hours (§ 156-83B),
/// the inspector recording it in the page's site inspection form, and the storm's
/// inspection no longer due.
#[test]
fn inspector_records_a_carmel_sites_storm_inspection_in_the_page() {
    if !ready() {
        return;
    }
    let s = Server::start_town("carmel-ny", true);
    let officer = run_ok(
        &s.store,
        &[
            "token",
            "create",
            "--role",
            "officer",
            "--subject",
            "officer-1",
        ],
    );
    s.flow_with("sites.mjs", &[("MS4_TOKEN_OFFICER", officer.trim())]);
}

/// Issue 29 in the page: the permit calendar (an annual report recorded late shown done
/// late with its submission, a past certification saying how to record it) and the
/// inspections due, each as the API answers it, and a click on a due asset bringing the
/// map to it.
#[test]
fn officer_reads_the_permit_calendar_and_the_inspections_due() {
    if !ready() {
        return;
    }
    let s = Server::start(true);
    let officer = run_ok(
        &s.store,
        &[
            "token",
            "create",
            "--role",
            "officer",
            "--subject",
            "officer-1",
        ],
    );
    s.flow_with("calendar.mjs", &[("MS4_TOKEN_OFFICER", officer.trim())]);
}

#[test]
fn a_click_on_a_monitoring_location_names_its_priority_and_reasons() {
    if !ready() {
        return;
    }
    Server::start(true).flow("mapping.mjs");
}

#[test]
fn a_link_reopens_the_same_view_place_and_camera_and_every_view_has_a_legend() {
    if !ready() {
        return;
    }
    Server::start(true).flow("link.mjs");
}

/// Issue 30 in the page: one server with two registries, a (Carmel, no layers) under
/// `/r/a/` and b (the demo) under `/r/b/`; the page under `/r/b/` draws b's map and
/// answers what is near, a card and a saved inspection from and to b, its service worker
/// at b's folder; the page at the root of a single-registry server still works.
#[test]
fn a_members_page_under_its_prefix_asks_its_own_registry_and_the_root_page_still_works() {
    if !ready() {
        return;
    }
    let root = Server::start(true);
    let dir = tempfile::tempdir().unwrap();
    let a = format!("sqlite://{}", dir.path().join("a.gpkg").display());
    run_ok(
        &a,
        &["init", "--jurisdiction", "carmel-ny", "--crs", "EPSG:2260"],
    );
    let b_file = dir.path().join("b.gpkg");
    for suffix in ["", "-wal", "-shm"] {
        let from = PathBuf::from(format!("{}{suffix}", demo().display()));
        if from.exists() {
            std::fs::copy(&from, format!("{}{suffix}", b_file.display())).unwrap();
        }
    }
    let b = format!("sqlite://{}", b_file.display());
    let token_b = run_ok(
        &b,
        &[
            "token",
            "create",
            "--role",
            "inspector",
            "--subject",
            "inspector-b",
        ],
    );
    let mut child = ms4()
        .args(["serve", "--listen", "127.0.0.1:0", "--public-read"])
        .args([
            "--registry",
            &format!("a={a}"),
            "--registry",
            &format!("b={b}"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next().expect("serve prints its URL").unwrap();
        if let Some(rest) = line.strip_prefix("serving 2 registries at ") {
            break rest.split("/r/NAME/").next().unwrap().to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    let flow = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        root.flow_with(
            "coalition.mjs",
            &[
                ("MS4_URL", url.as_str()),
                ("MS4_ROOT_URL", root.url.as_str()),
                ("MS4_TOKEN_B", token_b.trim()),
            ],
        );
    }));
    // The coalition's server is stopped whether the flow passed or not.
    let _ = child.kill();
    let _ = child.wait();
    if let Err(e) = flow {
        std::panic::resume_unwind(e);
    }
}
