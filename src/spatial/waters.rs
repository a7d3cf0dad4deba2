//! The receiving waters of a parcel or a project footprint, found two ways and both
//! reported: by the watersheds it overlaps (by area, not by touching), and by tracing its
//! connections and the inlets on it down the drainage network to outfalls and their
//! waters. Then the 303(d) listings of those waters and the TMDL areas it overlaps.

use std::collections::BTreeMap;

use geo::{Area, BooleanOps, Intersects};
use geo_types::{Geometry, MultiPolygon, Point};
use serde::Serialize;

use super::connections::{ms4_end, upstream_end};
use super::envelope::rect_position;
use super::network::{Direction, Network};
use super::query::nearest_in;
use super::snapshot::Snapshot;
use crate::domain::{wkb, AreaUnit, Feature, Layer, Value};

/// A watershed the footprint overlaps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WatershedShare {
    /// The watershed's id.
    pub watershed_id: String,
    /// Its name.
    pub name: Option<String>,
    /// The water it drains to.
    pub drains_to: Option<String>,
    /// The area of the footprint inside it, in `area_unit`.
    pub overlap: f64,
    /// That area as a share of the footprint (0 to 1).
    pub share: f64,
    /// Whether the overlap counts as reaching the water it drains to: false for a sliver
    /// below the profile's setting (AMB-07), which goes to review instead.
    pub counted: bool,
}

/// Where one of the footprint's connections or inlets drains, through the network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkReach {
    /// The connection or catch basin traced from.
    pub from: String,
    /// The outfall reached.
    pub outfall: String,
    /// Structure and pipe ids in flow order.
    pub path: Vec<String>,
    /// The receiving water, if one was found.
    pub water_id: Option<String>,
    /// How the water was found: the outfall's own record, or the nearest water.
    pub water_found_by: String,
}

/// A 303(d)-listed water the footprint drains to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listing {
    /// The water's id.
    pub water_id: String,
    /// Its name.
    pub name: Option<String>,
    /// The pollutants it is listed for.
    pub pollutants: Vec<String>,
    /// How the footprint reaches it (one line per way).
    pub reached_by: Vec<String>,
}

/// A TMDL area the footprint overlaps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TmdlHit {
    /// The TMDL's id.
    pub tmdl_id: String,
    /// Its pollutant.
    pub pollutant: Option<String>,
    /// Whether pollutants in stormwater are a source, when recorded.
    pub stormwater_source: Option<bool>,
    /// The area of the footprint inside it, in `area_unit` (0 when it is reached through a
    /// water it covers rather than by overlap).
    pub overlap: f64,
    /// How it is reached when not by overlap: the TMDL names a water the runoff reaches.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reached_by: Option<String>,
}

/// How receiving waters are found, from the profile: tolerances (CRS units), the sliver
/// setting and the downstream bound (AMB-07), and the 303(d) list cycle (AMB-30).
#[derive(Debug, Clone, PartialEq)]
pub struct WaterOptions {
    /// How far an outfall may lie from the nearest water when it names none.
    pub water_tolerance: f64,
    /// How far a connection's MS4 end may lie from the structure or pipe it joins.
    pub snap_tolerance: f64,
    /// A watershed or TMDL overlap counts only when its share of the footprint reaches
    /// this (0 to 1) or its area reaches `min_overlap`; below both it is a sliver.
    pub min_share: f64,
    /// The area counterpart of `min_share`, in CRS area units.
    pub min_overlap: f64,
    /// How many `flows_to` steps to follow downstream from each water reached.
    pub downstream_steps: usize,
    /// The 303(d) list cycle to read: `None` for the latest in the impairments table.
    pub list_cycle: Option<i64>,
}

impl WaterOptions {
    /// Options with the given tolerances, no sliver setting, no downstream steps and the
    /// latest list cycle.
    pub fn new(water_tolerance: f64, snap_tolerance: f64) -> Self {
        WaterOptions {
            water_tolerance,
            snap_tolerance,
            min_share: 0.0,
            min_overlap: 0.0,
            downstream_steps: 0,
            list_cycle: None,
        }
    }

    /// Whether an overlap of `area` (a `share` of the footprint) is a sliver.
    pub fn is_sliver(&self, area: f64, share: f64) -> bool {
        (self.min_share > 0.0 || self.min_overlap > 0.0)
            && share < self.min_share
            && area < self.min_overlap
    }
}

/// Both answers for one footprint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReceivingWaters {
    /// The footprint's area, in `area_unit`.
    pub area: f64,
    /// The unit of every area here (the square of the registry CRS's unit).
    pub area_unit: AreaUnit,
    /// Watersheds overlapped by area, largest share first.
    pub by_watershed: Vec<WatershedShare>,
    /// Network traces from the footprint's connections and inlets.
    pub by_network: Vec<NetworkReach>,
    /// Connections and inlets whose trace reached no outfall.
    pub unresolved: Vec<String>,
    /// The 303(d)-listed waters reached either way.
    pub listed: Vec<Listing>,
    /// TMDL areas overlapped by area, or covering a water the runoff reaches.
    pub tmdl_areas: Vec<TmdlHit>,
    /// Every water reached, listed or not: by a counted watershed, a trace, or downstream
    /// of those through `flows_to`.
    pub waters_reached: Vec<String>,
    /// Overlaps that go to review rather than count (slivers, AMB-07), one sentence each.
    pub review: Vec<String>,
    /// How the evidence was read: how far downstream it went, listings set aside.
    pub notes: Vec<String>,
    /// The 303(d) list cycle the listings were read from (AMB-30), when recorded.
    pub list_cycle: Option<i64>,
}

/// A footprint as a MultiPolygon, or `None` when it is not areal.
pub fn as_multipolygon(g: &Geometry<f64>) -> Option<MultiPolygon<f64>> {
    match g {
        Geometry::Polygon(p) => Some(MultiPolygon(vec![p.clone()])),
        Geometry::MultiPolygon(m) => Some(m.clone()),
        _ => None,
    }
}

/// A text field's value, owned.
pub(crate) fn text(f: &Feature, layer: Layer, field: &str) -> Option<String> {
    f.get(layer, field).as_str().map(str::to_string)
}

/// Features of a polygon layer overlapping a footprint by a positive area, with that area.
fn overlaps<'a>(
    snap: &'a Snapshot,
    layer: Layer,
    fp: &MultiPolygon<f64>,
) -> Vec<(&'a Feature, f64)> {
    use geo::BoundingRect;
    let Some(r) = fp.bounding_rect() else {
        return Vec::new();
    };
    let fp_area = fp.unsigned_area();
    let mut out: Vec<(&Feature, f64)> = snap
        .layer(layer)
        .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
        .filter_map(|f| {
            let g = f.geom.as_ref()?;
            let a = match rect_position(g, &r) {
                // A footprint wholly inside (the common case: a parcel in its
                // watershed) overlaps by its whole area; no polygon clipping needed.
                Some(true) => fp_area,
                // Envelopes meet but the shapes do not: no clipping either.
                Some(false) => return None,
                // On an edge: clip. A shared boundary alone has no area and so does
                // not count.
                None => match g {
                    Geometry::Polygon(p) => p.intersection(fp).unsigned_area(),
                    Geometry::MultiPolygon(m) => m.intersection(fp).unsigned_area(),
                    _ => return None,
                },
            };
            (a > 0.0).then_some((f, a))
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
    out
}

/// Finds the receiving waters of a footprint. `parcel_id` names the parcel whose
/// connections count (connections without one count when their upstream end lies on the
/// footprint); `tolerance` (CRS units) is how far an outfall may lie from the nearest water
/// when it names none, and how far a connection's MS4 end may lie from the structure or
/// pipe it joins. No sliver setting, no downstream steps, the latest list cycle: see
/// [`receiving_waters_with`].
pub fn receiving_waters(
    snap: &Snapshot,
    network: Option<&Network>,
    footprint: &MultiPolygon<f64>,
    parcel_id: Option<&str>,
    water_tolerance: f64,
    snap_tolerance: f64,
) -> ReceivingWaters {
    receiving_waters_with(
        snap,
        network,
        footprint,
        parcel_id,
        &WaterOptions::new(water_tolerance, snap_tolerance),
    )
}

/// Finds the receiving waters of a footprint with the profile's options.
pub fn receiving_waters_with(
    snap: &Snapshot,
    network: Option<&Network>,
    footprint: &MultiPolygon<f64>,
    parcel_id: Option<&str>,
    opt: &WaterOptions,
) -> ReceivingWaters {
    let area = footprint.unsigned_area();
    let unit = snap.meta.linear_unit.squared();
    let mut review = Vec::new();
    let mut notes = Vec::new();
    let share_of = |a: f64| if area > 0.0 { a / area } else { 0.0 };
    let sliver_words = |id: &str, what: &str, a: f64, share: f64| {
        format!(
            "{what} {id} overlaps only {a:.1} {} ({:.2}% of the footprint), below both of the profile's sliver settings ({:.2}% of the footprint and {:.1} {}, AMB-07); whether the runoff reaches it needs review",
            unit.symbol(),
            share * 100.0,
            opt.min_share * 100.0,
            opt.min_overlap,
            unit.symbol()
        )
    };
    let by_watershed: Vec<WatershedShare> = overlaps(snap, Layer::Watersheds, footprint)
        .into_iter()
        .map(|(w, a)| {
            let share = share_of(a);
            let counted = !opt.is_sliver(a, share);
            if !counted {
                review.push(sliver_words(&w.id, "watershed", a, share));
            }
            WatershedShare {
                watershed_id: w.id.clone(),
                name: text(w, Layer::Watersheds, "name"),
                drains_to: text(w, Layer::Watersheds, "drains_to"),
                overlap: a,
                share,
                counted,
            }
        })
        .collect();
    let mut tmdl_areas: Vec<TmdlHit> = Vec::new();
    for (t, a) in overlaps(snap, Layer::TmdlAreas, footprint) {
        if opt.is_sliver(a, share_of(a)) {
            review.push(sliver_words(&t.id, "TMDL area", a, share_of(a)));
            continue;
        }
        tmdl_areas.push(tmdl_hit(t, a, None));
    }

    let mut by_network = Vec::new();
    let mut unresolved = Vec::new();
    if let Some(net) = network {
        for (from, start) in trace_starts(snap, footprint, parcel_id, opt.snap_tolerance) {
            let Some(start) = start else {
                unresolved.push(from);
                continue;
            };
            match net.trace(&start, Direction::Downstream) {
                Some(t) if !t.outfalls.is_empty() => {
                    for o in t.outfalls {
                        let (water_id, water_found_by) =
                            outfall_water(snap, &o.outfall, opt.water_tolerance);
                        let mut path = vec![from.clone()];
                        path.extend(o.path.into_iter().filter(|p| *p != from));
                        by_network.push(NetworkReach {
                            from: from.clone(),
                            outfall: o.outfall,
                            path,
                            water_id,
                            water_found_by,
                        });
                    }
                }
                _ => unresolved.push(from),
            }
        }
    }

    // Every water reached directly, with how; then downstream of those.
    let mut direct: Vec<(String, String)> = Vec::new();
    for w in by_watershed.iter().filter(|w| w.counted) {
        if let Some(d) = &w.drains_to {
            direct.push((
                d.clone(),
                format!(
                    "watershed {} ({:.1}% of the footprint) drains to it",
                    w.watershed_id,
                    w.share * 100.0
                ),
            ));
        }
    }
    for r in &by_network {
        if let Some(w) = &r.water_id {
            direct.push((w.clone(), format!("trace {}", r.path.join(" → "))));
        }
    }
    let mut reached: Vec<(String, String)> = direct.clone();
    let mut seen: Vec<String> = direct.iter().map(|(w, _)| w.clone()).collect();
    seen.dedup();
    if opt.downstream_steps > 0 {
        let starts: Vec<String> = {
            let mut v: Vec<String> = direct.iter().map(|(w, _)| w.clone()).collect();
            v.sort();
            v.dedup();
            v
        };
        for start in starts {
            let mut chain = vec![start.clone()];
            let mut here = start.clone();
            let mut stopped_at_bound = false;
            loop {
                let next = snap
                    .layer(Layer::ReceivingWaters)
                    .get(&here)
                    .and_then(|w| text(w, Layer::ReceivingWaters, "flows_to"));
                let Some(next) = next.filter(|n| !chain.contains(n)) else {
                    break;
                };
                if chain.len() > opt.downstream_steps {
                    stopped_at_bound = true;
                    break;
                }
                chain.push(next.clone());
                if !seen.contains(&next) {
                    seen.push(next.clone());
                    reached.push((next.clone(), format!("downstream: {}", chain.join(" → "))));
                }
                here = next;
            }
            if chain.len() > 1 || stopped_at_bound {
                notes.push(format!(
                    "followed flows_to downstream from {start}: {} ({} of at most {} steps{}; AMB-07)",
                    chain.join(" → "),
                    chain.len() - 1,
                    opt.downstream_steps,
                    if stopped_at_bound {
                        format!(", stopped at the profile's bound with {here} flowing on")
                    } else {
                        String::new()
                    }
                ));
            }
        }
    }
    let mut waters_reached: Vec<String> = reached.iter().map(|(w, _)| w.clone()).collect();
    waters_reached.sort();
    waters_reached.dedup();

    // TMDLs that name a water the runoff reaches count as reached through it.
    for t in &snap.layer(Layer::TmdlAreas).features {
        if tmdl_areas.iter().any(|h| h.tmdl_id == t.id) {
            continue;
        }
        let Some(covered) = text(t, Layer::TmdlAreas, "waters") else {
            continue;
        };
        let hit = covered
            .split([',', ';'])
            .map(str::trim)
            .find(|w| waters_reached.iter().any(|r| r == w));
        if let Some(w) = hit {
            tmdl_areas.push(tmdl_hit(
                t,
                0.0,
                Some(format!("it covers water {w}, which the runoff reaches")),
            ));
        }
    }

    // The listed waters, reached either way, in the profile's list cycle.
    let cycle = opt.list_cycle.or_else(|| latest_cycle(snap));
    let mut listed: BTreeMap<String, Listing> = BTreeMap::new();
    for (water, how) in reached {
        if !listed.contains_key(&water) {
            match listing(snap, &water, cycle) {
                (Some(l), _) => {
                    listed.insert(water.clone(), l);
                }
                (None, Some(note)) => {
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                    continue;
                }
                (None, None) => continue,
            }
        }
        if let Some(e) = listed.get_mut(&water) {
            if !e.reached_by.contains(&how) {
                e.reached_by.push(how);
            }
        }
    }
    ReceivingWaters {
        area,
        area_unit: unit,
        by_watershed,
        by_network,
        unresolved,
        listed: listed.into_values().collect(),
        tmdl_areas,
        waters_reached,
        review,
        notes,
        list_cycle: cycle,
    }
}

fn tmdl_hit(t: &Feature, overlap: f64, reached_by: Option<String>) -> TmdlHit {
    TmdlHit {
        tmdl_id: t.id.clone(),
        pollutant: text(t, Layer::TmdlAreas, "pollutant"),
        stormwater_source: t.get(Layer::TmdlAreas, "stormwater_source").as_bool(),
        overlap,
        reached_by,
    }
}

/// The latest 303(d) list cycle in the impairments table, if any row records one.
fn latest_cycle(snap: &Snapshot) -> Option<i64> {
    snap.layer(Layer::Impairments)
        .features
        .iter()
        .filter_map(|i| {
            i.get(Layer::Impairments, "cycle")
                .as_f64()
                .map(|c| c as i64)
        })
        .max()
}

/// What to trace from: the footprint's connections (joined to the network at their MS4
/// end) and the catch basins on it. Each with the structure or pipe id to start from, or
/// `None` when a connection's MS4 end meets nothing within the tolerance.
fn trace_starts(
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
        let start = ms4_end(g).and_then(|p| joined_at(snap, &p, tol));
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

/// A water's 303(d) listing in list cycle `cycle` (rows without a cycle count in any):
/// its impairments, or its `listed_303d` flag. `None` when it is not listed, with a note
/// when the data would have said otherwise: an explicit `listed_303d = false` is never
/// overridden by an impairment row (nor a row of another cycle taken as a listing).
fn listing(
    snap: &Snapshot,
    water_id: &str,
    cycle: Option<i64>,
) -> (Option<Listing>, Option<String>) {
    let water = snap.layer(Layer::ReceivingWaters).get(water_id);
    let flag = water.and_then(|w| w.get(Layer::ReceivingWaters, "listed_303d").as_bool());
    let mut pollutants: Vec<String> = Vec::new();
    let mut other_cycles: Vec<i64> = Vec::new();
    if !snap.pollutants(water_id).is_empty() {
        for i in &snap.layer(Layer::Impairments).features {
            if i.get(Layer::Impairments, "water_id").as_str() != Some(water_id) {
                continue;
            }
            let Some(p) = i.get(Layer::Impairments, "pollutant").as_str() else {
                continue;
            };
            let row_cycle = i
                .get(Layer::Impairments, "cycle")
                .as_f64()
                .map(|c| c as i64);
            match (cycle, row_cycle) {
                (Some(c), Some(r)) if c != r => {
                    if !other_cycles.contains(&r) {
                        other_cycles.push(r);
                    }
                }
                _ => {
                    if !pollutants.iter().any(|x| x == p) {
                        pollutants.push(p.to_string());
                    }
                }
            }
        }
    }
    pollutants.sort();
    other_cycles.sort();
    if flag == Some(false) {
        let note = (!pollutants.is_empty() || !other_cycles.is_empty()).then(|| {
            format!(
                "water {water_id} has impairment rows but its record says listed_303d = false; the explicit flag is taken: not 303(d)-listed"
            )
        });
        return (None, note);
    }
    if pollutants.is_empty() && flag != Some(true) {
        let note = (!other_cycles.is_empty()).then(|| {
            format!(
                "water {water_id} is listed only in cycle(s) {} of the 303(d) list, not in the cycle {} used (AMB-30)",
                other_cycles.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
                cycle.map_or("?".to_string(), |c| c.to_string())
            )
        });
        return (None, note);
    }
    (
        Some(Listing {
            water_id: water_id.to_string(),
            name: water.and_then(|w| text(w, Layer::ReceivingWaters, "name")),
            pollutants,
            reached_by: Vec::new(),
        }),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LengthUnit;
    use crate::spatial::network::NetworkOptions;
    use crate::store::RegistryMeta;
    use geo_types::wkt;
    use std::collections::HashMap;

    fn f(layer: Layer, id: &str, g: Option<Geometry<f64>>, fields: &[(&str, Value)]) -> Feature {
        let mut x = Feature::new(layer, id);
        x.geom = g;
        for (k, v) in fields {
            assert!(x.set(layer, k, v.clone()), "{k}");
        }
        x
    }

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    /// Two watersheds side by side (x < 100 and x > 100); a parcel straddling them 75/25;
    /// a connection from the parcel to CB-1, piped to OF-1 which names no water but lies
    /// near stream S-2; a phosphorus TMDL over the east watershed.
    fn town() -> Snapshot {
        let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
        l.insert(
            Layer::Watersheds,
            vec![
                f(
                    Layer::Watersheds,
                    "WS-W",
                    Some(wkt!(POLYGON((0. 0.,100. 0.,100. 100.,0. 100.,0. 0.))).into()),
                    &[("drains_to", t("S-1"))],
                ),
                f(
                    Layer::Watersheds,
                    "WS-E",
                    Some(wkt!(POLYGON((100. 0.,200. 0.,200. 100.,100. 100.,100. 0.))).into()),
                    &[("drains_to", t("S-2"))],
                ),
            ],
        );
        l.insert(
            Layer::TmdlAreas,
            vec![f(
                Layer::TmdlAreas,
                "T-P",
                Some(wkt!(POLYGON((100. 0.,200. 0.,200. 100.,100. 100.,100. 0.))).into()),
                &[
                    ("pollutant", t("phosphorus")),
                    ("stormwater_source", Value::Bool(true)),
                ],
            )],
        );
        l.insert(
            Layer::ReceivingWaters,
            vec![
                f(
                    Layer::ReceivingWaters,
                    "S-1",
                    Some(wkt!(LINESTRING(0. 150.,100. 150.)).into()),
                    &[("listed_303d", Value::Bool(false))],
                ),
                f(
                    Layer::ReceivingWaters,
                    "S-2",
                    Some(wkt!(LINESTRING(150. 150.,300. 150.)).into()),
                    &[("name", t("Byram River"))],
                ),
            ],
        );
        l.insert(
            Layer::Impairments,
            vec![f(
                Layer::Impairments,
                "S-2:Phosphorus:2022",
                None,
                &[("water_id", t("S-2")), ("pollutant", t("Phosphorus"))],
            )],
        );
        l.insert(
            Layer::CatchBasins,
            vec![f(
                Layer::CatchBasins,
                "CB-1",
                Some(wkt!(POINT(60. 110.)).into()),
                &[],
            )],
        );
        l.insert(
            Layer::Outfalls,
            vec![f(
                Layer::Outfalls,
                "OF-1",
                Some(wkt!(POINT(160. 140.)).into()),
                &[],
            )],
        );
        l.insert(
            Layer::Pipes,
            vec![f(
                Layer::Pipes,
                "P-1",
                Some(wkt!(MULTILINESTRING((60. 110.,160. 140.))).into()),
                &[("from_id", t("CB-1")), ("to_id", t("OF-1"))],
            )],
        );
        l.insert(
            Layer::Connections,
            vec![f(
                Layer::Connections,
                "C-1",
                Some(wkt!(LINESTRING(60. 50.,60. 109.5)).into()),
                &[("parcel_id", t("PA")), ("discharge_kind", t("stormwater"))],
            )],
        );
        let meta = RegistryMeta {
            jurisdiction: "carmel-ny".into(),
            srid: 2260,
            crs_name: String::new(),
            crs_wkt: String::new(),
            linear_unit: LengthUnit::UsSurveyFoot,
        };
        Snapshot::from_features(meta, l)
    }

    #[test]
    fn both_methods_find_the_listed_water_and_the_tmdl_area() {
        let s = town();
        let net = Network::from_snapshot(&s, NetworkOptions::new(1.0));
        let parcel =
            as_multipolygon(&wkt!(POLYGON((25. 25.,125. 25.,125. 75.,25. 75.,25. 25.))).into())
                .unwrap();
        let rw = receiving_waters(&s, Some(&net), &parcel, Some("PA"), 25.0, 1.0);
        assert_eq!(rw.area, 5000.0);
        let shares: Vec<(&str, f64)> = rw
            .by_watershed
            .iter()
            .map(|w| (w.watershed_id.as_str(), w.share))
            .collect();
        assert_eq!(shares, [("WS-W", 0.75), ("WS-E", 0.25)]);
        assert_eq!(rw.by_network.len(), 1);
        let r = &rw.by_network[0];
        assert_eq!(
            (r.from.as_str(), r.outfall.as_str(), r.water_id.as_deref()),
            ("C-1", "OF-1", Some("S-2"))
        );
        assert!(
            r.water_found_by.starts_with("nearest water, 10.0 ftUS"),
            "{}",
            r.water_found_by
        );
        assert_eq!(rw.listed.len(), 1, "S-1 is not listed; S-2 is");
        assert_eq!(rw.listed[0].pollutants, ["Phosphorus"]);
        assert_eq!(
            rw.listed[0].reached_by.len(),
            2,
            "{:?}",
            rw.listed[0].reached_by
        );
        assert_eq!(rw.tmdl_areas.len(), 1);
        assert_eq!(rw.tmdl_areas[0].overlap, 1250.0);
    }

    #[test]
    fn a_shared_boundary_alone_is_not_an_overlap() {
        let s = town();
        let west_only =
            as_multipolygon(&wkt!(POLYGON((50. 10.,100. 10.,100. 60.,50. 60.,50. 10.))).into())
                .unwrap();
        let rw = receiving_waters(&s, None, &west_only, None, 25.0, 1.0);
        let ids: Vec<&str> = rw
            .by_watershed
            .iter()
            .map(|w| w.watershed_id.as_str())
            .collect();
        assert_eq!(ids, ["WS-W"], "touching WS-E along x = 100 does not count");
        assert!(rw.tmdl_areas.is_empty());
        assert!(rw.listed.is_empty());
    }

    #[test]
    fn item10_an_explicit_false_stands_and_item12_downstream_stops_at_the_bound() {
        // S-1 (listed_303d = false) gets an impairment row: it stays unlisted.
        let mut s = town();
        let mut layers: HashMap<Layer, Vec<Feature>> = Layer::ALL
            .iter()
            .map(|l| (*l, s.layer(*l).features.to_vec()))
            .collect();
        layers.get_mut(&Layer::Impairments).unwrap().push(f(
            Layer::Impairments,
            "S-1:Sediment:2022",
            None,
            &[("water_id", t("S-1")), ("pollutant", t("Sediment"))],
        ));
        // S-1 flows to S-3, which flows to S-2 (listed).
        let rw = layers.get_mut(&Layer::ReceivingWaters).unwrap();
        rw[0].set(Layer::ReceivingWaters, "flows_to", t("S-3"));
        rw.push(f(
            Layer::ReceivingWaters,
            "S-3",
            Some(wkt!(LINESTRING(0. 300.,100. 300.)).into()),
            &[("flows_to", t("S-2"))],
        ));
        s = Snapshot::from_features(s.meta.clone(), layers);
        let west =
            as_multipolygon(&wkt!(POLYGON((10. 10.,60. 10.,60. 60.,10. 60.,10. 10.))).into())
                .unwrap();
        let mut opt = WaterOptions::new(25.0, 1.0);
        let rw = receiving_waters_with(&s, None, &west, None, &opt);
        assert!(rw.listed.is_empty(), "{:?}", rw.listed);
        assert!(rw.notes.iter().any(|n| n.contains("listed_303d = false")));
        // One step reaches S-3 only, and says it stopped at the bound.
        opt.downstream_steps = 1;
        let rw = receiving_waters_with(&s, None, &west, None, &opt);
        assert!(rw.listed.is_empty());
        assert!(
            rw.notes
                .iter()
                .any(|n| n.contains("stopped at the profile's bound")),
            "{:?}",
            rw.notes
        );
        // Two steps reach S-2, listed.
        opt.downstream_steps = 2;
        let rw = receiving_waters_with(&s, None, &west, None, &opt);
        assert_eq!(rw.listed.len(), 1);
        assert!(rw.listed[0].reached_by[0].contains("S-1 → S-3 → S-2"));
    }
}
