//! The receiving waters of a parcel or a project footprint, found two ways and both
//! reported: by the watersheds it overlaps (by area, not by touching), and by tracing its
//! connections and the inlets on it down the drainage network to outfalls and their
//! waters. Then the 303(d) listings of those waters and the TMDL areas it overlaps.

use std::collections::BTreeMap;

use geo::{Area, BooleanOps};
use geo_types::{Geometry, MultiPolygon};
use serde::Serialize;

use super::envelope::rect_position;
use super::network::{Direction, Network};
use super::snapshot::Snapshot;
use crate::domain::{AreaUnit, Feature, Layer};

mod listings;
mod outfalls;
#[cfg(test)]
mod tests;

use listings::tmdl_hit;
pub(crate) use listings::{classification, listing};
pub use outfalls::outfall_water;
use outfalls::trace_starts;

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
    /// Its state classification (NY's best-use class AA, A, B, C, D, SA, SB…), as the
    /// water's `classification` attribute records it (an ATTAINS load sets it); none when
    /// not recorded.
    pub classification: Option<String>,
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
                None => match (g, crate::spatial::convex_clip::overlap_area(g, fp)) {
                    (_, Some(a)) => a,
                    (Geometry::Polygon(p), None) => p.intersection(fp).unsigned_area(),
                    (Geometry::MultiPolygon(m), None) => m.intersection(fp).unsigned_area(),
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
    let (by_watershed, mut tmdl_areas) =
        footprint_overlaps(snap, footprint, opt, area, unit, &mut review);
    let (by_network, unresolved) = match network {
        Some(net) => network_reaches(snap, net, footprint, parcel_id, opt),
        None => (Vec::new(), Vec::new()),
    };

    // Every water reached directly, with how; then downstream of those.
    let direct = direct_waters(&by_watershed, &by_network);
    let reached = follow_downstream(snap, direct, opt, &mut notes);
    unrecorded_waters(snap, &reached, &mut review);
    let mut waters_reached: Vec<String> = reached.iter().map(|(w, _)| w.clone()).collect();
    waters_reached.sort();
    waters_reached.dedup();

    tmdls_through_waters(snap, &waters_reached, &mut tmdl_areas);

    // The listed waters, reached either way, in the profile's list cycle.
    let cycle = opt.list_cycle.or_else(|| snap.latest_cycle());
    let listed = listed_waters(snap, reached, cycle, &mut notes);
    ReceivingWaters {
        area,
        area_unit: unit,
        by_watershed,
        by_network,
        unresolved,
        listed,
        tmdl_areas,
        waters_reached,
        review,
        notes,
        list_cycle: cycle,
    }
}

/// The watersheds and TMDL areas the footprint overlaps, each with its share; a sliver
/// (below both of the profile's settings) is put to review: a watershed is kept but not
/// counted, a TMDL area left out.
fn footprint_overlaps(
    snap: &Snapshot,
    footprint: &MultiPolygon<f64>,
    opt: &WaterOptions,
    area: f64,
    unit: AreaUnit,
    review: &mut Vec<String>,
) -> (Vec<WatershedShare>, Vec<TmdlHit>) {
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
    (by_watershed, tmdl_areas)
}

/// The outfalls the footprint's connections reach downstream through the network, each
/// with its water; and the connections no trace resolves.
fn network_reaches(
    snap: &Snapshot,
    net: &Network,
    footprint: &MultiPolygon<f64>,
    parcel_id: Option<&str>,
    opt: &WaterOptions,
) -> (Vec<NetworkReach>, Vec<String>) {
    let mut by_network = Vec::new();
    let mut unresolved = Vec::new();
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
    (by_network, unresolved)
}

/// Every water reached directly, with how: through a counted watershed's `drains_to`,
/// then through a trace's outfall.
fn direct_waters(
    by_watershed: &[WatershedShare],
    by_network: &[NetworkReach],
) -> Vec<(String, String)> {
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
    for r in by_network {
        if let Some(w) = &r.water_id {
            direct.push((w.clone(), format!("trace {}", r.path.join(" → "))));
        }
    }
    direct
}

/// Each water reached that the registry does not record, for review: its listing and its
/// TMDLs cannot be read, so it is no evidence of "not listed" (a watershed's `drains_to`
/// loaded from WBD names the next HUC-12 downstream or OCEAN, not a water). Reviewed, a
/// Condition that nothing else meets stays undetermined and says what would decide it.
fn unrecorded_waters(snap: &Snapshot, reached: &[(String, String)], review: &mut Vec<String>) {
    let waters = snap.layer(Layer::ReceivingWaters);
    for (id, how) in reached {
        if waters.get(id).is_some() {
            continue;
        }
        let what = if snap.layer(Layer::Watersheds).get(id).is_some() {
            " (it is a watershed: the next one downstream, as WBD's TOHUC names it)"
        } else {
            ""
        };
        let line = format!(
            "{id} ({how}) is not a recorded receiving water{what}: whether it is 303(d)-listed or under a TMDL cannot be read; recording the water (its ATTAINS assessment unit) would decide it"
        );
        if !review.contains(&line) {
            review.push(line);
        }
    }
}

/// The waters reached directly, then those downstream of them along `flows_to`, up to the
/// profile's steps, each with how; a note says how far each chain was followed.
fn follow_downstream(
    snap: &Snapshot,
    direct: Vec<(String, String)>,
    opt: &WaterOptions,
    notes: &mut Vec<String>,
) -> Vec<(String, String)> {
    let mut reached: Vec<(String, String)> = direct.clone();
    let mut seen: Vec<String> = direct.iter().map(|(w, _)| w.clone()).collect();
    seen.dedup();
    if opt.downstream_steps == 0 {
        return reached;
    }
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
    reached
}

/// TMDLs that name a water the runoff reaches count as reached through it.
fn tmdls_through_waters(snap: &Snapshot, waters_reached: &[String], tmdl_areas: &mut Vec<TmdlHit>) {
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
}

/// The listed waters among those reached, in the list cycle, each with every way it is
/// reached; a water the cycle cannot be read for leaves a note.
fn listed_waters(
    snap: &Snapshot,
    reached: Vec<(String, String)>,
    cycle: Option<i64>,
    notes: &mut Vec<String>,
) -> Vec<Listing> {
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
    listed.into_values().collect()
}
