//! Determinations for a project on a parcel or footprint, the receiving waters of a
//! place, and Condition One on every parcel.

use std::path::PathBuf;

use clap::Args;
use geo_types::MultiPolygon;
use serde::{Deserialize, Serialize};

use super::{flag, place, Ask, AskError};
use crate::rules::determine::{self, Determination, ProjectFacts};
use crate::rules::quantity::parse_area;
use crate::rules::Finding;
use crate::spatial::screen::{condition_one_each, water_evidence};
use crate::spatial::waters::{self, ReceivingWaters};

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

/// `ms4 determine` and `POST /api/determinations` (a JSON body with the same names).
#[derive(Debug, Clone, Args)]
pub struct DetermineParams {
    /// Where the project is.
    #[command(flatten)]
    pub place: PlaceParams,
    /// The area disturbed, with its unit: 2.5acres, 8000sqft, 0.4ha.
    #[arg(long)]
    pub disturbed: String,
    /// The project is a single-family residence.
    #[arg(long)]
    pub single_family: bool,
    /// The project is on an agricultural property.
    #[arg(long)]
    pub agricultural: bool,
    /// The project is part of a larger common plan of development or sale.
    #[arg(long)]
    pub larger_common_plan: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DetermineWire {
    parcel: Option<String>,
    footprint: Option<serde_json::Value>,
    disturbed: String,
    #[serde(default, deserialize_with = "flag")]
    single_family: bool,
    #[serde(default, deserialize_with = "flag")]
    agricultural: bool,
    #[serde(default, deserialize_with = "flag")]
    larger_common_plan: bool,
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
        })
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

/// The receiving waters of a footprint, by watershed and through the network, with the
/// profile's tolerances.
pub fn waters_for(
    ask: &Ask<'_>,
    fp: &MultiPolygon<f64>,
    parcel: Option<&str>,
) -> Result<ReceivingWaters, AskError> {
    let snap_tol = ask.in_crs(&ask.profile.tolerances.snap_tolerance);
    let water_tol = ask.in_crs(&ask.profile.tolerances.receiving_water_tolerance);
    let net = ask.network()?;
    Ok(waters::receiving_waters(
        ask.snap,
        Some(net),
        fp,
        parcel,
        water_tol,
        snap_tol,
    ))
}

/// Is the project a land development activity, is it exempt, do the Conditions apply,
/// and what follows — with the evidence.
pub fn determine(ask: &Ask<'_>, p: &DetermineParams) -> Result<DetermineAnswer, AskError> {
    let mut facts = ProjectFacts::new(disturbed(&p.disturbed)?);
    facts.single_family = p.single_family;
    facts.agricultural = p.agricultural;
    facts.larger_common_plan = p.larger_common_plan;
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
    /// Condition One, or `null` where the parcel has no polygon.
    pub condition_one: Option<Finding<bool>>,
}

/// Condition One for a project on every parcel.
#[derive(Debug, Clone, Serialize)]
pub struct ScreenAnswer {
    /// Parcels screened.
    pub parcels: usize,
    /// Parcels where Condition One is met.
    pub met: usize,
    /// The parcels meeting it (or every parcel).
    pub results: Vec<ScreenResult>,
}

/// Condition One for a project of this size on every parcel, by watershed overlap.
pub fn screen(ask: &Ask<'_>, p: &ScreenParams) -> Result<ScreenAnswer, AskError> {
    let facts = ProjectFacts::new(disturbed(&p.disturbed)?);
    let tol = ask.in_crs(&ask.profile.tolerances.receiving_water_tolerance);
    let (mut parcels, mut met, mut covered) = (0usize, 0usize, false);
    let mut results = Vec::new();
    condition_one_each(ask.snap, ask.profile, &facts, tol, |parcel, f| {
        parcels += 1;
        covered |= f.is_some();
        let yes = f.as_ref().is_some_and(|f| f.result);
        met += usize::from(yes);
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
        results,
    })
}
