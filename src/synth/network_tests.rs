//! The drainage network on synthetic towns: every catch basin drains, the trunk main
//! drains the most, and the county's build time and size.

use crate::domain::{Feature, Layer};
use crate::spatial::network::{Direction, Network, NetworkOptions, StructureKind};
use StructureKind::{CatchBasin, Manhole, Outfall};

fn synthetic_network(layers: &std::collections::BTreeMap<Layer, Vec<Feature>>) -> Network {
    let structures = [CatchBasin, Manhole, Outfall]
        .into_iter()
        .flat_map(|k| layers[&k.layer()].iter().map(move |f| (f, k)));
    // The generator moves id-less ends up to a foot each way off their structure.
    Network::build(structures, &layers[&Layer::Pipes], NetworkOptions::new(3.0))
}

#[test]
fn every_synthetic_catch_basin_drains_to_an_outfall() {
    let layers = super::generate(&super::SynthOptions::new(2000, 1));
    let net = synthetic_network(&layers);
    for cb in &layers[&Layer::CatchBasins] {
        let t = net.trace(&cb.id, Direction::Downstream).unwrap();
        assert!(
            !t.outfalls.is_empty(),
            "{} reaches no outfall: {t:?}\n{:?}",
            cb.id,
            t.pipes
                .iter()
                .map(|p| net.pipe(p).unwrap())
                .collect::<Vec<_>>()
        );
    }
    let report = net.check();
    let s = &report.summary;
    assert_eq!(s.dangling_ends, 0, "{:?}", report.dangling_ends);
    assert_eq!(s.cycles, 0, "{:?}", report.cycles);
    assert_eq!(s.parts_without_outfall, 0);
    assert!(s.ends_snapped > 0 && s.reversed_pipes > 0, "{s:?}");
    assert!(report.orphan_structures.is_empty() && report.unknown_ids.is_empty());
}

/// Build time and size at county scale:
/// `cargo test --lib synth::network_tests::county -- --ignored --nocapture`
/// (add `--release` for production numbers).
#[test]
#[ignore]
fn county_build_time_and_size() {
    let layers = super::generate(&super::SynthOptions::new(1_000_000, 1));
    let started = std::time::Instant::now();
    let net = synthetic_network(&layers);
    let built = started.elapsed();
    let started = std::time::Instant::now();
    let report = net.check();
    let checked = started.elapsed();
    println!(
        "{} structures, {} pipes: built in {:.2}s, {:.1} MB on the heap; checked in {:.2}s; {:?}",
        net.structure_count(),
        net.pipe_count(),
        built.as_secs_f64(),
        net.heap_bytes() as f64 / 1e6,
        checked.as_secs_f64(),
        report.summary
    );
}

/// Structures upstream of the outfall that drains the most, with its id.
fn largest_shed(layers: &std::collections::BTreeMap<Layer, Vec<Feature>>) -> (String, usize) {
    let net = synthetic_network(layers);
    layers[&Layer::Outfalls]
        .iter()
        .map(|o| {
            let n = net
                .trace(&o.id, Direction::Upstream)
                .unwrap()
                .structures
                .len();
            (o.id.clone(), n)
        })
        .max_by_key(|(_, n)| *n)
        .unwrap()
}

#[test]
fn the_trunk_main_drains_the_district_and_the_most() {
    let layers = super::generate(&super::SynthOptions::new(10_000, 7));
    let (id, n) = largest_shed(&layers);
    assert_eq!(id, "OF-T00001");
    let structures = layers[&Layer::CatchBasins].len() + layers[&Layer::Manholes].len();
    // Two of the town's four streams at this size, both banks, every street.
    assert!(
        n * 4 > structures && n * 2 < structures,
        "{n} of {structures}"
    );
}

/// The largest outfall of a county drains at least 10,000 structures:
/// `cargo test --lib synth::network_tests::county_trunk -- --ignored --nocapture`
#[test]
#[ignore]
fn county_trunk_drains_at_least_ten_thousand_structures() {
    let layers = super::generate(&super::SynthOptions::new(1_000_000, 7));
    let (id, n) = largest_shed(&layers);
    println!("{id}: {n} structures upstream");
    assert!(n >= 10_000, "{id}: {n}");
}
