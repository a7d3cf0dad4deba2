use geo_types::{wkt, LineString, Point};

use super::*;
use crate::domain::{Feature, Value};

use StructureKind::{CatchBasin, Manhole, Outfall};

pub(super) fn node(kind: StructureKind, id: &str, at: Point<f64>) -> (Feature, StructureKind) {
    let mut f = Feature::new(kind.layer(), id);
    f.geom = Some(at.into());
    (f, kind)
}

pub(super) fn pipe(
    id: &str,
    from: Option<&str>,
    to: Option<&str>,
    line: LineString<f64>,
) -> Feature {
    let mut f = Feature::new(Layer::Pipes, id);
    let text = |s: Option<&str>| s.map_or(Value::Null, |s| Value::Text(s.into()));
    f.set(Layer::Pipes, "from_id", text(from));
    f.set(Layer::Pipes, "to_id", text(to));
    f.set(Layer::Pipes, "kind", Value::Text("pipe".into()));
    f.geom = Some(line.into());
    f
}

fn inverts(mut f: Feature, from: f64, to: f64) -> Feature {
    f.set(Layer::Pipes, "from_invert", Value::Real(from));
    f.set(Layer::Pipes, "to_invert", Value::Real(to));
    f
}

pub(super) fn network(nodes: &[(Feature, StructureKind)], pipes: &[Feature], tol: f64) -> Network {
    Network::build(
        nodes.iter().map(|(f, k)| (f, *k)),
        pipes,
        NetworkOptions::new(tol),
    )
}

/// Two catch basins into a manhole, and the manhole into an outfall.
fn y_nodes() -> Vec<(Feature, StructureKind)> {
    vec![
        node(CatchBasin, "CB-1", wkt!(POINT(0. 10.))),
        node(CatchBasin, "CB-2", wkt!(POINT(0. - 10.))),
        node(Manhole, "MH-1", wkt!(POINT(10. 0.))),
        node(Outfall, "OF-1", wkt!(POINT(20. 0.))),
    ]
}

fn y_pipes() -> Vec<Feature> {
    vec![
        pipe(
            "P-1",
            Some("CB-1"),
            Some("MH-1"),
            wkt!(LINESTRING(0. 10.,10. 0.)),
        ),
        pipe(
            "P-2",
            Some("CB-2"),
            Some("MH-1"),
            wkt!(LINESTRING(0. -10.,10. 0.)),
        ),
        pipe(
            "P-3",
            Some("MH-1"),
            Some("OF-1"),
            wkt!(LINESTRING(10. 0.,20. 0.)),
        ),
    ]
}

pub(super) fn ids(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn y_network_traces_downstream_to_the_outfall_and_upstream_to_both_basins() {
    let net = network(&y_nodes(), &y_pipes(), 1.0);

    let down = net.trace("CB-1", Direction::Downstream).unwrap();
    assert_eq!(ids(&down.structures), ["CB-1", "MH-1", "OF-1"]);
    assert_eq!(ids(&down.pipes), ["P-1", "P-3"]);
    assert_eq!(down.outfalls.len(), 1);
    assert_eq!(down.outfalls[0].outfall, "OF-1");
    assert_eq!(
        ids(&down.outfalls[0].path),
        ["CB-1", "P-1", "MH-1", "P-3", "OF-1"]
    );
    assert!(down.dead_ends.is_empty() && down.inferred.is_empty());

    let up = net.trace("OF-1", Direction::Upstream).unwrap();
    assert_eq!(ids(&up.structures), ["OF-1", "MH-1", "CB-1", "CB-2"]);
    assert_eq!(ids(&up.pipes), ["P-3", "P-1", "P-2"]);
    assert!(up.outfalls.is_empty() && up.dead_ends.is_empty());

    // From a pipe: the pipe first, then onwards from its end.
    let from_pipe = net.trace("P-2", Direction::Downstream).unwrap();
    assert_eq!(ids(&from_pipe.pipes), ["P-2", "P-3"]);
    assert_eq!(ids(&from_pipe.structures), ["MH-1", "OF-1"]);
    assert_eq!(
        ids(&from_pipe.outfalls[0].path),
        ["P-2", "MH-1", "P-3", "OF-1"]
    );
    let up_pipe = net.trace("P-3", Direction::Upstream).unwrap();
    assert_eq!(ids(&up_pipe.pipes), ["P-3", "P-1", "P-2"]);
    assert_eq!(ids(&up_pipe.structures), ["MH-1", "CB-1", "CB-2"]);

    assert!(net.trace("MH-404", Direction::Downstream).is_none());
    assert_eq!(net.structure_layer("MH-1"), Some(Layer::Manholes));

    let report = net.check();
    assert_eq!(report.summary.ends_by_id, 6);
    assert_eq!(report.summary.directed_by_ids, 3);
    assert_eq!(
        report.parts,
        [Part {
            structures: 4,
            pipes: 3,
            outfalls: 1,
            example: "CB-1".into()
        }]
    );
    assert!(report.dangling_ends.is_empty() && report.cycles.is_empty());
    assert!(report.reversed_pipes.is_empty() && report.orphan_structures.is_empty());
    // The CLI prints both as JSON.
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["summary"]["parts"], 1);
    let json = serde_json::to_value(&down).unwrap();
    assert_eq!(json["direction"], "downstream");
    assert_eq!(json["outfalls"][0]["outfall"], "OF-1");
}

/// Traces share one table of marks per thread: a trace after others, on this network or
/// on a larger one, answers as it does first.
#[test]
fn a_trace_after_others_on_the_same_thread_answers_as_the_first() {
    let y = network(&y_nodes(), &y_pipes(), 1.0);
    let first_up = y.trace("OF-1", Direction::Upstream).unwrap();
    let first_down = y.trace("CB-2", Direction::Downstream).unwrap();
    // A larger network: the Y and a second, longer line beside it.
    let mut nodes = y_nodes();
    let mut pipes = y_pipes();
    for i in 0..40 {
        let mut mh = Feature::new(Layer::Manholes, format!("MH-L{i}"));
        mh.geom = Some(geo_types::Point::new(1000.0 + f64::from(i) * 10.0, 500.0).into());
        nodes.push((mh, StructureKind::Manhole));
    }
    for i in 0..39 {
        let mut p = Feature::new(Layer::Pipes, format!("P-L{i}"));
        p.geom = Some(
            geo_types::LineString::from(vec![
                (1000.0 + f64::from(i) * 10.0, 500.0),
                (1010.0 + f64::from(i) * 10.0, 500.0),
            ])
            .into(),
        );
        p.set(Layer::Pipes, "from_id", Value::Text(format!("MH-L{i}")));
        p.set(Layer::Pipes, "to_id", Value::Text(format!("MH-L{}", i + 1)));
        pipes.push(p);
    }
    let large = network(&nodes, &pipes, 1.0);
    let line = large.trace("MH-L39", Direction::Upstream).unwrap();
    assert_eq!(line.structures.len(), 40);
    for _ in 0..3 {
        assert_eq!(y.trace("OF-1", Direction::Upstream).unwrap(), first_up);
        assert_eq!(y.trace("CB-2", Direction::Downstream).unwrap(), first_down);
        assert_eq!(large.trace("MH-L39", Direction::Upstream).unwrap(), line);
        assert_eq!(large.trace("OF-1", Direction::Upstream).unwrap(), first_up);
    }
}

#[test]
fn a_snapshot_builds_the_same_network() {
    let mut layers: std::collections::HashMap<Layer, Vec<Feature>> = Default::default();
    for (f, k) in y_nodes() {
        layers.entry(k.layer()).or_default().push(f);
    }
    layers.insert(Layer::Pipes, y_pipes());
    let meta = crate::store::RegistryMeta {
        jurisdiction: "test".into(),
        srid: 2260,
        crs_name: "test".into(),
        crs_wkt: String::new(),
        linear_unit: crate::domain::LengthUnit::UsSurveyFoot,
    };
    let snapshot = Snapshot::from_features(meta, layers);
    let net = Network::from_snapshot(&snapshot, NetworkOptions::new(1.0));
    assert_eq!((net.structure_count(), net.pipe_count()), (4, 3));
    let down = net.trace("CB-2", Direction::Downstream).unwrap();
    assert_eq!(
        ids(&down.outfalls[0].path),
        ["CB-2", "P-2", "MH-1", "P-3", "OF-1"]
    );
}

/// A pipe's end structures read at its number are those read by its id; a number that
/// is not the pipe's, or ids two features share, are read by id.
#[test]
fn a_pipes_ends_read_at_its_number_are_those_read_by_its_id() {
    let net = network(&y_nodes(), &y_pipes(), 1.0);
    let node = |id: &str| net.structure_node(id);
    for (i, p) in y_pipes().iter().enumerate() {
        let by_id = net.pipe_end_nodes(&p.id);
        assert!(by_id.is_some_and(|(a, b)| a.is_some() && b.is_some()));
        assert_eq!(net.pipe_end_nodes_at(i, &p.id), by_id, "{}", p.id);
    }
    assert_eq!(
        net.pipe_end_nodes_at(0, "P-3"),
        Some((node("MH-1"), node("OF-1"))),
        "P-3 is not pipe 0"
    );
    assert_eq!(net.pipe_end_nodes_at(7, "P-2"), net.pipe_end_nodes("P-2"));
    assert_eq!(net.pipe_end_nodes_at(0, "P-9"), None);
    // Two pipes called P-1: the id names one of them, whichever number is asked.
    let mut pipes = y_pipes();
    pipes[1].id = "P-1".into();
    let net = network(&y_nodes(), &pipes, 1.0);
    assert!(!net.duplicate_ids.is_empty());
    let by_id = net.pipe_end_nodes("P-1");
    assert_eq!(net.pipe_end_nodes_at(0, "P-1"), by_id);
    assert_eq!(net.pipe_end_nodes_at(1, "P-1"), by_id);
}

#[test]
fn ends_without_ids_snap_within_the_tolerance_and_not_beyond() {
    let pipes = vec![
        // Both ends a little off their structures.
        pipe("P-1", None, None, wkt!(LINESTRING(0.5 10.5,10. -0.5))),
        // The from id names nothing: the end is matched by position instead.
        pipe(
            "P-2",
            Some("CB-404"),
            Some("MH-1"),
            wkt!(LINESTRING(0.2 -10.2,10. 0.)),
        ),
        // Near the manhole, but 2.5 from the outfall.
        pipe("P-3", None, None, wkt!(LINESTRING(10.6 0.6,20. 2.5))),
    ];
    let net = network(&y_nodes(), &pipes, 1.0);
    let p1 = net.pipe("P-1").unwrap();
    assert_eq!(p1.from.matched, EndMatch::Snapped);
    assert_eq!(p1.from.structure.as_deref(), Some("CB-1"));
    assert!((p1.from.snap_distance.unwrap() - 0.5f64.hypot(0.5)).abs() < 1e-6);
    assert_eq!(p1.to.structure.as_deref(), Some("MH-1"));
    assert!((p1.to.snap_distance.unwrap() - 0.5).abs() < 1e-6);
    assert_eq!(p1.direction, DirectionSource::Digitised);

    let p2 = net.pipe("P-2").unwrap();
    assert_eq!(
        (p2.from.matched, p2.from.structure.as_deref()),
        (EndMatch::Snapped, Some("CB-2"))
    );
    assert_eq!(p2.to.matched, EndMatch::Id);
    assert_eq!(p2.direction, DirectionSource::Ids);

    let p3 = net.pipe("P-3").unwrap();
    assert_eq!(p3.from.structure.as_deref(), Some("MH-1"));
    assert_eq!((p3.to.matched, p3.to.structure), (EndMatch::Dangling, None));

    let down = net.trace("CB-1", Direction::Downstream).unwrap();
    assert!(down.outfalls.is_empty());
    assert_eq!(down.dead_ends, ["P-3"]);
    let inferred: Vec<&str> = down.inferred.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(inferred, ["P-1", "P-3"]);
    // The quick reading a trace lists pipes by agrees with the pipe's info, every pipe.
    for e in 0..net.edges.len() as u32 {
        assert_eq!(
            net.pipe_inferred(e),
            net.pipe_info(e).is_inferred(),
            "edge {e}"
        );
    }

    let report = net.check();
    assert_eq!(
        report.dangling_ends,
        [DanglingEnd {
            pipe: "P-3".into(),
            end: "to",
            at: Some([20.0, 2.5])
        }]
    );
    assert_eq!(
        report.unknown_ids,
        [UnknownId {
            pipe: "P-2".into(),
            field: "from_id".into(),
            id: "CB-404".into()
        }]
    );
    assert_eq!(report.summary.ends_snapped, 4);

    // A wider tolerance reaches the outfall.
    let wide = network(&y_nodes(), &pipes, 3.0);
    let down = wide.trace("CB-1", Direction::Downstream).unwrap();
    assert_eq!(down.outfalls[0].outfall, "OF-1");
    assert!(wide.check().dangling_ends.is_empty());
}

#[test]
fn one_id_says_which_end_is_upstream_even_when_digitised_backwards() {
    // Digitised from the manhole to the basin, but the from id names the basin.
    let pipes = vec![pipe(
        "P-1",
        Some("CB-2"),
        None,
        wkt!(LINESTRING(10.3 0.2,0. -10.)),
    )];
    let net = network(&y_nodes(), &pipes, 1.0);
    let p = net.pipe("P-1").unwrap();
    assert_eq!(
        (p.from.matched, p.from.structure.as_deref()),
        (EndMatch::Id, Some("CB-2"))
    );
    assert_eq!(
        (p.to.matched, p.to.structure.as_deref()),
        (EndMatch::Snapped, Some("MH-1"))
    );
    assert_eq!(p.direction, DirectionSource::Ids);
}

#[test]
fn inverts_give_the_direction_when_ids_are_missing() {
    // Digitised from the manhole up to the basin, but the inverts fall towards the manhole
    // (from_invert is read at the first vertex).
    let pipes = vec![inverts(
        pipe("P-1", None, None, wkt!(LINESTRING(10. 0.,0. 10.))),
        95.0,
        100.0,
    )];
    let net = network(&y_nodes(), &pipes, 1.0);
    let p = net.pipe("P-1").unwrap();
    assert_eq!(p.direction, DirectionSource::Inverts);
    assert_eq!(p.from.structure.as_deref(), Some("CB-1"));
    assert_eq!(p.to.structure.as_deref(), Some("MH-1"));
    let down = net.trace("CB-1", Direction::Downstream).unwrap();
    assert_eq!(ids(&down.structures), ["CB-1", "MH-1"]);
    // Taken from the inverts, the direction cannot contradict them; the pipe is listed
    // as turned round by them.
    let r = net.check();
    assert_eq!(r.reversed_pipes.len(), 1);
    assert!(r.reversed_pipes[0].turned_by_inverts);
    assert_eq!(r.reversed_pipes[0].from.as_deref(), Some("CB-1"));
}

#[test]
fn inverts_that_fit_their_structures_only_swapped_leave_the_digitised_direction() {
    let nodes = vec![
        node(CatchBasin, "CB-1", wkt!(POINT(0. 20.))),
        node(Manhole, "MH-1", wkt!(POINT(0. 0.))),
        node(Manhole, "MH-2", wkt!(POINT(100. 0.))),
        node(Outfall, "OF-1", wkt!(POINT(200. 0.))),
    ];
    let trunk = |line: LineString<f64>, from: f64, to: f64| {
        vec![
            inverts(
                pipe(
                    "P-0",
                    Some("CB-1"),
                    Some("MH-1"),
                    wkt!(LINESTRING(0. 20.,0. 0.)),
                ),
                102.0,
                101.5,
            ),
            inverts(pipe("P-1", None, None, line), from, to),
            inverts(
                pipe(
                    "P-2",
                    Some("MH-2"),
                    Some("OF-1"),
                    wkt!(LINESTRING(100. 0.,200. 0.)),
                ),
                100.0,
                99.0,
            ),
        ]
    };
    // Digitised downstream, but its inverts rise that way: the other pipes record about
    // 101.5 at MH-1 and 100 at MH-2, so these two were entered against the ends.
    let net = network(
        &nodes,
        &trunk(wkt!(LINESTRING(0. 0.,100. 0.)), 100.0, 101.0),
        1.0,
    );
    let p = net.pipe("P-1").unwrap();
    assert_eq!(p.direction, DirectionSource::Digitised);
    assert_eq!(p.from.structure.as_deref(), Some("MH-1"));
    let report = net.check();
    assert_eq!(
        report.reversed_pipes,
        [ReversedPipe {
            pipe: "P-1".into(),
            from: Some("MH-1".into()),
            to: Some("MH-2".into()),
            from_invert: 100.0,
            to_invert: 101.0,
            direction: DirectionSource::Digitised,
            turned_by_inverts: false,
        }]
    );
    let down = net.trace("CB-1", Direction::Downstream).unwrap();
    assert_eq!(down.outfalls[0].outfall, "OF-1");

    // Digitised upstream, with inverts that fit the structures as recorded: they decide.
    let net = network(
        &nodes,
        &trunk(wkt!(LINESTRING(100. 0.,0. 0.)), 100.0, 101.0),
        1.0,
    );
    let p = net.pipe("P-1").unwrap();
    assert_eq!(p.direction, DirectionSource::Inverts);
    assert_eq!(p.from.structure.as_deref(), Some("MH-1"));
    // Turned round against its digitised order: listed as such, inverts along the flow.
    let report = net.check();
    assert_eq!(
        report.reversed_pipes,
        [ReversedPipe {
            pipe: "P-1".into(),
            from: Some("MH-1".into()),
            to: Some("MH-2".into()),
            from_invert: 101.0,
            to_invert: 100.0,
            direction: DirectionSource::Inverts,
            turned_by_inverts: true,
        }]
    );
    assert_eq!(report.summary.turned_by_inverts, 1);
}

#[test]
fn digitised_direction_when_neither_ids_nor_inverts_tell() {
    let pipes = vec![
        pipe("P-1", None, None, wkt!(LINESTRING(10. 0.,0. 10.))),
        // Level inverts say nothing either.
        inverts(
            pipe("P-2", None, None, wkt!(LINESTRING(0. -10.,10. 0.))),
            100.0,
            100.0,
        ),
    ];
    let net = network(&y_nodes(), &pipes, 1.0);
    let p1 = net.pipe("P-1").unwrap();
    assert_eq!(p1.direction, DirectionSource::Digitised);
    assert_eq!(p1.from.structure.as_deref(), Some("MH-1"));
    assert_eq!(p1.to.structure.as_deref(), Some("CB-1"));
    let p2 = net.pipe("P-2").unwrap();
    assert_eq!(p2.direction, DirectionSource::Digitised);
    assert_eq!(p2.from.structure.as_deref(), Some("CB-2"));
    assert_eq!(net.check().summary.directed_as_digitised, 2);
}

#[test]
fn a_pipe_laid_against_its_inverts_is_reported_and_keeps_its_ids_direction() {
    let mut pipes = y_pipes();
    pipes[0] = inverts(pipes[0].clone(), 95.0, 100.0);
    pipes[1] = inverts(pipes[1].clone(), 101.0, 100.0);
    let net = network(&y_nodes(), &pipes, 1.0);
    let report = net.check();
    assert_eq!(
        report.reversed_pipes,
        [ReversedPipe {
            pipe: "P-1".into(),
            from: Some("CB-1".into()),
            to: Some("MH-1".into()),
            from_invert: 95.0,
            to_invert: 100.0,
            direction: DirectionSource::Ids,
            turned_by_inverts: false,
        }]
    );
    assert_eq!(report.summary.reversed_pipes, 1);
    let down = net.trace("CB-1", Direction::Downstream).unwrap();
    assert_eq!(down.outfalls[0].outfall, "OF-1");
}

#[test]
fn a_dangling_end_is_reported_and_ends_meeting_each_other_make_a_junction() {
    let nodes = vec![
        node(Manhole, "MH-1", wkt!(POINT(0. 0.))),
        node(Outfall, "OF-1", wkt!(POINT(100. 0.))),
    ];
    let pipes = vec![
        // Two pipes meeting at x = 50 where there is no structure.
        pipe("P-1", Some("MH-1"), None, wkt!(LINESTRING(0. 0.,50. 0.))),
        pipe("P-2", None, Some("OF-1"), wkt!(LINESTRING(50.2 0.,100. 0.))),
        // A branch that ends in the middle of nowhere.
        pipe("P-3", Some("MH-1"), None, wkt!(LINESTRING(0. 0.,0. -40.))),
    ];
    let net = network(&nodes, &pipes, 1.0);
    assert_eq!(net.junction_count(), 1);
    let report = net.check();
    assert_eq!(
        report.dangling_ends,
        [DanglingEnd {
            pipe: "P-3".into(),
            end: "to",
            at: Some([0.0, -40.0])
        }]
    );
    assert_eq!(report.summary.ends_at_junctions, 2);
    assert_eq!(report.summary.junctions, 1);
    assert_eq!(net.pipe("P-1").unwrap().to.matched, EndMatch::Junction);

    let down = net.trace("MH-1", Direction::Downstream).unwrap();
    assert_eq!(down.junctions, 1);
    assert_eq!(down.dead_ends, ["P-3"]);
    assert_eq!(ids(&down.outfalls[0].path), ["MH-1", "P-1", "P-2", "OF-1"]);
    // Upstream from the outfall, through the junction, to the manhole.
    let up = net.trace("OF-1", Direction::Upstream).unwrap();
    assert_eq!(ids(&up.structures), ["OF-1", "MH-1"]);
    assert_eq!(ids(&up.pipes), ["P-2", "P-1"]);
}

#[test]
fn cycles_are_reported_and_traces_go_round_them_once() {
    let nodes = vec![
        node(Manhole, "MH-1", wkt!(POINT(0. 0.))),
        node(Manhole, "MH-2", wkt!(POINT(10. 0.))),
        node(Manhole, "MH-3", wkt!(POINT(5. 10.))),
        node(CatchBasin, "CB-1", wkt!(POINT(-10. 0.))),
    ];
    let pipes = vec![
        pipe(
            "P-1",
            Some("MH-1"),
            Some("MH-2"),
            wkt!(LINESTRING(0. 0.,10. 0.)),
        ),
        pipe(
            "P-2",
            Some("MH-2"),
            Some("MH-3"),
            wkt!(LINESTRING(10. 0.,5. 10.)),
        ),
        pipe(
            "P-3",
            Some("MH-3"),
            Some("MH-1"),
            wkt!(LINESTRING(5. 10.,0. 0.)),
        ),
        pipe(
            "P-4",
            Some("CB-1"),
            Some("MH-1"),
            wkt!(LINESTRING(-10. 0.,0. 0.)),
        ),
        // A pipe from a structure back into itself is a cycle too.
        pipe(
            "P-5",
            Some("CB-1"),
            Some("CB-1"),
            wkt!(LINESTRING(-10. 0.,-12. 2.,-10. 0.)),
        ),
    ];
    let net = network(&nodes, &pipes, 1.0);
    let report = net.check();
    assert_eq!(report.summary.cycles, 2);
    assert_eq!(report.summary.pipes_in_cycles, 4);
    let mut listed: Vec<Vec<&str>> = report.cycles.iter().map(|c| ids(&c.pipes)).collect();
    listed.sort();
    assert_eq!(listed, [vec!["P-1", "P-2", "P-3"], vec!["P-5"]]);
    let big = report.cycles.iter().find(|c| c.pipes.len() == 3).unwrap();
    assert_eq!(ids(&big.structures), ["MH-1", "MH-2", "MH-3"]);

    let down = net.trace("CB-1", Direction::Downstream).unwrap();
    assert_eq!(ids(&down.structures), ["CB-1", "MH-1", "MH-2", "MH-3"]);
    assert_eq!(ids(&down.pipes), ["P-4", "P-5", "P-1", "P-2", "P-3"]);
    assert!(down.outfalls.is_empty() && down.dead_ends.is_empty());
    let up = net.trace("MH-1", Direction::Upstream).unwrap();
    assert_eq!(ids(&up.structures), ["MH-1", "MH-3", "CB-1", "MH-2"]);
}

#[test]
fn disconnected_parts_are_counted_with_their_sizes() {
    let mut nodes = y_nodes();
    nodes.push(node(CatchBasin, "CB-7", wkt!(POINT(100. 10.))));
    nodes.push(node(Manhole, "MH-7", wkt!(POINT(110. 0.))));
    let mut pipes = y_pipes();
    pipes.push(pipe(
        "P-7",
        Some("CB-7"),
        Some("MH-7"),
        wkt!(LINESTRING(100. 10.,110. 0.)),
    ));
    let report = network(&nodes, &pipes, 1.0).check();
    assert_eq!(report.summary.parts, 2);
    assert_eq!(report.summary.parts_without_outfall, 1);
    // The part that reaches no outfall comes first.
    assert_eq!(
        report.parts,
        [
            Part {
                structures: 2,
                pipes: 1,
                outfalls: 0,
                example: "CB-7".into()
            },
            Part {
                structures: 4,
                pipes: 3,
                outfalls: 1,
                example: "CB-1".into()
            },
        ]
    );
}

#[test]
fn a_structure_no_pipe_meets_is_an_orphan_not_a_part() {
    let mut nodes = y_nodes();
    nodes.push(node(Manhole, "MH-9", wkt!(POINT(50. 50.))));
    let net = network(&nodes, &y_pipes(), 1.0);
    let report = net.check();
    assert_eq!(
        report.orphan_structures,
        [OrphanStructure {
            id: "MH-9".into(),
            layer: Layer::Manholes
        }]
    );
    assert_eq!(report.summary.parts, 1);
    let alone = net.trace("MH-9", Direction::Downstream).unwrap();
    assert_eq!(ids(&alone.structures), ["MH-9"]);
    assert_eq!(alone.dead_ends, ["MH-9"]);
}
