//! Preliminary storm sewersheds: for a monitoring location, the area that drains to it,
//! built from its upstream trace.
//!
//! The method ([`METHOD`]): each parcel drains to the inlets inside it; a parcel with none
//! drains to the structures its connections join; a parcel with neither drains to the
//! inlet nearest its centre within the reach. A location's sewershed is the union of the
//! parcels all of whose drains its upstream trace reaches, and of the traced pipes and
//! structures buffered by the snap tolerance (so every inlet and pipe traced lies inside
//! it, street right-of-way included; square, not round: a round buffer's 32-sided circles
//! at every structure and pipe end were most of the polygons' vertices, and the unions'
//! time), clipped to the town boundary. A parcel whose drains
//! reach several locations is left out and listed, so no sewershed holds an inlet of
//! another's trace by a parcel. Its quality: the inlets inside it no pipe joins, the
//! inlets inside it of another trace (overlaps), and the dangling pipe ends the trace met.

use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::{Arc, OnceLock};

use geo::algorithm::buffer::{BufferStyle, LineCap, LineJoin};
use geo::coordinate_position::{CoordPos, CoordinatePosition};
use geo::{Area, BooleanOps, BoundingRect, Buffer, Centroid, Contains};
use geo_types::{Coord, Geometry, LineString, MultiPolygon, Polygon};
use serde::Serialize;

use super::area_index::IndexedArea;
use super::connections::ms4_end;
use super::dissolve;
use super::envelope::extent_of;
use super::monitoring::joined_at;
use super::network::{Joined, Network, Trace};
use super::point_grid::PointGrid;
use super::query::nearest_one_within;
use super::snapshot::Snapshot;
use super::waters::as_multipolygon;
use crate::domain::{Feature, Layer};
use crate::rules::Profile;

/// The method, as the answer states it.
pub const METHOD: &str = "parcels whose drains all lie on the location's upstream trace (a parcel drains to the catch basins inside it; with none, to the structures its connections join; with neither, to the nearest catch basin within the reach), unioned with the traced pipes and structures buffered by the snap tolerance (square caps and corners), clipped to the town boundary";

/// How sewersheds are built, in CRS units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SewershedOptions {
    /// The buffer round the traced pipes and structures (the snap tolerance).
    pub buffer: f64,
    /// How far a parcel with no inlet and no connection may lie from its nearest inlet.
    pub reach: f64,
    /// How far a connection's MS4 end may lie from what it joins.
    pub snap_tolerance: f64,
    /// How many structures and pipes a trace held whole by another's must reach for the
    /// larger sewershed to be built from its sewershed ([`NESTED_FROM`]).
    pub nested_from: usize,
}

/// Below this, a sewershed held whole by another is built again inside the larger one: a
/// small one costs less to build again than to overlay whole, and builds on every core.
pub const NESTED_FROM: usize = 2_000;

/// What is doubtful in a sewershed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SewershedQuality {
    /// Catch basins inside it that no pipe joins: their water's way is not mapped.
    pub inlets_without_trace: Vec<String>,
    /// Catch basins inside it that are joined but drain elsewhere (another trace's).
    pub inlets_of_other_traces: Vec<String>,
    /// Where the trace stopped for want of data: pipes whose upstream end meets nothing.
    pub dangling_ends: Vec<String>,
    /// Parcels left out because their drains reach this location and another.
    pub parcels_split: Vec<String>,
}

impl SewershedQuality {
    /// A catch basin inside the sewershed its trace does not reach: of another trace
    /// when a pipe joins it, else of none.
    fn file_inlet(&mut self, id: &str, joined: &Joined<'_>) {
        if joined.contains(id) {
            self.inlets_of_other_traces.push(id.to_string());
        } else {
            self.inlets_without_trace.push(id.to_string());
        }
    }

    /// The lists in id order.
    fn sorted(mut self) -> Self {
        self.inlets_of_other_traces.sort();
        self.inlets_without_trace.sort();
        self
    }
}

/// One location's sewershed.
#[derive(Debug, Clone, Serialize)]
pub struct Sewershed {
    /// The monitoring location.
    pub location_id: String,
    /// Its area, in the square of the registry's unit.
    pub area: f64,
    /// The parcels in it.
    pub parcels: Vec<String>,
    /// The catch basins its trace reaches.
    pub inlets: Vec<String>,
    /// The share of its parcels' area in commercial or industrial use (0 to 1); none
    /// when it holds no parcel.
    pub commercial_industrial_share: Option<f64>,
    /// The monitoring location upstream whose whole sewershed this one holds and was
    /// built from (none: built from its own trace alone).
    pub holds_sewershed_of: Option<String>,
    /// What is doubtful in it.
    pub quality: SewershedQuality,
    /// For one built alone, its polygon; for one built from another's, the part of its
    /// polygon that one lacks (its own part), which meets that one's in no area.
    #[serde(skip)]
    part: MultiPolygon<f64>,
    /// The sewershed this one was built from (see [`Sewershed::holds_sewershed_of`]).
    #[serde(skip)]
    base: Option<Arc<Sewershed>>,
    /// The whole polygon of one built from another's, made when first asked for: about a
    /// hundred sewersheds nest along the county's State trunk, each whole a union of tens
    /// of thousands of vertices, one after the other, where their areas, their map and
    /// the coverage of the town need only the parts.
    #[serde(skip)]
    whole: OnceLock<MultiPolygon<f64>>,
}

impl PartialEq for Sewershed {
    /// Equal in what they say and in their parts (whether the whole is made yet is no
    /// difference).
    fn eq(&self, o: &Self) -> bool {
        (
            &self.location_id,
            self.area,
            &self.parcels,
            &self.inlets,
            self.commercial_industrial_share,
            &self.holds_sewershed_of,
            &self.quality,
            &self.part,
            &self.base,
        ) == (
            &o.location_id,
            o.area,
            &o.parcels,
            &o.inlets,
            o.commercial_industrial_share,
            &o.holds_sewershed_of,
            &o.quality,
            &o.part,
            &o.base,
        )
    }
}

impl Sewershed {
    /// The polygon, in the registry's CRS: for one built from another's, that one's
    /// polygon and its own part unioned, on the first call.
    pub fn polygon(&self) -> &MultiPolygon<f64> {
        match &self.base {
            None => &self.part,
            Some(base) => self.whole.get_or_init(|| {
                if self.part.0.is_empty() {
                    base.polygon().clone()
                } else {
                    base.polygon().union(&self.part)
                }
            }),
        }
    }

    /// For one built from another's ([`Sewershed::holds_sewershed_of`]): the part of its
    /// polygon that one lacks. A map draws this, so the sewersheds nested along a trunk
    /// line are drawn as a row of parts, not as a hundred copies of the trunk's polygon
    /// stacked on each other. None for one built alone.
    pub fn own_part(&self) -> Option<&MultiPolygon<f64>> {
        self.base.as_ref().map(|_| &self.part)
    }

    /// Pieces that meet in no area and together make the polygon: its own part, then
    /// the parts of the one it was built from, down to one built alone.
    pub fn parts(&self) -> Vec<&MultiPolygon<f64>> {
        let mut out = vec![&self.part];
        let mut at = self;
        while let Some(b) = &at.base {
            out.push(&b.part);
            at = b;
        }
        out
    }

    /// Whether its polygon is empty (no part has any).
    pub fn is_empty(&self) -> bool {
        self.parts().iter().all(|p| p.0.is_empty())
    }
}

/// Where each parcel drains, decided once for every location. The ids are the
/// snapshot's own, borrowed: a million parcels' lists of copied ids were a third of the
/// time it took, most of it the allocator's.
pub struct ParcelDrains<'a> {
    /// Each structure or pipe a parcel drains to: its place in `starts`.
    slot: FxHashMap<&'a str, u32>,
    /// Where each slot's parcels start in `parcels`, and after the last, their end.
    starts: Vec<u32>,
    /// The parcels (indexes, ascending) that drain to each slot, slot after slot: one
    /// list for all, not one allocated for each of the county's 400,000 inlets.
    parcels: Vec<u32>,
    /// For each parcel, how many drains it has.
    count: Vec<u32>,
}

impl<'a> ParcelDrains<'a> {
    /// Decides each parcel's drains (see the module docs), the parcels side by side on
    /// every core (each its own search of the inlets).
    pub fn new(snap: &'a Snapshot, opt: &SewershedOptions) -> Self {
        use rayon::prelude::*;
        let parcels = snap.layer(Layer::Parcels);
        let inlets = snap.layer(Layer::CatchBasins);
        let connections: Vec<&Feature> = snap.layer(Layer::Connections).features.iter().collect();
        let joins: Vec<(&str, &str)> = connections
            .par_iter()
            .filter_map(|c| {
                let p = c.get(Layer::Connections, "parcel_id").as_str()?;
                let end = c.geom.as_ref().and_then(ms4_end)?;
                Some((p, joined_at(snap, &end, opt.snap_tolerance)?))
            })
            .collect();
        let mut by_parcel_id: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        for (p, a) in joins {
            by_parcel_id.entry(p).or_default().push(a);
        }
        // The catch basins are points: the nearest to each of a million parcels is read
        // off a grid of them, not the tree's walk.
        let grid = PointGrid::new(inlets);
        let all: Vec<&Feature> = parcels.features.iter().collect();
        let each: Vec<smallvec::SmallVec<[&str; 2]>> = all
            .par_iter()
            .map(|p| {
                let Some(g) = &p.geom else {
                    return smallvec::SmallVec::new();
                };
                let mut drains: smallvec::SmallVec<[&str; 2]> = match g.bounding_rect() {
                    Some(r) => inlets
                        .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
                        .filter(|f| f.geom.as_ref().is_some_and(|ig| g.contains(ig)))
                        .map(|f| f.id.as_str())
                        .collect(),
                    None => smallvec::SmallVec::new(),
                };
                if drains.is_empty() {
                    if let Some(joined) = by_parcel_id.get(p.id.as_str()) {
                        drains.extend(joined.iter().copied());
                    }
                }
                if drains.is_empty() {
                    if let Some(c) = g.centroid() {
                        let nearest = match &grid {
                            Some(grid) => grid.nearest_within(&c, opt.reach),
                            None => nearest_one_within(inlets, &c, opt.reach),
                        };
                        if let Some((j, _)) = nearest {
                            drains.push(inlets.features[j].id.as_str());
                        }
                    }
                }
                drains.sort_unstable();
                drains.dedup();
                drains
            })
            .collect();
        Self::gathered(&each, inlets.features.len())
    }

    /// Each parcel's drains (`each`, in the parcels' order) gathered by drain: every
    /// drain's slot, and each slot's parcels in one list. `inlets`: how many catch
    /// basins, the most drains there usually are.
    fn gathered(each: &[smallvec::SmallVec<[&'a str; 2]>], inlets: usize) -> Self {
        let count: Vec<u32> = each.iter().map(|d| d.len() as u32).collect();
        // Each drain's slot, in the parcels' order, and how many parcels each slot has.
        let mut slot: FxHashMap<&str, u32> =
            FxHashMap::with_capacity_and_hasher(inlets, Default::default());
        let mut slots: Vec<u32> = Vec::with_capacity(each.len());
        let mut sizes: Vec<u32> = Vec::with_capacity(inlets);
        for d in each.iter().flatten() {
            let next = slot.len() as u32;
            let k = *slot.entry(*d).or_insert(next);
            if k == next {
                sizes.push(0);
            }
            sizes[k as usize] += 1;
            slots.push(k);
        }
        let mut starts = Vec::with_capacity(sizes.len() + 1);
        let mut at = 0;
        starts.push(0);
        for n in &sizes {
            at += n;
            starts.push(at);
        }
        let mut fill: Vec<u32> = starts[..sizes.len()].to_vec();
        let mut parcels = vec![0; slots.len()];
        let mut k = slots.iter();
        for (i, drains) in each.iter().enumerate() {
            for _ in drains {
                let s = *k.next().expect("a slot for each drain") as usize;
                parcels[fill[s] as usize] = i as u32;
                fill[s] += 1;
            }
        }
        ParcelDrains {
            slot,
            starts,
            parcels,
            count,
        }
    }

    /// The parcels (indexes, ascending) that drain to a structure or pipe.
    fn of(&self, asset: &str) -> &[u32] {
        match self.slot.get(asset) {
            Some(&k) => {
                &self.parcels
                    [self.starts[k as usize] as usize..self.starts[k as usize + 1] as usize]
            }
            None => &[],
        }
    }
}

/// What every sewershed of a snapshot is built from, decided once.
pub struct Sewersheds<'a> {
    snap: &'a Snapshot,
    net: &'a Network,
    drains: ParcelDrains<'a>,
    /// Each parcel's area and whether its land use is commercial or industrial.
    parcel_facts: Vec<(f64, bool)>,
    joined: Joined<'a>,
    town: Option<IndexedArea>,
    opt: SewershedOptions,
}

impl<'a> Sewersheds<'a> {
    /// The parcels' drains, the structures a pipe joins and the town's boundary.
    pub fn new(
        snap: &'a Snapshot,
        profile: &'a Profile,
        net: &'a Network,
        opt: SewershedOptions,
    ) -> Self {
        // Each is its own; side by side, the others fill the cores while one runs on one
        // (the drains' lists are gathered on one core).
        let ((drains, parcel_facts), (joined, town)) = rayon::join(
            || {
                rayon::join(
                    || ParcelDrains::new(snap, &opt),
                    || parcel_facts(snap, profile),
                )
            },
            || (net.joined(), town_area(snap).map(IndexedArea::new)),
        );
        Sewersheds {
            snap,
            net,
            drains,
            parcel_facts,
            joined,
            town,
            opt,
        }
    }

    /// The town's boundary, when the registry has one.
    pub fn town(&self) -> Option<&MultiPolygon<f64>> {
        self.town.as_ref().map(IndexedArea::area)
    }

    /// The sewersheds of many locations, in their order, built side by side on every core
    /// (each is a union of its own). A location whose trace holds the whole trace of
    /// another with at least [`SewershedOptions::nested_from`] structures and pipes (the
    /// interconnections along a trunk line, each draining every one upstream of it) is
    /// built from that one's sewershed and its own new parts, after it. A location listed
    /// again with the same trace (an outfall another body owns is an interconnection too)
    /// is built once, and its sewershed shared.
    pub fn of_each<'t>(
        &self,
        locations: impl IntoIterator<Item = (&'t str, &'t Trace)>,
    ) -> Vec<Arc<Sewershed>> {
        let listed: Vec<(&str, &Trace)> = locations.into_iter().collect();
        let (locations, built_as) = once_each(&listed);
        let built = self.of_distinct(&locations);
        built_as.into_iter().map(|k| built[k].clone()).collect()
    }

    /// [`Self::of_each`] of locations listed once each.
    fn of_distinct(&self, locations: &[(&str, &Trace)]) -> Vec<Arc<Sewershed>> {
        let bases = nested_bases(locations, self.opt.nested_from);
        let plan = Plan::new(&bases);
        let built: Vec<OnceLock<Arc<Sewershed>>> =
            locations.iter().map(|_| OnceLock::new()).collect();
        let job = Job {
            builder: self,
            locations,
            bases: &bases,
            plan: &plan,
            built: &built,
        };
        // Each location is a task, and each one built from another is spawned when that
        // one is done: a trunk's chain of nested sewersheds, one after the other, runs
        // beside the rest rather than after it. The tallest chains are spawned last, so
        // they are started first.
        rayon::scope(|s| {
            for &k in &plan.roots {
                let job = &job;
                s.spawn(move |s| job.run(s, k));
            }
        });
        built
            .into_iter()
            .map(|s| s.into_inner().expect("every location is built"))
            .collect()
    }

    /// The sewershed of one location from its upstream trace.
    pub fn of(&self, location_id: &str, trace: &Trace) -> Sewershed {
        let reached = reached(trace);
        let (parcels, split) = self.parcels_reached(&reached);
        // The parcels dissolved as a coverage first: a block's lots share their lines.
        let outline = dissolve::outline_of(self.shapes(&parcels));
        let mut pieces: Vec<Polygon<f64>> = Vec::new();
        network_pieces(
            self.snap,
            self.net,
            numbered(&trace.pipes, &trace.pipe_numbers),
            std::iter::empty(),
            numbered(&trace.structures, &trace.nodes),
            self.opt.buffer,
            &mut pieces,
        );
        let polygon = self.in_town(union_with_outline(outline, pieces));
        let quality = quality(self.snap, &polygon, &reached, &self.joined, trace, split);
        self.finish(location_id, trace, parcels, polygon, quality)
    }

    /// The sewershed of a location whose trace holds `base_trace` whole: `base`'s polygon
    /// (clipped to the town already) and the parts of its own that `base` lacks, clipped.
    /// The same area as [`Self::of`] builds (a union taken in another order): each parcel
    /// of `base` drains wholly into the larger trace too, and each structure `base` lacks
    /// is at the end of a pipe it lacks or at no pipe's end. Only its own part is made
    /// here, less `base`'s; the whole is made when asked for ([`Sewershed::polygon`]).
    fn around<'t>(
        &self,
        location_id: &str,
        trace: &'t Trace,
        base: &Arc<Sewershed>,
        base_trace: &Trace,
    ) -> Sewershed {
        let in_base = reached(base_trace);
        let reached = reached(trace);
        let (parcels, split) = self.parcels_reached(&reached);
        let base_parcels: FxHashSet<&str> = base.parcels.iter().map(String::as_str).collect();
        let parcels_layer = self.snap.layer(Layer::Parcels);
        let new_parcels: Vec<usize> = parcels
            .iter()
            .copied()
            .filter(|&p| !base_parcels.contains(parcels_layer.features[p].id.as_str()))
            .collect();
        let outline = dissolve::outline_of(self.shapes(&new_parcels));
        let mut pieces: Vec<Polygon<f64>> = Vec::new();
        let in_base = &in_base;
        let new = move |ids: &'t [String], numbers: &'t [u32]| {
            numbered(ids, numbers).filter(move |(id, _)| !in_base.contains(id.as_str()))
        };
        // A structure new here may lie at the end of one of the base's pipes (the pipe an
        // interconnection on a pipe starts from: its downstream structure is not on its
        // own trace), inside that pipe's cap, as when built alone.
        let drawn = numbered(&base_trace.pipes, &base_trace.pipe_numbers);
        network_pieces(
            self.snap,
            self.net,
            new(&trace.pipes, &trace.pipe_numbers),
            drawn,
            new(&trace.structures, &trace.nodes),
            self.opt.buffer,
            &mut pieces,
        );
        let own = self.in_town(union_with_outline(outline, pieces));
        let near = near_parts(base, &own, self.opt.buffer);
        let quality = self.quality_around(&base.quality, &own, &near, &reached, trace, split);
        let mut s = self.finish(location_id, trace, parcels, beyond(own, &near), quality);
        // The part's area, as `finish` measured it, and the base's: they meet in no area.
        s.area += base.area;
        s.holds_sewershed_of = Some(base.location_id.clone());
        s.base = Some(base.clone());
        s
    }

    /// The quality of a sewershed built from `base`'s ([`Sewersheds::around`]): the catch
    /// basins inside it its trace does not reach, found without testing every catch basin in
    /// its box against the whole polygon (on the county, tens of thousands of vertices each).
    /// One inside `base`'s polygon is in `base`'s lists already; one `own` part (the new
    /// parts, clipped) holds is inside too; one on `own`'s boundary may lie on the seam of the
    /// two and is tested against their union near it (`own` and `near`, `base`'s parts
    /// within `own`'s box and a margin: inside that box the same as the whole). Any other
    /// lies outside both, so outside their union: `base`'s lists hold every catch basin
    /// inside it that `base`'s trace does not reach, and what that trace reaches, this
    /// larger one reaches too.
    fn quality_around(
        &self,
        base: &SewershedQuality,
        own: &MultiPolygon<f64>,
        near: &MultiPolygon<f64>,
        reached: &FxHashSet<&str>,
        trace: &Trace,
        parcels_split: Vec<String>,
    ) -> SewershedQuality {
        let still = |ids: &[String]| -> Vec<String> {
            ids.iter()
                .filter(|id| !reached.contains(id.as_str()))
                .cloned()
                .collect()
        };
        let mut q = SewershedQuality {
            inlets_without_trace: still(&base.inlets_without_trace),
            inlets_of_other_traces: still(&base.inlets_of_other_traces),
            dangling_ends: trace.dead_ends.clone(),
            parcels_split,
        };
        let listed: FxHashSet<&str> = base
            .inlets_without_trace
            .iter()
            .chain(&base.inlets_of_other_traces)
            .map(String::as_str)
            .collect();
        let mut seam: Option<MultiPolygon<f64>> = None;
        let own_boxed = PolygonBoxes::new(own);
        if let Some(r) = own_boxed.extent() {
            for f in self.snap.layer(Layer::CatchBasins).in_envelope([
                r.min().x,
                r.min().y,
                r.max().x,
                r.max().y,
            ]) {
                let Some(Geometry::Point(p)) = &f.geom else {
                    continue;
                };
                if reached.contains(f.id.as_str()) || listed.contains(f.id.as_str()) {
                    continue;
                }
                // Inside `own`, or on a boundary of one of its polygons (the seam).
                let (position, touched) = own_boxed.position(p.0);
                let inside = position == CoordPos::Inside
                    || (touched
                        && seam
                            .get_or_insert_with(|| union_nonzero(own, near))
                            .contains(p));
                if !inside {
                    continue;
                }
                q.file_inlet(&f.id, &self.joined);
            }
        }
        q.sorted()
    }

    /// `m`'s part in the town; `m` when the registry has no boundary.
    fn in_town(&self, m: MultiPolygon<f64>) -> MultiPolygon<f64> {
        match &self.town {
            Some(t) => t.clip(&m),
            None => m,
        }
    }

    /// The parcels (indexes, in order) all of whose drains the trace reaches, and the ids
    /// of those only partly reached (split), sorted.
    fn parcels_reached(&self, reached: &FxHashSet<&str>) -> (Vec<usize>, Vec<String>) {
        let drains = &self.drains;
        let parcels_layer = self.snap.layer(Layer::Parcels);
        // Each parcel once for each of its drains reached, sorted: a run of a parcel is
        // how many of its drains the trace reaches. (Sorted, not counted in a map: the
        // parcels come out in order, and a sewershed has a few dozen.)
        let mut hits: Vec<u32> = reached.iter().flat_map(|a| drains.of(a)).copied().collect();
        hits.sort_unstable();
        let mut parcels = Vec::new();
        let mut split = Vec::new();
        for run in hits.chunk_by(|a, b| a == b) {
            let p = run[0] as usize;
            if run.len() == drains.count[p] as usize {
                parcels.push(p);
            } else {
                split.push(parcels_layer.features[p].id.clone());
            }
        }
        split.sort();
        (parcels, split)
    }

    /// The polygons of these parcels.
    fn shapes<'s>(&'s self, parcels: &'s [usize]) -> impl Iterator<Item = &'s Polygon<f64>> {
        let layer = self.snap.layer(Layer::Parcels);
        parcels
            .iter()
            .filter_map(move |&p| layer.features[p].geom.as_ref())
            .flat_map(|g| match g {
                Geometry::Polygon(p) => std::slice::from_ref(p),
                Geometry::MultiPolygon(m) => &m.0[..],
                _ => &[],
            })
    }

    /// The sewershed of a location, from its parcels, polygon and quality: its area, the
    /// parcels' share in commercial or industrial use and its inlets.
    fn finish(
        &self,
        location_id: &str,
        trace: &Trace,
        parcels: Vec<usize>,
        polygon: MultiPolygon<f64>,
        quality: SewershedQuality,
    ) -> Sewershed {
        let layer = self.snap.layer(Layer::Parcels);
        let (mut all_area, mut ci_area) = (0.0, 0.0);
        for &p in &parcels {
            let (a, ci) = self.parcel_facts[p];
            all_area += a;
            if ci {
                ci_area += a;
            }
        }
        Sewershed {
            location_id: location_id.to_string(),
            area: polygon.unsigned_area(),
            parcels: parcels
                .into_iter()
                .map(|p| layer.features[p].id.clone())
                .collect(),
            inlets: inlets(self.snap, self.net, trace),
            commercial_industrial_share: (all_area > 0.0).then(|| ci_area / all_area),
            holds_sewershed_of: None,
            quality,
            part: polygon,
            base: None,
            whole: OnceLock::new(),
        }
    }
}

/// `base`'s parts ([`Sewershed::parts`]) within `own`'s box widened by `margin`, each
/// cut in one linear pass: `base` is a trunk's sewershed of tens of thousands of
/// vertices, `own` a few blocks beside it. The parts meet in no area, only along seams.
fn near_parts(base: &Sewershed, own: &MultiPolygon<f64>, margin: f64) -> MultiPolygon<f64> {
    let Some(b) = own.bounding_rect() else {
        return MultiPolygon::new(Vec::new());
    };
    let m = margin.max(1.0);
    let wide = geo_types::Rect::new(
        geo_types::coord! { x: b.min().x - m, y: b.min().y - m },
        geo_types::coord! { x: b.max().x + m, y: b.max().y + m },
    );
    MultiPolygon::new(
        base.parts()
            .into_iter()
            .flat_map(|p| crate::spatial::area_index::cut_to_box(p, &wide).0)
            .collect(),
    )
}

/// The part of `own` outside `near` (the base's parts near it, [`near_parts`]). Their
/// seams are filled by winding, not by parity: where two parts overlap by a rounding's
/// sliver, parity would leave the sliver out of `near` and in the part.
fn beyond(own: MultiPolygon<f64>, near: &MultiPolygon<f64>) -> MultiPolygon<f64> {
    use geo::algorithm::bool_ops::{FillRule, OpType};
    if near.0.is_empty() || own.0.is_empty() {
        own
    } else {
        own.boolean_op_with_fill_rule(near, OpType::Difference, FillRule::NonZero)
    }
}

/// `a` and `b` unioned, each filled by winding (see [`beyond`]).
fn union_nonzero(a: &MultiPolygon<f64>, b: &MultiPolygon<f64>) -> MultiPolygon<f64> {
    use geo::algorithm::bool_ops::{FillRule, OpType};
    a.boolean_op_with_fill_rule(b, OpType::Union, FillRule::NonZero)
}

/// Each parcel's area (none without a polygon) and whether its land use is commercial or
/// industrial by the profile, read once for every sewershed, on every core. Each land-use
/// value is classified once for each share of the parcels a core takes: a county's
/// million parcels carry a few dozen values.
fn parcel_facts(snap: &Snapshot, profile: &Profile) -> Vec<(f64, bool)> {
    use rayon::prelude::*;
    let all: Vec<&Feature> = snap.layer(Layer::Parcels).features.iter().collect();
    all.par_iter()
        .map_init(FxHashMap::<&str, bool>::default, |classed, f| {
            let area = match &f.geom {
                Some(Geometry::Polygon(p)) => p.unsigned_area(),
                Some(Geometry::MultiPolygon(m)) => m.unsigned_area(),
                _ => return (0.0, false),
            };
            let ci = f
                .get(Layer::Parcels, "land_use")
                .as_str()
                .is_some_and(|lu| {
                    *classed
                        .entry(lu)
                        .or_insert_with(|| profile.land_use_class(lu).is_commercial_or_industrial())
                });
            (area, ci)
        })
        .collect()
}

/// The locations with each one listed again with the same trace left out, and for each
/// location listed, its place among them. (On the county, 2,538 outfalls are
/// interconnections too: a twentieth of the sewersheds' work was building them twice.)
fn once_each<'l, 't>(listed: &[(&'l str, &'t Trace)]) -> (Vec<(&'l str, &'t Trace)>, Vec<usize>) {
    // Most ids are listed once: each one's list is held in place, not allocated.
    let mut first: FxHashMap<&str, smallvec::SmallVec<[usize; 1]>> =
        FxHashMap::with_capacity_and_hasher(listed.len(), Default::default());
    let mut distinct: Vec<(&str, &Trace)> = Vec::with_capacity(listed.len());
    let built_as = listed
        .iter()
        .map(|&(id, trace)| {
            let seen = first.entry(id).or_default();
            // The same id traced from another network, or asked of another trace, is
            // built as it is listed.
            if let Some(&k) = seen
                .iter()
                .find(|&&k| std::ptr::eq(distinct[k].1, trace) || distinct[k].1 == trace)
            {
                return k;
            }
            seen.push(distinct.len());
            distinct.push((id, trace));
            distinct.len() - 1
        })
        .collect();
    (distinct, built_as)
}

/// Every structure and pipe a trace reaches.
fn reached(trace: &Trace) -> FxHashSet<&str> {
    trace
        .structures
        .iter()
        .chain(&trace.pipes)
        .map(String::as_str)
        .collect()
}

/// For each location, the one whose sewershed it is built from: the location with the
/// largest trace (at least `nested_from` structures and pipes) that starts on its own
/// trace and whose trace its own holds whole, checked, not presumed (a walk against a
/// bidirectional pipe's recorded direction can reach what a walk from downstream does not).
fn nested_bases(locations: &[(&str, &Trace)], nested_from: usize) -> Vec<Option<usize>> {
    use rayon::prelude::*;
    let size = |t: &Trace| t.structures.len() + t.pipes.len();
    let starts: FxHashMap<&str, usize> = locations
        .iter()
        .enumerate()
        .map(|(i, (id, _))| (*id, i))
        .collect();
    locations
        .par_iter()
        .enumerate()
        .map(|(k, &(_, t))| {
            // A base is no larger than what is built from it.
            if size(t) < nested_from {
                return None;
            }
            let smaller = |j: usize| (size(locations[j].1), j) < (size(t), k);
            let j = t
                .structures
                .iter()
                .chain(&t.pipes)
                .filter_map(|id| starts.get(id.as_str()).copied())
                .filter(|&j| j != k && smaller(j) && size(locations[j].1) >= nested_from)
                .max_by_key(|&j| (size(locations[j].1), j))?;
            let mine = reached(t);
            let theirs = locations[j].1;
            theirs
                .structures
                .iter()
                .chain(&theirs.pipes)
                .all(|id| mine.contains(id.as_str()))
                .then_some(j)
        })
        .collect()
}

/// The order to build in: the locations built from none (roots), the shortest chains of
/// sewersheds built from them first, and for each location those built from it.
struct Plan {
    roots: Vec<usize>,
    dependents: Vec<Vec<usize>>,
}

impl Plan {
    fn new(bases: &[Option<usize>]) -> Self {
        let mut dependents = vec![Vec::new(); bases.len()];
        let mut roots = Vec::new();
        for (k, b) in bases.iter().enumerate() {
            match b {
                Some(j) => dependents[*j].push(k),
                None => roots.push(k),
            }
        }
        // How many are built one after the other from each root, at most.
        let mut height = vec![0usize; bases.len()];
        let mut done = vec![false; bases.len()];
        // Iterative post-order: chains can be long.
        for &start in &roots {
            let mut stack = vec![(start, false)];
            while let Some((k, expanded)) = stack.pop() {
                if expanded {
                    height[k] = 1 + dependents[k].iter().map(|&d| height[d]).max().unwrap_or(0);
                    done[k] = true;
                } else if !done[k] {
                    stack.push((k, true));
                    stack.extend(dependents[k].iter().map(|&d| (d, false)));
                }
            }
        }
        roots.sort_by_key(|&k| height[k]);
        Plan { roots, dependents }
    }
}

/// What each task of [`Sewersheds::of_each`] reads and writes.
struct Job<'j, 'a> {
    builder: &'j Sewersheds<'a>,
    locations: &'j [(&'j str, &'j Trace)],
    bases: &'j [Option<usize>],
    plan: &'j Plan,
    built: &'j [OnceLock<Arc<Sewershed>>],
}

impl<'j> Job<'j, '_> {
    /// Builds location `k`, then spawns those built from it.
    fn run(&'j self, s: &rayon::Scope<'j>, k: usize) {
        let (id, t) = self.locations[k];
        let shed = match self.bases[k] {
            Some(j) => {
                let base = self.built[j].get().expect("a base is built first");
                self.builder.around(id, t, base, self.locations[j].1)
            }
            None => self.builder.of(id, t),
        };
        let _ = self.built[k].set(Arc::new(shed));
        for &d in &self.plan.dependents[k] {
            s.spawn(move |s| self.run(s, d));
        }
    }
}

/// The catch basins a trace reaches, sorted.
fn inlets(snap: &Snapshot, net: &Network, trace: &Trace) -> Vec<String> {
    let mut out: Vec<String> = numbered(&trace.structures, &trace.nodes)
        .filter(|(id, n)| {
            structure_geometry(snap, net, id, *n).is_some_and(|(l, _)| l == Layer::CatchBasins)
        })
        .map(|(id, _)| id.clone())
        .collect();
    out.sort();
    out
}

/// A trace's ids, each with the network's number of it when the trace carries them (one
/// the network made does), to read its feature by its place, not look it up by id: on
/// the county, those lookups in maps of a million ids were a tenth of a sewershed's time.
fn numbered<'t>(
    ids: &'t [String],
    numbers: &'t [u32],
) -> impl Iterator<Item = (&'t String, Option<u32>)> + Clone {
    let numbers = (numbers.len() == ids.len()).then_some(numbers);
    ids.iter()
        .enumerate()
        .map(move |(i, id)| (id, numbers.map(|n| n[i])))
}

/// A traced pipe's geometry: of the pipe at its number when that one bears its id, else
/// the pipe of that id.
fn pipe_geometry<'s>(
    snap: &'s Snapshot,
    id: &str,
    number: Option<u32>,
) -> Option<&'s Geometry<f64>> {
    let layer = snap.layer(Layer::Pipes);
    match number.and_then(|n| layer.features.get(n as usize)) {
        Some(f) if f.id == id => f.geom.as_ref(),
        _ => snap.geometry(Layer::Pipes, id),
    }
}

/// A traced structure's layer and geometry: of the structure at its node's place when
/// that one bears its id, else of the structure of that id.
fn structure_geometry<'s>(
    snap: &'s Snapshot,
    net: &Network,
    id: &str,
    node: Option<u32>,
) -> Option<(Layer, &'s Geometry<f64>)> {
    if let Some((layer, i)) = node.and_then(|n| net.structure_at(n)) {
        if let Some(f) = snap.layer(layer).features.get(i).filter(|f| f.id == id) {
            return f.geom.as_ref().map(|g| (layer, g));
        }
    }
    let layer = net.structure_layer(id)?;
    snap.geometry(layer, id).map(|g| (layer, g))
}

/// The traced pipes and structures buffered by `buffer` (square caps and corners), into
/// `pieces`. A structure at the end of a traced pipe (of `pipes`, or of `drawn`, pipes
/// whose pieces are drawn already) is inside that pipe's square cap and adds no piece of
/// its own.
fn network_pieces<'i>(
    snap: &Snapshot,
    net: &Network,
    pipes: impl Iterator<Item = (&'i String, Option<u32>)>,
    drawn: impl Iterator<Item = (&'i String, Option<u32>)>,
    structures: impl Iterator<Item = (&'i String, Option<u32>)>,
    buffer: f64,
    pieces: &mut Vec<Polygon<f64>>,
) {
    let style = || {
        BufferStyle::new(buffer.max(0.01))
            .line_cap(LineCap::Square)
            .line_join(LineJoin::Bevel)
    };
    let key = |c: Coord<f64>| (c.x.to_bits(), c.y.to_bits());
    let mut ends = FxHashSet::default();
    fn lines_of(g: &Geometry<f64>) -> Vec<&LineString<f64>> {
        match g {
            Geometry::LineString(l) => vec![l],
            Geometry::MultiLineString(m) => m.0.iter().collect(),
            _ => Vec::new(),
        }
    }
    let end_points = |lines: &[&LineString<f64>], ends: &mut FxHashSet<_>| {
        for l in lines {
            ends.extend(
                [l.0.first(), l.0.last()]
                    .into_iter()
                    .flatten()
                    .map(|c| key(*c)),
            );
        }
    };
    for (id, n) in drawn {
        if let Some(g) = pipe_geometry(snap, id, n) {
            end_points(&lines_of(g), &mut ends);
        }
    }
    for (id, n) in pipes {
        let Some(g) = pipe_geometry(snap, id, n) else {
            continue;
        };
        let lines = lines_of(g);
        end_points(&lines, &mut ends);
        match lines.as_slice() {
            // A pipe is drawn as its outline, one ring, where that ring is its buffer.
            // (A bent one drawn as its runs' rectangles and corners' bevels instead, its
            // pieces made the sewershed's union slower than the buffer's overlay of them.)
            [l] => match bent_capped(&l.0, buffer.max(0.01)) {
                Some(p) => pieces.push(p),
                None => pieces.extend(g.buffer_with_style(style()).0),
            },
            _ => pieces.extend(g.buffer_with_style(style()).0),
        }
    }
    for (id, n) in structures {
        // Of the network's structures, only these four layers are buffered: a practice is
        // not.
        let drawn_layer = |l: Layer| {
            matches!(
                l,
                Layer::CatchBasins | Layer::Manholes | Layer::Outfalls | Layer::Structures
            )
        };
        let Some(g) = structure_geometry(snap, net, id, n)
            .filter(|(l, _)| drawn_layer(*l))
            .map(|(_, g)| g)
        else {
            continue;
        };
        match g {
            Geometry::Point(p) if ends.contains(&key(p.0)) => {}
            Geometry::Point(p) => pieces.push(square_round(p.0, buffer.max(0.01))),
            _ => pieces.extend(g.buffer_with_style(style()).0),
        }
    }
}

/// A straight pipe from `a` to `b` buffered by `d` with square caps: the rectangle
/// `d` either side of it and `d` past each end, counter-clockwise. (What the buffer
/// makes of two points, without its overlay; most pipes are one straight run.)
fn square_capped(a: Coord<f64>, b: Coord<f64>, d: f64) -> Polygon<f64> {
    let (dx, dy) = (b.x - a.x, b.y - a.y);
    let len = dx.hypot(dy);
    let (ux, uy) = (dx / len * d, dy / len * d);
    let (nx, ny) = (-uy, ux);
    let c = |x: f64, y: f64| Coord { x, y };
    Polygon::new(
        LineString::new(vec![
            c(a.x - ux - nx, a.y - uy - ny),
            c(b.x + ux - nx, b.y + uy - ny),
            c(b.x + ux + nx, b.y + uy + ny),
            c(a.x - ux + nx, a.y - uy + ny),
            c(a.x - ux - nx, a.y - uy - ny),
        ]),
        Vec::new(),
    )
}

/// The most runs a pipe drawn by [`bent_capped`] may have: its check that no two runs
/// meet compares every pair.
const BENT_RUNS: usize = 16;

/// A pipe of one or more straight runs buffered by `d` with square caps and bevelled corners
/// (one run is [`square_capped`]),
/// as the buffer draws it, without its overlay (four in five of the county's pipes bend,
/// and the buffer's overlay of each was a sixth of a sewershed's time): along its right
/// side, round its far cap, back along its left side and round its near cap,
/// counter-clockwise. At each corner its outer side is bevelled (the two runs' sides'
/// ends joined) and its inner side turns where the two runs' sides cross. None where
/// that one ring would not be the buffer, left to the buffer: a run shorter than its
/// corners' turns take from it, a turn sharper than 120°, two runs not end to end within
/// `3d` of each other (their buffers, caps included, might meet), or more than
/// [`BENT_RUNS`] runs.
fn bent_capped(line: &[Coord<f64>], d: f64) -> Option<Polygon<f64>> {
    use geo::{Distance, Euclidean};
    let mut p = line.to_vec();
    p.dedup();
    let n = p.len();
    if !(2..=BENT_RUNS + 1).contains(&n) {
        return None;
    }
    if n == 2 {
        return Some(square_capped(p[0], p[1], d));
    }
    let c = |x: f64, y: f64| Coord { x, y };
    // Each run's unit direction, its left normal and its length.
    let runs: Vec<(Coord<f64>, Coord<f64>, f64)> = p
        .windows(2)
        .map(|w| {
            let (dx, dy) = (w[1].x - w[0].x, w[1].y - w[0].y);
            let len = dx.hypot(dy);
            (c(dx / len, dy / len), c(-dy / len, dx / len), len)
        })
        .collect();
    // Each corner's turn (+ left, - right, 0 straight on) and where its inner side turns,
    // measured off the corner in units of `d` along the normals' sum.
    let mut turn = vec![0.0; n];
    let mut inner = vec![0.0; n];
    let mut setback = vec![0.0; n];
    for i in 1..n - 1 {
        let (a, b) = (runs[i - 1].0, runs[i].0);
        let dot = a.x * b.x + a.y * b.y;
        if dot <= -0.5 {
            return None;
        }
        turn[i] = a.x * b.y - a.y * b.x;
        inner[i] = d / (1.0 + dot);
        setback[i] = d * turn[i].abs() / (1.0 + dot);
    }
    if (0..n - 1).any(|i| setback[i] + setback[i + 1] > runs[i].2) {
        return None;
    }
    let seg = |i: usize| geo_types::Line::new(p[i], p[i + 1]);
    for i in 0..n - 1 {
        for j in i + 2..n - 1 {
            if Euclidean.distance(&seg(i), &seg(j)) <= 3.0 * d {
                return None;
            }
        }
    }
    let at = |q: Coord<f64>, v: Coord<f64>, k: f64| c(q.x + v.x * k, q.y + v.y * k);
    let (u0, n0, _) = runs[0];
    let (ul, nl, _) = runs[n - 2];
    let mut ring = vec![at(at(p[0], u0, -d), n0, -d)];
    for i in 1..n - 1 {
        let (n1, n2) = (runs[i - 1].1, runs[i].1);
        let sum = c(n1.x + n2.x, n1.y + n2.y);
        if turn[i] > 0.0 {
            ring.push(at(p[i], n1, -d));
            ring.push(at(p[i], n2, -d));
        } else if turn[i] < 0.0 {
            ring.push(at(p[i], sum, -inner[i]));
        }
    }
    ring.push(at(at(p[n - 1], ul, d), nl, -d));
    ring.push(at(at(p[n - 1], ul, d), nl, d));
    for i in (1..n - 1).rev() {
        let (n1, n2) = (runs[i - 1].1, runs[i].1);
        let sum = c(n1.x + n2.x, n1.y + n2.y);
        if turn[i] > 0.0 {
            ring.push(at(p[i], sum, inner[i]));
        } else if turn[i] < 0.0 {
            ring.push(at(p[i], n2, d));
            ring.push(at(p[i], n1, d));
        }
    }
    ring.push(at(at(p[0], u0, -d), n0, d));
    Some(Polygon::new(LineString::new(ring), Vec::new()))
}

/// A point buffered by `d` with square caps: the square `d` either side of it, as the
/// buffer draws it (counter-clockwise from the lower right), without its overlay.
fn square_round(c: Coord<f64>, d: f64) -> Polygon<f64> {
    let (x0, x1, y0, y1) = (c.x - d, c.x + d, c.y - d, c.y + d);
    Polygon::new(
        LineString::from(vec![(x1, y0), (x1, y1), (x0, y1), (x0, y0), (x1, y0)]),
        Vec::new(),
    )
}

/// The union of the parcels' outline ([`dissolve::outline`]) and the network's pieces, in
/// one overlay, however many pieces. (They were unioned 64 at a time and the results 8 at
/// a time past 64 pieces, when a trunk line's thousands of overlapping round buffers made
/// one overlay's graph grow past gigabytes. With square buffers, one overlay of each
/// sewershed took the county's sewersheds about 5% less time, and the whole process 11%
/// less memory at its peak.)
fn union_with_outline(outline: Vec<Vec<[f64; 2]>>, pieces: Vec<Polygon<f64>>) -> MultiPolygon<f64> {
    let mut rings = outline;
    rings.extend(pieces.into_iter().flat_map(dissolve::rings_of));
    dissolve::fill(rings)
}

/// How many pieces are unioned at a time ([`union_in_stages`]).
const UNION_GROUP: usize = 64;

/// Pieces unioned near ones first: a few dozen neighbours at a time, then the results a
/// few at a time (the town's boundary, of any number of polygons). Neighbours merged first
/// leave each later union a few large shapes; the unions of a stage are independent, and
/// run on every core.
pub(crate) fn union_in_stages(mut pieces: Vec<Polygon<f64>>) -> MultiPolygon<f64> {
    // The county's figures: 64 then 8 at a time took 27 s for every sewershed where 64
    // then pairs took 34 s (fewer passes over the large shapes); 256 then 8 was no faster.
    const FAN: usize = 8;
    // One winding for every piece: the union reads the first ring's winding as the
    // filled side, so a parcel stored clockwise (a shapefile's exterior) beside
    // counter-clockwise buffers would otherwise be dropped as a hole.
    for p in &mut pieces {
        dissolve::wind(p);
    }
    pieces.sort_by_cached_key(|p| {
        p.bounding_rect()
            .map(|r| morton(r.center().x, r.center().y))
            .unwrap_or(0)
    });
    use rayon::prelude::*;
    let mut parts: Vec<MultiPolygon<f64>> = pieces
        .par_chunks(UNION_GROUP)
        .map(geo::unary_union)
        .collect();
    while parts.len() > 1 {
        parts = parts
            .par_chunks(FAN)
            .map(|c| match c {
                [a] => a.clone(),
                [a, b] => a.union(b),
                many => geo::unary_union(many.iter().flat_map(|m| m.0.iter())),
            })
            .collect();
    }
    parts.pop().unwrap_or_else(|| MultiPolygon::new(Vec::new()))
}

/// A point's place on a Z-order curve (its coordinates' bits interleaved, after rounding
/// to whole units): points near each other are mostly near each other in this order.
fn morton(x: f64, y: f64) -> u64 {
    let spread = |v: f64| {
        let mut v = (v.max(0.0) as u64) & 0xFFFF_FFFF;
        v = (v | (v << 16)) & 0x0000_FFFF_0000_FFFF;
        v = (v | (v << 8)) & 0x00FF_00FF_00FF_00FF;
        v = (v | (v << 4)) & 0x0F0F_0F0F_0F0F_0F0F;
        v = (v | (v << 2)) & 0x3333_3333_3333_3333;
        (v | (v << 1)) & 0x5555_5555_5555_5555
    };
    spread(x) | (spread(y) << 1)
}

/// A multi-polygon's polygons, each with its box: where a point lies is read from the
/// polygons whose box holds it only. (A sewershed's quality asks it of every catch basin
/// in its box; each polygon's whole ring walked for each was a fiftieth of the county's
/// sewersheds.)
struct PolygonBoxes<'m> {
    polygons: Vec<(geo_types::Rect<f64>, &'m Polygon<f64>)>,
}

impl<'m> PolygonBoxes<'m> {
    fn new(m: &'m MultiPolygon<f64>) -> Self {
        PolygonBoxes {
            polygons: m
                .0
                .iter()
                .filter_map(|p| Some((p.bounding_rect()?, p)))
                .collect(),
        }
    }

    /// The box of them all: the multi-polygon's, from the boxes already found.
    fn extent(&self) -> Option<geo_types::Rect<f64>> {
        extent_of(self.polygons.iter().map(|(r, _)| *r))
    }

    /// Where `c` lies, as [`CoordinatePosition`] reads it of the whole multi-polygon (a
    /// polygon whose box does not hold `c` has it outside, and adds nothing), and whether
    /// any polygon has it inside or on its boundary (as `Intersects` reads it).
    fn position(&self, c: Coord<f64>) -> (CoordPos, bool) {
        let (mut inside, mut boundary) = (false, 0);
        for (r, p) in &self.polygons {
            let (lo, hi) = (r.min(), r.max());
            if c.x < lo.x || c.x > hi.x || c.y < lo.y || c.y > hi.y {
                continue;
            }
            p.calculate_coordinate_position(&c, &mut inside, &mut boundary);
        }
        let position = if boundary % 2 == 1 {
            CoordPos::OnBoundary
        } else if inside {
            CoordPos::Inside
        } else {
            CoordPos::Outside
        };
        (position, inside || boundary > 0)
    }
}

fn quality(
    snap: &Snapshot,
    polygon: &MultiPolygon<f64>,
    reached: &FxHashSet<&str>,
    joined: &Joined<'_>,
    trace: &Trace,
    parcels_split: Vec<String>,
) -> SewershedQuality {
    let mut q = SewershedQuality {
        dangling_ends: trace.dead_ends.clone(),
        parcels_split,
        ..Default::default()
    };
    let boxed = PolygonBoxes::new(polygon);
    if let Some(r) = boxed.extent() {
        for f in
            snap.layer(Layer::CatchBasins)
                .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
        {
            let Some(Geometry::Point(p)) = &f.geom else {
                continue;
            };
            if reached.contains(f.id.as_str()) || boxed.position(p.0).0 != CoordPos::Inside {
                continue;
            }
            q.file_inlet(&f.id, joined);
        }
    }
    q.sorted()
}

/// The town's boundary as one multi-polygon; none when the registry has no boundary.
pub fn town_area(snap: &Snapshot) -> Option<MultiPolygon<f64>> {
    let polys: Vec<Polygon<f64>> = snap
        .layer(Layer::Boundary)
        .features
        .iter()
        .filter_map(|f| f.geom.as_ref().and_then(as_multipolygon))
        .flat_map(|m| m.0)
        .collect();
    (!polys.is_empty()).then(|| union_in_stages(polys))
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::{polygon, Point};

    #[test]
    fn a_straight_pipe_is_buffered_as_the_buffer_does_it() {
        let (a, b) = (Coord { x: 10.0, y: 5.0 }, Coord { x: 40.0, y: 45.0 });
        let ours = square_capped(a, b, 1.5);
        let style = BufferStyle::new(1.5)
            .line_cap(LineCap::Square)
            .line_join(LineJoin::Bevel);
        let theirs = LineString::new(vec![a, b]).buffer_with_style(style);
        approx::assert_relative_eq!(ours.unsigned_area(), 3.0 * 53.0, epsilon = 1e-9);
        // geo's own lies on its overlay's grid, a few millionths off.
        approx::assert_relative_eq!(ours.unsigned_area(), theirs.unsigned_area(), epsilon = 1e-4);
        let ours = MultiPolygon::new(vec![ours]);
        let apart =
            ours.difference(&theirs).unsigned_area() + theirs.difference(&ours).unsigned_area();
        assert!(apart < 1e-4, "{apart}");
        assert!(ours.signed_area() > 0.0, "counter-clockwise");
    }

    /// The area `a` and `b` do not share.
    fn apart(a: &MultiPolygon<f64>, b: &MultiPolygon<f64>) -> f64 {
        a.difference(b).unsigned_area() + b.difference(a).unsigned_area()
    }

    #[rstest::rstest]
    // The county's pipes: a jog of three runs, right then left, and left then right.
    #[case::a_jog_right_then_left(&[(620246.559, 819892.1), (620246.559, 819909.1), (620420.099, 819909.1), (620420.099, 819915.1)])]
    #[case::a_jog_left_then_right(&[(620027.1, 820083.148), (620044.1, 820083.148), (620044.1, 820185.1), (620050.1, 820185.1)])]
    #[case::gentle_bends_and_a_vertex_straight_on(&[(0., 0.), (20., 3.), (40., 3.), (55., 14.), (70., 25.), (80., 60.)])]
    #[case::a_turn_of_110_degrees(&[(0., 0.), (30., 0.), (19.74, 28.19)])]
    fn a_bent_pipe_is_buffered_as_the_buffer_does_it(#[case] line: &[(f64, f64)]) {
        let line: Vec<Coord<f64>> = line.iter().map(|&(x, y)| Coord { x, y }).collect();
        let style = BufferStyle::new(1.5)
            .line_cap(LineCap::Square)
            .line_join(LineJoin::Bevel);
        let theirs = LineString::new(line.clone()).buffer_with_style(style);
        let ours = bent_capped(&line, 1.5).expect("drawn as one ring");
        assert!(ours.signed_area() > 0.0, "counter-clockwise");
        let ours = MultiPolygon::new(vec![ours]);
        approx::assert_relative_eq!(
            ours.unsigned_area(),
            theirs.unsigned_area(),
            max_relative = 1e-7
        );
        assert!(apart(&ours, &theirs) < 1e-3, "{}", apart(&ours, &theirs));
    }

    #[rstest::rstest]
    #[case::a_turn_back(&[(0., 0.), (30., 0.), (0., 2.)])]
    #[case::a_run_shorter_than_its_corners(&[(0., 0.), (30., 0.), (30., 1.), (0., 1.5)])]
    #[case::runs_side_by_side(&[(0., 0.), (30., 0.), (30., 20.), (10., 20.), (10., 3.)])]
    #[case::one_point(&[(5., 5.), (5., 5.)])]
    fn a_bent_pipe_whose_ring_is_not_its_buffer_is_left_to_the_buffer(#[case] line: &[(f64, f64)]) {
        let line: Vec<Coord<f64>> = line.iter().map(|&(x, y)| Coord { x, y }).collect();
        assert_eq!(bent_capped(&line, 1.5), None);
    }

    #[test]
    fn a_point_is_buffered_as_the_buffer_does_it() {
        let style = BufferStyle::new(1.5)
            .line_cap(LineCap::Square)
            .line_join(LineJoin::Bevel);
        for c in [
            Coord { x: 10.0, y: 5.0 },
            Coord {
                x: 661_234.7,
                y: 870_001.3,
            },
        ] {
            let theirs = Geometry::Point(geo_types::Point(c)).buffer_with_style(style.clone());
            assert_eq!(
                MultiPolygon::new(vec![square_round(c, 1.5)]),
                theirs,
                "{c:?}"
            );
        }
    }

    #[test]
    fn pieces_of_either_winding_are_all_unioned() {
        // A parcel stored clockwise (as a shapefile stores an exterior) first, then a
        // counter-clockwise buffer beside it, overlapping it by 1 x 10, and one apart.
        let cw = polygon![(x: 0., y: 0.), (x: 0., y: 10.), (x: 10., y: 10.), (x: 10., y: 0.), (x: 0., y: 0.)];
        let ccw = polygon![(x: 9., y: 0.), (x: 19., y: 0.), (x: 19., y: 10.), (x: 9., y: 10.), (x: 9., y: 0.)];
        let apart = polygon![(x: 50., y: 0.), (x: 50., y: 5.), (x: 55., y: 5.), (x: 55., y: 0.), (x: 50., y: 0.)];
        for pieces in [
            vec![cw.clone(), ccw.clone(), apart.clone()],
            vec![ccw, apart, cw],
        ] {
            let u = union_in_stages(pieces);
            approx::assert_relative_eq!(u.unsigned_area(), 190.0 + 25.0, epsilon = 1e-9);
        }
    }

    #[test]
    fn a_point_is_placed_as_the_whole_multi_polygon_places_it() {
        use geo::Intersects;
        // Two squares touching at a corner, one with a hole; a triangle inside the hole
        // (a polygon inside another's hole); an L apart.
        let m = MultiPolygon::new(vec![
            polygon![
                exterior: [(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.), (x: 0., y: 0.)],
                interiors: [[(x: 2., y: 2.), (x: 2., y: 8.), (x: 8., y: 8.), (x: 8., y: 2.), (x: 2., y: 2.)]],
            ],
            polygon![(x: 10., y: 10.), (x: 20., y: 10.), (x: 20., y: 20.), (x: 10., y: 20.), (x: 10., y: 10.)],
            polygon![(x: 3., y: 3.), (x: 7., y: 3.), (x: 5., y: 7.), (x: 3., y: 3.)],
            polygon![(x: 30., y: 0.), (x: 40., y: 0.), (x: 40., y: 2.), (x: 32., y: 2.), (x: 32., y: 10.), (x: 30., y: 10.), (x: 30., y: 0.)],
        ]);
        let boxed = PolygonBoxes::new(&m);
        assert_eq!(boxed.extent(), m.bounding_rect());
        let mut seen = std::collections::BTreeSet::new();
        // Every point of a half-unit grid over and around them: vertices, edges, the
        // shared corner, holes, and outside every box.
        for i in -4..=90 {
            for j in -4..=50 {
                let c = Coord {
                    x: i as f64 * 0.5,
                    y: j as f64 * 0.5,
                };
                let (position, touched) = boxed.position(c);
                assert_eq!(position, m.coordinate_position(&c), "{c:?}");
                assert_eq!(touched, m.intersects(&Point::from(c)), "{c:?}");
                seen.insert((format!("{position:?}"), touched));
            }
        }
        // The corner the squares share is on both boundaries: outside the whole, yet
        // touched.
        let corner = Coord { x: 10., y: 10. };
        assert_eq!(boxed.position(corner), (CoordPos::Outside, true));
        assert_eq!(
            seen.len(),
            4,
            "inside, on a boundary, outside, and the shared corner"
        );
    }

    #[test]
    fn many_pieces_and_the_outline_are_unioned_in_one_overlay() {
        // Two lots sharing a side, and 150 pipes' pieces along a street beside them, each
        // overlapping the next and the first reaching into the lots: what geo's own
        // union of them all makes.
        let lots = [
            polygon![(x: 0., y: 0.), (x: 10., y: 0.), (x: 10., y: 10.), (x: 0., y: 10.), (x: 0., y: 0.)],
            polygon![(x: 10., y: 0.), (x: 20., y: 0.), (x: 20., y: 10.), (x: 10., y: 10.), (x: 10., y: 0.)],
        ];
        let pieces: Vec<Polygon<f64>> = (0..150)
            .map(|i| {
                let x = i as f64 * 3.0;
                bent_capped(
                    &[
                        Coord { x, y: 9.5 },
                        Coord {
                            x: x + 2.0,
                            y: 11.0,
                        },
                        Coord {
                            x: x + 4.0,
                            y: 11.0,
                        },
                    ],
                    1.0,
                )
                .expect("a ring")
            })
            .collect();
        let ours = union_with_outline(dissolve::outline(lots.to_vec()), pieces.clone());
        let all: Vec<Polygon<f64>> = lots.iter().cloned().chain(pieces).collect();
        let theirs = geo::unary_union(&all);
        approx::assert_relative_eq!(ours.unsigned_area(), theirs.unsigned_area(), epsilon = 1e-6);
        assert_eq!(
            ours.0.len(),
            1,
            "one polygon: the lots and the street's pieces meet"
        );
        assert!(
            ours.unsigned_area() > 200.0 + 440.0,
            "{}",
            ours.unsigned_area()
        );
    }

    #[test]
    fn each_drain_lists_the_parcels_that_drain_to_it_in_order() {
        use smallvec::smallvec;
        // Parcel 0 drains to CB-1, 1 to none, 2 to CB-1 and MH-7 (a connection), 3 to
        // MH-7, 4 to CB-2.
        let each: Vec<smallvec::SmallVec<[&str; 2]>> = vec![
            smallvec!["CB-1"],
            smallvec![],
            smallvec!["CB-1", "MH-7"],
            smallvec!["MH-7"],
            smallvec!["CB-2"],
        ];
        let d = ParcelDrains::gathered(&each, 1);
        assert_eq!(d.of("CB-1"), &[0, 2]);
        assert_eq!(d.of("MH-7"), &[2, 3]);
        assert_eq!(d.of("CB-2"), &[4]);
        assert!(d.of("CB-9").is_empty(), "no parcel drains to it");
        assert_eq!(d.count, vec![1, 0, 2, 1, 1]);
    }
}
