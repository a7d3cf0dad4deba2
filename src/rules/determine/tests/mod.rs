//! Table-driven tests of the determination against the builtin profiles.

mod activity;
mod assumptions;
mod carmel;
mod condition_one;
mod determiner;
mod findings;
mod goldens;
mod north_castle;
mod windsor;

use super::context::{group, trim};
use super::*;
use crate::domain::{AreaUnit, LengthUnit};
use crate::rules::finding::Evidence;
use crate::rules::profile::{AssumptionValue, SQFT_PER_ACRE};
use RequirementKind as K;
use RequirementStatus as S;

const NC: &str = "north-castle-ny";
const CARMEL: &str = "carmel-ny";
const WINDSOR: &str = "windsor-ct";

fn profile(id: &str) -> Profile {
    Profile::builtin(id).unwrap_or_else(|e| panic!("{e}"))
}

fn sqft(v: f64) -> Area {
    Area::new(v, AreaUnit::Square(LengthUnit::Foot))
}

fn acres(v: f64) -> Area {
    Area::new(v, AreaUnit::Acre)
}

/// Facts for a project of this area that is not part of a larger common plan (the cases
/// that leave the plan open say so), every other fact not given.
fn facts(area: Area) -> ProjectFacts {
    ProjectFacts {
        larger_common_plan: Some(false),
        ..ProjectFacts::new(area)
    }
}

fn run(id: &str, facts: &ProjectFacts, water: &WaterEvidence) -> Determination {
    determine(&profile(id), facts, water)
}

fn status(d: &Determination, kind: RequirementKind) -> Option<RequirementStatus> {
    d.requirement(kind).map(|r| r.result.status)
}

/// Which Conditions are met (undetermined counts as not met here; see `conditions_tri`).
fn conditions(d: &Determination) -> [bool; 3] {
    conditions_tri(d).map(|c| c == Some(true))
}

/// The three Conditions: met, not met or undetermined (`None`).
fn conditions_tri(d: &Determination) -> [Option<bool>; 3] {
    let c = d.conditions.as_ref().expect("Carmel has Conditions");
    [
        c.condition_one.result,
        c.condition_two.result,
        c.condition_three.result,
    ]
}

/// No evidence at all: no watershed overlapped, no trace reached a water.
fn no_water() -> WaterEvidence {
    WaterEvidence::default()
}

/// The runoff reaches a water that is not listed and lies in no TMDL area.
fn unlisted_water() -> WaterEvidence {
    WaterEvidence {
        waters_reached: vec!["NY-9".to_string()],
        ..WaterEvidence::default()
    }
}

fn listed(pollutant: &str) -> WaterEvidence {
    WaterEvidence {
        waters_303d: vec![ListedWater {
            water_id: "NY-1301-0021".to_string(),
            name: "Byram River".to_string(),
            pollutants: vec![pollutant.to_string()],
            reached_by: "trace CB-12 → P-88 → OF-4".to_string(),
        }],
        waters_reached: vec!["NY-1301-0021".to_string()],
        ..WaterEvidence::default()
    }
}

fn tmdl(pollutant: &str, stormwater_source: Option<bool>, overlap_sqft: f64) -> WaterEvidence {
    WaterEvidence {
        waters_303d: Vec::new(),
        tmdl_areas: vec![TmdlOverlap {
            tmdl_id: "TMDL-7".to_string(),
            pollutant: pollutant.to_string(),
            stormwater_source,
            overlap: sqft(overlap_sqft),
            reached_by: None,
        }],
        ..WaterEvidence::default()
    }
}

fn reasons(f: &Finding<impl Sized>) -> String {
    f.reasons.join(" | ")
}
