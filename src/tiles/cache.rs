//! Rendered tiles, kept for the snapshot they were rendered from.
//!
//! A map asks for the same tiles over and over (every pan back, every browser, every
//! phone in the field), and a tile's bytes depend only on the generation (the snapshot
//! and the profile), the day (for "overdue") and the tile. So rendered tiles are kept,
//! keyed on all three, until the generation is replaced: the first request for a tile of
//! a new snapshot or profile renders it again. A tile is never served from a generation
//! other than the one named in its key, which is what keeps the freshness promise of
//! [`super::generation`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use bytes::Bytes;

use super::TileId;

/// A tile's identity within one generation and day: the layer set and the tile.
type Key = (&'static str, u8, u32, u32);

/// Which of two generations is newer: the snapshot's sequence number, then the number of
/// the profile it was judged by.
pub type Newness = (u64, u64);

/// Rendered tiles of one snapshot, up to a budget in bytes.
#[derive(Clone)]
pub struct TileCache {
    inner: Arc<Mutex<Held>>,
    budget: usize,
}

#[derive(Default)]
struct Held {
    // The generation and day the tiles below were rendered for, and how new it is.
    generation: String,
    newness: Newness,
    day: Option<chrono::NaiveDate>,
    tiles: HashMap<Key, Bytes>,
    bytes: usize,
}

impl Default for TileCache {
    /// A cache of 256 MiB.
    fn default() -> Self {
        TileCache::with_budget(256 << 20)
    }
}

impl TileCache {
    /// A cache holding at most `budget` bytes of tiles; 0 keeps none.
    pub fn with_budget(budget: usize) -> Self {
        TileCache {
            inner: Arc::default(),
            budget,
        }
    }

    /// The tile as rendered for `generation` on `day`, if it is kept.
    pub fn get(
        &self,
        generation: &str,
        day: chrono::NaiveDate,
        set: &'static str,
        t: TileId,
    ) -> Option<Bytes> {
        let held = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if held.generation != generation || held.day != Some(day) {
            return None;
        }
        held.tiles.get(&(set, t.z, t.x, t.y)).cloned()
    }

    /// Keeps a tile rendered for `generation` (as new as `newness`) on `day`. Tiles of any
    /// other generation or day are dropped first; once the budget is spent, further tiles
    /// are not kept (the ones kept are those asked for first, usually the low zooms every
    /// view needs).
    pub fn put(
        &self,
        generation: &str,
        newness: Newness,
        day: chrono::NaiveDate,
        set: &'static str,
        t: TileId,
        tile: Bytes,
    ) {
        if self.budget == 0 {
            return;
        }
        let mut held = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if held.generation != generation || held.day != Some(day) {
            // A request still holding the snapshot (or profile) before the current one must
            // not push out the current one's tiles: only a newer generation replaces them.
            if newness <= held.newness && held.day == Some(day) {
                return;
            }
            *held = Held {
                generation: generation.to_string(),
                newness,
                day: Some(day),
                ..Held::default()
            };
        }
        if held.bytes + tile.len() > self.budget {
            return;
        }
        held.bytes += tile.len();
        held.tiles.insert((set, t.z, t.x, t.y), tile);
    }

    /// How many tiles and bytes are kept.
    pub fn size(&self) -> (usize, usize) {
        let held = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        (held.tiles.len(), held.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> chrono::NaiveDate {
        chrono::NaiveDate::from_ymd_opt(2026, 12, d).unwrap()
    }

    fn tile(z: u8) -> TileId {
        TileId::parse(&z.to_string(), "0", "0").unwrap()
    }

    #[test]
    fn a_tile_is_served_only_for_its_generation_and_day() {
        let c = TileCache::default();
        c.put(
            "b-1",
            (1, 0),
            day(1),
            "all",
            tile(3),
            Bytes::from_static(b"one"),
        );
        assert_eq!(c.get("b-1", day(1), "all", tile(3)).unwrap(), "one");
        assert!(c.get("b-2", day(1), "all", tile(3)).is_none());
        assert!(c.get("b-1", day(2), "all", tile(3)).is_none());
        assert!(c.get("b-1", day(1), "pipes", tile(3)).is_none());
        assert!(c.get("b-1", day(1), "all", tile(4)).is_none());
    }

    #[test]
    fn a_newer_generation_drops_the_older_tiles_and_an_older_one_is_not_kept() {
        let c = TileCache::default();
        c.put(
            "b-9",
            (9, 0),
            day(1),
            "all",
            tile(1),
            Bytes::from_static(b"nine"),
        );
        c.put(
            "b-10",
            (10, 0),
            day(1),
            "all",
            tile(2),
            Bytes::from_static(b"ten"),
        );
        assert!(c.get("b-9", day(1), "all", tile(1)).is_none());
        assert_eq!(c.size(), (1, 3));
        // A late request rendered from snapshot 9 does not evict 10's tiles.
        c.put(
            "b-9",
            (9, 0),
            day(1),
            "all",
            tile(1),
            Bytes::from_static(b"nine"),
        );
        assert_eq!(c.get("b-10", day(1), "all", tile(2)).unwrap(), "ten");
        assert!(c.get("b-9", day(1), "all", tile(1)).is_none());
    }

    #[test]
    fn a_new_profile_on_the_same_snapshot_replaces_the_tiles_and_the_old_one_does_not() {
        let c = TileCache::default();
        c.put(
            "b-1",
            (4, 0),
            day(1),
            "all",
            tile(1),
            Bytes::from_static(b"old"),
        );
        c.put(
            "b-2",
            (4, 1),
            day(1),
            "all",
            tile(1),
            Bytes::from_static(b"new"),
        );
        assert!(c.get("b-1", day(1), "all", tile(1)).is_none());
        assert_eq!(c.get("b-2", day(1), "all", tile(1)).unwrap(), "new");
        // A late request rendered with the profile before keeps nothing.
        c.put(
            "b-1",
            (4, 0),
            day(1),
            "all",
            tile(2),
            Bytes::from_static(b"old"),
        );
        assert_eq!(c.size(), (1, 3));
    }

    #[test]
    fn the_budget_is_never_exceeded_and_zero_keeps_nothing() {
        let c = TileCache::with_budget(10);
        c.put(
            "b-1",
            (1, 0),
            day(1),
            "all",
            tile(1),
            Bytes::from(vec![0u8; 6]),
        );
        c.put(
            "b-1",
            (1, 0),
            day(1),
            "all",
            tile(2),
            Bytes::from(vec![0u8; 6]),
        );
        assert_eq!(c.size(), (1, 6));
        let none = TileCache::with_budget(0);
        none.put(
            "b-1",
            (1, 0),
            day(1),
            "all",
            tile(1),
            Bytes::from_static(b"x"),
        );
        assert_eq!(none.size(), (0, 0));
    }
}
