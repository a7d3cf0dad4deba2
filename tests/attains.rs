//! The national datasets through the command line: EPA ATTAINS records (real saved
//! answers, `tests/fixtures/attains/`) onto drawn receiving waters and TMDL areas, and a
//! WBD-shaped HUC-12 layer (`tests/fixtures/wbd/`) as the watersheds.

mod common;

use std::path::{Path, PathBuf};

use common::*;
use ms4::domain::{Feature, Layer, Value};
use rstest::rstest;
use serde_json::{json, Value as Json};

const SD: &str = "attains/SDDENR_GRAZING_IN_RIPARIAN_OR_SHORELINE_ZONES_N_Nassessments.json";
const AL: &str = "attains/AL03150201-0107-200assessmentUnits.json";
const ND: &str = "attains/R8-ND-2018-03_N_Nactions.json";
const DC: &str = "attains/020700100103_Nplans.json";

/// A line near North Castle, NY (lon/lat), `i` steps apart.
fn line(i: usize) -> Json {
    let x = -73.74 + 0.002 * i as f64;
    json!({"type": "LineString", "coordinates": [[x, 41.12], [x, 41.125]]})
}

/// The town's drawn waters (this test's own, no real geometry): each carries the
/// assessment unit id in `au_id`; one is the town's `PINE-CREEK`, whose own id is not
/// the unit's; one has a town name and an old `listed_303d`.
fn waters_file(dir: &Path) -> PathBuf {
    let w = |i: usize, id: &str, au: &str, props: Json| {
        let mut p = json!({"water_id": id, "au_id": au});
        p.as_object_mut()
            .unwrap()
            .extend(props.as_object().unwrap().clone());
        json!({"type": "Feature", "properties": p, "geometry": line(i)})
    };
    let fc = json!({"type": "FeatureCollection", "features": [
        w(0, "SD-GR-R-GRAND_S_FORK_02", "SD-GR-R-GRAND_S_FORK_02", json!({})),
        w(1, "SD-BS-R-BIG_SIOUX_15", "SD-BS-R-BIG_SIOUX_15",
          json!({"name": "Big Sioux (the town's name)", "listed_303d": true})),
        w(2, "SD-VM-R-VERMILLION_03", "SD-VM-R-VERMILLION_03", json!({})),
        w(3, "PINE-CREEK", "AL03150201-0107-200", json!({})),
        w(4, "DC-BK", "DC_21_DCTBK01R_00", json!({})),
    ]});
    let p = dir.join("waters.geojson");
    std::fs::write(&p, fc.to_string()).unwrap();
    p
}

/// The town's drawn TMDL area for ATTAINS action 64089 (a box, this test's own).
fn tmdl_file(dir: &Path) -> PathBuf {
    let fc = json!({"type": "FeatureCollection", "features": [{
        "type": "Feature",
        "properties": {"tmdl_id": "64089", "pollutant": "to be read"},
        "geometry": {"type": "Polygon", "coordinates": [[[-73.75, 41.11], [-73.72, 41.11],
            [-73.72, 41.13], [-73.75, 41.13], [-73.75, 41.11]]]}
    }]});
    let p = dir.join("tmdl.geojson");
    std::fs::write(&p, fc.to_string()).unwrap();
    p
}

/// A registry of `kind` with the drawn waters and TMDL area.
async fn town(kind: &str) -> Registry {
    let reg = registry(kind, 2260).await;
    let dir = reg.dir.path().to_path_buf();
    run_ok(
        &reg.url,
        &[
            "import",
            "receiving_waters",
            waters_file(&dir).to_str().unwrap(),
        ],
    );
    run_ok(
        &reg.url,
        &["import", "tmdl_areas", tmdl_file(&dir).to_str().unwrap()],
    );
    reg
}

fn fx(rel: &str) -> String {
    fixture(rel).to_str().unwrap().to_string()
}

/// Runs `ms4 import-attains ... --format json` and parses the report.
fn attains(url: &str, files: &[String], extra: &[&str]) -> Json {
    let mut args: Vec<&str> = vec!["import-attains"];
    args.extend(files.iter().map(String::as_str));
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--format", "json"]);
    serde_json::from_str(&run_ok(url, &args)).unwrap()
}

async fn feature(reg: &Registry, layer: Layer, id: &str) -> Feature {
    reg.store
        .features(layer)
        .await
        .unwrap()
        .into_iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("{layer} has no {id}"))
}

fn notes_about(report: &Json, key: &str, id: &str) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["id"].as_str().is_some_and(|i| i.starts_with(id)))
        .map(|n| n["reason"].as_str().unwrap().to_string())
        .collect()
}

fn layer_outcome<'a>(report: &'a Json, layer: &str) -> &'a Json {
    report["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["layer"] == layer)
        .unwrap()
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn attains_records_set_the_drawn_waters_and_tmdl_areas_and_a_second_run_changes_nothing(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = town(kind).await;
    let files = vec![fx(SD), fx(AL), fx(ND), fx(DC)];

    // A dry run without --join: Pine Creek's unit matches no water id; nothing written.
    let dry = attains(&reg.url, &files, &["--dry-run"]);
    assert_eq!(dry["dry_run"], true);
    assert!(
        !notes_about(&dry, "unmatched", "AL03150201-0107-200").is_empty(),
        "{dry:#}"
    );
    let sioux = feature(&reg, Layer::ReceivingWaters, "SD-BS-R-BIG_SIOUX_15").await;
    assert_eq!(
        sioux.get(Layer::ReceivingWaters, "listed_303d"),
        &Value::Bool(true)
    );
    assert_eq!(reg.store.count(Layer::Impairments).await.unwrap(), 0);

    let args = ["--join", "au_id", "--permit", "DC0000221"];
    let report = attains(&reg.url, &files, &args);
    assert_eq!(report["records"]["assessments"], 4, "{report:#}");
    assert_eq!(report["records"]["assessment_units"], 1);

    // Category 5 is listed, 4A is not (the town's old "true" is replaced).
    let grand = feature(&reg, Layer::ReceivingWaters, "SD-GR-R-GRAND_S_FORK_02").await;
    assert_eq!(
        grand.get(Layer::ReceivingWaters, "listed_303d"),
        &Value::Bool(true)
    );
    assert_eq!(grand.extra["ir_category"], "5");
    assert_eq!(grand.extra["cycle"], 2020);
    let sioux = feature(&reg, Layer::ReceivingWaters, "SD-BS-R-BIG_SIOUX_15").await;
    assert_eq!(
        sioux.get(Layer::ReceivingWaters, "listed_303d"),
        &Value::Bool(false)
    );
    assert_eq!(
        sioux.get(Layer::ReceivingWaters, "name"),
        &Value::Text("Big Sioux (the town's name)".into()),
        "a town's name is kept"
    );
    // The assessment unit record: its name fills an empty one; type and class kept.
    let pine = feature(&reg, Layer::ReceivingWaters, "PINE-CREEK").await;
    assert_eq!(
        pine.get(Layer::ReceivingWaters, "name"),
        &Value::Text("Pine Creek".into())
    );
    assert_eq!(pine.extra["classification"], "F&W");
    assert_eq!(pine.extra["water_type"], "STREAM");
    assert_eq!(pine.extra["assessment_unit_id"], "AL03150201-0107-200");
    assert!(pine.geom.is_some(), "the drawn line stays");

    // Impairments: the listed units' causes not linked to an action.
    let imp = reg.store.features(Layer::Impairments).await.unwrap();
    let mut ids: Vec<&str> = imp.iter().map(|f| f.id.as_str()).collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "SD-GR-R-GRAND_S_FORK_02:ESCHERICHIA COLI (E. COLI):2020",
            "SD-GR-R-GRAND_S_FORK_02:SALINITY:2020",
            "SD-GR-R-GRAND_S_FORK_02:TOTAL SUSPENDED SOLIDS (TSS):2020",
            "SD-VM-R-VERMILLION_03:ESCHERICHIA COLI (E. COLI):2020",
        ]
    );
    let tss = imp
        .iter()
        .find(|f| f.id.contains("GRAND_S_FORK_02:TOTAL"))
        .unwrap();
    assert_eq!(
        tss.get(Layer::Impairments, "sources"),
        &Value::Text("CROP PRODUCTION (CROP LAND OR DRY LAND); GRAZING IN RIPARIAN OR SHORELINE ZONES; NATURAL SOURCES".into())
    );
    assert_eq!(tss.get(Layer::Impairments, "cycle"), &Value::Int(2020));
    let set_aside = notes_about(&report, "review", "SD-VM-R-VERMILLION_03: TOTAL");
    assert!(set_aside[0].contains("39404"), "{set_aside:?}");
    // A 4A unit no water carries: unmatched, and no impairment made of it.
    assert!(!notes_about(&report, "unmatched", "SD-NI-R-KEYA_PAHA_01").is_empty());

    // The TMDL: pollutant, date, waters, and the MS4's allocation.
    let t = feature(&reg, Layer::TmdlAreas, "64089").await;
    assert_eq!(
        t.get(Layer::TmdlAreas, "pollutant"),
        &Value::Text("ESCHERICHIA COLI (E. COLI)".into())
    );
    assert_eq!(
        t.get(Layer::TmdlAreas, "approved_on").to_string(),
        "2014-12-31"
    );
    assert_eq!(
        t.get(Layer::TmdlAreas, "waters"),
        &Value::Text("DC-BK, DCTBK01R_00".into())
    );
    assert_eq!(
        t.get(Layer::TmdlAreas, "stormwater_source"),
        &Value::Bool(true)
    );
    let wla = t.extra["ms4_wasteload_allocation"].as_str().unwrap();
    assert!(
        wla.contains("70400000000") && wla.contains("MPN/100ML") && wla.contains("DC0000221"),
        "{wla}"
    );
    let nd = notes_about(&report, "unmatched", "R8-ND-2018-03");
    assert!(nd[0].contains("no geometry"), "{nd:?}");
    assert_eq!(reg.store.count(Layer::TmdlAreas).await.unwrap(), 1);

    // Audited: the 303(d) flag's change, before and after.
    let audit = reg
        .store
        .audit(Some(Layer::ReceivingWaters), 100)
        .await
        .unwrap();
    let e = audit
        .iter()
        .find(|e| e.action == "update" && e.feature_id.as_deref() == Some("SD-BS-R-BIG_SIOUX_15"))
        .expect("an update entry");
    assert_eq!(
        e.before.as_ref().unwrap()["properties"]["listed_303d"],
        true
    );
    assert_eq!(
        e.after.as_ref().unwrap()["properties"]["listed_303d"],
        false
    );

    // Again: nothing changes.
    let again = attains(&reg.url, &files, &args);
    for layer in ["receiving_waters", "impairments", "tmdl_areas"] {
        let o = layer_outcome(&again, layer);
        assert_eq!(o["changed"], 0, "{layer}: {o}");
        assert_eq!(o["new"], 0, "{layer}: {o}");
        if let Some(w) = o.get("written").filter(|w| !w.is_null()) {
            assert_eq!(
                (w["inserted"].clone(), w["updated"].clone()),
                (json!(0), json!(0)),
                "{layer}: {o}"
            );
        }
    }
}

/// The IR category words: only category 5 and its variants list a water; a category
/// not read leaves the flag as it was, for review, and makes no impairment.
#[rstest]
#[case("5", Some(true), 3)]
#[case("5A", Some(true), 3)]
#[case("5R", Some(true), 3)]
#[case("4A", Some(false), 0)]
#[case("4C", Some(false), 0)]
#[case("4", None, 0)]
#[case("", None, 0)]
#[tokio::test]
async fn an_ir_category_lists_a_water_only_when_it_is_category_five(
    #[case] category: &str,
    #[case] listed: Option<bool>,
    #[case] impairments: u64,
) {
    let reg = town("sqlite").await;
    let mut sd: Json =
        serde_json::from_str(&std::fs::read_to_string(fixture(SD)).unwrap()).unwrap();
    for a in sd["items"][0]["assessments"].as_array_mut().unwrap() {
        if a["assessmentUnitIdentifier"] == "SD-GR-R-GRAND_S_FORK_02" {
            a["epaIRCategory"] = json!(category);
        }
    }
    let path = reg.dir.path().join("assessments.json");
    std::fs::write(&path, sd.to_string()).unwrap();
    let report = attains(&reg.url, &[path.to_str().unwrap().to_string()], &[]);
    let grand = feature(&reg, Layer::ReceivingWaters, "SD-GR-R-GRAND_S_FORK_02").await;
    assert_eq!(
        grand.get(Layer::ReceivingWaters, "listed_303d").as_bool(),
        listed
    );
    let of_grand = reg
        .store
        .features(Layer::Impairments)
        .await
        .unwrap()
        .into_iter()
        .filter(|f| f.id.starts_with("SD-GR-R-GRAND_S_FORK_02:"))
        .count() as u64;
    assert_eq!(of_grand, impairments);
    let review = notes_about(&report, "review", "SD-GR-R-GRAND_S_FORK_02");
    assert_eq!(listed.is_none(), !review.is_empty(), "{review:?}");
}

#[test]
fn a_summary_is_refused_naming_the_file() {
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
    let out = run(
        &url,
        &["import-attains", &fx("attains/020700100204huc12.json")],
    );
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("020700100204huc12.json") && e.contains("summary"),
        "{e}"
    );
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn wbd_units_become_watersheds_draining_along_tohuc(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2260).await;
    let file = fx("wbd/wbd_hu12_example.geojson");
    let wbd = |extra: &[&str]| -> Json {
        let mut args = vec!["import-wbd", file.as_str(), "--format", "json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&run_ok(&reg.url, &args)).unwrap()
    };

    let dry = wbd(&["--dry-run"]);
    assert_eq!(dry["import"]["imported"], 4, "{dry:#}");
    assert_eq!(reg.store.count(Layer::Watersheds).await.unwrap(), 0);

    let report = wbd(&[]);
    assert_eq!(report["import"]["written"]["inserted"], 4, "{report:#}");
    let sheds = reg.store.features(Layer::Watersheds).await.unwrap();
    let drains: Vec<(&str, String)> = sheds
        .iter()
        .map(|f| {
            (
                f.id.as_str(),
                f.get(Layer::Watersheds, "drains_to").to_string(),
            )
        })
        .collect();
    assert_eq!(
        drains,
        [
            ("990101010101", "990101010102".to_string()),
            ("990101010102", "990101010103".to_string()),
            ("990101010201", "OCEAN".to_string()),
            ("990101010202", "CLOSED BASIN".to_string()),
        ]
    );
    assert_eq!(
        sheds[0].get(Layer::Watersheds, "name"),
        &Value::Text("Upper Example Brook".into())
    );
    assert_eq!(sheds[3].extra["HUTYPE"], "C", "other WBD fields are kept");
    // A unit downstream that is not loaded: kept, and reported.
    let missing = notes_about(&report, "drains_to", "990101010102");
    assert!(missing[0].contains("990101010103"), "{missing:?}");
    assert_eq!(report["drains_to"].as_array().unwrap().len(), 1);
    let ends: Vec<&str> = report["terminal"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["id"].as_str().unwrap())
        .collect();
    assert_eq!(ends, ["990101010201", "990101010202"]);

    let again = wbd(&[]);
    let w = &again["import"]["written"];
    assert_eq!(
        (w["inserted"].clone(), w["updated"].clone()),
        (json!(0), json!(0)),
        "{again:#}"
    );
    assert_eq!(w["unchanged"], 4);
}

/// A listed unit no drawn water carries is reported with its causes; no row is written
/// for it (nor for anything else: nothing matched).
#[tokio::test]
async fn a_listed_unit_no_water_carries_is_reported_and_writes_nothing() {
    let reg = registry("sqlite", 2260).await;
    let report = attains(&reg.url, &[fx(SD)], &[]);
    let grand = notes_about(&report, "unmatched", "SD-GR-R-GRAND_S_FORK_02");
    assert!(
        grand[0].contains("303(d)-listed") && grand[0].contains("SALINITY"),
        "{grand:?}"
    );
    assert_eq!(report["unmatched"].as_array().unwrap().len(), 4);
    assert_eq!(reg.store.count(Layer::Impairments).await.unwrap(), 0);
    assert_eq!(reg.store.count(Layer::ReceivingWaters).await.unwrap(), 0);
}

/// WBD releases before 2014 name the fields `HUC_12`, `HU_12_NAME` and `HU_12_DS`.
#[tokio::test]
async fn wbd_fields_of_the_older_releases_are_read_too() {
    let reg = registry("sqlite", 2260).await;
    let text = std::fs::read_to_string(fixture("wbd/wbd_hu12_example.geojson"))
        .unwrap()
        .replace("\"HUC12\"", "\"HUC_12\"")
        .replace("\"NAME\"", "\"HU_12_NAME\"")
        .replace("\"TOHUC\"", "\"HU_12_DS\"");
    let path = reg.dir.path().join("old_wbd.geojson");
    std::fs::write(&path, text).unwrap();
    let report: Json = serde_json::from_str(&run_ok(
        &reg.url,
        &["import-wbd", path.to_str().unwrap(), "--format", "json"],
    ))
    .unwrap();
    assert_eq!(report["import"]["written"]["inserted"], 4, "{report:#}");
    let shed = feature(&reg, Layer::Watersheds, "990101010201").await;
    assert_eq!(
        shed.get(Layer::Watersheds, "drains_to"),
        &Value::Text("OCEAN".into())
    );
    assert_eq!(
        shed.get(Layer::Watersheds, "name"),
        &Value::Text("Example Harbor Frontal".into())
    );
}

/// `--tmdl-join` matches a TMDL area by another field, a number as well as text.
#[tokio::test]
async fn a_tmdl_area_is_found_by_the_field_tmdl_join_names() {
    let reg = registry("sqlite", 2260).await;
    let fc = json!({"type": "FeatureCollection", "features": [{
        "type": "Feature",
        "properties": {"tmdl_id": "T-BK", "pollutant": "to be read", "attains_id": 64089},
        "geometry": {"type": "Polygon", "coordinates": [[[-73.75, 41.11], [-73.72, 41.11],
            [-73.72, 41.13], [-73.75, 41.13], [-73.75, 41.11]]]}
    }]});
    let path = reg.dir.path().join("tmdl.geojson");
    std::fs::write(&path, fc.to_string()).unwrap();
    run_ok(&reg.url, &["import", "tmdl_areas", path.to_str().unwrap()]);
    let report = attains(&reg.url, &[fx(DC)], &["--tmdl-join", "attains_id"]);
    assert!(
        notes_about(&report, "unmatched", "64089").is_empty(),
        "{report:#}"
    );
    let t = feature(&reg, Layer::TmdlAreas, "T-BK").await;
    assert_eq!(t.extra["attains_action_id"], "64089");
    assert_eq!(
        t.get(Layer::TmdlAreas, "waters"),
        &Value::Text("DCTBK01R_00, DC_21_DCTBK01R_00".into()),
        "units no water carries are named by their own ids"
    );
    // No --permit: the MS4's share is not read, and stormwater is not presumed a source.
    assert!(t.get(Layer::TmdlAreas, "stormwater_source").is_null());
    assert!(t.extra.get("ms4_wasteload_allocation").is_none());
}
