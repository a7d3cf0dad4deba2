//! Traces: breadth-first walks with or against the flow.

use std::collections::hash_map::Entry;
use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::{Direction, Network, NodeKind, PipeInfo, StructureKind};

/// One outfall a downstream trace reached, with one way there.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutfallPath {
    /// The outfall's id.
    pub outfall: String,
    /// Structure and pipe ids in flow order, from the start to the outfall (junctions,
    /// having no id, are left out). A shortest path in pipes, not the only one.
    pub path: Vec<String>,
}

/// What a trace reached.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Trace {
    /// The structure or pipe the trace started from.
    pub start: String,
    /// Which way it went.
    pub direction: Direction,
    /// Structures reached, in breadth-first order (the start first, if a structure).
    pub structures: Vec<String>,
    /// Pipes reached, in breadth-first order (the start first, if a pipe).
    pub pipes: Vec<String>,
    /// Downstream: the outfalls reached, each with a path. Empty upstream.
    pub outfalls: Vec<OutfallPath>,
    /// Where the trace stopped short for want of data: downstream, structures other than
    /// outfalls with no pipe out, and pipes whose downstream end meets nothing (or only
    /// other such pipes); upstream, pipes whose upstream end meets nothing. A structure
    /// with no pipe in is a normal head of the network and is not listed.
    pub dead_ends: Vec<String>,
    /// Junctions passed (pipe ends meeting without a structure).
    pub junctions: usize,
    /// The pipes reached whose ends or direction were inferred rather than named by
    /// from/to ids, with how: what an answer built on the trace assumed.
    pub inferred: Vec<PipeInfo>,
}

const NO_EDGE: u32 = u32::MAX;

impl Network {
    /// Traces from a structure or a pipe (structure ids are looked up first) up or down
    /// stream; `None` when the id names neither. Each structure and pipe is visited once,
    /// so cycles in the data end the walk rather than loop it.
    pub fn trace(&self, start: &str, dir: Direction) -> Option<Trace> {
        let (start_node, start_edge) = match self.node_ids.get(&self.names, 0, start) {
            Some(n) => (n, NO_EDGE),
            None => {
                let e = self.pipe_ids.get(&self.names, self.structures, start)?;
                let edge = &self.edges[e as usize];
                let next = match dir {
                    Direction::Downstream => edge.to,
                    Direction::Upstream => edge.from,
                };
                (next, e)
            }
        };
        let down = dir == Direction::Downstream;
        // Walking away from the start: the node at the far end of an edge, and back.
        let ahead = |e: u32| {
            let edge = &self.edges[e as usize];
            if down {
                edge.to
            } else {
                edge.from
            }
        };
        let behind = |e: u32| {
            let edge = &self.edges[e as usize];
            if down {
                edge.from
            } else {
                edge.to
            }
        };
        let adjacency = if down { &self.out } else { &self.into };

        // The edge each node was first reached by: visited set and path tree in one, sized
        // by the trace rather than the network.
        let mut reached_by: FxHashMap<u32, u32> = FxHashMap::default();
        let mut queue = VecDeque::new();
        let mut pipes = Vec::new();
        if start_edge != NO_EDGE {
            pipes.push(start_edge);
        }
        reached_by.insert(start_node, start_edge);
        queue.push_back(start_node);

        let mut trace = Trace {
            start: start.to_string(),
            direction: dir,
            structures: Vec::new(),
            pipes: Vec::new(),
            outfalls: Vec::new(),
            dead_ends: Vec::new(),
            junctions: 0,
            inferred: Vec::new(),
        };
        while let Some(node) = queue.pop_front() {
            // The start pipe has been walked already.
            let onward = adjacency
                .of(node)
                .iter()
                .copied()
                .filter(|&e| e != start_edge);
            let stops = onward.clone().next().is_none();
            match self.kinds[node as usize] {
                NodeKind::Structure(kind) => {
                    trace.structures.push(self.names.get(node).to_string());
                    if down && kind == StructureKind::Outfall {
                        trace.outfalls.push(OutfallPath {
                            outfall: self.names.get(node).to_string(),
                            path: self.path_to(node, &reached_by, start_edge, behind),
                        });
                    } else if down && stops {
                        trace.dead_ends.push(self.names.get(node).to_string());
                    }
                }
                kind => {
                    if kind == NodeKind::Junction {
                        trace.junctions += 1;
                    }
                    // The node has no id: name the pipe the trace came by.
                    let by = reached_by[&node];
                    if stops && by != NO_EDGE {
                        trace.dead_ends.push(self.pipe_id(by).to_string());
                    }
                }
            }
            for e in onward {
                pipes.push(e);
                let next = ahead(e);
                if let Entry::Vacant(v) = reached_by.entry(next) {
                    v.insert(e);
                    queue.push_back(next);
                }
            }
        }
        for e in pipes {
            trace.pipes.push(self.pipe_id(e).to_string());
            let info = self.pipe_info(e);
            if info.is_inferred() {
                trace.inferred.push(info);
            }
        }
        Some(trace)
    }

    /// The ids from the start of a trace to `node`, in flow order (downstream traces only
    /// ask, so "behind" is upstream).
    fn path_to(
        &self,
        mut node: u32,
        reached_by: &FxHashMap<u32, u32>,
        start_edge: u32,
        behind: impl Fn(u32) -> u32,
    ) -> Vec<String> {
        let mut path = Vec::new();
        loop {
            if let Some(id) = self.structure_id(node) {
                path.push(id.to_string());
            }
            let e = reached_by[&node];
            if e == NO_EDGE {
                break;
            }
            path.push(self.pipe_id(e).to_string());
            if e == start_edge {
                break;
            }
            node = behind(e);
        }
        path.reverse();
        path
    }
}
