//! How much of the system is mapped, for the permit's "% mapped": by watershed and for
//! the town, outfalls with a receiving water, pipes with a flow direction, structures
//! joined to the network and the town's area inside a sewershed, each figure with the
//! features behind it.
//!
//! A feature counts in the watershed that holds its point (a pipe's middle); one
//! outside every watershed counts for the town only, under no watershed.

use std::borrow::Cow;
use std::collections::BTreeMap;

use geo::{Area, BooleanOps, BoundingRect};
use geo_types::{Geometry, MultiPolygon, Point, Polygon, Rect};
use serde::Serialize;

use super::area_index::{BoxPlace, IndexedArea};
use super::monitoring::containing;
use super::network::{DirectionSource, Joined, Network};
use super::snapshot::Snapshot;
use super::waters::{as_multipolygon, outfall_water, text};
use crate::domain::{AreaUnit, Feature, Layer};

/// One count: how many of how many, with the ids on each side (each list capped).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Figure {
    /// How many meet it.
    pub counted: usize,
    /// How many there are.
    pub total: usize,
    /// `counted / total` (0 to 1); none when there are none.
    pub share: Option<f64>,
    /// The ids that meet it (the first `cap`, by id).
    pub with: Vec<String>,
    /// The ids that do not: what is left to map (the first `cap`, by id).
    pub without: Vec<String>,
    /// How many ids the two lists leave out.
    pub not_listed: usize,
}

impl Figure {
    /// Counts one feature. Its list keeps no more than twice `cap` ids between trims,
    /// each trim keeping the first `cap` by id: what [`Figure::finish`] lists is the same,
    /// and the county's million structures and pipes are not all kept and sorted for a
    /// list of a hundred.
    fn add(&mut self, id: &str, ok: bool, cap: usize) {
        self.total += 1;
        let list = if ok {
            self.counted += 1;
            &mut self.with
        } else {
            &mut self.without
        };
        list.push(id.to_string());
        if list.len() >= cap.saturating_mul(2).max(64) {
            self.not_listed += trim(list, cap);
        }
    }

    fn finish(&mut self, cap: usize) {
        self.share = (self.total > 0).then(|| self.counted as f64 / self.total as f64);
        self.not_listed += trim(&mut self.with, cap) + trim(&mut self.without, cap);
    }
}

/// `list` sorted and cut to its first `cap`; how many were cut.
fn trim(list: &mut Vec<String>, cap: usize) -> usize {
    list.sort_unstable();
    let cut = list.len().saturating_sub(cap);
    list.truncate(cap);
    cut
}

/// The pipes by how their direction is known.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DirectionSources {
    /// From their from/to ids.
    pub ids: usize,
    /// From their inverts.
    pub inverts: usize,
    /// Only from the order they were digitised in (assumed, not recorded).
    pub digitised: usize,
    /// Not in the network (no usable geometry).
    pub none: usize,
}

/// The area figure: how much of an area lies inside a sewershed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AreaFigure {
    /// The area (of the town, or of the watershed inside the town).
    pub area: f64,
    /// The part of it inside a sewershed.
    pub covered: f64,
    /// `covered / area`; none when the area is zero or unknown.
    pub share: Option<f64>,
    /// The sewersheds (their locations) that meet it (capped).
    pub sewersheds: Vec<String>,
}

/// The figures for the town or one watershed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Completeness {
    /// The watershed (none: the town as a whole, or for `outside` the features no
    /// watershed holds).
    pub watershed_id: Option<String>,
    /// Its name.
    pub name: Option<String>,
    /// Outfalls with a receiving water (their own `receiving_water_id`, or the nearest
    /// water within the tolerance).
    pub outfalls_with_water: Figure,
    /// Pipes whose flow direction is recorded (from/to ids or inverts); those known only
    /// from the digitised order are in `without`.
    pub pipes_with_direction: Figure,
    /// The pipes by how their direction is known.
    pub direction_sources: DirectionSources,
    /// Catch basins, manholes, outfalls and other structures a pipe joins.
    pub structures_joined: Figure,
    /// The area inside a sewershed; none when sewersheds were not built or there is no
    /// boundary to measure the town by.
    pub sewershed_coverage: Option<AreaFigure>,
}

/// The whole answer's figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MappingStatus {
    /// The town as a whole.
    pub town: Completeness,
    /// Each watershed, by id.
    pub by_watershed: Vec<Completeness>,
    /// The features no watershed holds (counted for the town only).
    pub outside_watersheds: Completeness,
    /// The unit of every area.
    pub area_unit: AreaUnit,
}

/// What the figures are computed with.
pub struct StatusOptions<'a> {
    /// How far an outfall may lie from the nearest water when it names none (CRS units).
    pub water_tolerance: f64,
    /// Each list's cap.
    pub cap: usize,
    /// The sewersheds built, each with its location id; none to leave coverage out. A
    /// sewershed may come as several pieces under its one id (a nested one as its parts,
    /// [`crate::spatial::sewershed::Sewershed::parts`]): each id is listed once.
    pub sewersheds: Option<&'a [(&'a str, &'a MultiPolygon<f64>)]>,
    /// The town's boundary.
    pub town: Option<&'a MultiPolygon<f64>>,
}

/// Computes the figures.
pub fn mapping_status(
    snap: &Snapshot,
    net: &Network,
    joined: &Joined<'_>,
    opt: &StatusOptions<'_>,
) -> MappingStatus {
    let mut town = Completeness::default();
    let mut outside = Completeness::default();
    let mut sheds: BTreeMap<String, Completeness> = snap
        .layer(Layer::Watersheds)
        .features
        .iter()
        .map(|w| {
            let c = Completeness {
                watershed_id: Some(w.id.clone()),
                name: text(w, Layer::Watersheds, "name"),
                ..Default::default()
            };
            (w.id.clone(), c)
        })
        .collect();
    // The sewersheds' coverage (a union for each watershed) is made beside the counts,
    // whose tallies run on one core once each layer's features are placed: the other
    // core takes the coverage's unions meanwhile.
    let (coverage, ()) = rayon::join(
        || {
            let (Some(sewersheds), Some(t)) = (opt.sewersheds, opt.town) else {
                return None;
            };
            Some(sewershed_coverage(snap, sewersheds, t, opt.cap))
        },
        || count_features(snap, net, joined, opt, &mut town, &mut outside, &mut sheds),
    );
    if let Some(coverage) = coverage {
        coverage.apply(opt.cap, &mut town, &mut sheds);
    }
    for c in std::iter::once(&mut town)
        .chain(std::iter::once(&mut outside))
        .chain(sheds.values_mut())
    {
        for f in [
            &mut c.outfalls_with_water,
            &mut c.pipes_with_direction,
            &mut c.structures_joined,
        ] {
            f.finish(opt.cap);
        }
    }
    MappingStatus {
        town,
        by_watershed: sheds.into_values().collect(),
        outside_watersheds: outside,
        area_unit: snap.meta.linear_unit.squared(),
    }
}

/// Each feature counted for the town and for its watershed (or `outside`): outfalls with
/// a receiving water, pipes with a flow direction, structures a pipe joins.
fn count_features(
    snap: &Snapshot,
    net: &Network,
    joined: &Joined<'_>,
    opt: &StatusOptions<'_>,
    town: &mut Completeness,
    outside: &mut Completeness,
    sheds: &mut BTreeMap<String, Completeness>,
) {
    // Each feature's watershed and fact are read on every core (a point-in-polygon test
    // and a lookup each, for a million structures), then counted in the layer's order.
    let mut count = |placed: Vec<(Option<String>, &Feature, Fact)>,
                     add: &dyn Fn(&mut Completeness, &Feature, Fact)| {
        for (w, f, fact) in placed {
            add(town, f, fact);
            match w {
                Some(w) => add(
                    sheds.get_mut(&w).expect("a watershed of the layer"),
                    f,
                    fact,
                ),
                None => add(outside, f, fact),
            }
        }
    };
    count(
        placed(snap, Layer::Outfalls, |o| {
            Fact::Ok(outfall_water(snap, &o.id, opt.water_tolerance).0.is_some())
        }),
        &|c, o, fact| {
            c.outfalls_with_water
                .add(&o.id, fact == Fact::Ok(true), opt.cap);
        },
    );
    count(
        placed(snap, Layer::Pipes, |p| {
            Fact::Direction(net.pipe_direction(&p.id))
        }),
        &|c, p, fact| {
            let Fact::Direction(source) = fact else {
                return;
            };
            let ok = matches!(
                source,
                Some(DirectionSource::Ids | DirectionSource::Inverts)
            );
            c.pipes_with_direction.add(&p.id, ok, opt.cap);
            let s = &mut c.direction_sources;
            match source {
                Some(DirectionSource::Ids) => s.ids += 1,
                Some(DirectionSource::Inverts) => s.inverts += 1,
                Some(DirectionSource::Digitised) => s.digitised += 1,
                None => s.none += 1,
            }
        },
    );
    for l in [
        Layer::CatchBasins,
        Layer::Manholes,
        Layer::Outfalls,
        Layer::Structures,
    ] {
        count(
            placed(snap, l, |f| Fact::Ok(joined.contains(&f.id))),
            &|c, f, fact| {
                c.structures_joined
                    .add(&f.id, fact == Fact::Ok(true), opt.cap);
            },
        );
    }
}

/// The sewersheds' coverage of the town and of each watershed's part of it, made apart
/// from the counts ([`Coverage::apply`] puts it in them).
struct Coverage {
    town: AreaFigure,
    /// Each watershed's figure, by its id, its list not yet capped.
    sheds: Vec<(String, AreaFigure)>,
}

impl Coverage {
    /// Into the town's and each watershed's figures, each list capped.
    fn apply(
        self,
        cap: usize,
        town: &mut Completeness,
        sheds: &mut BTreeMap<String, Completeness>,
    ) {
        town.sewershed_coverage = Some(self.town);
        for (id, mut figure) in self.sheds {
            figure.sewersheds.truncate(cap);
            if let Some(c) = sheds.get_mut(&id) {
                c.sewershed_coverage = Some(figure);
            }
        }
    }
}

/// The sewersheds' coverage of the town and of each watershed's part of it.
fn sewershed_coverage(
    snap: &Snapshot,
    sewersheds: &[(&str, &MultiPolygon<f64>)],
    t: &MultiPolygon<f64>,
    cap: usize,
) -> Coverage {
    let boxed: Vec<Boxed> = sewersheds
        .iter()
        .filter_map(|&(id, m)| Some((id, m, m.bounding_rect()?)))
        .collect();
    // Each watershed's part of the town and its figure on its own core: each is a
    // union of its own. Their lists are capped once the town's is made from them. The
    // largest boxes are taken first, so that no large union is left to run alone at the
    // end; the figures are kept in the layer's order (the town's is their sum).
    use rayon::prelude::*;
    let watersheds: Vec<&Feature> = snap.layer(Layer::Watersheds).features.iter().collect();
    let mut order: Vec<(f64, usize)> = watersheds
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let size = w.geom.as_ref().and_then(|g| g.bounding_rect());
            (size.map_or(0.0, |r| r.width() * r.height()), i)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut made: Vec<(usize, Option<WatershedPart>)> = order
        .par_iter()
        .with_max_len(1)
        .map(|&(_, i)| {
            let w = watersheds[i];
            let made = w.geom.as_ref().and_then(as_multipolygon).map(|g| {
                let inside = IndexedArea::new(g.intersection(t));
                let figure = coverage(&inside, &boxed, usize::MAX, false);
                (w.id.clone(), inside.into_area(), figure)
            });
            (i, made)
        })
        .collect();
    made.sort_unstable_by_key(|(i, _)| *i);
    let parts: Vec<WatershedPart> = made.into_iter().filter_map(|(_, m)| m).collect();
    let town = if tile_the_town(t, &parts) {
        sum_of(t, &parts, cap)
    } else {
        // The sewersheds are clipped to the town already.
        coverage(&IndexedArea::new(t.clone()), &boxed, cap, true)
    };
    Coverage {
        town,
        sheds: parts.into_iter().map(|(id, _, f)| (id, f)).collect(),
    }
}

/// What is counted of one feature.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fact {
    /// Counted among those that have it, or not.
    Ok(bool),
    /// A pipe's flow direction and where it came from (none: not in the network).
    Direction(Option<DirectionSource>),
}

/// Each feature of a layer, in order, with the watershed holding its point and its fact,
/// found on every core.
fn placed(
    snap: &Snapshot,
    layer: Layer,
    fact: impl Fn(&Feature) -> Fact + Sync,
) -> Vec<(Option<String>, &Feature, Fact)> {
    use rayon::prelude::*;
    let features: Vec<&Feature> = snap.layer(layer).features.iter().collect();
    features
        .par_iter()
        .map(|f| {
            let w = point_of(f.geom.as_ref()).and_then(|p| containing(snap, Layer::Watersheds, &p));
            (w, *f, fact(f))
        })
        .collect()
}

/// Whether the watersheds' parts of the town tile it: their areas add up to the town's
/// (to a billionth) and no two overlap. Then the town's covered area is the sum of theirs
/// and the sewersheds are not unioned once more for the town (on the county, a union of
/// every parcel in a sewershed).
fn tile_the_town(town: &MultiPolygon<f64>, parts: &[WatershedPart]) -> bool {
    let whole = town.unsigned_area();
    let tolerance = whole * 1e-9;
    let sum: f64 = parts.iter().map(|(_, m, _)| m.unsigned_area()).sum();
    if whole <= 0.0 || (sum - whole).abs() > tolerance {
        return false;
    }
    let boxes: Vec<Option<Rect<f64>>> = parts.iter().map(|(_, m, _)| m.bounding_rect()).collect();
    for (i, (_, a, _)) in parts.iter().enumerate() {
        for (j, (_, b, _)) in parts.iter().enumerate().skip(i + 1) {
            let (Some(ra), Some(rb)) = (boxes[i], boxes[j]) else {
                continue;
            };
            if boxes_meet(&ra, &rb) && a.intersection(b).unsigned_area() > tolerance {
                return false;
            }
        }
    }
    true
}

/// The town's figure as the sum of the figures of the watersheds that tile it.
fn sum_of(town: &MultiPolygon<f64>, parts: &[WatershedPart], cap: usize) -> AreaFigure {
    let area = town.unsigned_area();
    let covered = parts
        .iter()
        .map(|(_, _, f)| f.covered)
        .sum::<f64>()
        .min(area);
    let mut ids: Vec<String> = parts
        .iter()
        .flat_map(|(_, _, f)| f.sewersheds.iter().cloned())
        .collect();
    ids.sort();
    ids.dedup();
    ids.truncate(cap);
    AreaFigure {
        area,
        covered,
        share: (area > 0.0).then(|| covered / area),
        sewersheds: ids,
    }
}

fn boxes_meet(a: &Rect<f64>, b: &Rect<f64>) -> bool {
    a.min().x <= b.max().x
        && b.min().x <= a.max().x
        && a.min().y <= b.max().y
        && b.min().y <= a.max().y
}

/// A watershed's id, its part of the town and that part's coverage.
type WatershedPart = (String, MultiPolygon<f64>, AreaFigure);

/// A sewershed's id and polygon, with its bounding box (found once, not once per area).
type Boxed<'a> = (&'a str, &'a MultiPolygon<f64>, Rect<f64>);

/// How much of `area` lies in a sewershed, and which sewersheds meet it. Each sewershed
/// meeting the area's box is clipped to it (only one whose box the area's boundary
/// crosses: one wholly inside is its own part) and the parts are unioned: where two overlap (a
/// structure draining both ways, the buffers of pipes side by side) their common part
/// counts once. (Clipping each first, not the union of all of them once per watershed:
/// the town's union is one polygon of every parcel in a sewershed, and clipping it again
/// for each watershed cost that whole polygon each time.) `inside_already`: the
/// sewersheds lie inside the area (clipped to the town), so each is not clipped again.
fn coverage(
    area: &IndexedArea,
    sewersheds: &[Boxed],
    cap: usize,
    inside_already: bool,
) -> AreaFigure {
    let area_poly = area.area();
    let a = area_poly.unsigned_area();
    let Some(r) = area_poly.bounding_rect() else {
        return AreaFigure::default();
    };
    let mut ids = Vec::new();
    // A sewershed inside is read where it lies, not copied.
    let mut parts: Vec<Cow<MultiPolygon<f64>>> = Vec::new();
    // The box first: most sewersheds lie wholly outside a watershed's box.
    for (id, m, b) in sewersheds.iter().filter(|(_, _, b)| boxes_meet(b, &r)) {
        let part = match (inside_already, area.place(b)) {
            (true, _) | (false, BoxPlace::Inside) => Cow::Borrowed(*m),
            (false, BoxPlace::Outside) => continue,
            (false, BoxPlace::Across) => Cow::Owned(area.across_for_union(m)),
        };
        if part.unsigned_area() > 0.0 {
            ids.push(id.to_string());
            parts.push(part);
        }
    }
    ids.sort();
    ids.dedup();
    ids.truncate(cap);
    let polygons: Vec<&Polygon<f64>> = parts.iter().flat_map(|m| m.0.iter()).collect();
    let covered = super::dissolve::union_area(&polygons).min(a);
    AreaFigure {
        area: a,
        covered,
        share: (a > 0.0).then(|| covered / a),
        sewersheds: ids,
    }
}

/// A feature's point: itself, the middle of a line (half its length along), or a
/// polygon's centroid.
fn point_of(g: Option<&Geometry<f64>>) -> Option<Point<f64>> {
    use geo::line_measures::{Euclidean, InterpolatableLine};
    match g? {
        Geometry::Point(p) => Some(*p),
        Geometry::LineString(l) => l.point_at_ratio_from_start(&Euclidean, 0.5),
        Geometry::MultiLineString(m) => m.0.first()?.point_at_ratio_from_start(&Euclidean, 0.5),
        g => geo::Centroid::centroid(g),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;

    fn square(x0: f64, y0: f64, side: f64) -> MultiPolygon<f64> {
        MultiPolygon(vec![
            geo::Rect::new((x0, y0), (x0 + side, y0 + side)).to_polygon()
        ])
    }

    #[test]
    fn a_figure_lists_the_first_ids_whatever_order_they_come_in() {
        // 1,000 ids in a scrambled order, every third one without; a cap of 10 (trimmed
        // along the way at 64).
        let mut f = Figure::default();
        let ids: Vec<String> = (0..1000)
            .map(|i| format!("P-{:04}", (i * 389) % 1000))
            .collect();
        for id in &ids {
            let n: usize = id[2..].parse().unwrap();
            f.add(id, n % 3 != 0, 10);
        }
        f.finish(10);
        let first = |keep: fn(usize) -> bool| -> Vec<String> {
            (0..1000)
                .filter(|&n| keep(n))
                .take(10)
                .map(|n| format!("P-{n:04}"))
                .collect()
        };
        assert_eq!(f.with, first(|n| n % 3 != 0));
        assert_eq!(f.without, first(|n| n % 3 == 0));
        assert_eq!((f.total, f.counted, f.not_listed), (1000, 666, 980));
        approx::assert_relative_eq!(f.share.unwrap(), 0.666);
    }

    #[test]
    fn overlapping_sewersheds_cover_their_common_part_once() {
        // A town of 100 x 100; two sewersheds of 40 x 40 sharing a 20 x 40 strip, and a
        // third reaching 10 beyond the town's east edge.
        let town = square(0.0, 0.0, 100.0);
        let sheds = [
            ("OF-1".to_string(), square(0.0, 0.0, 40.0)),
            (
                "OF-2".to_string(),
                MultiPolygon(vec![wkt!(POLYGON((20. 0.,60. 0.,60. 40.,20. 40.,20. 0.)))]),
            ),
            ("OF-3".to_string(), square(80.0, 80.0, 30.0)),
        ];
        let boxed: Vec<Boxed> = sheds
            .iter()
            .map(|(id, m)| (id.as_str(), m, m.bounding_rect().unwrap()))
            .collect();
        let fig = coverage(&IndexedArea::new(town.clone()), &boxed, 10, false);
        // 40 x 60 for the first two (1,600 + 1,600 - 800), 20 x 20 of the third inside.
        approx::assert_relative_eq!(fig.covered, 2_400.0 + 400.0, epsilon = 1e-6);
        approx::assert_relative_eq!(fig.share.unwrap(), 0.28, epsilon = 1e-9);
        assert_eq!(fig.sewersheds, ["OF-1", "OF-2", "OF-3"]);
        // The western half: the two overlapping ones only, their overlap counted once.
        let west = square(0.0, 0.0, 50.0);
        let fig = coverage(&IndexedArea::new(west.clone()), &boxed, 10, false);
        approx::assert_relative_eq!(fig.covered, 40.0 * 50.0, epsilon = 1e-6);
        assert_eq!(fig.sewersheds, ["OF-1", "OF-2"]);
    }

    fn rect(x0: f64, y0: f64, x1: f64, y1: f64) -> MultiPolygon<f64> {
        MultiPolygon(vec![geo::Rect::new((x0, y0), (x1, y1)).to_polygon()])
    }

    #[test]
    fn the_town_is_the_sum_of_the_watersheds_that_tile_it() {
        let town = square(0.0, 0.0, 100.0);
        let sheds = [
            ("OF-1".to_string(), square(0.0, 0.0, 40.0)),
            ("OF-2".to_string(), rect(20.0, 0.0, 60.0, 40.0)),
            ("OF-3".to_string(), square(80.0, 80.0, 20.0)),
        ];
        let boxed: Vec<Boxed> = sheds
            .iter()
            .map(|(id, m)| (id.as_str(), m, m.bounding_rect().unwrap()))
            .collect();
        let part = |id: &str, m: MultiPolygon<f64>| {
            let f = coverage(&IndexedArea::new(m.clone()), &boxed, usize::MAX, false);
            (id.to_string(), m, f)
        };
        let tiles = [
            part("W", rect(0.0, 0.0, 50.0, 100.0)),
            part("E", rect(50.0, 0.0, 100.0, 100.0)),
        ];
        assert!(tile_the_town(&town, &tiles));
        let summed = sum_of(&town, &tiles, 10);
        let unioned = coverage(&IndexedArea::new(town.clone()), &boxed, 10, false);
        // 40 x 60 for the first two, their overlap once; 20 x 20 for the third.
        approx::assert_relative_eq!(summed.covered, 2_800.0, epsilon = 1e-6);
        approx::assert_relative_eq!(summed.covered, unioned.covered, epsilon = 1e-6);
        assert_eq!(summed.sewersheds, unioned.sewersheds);
        // A strip of the town in no watershed: not a tiling.
        let gap = [
            part("W", rect(0.0, 0.0, 40.0, 100.0)),
            part("E", rect(50.0, 0.0, 100.0, 100.0)),
        ];
        assert!(!tile_the_town(&town, &gap));
        // Areas that add up to the town's, but overlap (and so leave a corner out).
        let overlap = [
            part("W", rect(0.0, 0.0, 60.0, 100.0)),
            part("E", rect(50.0, 0.0, 100.0, 80.0)),
        ];
        assert!(!tile_the_town(&town, &overlap));
    }
}
