//! GeoJSON answers, and the tile-size bound.

use super::*;

#[tokio::test]
async fn answers_with_places_come_as_geojson_in_crs84() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::public(&reg.store).await;
    let c = app.clone();
    let base = &app.base;
    let (id, _, _, lon, lat) = first_outfall(&c, base).await;
    let q = format!("lon={lon}&lat={lat}&radius=2000ft");
    let json = get_json(&c, &format!("{base}/api/nearby?{q}")).await;
    let r = c
        .get(format!("{base}/api/nearby?{q}&f=geojson"))
        .send()
        .await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "application/geo+json");
    let fc: serde_json::Value = r.json();
    let by_accept: serde_json::Value = c
        .get(format!("{base}/api/nearby?{q}"))
        .header("accept", "application/geo+json")
        .send()
        .await
        .json();
    assert_eq!(fc, by_accept);
    assert_eq!(fc["type"], "FeatureCollection");
    let feats = fc["features"].as_array().unwrap();
    let facilities = json["facilities"].as_array().unwrap();
    assert_eq!(feats.len(), facilities.len());
    assert!(!feats.is_empty());
    // The nearest is the outfall asked about, at the position the OGC API gives it, with
    // the answer's distance as a property.
    assert_eq!(feats[0]["properties"]["id"], id.as_str());
    assert_eq!(
        feats[0]["properties"]["distance"],
        facilities[0]["distance"]
    );
    let co = &feats[0]["geometry"]["coordinates"];
    assert!(
        (co[0].as_f64().unwrap() - lon).abs() < 1e-7
            && (co[1].as_f64().unwrap() - lat).abs() < 1e-7,
        "{co}"
    );
    for (f, a) in feats.iter().zip(facilities) {
        assert_eq!(f["properties"]["id"], a["id"]);
        let mut first = &f["geometry"]["coordinates"];
        while first[0].is_array() {
            first = &first[0];
        }
        let (x, y) = (first[0].as_f64().unwrap(), first[1].as_f64().unwrap());
        assert!(
            (-73.9..-73.5).contains(&x) && (41.0..41.3).contains(&y),
            "CRS84: {x} {y}"
        );
    }

    // Every connection judged: a feature per connection, with its finding.
    let ill: serde_json::Value = get_json(
        &c,
        &format!("{base}/api/illicit?status=illicit,needs_review,ok,not_covered&f=geojson"),
    )
    .await;
    let plain = get_json(
        &c,
        &format!("{base}/api/illicit?status=illicit,needs_review,ok,not_covered"),
    )
    .await;
    let n = plain["connections"].as_array().unwrap().len();
    assert!(n > 0);
    assert_eq!(ill["features"].as_array().unwrap().len(), n);
    assert!(ill["features"][0]["properties"]["finding"]["result"].is_string());
    assert_eq!(ill["answer"]["jurisdiction"], "north-castle-ny");
    let smps = get_json(
        &c,
        &format!("{base}/api/smps-without-easement?all=true&f=geojson"),
    )
    .await;
    assert_eq!(smps["features"][0]["properties"]["layer"], "smps");
    // A format that is not one is a 400 naming f.
    let r = c.get(format!("{base}/api/nearby?{q}&f=kml")).send().await;
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json();
    assert!(e["error"].as_str().unwrap().starts_with("f:"), "{e}");
}

/// The tile-size bound on a synthetic town of 30,000 parcels (the county's density: the
/// generator's lots and streets do not change with its size), rendered in process: every
/// tile over it from zoom 0 to 17. The county itself is measured by `cargo bench --bench
/// tiles`, which reports its largest tile.
#[test]
fn no_tile_of_a_synthetic_town_is_over_500_kb() {
    use ms4::tiles::{self, TileId, TileLayer, TILE_LAYERS};
    let opts = ms4::synth::SynthOptions::new(30_000, 7);
    let layers = ms4::synth::generate(&opts).into_iter().collect();
    let meta = ms4::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
    let snap = std::sync::Arc::new(ms4::spatial::Snapshot::from_features(meta, layers));
    let profile = ms4::rules::Profile::builtin("north-castle-ny").unwrap();
    let net = std::sync::Arc::new(ms4::answer::build_network(&snap, &profile));
    let source = || Ok(net.clone());
    let state = tiles::Tiles::default();
    // The registry's layers: the mapping answers' (monitoring locations, sewersheds) are
    // derived for the whole town first, which takes an unoptimised build minutes for
    // 30,000 parcels; their tiles are checked on the demo (`mapping`).
    let all: Vec<&'static TileLayer> = TILE_LAYERS
        .iter()
        .filter(|l| l.registry().is_some())
        .collect();
    let e = snap.layer(ms4::domain::Layer::Parcels).extent().unwrap();
    let rp = ms4::import::crs::Reprojector::new(2260, 3857).unwrap();
    let (x0, y0) = rp.point(e[0], e[1]).unwrap();
    let (x1, y1) = rp.point(e[2], e[3]).unwrap();
    let today = chrono::Local::now().date_naive();
    let (mut largest, mut at, mut count, mut with_parcels) = (0usize, None, 0, 0);
    for z in 0..=17u8 {
        let (tx0, ty0, tx1, ty1) = TileId::range(z, [x0, y0, x1, y1]);
        for x in tx0..=tx1 {
            for y in ty0..=ty1 {
                let t = TileId { z, x, y };
                let b = tiles::render(&state, &snap, &profile, &source, &all, t, today).unwrap();
                count += 1;
                if z >= 14 && b.windows(7).any(|w| w == b"parcels") {
                    with_parcels += 1;
                }
                if b.len() > largest {
                    (largest, at) = (b.len(), Some(t));
                }
            }
        }
    }
    eprintln!("{count} tiles; largest {} KB at {at:?}", largest / 1024);
    assert!(with_parcels > 10, "parcels drawn from zoom 14");
    assert!(
        largest <= 500 * 1024,
        "tile {at:?} is {} KB",
        largest / 1024
    );
}
