//! Names for what tiles are rendered from, carried in tile URLs and ETags: a snapshot
//! and the profile it is judged by (a profile update turns findings illicit or not, and
//! a tile shows them, so it changes the name as a write does).
//!
//! The snapshot has no number of its own; a snapshot is told apart by its `Arc`, the
//! profile by the number the server gives each one it holds. The first time a request
//! meets a pair it gets the next number, prefixed with the moment this process started,
//! so a restarted server (whose counter starts again) never reuses a name a browser has
//! cached.

use std::sync::{Arc, Mutex, Weak};

use crate::spatial::Snapshot;

/// Hands out generation names, one per snapshot and profile met.
#[derive(Clone)]
pub struct Generations {
    inner: Arc<Mutex<State>>,
    boot: String,
}

struct State {
    // The snapshots named that are still alive, with the profile number each was named
    // under: a request may still hold the pair before the current, and must get the name
    // it had, not a new one.
    named: Vec<(Weak<Snapshot>, u64, String)>,
    counter: u64,
}

impl Default for Generations {
    fn default() -> Self {
        let boot = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis())
            .unwrap_or(0);
        Generations {
            inner: Arc::new(Mutex::new(State {
                named: Vec::new(),
                counter: 0,
            })),
            boot: format!("{boot:x}"),
        }
    }
}

impl Generations {
    /// The name of `snap` judged by the profile numbered `profile` (see
    /// `http::live_profile::CurrentProfile::numbered`): the same for every call with the same
    /// pair, a new one once either has been replaced.
    pub fn of(&self, snap: &Arc<Snapshot>, profile: u64) -> String {
        let mut s = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        s.named.retain(|(w, _, _)| w.strong_count() > 0);
        // A live Weak keeps its allocation, so an equal pointer is the same snapshot.
        if let Some((_, _, name)) = s
            .named
            .iter()
            .find(|(w, p, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(snap)) && *p == profile)
        {
            return name.clone();
        }
        s.counter += 1;
        let name = format!("{}-{}", self.boot, s.counter);
        s.named.push((Arc::downgrade(snap), profile, name.clone()));
        name
    }
}
