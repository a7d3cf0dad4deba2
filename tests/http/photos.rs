//! Inspection photos and the headers every answer carries, through the router itself
//! (`app(state).oneshot`): only JPEG, PNG, WebP and HEIC/HEIF bytes are taken, stored with
//! the type the bytes name; a photo is served so that no browser runs what it may hide.

use axum::body::Body;
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::Router;
use ms4::auth::{NewToken, Role};
use ms4::http::{app, AppState, ServeConfig};
use tower::ServiceExt;

use super::*;

/// A 1x1 PNG.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89\0\0\0\x0dIDATx\xdac\xfc\xcf\xc0P\x0f\0\x04\x85\x01\x80\x84\xa9\x8c!\0\0\0\0IEND\xaeB`\x82";
const SVG: &[u8] = b"<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"document.title='pwned'\"/>";
const HTML: &[u8] = b"<!doctype html><script>document.title='pwned'</script>";

struct Service {
    reg: Registry,
    app: Router,
    inspector: String,
    planner: String,
    /// The id the one inspection was given.
    inspection: String,
}

async fn make_token(reg: &Registry, role: Role) -> String {
    let token = ms4::auth::generate();
    let t = NewToken {
        hash: ms4::auth::hash(&token),
        role,
        subject: format!("{role}-1"),
        expires_at: None,
    };
    reg.store.create_token(&t, "test").await.unwrap();
    token
}

/// The demo town with one inspection, served by the router with the config given.
async fn service(kind: &str, config: ServeConfig) -> Service {
    let reg = demo_registry(kind, "north-castle-ny").await;
    let snapshot = ms4::spatial::SnapshotHandle::load(reg.store.as_ref())
        .await
        .unwrap();
    let profile = ms4::rules::Profile::builtin("north-castle-ny").unwrap();
    let state = AppState::with_config(reg.store.clone(), snapshot, profile, config);
    let inspector = make_token(&reg, Role::Inspector).await;
    let planner = make_token(&reg, Role::Planner).await;
    let mut s = Service {
        app: app(state),
        reg,
        inspector,
        planner,
        inspection: String::new(),
    };
    let body = json!({"asset_id": "OF-000002", "inspected_on": "2026-11-30",
        "kind": "dry_weather_screening", "result": "pass"});
    let (st, _, made) = s
        .call(
            "POST",
            "/api/inspections",
            Some(&s.inspector),
            &[("content-type", "application/json")],
            body.to_string().into_bytes(),
        )
        .await;
    assert_eq!(
        st,
        StatusCode::CREATED,
        "{}",
        String::from_utf8_lossy(&made)
    );
    let made: serde_json::Value = serde_json::from_slice(&made).unwrap();
    s.inspection = made["inspection"]["inspection_id"]
        .as_str()
        .unwrap()
        .to_string();
    s
}

impl Service {
    async fn call(
        &self,
        method: &str,
        uri: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> (StatusCode, HeaderMap, Vec<u8>) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(t) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let res = self
            .app
            .clone()
            .oneshot(req.body(Body::from(body)).unwrap())
            .await
            .unwrap();
        let (parts, body) = res.into_parts();
        let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap();
        (parts.status, parts.headers, bytes.to_vec())
    }

    async fn upload(&self, content_type: &str, bytes: &[u8]) -> (StatusCode, Value) {
        let (st, _, body) = self
            .call(
                "POST",
                &format!("/api/inspections/{}/photos", self.inspection),
                Some(&self.inspector),
                &[("content-type", content_type)],
                bytes.to_vec(),
            )
            .await;
        (st, serde_json::from_slice(&body).unwrap())
    }

    async fn fetch_photo(&self, sha: &str) -> (StatusCode, HeaderMap, Vec<u8>) {
        self.call(
            "GET",
            &format!("/api/photos/{sha}"),
            Some(&self.planner),
            &[],
            vec![],
        )
        .await
    }
}

fn h<'a>(headers: &'a HeaderMap, name: &str) -> &'a str {
    headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_default()
}

/// A photo answer can run nothing in a browser: its type, no sniffing, a sandbox.
fn assert_served_inert(headers: &HeaderMap, ty: &str) {
    assert_eq!(h(headers, "content-type"), ty);
    assert_eq!(h(headers, "x-content-type-options"), "nosniff");
    let csp = h(headers, "content-security-policy");
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    assert!(csp.contains("sandbox"), "{csp}");
    assert_eq!(h(headers, "cross-origin-resource-policy"), "same-origin");
}

#[tokio::test]
async fn an_svg_photo_is_refused_naming_the_body() {
    for kind in kinds() {
        let s = service(kind, ServeConfig::default()).await;
        for ct in ["image/svg+xml", "image/png"] {
            let (st, v) = s.upload(ct, SVG).await;
            assert_eq!(st, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{kind} {ct}: {v}");
            let e = v["error"].as_str().unwrap();
            assert!(e.starts_with("body: the bytes are markup"), "{e}");
            assert!(e.contains("JPEG, PNG, WebP or HEIC/HEIF"), "{e}");
        }
        let (st, v) = s.upload("image/png", HTML).await;
        assert_eq!(st, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{v}");
        // A list of types is no way past the check either.
        let (st, v) = s.upload("image/png, text/html", HTML).await;
        assert_eq!(st, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{v}");
        let gif = b"GIF89a/*\x01\0\x01\0\x80\0\0*/=1;document.title='pwned'//";
        let (st, v) = s.upload("image/gif", gif).await;
        assert_eq!(st, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{v}");
        assert!(v["error"].as_str().unwrap().contains("a GIF image"), "{v}");
        let (st, _, list) = s
            .call(
                "GET",
                &format!("/api/inspections/{}/photos", s.inspection),
                Some(&s.planner),
                &[],
                vec![],
            )
            .await;
        assert_eq!(st, StatusCode::OK);
        let list: Value = serde_json::from_slice(&list).unwrap();
        assert_eq!(list["photos"], json!([]), "nothing was stored: {list}");
    }
}

#[tokio::test]
async fn the_bytes_decide_a_photos_type_and_what_they_hide_is_served_inert() {
    for kind in kinds() {
        let s = service(kind, ServeConfig::default()).await;
        // PNG bytes said to be a JPEG: stored, as the PNG they are.
        let (st, v) = s.upload("image/jpeg", PNG).await;
        assert_eq!(st, StatusCode::CREATED, "{kind}: {v}");
        assert_eq!(v["content_type"], "image/png");
        let sha = v["sha256"].as_str().unwrap().to_string();
        let (st, headers, bytes) = s.fetch_photo(&sha).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(bytes, PNG);
        assert_served_inert(&headers, "image/png");
        assert_eq!(
            h(&headers, "content-disposition"),
            format!("inline; filename=\"{sha}.png\"")
        );

        // A PNG with a script after it passes the signature check, and stays an image.
        let mut hostile = PNG.to_vec();
        hostile.extend_from_slice(b"<html><script>document.title='pwned'</script></html>");
        let (st, v) = s.upload("image/png", &hostile).await;
        assert_eq!(st, StatusCode::CREATED, "{v}");
        let (_, headers, bytes) = s.fetch_photo(v["sha256"].as_str().unwrap()).await;
        assert_eq!(bytes, hostile);
        assert_served_inert(&headers, "image/png");

        // A JPEG/HTML polyglot likewise.
        let polyglot =
            b"\xFF\xD8\xFF\xFE\x00\x40<html><script>document.title='pwned'</script></html>\xFF\xD9";
        let (st, v) = s.upload("image/jpeg", polyglot).await;
        assert_eq!(st, StatusCode::CREATED, "{v}");
        let (_, headers, _) = s.fetch_photo(v["sha256"].as_str().unwrap()).await;
        assert_served_inert(&headers, "image/jpeg");

        // The listing gives the types read from the bytes.
        let (_, _, list) = s
            .call(
                "GET",
                &format!("/api/inspections/{}/photos", s.inspection),
                Some(&s.planner),
                &[],
                vec![],
            )
            .await;
        let list: Value = serde_json::from_slice(&list).unwrap();
        let types: Vec<&str> = list["photos"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["content_type"].as_str().unwrap())
            .collect();
        assert_eq!(types, ["image/png", "image/png", "image/jpeg"], "{list}");
    }
}

/// Rows stored before the check (or by another program) are served with the type their
/// bytes name, and bytes that are no image as a download: never with the stored type.
#[tokio::test]
async fn a_stored_photo_is_served_by_what_its_bytes_are_not_by_its_stored_type() {
    for kind in kinds() {
        let s = service(kind, ServeConfig::default()).await;
        let row = |bytes: &[u8], ty: &str| {
            let sha = ms4::store::photos::sha256_hex(bytes);
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            let (blob, at) = match kind {
                "sqlite" => (format!("X'{hex}'"), "'2025-01-01T00:00:00+00:00'"),
                _ => (format!("'\\x{hex}'::bytea"), "'2025-01-01T00:00:00Z'"),
            };
            let sql = format!(
                "INSERT INTO ms4_photos (inspection_id, sha256, content_type, bytes, size, taken_by, stored_at) \
                 VALUES ('{}', '{sha}', '{ty}', {blob}, {}, 'an older version', {at})",
                s.inspection,
                bytes.len()
            );
            shell_sql(kind, s.reg.dir.path(), &s.reg.url, &sql);
            sha
        };
        let svg = row(SVG, "image/svg+xml");
        let png = row(PNG, "text/html");
        let (st, headers, bytes) = s.fetch_photo(&svg).await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(bytes, SVG);
        assert_served_inert(&headers, "application/octet-stream");
        assert_eq!(
            h(&headers, "content-disposition"),
            format!("attachment; filename=\"{svg}.bin\"")
        );
        let (_, headers, _) = s.fetch_photo(&png).await;
        assert_served_inert(&headers, "image/png");
    }
}

#[tokio::test]
async fn photos_of_a_missing_inspection_is_404_naming_it() {
    let s = service("sqlite", ServeConfig::default()).await;
    let (st, _, body) = s
        .call(
            "GET",
            "/api/inspections/OF-9:2020-01-01:dry_weather_screening/photos",
            Some(&s.planner),
            &[],
            vec![],
        )
        .await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(
        v["error"],
        "inspection \"OF-9:2020-01-01:dry_weather_screening\": no such inspection"
    );
    let (st, v) = {
        let (st, _, body) = s
            .call(
                "POST",
                "/api/inspections/OF-9:2020-01-01:dry_weather_screening/photos",
                Some(&s.inspector),
                &[("content-type", "image/png")],
                PNG.to_vec(),
            )
            .await;
        (st, serde_json::from_slice::<Value>(&body).unwrap())
    };
    assert_eq!(st, StatusCode::NOT_FOUND, "{v}");
}

/// Every answer carries the baseline: no sniffing, no framing, no referrer, and a policy
/// (the page's own for the page, a load-nothing one for data and errors).
#[tokio::test]
async fn every_answer_carries_the_baseline_headers() {
    let config = ServeConfig {
        basemap_url: Some("https://gis.town.example/basemap/{z}/{x}/{y}.png".into()),
        ..Default::default()
    };
    let s = service("sqlite", config).await;
    let data_csp = "default-src 'none'; frame-ancestors 'none'";
    // Path, token, request headers, the status expected.
    type Case<'a> = (&'a str, Option<&'a str>, &'a [(&'a str, &'a str)], u16);
    let cases: &[Case] = &[
        ("/", None, &[("accept", "text/html")], 200),
        ("/?f=json", None, &[], 200),
        ("/health", None, &[], 200),
        ("/api/openapi.json", None, &[], 200),
        ("/collections", Some(&s.planner), &[], 200),
        (
            "/api/assets/OF-000002/inspections",
            Some(&s.planner),
            &[],
            200,
        ),
        ("/tiles/0/0/0.mvt", Some(&s.planner), &[], 200),
        ("/styles/ms4.json", None, &[], 200),
        ("/no/such/route", None, &[], 404),
        ("/collections", None, &[], 401),
        ("/sw.js", None, &[], 200),
    ];
    for (uri, token, headers, want) in cases {
        let (st, got, _) = s.call("GET", uri, *token, headers, vec![]).await;
        // The page is built by scripts/web.sh; a binary without it answers 503 here.
        let page = matches!(*uri, "/" | "/sw.js");
        if page && st == StatusCode::SERVICE_UNAVAILABLE {
            continue;
        }
        assert_eq!(st.as_u16(), *want, "{uri}");
        assert_eq!(h(&got, "x-content-type-options"), "nosniff", "{uri}");
        assert_eq!(h(&got, "x-frame-options"), "DENY", "{uri}");
        assert_eq!(h(&got, "referrer-policy"), "no-referrer", "{uri}");
        let csp = h(&got, "content-security-policy");
        if page {
            assert!(
                csp.starts_with("default-src 'none'; script-src 'self'"),
                "{uri}: {csp}"
            );
            assert!(csp.contains("frame-ancestors 'none'"), "{uri}: {csp}");
            assert!(
                csp.contains("connect-src 'self' https://gis.town.example;"),
                "{uri}: {csp}"
            );
        } else {
            assert_eq!(csp, data_csp, "{uri}");
        }
    }
    // A refusal made before any handler (a declared body over the limit) has them too.
    let (st, got, _) = s
        .call(
            "POST",
            "/api/inspections",
            Some(&s.inspector),
            &[("content-length", "999999999999")],
            vec![],
        )
        .await;
    assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(h(&got, "content-security-policy"), data_csp);
    assert_eq!(h(&got, "x-content-type-options"), "nosniff");
}
