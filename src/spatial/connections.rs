//! The facts the illicit-connection rules need, gathered from the snapshot: each
//! connection's source parcel and the records that document it.

use geo::{Distance, Euclidean};
use geo_types::{Geometry, Point};
use rustc_hash::FxHashMap;

use super::query::containing;
use super::snapshot::Snapshot;
use super::waters::text;
use crate::domain::{Feature, Layer, Value};
use crate::rules::illicit::{ConnectionFacts, RecordFacts, SourceParcel};

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

/// Gathers the facts for every connection. `record_tolerance` (CRS units) is how near a
/// record that names no connection must lie to a connection's MS4 end to document it.
pub fn connection_facts(snap: &Snapshot, record_tolerance: f64) -> Vec<ConnectionFacts> {
    let records = snap.layer(Layer::ConnectionRecords);
    let mut by_connection: FxHashMap<&str, Vec<&Feature>> = FxHashMap::default();
    for r in &records.features {
        if let Some(c) = r.get(Layer::ConnectionRecords, "connection_id").as_str() {
            by_connection.entry(c).or_default().push(r);
        }
    }
    let parcels = snap.layer(Layer::Parcels);
    let unit = snap.meta.linear_unit.symbol();
    snap.layer(Layer::Connections)
        .features
        .iter()
        .map(|c| {
            let source_parcel = match text(c, Layer::Connections, "parcel_id") {
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
            };
            let mut docs: Vec<RecordFacts> = by_connection
                .get(c.id.as_str())
                .into_iter()
                .flatten()
                .map(|r| record_facts(r, "names the connection".into()))
                .collect();
            // Records that name no connection document those whose MS4 end is near and,
            // when they name a parcel, whose source parcel it is.
            if let Some(end) = c.geom.as_ref().and_then(ms4_end) {
                let t = record_tolerance;
                for r in records.in_envelope([end.x() - t, end.y() - t, end.x() + t, end.y() + t]) {
                    if !r.get(Layer::ConnectionRecords, "connection_id").is_null() {
                        continue;
                    }
                    let Some(Geometry::Point(rp)) = &r.geom else {
                        continue;
                    };
                    let d = Euclidean.distance(&end, rp);
                    if d > t {
                        continue;
                    }
                    let same_parcel = match (
                        text(r, Layer::ConnectionRecords, "parcel_id"),
                        &source_parcel,
                    ) {
                        (None, _) => true,
                        (Some(rp), Some(sp)) => rp == sp.parcel_id,
                        (Some(_), None) => false,
                    };
                    if same_parcel {
                        docs.push(record_facts(
                            r,
                            format!("within {d:.1} {unit} of the connection's MS4 end"),
                        ));
                    }
                }
            }
            ConnectionFacts {
                connection_id: c.id.clone(),
                discharge_kind_raw: text(c, Layer::Connections, "discharge_kind"),
                source_parcel,
                records: docs,
                ..Default::default()
            }
        })
        .collect()
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
        matched_by,
    }
}
