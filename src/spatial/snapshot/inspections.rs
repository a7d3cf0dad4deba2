//! What the snapshot derives from the inspections layer, so that the questions asked of
//! it on every request (an asset's latest inspection, an asset's history, whether a
//! device's `Idempotency-Key` was seen) are lookups, not scans of a layer that grows by
//! every inspection ever recorded.

use chrono::NaiveDate;

use super::sharded::ShardedMap;
use super::LayerIndex;
use crate::domain::{Feature, Layer, Value};

/// The property an inspection's `Idempotency-Key` is kept in: stored with the inspection,
/// so a key survives restarts and is seen by every server on the registry.
pub const IDEMPOTENCY_KEY: &str = "idempotency_key";

/// The inspections layer, indexed by asset and by idempotency key.
#[derive(Debug, Clone, Default)]
pub(crate) struct InspectionIndex {
    /// The latest inspection day of each asset.
    last: ShardedMap<NaiveDate>,
    /// The ids of each asset's inspections, in the order the layer holds them.
    of_asset: ShardedMap<Vec<String>>,
    /// The inspection id each idempotency key was stored with.
    by_key: ShardedMap<String>,
}

/// The asset and day an inspection is of.
fn asset_and_day(i: &Feature) -> Option<(&str, NaiveDate)> {
    match (
        i.get(Layer::Inspections, "asset_id").as_str(),
        i.get(Layer::Inspections, "inspected_on"),
    ) {
        (Some(asset), Value::Date(d)) => Some((asset, *d)),
        _ => None,
    }
}

fn asset_of(i: &Feature) -> Option<&str> {
    i.get(Layer::Inspections, "asset_id").as_str()
}

fn key_of(i: &Feature) -> Option<&str> {
    i.extra.get(IDEMPOTENCY_KEY).and_then(|v| v.as_str())
}

impl InspectionIndex {
    /// Indexes a whole layer.
    pub(crate) fn build(inspections: &LayerIndex) -> Self {
        let mut last: rustc_hash::FxHashMap<&str, NaiveDate> = Default::default();
        let mut of_asset: rustc_hash::FxHashMap<&str, Vec<String>> = Default::default();
        let mut by_key = Vec::new();
        for i in &inspections.features {
            if let Some((asset, d)) = asset_and_day(i) {
                let e = last.entry(asset).or_insert(d);
                if d > *e {
                    *e = d;
                }
            }
            if let Some(asset) = asset_of(i) {
                of_asset.entry(asset).or_default().push(i.id.clone());
            }
            if let Some(k) = key_of(i) {
                by_key.push((k.to_string(), i.id.clone()));
            }
        }
        InspectionIndex {
            last: last.into_iter().map(|(a, d)| (a.to_string(), d)).collect(),
            of_asset: of_asset
                .into_iter()
                .map(|(a, ids)| (a.to_string(), ids))
                .collect(),
            by_key: by_key.into_iter().collect(),
        }
    }

    /// The index after `upserts` were written over `old`, copying only the shards they
    /// touch; `None` when an upsert moves an inspection that was already stored to
    /// another asset, day or key, since only a rebuild can tell what that took away.
    pub(crate) fn with_upserts(&self, old: &LayerIndex, upserts: &[Feature]) -> Option<Self> {
        let mut next = self.clone();
        for f in upserts {
            let before = old.get(&f.id);
            if let Some(o) = before {
                if asset_and_day(o) != asset_and_day(f)
                    || asset_of(o) != asset_of(f)
                    || key_of(o) != key_of(f)
                {
                    return None;
                }
            }
            if let Some((asset, day)) = asset_and_day(f) {
                let e = next.last.entry_or_insert(asset, day);
                if day > *e {
                    *e = day;
                }
            }
            if before.is_none() {
                if let Some(asset) = asset_of(f) {
                    next.of_asset
                        .entry_or_insert(asset, Vec::new())
                        .push(f.id.clone());
                }
                if let Some(k) = key_of(f) {
                    next.by_key.insert(k.to_string(), f.id.clone());
                }
            }
        }
        Some(next)
    }

    /// The day of an asset's latest inspection.
    pub(crate) fn last(&self, asset_id: &str) -> Option<NaiveDate> {
        self.last.get(asset_id).copied()
    }

    /// The ids of an asset's inspections.
    pub(crate) fn of_asset(&self, asset_id: &str) -> &[String] {
        self.of_asset.get(asset_id).map_or(&[], Vec::as_slice)
    }

    /// The id of the inspection stored with this idempotency key.
    pub(crate) fn by_key(&self, key: &str) -> Option<&str> {
        self.by_key.get(key).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inspection(id: &str, asset: &str, day: &str, key: Option<&str>) -> Feature {
        let mut f = Feature::new(Layer::Inspections, id);
        f.set(Layer::Inspections, "asset_id", Value::Text(asset.into()));
        f.set(
            Layer::Inspections,
            "inspected_on",
            Value::Date(day.parse().unwrap()),
        );
        if let Some(k) = key {
            f.extra.insert(IDEMPOTENCY_KEY.into(), k.into());
        }
        f
    }

    #[test]
    fn upserts_keep_the_index_equal_to_a_rebuild() {
        let layer = LayerIndex::new(vec![
            inspection("a1", "OF-1", "2026-05-01", Some("k1")),
            inspection("a2", "OF-1", "2026-06-01", None),
            inspection("b1", "OF-2", "2026-04-01", None),
        ]);
        let index = InspectionIndex::build(&layer);
        assert_eq!(index.last("OF-1"), Some("2026-06-01".parse().unwrap()));
        assert_eq!(index.of_asset("OF-1"), ["a1", "a2"]);
        assert_eq!(index.by_key("k1"), Some("a1"));
        assert_eq!(index.by_key("k2"), None);

        let new = vec![inspection("b2", "OF-2", "2026-07-01", Some("k2"))];
        let next = index.with_upserts(&layer, &new).expect("a new inspection");
        let rebuilt = InspectionIndex::build(&layer.with_upserts(new));
        for asset in ["OF-1", "OF-2", "OF-3"] {
            assert_eq!(next.last(asset), rebuilt.last(asset), "{asset}");
            assert_eq!(next.of_asset(asset), rebuilt.of_asset(asset), "{asset}");
        }
        assert_eq!(next.by_key("k2"), Some("b2"));
        // The index it came from is unchanged: another snapshot still reads it.
        assert_eq!(index.by_key("k2"), None);
        assert_eq!(index.of_asset("OF-2"), ["b1"]);
    }

    #[test]
    fn an_inspection_moved_to_another_asset_asks_for_a_rebuild() {
        let layer = LayerIndex::new(vec![inspection("a1", "OF-1", "2026-05-01", None)]);
        let index = InspectionIndex::build(&layer);
        let moved = [inspection("a1", "OF-2", "2026-05-01", None)];
        assert!(index.with_upserts(&layer, &moved).is_none());
        // Written again unchanged, it is not counted twice.
        let same = [inspection("a1", "OF-1", "2026-05-01", None)];
        let next = index.with_upserts(&layer, &same).expect("unchanged");
        assert_eq!(next.of_asset("OF-1"), ["a1"]);
    }
}
