//! What lies on private land and ties it to the MS4: connections from parcels, the records
//! that approve them, stormwater management practices and the easements that give the
//! Town access to them.
//!
//! A connection ends at the nearest of the block's own catch basins or on the trunk under
//! its street, found from the block's four facing basins: never a search of the whole
//! network, which keeps a county linear.

use geo_types::{Geometry, LineString, Point};
use rand::rngs::SmallRng;
use rand::Rng;

use super::grid::{self, rect_polygon, Lot};
use super::layout::{tag, Layout};
use super::network::{CbSite, Curb};
use super::{date, pick, text, Ids, Out};
use crate::domain::discharge::DischargeKind::{self, *};
use crate::domain::{Feature, Layer, Value};

/// Share of parcels with a connection to the MS4.
const CONNECTION_RATE: f64 = 0.10;
/// Share of connections with a record.
const RECORD_RATE: f64 = 0.80;
/// Parcels per SMP.
const PARCELS_PER_SMP: f64 = 200.0;
/// Share of SMPs with a recorded easement.
const SMP_EASEMENT_RATE: f64 = 0.70;

/// What a home's connection carries.
const HOME_DISCHARGES: &[(DischargeKind, u32)] = &[
    (Stormwater, 72),
    (FoundationDrain, 7),
    (AirConditioningCondensate, 5),
    (IndoorDrain, 4),
    (Sewage, 4),
    (WashWater, 3),
    (Unknown, 5),
];
/// What a business's connection carries: more process and wash water.
const BUSINESS_DISCHARGES: &[(DischargeKind, u32)] = &[
    (Stormwater, 55),
    (ProcessWastewater, 10),
    (WashWater, 10),
    (IndoorDrain, 7),
    (Sewage, 5),
    (AirConditioningCondensate, 5),
    (Unknown, 8),
];

/// Practice types, whether each is structural, and whether it is mapped as an area.
const PRACTICES: &[((&str, bool, bool), u32)] = &[
    (("bioretention", true, true), 20),
    (("detention pond", true, true), 10),
    (("infiltration trench", true, false), 12),
    (("hydrodynamic separator", true, false), 10),
    (("underground detention", true, false), 8),
    (("porous pavement", true, true), 6),
    (("dry well", true, false), 8),
    (("stormwater wetland", true, true), 3),
    (("rain garden", true, false), 8),
    (("sand filter", true, false), 4),
    (("vegetated buffer", false, false), 4),
    (("rooftop disconnection", false, false), 4),
];

/// Emits block `(i, j)`: its parcels, their connections and records, and now and then an
/// SMP with its easement.
pub fn block(lay: &Layout, i: usize, j: usize, out: &mut Out, ids: &mut Ids) {
    let b = j * lay.cols + i;
    let mut rng = lay.rng(tag::BLOCK, b as u64);
    let lots = grid::block(lay, i, j, lay.counts[b] as usize, &mut rng, out, ids);
    // The catch basins on the curbs around this block.
    let basins: Vec<CbSite> = [
        lay.cb(i, j, Curb::North),
        lay.cb(i, j + 1, Curb::South),
        lay.cb(i, j, Curb::East),
        lay.cb(i + 1, j, Curb::West),
    ]
    .into_iter()
    .flatten()
    .collect();
    for lot in &lots {
        if rng.gen_bool(CONNECTION_RATE) {
            connection(lay, i, j, lot, &basins, &mut rng, out, ids);
        }
    }
    if !lots.is_empty() && rng.gen_bool((lots.len() as f64 / PARCELS_PER_SMP).min(1.0)) {
        let lot = &lots[rng.gen_range(0..lots.len())];
        smp(lay, lot, &mut rng, out, ids);
    }
}

/// A connection from inside `lot` to the MS4, and usually a record of it.
#[allow(clippy::too_many_arguments)]
fn connection(
    lay: &Layout,
    i: usize,
    j: usize,
    lot: &Lot,
    basins: &[CbSite],
    rng: &mut SmallRng,
    out: &mut Out,
    ids: &mut Ids,
) {
    let (x0, y0, x1, y1) = lot.rect;
    let depth = y1 - y0;
    let sx = (x0 + x1) / 2.0 + rng.gen_range(-0.2..0.2) * (x1 - x0);
    // The house: a quarter to a half of the lot's depth back from the street.
    let back = rng.gen_range(0.25..0.45) * depth;
    let sy = if lot.faces_north {
        y1 - back
    } else {
        y0 + back
    };
    let street_y = if lot.faces_north {
        lay.y(j + 1)
    } else {
        lay.y(j)
    };
    // Into the trunk under the street when there is one there, otherwise (and more often)
    // into the nearest catch basin around the block.
    let (ex, ey) = if lay.has_trunk(i) && rng.gen_bool(0.4) {
        (sx, street_y)
    } else {
        let d2 = |c: &CbSite| (c.x - sx).powi(2) + (c.y - sy).powi(2);
        let near = basins
            .iter()
            .min_by(|a, b| d2(a).total_cmp(&d2(b)))
            .expect("every block has curb basins");
        (near.x, near.y)
    };
    let l = Layer::Connections;
    let id = format!("C-{:06}", ids.next_connection());
    let mut f = Feature::new(l, id.clone());
    let kinds = if lot.is_business() {
        BUSINESS_DISCHARGES
    } else {
        HOME_DISCHARGES
    };
    f.set(l, "discharge_kind", text(pick(rng, kinds).as_str()));
    // Some connections were mapped without the parcel; the registry finds it from the
    // upstream end.
    if rng.gen_bool(0.85) {
        f.set(l, "parcel_id", text(lot.id.clone()));
    }
    f.set(
        l,
        "status",
        text(pick(
            rng,
            &[("active", 92), ("abandoned", 5), ("proposed", 3)],
        )),
    );
    f.set(l, "installed_on", date(rng, 1950, 2023));
    f.geom = Some(Geometry::LineString(LineString::from(vec![
        lay.c(sx, sy),
        lay.c(ex, ey),
    ])));
    out.push(l, f);

    if rng.gen_bool(RECORD_RATE) {
        record(lay, &id, lot, (ex, ey), rng, out, ids);
    }
}

/// A plan or permit documenting a connection, located near the connection's MS4 end.
fn record(
    lay: &Layout,
    connection_id: &str,
    lot: &Lot,
    (ex, ey): (f64, f64),
    rng: &mut SmallRng,
    out: &mut Out,
    ids: &mut Ids,
) {
    let l = Layer::ConnectionRecords;
    let mut f = Feature::new(l, format!("R-{:06}", ids.next_record()));
    // A record that names no connection is matched to one by place and parcel.
    if rng.gen_bool(0.85) {
        f.set(l, "connection_id", text(connection_id));
    }
    if rng.gen_bool(0.9) {
        f.set(l, "parcel_id", text(lot.id.clone()));
    }
    let year = rng.gen_range(1975..=2023);
    let prefix = pick(rng, &[("SP", 5), ("BP", 4), ("SWPPP", 1)]);
    f.set(
        l,
        "plan_ref",
        text(format!("{prefix}-{year}-{:03}", rng.gen_range(1..400))),
    );
    let approved = rng.gen_bool(0.9);
    f.set(l, "approved", Value::Bool(approved));
    if approved {
        let by = pick(
            rng,
            &[
                ("Town Engineer", 5),
                ("Planning Board", 3),
                ("Building Inspector", 3),
                ("Stormwater Management Officer", 1),
            ],
        );
        f.set(l, "approved_by", text(by));
        f.set(l, "approved_on", date(rng, year, year));
    }
    let (dx, dy) = (rng.gen_range(-2.0..2.0), rng.gen_range(-2.0..2.0));
    f.geom = Some(Geometry::Point(Point(lay.c(ex + dx, ey + dy))));
    out.push(l, f);
}

/// A stormwater management practice in the back of `lot`, mapped as a point or, for
/// practices that are areas, a polygon; most get a maintenance easement reaching the
/// street.
fn smp(lay: &Layout, lot: &Lot, rng: &mut SmallRng, out: &mut Out, ids: &mut Ids) {
    let (x0, y0, x1, y1) = lot.rect;
    let (practice, structural, area) = pick(rng, PRACTICES);
    let cx = (x0 + x1) / 2.0 + rng.gen_range(-0.1..0.1) * (x1 - x0);
    // The rear of the lot is away from its street.
    let rear = if lot.faces_north {
        y0 + 20.0
    } else {
        y1 - 20.0
    };
    let half_w = ((x1 - x0) / 2.0 - 8.0).clamp(5.0, 20.0);
    let extent = (cx - half_w, rear - 12.0, cx + half_w, rear + 12.0);
    let l = Layer::Smps;
    let mut f = Feature::new(l, format!("SMP-{:05}", ids.next_smp()));
    f.set(l, "practice_type", text(practice));
    f.set(l, "structural", Value::Bool(structural));
    let owner_kind = if lot.is_public() {
        "municipal"
    } else {
        pick(rng, &[("private", 3), ("municipal", 1)])
    };
    f.set(l, "owner_kind", text(owner_kind));
    f.set(
        l,
        "status",
        text(pick(
            rng,
            &[("active", 90), ("proposed", 6), ("removed", 4)],
        )),
    );
    f.geom = Some(if area {
        Geometry::Polygon(rect_polygon(lay, extent))
    } else {
        Geometry::Point(Point(lay.c(cx, rear)))
    });
    out.push(l, f);

    if rng.gen_bool(SMP_EASEMENT_RATE) {
        // From behind the practice to the front lot line, inside the lot.
        let (ex0, ex1) = ((extent.0 - 5.0).max(x0), (extent.2 + 5.0).min(x1));
        let (ey0, ey1) = if lot.faces_north {
            ((extent.1 - 5.0).max(y0), y1)
        } else {
            (y0, (extent.3 + 5.0).min(y1))
        };
        let rect = (ex0, ey0, ex1, ey1);
        let purpose = pick(rng, &[("maintenance", 6), ("access", 2), ("drainage", 2)]);
        easement(lay, rect, purpose, rng, out, ids);
    }
}

/// A recorded easement over a local rectangle.
pub fn easement(
    lay: &Layout,
    rect: (f64, f64, f64, f64),
    purpose: &str,
    rng: &mut SmallRng,
    out: &mut Out,
    ids: &mut Ids,
) {
    let l = Layer::Easements;
    let mut f = Feature::new(l, format!("E-{:05}", ids.next_easement()));
    f.set(l, "purpose", text(purpose));
    f.set(l, "recorded_on", date(rng, 1980, 2023));
    f.set(
        l,
        "instrument",
        text(format!(
            "Liber {} cp {}",
            rng.gen_range(1000..14000),
            rng.gen_range(1..400)
        )),
    );
    // Multi, like the polygon layers, so a GeoPackage layer holds one geometry type.
    f.geom = Some(Geometry::MultiPolygon(rect_polygon(lay, rect).into()));
    out.push(l, f);
}
