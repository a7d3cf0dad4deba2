//! Ids kept in one string arena with open-addressing indexes over it.
//!
//! A county network has about a million ids. A `HashMap<String, u32>` beside a
//! `Vec<String>` would hold every id twice, each in its own allocation; one arena and
//! tables of `u32` slots hold each id once, in a few large allocations.

use std::hash::BuildHasher;

use rustc_hash::FxBuildHasher;

use super::prefetch;

/// Strings in one buffer, numbered in the order pushed.
#[derive(Debug, Default)]
pub(super) struct Names {
    text: String,
    /// `ends[i]` is where string `i` ends in `text`. Four bytes, not eight: a trace reads
    /// them in its own order, all over the table, so the smaller it is the more of it the
    /// caches hold (a county's ids are some ten megabytes of text).
    ends: Vec<u32>,
}

impl Names {
    pub(super) fn with_capacity(count: usize, bytes: usize) -> Names {
        Names {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(count),
        }
    }

    /// Appends a string and returns its number.
    pub(super) fn push(&mut self, s: &str) -> u32 {
        self.text.push_str(s);
        let end = u32::try_from(self.text.len()).expect("ids of less than 4 GiB in all");
        self.ends.push(end);
        (self.ends.len() - 1) as u32
    }

    pub(super) fn get(&self, i: u32) -> &str {
        let i = i as usize;
        &self.text[self.start(i)..self.ends[i] as usize]
    }

    /// The strings numbered `base + n` for each `n` of `numbers`, in their order (`base`
    /// as an [`IdIndex`]'s: a pipe's name is numbered after the structures'). A trace names twenty thousand ids
    /// read all over the table, each a wait on memory for its end and then its text; the
    /// ends of those a few ahead are asked for while one is copied, so the waits overlap
    /// (a third of the county's largest trace was spent in them).
    pub(super) fn each<'a>(
        &'a self,
        base: u32,
        numbers: &'a [u32],
    ) -> impl Iterator<Item = &'a str> + 'a {
        const ENDS_AHEAD: usize = 16;
        const TEXT_AHEAD: usize = 8;
        numbers.iter().enumerate().map(move |(i, &n)| {
            if let Some(&m) = numbers.get(i + ENDS_AHEAD) {
                prefetch(&self.ends[(base + m) as usize]);
            }
            if let Some(&m) = numbers.get(i + TEXT_AHEAD) {
                // Its end was asked for ENDS_AHEAD - TEXT_AHEAD strings ago.
                let start = self.start((base + m) as usize);
                if let Some(b) = self.text.as_bytes().get(start) {
                    prefetch(b);
                }
            }
            self.get(base + n)
        })
    }

    fn start(&self, i: usize) -> usize {
        if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * std::mem::size_of::<u32>()
    }
}

const EMPTY: u32 = u32::MAX;

/// A hash index from id to item number, over names `base + item` of a [`Names`].
#[derive(Debug, Default)]
pub(super) struct IdIndex {
    slots: Vec<u32>,
}

impl IdIndex {
    /// Room for `count` ids at a load factor of at most one half, so probes stay short.
    pub(super) fn with_capacity(count: usize) -> IdIndex {
        IdIndex {
            slots: vec![EMPTY; (count * 2).next_power_of_two().max(8)],
        }
    }

    fn home(&self, s: &str) -> usize {
        FxBuildHasher.hash_one(s) as usize & (self.slots.len() - 1)
    }

    /// Indexes `item` under its name; false (and nothing changes) when the id is taken,
    /// so the first feature with an id wins.
    pub(super) fn insert(&mut self, names: &Names, base: u32, item: u32) -> bool {
        let s = names.get(base + item);
        let mask = self.slots.len() - 1;
        let mut i = self.home(s);
        loop {
            match self.slots[i] {
                EMPTY => {
                    self.slots[i] = item;
                    return true;
                }
                other if names.get(base + other) == s => return false,
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// The item whose name is `s`.
    pub(super) fn get(&self, names: &Names, base: u32, s: &str) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut i = self.home(s);
        loop {
            match self.slots[i] {
                EMPTY => return None,
                other if names.get(base + other) == s => return Some(other),
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * 4
    }
}
