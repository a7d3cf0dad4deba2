//! Opening a site: from a determination as `ms4 determine --format json` (or `POST
//! /api/determinations`) answered it, kept whole, or from a footprint alone; and its
//! priority by a stated rule.

use chrono::NaiveDate;
use serde::Deserialize;

use super::site::{Phase, PlannedMilestone, Site};
use crate::domain::{text, Layer, SiteStatus};
use crate::idde::FieldError;
use crate::spatial::Snapshot;

/// `POST /api/sites` and `ms4 site open`.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenSite {
    /// The day it is entered (default today).
    #[serde(default)]
    pub opened_on: Option<NaiveDate>,
    /// Its name or address.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub name: Option<String>,
    /// The parcels it covers (the determination's parcel is added).
    #[serde(default)]
    pub parcels: Vec<String>,
    /// The landowner.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub owner: Option<String>,
    /// The applicant or developer.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub developer: Option<String>,
    /// The operator.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub operator: Option<String>,
    /// The determination, as `ms4 determine --format json` wrote it: stored as answered.
    #[serde(default)]
    pub determination: Option<serde_json::Value>,
    /// The footprint: a GeoJSON (Multi)Polygon in WGS 84 (else the parcels' polygon).
    #[serde(default)]
    pub footprint: Option<serde_json::Value>,
    /// The area disturbed over all phases, square feet (else the determination's).
    #[serde(default)]
    pub disturbed_sqft: Option<f64>,
    /// The phases.
    #[serde(default)]
    pub phases: Vec<Phase>,
    /// Who prepared the SWPPP.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub swppp_preparer: Option<String>,
    /// The day the SWPPP was accepted.
    #[serde(default)]
    pub swppp_accepted_on: Option<NaiveDate>,
    /// Who accepted it.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub swppp_accepted_by: Option<String>,
    /// The notice of intent's id.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub noi_id: Option<String>,
    /// The SPDES general permit coverage id.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub spdes_permit_id: Option<String>,
    /// The day construction is to start.
    #[serde(default)]
    pub start_on: Option<NaiveDate>,
    /// The qualified inspector named.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub qualified_inspector: Option<String>,
    /// The trained contractor named.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub trained_contractor: Option<String>,
    /// The rain gauge whose daily totals decide storm inspections.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub rain_gauge: Option<String>,
    /// The milestones planned.
    #[serde(default)]
    pub milestones: Vec<PlannedMilestone>,
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// The disturbed area a determination was answered for, square feet: its land
/// development activity finding's evidence, as answered.
pub fn determination_sqft(d: &serde_json::Value) -> Option<f64> {
    let finding = d
        .pointer("/determination/land_development_activity")
        .or_else(|| d.pointer("/land_development_activity"))?;
    finding["evidence"].as_array()?.iter().find_map(|e| {
        (e["what"] == "disturbed_area" && e["unit"] == "sqft")
            .then(|| e["value"].as_f64())
            .flatten()
    })
}

/// A site's priority and why, by a stated rule (the NY MS4 permit asks towns to
/// prioritise their sites; neither town's law states a rule):
/// high — five acres or more disturbed, or a Condition met (Carmel's Condition One is
/// a discharge to a 303(d) water or TMDL watershed); medium — one acre or more;
/// low — less; undetermined without a disturbed area.
pub fn priority(site: &Site) -> (&'static str, String) {
    let met: Vec<&str> = ["condition_one", "condition_two", "condition_three"]
        .into_iter()
        .filter(|n| {
            site.determination.as_ref().is_some_and(|d| {
                d.pointer(&format!("/determination/conditions/{n}/result"))
                    .or_else(|| d.pointer(&format!("/conditions/{n}/result")))
                    == Some(&serde_json::Value::Bool(true))
            })
        })
        .collect();
    let acres = site.disturbed_sqft.map(|s| s / 43_560.0);
    match (acres, met.is_empty()) {
        (Some(a), _) if a >= 5.0 => ("high", format!("{a:.2} acres disturbed: five or more")),
        (_, false) => (
            "high",
            format!("the determination finds {} met", met.join(", ")),
        ),
        (Some(a), true) if a >= 1.0 => ("medium", format!("{a:.2} acres disturbed: one to five")),
        (Some(a), true) => ("low", format!("{a:.2} acres disturbed: under one")),
        (None, true) => ("undetermined", "no disturbed area on record".into()),
    }
}

/// Checks a request and makes the site (its id a preview: it is allocated again inside
/// the write's transaction).
pub fn open_site(
    snap: &Snapshot,
    req: &OpenSite,
    site_id: String,
    today: NaiveDate,
) -> Result<Site, FieldError> {
    let opened_on = req.opened_on.unwrap_or(today);
    if let Some(why) = text::past_day_problem(opened_on, today) {
        return Err(err("opened_on", why));
    }
    let mut parcels: Vec<String> = req.parcels.iter().map(|p| p.trim().to_string()).collect();
    if let Some(d) = &req.determination {
        if d.pointer("/determination").is_none()
            && d.pointer("/land_development_activity").is_none()
        {
            return Err(err(
                "determination",
                "not a determination: give the JSON `ms4 determine --format json` writes",
            ));
        }
        if let Some(p) = d["parcel"].as_str() {
            if !parcels.iter().any(|x| x == p) {
                parcels.insert(0, p.to_string());
            }
        }
    }
    for (i, p) in parcels.iter().enumerate() {
        if p.is_empty() || p.contains(',') {
            return Err(err(&format!("parcels[{i}]"), "a parcel id, without commas"));
        }
        if snap.layer(Layer::Parcels).get(p).is_none() {
            return Err(err(
                &format!("parcels[{i}]"),
                format!("no parcel has id {p:?}"),
            ));
        }
    }
    let from_det = req.determination.as_ref().and_then(determination_sqft);
    let disturbed_sqft = match (req.disturbed_sqft, from_det) {
        (Some(a), _) if !(a.is_finite() && a >= 0.0) => {
            return Err(err("disturbed_sqft", "a number of square feet, 0 or more"))
        }
        (Some(a), Some(d)) if (a - d).abs() > 1.0 => {
            return Err(err(
                "disturbed_sqft",
                format!("{a} sq ft is not the {d} sq ft the determination was answered for: determine again for the new area"),
            ))
        }
        (a, d) => a.or(d),
    };
    let srid = snap.meta.srid;
    let geom = match (&req.footprint, parcels.first()) {
        (Some(v), _) => Some(
            crate::answer::place::footprint_from_value(v, srid, "footprint")
                .map_err(|e| err("footprint", e.to_string()))?,
        ),
        (None, Some(p)) => crate::answer::place::parcel_polygon(snap, p).ok(),
        (None, None) => None,
    };
    if req.determination.is_none() && geom.is_none() {
        return Err(err(
            "determination",
            "give the determination it came from, or a footprint (or parcels)",
        ));
    }
    let mut site = Site {
        site_id,
        opened_on,
        status: SiteStatus::Proposed,
        name: req.name.clone(),
        parcels,
        owner: req.owner.clone(),
        developer: req.developer.clone(),
        operator: req.operator.clone(),
        determination: req.determination.clone(),
        disturbed_sqft,
        phases: req.phases.clone(),
        swppp_preparer: req.swppp_preparer.clone(),
        swppp_accepted_on: req.swppp_accepted_on,
        swppp_accepted_by: req.swppp_accepted_by.clone(),
        noi_id: req.noi_id.clone(),
        spdes_permit_id: req.spdes_permit_id.clone(),
        start_on: req.start_on,
        qualified_inspector: req.qualified_inspector.clone(),
        trained_contractor: req.trained_contractor.clone(),
        rain_gauge: req.rain_gauge.clone(),
        priority: None,
        milestones: req.milestones.clone(),
        actions: Vec::new(),
        geom: geom.map(geo_types::Geometry::MultiPolygon),
    };
    site.priority = Some(priority(&site).0.to_string());
    Ok(site)
}
