//! The snapshot: all layers in memory, one `rstar` R-tree per layer.
//!
//! Readers take an `Arc<Snapshot>` and keep it as long as they like; a committed write
//! builds a new snapshot and swaps the pointer, so a reader never sees half of a write
//! and never waits for one. The new snapshot shares what the write did not touch: every
//! other layer, and for a small write through [`SnapshotHandle::write`] (an inspection)
//! every feature, id and derived entry of its own layer but the ones it changed, so its
//! cost does not grow with the layer's history.

mod features;
mod handle;
mod inspections;
mod sharded;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use features::Features;
pub use handle::{SnapshotHandle, Writing};
use inspections::InspectionIndex;
pub use inspections::IDEMPOTENCY_KEY;
use sharded::ShardedMap;

use geo_types::Geometry;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::RTree;

use crate::domain::{wkb, Feature, Layer};
use crate::store::{LayerRows, RegistryMeta, Result, Store, UnreadableRow};

/// The snapshot's R-tree node sizes: wider nodes than rstar's default (6), because the
/// trees are bulk-loaded once and only read, and a nearby query over half a million
/// structures is bound by how many nodes it visits, each one a cache miss.
#[derive(Debug, Clone, Copy)]
pub struct Nodes;

impl rstar::RTreeParams for Nodes {
    const MIN_SIZE: usize = 8;
    const MAX_SIZE: usize = 16;
    const REINSERTION_COUNT: usize = 4;
    type DefaultInsertionStrategy = rstar::RStarInsertionStrategy;
}

/// An R-tree entry: a feature's envelope and its index in [`LayerIndex::features`].
pub type Entry = GeomWithData<Rectangle<[f64; 2]>, usize>;

/// One layer in memory.
#[derive(Debug, Default, Clone)]
pub struct LayerIndex {
    /// The features: as loaded, in id order, then those written through this server's
    /// handle since, in the order written.
    pub features: Features,
    /// Envelopes of the features that have a geometry.
    pub tree: Arc<RTree<Entry, Nodes>>,
    /// Feature position by id.
    by_id: ShardedMap<usize>,
}

fn entry(f: &Feature, i: usize) -> Option<Entry> {
    let r = wkb::bounding_rect(f.geom.as_ref()?)?;
    Some(GeomWithData::new(
        Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]),
        i,
    ))
}

impl LayerIndex {
    /// Indexes features (bulk-loaded, which gives a better tree than inserting one by one).
    pub fn new(features: Vec<Feature>) -> Self {
        let entries: Vec<Entry> = features
            .iter()
            .enumerate()
            .filter_map(|(i, f)| entry(f, i))
            .collect();
        let by_id = features
            .iter()
            .enumerate()
            .map(|(i, f)| (f.id.clone(), i))
            .collect();
        LayerIndex {
            features: Features::new(features),
            tree: Arc::new(RTree::bulk_load_with_params(entries)),
            by_id,
        }
    }

    /// A feature by id.
    pub fn get(&self, id: &str) -> Option<&Feature> {
        self.by_id.get(id).map(|i| &self.features[*i])
    }

    /// This layer with features inserted or overwritten by id. New features are appended
    /// and features added so are overwritten in place, copying one chunk of features and
    /// one shard of ids; overwriting a feature as loaded rebuilds the layer from memory
    /// (in id order again), which only a write that is not an addition pays.
    pub fn with_upserts(&self, upserts: Vec<Feature>) -> LayerIndex {
        let patches_loaded = upserts.iter().any(|f| {
            self.by_id
                .get(&f.id)
                .is_some_and(|&i| self.features.in_base(i))
        });
        if patches_loaded {
            let mut all = self.features.to_vec();
            let mut added = Vec::new();
            for f in upserts {
                match self.by_id.get(&f.id) {
                    Some(&i) => all[i] = f,
                    None => added.push(f),
                }
            }
            all.extend(added);
            all.sort_by(|a, b| a.id.cmp(&b.id));
            all.dedup_by(|b, a| a.id == b.id);
            return LayerIndex::new(all);
        }
        let mut next = self.clone();
        for f in upserts {
            match next.by_id.get(&f.id).copied() {
                Some(i) => {
                    let new_entry = entry(&f, i);
                    let old = next.features.replace_in_tail(i, f);
                    let old_entry = old.as_ref().and_then(|o| entry(o, i));
                    if old_entry != new_entry {
                        let tree = Arc::make_mut(&mut next.tree);
                        if let Some(e) = old_entry {
                            tree.remove(&e);
                        }
                        if let Some(e) = new_entry {
                            tree.insert(e);
                        }
                    }
                }
                None => {
                    let id = f.id.clone();
                    let e = entry(&f, next.features.len());
                    let i = next.features.push(f);
                    next.by_id.insert(id, i);
                    if let Some(e) = e {
                        Arc::make_mut(&mut next.tree).insert(e);
                    }
                }
            }
        }
        next
    }

    /// Features whose envelope meets a rectangle `[minx, miny, maxx, maxy]`.
    pub fn in_envelope(&self, bbox: [f64; 4]) -> impl Iterator<Item = &Feature> {
        let env = rstar::AABB::from_corners([bbox[0], bbox[1]], [bbox[2], bbox[3]]);
        self.tree
            .locate_in_envelope_intersecting(&env)
            .map(move |e| &self.features[e.data])
    }

    /// The union of the features' envelopes, `[minx, miny, maxx, maxy]`.
    pub fn extent(&self) -> Option<[f64; 4]> {
        if self.tree.size() == 0 {
            return None;
        }
        let env = self.tree.root().envelope();
        let (lo, hi) = (env.lower(), env.upper());
        Some([lo[0], lo[1], hi[0], hi[1]])
    }
}

/// Every layer of a registry at one moment.
#[derive(Debug)]
pub struct Snapshot {
    /// The registry's jurisdiction and CRS.
    pub meta: RegistryMeta,
    // Each layer behind its own Arc, so a write to one layer (an inspection) makes a new
    // snapshot that shares every other layer instead of reloading the registry.
    layers: HashMap<Layer, Arc<LayerIndex>>,
    /// Each asset's latest inspection and inspections, and the idempotency keys seen,
    /// derived once per snapshot because every nearby answer, card and inspection POST
    /// asks for them (and kept up by each inspection written through the handle).
    inspections: InspectionIndex,
    /// The pollutants each water is listed for and the latest list cycle, derived once:
    /// receiving-water answers ask for every water of every parcel (and screening a
    /// county's parcels looked for the latest cycle a million times).
    pollutants: Arc<Impairments>,
    /// Stored rows left out because they cannot be read, by layer (reported, not served).
    unreadable: HashMap<Layer, Arc<Vec<UnreadableRow>>>,
    /// Which of this process's snapshots is newer: each one made gets the next number.
    pub seq: u64,
}

/// The number the next snapshot made gets.
static NEXT_SEQ: AtomicU64 = AtomicU64::new(1);

fn next_seq() -> u64 {
    NEXT_SEQ.fetch_add(1, Ordering::Relaxed)
}

impl Snapshot {
    /// Builds a snapshot from layers as read from a store, unreadable rows included.
    pub fn from_rows(meta: RegistryMeta, layers: HashMap<Layer, LayerRows>) -> Self {
        let mut features = HashMap::new();
        let mut unreadable = HashMap::new();
        for (l, rows) in layers {
            features.insert(l, rows.features);
            if !rows.unreadable.is_empty() {
                unreadable.insert(l, Arc::new(rows.unreadable));
            }
        }
        let mut s = Self::from_features(meta, features);
        s.unreadable = unreadable;
        s
    }

    /// Builds a snapshot from features already loaded.
    pub fn from_features(meta: RegistryMeta, mut layers: HashMap<Layer, Vec<Feature>>) -> Self {
        let layers: HashMap<Layer, Arc<LayerIndex>> = Layer::ALL
            .into_iter()
            .map(|l| {
                (
                    l,
                    Arc::new(LayerIndex::new(layers.remove(&l).unwrap_or_default())),
                )
            })
            .collect();
        Self::from_indexes(meta, layers, HashMap::new())
    }

    fn from_indexes(
        meta: RegistryMeta,
        layers: HashMap<Layer, Arc<LayerIndex>>,
        unreadable: HashMap<Layer, Arc<Vec<UnreadableRow>>>,
    ) -> Self {
        Snapshot {
            inspections: InspectionIndex::build(&layers[&Layer::Inspections]),
            pollutants: Arc::new(pollutants_of(&layers[&Layer::Impairments])),
            meta,
            layers,
            unreadable,
            seq: next_seq(),
        }
    }

    /// This snapshot with features of one layer inserted or overwritten by id (as a
    /// committed upsert wrote them); everything else is shared (see
    /// [`LayerIndex::with_upserts`]). What is derived from the layer follows: the last
    /// inspection of each asset an inspection names, the pollutants of each water.
    pub fn with_upserts(&self, layer: Layer, upserts: Vec<Feature>) -> Self {
        let old = &self.layers[&layer];
        let derived = match layer {
            Layer::Inspections => self.inspections.with_upserts(old, &upserts),
            _ => Some(self.inspections.clone()),
        };
        let mut unreadable = self.unreadable.clone();
        if let Some(rows) = self.unreadable.get(&layer) {
            // A row written again is readable now.
            let written: std::collections::HashSet<&str> =
                upserts.iter().map(|f| f.id.as_str()).collect();
            let left: Vec<UnreadableRow> = rows
                .iter()
                .filter(|u| !u.id.as_deref().is_some_and(|id| written.contains(id)))
                .cloned()
                .collect();
            if left.is_empty() {
                unreadable.remove(&layer);
            } else {
                unreadable.insert(layer, Arc::new(left));
            }
        }
        let next = Arc::new(old.with_upserts(upserts));
        // An inspection moved to another asset, day or key may have been what the index
        // said of its old one: index again (a POST never does this; its id is the asset,
        // day and kind).
        let inspections = derived.unwrap_or_else(|| InspectionIndex::build(&next));
        let pollutants = if layer == Layer::Impairments {
            Arc::new(pollutants_of(&next))
        } else {
            self.pollutants.clone()
        };
        let mut layers = self.layers.clone();
        layers.insert(layer, next);
        Snapshot {
            meta: self.meta.clone(),
            layers,
            inspections,
            pollutants,
            unreadable,
            seq: next_seq(),
        }
    }

    /// This snapshot with one layer's features replaced; every other layer is shared.
    pub fn with_layer(&self, layer: Layer, features: Vec<Feature>) -> Self {
        self.with_layer_rows(
            layer,
            LayerRows {
                features,
                unreadable: Vec::new(),
            },
        )
    }

    /// This snapshot with one layer replaced as read from a store, unreadable rows
    /// included; every other layer is shared.
    pub fn with_layer_rows(&self, layer: Layer, rows: LayerRows) -> Self {
        let mut layers = self.layers.clone();
        let index = Arc::new(LayerIndex::new(rows.features));
        let mut unreadable = self.unreadable.clone();
        if rows.unreadable.is_empty() {
            unreadable.remove(&layer);
        } else {
            unreadable.insert(layer, Arc::new(rows.unreadable));
        }
        // Only what is derived from this layer is derived again.
        let inspections = match layer {
            Layer::Inspections => InspectionIndex::build(&index),
            _ => self.inspections.clone(),
        };
        let pollutants = match layer {
            Layer::Impairments => Arc::new(pollutants_of(&index)),
            _ => self.pollutants.clone(),
        };
        layers.insert(layer, index);
        Snapshot {
            meta: self.meta.clone(),
            layers,
            inspections,
            pollutants,
            unreadable,
            seq: next_seq(),
        }
    }

    /// Loads and indexes every layer of a store. Rows that cannot be read are left out,
    /// logged and kept for data-quality reports ([`Snapshot::unreadable`]).
    pub async fn load(store: &dyn Store) -> Result<Self> {
        let meta = store.meta().await?;
        let layers = crate::store::load_all(store).await?;
        for rows in layers.values() {
            log_unreadable(&rows.unreadable);
        }
        Ok(
            tokio::task::spawn_blocking(move || Snapshot::from_rows(meta, layers))
                .await
                .expect("indexing does not panic"),
        )
    }

    /// The stored rows left out of this snapshot because they cannot be read, by layer.
    pub fn unreadable(&self) -> Vec<&UnreadableRow> {
        let mut layers: Vec<_> = self.unreadable.keys().copied().collect();
        layers.sort();
        layers
            .into_iter()
            .flat_map(|l| self.unreadable[&l].iter())
            .collect()
    }

    /// One layer.
    pub fn layer(&self, layer: Layer) -> &LayerIndex {
        &self.layers[&layer]
    }

    /// One layer, shared: a cache derived from a layer (the tiles' Web Mercator copy) keys
    /// itself on this `Arc`, which outlives snapshots that share the layer unchanged.
    pub fn layer_shared(&self, layer: Layer) -> Arc<LayerIndex> {
        self.layers[&layer].clone()
    }

    /// The date of an asset's latest inspection, if it has one.
    pub fn last_inspection(&self, asset_id: &str) -> Option<chrono::NaiveDate> {
        self.inspections.last(asset_id)
    }

    /// An asset's inspections, in the order the layer holds them.
    pub fn inspections_of(&self, asset_id: &str) -> impl Iterator<Item = &Feature> {
        let layer = self.layer(Layer::Inspections);
        self.inspections
            .of_asset(asset_id)
            .iter()
            .filter_map(move |id| layer.get(id))
    }

    /// The inspection stored with this `Idempotency-Key`, if any.
    pub fn inspection_with_key(&self, key: &str) -> Option<&Feature> {
        self.layer(Layer::Inspections)
            .get(self.inspections.by_key(key)?)
    }

    /// The pollutants a water is listed for in the impairments table (sorted; empty when none).
    pub fn pollutants(&self, water_id: &str) -> &[String] {
        self.pollutants
            .by_water
            .get(water_id)
            .map_or(&[], Vec::as_slice)
    }

    /// A water's impairment rows (pollutant and list cycle), in the layer's order.
    pub fn impairment_rows(&self, water_id: &str) -> &[ImpairmentRow] {
        self.pollutants
            .rows
            .get(water_id)
            .map_or(&[], Vec::as_slice)
    }

    /// The latest 303(d) list cycle in the impairments table, if any row records one.
    pub fn latest_cycle(&self) -> Option<i64> {
        self.pollutants.latest_cycle
    }

    /// A feature's geometry by layer and id.
    pub fn geometry(&self, layer: Layer, id: &str) -> Option<&Geometry<f64>> {
        self.layer(layer).get(id)?.geom.as_ref()
    }
}

/// What the impairments layer says of every water, derived once per snapshot.
#[derive(Debug)]
struct Impairments {
    /// Each water's pollutants, sorted.
    by_water: rustc_hash::FxHashMap<String, Vec<String>>,
    /// Each water's rows: pollutant (none when blank) and list cycle, in the layer's order.
    rows: rustc_hash::FxHashMap<String, Vec<ImpairmentRow>>,
    /// The latest list cycle a row names.
    latest_cycle: Option<i64>,
}

/// One impairment row of a water: its pollutant and list cycle.
pub type ImpairmentRow = (Option<String>, Option<i64>);

fn pollutants_of(impairments: &LayerIndex) -> Impairments {
    let mut by_water: rustc_hash::FxHashMap<String, Vec<String>> = Default::default();
    let mut rows: rustc_hash::FxHashMap<String, Vec<ImpairmentRow>> = Default::default();
    for i in &impairments.features {
        if let Some(w) = i.get(Layer::Impairments, "water_id").as_str() {
            rows.entry(w.to_string()).or_default().push((
                i.get(Layer::Impairments, "pollutant")
                    .as_str()
                    .map(str::to_string),
                i.get(Layer::Impairments, "cycle")
                    .as_f64()
                    .map(|c| c as i64),
            ));
        }
        if let (Some(w), Some(p)) = (
            i.get(Layer::Impairments, "water_id").as_str(),
            i.get(Layer::Impairments, "pollutant").as_str(),
        ) {
            let list = by_water.entry(w.to_string()).or_default();
            if !list.iter().any(|x| x == p) {
                list.push(p.to_string());
            }
        }
    }
    for list in by_water.values_mut() {
        list.sort();
    }
    let latest_cycle = impairments
        .features
        .iter()
        .filter_map(|i| {
            i.get(Layer::Impairments, "cycle")
                .as_f64()
                .map(|c| c as i64)
        })
        .max();
    Impairments {
        by_water,
        rows,
        latest_cycle,
    }
}

pub(super) fn log_unreadable(rows: &[UnreadableRow]) {
    for u in rows {
        tracing::warn!(
            layer = %u.layer,
            id = u.id.as_deref().unwrap_or("?"),
            reason = %u.reason,
            "stored row cannot be read; it is left out of the snapshot"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;

    fn feature(id: &str, g: Geometry<f64>) -> Feature {
        let mut f = Feature::new(Layer::CatchBasins, id);
        f.geom = Some(g);
        f
    }

    #[test]
    fn envelope_query_finds_exactly_the_features_whose_boxes_meet_it() {
        let idx = LayerIndex::new(vec![
            feature("a", wkt!(POINT(0. 0.)).into()),
            feature("b", wkt!(POINT(10. 10.)).into()),
            feature("c", wkt!(LINESTRING(20. 0.,30. 5.)).into()),
            Feature::new(Layer::CatchBasins, "no-geometry"),
        ]);
        let mut hits: Vec<&str> = idx
            .in_envelope([-1.0, -1.0, 10.0, 10.0])
            .map(|f| f.id.as_str())
            .collect();
        hits.sort();
        assert_eq!(hits, ["a", "b"]);
        let hits: Vec<&str> = idx
            .in_envelope([25.0, 2.0, 26.0, 3.0])
            .map(|f| f.id.as_str())
            .collect();
        assert_eq!(hits, ["c"]);
        assert_eq!(idx.extent(), Some([0.0, 0.0, 30.0, 10.0]));
        assert_eq!(idx.get("no-geometry").map(|f| f.geom.is_none()), Some(true));
        assert_eq!(idx.tree.size(), 3);
    }
}
