//! Esri in one command: File Geodatabases in the LGIM and Utility Network stormwater
//! schemas (built with GDAL by `tests/fixtures/esri/build.sh`; Cambridge's own catch
//! basins and domain tables in the LGIM one) read into ms4's layers by the built-in
//! presets, with their coded values decoded and a mapping report before the write.

mod common;

use std::sync::Arc;

use common::*;
use ms4::domain::{Feature, Layer, Value};
use ms4::import::esri::{self, EsriOptions, EsriOutcome, MappingReport, Preset};
use ms4::store::Store;
use rstest::rstest;

/// Massachusetts Mainland, US feet: the fixtures' own CRS.
const MA_FT: i32 = 2249;

async fn run(store: Arc<dyn Store>, preset: &str, file: &str, maps: &[&str]) -> EsriOutcome {
    let mut opts = EsriOptions::new(fixture(file));
    opts.maps = maps.iter().map(|m| m.to_string()).collect();
    let mut shown = None;
    let out = esri::import_esri(store, Preset::built_in(preset).unwrap(), opts, |m| {
        shown = Some(m.clone());
    })
    .await
    .unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(shown.is_some(), "the mapping is shown before the write");
    out
}

async fn stored(store: &dyn Store, layer: Layer, id: &str) -> Feature {
    store
        .features(layer)
        .await
        .unwrap()
        .into_iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("{layer} {id} is stored"))
}

fn text(layer: Layer, f: &Feature, field: &str) -> Option<String> {
    match &f.values[layer.field_index(field).unwrap()] {
        Value::Text(s) => Some(s.clone()),
        Value::Date(d) => Some(d.to_string()),
        Value::Null => None,
        other => Some(format!("{other:?}")),
    }
}

fn number(layer: Layer, f: &Feature, field: &str) -> f64 {
    match &f.values[layer.field_index(field).unwrap()] {
        Value::Real(x) => *x,
        Value::Int(i) => *i as f64,
        other => panic!("{field} is {other:?}"),
    }
}

fn unknown(m: &MappingReport, class: &str, field: &str) -> Vec<(String, u64)> {
    m.unknown_codes
        .iter()
        .filter(|u| u.class == class && u.field == field)
        .map(|u| (u.code.clone(), u.count))
        .collect()
}

/// The LGIM fixture imported into a fresh registry.
async fn lgim(maps: &[&str]) -> (Registry, EsriOutcome) {
    let reg = registry("sqlite", MA_FT).await;
    let out = run(reg.store.clone(), "lgim", "esri/lgim.gdb.zip", maps).await;
    (reg, out)
}

#[rstest]
#[case::cambridge_lifecycle_code_becomes_its_word(
    Layer::CatchBasins,
    "D41CBN2516",
    "status",
    Some("Abandoned")
)]
#[case::cambridge_owner_code_becomes_its_word(
    Layer::CatchBasins,
    "D32CBN0446",
    "owner",
    Some("City of Cambridge")
)]
#[case::manhole_status(Layer::Manholes, "MH-1", "status", Some("In Service"))]
#[case::material_code_becomes_its_word(
    Layer::Pipes,
    "GM-1",
    "material",
    Some("Reinforced Concrete Pipe")
)]
#[case::gravity_main_kind_from_the_class(Layer::Pipes, "GM-1", "kind", Some("gravity main"))]
#[case::culvert_kind_from_the_class(Layer::Pipes, "CV-1", "kind", Some("culvert"))]
#[case::frommh(Layer::Pipes, "GM-1", "from_id", Some("MH-1"))]
#[case::tomh(Layer::Pipes, "GM-2", "to_id", Some("OF-1"))]
#[case::abandoned_main(Layer::Pipes, "GM-2", "status", Some("Abandoned"))]
#[case::unknown_material_left_empty(Layer::Pipes, "GM-3", "material", None)]
// The fixture's swDischargePoint binds no domain to LIFECYCLESTATUS: its code stays.
#[case::a_field_without_a_domain_keeps_its_code(Layer::Outfalls, "OF-1", "status", Some("IS"))]
#[case::installdate(Layer::Manholes, "MH-1", "installed_on", Some("2001-05-04"))]
// Cambridge's "no date", SQL Server's least datetime, is no date.
#[case::placeholder_date_is_no_date(Layer::CatchBasins, "D32CBN0446", "installed_on", None)]
#[tokio::test]
async fn lgim_classes_fill_their_layers_with_coded_values_decoded(
    #[case] layer: Layer,
    #[case] id: &str,
    #[case] field: &str,
    #[case] expected: Option<&str>,
) {
    let (reg, _) = lgim(&[]).await;
    let f = stored(reg.store.as_ref(), layer, id).await;
    assert_eq!(
        text(layer, &f, field).as_deref(),
        expected,
        "{layer} {id} {field}"
    );
}

#[tokio::test]
async fn lgim_lengths_and_elevations_are_read_in_the_presets_units() {
    let (reg, out) = lgim(&[]).await;
    let gm = stored(reg.store.as_ref(), Layer::Pipes, "GM-1").await;
    assert_eq!(number(Layer::Pipes, &gm, "diameter_in"), 12.0);
    assert_eq!(number(Layer::Pipes, &gm, "from_invert"), 15.2);
    assert_eq!(number(Layer::Pipes, &gm, "to_invert"), 14.1);
    let mh = stored(reg.store.as_ref(), Layer::Manholes, "MH-1").await;
    assert_eq!(number(Layer::Manholes, &mh, "rim_elev"), 21.5);
    let units: Vec<_> = out
        .mapping
        .units
        .iter()
        .map(|u| (u.field.as_str(), u.unit.as_str(), u.from.as_str()))
        .collect();
    assert_eq!(units, [("diameter_in", "in", "preset")]);
}

#[tokio::test]
async fn a_map_wins_over_the_preset_with_its_unit() {
    let (reg, out) = lgim(&["diameter_in=DIAMETER:ft"]).await;
    let gm = stored(reg.store.as_ref(), Layer::Pipes, "GM-1").await;
    assert_eq!(number(Layer::Pipes, &gm, "diameter_in"), 144.0);
    assert_eq!(out.mapping.units[0].from, "--map");
}

#[tokio::test]
async fn unknown_codes_are_reported_with_their_counts_and_never_guessed() {
    let (reg, out) = lgim(&[]).await;
    let m = &out.mapping;
    assert_eq!(
        unknown(m, "swGravityMain", "MATERIAL"),
        [("XYZ".to_string(), 1)]
    );
    // Cambridge's own data: a grate type its domain table does not have.
    assert_eq!(unknown(m, "swInlet", "GRATETYPE"), [("DC".to_string(), 1)]);
    let gm3 = stored(reg.store.as_ref(), Layer::Pipes, "GM-3").await;
    assert_eq!(gm3.extra["MATERIAL_unknown_code"], "XYZ");
    let cb = stored(reg.store.as_ref(), Layer::CatchBasins, "D12CBN1206").await;
    assert_eq!(cb.extra["GRATETYPE_unknown_code"], "DC");
    assert!(!cb.extra.contains_key("GRATETYPE"), "{:?}", cb.extra);
    let decoded = stored(reg.store.as_ref(), Layer::CatchBasins, "D32CBN0446").await;
    assert_eq!(decoded.extra["GRATETYPE"], "Type D");
}

#[tokio::test]
async fn the_mapping_report_accounts_for_every_class_and_field() {
    let (_reg, out) = lgim(&[]).await;
    let m = &out.mapping;
    let classes: Vec<&str> = m.classes.iter().map(|c| c.class.as_str()).collect();
    assert_eq!(
        classes,
        [
            "swInlet",
            "swManhole",
            "swGravityMain",
            "swCulvert",
            "swDischargePoint"
        ]
    );
    let left: Vec<&str> = m.left.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(left, ["wMain", "swInlet__ATTACH"]);
    assert!(m.left[1].why.contains("attachments"), "{:?}", m.left[1]);
    let gm = &m.classes[2];
    assert!(
        gm.used.contains(&"pipes.from_id <- FROMMH".to_string()),
        "{:?}",
        gm.used
    );
    assert!(gm
        .used
        .contains(&"pipes.kind = \"gravity main\"".to_string()));
    // Editor tracking travels with the feature, as extras.
    for f in [
        "created_user",
        "created_date",
        "last_edited_user",
        "last_edited_date",
    ] {
        assert!(gm.extra.contains(&f.to_string()), "{f} in {:?}", gm.extra);
    }
    assert_eq!(gm.layers["pipes"], 3);
    assert_eq!(m.null_dates["swInlet.INSTALLDAT"], 9);
    let material = m
        .domains
        .iter()
        .find(|d| d.class == "swGravityMain" && d.field == "MATERIAL")
        .unwrap();
    assert_eq!(
        (material.domain.as_str(), material.decoded),
        ("Material", 2)
    );
    let text = m.to_string();
    assert!(
        text.contains("unknown code \"XYZ\" in swGravityMain.MATERIAL"),
        "{text}"
    );
    assert!(
        text.contains("left wMain (1 rows): not a class of the preset"),
        "{text}"
    );
    // Every layer's report names the geodatabase and the classes that fed it.
    let pipes = out.layers.iter().find(|r| r.layer == "pipes").unwrap();
    assert_eq!(pipes.source_layer, "swGravityMain, swCulvert");
    assert!(pipes.source.ends_with("lgim.gdb.zip"));
}

#[tokio::test]
async fn a_dry_run_shows_the_mapping_and_writes_nothing() {
    let reg = registry("sqlite", MA_FT).await;
    let mut opts = EsriOptions::new(fixture("esri/lgim.gdb.zip"));
    opts.dry_run = true;
    let out = esri::import_esri(
        reg.store.clone(),
        Preset::built_in("lgim").unwrap(),
        opts,
        |_| {},
    )
    .await
    .unwrap();
    assert!(out.layers.iter().all(|r| r.dry_run));
    assert_eq!(out.layers.iter().map(|r| r.read).sum::<u64>(), 17);
    assert_eq!(reg.store.count(Layer::Pipes).await.unwrap(), 0);
}

#[rstest]
#[case::catch_basin(Layer::CatchBasins, "UCB-2", None)]
#[case::outfall(Layer::Outfalls, "UOF-1", None)]
#[case::manhole(Layer::Manholes, "UMH-1", None)]
#[case::gravity_main(Layer::Pipes, "UGM-1", Some("Gravity Main"))]
#[case::culvert(Layer::Pipes, "UCU-1", Some("Culvert"))]
#[tokio::test]
async fn utility_network_asset_groups_split_into_layers(
    #[case] layer: Layer,
    #[case] id: &str,
    #[case] kind: Option<&str>,
) {
    let reg = registry("sqlite", MA_FT).await;
    run(
        reg.store.clone(),
        "utility-network",
        "esri/utility_network.gdb.zip",
        &[],
    )
    .await;
    let f = stored(reg.store.as_ref(), layer, id).await;
    if let Some(k) = kind {
        assert_eq!(text(layer, &f, "kind").as_deref(), Some(k));
    }
    assert_eq!(
        f.extra["esri_class"],
        if layer == Layer::Pipes {
            "StormwaterLine"
        } else {
            "StormwaterDevice"
        }
    );
}

#[tokio::test]
async fn asset_groups_no_layer_takes_are_reported_not_imported() {
    let reg = registry("sqlite", MA_FT).await;
    let out = run(
        reg.store.clone(),
        "utility-network",
        "esri/utility_network.gdb.zip",
        &[],
    )
    .await;
    let m = &out.mapping;
    let not_taken: Vec<(&str, u64)> = m
        .not_taken
        .iter()
        .map(|n| (n.value.as_str(), n.count))
        .collect();
    // A word the preset has no layer for, and a code the domain does not have.
    assert_eq!(not_taken, [("7", 1), ("Check Valve", 1)]);
    assert_eq!(
        unknown(m, "StormwaterDevice", "ASSETGROUP"),
        [("7".to_string(), 1)]
    );
    assert_eq!(m.classes[0].layers["catch_basins"], 2);
    let devices: u64 = m.classes[0].layers.values().sum();
    assert_eq!((m.classes[0].features, devices), (6, 4));
    let status = stored(reg.store.as_ref(), Layer::CatchBasins, "UCB-2").await;
    assert_eq!(
        text(Layer::CatchBasins, &status, "status").as_deref(),
        Some("Proposed")
    );
}

#[tokio::test]
async fn a_geodatabase_without_a_presets_class_is_refused_by_name() {
    let reg = registry("sqlite", MA_FT).await;
    let opts = EsriOptions::new(fixture("esri/utility_network.gdb.zip"));
    let e = esri::import_esri(
        reg.store.clone(),
        Preset::built_in("lgim").unwrap(),
        opts,
        |_| {},
    )
    .await
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("none of its classes") && e.contains("swInlet"),
        "{e}"
    );
}

#[test]
fn the_cli_prints_the_preset_and_the_mapping_before_the_reports() {
    let shown = ms4()
        .args([
            "import-esri",
            "--preset",
            "utility-network",
            "--show-preset",
        ])
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(shown.contains("split_by = \"ASSETGROUP\""), "{shown}");
    let parsed = Preset::parse(&shown, "shown").unwrap();
    assert_eq!(parsed, Preset::built_in("utility-network").unwrap());

    let rt = tokio::runtime::Runtime::new().unwrap();
    let reg = rt.block_on(registry("sqlite", MA_FT));
    let gdb = fixture("esri/lgim.gdb.zip").display().to_string();
    let out = run_ok(
        &reg.url,
        &["import-esri", &gdb, "--preset", "lgim", "--dry-run"],
    );
    let mapping = out.find("mapping of").expect("the mapping");
    let report = out.find("import pipes").expect("the pipes report");
    assert!(mapping < report, "{out}");
}

#[test]
fn ms4_import_takes_the_preset_as_import_esri_does() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let reg = rt.block_on(registry("sqlite", MA_FT));
    let gdb = fixture("esri/utility_network.gdb.zip")
        .display()
        .to_string();
    let out = run_ok(
        &reg.url,
        &[
            "import",
            &gdb,
            "--preset",
            "utility-network",
            "--map",
            "diameter_in=DIAMETER:ft",
        ],
    );
    assert!(
        out.contains("mapping of") && out.contains("not taken"),
        "{out}"
    );
    let f = rt.block_on(stored(reg.store.as_ref(), Layer::Pipes, "UGM-1"));
    assert_eq!(number(Layer::Pipes, &f, "diameter_in"), 144.0);
    let refused = common::run(&reg.url, &["import", "pipes", &gdb, "--preset", "lgim"]);
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("give the file only"));
}

/// A multipart body: the file and the text parts.
fn form(file: &str, parts: &[(&str, &str)]) -> (String, Vec<u8>) {
    const B: &str = "ms4-esri-boundary-41c9";
    let mut body = Vec::new();
    let path = fixture(file);
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    body.extend_from_slice(
        format!("--{B}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/zip\r\n\r\n").as_bytes(),
    );
    body.extend_from_slice(&std::fs::read(path).unwrap());
    body.extend_from_slice(b"\r\n");
    for (k, v) in parts {
        body.extend_from_slice(
            format!("--{B}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    body.extend_from_slice(format!("--{B}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={B}"), body)
}

async fn upload(reg: &Registry, path: &str, parts: &[(&str, &str)]) -> (u16, serde_json::Value) {
    use tower::ServiceExt;
    let analyst = token(&reg.url, "analyst", "analyst person", &[]);
    let snapshot = ms4::spatial::SnapshotHandle::load(reg.store.as_ref())
        .await
        .unwrap();
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    let state = ms4::http::AppState::new(reg.store.clone(), snapshot, profile);
    let (ct, body) = form("esri/lgim.gdb.zip", parts);
    let req = axum::http::Request::post(path)
        .header("authorization", format!("Bearer {analyst}"))
        .header("content-type", ct)
        .body(axum::body::Body::from(body))
        .unwrap();
    let res = ms4::http::app(state).oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread")]
async fn an_upload_takes_the_preset_and_answers_the_mapping() {
    let reg = registry("sqlite", MA_FT).await;
    let (st, body) = upload(&reg, "/api/import", &[("preset", "lgim")]).await;
    assert_eq!(st, 201, "{body}");
    assert_eq!(body["mapping"]["preset"], "lgim");
    assert_eq!(
        body["mapping"]["unknown_codes"].as_array().unwrap().len(),
        2
    );
    let layers: Vec<&str> = body["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["layer"].as_str().unwrap())
        .collect();
    assert_eq!(
        layers,
        [
            "catch_basins",
            "manholes",
            "outfalls",
            "pipes",
            "inspections"
        ]
    );
    assert_eq!(body["layers"][3]["source"], "lgim.gdb.zip");
    let gm = stored(reg.store.as_ref(), Layer::Pipes, "GM-1").await;
    assert_eq!(
        text(Layer::Pipes, &gm, "material").as_deref(),
        Some("Reinforced Concrete Pipe")
    );

    let (st, body) = upload(&reg, "/api/layers/pipes/import", &[("preset", "lgim")]).await;
    assert_eq!((st, body["field"].as_str()), (400, Some("layer")), "{body}");
    let (st, body) = upload(&reg, "/api/import", &[("preset", "arcfm")]).await;
    assert_eq!(
        (st, body["field"].as_str()),
        (400, Some("preset")),
        "{body}"
    );
    // A preset file is the command line's: an upload names a built-in preset only.
    let (st, body) = upload(&reg, "/api/import", &[("preset", "mine.toml")]).await;
    assert_eq!(
        (st, body["field"].as_str()),
        (400, Some("preset")),
        "{body}"
    );
}

#[tokio::test]
async fn related_inspection_rows_become_inspections_of_their_parent_and_orphans_are_named() {
    let (reg, out) = lgim(&[]).await;
    let r = &out.mapping.related[0];
    assert_eq!(
        (r.parent.as_str(), r.table.as_str(), r.key.as_str()),
        (
            "swDischargePoint",
            "swInspection",
            "FACILITYID = FACILITYID"
        )
    );
    assert_eq!((r.rows, r.joined, r.orphaned), (3, 2, 1));
    assert_eq!(r.orphan_keys, ["OF-9"]);
    assert_eq!(r.kinds["dry_weather_screening"], 2);
    assert!(r
        .used
        .contains(&"inspections.hours_since_rain <- HRSSINCERAIN".to_string()));
    let mut inspections = reg.store.features(Layer::Inspections).await.unwrap();
    inspections.sort_by_key(|f| text(Layer::Inspections, f, "inspected_on"));
    let l = Layer::Inspections;
    let got: Vec<_> = inspections
        .iter()
        .map(|f| {
            (
                text(l, f, "asset_id"),
                text(l, f, "kind"),
                text(l, f, "inspected_on"),
                text(l, f, "inspector"),
                text(l, f, "result"),
                number(l, f, "hours_since_rain"),
            )
        })
        .collect();
    let s = |v: &str| Some(v.to_string());
    assert_eq!(
        got,
        [
            (
                s("OF-1"),
                s("dry_weather_screening"),
                s("2024-06-01"),
                s("jsmith"),
                s("Good"),
                96.0
            ),
            (
                s("OF-1"),
                s("dry_weather_screening"),
                s("2024-07-01"),
                s("mlee"),
                s("Fair"),
                80.0
            ),
        ]
    );
    assert_eq!(inspections[0].extra["esri_class"], "swInspection");
    let report = out
        .layers
        .iter()
        .find(|r| r.layer == "inspections")
        .unwrap();
    assert_eq!((report.read, report.imported), (2, 2));
}

#[tokio::test]
async fn an_inspection_tables_attachments_become_its_photos_with_their_checksum() {
    let (reg, out) = lgim(&[]).await;
    assert_eq!(out.mapping.attachments[0].table, "swInspection__ATTACH");
    assert_eq!(out.mapping.attachments[0].rows, 3);
    let p = out.photos.as_ref().expect("photos stored");
    assert_eq!((p.added, p.already_stored, p.unmatched), (1, 0, 1));
    assert_eq!(p.not_images, ["OF-1_form.pdf (swInspection__ATTACH)"]);
    let first = reg
        .store
        .features(Layer::Inspections)
        .await
        .unwrap()
        .into_iter()
        .find(|f| {
            f.extra.get("GlobalID").and_then(|v| v.as_str())
                == Some("{6F1C2B3A-0D4E-4F50-8A61-7B8C9D0E1F20}")
        })
        .expect("the first screening keeps its GlobalID");
    let photos = reg.store.photos_of(&first.id).await.unwrap();
    let jpeg = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00,
        0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9,
    ];
    assert_eq!(photos.len(), 1);
    assert_eq!(photos[0].sha256, ms4::store::photos::sha256_hex(&jpeg));
    assert_eq!(photos[0].content_type, "image/jpeg");
    // Again: the same bytes are not stored twice.
    let again = run(reg.store.clone(), "lgim", "esri/lgim.gdb.zip", &[]).await;
    let p = again.photos.unwrap();
    assert_eq!((p.added, p.already_stored), (0, 1));
}

#[rstest]
#[case::sqlite("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn both_stores_take_the_same_geodatabase_alike(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, MA_FT).await;
    let out = run(reg.store.clone(), "lgim", "esri/lgim.gdb.zip", &[]).await;
    let counts: Vec<(String, u64)> = out
        .layers
        .iter()
        .map(|r| (r.layer.clone(), r.imported))
        .collect();
    // Nine of Cambridge's ten catch basins: D37CBN1731's install date is written
    // "11/26/74", a year in two digits that names no century, so it is rejected, named.
    let want = [
        ("catch_basins", 9),
        ("manholes", 2),
        ("outfalls", 1),
        ("pipes", 4),
        ("inspections", 2),
    ];
    assert_eq!(counts, want.map(|(l, n)| (l.to_string(), n)), "{kind}");
    let basins = out
        .layers
        .iter()
        .find(|r| r.layer == "catch_basins")
        .unwrap();
    assert!(
        basins
            .rejections
            .iter()
            .any(|r| r.id.as_deref() == Some("D37CBN1731")
                && r.reason.contains("\"11/26/74 0:00\" is not a date")
                && r.reason.contains("four digits")),
        "{kind}: {:?}",
        basins.rejections
    );
    for (l, n) in want {
        let layer: Layer = l.parse().unwrap();
        assert_eq!(reg.store.count(layer).await.unwrap(), n, "{kind} {l}");
    }
    assert_eq!(out.photos.unwrap().added, 1, "{kind}");
}

#[tokio::test]
async fn a_replace_replaces_the_assets_but_never_the_inspections_from_the_field() {
    let (reg, _) = lgim(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("cleanings.csv");
    std::fs::write(
        &csv,
        "asset_id,inspected_on,kind\nD32CBN0446,2024-05-05,catch_basin_cleaning\n",
    )
    .unwrap();
    ms4::import::import(
        reg.store.clone(),
        ms4::import::ImportOptions::new(Layer::Inspections, &csv),
    )
    .await
    .unwrap();
    assert_eq!(reg.store.count(Layer::Inspections).await.unwrap(), 3);
    let mut opts = EsriOptions::new(fixture("esri/lgim.gdb.zip"));
    opts.replace = true;
    let out = esri::import_esri(
        reg.store.clone(),
        Preset::built_in("lgim").unwrap(),
        opts,
        |_| {},
    )
    .await
    .unwrap();
    assert_eq!(reg.store.count(Layer::Inspections).await.unwrap(), 3);
    assert_eq!(reg.store.count(Layer::Pipes).await.unwrap(), 4);
    assert!(out.layers.iter().all(|r| r.deletes.is_empty()));
}

/// Not a test: `tests/fixtures/esri/build.sh` runs it to add the LGIM fixture's
/// relationship class (swDischargePoint -> swInspection, one to many, by FACILITYID) to
/// the geodatabase `MS4_ESRI_GDB` names, through GDAL's library, which writes what
/// `ogr2ogr` 3.6 does not copy.
#[test]
#[ignore = "builds a fixture: run by tests/fixtures/esri/build.sh"]
fn add_the_fixtures_relationship_class() {
    use std::ffi::{CStr, CString};
    let path = std::env::var("MS4_ESRI_GDB").expect("MS4_ESRI_GDB names the .gdb");
    let ds = gdal::Dataset::open_ex(
        &path,
        gdal::DatasetOptions {
            open_flags: gdal::GdalOpenFlags::GDAL_OF_VECTOR | gdal::GdalOpenFlags::GDAL_OF_UPDATE,
            ..Default::default()
        },
    )
    .expect("the geodatabase opens for update");
    let c = |s: &str| CString::new(s).unwrap();
    let (name, left, right, key) = (
        c("swDischargePoint_swInspection"),
        c("swDischargePoint"),
        c("swInspection"),
        c("FACILITYID"),
    );
    let keys = [key.as_ptr(), std::ptr::null()];
    let kind = c("features");
    // SAFETY: every string outlives the calls; the relationship is ours to destroy.
    unsafe {
        let rel = gdal_sys::GDALRelationshipCreate(
            name.as_ptr(),
            left.as_ptr(),
            right.as_ptr(),
            gdal_sys::GDALRelationshipCardinality::GRC_ONE_TO_MANY,
        );
        gdal_sys::GDALRelationshipSetLeftTableFields(rel, keys.as_ptr() as gdal_sys::CSLConstList);
        gdal_sys::GDALRelationshipSetRightTableFields(rel, keys.as_ptr() as gdal_sys::CSLConstList);
        gdal_sys::GDALRelationshipSetRelatedTableType(rel, kind.as_ptr());
        let mut why: *mut std::ffi::c_char = std::ptr::null_mut();
        let ok = gdal_sys::GDALDatasetAddRelationship(ds.c_dataset(), rel, &mut why);
        gdal_sys::GDALDestroyRelationship(rel);
        let why = if why.is_null() {
            String::new()
        } else {
            CStr::from_ptr(why).to_string_lossy().into_owned()
        };
        assert!(ok, "GDAL could not add the relationship class: {why}");
    }
}

/// The editor-tracking fields (who last edited each asset in ArcGIS, and when) travel
/// with each feature: named in the mapping report, kept on the stored row the import's
/// audit row points to (an insert's audit row is the row itself), so a later update's
/// audit row carries the old and the new editor beside who imported it.
#[tokio::test]
async fn editor_tracking_travels_with_each_feature_into_its_audit() {
    let (reg, out) = lgim(&[]).await;
    let tracking = out
        .mapping
        .classes
        .iter()
        .find(|c| c.class == "swInlet")
        .map(|c| c.editor_tracking.clone())
        .unwrap_or_default();
    assert!(
        tracking.iter().any(|f| f == "LASTEDITOR"),
        "named in the mapping report: {tracking:?}"
    );
    let audit = reg
        .store
        .audit(Some(Layer::CatchBasins), 1000)
        .await
        .unwrap();
    assert!(
        audit
            .iter()
            .any(|e| e.action == "insert" && e.feature_id.as_deref() == Some("D32CBN0446")),
        "the import's audit row of D32CBN0446"
    );
    let row = stored(reg.store.as_ref(), Layer::CatchBasins, "D32CBN0446").await;
    assert_eq!(row.extra["LASTEDITOR"], "GTS", "{:?}", row.extra);
    assert!(!row.extra["LASTEDITDA"].is_null(), "{:?}", row.extra);
}
