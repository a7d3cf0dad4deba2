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
use crate::store::{RegistryMeta, Result, Store};

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
}

impl Snapshot {
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
        Self::from_indexes(meta, layers)
    }

    fn from_indexes(meta: RegistryMeta, layers: HashMap<Layer, Arc<LayerIndex>>) -> Self {
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
        }
    }

    /// This snapshot with one layer's features replaced; every other layer is shared.
    pub fn with_layer(&self, layer: Layer, features: Vec<Feature>) -> Self {
        let mut layers = self.layers.clone();
        layers.insert(layer, Arc::new(LayerIndex::new(features)));
        Self::from_indexes(self.meta.clone(), layers)
    }

    /// Loads and indexes every layer of a store.
    pub async fn load(store: &dyn Store) -> Result<Self> {
        let meta = store.meta().await?;
        let layers = crate::store::load_all(store).await?;
        Ok(
            tokio::task::spawn_blocking(move || Snapshot::from_features(meta, layers))
                .await
                .expect("indexing does not panic"),
        )
    }

    /// One layer.
    pub fn layer(&self, layer: Layer) -> &LayerIndex {
        &self.layers[&layer]
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

/// The current snapshot, shared by all readers.
#[derive(Debug, Clone)]
pub struct SnapshotHandle {
    // A std RwLock held only to clone or replace the Arc: never across an await.
    inner: Arc<RwLock<Arc<Snapshot>>>,
    // The store generation the snapshot reflects, as far as the watcher knows.
    seen: Arc<std::sync::atomic::AtomicI64>,
}

impl SnapshotHandle {
    /// Wraps a first snapshot.
    pub fn new(s: Snapshot) -> Self {
        SnapshotHandle {
            inner: Arc::new(RwLock::new(Arc::new(s))),
            seen: Arc::default(),
        }
    }

    /// The current snapshot.
    pub fn current(&self) -> Arc<Snapshot> {
        self.inner.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Keeps the snapshot in step with writes committed by other processes (an analyst's
    /// `ms4 import` while the server runs): checks the store's generation every
    /// `interval` and reloads when it moved. Runs until the runtime stops.
    pub fn watch(
        &self,
        store: std::sync::Arc<dyn Store>,
        interval: std::time::Duration,
    ) -> tokio::task::JoinHandle<()> {
        let handle = self.clone();
        tokio::spawn(async move {
            use std::sync::atomic::Ordering;
            handle
                .seen
                .store(store.generation().await.unwrap_or(0), Ordering::SeqCst);
            loop {
                tokio::time::sleep(interval).await;
                match store.generation().await {
                    Ok(g) if g != handle.seen.load(Ordering::SeqCst) => match handle
                        .reload(store.as_ref())
                        .await
                    {
                        Ok(()) => {
                            tracing::info!(generation = g, "registry changed; snapshot reloaded");
                            handle.seen.store(g, Ordering::SeqCst);
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "reloading the snapshot failed; keeping the old one")
                        }
                    },
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "cannot read the registry's generation"),
                }
            }
        })
    }

    /// Reloads one layer from the store (after a write to it by this process) and swaps
    /// the new snapshot in; `seen` is the store's generation before that write, so that
    /// when no other process wrote meanwhile the watcher need not reload everything.
    pub async fn reload_layer(&self, store: &dyn Store, layer: Layer, seen: i64) -> Result<()> {
        let features = store.features(layer).await?;
        let now = store.generation().await?;
        let current = self.current();
        let next = tokio::task::spawn_blocking(move || current.with_layer(layer, features))
            .await
            .expect("indexing does not panic");
        *self.inner.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(next);
        if now == seen + 1 {
            self.seen.store(now, std::sync::atomic::Ordering::SeqCst);
        }
        Ok(())
    }

    /// Rebuilds from the store and swaps the new snapshot in.
    pub async fn reload(&self, store: &dyn Store) -> Result<()> {
        let next = Arc::new(Snapshot::load(store).await?);
        *self.inner.write().unwrap_or_else(|p| p.into_inner()) = next;
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
