//! An upload takes every option of `ms4 import` and gives the same rows: `where`, `id`,
//! `id_prefix` and `layer_by` (on `POST /api/import`), each compared with the command
//! line's import of the same file with the same flags into a registry of its own. A
//! wrong part is a 400 whose `field` names it. Driven in process with
//! `app(state).oneshot(…)`, on both stores.

use super::*;
use axum::body::Body as AxBody;
use axum::http::{header, Request};
use ms4::http::{app, AppState};
use ms4::spatial::SnapshotHandle;
use tower::ServiceExt;

const MIXED: &str = "networks/mixed_structures.geojson";
const BY: &str = "FeatureType=catch_basin:'Catch Basin','Inlet';manhole:'Manhole','Junction Box'";
const ID: &str = "COALESCE(FACILITYID, ALTID)";

/// An empty registry (EPSG:2260, no boundary: the file lies outside the demo town)
/// served in process, with an analyst's token.
struct Served {
    state: AppState,
    analyst: String,
    reg: Registry,
}

async fn served(kind: &str) -> Served {
    let reg = registry(kind, 2260).await;
    let analyst = token(&reg.url, "analyst", "analyst person", &[]);
    let snapshot = SnapshotHandle::load(reg.store.as_ref()).await.unwrap();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    Served {
        state: AppState::new(reg.store.clone(), snapshot, profile),
        analyst,
        reg,
    }
}

/// A multipart body: the file (when given) and the text parts, in order.
fn form(file: Option<(&str, Vec<u8>)>, parts: &[(&str, &str)]) -> (String, Vec<u8>) {
    const B: &str = "ms4-test-boundary-7d1f";
    let mut body = Vec::new();
    if let Some((name, bytes)) = file {
        body.extend_from_slice(
            format!(
                "--{B}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(&bytes);
        body.extend_from_slice(b"\r\n");
    }
    for (k, v) in parts {
        body.extend_from_slice(
            format!("--{B}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{B}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={B}"), body)
}

impl Served {
    async fn upload(&self, path: &str, parts: &[(&str, &str)]) -> (u16, Value) {
        let bytes = std::fs::read(fixture(MIXED)).unwrap();
        let (ct, body) = form(Some(("mixed_structures.geojson", bytes)), parts);
        let req = Request::post(path)
            .header(header::AUTHORIZATION, format!("Bearer {}", self.analyst))
            .header(header::CONTENT_TYPE, ct)
            .body(AxBody::from(body))
            .unwrap();
        let res = app(self.state.clone()).oneshot(req).await.unwrap();
        let status = res.status().as_u16();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }
}

/// A layer's rows, in id order, as text to compare.
async fn rows(store: &std::sync::Arc<dyn ms4::store::Store>, layer: Layer) -> Vec<String> {
    let mut f = store.features(layer).await.unwrap();
    f.sort_by(|a, b| a.id.cmp(&b.id));
    f.iter().map(|f| format!("{f:?}")).collect()
}

/// Skips the PostGIS case when no test server is set (a failure under CI).
fn runs(kind: &str) -> bool {
    kind == "sqlite" || pg_base().is_some()
}

#[rstest::rstest]
#[case::sqlite("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn an_upload_imports_as_ms4_import_with_the_same_options(#[case] kind: &str) {
    if !runs(kind) {
        return;
    }
    let s = served(kind).await;
    let cli = registry(kind, 2260).await;
    let file = fixture(MIXED);
    let file = file.to_str().unwrap();
    // `where` with `id`, into the layer the path names.
    let (st, r) = s
        .upload(
            "/api/layers/catch_basins/import",
            &[("where", "FeatureType = 'Catch Basin'"), ("id", ID)],
        )
        .await;
    assert_eq!(st, 201, "{r}");
    assert_eq!(
        (r["read"].as_u64(), r["imported"].as_u64()),
        (Some(3), Some(3)),
        "{r}"
    );
    assert_eq!(r["filter"], "FeatureType = 'Catch Basin'", "{r}");
    assert_eq!(r["source"], "mixed_structures.geojson", "{r}");
    run_ok(
        &cli.url,
        &[
            "import",
            "catch_basins",
            file,
            "--where",
            "FeatureType = 'Catch Basin'",
            "--id",
            ID,
        ],
    );
    assert_eq!(
        rows(&s.reg.store, Layer::CatchBasins).await,
        rows(&cli.store, Layer::CatchBasins).await
    );
    // `id_prefix`, with `where`, into another layer.
    let (st, r) = s
        .upload(
            "/api/layers/manholes/import",
            &[
                ("where", "FeatureType = 'Junction Box'"),
                ("id_prefix", "JB-"),
            ],
        )
        .await;
    assert_eq!(st, 201, "{r}");
    assert_eq!(r["imported"], 1, "{r}");
    run_ok(
        &cli.url,
        &[
            "import",
            "manholes",
            file,
            "--where",
            "FeatureType = 'Junction Box'",
            "--id-prefix",
            "JB-",
        ],
    );
    let manholes = rows(&s.reg.store, Layer::Manholes).await;
    assert!(manholes[0].contains("\"JB-"), "{manholes:?}");
    assert_eq!(manholes, rows(&cli.store, Layer::Manholes).await);
    // `layer_by`, on the route whose form names the layers: one report per layer.
    let (st, r) = s
        .upload("/api/import", &[("layer_by", BY), ("id", ID)])
        .await;
    assert_eq!(st, 201, "{r}");
    assert_eq!(r["field"], "FeatureType", "{r}");
    assert_eq!(r["layers"][0]["layer"], "catch_basins", "{r}");
    assert_eq!(r["layers"][1]["layer"], "manholes", "{r}");
    assert_eq!(r["layers"][1]["source"], "mixed_structures.geojson", "{r}");
    assert_eq!(r["not_taken"], 1, "the headwall: {r}");
    run_ok(&cli.url, &["import", file, "--layer-by", BY, "--id", ID]);
    for layer in [Layer::CatchBasins, Layer::Manholes] {
        let served = rows(&s.reg.store, layer).await;
        assert_eq!(served, rows(&cli.store, layer).await, "{layer}");
        // The snapshot the server answers from has the split's rows too.
        assert_eq!(
            s.state.snapshot.current().layer(layer).features.len(),
            served.len(),
            "{layer}"
        );
    }
    // A dry run of a split writes nothing and says so with 200.
    let (st, r) = s
        .upload(
            "/api/import",
            &[("layer_by", BY), ("id", ID), ("dry_run", "true")],
        )
        .await;
    assert_eq!(st, 200, "{r}");
    assert!(r["layers"][0]["written"].is_null(), "{r}");
}

#[rstest::rstest]
#[case::sqlite("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_wrong_part_is_named_in_the_answer(#[case] kind: &str) {
    if !runs(kind) {
        return;
    }
    let s = served(kind).await;
    let layer = "/api/layers/catch_basins/import";
    // The path, the parts besides the file, and the part the answer names.
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: &[Case] = &[
        (layer, &[("where", "FeatureTyp = 'Catch Basin'")], "where"),
        (layer, &[("id", "COALESCE(NOPE, ALTID)")], "id"),
        (layer, &[("id", ID), ("id_prefix", "P-")], "id_prefix"),
        (layer, &[("map", "asset_id")], "map"),
        (layer, &[("s_srs", "EPSG:x")], "s_srs"),
        (layer, &[("invalid", "fix")], "invalid"),
        (layer, &[("dry_run", "maybe")], "dry_run"),
        (layer, &[("colour", "red")], "colour"),
        (layer, &[("layer_by", BY)], "layer_by"),
        (layer, &[("layer", "manholes")], "layer"),
        (
            "/api/import",
            &[("layer_by", "FeatureType=drains:'A'")],
            "layer_by",
        ),
        ("/api/import", &[("layer_by", "split.toml")], "layer_by"),
        ("/api/import", &[("layer", "drains")], "layer"),
        ("/api/import", &[("id", ID)], "layer"),
    ];
    for (path, parts, field) in cases {
        let (st, e) = s.upload(path, parts).await;
        assert_eq!(st, 400, "{path} {parts:?}: {e}");
        assert_eq!(e["field"], *field, "{path} {parts:?}: {e}");
        let said = e["error"].as_str().unwrap();
        assert!(said.starts_with(&format!("{field}: ")), "{e}");
        let tmp = std::env::temp_dir().display().to_string();
        assert!(!said.contains(&tmp), "no server path: {e}");
    }
    // Nothing of any of them was written.
    assert!(rows(&s.reg.store, Layer::CatchBasins).await.is_empty());
}
