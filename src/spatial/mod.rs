//! In-memory spatial state — every layer with its R-tree, swapped whole on each commit —
//! and the spatial questions asked of it. No I/O here.

pub mod area_index;
pub mod completeness;
pub mod connections;
pub mod convex_clip;
pub mod dissolve;
pub mod envelope;
pub mod monitoring;
pub mod network;
pub mod point_grid;
pub mod query;
pub mod screen;
pub mod sewershed;
pub mod size;
pub mod snapshot;
pub mod waters;
pub mod watershed_facilities;

pub use snapshot::{LayerIndex, Snapshot, SnapshotHandle};
