//! The facilities inside a watershed (or a drawn polygon), ranked for an inspection
//! program.

use std::path::PathBuf;

use clap::Args;
use serde::{Deserialize, Serialize};

use super::place;
use super::places::{fields, Place, Places};
use super::schedule::Schedule;
use super::{comma_list, nearby::facility_layers, Ask, AskError, Measure};
use crate::domain::Layer;
use crate::rules::quantity::parse_length;
use crate::spatial::watershed_facilities::{rank_facilities, RankOptions, WatershedFacilities};

/// `ms4 watershed-facilities` and `GET /api/watersheds/{id}/facilities`.
#[derive(Debug, Clone, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WatershedFacilitiesParams {
    /// The watershed (over HTTP, the path's `{id}`).
    #[serde(skip)]
    pub watershed_id: Option<String>,
    /// A polygon to use instead of a watershed: GeoJSON, WGS 84 (command line only; over
    /// HTTP, POST the polygon as the body).
    #[arg(long)]
    #[serde(skip)]
    pub polygon: Option<PathBuf>,
    /// Which facilities: catch_basin, manhole, outfall, smp (comma-separated).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub kinds: Vec<String>,
    /// Facilities this near a commercial or industrial parcel are hot spots.
    #[arg(long, default_value = DEFAULT_HOT_SPOT_DISTANCE)]
    pub hot_spot_distance: String,
    /// Days after which an inspection is overdue, for every facility alike (default: the
    /// profile's inspection schedule, `ms4 inspections due`).
    #[arg(long)]
    #[schemars(range(min = 0))]
    pub overdue_after_days: Option<i64>,
}

const DEFAULT_HOT_SPOT_DISTANCE: &str = "100ft";

impl Default for WatershedFacilitiesParams {
    fn default() -> Self {
        WatershedFacilitiesParams {
            watershed_id: None,
            polygon: None,
            kinds: Vec::new(),
            hot_spot_distance: DEFAULT_HOT_SPOT_DISTANCE.into(),
            overdue_after_days: None,
        }
    }
}

/// The program settings an inspection list was ranked with.
#[derive(Debug, Clone, Serialize)]
pub struct RankAssumptions {
    /// Facilities this near a commercial or industrial parcel are hot spots.
    pub hot_spot_distance: Measure,
    /// Days after which an inspection is overdue, when asked for every facility alike.
    pub overdue_after_days: Option<i64>,
    /// Otherwise: the profile's inspection schedule, as `ms4 inspections due` reads it.
    pub schedule: &'static str,
    /// That these are settings, not law.
    pub note: &'static str,
}

/// The ranked list and what it was ranked with.
#[derive(Debug, Clone, Serialize)]
pub struct WatershedFacilitiesAnswer {
    /// The facilities, ranked, with the watershed's 303(d) and TMDL status.
    pub list: WatershedFacilities,
    /// The settings used.
    pub assumptions: RankAssumptions,
}

/// The facilities inside the watershed or polygon, ranked: in a stormwater TMDL area
/// first, then hot spots, then never inspected or overdue. `polygon` is a drawn area
/// already in the registry's CRS; it takes the place of the watershed's own polygon.
pub fn watershed_facilities(
    ask: &Ask<'_>,
    p: &WatershedFacilitiesParams,
    polygon: Option<geo_types::MultiPolygon<f64>>,
) -> Result<WatershedFacilitiesAnswer, AskError> {
    let snap = ask.snap;
    let area = match (polygon, &p.polygon, &p.watershed_id) {
        (Some(area), _, _) => area,
        (None, Some(path), _) => place::footprint_from_file(path, snap.meta.srid, "polygon")?,
        (None, None, Some(id)) => place::watershed_polygon(snap, id)?,
        (None, None, None) => {
            return Err(AskError::invalid(
                "watershed_id",
                "give a watershed id or a polygon",
            ))
        }
    };
    let layers = facility_layers(&p.kinds)?;
    let unit = snap.meta.linear_unit;
    let given = parse_length(&p.hot_spot_distance)
        .map_err(|e| AskError::invalid("hot_spot_distance", e.to_string()))?;
    let hot_spot_distance = given.to(unit).value;
    let flat = match p.overdue_after_days {
        Some(d) => Some(u32::try_from(d).map_err(|_| {
            AskError::invalid(
                "overdue_after_days",
                format!("must be 0 to {}, got {d}", u32::MAX),
            )
        })?),
        None => None,
    };
    let opts = RankOptions {
        hot_spot_distance,
        // The day the map's tiles judge "overdue" on.
        today: chrono::Local::now().date_naive(),
    };
    let mut schedule = Schedule::of(ask)?;
    if let Some(d) = flat {
        schedule = schedule.flat(d);
    }
    let due = |layer: Layer, f: &crate::domain::Feature| {
        let items = schedule.items(layer, f, opts.today, 0);
        let why: Vec<String> = items
            .into_iter()
            .filter(|i| i.standing.is_overdue())
            .map(|i| i.reason)
            .collect();
        (!why.is_empty()).then(|| why.join("; "))
    };
    let list = rank_facilities(
        snap,
        ask.profile,
        &area,
        p.watershed_id.as_deref(),
        &layers,
        &opts,
        &due,
    );
    Ok(WatershedFacilitiesAnswer {
        list,
        assumptions: RankAssumptions {
            // In the CRS's unit, without conversion noise (200 ft is 199.9996 ftUS).
            hot_spot_distance: Measure {
                value: crate::domain::units::for_display(hot_spot_distance),
                unit: unit.symbol(),
            },
            overdue_after_days: p.overdue_after_days,
            schedule: "each facility's interval by the profile's [schedules] (the default's reading, every 365 days, where it has no item), unless overdue_after_days is given",
            note: "hot-spot distance and inspection interval are program settings, not law",
        },
    })
}

impl Places for WatershedFacilitiesAnswer {
    /// The watershed the list names (none for a polygon drawn on the command line) with
    /// its 303(d) and TMDL status, then each facility, ranked.
    fn places(&self) -> Vec<Place> {
        let list = &self.list;
        let mut out = Vec::with_capacity(list.facilities.len() + 1);
        if let Some(id) = &list.watershed_id {
            let mut props = fields(list);
            props.remove("facilities");
            out.push(Place::feature(Layer::Watersheds, id, props));
        }
        out.extend(
            list.facilities
                .iter()
                .map(|f| Place::feature(f.layer, &f.id, fields(f))),
        );
        out
    }
}
