//! The network side of the receiving waters: where a footprint's connections and inlets
//! join the drainage network, and which water an outfall discharges to.

use geo::Intersects;
use geo_types::{Geometry, MultiPolygon, Point};

use super::text;
use crate::domain::{wkb, Feature, Layer, Value};
use crate::spatial::connections::{ms4_end, upstream_end};
use crate::spatial::query::nearest_in;
use crate::spatial::snapshot::Snapshot;

/// What to trace from: the footprint's connections (joined to the network at their MS4
/// end) and the catch basins on it. Each with the structure or pipe id to start from, or
/// `None` when a connection's MS4 end meets nothing within the tolerance.
pub(super) fn trace_starts(
    snap: &Snapshot,
    fp: &MultiPolygon<f64>,
    parcel_id: Option<&str>,
    tol: f64,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let fp_geom = Geometry::MultiPolygon(fp.clone());
    let Some(r) = wkb::bounding_rect(&fp_geom) else {
        return out;
    };
    for c in &snap.layer(Layer::Connections).features {
        let Some(g) = &c.geom else { continue };
        let on_parcel = match (parcel_id, c.get(Layer::Connections, "parcel_id")) {
            (Some(p), Value::Text(cp)) => cp == p,
            (_, _) => upstream_end(g).is_some_and(|p| fp.intersects(&p)),
        };
        if !on_parcel {
            continue;
        }
        let start = ms4_end(g)
            .and_then(|p| joined_at(snap, &p, tol))
            .map(|id| id.to_string());
        out.push((c.id.clone(), start));
    }
    let mut inlets: Vec<&Feature> = snap
        .layer(Layer::CatchBasins)
        .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
        .filter(|f| f.geom.as_ref().is_some_and(|g| g.intersects(fp)))
        .collect();
    inlets.sort_by(|a, b| a.id.cmp(&b.id));
    out.extend(
        inlets
            .into_iter()
            .map(|f| (f.id.clone(), Some(f.id.clone()))),
    );
    out
}

/// The structure (or else the pipe) a connection's MS4 end joins, within the tolerance.
fn joined_at(snap: &Snapshot, p: &Point<f64>, tol: f64) -> Option<String> {
    let mut best: Option<(f64, String)> = None;
    for layer in [Layer::CatchBasins, Layer::Manholes, Layer::Outfalls] {
        if let Some(&(i, d)) = nearest_in(snap.layer(layer), p, Some(tol), Some(1)).first() {
            if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, snap.layer(layer).features[i].id.clone()));
            }
        }
    }
    best.map(|(_, id)| id).or_else(|| {
        nearest_in(snap.layer(Layer::Pipes), p, Some(tol), Some(1))
            .first()
            .map(|(i, _)| snap.layer(Layer::Pipes).features[*i].id.clone())
    })
}

/// The water an outfall discharges to: its own `receiving_water_id`, else the nearest
/// receiving water within the tolerance (CRS units); with how it was found.
pub fn outfall_water(snap: &Snapshot, outfall: &str, tol: f64) -> (Option<String>, String) {
    let Some(o) = snap.layer(Layer::Outfalls).get(outfall) else {
        return (None, "the outfall is not in the registry".into());
    };
    if let Some(w) = text(o, Layer::Outfalls, "receiving_water_id") {
        return (Some(w), "the outfall's receiving_water_id".into());
    }
    let Some(Geometry::Point(p)) = &o.geom else {
        return (None, "the outfall has no location".into());
    };
    let waters = snap.layer(Layer::ReceivingWaters);
    match nearest_in(waters, p, Some(tol), Some(1)).first() {
        Some(&(i, d)) => (
            Some(waters.features[i].id.clone()),
            format!(
                "nearest water, {d:.1} {} from the outfall",
                snap.meta.linear_unit.symbol()
            ),
        ),
        None => (
            None,
            format!(
                "no water within {tol} {} of the outfall",
                snap.meta.linear_unit.symbol()
            ),
        ),
    }
}
