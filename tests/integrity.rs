//! Re-importing a full layer compares stored content hashes, on both stores, and keeps
//! every guarantee of the row-by-row comparison: outside edits are seen, numbers a float
//! parser moved count as unchanged, rows stored before hashes get theirs, a replace
//! deletes (and audits) exactly what it did not carry.

mod common;

use common::*;
use geo_types::{Geometry, Point};
use ms4::domain::{Feature, Layer, Value};
use ms4::store::{write_all, WriteMode, WriteRequest, WriteSummary};

/// More than one chunk, and chunks large enough for the whole-layer hash pass.
const N: usize = 2500;

fn req(mode: WriteMode) -> WriteRequest {
    WriteRequest {
        layer: Layer::Pipes,
        mode,
        actor: "tester".into(),
        source: "integrity".into(),
    }
}

/// Pipe `i` with real-valued attributes whose text is long (as a survey's are).
fn pipe(i: usize, nudge: f64) -> Feature {
    let mut f = Feature::new(Layer::Pipes, format!("P-{i:05}"));
    let x = 670_000.0 + i as f64 * 10.0;
    f.geom = Some(Geometry::MultiLineString(geo_types::MultiLineString(vec![
        geo_types::LineString::from(vec![
            Point::new(x, 870_000.0),
            Point::new(x + 7.5, 870_004.25),
        ]),
    ])));
    f.set(
        Layer::Pipes,
        "diameter_in",
        Value::Real((12.0 + (i % 7) as f64 / 3.0) * (1.0 + nudge)),
    );
    f.set(
        Layer::Pipes,
        "from_invert",
        Value::Real((101.092298898533 + i as f64 / 7.0) * (1.0 + nudge)),
    );
    f.extra.insert(
        "Shape_Length".into(),
        serde_json::json!((0.1369261430150258 * (i + 1) as f64) * (1.0 + nudge)),
    );
    f.extra.insert("OWNER".into(), serde_json::json!("town"));
    f
}

fn pipes(nudge: f64) -> Vec<Feature> {
    (0..N).map(|i| pipe(i, nudge)).collect()
}

async fn write(reg: &Registry, mode: WriteMode, features: Vec<Feature>) -> WriteSummary {
    write_all(
        reg.store.as_ref(),
        req(mode),
        features,
        serde_json::json!({}),
    )
    .await
    .unwrap()
}

fn counts(s: &WriteSummary) -> (u64, u64, u64, u64) {
    (s.inserted, s.updated, s.deleted, s.unchanged)
}

/// How many pipes have no stored hash, counted by another program.
fn unhashed(kind: &str, reg: &Registry) -> usize {
    outside_count(
        kind,
        reg,
        "SELECT count(*) AS n FROM pipes WHERE ms4_hash IS NULL",
    )
}

#[tokio::test]
async fn a_full_reimport_by_hash_sees_outside_edits_and_float_noise() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        assert_eq!(
            counts(&write(&reg, WriteMode::Upsert, pipes(0.0)).await),
            (N as u64, 0, 0, 0)
        );
        assert_eq!(
            unhashed(kind, &reg),
            0,
            "{kind}: every row written gets its hash"
        );

        // Unchanged, and unchanged again with every number a unit of the last place away.
        let again = write(&reg, WriteMode::Upsert, pipes(0.0)).await;
        assert_eq!(counts(&again), (0, 0, 0, N as u64), "{kind}");
        assert_eq!(again.rows_compared, N as u64, "{kind}");
        let noisy = write(&reg, WriteMode::Upsert, pipes(2.0 * f64::EPSILON)).await;
        assert_eq!(
            counts(&noisy),
            (0, 0, 0, N as u64),
            "{kind}: float noise is no change"
        );

        // Another program changes one pipe: its stored hash no longer says what it holds,
        // so the same file again puts the pipe back, audited.
        outside_sql(
            kind,
            &reg,
            "UPDATE pipes SET diameter_in = 99 WHERE asset_id = 'P-00007'",
        );
        assert_eq!(
            unhashed(kind, &reg),
            1,
            "{kind}: the outside edit cleared the hash"
        );
        let back = write(&reg, WriteMode::Upsert, pipes(0.0)).await;
        assert_eq!(counts(&back), (0, 1, 0, N as u64 - 1), "{kind}");
        let audit = reg.store.audit(Some(Layer::Pipes), 100_000).await.unwrap();
        let ours: Vec<_> = audit
            .iter()
            .filter(|a| a.import_id == Some(back.import_id) && a.action == "update")
            .collect();
        assert_eq!(ours.len(), 1, "{kind}");
        assert_eq!(ours[0].feature_id.as_deref(), Some("P-00007"));
        let stored = reg.store.features(Layer::Pipes).await.unwrap();
        let p7 = stored.iter().find(|f| f.id == "P-00007").unwrap();
        let want = pipe(7, 0.0);
        assert_eq!((&p7.values, &p7.geom), (&want.values, &want.geom), "{kind}");

        // A change in the tenth significant digit of one number is a change.
        let mut changed = pipes(0.0);
        changed[42].set(Layer::Pipes, "from_invert", Value::Real(107.0922989));
        let one = write(&reg, WriteMode::Upsert, changed).await;
        assert_eq!(counts(&one), (0, 1, 0, N as u64 - 1), "{kind}");
    }
}

#[tokio::test]
async fn rows_stored_without_a_hash_are_compared_whole_then_get_one() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        write(&reg, WriteMode::Upsert, pipes(0.0)).await;
        // As a registry written before hashes were kept.
        outside_sql(kind, &reg, "UPDATE pipes SET ms4_hash = NULL");
        assert_eq!(unhashed(kind, &reg), N, "{kind}");
        let audit_before = reg
            .store
            .audit(Some(Layer::Pipes), 100_000)
            .await
            .unwrap()
            .len();
        let first = write(&reg, WriteMode::Upsert, pipes(0.0)).await;
        assert_eq!(counts(&first), (0, 0, 0, N as u64), "{kind}");
        assert_eq!(
            unhashed(kind, &reg),
            0,
            "{kind}: the unchanged rows got their hash"
        );
        // Storing a hash is no change: only the write's summary row was audited.
        let audit = reg.store.audit(Some(Layer::Pipes), 100_000).await.unwrap();
        assert_eq!(audit.len(), audit_before + 1, "{kind}");
        let ids = |v: &[Feature]| v.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
        let stored = reg.store.features(Layer::Pipes).await.unwrap();
        assert_eq!(ids(&stored), ids(&pipes(0.0)), "{kind}");
        let second = write(&reg, WriteMode::Upsert, pipes(0.0)).await;
        assert_eq!(counts(&second), (0, 0, 0, N as u64), "{kind}");
    }
}

#[tokio::test]
async fn a_replace_by_hash_deletes_and_audits_what_it_did_not_carry() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        write(&reg, WriteMode::Upsert, pipes(0.0)).await;
        let mut kept = pipes(0.0);
        let gone: Vec<Feature> = kept.drain(100..250).collect();
        kept[3].set(Layer::Pipes, "diameter_in", Value::Real(48.0));
        let r = write(&reg, WriteMode::Replace, kept.clone()).await;
        assert_eq!(counts(&r), (0, 1, 150, N as u64 - 151), "{kind}");
        let audit = reg.store.audit(Some(Layer::Pipes), 100_000).await.unwrap();
        let deletes: Vec<_> = audit
            .iter()
            .filter(|a| a.import_id == Some(r.import_id) && a.action == "delete")
            .collect();
        assert_eq!(deletes.len(), 150, "{kind}");
        for d in &deletes {
            let id = d.feature_id.as_deref().unwrap();
            assert!(gone.iter().any(|g| g.id == id), "{kind}: {id}");
            assert!(
                d.before.is_some(),
                "{kind}: the deleted row's content is audited"
            );
        }
        let stored = reg.store.features(Layer::Pipes).await.unwrap();
        let ids = |v: &[Feature]| v.iter().map(|f| f.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&stored), ids(&kept), "{kind}");
        assert_eq!(
            stored[3].values, kept[3].values,
            "{kind}: the one change is stored"
        );
    }
}
