//! The drainage network shared by every request, and how answers read it while a new
//! one is built.

use std::sync::{Arc, Mutex};

use crate::spatial::network::Network;
use crate::spatial::Snapshot;

/// The drainage network, kept until a layer it is built from changes: building it for a
/// county takes seconds, answering from it microseconds. An inspection or a parcel edit
/// makes a new snapshot that shares the structure and pipe layers with the old one, so
/// the network is kept; rebuilding it on every inspection POST stalled every answer that
/// needs it under steady writes.
///
/// A write that changes the network (an upload of pipes) builds the new one before it
/// answers, without holding the cache: answers asked meanwhile read the pair before the
/// write ([`NetworkCache::consistent`]), a snapshot and the network built from it, as if
/// they had been asked a moment earlier, instead of queueing behind the build.
#[derive(Clone, Default)]
pub struct NetworkCache {
    // The latest snapshot known to hold the network's layers (held, so its layers'
    // addresses cannot be reused by newer layers while they are compared) and the
    // network. Held only to look and to store, never while building.
    inner: Arc<Mutex<Option<Built>>>,
    // Held while a network is built, so two first requests build once.
    building: Arc<Mutex<()>>,
}

/// A network and the snapshot it was built from.
type Built = (Arc<Snapshot>, Arc<Network>);

/// The layers [`Network::from_snapshot`] reads.
pub(crate) const NETWORK_LAYERS: [crate::domain::Layer; 4] = [
    crate::domain::Layer::CatchBasins,
    crate::domain::Layer::Manholes,
    crate::domain::Layer::Outfalls,
    crate::domain::Layer::Pipes,
];

/// Whether two snapshots hold the very same network layers (not equal copies: the same
/// indexes, shared between them).
fn same_network_layers(a: &Snapshot, b: &Snapshot) -> bool {
    NETWORK_LAYERS
        .iter()
        .all(|l| std::ptr::eq(a.layer(*l), b.layer(*l)))
}

/// The one thread every network is built on. A county's network is hundreds of megabytes
/// of small allocations, replaced whole when an upload changes a layer it is built from.
/// Built on whichever blocking thread asked, each network lived in the memory of a thread
/// that then went idle or exited, and the allocator kept pages of networks long freed: a
/// ten-minute soak with an upload a minute rose 250 MB at its eighth upload and stayed
/// there (without uploads it stayed within 0.3%). Built always on this thread, the same
/// soak ended within 1% of where it began (see BENCHMARKS.md, "Load and soak").
fn builder() -> &'static rayon::ThreadPool {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .thread_name(|_| "ms4-network".into())
            .build()
            .expect("a thread to build networks on")
    })
}

impl NetworkCache {
    /// The cached network when it was built from `snap`'s network layers; it then
    /// remembers `snap` as the latest snapshot it serves.
    fn cached(&self, snap: &Arc<Snapshot>) -> Option<Arc<Network>> {
        let mut guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        let (from, net) = guard.as_mut()?;
        if Arc::ptr_eq(from, snap) {
            return Some(net.clone());
        }
        if same_network_layers(from, snap) {
            // Newer snapshots (inspections) replace older ones, never the other way, so
            // the pair handed out during a rebuild is as recent as it can be.
            if snap.seq > from.seq {
                *from = snap.clone();
            }
            return Some(net.clone());
        }
        None
    }

    /// The network of `snap`, built with `build` unless the cache holds one built from
    /// the same network layers. Blocking: call it from `spawn_blocking`.
    pub fn get_or_build(
        &self,
        snap: &Arc<Snapshot>,
        build: impl FnOnce(&Snapshot) -> anyhow::Result<Network> + Send,
    ) -> anyhow::Result<Arc<Network>> {
        if let Some(net) = self.cached(snap) {
            return Ok(net);
        }
        let _one = self.building.lock().unwrap_or_else(|p| p.into_inner());
        // Another request may have built it while this one waited.
        if let Some(net) = self.cached(snap) {
            return Ok(net);
        }
        let net = Arc::new(builder().install(|| build(snap))?);
        *self.inner.lock().unwrap_or_else(|p| p.into_inner()) = Some((snap.clone(), net.clone()));
        Ok(net)
    }

    /// Forgets the cached network (the profile it was built with changed); the next
    /// answer that needs one builds it.
    pub fn clear(&self) {
        *self.inner.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }

    /// The snapshot an answer should read, with its network when one is ready: `current`
    /// itself, unless its network is being built right now and that of an earlier
    /// snapshot is ready. Then the earlier snapshot and its network, a consistent pair,
    /// so the answer neither waits seconds for the build nor mixes a new snapshot with an
    /// old network. With `None`, the network is built on first need.
    pub fn consistent(&self, current: Arc<Snapshot>) -> (Arc<Snapshot>, Option<Arc<Network>>) {
        if let Some(net) = self.cached(&current) {
            return (current, Some(net));
        }
        if self.building.try_lock().is_err() {
            let guard = self.inner.lock().unwrap_or_else(|p| p.into_inner());
            if let Some((from, net)) = guard.as_ref() {
                return (from.clone(), Some(net.clone()));
            }
        }
        (current, None)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::time::Duration;

    use super::*;
    use crate::domain::{Feature, Layer};
    use crate::spatial::network::NetworkOptions;

    fn pipes(ids: &[&str]) -> Vec<Feature> {
        ids.iter()
            .enumerate()
            .map(|(i, id)| {
                let mut f = Feature::new(Layer::Pipes, *id);
                f.geom = Some(geo_types::Geometry::LineString(
                    geo_types::LineString::from(vec![
                        (i as f64 * 100.0, 0.0),
                        (i as f64 * 100.0 + 50.0, 0.0),
                    ]),
                ));
                f
            })
            .collect()
    }

    fn snapshot(ids: &[&str]) -> Snapshot {
        let meta = crate::store::RegistryMeta {
            jurisdiction: "test".into(),
            srid: 2260,
            crs_name: "test".into(),
            crs_wkt: String::new(),
            linear_unit: crate::domain::LengthUnit::UsSurveyFoot,
        };
        Snapshot::from_features(meta, HashMap::from([(Layer::Pipes, pipes(ids))]))
    }

    fn build(s: &Snapshot) -> anyhow::Result<Network> {
        Ok(Network::from_snapshot(s, NetworkOptions::new(1.0)))
    }

    #[test]
    fn a_snapshot_sharing_the_network_layers_gets_the_cached_network() {
        let cache = NetworkCache::default();
        let a = Arc::new(snapshot(&["P-1"]));
        let net = cache.get_or_build(&a, build).unwrap();
        // A snapshot made by an inspection shares the pipes layer.
        let b = Arc::new(a.with_layer(Layer::Inspections, Vec::new()));
        let again = cache.get_or_build(&b, |_| panic!("rebuilt")).unwrap();
        assert!(Arc::ptr_eq(&net, &again));
        let (snap, ready) = cache.consistent(b.clone());
        assert!(Arc::ptr_eq(&snap, &b) && Arc::ptr_eq(&ready.unwrap(), &net));
    }

    #[test]
    fn while_a_new_network_is_built_answers_read_the_latest_pair_before_it() {
        let cache = NetworkCache::default();
        let a = Arc::new(snapshot(&["P-1"]));
        let old = cache.get_or_build(&a, build).unwrap();
        // An inspection after it: the pair handed out must be this one, not `a`.
        let b = Arc::new(a.with_layer(Layer::Inspections, Vec::new()));
        cache.get_or_build(&b, build).unwrap();
        // An upload of pipes: a new network, built slowly on another thread.
        let c = Arc::new(b.with_layer(Layer::Pipes, pipes(&["P-1", "P-2"])));
        let (started, wait) = std::sync::mpsc::channel();
        let builder = {
            let (cache, c) = (cache.clone(), c.clone());
            std::thread::spawn(move || {
                cache
                    .get_or_build(&c, |s| {
                        started.send(()).unwrap();
                        std::thread::sleep(Duration::from_millis(300));
                        build(s)
                    })
                    .unwrap()
            })
        };
        wait.recv().unwrap();
        let asked = std::time::Instant::now();
        let (snap, ready) = cache.consistent(c.clone());
        assert!(
            asked.elapsed() < Duration::from_millis(100),
            "it waited for the build"
        );
        assert!(
            Arc::ptr_eq(&snap, &b),
            "not the latest snapshot before the upload"
        );
        assert!(Arc::ptr_eq(&ready.unwrap(), &old));
        let new = builder.join().unwrap();
        assert_eq!(new.pipe_count(), 2);
        // Once built, the upload's snapshot and its network.
        let (snap, ready) = cache.consistent(c.clone());
        assert!(Arc::ptr_eq(&snap, &c) && Arc::ptr_eq(&ready.unwrap(), &new));
    }

    #[test]
    fn every_network_is_built_on_the_one_builder_thread_whoever_asks() {
        let cache = NetworkCache::default();
        let on = |cache: &NetworkCache, snap: Arc<Snapshot>| {
            let mut name = None;
            cache
                .get_or_build(&snap, |s| {
                    name = std::thread::current().name().map(String::from);
                    build(s)
                })
                .unwrap();
            name
        };
        let a = Arc::new(snapshot(&["P-1"]));
        let b = Arc::new(a.with_layer(Layer::Pipes, pipes(&["P-1", "P-2"])));
        let here = on(&cache, a);
        let there = {
            let cache = cache.clone();
            std::thread::spawn(move || on(&cache, b)).join().unwrap()
        };
        assert_eq!(here.as_deref(), Some("ms4-network"));
        assert_eq!(there.as_deref(), Some("ms4-network"));
    }

    #[test]
    fn with_nothing_built_the_current_snapshot_is_answered_and_builds_on_need() {
        let cache = NetworkCache::default();
        let a = Arc::new(snapshot(&["P-1"]));
        let (snap, ready) = cache.consistent(a.clone());
        assert!(Arc::ptr_eq(&snap, &a) && ready.is_none());
    }
}
