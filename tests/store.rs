//! The same store behaviour on a GeoPackage file and on PostGIS.

mod common;

use common::*;
use geo_types::{wkt, Geometry};
use ms4::domain::{Feature, Layer, Value};
use ms4::store::{self, write_all, StoreError, WriteMode, WriteMsg, WriteRequest};
use tokio::sync::mpsc;

fn req(layer: Layer, mode: WriteMode) -> WriteRequest {
    WriteRequest {
        layer,
        mode,
        actor: "tester".into(),
        source: "unit".into(),
    }
}

fn parcel(id: &str, land_use: &str, g: Geometry<f64>) -> Feature {
    let mut f = Feature::new(Layer::Parcels, id);
    f.set(Layer::Parcels, "land_use", Value::Text(land_use.into()));
    f.set(
        Layer::Parcels,
        "address",
        Value::Text(format!("{id} Main St\ttab\\slash\nnewline")),
    );
    f.extra.insert("SBL".into(), serde_json::json!("100.1-2-3"));
    f.geom = Some(g);
    f
}

fn square(x: f64, y: f64) -> Geometry<f64> {
    let p = wkt!(POLYGON((0. 0.,100. 0.,100. 100.,0. 100.,0. 0.)));
    use geo::Translate;
    Geometry::MultiPolygon(geo_types::MultiPolygon(vec![p.translate(x, y)]))
}

#[tokio::test]
async fn every_value_type_and_geometry_round_trips_on_both_stores() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let mut rec = Feature::new(Layer::ConnectionRecords, "R-1");
        rec.set(Layer::ConnectionRecords, "approved", Value::Bool(true));
        rec.set(
            Layer::ConnectionRecords,
            "approved_on",
            Value::Date(chrono::NaiveDate::from_ymd_opt(2021, 3, 4).unwrap()),
        );
        rec.set(
            Layer::ConnectionRecords,
            "plan_ref",
            Value::Text("Plan 7".into()),
        );
        let mut rec2 = Feature::new(Layer::ConnectionRecords, "R-2");
        rec2.geom = Some(wkt!(POINT(670000.25 870000.125)).into());
        rec2.set(Layer::ConnectionRecords, "approved", Value::Bool(false));
        write_all(
            reg.store.as_ref(),
            req(Layer::ConnectionRecords, WriteMode::Upsert),
            vec![rec.clone(), rec2.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!(
            reg.store.features(Layer::ConnectionRecords).await.unwrap(),
            vec![rec, rec2],
            "{kind}"
        );

        let mut imp = Feature::new(Layer::Impairments, "NY-1:phosphorus:2022");
        imp.set(Layer::Impairments, "water_id", Value::Text("NY-1".into()));
        imp.set(
            Layer::Impairments,
            "pollutant",
            Value::Text("phosphorus".into()),
        );
        imp.set(Layer::Impairments, "cycle", Value::Int(2022));
        write_all(
            reg.store.as_ref(),
            req(Layer::Impairments, WriteMode::Upsert),
            vec![imp.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!(
            reg.store.features(Layer::Impairments).await.unwrap(),
            vec![imp],
            "{kind}"
        );

        let mut pipe = Feature::new(Layer::Pipes, "P-1");
        pipe.geom = Some(wkt!(MULTILINESTRING((0. 0.,10.5 0.,20. 5.))).into());
        pipe.set(Layer::Pipes, "diameter_in", Value::Real(18.0));
        pipe.set(Layer::Pipes, "from_invert", Value::Real(101.25));
        let p = parcel("A", "210", square(670_000.0, 870_000.0));
        write_all(
            reg.store.as_ref(),
            req(Layer::Pipes, WriteMode::Upsert),
            vec![pipe.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        write_all(
            reg.store.as_ref(),
            req(Layer::Parcels, WriteMode::Upsert),
            vec![p.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!(
            reg.store.features(Layer::Pipes).await.unwrap(),
            vec![pipe],
            "{kind}"
        );
        assert_eq!(
            reg.store.features(Layer::Parcels).await.unwrap(),
            vec![p],
            "{kind}: text with tabs, newlines and backslashes"
        );
        let meta = reg.store.meta().await.unwrap();
        assert_eq!(
            (meta.srid, meta.jurisdiction.as_str()),
            (2260, "north-castle-ny")
        );
        // Reopening by URL finds the same registry.
        let again = store::open(&reg.url).await.unwrap();
        assert_eq!(again.count(Layer::Parcels).await.unwrap(), 1);
    }
}

#[tokio::test]
async fn upsert_audits_before_and_after_and_replace_deletes() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let s = reg.store.as_ref();
        let a = parcel("A", "210", square(0.0, 0.0));
        let b = parcel("B", "411", square(200.0, 0.0));
        let first = write_all(
            s,
            req(Layer::Parcels, WriteMode::Upsert),
            vec![a.clone(), b.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!((first.inserted, first.updated), (2, 0));

        let mut a2 = a.clone();
        a2.set(Layer::Parcels, "land_use", Value::Text("710".into()));
        let second = write_all(
            s,
            req(Layer::Parcels, WriteMode::Upsert),
            vec![a2.clone(), b.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!(
            (second.inserted, second.updated, second.unchanged),
            (0, 1, 1),
            "{kind}"
        );
        let audit = s.audit(Some(Layer::Parcels), 100).await.unwrap();
        let upd = audit.iter().find(|e| e.action == "update").unwrap();
        assert_eq!(upd.actor, "tester");
        assert_eq!(upd.feature_id.as_deref(), Some("A"));
        assert_eq!(
            upd.before.as_ref().unwrap()["properties"]["land_use"],
            "210"
        );
        assert_eq!(upd.after.as_ref().unwrap()["properties"]["land_use"], "710");
        // Only what changed is kept: the one attribute, not the polygon.
        assert_eq!(
            upd.after.as_ref().unwrap()["properties"],
            serde_json::json!({"land_use": "710"}),
            "{kind}"
        );
        assert!(
            upd.after.as_ref().unwrap().get("geometry").is_none(),
            "{kind}"
        );
        assert_eq!(audit.iter().filter(|e| e.action == "insert").count(), 2);
        assert_eq!(audit.iter().filter(|e| e.action == "import").count(), 2);

        let third = write_all(
            s,
            req(Layer::Parcels, WriteMode::Replace),
            vec![b.clone()],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!(third.deleted, 1, "{kind}");
        assert_eq!(s.features(Layer::Parcels).await.unwrap(), vec![b], "{kind}");
        let audit = s.audit(Some(Layer::Parcels), 100).await.unwrap();
        let del = audit.iter().find(|e| e.action == "delete").unwrap();
        assert_eq!(
            del.before.as_ref().unwrap()["properties"]["land_use"],
            "710"
        );
    }
}

#[tokio::test]
async fn an_aborted_or_abandoned_write_changes_nothing() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let s = reg.store.clone();
        write_all(
            s.as_ref(),
            req(Layer::Parcels, WriteMode::Upsert),
            vec![parcel("A", "210", square(0.0, 0.0))],
            serde_json::json!({}),
        )
        .await
        .unwrap();

        // Abort after some features were sent (and written inside the transaction).
        let (tx, rx) = mpsc::channel(4);
        let writer = tokio::spawn({
            let s = s.clone();
            async move { s.write(req(Layer::Parcels, WriteMode::Replace), rx).await }
        });
        tx.send(WriteMsg::Features(
            (0..5000)
                .map(|i| parcel(&format!("N{i}"), "210", square(i as f64 * 200.0, 0.0)))
                .collect(),
        ))
        .await
        .unwrap();
        tx.send(WriteMsg::Abort("source failed".into()))
            .await
            .unwrap();
        let e = writer.await.unwrap().unwrap_err();
        assert!(
            matches!(e, StoreError::Aborted(ref m) if m == "source failed"),
            "{e}"
        );

        // The sender vanishes without a word (a crashed reader).
        let (tx, rx) = mpsc::channel(4);
        let writer = tokio::spawn({
            let s = s.clone();
            async move { s.write(req(Layer::Parcels, WriteMode::Upsert), rx).await }
        });
        tx.send(WriteMsg::Features(vec![parcel(
            "Z",
            "710",
            square(0.0, 500.0),
        )]))
        .await
        .unwrap();
        drop(tx);
        let r = writer.await.unwrap();
        assert!(matches!(r, Err(StoreError::Aborted(_))), "{kind}: {r:?}");

        let ids: Vec<String> = s
            .features(Layer::Parcels)
            .await
            .unwrap()
            .into_iter()
            .map(|f| f.id)
            .collect();
        assert_eq!(ids, vec!["A"], "{kind}");
        assert_eq!(
            s.audit(None, 100).await.unwrap().len(),
            2,
            "{kind}: only the first write's insert and import rows"
        );
    }
}

#[tokio::test]
async fn opening_a_store_without_a_registry_or_initialising_twice_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("none.gpkg").display());
    let e = store::open(&url).await.err().unwrap().to_string();
    assert!(e.contains("ms4 init"), "{e}");
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let meta = reg.store.meta().await.unwrap();
        let e = store::create(&reg.url, &meta)
            .await
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("already holds a registry for north-castle-ny"),
            "{kind}: {e}"
        );
        assert!(!e.contains(":ms4@"), "{kind}: no password in messages: {e}");
    }
    let e = store::open("mysql://x").await.err().unwrap().to_string();
    assert!(e.contains("sqlite://") && e.contains("postgres://"), "{e}");
}

/// A load into an empty layer is audited one entry per new feature, in the order written
/// and before the write's summary, on both stores. PostGIS records such a load's new
/// features in one `insert` row listing their ids (`feature_ids`), which the view
/// `ms4_audit_entries` and `Store::audit` give back one entry per feature.
#[tokio::test]
async fn a_bulk_load_is_audited_one_entry_per_feature_in_order() {
    const N: usize = 1500;
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let s = reg.store.as_ref();
        let parcels: Vec<Feature> = (0..N)
            .map(|i| parcel(&format!("P{i:05}"), "210", square(i as f64 * 200.0, 0.0)))
            .collect();
        let first = write_all(
            s,
            req(Layer::Parcels, WriteMode::Upsert),
            parcels.clone(),
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!(first.inserted, N as u64, "{kind}");

        let audit = s.audit(Some(Layer::Parcels), 10_000).await.unwrap();
        assert_eq!(audit.len(), N + 1, "{kind}");
        assert_eq!(
            audit[0].action, "import",
            "{kind}: the summary is the newest"
        );
        let inserts: Vec<&str> = audit[1..]
            .iter()
            .rev()
            .map(|e| {
                assert_eq!(e.action, "insert", "{kind}");
                assert_eq!(e.actor, "tester", "{kind}");
                assert_eq!(e.import_id, Some(first.import_id), "{kind}");
                e.feature_id.as_deref().unwrap()
            })
            .collect();
        let written: Vec<&str> = parcels.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(inserts, written, "{kind}: one entry per feature, in order");
        // The newest few, as `ms4 audit` lists them.
        let newest = s.audit(Some(Layer::Parcels), 3).await.unwrap();
        let ids: Vec<Option<&str>> = newest.iter().map(|e| e.feature_id.as_deref()).collect();
        assert_eq!(ids, [None, Some("P01499"), Some("P01498")], "{kind}");

        if kind == "postgis" {
            let rows = outside_sql(
                kind,
                &reg,
                "SELECT count(*), count(feature_ids), max(cardinality(feature_ids)) FROM ms4_audit WHERE layer = 'parcels'",
            );
            assert_eq!(
                rows.trim(),
                format!("2|1|{N}"),
                "one row lists the load's ids"
            );
            let entries = outside_sql(
                kind,
                &reg,
                "SELECT count(*), count(DISTINCT feature_id) FROM ms4_audit_entries WHERE layer = 'parcels' AND action = 'insert'",
            );
            assert_eq!(entries.trim(), format!("{N}|{N}"));
        }

        // A later write to the same layer is audited row by row, as before.
        let mut changed = parcels[7].clone();
        changed.set(Layer::Parcels, "land_use", Value::Text("710".into()));
        let second = write_all(
            s,
            req(Layer::Parcels, WriteMode::Upsert),
            vec![changed, parcel("Q1", "411", square(0.0, 500.0))],
            serde_json::json!({}),
        )
        .await
        .unwrap();
        assert_eq!((second.inserted, second.updated), (1, 1), "{kind}");
        let audit = s.audit(Some(Layer::Parcels), 4).await.unwrap();
        let got: Vec<(&str, Option<&str>)> = audit
            .iter()
            .map(|e| (e.action.as_str(), e.feature_id.as_deref()))
            .collect();
        assert_eq!(
            got,
            [
                ("import", None),
                ("insert", Some("Q1")),
                ("update", Some("P00007")),
                ("import", None)
            ],
            "{kind}"
        );
    }
}

/// Two settings of the profile changed at the same moment, over and over, from two
/// tasks with their own connections: every change lands (each made on the text as
/// stored, never written over the other's), and the audit has one update for each.
#[rstest::rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_profile_settings_changed_at_once_both_land(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    const ROUNDS: usize = 25;
    let reg = registry(kind, 2260).await;
    // The first open stores the built-in profile.
    ms4::answer::profile::load(reg.store.as_ref())
        .await
        .unwrap();
    let setter = |key: &'static str| {
        let url = reg.url.clone();
        tokio::spawn(async move {
            let store = store::open(&url).await.unwrap();
            for i in 1..=ROUNDS {
                let value = format!("{}.{i:02}ft", if key == "snap_tolerance" { 2 } else { 3 });
                ms4::answer::profile::set_tolerance(store.as_ref(), key, &value, "tester")
                    .await
                    .unwrap_or_else(|e| panic!("{key} {value}: {e:#}"));
            }
        })
    };
    let (a, b) = (setter("snap_tolerance"), setter("record_tolerance"));
    a.await.unwrap();
    b.await.unwrap();
    let text = reg.store.stored_profile().await.unwrap().unwrap().toml;
    let line = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} in the stored profile"))
            .to_string()
    };
    assert_eq!(
        line("snap_tolerance"),
        format!("snap_tolerance = {{ value = 2.{ROUNDS}, unit = \"ft\" }}")
    );
    assert_eq!(
        line("record_tolerance"),
        format!("record_tolerance = {{ value = 3.{ROUNDS}, unit = \"ft\" }}")
    );
    let audit = reg.store.audit(None, 10_000).await.unwrap();
    let updates = audit
        .iter()
        .filter(|e| e.action == "profile_update")
        .count();
    assert_eq!(updates, 2 * ROUNDS, "one audited update per change");
}

/// An edit of the profile that is refused (a setting the text cannot take) writes
/// nothing: the stored text and the audit are as they were, and the refusal names the
/// setting; an edit giving back the stored text writes nothing either.
#[rstest::rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_refused_profile_edit_leaves_the_stored_text(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    use ms4::store::profile::Edited;
    let reg = registry(kind, 2261).await;
    ms4::answer::profile::load(reg.store.as_ref())
        .await
        .unwrap();
    let before = reg.store.stored_profile().await.unwrap().unwrap();
    let audited = reg.store.audit(None, 10_000).await.unwrap().len();
    let refuse = |_: &ms4::store::StoredProfile| {
        Err(store::StoreError::Refused {
            field: "snap_tolerance".into(),
            message: "not a distance".into(),
        })
    };
    let err = reg.store.edit_profile(&refuse).await.unwrap_err();
    assert!(
        matches!(&err, store::StoreError::Refused { field, .. } if field == "snap_tolerance"),
        "{err}"
    );
    let same = |old: &ms4::store::StoredProfile| Ok(old.clone());
    match reg.store.edit_profile(&same).await.unwrap() {
        Edited::Unchanged(old) => assert_eq!(old.sha256, before.sha256),
        other => panic!("an edit giving the stored text back wrote: {other:?}"),
    }
    assert_eq!(reg.store.stored_profile().await.unwrap().unwrap(), before);
    assert_eq!(reg.store.audit(None, 10_000).await.unwrap().len(), audited);
}
