//! T-junctions: a pipe end that meets no structure and no other end, but lies on another
//! pipe's interior (within the snap tolerance), joins that pipe there.
//!
//! Drawn networks are full of these: a lateral digitised up to the trunk's line, not to a
//! vertex of it. The other pipe is split at the point in the graph only (its stored
//! geometry and id stay whole): its edge ends at a junction there, and a further edge
//! carries the rest of it, with the same pipe id, so traces and reports still name one
//! pipe. The joins are counted and listed in the network check.

use geo_types::Geometry;
use rstar::primitives::{GeomWithData, Line};
use rstar::{PointDistance, RTree};
use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{Edge, EndMatch, NodeKind};
use crate::domain::Feature;

/// A pipe end joined to another pipe's interior.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TJunction {
    /// The pipe whose end it is.
    pub pipe: String,
    /// Which end, in flow order: `from` or `to`.
    pub end: &'static str,
    /// The pipe it joins, split there in the network.
    pub joins: String,
    /// Where (CRS units): the point of `joins` nearest the end.
    pub at: [f64; 2],
    /// How far the end is from that point (CRS units).
    pub distance: f64,
}

/// A segment of a pipe, with the pipe's number and the distance along the pipe (in its
/// digitised order) at which the segment starts.
type Segment = GeomWithData<Line<[f64; 2]>, (u32, f64)>;

/// A join found: the dangling end's node and pipe, the pipe it lies on, and where.
struct Found {
    node: u32,
    pipe: u32,
    end: &'static str,
    on: u32,
    along: f64,
    at: [f64; 2],
    distance: f64,
}

/// What splitting added: for each added edge, the pipe it is part of; for each split
/// pipe, its last piece (whose downstream end is the pipe's).
pub(super) struct Splits {
    pub split_of: Vec<u32>,
    pub tails: FxHashMap<u32, u32>,
    pub found: Vec<(u32, u32, &'static str, [f64; 2], f64)>,
}

/// Finds every dangling end lying within `tol` of another pipe's interior and splits
/// that pipe there: `edges` gains the pieces, `kinds` turns the end's node into a
/// junction. `at_of(node)` gives a node's position (NaN when unknown).
pub(super) fn join_tees(
    pipes: &[Feature],
    edges: &mut Vec<Edge>,
    kinds: &mut [NodeKind],
    at_of: impl Fn(u32) -> [f64; 2],
    tol: f64,
) -> Splits {
    let mut splits = Splits {
        split_of: Vec::new(),
        tails: FxHashMap::default(),
        found: Vec::new(),
    };
    let loose = loose_ends(edges, kinds, &at_of);
    if loose.is_empty() || tol <= 0.0 {
        return splits;
    }
    let found = find_joins(pipes, loose, &at_of, tol);
    split_pipes(pipes, edges, kinds, &at_of, &found, &mut splits);
    for f in &found {
        // The end is on the pipe's first piece (its upstream end) or its last.
        let tail = splits.tails.get(&f.pipe).copied().unwrap_or(f.pipe);
        for k in [f.pipe, tail] {
            let e = &mut edges[k as usize];
            if e.from == f.node && k == f.pipe {
                e.from_match = EndMatch::Junction;
            }
            if e.to == f.node && k == tail {
                e.to_match = EndMatch::Junction;
            }
        }
        splits.found.push((f.pipe, f.on, f.end, f.at, f.distance));
    }
    splits
}

/// The dangling ends (pipe, node, which end) that meet nothing and have a position.
fn loose_ends(
    edges: &[Edge],
    kinds: &[NodeKind],
    at_of: &impl Fn(u32) -> [f64; 2],
) -> Vec<(u32, u32, &'static str)> {
    edges
        .iter()
        .enumerate()
        .flat_map(|(i, e)| {
            [(e.from, e.from_match, "from"), (e.to, e.to_match, "to")]
                .into_iter()
                .filter(|(n, m, _)| *m == EndMatch::Dangling && kinds[*n as usize] == NodeKind::End)
                .map(move |(n, _, end)| (i as u32, n, end))
        })
        .filter(|(_, n, _)| at_of(*n)[0].is_finite())
        .collect()
}

/// For each loose end, the nearest interior point of another pipe within `tol`, if any.
fn find_joins(
    pipes: &[Feature],
    loose: Vec<(u32, u32, &'static str)>,
    at_of: &impl Fn(u32) -> [f64; 2],
    tol: f64,
) -> Vec<Found> {
    let mut segments = Vec::new();
    let mut lengths = vec![0.0; pipes.len()];
    for (i, f) in pipes.iter().enumerate() {
        let mut along = 0.0;
        for part in parts(f.geom.as_ref()) {
            for w in part.0.windows(2) {
                let (a, b) = ([w[0].x, w[0].y], [w[1].x, w[1].y]);
                let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
                if len.is_finite() && len > 0.0 {
                    segments.push(Segment::new(Line::new(a, b), (i as u32, along)));
                    along += len;
                }
            }
        }
        lengths[i] = along;
    }
    let tree = RTree::bulk_load(segments);
    let mut found: Vec<Found> = Vec::new();
    for (pipe, node, end) in loose {
        let q = at_of(node);
        let best = tree
            .locate_within_distance(q, tol * tol)
            .filter(|s| s.data.0 != pipe)
            .filter_map(|s| {
                let (on, start) = s.data;
                let l = s.geom();
                let c = l.nearest_point(&q);
                let along = start + dist(l.from, c);
                // Near the other pipe's own ends it is an end-to-end meeting, which
                // snapping already judged; only the interior splits.
                let interior = along > tol && along < lengths[on as usize] - tol;
                interior.then(|| (s.geom().distance_2(&q).sqrt(), on, along, c))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some((distance, on, along, at)) = best {
            found.push(Found {
                node,
                pipe,
                end,
                on,
                along,
                at,
                distance,
            });
        }
    }
    found
}

/// Splits each pipe joined at the points found, in flow order: along its digitised
/// order, unless its flow runs the other way (its upstream node is nearer its last
/// vertex). Each point's node becomes a junction; the pieces after the first are new
/// edges.
fn split_pipes(
    pipes: &[Feature],
    edges: &mut Vec<Edge>,
    kinds: &mut [NodeKind],
    at_of: &impl Fn(u32) -> [f64; 2],
    found: &[Found],
    splits: &mut Splits,
) {
    let n_pipes = edges.len() as u32;
    let mut by_pipe: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
    for (k, f) in found.iter().enumerate() {
        by_pipe.entry(f.on).or_default().push(k);
    }
    let mut order: Vec<u32> = by_pipe.keys().copied().collect();
    order.sort_unstable();
    for on in order {
        let mut ks = by_pipe.remove(&on).unwrap_or_default();
        let e = edges[on as usize];
        let first = parts(pipes[on as usize].geom.as_ref())
            .first()
            .and_then(|p| p.0.first())
            .map(|c| [c.x, c.y]);
        let from_at = at_of(e.from);
        let to_at = at_of(e.to);
        let reversed = match first {
            Some(p) if from_at[0].is_finite() && to_at[0].is_finite() => {
                dist(p, to_at) < dist(p, from_at)
            }
            _ => false,
        };
        ks.sort_by(|a, b| found[*a].along.total_cmp(&found[*b].along));
        if reversed {
            ks.reverse();
        }
        let (last_to, last_match, last_snap) = (e.to, e.to_match, e.to_snap);
        let mut piece = on;
        for k in ks {
            let j = found[k].node;
            kinds[j as usize] = NodeKind::Junction;
            let p = &mut edges[piece as usize];
            p.to = j;
            p.to_match = EndMatch::Junction;
            edges.push(Edge {
                from: j,
                to: last_to,
                from_match: EndMatch::Junction,
                to_match: last_match,
                direction: e.direction,
                from_snap: f32::NAN,
                to_snap: last_snap,
                both_ways: e.both_ways,
            });
            splits.split_of.push(on);
            piece = n_pipes + splits.split_of.len() as u32 - 1;
        }
        splits.tails.insert(on, piece);
    }
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

fn parts(g: Option<&Geometry<f64>>) -> Vec<&geo_types::LineString<f64>> {
    match g {
        Some(Geometry::LineString(ls)) => vec![ls],
        Some(Geometry::MultiLineString(m)) => m.0.iter().collect(),
        _ => Vec::new(),
    }
}
