//! What the permit's first mapping phase asks of the map: the monitoring locations with
//! their priorities, a preliminary storm sewershed for each, and how much is mapped.
//!
//! Each priority is the profile's reading (`[monitoring]`, or the default reading with
//! its stated source, see [`crate::rules::monitoring`]): the answers say so, never that
//! the permit's words decide it.

use std::cell::OnceCell;
use std::sync::Arc;

use clap::Args;
use geo_types::MultiPolygon;
use serde::{Deserialize, Serialize};

use super::places::{fields, Place, Places, Shape};
use super::{comma_list, flag, Ask, AskError, Measure};
use crate::domain::units::for_display;
use crate::rules::monitoring::{Priority, PriorityRule};
use crate::rules::quantity::parse_length;
use crate::spatial::completeness::{mapping_status as status_of, MappingStatus, StatusOptions};
use crate::spatial::monitoring::{
    monitoring_locations as find, Found, LocationKind, MonitoringLocation, MonitoringOptions,
};
use crate::spatial::network::Trace;
use crate::spatial::sewershed::{Sewershed, SewershedOptions, Sewersheds, METHOD, NESTED_FROM};

/// The reach of a parcel to its nearest inlet when it has none and no connection.
pub const DEFAULT_REACH: &str = "300ft";

/// How many ids each figure of `mapping-status` lists by default.
pub const DEFAULT_CAP: usize = 25;

/// `ms4 monitoring-locations` and `GET /api/monitoring-locations`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MonitoringLocationsParams {
    /// Only these priorities: high, medium, low (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub priority: Vec<String>,
    /// Only these kinds: outfall, interconnection (comma-separated; default: both).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub kind: Vec<String>,
}

/// Counts over every location, whatever was asked to be shown.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LocationSummary {
    /// Every location.
    pub locations: usize,
    /// Outfalls.
    pub outfalls: usize,
    /// Interconnections.
    pub interconnections: usize,
    /// High priority.
    pub high: usize,
    /// Medium priority.
    pub medium: usize,
    /// Low priority.
    pub low: usize,
}

/// The monitoring locations with their priorities.
#[derive(Debug, Clone, Serialize)]
pub struct MonitoringLocationsAnswer {
    /// The jurisdiction.
    pub jurisdiction: String,
    /// The rule applied, with its source: the profile's reading.
    pub rule: PriorityRule,
    /// Counts over every location.
    pub summary: LocationSummary,
    /// The locations asked for, outfalls then interconnections, each by id.
    pub locations: Vec<MonitoringLocation>,
}

fn wanted<T: Copy>(
    given: &[String],
    param: &'static str,
    all: &[(&str, T)],
) -> Result<Vec<T>, AskError> {
    if given.is_empty() {
        return Ok(all.iter().map(|(_, v)| *v).collect());
    }
    given
        .iter()
        .map(|g| {
            all.iter()
                .find(|(w, _)| *w == g.trim())
                .map(|(_, v)| *v)
                .ok_or_else(|| {
                    let words: Vec<&str> = all.iter().map(|(w, _)| *w).collect();
                    AskError::invalid(
                        param,
                        format!("unknown {param} {g:?}; expected {}", words.join(", ")),
                    )
                })
        })
        .collect()
}

const PRIORITIES: [(&str, Priority); 3] = [
    ("high", Priority::High),
    ("medium", Priority::Medium),
    ("low", Priority::Low),
];
const KINDS: [(&str, LocationKind); 2] = [
    ("outfall", LocationKind::Outfall),
    ("interconnection", LocationKind::Interconnection),
];

impl MonitoringLocationsParams {
    /// Refuses an unknown priority or kind before any work.
    pub fn check(&self) -> Result<(), AskError> {
        wanted(&self.priority, "priority", &PRIORITIES)?;
        wanted(&self.kind, "kind", &KINDS)?;
        Ok(())
    }
}

/// What the mapping answers work out of one moment, kept for the others asked of it:
/// `ms4 mapping-package` asks all three, and the map's layers both.
#[derive(Default)]
pub(crate) struct Kept {
    found: OnceCell<Arc<Found>>,
    sewersheds: OnceCell<Arc<BuiltSewersheds>>,
}

/// Every location's sewershed at the default reach.
pub(crate) struct BuiltSewersheds {
    /// In the order of [`found`]'s locations; none where the network does not know one.
    pub by_location: Vec<Option<Arc<Sewershed>>>,
    /// The town's boundary they are clipped to, when the registry has one.
    pub town: Option<MultiPolygon<f64>>,
}

/// Every monitoring location of the registry, with the profile's options (the tiles
/// draw them too); found once per question.
pub(crate) fn found(ask: &Ask<'_>) -> Result<Arc<Found>, AskError> {
    if let Some(f) = ask.kept.found.get() {
        return Ok(f.clone());
    }
    let net = ask.network()?;
    let list_cycle = match ask.profile.list_cycle() {
        Some(crate::rules::profile::ListCycle::Year(y)) => Some(y),
        _ => None,
    };
    let f = Arc::new(find(
        ask.snap,
        net,
        &MonitoringOptions {
            profile: ask.profile,
            water_tolerance: ask.in_crs(&ask.profile.tolerances.receiving_water_tolerance),
            snap_tolerance: ask.in_crs(&ask.profile.tolerances.snap_tolerance),
            list_cycle,
        },
    ));
    Ok(ask.kept.found.get_or_init(|| f).clone())
}

/// Every location's sewershed at the answer's default reach, built once per question.
pub(crate) fn default_sewersheds(ask: &Ask<'_>) -> Result<Arc<BuiltSewersheds>, AskError> {
    if let Some(s) = ask.kept.sewersheds.get() {
        return Ok(s.clone());
    }
    let f = found(ask)?;
    let builder = sewershed_builder(ask)?;
    let traced: Vec<(usize, &str, &Trace)> = f
        .locations
        .iter()
        .zip(&f.upstream)
        .enumerate()
        .filter_map(|(i, (l, t))| Some((i, l.id.as_str(), t.as_ref()?)))
        .collect();
    let built = builder.of_each(traced.iter().map(|(_, id, t)| (*id, *t)));
    let mut by_location: Vec<Option<Arc<Sewershed>>> = vec![None; f.locations.len()];
    for ((i, _, _), s) in traced.iter().zip(built) {
        by_location[*i] = Some(s);
    }
    let s = Arc::new(BuiltSewersheds {
        by_location,
        town: builder.town().cloned(),
    });
    Ok(ask.kept.sewersheds.get_or_init(|| s).clone())
}

/// The monitoring locations and their priorities.
pub fn monitoring_locations(
    ask: &Ask<'_>,
    p: &MonitoringLocationsParams,
) -> Result<MonitoringLocationsAnswer, AskError> {
    let priorities = wanted(&p.priority, "priority", &PRIORITIES)?;
    let kinds = wanted(&p.kind, "kind", &KINDS)?;
    let f = found(ask)?;
    let mut summary = LocationSummary::default();
    for l in &f.locations {
        summary.locations += 1;
        match l.kind {
            LocationKind::Outfall => summary.outfalls += 1,
            LocationKind::Interconnection => summary.interconnections += 1,
        }
        match l.priority {
            Priority::High => summary.high += 1,
            Priority::Medium => summary.medium += 1,
            Priority::Low => summary.low += 1,
        }
    }
    // Copied on every core: the county's 70,000 locations carry their reasons and waters.
    use rayon::prelude::*;
    let locations = f
        .locations
        .par_iter()
        .filter(|l| priorities.contains(&l.priority) && kinds.contains(&l.kind))
        .cloned()
        .collect();
    Ok(MonitoringLocationsAnswer {
        jurisdiction: ask.profile.id.clone(),
        rule: f.rule.clone(),
        summary,
        locations,
    })
}

impl Places for MonitoringLocationsAnswer {
    /// Each location, drawn from its outfall, structure or pipe.
    fn places(&self) -> Vec<Place> {
        self.locations
            .iter()
            .map(|l| Place::feature(l.layer, &l.id, fields(l)))
            .collect()
    }
}

/// `ms4 sewersheds` and `GET /api/sewersheds`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SewershedsParams {
    /// Only these monitoring locations (ids, comma-separated; default: every one).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub location: Vec<String>,
    /// How far a parcel with no inlet and no connection may lie from its nearest inlet,
    /// with its unit (default 300ft).
    #[arg(long)]
    pub reach: Option<String>,
}

impl SewershedsParams {
    /// The reach in the registry's unit, refused when it is no length.
    fn reach(&self, ask: &Ask<'_>) -> Result<f64, AskError> {
        let given = self.reach.as_deref().unwrap_or(DEFAULT_REACH);
        let l = parse_length(given).map_err(|e| AskError::invalid("reach", e.to_string()))?;
        Ok(l.to(ask.snap.meta.linear_unit).value)
    }
}

/// One sewershed with its location's kind and priority.
#[derive(Debug, Clone, Serialize)]
pub struct LocationSewershed {
    /// The location's kind.
    pub kind: LocationKind,
    /// Its priority.
    pub priority: Priority,
    /// The sewershed (shared with the other answers asked of the same moment: the
    /// county's are ten million vertices, not copied for each).
    #[serde(flatten)]
    pub sewershed: Arc<Sewershed>,
}

/// Every location's preliminary sewershed, with the method.
#[derive(Debug, Clone, Serialize)]
pub struct SewershedsAnswer {
    /// How they were built.
    pub method: &'static str,
    /// The buffer round the traced network (the snap tolerance).
    pub buffer: Measure,
    /// The reach of a parcel to its nearest inlet.
    pub reach: Measure,
    /// The unit of every area (the square of the registry's unit).
    pub area_unit: &'static str,
    /// Whether they are clipped to a town boundary (false: the registry has none).
    pub clipped_to_town: bool,
    /// The sewersheds, one per location asked for.
    pub sewersheds: Vec<LocationSewershed>,
}

fn options(ask: &Ask<'_>, reach: f64) -> SewershedOptions {
    SewershedOptions {
        buffer: ask.in_crs(&ask.profile.tolerances.snap_tolerance),
        reach,
        snap_tolerance: ask.in_crs(&ask.profile.tolerances.snap_tolerance),
        nested_from: NESTED_FROM,
    }
}

/// The sewersheds' builder with the answer's default reach.
fn sewershed_builder<'a>(ask: &'a Ask<'_>) -> Result<Sewersheds<'a>, AskError> {
    let reach = SewershedsParams::default().reach(ask)?;
    Ok(Sewersheds::new(
        ask.snap,
        ask.profile,
        ask.network()?,
        options(ask, reach),
    ))
}

/// The preliminary sewershed of every location asked for.
pub fn sewersheds(ask: &Ask<'_>, p: &SewershedsParams) -> Result<SewershedsAnswer, AskError> {
    let reach = p.reach(ask)?;
    let f = found(ask)?;
    if let Some(missing) = p
        .location
        .iter()
        .find(|id| !f.locations.iter().any(|l| &l.id == *id))
    {
        return Err(AskError::NotFound(format!(
            "{missing:?} is not a monitoring location (an outfall or an interconnection)"
        )));
    }
    let opt = options(ask, reach);
    let wanted = |l: &MonitoringLocation| p.location.is_empty() || p.location.contains(&l.id);
    // Every sewershed is built (and kept for the other answers) when all are asked at the
    // default reach; a few asked are built alone, unless all are kept already.
    let kept = reach == SewershedsParams::default().reach(ask)?
        && (p.location.is_empty() || ask.kept.sewersheds.get().is_some());
    let (built, clipped_to_town): (Vec<(usize, Arc<Sewershed>)>, bool) = if kept {
        let all = default_sewersheds(ask)?;
        let built = all
            .by_location
            .iter()
            .enumerate()
            .filter(|(i, _)| wanted(&f.locations[*i]))
            .filter_map(|(i, s)| Some((i, s.clone()?)))
            .collect();
        (built, all.town.is_some())
    } else {
        let builder = Sewersheds::new(ask.snap, ask.profile, ask.network()?, opt);
        let asked: Vec<(usize, &str, &Trace)> = f
            .locations
            .iter()
            .zip(&f.upstream)
            .enumerate()
            .filter(|(_, (l, _))| wanted(l))
            .filter_map(|(i, (l, t))| Some((i, l.id.as_str(), t.as_ref()?)))
            .collect();
        let sheds = builder.of_each(asked.iter().map(|(_, id, t)| (*id, *t)));
        let built = asked.iter().map(|(i, _, _)| *i).zip(sheds).collect();
        (built, builder.town().is_some())
    };
    let out = built
        .into_iter()
        .map(|(i, sewershed)| LocationSewershed {
            kind: f.locations[i].kind,
            priority: f.locations[i].priority,
            sewershed,
        })
        .collect();
    let unit = ask.snap.meta.linear_unit.symbol();
    Ok(SewershedsAnswer {
        method: METHOD,
        buffer: Measure {
            value: for_display(opt.buffer),
            unit,
        },
        reach: Measure {
            value: for_display(reach),
            unit,
        },
        area_unit: ask.snap.meta.linear_unit.squared().symbol(),
        clipped_to_town,
        sewersheds: out,
    })
}

impl Places for SewershedsAnswer {
    /// Each sewershed as its polygon.
    fn places(&self) -> Vec<Place> {
        self.sewersheds
            .iter()
            .map(|s| Place {
                id: Some(s.sewershed.location_id.clone()),
                layer: None,
                shape: Shape::Area(s.sewershed.polygon().clone()),
                properties: fields(s),
            })
            .collect()
    }
}

/// `ms4 mapping-status` and `GET /api/mapping-status`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct MappingStatusParams {
    /// How many ids each figure lists on each side (default 25).
    #[arg(long)]
    #[schemars(range(min = 0, max = 100_000))]
    pub ids: Option<usize>,
    /// Leave the sewershed coverage out (it builds every sewershed).
    #[arg(long)]
    #[serde(deserialize_with = "flag")]
    pub without_sewersheds: bool,
}

/// How much is mapped, with the features behind each figure.
#[derive(Debug, Clone, Serialize)]
pub struct MappingStatusAnswer {
    /// The jurisdiction.
    pub jurisdiction: String,
    /// How the sewersheds behind the coverage were built (none: left out).
    pub sewershed_method: Option<&'static str>,
    /// The figures, for the town and by watershed.
    #[serde(flatten)]
    pub status: MappingStatus,
}

/// How much is mapped.
pub fn mapping_status(
    ask: &Ask<'_>,
    p: &MappingStatusParams,
) -> Result<MappingStatusAnswer, AskError> {
    let net = ask.network()?;
    let cap = p.ids.unwrap_or(DEFAULT_CAP);
    let joined = net.joined();
    let water_tolerance = ask.in_crs(&ask.profile.tolerances.receiving_water_tolerance);
    let kept = if p.without_sewersheds {
        None
    } else {
        Some((found(ask)?, default_sewersheds(ask)?))
    };
    // Each outfall's sewershed as its parts: a nested one's whole is not made for this.
    let polygons: Option<Vec<(&str, &MultiPolygon<f64>)>> = kept.as_ref().map(|(f, all)| {
        f.locations
            .iter()
            .zip(&all.by_location)
            .filter(|(l, _)| l.kind == LocationKind::Outfall)
            .filter_map(|(l, s)| Some((l.id.as_str(), s.as_ref()?)))
            .flat_map(|(id, s)| s.parts().into_iter().map(move |p| (id, p)))
            .collect()
    });
    let town = kept.as_ref().and_then(|(_, all)| all.town.as_ref());
    let status = status_of(
        ask.snap,
        net,
        &joined,
        &StatusOptions {
            water_tolerance,
            cap,
            sewersheds: polygons.as_deref(),
            town,
        },
    );
    Ok(MappingStatusAnswer {
        jurisdiction: ask.profile.id.clone(),
        sewershed_method: (!p.without_sewersheds).then_some(METHOD),
        status,
    })
}

impl Places for MappingStatusAnswer {
    /// The figures name features by the hundred: the answer is drawn as no places.
    fn places(&self) -> Vec<Place> {
        Vec::new()
    }
}
