//! A pipe's drawn direction in the tiles is the network's: its `from_id` / `to_id` when
//! they name a structure (whatever its inverts say), else its inverts, else the order it
//! was digitised in.

use super::*;

const X0: f64 = 670_000.0;
const Y0: f64 = 870_000.0;

/// Whether the tile's line for `id` runs from `up` towards `down` (Web Mercator), read by
/// GDAL from the tile holding the pipe's middle.
async fn runs_downstream(c: &App, base: &str, id: &str, up: (f64, f64), down: (f64, f64)) -> bool {
    let z = 17;
    let mid = ((up.0 + down.0) / 2.0, (up.1 + down.1) / 2.0);
    let (x, y) = tile_of(mid.0, mid.1, z);
    let (s, _, tile) = get_tile(c, &format!("{base}/tiles/pipes/{z}/{x}/{y}.mvt")).await;
    assert_eq!(s, 200);
    let feats = decode(&tile, z, x, y, "pipes");
    let f = feats
        .iter()
        .find(|f| f["properties"]["id"] == id)
        .unwrap_or_else(|| panic!("pipe {id} is in tile {z}/{x}/{y}: {feats:?}"));
    assert_eq!(f["geometry"]["type"], "LineString", "{f}");
    let line = f["geometry"]["coordinates"].as_array().unwrap();
    let pt = |v: &serde_json::Value| (v[0].as_f64().unwrap(), v[1].as_f64().unwrap());
    let (a, b) = (pt(&line[0]), pt(line.last().unwrap()));
    // Along the flow: the drawn line's direction against the upstream-to-downstream one.
    let dot = (b.0 - a.0) * (down.0 - up.0) + (b.1 - a.1) * (down.1 - up.1);
    assert!(
        dot.abs() > 1.0,
        "pipe {id} is drawn across its flow: {line:?}"
    );
    dot > 0.0
}

#[tokio::test]
async fn pipes_are_drawn_the_way_the_network_reads_their_flow() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("flow.gpkg").display());
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
    let at = |dx: f64| (X0 + dx, Y0);
    let mh = |id: &str, dx: f64| {
        let (x, y) = at(dx);
        feature(&format!(r#""asset_id":"{id}""#), &point(x, y))
    };
    let pipe =
        |props: &str, from_dx: f64, to_dx: f64| feature(props, &line(&[at(from_dx), at(to_dx)]));
    let files: Vec<(&str, String)> = vec![
        ("manholes", fc(&[mh("A", 0.0), mh("B", 200.0)])),
        (
            "structures",
            fc(&[feature(
                r#""asset_id":"H-1","structure_type":"headwall""#,
                &point(X0 + 600.0, Y0),
            )]),
        ),
        (
            "pipes",
            fc(&[
                // Recorded from A to B, digitised from B to A, inverts rising from A to B:
                // the ids decide, so A to B.
                pipe(
                    r#""asset_id":"P-IDS","from_id":"A","to_id":"B","from_invert":90,"to_invert":100"#,
                    200.0,
                    0.0,
                ),
                // No ids, far from every structure, inverts rising along the digitised
                // order: the inverts turn it round.
                pipe(
                    r#""asset_id":"P-INV","from_invert":90,"to_invert":100"#,
                    1000.0,
                    1200.0,
                ),
                // No ids, no inverts: as digitised.
                pipe(r#""asset_id":"P-DIG""#, 1600.0, 1800.0),
                // Naming a headwall of the structures layer as its upstream end, digitised
                // towards it, inverts saying the other way: the id decides.
                pipe(
                    r#""asset_id":"P-HW","from_id":"H-1","from_invert":100,"to_invert":90"#,
                    400.0,
                    600.0,
                ),
            ]),
        ),
    ];
    for (layer, text) in files {
        let path = dir.path().join(format!("{layer}.geojson"));
        std::fs::write(&path, text).unwrap();
        let json = run_ok(
            &url,
            &["import", layer, path.to_str().unwrap(), "--format", "json"],
        );
        let r: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(r["rejected"], 0, "{layer}: {json}");
    }
    // The network reads them so (its check lists the pipe its inverts turned).
    let check: serde_json::Value =
        serde_json::from_str(&run_ok(&url, &["network-check", "--format", "json"])).unwrap();
    let reversed = check["reversed_pipes"].to_string();
    assert!(reversed.contains("P-INV"), "{check}");

    let store = ms4::store::open(&url).await.unwrap();
    let app = App::public(&store).await;
    let base = &app.base;
    let c = app.clone();
    // Each pipe's upstream and downstream ends in Web Mercator, from the registry.
    let mut ends = std::collections::HashMap::new();
    for p in items(&c, base, "pipes").await {
        let g = &p["geometry"];
        // A line, or a multi-line of one part (as a GeoPackage may store it).
        let coords = match g["type"].as_str() {
            Some("MultiLineString") => &g["coordinates"][0],
            _ => &g["coordinates"],
        };
        let xy = |i: usize| {
            let v = &coords[i];
            merc(v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
        };
        ends.insert(id_of(&p, "asset_id").to_string(), (xy(0), xy(1)));
    }
    let digitised = |id: &str| ends[id];
    let against = |id: &str| (ends[id].1, ends[id].0);
    for (id, (up, down)) in [
        ("P-IDS", against("P-IDS")),
        ("P-INV", against("P-INV")),
        ("P-DIG", digitised("P-DIG")),
        ("P-HW", against("P-HW")),
    ] {
        assert!(
            runs_downstream(&c, base, id, up, down).await,
            "pipe {id} is drawn against the network's flow"
        );
    }
}
