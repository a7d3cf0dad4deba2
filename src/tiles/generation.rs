//! Names for snapshots, carried in tile URLs and ETags.
//!
//! The snapshot has no number of its own; a snapshot is told apart by its `Arc`. The first
//! time a request meets a snapshot it gets the next number, prefixed with the moment this
//! process started, so a restarted server (whose counter starts again) never reuses a name
//! a browser has cached.

use std::sync::{Arc, Mutex, Weak};

use crate::spatial::Snapshot;

/// Hands out generation names, one per snapshot met.
#[derive(Clone)]
pub struct Generations {
    inner: Arc<Mutex<State>>,
    boot: String,
}

struct State {
    // The snapshots named that are still alive: a request may still hold the one before
    // the current, and must get the name it had, not a new one.
    named: Vec<(Weak<Snapshot>, String)>,
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
    /// The name of `snap`: the same for every call with the same snapshot, a new one once
    /// the snapshot has been replaced.
    pub fn of(&self, snap: &Arc<Snapshot>) -> String {
        let mut s = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        s.named.retain(|(w, _)| w.strong_count() > 0);
        // A live Weak keeps its allocation, so an equal pointer is the same snapshot.
        if let Some((_, name)) = s
            .named
            .iter()
            .find(|(w, _)| std::ptr::eq(w.as_ptr(), Arc::as_ptr(snap)))
        {
            return name.clone();
        }
        s.counter += 1;
        let name = format!("{}-{}", self.boot, s.counter);
        s.named.push((Arc::downgrade(snap), name.clone()));
        name
    }
}
