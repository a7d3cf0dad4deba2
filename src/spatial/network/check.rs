//! The network's data-quality report.

use serde::Serialize;

use super::{DirectionSource, EndMatch, Network, NodeKind, StructureKind};
use crate::domain::Layer;

/// How many cycles are listed pipe by pipe; the rest are only counted.
const CYCLE_EXAMPLES: usize = 10;

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
    /// Pipes on a cycle.
    pub pipes_in_cycles: usize,
    /// Pipes laid against their inverts.
    pub reversed_pipes: usize,
    /// Structures no pipe meets.
    pub orphan_structures: usize,
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

/// One directed cycle: water that would go round for ever.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cycle {
    /// The pipes around the cycle, in flow order.
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
    /// How the direction that the inverts contradict was decided.
    pub direction: DirectionSource,
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
    /// A few directed cycles (see the summary for how many there are).
    pub cycles: Vec<Cycle>,
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
    /// Checks the network's data: dangling ends, disconnected parts, cycles, pipes laid
    /// against their inverts, structures with no pipe, and ids that do not resolve.
    pub fn check(&self) -> NetworkReport {
        let mut dangling_ends = Vec::new();
        let mut summary = NetworkSummary {
            snap_tolerance: self.opts.tolerance(),
            structures: self.structures as usize,
            pipes: self.edges.len(),
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
            orphan_structures: 0,
        };
        for (i, e) in self.edges.iter().enumerate() {
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
        for (i, e) in self.edges.iter().enumerate() {
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

    /// Directed cycles: a few listed, and how many strongly connected groups have one and
    /// how many pipes are on them.
    fn cycles(&self) -> (Vec<Cycle>, usize, usize) {
        let comp = self.strong_components();
        let n = self.kinds.len();
        // A group has a cycle when a pipe runs inside it (a self-loop counts).
        let mut cyclic = vec![false; n];
        let mut pipes_in_cycles = 0;
        for e in &self.edges {
            if comp[e.from as usize] == comp[e.to as usize] {
                cyclic[comp[e.from as usize] as usize] = true;
                pipes_in_cycles += 1;
            }
        }
        let count = cyclic.iter().filter(|&&c| c).count();
        let mut examples = Vec::new();
        let mut listed = vec![false; n];
        for node in 0..n as u32 {
            let c = comp[node as usize] as usize;
            if examples.len() == CYCLE_EXAMPLES {
                break;
            }
            if !cyclic[c] || listed[c] {
                continue;
            }
            listed[c] = true;
            examples.push(self.cycle_from(node, &comp));
        }
        (examples, count, pipes_in_cycles)
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
            let e = *self
                .out
                .of(node)
                .iter()
                .find(|&&e| comp[self.edges[e as usize].to as usize] == c)
                .expect("a node of a cyclic group has a pipe out into it");
            walk.push(e);
            node = self.edges[e as usize].to;
        };
        let loop_edges = &walk[first..];
        Cycle {
            pipes: loop_edges
                .iter()
                .map(|&e| self.pipe_id(e).to_string())
                .collect(),
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
                if let Some(&e) = out.get(*pos) {
                    *pos += 1;
                    let w = self.edges[e as usize].to;
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
