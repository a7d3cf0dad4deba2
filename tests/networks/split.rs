//! Filtering and splitting a source on import, and ids from an expression or generated.

use super::*;
use ms4::import::split::{import_split, LayerBy};

const MIXED: &str = "mixed_structures.geojson";
const BY: &str = "FeatureType=catch_basin:'Catch Basin','Inlet';manhole:'Manhole','Junction Box'";

fn ids(store: &std::sync::Arc<dyn ms4::store::Store>, layer: Layer) -> Vec<String> {
    let rt = tokio::runtime::Handle::current();
    let store = store.clone();
    tokio::task::block_in_place(|| rt.block_on(store.features(layer)))
        .unwrap()
        .into_iter()
        .map(|f| f.id)
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn where_imports_only_the_features_it_selects() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let mut opts = ImportOptions::new(Layer::CatchBasins, net(MIXED));
        opts.filter = Some("FeatureType = 'Catch Basin'".into());
        opts.id_expr = Some("COALESCE(FACILITYID, ALTID)".into());
        let r = import(reg.store.clone(), opts).await.unwrap();
        assert_eq!((r.read, r.imported), (3, 3), "{kind}: {r}");
        assert_eq!(r.filter.as_deref(), Some("FeatureType = 'Catch Basin'"));
        assert_eq!(r.source_features, Some(8));
        assert_eq!(
            ids(&reg.store, Layer::CatchBasins),
            ["ALT-2", "CB-1", "CB-3"]
        );
        // A condition GDAL cannot read is refused, naming the fields there are.
        let mut bad = ImportOptions::new(Layer::CatchBasins, net(MIXED));
        bad.filter = Some("FeatureTyp = 'Catch Basin'".into());
        let e = import(reg.store.clone(), bad)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--where") && e.contains("FeatureType, FACILITYID"),
            "{e}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn layer_by_fills_several_layers_in_one_transaction_with_a_report_each() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let mut base = ImportOptions::new(Layer::CatchBasins, net(MIXED));
        base.id_expr = Some("COALESCE(FACILITYID, ALTID)".into());
        let by = LayerBy::parse(BY).unwrap();
        let r = import_split(reg.store.clone(), base.clone(), &by)
            .await
            .unwrap();
        assert_eq!(r.layers.len(), 2);
        assert_eq!(r.layers[0].layer, "catch_basins");
        assert_eq!(
            r.layers[0].written.as_ref().unwrap().inserted,
            4,
            "{kind}: {r}"
        );
        assert_eq!(r.layers[1].layer, "manholes");
        assert_eq!(
            r.layers[1].written.as_ref().unwrap().inserted,
            3,
            "{kind}: {r}"
        );
        assert_eq!(r.not_taken, Some(1), "the headwall: {r}");
        // A value no feature has is said to match nothing.
        let none = LayerBy::parse("FeatureType=outfalls:'Outfall'").unwrap();
        let r0 = import_split(reg.store.clone(), base.clone(), &none)
            .await
            .unwrap();
        assert_eq!(r0.layers[0].read, 0);
        assert_eq!(
            r0.layers[0].warnings,
            ["no feature of the file matches \"FeatureType\" IN ('Outfall')"]
        );
        assert_eq!(
            ids(&reg.store, Layer::CatchBasins),
            ["ALT-2", "CB-1", "CB-3", "IN-1"]
        );
        assert_eq!(ids(&reg.store, Layer::Manholes), ["ALT-6", "JB-1", "MH-1"]);
        // Again: nothing changes in either layer.
        let again = import_split(reg.store.clone(), base.clone(), &by)
            .await
            .unwrap();
        for l in &again.layers {
            assert_eq!(
                l.written.as_ref().unwrap().unchanged,
                l.imported,
                "{kind}: {again}"
            );
        }

        // One transaction: when one layer's read fails (connections need a
        // discharge_kind the file lacks), the other layer is not written either.
        let reg = registry(kind, 2260).await;
        let by =
            LayerBy::parse("FeatureType=catch_basins:'Catch Basin';connections:'Manhole'").unwrap();
        let e = import_split(reg.store.clone(), base, &by)
            .await
            .unwrap_err();
        assert!(e.to_string().contains("discharge_kind"), "{kind}: {e}");
        assert!(
            ids(&reg.store, Layer::CatchBasins).is_empty(),
            "{kind}: rolled back"
        );
        assert_eq!(
            reg.store
                .audit(None, 100)
                .await
                .unwrap()
                .iter()
                .filter(|a| a.action == "insert")
                .count(),
            0,
            "{kind}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ids_from_an_expression_or_generated_are_reported_as_such() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        // Without an id rule, FACILITYID is not even a canonical name: the file is refused.
        let plain = ImportOptions::new(Layer::Manholes, net(MIXED));
        let e = import(reg.store.clone(), plain)
            .await
            .unwrap_err()
            .to_string();
        assert!(e.contains("asset_id"), "{e}");

        let mut gen = ImportOptions::new(Layer::Manholes, net(MIXED));
        gen.filter = Some("FeatureType = 'Headwall'".into());
        gen.id_prefix = Some("HW-GEN-".into());
        let r = import(reg.store.clone(), gen).await.unwrap();
        assert_eq!(r.imported, 1, "{kind}: {r}");
        let says = r.ids.as_deref().unwrap();
        assert!(
            says.contains("generated") && says.contains("HW-GEN-"),
            "{says}"
        );
        assert!(format!("{r}").contains("ids        generated"), "{r}");
        assert_eq!(ids(&reg.store, Layer::Manholes), ["HW-GEN-7"]);

        let mut expr = ImportOptions::new(Layer::Manholes, net(MIXED));
        expr.filter = Some("FeatureType = 'Manhole'".into());
        expr.id_expr = Some("'MH:' || COALESCE(FACILITYID, ALTID)".into());
        let r = import(reg.store.clone(), expr).await.unwrap();
        assert_eq!(
            r.ids.as_deref(),
            Some("the expression 'MH:' || COALESCE(FACILITYID, ALTID)")
        );
        let got = ids(&reg.store, Layer::Manholes);
        assert_eq!(got, ["HW-GEN-7", "MH:ALT-6", "MH:MH-1"], "{kind}");
        // The fields the expression read are kept as attributes.
        let f = reg.store.features(Layer::Manholes).await.unwrap();
        assert_eq!(f[1].extra["ALTID"], "ALT-6");

        let mut typo = ImportOptions::new(Layer::Manholes, net(MIXED));
        typo.id_expr = Some("COALESCE(FACILTYID, ALTID)".into());
        let e = import(reg.store.clone(), typo)
            .await
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no field \"FACILTYID\"") && e.contains("FACILITYID"),
            "{e}"
        );
    }
}

#[test]
fn the_cli_splits_a_file_and_prints_a_report_per_layer() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    let p = net(MIXED);
    let out = run_ok(
        &url,
        &[
            "import",
            p.to_str().unwrap(),
            "--layer-by",
            BY,
            "--id",
            "COALESCE(FACILITYID, ALTID)",
        ],
    );
    assert!(out.contains("import catch_basins"), "{out}");
    assert!(out.contains("import manholes"), "{out}");
    assert!(
        out.contains("8; 1 taken by no layer (one transaction)"),
        "{out}"
    );
    let toml = dir.path().join("split.toml");
    std::fs::write(
        &toml,
        "field = \"FeatureType\"\n[layers]\ncatch_basins = [\"Catch Basin\", \"Inlet\"]\nmanholes = [\"Manhole\"]\n",
    )
    .unwrap();
    let out = run_ok(
        &url,
        &[
            "import",
            p.to_str().unwrap(),
            "--layer-by",
            toml.to_str().unwrap(),
            "--id",
            "COALESCE(FACILITYID, ALTID)",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["layers"][1]["written"]["unchanged"], 2, "{j}");
    assert_eq!(j["not_taken"], 2);
    let bad = run(&url, &["import", p.to_str().unwrap()]);
    assert!(!bad.status.success());
    let msg = String::from_utf8_lossy(&bad.stderr);
    assert!(
        msg.contains("is not a registry layer") || msg.contains("--layer-by"),
        "{msg}"
    );
}
