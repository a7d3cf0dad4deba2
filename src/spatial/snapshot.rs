//! The snapshot: all layers in memory, one `rstar` R-tree per layer.
//!
//! Readers take an `Arc<Snapshot>` and keep it as long as they like; a committed write
//! builds a whole new snapshot and swaps the pointer, so a reader never sees half of a
//! write and never waits for one.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use geo_types::Geometry;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::RTree;

use crate::domain::{wkb, Feature, Layer};
use crate::store::{LayerRows, RegistryMeta, Result, Store, UnreadableRow};

/// The snapshot's R-tree node sizes: wider nodes than rstar's default (6), because the
/// trees are bulk-loaded once and only read, and a nearby query over half a million
/// structures is bound by how many nodes it visits, each one a cache miss.
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
#[derive(Debug, Default)]
pub struct LayerIndex {
    /// The features, ordered by id.
    pub features: Vec<Feature>,
    /// Envelopes of the features that have a geometry.
    pub tree: RTree<Entry, Nodes>,
    /// Feature position by id.
    pub by_id: HashMap<String, usize>,
}

impl LayerIndex {
    /// Indexes features (bulk-loaded, which gives a better tree than inserting one by one).
    pub fn new(features: Vec<Feature>) -> Self {
        let entries: Vec<Entry> = features
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let r = wkb::bounding_rect(f.geom.as_ref()?)?;
                Some(GeomWithData::new(
                    Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]),
                    i,
                ))
            })
            .collect();
        let by_id = features
            .iter()
            .enumerate()
            .map(|(i, f)| (f.id.clone(), i))
            .collect();
        LayerIndex {
            features,
            tree: RTree::bulk_load_with_params(entries),
            by_id,
        }
    }

    /// A feature by id.
    pub fn get(&self, id: &str) -> Option<&Feature> {
        self.by_id.get(id).map(|i| &self.features[*i])
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
    /// The latest inspection date of each asset, derived once per snapshot because every
    /// nearby answer and inspection list asks for it.
    last_inspection: rustc_hash::FxHashMap<String, chrono::NaiveDate>,
    /// The pollutants each water is listed for, derived once: receiving-water answers ask
    /// for every water of every parcel.
    pollutants: rustc_hash::FxHashMap<String, Vec<String>>,
    /// Stored rows left out because they cannot be read, by layer (reported, not served).
    unreadable: HashMap<Layer, Arc<Vec<UnreadableRow>>>,
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
        let mut last_inspection: rustc_hash::FxHashMap<String, chrono::NaiveDate> =
            Default::default();
        for i in &layers[&Layer::Inspections].features {
            let (Some(asset), crate::domain::Value::Date(d)) = (
                i.get(Layer::Inspections, "asset_id").as_str(),
                i.get(Layer::Inspections, "inspected_on"),
            ) else {
                continue;
            };
            let e = last_inspection.entry(asset.to_string()).or_insert(*d);
            if *d > *e {
                *e = *d;
            }
        }
        let mut pollutants: rustc_hash::FxHashMap<String, Vec<String>> = Default::default();
        for i in &layers[&Layer::Impairments].features {
            if let (Some(w), Some(p)) = (
                i.get(Layer::Impairments, "water_id").as_str(),
                i.get(Layer::Impairments, "pollutant").as_str(),
            ) {
                let list = pollutants.entry(w.to_string()).or_default();
                if !list.iter().any(|x| x == p) {
                    list.push(p.to_string());
                }
            }
        }
        for list in pollutants.values_mut() {
            list.sort();
        }
        Snapshot {
            meta,
            layers,
            last_inspection,
            pollutants,
            unreadable,
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
        layers.insert(layer, Arc::new(LayerIndex::new(rows.features)));
        let mut unreadable = self.unreadable.clone();
        if rows.unreadable.is_empty() {
            unreadable.remove(&layer);
        } else {
            unreadable.insert(layer, Arc::new(rows.unreadable));
        }
        Self::from_indexes(self.meta.clone(), layers, unreadable)
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
        self.last_inspection.get(asset_id).copied()
    }

    /// The pollutants a water is listed for in the impairments table (sorted; empty when none).
    pub fn pollutants(&self, water_id: &str) -> &[String] {
        self.pollutants.get(water_id).map_or(&[], Vec::as_slice)
    }

    /// A feature's geometry by layer and id.
    pub fn geometry(&self, layer: Layer, id: &str) -> Option<&Geometry<f64>> {
        self.layer(layer).get(id)?.geom.as_ref()
    }
}

fn log_unreadable(rows: &[UnreadableRow]) {
    for u in rows {
        tracing::warn!(
            layer = %u.layer,
            id = u.id.as_deref().unwrap_or("?"),
            reason = %u.reason,
            "stored row cannot be read; it is left out of the snapshot"
        );
    }
}

/// The current snapshot, shared by all readers.
#[derive(Debug, Clone)]
pub struct SnapshotHandle {
    // A std RwLock held only to clone or replace the Arc: never across an await.
    inner: Arc<RwLock<Arc<Snapshot>>>,
    // Each layer's change number the snapshot reflects, as far as this process knows.
    seen: Arc<std::sync::Mutex<HashMap<Layer, i64>>>,
    // Held (across awaits, hence tokio's) from reading a layer to swapping the snapshot,
    // so two reloads of different layers cannot each start from the same snapshot and
    // the second swap lose the first one's layer.
    reloading: Arc<tokio::sync::Mutex<()>>,
}

impl SnapshotHandle {
    /// Wraps a first snapshot.
    pub fn new(s: Snapshot) -> Self {
        SnapshotHandle {
            inner: Arc::new(RwLock::new(Arc::new(s))),
            seen: Arc::default(),
            reloading: Arc::default(),
        }
    }

    /// Loads a first snapshot from a store, remembering the change numbers read before
    /// it, so a watcher started later misses no write committed meanwhile.
    pub async fn load(store: &dyn Store) -> Result<Self> {
        let changes = store.changes().await?;
        let h = Self::new(Snapshot::load(store).await?);
        *h.seen() = changes;
        Ok(h)
    }

    /// The current snapshot.
    pub fn current(&self) -> Arc<Snapshot> {
        self.inner.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn swap(&self, next: Snapshot) {
        *self.inner.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<Layer, i64>> {
        self.seen.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps the snapshot in step with writes committed by anyone else — an analyst's
    /// `ms4 import` while the server runs, or an edit in QGIS or psql, which the store's
    /// triggers count: reads every layer's change number every `interval` and reloads
    /// just the layers whose number moved. Runs until the runtime stops.
    pub fn watch(
        &self,
        store: std::sync::Arc<dyn Store>,
        interval: std::time::Duration,
    ) -> tokio::task::JoinHandle<()> {
        let handle = self.clone();
        tokio::spawn(async move {
            // The snapshot was loaded before this: anything counted since is reloaded
            // at the first turn, which at worst reloads a layer once for nothing.
            if let Ok(c) = store.changes().await {
                let mut seen = handle.seen();
                for (l, n) in c {
                    seen.entry(l).or_insert(n);
                }
            }
            loop {
                tokio::time::sleep(interval).await;
                let changes = match store.changes().await {
                    Ok(c) => c,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot read the registry's change numbers");
                        continue;
                    }
                };
                let stale: Vec<Layer> = {
                    let seen = handle.seen();
                    let mut v: Vec<Layer> = changes
                        .iter()
                        .filter(|(l, n)| seen.get(l) != Some(n))
                        .map(|(l, _)| *l)
                        .collect();
                    v.sort();
                    v
                };
                for layer in stale {
                    match handle.reload_layer(store.as_ref(), layer, 0).await {
                        Ok(()) => tracing::info!(%layer, "layer changed in the store; reloaded"),
                        Err(e) => {
                            tracing::warn!(%layer, error = %e, "reloading a layer failed; keeping the old one")
                        }
                    }
                }
            }
        })
    }

    /// Reloads one layer from the store (after a write to it) and swaps the new snapshot
    /// in. The layer's change number is read before the layer, so a write committed in
    /// between raises it again and the watcher reloads once more: nothing is missed.
    /// (`_seen`, the generation before the write, is no longer needed.)
    pub async fn reload_layer(&self, store: &dyn Store, layer: Layer, _seen: i64) -> Result<()> {
        let _one_at_a_time = self.reloading.lock().await;
        let number = store.changes().await?.get(&layer).copied();
        let rows = store.read_layer(layer).await?;
        log_unreadable(&rows.unreadable);
        let current = self.current();
        let next = tokio::task::spawn_blocking(move || current.with_layer_rows(layer, rows))
            .await
            .expect("indexing does not panic");
        self.swap(next);
        if let Some(n) = number {
            self.seen().insert(layer, n);
        }
        Ok(())
    }

    /// Rebuilds from the store and swaps the new snapshot in.
    pub async fn reload(&self, store: &dyn Store) -> Result<()> {
        let _one_at_a_time = self.reloading.lock().await;
        let changes = store.changes().await?;
        let next = Snapshot::load(store).await?;
        self.swap(next);
        *self.seen() = changes;
        Ok(())
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
