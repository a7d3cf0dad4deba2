//! The graph as numbered edges, so a walk done elsewhere (the benchmark's recursive SQL
//! walk) can be given exactly the graph ms4 walks: the same snapped ends, junctions,
//! T-junction pieces and bidirectional pipes, with nothing left to resolve differently.

use super::{Network, NodeKind};

impl Network {
    /// How many nodes: structures first (`0..structure_count()`), then junctions and
    /// pipe ends that meet nothing.
    pub fn node_count(&self) -> usize {
        self.kinds.len()
    }

    /// The node of a structure, by id.
    pub fn structure_node(&self, id: &str) -> Option<u32> {
        let n = self.node_ids.get(&self.names, 0, id)?;
        matches!(self.kinds[n as usize], NodeKind::Structure(_)).then_some(n)
    }

    /// Every edge as (upstream node, downstream node), each piece of a split pipe on its
    /// own, and a bidirectional pipe once each way (as a trace walks it).
    pub fn numbered_edges(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::with_capacity(self.edges.len());
        for e in &self.edges {
            out.push((e.from, e.to));
            if e.both_ways && e.from != e.to {
                out.push((e.to, e.from));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use geo_types::{line_string, point};

    use super::super::tests::{network, node, pipe};
    use super::super::*;

    /// Walks `edges` against the flow from `start` and returns the structures reached.
    fn walk_up(net: &Network, start: u32) -> Vec<u32> {
        let edges = net.numbered_edges();
        let mut seen = vec![start];
        let mut i = 0;
        while i < seen.len() {
            let n = seen[i];
            for &(up, down) in &edges {
                if down == n && !seen.contains(&up) {
                    seen.push(up);
                }
            }
            i += 1;
        }
        let mut s: Vec<u32> = seen
            .into_iter()
            .filter(|&n| (n as usize) < net.structure_count())
            .collect();
        s.sort();
        s
    }

    #[test]
    fn numbered_edges_walked_upstream_reach_what_a_trace_reaches() {
        use StructureKind::{CatchBasin, Manhole, Outfall};
        // A trunk A <- B, a lateral from C joining it mid-pipe (a T-junction), a pipe
        // from D meeting another pipe end at a junction, and a bidirectional link E-B
        // digitised away from the trunk (walked upstream only because it is BI).
        let nodes = [
            node(Outfall, "A", point!(x: 0.0, y: 0.0)),
            node(Manhole, "B", point!(x: 100.0, y: 0.0)),
            node(CatchBasin, "C", point!(x: 50.0, y: 50.0)),
            node(CatchBasin, "D", point!(x: 100.0, y: 100.0)),
            node(CatchBasin, "E", point!(x: 200.0, y: 0.0)),
        ];
        let mut bi = pipe(
            "P5",
            None,
            None,
            line_string![(x: 100.0, y: 0.0), (x: 200.0, y: 0.0)],
        );
        bi.extra.insert(
            "flow_direction".into(),
            serde_json::Value::String("BI".into()),
        );
        let pipes = [
            pipe(
                "P1",
                None,
                None,
                line_string![(x: 100.0, y: 0.0), (x: 0.0, y: 0.0)],
            ),
            pipe(
                "P2",
                None,
                None,
                line_string![(x: 50.0, y: 50.0), (x: 50.0, y: 0.0)],
            ),
            pipe(
                "P3",
                None,
                None,
                line_string![(x: 100.0, y: 100.0), (x: 75.0, y: 75.0)],
            ),
            pipe(
                "P4",
                None,
                None,
                line_string![(x: 75.0, y: 75.0), (x: 50.0, y: 50.0)],
            ),
            bi,
        ];
        let net = network(&nodes, &pipes, 1.0);
        assert!(net.junction_count() >= 1, "P3 and P4 meet at a junction");
        let start = net.structure_node("A").unwrap();
        let trace = net.trace("A", Direction::Upstream).unwrap();
        let mut traced: Vec<u32> = trace
            .structures
            .iter()
            .map(|s| net.structure_node(s).unwrap())
            .collect();
        traced.sort();
        assert_eq!(walk_up(&net, start), traced);
        assert_eq!(traced.len(), 5, "every structure drains to A: {trace:?}");
    }
}
