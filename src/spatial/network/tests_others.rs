//! The nodes that are not catch basins, manholes or outfalls (the network on synthetic
//! towns is tested beside the generator, in `synth`).

use geo_types::wkt;

use super::tests::{ids, network, node, pipe};
use super::*;
use StructureKind::{Other, Outfall, Smp};

#[test]
fn other_structures_and_smps_are_nodes_and_an_smp_without_pipes_is_no_orphan() {
    let nodes = vec![
        node(Other, "HW-1", wkt!(POINT(0. 0.))),
        node(Smp, "SMP-1", wkt!(POINT(100. 0.))),
        node(Outfall, "OF-1", wkt!(POINT(200. 0.))),
        node(Smp, "SMP-2", wkt!(POINT(500. 500.))),
    ];
    let pipes = vec![
        pipe("P-1", None, Some("SMP-1"), wkt!(LINESTRING(0.5 0., 95. 0.))),
        pipe(
            "P-2",
            Some("SMP-1"),
            None,
            wkt!(LINESTRING(105. 0., 199.5 0.)),
        ),
    ];
    let net = network(&nodes, &pipes, 1.0);
    assert_eq!(net.structure_layer("HW-1"), Some(Layer::Structures));
    assert_eq!(net.structure_layer("SMP-1"), Some(Layer::Smps));
    let t = net.trace("HW-1", Direction::Downstream).unwrap();
    assert_eq!(
        ids(&t.outfalls[0].path),
        ["HW-1", "P-1", "SMP-1", "P-2", "OF-1"]
    );
    let r = net.check();
    assert_eq!(r.summary.dangling_ends, 0, "{:?}", r.dangling_ends);
    assert!(r.orphan_structures.is_empty(), "{:?}", r.orphan_structures);
    assert_eq!(r.summary.structures, 4);
}
