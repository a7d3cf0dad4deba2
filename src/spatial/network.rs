//! The drainage network: catch basins, manholes, outfalls, other structures (headwalls,
//! junction boxes, ...) and SMPs joined by pipes into a directed graph, for tracing up or down stream and for checking the network's data.
//!
//! Nodes are the structures, plus synthetic *junctions* where pipe ends meet each other but
//! no structure, plus one synthetic *end* for each pipe end that meets nothing (a dangling
//! end), so every pipe is an edge with two nodes and a trace can say where it stopped.
//!
//! Each pipe end is matched to a node, in order of trust:
//! 1. by the pipe's `from_id` / `to_id`, when given and naming a structure;
//! 2. else to the nearest structure within [`NetworkOptions::snap_tolerance`];
//! 3. else to the other unmatched pipe ends within the tolerance (a junction);
//! 4. else it dangles.
//!
//! Each pipe's flow direction comes from its `from_id` / `to_id` when either matched (the
//! field names which end is upstream); else from its inverts (higher to lower, with
//! `from_invert` read at the first vertex); else from the order it was digitised in. One
//! exception keeps a slip of data entry from turning a pipe round: when an id-less pipe's
//! inverts rise along its digitised order but fit the inverts the other pipes record at
//! its two nodes only when swapped, the digitised order stands and the pipe is reported
//! as laid against its inverts. How each end was matched and how the direction was
//! decided is kept, so an answer built on a trace can say which links were recorded and
//! which were inferred ([`PipeInfo`]).
//!
//! Bad data never stops the network from being built: it is listed by
//! [`Network::check`]. The graph is index-based (compressed adjacency in both directions)
//! and ids are kept in one string arena, so a county (about 490,000 structures and 450,000
//! pipes) holds about 45 MB; building costs a hash lookup per named end and an R-tree
//! query per end that names nothing. `county_build_time_and_size` in the tests measures it.

mod build;
mod check;
mod graph;
mod names;
mod tee;
mod trace;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_others;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::domain::Layer;
use crate::spatial::Snapshot;

pub use check::{
    Cycle, DanglingEnd, DuplicateId, IdCollision, NetworkReport, NetworkSummary, OrphanStructure,
    Part, ReversedPipe, UnknownId, ZeroLengthPipe,
};
pub use tee::TJunction;
pub use trace::{OutfallPath, Trace};

use names::{IdIndex, Names};

/// How the network is put together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct NetworkOptions {
    /// Pipe ends and structures closer than this, in CRS units, are one node. Negative or
    /// non-finite values are read as 0 (only exactly coincident points meet).
    pub snap_tolerance: f64,
}

impl NetworkOptions {
    /// Options with a snap tolerance in CRS units.
    pub fn new(snap_tolerance: f64) -> Self {
        NetworkOptions { snap_tolerance }
    }

    /// The tolerance as used: finite and not negative.
    fn tolerance(&self) -> f64 {
        if self.snap_tolerance.is_finite() && self.snap_tolerance > 0.0 {
            self.snap_tolerance
        } else {
            0.0
        }
    }
}

/// The kind of a structure, which is the layer it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructureKind {
    /// A catch basin (inlet).
    CatchBasin,
    /// A manhole.
    Manhole,
    /// An outfall: where a downstream trace ends.
    Outfall,
    /// Another drainage structure (headwall, inlet, junction box, cleanout, outlet
    /// structure) from the `structures` layer: pipes end on it and a trace passes through.
    Other,
    /// A stormwater management practice with an inlet or outlet. A pipe joins it by
    /// naming its `asset_id` in `from_id` / `to_id` (the pipe into its inlet names it in
    /// `to_id`, the pipe from its outlet in `from_id`), or, when the SMP is drawn as a
    /// point, by ending within the snap tolerance of that point; an SMP drawn as an area
    /// joins by id only (a pipe end near a pond's outline is not known to enter it). A
    /// trace passes through it. An SMP no pipe meets is not an orphan structure: most
    /// practices take sheet flow.
    Smp,
}

impl StructureKind {
    /// The layer structures of this kind live in.
    pub fn layer(self) -> Layer {
        match self {
            StructureKind::CatchBasin => Layer::CatchBasins,
            StructureKind::Manhole => Layer::Manholes,
            StructureKind::Outfall => Layer::Outfalls,
            StructureKind::Other => Layer::Structures,
            StructureKind::Smp => Layer::Smps,
        }
    }

    /// The kind of structure a layer holds, if it holds structures.
    pub fn from_layer(layer: Layer) -> Option<Self> {
        match layer {
            Layer::CatchBasins => Some(StructureKind::CatchBasin),
            Layer::Manholes => Some(StructureKind::Manhole),
            Layer::Outfalls => Some(StructureKind::Outfall),
            Layer::Structures => Some(StructureKind::Other),
            Layer::Smps => Some(StructureKind::Smp),
            _ => None,
        }
    }
}

/// Which way a trace goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Against the flow, towards the sources.
    Upstream,
    /// With the flow, towards the outfalls.
    Downstream,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Upstream => "upstream",
            Direction::Downstream => "downstream",
        })
    }
}

impl FromStr for Direction {
    type Err = String;

    /// `upstream`/`up` or `downstream`/`down`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "upstream" | "up" => Ok(Direction::Upstream),
            "downstream" | "down" => Ok(Direction::Downstream),
            _ => Err(format!(
                "unknown direction {s:?}; expected upstream or downstream"
            )),
        }
    }
}

/// How a pipe end was joined to the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndMatch {
    /// The pipe's `from_id` / `to_id` names the structure.
    Id,
    /// Snapped to the nearest structure within the tolerance.
    Snapped,
    /// Meets other pipe ends within the tolerance but no structure.
    Junction,
    /// Meets nothing (or the pipe has neither a usable id nor a geometry for this end).
    Dangling,
}

/// How a pipe's flow direction was decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DirectionSource {
    /// The pipe's `from_id` / `to_id` (at least one naming a structure).
    Ids,
    /// The pipe's inverts: from the higher end to the lower.
    Inverts,
    /// The order the line was digitised in (first vertex upstream): nothing better known.
    Digitised,
}

/// How one end of a pipe, in flow order, was joined to the network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipeEndInfo {
    /// How the end was matched.
    pub matched: EndMatch,
    /// The structure at this end, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structure: Option<String>,
    /// How far the end was from the structure it was snapped to (CRS units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snap_distance: Option<f64>,
}

/// A pipe as the network reads it: its ends in flow order and how that was decided.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PipeInfo {
    /// The pipe's id.
    pub id: String,
    /// The upstream end.
    pub from: PipeEndInfo,
    /// The downstream end.
    pub to: PipeEndInfo,
    /// How the flow direction was decided.
    pub direction: DirectionSource,
}

impl PipeInfo {
    /// Whether anything about the pipe was inferred rather than recorded by id.
    pub fn is_inferred(&self) -> bool {
        self.from.matched != EndMatch::Id
            || self.to.matched != EndMatch::Id
            || self.direction != DirectionSource::Ids
    }
}

/// What a node of the graph is. Structures come first in the node numbering, then the
/// synthetic nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NodeKind {
    Structure(StructureKind),
    /// Where pipe ends meet each other but no structure.
    Junction,
    /// A pipe end that meets nothing.
    End,
}

/// A pipe in flow order. 20 bytes, so half a million pipes cost about 10 MB.
#[derive(Debug, Clone, Copy)]
struct Edge {
    from: u32,
    to: u32,
    from_match: EndMatch,
    to_match: EndMatch,
    direction: DirectionSource,
    /// Snap distances (NaN unless the end was snapped); f32 is plenty for a report.
    from_snap: f32,
    to_snap: f32,
    /// Water may flow either way (the pipe is marked bidirectional): traces walk it both
    /// ways.
    both_ways: bool,
}

/// One pipe at a node of the adjacency: the edge and the node at its other end (the one a
/// walk along it reaches). Kept side by side so a walk reads a node's onward steps in
/// one place, not each edge's ends again from the edge table (a second cache miss for
/// every pipe of the county's largest trace).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Link {
    edge: u32,
    node: u32,
}

/// Compressed adjacency: the links leaving (or entering) node `n` are
/// `links[start[n]..start[n + 1]]`.
#[derive(Debug, Default)]
struct Csr {
    start: Vec<u32>,
    links: Vec<Link>,
}

impl Csr {
    /// Adjacency of `nodes` nodes, keyed by `key(edge)`, each link to the edge's other
    /// end `other(edge)`, edges in index order per node.
    fn new(
        nodes: usize,
        edges: &[Edge],
        key: impl Fn(&Edge) -> u32,
        other: impl Fn(&Edge) -> u32,
    ) -> Csr {
        let mut start = vec![0u32; nodes + 1];
        for e in edges {
            start[key(e) as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut links = vec![Link { edge: 0, node: 0 }; edges.len()];
        for (i, e) in edges.iter().enumerate() {
            let k = key(e) as usize;
            links[fill[k] as usize] = Link {
                edge: i as u32,
                node: other(e),
            };
            fill[k] += 1;
        }
        Csr { start, links }
    }

    /// Asks for where `node`'s links start, before a walk reads them.
    fn prefetch_start(&self, node: u32) {
        prefetch(&self.start[node as usize]);
    }

    /// Asks for `node`'s links, once where they start has come in.
    fn prefetch_links(&self, node: u32) {
        if let Some(l) = self.links.get(self.start[node as usize] as usize) {
            prefetch(l);
        }
    }

    fn of(&self, node: u32) -> &[Link] {
        let n = node as usize;
        &self.links[self.start[n] as usize..self.start[n + 1] as usize]
    }

    fn heap_bytes(&self) -> usize {
        self.start.capacity() * 4 + self.links.capacity() * std::mem::size_of::<Link>()
    }
}

/// The structures a pipe's end is joined to ([`Network::joined`]).
pub struct Joined<'n> {
    net: &'n Network,
    /// Per structure node.
    marks: Vec<bool>,
}

impl Joined<'_> {
    /// Whether a pipe's end is joined to the structure with this id.
    pub fn contains(&self, id: &str) -> bool {
        self.net
            .structure_node(id)
            .is_some_and(|n| self.marks[n as usize])
    }
}

/// Asks the processor to bring the cache line holding `x` in, and goes on without waiting
/// for it: a walk that knows what it reads next overlaps its waits on memory.
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint to the cache; it reads nothing the program sees and
    // cannot fault, and `x` is a live reference besides.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// One bit per numbered thing: small enough for a walk's random reads to hit the cache
/// (a million nodes in 128 KB).
#[derive(Debug, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)])
    }

    fn set(&mut self, i: u32) {
        self.0[i as usize / 64] |= 1 << (i % 64);
    }

    fn get(&self, i: u32) -> bool {
        self.0[i as usize / 64] & (1 << (i % 64)) != 0
    }

    fn heap_bytes(&self) -> usize {
        self.0.capacity() * 8
    }
}

/// The drainage network as a directed graph (see the module docs).
#[derive(Debug)]
pub struct Network {
    opts: NetworkOptions,
    /// Structure ids, then pipe ids.
    names: Names,
    /// How many structures (nodes `0..structures` are structures, in input order).
    structures: u32,
    /// Per node.
    kinds: Vec<NodeKind>,
    /// Each structure's place among those of its kind, as given to [`Network::build`].
    nth_of_kind: Vec<u32>,
    /// Where each synthetic node is (index `node - structures`); NaN when unknown.
    synthetic_at: Vec<[f64; 2]>,
    /// Structure id to node.
    node_ids: IdIndex,
    /// Pipe id to edge.
    pipe_ids: IdIndex,
    edges: Vec<Edge>,
    out: Csr,
    into: Csr,
    /// Found while building, because they need the pipes' attributes.
    reversed: Vec<ReversedPipe>,
    unknown_ids: Vec<UnknownId>,
    duplicate_ids: Vec<DuplicateId>,
    /// Ids both a structure and a pipe carry.
    collisions: Vec<IdCollision>,
    /// Pipes (edge numbers, ascending) whose two ends are one point: no length to carry
    /// water round, so they are reported as such, never as one-pipe cycles.
    zero_length: Vec<u32>,
    /// The drawn length of each pipe in `zero_length` (up to the snap tolerance).
    zero_lengths: Vec<f64>,
    /// How many pipes: edges `0..pipes` are the pipes, in input order; the edges after
    /// them are the further pieces of pipes split at a T-junction.
    pipes: u32,
    /// For each edge after the pipes, the pipe it is a piece of.
    split_of: Vec<u32>,
    /// A split pipe's last piece (which holds the pipe's downstream end).
    tails: rustc_hash::FxHashMap<u32, u32>,
    /// The nodes a bidirectional pipe ends at: only there does a trace look at the pipes
    /// against its way (a county's few such pipes cost every node of a walk a look at a
    /// second list and the edges in it).
    both_ways_at: Bits,
    /// The pipes whose ends or direction were inferred ([`Network::pipe_inferred`]),
    /// marked once: a trace asks it of every pipe it lists.
    inferred: Bits,
    /// Pipe ends joined to another pipe's interior.
    tees: Vec<TJunction>,
}

impl Network {
    /// Builds the network from a snapshot's catch basins, manholes, outfalls, other
    /// structures, SMPs and pipes.
    pub fn from_snapshot(snapshot: &Snapshot, opts: NetworkOptions) -> Network {
        let structures = [
            StructureKind::CatchBasin,
            StructureKind::Manhole,
            StructureKind::Outfall,
            StructureKind::Other,
            StructureKind::Smp,
        ]
        .into_iter()
        .flat_map(|k| {
            snapshot
                .layer(k.layer())
                .features
                .iter()
                .map(move |f| (f, k))
        });
        Network::build(
            structures,
            &snapshot.layer(Layer::Pipes).features.contiguous(),
            opts,
        )
    }

    /// The options the network was built with.
    pub fn options(&self) -> NetworkOptions {
        self.opts
    }

    /// How many structures (catch basins, manholes, outfalls, other structures and SMPs).
    pub fn structure_count(&self) -> usize {
        self.structures as usize
    }

    /// How many pipes.
    pub fn pipe_count(&self) -> usize {
        self.pipes as usize
    }

    /// How many junctions (places where pipe ends meet each other but no structure).
    pub fn junction_count(&self) -> usize {
        self.kinds
            .iter()
            .filter(|k| matches!(k, NodeKind::Junction))
            .count()
    }

    /// Which structures a pipe's end is joined to (by id or snapped), as [`Self::pipe`]
    /// reads each pipe's ends: marked once per structure, asked by id.
    pub fn joined(&self) -> Joined<'_> {
        let mut marks = vec![false; self.structures as usize];
        for p in 0..self.pipes {
            let whole = self.whole_pipe(p);
            for n in [whole.from, whole.to] {
                if n < self.structures {
                    marks[n as usize] = true;
                }
            }
        }
        Joined { net: self, marks }
    }

    /// How a pipe's flow direction was decided ([`PipeInfo::direction`]), read without
    /// writing out its info.
    pub fn pipe_direction(&self, id: &str) -> Option<DirectionSource> {
        let e = self.pipe_ids.get(&self.names, self.structures, id)?;
        Some(self.whole_pipe(self.pipe_of(e)).direction)
    }

    /// The layer of a structure, by id.
    pub fn structure_layer(&self, id: &str) -> Option<Layer> {
        let n = self.node_ids.get(&self.names, 0, id)?;
        match self.kinds[n as usize] {
            NodeKind::Structure(k) => Some(k.layer()),
            _ => None,
        }
    }

    /// A structure's layer, and its place among the structures of that layer given to
    /// [`Network::build`]: for a network built [`Network::from_snapshot`], its index in
    /// that snapshot's layer. What a trace reached is read by it
    /// ([`Trace::nodes`](trace::Trace)), not looked up again by id.
    pub fn structure_at(&self, node: u32) -> Option<(Layer, usize)> {
        match self.kinds.get(node as usize)? {
            NodeKind::Structure(k) => Some((k.layer(), self.nth_of_kind[node as usize] as usize)),
            _ => None,
        }
    }

    /// The structures at a pipe's ends, in flow order, as nodes (none where an end is no
    /// structure): the ends [`Self::pipe`] names, read without writing out its info (each
    /// node's structure is read by [`Self::structure_at`], not looked up by id).
    pub fn pipe_end_nodes(&self, id: &str) -> Option<(Option<u32>, Option<u32>)> {
        let e = self.pipe_ids.get(&self.names, self.structures, id)?;
        Some(self.end_nodes(self.pipe_of(e)))
    }

    /// [`Self::pipe_end_nodes`] of the pipe numbered `number` (its place among the pipes
    /// the network was built from: on a network built [`Self::from_snapshot`], its index
    /// in that snapshot's layer), read there when that pipe bears `id` and no two
    /// features share an id (then the id names that pipe alone), else looked up by id.
    /// A walk of the pipes' layer reads each pipe so, not by id.
    pub fn pipe_end_nodes_at(&self, number: usize, id: &str) -> Option<(Option<u32>, Option<u32>)> {
        match u32::try_from(number) {
            Ok(p) if p < self.pipes && self.duplicate_ids.is_empty() && self.pipe_id(p) == id => {
                Some(self.end_nodes(p))
            }
            _ => self.pipe_end_nodes(id),
        }
    }

    /// The structures at a pipe's ends, in flow order, as nodes.
    fn end_nodes(&self, pipe: u32) -> (Option<u32>, Option<u32>) {
        let whole = self.whole_pipe(pipe);
        let structure = |n: u32| (n < self.structures).then_some(n);
        (structure(whole.from), structure(whole.to))
    }

    /// How a pipe was read: its ends in flow order, how each was matched and how its
    /// direction was decided.
    pub fn pipe(&self, id: &str) -> Option<PipeInfo> {
        let e = self.pipe_ids.get(&self.names, self.structures, id)?;
        Some(self.pipe_info(e))
    }

    /// The pipes whose inverts turned them round, against the order they were digitised
    /// in: with [`PipeInfo::direction`], what a map needs to draw each pipe's flow as the
    /// network reads it.
    pub fn turned_by_inverts(&self) -> impl Iterator<Item = &str> {
        self.reversed
            .iter()
            .filter(|r| r.turned_by_inverts)
            .map(|r| r.pipe.as_str())
    }

    /// Bytes held on the heap, for sizing (capacities, not counting allocator overhead).
    pub fn heap_bytes(&self) -> usize {
        self.names.heap_bytes()
            + self.kinds.capacity() * std::mem::size_of::<NodeKind>()
            + self.synthetic_at.capacity() * 16
            + self.node_ids.heap_bytes()
            + self.pipe_ids.heap_bytes()
            + self.edges.capacity() * std::mem::size_of::<Edge>()
            + self.out.heap_bytes()
            + self.both_ways_at.heap_bytes()
            + self.inferred.heap_bytes()
            + self.into.heap_bytes()
    }

    /// The pipe an edge is (a piece of).
    fn pipe_of(&self, edge: u32) -> u32 {
        if edge < self.pipes {
            edge
        } else {
            self.split_of[(edge - self.pipes) as usize]
        }
    }

    /// A pipe's ends, in flow order, as an edge: its first piece's upstream end and its
    /// last piece's downstream end.
    fn whole_pipe(&self, pipe: u32) -> Edge {
        let mut e = self.edges[pipe as usize];
        if let Some(&t) = self.tails.get(&pipe) {
            let tail = &self.edges[t as usize];
            e.to = tail.to;
            e.to_match = tail.to_match;
            e.to_snap = tail.to_snap;
        }
        e
    }

    /// Whether anything about a pipe was inferred ([`PipeInfo::is_inferred`]), read
    /// without writing out its info: a trace asks it of every pipe it lists, and only
    /// the inferred ones are described.
    fn pipe_inferred(&self, e: u32) -> bool {
        self.inferred.get(self.pipe_of(e))
    }

    /// Whether anything about a pipe was inferred, worked out from its whole ends (read
    /// once for each pipe into [`Network::inferred`]).
    fn inferred_of(&self, pipe: u32) -> bool {
        let w = self.whole_pipe(pipe);
        w.from_match != EndMatch::Id
            || w.to_match != EndMatch::Id
            || w.direction != DirectionSource::Ids
    }

    fn pipe_info(&self, e: u32) -> PipeInfo {
        let e = self.pipe_of(e);
        let whole = self.whole_pipe(e);
        let edge = &whole;
        let end = |node: u32, matched: EndMatch, snap: f32| PipeEndInfo {
            matched,
            structure: self.structure_id(node).map(str::to_string),
            snap_distance: (matched == EndMatch::Snapped).then_some(f64::from(snap)),
        };
        PipeInfo {
            id: self.pipe_id(e).to_string(),
            from: end(edge.from, edge.from_match, edge.from_snap),
            to: end(edge.to, edge.to_match, edge.to_snap),
            direction: edge.direction,
        }
    }

    /// The id of a node that is a structure (none for a node that is no structure).
    pub fn structure_id(&self, node: u32) -> Option<&str> {
        (node < self.structures).then(|| self.names.get(node))
    }

    fn pipe_id(&self, edge: u32) -> &str {
        self.names.get(self.structures + self.pipe_of(edge))
    }

    /// Where a synthetic node is, if known.
    fn synthetic_at(&self, node: u32) -> Option<[f64; 2]> {
        let at = *self
            .synthetic_at
            .get(node.checked_sub(self.structures)? as usize)?;
        at[0].is_finite().then_some(at)
    }
}
