//! Facilities near a point, nearest first.

use clap::Args;
use geo_types::Point;
use serde::{Deserialize, Serialize};

use super::places::{fields, Place, Places};
use super::{comma_list, Ask, AskError, Epsg, Measure};
use crate::domain::Layer;
use crate::import::crs::cached_reprojector;
use crate::rules::quantity::parse_length;
use crate::spatial::query::{self, NearbyFacility, NearbyQuery, FACILITY_LAYERS};

/// The most facilities one answer lists by count: a nearest-first walk is cheap for a
/// handful and grows with the square of `k`.
pub const MAX_K: usize = 10_000;

/// Where to look and for what: `ms4 nearby` and `GET /api/nearby`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct NearbyParams {
    /// Longitude (WGS 84), with --lat.
    #[arg(long, requires = "lat", conflicts_with_all = ["x", "y"], allow_hyphen_values = true)]
    #[schemars(range(min = -180, max = 180))]
    pub lon: Option<f64>,
    /// Latitude (WGS 84), with --lon.
    #[arg(long, requires = "lon", allow_hyphen_values = true)]
    #[schemars(range(min = -90, max = 90))]
    pub lat: Option<f64>,
    /// Easting in the registry's CRS, with --y.
    #[arg(long, requires = "y", allow_hyphen_values = true)]
    pub x: Option<f64>,
    /// Northing in the registry's CRS, with --x.
    #[arg(long, requires = "x", allow_hyphen_values = true)]
    pub y: Option<f64>,
    /// Only facilities within this distance, with its unit: 500ft, 150m.
    #[arg(long)]
    pub radius: Option<String>,
    /// At most this many (default 10 when no radius is given).
    #[arg(long)]
    #[schemars(range(min = 1, max = 10_000))]
    pub k: Option<usize>,
    /// Which facilities: catch_basin, manhole, outfall, smp, structure (comma-separated).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub kinds: Vec<String>,
}

/// The question as it was understood, in the registry's CRS.
#[derive(Debug, Clone, Serialize)]
pub struct NearbyEcho {
    /// Easting of the point.
    pub x: f64,
    /// Northing of the point.
    pub y: f64,
    /// The CRS of `x`, `y` and every distance.
    pub crs: Epsg,
    /// The radius, in the CRS's unit.
    pub radius: Option<Measure>,
    /// The radius as it was asked, in its own unit (`300 ft`), so a person reads back
    /// what they typed beside the converted value.
    pub radius_given: Option<String>,
    /// The count asked for.
    pub k: Option<usize>,
}

/// The facilities near a point.
#[derive(Debug, Clone, Serialize)]
pub struct NearbyAnswer {
    /// The question.
    pub query: NearbyEcho,
    /// The facilities, nearest first.
    pub facilities: Vec<NearbyFacility>,
}

/// Reads a facility kind (`catch_basin`, `manholes`, `cb`, ...) as its layer.
pub fn facility_layer(kind: &str) -> Result<Layer, AskError> {
    Ok(
        match kind
            .trim()
            .to_ascii_lowercase()
            .replace('-', "_")
            .trim_end_matches('s')
        {
            "catch_basin" | "cb" | "inlet" => Layer::CatchBasins,
            "manhole" | "mh" => Layer::Manholes,
            "outfall" => Layer::Outfalls,
            "smp" | "bmp" => Layer::Smps,
            "structure" | "headwall" | "junction_box" => Layer::Structures,
            other => {
                return Err(AskError::invalid(
                    "kinds",
                    format!(
                        "unknown facility kind {other:?}; expected catch_basin, manhole, outfall, smp or structure"
                    ),
                ))
            }
        },
    )
}

/// The layers of a `kinds` list; every facility layer when it is empty.
pub fn facility_layers(kinds: &[String]) -> Result<Vec<Layer>, AskError> {
    if kinds.is_empty() {
        return Ok(FACILITY_LAYERS.to_vec());
    }
    let mut layers = Vec::with_capacity(kinds.len());
    for k in kinds {
        let l = facility_layer(k)?;
        if !layers.contains(&l) {
            layers.push(l);
        }
    }
    Ok(layers)
}

/// A WGS 84 longitude/latitude in the registry's CRS.
pub fn lon_lat_to_registry(srid: i32, lon: f64, lat: f64) -> Result<Point<f64>, AskError> {
    // This thread's transform: making one costs far more than a nearby answer.
    let rp = cached_reprojector(4326, srid).map_err(|e| AskError::Other(e.into()))?;
    let (x, y) = rp
        .point(lon, lat)
        .map_err(|e| AskError::invalid("lon/lat", e.to_string()))?;
    if !(x.is_finite() && y.is_finite()) {
        return Err(AskError::invalid(
            "lon/lat",
            format!("({lon}, {lat}) has no place in EPSG:{srid}"),
        ));
    }
    Ok(Point::new(x, y))
}

/// Whether `[x, y]` lies in a `[min x, min y, max x, max y]` box.
fn in_box(b: [f64; 4], x: f64, y: f64) -> bool {
    b[0] <= x && x <= b[2] && b[1] <= y && y <= b[3]
}

/// Refuses a longitude/latitude outside the registry's area that would lie inside it
/// with the two swapped: the commonest slip (a GIS writes `lat, lon`), which would
/// otherwise be answered with facilities hundreds of millions of feet away.
fn swapped_lon_lat(srid: i32, lon: f64, lat: f64) -> Result<(), AskError> {
    let a = super::validate::area_of_use(srid)?;
    if !in_box(a.lon_lat, lon, lat) && in_box(a.lon_lat, lat, lon) {
        return Err(AskError::invalid(
            "lon/lat",
            format!(
                "({lon}, {lat}) is far outside the registry's area (EPSG:{srid}); longitude and latitude look swapped: did you mean lon {lat}, lat {lon}?"
            ),
        ));
    }
    Ok(())
}

/// Refuses an x/y outside the registry's area that is inside it with the two swapped,
/// or that is a longitude/latitude of the area given as x and y.
fn swapped_x_y(srid: i32, x: f64, y: f64) -> Result<(), AskError> {
    let a = super::validate::area_of_use(srid)?;
    if in_box(a.projected, x, y) {
        return Ok(());
    }
    if in_box(a.projected, y, x) {
        return Err(AskError::invalid(
            "x/y",
            format!(
                "({x}, {y}) is far outside the registry's area (EPSG:{srid}); x and y look swapped: did you mean x {y}, y {x}?"
            ),
        ));
    }
    if in_box(a.lon_lat, x, y) || in_box(a.lon_lat, y, x) {
        return Err(AskError::invalid(
            "x/y",
            format!(
                "({x}, {y}) is far outside the registry's area in EPSG:{srid}, but is a longitude/latitude inside it: give it as lon and lat"
            ),
        ));
    }
    Ok(())
}

/// The facilities near a point, nearest first, with distance, bearing, status, last
/// inspection and access.
pub fn nearby(ask: &Ask<'_>, p: &NearbyParams) -> Result<NearbyAnswer, AskError> {
    let snap = ask.snap;
    let srid = snap.meta.srid;
    let unit = snap.meta.linear_unit;
    let at = match (p.lon, p.lat, p.x, p.y) {
        (Some(_), Some(_), Some(_), _) | (Some(_), Some(_), _, Some(_)) => {
            return Err(AskError::invalid(
                "lon/lat",
                "give either lon and lat or x and y, not both",
            ))
        }
        (Some(lon), Some(lat), None, None) => {
            if !(-180.0..=180.0).contains(&lon) || !(-90.0..=90.0).contains(&lat) {
                return Err(AskError::invalid(
                    "lon/lat",
                    format!("({lon}, {lat}) is not a longitude/latitude"),
                ));
            }
            let at = lon_lat_to_registry(srid, lon, lat);
            if at.is_err() {
                swapped_lon_lat(srid, lon, lat)?;
            }
            at?
        }
        (None, None, Some(x), Some(y)) => {
            if !(x.is_finite() && y.is_finite()) {
                return Err(AskError::invalid(
                    "x/y",
                    format!("({x}, {y}) is not a position"),
                ));
            }
            Point::new(x, y)
        }
        (Some(_), None, ..) | (None, Some(_), ..) => {
            return Err(AskError::invalid("lon/lat", "give both lon and lat"))
        }
        (None, None, ..) if p.x.is_some() || p.y.is_some() => {
            return Err(AskError::invalid("x/y", "give both x and y"))
        }
        _ => {
            return Err(AskError::invalid(
                "lon/lat",
                format!("give a point: lon and lat (WGS 84), or x and y (EPSG:{srid})"),
            ))
        }
    };
    let given = match p.radius.as_deref() {
        None => None,
        Some(r) => Some(parse_length(r).map_err(|e| AskError::invalid("radius", e.to_string()))?),
    };
    let radius = given.map(|l| l.to(unit).value);
    if let Some(k) = p.k {
        if k == 0 || k > MAX_K {
            return Err(AskError::invalid(
                "k",
                format!("must be between 1 and {MAX_K}, got {k}"),
            ));
        }
    }
    let k = p.k.or(if radius.is_none() { Some(10) } else { None });
    let layers = facility_layers(&p.kinds)?;
    // Last, so a wrong radius or kind is named first (tests and callers ask with any point).
    let param = if p.lon.is_some() { "lon/lat" } else { "x/y" };
    if let Err(e) = super::validate::position(param, srid, at) {
        // Say what the slip probably was, when it can be told.
        match (p.lon, p.lat, p.x, p.y) {
            (Some(lon), Some(lat), ..) => swapped_lon_lat(srid, lon, lat)?,
            (.., Some(x), Some(y)) => swapped_x_y(srid, x, y)?,
            _ => {}
        }
        return Err(e);
    }
    let mut facilities = query::nearby(
        snap,
        &NearbyQuery {
            at,
            radius,
            k,
            layers,
        },
    );
    // The profile's schedule decides "overdue" (without the monitoring priorities, which
    // need the whole network: an item by priority is judged in `ms4 inspections due`).
    let schedule = super::schedule::Schedule::with_priorities(snap, ask.profile, None);
    let today = chrono::Local::now().date_naive();
    for n in &mut facilities {
        if let Some(f) = snap.layer(n.layer).get(&n.id) {
            n.overdue = schedule.overdue(n.layer, f, today);
        }
    }
    Ok(NearbyAnswer {
        query: NearbyEcho {
            x: at.x(),
            y: at.y(),
            crs: Epsg(srid),
            // In the CRS's unit like every distance here, without conversion noise:
            // 300 ft is 299.9994 ftUS, not 299.99940000000004.
            radius: given.map(|l| Measure {
                value: crate::domain::units::for_display(l.to(unit).value),
                unit: unit.symbol(),
            }),
            radius_given: given.map(|l| l.to_string()),
            k,
        },
        facilities,
    })
}

impl Places for NearbyAnswer {
    /// Each facility, nearest first.
    fn places(&self) -> Vec<Place> {
        self.facilities
            .iter()
            .map(|f| Place::feature(f.layer, &f.id, fields(f)))
            .collect()
    }
}
