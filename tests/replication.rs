//! Reads from a hot standby: a primary and a standby kept by PostgreSQL's streaming
//! replication on this machine, and two `ms4 serve` processes sharing the primary — one
//! reading it, one reading the standby (`--read-store`).
//!
//! Shown: a write through either server appears in both within 2 s; the writer reads
//! its own write at once (the store waits for the standby to replay it); the standby's
//! server answers reads while the primary is stopped and refuses writes with 503 and
//! `Retry-After` until it returns.
//!
//! Needs PostgreSQL's server programs and PostGIS (`scripts/setup.sh --postgres`); skipped
//! with a loud message without them, except under `CI`, where it fails.

// A scenario reads top to bottom as the script its user follows.
#![allow(clippy::too_many_lines)]

#[path = "common/cluster.rs"]
mod cluster;
mod common;

use std::time::{Duration, Instant};

use chrono::NaiveDate;
use cluster::*;
use common::*;
use ms4::domain::{Feature, Layer, Value as Field};
use ms4::store::replica::ReplicatedStore;
use ms4::store::{write_all, Store, WriteMode, WriteRequest};
use serde_json::{json, Value};

/// How soon a write through one server must be served by the other.
const SEEN_WITHIN: Duration = Duration::from_secs(2);

/// A primary with the demo town and a hot standby of it, or `None` when a part is missing.
async fn replicated(db: &str) -> Option<(Cluster, Cluster)> {
    let primary = Cluster::new()?;
    let postgis = primary.psql(
        "postgres",
        "SELECT count(*) FROM pg_available_extensions WHERE name = 'postgis'",
    );
    if postgis != "1" {
        missing("the PostGIS extension is not installed for this PostgreSQL");
        return None;
    }
    load_demo(&primary.url(db)).await;
    let standby = primary.standby();
    assert_eq!(standby.psql(db, "SELECT pg_is_in_recovery()"), "t");
    Some((primary, standby))
}

fn inspection(asset: &str, day: u32) -> Feature {
    let l = Layer::Inspections;
    let on = NaiveDate::from_ymd_opt(2026, 11, day).unwrap();
    let mut f = Feature::new(l, format!("{asset}:{on}:dry_weather_screening"));
    f.set(l, "asset_id", Field::Text(asset.into()));
    f.set(l, "inspected_on", Field::Date(on));
    f.set(l, "kind", Field::Text("dry_weather_screening".into()));
    f.set(l, "inspector", Field::Text("Replica".into()));
    f.set(l, "result", Field::Text("pass".into()));
    f
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_through_the_replicated_store_is_read_back_from_the_standby_at_once() {
    let db = "ms4_replica_store";
    let Some((primary, standby)) = replicated(db).await else {
        return;
    };
    // A second primary is not a standby: refused, saying so.
    let err = ReplicatedStore::open(&primary.url(db), &primary.url(db))
        .await
        .err()
        .expect("a primary given as the read store is refused");
    assert!(err.to_string().contains("hot standby"), "{err}");

    let store = ReplicatedStore::open(&primary.url(db), &standby.url(db))
        .await
        .unwrap();
    let outfall = store.features(Layer::Outfalls).await.unwrap()[0].id.clone();
    for day in 1..=20 {
        let f = inspection(&outfall, day);
        let req = WriteRequest {
            layer: Layer::Inspections,
            mode: WriteMode::Upsert,
            actor: "replica test".into(),
            source: "test".into(),
        };
        write_all(&store, req, vec![f.clone()], json!({}))
            .await
            .unwrap();
        // The very next read, answered by the standby, holds the write.
        let read = store.read_layer(Layer::Inspections).await.unwrap();
        assert!(
            read.features.iter().any(|g| g.id == f.id),
            "write {day} not read back"
        );
        assert_eq!(
            standby.psql(
                db,
                &format!("SELECT count(*) FROM inspections WHERE asset_id = '{outfall}'")
            ),
            day.to_string(),
            "the standby itself holds write {day}"
        );
    }
}

/// Status, `Retry-After` and JSON body.
async fn send(req: reqwest::RequestBuilder) -> (u16, Option<String>, Value) {
    let r = req.send().await.expect("the server answers");
    let status = r.status().as_u16();
    let after = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status}: not JSON: {text}"));
    (status, after, v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_a_primary_and_its_standby_serve_each_others_writes() {
    let db = "ms4_replicated";
    let Some((primary, standby)) = replicated(db).await else {
        return;
    };
    let url = primary.url(db);
    let inspector = token(&url, "inspector", "Replica Inspector", &[]);
    let on_primary = serve(&url, &[]);
    let on_standby = serve(&url, &["--read-store", &standby.url(db)]);
    let c = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let outfall = primary.psql(
        db,
        "SELECT asset_id FROM outfalls ORDER BY asset_id LIMIT 1",
    );

    let inspect = |base: &str, day: u32| {
        c.post(format!("{base}/api/inspections"))
            .bearer_auth(&inspector)
            .json(
                &json!({"asset_id": outfall, "inspected_on": format!("2026-11-{day:02}"),
                          "kind": "dry_weather_screening", "result": "pass"}),
            )
    };
    let days = |base: String| {
        let req = c
            .get(format!("{base}/api/assets/{outfall}/inspections"))
            .bearer_auth(&inspector);
        async move {
            let (s, _, v) = send(req).await;
            assert_eq!(s, 200, "{v}");
            let mut d: Vec<String> = v["inspections"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["inspected_on"].as_str().unwrap().to_string())
                .collect();
            d.sort();
            d
        }
    };
    // Polls `base` until it serves `day`; returns how long that took after the write.
    let seen = |base: String, day: &'static str| {
        let days = &days;
        async move {
            let t = Instant::now();
            loop {
                if days(base.clone()).await.iter().any(|d| d == day) {
                    return t.elapsed();
                }
                assert!(
                    t.elapsed() < Duration::from_secs(30),
                    "{base} never served the inspection of {day}"
                );
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    };

    // A write through the server reading the primary reaches the standby's server.
    let (s, _, v) = send(inspect(&on_primary.base, 1)).await;
    assert_eq!(s, 201, "{v}");
    let took = seen(on_standby.base.clone(), "2026-11-01").await;
    eprintln!("primary's write served by the standby's server after {took:?}");
    assert!(took < SEEN_WITHIN, "took {took:?}");

    // A write through the standby's server goes to the primary; its writer reads it at
    // once, and the primary's server serves it soon after.
    let (s, _, v) = send(inspect(&on_standby.base, 2)).await;
    assert_eq!(s, 201, "{v}");
    assert!(
        days(on_standby.base.clone())
            .await
            .contains(&"2026-11-02".to_string()),
        "the writer's next read holds its write"
    );
    let took = seen(on_primary.base.clone(), "2026-11-02").await;
    eprintln!("standby server's write served by the primary's server after {took:?}");
    assert!(took < SEEN_WITHIN, "took {took:?}");
    assert_eq!(
        primary.psql(
            db,
            &format!("SELECT count(*) FROM inspections WHERE asset_id = '{outfall}'")
        ),
        "2",
        "each write stored once, on the primary"
    );

    // The primary goes away: the standby's server reads on and refuses writes.
    let before = days(on_standby.base.clone()).await;
    assert!(primary.stop("fast"), "pg_ctl stop -m fast");
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(3) {
        assert_eq!(days(on_standby.base.clone()).await, before);
        let (s, _, v) = send(
            c.get(format!("{}/collections/outfalls/items", on_standby.base))
                .query(&[("limit", "2")])
                .bearer_auth(&inspector),
        )
        .await;
        assert_eq!(s, 200, "{v}");
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let (s, after, v) = send(inspect(&on_standby.base, 3)).await;
    assert_eq!(s, 503, "a write with the primary away: {v}");
    assert!(after.is_some(), "Retry-After on {v}");

    // The primary returns: writes through the standby's server succeed again, and are
    // read back by their writer.
    primary.start();
    let t = Instant::now();
    loop {
        let (s, _, v) = send(inspect(&on_standby.base, 4)).await;
        if s == 201 {
            break;
        }
        assert_eq!(s, 503, "while the primary comes back: {v}");
        assert!(
            t.elapsed() < Duration::from_secs(30),
            "no write succeeded: {v}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(days(on_standby.base.clone())
        .await
        .contains(&"2026-11-04".to_string()));
    assert!(!days(on_standby.base.clone())
        .await
        .contains(&"2026-11-03".to_string()));
    drop(standby);
}
