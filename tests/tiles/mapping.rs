//! The mapping phase's answers in the tiles: the monitoring locations with the priority
//! and reasons `/api/monitoring-locations` computes, their sewersheds as `/api/sewersheds`
//! builds them, and both derived again when a write makes a new generation.

use super::*;

/// The monitoring locations' layer of the z16 tile holding (`mx`, `my`).
async fn locations_at(c: &App, base: &str, mx: f64, my: f64) -> Vec<serde_json::Value> {
    let z = 16;
    let (x, y) = tile_of(mx, my, z);
    let url = format!("{base}/tiles/monitoring_locations/{z}/{x}/{y}.mvt");
    let (s, _, bytes) = get_tile(c, &url).await;
    assert_eq!(s, 200);
    decode(&bytes, z, x, y, "monitoring_locations")
}

/// The criteria of a location's reasons, as the tiles give their short form.
fn criteria(loc: &serde_json::Value) -> String {
    loc["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["criterion"].as_str().unwrap())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The mapping layers' minimum zooms, from their own TileJSONs, once the registry's
/// (`tj`) is seen to leave them out: each has its own tiles, derived after a write
/// without holding the registry's tile back.
async fn own_tiles_minzooms(
    c: &App,
    base: &str,
    tj: &serde_json::Value,
) -> std::collections::HashMap<&'static str, u64> {
    let names = ["monitoring_locations", "sewersheds"];
    for l in tj["vector_layers"].as_array().unwrap() {
        assert!(!names.contains(&l["id"].as_str().unwrap()), "{l}");
    }
    let mut out = std::collections::HashMap::new();
    for name in names {
        let own = get_json(c, &format!("{base}/tiles/{name}.json")).await;
        let l = own["vector_layers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["id"] == name)
            .unwrap_or_else(|| panic!("{name} in its TileJSON"));
        out.insert(name, l["minzoom"].as_u64().unwrap());
    }
    out
}

#[tokio::test]
async fn monitoring_locations_and_sewersheds_are_in_the_tiles_with_their_computed_priority() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let inspector = token(&reg.url, "inspector", "Ann Field", &[]);
    let app = App::public(&reg.store).await;
    let c = app.clone();
    let base = &app.base;
    let tj = get_json(&c, &format!("{base}/tiles.json")).await;
    let minzoom = own_tiles_minzooms(&c, base, &tj).await;
    let minzoom = |id: &str| minzoom[id];
    assert_eq!(minzoom("monitoring_locations"), 12);
    assert_eq!(minzoom("sewersheds"), 13);

    // Every location the answer gives is in the tile holding its point, with the answer's
    // priority, kind and criteria, at the point the answer's GeoJSON gives it.
    let answer = get_json(&c, &format!("{base}/api/monitoring-locations")).await;
    let fc = get_json(&c, &format!("{base}/api/monitoring-locations?f=geojson")).await;
    let locations = answer["locations"].as_array().unwrap();
    assert!(locations.len() > 10, "{}", locations.len());
    let mut priorities = std::collections::BTreeSet::new();
    let mut decoded = std::collections::HashMap::new();
    // (An outfall where the flow also changes hands is two locations of one id.)
    let same = |f: &serde_json::Value, loc: &serde_json::Value| {
        f["properties"]["id"] == loc["id"] && f["properties"]["kind"] == loc["kind"]
    };
    for loc in locations {
        let id = loc["id"].as_str().unwrap();
        let Some(place) = fc["features"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| same(f, loc) && f["geometry"]["type"] == "Point")
        else {
            continue;
        };
        let co = &place["geometry"]["coordinates"];
        let (mx, my) = merc(co[0].as_f64().unwrap(), co[1].as_f64().unwrap());
        // Each tile decoded once.
        let key = tile_of(mx, my, 16);
        if let std::collections::hash_map::Entry::Vacant(e) = decoded.entry(key) {
            e.insert(locations_at(&c, base, mx, my).await);
        }
        let f = decoded[&key]
            .iter()
            .find(|f| same(f, loc))
            .unwrap_or_else(|| panic!("location {id} missing from its tile"));
        let p = &f["properties"];
        assert_eq!(p["priority"], loc["priority"], "{id}");
        assert_eq!(p["kind"], loc["kind"], "{id}");
        let want = criteria(loc);
        assert_eq!(p["reasons"].as_str().unwrap_or(""), want, "{id}");
        let impaired = loc["waters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w["impaired"] == true);
        assert_eq!(
            p["impaired"]
                .as_bool()
                .or(p["impaired"].as_i64().map(|i| i != 0)),
            Some(impaired),
            "{id}"
        );
        priorities.insert(loc["priority"].as_str().unwrap().to_string());
    }
    assert!(
        priorities.len() >= 2,
        "the demo's locations differ in priority: {priorities:?}"
    );

    // A sewershed is in the tiles at its outline, with its location's priority and the
    // answer's area.
    let sheds = get_json(&c, &format!("{base}/api/sewersheds")).await;
    let shed_fc = get_json(&c, &format!("{base}/api/sewersheds?f=geojson")).await;
    let shed = &sheds["sewersheds"].as_array().unwrap()[0];
    let sid = shed["location_id"].as_str().unwrap();
    let outline = shed_fc["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["properties"]["location_id"] == sid || f["properties"]["id"] == sid)
        .unwrap_or_else(|| panic!("sewershed {sid} in the GeoJSON"));
    let mut first = &outline["geometry"]["coordinates"];
    while first[0].is_array() {
        first = &first[0];
    }
    let (mx, my) = merc(first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
    let z = 13;
    let (x, y) = tile_of(mx, my, z);
    let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/sewersheds/{z}/{x}/{y}.mvt")).await;
    let feats = decode(&bytes, z, x, y, "sewersheds");
    let f = feats
        .iter()
        .find(|f| f["properties"]["id"] == sid)
        .unwrap_or_else(|| panic!("sewershed {sid} missing from 13/{x}/{y}"));
    let p = &f["properties"];
    assert_eq!(p["priority"], shed["priority"], "{sid}");
    let (a, b) = (p["area"].as_f64().unwrap(), shed["area"].as_f64().unwrap());
    assert!((a - b).abs() <= 1e-6 * b.max(1.0), "{sid}: {a} vs {b}");
    assert!(["complete", "doubtful"].contains(&p["quality"].as_str().unwrap()));
    assert!(p["method"].as_str().unwrap().contains("upstream trace"));
    // Below their minimum zoom, neither is in the tile.
    let (x, y) = tile_of(mx, my, 12);
    let (_, _, bytes) = get_tile(&c, &format!("{base}/tiles/sewersheds/12/{x}/{y}.mvt")).await;
    assert!(decode(&bytes, 12, x, y, "sewersheds").is_empty());

    // A screening that finds sewage at a location of lower priority: the answer makes it
    // high (its IDDE history), and the next generation's tile says so.
    let low = locations
        .iter()
        .find(|l| l["priority"] != "high" && l["kind"] == "outfall")
        .expect("an outfall below high priority");
    let id = low["id"].as_str().unwrap();
    let place = fc["features"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| same(f, low))
        .unwrap();
    let co = &place["geometry"]["coordinates"];
    let (mx, my) = merc(co[0].as_f64().unwrap(), co[1].as_f64().unwrap());
    let g1 = tj["generation"].as_str().unwrap().to_string();
    let today = chrono::Local::now().date_naive().to_string();
    let r = app
        .post(format!("{base}/api/inspections"))
        .bearer_auth(&inspector)
        .json(&serde_json::json!({"asset_id": id, "inspected_on": today, "kind": "dry_weather_screening", "result": "needs_follow_up",
            "screening": {"flow": "trickle", "odour": "sewage", "colour": "grey", "turbidity": "cloudy",
                "floatables": "none", "deposits": "staining", "field_tests": {"ph": 6.8, "ammonia_mg_l": 1.4}}}))
        .send()
        .await;
    assert_eq!(r.status(), 201, "{}", r.text());
    let g2 = get_json(&c, &format!("{base}/tiles.json")).await["generation"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(g1, g2);
    let now = get_json(&c, &format!("{base}/api/monitoring-locations")).await;
    let now = now["locations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| same(&serde_json::json!({ "properties": l }), low))
        .unwrap()
        .clone();
    assert_eq!(now["priority"], "high", "{now}");
    let feats = locations_at(&c, base, mx, my).await;
    let p = &feats.iter().find(|f| same(f, low)).unwrap()["properties"];
    assert_eq!(p["priority"], "high", "{p}");
    assert!(
        p["reasons"].as_str().unwrap().contains("idde_history"),
        "{p}"
    );
}
