//! Vector tiles (Mapbox Vector Tile 2.1, Web Mercator) straight from the snapshot.
//!
//! A tile is an envelope query on a per-layer Web Mercator copy of the snapshot's layer
//! ([`mercator`]), a clip to the tile plus a buffer, a simplification for the zoom, and an
//! encode ([`encode`]). Nothing is kept from one snapshot to the next but the Mercator copies,
//! which are keyed on the layer they were made from, so a tile can never show older data than
//! the snapshot it is rendered from; [`generation`] names snapshots, with the profile they
//! are judged by, for URLs and ETags.
//!
//! # Layout
//! - [`grid`]: tile ids, their bounds in Web Mercator, parsing with errors that name z/x/y.
//! - [`spec`]: the tile layers, their minimum zooms and the properties each carries.
//! - [`mercator`]: the per-layer Web Mercator copies with their own R-trees.
//! - [`props`]: property values, with the facts derived per snapshot (findings, easements).
//! - [`mapping`]: the monitoring locations and sewersheds, derived per generation.
//! - [`encode`]: clipping, simplifying and writing a layer of a tile.
//! - [`generation`]: generations (a snapshot and a profile).
//! - [`cache`]: rendered tiles, kept while their generation is current.

pub mod cache;
pub mod encode;
pub mod error;
pub mod generation;
pub mod grid;
pub mod mapping;
pub mod mercator;
pub mod props;
pub mod spec;

use std::sync::Arc;

pub use error::RenderError;
pub use generation::Generations;
pub use grid::{TileError, TileId};
pub use spec::{Drawn, MappingLayer, TileLayer, TILE_LAYERS};

use crate::rules::Profile;
use crate::spatial::network::Network;
use crate::spatial::Snapshot;

/// What tiles are rendered with, shared by every request: the Mercator copies, the facts
/// derived per snapshot, and the generation counter.
#[derive(Clone, Default)]
pub struct Tiles {
    /// Web Mercator copies of the layers, kept while their layer is current.
    pub mercator: mercator::MercatorCache,
    /// Findings and easement states of the current snapshot, derived on first need and
    /// kept while their inputs are unchanged.
    pub derived: props::DerivedCache,
    /// Which pipes the current snapshot's network turned by their inverts (the network
    /// made with the profile's snap tolerance).
    pub flows: props::PerSnapshot<props::Flows, crate::rules::Tolerance>,
    /// The monitoring locations and their sewersheds of the current generation (the
    /// snapshot and the profile whose rule ranks them).
    pub mapping: props::PerSnapshot<mapping::MappingTiles, Profile>,
    /// Names of generations (a snapshot and the profile it is judged by).
    pub generations: Generations,
    /// Tiles already rendered for the current generation.
    pub rendered: cache::TileCache,
    /// When a tile was last asked for (seconds since the Unix epoch; 0 for never).
    pub last_used: Arc<std::sync::atomic::AtomicU64>,
}

impl Tiles {
    /// Notes that a tile was asked for now.
    pub fn mark_used(&self) {
        self.last_used
            .store(now_secs(), std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether a tile was asked for within `window`: a map is open somewhere.
    pub fn used_within(&self, window: std::time::Duration) -> bool {
        let last = self.last_used.load(std::sync::atomic::Ordering::Relaxed);
        last > 0 && now_secs().saturating_sub(last) <= window.as_secs()
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Prepares what the tiles of `snap` are rendered with — the Mercator copy of every
/// registry tile layer, the connections' findings and the pipes' flow — so that the first tile after a
/// server starts, or after a write, does not wait seconds for them. What is already made
/// for the same inputs is kept, so this costs little when nothing changed. Blocking.
pub fn warm(
    tiles: &Tiles,
    snap: &Arc<Snapshot>,
    profile: &Profile,
    network: &dyn Fn() -> anyhow::Result<Arc<Network>>,
) -> error::Result<()> {
    for spec in &TILE_LAYERS {
        // The mapping layers (every outfall's trace and sewershed) are made when one of
        // their tiles is first asked, not after every write: on a large town they cost
        // far more than a write, and most writes are never followed by a look at them.
        let Drawn::Registry(layer) = spec.drawn else {
            continue;
        };
        tiles.mercator.get(snap, layer)?;
        if spec.needs_derived(profile) {
            tiles
                .derived
                .get(snap, profile, || props::Derived::of(snap, profile, network))?;
        }
        if layer == crate::domain::Layer::Pipes {
            tiles
                .flows
                .get(snap, profile.tolerances.snap_tolerance, || {
                    network()
                        .map(|n| props::Flows::of(&n))
                        .map_err(RenderError::Network)
                })?;
        }
    }
    Ok(())
}

/// A tile's layers as MVT bytes (uncompressed protobuf). Layers below their minimum
/// zoom, and layers with no feature in the tile, are left out: an empty tile is valid.
///
/// `network` gives the drainage network when a layer needs it (connections' findings);
/// blocking: call from a blocking thread.
pub fn render(
    tiles: &Tiles,
    snap: &Arc<Snapshot>,
    profile: &Profile,
    network: &dyn Fn() -> anyhow::Result<Arc<Network>>,
    layers: &[&'static TileLayer],
    tile: TileId,
    today: chrono::NaiveDate,
) -> error::Result<Vec<u8>> {
    use geozero::mvt::Message;
    let frame = encode::Frame::of(tile);
    let mut out = geozero::mvt::Tile::default();
    for spec in layers {
        if tile.z < spec.minzoom {
            continue;
        }
        let layer = match spec.drawn {
            Drawn::Registry(layer) => layer,
            Drawn::Mapping(m) => {
                let made = mapping_of(tiles, snap, profile, network)?;
                let made = made.layer(m);
                let hits = made.merc.in_envelope(frame.query_box());
                if let Some(layer) =
                    encode::made_layer(spec, &frame, &made.merc, &hits, |pos, k| made.value(pos, k))
                {
                    out.layers.push(layer);
                }
                continue;
            }
        };
        let merc = tiles.mercator.get(snap, layer)?;
        let hits = merc.in_envelope(frame.query_box());
        if hits.is_empty() {
            continue;
        }
        let derived = if spec.needs_derived(profile) {
            Some(
                tiles
                    .derived
                    .get(snap, profile, || props::Derived::of(snap, profile, network))?,
            )
        } else {
            None
        };
        let flows = if layer == crate::domain::Layer::Pipes {
            Some(
                tiles
                    .flows
                    .get(snap, profile.tolerances.snap_tolerance, || {
                        network()
                            .map(|n| props::Flows::of(&n))
                            .map_err(RenderError::Network)
                    })?,
            )
        } else {
            None
        };
        let ctx = props::Context {
            snap,
            profile,
            derived: derived.as_deref(),
            flows: flows.as_deref(),
            today,
            land_use: Default::default(),
        };
        if let Some(layer) = encode::layer(spec, &frame, &merc, &hits, &ctx) {
            out.layers.push(layer);
        }
    }
    Ok(out.encode_to_vec())
}

/// The monitoring locations and sewersheds of `snap` judged by `profile`, derived unless
/// the cache holds them for this generation.
fn mapping_of(
    tiles: &Tiles,
    snap: &Arc<Snapshot>,
    profile: &Profile,
    network: &dyn Fn() -> anyhow::Result<Arc<Network>>,
) -> error::Result<Arc<mapping::MappingTiles>> {
    tiles.mapping.get(snap, profile.clone(), || {
        mapping::MappingTiles::of(snap, profile, network)
    })
}
