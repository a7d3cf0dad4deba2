//! Structures that are not catch basins, manholes or outfalls (headwalls, junction
//! boxes, ...) in their own `structures` layer, and SMPs with an inlet or outlet, as
//! network nodes: on both stores, from `tests/fixtures/networks/structures.*`.

use super::quality::{check, trace};
use super::*;

/// A registry holding the structures fixture, split over five layers by its `kind`.
fn load(kind: &str) -> (String, tempfile::TempDir) {
    let (url, dir) = new_registry(kind, "nws");
    let s = net("structures.structures.geojson");
    let out = run_ok(
        &url,
        &[
            "import",
            s.to_str().unwrap(),
            "--layer-by",
            "kind=structures:'structure';smps:'smp';outfalls:'outfall';catch_basins:'catch_basin'",
        ],
    );
    assert!(
        out.contains("structures"),
        "the report names the layer: {out}"
    );
    let p = net("structures.pipes.geojson");
    run_ok(&url, &["import", "pipes", p.to_str().unwrap()]);
    (url, dir)
}

fn sorted(v: &serde_json::Value) -> Vec<String> {
    let mut s: Vec<String> = v
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect();
    s.sort();
    s
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
fn pipes_ending_on_a_headwall_or_junction_box_are_not_dangling(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let (url, _dir) = load(kind);
    let r = check(&url);
    let s = &r["summary"];
    assert_eq!(s["structures"], 5, "{kind}: {s}");
    assert_eq!(s["dangling_ends"], 0, "{kind}: {}", r["dangling_ends"]);
    assert_eq!(s["junctions"], 0, "{kind}: {s}");
    assert_eq!(s["orphan_structures"], 0, "{kind}: {s}");
    assert_eq!(s["parts"], 1, "{kind}: {s}");
    assert_eq!(s["parts_without_outfall"], 0, "{kind}: {s}");
    // The layer is listed, kept with its type, and exported like the other layers.
    let list = run_ok(&url, &["list", "structures"]);
    assert!(
        list.contains("HW-1") && list.contains("JB-1"),
        "{kind}: {list}"
    );
    let f = _dir.path().join("structures.geojson");
    run_ok(&url, &["export", "structures", f.to_str().unwrap()]);
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    let mut types: Vec<(String, String)> = v["features"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = &f["properties"];
            (
                p["asset_id"].as_str().unwrap().to_string(),
                p["structure_type"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    types.sort();
    assert_eq!(
        types,
        [
            ("HW-1".to_string(), "Headwall".to_string()),
            ("JB-1".to_string(), "Junction Box".to_string())
        ],
        "{kind}"
    );
}

#[test]
fn without_the_structures_layer_the_headwall_end_dangles() {
    // The same pipes with only the catch basin, SMP and outfall: what the structures
    // layer changes is exactly the two ends on HW-1 and JB-1.
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
    let s = net("structures.structures.geojson");
    run_ok(
        &url,
        &[
            "import",
            s.to_str().unwrap(),
            "--layer-by",
            "kind=smps:'smp';outfalls:'outfall';catch_basins:'catch_basin'",
        ],
    );
    let p = net("structures.pipes.geojson");
    run_ok(&url, &["import", "pipes", p.to_str().unwrap()]);
    let r = check(&url);
    assert_eq!(r["summary"]["dangling_ends"], 1, "{}", r["summary"]);
    assert_eq!(
        r["dangling_ends"][0]["pipe"], "P-0",
        "{}",
        r["dangling_ends"]
    );
    assert_eq!(
        r["summary"]["junctions"], 1,
        "P-2 and P-3 meet at JB-1's place"
    );
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
fn a_trace_passes_through_an_smp_and_the_other_structures(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let (url, _dir) = load(kind);
    let down = trace(&url, "HW-1", "downstream");
    assert_eq!(down["outfalls"][0]["outfall"], "OF-1", "{kind}: {down}");
    assert_eq!(
        down["outfalls"][0]["path"],
        serde_json::json!(["HW-1", "P-0", "CB-1", "P-1", "SMP-1", "P-2", "JB-1", "P-3", "OF-1"]),
        "{kind}: {down}"
    );
    let up = trace(&url, "OF-1", "upstream");
    assert_eq!(
        sorted(&up["structures"]),
        ["CB-1", "HW-1", "JB-1", "OF-1", "SMP-1"],
        "{kind}: {up}"
    );
    // Starting at the SMP: its inlet side upstream, its outlet side downstream.
    let up = trace(&url, "SMP-1", "upstream");
    assert_eq!(sorted(&up["pipes"]), ["P-0", "P-1"], "{kind}: {up}");
    let down = trace(&url, "SMP-1", "downstream");
    assert_eq!(sorted(&down["pipes"]), ["P-2", "P-3"], "{kind}: {down}");
    // How P-1 and P-2 met the SMP: by id, at its inlet and its outlet.
    let r = check(&url);
    assert_eq!(r["summary"]["ends_by_id"], 3, "{kind}: {}", r["summary"]);
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn the_structures_layer_is_served_as_ogc_features(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let (url, _dir) = load(kind);
    let store = ms4::store::open(&url).await.unwrap();
    let v: serde_json::Value = App::public(&store)
        .await
        .get("/collections/structures/items")
        .send()
        .await
        .json();
    let mut ids: Vec<&str> = v["features"]
        .as_array()
        .unwrap_or_else(|| panic!("{kind}: {v}"))
        .iter()
        .map(|f| {
            f["id"]
                .as_str()
                .or(f["properties"]["asset_id"].as_str())
                .unwrap()
        })
        .collect();
    ids.sort();
    assert_eq!(ids, ["HW-1", "JB-1"], "{kind}: {v}");
}
