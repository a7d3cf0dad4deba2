//! Screening every parcel at once: its receiving waters and Condition One.

use crate::domain::{Area, Layer};
use crate::rules::determine::{
    ConditionOneScreen, ListedWater, ProjectFacts, TmdlOverlap, WaterEvidence,
};
use crate::rules::{Finding, Profile};

use super::snapshot::Snapshot;
use super::waters::{as_multipolygon, receiving_waters_with, ReceivingWaters, WaterOptions};

/// The evidence Condition One is decided on, from a receiving-waters answer.
pub fn water_evidence(rw: &ReceivingWaters) -> WaterEvidence {
    WaterEvidence {
        waters_303d: rw
            .listed
            .iter()
            .map(|l| ListedWater {
                water_id: l.water_id.clone(),
                name: l.name.clone().unwrap_or_default(),
                pollutants: l.pollutants.clone(),
                reached_by: l.reached_by.join("; "),
            })
            .collect(),
        tmdl_areas: rw
            .tmdl_areas
            .iter()
            .map(|t| TmdlOverlap {
                tmdl_id: t.tmdl_id.clone(),
                pollutant: t.pollutant.clone().unwrap_or_default(),
                stormwater_source: t.stormwater_source,
                overlap: Area::new(t.overlap, rw.area_unit),
                reached_by: t.reached_by.clone(),
            })
            .collect(),
        waters_reached: rw.waters_reached.clone(),
        review: rw.review.clone(),
        list_cycle: rw.list_cycle.map(|c| c.to_string()),
        notes: rw.notes.clone(),
    }
}

/// Condition One for a project of `facts` on every parcel (by watershed overlap: the
/// network answer needs each parcel's connections and is left to per-parcel questions),
/// handed to `visit` parcel by parcel, in order: `None` for a parcel without a polygon, or
/// where the jurisdiction has no Conditions. A visitor rather than a list, because a
/// million findings held at once cost more than computing them; each chunk of parcels is
/// decided on every core, then visited in order.
pub fn condition_one_each(
    snap: &Snapshot,
    profile: &Profile,
    facts: &ProjectFacts,
    options: &WaterOptions,
    mut visit: impl FnMut(&crate::domain::Feature, Option<Finding<Option<bool>>>),
) {
    use rayon::prelude::*;
    const CHUNK: usize = 16_384;
    let screen = ConditionOneScreen::new(profile, facts);
    let parcels: Vec<&crate::domain::Feature> =
        snap.layer(Layer::Parcels).features.iter().collect();
    for chunk in parcels.chunks(CHUNK) {
        let findings: Vec<Option<Finding<Option<bool>>>> = chunk
            .par_iter()
            .map(|p| {
                let screen = screen.as_ref()?;
                let fp = as_multipolygon(p.geom.as_ref()?)?;
                let rw = receiving_waters_with(snap, None, &fp, Some(&p.id), options);
                Some(screen.finding(&water_evidence(&rw)))
            })
            .collect();
        for (p, finding) in chunk.iter().zip(findings) {
            visit(p, finding);
        }
    }
}
