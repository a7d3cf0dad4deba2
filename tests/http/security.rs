//! The security issue's items that live in the router, driven in process with
//! `app(state).oneshot(…)`: the officer role and who an action is by, HTTP Basic with the
//! token as the password, bounded text in every write, refused media types, the header
//! cap, an idempotency key reused with another body, weak ETags and impossible dates.

use super::*;
use axum::body::Body as AxBody;
use axum::http::{header, Request};
use ms4::http::{app, AppState};
use ms4::spatial::SnapshotHandle;
use tower::ServiceExt;

/// The demo town (Windsor's law, whose offices are the Town Manager's and the Town
/// Engineer's) in process, with a token per role.
struct Town {
    state: AppState,
    tokens: std::collections::HashMap<&'static str, String>,
    _reg: Registry,
}

async fn town(kind: &str) -> Town {
    let reg = demo_registry(kind, "windsor-ct").await;
    let mut tokens = std::collections::HashMap::new();
    for role in ["analyst", "inspector", "officer", "planner", "admin"] {
        tokens.insert(role, token(&reg.url, role, &format!("{role} person"), &[]));
    }
    let snapshot = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    let state = AppState::new(reg.store.clone(), snapshot, profile);
    Town {
        state,
        tokens,
        _reg: reg,
    }
}

impl Town {
    async fn call(&self, req: Request<AxBody>) -> (u16, axum::http::HeaderMap, Value) {
        let res = app(self.state.clone()).oneshot(req).await.unwrap();
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        let v = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        (status, headers, v)
    }

    fn post(&self, path: &str, role: &str, body: &Value) -> Request<AxBody> {
        Request::post(path)
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", self.tokens[role]),
            )
            .header(header::CONTENT_TYPE, "application/json")
            .body(AxBody::from(body.to_string()))
            .unwrap()
    }

    async fn open_case(&self) -> String {
        let (s, _, c) = self
            .call(self.post(
                "/api/cases",
                "officer",
                &json!({"origin": "staff", "opened_on": "2026-05-01", "asset_id": "OF-000001"}),
            ))
            .await;
        assert_eq!(s, 201, "{c}");
        c["case_id"].as_str().unwrap().to_string()
    }
}

/// Case writes need the officer role (or admin): an inspector records inspections, and
/// no longer opens, acts on or closes a case.
#[tokio::test]
async fn only_an_officer_runs_cases_and_an_inspector_inspects() {
    let t = town("sqlite").await;
    let case = t.open_case().await;
    let action = json!({"kind": "site_visit", "on": "2026-05-02"});
    for role in ["inspector", "analyst", "planner"] {
        let (s, _, e) = t
            .call(t.post(
                "/api/cases",
                role,
                &json!({"origin": "staff", "opened_on": "2026-05-01", "asset_id": "OF-000001"}),
            ))
            .await;
        assert_eq!(s, 403, "{role} opens a case: {e}");
        assert!(e["error"].as_str().unwrap().contains("officer"), "{e}");
        let (s, _, e) = t
            .call(t.post(&format!("/api/cases/{case}/actions"), role, &action))
            .await;
        assert_eq!(s, 403, "{role} logs an action: {e}");
        let close = json!({"closure": "eliminated", "on": "2026-05-03", "notes": "plugged"});
        let (s, _, e) = t
            .call(t.post(&format!("/api/cases/{case}/close"), role, &close))
            .await;
        assert_eq!(s, 403, "{role} closes a case as eliminated: {e}");
    }
    for role in ["officer", "admin"] {
        let (s, _, e) = t
            .call(t.post(&format!("/api/cases/{case}/actions"), role, &action))
            .await;
        assert_eq!(s, 201, "{role} logs an action: {e}");
    }
    // An officer may also inspect; an inspector still does.
    for (i, role) in ["inspector", "officer"].iter().enumerate() {
        let body = json!({"asset_id": "OF-000001", "inspected_on": format!("2026-04-0{}", i + 1),
            "kind": "dry_weather_screening", "result": "pass"});
        let (s, _, e) = t.call(t.post("/api/inspections", role, &body)).await;
        assert_eq!(s, 201, "{role} inspects: {e}");
    }
    let (_, _, session) = t
        .call(
            Request::get("/api/session")
                .header(
                    header::AUTHORIZATION,
                    format!("Bearer {}", t.tokens["officer"]),
                )
                .body(AxBody::empty())
                .unwrap(),
        )
        .await;
    assert_eq!(session["role"], "officer");
    assert_eq!(session["may"]["enforce"], true);
    assert_eq!(session["may"]["inspect"], true);
    assert_eq!(session["may"]["import"], false);
}

/// An action's `by` names an office of the town's law (any case), a respondent's action
/// is by the respondent, and the token's subject is recorded as who logged it; a name
/// that is not an office, or one with a control character or a bidi override, is
/// refused naming `by`.
#[tokio::test]
async fn an_action_is_by_an_office_and_recorded_by_the_token_subject() {
    let t = town("sqlite").await;
    let case = t.open_case().await;
    let act = |body: Value| t.post(&format!("/api/cases/{case}/actions"), "officer", &body);
    let (s, _, c) = t
        .call(act(json!({"kind": "written_notice", "on": "2026-05-02", "method": "hand", "by": "town manager"})))
        .await;
    assert_eq!(s, 201, "{c}");
    let last = c["actions"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["by"], "Town Manager", "the profile's spelling: {last}");
    assert_eq!(last["recorded_by"], "officer person");
    // No `by`: the profile's first office (Windsor's Town Manager).
    let (s, _, c) = t
        .call(act(json!({"kind": "site_visit", "on": "2026-05-02"})))
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(
        c["actions"].as_array().unwrap().last().unwrap()["by"],
        "Town Manager"
    );
    // A respondent's action is the respondent's.
    let (s, _, c) = t
        .call(act(json!({"kind": "correction_plan", "on": "2026-05-03"})))
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(
        c["actions"].as_array().unwrap().last().unwrap()["by"],
        "respondent"
    );
    // The recorder cannot be forged by the request.
    let (s, _, c) = t
        .call(act(
            json!({"kind": "site_visit", "on": "2026-05-03", "recorded_by": "someone else"}),
        ))
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(
        c["actions"].as_array().unwrap().last().unwrap()["recorded_by"],
        "officer person"
    );
    for (by, why) in [
        ("Ann Field", "not an office"),
        ("Town Manager\nforged: fine paid", "U+000A"),
        ("Town \u{202E}reganaM", "U+202E"),
        ("respondent", "not an office"),
    ] {
        let (s, _, e) = t
            .call(act(
                json!({"kind": "site_visit", "on": "2026-05-03", "by": by}),
            ))
            .await;
        assert_eq!(s, 400, "{by:?}: {e}");
        let msg = e["error"].as_str().unwrap();
        assert!(msg.starts_with("by: "), "{msg}");
        assert!(msg.contains(why), "{by:?}: {msg}");
    }
    let (s, _, e) = t
        .call(act(
            json!({"kind": "fine_paid", "on": "2026-05-03", "by": "Town Manager"}),
        ))
        .await;
    assert_eq!(s, 400, "{e}");
    // Closing is the Town's too.
    let (s, _, e) = t
        .call(t.post(
            &format!("/api/cases/{case}/close"),
            "officer",
            &json!({"closure": "unfounded", "on": "2026-05-04", "notes": "clear", "by": "Mayor"}),
        ))
        .await;
    assert_eq!(s, 400, "{e}");
    assert!(e["error"].as_str().unwrap().starts_with("by: "), "{e}");
}

/// QGIS can send only HTTP Basic: the token as the password (any user name) reads, a
/// wrong one is a 401 that asks for Bearer, so a browser never prompts for a password.
#[tokio::test]
async fn the_token_as_the_basic_password_reads() {
    use base64::Engine;
    let t = town("sqlite").await;
    let basic = |user: &str, pw: &str| {
        let b = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pw}"));
        Request::get("/collections/outfalls/items?limit=1")
            .header(header::AUTHORIZATION, format!("Basic {b}"))
            .body(AxBody::empty())
            .unwrap()
    };
    let (s, _, v) = t.call(basic("qgis", &t.tokens["planner"])).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["features"].as_array().unwrap().len(), 1);
    let (s, _, _) = t.call(basic("", &t.tokens["planner"])).await;
    assert_eq!(s, 200);
    let (s, h, e) = t.call(basic("qgis", "ms4_wrong")).await;
    assert_eq!(s, 401, "{e}");
    assert_eq!(h[header::WWW_AUTHENTICATE], "Bearer");
    // Basic writes too, with the role's checks.
    let b = base64::engine::general_purpose::STANDARD.encode(format!("x:{}", t.tokens["planner"]));
    let req = Request::post("/api/inspections")
        .header(header::AUTHORIZATION, format!("Basic {b}"))
        .header(header::CONTENT_TYPE, "application/json")
        .body(AxBody::from(
            json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": "pass"}).to_string(),
        ))
        .unwrap();
    let (s, _, e) = t.call(req).await;
    assert_eq!(s, 403, "{e}");
}

/// Every text field of a write has a limit and refuses control characters, named in
/// the error; the API definition states the limits; the body of a record's write is
/// capped; nothing refused is written.
#[tokio::test]
async fn write_text_is_bounded_and_printable() {
    let t = town("sqlite").await;
    let case = t.open_case().await;
    let long_note = "a".repeat(ms4::domain::text::MAX_NOTE_CHARS + 1);
    let long_line = "a".repeat(ms4::domain::text::MAX_LINE_CHARS + 1);
    let cases: Vec<(&str, String, Value, &str)> = vec![
        (
            "case description",
            "/api/cases".into(),
            json!({"origin": "staff", "opened_on": "2026-05-01", "asset_id": "OF-000001", "description": long_note}),
            "description: ",
        ),
        (
            "case reporter NUL",
            "/api/cases".into(),
            json!({"origin": "complaint", "opened_on": "2026-05-01", "asset_id": "OF-000001", "reported_by": "A\u{0}B"}),
            "reported_by: ",
        ),
        (
            "case asset id",
            "/api/cases".into(),
            json!({"origin": "staff", "opened_on": "2026-05-01", "asset_id": long_line}),
            "asset_id: ",
        ),
        (
            "action notes",
            format!("/api/cases/{case}/actions"),
            json!({"kind": "site_visit", "on": "2026-05-02", "notes": long_note}),
            "notes: ",
        ),
        (
            "action results",
            format!("/api/cases/{case}/actions"),
            json!({"kind": "sampling", "on": "2026-05-02", "results": {"x": "a".repeat(70_000)}}),
            "results: ",
        ),
        (
            "action escape",
            format!("/api/cases/{case}/actions"),
            json!({"kind": "site_visit", "on": "2026-05-02", "notes": "ok\u{1b}[2J"}),
            "notes: ",
        ),
        (
            "inspection notes",
            "/api/inspections".into(),
            json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": "pass", "notes": long_note}),
            "notes: ",
        ),
        (
            "inspection result",
            "/api/inspections".into(),
            json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": "pass\r\nforged"}),
            "result: ",
        ),
        (
            "screening word",
            "/api/inspections".into(),
            json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": "pass", "screening": {"odour": long_line}}),
            "screening.odour",
        ),
    ];
    let before = t.state.store.audit(None, 1000).await.unwrap().len();
    for (what, path, body, field) in &cases {
        let (s, _, e) = t.call(t.post(path, "officer", body)).await;
        assert_eq!(s, 400, "{what}: {e}");
        let msg = e["error"].as_str().unwrap();
        assert!(msg.starts_with(field), "{what}: {msg}");
        assert!(
            msg.len() < 1000,
            "{what}: the refusal does not quote the value back"
        );
    }
    let after = t.state.store.audit(None, 1000).await.unwrap().len();
    assert_eq!(before, after, "nothing refused was written");
    // Over the cap of a record's write: 413 before anything is parsed.
    let huge = json!({"kind": "site_visit", "on": "2026-05-02", "notes": "a".repeat(ms4::http::MAX_JSON_WRITE_BYTES)});
    let (s, _, e) = t
        .call(t.post(&format!("/api/cases/{case}/actions"), "officer", &huge))
        .await;
    assert_eq!(s, 413, "{e}");
    // The API definition says so.
    let doc = ms4::http::openapi_document();
    let schema = &doc["paths"]["/api/cases/{id}/actions"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"];
    let notes = &schema["properties"]["notes"];
    assert_eq!(
        notes["maxLength"],
        ms4::domain::text::MAX_NOTE_CHARS,
        "{schema}"
    );
    assert_eq!(
        schema["properties"]["by"]["maxLength"],
        ms4::domain::text::MAX_LINE_CHARS
    );
    let insp = &doc["paths"]["/api/inspections"]["post"]["requestBody"]["content"]
        ["application/json"]["schema"];
    assert_eq!(
        insp["properties"]["notes"]["maxLength"],
        ms4::domain::text::MAX_NOTE_CHARS,
        "{insp}"
    );
}

/// A body labelled as text or a form is not read as JSON (415), and headers over the
/// cap are a 431.
#[tokio::test]
async fn other_media_types_and_oversized_headers_are_refused() {
    let t = town("sqlite").await;
    let body = json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": "pass"});
    for ct in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let req = Request::post("/api/inspections")
            .header(
                header::AUTHORIZATION,
                format!("Bearer {}", t.tokens["inspector"]),
            )
            .header(header::CONTENT_TYPE, ct)
            .body(AxBody::from(body.to_string()))
            .unwrap();
        let (s, _, e) = t.call(req).await;
        assert_eq!(s, 415, "{ct}: {e}");
        assert!(
            e["error"].as_str().unwrap().starts_with("Content-Type: "),
            "{e}"
        );
    }
    let req = Request::get("/health")
        .header("x-padding", "a".repeat(100 * 1024))
        .body(AxBody::empty())
        .unwrap();
    let (s, _, e) = t.call(req).await;
    assert_eq!(s, 431, "{e}");
}

/// An idempotency key sent again with the same body is answered with the stored
/// inspection; with another body it is a 422 and the stored inspection stands.
#[tokio::test]
async fn an_idempotency_key_reused_with_another_body_is_refused() {
    let t = town("sqlite").await;
    let send = |result: &str| {
        let mut r = t.post(
            "/api/inspections",
            "inspector",
            &json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": result}),
        );
        r.headers_mut()
            .insert("idempotency-key", "device-1-0001".parse().unwrap());
        r
    };
    let (s, _, first) = t.call(send("pass")).await;
    assert_eq!(s, 201, "{first}");
    let (s, _, again) = t.call(send("pass")).await;
    assert_eq!(s, 201, "{again}");
    assert_eq!(again["replayed"], true);
    let (s, _, e) = t.call(send("fail")).await;
    assert_eq!(s, 422, "{e}");
    assert!(e["error"].as_str().unwrap().contains("another body"), "{e}");
    let (_, _, list) = t
        .call(
            Request::get("/api/assets/OF-000001/inspections")
                .header(
                    header::AUTHORIZATION,
                    format!("Bearer {}", t.tokens["planner"]),
                )
                .body(AxBody::empty())
                .unwrap(),
        )
        .await;
    let kept: Vec<&Value> = list["inspections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["inspected_on"] == "2026-04-01")
        .collect();
    assert_eq!(kept.len(), 1, "{list}");
    assert_eq!(kept[0]["result"], "pass", "the stored inspection stands");
}

/// Days a record cannot carry: an inspection in 2999 or in year 1, a case opened in
/// year 1, a device clock a year ahead.
#[tokio::test]
async fn impossible_days_are_refused() {
    let t = town("sqlite").await;
    for (path, body, field) in [
        (
            "/api/inspections",
            json!({"asset_id": "OF-000001", "inspected_on": "2999-01-01", "kind": "dry_weather_screening", "result": "pass"}),
            "inspected_on: ",
        ),
        (
            "/api/inspections",
            json!({"asset_id": "OF-000001", "inspected_on": "0001-01-01", "kind": "dry_weather_screening", "result": "pass"}),
            "inspected_on: ",
        ),
        (
            "/api/inspections",
            json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01", "kind": "dry_weather_screening", "result": "pass", "observed_at": "2999-01-01T10:00:00Z"}),
            "observed_at: ",
        ),
        (
            "/api/cases",
            json!({"origin": "staff", "opened_on": "0001-01-01", "asset_id": "OF-000001"}),
            "opened_on: ",
        ),
        (
            "/api/cases",
            json!({"origin": "staff", "opened_on": "2999-01-01", "asset_id": "OF-000001"}),
            "opened_on: ",
        ),
    ] {
        let (s, _, e) = t.call(t.post(path, "officer", &body)).await;
        assert_eq!(s, 400, "{body}: {e}");
        assert!(e["error"].as_str().unwrap().starts_with(field), "{e}");
    }
}

/// A tile's ETag sent back weakened (`W/"…"`, as a proxy may) still gets a 304.
#[tokio::test]
async fn a_weak_etag_gets_not_modified() {
    let t = town("sqlite").await;
    let get = |inm: Option<String>| {
        let mut b = Request::get("/tiles/14/4831/6129.mvt").header(
            header::AUTHORIZATION,
            format!("Bearer {}", t.tokens["planner"]),
        );
        if let Some(v) = inm {
            b = b.header(header::IF_NONE_MATCH, v);
        }
        b.body(AxBody::empty()).unwrap()
    };
    let (s, h, _) = t.call(get(None)).await;
    assert!(s == 200 || s == 204, "{s}");
    let etag = h[header::ETAG].to_str().unwrap().to_string();
    let (s, _, _) = t.call(get(Some(format!("W/{etag}")))).await;
    assert_eq!(s, 304);
    let (s, _, _) = t.call(get(Some("\"other\"".into()))).await;
    assert_ne!(s, 304);
}
