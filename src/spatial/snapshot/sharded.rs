//! A map from ids split into shards behind `Arc`s: a new snapshot that changes one entry
//! copies one shard (a few thousand entries), not the map of a million.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHasher};

/// How many shards: a power of two, so a million ids make shards of about 4,000.
const SHARDS: usize = 256;

/// An id-keyed map that clones in O(shards) and changes in O(shard).
#[derive(Debug, Clone)]
pub(crate) struct ShardedMap<V> {
    shards: Vec<Arc<FxHashMap<String, V>>>,
}

impl<V> Default for ShardedMap<V> {
    fn default() -> Self {
        ShardedMap {
            shards: (0..SHARDS)
                .map(|_| Arc::new(FxHashMap::default()))
                .collect(),
        }
    }
}

fn shard_of(key: &str) -> usize {
    let mut h = FxHasher::default();
    key.hash(&mut h);
    // The high bits: FxHash mixes them best.
    (h.finish() >> 56) as usize % SHARDS
}

impl<V: Clone> ShardedMap<V> {
    /// The value of an id.
    pub(crate) fn get(&self, key: &str) -> Option<&V> {
        self.shards[shard_of(key)].get(key)
    }

    /// Sets the value of an id; copies that shard when another snapshot shares it.
    pub(crate) fn insert(&mut self, key: String, v: V) {
        Arc::make_mut(&mut self.shards[shard_of(&key)]).insert(key, v);
    }

    /// The value of an id, to change in place (copying its shard when shared).
    pub(crate) fn entry_or_insert(&mut self, key: &str, v: V) -> &mut V {
        let shard = Arc::make_mut(&mut self.shards[shard_of(key)]);
        if !shard.contains_key(key) {
            shard.insert(key.to_string(), v);
        }
        shard.get_mut(key).expect("just inserted")
    }
}

impl<V: Clone> FromIterator<(String, V)> for ShardedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut shards: Vec<FxHashMap<String, V>> =
            (0..SHARDS).map(|_| FxHashMap::default()).collect();
        for (k, v) in iter {
            shards[shard_of(&k)].insert(k, v);
        }
        ShardedMap {
            shards: shards.into_iter().map(Arc::new).collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_copies_one_shard_and_leaves_the_clone_as_it_was() {
        let a: ShardedMap<usize> = (0..10_000).map(|i| (format!("id-{i}"), i)).collect();
        let mut b = a.clone();
        b.insert("id-7".into(), 70);
        b.insert("new".into(), 1);
        assert_eq!((a.get("id-7"), b.get("id-7")), (Some(&7), Some(&70)));
        assert_eq!((a.get("new"), b.get("new")), (None, Some(&1)));
        let shared = a
            .shards
            .iter()
            .zip(&b.shards)
            .filter(|(x, y)| Arc::ptr_eq(x, y))
            .count();
        assert!(
            shared >= SHARDS - 2,
            "only the changed shards are copied: {shared}"
        );
        *b.entry_or_insert("id-9", 0) += 1;
        assert_eq!(b.get("id-9"), Some(&10));
    }
}
