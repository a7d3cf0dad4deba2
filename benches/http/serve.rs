//! `ms4 serve` as a child process, and the JSON client that checks the servers' answers.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process killed when dropped, so a failed assertion leaves no server behind.
pub(crate) struct Proc(pub(crate) Child);

impl Drop for Proc {
    fn drop(&mut self) {
        // SIGTERM first, so gunicorn stops its workers too; SIGKILL if it lingers.
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(10) {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub(crate) fn ms4() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ms4"));
    c.env("RUST_LOG", "ms4=warn");
    c
}

/// A read token from `ms4 token create`: an inspector's client sends one, so the load
/// measured includes checking it (the server runs without --public-read).
pub(crate) fn read_token(store: &str) -> String {
    let out = ms4()
        .args(["--store", store, "token", "create", "--role", "inspector"])
        .args(["--subject", "http-bench"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "ms4 token create: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

pub(crate) fn start_ms4(store: &str) -> (Proc, String) {
    start_ms4_with(store, &[])
}

/// `ms4 serve` with more options (`--tile-cache 0`).
pub(crate) fn start_ms4_with(store: &str, extra: &[&str]) -> (Proc, String) {
    let mut child = ms4()
        .args(["--store", store, "serve", "--listen", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .trim_end_matches('/')
        .to_string();
    assert!(base.starts_with("http://127.0.0.1:"), "ms4 serve: {line:?}");
    (Proc(child), base)
}

/// The ids of a FeatureCollection.
pub(crate) fn ids(fc: &serde_json::Value) -> Vec<String> {
    let mut v: Vec<String> = fc["features"]
        .as_array()
        .unwrap_or_else(|| panic!("not a FeatureCollection: {fc}"))
        .iter()
        .map(|f| match &f["id"] {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        })
        .collect();
    v.sort();
    v
}

pub(crate) async fn get_json(
    c: &reqwest::Client,
    url: &str,
    token: Option<&str>,
) -> serde_json::Value {
    let mut r = c
        .get(url)
        .header("Accept", "application/geo+json, application/json");
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    let r = r.send().await.unwrap_or_else(|e| panic!("{url}: {e}"));
    let status = r.status();
    let body = r.text().await.unwrap();
    assert!(status.is_success(), "{url}: {status}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url}: {e}: {body}"))
}

pub(crate) async fn wait_ready(c: &reqwest::Client, url: &str, token: Option<&str>) {
    let t = Instant::now();
    loop {
        let mut r = c.get(url);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        if let Ok(r) = r.send().await {
            if r.status().is_success() {
                return;
            }
        }
        assert!(
            t.elapsed() < Duration::from_secs(120),
            "{url} never answered"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}
