//! Determinations for a project on a parcel or footprint, the receiving waters of a
//! place, and Condition One on every parcel.

use std::path::PathBuf;

use clap::Args;
use geo_types::MultiPolygon;
use serde::{Deserialize, Serialize};

use super::{flag, place, Ask, AskError};
use chrono::NaiveDate;
use serde::Deserializer;

use crate::rules::determine::{self, Determination, GpDeterminations, ProjectFacts};
use crate::rules::profile::{DistanceUnit, ListCycle, ReceivingWaterReading, Tolerance};
use crate::rules::quantity::parse_area;
use crate::rules::Finding;
use crate::spatial::screen::{condition_one_each, water_evidence};
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

// The place as it comes over HTTP: `footprint` is the GeoJSON, so a request can never
// name a file on the server.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlaceWire {
    parcel: Option<String>,
    footprint: Option<serde_json::Value>,
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
            (None, None, Some(v)) => place::footprint_from_value(v.clone(), srid, "footprint"),
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

/// A tri-state fact on the command line: `--flag` alone is true, `--flag false` false,
/// absent not given.
fn tri_arg(s: &str) -> Result<bool, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "" | "true" | "1" | "yes" | "y" | "on" => Ok(true),
        "false" | "0" | "no" | "n" | "off" => Ok(false),
        _ => Err(format!("{s:?} is not true or false")),
    }
}

fn date_arg(s: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(s.trim(), "%Y-%m-%d")
        .map_err(|_| format!("{s:?} is not a date (YYYY-MM-DD)"))
}

/// `ms4 determine` and `POST /api/determinations` (a JSON body with the same names).
/// Every fact but `disturbed` may be left out: a tri-state fact not given is listed as not
/// evaluated, or the answer turns on it (`depends`) and lists it as an open fact.
#[derive(Debug, Clone, Args)]
pub struct DetermineParams {
    /// Where the project is.
    #[command(flatten)]
    pub place: PlaceParams,
    /// The area disturbed, with its unit: 2.5acres, 8000sqft, 0.4ha.
    #[arg(long)]
    pub disturbed: String,
    /// The project is a single-family residence (Carmel Condition Three exclusion);
    /// `--single-family false` to say it is not. Not given, Condition Three is undetermined
    /// between one and five acres.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub single_family: Option<bool>,
    /// The project is construction at an agricultural property (Carmel Condition Three
    /// exclusion; not the same as --agricultural-activity); `--agricultural false` to say it
    /// is not.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub agricultural: Option<bool>,
    /// The project is part of a larger common plan of development or sale.
    #[arg(long)]
    pub larger_common_plan: bool,
    /// The activity is agricultural activity (an active farm's own activity; Carmel
    /// § 156-80 exempt activities). `--agricultural-activity false` to say it is not.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub agricultural_activity: Option<bool>,
    /// The activity is silvicultural (Carmel § 156-80, except landing areas and log haul
    /// roads).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub silviculture: Option<bool>,
    /// The activity is routine maintenance to the original line and grade, hydraulic
    /// capacity or original purpose of a facility (NC § 267-4B; Carmel § 156-80).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub routine_maintenance: Option<bool>,
    /// The date the subdivision plat was approved (signed), YYYY-MM-DD.
    #[arg(long, value_parser = date_arg)]
    pub plat_approved_on: Option<NaiveDate>,
    /// The date a building permit for the project was approved, YYYY-MM-DD.
    #[arg(long, value_parser = date_arg)]
    pub building_permit_approved_on: Option<NaiveDate>,
    /// North Castle § 267-3C(5): physically completed before the chapter's effective date.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub completed_before_effective_date: Option<bool>,
    /// North Castle § 267-3C(6): approved before the chapter's effective date.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub approved_before_effective_date: Option<bool>,
    /// North Castle: part of the site lies in the NYC East of Hudson Watershed.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub in_nyc_east_of_hudson_watershed: Option<bool>,
    /// An approval for the project has a stormwater management facility as a requirement.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub requires_stormwater_management_facility: Option<bool>,
    /// Windsor: the activity is under a construction or erosion and sediment control
    /// permit.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub construction_permit: Option<bool>,
    /// North Castle: the reviewer's entry that the project needs construction general
    /// permit coverage (AMB-13).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub gp_coverage: Option<bool>,
    /// North Castle: the permit identifies the project as needing post-construction SMPs.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub gp_post_construction: Option<bool>,
    /// North Castle: the permit requires the Enhanced Phosphorus Removal Standards.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    pub gp_enhanced_phosphorus: Option<bool>,
}

/// A tri-state fact over HTTP: true, false, "true"/"false" (and yes/no, 1/0), or absent
/// or null for not given.
fn tri<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Wire {
        Bool(bool),
        Text(String),
        Int(i64),
    }
    match Option::<Wire>::deserialize(d)? {
        None => Ok(None),
        Some(Wire::Bool(b)) => Ok(Some(b)),
        Some(Wire::Int(1)) => Ok(Some(true)),
        Some(Wire::Int(0)) => Ok(Some(false)),
        Some(Wire::Int(i)) => Err(serde::de::Error::custom(format!(
            "{i} is not true or false"
        ))),
        Some(Wire::Text(s)) if s.trim().is_empty() => Ok(None),
        Some(Wire::Text(s)) => tri_arg(&s).map(Some).map_err(serde::de::Error::custom),
    }
}

fn opt_date<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDate>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(s) if s.trim().is_empty() => Ok(None),
        Some(s) => date_arg(&s).map(Some).map_err(serde::de::Error::custom),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DetermineWire {
    parcel: Option<String>,
    footprint: Option<serde_json::Value>,
    disturbed: String,
    #[serde(default, deserialize_with = "tri")]
    single_family: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    agricultural: Option<bool>,
    #[serde(default, deserialize_with = "flag")]
    larger_common_plan: bool,
    #[serde(default, deserialize_with = "tri")]
    agricultural_activity: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    silviculture: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    routine_maintenance: Option<bool>,
    #[serde(default, deserialize_with = "opt_date")]
    plat_approved_on: Option<NaiveDate>,
    #[serde(default, deserialize_with = "opt_date")]
    building_permit_approved_on: Option<NaiveDate>,
    #[serde(default, deserialize_with = "tri")]
    completed_before_effective_date: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    approved_before_effective_date: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    in_nyc_east_of_hudson_watershed: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    requires_stormwater_management_facility: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    construction_permit: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    gp_coverage: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    gp_post_construction: Option<bool>,
    #[serde(default, deserialize_with = "tri")]
    gp_enhanced_phosphorus: Option<bool>,
}

impl<'de> Deserialize<'de> for DetermineParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = DetermineWire::deserialize(d)?;
        Ok(DetermineParams {
            place: PlaceWire {
                parcel: w.parcel,
                footprint: w.footprint,
            }
            .into(),
            disturbed: w.disturbed,
            single_family: w.single_family,
            agricultural: w.agricultural,
            larger_common_plan: w.larger_common_plan,
            agricultural_activity: w.agricultural_activity,
            silviculture: w.silviculture,
            routine_maintenance: w.routine_maintenance,
            plat_approved_on: w.plat_approved_on,
            building_permit_approved_on: w.building_permit_approved_on,
            completed_before_effective_date: w.completed_before_effective_date,
            approved_before_effective_date: w.approved_before_effective_date,
            in_nyc_east_of_hudson_watershed: w.in_nyc_east_of_hudson_watershed,
            requires_stormwater_management_facility: w.requires_stormwater_management_facility,
            construction_permit: w.construction_permit,
            gp_coverage: w.gp_coverage,
            gp_post_construction: w.gp_post_construction,
            gp_enhanced_phosphorus: w.gp_enhanced_phosphorus,
        })
    }
}

impl DetermineParams {
    /// The project's facts, as given.
    pub fn facts(&self) -> Result<ProjectFacts, AskError> {
        let mut facts = ProjectFacts::new(disturbed(&self.disturbed)?);
        facts.single_family = self.single_family;
        facts.agricultural = self.agricultural;
        facts.larger_common_plan = self.larger_common_plan;
        facts.agricultural_activity = self.agricultural_activity;
        facts.silviculture = self.silviculture;
        facts.routine_maintenance = self.routine_maintenance;
        facts.plat_approved_on = self.plat_approved_on;
        facts.building_permit_approved_on = self.building_permit_approved_on;
        facts.completed_before_effective_date = self.completed_before_effective_date;
        facts.approved_before_effective_date = self.approved_before_effective_date;
        facts.in_nyc_east_of_hudson_watershed = self.in_nyc_east_of_hudson_watershed;
        facts.requires_stormwater_management_facility =
            self.requires_stormwater_management_facility;
        facts.construction_permit = self.construction_permit;
        facts.gp = GpDeterminations {
            coverage: self.gp_coverage,
            post_construction: self.gp_post_construction,
            enhanced_phosphorus: self.gp_enhanced_phosphorus,
        };
        Ok(facts)
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

fn disturbed(text: &str) -> Result<crate::domain::Area, AskError> {
    parse_area(text).map_err(|e| AskError::invalid("disturbed", e.to_string()))
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
pub struct ReceivingParams {
    /// The parcel or footprint.
    #[command(flatten)]
    pub place: PlaceParams,
}

impl<'de> Deserialize<'de> for ReceivingParams {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        PlaceParams::deserialize(d).map(|place| ReceivingParams { place })
    }
}

/// The receiving waters of a parcel or footprint: both methods side by side, then the
/// 303(d) listings and TMDL areas.
pub fn receiving_waters(ask: &Ask<'_>, p: &ReceivingParams) -> Result<ReceivingWaters, AskError> {
    let fp = p.place.footprint(ask)?;
    waters_for(ask, &fp, p.place.parcel.as_deref())
}

/// `ms4 screen` and `GET /api/screen`.
#[derive(Debug, Clone, Args, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScreenParams {
    /// The area a typical project would disturb: 1acre, 8000sqft.
    #[arg(long)]
    pub disturbed: String,
    /// List every parcel, not only those where Condition One is met.
    #[arg(long)]
    #[serde(default, deserialize_with = "flag")]
    pub all: bool,
}

/// Condition One on one parcel.
#[derive(Debug, Clone, Serialize)]
pub struct ScreenResult {
    /// The parcel.
    pub parcel_id: String,
    /// Condition One (its result `null` when undetermined), or `null` where the parcel
    /// has no polygon.
    pub condition_one: Option<Finding<Option<bool>>>,
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

/// Condition One for a project of this size on every parcel, by watershed overlap.
pub fn screen(ask: &Ask<'_>, p: &ScreenParams) -> Result<ScreenAnswer, AskError> {
    let facts = ProjectFacts::new(disturbed(&p.disturbed)?);
    let options = water_options(ask);
    let (mut parcels, mut met, mut undetermined, mut covered) = (0usize, 0usize, 0usize, false);
    let mut results = Vec::new();
    condition_one_each(ask.snap, ask.profile, &facts, &options, |parcel, f| {
        parcels += 1;
        covered |= f.is_some();
        let yes = f.as_ref().is_some_and(|f| f.result == Some(true));
        met += usize::from(yes);
        undetermined += usize::from(f.as_ref().is_some_and(|f| f.result.is_none()));
        if p.all || yes {
            results.push(ScreenResult {
                parcel_id: parcel.id.clone(),
                condition_one: f,
            });
        }
    });
    if !covered && parcels > 0 {
        return Err(AskError::BadRequest(format!(
            "{} has no Condition One; screening applies to Carmel's Article X",
            ask.profile.name
        )));
    }
    Ok(ScreenAnswer {
        parcels,
        met,
        undetermined,
        results,
    })
}
