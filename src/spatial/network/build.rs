//! Building the graph: matching pipe ends to nodes and deciding each pipe's direction.

use std::borrow::Cow;

use geo_types::Geometry;
use rstar::primitives::GeomWithData;
use rstar::RTree;
use rustc_hash::FxHashMap;

use super::check::{DuplicateId, IdCollision, ReversedPipe, UnknownId};
use super::names::{IdIndex, Names};
use super::{
    Bits, Csr, DirectionSource, Edge, EndMatch, Network, NetworkOptions, NodeKind, StructureKind,
};
use crate::domain::{Feature, Layer, Value};

/// A point with the number of what it belongs to, for the R-trees used while building.
type Site = GeomWithData<[f64; 2], u32>;

const NONE: u32 = u32::MAX;
const NAN2: [f64; 2] = [f64::NAN, f64::NAN];

/// One end of a pipe while it is being matched.
#[derive(Debug, Clone, Copy)]
struct PendingEnd {
    /// Where the end is; NaN when the pipe has no usable geometry.
    at: [f64; 2],
    node: u32,
    matched: EndMatch,
    snap: f32,
}

impl PendingEnd {
    fn open(at: [f64; 2]) -> Self {
        PendingEnd {
            at,
            node: NONE,
            matched: EndMatch::Dangling,
            snap: f32::NAN,
        }
    }

    fn by_id(node: u32, at: [f64; 2]) -> Self {
        PendingEnd {
            at,
            node,
            matched: EndMatch::Id,
            snap: f32::NAN,
        }
    }
}

/// A pipe while it is being matched: `ends[0]` is upstream when `by_ids`, else the first
/// digitised vertex.
struct Pending {
    ends: [PendingEnd; 2],
    by_ids: bool,
}

/// The ids of a network being built: every structure and pipe named once, indexed, with
/// the structures' kinds and positions and the ids found twice or shared.
struct Ids {
    names: Names,
    node_ids: IdIndex,
    pipe_ids: IdIndex,
    kinds: Vec<NodeKind>,
    /// Each structure's place among those of its kind, as given.
    nth_of_kind: Vec<u32>,
    positions: Vec<[f64; 2]>,
    duplicate_ids: Vec<DuplicateId>,
    collisions: Vec<IdCollision>,
}

/// Names the structures (nodes `0..n`) then the pipes, noting duplicate ids and pipe ids
/// that a structure also bears.
fn index_ids(structures: &[(&Feature, StructureKind)], pipes: &[Feature]) -> Ids {
    let n_structures = structures.len() as u32;
    let bytes = structures.iter().map(|(f, _)| f.id.len()).sum::<usize>()
        + pipes.iter().map(|f| f.id.len()).sum::<usize>();
    let mut names = Names::with_capacity(structures.len() + pipes.len(), bytes);
    let mut duplicate_ids = Vec::new();

    let mut kinds = Vec::with_capacity(structures.len() + pipes.len() / 8);
    let mut positions = Vec::with_capacity(structures.len());
    let mut nth_of_kind = Vec::with_capacity(structures.len());
    let mut of_kind: rustc_hash::FxHashMap<StructureKind, u32> = Default::default();
    let mut node_ids = IdIndex::with_capacity(structures.len());
    for (i, (f, kind)) in structures.iter().enumerate() {
        let n = of_kind.entry(*kind).or_default();
        nth_of_kind.push(*n);
        *n += 1;
        names.push(&f.id);
        if !node_ids.insert(&names, 0, i as u32) {
            duplicate_ids.push(DuplicateId {
                id: f.id.clone(),
                layer: kind.layer(),
            });
        }
        kinds.push(NodeKind::Structure(*kind));
        positions.push(point_of(f.geom.as_ref()).unwrap_or(NAN2));
    }
    let mut pipe_ids = IdIndex::with_capacity(pipes.len());
    let mut collisions = Vec::new();
    for (i, f) in pipes.iter().enumerate() {
        if let Some(n) = node_ids.get(&names, 0, &f.id) {
            if let NodeKind::Structure(k) = kinds[n as usize] {
                collisions.push(IdCollision {
                    id: f.id.clone(),
                    structure_layer: k.layer(),
                });
            }
        }
        names.push(&f.id);
        if !pipe_ids.insert(&names, n_structures, i as u32) {
            duplicate_ids.push(DuplicateId {
                id: f.id.clone(),
                layer: Layer::Pipes,
            });
        }
    }
    Ids {
        names,
        node_ids,
        pipe_ids,
        kinds,
        nth_of_kind,
        positions,
        duplicate_ids,
        collisions,
    }
}

/// Each pipe's ends as its `from_id` and `to_id` name them: they need no geometry and
/// settle most pipes. An end naming no structure is left open and its id listed.
fn ends_by_id(pipes: &[Feature], ids: &Ids) -> (Vec<Pending>, Vec<UnknownId>) {
    let mut unknown_ids = Vec::new();
    let pending: Vec<Pending> = pipes
        .iter()
        .map(|p| {
            let mut lookup = |field: &'static str| {
                let id = text_of(p.get(Layer::Pipes, field))?;
                let node = ids.node_ids.get(&ids.names, 0, &id);
                if node.is_none() {
                    unknown_ids.push(UnknownId {
                        pipe: p.id.clone(),
                        field: field.to_string(),
                        id: id.into_owned(),
                    });
                }
                node
            };
            let (from, to) = (lookup("from_id"), lookup("to_id"));
            let (first, last) = endpoints(p.geom.as_ref()).unwrap_or((NAN2, NAN2));
            match (from, to) {
                (Some(s), Some(t)) => Pending {
                    ends: [PendingEnd::by_id(s, first), PendingEnd::by_id(t, last)],
                    by_ids: true,
                },
                (Some(s), None) => {
                    let (up, down) = orient(first, last, ids.positions[s as usize], true);
                    Pending {
                        ends: [PendingEnd::by_id(s, up), PendingEnd::open(down)],
                        by_ids: true,
                    }
                }
                (None, Some(t)) => {
                    let (up, down) = orient(first, last, ids.positions[t as usize], false);
                    Pending {
                        ends: [PendingEnd::open(up), PendingEnd::by_id(t, down)],
                        by_ids: true,
                    }
                }
                (None, None) => Pending {
                    ends: [PendingEnd::open(first), PendingEnd::open(last)],
                    by_ids: false,
                },
            }
        })
        .collect();
    (pending, unknown_ids)
}

/// The edges, each pipe turned the way its direction was decided; a pipe turned against
/// the order it was digitised in is listed, so the analyst sees every pipe whose
/// direction was changed.
fn orient_edges(
    pending: &[Pending],
    pipes: &[Feature],
    directions: Vec<(DirectionSource, bool)>,
    names: &Names,
    n_structures: u32,
) -> (Vec<Edge>, Vec<ReversedPipe>) {
    let mut reversed = Vec::new();
    let edges: Vec<Edge> = pending
        .iter()
        .zip(pipes)
        .zip(directions)
        .map(|((p, f), (direction, against))| {
            let [mut up, mut down] = p.ends;
            if direction == DirectionSource::Inverts && against {
                // Turned round by its inverts, against the order it was digitised in:
                // listed, so the analyst sees every pipe whose direction was changed.
                std::mem::swap(&mut up, &mut down);
                let (a, b) = inverts_of(f);
                reversed.push(ReversedPipe {
                    pipe: f.id.clone(),
                    from: (up.node < n_structures).then(|| names.get(up.node).to_string()),
                    to: (down.node < n_structures).then(|| names.get(down.node).to_string()),
                    from_invert: b.unwrap_or(f64::NAN),
                    to_invert: a.unwrap_or(f64::NAN),
                    direction,
                    turned_by_inverts: true,
                });
            } else if against {
                let (a, b) = inverts_of(f);
                reversed.push(ReversedPipe {
                    pipe: f.id.clone(),
                    from: (up.node < n_structures).then(|| names.get(up.node).to_string()),
                    to: (down.node < n_structures).then(|| names.get(down.node).to_string()),
                    from_invert: a.unwrap_or(f64::NAN),
                    to_invert: b.unwrap_or(f64::NAN),
                    direction,
                    turned_by_inverts: false,
                });
            }
            Edge {
                from: up.node,
                to: down.node,
                from_match: up.matched,
                to_match: down.matched,
                direction,
                from_snap: up.snap,
                to_snap: down.snap,
                both_ways: flows_both_ways(f),
            }
        })
        .collect();
    (edges, reversed)
}

impl Network {
    /// Builds the network from structures (each with its kind) and pipes. Never fails: bad
    /// data ends up in [`Network::check`]'s report. Pipes of every `status` and `kind`
    /// take part: which of them carry water is the caller's question, and leaving some out
    /// here would cut the network where the map shows it joined.
    pub fn build<'a>(
        structures: impl IntoIterator<Item = (&'a Feature, StructureKind)>,
        pipes: &[Feature],
        opts: NetworkOptions,
    ) -> Network {
        let structures: Vec<(&Feature, StructureKind)> = structures.into_iter().collect();
        let n_structures = structures.len() as u32;
        let ids = index_ids(&structures, pipes);
        drop(structures);

        // Ends named by id first: they need no geometry and settle most pipes.
        let (mut pending, unknown_ids) = ends_by_id(pipes, &ids);
        let Ids {
            names,
            node_ids,
            pipe_ids,
            mut kinds,
            nth_of_kind,
            positions,
            duplicate_ids,
            collisions,
        } = ids;

        let tol = opts.tolerance();
        snap_to_structures(&mut pending, &positions, tol);
        let mut synthetic_at = Vec::new();
        join_loose_ends(&mut pending, tol, &mut kinds, &mut synthetic_at);

        let directions = decide_directions(&pending, pipes);
        let (mut edges, reversed) = orient_edges(&pending, pipes, directions, &names, n_structures);
        drop(pending);
        let (zero_length, zero_lengths): (Vec<u32>, Vec<f64>) = edges
            .iter()
            .zip(pipes)
            .enumerate()
            .filter_map(|(i, (e, f))| {
                let length = line_length(f.geom.as_ref());
                (e.from == e.to && length <= tol).then_some((i as u32, length))
            })
            .unzip();
        let n_pipes = edges.len() as u32;
        let splits = super::tee::join_tees(
            pipes,
            &mut edges,
            &mut kinds,
            |n| {
                if n < n_structures {
                    positions[n as usize]
                } else {
                    synthetic_at[(n - n_structures) as usize]
                }
            },
            tol,
        );
        drop(positions);
        let tees = splits
            .found
            .iter()
            .map(|&(pipe, on, end, at, distance)| super::TJunction {
                pipe: pipes[pipe as usize].id.clone(),
                end,
                joins: pipes[on as usize].id.clone(),
                at,
                distance,
            })
            .collect();

        let nodes = kinds.len();
        let out = Csr::new(nodes, &edges, |e| e.from, |e| e.to);
        let into = Csr::new(nodes, &edges, |e| e.to, |e| e.from);
        kinds.shrink_to_fit();
        let mut both_ways_at = Bits::new(nodes);
        for e in edges.iter().filter(|e| e.both_ways) {
            both_ways_at.set(e.from);
            both_ways_at.set(e.to);
        }
        let mut net = Network {
            opts,
            names,
            structures: n_structures,
            kinds,
            nth_of_kind,
            synthetic_at,
            node_ids,
            pipe_ids,
            edges,
            out,
            into,
            reversed,
            unknown_ids,
            duplicate_ids,
            collisions,
            zero_length,
            zero_lengths,
            pipes: n_pipes,
            split_of: splits.split_of,
            tails: splits.tails,
            both_ways_at,
            inferred: Bits::default(),
            tees,
        };
        let mut inferred = Bits::new(n_pipes as usize);
        for pipe in (0..n_pipes).filter(|&p| net.inferred_of(p)) {
            inferred.set(pipe);
        }
        net.inferred = inferred;
        net
    }
}

/// The attribute names a source marks a pipe's flow direction with (compared without
/// regard to case): the pipes layer has no such field, so it is read from the extra
/// attributes the import kept (a GIS's `FlowDirection`).
const FLOW_FIELDS: [&str; 3] = ["flow_direction", "flowdirection", "flow_dir"];

/// Whether a pipe is marked as flowing either way: `BI`, `both`, `bidirectional`,
/// `two-way` (any case) in its flow-direction attribute.
pub(super) fn flows_both_ways(f: &Feature) -> bool {
    f.extra.iter().any(|(k, v)| {
        FLOW_FIELDS.iter().any(|n| k.eq_ignore_ascii_case(n))
            && v.as_str().is_some_and(|s| {
                matches!(
                    s.trim().to_ascii_lowercase().as_str(),
                    "bi" | "both" | "bidirectional" | "two-way" | "two way" | "2-way"
                )
            })
    })
}

/// A line's length (0 without a geometry: it cannot be told from a point).
fn line_length(g: Option<&Geometry<f64>>) -> f64 {
    let parts: Vec<&geo_types::LineString<f64>> = match g {
        Some(Geometry::LineString(ls)) => vec![ls],
        Some(Geometry::MultiLineString(m)) => m.0.iter().collect(),
        _ => return 0.0,
    };
    parts
        .iter()
        .flat_map(|ls| ls.0.windows(2))
        .map(|w| ((w[1].x - w[0].x).powi(2) + (w[1].y - w[0].y).powi(2)).sqrt())
        .filter(|d| d.is_finite())
        .sum()
}

/// A pipe's `from_invert` and `to_invert`, when they are finite numbers.
fn inverts_of(f: &Feature) -> (Option<f64>, Option<f64>) {
    let get = |name| {
        f.get(Layer::Pipes, name)
            .as_f64()
            .filter(|v: &f64| v.is_finite())
    };
    (get("from_invert"), get("to_invert"))
}

/// Each pipe's direction source, and whether its inverts fall against `ends[0] ->
/// ends[1]` (the from/to order when `by_ids`, else the digitised order).
///
/// Ids decide when there are any; a pipe whose inverts then rise along its flow is laid
/// against them. Without ids the inverts decide, from the higher end to the lower, and the
/// digitised order only breaks ties, with one exception: when a pipe's inverts rise along
/// the digitised order, they are compared with the inverts the other pipes record at the
/// same two nodes. If they fit those better the other way round, they were recorded
/// against the ends (swapped), so they say nothing about the flow: the digitised order
/// stands and the pipe is reported as laid against its inverts. Otherwise (or when no
/// neighbour records an invert) the inverts decide.
fn decide_directions(pending: &[Pending], pipes: &[Feature]) -> Vec<(DirectionSource, bool)> {
    let inverts: Vec<(Option<f64>, Option<f64>)> = pipes.iter().map(inverts_of).collect();
    let mut out: Vec<(DirectionSource, bool)> = pending
        .iter()
        .zip(&inverts)
        .map(|(p, inv)| {
            let against = matches!(inv, (Some(a), Some(b)) if a < b);
            if p.by_ids {
                (DirectionSource::Ids, against)
            } else if matches!(inv, (Some(a), Some(b)) if a != b) {
                (DirectionSource::Inverts, against)
            } else {
                (DirectionSource::Digitised, false)
            }
        })
        .collect();

    // Nodes at the ends of pipes whose inverts contradict their digitised order. Few, so
    // the neighbours' inverts are gathered for these nodes only.
    let contested = |d: &(DirectionSource, bool)| *d == (DirectionSource::Inverts, true);
    let mut levels: FxHashMap<u32, Vec<f64>> = FxHashMap::default();
    for (p, d) in pending.iter().zip(&out) {
        if contested(d) {
            for e in &p.ends {
                levels.entry(e.node).or_default();
            }
        }
    }
    if levels.is_empty() {
        return out;
    }
    // Only pipes whose inverts agree with their direction vouch for a node's level.
    for ((p, d), inv) in pending.iter().zip(&out).zip(&inverts) {
        if d.1 {
            continue;
        }
        for (e, v) in p.ends.iter().zip([inv.0, inv.1]) {
            if let (Some(v), Some(list)) = (v, levels.get_mut(&e.node)) {
                list.push(v);
            }
        }
    }
    let level = |node: u32| -> Option<f64> {
        let mut v = levels.get(&node)?.clone();
        if v.is_empty() {
            return None;
        }
        // The median: one odd neighbour cannot move it.
        v.sort_by(f64::total_cmp);
        Some(v[(v.len() - 1) / 2])
    };
    for ((p, d), inv) in pending.iter().zip(out.iter_mut()).zip(&inverts) {
        if !contested(d) {
            continue;
        }
        let (Some(a), Some(b)) = *inv else { continue };
        let (l0, l1) = (level(p.ends[0].node), level(p.ends[1].node));
        let misfit =
            |x: f64, y: f64| l0.map_or(0.0, |l| (x - l).abs()) + l1.map_or(0.0, |l| (y - l).abs());
        if (l0.is_some() || l1.is_some()) && misfit(b, a) < misfit(a, b) {
            *d = (DirectionSource::Digitised, true);
        }
    }
    out
}

/// Snaps every open end that has a position to the nearest structure within `tol`.
fn snap_to_structures(pending: &mut [Pending], positions: &[[f64; 2]], tol: f64) {
    let open = pending
        .iter()
        .flat_map(|p| &p.ends)
        .any(|e| e.node == NONE && e.at[0].is_finite());
    if !open {
        // Most data names its structures; skip building the tree.
        return;
    }
    let sites: Vec<Site> = positions
        .iter()
        .enumerate()
        .filter(|(_, p)| p[0].is_finite())
        .map(|(i, p)| Site::new(*p, i as u32))
        .collect();
    let tree = RTree::bulk_load(sites);
    let tol2 = tol * tol;
    for end in pending.iter_mut().flat_map(|p| &mut p.ends) {
        if end.node != NONE || !end.at[0].is_finite() {
            continue;
        }
        // The nearest within the tolerance: a search bounded by the tolerance visits a
        // few leaves, where an unbounded nearest-neighbour search may wander; ties go to
        // the structure listed first, so the result does not depend on the tree's shape.
        let nearest = tree
            .locate_within_distance(end.at, tol2)
            .map(|s| (dist2(*s.geom(), end.at), s.data))
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        if let Some((d2, node)) = nearest {
            end.node = node;
            end.matched = EndMatch::Snapped;
            end.snap = d2.sqrt() as f32;
        }
    }
}

/// Gives the ends still open a synthetic node: ends within `tol` of each other (chained)
/// share a junction; an end alone, or without a position, gets an end node of its own.
fn join_loose_ends(
    pending: &mut [Pending],
    tol: f64,
    kinds: &mut Vec<NodeKind>,
    synthetic_at: &mut Vec<[f64; 2]>,
) {
    // Ends are numbered pipe * 2 + side; the tree's data is the position in `open`.
    let open: Vec<(usize, [f64; 2])> = pending
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.ends.iter().enumerate().map(move |(k, e)| (i * 2 + k, e)))
        .filter(|(_, e)| e.node == NONE && e.at[0].is_finite())
        .map(|(n, e)| (n, e.at))
        .collect();
    // Union-find over positions in `open`.
    let mut parent: Vec<u32> = (0..open.len() as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            parent[i as usize] = parent[parent[i as usize] as usize];
            i = parent[i as usize];
        }
        i
    }
    if open.len() > 1 {
        let sites = open
            .iter()
            .enumerate()
            .map(|(k, (_, at))| Site::new(*at, k as u32))
            .collect();
        let tree: RTree<Site> = RTree::bulk_load(sites);
        for (k, (_, at)) in open.iter().enumerate() {
            for other in tree.locate_within_distance(*at, tol * tol) {
                let (a, b) = (root(&mut parent, k as u32), root(&mut parent, other.data));
                if a != b {
                    // The smaller root wins, so a junction sits at its first end.
                    parent[a.max(b) as usize] = a.min(b);
                }
            }
        }
    }
    let mut size = vec![0u32; open.len()];
    for k in 0..open.len() as u32 {
        size[root(&mut parent, k) as usize] += 1;
    }
    let mut node_of_root = vec![NONE; open.len()];
    for (k, &(n, at)) in open.iter().enumerate() {
        let r = root(&mut parent, k as u32) as usize;
        if node_of_root[r] == NONE {
            node_of_root[r] = kinds.len() as u32;
            kinds.push(if size[r] > 1 {
                NodeKind::Junction
            } else {
                NodeKind::End
            });
            synthetic_at.push(at);
        }
        let end = &mut pending[n / 2].ends[n % 2];
        end.node = node_of_root[r];
        end.matched = if size[r] > 1 {
            EndMatch::Junction
        } else {
            EndMatch::Dangling
        };
    }
    // Ends with neither an id nor a position dangle where nobody knows.
    for end in pending.iter_mut().flat_map(|p| &mut p.ends) {
        if end.node == NONE {
            end.node = kinds.len() as u32;
            kinds.push(NodeKind::End);
            synthetic_at.push(NAN2);
        }
    }
}

/// Squared distance between two points.
fn dist2(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)
}

/// Which of a pipe's vertices is upstream, given the structure one end is named for
/// (`anchor`, upstream when `anchor_is_from`): the end nearer the anchor is its end, since
/// a line may be digitised against its flow. Without the positions to tell, the digitised
/// order is kept.
fn orient(
    first: [f64; 2],
    last: [f64; 2],
    anchor: [f64; 2],
    anchor_is_from: bool,
) -> ([f64; 2], [f64; 2]) {
    let known = first[0].is_finite() && last[0].is_finite() && anchor[0].is_finite();
    let first_at_anchor = if known {
        dist2(first, anchor) <= dist2(last, anchor)
    } else {
        anchor_is_from
    };
    if first_at_anchor == anchor_is_from {
        (first, last)
    } else {
        (last, first)
    }
}

/// A non-empty id from a text field (numbers written as text by a loose import count too).
fn text_of(v: &Value) -> Option<Cow<'_, str>> {
    match v {
        Value::Null => None,
        Value::Text(s) => {
            let s = s.trim();
            (!s.is_empty()).then_some(Cow::Borrowed(s))
        }
        other => Some(Cow::Owned(other.to_string())),
    }
}

/// A structure's position: its point, or the first point of a multipoint.
fn point_of(g: Option<&Geometry<f64>>) -> Option<[f64; 2]> {
    let p = match g? {
        Geometry::Point(p) => *p,
        Geometry::MultiPoint(mp) => *mp.0.first()?,
        _ => return None,
    };
    finite([p.x(), p.y()])
}

/// A line's first and last vertices (of its first and last non-empty parts).
fn endpoints(g: Option<&Geometry<f64>>) -> Option<([f64; 2], [f64; 2])> {
    let (a, b) = match g? {
        Geometry::LineString(ls) => (*ls.0.first()?, *ls.0.last()?),
        Geometry::MultiLineString(mls) => {
            let mut parts = mls.0.iter().filter(|l| !l.0.is_empty());
            let first = parts.next()?;
            let last = parts.next_back().unwrap_or(first);
            (*first.0.first()?, *last.0.last()?)
        }
        Geometry::Line(l) => (l.start, l.end),
        _ => return None,
    };
    Some((finite([a.x, a.y])?, finite([b.x, b.y])?))
}

fn finite(p: [f64; 2]) -> Option<[f64; 2]> {
    (p[0].is_finite() && p[1].is_finite()).then_some(p)
}
