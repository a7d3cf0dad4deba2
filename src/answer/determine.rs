//! Determinations for a project on a parcel or footprint, the receiving waters of a
//! place, and Condition One on every parcel.

use std::path::PathBuf;

use clap::Args;
use geo_types::MultiPolygon;
use serde::{Deserialize, Serialize};

use super::facts::{disturbed, tri, tri_arg, ProjectFactsParams};
use super::places::{fields, Place, Places};
use super::{flag, place, Ask, AskError};

use crate::domain::Layer;
use crate::rules::determine::{self, Determination, ProjectFacts};
use crate::rules::finding::Evidence;
use crate::rules::profile::{
    DistanceUnit, LandDevelopmentFamily, ListCycle, ReceivingWaterReading, Tolerance,
};
use crate::rules::Finding;
use crate::spatial::screen::{condition_one_each, determination_each, water_evidence};
use crate::spatial::waters::{self, ReceivingWaters, WaterOptions};

/// Where a project is: a parcel, or a drawn footprint. Over HTTP `footprint` is GeoJSON
/// itself (an object, or a string holding one), never a file name.
#[derive(Debug, Clone, Default, Args)]
pub struct PlaceParams {
    /// The parcel.
    #[arg(
        long,
        conflicts_with = "footprint",
        required_unless_present = "footprint"
    )]
    pub parcel: Option<String>,
    /// A footprint: a GeoJSON file with one (Multi)Polygon, in WGS 84 (RFC 7946).
    #[arg(long)]
    pub footprint: Option<PathBuf>,
    /// A footprint given as GeoJSON (HTTP only).
    #[arg(skip)]
    pub footprint_geojson: Option<serde_json::Value>,
}

/// The place as it comes over HTTP: `footprint` is the GeoJSON, so a request can never
/// name a file on the server.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlaceWire {
    /// The parcel's id (or give `footprint`).
    pub parcel: Option<String>,
    /// The footprint: a GeoJSON (Multi)Polygon in WGS 84 (RFC 7946), as an object or a
    /// string holding one (or give `parcel`).
    pub footprint: Option<serde_json::Value>,
}

impl From<PlaceWire> for PlaceParams {
    fn from(w: PlaceWire) -> Self {
        PlaceParams {
            parcel: w.parcel.filter(|p| !p.is_empty()),
            footprint: None,
            footprint_geojson: w.footprint.filter(|f| !f.is_null()),
        }
    }
}

impl<'de> Deserialize<'de> for PlaceParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PlaceWire::deserialize(d).map(Into::into)
    }
}

impl PlaceParams {
    /// The place's polygon in the registry's CRS.
    pub fn footprint(&self, ask: &Ask<'_>) -> Result<MultiPolygon<f64>, AskError> {
        let srid = ask.snap.meta.srid;
        match (&self.parcel, &self.footprint, &self.footprint_geojson) {
            (Some(id), None, None) => place::parcel_polygon(ask.snap, id),
            (None, Some(path), None) => place::footprint_from_file(path, srid, "footprint"),
            (None, None, Some(v)) => place::footprint_from_value(v, srid, "footprint"),
            (None, None, None) => Err(AskError::invalid(
                "parcel/footprint",
                "give a parcel id or a footprint",
            )),
            _ => Err(AskError::invalid(
                "parcel/footprint",
                "give a parcel id or a footprint, not both",
            )),
        }
    }
}

/// `ms4 determine` and `POST /api/determinations` (a JSON body with the same names: the
/// place's `parcel` or `footprint`, and the project's facts, [`ProjectFactsParams`]).
#[derive(Debug, Clone, Args)]
pub struct DetermineParams {
    /// Where the project is.
    #[command(flatten)]
    pub place: PlaceParams,
    /// What the rules read about the project.
    #[command(flatten)]
    pub facts: ProjectFactsParams,
}

impl<'de> Deserialize<'de> for DetermineParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // The place's keys go to the place, every other key to the facts (which refuse
        // a key they do not know, naming it).
        let mut body = serde_json::Map::<String, serde_json::Value>::deserialize(d)?;
        let place = PlaceWire {
            parcel: take(&mut body, "parcel")
                .map_err(|m| D::Error::custom(format!("parcel: {m}")))?,
            footprint: body.remove("footprint"),
        };
        // Through serde_path_to_error, so a bad fact's error names it (`agricultural: 7
        // is not true or false`), as the body's other errors name their field.
        let facts: ProjectFactsParams =
            serde_path_to_error::deserialize(serde_json::Value::Object(body)).map_err(|e| {
                let path = e.path().to_string();
                let inner = e.into_inner();
                if path == "." || path.is_empty() {
                    D::Error::custom(inner)
                } else {
                    D::Error::custom(format!("{path}: {inner}"))
                }
            })?;
        Ok(DetermineParams {
            place: place.into(),
            facts,
        })
    }
}

/// The string under `key`, removed from the body (absent or null: none).
fn take(
    body: &mut serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Result<Option<String>, String> {
    match body.remove(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(format!("expected a string, got {other}")),
    }
}

impl DetermineParams {
    /// Reads a request body (the place's keys and the project's facts), naming the key at
    /// fault by its path as data: `AskError::Invalid { param: "agricultural", .. }`.
    pub fn from_body(
        mut body: serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, AskError> {
        let parcel = take(&mut body, "parcel").map_err(|m| AskError::invalid("parcel", m))?;
        let place = PlaceWire {
            parcel,
            footprint: body.remove("footprint"),
        };
        let facts: ProjectFactsParams =
            serde_path_to_error::deserialize(serde_json::Value::Object(body)).map_err(|e| {
                let path = e.path().to_string();
                let said = e.into_inner().to_string();
                // serde_json names a missing field only in its message, at the object.
                let missing = said
                    .strip_prefix("missing field `")
                    .and_then(|r| r.split_once('`'))
                    .map(|(name, _)| name.to_string());
                match missing {
                    Some(name) => AskError::invalid(name, "is required"),
                    None if path == "." || path.is_empty() => {
                        AskError::BadRequest(format!("body: {said}"))
                    }
                    None => AskError::invalid(path, said),
                }
            })?;
        Ok(DetermineParams {
            place: place.into(),
            facts,
        })
    }

    /// The project's facts, as given.
    pub fn facts(&self) -> Result<ProjectFacts, AskError> {
        self.facts.facts()
    }
}

/// A determination with the receiving waters it rests on.
#[derive(Debug, Clone, Serialize)]
pub struct DetermineAnswer {
    /// The parcel, when the project was placed by parcel.
    pub parcel: Option<String>,
    /// The receiving waters of the place, both ways.
    pub receiving_waters: ReceivingWaters,
    /// Land development activity, exemptions, the Conditions and what follows.
    pub determination: Determination,
}

/// How the profile finds receiving waters: its tolerances, the sliver setting and the
/// downstream bound of AMB-07 (`min_watershed_share`, `min_watershed_overlap_sqft`,
/// `downstream_steps`), and the 303(d) list cycle of AMB-30 (`list_cycle`: a year, or
/// `latest`).
pub fn water_options(ask: &Ask<'_>) -> WaterOptions {
    let p = ask.profile;
    let mut o = WaterOptions::new(
        ask.in_crs(&p.tolerances.receiving_water_tolerance),
        ask.in_crs(&p.tolerances.snap_tolerance),
    );
    let foot = ask.in_crs(&Tolerance {
        value: 1.0,
        unit: DistanceUnit::Ft,
    });
    if let Some(r) = p.table_reading::<ReceivingWaterReading>() {
        o.min_share = r.min_watershed_share;
        o.min_overlap = r.min_watershed_overlap_sqft * foot * foot;
        o.downstream_steps = r.downstream_steps as usize;
    }
    o.list_cycle = match p.list_cycle() {
        Some(ListCycle::Year(year)) => Some(year),
        Some(ListCycle::Latest) | None => None,
    };
    o
}

/// The receiving waters of a footprint, by watershed and through the network, with the
/// profile's options ([`water_options`]).
pub fn waters_for(
    ask: &Ask<'_>,
    fp: &MultiPolygon<f64>,
    parcel: Option<&str>,
) -> Result<ReceivingWaters, AskError> {
    let net = ask.network()?;
    Ok(waters::receiving_waters_with(
        ask.snap,
        Some(net),
        fp,
        parcel,
        &water_options(ask),
    ))
}

/// Is the project a land development activity, is it exempt, do the Conditions apply,
/// and what follows — with the evidence.
pub fn determine(ask: &Ask<'_>, p: &DetermineParams) -> Result<DetermineAnswer, AskError> {
    let facts = p.facts()?;
    let fp = p.place.footprint(ask)?;
    let rw = waters_for(ask, &fp, p.place.parcel.as_deref())?;
    let determination = determine::determine(ask.profile, &facts, &water_evidence(&rw));
    Ok(DetermineAnswer {
        parcel: p.place.parcel.clone(),
        receiving_waters: rw,
        determination,
    })
}

/// `ms4 receiving-waters` and `GET /api/receiving-waters?parcel=ID` (or POST with a
/// footprint).
#[derive(Debug, Clone, Default, Args)]
pub struct ReceivingWatersParams {
    /// The parcel or footprint.
    #[command(flatten)]
    pub place: PlaceParams,
}

impl<'de> Deserialize<'de> for ReceivingWatersParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PlaceParams::deserialize(d).map(|place| ReceivingWatersParams { place })
    }
}

/// The receiving waters of a parcel or footprint: both methods side by side, then the
/// 303(d) listings and TMDL areas.
pub fn receiving_waters(
    ask: &Ask<'_>,
    p: &ReceivingWatersParams,
) -> Result<ReceivingWaters, AskError> {
    let fp = p.place.footprint(ask)?;
    waters_for(ask, &fp, p.place.parcel.as_deref())
}

/// `ms4 screen` and `GET /api/screen`.
#[derive(Debug, Clone, Args, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScreenParams {
    /// The area a typical project would disturb: 1acre, 8000sqft.
    #[arg(long)]
    pub disturbed: String,
    /// The project is part of a larger common plan of development or sale;
    /// `--larger-common-plan false` to say it is not. Not given, a project under 5,000 sq ft
    /// may or may not be a land development activity, and where Condition One would be
    /// met it is undetermined.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub larger_common_plan: Option<bool>,
    /// List every parcel, not only those where Condition One is met.
    #[arg(long)]
    #[serde(default, deserialize_with = "flag")]
    pub all: bool,
    /// Give each parcel listed the whole determination (every finding and requirement),
    /// not Condition One alone. Its waters are found by watershed overlap, as the
    /// screen's Condition One; `determine --parcel` also traces the parcel's connections.
    #[arg(long)]
    #[serde(default, deserialize_with = "flag")]
    pub whole: bool,
}

/// Condition One on one parcel.
#[derive(Debug, Clone, Serialize)]
pub struct ScreenResult {
    /// The parcel.
    pub parcel_id: String,
    /// Condition One (its result `null` when undetermined), or `null` where the parcel
    /// has no polygon.
    pub condition_one: Option<Finding<Option<bool>>>,
    /// The whole determination at the parcel (asked with `whole`; `null` where the parcel
    /// has no polygon), whose Condition One is the one above.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub determination: Option<Determination>,
}

/// Condition One for a project on every parcel.
#[derive(Debug, Clone, Serialize)]
pub struct ScreenAnswer {
    /// Parcels screened.
    pub parcels: usize,
    /// Parcels where Condition One is met.
    pub met: usize,
    /// Parcels where Condition One is undetermined (listed with `all`).
    pub undetermined: usize,
    /// The parcels meeting it (or every parcel).
    pub results: Vec<ScreenResult>,
}

/// Condition One for a project of this size on every parcel, by watershed overlap, with
/// the whole determination when asked (`whole`).
pub fn screen(ask: &Ask<'_>, p: &ScreenParams) -> Result<ScreenAnswer, AskError> {
    let mut facts = ProjectFacts::new(disturbed(&p.disturbed)?);
    facts.larger_common_plan = p.larger_common_plan;
    let family = ask.profile.family.land_development;
    if family != LandDevelopmentFamily::NyConditions
        && !ask.snap.layer(Layer::Parcels).features.is_empty()
    {
        return Err(AskError::BadRequest(format!(
            "{} has no Condition One: screening applies only to a law with Conditions One, Two \
             and Three (land development family {})",
            ask.profile.name,
            LandDevelopmentFamily::NyConditions.as_str()
        )));
    }
    let options = water_options(ask);
    let mut answer = ScreenAnswer {
        parcels: 0,
        met: 0,
        undetermined: 0,
        results: Vec::new(),
    };
    if p.whole {
        determination_each(ask.snap, ask.profile, &facts, &options, |parcel, d| {
            let one = d
                .as_ref()
                .and_then(|d| d.conditions.as_ref())
                .map(|c| c.condition_one.clone());
            answer.count(parcel, one, d, p.all);
        });
    } else {
        condition_one_each(ask.snap, ask.profile, &facts, &options, |parcel, one| {
            answer.count(parcel, one, None, p.all);
        });
    }
    Ok(answer)
}

impl ScreenAnswer {
    /// Counts a parcel's Condition One, and lists the parcel when it is met (or `all`).
    fn count(
        &mut self,
        parcel: &crate::domain::Feature,
        one: Option<Finding<Option<bool>>>,
        determination: Option<Determination>,
        all: bool,
    ) {
        self.parcels += 1;
        let result = one.as_ref().map(|f| f.result);
        self.met += usize::from(result == Some(Some(true)));
        self.undetermined += usize::from(result == Some(None));
        if all || result == Some(Some(true)) {
            self.results.push(ScreenResult {
                parcel_id: parcel.id.clone(),
                condition_one: one,
                determination,
            });
        }
    }
}

impl Places for ReceivingWaters {
    /// The evidence: each watershed overlapped, each outfall a trace reached, each
    /// 303(d)-listed water and each TMDL area.
    fn places(&self) -> Vec<Place> {
        let mut out = Vec::new();
        for w in &self.by_watershed {
            out.push(Place::feature(
                Layer::Watersheds,
                &w.watershed_id,
                fields(w),
            ));
        }
        for n in &self.by_network {
            out.push(Place::feature(Layer::Outfalls, &n.outfall, fields(n)));
        }
        for l in &self.listed {
            out.push(Place::feature(
                Layer::ReceivingWaters,
                &l.water_id,
                fields(l),
            ));
        }
        for t in &self.tmdl_areas {
            out.push(Place::feature(Layer::TmdlAreas, &t.tmdl_id, fields(t)));
        }
        out
    }
}

impl Places for DetermineAnswer {
    /// The parcel (when the project was placed by one), the receiving waters' evidence,
    /// then each feature a finding cites as evidence that is not already among them.
    fn places(&self) -> Vec<Place> {
        let mut out = Vec::new();
        if let Some(id) = &self.parcel {
            let props = serde_json::Map::from_iter([("parcel_id".to_string(), id.as_str().into())]);
            out.push(Place::feature(Layer::Parcels, id, props));
        }
        out.extend(self.receiving_waters.places());
        for e in findings_evidence(&self.determination) {
            let Evidence::Feature { layer, id, .. } = e else {
                continue;
            };
            let Ok(layer) = layer.parse::<Layer>() else {
                continue;
            };
            let placed = out
                .iter()
                .any(|p| p.layer == Some(layer) && p.id.as_deref() == Some(id.as_str()));
            if !placed {
                out.push(Place::feature(layer, id, fields(e)));
            }
        }
        out
    }
}

/// The evidence of every finding of a determination, in answer order.
fn findings_evidence(d: &Determination) -> Vec<&Evidence> {
    let mut all: Vec<&[Evidence]> = vec![&d.land_development_activity.evidence, &d.exempt.evidence];
    if let Some(c) = &d.conditions {
        all.push(&c.condition_one.evidence);
        all.push(&c.condition_two.evidence);
        all.push(&c.condition_three.evidence);
    }
    if let Some(f) = &d.conditions_absent {
        all.push(&f.evidence);
    }
    for r in d.requirements.iter() {
        all.push(&r.evidence);
    }
    all.into_iter().flatten().collect()
}

impl Places for ScreenAnswer {
    /// Each parcel listed, with its Condition One.
    fn places(&self) -> Vec<Place> {
        self.results
            .iter()
            .map(|r| Place::feature(Layer::Parcels, &r.parcel_id, fields(r)))
            .collect()
    }
}
