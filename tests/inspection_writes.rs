//! An inspection's cost does not grow with the history behind it: the write compares the
//! one stored row of its id and the snapshot takes the feature written, with no read of
//! the layer; yet the answers and the items show it at once, an outside edit after it is
//! still seen, and a write that fails leaves the snapshot as it was. On both stores.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use common::*;
use ms4::domain::{Feature, Layer, Value};
use ms4::spatial::SnapshotHandle;
use ms4::store::{write_all, Store, WriteMode, WriteRequest};
use rstest::rstest;
use serde_json::json;

/// How many inspections the registry holds before the one under test.
const HISTORY: usize = 20_000;

fn inspection(asset: &str, day: NaiveDate, result: &str) -> Feature {
    let l = Layer::Inspections;
    let mut f = Feature::new(l, format!("{asset}:{day}:dry_weather_screening"));
    f.set(l, "asset_id", Value::Text(asset.into()));
    f.set(l, "inspected_on", Value::Date(day));
    f.set(l, "kind", Value::Text("dry_weather_screening".into()));
    f.set(l, "inspector", Value::Text("History".into()));
    f.set(l, "result", Value::Text(result.into()));
    f
}

fn req(mode: WriteMode) -> WriteRequest {
    WriteRequest {
        layer: Layer::Inspections,
        mode,
        actor: "test".into(),
        source: "test".into(),
    }
}

/// Stores `HISTORY` inspections of the demo outfalls (none of `spare`), days in 2020–2023.
async fn history(store: &dyn Store, spare: &str) {
    let outfalls: Vec<String> = store
        .features(Layer::Outfalls)
        .await
        .unwrap()
        .into_iter()
        .map(|f| f.id)
        .filter(|id| id != spare)
        .collect();
    let start = NaiveDate::from_ymd_opt(2020, 1, 1).unwrap();
    let features: Vec<Feature> = (0..HISTORY)
        .map(|i| {
            let asset = format!("{}-h{}", outfalls[i % outfalls.len()], i / outfalls.len());
            inspection(&asset, start + chrono::Days::new((i % 1400) as u64), "pass")
        })
        .collect();
    let s = write_all(store, req(WriteMode::Upsert), features, json!({}))
        .await
        .unwrap();
    assert_eq!(s.inserted, HISTORY as u64);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_write_through_the_handle_reads_no_layer_and_an_outside_edit_after_it_is_seen(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let outfall = reg.store.features(Layer::Outfalls).await.unwrap()[0]
        .id
        .clone();
    history(reg.store.as_ref(), &outfall).await;
    let handle = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let watcher = handle.watch(reg.store.clone(), Duration::from_millis(50));
    let reads = handle.layer_reads();
    assert_eq!(handle.current().last_inspection(&outfall), None, "{kind}");

    // A new inspection: no stored row has its id, and none is read.
    let day = NaiveDate::from_ymd_opt(2026, 3, 2).unwrap();
    let f = inspection(&outfall, day, "needs_follow_up");
    let s = handle
        .write(
            reg.store.as_ref(),
            req(WriteMode::Upsert),
            vec![f.clone()],
            json!({}),
        )
        .await
        .unwrap();
    assert_eq!((s.inserted, s.rows_compared), (1, 0), "{kind}");
    let snap = handle.current();
    assert_eq!(snap.last_inspection(&outfall), Some(day), "{kind}");
    assert_eq!(snap.layer(Layer::Inspections).features.len(), HISTORY + 1);
    assert_eq!(
        snap.layer(Layer::Inspections).get(&f.id),
        Some(&f),
        "{kind}"
    );
    // The same inspection again: one stored row compared, of twenty thousand.
    let s = handle
        .write(
            reg.store.as_ref(),
            req(WriteMode::Upsert),
            vec![f.clone()],
            json!({}),
        )
        .await
        .unwrap();
    assert_eq!((s.unchanged, s.rows_compared), (1, 1), "{kind}");
    // Several watcher turns: it knows the writes were this handle's own.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(
        handle.layer_reads(),
        reads,
        "{kind}: no layer was read whole"
    );

    // Another program changes the inspection afterwards: the watcher reloads it.
    shell_sql(
        kind,
        reg.dir.path(),
        &reg.url,
        &format!(
            "UPDATE inspections SET result = 'fail' WHERE inspection_id = '{}'",
            f.id
        ),
    );
    let start = Instant::now();
    loop {
        let snap = handle.current();
        let got = snap.layer(Layer::Inspections).get(&f.id).unwrap();
        if got.get(Layer::Inspections, "result").as_str() == Some("fail") {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{kind}: the outside edit never reached the snapshot"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(handle.layer_reads(), reads + 1, "{kind}");
    assert_eq!(
        handle.current().layer(Layer::Inspections).features.len(),
        HISTORY + 1
    );

    // A write the store refuses (a rule another program added) changes nothing.
    match kind {
        "sqlite" => shell_sql(
            kind,
            reg.dir.path(),
            &reg.url,
            "CREATE TRIGGER refuse_boom BEFORE INSERT ON inspections WHEN NEW.result = 'boom' \
             BEGIN SELECT RAISE(ABORT, 'boom is refused'); END",
        ),
        _ => shell_sql(
            kind,
            reg.dir.path(),
            &reg.url,
            "CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
             IF NEW.result = 'boom' THEN RAISE EXCEPTION 'boom is refused'; END IF; \
             RETURN NEW; END $$; \
             CREATE TRIGGER refuse_boom BEFORE INSERT ON inspections FOR EACH ROW \
             EXECUTE FUNCTION refuse_boom();",
        ),
    }
    let before = handle.current();
    let bad = inspection(
        &outfall,
        NaiveDate::from_ymd_opt(2026, 4, 1).unwrap(),
        "boom",
    );
    let err = handle
        .write(
            reg.store.as_ref(),
            req(WriteMode::Upsert),
            vec![bad.clone()],
            json!({}),
        )
        .await
        .expect_err("the store refuses it");
    assert!(err.to_string().contains("boom is refused"), "{kind}: {err}");
    let after = handle.current();
    assert!(
        Arc::ptr_eq(&before, &after),
        "{kind}: the snapshot is the same"
    );
    assert_eq!(after.last_inspection(&outfall), Some(day), "{kind}");
    assert!(after.layer(Layer::Inspections).get(&bad.id).is_none());
    assert_eq!(
        reg.store.count(Layer::Inspections).await.unwrap(),
        HISTORY as u64 + 1
    );
    watcher.abort();
}

/// Over HTTP, with twenty thousand inspections stored: the one posted is the asset's last
/// inspection in the list and in the nearby answer (which says what is overdue from it),
/// and it is an OGC item — each asked right after the POST, with no wait.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_posted_inspection_is_in_the_answers_and_items_at_once_with_a_long_history(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let of = reg.store.features(Layer::Outfalls).await.unwrap()[0].clone();
    let Some(geo_types::Geometry::Point(p)) = of.geom.clone() else {
        panic!("outfalls are points")
    };
    history(reg.store.as_ref(), &of.id).await;
    let t = token(&reg.url, "inspector", "Ann Field", &[]);
    let app = App::new(&reg.store).await;
    let c = app.clone();
    let b = &app.base;
    let get = |path: String| {
        let c = c.clone();
        let t = t.clone();
        async move {
            let r = c.get(path).bearer_auth(&t).send().await;
            let s = r.status().as_u16();
            (s, r.json::<serde_json::Value>())
        }
    };
    let (s, list) = get(format!("{b}/api/assets/{}/inspections", of.id)).await;
    assert_eq!((s, &list["last_inspection"]), (200, &json!(null)), "{kind}");

    let today = chrono::Utc::now().date_naive();
    let r = c
        .post(format!("{b}/api/inspections"))
        .bearer_auth(&t)
        .json(
            &json!({"asset_id": of.id, "inspected_on": today.to_string(),
                      "kind": "dry_weather_screening", "result": "pass"}),
        )
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 201, "{kind}: {}", r.text());
    let made: serde_json::Value = r.json();

    let (s, list) = get(format!("{b}/api/assets/{}/inspections", of.id)).await;
    assert_eq!(s, 200, "{kind}");
    assert_eq!(list["last_inspection"], today.to_string(), "{kind}");
    assert_eq!(list["inspections"].as_array().unwrap().len(), 1, "{kind}");

    let (s, near) = get(format!(
        "{b}/api/nearby?x={}&y={}&k=1&kinds=outfall",
        p.x(),
        p.y()
    ))
    .await;
    assert_eq!(s, 200, "{kind}: {near}");
    assert_eq!(near["facilities"][0]["id"], of.id.as_str());
    assert_eq!(near["facilities"][0]["last_inspection"], today.to_string());

    // Its own id, named in the answer: the asset, day and kind, and a part of its own.
    let id = made["inspection"]["inspection_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        id.starts_with(&format!("{}:{today}:dry_weather_screening:", of.id)),
        "{id}"
    );
    let (s, items) = get(format!(
        "{b}/collections/inspections/items?asset_id={}",
        of.id
    ))
    .await;
    assert_eq!(s, 200, "{kind}: {items}");
    let ids: Vec<&str> = items["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["id"].as_str())
        .collect();
    assert_eq!(ids, [id.as_str()], "{kind}");
    let (s, all) = get(format!("{b}/collections/inspections/items?limit=1")).await;
    assert_eq!(s, 200);
    assert_eq!(all["numberMatched"], HISTORY + 1, "{kind}");

    // A device's inspection sent twice with its Idempotency-Key is stored once, the
    // second answer replaying the first; the key is kept with the inspection, so a
    // server started afterwards knows it too, and refuses it for another inspection.
    let yesterday = today - chrono::Days::new(1);
    let post = |c: App, day: NaiveDate, key: &'static str| {
        let t = t.clone();
        let asset = of.id.clone();
        async move {
            let r = c
                .post("/api/inspections")
                .bearer_auth(&t)
                .header("Idempotency-Key", key)
                .json(&json!({"asset_id": asset, "inspected_on": day.to_string(),
                              "kind": "dry_weather_screening", "result": "pass"}))
                .send()
                .await;
            let s = r.status().as_u16();
            (s, r.json::<serde_json::Value>())
        }
    };
    let (s, first) = post(c.clone(), yesterday, "device-7-0001").await;
    assert_eq!(s, 201, "{kind}: {first}");
    assert_eq!(first.get("replayed"), None, "{kind}");
    let (s, again) = post(c.clone(), yesterday, "device-7-0001").await;
    assert_eq!(
        (s, &again["replayed"]),
        (201, &json!(true)),
        "{kind}: {again}"
    );
    assert_eq!(
        again["inspection"]["id"], first["inspection"]["id"],
        "{kind}"
    );
    let (_, list) = get(format!("{b}/api/assets/{}/inspections", of.id)).await;
    assert_eq!(list["inspections"].as_array().unwrap().len(), 2, "{kind}");
    // A service started afterwards, on the store opened afresh.
    drop(app);
    let reopened = ms4::store::open(&reg.url).await.unwrap();
    let restarted = App::new(&reopened).await;
    let (s, after) = post(restarted.clone(), yesterday, "device-7-0001").await;
    assert_eq!(
        (s, &after["replayed"]),
        (201, &json!(true)),
        "{kind}: {after}"
    );
    let other_day = today - chrono::Days::new(2);
    let (s, clash) = post(restarted.clone(), other_day, "device-7-0001").await;
    assert_eq!(s, 422, "{kind}: {clash}");
    let all: serde_json::Value = restarted
        .get("/collections/inspections/items?limit=1")
        .bearer_auth(&t)
        .send()
        .await
        .json();
    assert_eq!(all["numberMatched"], HISTORY + 2, "{kind}");
}

/// A GeoJSON file of `n` catch basins a few feet from stored ones, from the `from`th on,
/// with ids `CB-NEW-<that number>` (CRS84, as uploaded).
fn new_basins(stored: &[Feature], from: usize, n: usize, status: &str) -> String {
    let rp = ms4::import::crs::Reprojector::new(2260, 4326).unwrap();
    let features: Vec<serde_json::Value> = stored
        .iter()
        .enumerate()
        .skip(from)
        .take(n)
        .map(|(i, f)| {
            let Some(geo_types::Geometry::Point(p)) = &f.geom else {
                panic!("a catch basin without a point: {f:?}")
            };
            let (lon, lat) = rp.point(p.x() + 7.0, p.y() + 7.0).unwrap();
            json!({"type": "Feature",
                   "properties": {"asset_id": format!("CB-NEW-{i}"), "status": status},
                   "geometry": {"type": "Point", "coordinates": [lon, lat]}})
        })
        .collect();
    json!({"type": "FeatureCollection", "features": features}).to_string()
}

/// Imports a file as an upload does: a copy of the features kept, the watcher told.
async fn upload(
    handle: &SnapshotHandle,
    store: &Arc<dyn Store>,
    path: &std::path::Path,
) -> ms4::store::WriteSummary {
    let _writing = handle.writing(Layer::CatchBasins);
    let mut opts = ms4::import::ImportOptions::new(Layer::CatchBasins, path);
    opts.keep_written = 100;
    let mut report = ms4::import::import(store.clone(), opts).await.unwrap();
    let written = report.written.clone().expect("a write");
    handle
        .after_import(
            store.as_ref(),
            Layer::CatchBasins,
            Some(&written),
            report.kept.take(),
        )
        .await
        .unwrap();
    written
}

/// Whether the snapshot's catch basins are exactly the store's.
async fn same_as_stored(handle: &SnapshotHandle, store: &dyn Store, kind: &str) {
    let stored = store.features(Layer::CatchBasins).await.unwrap();
    let snap = handle.current();
    let layer = snap.layer(Layer::CatchBasins);
    assert_eq!(layer.features.len(), stored.len(), "{kind}");
    for f in &stored {
        assert_eq!(layer.get(&f.id), Some(f), "{kind}: {}", f.id);
    }
}

/// An upload that only adds features is applied to the snapshot from the features it
/// wrote, with no read of the layer, and the snapshot then holds exactly what the store
/// holds. One that changes a stored feature, or that follows another program's write to
/// the layer, reads the layer again.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn an_upload_that_only_adds_is_applied_without_reading_the_layer(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let handle = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let watcher = handle.watch(reg.store.clone(), Duration::from_millis(20));
    let stored = reg.store.features(Layer::CatchBasins).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("new.geojson");
    let reads = handle.layer_reads();

    std::fs::write(&file, new_basins(&stored, 0, 3, "active")).unwrap();
    let s = upload(&handle, &reg.store, &file).await;
    assert_eq!((s.inserted, s.updated), (3, 0), "{kind}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        handle.layer_reads(),
        reads,
        "{kind}: no layer was read whole"
    );
    assert!(handle
        .current()
        .layer(Layer::CatchBasins)
        .get("CB-NEW-2")
        .is_some());
    same_as_stored(&handle, reg.store.as_ref(), kind).await;

    // The same file again changes nothing and reads nothing.
    let s = upload(&handle, &reg.store, &file).await;
    assert_eq!((s.inserted, s.unchanged), (0, 3), "{kind}");
    assert_eq!(handle.layer_reads(), reads, "{kind}");

    // An update of a stored feature: the layer is read again.
    std::fs::write(&file, new_basins(&stored, 0, 3, "abandoned")).unwrap();
    let s = upload(&handle, &reg.store, &file).await;
    assert_eq!(s.updated, 3, "{kind}");
    assert_eq!(handle.layer_reads(), reads + 1, "{kind}");
    same_as_stored(&handle, reg.store.as_ref(), kind).await;

    // Another program's edit just before an upload that adds: the snapshot must not
    // be patched from a state it never had, so the layer is read again.
    {
        let _held = handle.writing(Layer::CatchBasins);
        outside_sql(
            kind,
            &reg,
            &format!(
                "UPDATE catch_basins SET status = 'inactive' WHERE asset_id = '{}'",
                stored[0].id
            ),
        );
        std::fs::write(&file, new_basins(&stored, 3, 2, "active")).unwrap();
        let s = upload(&handle, &reg.store, &file).await;
        assert_eq!(s.inserted, 2, "{kind}");
    }
    assert_eq!(handle.layer_reads(), reads + 2, "{kind}");
    same_as_stored(&handle, reg.store.as_ref(), kind).await;
    let first = handle
        .current()
        .layer(Layer::CatchBasins)
        .get(&stored[0].id)
        .cloned();
    assert_eq!(
        first.unwrap().get(Layer::CatchBasins, "status").as_str(),
        Some("inactive"),
        "{kind}"
    );
    watcher.abort();
}
