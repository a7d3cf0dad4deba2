//! The drainage network: traces up or down stream, and the network's data check.

use std::collections::HashSet;

use clap::Args;
use serde::{Deserialize, Serialize};

use super::network_findings::NetworkCheckAnswer;
use super::places::{fields, Place, Places, Shape};
use super::{flag, Ask, AskError};
use crate::domain::Layer;
use crate::spatial::connections::ms4_end;
use crate::spatial::network::{Direction, Trace};
use crate::spatial::query::nearest_in;
use crate::spatial::waters::outfall_water;

/// `ms4 trace` and `GET /api/trace/{asset_id}?direction=upstream|downstream`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct TraceParams {
    /// The structure or pipe to start from (over HTTP, the path's `{asset_id}`).
    #[serde(skip)]
    pub asset_id: String,
    /// Trace against the flow, towards the sources.
    #[arg(long, conflicts_with = "downstream")]
    #[serde(deserialize_with = "flag")]
    pub upstream: bool,
    /// Trace with the flow, towards the outfalls.
    #[arg(long)]
    #[serde(deserialize_with = "flag")]
    pub downstream: bool,
    /// Which way, `upstream` or `downstream` (HTTP only; the command line says
    /// `--upstream` or `--downstream`).
    #[arg(skip)]
    #[schemars(schema_with = "direction_schema")]
    pub direction: Option<String>,
}

/// The words `direction` takes, for the API document (the short `up` and `down` are
/// read too, but not offered).
fn direction_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    let mut s = schemars::schema::SchemaObject {
        instance_type: Some(schemars::schema::InstanceType::String.into()),
        ..Default::default()
    };
    s.enum_values = Some(vec!["upstream".into(), "downstream".into()]);
    s.into()
}

impl TraceParams {
    /// The direction asked for.
    pub fn direction(&self) -> Result<Direction, AskError> {
        let named = match self.direction.as_deref().map(str::trim) {
            None | Some("") => None,
            Some("upstream" | "up") => Some(Direction::Upstream),
            Some("downstream" | "down") => Some(Direction::Downstream),
            Some(other) => {
                return Err(AskError::invalid(
                    "direction",
                    format!("{other:?} is not a direction; expected upstream or downstream"),
                ))
            }
        };
        let flags = match (self.upstream, self.downstream) {
            (true, true) => {
                return Err(AskError::invalid(
                    "direction",
                    "upstream or downstream, not both",
                ))
            }
            (true, false) => Some(Direction::Upstream),
            (false, true) => Some(Direction::Downstream),
            (false, false) => None,
        };
        match (named, flags) {
            (Some(a), Some(b)) if a != b => Err(AskError::invalid(
                "direction",
                "upstream or downstream, not both",
            )),
            (Some(d), _) | (None, Some(d)) => Ok(d),
            (None, None) => Err(AskError::invalid(
                "direction",
                "give the direction: upstream or downstream",
            )),
        }
    }
}

/// A connection that joins a structure or pipe the trace reached.
#[derive(Debug, Clone, Serialize)]
pub struct ReachedConnection {
    /// The connection's id.
    pub connection_id: String,
    /// The parcel it serves, when recorded.
    pub parcel_id: Option<String>,
}

/// The water at the end of an outfall the trace reached.
#[derive(Debug, Clone, Serialize)]
pub struct OutfallWater {
    /// The outfall.
    pub outfall: String,
    /// The water it discharges to, if found.
    pub water_id: Option<String>,
    /// How the water was found.
    pub found_by: String,
}

/// A trace with what it reaches beyond the pipes.
#[derive(Debug, Clone, Serialize)]
pub struct TraceAnswer {
    /// The structures, pipes, outfalls and dead ends reached.
    pub trace: Trace,
    /// The connections joining what was reached (upstream: the candidate sources).
    pub connections: Vec<ReachedConnection>,
    /// The receiving water at each outfall reached.
    pub receiving_waters: Vec<OutfallWater>,
    /// The layer of each structure reached, in the order of `trace.structures` (`None`
    /// for a structure the network no longer knows): what the places are drawn from.
    #[serde(skip)]
    pub structure_layers: Vec<Option<Layer>>,
}

/// Traces the drainage network from a structure or pipe.
pub fn trace(ask: &Ask<'_>, p: &TraceParams) -> Result<TraceAnswer, AskError> {
    let dir = p.direction()?;
    let snap = ask.snap;
    let net = ask.network()?;
    let t = net.trace(&p.asset_id, dir).ok_or_else(|| {
        AskError::NotFound(format!(
            "{:?} is neither a structure nor a pipe of the drainage network",
            p.asset_id
        ))
    })?;
    // What the trace reaches beyond the pipes: the connections that join the structures
    // reached, and their parcels (upstream, these are the candidate sources).
    let reached: HashSet<&str> = t
        .structures
        .iter()
        .chain(&t.pipes)
        .map(String::as_str)
        .collect();
    let tol = ask.in_crs(&ask.profile.tolerances.snap_tolerance);
    let mut connections = Vec::new();
    for c in &snap.layer(Layer::Connections).features {
        let Some(end) = c.geom.as_ref().and_then(ms4_end) else {
            continue;
        };
        let joins = [Layer::CatchBasins, Layer::Manholes, Layer::Pipes]
            .into_iter()
            .flat_map(|l| {
                nearest_in(snap.layer(l), &end, Some(tol), Some(1))
                    .into_iter()
                    .map(move |(i, _)| (l, i))
            })
            .any(|(l, i)| reached.contains(snap.layer(l).features[i].id.as_str()));
        if joins {
            connections.push(ReachedConnection {
                connection_id: c.id.clone(),
                parcel_id: c
                    .get(Layer::Connections, "parcel_id")
                    .as_str()
                    .map(str::to_string),
            });
        }
    }
    let water_tol = ask.in_crs(&ask.profile.tolerances.receiving_water_tolerance);
    let receiving_waters = t
        .outfalls
        .iter()
        .map(|o| {
            let (water_id, found_by) = outfall_water(snap, &o.outfall, water_tol);
            OutfallWater {
                outfall: o.outfall.clone(),
                water_id,
                found_by,
            }
        })
        .collect();
    let structure_layers = t
        .structures
        .iter()
        .map(|s| net.structure_layer(s))
        .collect();
    Ok(TraceAnswer {
        trace: t,
        connections,
        receiving_waters,
        structure_layers,
    })
}

/// `ms4 network-check` and `GET /api/network-check`: no parameters.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct NetworkCheckParams {}

/// Dangling ends, disconnected parts, cycles, reversed pipes and orphan structures.
pub fn network_check(
    ask: &Ask<'_>,
    _p: &NetworkCheckParams,
) -> Result<NetworkCheckAnswer, AskError> {
    let net = ask.network()?;
    let mut report = net.check();
    report.unreadable_rows = ask.snap.unreadable().into_iter().cloned().collect();
    let example_layers = report
        .parts
        .iter()
        .filter_map(|p| Some((p.example.clone(), net.structure_layer(&p.example)?)))
        .collect();
    Ok(NetworkCheckAnswer {
        report,
        example_layers,
        unit: ask.snap.meta.linear_unit.symbol(),
    })
}

impl Places for TraceAnswer {
    /// Each structure reached (of whatever layer: an outfall's `role` is `outfall`), each
    /// pipe, each outfall's path as one line of its pipes, and each connection joining
    /// what was reached.
    fn places(&self) -> Vec<Place> {
        let t = &self.trace;
        let mut out = Vec::new();
        for (i, s) in t.structures.iter().enumerate() {
            let layer = self.structure_layers.get(i).copied().flatten();
            let role = if layer == Some(Layer::Outfalls) {
                "outfall"
            } else {
                "structure"
            };
            let props = serde_json::Map::from_iter([
                ("role".to_string(), role.into()),
                ("id".to_string(), s.as_str().into()),
            ]);
            out.push(match layer {
                Some(l) => Place::feature(l, s, props),
                None => Place {
                    id: Some(s.clone()),
                    layer: None,
                    shape: Shape::Nowhere,
                    properties: props,
                },
            });
        }
        for p in &t.pipes {
            let props = serde_json::Map::from_iter([
                ("role".to_string(), "pipe".into()),
                ("id".to_string(), p.as_str().into()),
                (
                    "walked_both_ways".to_string(),
                    t.walked_both_ways.contains(p).into(),
                ),
            ]);
            out.push(Place::feature(Layer::Pipes, p, props));
        }
        for o in &t.outfalls {
            let props = serde_json::Map::from_iter([
                ("role".to_string(), "path".into()),
                ("id".to_string(), o.outfall.as_str().into()),
                ("outfall".to_string(), o.outfall.as_str().into()),
                ("start".to_string(), t.start.as_str().into()),
                ("path".to_string(), o.path.clone().into()),
            ]);
            out.push(Place {
                id: None,
                layer: None,
                shape: Shape::Pipes(o.path.clone()),
                properties: props,
            });
        }
        for c in &self.connections {
            let mut props = fields(c);
            props.insert("role".into(), "connection".into());
            out.push(Place::feature(Layer::Connections, &c.connection_id, props));
        }
        out
    }
}
