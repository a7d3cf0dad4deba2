//! Traces: breadth-first walks with or against the flow.

use std::cell::RefCell;
use std::collections::VecDeque;

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
    /// Bidirectional pipes the trace walked against their recorded direction.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub walked_both_ways: Vec<String>,
    /// Set when the start id is both a structure's and a pipe's: which one was traced,
    /// and how to trace the other.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id_collision: Option<String>,
    /// The network's numbers of [`Trace::structures`], in the same order
    /// ([`Network::structure_at`] reads each one's layer and place).
    #[serde(skip)]
    pub nodes: Vec<u32>,
    /// The network's numbers of [`Trace::pipes`], in the same order: each one's index among
    /// the pipes the network was built from.
    #[serde(skip)]
    pub pipe_numbers: Vec<u32>,
}

/// The prefix that makes a trace start at the pipe of an id a structure also carries.
pub const PIPE_PREFIX: &str = "pipe:";

const NO_EDGE: u32 = u32::MAX;

/// How many nodes ahead in a walk's queue a node's links are asked for.
const LINKS_AHEAD: usize = 4;

impl Network {
    /// Traces from a structure or a pipe (structure ids are looked up first) up or down
    /// stream; `None` when the id names neither. Each structure and pipe is visited once,
    /// so cycles in the data end the walk rather than loop it.
    pub fn trace(&self, start: &str, dir: Direction) -> Option<Trace> {
        let (start_node, start_edge, collision) = self.trace_start(start, dir)?;
        let mut trace = Trace {
            start: start.to_string(),
            direction: dir,
            structures: Vec::new(),
            pipes: Vec::new(),
            outfalls: Vec::new(),
            dead_ends: Vec::new(),
            junctions: 0,
            inferred: Vec::new(),
            walked_both_ways: Vec::new(),
            id_collision: collision,
            nodes: Vec::new(),
            pipe_numbers: Vec::new(),
        };
        let (pipes, reversed_walks) = self.walk(&mut trace, start_node, start_edge);
        self.list_pipes(&mut trace, pipes, reversed_walks);
        Some(trace)
    }

    /// Where a trace starts: its first node, the pipe it starts on (`NO_EDGE` for a
    /// structure) and a note when the id is both a structure's and a pipe's; `None` when
    /// the id names neither.
    fn trace_start(&self, start: &str, dir: Direction) -> Option<(u32, u32, Option<String>)> {
        let as_pipe = |id: &str| self.pipe_ids.get(&self.names, self.structures, id);
        if let Some(n) = self.node_ids.get(&self.names, 0, start) {
            let note = as_pipe(start).map(|_| {
                format!(
                    "{start} is the id of a structure and of a pipe; this trace starts at the structure (trace {PIPE_PREFIX}{start} for the pipe)"
                )
            });
            return Some((n, NO_EDGE, note));
        }
        let (e, note) = match as_pipe(start) {
            Some(e) => (e, None),
            None => {
                let id = start.strip_prefix(PIPE_PREFIX)?;
                let e = as_pipe(id)?;
                let note = self.node_ids.get(&self.names, 0, id).map(|_| {
                    format!("{id} is the id of a structure and of a pipe; this trace starts at the pipe")
                });
                (e, note)
            }
        };
        // A pipe split at T-junctions is walked from its first piece downstream
        // and from its last piece upstream, so every piece (and every lateral
        // joining it) is reached.
        let e = match dir {
            Direction::Downstream => e,
            Direction::Upstream => self.tails.get(&e).copied().unwrap_or(e),
        };
        let edge = &self.edges[e as usize];
        let next = match dir {
            Direction::Downstream => edge.to,
            Direction::Upstream => edge.from,
        };
        Some((next, e, note))
    }

    /// Walking from `node` along edge `e`: the node at its other end.
    fn other_end(&self, e: u32, node: u32) -> u32 {
        let edge = &self.edges[e as usize];
        if edge.from == node {
            edge.to
        } else {
            edge.from
        }
    }

    /// The breadth-first walk: records the structures, outfalls, dead ends and junctions
    /// it reaches in `trace`; returns the edges walked and those walked against their
    /// recorded direction.
    fn walk(&self, trace: &mut Trace, start_node: u32, start_edge: u32) -> (Vec<u32>, Vec<u32>) {
        // The edge each node was first reached by: visited set and path tree in one, a
        // table of this thread's kept from walk to walk (see [`Marks`]).
        NODE_MARKS.with_borrow_mut(|reached_by| {
            reached_by.begin(self.kinds.len());
            self.walk_marked(trace, start_node, start_edge, reached_by)
        })
    }

    /// [`Self::walk`] with its table of nodes reached.
    fn walk_marked(
        &self,
        trace: &mut Trace,
        start_node: u32,
        start_edge: u32,
        reached_by: &mut Marks,
    ) -> (Vec<u32>, Vec<u32>) {
        let down = trace.direction == Direction::Downstream;
        let behind = |e: u32, node: u32| self.other_end(e, node);
        let (adjacency, against) = if down {
            (&self.out, &self.into)
        } else {
            (&self.into, &self.out)
        };
        let mut queue = VecDeque::new();
        let mut pipes = Vec::new();
        if start_edge != NO_EDGE {
            pipes.push(start_edge);
        }
        reached_by.mark(start_node, start_edge);
        queue.push_back(start_node);

        let mut reversed_walks = Vec::new();
        let mut structures: Vec<u32> = Vec::new();
        while let Some(node) = queue.pop_front() {
            // The links of the node a few places on in the queue are asked for now; where
            // they start was asked for when it was queued (below).
            if let Some(&later) = queue.get(LINKS_AHEAD) {
                adjacency.prefetch_links(later);
            }
            // The start pipe has been walked already; a bidirectional pipe is walked
            // against its recorded direction too (but not back the way the walk came).
            let came_by = reached_by.get(node).unwrap_or(NO_EDGE);
            // Each step onward, and whether it goes against its pipe's recorded way.
            let ahead = adjacency.of(node);
            let against_here = if self.both_ways_at.get(node) {
                against.of(node)
            } else {
                &[]
            };
            let onward = ahead
                .iter()
                .map(|&l| (l, false))
                .chain(
                    against_here
                        .iter()
                        .filter(|l| self.edges[l.edge as usize].both_ways)
                        .map(|&l| (l, !ahead.iter().any(|a| a.edge == l.edge))),
                )
                .filter(move |(l, _)| l.edge != start_edge && l.edge != came_by);
            let stops = onward.clone().next().is_none();
            match self.kinds[node as usize] {
                NodeKind::Structure(kind) => {
                    structures.push(node);
                    if down && kind == StructureKind::Outfall {
                        trace.outfalls.push(OutfallPath {
                            outfall: self.names.get(node).to_string(),
                            path: self.path_to(node, reached_by, start_edge, behind),
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
                    let by = reached_by.get(node).expect("a node walked was reached");
                    if stops && by != NO_EDGE {
                        trace.dead_ends.push(self.pipe_id(by).to_string());
                    }
                }
            }
            for (step, reversed) in onward {
                if reversed {
                    reversed_walks.push(step.edge);
                }
                pipes.push(step.edge);
                if reached_by.mark(step.node, step.edge) {
                    queue.push_back(step.node);
                    adjacency.prefetch_start(step.node);
                }
            }
        }
        // Named once the walk is over, into a list of the size it needs: a trace of
        // 20,000 structures grew its list of strings a dozen times, copying it each time.
        trace.structures.reserve_exact(structures.len());
        trace
            .structures
            .extend(self.names.each(0, &structures).map(str::to_string));
        trace.nodes = structures;
        (pipes, reversed_walks)
    }

    /// Lists the pipes walked in `trace`, with those inferred and those walked both ways.
    /// A pipe reached from both its ends, or in pieces (split at a T-junction), is listed
    /// once.
    fn list_pipes(&self, trace: &mut Trace, mut pipes: Vec<u32>, mut reversed_walks: Vec<u32>) {
        for e in &mut pipes {
            *e = self.pipe_of(*e);
        }
        PIPE_MARKS.with_borrow_mut(|listed| {
            listed.begin(self.pipes as usize);
            pipes.retain(|&e| listed.mark(e, 0));
        });
        for e in &mut reversed_walks {
            *e = self.pipe_of(*e);
        }
        reversed_walks.sort_unstable();
        reversed_walks.dedup();
        trace.walked_both_ways = reversed_walks
            .into_iter()
            .map(|e| self.pipe_id(e).to_string())
            .collect();
        trace.pipes.reserve_exact(pipes.len());
        for (&e, id) in pipes.iter().zip(self.names.each(self.structures, &pipes)) {
            trace.pipes.push(id.to_string());
            if self.pipe_inferred(e) {
                trace.inferred.push(self.pipe_info(e));
            }
        }
        trace.pipe_numbers = pipes;
    }

    /// The ids from the start of a trace to `node`, in flow order (downstream traces only
    /// ask, so "behind" is upstream).
    fn path_to(
        &self,
        mut node: u32,
        reached_by: &Marks,
        start_edge: u32,
        behind: impl Fn(u32, u32) -> u32,
    ) -> Vec<String> {
        let mut path = Vec::new();
        loop {
            if let Some(id) = self.structure_id(node) {
                path.push(id.to_string());
            }
            let e = reached_by
                .get(node)
                .expect("a node on the path was reached");
            if e == NO_EDGE {
                break;
            }
            let id = self.pipe_id(e);
            // The pieces of a pipe split at a T-junction are one pipe in the path.
            if path.last().map(String::as_str) != Some(id) {
                path.push(id.to_string());
            }
            if e == start_edge {
                break;
            }
            node = behind(e, node);
        }
        path.reverse();
        path
    }
}

/// Marks on numbered things (a network's nodes or pipes), each with a value, for one walk
/// at a time: a mark counts only when stamped with the walk's number, so a new walk
/// starts clean without clearing or allocating. One table per thread, grown to the
/// largest network walked on it; a map sized by the trace cost the county's largest
/// trace (20,060 structures) a fifth of its time in hashing and growing.
#[derive(Default)]
pub(super) struct Marks {
    /// Each thing's stamp and value side by side: a walk reads both, so one cache line
    /// holds both (two tables cost the county's largest trace a second miss per node).
    marks: Vec<[u32; 2]>,
    walk: u32,
}

impl Marks {
    /// Starts a walk over `count` things: none is marked.
    fn begin(&mut self, count: usize) {
        if self.marks.len() < count {
            self.marks.resize(count, [0, 0]);
        }
        self.walk = self.walk.wrapping_add(1);
        if self.walk == 0 {
            // Every stamp could be mistaken for this walk's after four billion walks.
            self.marks.fill([0, 0]);
            self.walk = 1;
        }
    }

    /// Marks `i` with `value` unless marked in this walk already; whether it was new.
    fn mark(&mut self, i: u32, value: u32) -> bool {
        let m = &mut self.marks[i as usize];
        if m[0] == self.walk {
            return false;
        }
        *m = [self.walk, value];
        true
    }

    /// The value `i` was marked with in this walk.
    fn get(&self, i: u32) -> Option<u32> {
        let [stamp, value] = self.marks[i as usize];
        (stamp == self.walk).then_some(value)
    }
}

thread_local! {
    static NODE_MARKS: RefCell<Marks> = RefCell::new(Marks::default());
    static PIPE_MARKS: RefCell<Marks> = RefCell::new(Marks::default());
}

#[cfg(test)]
mod marks_tests {
    use super::Marks;

    #[test]
    fn each_walk_starts_with_nothing_marked_even_when_the_walks_number_wraps() {
        let mut m = Marks::default();
        m.begin(4);
        assert!(m.mark(2, 7));
        assert!(!m.mark(2, 9), "marked once per walk");
        assert_eq!((m.get(2), m.get(1)), (Some(7), None));
        m.begin(3);
        assert_eq!(m.get(2), None, "a new walk sees no mark of the last");
        assert!(m.mark(2, 8));
        // The walk after the four-billionth: every old stamp is cleared, not mistaken.
        m.walk = u32::MAX;
        m.marks[1][0] = 1;
        m.begin(4);
        assert_eq!(m.walk, 1);
        assert_eq!((m.get(1), m.get(2)), (None, None));
        // A larger network on the same thread grows the table.
        m.begin(10);
        assert!(m.mark(9, 1));
        assert_eq!(m.get(9), Some(1));
    }
}
