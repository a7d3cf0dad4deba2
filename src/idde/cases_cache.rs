//! The cases of a snapshot, parsed once per generation of its cases layer.
//!
//! Every deadlines answer, report and case list reads all the cases; parsing their JSON
//! candidates and action logs is most of the cost of such an answer over ten thousand
//! cases. The parsed set is kept beside the layer it came from and shared (an `Arc`)
//! by every snapshot that shares that layer unchanged: a write to the cases layer (an
//! action, a closing, an outside edit the server reloads) makes a new layer, so the next
//! call parses again and never answers from cases that are no longer stored.
//!
//! The cache holds the layer weakly: a layer no snapshot uses any more is freed as
//! usual, and since a weak reference keeps its allocation, a new layer can never be
//! taken for a dead one at the same address.

use std::sync::{Arc, Mutex, Weak};

use super::case::{all_cases, Case};
use crate::domain::Layer;
use crate::spatial::snapshot::LayerIndex;
use crate::spatial::Snapshot;

/// Every readable case of one generation of the cases layer.
#[derive(Debug, Default)]
pub struct CaseSet {
    /// The cases, in the layer's order.
    pub cases: Vec<Case>,
    /// Why each unreadable case could not be read.
    pub unreadable: Vec<String>,
}

/// How many generations are kept: a process serving several registries (the tests, a
/// bench) keeps each one's current set; more would only keep old generations alive.
const KEPT: usize = 4;

type Entry = (Weak<LayerIndex>, Arc<CaseSet>);

static CACHE: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// The parsed cases of a snapshot: from the cache when its cases layer is the one they
/// were parsed from, else parsed now (outside the lock) and kept.
pub fn cases_of(snap: &Snapshot) -> Arc<CaseSet> {
    let layer = snap.layer_shared(Layer::Cases);
    let hit = |entries: &mut Vec<Entry>| {
        entries.retain(|(w, _)| w.strong_count() > 0);
        entries
            .iter()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&layer)))
            .map(|(_, set)| set.clone())
    };
    if let Some(set) = hit(&mut CACHE.lock().unwrap_or_else(|e| e.into_inner())) {
        return set;
    }
    let (cases, unreadable) = all_cases(snap);
    let set = Arc::new(CaseSet { cases, unreadable });
    let mut entries = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    // Another caller may have parsed the same generation meanwhile: keep one.
    if let Some(set) = hit(&mut entries) {
        return set;
    }
    if entries.len() >= KEPT {
        entries.remove(0);
    }
    entries.push((Arc::downgrade(&layer), set.clone()));
    set
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Feature, Value};
    use std::collections::HashMap;

    fn case(id: &str, opened: &str) -> Feature {
        let mut f = Feature::new(Layer::Cases, id);
        let on = chrono::NaiveDate::parse_from_str(opened, "%Y-%m-%d").unwrap();
        f.set(Layer::Cases, "opened_on", Value::Date(on));
        f.set(Layer::Cases, "origin", Value::Text("complaint".into()));
        f.set(Layer::Cases, "actions", Value::Text("[]".into()));
        f
    }

    #[test]
    fn a_write_to_the_cases_layer_is_seen_and_other_writes_share_the_set() {
        let meta = crate::import::crs::registry_meta("windsor-ct", 2260).unwrap();
        let mut layers = HashMap::new();
        layers.insert(Layer::Cases, vec![case("CASE-2026-0001", "2026-03-02")]);
        let snap = Snapshot::from_features(meta, layers);
        let a = cases_of(&snap);
        assert_eq!(a.cases.len(), 1);
        assert!(Arc::ptr_eq(&a, &cases_of(&snap)), "parsed once");
        // A write to another layer shares the cases layer, so the parsed set too.
        let other = snap.with_upserts(Layer::Parcels, Vec::new());
        assert!(Arc::ptr_eq(&a, &cases_of(&other)));
        // A write to the cases layer is a new generation: parsed again, with the case.
        let written = snap.with_upserts(Layer::Cases, vec![case("CASE-2026-0002", "2026-03-03")]);
        let b = cases_of(&written);
        assert_eq!(b.cases.len(), 2);
        // A reload of the layer (an outside edit): a new generation too.
        let reloaded = written.with_layer(Layer::Cases, vec![case("CASE-2026-0009", "2026-04-01")]);
        let c = cases_of(&reloaded);
        let ids: Vec<&str> = c.cases.iter().map(|c| c.case_id.as_str()).collect();
        assert_eq!(ids, ["CASE-2026-0009"]);
    }
}
