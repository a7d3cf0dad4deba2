//! A refused field travels as data: the error body's `field` is its path into the request
//! (a query parameter, a nested body field, an unknown or a missing one, or one a command
//! refused), beside the message people read, which still starts with it.

use super::*;
use axum::body::Body as AxBody;
use axum::http::{header, Request};
use ms4::http::{app, AppState};
use ms4::spatial::SnapshotHandle;
use tower::ServiceExt;

struct Town {
    state: AppState,
    officer: String,
    _reg: Registry,
}

async fn town() -> Town {
    let reg = demo_registry("sqlite", "windsor-ct").await;
    let officer = token(&reg.url, "officer", "officer person", &[]);
    let snapshot = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    Town {
        state: AppState::new(reg.store.clone(), snapshot, profile),
        officer,
        _reg: reg,
    }
}

impl Town {
    async fn call(&self, method: &str, path: &str, body: Option<String>) -> (u16, Value) {
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.officer));
        if body.is_some() {
            req = req.header(header::CONTENT_TYPE, "application/json");
        }
        let req = req
            .body(body.map_or_else(AxBody::empty, AxBody::from))
            .unwrap();
        let res = app(self.state.clone()).oneshot(req).await.unwrap();
        let status = res.status().as_u16();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    async fn open_case(&self) -> String {
        let body = json!({"origin": "staff", "opened_on": "2026-05-01", "asset_id": "OF-000001"});
        let (s, c) = self
            .call("POST", "/api/cases", Some(body.to_string()))
            .await;
        assert_eq!(s, 201, "{c}");
        c["case_id"].as_str().unwrap().to_string()
    }
}

/// An outfall's dry-weather screening, with `change` applied to it.
fn inspection(change: impl FnOnce(&mut Value)) -> Option<String> {
    let mut v = json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01",
        "kind": "dry_weather_screening", "result": "needs_follow_up",
        "screening": {"flow": "trickle", "field_tests": {"ph": 6.8}}});
    change(&mut v);
    Some(v.to_string())
}

#[rstest::rstest]
#[case::query_parameter("GET", "/api/nearby?x=670000&y=870000&k=abc", None, "k")]
#[case::nested_body_field(
    "POST",
    "/api/inspections",
    inspection(|v| v["screening"]["field_tests"]["ph"] = json!("acid")),
    "screening.field_tests.ph"
)]
#[case::nested_field_the_command_refuses(
    "POST",
    "/api/inspections",
    inspection(|v| v["screening"]["field_tests"]["ph"] = json!(15)),
    "screening.field_tests.ph"
)]
#[case::unknown_field(
    "POST",
    "/api/inspections",
    inspection(|v| v["weather"] = json!("dry")),
    "weather"
)]
#[case::unknown_nested_field(
    "POST",
    "/api/inspections",
    inspection(|v| v["screening"]["field_tests"]["lead"] = json!(1)),
    "screening.field_tests.lead"
)]
#[case::missing_field(
    "POST",
    "/api/inspections",
    inspection(|v| { v.as_object_mut().unwrap().remove("result"); }),
    "result"
)]
#[case::an_actions_by("POST", "/api/cases/{case}/actions",
    Some(json!({"kind": "site_visit", "on": "2026-05-03", "by": "Mayor"}).to_string()), "by")]
#[case::an_action_kind_not_in_the_log("POST", "/api/cases/{case}/actions",
    Some(json!({"kind": "coffee_break", "on": "2026-05-03"}).to_string()), "kind")]
#[case::a_closure_not_in_the_list("POST", "/api/cases/{case}/close",
    Some(json!({"closure": "solved", "on": "2026-05-03", "notes": "x"}).to_string()), "closure")]
#[case::an_origin_not_in_the_list("POST", "/api/cases",
    Some(json!({"origin": "rumour", "opened_on": "2026-05-01", "asset_id": "OF-000001"}).to_string()), "origin")]
#[case::an_inspection_kind_not_in_the_list(
    "POST",
    "/api/inspections",
    inspection(|v| v["kind"] = json!("drive_by")),
    "kind"
)]
#[case::a_characterisation_not_in_the_list(
    "POST",
    "/api/inspections",
    inspection(|v| v["screening"]["characterisation"] = json!("bad")),
    "screening.characterisation"
)]
#[case::a_determinations_fact(
    "POST",
    "/api/determinations",
    Some(json!({"parcel": "P-000010", "disturbed": "1acre", "agricultural": 7}).to_string()),
    "agricultural"
)]
#[case::a_determinations_parcel_not_text(
    "POST",
    "/api/determinations",
    Some(json!({"parcel": 10, "disturbed": "1acre"}).to_string()),
    "parcel"
)]
#[case::a_case_list_status("GET", "/api/cases?status=pending", None, "status")]
#[tokio::test(flavor = "multi_thread")]
async fn the_field_at_fault_is_in_the_body(
    #[case] method: &str,
    #[case] path: &str,
    #[case] body: Option<String>,
    #[case] field: &str,
) {
    let t = town().await;
    let path = if path.contains("{case}") {
        path.replace("{case}", &t.open_case().await)
    } else {
        path.to_string()
    };
    let (s, e) = t.call(method, &path, body).await;
    assert_eq!(s, 400, "{e}");
    assert_eq!(e["field"], field, "{e}");
    assert_eq!(e["status"], 400, "{e}");
    let said = e["error"].as_str().unwrap();
    assert!(
        said.starts_with(&format!("{field}: ")),
        "the message names it too: {e}"
    );
}

/// A body that is no JSON, or a wrong header, names no field: `field` is absent.
#[tokio::test(flavor = "multi_thread")]
async fn an_error_of_no_one_field_has_none() {
    let t = town().await;
    let (s, e) = t
        .call("POST", "/api/inspections", Some("{ nope".into()))
        .await;
    assert_eq!(s, 400, "{e}");
    assert!(e.get("field").is_none(), "{e}");
    assert!(
        e["error"].as_str().unwrap().starts_with("body: not JSON"),
        "{e}"
    );
}
