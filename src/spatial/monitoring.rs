//! Monitoring locations: every outfall, and every interconnection — a point where the
//! drainage network passes between the town's conveyances and another public body's (a
//! State department's, a county's, a neighbouring MS4's) — each with the waters it
//! discharges to and the facts the priority rule ranks.
//!
//! Interconnections are found from the owners along the network: each pipe is read in
//! flow order as its upstream structure, itself and its downstream structure, each with
//! the class of its recorded owner ([`owner_class`](crate::rules::monitoring::owner_class)); where two neighbours in that order
//! are the town's and another public body's, the flow changes hands at the node between
//! them (the pipe's upstream structure when the pipe itself changes hands, its downstream
//! structure otherwise, the pipe when that end is no structure). A structure recorded with
//! `structure_type = interconnection` is one too, entered by hand. Private owners meet the
//! town's system at connections, not interconnections; an element with no owner and no
//! reading of it is skipped rather than guessed.

use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashSet};

use geo::Contains;
use geo_types::{Geometry, Point};
use serde::Serialize;

use super::network::{Direction, Network, Trace};
use super::snapshot::Snapshot;
use super::waters::{classification, listing, outfall_water, text};
use crate::domain::{Feature, Layer};
use crate::rules::monitoring::{
    decide, normalise_class, Criterion, OwnerClass, OwnerWords, Priority, PriorityRule, Reason,
};
use crate::rules::profile::MissingOwner;
use crate::rules::Profile;

mod facts;
#[cfg(test)]
mod tests;

pub(crate) use facts::joined_at;
use facts::{ConnectionJoins, IddeHistory};

/// What a monitoring location is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LocationKind {
    /// An outfall of the registry.
    Outfall,
    /// Where the network passes between the town's system and another public body's.
    Interconnection,
}

/// Which way the flow passes at an interconnection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Handover {
    /// The town's system discharges into the other body's.
    TownToOther,
    /// The other body's system discharges into the town's.
    OtherToTown,
    /// Both: the flow passes into the other body's structure and back out (a structure
    /// of theirs on a line of the town's, or the reverse).
    Both,
    /// Entered by hand: the record does not say.
    Entered,
}

/// A water a location discharges to, with what the registry records of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LocationWater {
    /// The water's id.
    pub water_id: String,
    /// Its name, when recorded.
    pub name: Option<String>,
    /// Its state classification as recorded (an ATTAINS load sets it); none when not.
    pub classification: Option<String>,
    /// Whether it is 303(d)-listed (impaired) in the list cycle read.
    pub impaired: bool,
    /// The pollutants it is listed for, when recorded.
    pub listed_for: Vec<String>,
    /// The TMDLs that name it.
    pub tmdls: Vec<String>,
    /// Whether the registry records the water at all (a water it does not record can be
    /// read for neither listing nor class).
    pub recorded: bool,
    /// How the water was found: the outfall's record, the nearest water, or through which
    /// outfall downstream.
    pub found_by: String,
}

/// One monitoring location.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MonitoringLocation {
    /// The outfall's id, or the structure's (or pipe's) where the flow changes hands.
    pub id: String,
    /// Outfall or interconnection.
    pub kind: LocationKind,
    /// The layer its geometry is drawn from.
    pub layer: Layer,
    /// How it was found.
    pub found_by: String,
    /// At an interconnection, which way the flow passes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub handover: Option<Handover>,
    /// At an interconnection, the other body (as its owner is recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_owner: Option<String>,
    /// At an interconnection, the pipes where the flow changes hands.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pipes: Vec<String>,
    /// The watershed it lies in, when one holds it.
    pub watershed_id: Option<String>,
    /// The waters it discharges to.
    pub waters: Vec<LocationWater>,
    /// Why no water is given, when none is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_water: Option<String>,
    /// The priority the profile's rule gives it.
    pub priority: Priority,
    /// Each criterion met, highest first, with its facts.
    pub reasons: Vec<Reason>,
}

/// How monitoring locations are found: tolerances in CRS units and the profile's readings.
pub struct MonitoringOptions<'a> {
    /// The profile (owners, land-use classes, the rule).
    pub profile: &'a Profile,
    /// How far an outfall may lie from the nearest water when it names none.
    pub water_tolerance: f64,
    /// How far a connection's MS4 end may lie from what it joins.
    pub snap_tolerance: f64,
    /// The 303(d) list cycle: `None` for the latest.
    pub list_cycle: Option<i64>,
}

/// The locations found, with each one's upstream trace (what its sewershed is built from).
pub struct Found {
    /// The locations, outfalls first, each kind by id.
    pub locations: Vec<MonitoringLocation>,
    /// Each location's upstream trace, in the same order (`None` when the network does
    /// not know its id).
    pub upstream: Vec<Option<Trace>>,
    /// The rule applied.
    pub rule: PriorityRule,
}

/// Finds every monitoring location and decides its priority.
pub fn monitoring_locations(snap: &Snapshot, net: &Network, opt: &MonitoringOptions<'_>) -> Found {
    let rule = opt.profile.monitoring.rule();
    let owners = Owners::new(opt.profile);
    let cycle = opt.list_cycle.or_else(|| snap.latest_cycle());
    // The locations, the IDDE history and the connections' joins are each their own:
    // found side by side (each gathers its lists on one core).
    let (mut locations, (history, drains)) = rayon::join(
        || {
            let mut locations = outfalls(snap);
            locations.extend(interconnections(snap, net, &owners));
            locations
        },
        || {
            rayon::join(
                || IddeHistory::new(snap),
                || ConnectionJoins::new(snap, opt.profile, opt.snap_tolerance),
            )
        },
    );
    // Each location's trace and facts are its own: found on every core.
    use rayon::prelude::*;
    let upstream: Vec<Option<Trace>> = locations
        .par_iter_mut()
        .map(|loc| {
            let trace = net.trace(&loc.id, Direction::Upstream);
            let at = location_point(snap, loc);
            loc.watershed_id = at
                .as_ref()
                .and_then(|p| containing(snap, Layer::Watersheds, p));
            let (waters, no_water) = location_waters(snap, net, loc, opt.water_tolerance, cycle);
            loc.waters = waters;
            loc.no_water = no_water;
            let mut met = water_facts(&loc.waters, &rule);
            if let Some(tmdl) = at
                .as_ref()
                .and_then(|p| containing(snap, Layer::TmdlAreas, p))
            {
                met.push((Criterion::TmdlWater, format!("it lies in TMDL area {tmdl}")));
            }
            if let Some(f) = history.of(snap, &loc.id) {
                met.push((Criterion::IddeHistory, f));
            }
            if let Some(f) = trace.as_ref().and_then(|t| drains.commercial_industrial(t)) {
                met.push((Criterion::CommercialIndustrialUpstream, f));
            }
            if loc.kind == LocationKind::Interconnection {
                met.push((Criterion::Interconnection, interconnection_words(loc)));
            }
            let (priority, reasons) = decide(&rule, met);
            loc.priority = priority;
            loc.reasons = reasons;
            trace
        })
        .collect();
    Found {
        locations,
        upstream,
        rule,
    }
}

/// Whose system each recorded owner is, by the profile.
pub struct Owners(OwnerWords);

impl Owners {
    /// The readings of `profile`: `[monitoring] town_owners` (else `[ms4] owners`), the
    /// public words, and `[ms4] missing_owner`.
    pub fn new(profile: &Profile) -> Self {
        let m = &profile.monitoring;
        let town = if m.town_owners.is_empty() {
            &profile.ms4.owners
        } else {
            &m.town_owners
        };
        Owners(OwnerWords::new(
            town,
            &m.public_words(),
            profile.ms4.missing_owner() == MissingOwner::Ms4,
        ))
    }

    /// The class of an owner as recorded ([`owner_class`](crate::rules::monitoring::owner_class)).
    pub fn class(&self, owner: Option<&str>) -> OwnerClass {
        self.0.class(owner)
    }
}

/// Every outfall, by id.
fn outfalls(snap: &Snapshot) -> Vec<MonitoringLocation> {
    let mut out: Vec<MonitoringLocation> = snap
        .layer(Layer::Outfalls)
        .features
        .iter()
        .map(|o| {
            blank(
                o.id.clone(),
                LocationKind::Outfall,
                Layer::Outfalls,
                "an outfall of the registry".into(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

fn blank(id: String, kind: LocationKind, layer: Layer, found_by: String) -> MonitoringLocation {
    MonitoringLocation {
        id,
        kind,
        layer,
        found_by,
        handover: None,
        other_owner: None,
        pipes: Vec::new(),
        watershed_id: None,
        waters: Vec::new(),
        no_water: None,
        priority: Priority::Low,
        reasons: Vec::new(),
    }
}

/// One element of a pipe read in flow order: an id, its layer, and its owner's class.
struct Element<'e> {
    id: &'e str,
    layer: Layer,
    class: &'e OwnerClass,
}

/// Where one pipe changes hands: the place, its layer, the other owner, which way, and
/// the pipe.
struct Handed<'p> {
    at: String,
    layer: Layer,
    other: String,
    handover: Handover,
    pipe: &'p str,
}

/// Each recorded owner's class, placed once for each share of the pipes a core takes:
/// a county's 450,000 pipes and their ends carry a few dozen owners.
type OwnerMemo<'p> = FxHashMap<Option<&'p str>, OwnerClass>;

fn owner(f: &Feature, layer: Layer) -> Option<&str> {
    f.get(layer, "owner").as_str()
}

/// A pipe's end: the structure's id, its layer and its recorded owner. The structure is
/// read at its node's place in its layer when the feature there bears its id (on a
/// network built from this snapshot, always), else looked up by id: on the county, the
/// lookups by id were a third of finding the interconnections.
fn pipe_end<'p>(
    snap: &'p Snapshot,
    net: &'p Network,
    node: Option<u32>,
) -> Option<(&'p str, Layer, Option<&'p str>)> {
    let node = node?;
    let (layer, i) = net.structure_at(node)?;
    let id = net.structure_id(node)?;
    let layer_index = snap.layer(layer);
    let f = match layer_index.features.get(i) {
        Some(f) if f.id == id => Some(f),
        _ => layer_index.get(id),
    };
    Some((id, layer, f.and_then(|f| owner(f, layer))))
}

/// Where one pipe (`number`, its index in the layer) changes hands, read in flow order
/// from its upstream structure through the pipe to its downstream one.
fn handovers<'p>(
    snap: &'p Snapshot,
    net: &'p Network,
    owners: &Owners,
    memo: &mut OwnerMemo<'p>,
    number: usize,
    p: &'p Feature,
) -> Vec<Handed<'p>> {
    let Some((from, to)) = net.pipe_end_nodes_at(number, &p.id) else {
        return Vec::new();
    };
    let (up, down) = (pipe_end(snap, net, from), pipe_end(snap, net, to));
    let pipe_owner = owner(p, Layer::Pipes);
    for o in [up.and_then(|e| e.2), pipe_owner, down.and_then(|e| e.2)] {
        memo.entry(o).or_insert_with(|| owners.class(o));
    }
    let memo: &OwnerMemo<'p> = memo;
    let class = |o: Option<&'p str>| &memo[&o];
    let up = up.map(|(id, layer, o)| Element {
        id,
        layer,
        class: class(o),
    });
    let down = down.map(|(id, layer, o)| Element {
        id,
        layer,
        class: class(o),
    });
    let pipe = Element {
        id: p.id.as_str(),
        layer: Layer::Pipes,
        class: class(pipe_owner),
    };
    // In flow order, skipping what has no owner to read.
    let chain: Vec<(usize, &Element)> = [up.as_ref(), Some(&pipe), down.as_ref()]
        .into_iter()
        .enumerate()
        .filter_map(|(i, e)| Some((i, e?)))
        .filter(|(_, e)| *e.class != OwnerClass::Unknown)
        .collect();
    let mut out = Vec::new();
    for w in chain.windows(2) {
        let ((ia, a), (ib, b)) = (w[0], w[1]);
        let (handover, other) = match (a.class, b.class) {
            (OwnerClass::Town, OwnerClass::OtherPublic(o)) => (Handover::TownToOther, o),
            (OwnerClass::OtherPublic(o), OwnerClass::Town) => (Handover::OtherToTown, o),
            _ => continue,
        };
        // Where it changes hands: the upstream structure when the pipe is the
        // second of the pair, else the downstream end (the pipe when it is no
        // structure).
        let at = if ia == 0 && ib == 1 {
            a
        } else {
            down.as_ref().unwrap_or(&pipe)
        };
        out.push(Handed {
            at: at.id.to_string(),
            layer: at.layer,
            other: other.clone(),
            handover,
            pipe: p.id.as_str(),
        });
    }
    out
}

/// The interconnections found from the owners along the network, then those entered by
/// hand; one per place and other owner, by id.
fn interconnections(snap: &Snapshot, net: &Network, owners: &Owners) -> Vec<MonitoringLocation> {
    // Each pipe's handovers are read on every core (an owner looked up for each end and
    // the pipe), then gathered in the pipes' order, so a location lists its pipes as a
    // walk of the layer meets them.
    use rayon::prelude::*;
    let pipes: Vec<&Feature> = snap.layer(Layer::Pipes).features.iter().collect();
    let each: Vec<Vec<Handed>> = pipes
        .par_iter()
        .enumerate()
        .map_init(OwnerMemo::default, |memo, (i, p)| {
            handovers(snap, net, owners, memo, i, p)
        })
        .collect();
    let mut found: BTreeMap<(String, String), MonitoringLocation> = BTreeMap::new();
    for h in each.into_iter().flatten() {
        let key = (h.at, h.other);
        let loc = found.entry(key).or_insert_with_key(|(at, other)| {
            let mut l = blank(
                at.clone(),
                LocationKind::Interconnection,
                h.layer,
                String::new(),
            );
            l.handover = Some(h.handover);
            l.other_owner = Some(other.clone());
            l
        });
        if loc.handover != Some(h.handover) {
            loc.handover = Some(Handover::Both);
        }
        if !loc.pipes.iter().any(|q| q == h.pipe) {
            loc.pipes.push(h.pipe.to_string());
        }
    }
    let mut out: Vec<MonitoringLocation> = found
        .into_values()
        .map(|mut l| {
            l.found_by = format!(
                "the owners along the network: pipe(s) {} between the town's system and {}'s",
                l.pipes.join(", "),
                l.other_owner.as_deref().unwrap_or("another body")
            );
            l
        })
        .collect();
    let seen: HashSet<String> = out.iter().map(|l| l.id.clone()).collect();
    for s in snap.layer(Layer::Structures).features.iter() {
        let entered = text(s, Layer::Structures, "structure_type")
            .is_some_and(|t| crate::rules::profile::normalise_words(&t) == "interconnection");
        if entered && !seen.contains(&s.id) {
            let mut l = blank(
                s.id.clone(),
                LocationKind::Interconnection,
                Layer::Structures,
                "entered by hand: a structure recorded as an interconnection".into(),
            );
            l.handover = Some(Handover::Entered);
            l.other_owner = text(s, Layer::Structures, "owner");
            out.push(l);
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id).then(a.handover.cmp(&b.handover)));
    out
}

/// Where a location is drawn: its point, or a pipe's middle vertex.
pub fn location_point(snap: &Snapshot, loc: &MonitoringLocation) -> Option<Point<f64>> {
    match snap.geometry(loc.layer, &loc.id)? {
        Geometry::Point(p) => Some(*p),
        Geometry::LineString(l) => l.0.get(l.0.len() / 2).map(|c| Point(*c)),
        Geometry::MultiLineString(m) => {
            m.0.first()
                .and_then(|l| l.0.get(l.0.len() / 2))
                .map(|c| Point(*c))
        }
        g => geo::Centroid::centroid(g),
    }
}

/// The id of the first polygon of `layer` holding `p`.
pub fn containing(snap: &Snapshot, layer: Layer, p: &Point<f64>) -> Option<String> {
    let mut ids: Vec<&str> = snap
        .layer(layer)
        .in_envelope([p.x(), p.y(), p.x(), p.y()])
        .filter(|f| f.geom.as_ref().is_some_and(|g| g.contains(p)))
        .map(|f| f.id.as_str())
        .collect();
    ids.sort_unstable();
    ids.first().map(|s| s.to_string())
}

/// The waters a location discharges to: an outfall's own, an interconnection's through
/// the outfalls downstream of it.
fn location_waters(
    snap: &Snapshot,
    net: &Network,
    loc: &MonitoringLocation,
    tol: f64,
    cycle: Option<i64>,
) -> (Vec<LocationWater>, Option<String>) {
    let mut found: Vec<(String, String)> = Vec::new();
    let mut why_not = Vec::new();
    if loc.kind == LocationKind::Outfall {
        match outfall_water(snap, &loc.id, tol) {
            (Some(w), how) => found.push((w, how)),
            (None, how) => why_not.push(how),
        }
    } else {
        let outfalls: Vec<String> = net
            .trace(&loc.id, Direction::Downstream)
            .map(|t| t.outfalls.into_iter().map(|o| o.outfall).collect())
            .unwrap_or_default();
        if outfalls.is_empty() {
            why_not.push("no outfall downstream of it in the registry's network".to_string());
        }
        for o in outfalls {
            match outfall_water(snap, &o, tol) {
                (Some(w), how) => found.push((w, format!("through outfall {o} ({how})"))),
                (None, how) => why_not.push(format!("outfall {o}: {how}")),
            }
        }
    }
    let mut waters: Vec<LocationWater> = Vec::new();
    for (id, how) in found {
        if let Some(w) = waters.iter_mut().find(|w| w.water_id == id) {
            w.found_by = format!("{}; {how}", w.found_by);
            continue;
        }
        waters.push(water_record(snap, &id, how, cycle));
    }
    let no_water = waters.is_empty().then(|| why_not.join("; "));
    (waters, no_water)
}

fn water_record(snap: &Snapshot, id: &str, found_by: String, cycle: Option<i64>) -> LocationWater {
    let rec = snap.layer(Layer::ReceivingWaters).get(id);
    let (impaired, listed_for) = match listing(snap, id, cycle) {
        (Some(l), _) => (true, l.pollutants),
        (None, _) => (false, Vec::new()),
    };
    let tmdls = snap
        .layer(Layer::TmdlAreas)
        .features
        .iter()
        .filter(|t| {
            text(t, Layer::TmdlAreas, "waters")
                .is_some_and(|ws| ws.split([',', ';']).any(|w| w.trim() == id))
        })
        .map(|t| t.id.clone())
        .collect();
    LocationWater {
        water_id: id.to_string(),
        name: rec.and_then(|w| text(w, Layer::ReceivingWaters, "name")),
        classification: rec.and_then(classification),
        impaired,
        listed_for,
        tmdls,
        recorded: rec.is_some(),
        found_by,
    }
}

/// The criteria the waters meet: impaired, under a TMDL, of a higher class.
fn water_facts(waters: &[LocationWater], rule: &PriorityRule) -> Vec<(Criterion, String)> {
    let mut met = Vec::new();
    let name = |w: &LocationWater| match &w.name {
        Some(n) => format!("{} ({n})", w.water_id),
        None => w.water_id.clone(),
    };
    let listed: Vec<String> = waters
        .iter()
        .filter(|w| w.impaired)
        .map(|w| match w.listed_for.as_slice() {
            [] => format!("{}, 303(d)-listed", name(w)),
            p => format!("{}, 303(d)-listed for {}", name(w), p.join(", ")),
        })
        .collect();
    if !listed.is_empty() {
        met.push((
            Criterion::ImpairedWater,
            format!("it discharges to {}", listed.join("; ")),
        ));
    }
    let tmdl: Vec<String> = waters
        .iter()
        .filter(|w| !w.tmdls.is_empty())
        .map(|w| format!("{}, under TMDL {}", name(w), w.tmdls.join(", ")))
        .collect();
    if !tmdl.is_empty() {
        met.push((
            Criterion::TmdlWater,
            format!("it discharges to {}", tmdl.join("; ")),
        ));
    }
    let higher: Vec<String> = waters
        .iter()
        .filter_map(|w| {
            let c = w.classification.as_ref()?;
            let n = normalise_class(c);
            rule.higher_classes
                .iter()
                .any(|h| normalise_class(h) == n)
                .then(|| format!("{}, class {c}", name(w)))
        })
        .collect();
    if !higher.is_empty() {
        met.push((
            Criterion::HigherClass,
            format!("it discharges to {}", higher.join("; ")),
        ));
    }
    met
}

fn interconnection_words(loc: &MonitoringLocation) -> String {
    let other = loc.other_owner.as_deref().unwrap_or("another body");
    match loc.handover {
        Some(Handover::TownToOther) => format!("the town's system discharges into {other}'s here"),
        Some(Handover::OtherToTown) => format!("{other}'s system discharges into the town's here"),
        Some(Handover::Both) => {
            format!("the town's system passes through {other}'s here (into it and back out)")
        }
        _ => format!("an interconnection with {other}'s system, entered by hand"),
    }
}
