//! Tests of the synthetic generator: determinism, scaling, the rates the brief sets, and
//! that the network it builds is one a registry can trace.

use std::collections::{BTreeMap, HashMap, HashSet};

use geo::{Contains, Validation};
use geo_types::{Coord, Geometry};

use super::*;
use crate::domain::FieldType;

fn opts(parcels: usize, seed: u64) -> SynthOptions {
    SynthOptions {
        unit: LengthUnit::Foot,
        ..SynthOptions::new(parcels, seed)
    }
}

fn count(m: &BTreeMap<Layer, Vec<Feature>>, l: Layer) -> usize {
    m.get(&l).map_or(0, Vec::len)
}

fn point(f: &Feature) -> Coord<f64> {
    match &f.geom {
        Some(Geometry::Point(p)) => p.0,
        g => panic!("{} is not a point: {g:?}", f.id),
    }
}

fn structures(m: &BTreeMap<Layer, Vec<Feature>>) -> Sites<'_> {
    [Layer::CatchBasins, Layer::Manholes, Layer::Outfalls]
        .iter()
        .flat_map(|l| m[l].iter().map(|f| (f.id.as_str(), point(f))))
        .collect()
}

/// Structures by id and position.
type Sites<'a> = Vec<(&'a str, Coord<f64>)>;

/// The structure within `tol` of `c`, through a grid index so the test stays fast.
struct Near<'a> {
    cells: HashMap<(i64, i64), Sites<'a>>,
    size: f64,
}

impl<'a> Near<'a> {
    fn new(points: Sites<'a>, size: f64) -> Self {
        let mut cells: HashMap<_, Vec<_>> = HashMap::new();
        for (id, c) in points {
            cells
                .entry(((c.x / size).floor() as i64, (c.y / size).floor() as i64))
                .or_default()
                .push((id, c));
        }
        Near { cells, size }
    }

    fn find(&self, c: Coord<f64>, tol: f64) -> Option<&'a str> {
        let (cx, cy) = (
            (c.x / self.size).floor() as i64,
            (c.y / self.size).floor() as i64,
        );
        let mut best: Option<(f64, &str)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for (id, p) in self.cells.get(&(cx + dx, cy + dy)).into_iter().flatten() {
                    let d = ((p.x - c.x).powi(2) + (p.y - c.y).powi(2)).sqrt();
                    if d <= tol && best.is_none_or(|b| d < b.0) {
                        best = Some((d, id));
                    }
                }
            }
        }
        best.map(|b| b.1)
    }
}

fn ends(f: &Feature) -> (Coord<f64>, Coord<f64>) {
    match &f.geom {
        Some(Geometry::MultiLineString(m)) => (m.0[0].0[0], *m.0[m.0.len() - 1].0.last().unwrap()),
        g => panic!("{} is not a multilinestring: {g:?}", f.id),
    }
}

#[test]
fn same_seed_gives_the_same_features_and_another_seed_does_not() {
    let a = generate(&opts(600, 7));
    let b = generate(&opts(600, 7));
    assert_eq!(a, b);
    let c = generate(&opts(600, 8));
    assert_ne!(a, c);
}

#[test]
fn counts_scale_with_parcels() {
    let small = generate(&opts(1_000, 3));
    let big = generate(&opts(4_000, 3));
    assert_eq!(count(&small, Layer::Parcels), 1_000);
    assert_eq!(count(&big, Layer::Parcels), 4_000);
    for l in [
        Layer::CatchBasins,
        Layer::Manholes,
        Layer::Pipes,
        Layer::Connections,
    ] {
        let ratio = count(&big, l) as f64 / count(&small, l) as f64;
        assert!(
            (3.0..5.0).contains(&ratio),
            "{l}: {} -> {} ({ratio})",
            count(&small, l),
            count(&big, l)
        );
    }
    assert_eq!(count(&big, Layer::Boundary), 1);
}

#[test]
fn ids_are_unique_and_values_have_their_fields_types() {
    let m = generate(&opts(2_000, 11));
    for (layer, features) in &m {
        let ids: HashSet<&str> = features.iter().map(|f| f.id.as_str()).collect();
        assert_eq!(ids.len(), features.len(), "{layer}");
        for f in features {
            assert_eq!(f.values.len(), layer.fields().len());
            for (spec, v) in layer.fields().iter().zip(&f.values) {
                let ok = match (spec.ty, v) {
                    (_, Value::Null) => !spec.required,
                    (FieldType::Text, Value::Text(_)) | (FieldType::Integer, Value::Int(_)) => true,
                    (
                        FieldType::Real | FieldType::Length(_) | FieldType::Elevation,
                        Value::Real(_),
                    ) => true,
                    (FieldType::Bool, Value::Bool(_)) | (FieldType::Date, Value::Date(_)) => true,
                    _ => false,
                };
                assert!(ok, "{layer} {}: {} = {v:?}", f.id, spec.name);
            }
            assert_eq!(
                f.geom.is_some(),
                layer.geom_kind() != GeomKind::None,
                "{layer} {}",
                f.id
            );
        }
    }
}

#[test]
fn every_feature_of_a_point_layer_is_a_point() {
    let m = generate(&opts(1_500, 5));
    for l in [
        Layer::CatchBasins,
        Layer::Manholes,
        Layer::Outfalls,
        Layer::ConnectionRecords,
    ] {
        assert!(!m[&l].is_empty(), "{l}");
        for f in &m[&l] {
            point(f);
        }
    }
}

#[test]
fn every_parcel_is_a_valid_polygon_inside_the_boundary() {
    let m = generate(&opts(2_000, 9));
    let Some(Geometry::MultiPolygon(boundary)) = &m[&Layer::Boundary][0].geom else {
        panic!("boundary")
    };
    for f in &m[&Layer::Parcels] {
        let Some(Geometry::MultiPolygon(mp)) = &f.geom else {
            panic!("{} is not a multipolygon", f.id)
        };
        assert!(mp.is_valid(), "{}: {:?}", f.id, mp.validation_errors());
        assert!(boundary.contains(mp), "{}", f.id);
    }
}

#[test]
fn pipe_ends_without_ids_lie_near_a_structure_and_ids_name_structures() {
    let m = generate(&opts(3_000, 13));
    let near = Near::new(structures(&m), 50.0);
    let known: HashSet<&str> = structures(&m).into_iter().map(|s| s.0).collect();
    let mut without = 0;
    for p in &m[&Layer::Pipes] {
        let (a, b) = ends(p);
        for (field, end) in [("from_id", a), ("to_id", b)] {
            match p.get(Layer::Pipes, field).as_str() {
                Some(id) => assert!(known.contains(id), "{} {field} {id}", p.id),
                None => {
                    without += 1;
                    assert!(
                        near.find(end, 3.0).is_some(),
                        "{} {field} end {end:?} is far from every structure",
                        p.id
                    );
                }
            }
        }
    }
    let pipes = m[&Layer::Pipes].len() as f64;
    assert!(
        (0.07..0.15).contains(&(without as f64 / 2.0 / pipes)),
        "{without} ends without ids of {pipes} pipes"
    );
}

#[test]
fn every_structure_drains_to_an_outfall() {
    let m = generate(&opts(3_000, 17));
    let near = Near::new(structures(&m), 50.0);
    // Each catch basin and manhole has exactly one pipe out; follow them.
    let mut down: HashMap<&str, &str> = HashMap::new();
    for p in &m[&Layer::Pipes] {
        let (a, b) = ends(p);
        let from = p
            .get(Layer::Pipes, "from_id")
            .as_str()
            .or_else(|| near.find(a, 3.0))
            .expect("from");
        let to = p
            .get(Layer::Pipes, "to_id")
            .as_str()
            .or_else(|| near.find(b, 3.0))
            .expect("to");
        assert!(down.insert(from, to).is_none(), "{from} has two pipes out");
    }
    let outfalls: HashSet<&str> = m[&Layer::Outfalls].iter().map(|f| f.id.as_str()).collect();
    for l in [Layer::CatchBasins, Layer::Manholes] {
        for f in &m[&l] {
            let mut at = f.id.as_str();
            for _ in 0..1_000 {
                if outfalls.contains(at) {
                    break;
                }
                at = down
                    .get(at)
                    .unwrap_or_else(|| panic!("{} stops at {at}", f.id));
            }
            assert!(outfalls.contains(at), "{} never reaches an outfall", f.id);
        }
    }
    // Most pipes fall along their flow; a few are laid against their inverts.
    let against = m[&Layer::Pipes]
        .iter()
        .filter(|p| {
            p.get(Layer::Pipes, "from_invert").as_f64() < p.get(Layer::Pipes, "to_invert").as_f64()
        })
        .count();
    let share = against as f64 / m[&Layer::Pipes].len() as f64;
    assert!(share > 0.0 && share < 0.05, "{share}");
}

#[test]
fn rates_at_ten_thousand_parcels() {
    let m = generate(&opts(10_000, 21));
    let parcels = count(&m, Layer::Parcels) as f64;
    let conns = count(&m, Layer::Connections) as f64;
    let records = count(&m, Layer::ConnectionRecords) as f64;
    let smps = count(&m, Layer::Smps) as f64;
    assert!(
        (0.085..0.115).contains(&(conns / parcels)),
        "connections {conns}"
    );
    assert!(
        (0.75..0.85).contains(&(records / conns)),
        "records {records}"
    );
    assert!((30.0..70.0).contains(&smps), "smps {smps}");
    let with_parcel = m[&Layer::Connections]
        .iter()
        .filter(|c| !c.get(Layer::Connections, "parcel_id").is_null())
        .count();
    assert!(
        (0.8..0.9).contains(&(with_parcel as f64 / conns)),
        "{with_parcel}"
    );
    let residential = m[&Layer::Parcels]
        .iter()
        .filter(|p| p.get(Layer::Parcels, "land_use").as_str() == Some("210"))
        .count();
    assert!(
        residential as f64 / parcels > 0.5,
        "{residential} single-family"
    );
    let easements = count(&m, Layer::Easements) as f64;
    assert!(
        easements >= 0.5 * smps,
        "{easements} easements for {smps} SMPs"
    );
}

#[test]
fn connections_end_on_a_catch_basin_or_a_pipe() {
    let m = generate(&opts(2_000, 23));
    let basins: HashSet<(i64, i64)> = m[&Layer::CatchBasins]
        .iter()
        .map(point)
        .map(|c| ((c.x * 1000.0).round() as i64, (c.y * 1000.0).round() as i64))
        .collect();
    let pipes: Vec<geo_types::MultiLineString<f64>> = m[&Layer::Pipes]
        .iter()
        .filter_map(|p| match &p.geom {
            Some(Geometry::MultiLineString(l)) => Some(l.clone()),
            _ => None,
        })
        .collect();
    for c in &m[&Layer::Connections] {
        let Some(Geometry::LineString(l)) = &c.geom else {
            panic!("{}", c.id)
        };
        let end = *l.0.last().unwrap();
        let key = (
            (end.x * 1000.0).round() as i64,
            (end.y * 1000.0).round() as i64,
        );
        if !basins.contains(&key) {
            use geo::{Distance, Euclidean};
            let p = geo_types::Point(end);
            // A trunk without ids has its ends digitised up to a foot off, so the line
            // itself may pass a foot from a connection that was drawn onto it.
            assert!(
                pipes.iter().any(|m| Euclidean.distance(m, &p) < 1.5),
                "{} ends nowhere",
                c.id
            );
        }
    }
}

#[test]
fn watersheds_partition_the_boundary_and_outfalls_name_real_waters() {
    use geo::Area;
    let m = generate(&opts(5_000, 29));
    let Some(Geometry::MultiPolygon(b)) = &m[&Layer::Boundary][0].geom else {
        panic!()
    };
    let total: f64 = m[&Layer::Watersheds]
        .iter()
        .map(|w| w.geom.as_ref().unwrap().unsigned_area())
        .sum();
    assert!((total / b.unsigned_area() - 1.0).abs() < 1e-9);
    let waters: HashSet<&str> = m[&Layer::ReceivingWaters]
        .iter()
        .map(|w| w.id.as_str())
        .collect();
    for o in &m[&Layer::Outfalls] {
        if let Some(w) = o.get(Layer::Outfalls, "receiving_water_id").as_str() {
            assert!(waters.contains(w), "{} -> {w}", o.id);
        }
    }
    let listed = m[&Layer::ReceivingWaters]
        .iter()
        .filter(|w| w.get(Layer::ReceivingWaters, "listed_303d") == &Value::Bool(true));
    for w in listed {
        assert!(m[&Layer::Impairments]
            .iter()
            .any(|i| i.get(Layer::Impairments, "water_id").as_str() == Some(&w.id)));
    }
    assert!(count(&m, Layer::TmdlAreas) >= 1);
}

#[test]
fn metres_shrink_the_town_by_a_foot() {
    use geo::BoundingRect;
    let feet = generate(&opts(500, 1));
    let metres = generate(&SynthOptions {
        unit: LengthUnit::Metre,
        ..opts(500, 1)
    });
    let size = |m: &BTreeMap<Layer, Vec<Feature>>| {
        m[&Layer::Boundary][0]
            .geom
            .as_ref()
            .unwrap()
            .bounding_rect()
            .unwrap()
            .width()
    };
    assert!((size(&metres) / size(&feet) - 0.3048).abs() < 1e-6);
}

#[test]
fn scale_parses_names_and_numbers() {
    assert_eq!("town".parse::<Scale>().unwrap(), Scale::Town);
    assert_eq!("County".parse::<Scale>().unwrap().parcels(), 1_000_000);
    assert_eq!("1_000".parse::<Scale>().unwrap(), Scale::Parcels(1000));
    assert_eq!("2,500".parse::<Scale>().unwrap().parcels(), 2500);
    assert!("city"
        .parse::<Scale>()
        .unwrap_err()
        .to_string()
        .contains("town, county"));
    assert_eq!(Scale::Town.parcels(), 2_000);
}

#[test]
fn tiny_towns_still_drain() {
    for n in [0, 1, 5, 12, 40] {
        let m = generate(&opts(n, 2));
        assert_eq!(count(&m, Layer::Parcels), n);
        assert!(count(&m, Layer::Outfalls) >= 1, "{n}");
        assert_eq!(count(&m, Layer::Boundary), 1);
    }
}

#[test]
fn writes_geopackages_and_shapefiles() {
    let m = generate(&opts(2_000, 31));
    let meta = crate::import::crs::registry_meta("test", 2263).expect("EPSG:2263 is known");
    let dir = tempfile::tempdir().unwrap();
    let gpkg = write(&m, &meta, &dir.path().join("gpkg"), SynthFormat::Gpkg).unwrap();
    let nonempty = m.values().filter(|v| !v.is_empty()).count();
    assert_eq!(gpkg.len(), nonempty);
    for (layer, path, n) in &gpkg {
        assert_eq!(*n as usize, m[layer].len());
        assert!(path.exists(), "{}", path.display());
    }
    // The same features write the same bytes (timestamps included).
    let again = write(&m, &meta, &dir.path().join("again"), SynthFormat::Gpkg).unwrap();
    for ((_, a, _), (_, b, _)) in gpkg.iter().zip(&again) {
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{} differs",
            a.display()
        );
    }
    let shp = write(&m, &meta, &dir.path().join("shp"), SynthFormat::Shapefile).unwrap();
    let files: HashSet<String> = shp
        .iter()
        .map(|(_, p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        files.contains("impairments.csv")
            && files.contains("parcels.shp")
            && files.contains("smps.shp"),
        "{files:?}"
    );
    for layer in m.keys().filter(|l| !m[*l].is_empty()) {
        let total: u64 = shp
            .iter()
            .filter(|(l, ..)| l == layer)
            .map(|(.., n)| n)
            .sum();
        assert_eq!(total as usize, m[layer].len(), "{layer}");
    }
}

/// Prints the counts at town and county scale and the time the county takes:
/// `cargo test --lib synth::tests::county -- --ignored --nocapture`.
#[test]
#[ignore]
fn county_counts_and_time() {
    for scale in [Scale::Town, Scale::County] {
        let started = std::time::Instant::now();
        let m = generate(&SynthOptions::new(scale.parcels(), 1));
        let took = started.elapsed();
        let counts: Vec<String> = m.iter().map(|(l, v)| format!("{l} {}", v.len())).collect();
        println!("{scale}: {:.1}s: {}", took.as_secs_f64(), counts.join(", "));
    }
}
