//! Spatial queries over the snapshot: nearest facilities, point-in-polygon joins, the
//! easement covering a facility. Distances are planar, in the registry CRS's unit.

use geo::{Distance, Euclidean, Intersects};
use geo_types::{Geometry, Point};
use serde::Serialize;

use super::snapshot::{Entry, LayerIndex, Snapshot};
use crate::domain::{Feature, Layer, LengthUnit};

/// The facility layers an inspector asks about: headwalls, inlets, junction boxes and the
/// other `structures` are facilities like the rest (a headwall at 164 ft is nearer than a
/// catch basin at 282 ft, and is listed first).
pub const FACILITY_LAYERS: [Layer; 5] = [
    Layer::CatchBasins,
    Layer::Manholes,
    Layer::Outfalls,
    Layer::Smps,
    Layer::Structures,
];

/// What to look for around a point.
#[derive(Debug, Clone)]
pub struct NearbyQuery {
    /// The point, in the registry's CRS.
    pub at: Point<f64>,
    /// Only facilities within this distance (CRS units).
    pub radius: Option<f64>,
    /// At most this many, nearest first.
    pub k: Option<usize>,
    /// Which layers.
    pub layers: Vec<Layer>,
}

/// One facility near the point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NearbyFacility {
    /// The facility's layer.
    pub layer: Layer,
    /// Its id.
    pub id: String,
    /// Planar distance from the point, in `unit`.
    pub distance: f64,
    /// The unit of `distance`.
    pub unit: LengthUnit,
    /// Grid bearing from the point to the facility, degrees clockwise from grid north.
    pub bearing_deg: f64,
    /// The bearing as a compass point (N, NE, ...).
    pub direction: &'static str,
    /// The facility's status, when recorded.
    pub status: Option<String>,
    /// The date of its last inspection, if any.
    pub last_inspection: Option<String>,
    /// Whether it is overdue for inspection today (never inspected, or past the day its
    /// schedule gives: `crate::answer::schedule::Schedule::overdue`, which the nearby
    /// answer applies; here the registry's default interval).
    pub overdue: bool,
    /// The recorded easement that covers it, if any.
    pub access: Access,
}

/// Whether a recorded easement gives the town access to a facility (the test
/// `smps-without-easement` uses: [`crate::rules::easement::access_test`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Access {
    /// Covered by a recorded easement whose purpose gives maintenance or access.
    Easement {
        /// The easement's id.
        easement_id: String,
        /// Its recording instrument (liber and page...).
        instrument: Option<String>,
        /// Its purpose.
        purpose: Option<String>,
    },
    /// An easement meets it, but shows no recording, records no purpose, or records a
    /// purpose that names neither maintenance nor access (its terms decide).
    NeedsReview {
        /// The easement's id.
        easement_id: String,
        /// Why it needs review.
        reason: String,
    },
    /// No recorded maintenance or access easement covers it.
    NoRecordedEasement,
}

/// Planar distance from a point to a geometry.
pub fn distance(p: &Point<f64>, g: &Geometry<f64>) -> f64 {
    Euclidean.distance(p, g)
}

/// Grid bearing from `a` to `b` in degrees, clockwise from grid north, in [0, 360).
pub fn bearing(a: &Point<f64>, b: &Point<f64>) -> f64 {
    let deg = (b.x() - a.x()).atan2(b.y() - a.y()).to_degrees();
    if deg < 0.0 {
        deg + 360.0
    } else {
        deg
    }
}

/// The 8-point compass name of a bearing.
pub fn compass(bearing: f64) -> &'static str {
    const NAMES: [&str; 8] = ["N", "NE", "E", "SE", "S", "SW", "W", "NW"];
    NAMES[(((bearing + 22.5) / 45.0).floor() as usize) % 8]
}

/// A representative point of a facility (the point itself, or the closest point of a
/// polygon or line to the query), for bearings.
fn toward(p: &Point<f64>, g: &Geometry<f64>) -> Point<f64> {
    use geo::{Closest, ClosestPoint};
    match g {
        Geometry::Point(q) => *q,
        g => match g.closest_point(p) {
            Closest::Intersection(q) | Closest::SinglePoint(q) => q,
            Closest::Indeterminate => *p,
        },
    }
}

/// The exact distance from `p` to an entry's feature. A point's envelope is the point
/// itself, so its distance comes from the tree entry without touching the feature: the
/// features live far apart in memory, and fetching each candidate's is what a nearby
/// query spends most of its time on.
fn entry_distance(idx: &LayerIndex, e: &Entry, p: &Point<f64>) -> Option<f64> {
    use rstar::PointDistance;
    let r = e.geom();
    if r.lower() == r.upper() {
        return Some(r.distance_2(&[p.x(), p.y()]).sqrt());
    }
    Some(distance(p, idx.features[e.data].geom.as_ref()?))
}

/// The `k` nearest features of one layer within `radius` of `p`, exact distances, nearest
/// first. Without a radius, candidates come from the R-tree in envelope-distance order; an
/// envelope is never farther than its geometry, so the walk stops as soon as the next
/// envelope is farther than the k-th exact distance found.
pub fn nearest_in(
    idx: &LayerIndex,
    p: &Point<f64>,
    radius: Option<f64>,
    k: Option<usize>,
) -> Vec<(usize, f64)> {
    if let Some(r) = radius {
        // With a radius, one range query finds every candidate; cheaper than walking the
        // tree in distance order when the radius holds a handful of features.
        let mut best: Vec<(usize, f64)> = idx
            .tree
            .locate_within_distance([p.x(), p.y()], r * r)
            .filter_map(|e| {
                let d = entry_distance(idx, e, p)?;
                (d <= r).then_some((e.data, d))
            })
            .collect();
        best.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
        if let Some(k) = k {
            best.truncate(k);
        }
        return best;
    }
    let mut best: Vec<(usize, f64)> = Vec::new();
    for (entry, d2) in idx
        .tree
        .nearest_neighbor_iter_with_distance_2(&[p.x(), p.y()])
    {
        let env_d = d2.sqrt();
        if let Some(k) = k {
            if best.len() >= k && env_d > best[k - 1].1 {
                break;
            }
        }
        let Some(d) = entry_distance(idx, entry, p) else {
            continue;
        };
        let at = best.partition_point(|(_, bd)| *bd <= d);
        best.insert(at, (entry.data, d));
        if let Some(k) = k {
            best.truncate(k);
        }
    }
    best
}

/// The nearest feature of one layer within `radius` of `p`, as `nearest_in` with `k` of 1
/// finds it (of equals, the first in the layer). The tree's own nearest search finds the
/// entry whose envelope is nearest; no feature lies nearer than its envelope, so the
/// nearest feature is among those whose envelopes lie within that entry's own distance
/// (or the radius, if nearer), found with one range query. Why not a walk outward in
/// distance order: its heap of the tree's nodes was most of the time a county's million
/// parcels took to find their nearest catch basins.
pub fn nearest_one_within(idx: &LayerIndex, p: &Point<f64>, radius: f64) -> Option<(usize, f64)> {
    let q = [p.x(), p.y()];
    let first = idx.tree.nearest_neighbor(&q)?;
    let bound = entry_distance(idx, first, p)
        .unwrap_or(f64::INFINITY)
        .min(radius);
    if bound.is_nan() || bound < 0.0 {
        return None;
    }
    // A hair wider: a tie's squared distance may round the other way from the root taken.
    let reach = bound * (1.0 + 1e-12);
    let mut best: Option<(usize, f64)> = None;
    for entry in idx.tree.locate_within_distance(q, reach * reach) {
        let Some(d) = entry_distance(idx, entry, p) else {
            continue;
        };
        let better = match best {
            None => true,
            Some((bi, bd)) => d < bd || (d == bd && entry.data < bi),
        };
        if d <= radius && better {
            best = Some((entry.data, d));
        }
    }
    best
}

/// Overdue under the registry's default interval, before the answer applies the
/// profile's schedule.
fn default_overdue(last: Option<chrono::NaiveDate>, today: chrono::NaiveDate) -> bool {
    use crate::rules::schedule::{standing, Requirement};
    let due_by = last.map(|d| Requirement::default_reading().next_due(d));
    standing(last, due_by, today, 0).is_overdue()
}

/// Facilities near a point, across layers, nearest first.
pub fn nearby(snap: &Snapshot, q: &NearbyQuery) -> Vec<NearbyFacility> {
    // The day the map's tiles judge "overdue" on.
    let today = chrono::Local::now().date_naive();
    let mut all: Vec<(Layer, usize, f64)> = Vec::new();
    for &layer in &q.layers {
        for (i, d) in nearest_in(snap.layer(layer), &q.at, q.radius, q.k) {
            all.push((layer, i, d));
        }
    }
    all.sort_by(|a, b| a.2.total_cmp(&b.2).then_with(|| a.0.cmp(&b.0)));
    if let Some(k) = q.k {
        all.truncate(k);
    }
    all.into_iter()
        .map(|(layer, i, d)| {
            let f = &snap.layer(layer).features[i];
            let g = f.geom.as_ref().expect("indexed features have geometry");
            let b = bearing(&q.at, &toward(&q.at, g));
            NearbyFacility {
                layer,
                id: f.id.clone(),
                distance: d,
                unit: snap.meta.linear_unit,
                bearing_deg: b,
                direction: compass(b),
                status: f.get(layer, "status").as_str().map(str::to_string),
                last_inspection: snap.last_inspection(&f.id).map(|d| d.to_string()),
                overdue: default_overdue(snap.last_inspection(&f.id), today),
                access: access_by_easement(snap, g),
            }
        })
        .collect()
}

/// The recorded easement covering a facility's geometry: an easement polygon that meets
/// it and passes the easement rule's access test (the first by id when several do).
pub fn access_by_easement(snap: &Snapshot, g: &Geometry<f64>) -> Access {
    use crate::rules::easement::{access_test, AccessTest};
    let mut review = None;
    for e in easements_meeting(snap, g) {
        let ce = crate::rules::easement::CoveringEasement::from_feature(e);
        match access_test(&ce) {
            AccessTest::Gives => {
                return Access::Easement {
                    easement_id: ce.easement_id,
                    instrument: ce.instrument,
                    purpose: ce.purpose,
                }
            }
            AccessTest::Unrecorded if review.is_none() => {
                review = Some(Access::NeedsReview {
                    easement_id: ce.easement_id,
                    reason: "gives access but shows no recording".into(),
                });
            }
            AccessTest::PurposeUnknown if review.is_none() => {
                review = Some(Access::NeedsReview {
                    easement_id: ce.easement_id,
                    reason: "records no purpose".into(),
                });
            }
            AccessTest::TermsDecide if review.is_none() => {
                review = Some(Access::NeedsReview {
                    easement_id: ce.easement_id,
                    reason: format!(
                        "its purpose ({:?}) names neither maintenance nor access: its terms \
                         decide",
                        ce.purpose.unwrap_or_default()
                    ),
                });
            }
            _ => {}
        }
    }
    review.unwrap_or(Access::NoRecordedEasement)
}

/// The easements meeting a geometry, by id.
pub fn easements_meeting<'a>(snap: &'a Snapshot, g: &Geometry<f64>) -> Vec<&'a Feature> {
    let Some(r) = crate::domain::wkb::bounding_rect(g) else {
        return Vec::new();
    };
    let mut hits: Vec<&Feature> = snap
        .layer(Layer::Easements)
        .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
        .filter(|e| e.geom.as_ref().is_some_and(|eg| eg.intersects(g)))
        .collect();
    hits.sort_by(|a, b| a.id.cmp(&b.id));
    hits
}

/// The features of a polygon layer that contain (intersect) a point, by id.
pub fn containing<'a>(idx: &'a LayerIndex, p: &Point<f64>) -> Vec<&'a Feature> {
    let mut hits: Vec<&Feature> = idx
        .in_envelope([p.x(), p.y(), p.x(), p.y()])
        .filter(|f| f.geom.as_ref().is_some_and(|g| g.intersects(p)))
        .collect();
    hits.sort_by(|a, b| a.id.cmp(&b.id));
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spatial::Snapshot;
    use crate::store::RegistryMeta;
    use geo_types::{point, wkt};
    use std::collections::HashMap;

    fn meta() -> RegistryMeta {
        RegistryMeta {
            jurisdiction: "north-castle-ny".into(),
            srid: 2260,
            crs_name: "test".into(),
            crs_wkt: String::new(),
            linear_unit: LengthUnit::UsSurveyFoot,
        }
    }

    fn f(layer: Layer, id: &str, g: Geometry<f64>) -> Feature {
        let mut x = Feature::new(layer, id);
        x.geom = Some(g);
        x
    }

    fn town() -> Snapshot {
        let mut layers = HashMap::new();
        layers.insert(
            Layer::CatchBasins,
            vec![
                f(Layer::CatchBasins, "CB-1", wkt!(POINT(100. 0.)).into()),
                f(Layer::CatchBasins, "CB-2", wkt!(POINT(0. 50.)).into()),
                f(Layer::CatchBasins, "CB-3", wkt!(POINT(-300. - 400.)).into()),
            ],
        );
        // A pond whose nearest edge is 20 ft east though its envelope centre is far away.
        layers.insert(
            Layer::Smps,
            vec![f(
                Layer::Smps,
                "SMP-1",
                wkt!(POLYGON((20. -1000.,400. -1000.,400. 1000.,20. 1000.,20. -1000.))).into(),
            )],
        );
        let mut e = f(
            Layer::Easements,
            "E-1",
            wkt!(POLYGON((90. -10.,110. -10.,110. 10.,90. 10.,90. -10.))).into(),
        );
        e.set(
            Layer::Easements,
            "instrument",
            crate::domain::Value::Text("Liber 12 cp 3".into()),
        );
        e.set(
            Layer::Easements,
            "purpose",
            crate::domain::Value::Text("maintenance and access".into()),
        );
        layers.insert(Layer::Easements, vec![e]);
        let mut insp = Feature::new(Layer::Inspections, "i1");
        insp.set(
            Layer::Inspections,
            "asset_id",
            crate::domain::Value::Text("CB-2".into()),
        );
        insp.set(
            Layer::Inspections,
            "inspected_on",
            crate::domain::Value::Date(chrono::NaiveDate::from_ymd_opt(2024, 5, 1).unwrap()),
        );
        layers.insert(Layer::Inspections, vec![insp]);
        Snapshot::from_features(meta(), layers)
    }

    #[test]
    fn nearest_facilities_come_by_exact_distance_with_bearing_and_access() {
        let s = town();
        let q = NearbyQuery {
            at: point!(x: 0., y: 0.),
            radius: None,
            k: Some(3),
            layers: FACILITY_LAYERS.to_vec(),
        };
        let got = nearby(&s, &q);
        let ids: Vec<&str> = got.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, ["SMP-1", "CB-2", "CB-1"], "the pond's edge is nearest");
        assert_eq!(got[0].distance, 20.0);
        assert_eq!(got[0].direction, "E");
        assert_eq!((got[1].distance, got[1].direction), (50.0, "N"));
        assert_eq!(got[1].last_inspection.as_deref(), Some("2024-05-01"));
        assert_eq!(got[1].access, Access::NoRecordedEasement);
        assert_eq!(
            got[2].access,
            Access::Easement {
                easement_id: "E-1".into(),
                instrument: Some("Liber 12 cp 3".into()),
                purpose: Some("maintenance and access".into())
            }
        );
        assert_eq!(got[2].unit, LengthUnit::UsSurveyFoot);
    }

    /// Issue 27 item 4: a headwall at 164 ft is listed before a catch basin at 282 ft by
    /// default; asked for catch basins only, it is not.
    #[test]
    fn structures_are_facilities_by_default() {
        let mut layers = HashMap::new();
        layers.insert(
            Layer::CatchBasins,
            vec![f(Layer::CatchBasins, "CB-282", wkt!(POINT(282. 0.)).into())],
        );
        layers.insert(
            Layer::Structures,
            vec![f(Layer::Structures, "HW-164", wkt!(POINT(0. 164.)).into())],
        );
        let s = Snapshot::from_features(meta(), layers);
        let q = NearbyQuery {
            at: point!(x: 0., y: 0.),
            radius: Some(300.0),
            k: None,
            layers: FACILITY_LAYERS.to_vec(),
        };
        let got: Vec<(String, f64)> = nearby(&s, &q)
            .into_iter()
            .map(|n| (n.id, n.distance))
            .collect();
        assert_eq!(
            got,
            [("HW-164".to_string(), 164.0), ("CB-282".to_string(), 282.0)]
        );
        let q = NearbyQuery {
            layers: vec![Layer::CatchBasins],
            ..q
        };
        assert_eq!(nearby(&s, &q).len(), 1);
    }

    #[test]
    fn radius_excludes_what_lies_beyond_it_exactly() {
        let s = town();
        let q = NearbyQuery {
            at: point!(x: 0., y: 0.),
            radius: Some(100.0),
            k: None,
            layers: vec![Layer::CatchBasins],
        };
        let ids: Vec<String> = nearby(&s, &q).into_iter().map(|n| n.id).collect();
        assert_eq!(
            ids,
            ["CB-2", "CB-1"],
            "100 ft is inclusive; CB-3 at 500 ft is out"
        );
        let q = NearbyQuery {
            radius: Some(99.999),
            ..q
        };
        assert_eq!(nearby(&s, &q).len(), 1);
    }

    #[test]
    fn bearings_and_compass_points() {
        let o = point!(x: 0., y: 0.);
        assert_eq!(bearing(&o, &point!(x: 0., y: 10.)), 0.0);
        assert_eq!(bearing(&o, &point!(x: 10., y: 0.)), 90.0);
        assert_eq!(bearing(&o, &point!(x: -10., y: 0.)), 270.0);
        assert_eq!(compass(337.6), "N");
        assert_eq!(compass(225.0), "SW");
    }
    #[test]
    fn the_nearest_one_within_a_radius_is_the_first_of_the_k_nearest() {
        // A grid of inlets with repeated points (equals: the first in the layer wins) and a
        // pond whose envelope is nearer than its edge.
        let mut inlets = Vec::new();
        for i in 0..400 {
            let (x, y) = (f64::from(i % 20) * 37.0, f64::from(i / 20) * 29.0);
            inlets.push(f(
                Layer::CatchBasins,
                &format!("CB-{i}"),
                point!(x: x, y: y).into(),
            ));
            if i % 7 == 0 {
                inlets.push(f(
                    Layer::CatchBasins,
                    &format!("CB-{i}b"),
                    point!(x: x, y: y).into(),
                ));
            }
        }
        let snap = Snapshot::from_features(meta(), HashMap::from([(Layer::CatchBasins, inlets)]));
        let mut layers = HashMap::new();
        layers.insert(
            Layer::Smps,
            vec![
                f(
                    Layer::Smps,
                    "SMP-1",
                    wkt!(POLYGON((20. -1000.,400. -1000.,400. 1000.,20. 1000.,20. -1000.))).into(),
                ),
                f(
                    Layer::Smps,
                    "SMP-2",
                    wkt!(POLYGON((
                        -50. - 50.,
                        -40. - 50.,
                        -40. - 40.,
                        -50. - 40.,
                        -50. - 50.
                    )))
                    .into(),
                ),
            ],
        );
        let ponds = Snapshot::from_features(meta(), layers);
        let mut asked = 0;
        for i in 0..900 {
            let p = point!(x: f64::from(i % 30) * 25.3 - 40.0, y: f64::from(i / 30) * 21.7 - 40.0);
            for (idx, r) in [
                (snap.layer(Layer::CatchBasins), 18.5),
                (snap.layer(Layer::CatchBasins), 300.0),
                (ponds.layer(Layer::Smps), 30.0),
            ] {
                let k = nearest_in(idx, &p, Some(r), Some(1)).first().copied();
                assert_eq!(nearest_one_within(idx, &p, r), k, "{p:?} within {r}");
                asked += usize::from(k.is_some());
            }
        }
        assert!(
            asked > 900,
            "most points have one within the radius: {asked}"
        );
    }
}
