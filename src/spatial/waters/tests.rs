use super::*;
use crate::domain::{LengthUnit, Value};
use crate::spatial::network::NetworkOptions;
use crate::store::RegistryMeta;
use geo_types::wkt;
use std::collections::HashMap;

fn f(layer: Layer, id: &str, g: Option<Geometry<f64>>, fields: &[(&str, Value)]) -> Feature {
    let mut x = Feature::new(layer, id);
    x.geom = g;
    for (k, v) in fields {
        assert!(x.set(layer, k, v.clone()), "{k}");
    }
    x
}

fn t(s: &str) -> Value {
    Value::Text(s.into())
}

/// Two watersheds side by side (x < 100 and x > 100); a parcel straddling them 75/25;
/// a connection from the parcel to CB-1, piped to OF-1 which names no water but lies
/// near stream S-2; a phosphorus TMDL over the east watershed.
fn town() -> Snapshot {
    let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
    l.insert(
        Layer::Watersheds,
        vec![
            f(
                Layer::Watersheds,
                "WS-W",
                Some(wkt!(POLYGON((0. 0.,100. 0.,100. 100.,0. 100.,0. 0.))).into()),
                &[("drains_to", t("S-1"))],
            ),
            f(
                Layer::Watersheds,
                "WS-E",
                Some(wkt!(POLYGON((100. 0.,200. 0.,200. 100.,100. 100.,100. 0.))).into()),
                &[("drains_to", t("S-2"))],
            ),
        ],
    );
    l.insert(
        Layer::TmdlAreas,
        vec![f(
            Layer::TmdlAreas,
            "T-P",
            Some(wkt!(POLYGON((100. 0.,200. 0.,200. 100.,100. 100.,100. 0.))).into()),
            &[
                ("pollutant", t("phosphorus")),
                ("stormwater_source", Value::Bool(true)),
            ],
        )],
    );
    l.insert(
        Layer::ReceivingWaters,
        vec![
            f(
                Layer::ReceivingWaters,
                "S-1",
                Some(wkt!(LINESTRING(0. 150.,100. 150.)).into()),
                &[("listed_303d", Value::Bool(false))],
            ),
            f(
                Layer::ReceivingWaters,
                "S-2",
                Some(wkt!(LINESTRING(150. 150.,300. 150.)).into()),
                &[("name", t("Byram River"))],
            ),
        ],
    );
    l.insert(
        Layer::Impairments,
        vec![f(
            Layer::Impairments,
            "S-2:Phosphorus:2022",
            None,
            &[("water_id", t("S-2")), ("pollutant", t("Phosphorus"))],
        )],
    );
    l.insert(
        Layer::CatchBasins,
        vec![f(
            Layer::CatchBasins,
            "CB-1",
            Some(wkt!(POINT(60. 110.)).into()),
            &[],
        )],
    );
    l.insert(
        Layer::Outfalls,
        vec![f(
            Layer::Outfalls,
            "OF-1",
            Some(wkt!(POINT(160. 140.)).into()),
            &[],
        )],
    );
    l.insert(
        Layer::Pipes,
        vec![f(
            Layer::Pipes,
            "P-1",
            Some(wkt!(MULTILINESTRING((60. 110.,160. 140.))).into()),
            &[("from_id", t("CB-1")), ("to_id", t("OF-1"))],
        )],
    );
    l.insert(
        Layer::Connections,
        vec![f(
            Layer::Connections,
            "C-1",
            Some(wkt!(LINESTRING(60. 50.,60. 109.5)).into()),
            &[("parcel_id", t("PA")), ("discharge_kind", t("stormwater"))],
        )],
    );
    let meta = RegistryMeta {
        jurisdiction: "carmel-ny".into(),
        srid: 2260,
        crs_name: String::new(),
        crs_wkt: String::new(),
        linear_unit: LengthUnit::UsSurveyFoot,
    };
    Snapshot::from_features(meta, l)
}

#[test]
fn both_methods_find_the_listed_water_and_the_tmdl_area() {
    let s = town();
    let net = Network::from_snapshot(&s, NetworkOptions::new(1.0));
    let parcel =
        as_multipolygon(&wkt!(POLYGON((25. 25.,125. 25.,125. 75.,25. 75.,25. 25.))).into())
            .unwrap();
    let rw = receiving_waters(&s, Some(&net), &parcel, Some("PA"), 25.0, 1.0);
    assert_eq!(rw.area, 5000.0);
    let shares: Vec<(&str, f64)> = rw
        .by_watershed
        .iter()
        .map(|w| (w.watershed_id.as_str(), w.share))
        .collect();
    assert_eq!(shares, [("WS-W", 0.75), ("WS-E", 0.25)]);
    assert_eq!(rw.by_network.len(), 1);
    let r = &rw.by_network[0];
    assert_eq!(
        (r.from.as_str(), r.outfall.as_str(), r.water_id.as_deref()),
        ("C-1", "OF-1", Some("S-2"))
    );
    assert!(
        r.water_found_by.starts_with("nearest water, 10.0 ftUS"),
        "{}",
        r.water_found_by
    );
    assert_eq!(rw.listed.len(), 1, "S-1 is not listed; S-2 is");
    assert_eq!(rw.listed[0].pollutants, ["Phosphorus"]);
    assert_eq!(
        rw.listed[0].reached_by.len(),
        2,
        "{:?}",
        rw.listed[0].reached_by
    );
    assert_eq!(rw.tmdl_areas.len(), 1);
    assert_eq!(rw.tmdl_areas[0].overlap, 1250.0);
}

#[test]
fn a_shared_boundary_alone_is_not_an_overlap() {
    let s = town();
    let west_only =
        as_multipolygon(&wkt!(POLYGON((50. 10.,100. 10.,100. 60.,50. 60.,50. 10.))).into())
            .unwrap();
    let rw = receiving_waters(&s, None, &west_only, None, 25.0, 1.0);
    let ids: Vec<&str> = rw
        .by_watershed
        .iter()
        .map(|w| w.watershed_id.as_str())
        .collect();
    assert_eq!(ids, ["WS-W"], "touching WS-E along x = 100 does not count");
    assert!(rw.tmdl_areas.is_empty());
    assert!(rw.listed.is_empty());
}

#[test]
fn item10_an_explicit_false_stands_and_item12_downstream_stops_at_the_bound() {
    // S-1 (listed_303d = false) gets an impairment row: it stays unlisted.
    let mut s = town();
    let mut layers: HashMap<Layer, Vec<Feature>> = Layer::ALL
        .iter()
        .map(|l| (*l, s.layer(*l).features.to_vec()))
        .collect();
    layers.get_mut(&Layer::Impairments).unwrap().push(f(
        Layer::Impairments,
        "S-1:Sediment:2022",
        None,
        &[("water_id", t("S-1")), ("pollutant", t("Sediment"))],
    ));
    // S-1 flows to S-3, which flows to S-2 (listed).
    let rw = layers.get_mut(&Layer::ReceivingWaters).unwrap();
    rw[0].set(Layer::ReceivingWaters, "flows_to", t("S-3"));
    rw.push(f(
        Layer::ReceivingWaters,
        "S-3",
        Some(wkt!(LINESTRING(0. 300.,100. 300.)).into()),
        &[("flows_to", t("S-2"))],
    ));
    s = Snapshot::from_features(s.meta.clone(), layers);
    let west =
        as_multipolygon(&wkt!(POLYGON((10. 10.,60. 10.,60. 60.,10. 60.,10. 10.))).into()).unwrap();
    let mut opt = WaterOptions::new(25.0, 1.0);
    let rw = receiving_waters_with(&s, None, &west, None, &opt);
    assert!(rw.listed.is_empty(), "{:?}", rw.listed);
    assert!(rw.notes.iter().any(|n| n.contains("listed_303d = false")));
    // One step reaches S-3 only, and says it stopped at the bound.
    opt.downstream_steps = 1;
    let rw = receiving_waters_with(&s, None, &west, None, &opt);
    assert!(rw.listed.is_empty());
    assert!(
        rw.notes
            .iter()
            .any(|n| n.contains("stopped at the profile's bound")),
        "{:?}",
        rw.notes
    );
    // Two steps reach S-2, listed.
    opt.downstream_steps = 2;
    let rw = receiving_waters_with(&s, None, &west, None, &opt);
    assert_eq!(rw.listed.len(), 1);
    assert!(rw.listed[0].reached_by[0].contains("S-1 → S-3 → S-2"));
}

/// A watershed whose `drains_to` names no recorded water (a HUC-12 code from WBD's TOHUC,
/// OCEAN, or an id never loaded) is no evidence the runoff reaches no listed water: it is
/// listed for review, naming what would decide it, and Condition One stays undetermined.
#[rstest::rstest]
#[case::the_next_watershed_downstream("WS-E", "it is a watershed")]
#[case::the_ocean("OCEAN", "is not a recorded receiving water")]
#[case::a_water_never_loaded("NY-1302-0099", "is not a recorded receiving water")]
fn a_drains_to_naming_no_recorded_water_is_for_review(#[case] to: &str, #[case] words: &str) {
    let s = town();
    let mut sheds = s.layer(Layer::Watersheds).features.to_vec();
    assert!(sheds[0].set(Layer::Watersheds, "drains_to", t(to)));
    let s = s.with_layer(Layer::Watersheds, sheds);
    let west_only =
        as_multipolygon(&wkt!(POLYGON((10. 10.,60. 10.,60. 60.,10. 60.,10. 10.))).into()).unwrap();
    let rw = receiving_waters(&s, None, &west_only, None, 25.0, 1.0);
    assert!(rw.listed.is_empty());
    assert!(
        rw.review
            .iter()
            .any(|r| r.starts_with(to) && r.contains(words) && r.contains("would decide")),
        "{:?}",
        rw.review
    );
    // Recorded and not listed (S-1, listed_303d = false), it is a "no", not for review.
    let rw = receiving_waters(&town(), None, &west_only, None, 25.0, 1.0);
    assert!(rw.review.is_empty(), "{:?}", rw.review);
    assert_eq!(rw.waters_reached, ["S-1"]);
}

/// A listed water's state classification, as an ATTAINS load records it, is in the
/// answer; a water without one says none, never a guessed class.
#[test]
fn a_listed_water_carries_its_recorded_classification() {
    let east_only =
        as_multipolygon(&wkt!(POLYGON((110. 10.,160. 10.,160. 60.,110. 60.,110. 10.))).into())
            .unwrap();
    let rw = receiving_waters(&town(), None, &east_only, None, 25.0, 1.0);
    assert_eq!(rw.listed[0].water_id, "S-2");
    assert_eq!(rw.listed[0].classification, None);
    let s = town();
    let mut waters = s.layer(Layer::ReceivingWaters).features.to_vec();
    waters[1]
        .extra
        .insert("classification".into(), serde_json::json!(" B "));
    let s = s.with_layer(Layer::ReceivingWaters, waters);
    let rw = receiving_waters(&s, None, &east_only, None, 25.0, 1.0);
    assert_eq!(rw.listed[0].classification.as_deref(), Some("B"));
}
