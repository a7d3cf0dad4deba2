//! The network check's findings one by one: what each is, the id it concerns, what is
//! wrong, and where it is drawn. The table, the CSV and the GeoJSON all list these, so
//! each finding is one row and one feature in every format.

use std::collections::HashMap;

use serde::Serialize;

use super::places::{Place, Places, Shape};
use crate::domain::Layer;
use crate::spatial::network::{NetworkReport, ZeroLengthPipe};

/// The network check's answer: the report, and the layer of each part's example
/// structure (which the report names by id only).
#[derive(Debug, Clone, Serialize)]
pub struct NetworkCheckAnswer {
    /// The report, as the JSON answer gives it.
    #[serde(flatten)]
    pub report: NetworkReport,
    /// The layer of each part's example, by id (a part without structures has a pipe).
    #[serde(skip)]
    pub example_layers: HashMap<String, Layer>,
    /// The registry's linear unit, as the findings' words give every distance
    /// (`ftUS`, `m`).
    #[serde(skip)]
    pub unit: &'static str,
}

impl std::ops::Deref for NetworkCheckAnswer {
    type Target = NetworkReport;
    fn deref(&self) -> &NetworkReport {
        &self.report
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckFinding {
    /// What kind: `dangling_end`, `cycle`, `orphan_structure`, ...
    pub kind: &'static str,
    /// The id it concerns (`cycle 2` for a cycle).
    pub id: String,
    /// What is wrong, in words.
    pub detail: String,
    /// The layer of the feature `id` names, when it names one.
    pub layer: Option<Layer>,
    /// Where it is drawn.
    pub shape: Shape,
}

impl CheckFinding {
    /// The point where it is, when it is a point (x, y in the registry's CRS).
    pub fn at(&self) -> Option<[f64; 2]> {
        match self.shape {
            Shape::Point(a) => Some(a),
            _ => None,
        }
    }
}

impl NetworkCheckAnswer {
    /// Every finding, kind by kind in the report's order.
    pub fn findings(&self) -> Vec<CheckFinding> {
        let mut out = self.pipe_findings();
        out.extend(self.feature_findings());
        out
    }

    /// The findings about pipes: dangling ends, T-junctions, cycles, zero-length,
    /// reversed and bidirectional pipes, unknown ids and id collisions.
    fn pipe_findings(&self) -> Vec<CheckFinding> {
        let r = &self.report;
        let mut out = Vec::new();
        let mut push = |kind, id: String, detail: String, layer, shape| {
            out.push(CheckFinding {
                kind,
                id,
                detail,
                layer,
                shape,
            });
        };
        let pipe = |id: &String| Shape::Feature(Layer::Pipes, id.clone());
        for d in &r.dangling_ends {
            let shape = d.at.map_or_else(|| pipe(&d.pipe), Shape::Point);
            let detail = format!("{} end meets nothing", d.end);
            push(
                "dangling_end",
                d.pipe.clone(),
                detail,
                Some(Layer::Pipes),
                shape,
            );
        }
        for t in &r.t_junctions {
            let detail = format!(
                "{} end joins {} ({} {} away)",
                t.end,
                t.joins,
                three_places(t.distance),
                self.unit
            );
            let (id, shape) = (t.pipe.clone(), Shape::Point(t.at));
            push("t_junction", id, detail, Some(Layer::Pipes), shape);
        }
        for (i, c) in r.cycles.iter().enumerate() {
            let detail = format!(
                "pipes {} through {}",
                c.pipes.join(" "),
                c.structures.join(" ")
            );
            let shape = Shape::Pipes(c.pipes.clone());
            push("cycle", format!("cycle {}", i + 1), detail, None, shape);
        }
        for z in &r.zero_length_pipes {
            let detail = zero_length_words(z, self.unit);
            push(
                "zero_length_pipe",
                z.pipe.clone(),
                detail,
                Some(Layer::Pipes),
                pipe(&z.pipe),
            );
        }
        for p in &r.reversed_pipes {
            let why = reversed_words(p);
            let shape = pipe(&p.pipe);
            push(
                "reversed_pipe",
                p.pipe.clone(),
                why,
                Some(Layer::Pipes),
                shape,
            );
        }
        for p in &r.bidirectional_pipes {
            let detail = "flows either way".into();
            push(
                "bidirectional_pipe",
                p.clone(),
                detail,
                Some(Layer::Pipes),
                pipe(p),
            );
        }
        for u in &r.unknown_ids {
            let detail = format!("{} names {}, which is no structure", u.field, u.id);
            let shape = pipe(&u.pipe);
            push(
                "unknown_id",
                u.pipe.clone(),
                detail,
                Some(Layer::Pipes),
                shape,
            );
        }
        for c in &r.id_collisions {
            let detail = format!(
                "a pipe and a structure of {} (trace pipe:{} for the pipe)",
                c.structure_layer, c.id
            );
            push(
                "id_collision",
                c.id.clone(),
                detail,
                Some(Layer::Pipes),
                pipe(&c.id),
            );
        }
        out
    }

    /// The findings about features of any layer: duplicate ids, orphan structures, each
    /// part's example, unreadable rows.
    fn feature_findings(&self) -> Vec<CheckFinding> {
        let r = &self.report;
        let mut out = Vec::new();
        let mut push = |kind, id: String, detail: String, layer, shape| {
            out.push(CheckFinding {
                kind,
                id,
                detail,
                layer,
                shape,
            });
        };
        for d in &r.duplicate_ids {
            let detail = format!("used again in {}", d.layer);
            let shape = Shape::Feature(d.layer, d.id.clone());
            push("duplicate_id", d.id.clone(), detail, Some(d.layer), shape);
        }
        for o in &r.orphan_structures {
            let detail = format!("a {} no pipe meets", o.layer);
            let shape = Shape::Feature(o.layer, o.id.clone());
            push(
                "orphan_structure",
                o.id.clone(),
                detail,
                Some(o.layer),
                shape,
            );
        }
        for p in &r.parts {
            let detail = format!(
                "{} structures, {} pipes, {} outfalls",
                p.structures, p.pipes, p.outfalls
            );
            let layer = self
                .example_layers
                .get(&p.example)
                .copied()
                .unwrap_or(Layer::Pipes);
            let shape = Shape::Feature(layer, p.example.clone());
            push("part", p.example.clone(), detail, Some(layer), shape);
        }
        for u in &r.unreadable_rows {
            let detail = format!("{}: {}", u.layer, u.reason);
            let id = u.id.clone().unwrap_or_default();
            push("unreadable_row", id, detail, Some(u.layer), Shape::Nowhere);
        }
        out
    }
}

/// Why a pipe is listed as reversed: turned by its inverts, or laid against them.
fn reversed_words(p: &crate::spatial::network::ReversedPipe) -> String {
    if p.turned_by_inverts {
        format!(
            "turned by its inverts ({} to {})",
            p.from_invert, p.to_invert
        )
    } else {
        format!(
            "laid against its inverts ({} to {}), direction from its {}",
            p.from_invert,
            p.to_invert,
            serde_json::to_value(p.direction)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        )
    }
}

impl Places for NetworkCheckAnswer {
    /// Every finding: dangling ends and T-junctions at their points, cycles and problem
    /// pipes as their lines, orphan and duplicate structures and each part's example as
    /// those features (of whatever layer), unreadable rows without a geometry.
    fn places(&self) -> Vec<Place> {
        self.findings()
            .into_iter()
            .map(|f| Place {
                id: None,
                layer: f.layer,
                properties: serde_json::Map::from_iter([
                    ("finding".to_string(), f.kind.into()),
                    ("id".to_string(), f.id.into()),
                    ("detail".to_string(), f.detail.into()),
                ]),
                shape: f.shape,
            })
            .collect()
    }
}

/// What happened to a zero-length pipe, in words: where both ends went, how long it is
/// drawn, and the ids of its that name no structure.
/// A distance to three decimals, as the findings give distances, without trailing zeros
/// (0.62, not 0.620) or float noise.
fn three_places(d: f64) -> String {
    let s = format!("{d:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn zero_length_words(z: &ZeroLengthPipe, unit: &str) -> String {
    let length = format!("{} {unit}", three_places(z.length));
    let mut w = match (&z.structure, z.length > 0.0) {
        (Some(s), true) => format!(
            "both ends snap to structure {s}: the pipe is drawn {length} long, within the snap tolerance"
        ),
        (Some(s), false) => format!("both ends are at structure {s}: the pipe is drawn as one point"),
        (None, true) => format!(
            "both ends meet at one junction: the pipe is drawn {length} long, within the snap tolerance"
        ),
        (None, false) => "both ends are one point: the pipe is drawn as one point".to_string(),
    };
    for u in &z.unknown_ids {
        w.push_str(&format!("; its {u}, which is no structure"));
    }
    w
}
