//! The facts the illicit-connection rules need, gathered from the snapshot: each
//! connection's source parcel and the records that document it.

use geo::{Distance, Euclidean};
use geo_types::{Geometry, Point};
use rustc_hash::FxHashMap;

use super::network::{Direction, Network};
use super::query::{containing, nearest_in};
use super::snapshot::Snapshot;
use super::waters::text;
use crate::domain::{Feature, Layer, Value};
use crate::rules::illicit::{
    ConnectionFacts, DeterminationFacts, Ms4Reach, PermitFacts, Reading, RecordFacts,
    ScreeningFacts, SourceParcel,
};
use crate::rules::{MissingOwner, Ms4Settings};

/// The parcel end of a connection (its first vertex, or the point itself).
pub fn upstream_end(g: &Geometry<f64>) -> Option<Point<f64>> {
    match g {
        Geometry::Point(p) => Some(*p),
        Geometry::LineString(l) => l.0.first().map(|c| Point(*c)),
        Geometry::MultiLineString(m) => m.0.first()?.0.first().map(|c| Point(*c)),
        _ => None,
    }
}

/// The MS4 end of a connection (its last vertex, or the point itself).
pub fn ms4_end(g: &Geometry<f64>) -> Option<Point<f64>> {
    match g {
        Geometry::Point(p) => Some(*p),
        Geometry::LineString(l) => l.0.last().map(|c| Point(*c)),
        Geometry::MultiLineString(m) => m.0.last()?.0.last().map(|c| Point(*c)),
        _ => None,
    }
}

/// Gathers the facts for every connection without tracing whose system it reaches.
/// `record_tolerance` (CRS units) is how near a record that names no connection must lie
/// to a connection's MS4 end to document it.
pub fn connection_facts(snap: &Snapshot, record_tolerance: f64) -> Vec<ConnectionFacts> {
    connection_facts_traced(snap, record_tolerance, None)
}

/// How to trace connections to the MS4: the network, the distance within which a
/// connection's MS4 end joins a structure or pipe (CRS units), and the profile's settings.
pub struct Ms4Trace<'a> {
    /// The drainage network.
    pub network: &'a Network,
    /// Join distance, CRS units.
    pub join_tolerance: f64,
    /// Which owners are the MS4's.
    pub settings: &'a Ms4Settings,
}

/// Gathers the facts for every connection, tracing each down to the first MS4 asset when
/// `trace` is given. A record that names no connection documents one connection: the one
/// whose MS4 end is nearest, within the tolerance (and on the record's parcel, when it
/// names one).
pub fn connection_facts_traced(
    snap: &Snapshot,
    record_tolerance: f64,
    trace: Option<&Ms4Trace<'_>>,
) -> Vec<ConnectionFacts> {
    let records = snap.layer(Layer::ConnectionRecords);
    let mut by_connection: FxHashMap<&str, Vec<&Feature>> = FxHashMap::default();
    for r in &records.features {
        if let Some(c) = r.get(Layer::ConnectionRecords, "connection_id").as_str() {
            by_connection.entry(c).or_default().push(r);
        }
    }
    let unit = snap.meta.linear_unit.symbol();
    // Each connection's facts are its own: found on every core, kept in order.
    use rayon::prelude::*;
    let connections = &snap.layer(Layer::Connections).features;
    let sources: Vec<Option<SourceParcel>> = (0..connections.len())
        .into_par_iter()
        .map(|i| source_parcel(snap, &connections[i]))
        .collect();
    let nearest = nearest_connection_of_records(snap, record_tolerance, &sources);
    // Each connection's records found by nearness, gathered once (not a pass over every
    // record per connection: a county has tens of thousands of each).
    let mut near_of: FxHashMap<usize, Vec<(usize, f64)>> = FxHashMap::default();
    for (ri, (nc, d)) in nearest.iter().enumerate() {
        near_of.entry(*nc).or_default().push((ri, *d));
    }
    let determinations = snap.layer(Layer::DischargeDeterminations);
    // Each determination's scope read once, not once per connection.
    let det_scopes = determination_scopes(determinations.features.iter());
    let screenings = sewage_screenings(snap);
    sources
        .into_par_iter()
        .enumerate()
        .map(|(ci, source_parcel)| {
            let c = &connections[ci];
            let mut docs: Vec<RecordFacts> = by_connection
                .get(c.id.as_str())
                .into_iter()
                .flatten()
                .map(|r| record_facts(r, "names the connection".into()))
                .collect();
            for &(ri, d) in near_of.get(&ci).into_iter().flatten() {
                docs.push(record_facts(
                    &records.features[ri],
                    format!(
                        "within {d:.1} {unit} of the connection's MS4 end, the nearest \
                         connection to the record"
                    ),
                ));
            }
            let kind = text(c, Layer::Connections, "discharge_kind");
            let parsed_kind = kind
                .as_deref()
                .and_then(|k| crate::domain::discharge::DischargeKind::parse(k).ok());
            let dets = determinations
                .features
                .iter()
                .zip(&det_scopes)
                .filter(|(_, (scope, subject))| {
                    determination_applies(scope, subject, c, source_parcel.as_ref(), parsed_kind)
                })
                .map(|(d, _)| determination_facts(d))
                .collect();
            let (ms4, downstream_outfalls) = match trace {
                Some(t) => trace_to_ms4(snap, t, c),
                None => (Ms4Reach::NotTraced, Vec::new()),
            };
            let screened = screenings
                .iter()
                .filter(|s| downstream_outfalls.contains(&s.outfall))
                .cloned()
                .collect();
            ConnectionFacts {
                connection_id: c.id.clone(),
                discharge_kind_raw: kind,
                source_parcel,
                records: docs,
                pollutants_found: c.get(Layer::Connections, "pollutants_found").as_bool(),
                status_raw: text(c, Layer::Connections, "status"),
                removed_on: date(c, Layer::Connections, "removed_on"),
                sampled_on: date(c, Layer::Connections, "sampled_on"),
                ms4,
                determinations: dets,
                screenings: screened,
                ..Default::default()
            }
        })
        .collect()
}

/// Each determination's scope (trimmed, lower case) and subject.
fn determination_scopes<'f>(
    determinations: impl Iterator<Item = &'f Feature>,
) -> Vec<(String, String)> {
    determinations
        .map(|d| {
            let l = Layer::DischargeDeterminations;
            let scope = text(d, l, "scope").unwrap_or_default();
            (
                scope.trim().to_ascii_lowercase(),
                text(d, l, "subject").unwrap_or_default(),
            )
        })
        .collect()
}

/// Whether a determination of this scope and subject applies to connection `c`: it names
/// the connection, its source parcel, or its discharge kind.
fn determination_applies(
    scope: &str,
    subject: &str,
    c: &Feature,
    source_parcel: Option<&SourceParcel>,
    parsed_kind: Option<crate::domain::discharge::DischargeKind>,
) -> bool {
    match scope {
        "connection" => subject == c.id,
        "parcel" => source_parcel.is_some_and(|p| p.parcel_id == subject),
        "kind" => parsed_kind.is_some_and(|k| {
            crate::domain::discharge::DischargeKind::parse(subject).is_ok_and(|s| s == k)
        }),
        _ => false,
    }
}

fn date(f: &Feature, layer: Layer, field: &str) -> Option<String> {
    match f.get(layer, field) {
        Value::Null => None,
        v => Some(v.to_string()),
    }
}

fn determination_facts(d: &Feature) -> DeterminationFacts {
    let l = Layer::DischargeDeterminations;
    let finding = text(d, l, "finding");
    // The rule reads the words (`finding_raw`); this is the same reading, for the facts'
    // readers: a withdrawal ("no longer", "rescinded") is not a "yes".
    let substantial = match finding.as_deref().map(crate::rules::illicit::read_finding) {
        Some(Reading::Substantial) => Some(true),
        Some(Reading::NotSubstantial | Reading::Withdrawn) => Some(false),
        Some(Reading::Unread) | None => None,
    };
    DeterminationFacts {
        determination_id: d.id.clone(),
        scope: text(d, l, "scope").unwrap_or_default(),
        subject: text(d, l, "subject").unwrap_or_default(),
        determined_on: date(d, l, "determined_on"),
        determined_by: text(d, l, "determined_by"),
        substantial_contributor: substantial,
        finding_raw: finding,
    }
}

/// Outfall inspections that found sewage indicators: all the illicit rule reads of the
/// inspections (the tiles keep their findings while this and the other layers stay).
pub(crate) fn sewage_screenings(snap: &Snapshot) -> Vec<ScreeningFacts> {
    let l = Layer::Inspections;
    let outfalls = snap.layer(Layer::Outfalls);
    snap.layer(l)
        .features
        .iter()
        .filter(|i| i.get(l, "sewage_indicators").as_bool() == Some(true))
        .filter_map(|i| {
            let asset = text(i, l, "asset_id")?;
            outfalls.get(&asset)?;
            Some(ScreeningFacts {
                inspection_id: i.id.clone(),
                outfall: asset,
                inspected_on: date(i, l, "inspected_on"),
            })
        })
        .collect()
}

/// For each record that names no connection, the connection (index) whose MS4 end lies
/// nearest within the tolerance, on the record's parcel when it names one.
fn nearest_connection_of_records(
    snap: &Snapshot,
    t: f64,
    sources: &[Option<SourceParcel>],
) -> Vec<(usize, f64)> {
    let conns = &snap.layer(Layer::Connections).features;
    let ends: Vec<Option<Point<f64>>> = conns
        .iter()
        .map(|c| c.geom.as_ref().and_then(ms4_end))
        .collect();
    // The ends in an R-tree: a record looks only at the ends within the tolerance, not at
    // every connection of the registry (which made this quadratic: seconds on a county).
    let tree = rstar::RTree::bulk_load(
        ends.iter()
            .enumerate()
            .filter_map(|(i, e)| e.map(|p| rstar::primitives::GeomWithData::new([p.x(), p.y()], i)))
            .collect(),
    );
    // A hair wider than the tolerance, so no end the exact test below keeps is missed by
    // the squared distance's rounding.
    let reach = t * (1.0 + 1e-9) + 1e-9;
    snap.layer(Layer::ConnectionRecords)
        .features
        .iter()
        .map(|r| {
            if !r.get(Layer::ConnectionRecords, "connection_id").is_null() {
                return (usize::MAX, 0.0);
            }
            let Some(Geometry::Point(rp)) = &r.geom else {
                return (usize::MAX, 0.0);
            };
            let parcel = text(r, Layer::ConnectionRecords, "parcel_id");
            let mut best = (usize::MAX, f64::INFINITY);
            let mut near: Vec<usize> = tree
                .locate_within_distance([rp.x(), rp.y()], reach * reach)
                .map(|e| e.data)
                .collect();
            // In the connections' order, as a scan of them all would meet them: of two
            // ends equally near, the first connection wins.
            near.sort_unstable();
            for i in near {
                let Some(end) = &ends[i] else { continue };
                let d = Euclidean.distance(end, rp);
                let same_parcel = match (&parcel, &sources[i]) {
                    (None, _) => true,
                    (Some(rp), Some(sp)) => *rp == sp.parcel_id,
                    (Some(_), None) => false,
                };
                if d <= t && same_parcel && d < best.1 {
                    best = (i, d);
                }
            }
            best
        })
        .collect()
}

/// The asset (structure, else pipe) a connection's MS4 end joins, within `tol`.
fn joined_asset(snap: &Snapshot, p: &Point<f64>, tol: f64) -> Option<String> {
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

/// The recorded owner of an asset of the network: `Some(None)` when it has none.
fn owner_of(snap: &Snapshot, id: &str) -> Option<Option<String>> {
    for layer in [
        Layer::CatchBasins,
        Layer::Manholes,
        Layer::Outfalls,
        Layer::Pipes,
    ] {
        if let Some(f) = snap.layer(layer).get(id) {
            return Some(text(f, layer, "owner").filter(|o| !o.trim().is_empty()));
        }
    }
    None
}

/// Traces a connection down to the first MS4 asset; also returns the outfalls downstream.
fn trace_to_ms4(snap: &Snapshot, t: &Ms4Trace<'_>, c: &Feature) -> (Ms4Reach, Vec<String>) {
    let Some(joined) = c
        .geom
        .as_ref()
        .and_then(ms4_end)
        .and_then(|p| joined_asset(snap, &p, t.join_tolerance))
    else {
        return (Ms4Reach::Unjoined, Vec::new());
    };
    let trace = t.network.trace(&joined, Direction::Downstream);
    let outfalls: Vec<String> = trace
        .as_ref()
        .map(|tr| tr.outfalls.iter().map(|o| o.outfall.clone()).collect())
        .unwrap_or_default();
    let is_ms4 = |id: &str| match owner_of(snap, id) {
        Some(Some(o)) => t.settings.is_ms4_owner(&o).then_some(Some(o)),
        Some(None) if t.settings.missing_owner() == MissingOwner::Ms4 => Some(None),
        _ => None,
    };
    // The joined asset itself, then the nearest MS4 asset along each outfall path.
    if let Some(owner) = is_ms4(&joined) {
        let reach = Ms4Reach::Ms4 {
            asset: joined.clone(),
            owner,
            path: vec![joined],
        };
        return (reach, outfalls);
    }
    let mut best: Option<(usize, String, Option<String>, Vec<String>)> = None;
    let mut visited: Vec<String> = vec![joined.clone()];
    if let Some(tr) = &trace {
        for o in &tr.outfalls {
            if let Some(i) = o.path.iter().position(|id| is_ms4(id).is_some()) {
                if best.as_ref().is_none_or(|(bi, ..)| i < *bi) {
                    let id = o.path[i].clone();
                    best = Some((i, id.clone(), is_ms4(&id).flatten(), o.path[..=i].to_vec()));
                }
            }
        }
        visited.extend(tr.structures.iter().cloned());
        visited.extend(tr.pipes.iter().cloned());
    }
    if let Some((_, asset, owner, path)) = best {
        return (Ms4Reach::Ms4 { asset, owner, path }, outfalls);
    }
    // No path to an outfall reaches one: any MS4 asset the trace visited still counts.
    if let Some(id) = visited.iter().find(|id| is_ms4(id).is_some()) {
        let reach = Ms4Reach::Ms4 {
            asset: id.clone(),
            owner: is_ms4(id).flatten(),
            path: Vec::new(),
        };
        return (reach, outfalls);
    }
    let mut owners: Vec<String> = Vec::new();
    let mut unknown: Vec<String> = Vec::new();
    for id in &visited {
        match owner_of(snap, id) {
            Some(Some(o)) if !owners.contains(&o) => owners.push(o),
            Some(Some(_)) => {}
            Some(None) => unknown.push(id.clone()),
            None => {}
        }
    }
    let reach = if unknown.is_empty() {
        Ms4Reach::Other { joined, owners }
    } else {
        Ms4Reach::OwnerUnknown {
            joined,
            assets: unknown,
        }
    };
    (reach, outfalls)
}

/// The source parcel of a connection: its `parcel_id`, else the parcel holding its
/// upstream end.
fn source_parcel(snap: &Snapshot, c: &Feature) -> Option<SourceParcel> {
    let parcels = snap.layer(Layer::Parcels);
    match text(c, Layer::Connections, "parcel_id") {
        Some(pid) => Some(SourceParcel {
            land_use_raw: parcels
                .get(&pid)
                .and_then(|p| text(p, Layer::Parcels, "land_use")),
            found_by: if parcels.get(&pid).is_some() {
                "the connection's parcel_id".into()
            } else {
                "the connection's parcel_id (not in the parcels layer)".into()
            },
            parcel_id: pid,
        }),
        None => c.geom.as_ref().and_then(upstream_end).and_then(|p| {
            containing(parcels, &p).first().map(|parcel| SourceParcel {
                parcel_id: parcel.id.clone(),
                land_use_raw: text(parcel, Layer::Parcels, "land_use"),
                found_by: "the parcel holding the connection's upstream end".into(),
            })
        }),
    }
}

fn record_facts(r: &Feature, matched_by: String) -> RecordFacts {
    RecordFacts {
        record_id: r.id.clone(),
        approved: r.get(Layer::ConnectionRecords, "approved").as_bool(),
        approved_by: text(r, Layer::ConnectionRecords, "approved_by"),
        approved_on: match r.get(Layer::ConnectionRecords, "approved_on") {
            Value::Null => None,
            v => Some(v.to_string()),
        },
        plan_ref: text(r, Layer::ConnectionRecords, "plan_ref"),
        permit: permit_facts(r),
        matched_by,
    }
}

/// The permit a record holds: any of its permit fields recorded (a kind or a written
/// approval without a number is still a permit on record, with the number left empty).
fn permit_facts(r: &Feature) -> Option<PermitFacts> {
    let l = Layer::ConnectionRecords;
    let number = text(r, l, "permit_number");
    let kind = text(r, l, "permit_kind");
    let holder = text(r, l, "permit_holder");
    let ms4_approval = r.get(l, "ms4_approval").as_bool();
    if number.is_none() && kind.is_none() && holder.is_none() && ms4_approval.is_none() {
        return None;
    }
    Some(PermitFacts {
        number: number.unwrap_or_default(),
        kind,
        holder,
        ms4_approval,
        ms4_approved_on: date(r, l, "ms4_approved_on"),
    })
}
