//! Interconnections found from owners, on a network built in memory.

use std::collections::HashMap;

use geo_types::wkt;

use super::*;
use crate::domain::{Feature, Value};
use crate::spatial::network::NetworkOptions;

fn node(id: &str, x: f64, owner: Option<&str>) -> Feature {
    let mut f = Feature::new(Layer::Manholes, id);
    f.geom = Some(Geometry::Point(Point::new(x, 0.0)));
    if let Some(o) = owner {
        f.set(Layer::Manholes, "owner", Value::Text(o.into()));
    }
    f
}

fn pipe(id: &str, from: f64, to: f64, owner: Option<&str>) -> Feature {
    let mut f = Feature::new(Layer::Pipes, id);
    f.geom = Some(wkt!(LINESTRING(0. 0., 1. 0.)).into());
    if let Some(Geometry::LineString(l)) = &mut f.geom {
        l.0[0].x = from;
        l.0[1].x = to;
    }
    if let Some(o) = owner {
        f.set(Layer::Pipes, "owner", Value::Text(o.into()));
    }
    f
}

/// A County pipe between two town manholes (it changes hands at both ends), a County
/// manhole on a town line (in and back out), and a private manhole draining into the
/// town's (a connection, not an interconnection).
#[test]
fn owners_along_the_flow_place_each_interconnection_where_the_flow_changes_hands() {
    let meta = crate::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
    let manholes = vec![
        node("A", 0.0, None),
        node("B", 100.0, None),
        node("D", 1000.0, Some("Town")),
        node("C", 1100.0, Some("Westchester County")),
        node("E", 1200.0, None),
        node("F", 2000.0, Some("Private")),
        node("G", 2100.0, None),
    ];
    let pipes = vec![
        pipe("P1", 0.0, 100.0, Some("Westchester County")),
        pipe("P2", 1000.0, 1100.0, None),
        pipe("P3", 1100.0, 1200.0, None),
        pipe("P4", 2000.0, 2100.0, None),
    ];
    let snap = Snapshot::from_features(
        meta,
        HashMap::from([(Layer::Manholes, manholes), (Layer::Pipes, pipes)]),
    );
    let net = Network::from_snapshot(&snap, NetworkOptions::new(1.0));
    let profile = Profile::builtin("north-castle-ny").unwrap();
    let found = interconnections(&snap, &net, &Owners::new(&profile));
    let got: Vec<(&str, Option<Handover>, Vec<String>)> = found
        .iter()
        .map(|l| (l.id.as_str(), l.handover, l.pipes.clone()))
        .collect();
    assert_eq!(
        got,
        [
            ("A", Some(Handover::TownToOther), vec!["P1".to_string()]),
            ("B", Some(Handover::OtherToTown), vec!["P1".to_string()]),
            (
                "C",
                Some(Handover::Both),
                vec!["P2".to_string(), "P3".to_string()]
            ),
        ]
    );
    assert!(found
        .iter()
        .all(|l| l.other_owner.as_deref() == Some("Westchester County")));
}
