//! The handle every request reads the current snapshot through, and how writes (an
//! inspection, an upload, an outside edit the watcher sees) bring it up to date.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use super::{log_unreadable, Snapshot};
use crate::domain::{Feature, Layer};
use crate::store::{Result, Store};

/// Up to this many features a write applies to the snapshot on the request's own
/// thread; more go to a blocking thread.
const INLINE_UPSERTS: usize = 2000;

/// The current snapshot, shared by all readers.
#[derive(Debug, Clone)]
pub struct SnapshotHandle {
    // A std RwLock held only to clone or replace the Arc: never across an await.
    inner: Arc<RwLock<Arc<Snapshot>>>,
    // Each layer's change number the snapshot reflects, as far as this process knows.
    seen: Arc<std::sync::Mutex<HashMap<Layer, i64>>>,
    // Held (across awaits, hence tokio's) from reading a layer to swapping the snapshot,
    // so two reloads of different layers cannot each start from the same snapshot and
    // the second swap lose the first one's layer; also held by a write through the
    // handle from its commit's start to its swap, so writes apply in commit order.
    reloading: Arc<tokio::sync::Mutex<()>>,
    // How many times a layer (or everything) was read whole from the store.
    layer_reads: Arc<AtomicU64>,
    // Writes under way through this handle that it will bring the snapshot up to itself
    // (an upload), by layer: the watcher leaves these layers alone meanwhile, or it would
    // read a whole layer again for a write about to be applied from its features.
    applying: Arc<std::sync::Mutex<HashMap<Layer, usize>>>,
}

/// A write under way through a [`SnapshotHandle`] (see [`SnapshotHandle::writing`]); the
/// watcher again reloads its layer when it sees a change once this is dropped.
#[derive(Debug)]
pub struct Writing {
    applying: Arc<std::sync::Mutex<HashMap<Layer, usize>>>,
    layer: Layer,
}

impl Drop for Writing {
    fn drop(&mut self) {
        let mut a = self.applying.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = a.get_mut(&self.layer) {
            *n -= 1;
            if *n == 0 {
                a.remove(&self.layer);
            }
        }
    }
}

impl SnapshotHandle {
    /// Wraps a first snapshot.
    pub fn new(s: Snapshot) -> Self {
        SnapshotHandle {
            inner: Arc::new(RwLock::new(Arc::new(s))),
            seen: Arc::default(),
            reloading: Arc::default(),
            layer_reads: Arc::default(),
            applying: Arc::default(),
        }
    }

    /// How many times this handle has read a layer whole from the store (a reload after
    /// an import or an outside edit; a full reload counts once per layer). A write
    /// through [`SnapshotHandle::write`] that was the only one since the snapshot adds
    /// none: that is what keeps an inspection's cost from growing with the layer.
    pub fn layer_reads(&self) -> u64 {
        self.layer_reads.load(Ordering::Relaxed)
    }

    /// Writes features in one transaction and brings the snapshot up to it. When the
    /// layer's change number shows the write was the only one since the snapshot's, an
    /// upsert is applied to the snapshot from the features written (no read of the
    /// layer); otherwise (a replace, or someone else wrote the layer meanwhile) the layer
    /// is reloaded. A write that fails leaves the snapshot as it was.
    pub async fn write(
        &self,
        store: &dyn Store,
        req: crate::store::WriteRequest,
        features: Vec<Feature>,
        report: serde_json::Value,
    ) -> Result<crate::store::WriteSummary> {
        let _in_commit_order = self.reloading.lock().await;
        let layer = req.layer;
        let upsert = req.mode == crate::store::WriteMode::Upsert;
        // Kept to apply after the commit; a copy, because the store takes its own.
        let written = upsert.then(|| features.clone());
        let summary = crate::store::write_all(store, req, features, report).await?;
        let change = summary
            .change
            .expect("a committed write reports its change number");
        let in_step = change.before == self.seen().get(&layer).copied();
        match written {
            Some(written) if in_step => self.apply_upserts(layer, written, change.after).await,
            _ => self.reload_layer_locked(store, layer).await?,
        }
        Ok(summary)
    }

    /// Changes one stored feature by a rule applied to it as stored, in one transaction
    /// (see [`crate::store::update`]), and brings the snapshot up to what was written:
    /// the snapshot is never what the rule is applied to. Each layer written is applied
    /// from the features written when the write was the only one to it since the
    /// snapshot's, else reloaded (another process wrote it meanwhile).
    pub async fn update(
        &self,
        store: &dyn Store,
        req: crate::store::WriteRequest,
        report: serde_json::Value,
        id: String,
        apply: crate::store::update::Apply,
    ) -> Result<Vec<crate::store::update::Written>> {
        let _in_commit_order = self.reloading.lock().await;
        let written = store.update_feature(req, report, id, apply).await?;
        for w in &written {
            let change = w
                .summary
                .change
                .expect("a committed write reports its change number");
            if change.before == self.seen().get(&w.layer).copied() {
                self.apply_upserts(w.layer, w.features.clone(), change.after)
                    .await;
            } else {
                self.reload_layer_locked(store, w.layer).await?;
            }
        }
        Ok(written)
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
                    let applying = handle
                        .applying
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .clone();
                    let seen = handle.seen();
                    let mut v: Vec<Layer> = changes
                        .iter()
                        .filter(|(l, n)| seen.get(l) != Some(n) && !applying.contains_key(l))
                        .map(|(l, _)| *l)
                        .collect();
                    v.sort();
                    v
                };
                for layer in stale {
                    match handle
                        .reload_if_stale(store.as_ref(), layer, changes[&layer])
                        .await
                    {
                        Ok(false) => {}
                        Ok(true) => tracing::info!(%layer, "layer changed in the store; reloaded"),
                        Err(e) => {
                            tracing::warn!(%layer, error = %e, "reloading a layer failed; keeping the old one");
                        }
                    }
                }
            }
        })
    }

    /// Marks a write to `layer` under way that [`SnapshotHandle::after_import`] will
    /// apply: until the guard is dropped, the watcher does not reload the layer.
    pub fn writing(&self, layer: Layer) -> Writing {
        *self
            .applying
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(layer)
            .or_default() += 1;
        Writing {
            applying: self.applying.clone(),
            layer,
        }
    }

    /// Brings the snapshot up to an import committed to `layer` (an upload). When the
    /// write was the only one to the layer since the snapshot's and it only added
    /// features (nothing updated or deleted), and `kept` holds the features it was
    /// handed, the new ones are appended to the snapshot's layer, which shares every
    /// feature it had: an upload of ten catch basins into a layer of 370,000 no longer
    /// holds a second copy of the layer while it is read and indexed again. Otherwise
    /// (an update, a replace, a write too large to keep, another write in between) the
    /// layer is read again from the store.
    pub async fn after_import(
        &self,
        store: &dyn Store,
        layer: Layer,
        written: Option<&crate::store::WriteSummary>,
        kept: Option<Vec<Feature>>,
    ) -> Result<()> {
        let _in_commit_order = self.reloading.lock().await;
        let Some((written, change)) = written.and_then(|w| Some((w, w.change?))) else {
            return self.reload_layer_locked(store, layer).await;
        };
        let seen = self.seen().get(&layer).copied();
        if seen == Some(change.after) {
            return Ok(());
        }
        let current = self.current();
        let added = kept.filter(|_| seen == change.before).and_then(|kept| {
            let old = current.layer(layer);
            let added: Vec<Feature> = kept
                .into_iter()
                .filter(|f| old.get(&f.id).is_none())
                .collect();
            (written.updated == 0 && written.deleted == 0 && added.len() as u64 == written.inserted)
                .then_some(added)
        });
        match added {
            Some(added) => {
                self.apply_upserts(layer, added, change.after).await;
                Ok(())
            }
            None => self.reload_layer_locked(store, layer).await,
        }
    }

    /// Applies features a committed write upserted to the current snapshot, which then
    /// stands at the layer's change number `after`. Call with `reloading` held.
    async fn apply_upserts(&self, layer: Layer, features: Vec<Feature>, after: i64) {
        let current = self.current();
        let next = if features.len() <= INLINE_UPSERTS {
            current.with_upserts(layer, features)
        } else {
            tokio::task::spawn_blocking(move || current.with_upserts(layer, features))
                .await
                .expect("indexing does not panic")
        };
        self.swap(next);
        self.seen().insert(layer, after);
    }

    /// Reloads one layer from the store (after a write to it) and swaps the new snapshot
    /// in. The layer's change number is read before the layer, so a write committed in
    /// between raises it again and the watcher reloads once more: nothing is missed.
    /// (`_seen`, the generation before the write, is no longer needed.)
    pub async fn reload_layer(&self, store: &dyn Store, layer: Layer, _seen: i64) -> Result<()> {
        let _one_at_a_time = self.reloading.lock().await;
        self.reload_layer_locked(store, layer).await
    }

    /// Reloads a layer the watcher saw at change number `number`, unless the snapshot
    /// has reached that number meanwhile (a write through this handle, which the
    /// watcher saw committed before the handle had applied it); returns whether it
    /// reloaded.
    async fn reload_if_stale(&self, store: &dyn Store, layer: Layer, number: i64) -> Result<bool> {
        let _one_at_a_time = self.reloading.lock().await;
        if self.seen().get(&layer) == Some(&number) {
            return Ok(false);
        }
        self.reload_layer_locked(store, layer).await?;
        Ok(true)
    }

    async fn reload_layer_locked(&self, store: &dyn Store, layer: Layer) -> Result<()> {
        self.layer_reads.fetch_add(1, Ordering::Relaxed);
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
        self.layer_reads
            .fetch_add(Layer::ALL.len() as u64, Ordering::Relaxed);
        let changes = store.changes().await?;
        let next = Snapshot::load(store).await?;
        self.swap(next);
        *self.seen() = changes;
        Ok(())
    }
}
