//! Re-importing an unchanged file changes nothing, on both stores.

use super::*;

/// Every pipe of this file carries a `Shape_Length` whose JSON text a float parser reads
/// back a unit of the last place away (0.1369261430150258 as 0.13692614301502581): each
/// re-import used to update all 39 pipes and write 39 audit rows.
#[tokio::test]
async fn reimporting_float_attributes_unchanged_writes_nothing() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let opts = ImportOptions::new(Layer::Pipes, net("float_attributes.geojson"));
        let first = import(reg.store.clone(), opts.clone()).await.unwrap();
        assert_eq!(
            first.written.as_ref().unwrap().inserted,
            39,
            "{kind}: {first}"
        );
        let audit_before = reg
            .store
            .audit(Some(Layer::Pipes), 10_000)
            .await
            .unwrap()
            .len();
        for round in 0..2 {
            let again = import(reg.store.clone(), opts.clone()).await.unwrap();
            let w = again.written.as_ref().unwrap();
            assert_eq!(
                (w.inserted, w.updated, w.deleted, w.unchanged),
                (0, 0, 0, 39),
                "{kind}, re-import {round}: {again}"
            );
        }
        let audit = reg.store.audit(Some(Layer::Pipes), 10_000).await.unwrap();
        assert_eq!(
            audit.iter().filter(|a| a.action == "update").count(),
            0,
            "{kind}: no update rows"
        );
        // Only the two re-imports' summary rows were added.
        assert_eq!(audit.len(), audit_before + 2, "{kind}");
        // The values are still the file's, to the digit a reader can see.
        let stored = reg.store.features(Layer::Pipes).await.unwrap();
        let p = stored.iter().find(|f| f.id == "P-034").expect("P-034");
        let v = p.extra["Shape_Length"].as_f64().unwrap();
        assert!((v - 0.1369261430150258).abs() < 1e-15, "{kind}: {v}");
    }
}

/// A real change, however small a surveyor's, is still an update.
#[tokio::test]
async fn reimport_with_a_changed_float_updates_that_feature_only() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let path = net("float_attributes.geojson");
        import(reg.store.clone(), ImportOptions::new(Layer::Pipes, &path))
            .await
            .unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("0.1369261430150258"));
        let changed = text.replace("0.1369261430150258", "0.1369261430");
        let tmp = tempfile::tempdir().unwrap();
        let p2 = tmp.path().join("float_attributes.geojson");
        std::fs::write(&p2, changed).unwrap();
        let r = import(reg.store.clone(), ImportOptions::new(Layer::Pipes, &p2))
            .await
            .unwrap();
        let w = r.written.as_ref().unwrap();
        assert_eq!((w.updated, w.unchanged), (1, 38), "{kind}: {r}");
        let audit = reg.store.audit(Some(Layer::Pipes), 10_000).await.unwrap();
        let upd: Vec<_> = audit.iter().filter(|a| a.action == "update").collect();
        assert_eq!(upd.len(), 1, "{kind}");
        assert_eq!(upd[0].feature_id.as_deref(), Some("P-034"));
    }
}
