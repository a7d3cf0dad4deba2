//! Unit tests of the replace guard's thresholds and the grown boundary box.

use super::read::{grown_union, replace_refusal};
use super::*;

fn report(imported: u64, deletes: usize) -> ImportReport {
    ImportReport {
        imported,
        deletes: (0..deletes).map(|i| format!("F-{i}")).collect(),
        ..Default::default()
    }
}

#[test]
fn replace_is_refused_when_it_empties_the_layer_or_deletes_more_than_half() {
    let mut opts = ImportOptions::new(Layer::Outfalls, "f.geojson");
    opts.mode = WriteMode::Replace;
    let empty = replace_refusal(&opts, &report(0, 10), 10, "f.geojson").unwrap();
    assert!(empty.contains("all 10 features") && empty.contains("--allow-empty"));
    let most = replace_refusal(&opts, &report(4, 6), 10, "f.geojson").unwrap();
    assert!(
        most.contains("6 of the 10") && most.contains("60%"),
        "{most}"
    );
    assert_eq!(replace_refusal(&opts, &report(5, 5), 10, "f.geojson"), None);
    assert_eq!(replace_refusal(&opts, &report(0, 0), 0, "f.geojson"), None);
    opts.allow_empty = true;
    opts.allow_mass_delete = true;
    assert_eq!(
        replace_refusal(&opts, &report(0, 10), 10, "f.geojson"),
        None
    );
    assert_eq!(replace_refusal(&opts, &report(4, 6), 10, "f.geojson"), None);
}

#[test]
fn the_boundary_is_grown_by_its_size_or_the_floor() {
    let r = geo_types::Rect::new((0.0, 0.0), (10.0, 4.0));
    let g = grown_union(&[r], 3.0).unwrap();
    assert_eq!((g.min().x, g.max().y), (-10.0, 14.0));
    let g = grown_union(&[r], 50.0).unwrap();
    assert_eq!((g.min().x, g.max().x), (-50.0, 60.0));
    assert!(grown_union(&[], 1.0).is_none());
}
