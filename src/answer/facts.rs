//! The project facts a determination reads: one type for the `ms4 determine` flags, the
//! body of `POST /api/determinations` and the OpenAPI document's schema of that body
//! (`ProjectFactsParams` under `components/schemas`, which the page can read for the list).

use chrono::NaiveDate;
use clap::Args;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};

use super::AskError;
use crate::rules::determine::{GpDeterminations, ProjectFacts};
use crate::rules::quantity::parse_area;

/// Every fact a rule reads about a project, under the flags' names (`-` read as `_` over
/// HTTP). Every fact but `disturbed` may be left out: a tri-state fact not given is listed
/// as not evaluated, or the answer turns on it (`depends`) and lists it as an open fact.
#[derive(Debug, Clone, Args, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectFactsParams {
    /// The area disturbed, with its unit: 2.5acres, 8000sqft, 0.4ha.
    #[arg(long)]
    pub disturbed: String,
    /// The project is a single-family residence (Carmel Condition Three exclusion);
    /// `--single-family false` to say it is not. Not given, Condition Three is undetermined
    /// between one and five acres.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub single_family: Option<bool>,
    /// The project is construction at an agricultural property (Carmel Condition Three
    /// exclusion; not the same as --agricultural-activity); `--agricultural false` to say it
    /// is not.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub agricultural: Option<bool>,
    /// The project is part of a larger common plan of development or sale;
    /// `--larger-common-plan false` to say it is not. Not given, an answer it could change
    /// (Carmel's definition, the construction general permit) turns on it.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub larger_common_plan: Option<bool>,
    /// The activity is agricultural activity (an active farm's own activity; Carmel
    /// § 156-80 exempt activities). `--agricultural-activity false` to say it is not.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub agricultural_activity: Option<bool>,
    /// The activity is silvicultural (Carmel § 156-80, except landing areas and log haul
    /// roads).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub silviculture: Option<bool>,
    /// The activity is routine maintenance to the original line and grade, hydraulic
    /// capacity or original purpose of a facility (NC § 267-4B; Carmel § 156-80).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub routine_maintenance: Option<bool>,
    /// The date the subdivision plat was approved (signed), YYYY-MM-DD.
    #[arg(long, value_parser = date_arg)]
    #[serde(default, deserialize_with = "opt_date")]
    pub plat_approved_on: Option<NaiveDate>,
    /// The date a building permit for the project was approved, YYYY-MM-DD.
    #[arg(long, value_parser = date_arg)]
    #[serde(default, deserialize_with = "opt_date")]
    pub building_permit_approved_on: Option<NaiveDate>,
    /// North Castle § 267-3C(5): physically completed before the chapter's effective date.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub completed_before_effective_date: Option<bool>,
    /// North Castle § 267-3C(6): approved before the chapter's effective date.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub approved_before_effective_date: Option<bool>,
    /// North Castle: part of the site lies in the NYC East of Hudson Watershed.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub in_nyc_east_of_hudson_watershed: Option<bool>,
    /// An approval for the project has a stormwater management facility as a requirement.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub requires_stormwater_management_facility: Option<bool>,
    /// Windsor: the activity is under a construction or erosion and sediment control
    /// permit.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub construction_permit: Option<bool>,
    /// North Castle: the reviewer's entry that the project needs construction general
    /// permit coverage (AMB-13).
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub gp_coverage: Option<bool>,
    /// North Castle: the permit identifies the project as needing post-construction SMPs.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub gp_post_construction: Option<bool>,
    /// North Castle: the permit requires the Enhanced Phosphorus Removal Standards.
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_parser = tri_arg)]
    #[serde(default, deserialize_with = "tri")]
    pub gp_enhanced_phosphorus: Option<bool>,
}

impl ProjectFactsParams {
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

/// The area disturbed, read with its unit; the error names `disturbed`.
pub(super) fn disturbed(text: &str) -> Result<crate::domain::Area, AskError> {
    parse_area(text).map_err(|e| AskError::invalid("disturbed", e.to_string()))
}

/// A tri-state fact on the command line: `--flag` alone is true, `--flag false` false,
/// absent not given.
pub(super) fn tri_arg(s: &str) -> Result<bool, String> {
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

/// A tri-state fact over HTTP: true, false, "true"/"false" (and yes/no, 1/0), or absent
/// or null for not given.
pub(super) fn tri<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
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
