//! The network's data-quality report.

use serde::Serialize;

use super::{DirectionSource, EndMatch, Network, NodeKind, StructureKind, TJunction};
use crate::domain::Layer;

/// Counts over the whole network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkSummary {
    /// The snap tolerance used, in CRS units.
    pub snap_tolerance: f64,
    /// Catch basins, manholes and outfalls.
    pub structures: usize,
    /// Pipes.
    pub pipes: usize,
    /// Places where pipe ends meet each other but no structure.
    pub junctions: usize,
    /// Pipe ends matched by `from_id` / `to_id`.
    pub ends_by_id: usize,
    /// Pipe ends snapped to the nearest structure.
    pub ends_snapped: usize,
    /// Pipe ends at junctions.
    pub ends_at_junctions: usize,
    /// Pipe ends that meet nothing.
    pub dangling_ends: usize,
    /// Pipes whose direction came from their from/to ids.
    pub directed_by_ids: usize,
    /// Pipes whose direction came from their inverts.
    pub directed_by_inverts: usize,
    /// Pipes whose direction is the order they were digitised in.
    pub directed_as_digitised: usize,
    /// Weakly connected parts with at least one pipe.
    pub parts: usize,
    /// Parts that reach no outfall at all.
    pub parts_without_outfall: usize,
    /// Directed cycles (strongly connected groups of pipes).
    pub cycles: usize,
    /// Pipes on a cycle (every one is named in the report's cycle list).
    pub pipes_in_cycles: usize,
    /// Pipes listed in `reversed_pipes`: laid against their inverts, or turned round by
    /// them against the order they were digitised in.
    pub reversed_pipes: usize,
    /// Of those, the pipes the inverts turned round.
    pub turned_by_inverts: usize,
    /// Structures no pipe meets.
    pub orphan_structures: usize,
    /// Pipe `from_id` / `to_id` values that name no structure (the end was matched by
    /// position instead, or dangles).
    pub unknown_ids: usize,
    /// Pipes whose two ends are one point (reported, and not counted as cycles).
    pub zero_length_pipes: usize,
    /// Pipes marked as flowing either way (traces walk them both ways).
    pub bidirectional_pipes: usize,
    /// Ids that a structure and a pipe both carry.
    pub id_collisions: usize,
    /// Pipe ends joined to another pipe's interior, which is split there in the network
    /// (not in the stored data). Counted among `ends_at_junctions`.
    pub t_junctions: usize,
}

/// A pipe end that meets no structure and no other pipe.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DanglingEnd {
    /// The pipe.
    pub pipe: String,
    /// Which end, in flow order: `from` (upstream) or `to` (downstream).
    pub end: &'static str,
    /// Where the end is (CRS units); absent when the pipe has no usable geometry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<[f64; 2]>,
}

/// One weakly connected part of the network (structures no pipe meets are not parts;
/// they are listed as orphans).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Part {
    /// Structures in the part.
    pub structures: usize,
    /// Pipes in the part.
    pub pipes: usize,
    /// Outfalls in the part; a part without one drains nowhere the registry knows.
    pub outfalls: usize,
    /// One id from the part (its first structure, else its first pipe), to find it by.
    pub example: String,
}

/// One directed cycle (a strongly connected group of pipes): water that would go round
/// for ever.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cycle {
    /// Every pipe of the group: one way round it in flow order first, then the group's
    /// other pipes, so every pipe the summary counts is named.
    pub pipes: Vec<String>,
    /// The structures on it, in flow order (junctions left out).
    pub structures: Vec<String>,
}

/// A pipe whose inverts say it flows the other way from the direction it was given.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReversedPipe {
    /// The pipe.
    pub pipe: String,
    /// The upstream structure, as given.
    pub from: Option<String>,
    /// The downstream structure, as given.
    pub to: Option<String>,
    /// The invert at the upstream end: lower than at the downstream end.
    pub from_invert: f64,
    /// The invert at the downstream end.
    pub to_invert: f64,
    /// How the direction was decided: `inverts` for a pipe they turned round, else the
    /// source (ids or digitised order) they contradict.
    pub direction: DirectionSource,
    /// True when the inverts turned the pipe round against its digitised order (its
    /// `from`/`to` here are as it now flows, and its inverts fall along it); false when
    /// the pipe keeps a direction its inverts contradict.
    pub turned_by_inverts: bool,
}

/// An id that a structure and a pipe both carry: a trace of it starts at the structure,
/// and `pipe:ID` traces the pipe.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct IdCollision {
    /// The id.
    pub id: String,
    /// The layer of the structure.
    pub structure_layer: Layer,
}

/// A structure that no pipe meets.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrphanStructure {
    /// Its id.
    pub id: String,
    /// Its layer.
    pub layer: Layer,
}

/// A pipe's `from_id` or `to_id` that names no structure (the end was matched by
/// position instead).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnknownId {
    /// The pipe.
    pub pipe: String,
    /// `from_id` or `to_id`.
    pub field: String,
    /// The id it names.
    pub id: String,
}

/// A pipe whose two ends became one point of the network: both snapped to one structure
/// (often because one end names a structure that is not there), or met at one junction,
/// within the snap tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ZeroLengthPipe {
    /// The pipe.
    pub pipe: String,
    /// The structure both ends are at; none when they meet at a junction of pipes.
    pub structure: Option<String>,
    /// The pipe's drawn length, in the registry CRS's unit (0 when it is drawn as a point).
    pub length: f64,
    /// Its from/to ids that name no structure (`to_id MH-99`), the usual reason an end
    /// was placed by position onto the other end's structure.
    pub unknown_ids: Vec<String>,
}

/// An id used by more than one structure, or by more than one pipe; the first one wins
/// lookups by id, the others still take part by position.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DuplicateId {
    /// The id.
    pub id: String,
    /// The layer of the feature that lost.
    pub layer: Layer,
}

/// What is wrong with the network's data. Nothing here stops the network from working;
/// traces just stop short, or go round once, where the data does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkReport {
    /// Counts.
    pub summary: NetworkSummary,
    /// Pipe ends that meet no structure and no other pipe.
    pub dangling_ends: Vec<DanglingEnd>,
    /// Weakly connected parts: those without an outfall first, then the largest first.
    pub parts: Vec<Part>,
    /// Every directed cycle.
    pub cycles: Vec<Cycle>,
    /// Pipes whose two ends are one point: what they snap to, how long they are drawn.
    pub zero_length_pipes: Vec<ZeroLengthPipe>,
    /// Pipes marked as flowing either way.
    pub bidirectional_pipes: Vec<String>,
    /// Ids a structure and a pipe both carry.
    pub id_collisions: Vec<IdCollision>,
    /// Pipe ends joined to another pipe's interior.
    pub t_junctions: Vec<TJunction>,
    /// Pipes laid against their inverts.
    pub reversed_pipes: Vec<ReversedPipe>,
    /// Structures that no pipe meets.
    pub orphan_structures: Vec<OrphanStructure>,
    /// From/to ids naming no structure.
    pub unknown_ids: Vec<UnknownId>,
    /// Ids used twice.
    pub duplicate_ids: Vec<DuplicateId>,
    /// Stored rows of any layer left out of the registry's snapshot because they cannot
    /// be read (filled by the caller from the snapshot; the network never sees them).
    pub unreadable_rows: Vec<crate::store::UnreadableRow>,
}

impl Network {
    /// The zero-length pipes with what they snap to, their length and the ids of theirs
    /// that name no structure.
    fn zero_length_pipes(&self) -> Vec<ZeroLengthPipe> {
        self.zero_length
            .iter()
            .zip(&self.zero_lengths)
            .map(|(&e, &length)| {
                let pipe = self.pipe_id(e).to_string();
                let unknown_ids = self
                    .unknown_ids
                    .iter()
                    .filter(|u| u.pipe == pipe)
                    .map(|u| format!("{} {}", u.field, u.id))
                    .collect();
                ZeroLengthPipe {
                    structure: self
                        .structure_id(self.edges[e as usize].from)
                        .map(str::to_string),
                    pipe,
                    length,
                    unknown_ids,
                }
            })
            .collect()
    }

    /// Checks the network's data: dangling ends, disconnected parts, cycles, pipes laid
    /// against their inverts, structures with no pipe, and ids that do not resolve.
    pub fn check(&self) -> NetworkReport {
        let mut dangling_ends = Vec::new();
        let mut summary = NetworkSummary {
            snap_tolerance: self.opts.tolerance(),
            structures: self.structures as usize,
            pipes: self.pipes as usize,
            junctions: self.junction_count(),
            ends_by_id: 0,
            ends_snapped: 0,
            ends_at_junctions: 0,
            dangling_ends: 0,
            directed_by_ids: 0,
            directed_by_inverts: 0,
            directed_as_digitised: 0,
            parts: 0,
            parts_without_outfall: 0,
            cycles: 0,
            pipes_in_cycles: 0,
            reversed_pipes: self.reversed.len(),
            turned_by_inverts: self.reversed.iter().filter(|r| r.turned_by_inverts).count(),
            orphan_structures: 0,
            unknown_ids: self.unknown_ids.len(),
            zero_length_pipes: self.zero_length.len(),
            bidirectional_pipes: 0,
            id_collisions: self.collisions.len(),
            t_junctions: self.tees.len(),
        };
        let bidirectional_pipes: Vec<String> = (0..self.pipes)
            .filter(|&e| self.edges[e as usize].both_ways)
            .map(|e| self.pipe_id(e).to_string())
            .collect();
        summary.bidirectional_pipes = bidirectional_pipes.len();
        for i in 0..self.pipes as usize {
            let e = &self.whole_pipe(i as u32);
            for (end, node, matched) in [("from", e.from, e.from_match), ("to", e.to, e.to_match)] {
                match matched {
                    EndMatch::Id => summary.ends_by_id += 1,
                    EndMatch::Snapped => summary.ends_snapped += 1,
                    EndMatch::Junction => summary.ends_at_junctions += 1,
                    EndMatch::Dangling => {
                        summary.dangling_ends += 1;
                        dangling_ends.push(DanglingEnd {
                            pipe: self.pipe_id(i as u32).to_string(),
                            end,
                            at: self.synthetic_at(node),
                        });
                    }
                }
            }
            match e.direction {
                DirectionSource::Ids => summary.directed_by_ids += 1,
                DirectionSource::Inverts => summary.directed_by_inverts += 1,
                DirectionSource::Digitised => summary.directed_as_digitised += 1,
            }
        }

        let orphan_structures: Vec<OrphanStructure> = (0..self.structures)
            .filter(|&n| self.out.of(n).is_empty() && self.into.of(n).is_empty())
            // An SMP without pipes takes sheet flow: not a structure cut off.
            .filter(|&n| self.kinds[n as usize] != NodeKind::Structure(StructureKind::Smp))
            .map(|n| OrphanStructure {
                id: self.names.get(n).to_string(),
                layer: match self.kinds[n as usize] {
                    NodeKind::Structure(k) => k.layer(),
                    _ => unreachable!("nodes below the structure count are structures"),
                },
            })
            .collect();
        summary.orphan_structures = orphan_structures.len();

        let parts = self.parts();
        summary.parts = parts.len();
        summary.parts_without_outfall = parts.iter().filter(|p| p.outfalls == 0).count();

        let (cycles, count, pipes_in_cycles) = self.cycles();
        summary.cycles = count;
        summary.pipes_in_cycles = pipes_in_cycles;

        NetworkReport {
            summary,
            dangling_ends,
            parts,
            cycles,
            zero_length_pipes: self.zero_length_pipes(),
            bidirectional_pipes,
            id_collisions: self.collisions.clone(),
            t_junctions: self.tees.clone(),
            reversed_pipes: self.reversed.clone(),
            orphan_structures,
            unknown_ids: self.unknown_ids.clone(),
            duplicate_ids: self.duplicate_ids.clone(),
            unreadable_rows: Vec::new(),
        }
    }

    /// Weakly connected parts with at least one pipe, by union-find over the pipes.
    fn parts(&self) -> Vec<Part> {
        let n = self.kinds.len();
        let mut parent: Vec<u32> = (0..n as u32).collect();
        fn root(parent: &mut [u32], mut i: u32) -> u32 {
            while parent[i as usize] != i {
                parent[i as usize] = parent[parent[i as usize] as usize];
                i = parent[i as usize];
            }
            i
        }
        for e in &self.edges {
            let (a, b) = (root(&mut parent, e.from), root(&mut parent, e.to));
            if a != b {
                // The smaller root wins, so a part's root is its first node.
                parent[a.max(b) as usize] = a.min(b);
            }
        }
        const NO_PART: u32 = u32::MAX;
        let mut part_of_root = vec![NO_PART; n];
        let mut parts: Vec<Part> = Vec::new();
        let mut part_of = |parent: &mut [u32], node: u32, parts: &mut Vec<Part>| {
            let r = root(parent, node) as usize;
            if part_of_root[r] == NO_PART {
                part_of_root[r] = parts.len() as u32;
                parts.push(Part {
                    structures: 0,
                    pipes: 0,
                    outfalls: 0,
                    example: String::new(),
                });
            }
            part_of_root[r] as usize
        };
        // Structures in input order, so a part's example is its first structure.
        for node in 0..self.structures {
            if self.out.of(node).is_empty() && self.into.of(node).is_empty() {
                continue;
            }
            let k = part_of(&mut parent, node, &mut parts);
            let p = &mut parts[k];
            p.structures += 1;
            if self.kinds[node as usize] == NodeKind::Structure(StructureKind::Outfall) {
                p.outfalls += 1;
            }
            if p.example.is_empty() {
                p.example = self.names.get(node).to_string();
            }
        }
        for (i, e) in self.edges.iter().enumerate().take(self.pipes as usize) {
            let k = part_of(&mut parent, e.from, &mut parts);
            let p = &mut parts[k];
            p.pipes += 1;
            if p.example.is_empty() {
                p.example = self.pipe_id(i as u32).to_string();
            }
        }
        parts.sort_by(|a, b| {
            (a.outfalls > 0)
                .cmp(&(b.outfalls > 0))
                .then((b.structures + b.pipes).cmp(&(a.structures + a.pipes)))
                .then_with(|| a.example.cmp(&b.example))
        });
        parts
    }

    /// Directed cycles: every strongly connected group with a pipe inside it, listed
    /// whole, and how many pipes are on them. Zero-length pipes are left out: their two
    /// ends are one point, which is a data slip, not water going round.
    fn cycles(&self) -> (Vec<Cycle>, usize, usize) {
        let comp = self.strong_components();
        let n = self.kinds.len();
        let counts = |e: usize| self.zero_length.binary_search(&(e as u32)).is_err();
        // A group has a cycle when a pipe runs inside it (a self-loop counts).
        let mut inside: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, e) in self.edges.iter().enumerate() {
            if counts(i) && comp[e.from as usize] == comp[e.to as usize] {
                // A pipe split at a T-junction counts once, whichever pieces are inside.
                let list = &mut inside[comp[e.from as usize] as usize];
                let pipe = self.pipe_of(i as u32);
                if !list.contains(&pipe) {
                    list.push(pipe);
                }
            }
        }
        let pipes_in_cycles = inside.iter().map(Vec::len).sum();
        let count = inside.iter().filter(|c| !c.is_empty()).count();
        let mut cycles = Vec::with_capacity(count);
        let mut listed = vec![false; n];
        for node in 0..n as u32 {
            let c = comp[node as usize] as usize;
            if inside[c].is_empty() || listed[c] {
                continue;
            }
            listed[c] = true;
            let mut cycle = self.cycle_from(node, &comp);
            let walked: rustc_hash::FxHashSet<&str> =
                cycle.pipes.iter().map(String::as_str).collect();
            let rest: Vec<String> = inside[c]
                .iter()
                .map(|&e| self.pipe_id(e))
                .filter(|id| !walked.contains(id))
                .map(str::to_string)
                .collect();
            cycle.pipes.extend(rest);
            cycles.push(cycle);
        }
        (cycles, count, pipes_in_cycles)
    }

    /// Walks from a node of a cyclic group along pipes that stay in the group until a node
    /// repeats; the loop closed is a cycle. Every node of such a group has a pipe out into
    /// the group, so the walk always closes.
    fn cycle_from(&self, start: u32, comp: &[u32]) -> Cycle {
        let c = comp[start as usize];
        let mut seen: rustc_hash::FxHashMap<u32, usize> = Default::default();
        let mut walk: Vec<u32> = Vec::new();
        let mut node = start;
        let first = loop {
            if let Some(&at) = seen.get(&node) {
                break at;
            }
            seen.insert(node, walk.len());
            let step = *self
                .out
                .of(node)
                .iter()
                .find(|l| {
                    comp[l.node as usize] == c && self.zero_length.binary_search(&l.edge).is_err()
                })
                .expect("a node of a cyclic group has a pipe out into it");
            walk.push(step.edge);
            node = step.node;
        };
        let loop_edges = &walk[first..];
        let mut pipes: Vec<String> = Vec::with_capacity(loop_edges.len());
        for &e in loop_edges {
            let id = self.pipe_id(e);
            if !pipes.iter().any(|p| p == id) {
                pipes.push(id.to_string());
            }
        }
        Cycle {
            pipes,
            structures: loop_edges
                .iter()
                .filter_map(|&e| self.structure_id(self.edges[e as usize].from))
                .map(str::to_string)
                .collect(),
        }
    }

    /// Strongly connected components (Tarjan's algorithm, iterative so a long trunk line
    /// cannot overflow the stack): a component number per node.
    fn strong_components(&self) -> Vec<u32> {
        const UNSEEN: u32 = u32::MAX;
        let n = self.kinds.len();
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut comp = vec![UNSEEN; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<u32> = Vec::new();
        // (node, position of the next pipe out to look at)
        let mut calls: Vec<(u32, usize)> = Vec::new();
        let mut next_index = 0u32;
        let mut next_comp = 0u32;
        for root in 0..n as u32 {
            if index[root as usize] != UNSEEN {
                continue;
            }
            index[root as usize] = next_index;
            low[root as usize] = next_index;
            next_index += 1;
            stack.push(root);
            on_stack[root as usize] = true;
            calls.push((root, 0));
            while let Some(&mut (v, ref mut pos)) = calls.last_mut() {
                let out = self.out.of(v);
                if let Some(&step) = out.get(*pos) {
                    *pos += 1;
                    let w = step.node;
                    if index[w as usize] == UNSEEN {
                        index[w as usize] = next_index;
                        low[w as usize] = next_index;
                        next_index += 1;
                        stack.push(w);
                        on_stack[w as usize] = true;
                        calls.push((w, 0));
                    } else if on_stack[w as usize] {
                        low[v as usize] = low[v as usize].min(index[w as usize]);
                    }
                    continue;
                }
                calls.pop();
                if let Some(&(u, _)) = calls.last() {
                    low[u as usize] = low[u as usize].min(low[v as usize]);
                }
                if low[v as usize] == index[v as usize] {
                    while let Some(w) = stack.pop() {
                        on_stack[w as usize] = false;
                        comp[w as usize] = next_comp;
                        if w == v {
                            break;
                        }
                    }
                    next_comp += 1;
                }
            }
        }
        comp
    }
}
