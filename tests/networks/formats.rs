//! `network-check`, `trace` and `list` honour every format they offer, and the
//! network verbs' mistakes are answered with the way out.

use super::quality::load_case;
use super::*;

#[test]
fn network_check_prints_a_table_csv_and_geojson_features() {
    let (url, _dir) = load_case("sqlite", "tjunction");
    let table = run_ok(&url, &["network-check"]);
    assert!(table.starts_with("count"), "a table, not JSON: {table}");
    assert!(
        table
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["t", "junctions", "1"]),
        "{table}"
    );
    assert!(
        table.contains("t_junction") && table.contains("L-1"),
        "{table}"
    );

    let csv = run_ok(&url, &["network-check", "--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("finding,id,detail,x,y"));
    let tee = lines
        .find(|l| l.starts_with("t_junction,"))
        .expect("a T-junction row");
    let cells: Vec<&str> = tee.split(',').collect();
    assert_eq!(cells[1], "L-1");
    assert!(
        (cells[3].parse::<f64>().unwrap() - 660100.0).abs() < 1e-6,
        "{tee}"
    );

    let gj: serde_json::Value =
        serde_json::from_str(&run_ok(&url, &["network-check", "--format", "geojson"])).unwrap();
    assert_eq!(gj["type"], "FeatureCollection");
    let f = gj["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["properties"]["finding"] == "t_junction")
        .expect("the T-junction as a feature");
    assert_eq!(f["geometry"]["type"], "Point");
    let lon = f["geometry"]["coordinates"][0].as_f64().unwrap();
    let lat = f["geometry"]["coordinates"][1].as_f64().unwrap();
    assert!(
        (-74.5..-73.0).contains(&lon) && (40.5..42.0).contains(&lat),
        "WGS 84: {lon} {lat}"
    );

    let (url, _dir) = load_case("sqlite", "cycles");
    let gj: serde_json::Value =
        serde_json::from_str(&run_ok(&url, &["network-check", "--format", "geojson"])).unwrap();
    let cycles: Vec<&serde_json::Value> = gj["features"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["properties"]["finding"] == "cycle")
        .collect();
    assert_eq!(cycles.len(), 2);
    assert!(cycles
        .iter()
        .all(|c| c["geometry"]["type"] == "MultiLineString"));
}

#[test]
fn trace_prints_csv_rows_and_geojson_paths() {
    let (url, _dir) = load_case("sqlite", "tjunction");
    let csv = run_ok(&url, &["trace", "CB-L", "--downstream", "--format", "csv"]);
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("role,id,receiving_water,path"));
    let rows: Vec<&str> = lines.collect();
    assert!(rows.contains(&"structure,CB-L,,"), "{csv}");
    assert!(
        rows.iter()
            .any(|r| r.starts_with("outfall,OF-A,") && r.ends_with("CB-L L-1 T-1 OF-A")),
        "{csv}"
    );
    assert!(rows.contains(&"pipe,T-1,,"), "{csv}");

    let gj: serde_json::Value = serde_json::from_str(&run_ok(
        &url,
        &["trace", "CB-L", "--downstream", "--format", "geojson"],
    ))
    .unwrap();
    let feats = gj["features"].as_array().unwrap();
    let path = feats
        .iter()
        .find(|f| f["properties"]["role"] == "path")
        .expect("the path as a feature");
    assert_eq!(path["geometry"]["type"], "MultiLineString");
    assert_eq!(
        path["geometry"]["coordinates"].as_array().unwrap().len(),
        2,
        "L-1 and T-1"
    );
    assert_eq!(
        feats
            .iter()
            .filter(|f| f["properties"]["role"] == "pipe")
            .count(),
        2
    );

    let table = run_ok(&url, &["trace", "CB-L", "--downstream"]);
    assert!(
        table.contains("outfall") && table.contains("CB-L → L-1 → T-1 → OF-A"),
        "{table}"
    );
}

#[test]
fn network_verbs_say_what_to_give() {
    let (url, _dir) = load_case("sqlite", "tjunction");
    let out = run(&url, &["trace", "CB-L"]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("--upstream") && e.contains("--downstream"),
        "{e}"
    );

    let out = run(&url, &["watershed-facilities"]);
    assert!(!out.status.success());
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("watershed's id") && e.contains("--polygon") && !e.contains("--watershed-id"),
        "{e}"
    );

    let out = run(
        &url,
        &["watershed-facilities", "--polygon", "no-such-file.geojson"],
    );
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(
        e.contains("no such file") && e.contains("GeoJSON itself"),
        "{e}"
    );

    // --polygon takes inline GeoJSON: a square about the catch basin (from `ms4 list`).
    let gj: serde_json::Value = serde_json::from_str(&run_ok(
        &url,
        &["list", "catch_basins", "--format", "geojson"],
    ))
    .unwrap();
    let c = &gj["features"][0]["geometry"]["coordinates"];
    let (x, y) = (c[0].as_f64().unwrap(), c[1].as_f64().unwrap());
    let d = 0.0001;
    let poly = format!(
        r#"{{"type":"Polygon","coordinates":[[[{},{}],[{},{}],[{},{}],[{},{}],[{},{}]]]}}"#,
        x - d,
        y - d,
        x + d,
        y - d,
        x + d,
        y + d,
        x - d,
        y + d,
        x - d,
        y - d
    );
    let out = run_ok(
        &url,
        &[
            "watershed-facilities",
            "--polygon",
            &poly,
            "--format",
            "csv",
        ],
    );
    let ids: Vec<&str> = out
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(ids, ["CB-L"], "{out}");
}

#[test]
fn list_gives_a_layers_ids_in_every_format() {
    let (url, _dir) = load_case("sqlite", "cycles");
    let table = run_ok(&url, &["list", "manholes"]);
    assert!(table.starts_with("asset_id"), "{table}");
    for id in ["MH-1", "MH-2", "MH-3", "MH-4", "MH-5"] {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(id)),
            "{id}: {table}"
        );
    }
    assert!(table.ends_with("5 manholes\n"), "{table}");
    let csv = run_ok(&url, &["list", "outfalls", "--format", "csv"]);
    assert_eq!(csv, "asset_id,status\nOF-1,\n");
    let j: serde_json::Value =
        serde_json::from_str(&run_ok(&url, &["list", "pipes", "--format", "json"])).unwrap();
    assert_eq!(j.as_array().unwrap().len(), 9);
}
