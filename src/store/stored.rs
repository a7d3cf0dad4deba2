//! The id, content hash and source hash of every stored row of a layer, read once by a
//! write that compares a whole layer (see `store::hash` and `import::unchanged`).
//!
//! The rows themselves are shared ([`StoredRows`], behind an `Arc`): the import's
//! conversion threads look source hashes up in them while the writer, which read them
//! inside its transaction, marks which ids the write has carried in a set of its own.
//! Reading once serves both, and both see the same rows as the transaction does.

use std::sync::Arc;

/// The stored rows of a layer: the ids in one text buffer, sorted, each with its hashes.
/// A million ids cost tens of megabytes here, where a map of owned strings cost hundreds,
/// and building it allocates twice instead of once per row.
#[derive(Default)]
pub struct StoredRows {
    text: String,
    entries: Vec<Entry>,
}

#[derive(Clone, Copy)]
struct Entry {
    start: usize,
    len: u32,
    hash: Option<i64>,
    source: Option<i64>,
}

impl std::fmt::Debug for StoredRows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "StoredRows({} rows)", self.entries.len())
    }
}

impl StoredRows {
    fn id(&self, e: &Entry) -> &str {
        &self.text[e.start..e.start + e.len as usize]
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.entries.binary_search_by(|e| self.id(e).cmp(id)).ok()
    }

    /// The source hash stored with `id`'s row, when it has a row and the row one.
    pub fn source_of(&self, id: &str) -> Option<i64> {
        self.find(id).and_then(|i| self.entries[i].source)
    }

    /// How many rows.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// The stored rows a write compares with, and which of them it has carried so far.
#[derive(Default)]
pub(crate) struct StoredHashes {
    building: StoredRows,
    rows: Arc<StoredRows>,
    carried: Vec<bool>,
    count: usize,
}

impl StoredHashes {
    /// Adds a stored row's id, content hash and source hash as stored (bound to the
    /// content hash, see `hash::bind_source`); rows in any order, [`Self::sorted`] after.
    pub fn push(&mut self, id: &str, hash: Option<i64>, stored_source: Option<i64>) {
        // A source hash means something only beside the content hash it was bound to.
        let source = stored_source
            .zip(hash)
            .map(|(s, h)| super::hash::bind_source(s, h));
        let b = &mut self.building;
        let start = b.text.len();
        b.text.push_str(id);
        b.entries.push(Entry {
            start,
            len: id.len() as u32,
            hash,
            source,
        });
    }

    /// The set, ready to look ids up in.
    pub fn sorted(mut self) -> Self {
        let mut rows = std::mem::take(&mut self.building);
        let text = &rows.text;
        let key = |e: &Entry| &text[e.start..e.start + e.len as usize];
        if !rows.entries.is_sorted_by(|a, b| key(a) <= key(b)) {
            rows.entries.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        }
        self.carried = vec![false; rows.entries.len()];
        self.rows = Arc::new(rows);
        self
    }

    /// The stored rows, to share with the threads that read the source.
    pub fn rows(&self) -> Arc<StoredRows> {
        Arc::clone(&self.rows)
    }

    /// Marks `id` carried by the write and returns its stored content and source hashes:
    /// `None` when the layer has no such row (or the write carried it already), a `None`
    /// inside for a hash the row lacks.
    pub fn take(&mut self, id: &str) -> Option<(Option<i64>, Option<i64>)> {
        let i = self.rows.find(id)?;
        if std::mem::replace(&mut self.carried[i], true) {
            return None;
        }
        self.count += 1;
        let e = &self.rows.entries[i];
        Some((e.hash, e.source))
    }

    /// Marks `id` carried when its row has a content hash and this source hash, and says
    /// whether it did: a feature whose source the import found unchanged.
    pub fn take_same(&mut self, id: &str, source: i64) -> bool {
        let Some(i) = self.rows.find(id) else {
            return false;
        };
        let e = self.rows.entries[i];
        if self.carried[i] || e.hash.is_none() || e.source != Some(source) {
            return false;
        }
        self.carried[i] = true;
        self.count += 1;
        true
    }

    /// How many stored rows the write has not carried.
    pub fn left(&self) -> usize {
        self.rows.len() - self.count
    }

    /// Every stored id, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.rows.entries.iter().map(|e| self.rows.id(e))
    }

    /// The ids of the stored rows the write has not carried, in order.
    pub fn not_carried(&self) -> Vec<String> {
        self.rows
            .entries
            .iter()
            .zip(&self.carried)
            .filter(|(_, c)| !**c)
            .map(|(e, _)| self.rows.id(e).to_string())
            .collect()
    }
}
