//! The mapping phase's answers as tile layers: the monitoring locations at their points
//! and their preliminary sewersheds, with the properties the page shows when one is
//! clicked.
//!
//! They are not registry layers: a location's priority and a sewershed's outline depend
//! on the whole snapshot (the waters, the network, the parcels, the cases) and on the
//! profile's rule. So they are derived once per generation — on the first tile of a new
//! snapshot or profile, or by the background warm-up after a write — exactly as
//! `/api/monitoring-locations` and `/api/sewersheds` answer them, and kept with their own
//! Web Mercator copies until the generation changes. They are tiles of their own
//! (`/tiles/{layer}/...`), not part of the registry's tile: on a county the derivation
//! takes seconds, and the registry's tile of the next write would wait for it.
//!
//! A sewershed built from the one upstream it holds whole is drawn as its own part: the
//! interconnections along a trunk line each drain every one above them, and drawn whole
//! they would be a hundred copies of the trunk's outline on each other (a county's tile
//! of a megabyte, seconds to render). Its properties are the whole sewershed's (its area
//! too), with the location whose sewershed it holds.

use std::sync::Arc;

use super::mercator::MercatorLayer;
use super::props::Prop;
use super::spec::{MappingLayer, TileLayer};
use super::RenderError;
use crate::answer::mapping::{default_sewersheds, found};
use crate::answer::Ask;
use crate::rules::monitoring::Criterion;
use crate::rules::Profile;
use crate::spatial::monitoring::{location_point, LocationKind, MonitoringLocation};
use crate::spatial::network::Network;
use crate::spatial::sewershed::{Sewershed, METHOD};
use crate::spatial::Snapshot;

/// A property value made for a tile feature.
#[derive(Debug, Clone, PartialEq)]
pub enum Made {
    /// Text.
    Str(String),
    /// A number.
    Num(f64),
    /// True or false.
    Bool(bool),
}

impl Made {
    fn prop(&self) -> Prop<'_> {
        match self {
            Made::Str(s) => Prop::Str(s),
            Made::Num(x) => Prop::Real(*x),
            Made::Bool(b) => Prop::Bool(*b),
        }
    }
}

/// One answer drawn as a tile layer: each feature's values in the order of the layer's
/// fields, and the features' geometries in Web Mercator.
pub struct MadeLayer {
    /// Per feature, one value (or none) per field of the tile layer.
    pub values: Vec<Vec<Option<Made>>>,
    /// The geometries, each with its feature's position in `values`.
    pub merc: MercatorLayer,
}

impl MadeLayer {
    /// Field `k` of the feature at `pos`.
    pub fn value(&self, pos: usize, k: usize) -> Option<Prop<'_>> {
        self.values.get(pos)?.get(k)?.as_ref().map(Made::prop)
    }
}

/// A feature's values, one per field, with its geometry.
type Row<G> = (Vec<Option<Made>>, G);

/// Both answers of a generation.
pub struct MappingTiles {
    /// The monitoring locations.
    pub locations: MadeLayer,
    /// Their sewersheds.
    pub sewersheds: MadeLayer,
}

impl MappingTiles {
    /// Finds every monitoring location and builds its sewershed, as the answers do (the
    /// sewersheds with the answer's default reach).
    pub fn of(
        snap: &Snapshot,
        profile: &Profile,
        network: &dyn Fn() -> anyhow::Result<Arc<Network>>,
    ) -> Result<Self, RenderError> {
        let ask = Ask::new(snap, profile).with_network(network);
        let f = found(&ask).map_err(RenderError::Findings)?;
        let built = default_sewersheds(&ask).map_err(RenderError::Findings)?;
        let area_unit = snap.meta.linear_unit.squared().symbol();
        let mut sheds: Vec<Row<geo_types::Geometry<f64>>> = Vec::new();
        for (l, s) in f.locations.iter().zip(&built.by_location) {
            let Some(s) = s.as_ref().filter(|s| !s.is_empty()) else {
                continue;
            };
            let values = fields(MappingLayer::Sewersheds)
                .iter()
                .map(|name| sewershed_value(l, s, area_unit, name))
                .collect();
            // One built from another's is drawn as its own part (the rest is drawn as
            // that one), so nested sewersheds tile the trunk's rather than stack on it.
            let drawn = s.own_part().unwrap_or_else(|| s.polygon()).clone();
            sheds.push((values, geo_types::Geometry::MultiPolygon(drawn)));
        }
        let srid = snap.meta.srid;
        let locations: Vec<Row<Option<geo_types::Point<f64>>>> = f
            .locations
            .iter()
            .map(|l| {
                let values = fields(MappingLayer::MonitoringLocations)
                    .iter()
                    .map(|name| location_value(l, name))
                    .collect();
                (values, location_point(snap, l))
            })
            .collect();
        let merc = MercatorLayer::from_geometries(
            locations
                .iter()
                .enumerate()
                .filter_map(|(i, (_, p))| Some((i, geo_types::Geometry::Point((*p)?)))),
            srid,
        )?;
        let locations = MadeLayer {
            values: locations.into_iter().map(|(v, _)| v).collect(),
            merc,
        };
        let (values, geoms): (Vec<_>, Vec<_>) = sheds.into_iter().unzip();
        let sewersheds = MadeLayer {
            values,
            merc: MercatorLayer::from_geometries(geoms.into_iter().enumerate(), srid)?,
        };
        Ok(MappingTiles {
            locations,
            sewersheds,
        })
    }

    /// The answer drawn as `layer`.
    pub fn layer(&self, layer: MappingLayer) -> &MadeLayer {
        match layer {
            MappingLayer::MonitoringLocations => &self.locations,
            MappingLayer::Sewersheds => &self.sewersheds,
        }
    }
}

/// The names of the fields of the tile layer drawing `layer`.
fn fields(layer: MappingLayer) -> Vec<&'static str> {
    TileLayer::by_name(layer.name())
        .map(|t| t.fields.iter().map(|f| f.name).collect())
        .unwrap_or_default()
}

fn kind_word(k: LocationKind) -> &'static str {
    match k {
        LocationKind::Outfall => "outfall",
        LocationKind::Interconnection => "interconnection",
    }
}

/// Texts joined, or none when there are none.
fn joined(items: impl Iterator<Item = String>) -> Option<Made> {
    let v: Vec<String> = items.collect();
    (!v.is_empty()).then(|| Made::Str(v.join(", ")))
}

/// The reasons' short form: the criteria met, highest first.
pub fn reasons_short(l: &MonitoringLocation) -> String {
    l.reasons
        .iter()
        .map(|r| r.criterion.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn location_value(l: &MonitoringLocation, name: &str) -> Option<Made> {
    let s = |v: &str| Some(Made::Str(v.to_string()));
    match name {
        "id" => s(&l.id),
        "kind" => s(kind_word(l.kind)),
        "priority" => s(l.priority.as_str()),
        "reasons" => (!l.reasons.is_empty()).then(|| Made::Str(reasons_short(l))),
        "receiving_water" => joined(
            l.waters
                .iter()
                .map(|w| w.name.clone().unwrap_or_else(|| w.water_id.clone())),
        ),
        "class" => joined(l.waters.iter().filter_map(|w| w.classification.clone())),
        "impaired" => Some(Made::Bool(l.waters.iter().any(|w| w.impaired))),
        "tmdl" => Some(Made::Bool(
            l.waters.iter().any(|w| !w.tmdls.is_empty())
                || l.reasons
                    .iter()
                    .any(|r| r.criterion == Criterion::TmdlWater),
        )),
        "watershed_id" => l.watershed_id.clone().map(Made::Str),
        "other_owner" => l.other_owner.clone().map(Made::Str),
        _ => None,
    }
}

fn sewershed_value(
    l: &MonitoringLocation,
    s: &Sewershed,
    area_unit: &str,
    name: &str,
) -> Option<Made> {
    let q = &s.quality;
    let count = |v: &Vec<String>| Some(Made::Num(v.len() as f64));
    match name {
        "id" => Some(Made::Str(s.location_id.clone())),
        "kind" => Some(Made::Str(kind_word(l.kind).into())),
        "priority" => Some(Made::Str(l.priority.as_str().into())),
        "method" => Some(Made::Str(METHOD.into())),
        "holds_sewershed_of" => s.holds_sewershed_of.clone().map(Made::Str),
        "area" => Some(Made::Num(crate::domain::units::for_display(s.area))),
        "area_unit" => Some(Made::Str(area_unit.into())),
        "commercial_industrial_share" => s.commercial_industrial_share.map(Made::Num),
        "quality" => {
            let doubtful = !(q.inlets_without_trace.is_empty()
                && q.dangling_ends.is_empty()
                && q.parcels_split.is_empty());
            Some(Made::Str(
                if doubtful { "doubtful" } else { "complete" }.into(),
            ))
        }
        "inlets_without_trace" => count(&q.inlets_without_trace),
        "dangling_ends" => count(&q.dangling_ends),
        "parcels_split" => count(&q.parcels_split),
        _ => None,
    }
}
