//! A layer's features in shared pieces, so a snapshot after a small write shares every
//! feature it did not change with the snapshot before it.
//!
//! The features as loaded sit in one contiguous block (in id order, as the store reads
//! them); features a write adds afterwards go into small chunks after it. Copying a
//! million inspections to add one would take longer than the write itself, so a new
//! snapshot copies only the chunk it changes.

use std::borrow::Cow;
use std::sync::Arc;

use crate::domain::Feature;

/// How many features a chunk after the loaded block holds: small enough that copying
/// one to change a feature costs microseconds.
pub(super) const CHUNK: usize = 1024;

/// A layer's features: indexable by position, iterable, cheap to clone.
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// The features as loaded, in id order.
    base: Arc<Vec<Feature>>,
    /// Features added since, in the order written, `CHUNK` to a chunk (the last one
    /// may hold fewer).
    tail: Vec<Arc<Vec<Feature>>>,
    len: usize,
}

impl Features {
    /// Features as loaded.
    pub fn new(v: Vec<Feature>) -> Self {
        Features {
            len: v.len(),
            base: Arc::new(v),
            tail: Vec::new(),
        }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The feature at a position.
    pub fn get(&self, i: usize) -> Option<&Feature> {
        if i < self.base.len() {
            return self.base.get(i);
        }
        let j = i.checked_sub(self.base.len())?;
        self.tail.get(j / CHUNK)?.get(j % CHUNK)
    }

    /// Every feature, in position order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Feature> + Clone + '_ {
        self.base
            .iter()
            .chain(self.tail.iter().flat_map(|c| c.iter()))
    }

    /// The features as one slice: borrowed when they are one block (always, until a
    /// write adds features without a reload).
    pub fn contiguous(&self) -> Cow<'_, [Feature]> {
        if self.tail.is_empty() {
            Cow::Borrowed(self.base.as_slice())
        } else {
            Cow::Owned(self.to_vec())
        }
    }

    /// A copy of every feature.
    pub fn to_vec(&self) -> Vec<Feature> {
        self.iter().cloned().collect()
    }

    /// Whether a position lies in the loaded block (which only a rebuild changes).
    pub(super) fn in_base(&self, i: usize) -> bool {
        i < self.base.len()
    }

    /// Appends a feature; returns its position. Copies at most the last chunk.
    pub(super) fn push(&mut self, f: Feature) -> usize {
        let i = self.len;
        match self.tail.last_mut() {
            Some(last) if last.len() < CHUNK => Arc::make_mut(last).push(f),
            _ => {
                let mut c = Vec::with_capacity(CHUNK);
                c.push(f);
                self.tail.push(Arc::new(c));
            }
        }
        self.len += 1;
        i
    }

    /// Replaces the feature at a position after the loaded block; returns the old one.
    /// Copies that one chunk.
    pub(super) fn replace_in_tail(&mut self, i: usize, f: Feature) -> Option<Feature> {
        let j = i.checked_sub(self.base.len())?;
        let chunk = Arc::make_mut(self.tail.get_mut(j / CHUNK)?);
        Some(std::mem::replace(chunk.get_mut(j % CHUNK)?, f))
    }
}

impl std::ops::Index<usize> for Features {
    type Output = Feature;

    fn index(&self, i: usize) -> &Feature {
        self.get(i)
            .unwrap_or_else(|| panic!("feature position {i} is out of range ({})", self.len))
    }
}

impl<'a> IntoIterator for &'a Features {
    type Item = &'a Feature;
    type IntoIter = Box<dyn DoubleEndedIterator<Item = &'a Feature> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl From<Vec<Feature>> for Features {
    fn from(v: Vec<Feature>) -> Self {
        Features::new(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Layer;

    fn f(id: &str) -> Feature {
        Feature::new(Layer::Inspections, id)
    }

    #[test]
    fn pushes_after_the_loaded_block_share_it_and_index_in_order() {
        let a = Features::new(vec![f("a"), f("b")]);
        let mut b = a.clone();
        for i in 0..(CHUNK + 3) {
            b.push(f(&format!("n{i}")));
        }
        assert!(Arc::ptr_eq(&a.base, &b.base), "the loaded block is shared");
        assert_eq!(a.len(), 2);
        assert_eq!(b.len(), CHUNK + 5);
        assert_eq!(b[1].id, "b");
        assert_eq!(b[2].id, "n0");
        assert_eq!(b[CHUNK + 2].id, format!("n{CHUNK}"));
        assert_eq!(b[CHUNK + 4].id, format!("n{}", CHUNK + 2));
        assert!(b.get(CHUNK + 5).is_none());
        let ids: Vec<&str> = b.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(ids.len(), CHUNK + 5);
        assert_eq!(ids[..3], ["a", "b", "n0"]);
        assert_eq!(b.contiguous().len(), CHUNK + 5);
        assert!(matches!(a.contiguous(), Cow::Borrowed(_)));
        let mut c = b.clone();
        let old = c.replace_in_tail(3, f("x")).map(|o| o.id);
        assert_eq!(old.as_deref(), Some("n1"));
        assert_eq!((b[3].id.as_str(), c[3].id.as_str()), ("n1", "x"));
        assert!(
            c.replace_in_tail(1, f("y")).is_none(),
            "the loaded block is not patched"
        );
    }
}
