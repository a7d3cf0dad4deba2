//! PostgreSQL goes away while `ms4 serve` runs on PostGIS, and comes back.
//!
//! The test runs its own throwaway PostgreSQL cluster (`initdb` into a temporary folder,
//! `pg_ctl start` on a free port of 127.0.0.1), so stopping it disturbs nobody else's
//! database. While it is stopped, reads (nearby, OGC items, determinations) answer 200
//! from the snapshot, with the same bodies as before; writes (an inspection, an upload)
//! answer 503 with a JSON message saying the database is unreachable and `Retry-After`,
//! in seconds rather than sqlx's default 30; `/health` stays 200 and says the database is
//! unreachable. Once the cluster is started again writes succeed within a bounded time,
//! and an edit made with psql is seen by the running server.
//!
//! Needs PostgreSQL's server programs and PostGIS (`scripts/setup.sh --postgres`). As
//! root, the cluster runs as the `postgres` user (`runuser`). Without them the test is
//! skipped with a loud message, except under `CI`, where it fails.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

#[path = "common/cluster.rs"]
mod cluster;
mod common;

use std::time::{Duration, Instant};

use cluster::*;
use common::*;
use serde_json::{json, Value};

/// Status, `Retry-After`, JSON body and how long the answer took.
async fn send(req: reqwest::RequestBuilder) -> (u16, Option<String>, Value, Duration) {
    let t = Instant::now();
    let r = req.send().await.expect("the server answers");
    let status = r.status().as_u16();
    let after = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    let mut v: Value =
        serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status}: not JSON: {text}"));
    // The one part of an answer that changes by itself: when it was made.
    if let Some(o) = v.as_object_mut() {
        o.remove("timeStamp");
    }
    (status, after, v, t.elapsed())
}

fn upload(bytes: String) -> reqwest::multipart::Form {
    reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes.into_bytes()).file_name("new_basins.geojson"),
    )
}

/// New catch basins inside the demo town, as RFC 7946 GeoJSON.
fn basins(ids: &[&str]) -> String {
    let features: Vec<Value> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            json!({"type": "Feature", "properties": {"asset_id": id, "status": "active"},
                   "geometry": {"type": "Point", "coordinates": [-73.8530 - i as f64 * 1e-4, 41.2200]}})
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features}).to_string()
}

/// How long a write may take to be refused while the database is away: the pool's
/// acquire timeout (3 s) with room for a loaded machine, far below sqlx's default 30 s.
const REFUSED_WITHIN: Duration = Duration::from_secs(10);

/// How long after the database returns a write must succeed again.
const RECOVERED_WITHIN: Duration = Duration::from_secs(30);

#[tokio::test]
async fn reads_go_on_and_writes_wait_while_postgresql_is_stopped() {
    let Some(cluster) = Cluster::new() else {
        return;
    };
    let available = cluster.psql(
        "postgres",
        "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'",
    );
    if available != "1" {
        drop(missing(
            "the PostGIS extension is not installed for this PostgreSQL",
        ));
        return;
    }
    let db = "ms4_outage";
    let url = cluster.url(db);
    load_demo(&url).await;
    let inspector = token(&url, "inspector", "Outage Inspector", &[]);
    let analyst = token(&url, "analyst", "Outage Analyst", &[]);
    let mut server = serve(&url, &[]);
    let b = server.base.clone();
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();

    let outfall = cluster.psql(
        db,
        "SELECT asset_id FROM outfalls ORDER BY asset_id LIMIT 1",
    );
    let (x, y): (f64, f64) = {
        let xy = cluster.psql(
            db,
            &format!(
                "SELECT ST_X(geom) || ',' || ST_Y(geom) FROM outfalls WHERE asset_id = '{outfall}'"
            ),
        );
        let (x, y) = xy.split_once(',').unwrap();
        (x.parse().unwrap(), y.parse().unwrap())
    };
    let parcel = cluster.psql(
        db,
        "SELECT parcel_id FROM parcels ORDER BY parcel_id LIMIT 1",
    );
    let basin = cluster.psql(
        db,
        "SELECT asset_id FROM catch_basins ORDER BY asset_id LIMIT 1",
    );
    let inspection = |day: u32| {
        json!({"asset_id": outfall, "inspected_on": format!("2026-10-{day:02}"),
               "kind": "dry_weather_screening", "result": "pass"})
    };

    // The reads, and what they answer with the database up.
    let read = |what: &'static str| -> reqwest::RequestBuilder {
        match what {
            "nearby" => c.get(format!("{b}/api/nearby")).query(&[
                ("x", x.to_string()),
                ("y", y.to_string()),
                ("k", "3".into()),
            ]),
            "items" => c
                .get(format!("{b}/collections/parcels/items"))
                .query(&[("limit", "5")]),
            "item" => c.get(format!("{b}/collections/catch_basins/items/{basin}")),
            "determination" => c
                .post(format!("{b}/api/determinations"))
                .json(&json!({"parcel": parcel, "disturbed": "0.5acre"})),
            other => unreachable!("{other}"),
        }
        .bearer_auth(&inspector)
    };
    const READS: [&str; 4] = ["nearby", "items", "item", "determination"];

    let (s, _, made, _) = send(
        c.post(format!("{b}/api/inspections"))
            .bearer_auth(&inspector)
            .json(&inspection(1)),
    )
    .await;
    assert_eq!(s, 201, "{made}");
    let mut before = Vec::new();
    for what in READS {
        let (s, _, v, _) = send(read(what)).await;
        assert_eq!(s, 200, "{what} with the database up: {v}");
        before.push(v);
    }
    assert_eq!(
        before[0]["facilities"][0]["id"],
        outfall.as_str(),
        "{}",
        before[0]
    );
    let (s, _, h, _) = send(c.get(format!("{b}/health"))).await;
    assert_eq!(
        (s, &h["ready"], &h["database"]),
        (200, &json!(true), &json!("reachable")),
        "{h}"
    );

    // The database goes away.
    assert!(cluster.stop("fast"), "pg_ctl stop -m fast");

    // Reads answer from the snapshot, the same as before, for longer than a token is
    // trusted without asking the store again.
    let t = Instant::now();
    let mut rounds = 0;
    while t.elapsed() < Duration::from_secs(5) || rounds < 2 {
        for (what, was) in READS.iter().zip(&before) {
            let (s, _, v, took) = send(read(what)).await;
            assert_eq!(s, 200, "{what} with the database stopped: {v}");
            assert_eq!(&v, was, "{what} answers as before");
            assert!(took < Duration::from_secs(2), "{what} took {took:?}");
        }
        rounds += 1;
        tokio::time::sleep(Duration::from_millis(300)).await;
    }

    // Writes are refused, saying why and when to retry, in seconds.
    let refused = |what: &str, s: u16, after: Option<String>, v: &Value, took: Duration| {
        assert_eq!(s, 503, "{what} with the database stopped: {v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .contains("database is unreachable"),
            "{what}: {v}"
        );
        assert_eq!(v["status"], 503, "{v}");
        let after: u32 = after
            .unwrap_or_else(|| panic!("{what}: no Retry-After"))
            .parse()
            .unwrap();
        assert!(after >= 1, "{what}: Retry-After {after}");
        assert!(took < REFUSED_WITHIN, "{what} took {took:?}");
    };
    let (s, after, v, took) = send(
        c.post(format!("{b}/api/inspections"))
            .bearer_auth(&inspector)
            .json(&inspection(2)),
    )
    .await;
    refused("POST /api/inspections", s, after, &v, took);
    let (s, after, v, took) = send(
        c.post(format!("{b}/api/layers/catch_basins/import"))
            .bearer_auth(&analyst)
            .multipart(upload(basins(&["CB-OUTAGE-1"]))),
    )
    .await;
    refused("an upload", s, after, &v, took);

    // Health: alive (200), not ready.
    let (s, _, h, took) = send(c.get(format!("{b}/health"))).await;
    assert_eq!(s, 200, "{h}");
    assert_eq!(h["status"], "ok", "{h}");
    assert_eq!(h["ready"], false, "{h}");
    assert_eq!(h["database"], "unreachable", "{h}");
    assert!(took < Duration::from_secs(3), "/health took {took:?}");
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );

    // The database returns; writes succeed again within a bounded time.
    cluster.start();
    let t = Instant::now();
    let made = loop {
        let (s, _, v, _) = send(
            c.post(format!("{b}/api/inspections"))
                .bearer_auth(&inspector)
                .json(&inspection(3)),
        )
        .await;
        if s == 201 {
            break v;
        }
        assert_eq!(s, 503, "while the database comes back: {v}");
        assert!(
            t.elapsed() < RECOVERED_WITHIN,
            "no write succeeded {RECOVERED_WITHIN:?} after the database returned: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(made["inspection"]["inspected_on"], "2026-10-03", "{made}");
    eprintln!(
        "a write succeeded {:?} after the cluster started",
        t.elapsed()
    );
    let (s, _, v, _) = send(
        c.post(format!("{b}/api/layers/catch_basins/import"))
            .bearer_auth(&analyst)
            .multipart(upload(basins(&["CB-AFTER-1", "CB-AFTER-2"]))),
    )
    .await;
    assert_eq!(s, 201, "an upload after the database returned: {v}");
    assert_eq!(v["imported"], 2, "{v}");
    let (s, _, h, _) = send(c.get(format!("{b}/health"))).await;
    assert_eq!((s, &h["ready"]), (200, &json!(true)), "{h}");

    // What was accepted is stored, what was refused is not.
    assert_eq!(
        cluster.psql(db, "SELECT string_agg(to_char(inspected_on, 'DD'), ',' ORDER BY inspected_on) FROM inspections"),
        "01,03"
    );
    assert_eq!(
        cluster.psql(db, "SELECT string_agg(asset_id, ',' ORDER BY asset_id) FROM catch_basins WHERE asset_id IN ('CB-OUTAGE-1', 'CB-AFTER-1', 'CB-AFTER-2')"),
        "CB-AFTER-1,CB-AFTER-2"
    );
    let (s, _, list, _) = send(
        c.get(format!("{b}/api/assets/{outfall}/inspections"))
            .bearer_auth(&inspector),
    )
    .await;
    assert_eq!(s, 200, "{list}");
    assert_eq!(list["inspections"].as_array().unwrap().len(), 2, "{list}");

    // The outside-edit watcher resumed: an edit made with psql now is served.
    cluster.psql(
        db,
        &format!("UPDATE catch_basins SET status = 'abandoned', owner = 'edited in psql' WHERE asset_id = '{basin}'"),
    );
    let t = Instant::now();
    loop {
        let (s, _, v, _) = send(read("item")).await;
        assert_eq!(s, 200, "{v}");
        if v["properties"]["owner"] == "edited in psql" {
            break;
        }
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "the psql edit is not served 5 s later: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "the server is still running"
    );
}
