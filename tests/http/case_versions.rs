//! A case's version through the router, in process (`app(state).oneshot`): `GET
//! /api/cases/{id}` sends it as the `ETag`; a close whose `If-Match` is stale is a 412
//! with the JSON error body, and nothing changes. What another process stored since the
//! server's snapshot was taken is what an action is appended to and what a close checks
//! its version against, never the snapshot's copy.

use axum::body::Body as AxBody;
use axum::http::{header, HeaderMap, Request};
use ms4::http::{app, AppState};
use ms4::spatial::SnapshotHandle;
use rstest::rstest;
use tower::ServiceExt;

use super::*;

struct Town {
    state: AppState,
    token: String,
    reg: Registry,
}

impl Town {
    /// The demo town under Windsor's law, served in process with no watcher: its
    /// snapshot moves only with its own writes (or a reload the test asks for).
    async fn new(kind: &str) -> Town {
        let reg = demo_registry(kind, "windsor-ct").await;
        let token = token(&reg.url, "officer", "Sam Officer", &[]);
        let snapshot = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
        let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
        let state = AppState::new(reg.store.clone(), snapshot, profile);
        Town { state, token, reg }
    }

    async fn call(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> (u16, HeaderMap, Value) {
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.token));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let body = match body {
            Some(b) => {
                req = req.header(header::CONTENT_TYPE, "application/json");
                AxBody::from(b.to_string())
            }
            None => AxBody::empty(),
        };
        let res = app(self.state.clone())
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            headers,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// The case with its `ETag`.
    async fn get(&self, id: &str) -> (Value, String) {
        let (s, h, c) = self
            .call("GET", &format!("/api/cases/{id}"), &[], None)
            .await;
        assert_eq!(s, 200, "{c}");
        (c, etag(&h))
    }

    async fn close(&self, id: &str, if_match: &str) -> (u16, HeaderMap, Value) {
        let closing =
            json!({"closure": "unfounded", "on": "2026-05-03", "notes": "clear water only"});
        self.call(
            "POST",
            &format!("/api/cases/{id}/close"),
            &[("if-match", if_match)],
            Some(&closing),
        )
        .await
    }
}

fn etag(h: &HeaderMap) -> String {
    h.get(header::ETAG)
        .expect("an ETag")
        .to_str()
        .unwrap()
        .to_string()
}

fn notes(c: &Value) -> Vec<&str> {
    c["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["notes"].as_str().unwrap_or(""))
        .collect()
}

fn visit(notes: &str) -> Value {
    json!({"kind": "site_visit", "on": "2026-05-02", "notes": notes})
}

async fn open(t: &Town) -> String {
    let (s, _, c) = t
        .call(
            "POST",
            "/api/cases",
            &[],
            Some(&json!({"origin": "staff", "opened_on": "2026-05-01", "asset_id": "OF-000001"})),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    c["case_id"].as_str().unwrap().to_string()
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_close_with_a_stale_if_match_is_412_and_changes_nothing(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let t = Town::new(kind).await;
    let id = open(&t).await;
    let (_, first) = t.get(&id).await;
    assert!(
        first.starts_with('"') && first.ends_with('"'),
        "a strong tag: {first}"
    );

    // An action is a new version, sent with the answer and then by GET.
    let (s, h, c) = t
        .call(
            "POST",
            &format!("/api/cases/{id}/actions"),
            &[],
            Some(&visit("first visit")),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    let second = etag(&h);
    assert_ne!(second, first);
    assert_eq!(
        t.get(&id).await.1,
        second,
        "GET agrees with the write's answer"
    );

    // A close made from the first version is refused, with the body every error has.
    let (s, _, e) = t.close(&id, &first).await;
    assert_eq!(s, 412, "{e}");
    assert_eq!(e["status"], 412, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("changed since"),
        "{e}"
    );
    // A weak tag never matches (strong comparison), nor does a list of stale ones.
    let weak = format!("W/{second}");
    assert_eq!(t.close(&id, &weak).await.0, 412);
    assert_eq!(t.close(&id, &format!("{first}, \"0\"")).await.0, 412);
    // A value that is no entity tag is the client's mistake, named.
    let (s, _, e) = t.close(&id, "abc").await;
    assert_eq!(s, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("If-Match"), "{e}");
    let (c, now) = t.get(&id).await;
    assert_eq!(c["status"], "open", "nothing changed: {c}");
    assert_eq!(now, second);
    let stored = t
        .reg
        .store
        .features(ms4::domain::Layer::Cases)
        .await
        .unwrap();
    let stored =
        ms4::idde::Case::from_feature(stored.iter().find(|f| f.id == id).unwrap()).unwrap();
    assert!(stored.is_open() && stored.actions.len() == 1, "{stored:?}");

    // The current version (alone, or among others) closes it.
    let (s, h, c) = t.close(&id, &format!("\"0\", {second}")).await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(c["status"], "closed");
    assert_ne!(etag(&h), second);
    // A close without If-Match is still taken (then refused as closed already: 400).
    let closing = json!({"closure": "unfounded", "on": "2026-05-03", "notes": "again"});
    let (s, _, e) = t
        .call(
            "POST",
            &format!("/api/cases/{id}/close"),
            &[],
            Some(&closing),
        )
        .await;
    assert_eq!(s, 400, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("already closed"),
        "{e}"
    );
    // A missing case is a 404 whatever If-Match says.
    assert_eq!(t.close("CASE-2026-9999", &second).await.0, 404);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_stale_snapshot_never_stands_in_for_the_stored_case(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let t = Town::new(kind).await;
    let id = open(&t).await;
    let (_, seen) = t.get(&id).await;
    // Another process logs an action; this server's snapshot does not see it.
    run_ok(
        &t.reg.url,
        &["case", "action", &id, &visit("by the command").to_string()],
    );
    let (c, still) = t.get(&id).await;
    assert_eq!((notes(&c).len(), &still), (0, &seen), "the snapshot lags");

    // The server's action is appended to the stored log, the command's kept.
    let (s, h, c) = t
        .call(
            "POST",
            &format!("/api/cases/{id}/actions"),
            &[],
            Some(&visit("by the server")),
        )
        .await;
    assert_eq!(s, 201, "{c}");
    assert_eq!(notes(&c), ["by the command", "by the server"]);
    let after = etag(&h);
    // The snapshot now holds what was written, so GET agrees.
    let (c, v) = t.get(&id).await;
    assert_eq!(notes(&c), ["by the command", "by the server"]);
    assert_eq!(v, after);

    // Another process again; a close made from the server's (now stale) version is
    // refused against the stored row, though the snapshot still holds that version.
    run_ok(
        &t.reg.url,
        &["case", "action", &id, &visit("second command").to_string()],
    );
    assert_eq!(t.get(&id).await.1, after, "the snapshot lags again");
    let (s, _, e) = t.close(&id, &after).await;
    assert_eq!(s, 412, "{e}");
    t.state.snapshot.reload(t.reg.store.as_ref()).await.unwrap();
    let (c, fresh) = t.get(&id).await;
    assert_eq!(notes(&c).len(), 3, "{c}");
    let (s, _, c) = t.close(&id, &fresh).await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(
        notes(&c),
        ["by the command", "by the server", "second command"]
    );
}

/// Closing as eliminated writes the connection's status from its stored row in the same
/// transaction, and a connection that is not there refuses the whole closing.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn an_elimination_marks_the_stored_connection_removed_or_closes_nothing(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    use ms4::domain::Layer;
    let t = Town::new(kind).await;
    let id = open(&t).await;
    let connection = t.reg.store.features(Layer::Connections).await.unwrap()[0]
        .id
        .clone();
    let eliminated = |cid: &str| json!({"closure": "eliminated", "on": "2026-05-03", "notes": "lateral capped", "connection_id": cid});
    let (s, _, e) = t
        .call(
            "POST",
            &format!("/api/cases/{id}/close"),
            &[],
            Some(&eliminated("NO-SUCH")),
        )
        .await;
    assert_eq!(s, 400, "{e}");
    assert!(
        e["error"].as_str().unwrap().starts_with("connection_id:"),
        "{e}"
    );
    assert_eq!(t.get(&id).await.0["status"], "open", "rolled back");

    let (s, _, c) = t
        .call(
            "POST",
            &format!("/api/cases/{id}/close"),
            &[],
            Some(&eliminated(&connection)),
        )
        .await;
    assert_eq!(s, 200, "{c}");
    let stored = t.reg.store.features(Layer::Connections).await.unwrap();
    let f = stored.iter().find(|f| f.id == connection).unwrap();
    assert_eq!(
        f.get(Layer::Connections, "status").as_str(),
        Some("removed")
    );
    // The server's snapshot holds the connection as written.
    let snap = t.state.snapshot.current();
    let f = snap.layer(Layer::Connections).get(&connection).unwrap();
    assert_eq!(
        f.get(Layer::Connections, "status").as_str(),
        Some("removed")
    );
}
