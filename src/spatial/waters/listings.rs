//! The 303(d) listings of the waters reached and the TMDL areas overlapped: which list
//! cycle counts, and what a listing rests on.

use super::{text, Listing, TmdlHit};
use crate::domain::{Feature, Layer};
use crate::spatial::snapshot::Snapshot;

pub(super) fn tmdl_hit(t: &Feature, overlap: f64, reached_by: Option<String>) -> TmdlHit {
    TmdlHit {
        tmdl_id: t.id.clone(),
        pollutant: text(t, Layer::TmdlAreas, "pollutant"),
        stormwater_source: t.get(Layer::TmdlAreas, "stormwater_source").as_bool(),
        overlap,
        reached_by,
    }
}
/// A water's 303(d) listing in list cycle `cycle` (rows without a cycle count in any):
/// its impairments, or its `listed_303d` flag. `None` when it is not listed, with a note
/// when the data would have said otherwise: an explicit `listed_303d = false` is never
/// overridden by an impairment row (nor a row of another cycle taken as a listing).
pub(crate) fn listing(
    snap: &Snapshot,
    water_id: &str,
    cycle: Option<i64>,
) -> (Option<Listing>, Option<String>) {
    let water = snap.layer(Layer::ReceivingWaters).get(water_id);
    let flag = water.and_then(|w| w.get(Layer::ReceivingWaters, "listed_303d").as_bool());
    let mut pollutants: Vec<String> = Vec::new();
    let mut other_cycles: Vec<i64> = Vec::new();
    if !snap.pollutants(water_id).is_empty() {
        for (p, row_cycle) in snap.impairment_rows(water_id) {
            let (Some(p), row_cycle) = (p.as_deref(), *row_cycle) else {
                continue;
            };
            match (cycle, row_cycle) {
                (Some(c), Some(r)) if c != r => {
                    if !other_cycles.contains(&r) {
                        other_cycles.push(r);
                    }
                }
                _ => {
                    if !pollutants.iter().any(|x| x == p) {
                        pollutants.push(p.to_string());
                    }
                }
            }
        }
    }
    pollutants.sort();
    other_cycles.sort();
    if flag == Some(false) {
        let note = (!pollutants.is_empty() || !other_cycles.is_empty()).then(|| {
            format!(
                "water {water_id} has impairment rows but its record says listed_303d = false; the explicit flag is taken: not 303(d)-listed"
            )
        });
        return (None, note);
    }
    if pollutants.is_empty() && flag != Some(true) {
        let note = (!other_cycles.is_empty()).then(|| {
            format!(
                "water {water_id} is listed only in cycle(s) {} of the 303(d) list, not in the cycle {} used (AMB-30)",
                other_cycles.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
                cycle.map_or("?".to_string(), |c| c.to_string())
            )
        });
        return (None, note);
    }
    (
        Some(Listing {
            water_id: water_id.to_string(),
            name: water.and_then(|w| text(w, Layer::ReceivingWaters, "name")),
            classification: water.and_then(classification),
            pollutants,
            reached_by: Vec::new(),
        }),
        None,
    )
}

/// A water's state classification as recorded (the `classification` attribute an ATTAINS
/// load keeps), trimmed; none when absent or blank.
pub(crate) fn classification(water: &Feature) -> Option<String> {
    water
        .extra
        .get("classification")
        .and_then(|v| v.as_str())
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
}
