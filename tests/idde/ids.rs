//! Case ids are allocated inside the write's transaction, so processes opening cases at
//! the same time — a running server and `ms4 case open` commands, and the commands among
//! themselves — get distinct ids and every case is stored, on both stores.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::common::*;

const CLI_PROCESSES: usize = 6;
const API_REQUESTS: usize = 6;

fn complaint(i: usize, via: &str) -> Value {
    json!({"origin": "complaint", "opened_on": "2026-04-01", "reported_by": format!("caller {via} {i}"),
           "parcel_id": "P-RES", "description": "milky water in the brook"})
}

pub async fn concurrent_opens(kind: &str) {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("idde_ids").unwrap(),
    };
    super::town::build(dir.path(), &url);
    let t = token(&url, "officer", "Ann Field", &[]);
    let server = serve(&url, &[]);
    // The commands start together, each its own process...
    let children: Vec<_> = (0..CLI_PROCESSES)
        .map(|i| {
            ms4()
                .args([
                    "--store",
                    &url,
                    "case",
                    "--format",
                    "json",
                    "open",
                    &complaint(i, "cli").to_string(),
                ])
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    // ...while the server takes requests at once.
    let http = reqwest::Client::new();
    let posts = (0..API_REQUESTS).map(|i| {
        let http = http.clone();
        let (base, t) = (server.base.clone(), t.clone());
        async move {
            let r = http
                .post(format!("{base}/api/cases"))
                .bearer_auth(&t)
                .json(&complaint(i, "api"))
                .send()
                .await
                .unwrap();
            assert_eq!(r.status().as_u16(), 201);
            let v: Value = r.json().await.unwrap();
            v["case_id"].as_str().unwrap().to_string()
        }
    });
    let mut ids: Vec<String> = futures_util::future::join_all(posts).await;
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        ids.push(v["case_id"].as_str().unwrap().to_string());
    }
    let distinct: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
    let n = CLI_PROCESSES + API_REQUESTS;
    assert_eq!(distinct.len(), n, "ids taken twice: {ids:?}");
    // Numbered from 1 without a gap: each allocation saw every earlier case.
    let want: BTreeSet<String> = (1..=n).map(|i| format!("CASE-2026-{i:04}")).collect();
    let got: BTreeSet<String> = distinct.iter().map(|s| s.to_string()).collect();
    assert_eq!(got, want);
    // Every case is stored, with its own report (none overwrote another).
    let list: Value =
        serde_json::from_str(&run_ok(&url, &["case", "--format", "json", "list"])).unwrap();
    assert_eq!(list["count"], n, "{list}");
    let reporters: BTreeSet<&str> = list["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["reported_by"].as_str().unwrap())
        .collect();
    assert_eq!(reporters.len(), n, "{reporters:?}");
    // The server's own snapshot has them all too once it has seen the commands' writes.
    let mut seen = 0;
    for _ in 0..50 {
        let v: Value = http
            .get(format!("{}/api/cases", server.base))
            .bearer_auth(&t)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        seen = v["count"].as_u64().unwrap() as usize;
        if seen == n {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(seen, n);
}
