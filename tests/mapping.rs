//! What the permit's first mapping phase asks of the map, on a hand-made town on both
//! stores and on the demo: the monitoring locations (outfalls, and the two points where
//! a State trunk line crossing the town meets the town's system) with their priorities
//! and reasons, each outfall's sewershed, and how much is mapped, counted by hand.

// A scenario reads top to bottom as the script its user follows.
#![allow(clippy::too_many_lines)]

mod common;

use common::*;
use geo::{Area, BooleanOps, Contains};
use geo_types::{Geometry, Point};
use ms4::answer::mapping::{
    mapping_status, monitoring_locations, sewersheds, MappingStatusParams,
    MonitoringLocationsParams, SewershedsParams,
};
use ms4::answer::Ask;
use ms4::domain::Layer;
use ms4::import::{import, ImportOptions};
use ms4::rules::monitoring::Priority;
use ms4::spatial::monitoring::{Handover, LocationKind};
use ms4::spatial::Snapshot;
use rstest::rstest;
use serde_json::Value;

const X0: f64 = 660_000.0;
const Y0: f64 = 870_000.0;

fn at(dx: f64, dy: f64) -> (f64, f64) {
    (X0 + dx, Y0 + dy)
}

fn pt(dx: f64, dy: f64) -> String {
    let (x, y) = at(dx, dy);
    point(x, y)
}

fn ln(a: (f64, f64), b: (f64, f64)) -> String {
    line(&[at(a.0, a.1), at(b.0, b.1)])
}

/// The town: a 2000 by 1000 ft square, north and south watersheds; a class A water to
/// the north (OF-A drains to it) and a 303(d)-listed one to the south (OF-I); an outfall
/// OF-N that names no water and lies far from any; a State (NYSDOT) trunk line SMH-1 →
/// SMH-2 → MH-I crossing the town, which a town inlet CB-S1 drains into at SMH-1 and
/// which discharges into the town's MH-I. Pipe P-A2 has neither ids nor inverts (its
/// direction is only digitised), ST-1 only inverts; CB-X and OF-N join no pipe.
fn town_files() -> Vec<(Layer, String)> {
    let mut files = town_areas();
    files.extend(town_network());
    files
}

/// The town's areas: its boundary, watersheds, waters and parcels.
fn town_areas() -> Vec<(Layer, String)> {
    let (x, y) = at(0.0, 0.0);
    vec![
        (
            Layer::Boundary,
            fc(&[feature(
                r#""boundary_id":"TOWN""#,
                &rect(x, y, 2000.0, 1000.0),
            )]),
        ),
        (
            Layer::Watersheds,
            fc(&[
                feature(
                    r#""watershed_id":"WS-N","name":"North""#,
                    &rect(x, y + 500.0, 2000.0, 500.0),
                ),
                feature(
                    r#""watershed_id":"WS-S","name":"South""#,
                    &rect(x, y, 2000.0, 500.0),
                ),
            ]),
        ),
        (
            Layer::ReceivingWaters,
            fc(&[
                feature(
                    r#""water_id":"W-A","name":"Clear Brook","classification":"A","listed_303d":"N""#,
                    &ln((0.0, 950.0), (2000.0, 950.0)),
                ),
                feature(
                    r#""water_id":"W-I","name":"Muddy Creek","classification":"C","listed_303d":"Y""#,
                    &ln((0.0, 50.0), (2000.0, 50.0)),
                ),
            ]),
        ),
        (
            Layer::Parcels,
            fc(&[
                feature(
                    r#""parcel_id":"PA1","land_use":"210""#,
                    &square(x + 200.0, y + 600.0, 200.0),
                ),
                feature(
                    r#""parcel_id":"PA2","land_use":"432""#,
                    &square(x + 600.0, y + 600.0, 200.0),
                ),
                feature(
                    r#""parcel_id":"PI1","land_use":"210""#,
                    &square(x + 1200.0, y + 200.0, 200.0),
                ),
                feature(
                    r#""parcel_id":"PN","land_use":"210""#,
                    &square(x + 1700.0, y + 800.0, 200.0),
                ),
            ]),
        ),
    ]
}

/// The town's drainage network: its catch basins, manholes, outfalls and pipes.
fn town_network() -> Vec<(Layer, String)> {
    let cb = |id: &str, dx: f64, dy: f64| feature(&format!(r#""asset_id":"{id}""#), &pt(dx, dy));
    vec![
        (
            Layer::CatchBasins,
            fc(&[
                cb("CB-A1", 300.0, 700.0),
                cb("CB-A2", 700.0, 700.0),
                cb("CB-I1", 1300.0, 300.0),
                cb("CB-S1", 850.0, 850.0),
                cb("CB-X", 1800.0, 900.0),
            ]),
        ),
        (
            Layer::Manholes,
            fc(&[
                cb("MH-A", 500.0, 700.0),
                cb("MH-I", 1500.0, 300.0),
                feature(r#""asset_id":"SMH-1","owner":"NYSDOT""#, &pt(1000.0, 800.0)),
                feature(r#""asset_id":"SMH-2","owner":"NYSDOT""#, &pt(1000.0, 400.0)),
            ]),
        ),
        (
            Layer::Outfalls,
            fc(&[
                feature(
                    r#""asset_id":"OF-A","receiving_water_id":"W-A","owner":"Town""#,
                    &pt(500.0, 900.0),
                ),
                feature(
                    r#""asset_id":"OF-I","receiving_water_id":"W-I","owner":"Town""#,
                    &pt(1500.0, 100.0),
                ),
                feature(r#""asset_id":"OF-N","owner":"Town""#, &pt(1800.0, 600.0)),
            ]),
        ),
        (Layer::Pipes, town_pipes()),
    ]
}

/// The town's pipes: its own, and the State's trunk line (ST-1, ST-2) crossing it.
fn town_pipes() -> String {
    let pipe = |id: &str, from: Option<&str>, to: Option<&str>, owner: Option<&str>, a, b| {
        let mut props = format!(r#""asset_id":"{id}""#);
        if let (Some(f), Some(t)) = (from, to) {
            props.push_str(&format!(r#","from_id":"{f}","to_id":"{t}""#));
        }
        if let Some(o) = owner {
            props.push_str(&format!(r#","owner":"{o}""#));
        }
        feature(&props, &ln(a, b))
    };
    fc(&[
        pipe(
            "P-A1",
            Some("CB-A1"),
            Some("MH-A"),
            None,
            (300.0, 700.0),
            (500.0, 700.0),
        ),
        pipe("P-A2", None, None, None, (700.0, 700.0), (500.0, 700.0)),
        pipe(
            "P-A3",
            Some("MH-A"),
            Some("OF-A"),
            None,
            (500.0, 700.0),
            (500.0, 900.0),
        ),
        pipe(
            "P-I1",
            Some("CB-I1"),
            Some("MH-I"),
            None,
            (1300.0, 300.0),
            (1500.0, 300.0),
        ),
        pipe(
            "P-I2",
            Some("MH-I"),
            Some("OF-I"),
            None,
            (1500.0, 300.0),
            (1500.0, 100.0),
        ),
        pipe(
            "P-S1",
            Some("CB-S1"),
            Some("SMH-1"),
            None,
            (850.0, 850.0),
            (1000.0, 800.0),
        ),
        feature(
            r#""asset_id":"ST-1","owner":"NYSDOT","from_invert":120.0,"to_invert":110.0"#,
            &ln((1000.0, 800.0), (1000.0, 400.0)),
        ),
        pipe(
            "ST-2",
            Some("SMH-2"),
            Some("MH-I"),
            Some("NYSDOT"),
            (1000.0, 400.0),
            (1500.0, 300.0),
        ),
    ])
}

/// The hand-made town in a fresh registry of `kind`.
async fn town(kind: &str) -> Registry {
    let reg = registry(kind, 2260).await;
    for (layer, text) in town_files() {
        let path = reg.dir.path().join(format!("{}.geojson", layer.name()));
        std::fs::write(&path, text).unwrap();
        let r = import(reg.store.clone(), ImportOptions::new(layer, &path))
            .await
            .unwrap_or_else(|e| panic!("{layer}: {e}"));
        assert_eq!(r.rejected, 0, "{layer}");
    }
    reg
}

async fn loaded(reg: &Registry) -> (Snapshot, ms4::rules::Profile) {
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let profile = ms4::rules::Profile::builtin("north-castle-ny").unwrap();
    (snap, profile)
}

#[rstest]
#[case::sqlite("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn a_state_trunk_crossing_the_town_makes_two_interconnections_ranked_by_their_waters(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = town(kind).await;
    let (snap, profile) = loaded(&reg).await;
    let ask = Ask::new(&snap, &profile);
    let a = monitoring_locations(&ask, &MonitoringLocationsParams::default()).unwrap();
    let by_id = |id: &str| {
        a.locations
            .iter()
            .find(|l| l.id == id)
            .unwrap_or_else(|| panic!("{id} in {:#?}", a.locations))
    };
    let ids: Vec<(&str, LocationKind)> = a
        .locations
        .iter()
        .map(|l| (l.id.as_str(), l.kind))
        .collect();
    assert_eq!(
        ids,
        [
            ("OF-A", LocationKind::Outfall),
            ("OF-I", LocationKind::Outfall),
            ("OF-N", LocationKind::Outfall),
            ("MH-I", LocationKind::Interconnection),
            ("SMH-1", LocationKind::Interconnection),
        ]
    );
    // The town's inlet drains into the State's trunk at SMH-1; the trunk discharges into
    // the town's MH-I. Both reach the listed Muddy Creek through OF-I.
    let smh = by_id("SMH-1");
    assert_eq!(smh.handover, Some(Handover::TownToOther));
    assert_eq!(smh.other_owner.as_deref(), Some("NYSDOT"));
    assert_eq!(smh.pipes, ["P-S1"]);
    let mhi = by_id("MH-I");
    assert_eq!(mhi.handover, Some(Handover::OtherToTown));
    assert_eq!(mhi.pipes, ["ST-2"]);
    for l in [smh, mhi] {
        assert_eq!(l.priority, Priority::High, "{l:#?}");
        let criteria: Vec<&str> = l.reasons.iter().map(|r| r.criterion.as_str()).collect();
        assert_eq!(criteria, ["impaired_water", "interconnection"], "{l:#?}");
        assert_eq!(l.waters[0].water_id, "W-I");
        assert!(l.waters[0].found_by.contains("through outfall OF-I"));
    }
    // OF-A discharges to a class A water: medium, for the class alone.
    let ofa = by_id("OF-A");
    assert_eq!(ofa.priority, Priority::Medium);
    assert_eq!(ofa.waters[0].classification.as_deref(), Some("A"));
    assert_eq!(ofa.reasons.len(), 1);
    assert_eq!(ofa.reasons[0].criterion.as_str(), "higher_class");
    assert!(ofa.reasons[0]
        .because
        .contains("W-A (Clear Brook), class A"));
    assert_eq!(ofa.watershed_id.as_deref(), Some("WS-N"));
    // OF-I: the listed water; class C is no higher class.
    let ofi = by_id("OF-I");
    assert_eq!(ofi.priority, Priority::High);
    assert_eq!(ofi.reasons.len(), 1);
    assert!(ofi.reasons[0]
        .because
        .contains("W-I (Muddy Creek), 303(d)-listed"));
    // OF-N names no water and lies far from one: low, and said why.
    let ofn = by_id("OF-N");
    assert_eq!(ofn.priority, Priority::Low);
    assert!(ofn.reasons.is_empty() && ofn.waters.is_empty());
    assert!(ofn.no_water.as_deref().unwrap().contains("no water within"));
    // The rule is stated as the profile's reading, with its source.
    assert!(a.rule.default_reading);
    assert!(a.rule.source.starts_with("the profile's reading, source:"));
    assert_eq!((a.summary.high, a.summary.medium, a.summary.low), (3, 1, 1));
}

/// A catch basin no pipe joins, half `tolerance` off the middle of `pipe`'s first run:
/// inside the pipe's buffer, away from its ends.
fn loose_catch_basin(
    snap: &Snapshot,
    pipe: &str,
    tolerance: f64,
    id: &str,
) -> ms4::domain::Feature {
    let l = match snap.geometry(Layer::Pipes, pipe) {
        Some(Geometry::LineString(l)) => l,
        Some(Geometry::MultiLineString(m)) => &m.0[0],
        g => panic!("{pipe} is a line: {g:?}"),
    };
    let (a, b) = (l.0[0], l.0[1]);
    let off = tolerance * 0.5 / (b.x - a.x).hypot(b.y - a.y);
    let mut f = ms4::domain::Feature::new(Layer::CatchBasins, id);
    f.geom = Some(Geometry::Point(Point::new(
        (a.x + b.x) / 2.0 - (b.y - a.y) * off,
        (a.y + b.y) / 2.0 + (b.x - a.x) * off,
    )));
    f
}

/// The network of `snap` and its monitoring locations with their traces, at the
/// profile's tolerances.
fn located(
    snap: &Snapshot,
    profile: &ms4::rules::Profile,
) -> (
    ms4::spatial::network::Network,
    ms4::spatial::monitoring::Found,
) {
    let ask = Ask::new(snap, profile);
    let net = ms4::answer::build_network(snap, profile);
    let found = ms4::spatial::monitoring::monitoring_locations(
        snap,
        &net,
        &ms4::spatial::monitoring::MonitoringOptions {
            profile,
            water_tolerance: ask.in_crs(&profile.tolerances.receiving_water_tolerance),
            snap_tolerance: ask.in_crs(&profile.tolerances.snap_tolerance),
            list_cycle: None,
        },
    );
    (net, found)
}

/// Each location's id and trace, those with a trace.
fn traced(found: &ms4::spatial::monitoring::Found) -> Vec<(&str, &ms4::spatial::network::Trace)> {
    found
        .locations
        .iter()
        .zip(&found.upstream)
        .filter_map(|(l, t)| Some((l.id.as_str(), t.as_ref()?)))
        .collect()
}

/// The sewersheds' options: buffered by the snap tolerance, a reach of 300 feet.
fn options(tolerance: f64, nested_from: usize) -> ms4::spatial::sewershed::SewershedOptions {
    ms4::spatial::sewershed::SewershedOptions {
        buffer: tolerance,
        reach: 300.0,
        snap_tolerance: tolerance,
        nested_from,
    }
}

/// A sewershed whose trace holds another's whole is built from that one's polygon and
/// its own new parts (OF-I's holds MH-I's, which holds SMH-1's: the State trunk's two
/// interconnections), and it is the sewershed built from its own trace alone: the same
/// parcels, inlets and quality, and the same area and polygon to a millionth.
#[tokio::test]
async fn a_sewershed_built_from_the_one_it_holds_is_the_one_built_alone() {
    use ms4::spatial::sewershed::Sewersheds;
    let reg = town("sqlite").await;
    let (snap, profile) = loaded(&reg).await;
    let ask = Ask::new(&snap, &profile);
    let tolerance = ask.in_crs(&profile.tolerances.snap_tolerance);
    let find = |snap: &Snapshot| located(snap, &profile);
    // Two catch basins no pipe joins, inside the traced pipes' buffers, half a tolerance
    // off a pipe's middle: one on SMH-1's trace (so inside every sewershed built from
    // it), one on a pipe MH-I's trace adds to SMH-1's (inside MH-I's new part).
    let (_, first) = find(&snap);
    let trace_of = |id: &str| {
        let i = first.locations.iter().position(|l| l.id == id).unwrap();
        first.upstream[i].clone().unwrap()
    };
    let (smh, mh) = (trace_of("SMH-1"), trace_of("MH-I"));
    let own_pipe = mh.pipes.iter().find(|p| !smh.pipes.contains(p)).unwrap();
    let snap = snap.with_upserts(
        Layer::CatchBasins,
        vec![
            loose_catch_basin(&snap, &smh.pipes[0], tolerance, "CB-LOOSE-BASE"),
            loose_catch_basin(&snap, own_pipe, tolerance, "CB-LOOSE-OWN"),
        ],
    );
    let (net, found) = find(&snap);
    let traced = traced(&found);
    let build = |nested_from: usize| {
        Sewersheds::new(&snap, &profile, &net, options(tolerance, nested_from))
            .of_each(traced.iter().copied())
    };
    let (nested, alone) = (build(0), build(usize::MAX));
    let shed = |id: &str| nested.iter().find(|s| s.location_id == id).unwrap();
    let holds = |id: &str| shed(id).holds_sewershed_of.clone();
    assert_eq!(holds("OF-I").as_deref(), Some("MH-I"));
    assert_eq!(holds("MH-I").as_deref(), Some("SMH-1"));
    assert_eq!(holds("SMH-1"), None);
    assert_eq!(
        holds("OF-A"),
        None,
        "OF-A's trace holds no other location's"
    );
    assert!(alone
        .iter()
        .all(|s| s.holds_sewershed_of.is_none() && s.own_part().is_none()));
    // The part a map draws for one built from another's: with that one's polygon, the
    // whole, and nothing of that one in it.
    for n in &nested {
        let Some(base) = &n.holds_sewershed_of else {
            assert!(n.own_part().is_none(), "{}", n.location_id);
            continue;
        };
        let (own, base) = (n.own_part().unwrap(), shed(base).polygon());
        assert!(own.unsigned_area() > 0.0, "{}", n.location_id);
        let overlap = own.intersection(base).unsigned_area();
        assert!(overlap <= n.area * 1e-9, "{}: {overlap}", n.location_id);
        let rebuilt = own.union(base);
        let apart = rebuilt.difference(n.polygon()).unsigned_area()
            + n.polygon().difference(&rebuilt).unsigned_area();
        assert!(apart <= n.area * 1e-6, "{}: {apart}", n.location_id);
    }
    // A sewershed built from another's finds the catch basins inside it its trace does
    // not reach in the other's lists and in its own new part.
    let without = |id: &str| shed(id).quality.inlets_without_trace.clone();
    assert_eq!(without("SMH-1"), ["CB-LOOSE-BASE"]);
    assert_eq!(without("MH-I"), ["CB-LOOSE-BASE", "CB-LOOSE-OWN"]);
    assert_eq!(without("OF-I"), ["CB-LOOSE-BASE", "CB-LOOSE-OWN"]);
    each_nested_is_as_built_alone(&nested, &alone);
    let tolerance = ask.in_crs(&profile.tolerances.receiving_water_tolerance);
    coverage_from_parts_is_coverage_from_wholes(&snap, &net, tolerance, &nested, &alone);
    // Asked for, the whole of the last in the chain is made from its parts, once.
    assert!(std::ptr::eq(shed("OF-I").polygon(), shed("OF-I").polygon()));
}

/// A location listed twice with the same trace (an outfall another body owns is an
/// interconnection too) is built once: both listings share one sewershed, the one built
/// when it is listed once. The same id listed with another trace is built as listed.
#[tokio::test]
async fn a_location_listed_twice_is_built_once() {
    use ms4::spatial::sewershed::Sewersheds;
    use std::sync::Arc;
    let reg = town("sqlite").await;
    let (snap, profile) = loaded(&reg).await;
    let ask = Ask::new(&snap, &profile);
    let tolerance = ask.in_crs(&profile.tolerances.snap_tolerance);
    let (net, found) = located(&snap, &profile);
    let traced = traced(&found);
    let builder = Sewersheds::new(&snap, &profile, &net, options(tolerance, usize::MAX));
    let of = |id: &str| traced.iter().find(|(i, _)| *i == id).unwrap().1;
    let (of_a, mh_i) = (of("OF-A"), of("MH-I"));
    assert_ne!(of_a, mh_i);
    // OF-A listed twice, the second time as its own copy of the trace; then OF-A's id
    // with MH-I's trace.
    let copy = of_a.clone();
    let listed = [
        ("OF-A", of_a),
        ("MH-I", mh_i),
        ("OF-A", &copy),
        ("OF-A", mh_i),
    ];
    let built = builder.of_each(listed);
    assert_eq!(built.len(), 4);
    assert!(Arc::ptr_eq(&built[0], &built[2]), "built once, shared");
    assert!(
        !Arc::ptr_eq(&built[0], &built[3]),
        "another trace is built as listed"
    );
    let alone = builder.of("OF-A", of_a);
    assert_eq!(
        (
            &built[0].parcels,
            &built[0].inlets,
            &built[0].quality,
            built[0].area
        ),
        (&alone.parcels, &alone.inlets, &alone.quality, alone.area)
    );
    assert_eq!(built[0].location_id, "OF-A");
    assert_eq!(
        (built[3].location_id.as_str(), &built[3].parcels),
        ("OF-A", &built[1].parcels)
    );
    assert_eq!(built[3].area, built[1].area);
}

/// Each sewershed built from another's says what the same one built alone says, and has
/// its polygon.
fn each_nested_is_as_built_alone(
    nested: &[std::sync::Arc<ms4::spatial::sewershed::Sewershed>],
    alone: &[std::sync::Arc<ms4::spatial::sewershed::Sewershed>],
) {
    assert_eq!(nested.len(), alone.len());
    for (n, a) in nested.iter().zip(alone) {
        let id = &n.location_id;
        assert_eq!(
            (&n.parcels, &n.inlets, &n.quality),
            (&a.parcels, &a.inlets, &a.quality),
            "{id}"
        );
        // The overlay rounds to its grid, in another order: a few ten-thousandths of a
        // square foot apart in 42,000.
        assert!(
            (n.area - a.area).abs() <= a.area * 1e-7,
            "{id}: {} {}",
            n.area,
            a.area
        );
        let apart = n.polygon().difference(a.polygon()).unsigned_area()
            + a.polygon().difference(n.polygon()).unsigned_area();
        assert!(apart <= a.area * 1e-6, "{id}: {apart}");
    }
}

/// The mapping status's coverage takes a nested sewershed as its parts, the whole never
/// made: the same figures, for the town and each watershed, as the wholes of those built
/// alone give.
fn coverage_from_parts_is_coverage_from_wholes(
    snap: &Snapshot,
    net: &ms4::spatial::network::Network,
    water_tolerance: f64,
    nested: &[std::sync::Arc<ms4::spatial::sewershed::Sewershed>],
    alone: &[std::sync::Arc<ms4::spatial::sewershed::Sewershed>],
) {
    let town = ms4::spatial::sewershed::town_area(snap);
    let joined = net.joined();
    let status = |sheds: &[(&str, &geo_types::MultiPolygon<f64>)]| {
        let opt = ms4::spatial::completeness::StatusOptions {
            water_tolerance,
            cap: 100,
            sewersheds: Some(sheds),
            town: town.as_ref(),
        };
        let s = ms4::spatial::completeness::mapping_status(snap, net, &joined, &opt);
        std::iter::once(s.town)
            .chain(s.by_watershed)
            .map(|c| c.sewershed_coverage.unwrap())
            .collect::<Vec<_>>()
    };
    let as_parts: Vec<(&str, &geo_types::MultiPolygon<f64>)> = nested
        .iter()
        .flat_map(|s| s.parts().into_iter().map(|p| (s.location_id.as_str(), p)))
        .collect();
    assert!(
        as_parts.len() > nested.len(),
        "some sewershed comes as parts"
    );
    let whole: Vec<(&str, &geo_types::MultiPolygon<f64>)> = alone
        .iter()
        .map(|s| (s.location_id.as_str(), s.polygon()))
        .collect();
    let (from_parts, from_wholes) = (status(&as_parts), status(&whole));
    assert_eq!(from_parts.len(), from_wholes.len());
    for (p, w) in from_parts.iter().zip(&from_wholes) {
        assert_eq!(p.sewersheds, w.sewersheds);
        assert!(w.covered > 0.0);
        approx::assert_relative_eq!(p.covered, w.covered, max_relative = 1e-6);
    }
}

#[rstest]
#[case::sqlite("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn each_outfalls_sewershed_covers_its_inlets_and_no_inlet_of_another_trace(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = town(kind).await;
    let (snap, profile) = loaded(&reg).await;
    let ask = Ask::new(&snap, &profile);
    let a = sewersheds(&ask, &SewershedsParams::default()).unwrap();
    let inlet = |id: &str| -> Point<f64> {
        match snap.geometry(Layer::CatchBasins, id).unwrap() {
            geo_types::Geometry::Point(p) => *p,
            g => panic!("{g:?}"),
        }
    };
    let shed = |id: &str| {
        &a.sewersheds
            .iter()
            .find(|s| s.sewershed.location_id == id)
            .unwrap()
            .sewershed
    };
    let cases = [
        ("OF-A", vec!["CB-A1", "CB-A2"], vec!["PA1", "PA2"]),
        ("OF-I", vec!["CB-I1", "CB-S1"], vec!["PI1"]),
    ];
    let all = ["CB-A1", "CB-A2", "CB-I1", "CB-S1"];
    for (of, inlets, parcels) in cases {
        let s = shed(of);
        assert_eq!(s.inlets, inlets, "{of}");
        assert_eq!(s.parcels, parcels, "{of}");
        for cb in all {
            assert_eq!(
                s.polygon().contains(&inlet(cb)),
                inlets.contains(&cb),
                "{of}'s sewershed and {cb}"
            );
        }
        assert!(s.quality.inlets_of_other_traces.is_empty(), "{s:#?}");
        assert!(s.area > 0.0);
    }
    // PA2 is commercial: half OF-A's parcel area.
    let share = shed("OF-A").commercial_industrial_share.unwrap();
    assert!((share - 0.5).abs() < 1e-9, "{share}");
    // OF-N drains nothing: its sewershed is its own point's buffer, inside the town.
    assert!(shed("OF-N").parcels.is_empty());
    assert!(a.clipped_to_town);
    assert!(a.method.starts_with("parcels whose drains"));
    // One asked alone (built alone, in a question of its own, or taken from those kept
    // by this question) is the same sewershed.
    let one = SewershedsParams {
        location: vec!["OF-A".into()],
        ..Default::default()
    };
    for alone in [
        sewersheds(&Ask::new(&snap, &profile), &one).unwrap(),
        sewersheds(&ask, &one).unwrap(),
    ] {
        assert_eq!(alone.sewersheds.len(), 1);
        assert_eq!(&alone.sewersheds[0].sewershed, shed("OF-A"));
        assert!(alone.clipped_to_town);
    }
}

#[rstest]
#[case::sqlite("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn mapping_status_counts_what_is_mapped_by_watershed_as_counted_by_hand(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = town(kind).await;
    let (snap, profile) = loaded(&reg).await;
    let ask = Ask::new(&snap, &profile);
    let a = mapping_status(&ask, &MappingStatusParams::default()).unwrap();
    let s = &a.status;
    let t = &s.town;
    assert_eq!(
        (t.outfalls_with_water.counted, t.outfalls_with_water.total),
        (2, 3)
    );
    assert_eq!(t.outfalls_with_water.without, ["OF-N"]);
    assert_eq!(
        (t.pipes_with_direction.counted, t.pipes_with_direction.total),
        (7, 8)
    );
    assert_eq!(t.pipes_with_direction.without, ["P-A2"]);
    let d = &t.direction_sources;
    assert_eq!((d.ids, d.inverts, d.digitised, d.none), (6, 1, 1, 0));
    assert_eq!(
        (t.structures_joined.counted, t.structures_joined.total),
        (10, 12)
    );
    assert_eq!(t.structures_joined.without, ["CB-X", "OF-N"]);
    let cov = t.sewershed_coverage.as_ref().unwrap();
    assert!((cov.area - 2_000_000.0).abs() < 1.0, "{cov:?}");
    // Three 200 ft parcels and the traced network's thin buffers.
    assert!(
        cov.covered > 120_000.0 && cov.covered < 130_000.0,
        "{cov:?}"
    );
    let ws = |id: &str| {
        s.by_watershed
            .iter()
            .find(|w| w.watershed_id.as_deref() == Some(id))
            .unwrap()
    };
    let (n, so) = (ws("WS-N"), ws("WS-S"));
    assert_eq!(
        (n.outfalls_with_water.counted, n.outfalls_with_water.total),
        (1, 2)
    );
    assert_eq!(
        (so.outfalls_with_water.counted, so.outfalls_with_water.total),
        (1, 1)
    );
    assert_eq!(
        (n.pipes_with_direction.counted, n.pipes_with_direction.total),
        (4, 5)
    );
    assert_eq!(
        (
            so.pipes_with_direction.counted,
            so.pipes_with_direction.total
        ),
        (3, 3)
    );
    assert_eq!(
        (n.structures_joined.counted, n.structures_joined.total),
        (6, 8)
    );
    assert_eq!(
        (so.structures_joined.counted, so.structures_joined.total),
        (4, 4)
    );
    assert_eq!(s.outside_watersheds.structures_joined.total, 0);
    // Capped lists say how many they leave out.
    let capped = mapping_status(
        &ask,
        &MappingStatusParams {
            ids: Some(1),
            without_sewersheds: true,
        },
    )
    .unwrap();
    let f = &capped.status.town.structures_joined;
    assert_eq!((f.with.len(), f.without.len(), f.not_listed), (1, 1, 10));
    assert!(capped.status.town.sewershed_coverage.is_none());
}

#[tokio::test]
async fn the_cli_and_the_api_give_the_same_monitoring_locations() {
    let reg = town("sqlite").await;
    let json: Value = serde_json::from_str(&run_ok(
        &reg.url,
        &[
            "monitoring-locations",
            "--format",
            "json",
            "--kind",
            "interconnection",
        ],
    ))
    .unwrap();
    let ids: Vec<&str> = json["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["MH-I", "SMH-1"]);
    assert_eq!(json["locations"][1]["reasons"][0]["priority"], "high");
    let csv = run_ok(&reg.url, &["monitoring-locations", "--format", "csv"]);
    assert!(
        csv.starts_with("id,kind,priority,waters,watershed,reasons,found_by\n"),
        "{csv}"
    );
    assert_eq!(csv.lines().count(), 6);
    let geo: Value = serde_json::from_str(&run_ok(
        &reg.url,
        &["monitoring-locations", "--format", "geojson"],
    ))
    .unwrap();
    assert_eq!(geo["features"].as_array().unwrap().len(), 5);
    let bad = run(&reg.url, &["monitoring-locations", "--priority", "urgent"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--priority"));
    let table = run_ok(&reg.url, &["mapping-status"]);
    assert!(
        table.contains("pipes with a recorded flow direction"),
        "{table}"
    );

    let app = App::public(&reg.store).await;
    let r = app
        .get("/api/monitoring-locations?kind=interconnection")
        .send()
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let api: Value = r.json();
    assert_eq!(api["locations"], json["locations"]);
    let r = app
        .get("/api/monitoring-locations?priority=urgent")
        .send()
        .await;
    assert_eq!(r.status(), 400, "{}", r.text());
    let r = app
        .get("/api/sewersheds?location=OF-A&f=geojson")
        .send()
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let fc: Value = r.json();
    assert_eq!(fc["features"][0]["geometry"]["type"], "MultiPolygon");
    let r = app
        .get("/api/mapping-status?without_sewersheds=true")
        .send()
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let st: Value = r.json();
    assert_eq!(st["town"]["pipes_with_direction"]["counted"], 7);
}

#[tokio::test]
async fn the_demo_has_a_monitoring_location_for_every_outfall_and_its_status_adds_up() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let (snap, profile) = loaded(&reg).await;
    let ask = Ask::new(&snap, &profile);
    let a = monitoring_locations(&ask, &MonitoringLocationsParams::default()).unwrap();
    let outfalls = snap.layer(Layer::Outfalls).features.len();
    assert_eq!(a.summary.outfalls, outfalls);
    assert!(
        a.summary.interconnections > 0,
        "the demo's NYSDOT and County structures"
    );
    assert_eq!(
        a.summary.high + a.summary.medium + a.summary.low,
        a.summary.locations
    );
    // Every location's priority is its highest reason's, and one with none is low.
    for l in &a.locations {
        let top = l
            .reasons
            .iter()
            .map(|r| r.priority)
            .max()
            .unwrap_or(Priority::Low);
        assert_eq!(l.priority, top, "{l:#?}");
        if l.kind == LocationKind::Interconnection {
            assert!(l.other_owner.is_some());
        }
    }
    let st = mapping_status(
        &ask,
        &MappingStatusParams {
            ids: Some(5),
            without_sewersheds: true,
        },
    )
    .unwrap();
    let t = &st.status.town;
    assert_eq!(t.outfalls_with_water.total, outfalls);
    let by_ws: usize = st
        .status
        .by_watershed
        .iter()
        .chain(std::iter::once(&st.status.outside_watersheds))
        .map(|w| w.pipes_with_direction.total)
        .sum();
    assert_eq!(
        by_ws, t.pipes_with_direction.total,
        "each pipe in one watershed or outside"
    );
    assert_eq!(
        t.pipes_with_direction.total,
        snap.layer(Layer::Pipes).features.len()
    );
}

#[tokio::test]
async fn the_mapping_package_opens_in_gdal_with_every_layer() {
    use gdal::vector::LayerAccess;
    let reg = town("sqlite").await;
    // Two construction sites: one under way (a focus area), one closed (not).
    let (x, y) = at(100.0, 100.0);
    let sites = fc(&[
        feature(
            r#""site_id":"CS-1","opened_on":"2026-03-01","status":"active","name":"Hillside lots""#,
            &square(x, y, 200.0),
        ),
        feature(
            r#""site_id":"CS-2","opened_on":"2025-03-01","status":"closed","name":"Old mill""#,
            &square(x + 400.0, y, 200.0),
        ),
    ]);
    let path = reg.dir.path().join("sites.geojson");
    std::fs::write(&path, sites).unwrap();
    let r = import(reg.store.clone(), ImportOptions::new(Layer::Sites, &path))
        .await
        .unwrap();
    assert_eq!(r.rejected, 0);
    let out = reg.dir.path().join("phase1");
    let printed = run_ok(
        &reg.url,
        &[
            "mapping-package",
            "--out",
            out.to_str().unwrap(),
            "--shapefiles",
        ],
    );
    assert!(printed.contains("no zoning layer"), "{printed}");
    assert!(
        printed.contains("priority rule: the profile's reading"),
        "{printed}"
    );
    let ds = gdal::Dataset::open(out.join("mapping-phase-1.gpkg")).unwrap();
    let mut counts: Vec<(String, u64)> =
        ds.layers().map(|l| (l.name(), l.feature_count())).collect();
    counts.sort();
    let want = [
        ("focus_construction_sites", 1),
        ("focus_higher_class_waters", 1),
        ("focus_impaired_waters", 1),
        ("focus_tmdl_areas", 0),
        ("monitoring_locations", 5),
        ("outfalls", 3),
        ("pipes", 8),
        ("receiving_waters", 2),
        ("sewersheds", 5),
    ];
    let got: Vec<(&str, u64)> = counts.iter().map(|(n, c)| (n.as_str(), *c)).collect();
    assert_eq!(got, want);
    let mut sheds = ds.layer_by_name("sewersheds").unwrap();
    let f = sheds
        .features()
        .find(|f| {
            let i = f.field_index("location_id").unwrap();
            f.field_as_string(i).unwrap().as_deref() == Some("OF-A")
        })
        .unwrap();
    assert_eq!(f.geometry().unwrap().geometry_name(), "MULTIPOLYGON");
    let csv = std::fs::read_to_string(out.join("monitoring-locations.csv")).unwrap();
    assert_eq!(csv.lines().count(), 6);
    package_shapefiles_open_in_gdal(&out, &got);
    package_readme_and_map_page(&out);
    // Never over an earlier package.
    let again = run(
        &reg.url,
        &["mapping-package", "--out", out.to_str().unwrap()],
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists"));
}

/// Every layer of the package is a shapefile GDAL opens with the same features (a layer
/// of mixed geometry as one file per type), in EPSG:2260, its long names cut as the
/// README lists.
fn package_shapefiles_open_in_gdal(out: &std::path::Path, layers: &[(&str, u64)]) {
    use gdal::vector::LayerAccess;
    let dir = out.join("shapefiles");
    let mut shp: Vec<(String, u64)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "shp"))
        .map(|p| {
            let ds = gdal::Dataset::open(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let l = ds.layer(0).unwrap();
            let srs = l.spatial_ref().unwrap();
            assert_eq!(srs.auth_code().ok(), Some(2260), "{}", p.display());
            (l.name(), l.feature_count())
        })
        .collect();
    shp.sort();
    // The hand-made town's waters are areas only: one file each, under the layer's name.
    let mut want: Vec<(String, u64)> = layers.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    want.sort();
    assert_eq!(shp, want);
    let ds = gdal::Dataset::open(dir.join("sewersheds.shp")).unwrap();
    let l = ds.layer(0).unwrap();
    let names: Vec<String> = l.defn().fields().map(|f| f.name()).collect();
    assert!(names.iter().all(|n| n.len() <= 10), "{names:?}");
    assert!(names.contains(&"location_i".to_string()), "{names:?}");
}

/// The README names the files, the layers, the missing zoning and what the shapefiles
/// changed; the map page is one self-contained page drawing every location by priority.
fn package_readme_and_map_page(out: &std::path::Path) {
    let readme = std::fs::read_to_string(out.join("README.txt")).unwrap();
    for words in [
        "mapping-phase-1.gpkg",
        "map.html",
        "focus_construction_sites: 1",
        "holds no zoning layer",
        "sewersheds: field location_id is named location_i",
        "cut to 254 bytes",
    ] {
        assert!(readme.contains(words), "{words:?} in {readme}");
    }
    let page = std::fs::read_to_string(out.join("map.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(
        !page.contains("src=") && !page.contains("href=") && !page.contains("<script"),
        "self-contained"
    );
    assert!(page.contains("@page"), "print rules");
    assert_eq!(page.matches("data-priority=").count(), 5, "five locations");
    for layer in [
        "sewersheds",
        "pipes",
        "outfalls",
        "waters",
        "boundary",
        "monitoring-locations",
    ] {
        assert!(
            page.contains(&format!("<g class=\"{layer}\"")),
            "{layer} drawn"
        );
    }
    assert!(
        page.contains("monitoring location, high priority"),
        "legend"
    );
}

#[tokio::test]
async fn an_open_case_at_an_outfall_raises_it_to_high_with_the_case_named() {
    let reg = town("sqlite").await;
    let path = reg.dir.path().join("cases.geojson");
    std::fs::write(
        &path,
        fc(&[feature(
            r#""case_id":"CASE-1","opened_on":"2026-01-05","origin":"complaint","status":"open","asset_id":"OF-A""#,
            &pt(500.0, 900.0),
        )]),
    )
    .unwrap();
    let r = import(reg.store.clone(), ImportOptions::new(Layer::Cases, &path))
        .await
        .unwrap();
    assert_eq!(r.rejected, 0);
    let (snap, profile) = loaded(&reg).await;
    let a = monitoring_locations(
        &Ask::new(&snap, &profile),
        &MonitoringLocationsParams {
            priority: vec!["high".into()],
            kind: vec!["outfall".into()],
        },
    )
    .unwrap();
    let ids: Vec<&str> = a.locations.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, ["OF-A", "OF-I"]);
    let ofa = &a.locations[0];
    let criteria: Vec<&str> = ofa.reasons.iter().map(|r| r.criterion.as_str()).collect();
    assert_eq!(criteria, ["idde_history", "higher_class"]);
    assert!(ofa.reasons[0].because.contains("CASE-1"), "{ofa:#?}");
}
