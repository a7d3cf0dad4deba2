//! Screening every parcel at once: its receiving waters and Condition One, or the whole
//! determination.

use crate::domain::{Area, Layer};
use crate::rules::determine::{
    ConditionOneScreen, Determination, Determiner, ListedWater, ProjectFacts, TmdlOverlap,
    WaterEvidence,
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
    visit: impl FnMut(&crate::domain::Feature, Option<Finding<Option<bool>>>),
) {
    let screen = ConditionOneScreen::new(profile, facts);
    each_parcel(
        snap,
        options,
        screen.as_ref().map(|s| |w: &WaterEvidence| s.finding(w)),
        visit,
    );
}

/// The whole determination (every finding and requirement) for a project of `facts` on
/// every parcel, by watershed overlap as [`condition_one_each`], handed to `visit` in
/// order: `None` for a parcel without a polygon. Each equals [`determine`] at that parcel;
/// a [`Determiner`] decides what does not turn on the place once.
///
/// [`determine`]: crate::rules::determine::determine
pub fn determination_each(
    snap: &Snapshot,
    profile: &Profile,
    facts: &ProjectFacts,
    options: &WaterOptions,
    visit: impl FnMut(&crate::domain::Feature, Option<Determination>),
) {
    let determiner = Determiner::new(profile, facts);
    each_parcel(
        snap,
        options,
        Some(|w: &WaterEvidence| determiner.determine(w)),
        visit,
    );
}

/// Every parcel's receiving waters, decided by `decide` on every core and handed to
/// `visit` on this thread in order; `None` for a parcel without a polygon, and for every
/// parcel when there is nothing to decide (`decide` is `None`).
fn each_parcel<D: Send>(
    snap: &Snapshot,
    options: &WaterOptions,
    decide: Option<impl Fn(&WaterEvidence) -> D + Sync>,
    mut visit: impl FnMut(&crate::domain::Feature, Option<D>),
) {
    const CHUNK: usize = 16_384;
    let parcels: Vec<&crate::domain::Feature> =
        snap.layer(Layer::Parcels).features.iter().collect();
    let decide = |p: &&crate::domain::Feature| {
        let decide = decide.as_ref()?;
        let fp = as_multipolygon(p.geom.as_ref()?)?;
        let rw = receiving_waters_with(snap, None, &fp, Some(&p.id), options);
        Some(decide(&water_evidence(&rw)))
    };
    decide_and_visit(&parcels, CHUNK, decide, |p, d| visit(p, d));
}

/// Decides `items` a chunk at a time on every core and hands each decision to `visit` on
/// this thread, in the items' order, while the next chunk is decided: visited after, the
/// county's million findings (and their drops) left a core idle for a tenth of the screen.
fn decide_and_visit<I: Sync, D: Send>(
    items: &[I],
    chunk: usize,
    decide: impl Fn(&I) -> D + Sync,
    mut visit: impl FnMut(&I, D),
) {
    use rayon::prelude::*;
    let decide_chunk = |c: &[I]| -> Vec<D> { c.par_iter().map(&decide).collect() };
    let mut to_decide = items.chunks(chunk);
    let mut decided = to_decide.next().map(decide_chunk);
    let mut to_visit = items.chunks(chunk);
    while let Some(decisions) = decided.take() {
        let c = to_visit.next().expect("a chunk for each chunk decided");
        rayon::in_place_scope(|s| {
            if let Some(next) = to_decide.next() {
                s.spawn(|_| decided = Some(decide_chunk(next)));
            }
            for (item, d) in c.iter().zip(decisions) {
                visit(item, d);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::decide_and_visit;

    #[test]
    fn every_item_is_visited_once_in_order_with_its_own_decision_across_chunks() {
        for (n, chunk) in [(10, 3), (9, 3), (2, 5), (0, 4), (1, 1)] {
            let items: Vec<u32> = (0..n).collect();
            let mut seen = Vec::new();
            decide_and_visit(&items, chunk, |&i| i * 10, |&i, d| seen.push((i, d)));
            let expected: Vec<(u32, u32)> = items.iter().map(|&i| (i, i * 10)).collect();
            assert_eq!(seen, expected, "{n} items in chunks of {chunk}");
        }
    }
}
