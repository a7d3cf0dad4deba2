//! No lost write: `ms4 case action` (its own process) and the running server's
//! `POST /api/cases/{id}/actions` log an action on the same case at the same moment,
//! round after round. Each is made from the case as stored inside its write's
//! transaction, so afterwards every action is in the log, in the order the writes
//! committed, and the audit has one update per action, each adding exactly that action.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use ms4::domain::Layer;
use ms4::idde::Case;
use serde_json::{json, Value};

use crate::common::*;

/// Rounds per store: each runs one command and one request at once. A round costs the
/// command's start (about a tenth of a second), so a store's run stays well under a
/// minute.
const ROUNDS: usize = 100;

fn visit(who: &str, round: usize) -> Value {
    json!({"kind": "site_visit", "on": "2026-04-02", "notes": format!("{who} {round}")})
}

pub async fn concurrent_actions(kind: &str) {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("idde_race").unwrap(),
    };
    super::town::build(dir.path(), &url);
    let t = token(&url, "officer", "Ann Field", &[]);
    let opened: Value = serde_json::from_str(&run_ok(
        &url,
        &[
            "case",
            "--format",
            "json",
            "open",
            &json!({"origin": "staff", "opened_on": "2026-04-01", "asset_id": "OF-1"}).to_string(),
        ],
    ))
    .unwrap();
    let id = opened["case_id"].as_str().unwrap().to_string();
    let server = serve(&url, &[]);
    let http = reqwest::Client::new();
    // How long a command takes: the request is sent after a delay that sweeps twice
    // that span, so in some rounds the server writes first and in others the command
    // commits first and the server's snapshot lags the stored case when it writes.
    let start = Instant::now();
    run_ok(&url, &["case", "--format", "json", "show", &id]);
    let command = start.elapsed();
    for round in 0..ROUNDS {
        let child = ms4()
            .args(["--store", &url, "case", "--format", "json", "action", &id])
            .arg(visit("cli", round).to_string())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        tokio::time::sleep(command * (round % 10) as u32 / 5).await;
        let r = http
            .post(format!("{}/api/cases/{id}/actions", server.base))
            .bearer_auth(&t)
            .json(&visit("api", round))
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let text = r.text().await.unwrap();
        assert_eq!(status, 201, "round {round}: {text}");
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "round {round}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    // Every action is stored, once.
    let store = ms4::store::open(&url).await.unwrap();
    let stored = store.features(Layer::Cases).await.unwrap();
    let case = Case::from_feature(stored.iter().find(|f| f.id == id).unwrap()).unwrap();
    let notes: Vec<String> = case
        .actions
        .iter()
        .map(|a| a.notes.clone().unwrap())
        .collect();
    let want: BTreeSet<String> = (0..ROUNDS)
        .flat_map(|r| [format!("cli {r}"), format!("api {r}")])
        .collect();
    let got: BTreeSet<String> = notes.iter().cloned().collect();
    assert_eq!(
        notes.len(),
        2 * ROUNDS,
        "an action twice or lost: {notes:?}"
    );
    assert_eq!(got, want);

    // In commit order: the audit's updates of the case, oldest first, each add exactly
    // the next action of the log to the log before it.
    let mut updates: Vec<_> = store
        .audit(Some(Layer::Cases), 100_000)
        .await
        .unwrap()
        .into_iter()
        .filter(|e| e.action == "update" && e.feature_id.as_deref() == Some(id.as_str()))
        .collect();
    updates.sort_by_key(|e| e.audit_id);
    assert_eq!(updates.len(), 2 * ROUNDS, "one audited update per action");
    let logged = |side: &Option<Value>| -> Vec<String> {
        let text = side.as_ref().unwrap()["properties"]["actions"]
            .as_str()
            .unwrap()
            .to_string();
        serde_json::from_str::<Vec<Value>>(&text)
            .unwrap()
            .iter()
            .map(|a| a["notes"].as_str().unwrap().to_string())
            .collect()
    };
    for (k, u) in updates.iter().enumerate() {
        assert_eq!(logged(&u.before), notes[..k], "update {k}: before");
        assert_eq!(logged(&u.after), notes[..=k], "update {k}: after");
        let api = notes[k].starts_with("api ");
        assert_eq!(u.actor == "Ann Field", api, "update {k} by {}", u.actor);
    }

    // The server's snapshot comes to agree once it has seen the commands' writes.
    let mut seen = Value::Null;
    for _ in 0..50 {
        seen = http
            .get(format!("{}/api/cases/{id}", server.base))
            .bearer_auth(&t)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if seen["actions"].as_array().map(Vec::len) == Some(2 * ROUNDS) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let served: Vec<&str> = seen["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["notes"].as_str().unwrap())
        .collect();
    assert_eq!(served, notes);
}
