//! The service under hostile or careless use: idle sockets, oversized and malformed
//! requests, a store another program has locked, forged `Host` headers, boxes and dates
//! out of range. Every refusal is a JSON error naming what was wrong.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::*;

/// The response to raw request bytes: status, head (lower-cased) and body.
fn raw(base: &str, request: &[u8]) -> (u16, String, String) {
    let addr = base.trim_start_matches("http://");
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // The server may close as soon as it has answered a request it refuses, before
    // reading all of it: a failed write is part of the test, not its failure.
    let _ = s.write_all(request);
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(_) => break,
        }
        if let Some(done) = complete(&out) {
            out.truncate(done);
            break;
        }
    }
    let text = String::from_utf8_lossy(&out).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// The length of one whole response with a content-length, once it has arrived.
fn complete(bytes: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(bytes).ok()?;
    let end = text.find("\r\n\r\n")? + 4;
    let head = text[..end].to_ascii_lowercase();
    if head.starts_with("http/1.1 100") {
        return None;
    }
    let len: usize = head
        .split("\r\n")
        .find_map(|l| l.strip_prefix("content-length:"))?
        .trim()
        .parse()
        .ok()?;
    (bytes.len() >= end + len).then_some(end + len)
}

/// Asserts a JSON error body with this status that names no Rust type.
fn json_error(what: &str, got: (u16, String, String), status: u16) -> Value {
    let (s, head, body) = got;
    assert_eq!(s, status, "{what}: {head}\n{body}");
    assert!(
        head.contains("content-type: application/json"),
        "{what}: not JSON: {head}"
    );
    let v: Value =
        serde_json::from_str(&body).unwrap_or_else(|_| panic!("{what}: body not JSON: {body:?}"));
    let e = v["error"].as_str().unwrap_or_default();
    assert!(!e.is_empty(), "{what}: empty error: {v}");
    for leak in ["Wire", "Some(", "struct ", "enum "] {
        assert!(!e.contains(leak), "{what}: the error leaks {leak:?}: {e}");
    }
    v
}

/// Idle connections that never send a request are closed after the header timeout, and
/// past the connection cap new ones are refused at once: `/health` keeps answering.
#[tokio::test]
async fn idle_connections_neither_stay_open_nor_starve_the_server() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(
        &reg.url,
        &[
            "--public-read",
            "--header-timeout",
            "1",
            "--max-connections",
            "16",
        ],
    );
    let addr = server.base.trim_start_matches("http://").to_string();
    // Five times the cap of sockets that say nothing, as a slow-loris client holds them.
    let idle: Vec<TcpStream> = (0..80)
        .map(|_| TcpStream::connect(&addr).unwrap())
        .collect();
    let first = idle[0].try_clone().unwrap();
    first
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let t = Instant::now();
    let n = (&first).read(&mut [0u8; 64]).unwrap_or(0);
    assert_eq!(
        n, 0,
        "the server sent bytes to a connection that asked nothing"
    );
    assert!(
        t.elapsed() < Duration::from_secs(4),
        "an idle connection was held {:?}",
        t.elapsed()
    );
    // Those over the cap were answered 503 with Retry-After and closed.
    let mut last = idle.last().unwrap();
    let mut text = String::new();
    last.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let _ = last.read_to_string(&mut text);
    assert!(
        text.starts_with("HTTP/1.1 503") && text.to_ascii_lowercase().contains("retry-after: 1"),
        "{text:?}"
    );
    // And health answers promptly, with all of them still connected on the client side.
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let t = Instant::now();
    let r = c
        .get(format!("{}/health", server.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    drop(idle);
}

/// No error is plain text, an empty body, or says a Rust type's name, over a socket to the
/// real server: hyper's own refusals (414, 431, an unreadable request) and the JSON body
/// the server gives them, the router's (404, 405) as a raw client sees them, and the body
/// limit (413) for `Expect: 100-continue` before any `100 Continue`. The router's other
/// errors are [`every_error_the_router_makes_is_json_that_names_what_was_wrong`].
#[tokio::test]
async fn every_error_is_json_that_names_what_was_wrong() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(&reg.url, &["--public-read", "--body-limit", "64KB"]);
    let b = &server.base;

    let long = "a".repeat(70_000);
    json_error(
        "URI too long",
        raw(
            b,
            format!("GET /{long} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
        ),
        414,
    );
    let big = "b".repeat(300_000);
    json_error(
        "headers too large",
        raw(
            b,
            format!("GET /health HTTP/1.1\r\nHost: x\r\nX-Big: {big}\r\n\r\n").as_bytes(),
        ),
        431,
    );
    json_error("not HTTP", raw(b, b"HELLO THERE\r\n\r\n"), 400);
    json_error(
        "unknown route",
        raw(
            b,
            b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ),
        404,
    );
    json_error(
        "wrong method",
        raw(
            b,
            b"DELETE /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        ),
        405,
    );
    // A declared body over the limit, with Expect: 100-continue: refused before the body
    // is sent, and no 100 Continue first.
    let got = raw(
        b,
        b"POST /api/determinations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\nExpect: 100-continue\r\n\r\n",
    );
    assert!(!got.1.contains("100 continue"), "{}", got.1);
    let e = json_error("Expect over the limit", got, 413);
    assert!(e["error"].as_str().unwrap().starts_with("body:"), "{e}");
}

/// No error the router makes is plain text, an empty body, or says a Rust type's name: a
/// multipart form without a boundary, a body of the wrong shape, a NUL in an id, control
/// characters in names, a date in year 0.
#[tokio::test]
async fn every_error_the_router_makes_is_json_that_names_what_was_wrong() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let analyst = token(&reg.url, "analyst", "Ana Lyst", &[]);
    let admin = token(&reg.url, "admin", "Ad Min", &[]);
    let inspector = token(&reg.url, "inspector", "Ann Field", &[]);
    let app = App::with_config(
        &reg.store,
        ms4::http::ServeConfig {
            public_read: true,
            body_limit: 64 * 1024,
            ..Default::default()
        },
    )
    .await;
    let b = &app.base;

    let c = &app;
    let v = |r: Answer| async move {
        let status = r.status().as_u16();
        let head = format!("{:?}", r.headers()).to_ascii_lowercase();
        let head = if head.contains("\"content-type\": \"application/json") {
            "content-type: application/json".to_string()
        } else {
            head
        };
        (status, head, r.text())
    };
    let upload = format!("{b}/api/layers/catch_basins/import");
    for (what, ct) in [
        ("no boundary", "multipart/form-data"),
        (
            "a boundary the body lacks",
            "multipart/form-data; boundary=zzz",
        ),
    ] {
        let r = c
            .post(&upload)
            .bearer_auth(&analyst)
            .header("content-type", ct)
            .body("not a form")
            .send()
            .await;
        json_error(what, v(r).await, 400);
    }
    let det = format!("{b}/api/determinations");
    for body in [
        r#""a string""#,
        r#"[1, 2]"#,
        r#"{"parcel": 5, "disturbed": "1acre"}"#,
    ] {
        let r = c
            .post(&det)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await;
        json_error(body, v(r).await, 400);
    }
    // A NUL in an id is refused, not cut short at the NUL.
    let r = c
        .get(format!("{b}/api/assets/CB-0000001%00anything/inspections"))
        .send()
        .await;
    let e = json_error("NUL in an id", v(r).await, 400);
    assert!(e["error"].as_str().unwrap().contains("U+0000"), "{e}");
    let r = c
        .get(format!("{b}/collections/catch_basins/items/CB-0000001%00x"))
        .send()
        .await;
    json_error("NUL in an item id", v(r).await, 400);

    for subject in ["ops\nroot", "esc\u{1b}[31m", "nul\u{0}cut"] {
        let r = c
            .post(format!("{b}/api/tokens"))
            .bearer_auth(&admin)
            .json(&json!({"role": "planner", "subject": subject}))
            .send()
            .await;
        let e = json_error("control character in a subject", v(r).await, 400);
        assert!(e["error"].as_str().unwrap().starts_with("subject:"), "{e}");
    }
    let out = run(
        &reg.url,
        &[
            "token",
            "create",
            "--role",
            "planner",
            "--subject",
            "a\u{7}b",
        ],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--subject:"));

    let of = reg.store.features(Layer::Outfalls).await.unwrap()[0]
        .id
        .clone();
    let inspection = |inspector: &str, on: &str| {
        json!({"asset_id": of, "inspected_on": on, "kind": "dry_weather_screening",
               "result": "pass", "inspector": inspector})
    };
    for (field, body) in [
        ("inspector", inspection("Ann\r\nField", "2026-10-01")),
        ("inspected_on", inspection("Ann Field", "0000-06-01")),
        ("inspected_on", inspection("Ann Field", "-0001-06-01")),
    ] {
        let r = c
            .post(format!("{b}/api/inspections"))
            .bearer_auth(&inspector)
            .json(&body)
            .send()
            .await;
        let e = json_error(field, v(r).await, 400);
        assert!(
            e["error"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{field}:")),
            "{e}"
        );
    }
}

/// Links are made with a configured public URL or host, never with whatever `Host` the
/// client sent.
#[tokio::test]
async fn links_never_echo_an_unlisted_host() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let hrefs = |v: &Value| -> Vec<String> {
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["href"].as_str().unwrap().to_string())
            .collect()
    };
    {
        let app = App::public(&reg.store).await;
        let (s, v) = send(app.get("/").header("host", "evil.example")).await;
        assert_eq!(s, 200);
        for h in hrefs(&v) {
            assert!(h.starts_with(&app.base), "{h}");
        }
    }
    // As `--public-url https://ms4.town.example/ --allowed-host gis.town.example` leave
    // them (the command's own reading of the flags is checked below and in its unit tests).
    let app = App::with_config(
        &reg.store,
        ms4::http::ServeConfig {
            public_read: true,
            public_url: Some("https://ms4.town.example".into()),
            allowed_hosts: vec!["gis.town.example".into()],
            ..Default::default()
        },
    )
    .await;
    let (_, v) = send(app.get("/collections").header("host", "evil.example")).await;
    for h in hrefs(&v) {
        assert!(h.starts_with("https://ms4.town.example/collections"), "{h}");
    }
    let (_, v) = send(app.get("/").header("host", "gis.town.example")).await;
    assert!(
        hrefs(&v)
            .iter()
            .all(|h| h.starts_with("https://gis.town.example/")),
        "{v}"
    );
    let out = run(&reg.url, &["serve", "--public-url", "ftp://x/?a=1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--public-url"));
}

/// A CRS84 box of the whole world finds every feature, and a box partly outside the
/// registry CRS's area of use finds what lies inside; one wholly outside finds none.
#[tokio::test]
async fn boxes_are_clipped_to_the_crs_area_of_use() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::public(&reg.store).await;
    let all = reg.store.count(Layer::CatchBasins).await.unwrap();
    assert!(all > 0);
    let c = &app;
    let items = "/collections/catch_basins/items";
    for (bbox, want) in [
        ("-180,-90,180,90", all),
        ("-170,0,-20,80", all),
        ("10,10,20,20", 0),
    ] {
        let (s, v) = send(c.get(items).query(&[("bbox", bbox), ("limit", "1")])).await;
        assert_eq!(s, 200, "{bbox}: {v}");
        assert_eq!(v["numberMatched"], want, "{bbox}");
    }
    let (s, v) = send(c.get(items).query(&[
        ("bbox", "-1e308,-1e308,1e308,1e308"),
        ("bbox-crs", "EPSG:2260"),
        ("limit", "1"),
    ]))
    .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["numberMatched"], all);
}

/// While another program holds the registry's write lock, a write is a 503 with
/// Retry-After (after the store's busy timeout), not a 500; once released it succeeds.
/// A served process: the wait is `ms4 serve --write-wait`, which the command sets for
/// every store its process opens.
#[tokio::test]
async fn a_held_write_lock_is_a_503_with_retry_after() {
    use sqlx::Connection;
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let admin = token(&reg.url, "admin", "Ad Min", &[]);
    let server = serve(&reg.url, &[]);
    let mut other = sqlx::SqliteConnection::connect(&reg.url).await.unwrap();
    sqlx::query("BEGIN IMMEDIATE")
        .execute(&mut other)
        .await
        .unwrap();
    let c = reqwest::Client::new();
    let create = || {
        c.post(format!("{}/api/tokens", server.base))
            .bearer_auth(&admin)
            .json(&json!({"role": "planner", "subject": "Pat Lanner"}))
    };
    let asked = std::time::Instant::now();
    let r = create().send().await.unwrap();
    assert_eq!(r.status(), 503);
    // The server waits `--write-wait` (5 s), not SQLite's 30: a client retries sooner.
    let waited = asked.elapsed();
    assert!(
        waited >= std::time::Duration::from_secs(4) && waited < std::time::Duration::from_secs(10),
        "answered 503 after {waited:?}"
    );
    assert!(r.headers().get("retry-after").is_some());
    let v: Value = r.json().await.unwrap();
    assert!(v["error"].as_str().unwrap().contains("busy"), "{v}");
    sqlx::query("ROLLBACK").execute(&mut other).await.unwrap();
    let (s, v) = send_http(create()).await;
    assert_eq!(s, 201, "{v}");
}
