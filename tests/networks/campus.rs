//! The optional check on a real campus network (University of Kentucky, Lexington KY).
//! Its licence (GPL-3.0) keeps it out of this repository: the test reads it from the
//! folder `MS4_SHARED_DATA` names (the one holding `uky_campus_lexington_ky/`), and says
//! it is skipping when that is not set.

use super::quality::check;
use super::*;

#[test]
fn the_campus_network_has_its_known_counts() {
    let Some(root) = std::env::var_os("MS4_SHARED_DATA") else {
        eprintln!("SKIPPING the campus network check: MS4_SHARED_DATA is not set");
        return;
    };
    let d = std::path::Path::new(&root).join("uky_campus_lexington_ky");
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("r.gpkg").display());
    // Kentucky Single Zone, US feet.
    run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:3089",
        ],
    );
    let by = "StructureType=catch_basin:'Catchbasin','Inlet','Manhole-CB';\
              manhole:'Manhole','Junction Box','Cleanout','Headwall','Outlet','Water Quality BMP',\
              'Underground Detention','Cave','TBD';outfalls:'Outfall'";
    let s = d.join("STM_Structure_pt.geojson");
    let out = run_ok(
        &url,
        &[
            "import",
            s.to_str().unwrap(),
            "--layer-by",
            by,
            "--id",
            "OBJECTID",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["source_features"], 3189);
    assert_eq!(j["not_taken"], 2, "two structures have no StructureType");
    assert_eq!(j["layers"][2]["imported"], 5, "five outfalls");
    let p = d.join("STM_Line_ln.geojson");
    let first = run_ok(
        &url,
        &[
            "import",
            "pipes",
            p.to_str().unwrap(),
            "--id",
            "OBJECTID",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(j["read"], 5192);
    // Re-importing the unchanged file changes nothing (it used to update 633 pipes).
    let again = run_ok(
        &url,
        &[
            "import",
            "pipes",
            p.to_str().unwrap(),
            "--id",
            "OBJECTID",
            "--format",
            "json",
        ],
    );
    let j: serde_json::Value = serde_json::from_str(&again).unwrap();
    assert_eq!(j["written"]["updated"], 0, "{}", j["written"]);
    let r = check(&url);
    let s = &r["summary"];
    assert_eq!(s["bidirectional_pipes"], 13, "{s}");
    // Measured with these layers and the 1 ft profile tolerance.
    assert_eq!(s["t_junctions"], 251, "{s}");
    let listed: usize = r["cycles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["pipes"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        s["pipes_in_cycles"].as_u64(),
        Some(listed as u64),
        "every counted cycle pipe is listed"
    );
}
