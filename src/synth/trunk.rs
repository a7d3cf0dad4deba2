//! The trunk district: where towns have branching mains. Along the one or two streams in
//! the middle of the town, the manhole beside the stream at the end of every east-west
//! trunk does not discharge at its own street: an interceptor main runs south along the
//! bank, street by street, and below the southernmost street a trunk main gathers the
//! interceptors of both banks of both streams (crossing under them) into one outfall. So
//! the largest outfall of a county drains tens of thousands of structures, as a city's
//! trunk does, while the rest of the town keeps its short street trunks. The catch basins
//! beside a district stream drain to the bank's manhole, and the district's streams have
//! no street outfalls: the trunk main's is their only one.

use super::layout::{Layout, OUTFALL_SETBACK};

/// How far south of the southernmost street the trunk main runs (feet, in the margin).
pub const MAIN_Y: f64 = -150.0;
/// The trunk outfall's invert (feet): below every street outfall.
const OUTFALL_INVERT: f64 = 100.0;

impl Layout {
    /// The streams of the trunk district: the one or two in the middle of the town.
    pub fn district(&self) -> (usize, Option<usize>) {
        let n = self.streams.len();
        if n < 2 {
            (0, None)
        } else {
            let s = (n - 2) / 2;
            (s, Some(s + 1))
        }
    }

    /// Whether stream `s` is one of the district's.
    pub fn in_district(&self, s: usize) -> bool {
        let (a, b) = self.district();
        s == a || Some(s) == b
    }

    /// Whether the east-west segment from line `i` to `i + 1` lies beside a district
    /// stream (no trunk runs along it: its manhole drains along the bank instead).
    pub fn beside_district_stream(&self, i: usize) -> bool {
        [Some(i), Some(i + 1)]
            .into_iter()
            .flatten()
            .filter_map(|l| self.stream_at(l))
            .any(|s| self.in_district(s))
    }

    /// The interceptor lines: the street lines beside a district stream, in the order the
    /// trunk main meets them (east to west), the last the one its outfall is beside.
    pub fn interceptors(&self) -> Vec<usize> {
        let (a, b) = self.district();
        let mut lines = Vec::new();
        for s in b.into_iter().chain([a]) {
            let at = self.streams[s];
            for l in [at + 1, at.wrapping_sub(1)] {
                if l <= self.cols && !self.is_stream(l) && self.target(l) == Some(s) {
                    lines.push(l);
                }
            }
        }
        lines
    }

    /// Where the trunk outfall is: on the west bank of the western district stream, below
    /// the southernmost street.
    pub fn trunk_outfall_pos(&self) -> (f64, f64) {
        let (a, _) = self.district();
        (self.stream_x(a, MAIN_Y) - OUTFALL_SETBACK, MAIN_Y)
    }

    /// The trunk outfall's invert.
    pub fn trunk_outfall_invert(&self) -> f64 {
        OUTFALL_INVERT
    }

    /// A trunk-main manhole's invert: rising 1 ft per 1,000 ft from the outfall.
    pub fn main_invert(&self, line: usize) -> f64 {
        OUTFALL_INVERT + 0.5 + 0.001 * (self.x(line) - self.trunk_outfall_pos().0).abs()
    }

    /// The trunk main's course below the interceptors: a main manhole's next one (None:
    /// the outfall). The lines east of the outfall's stream chain west, crossing under
    /// the streams; the line west of it drains straight to the outfall.
    pub fn main_next(&self, line: usize) -> Option<usize> {
        let lines = self.interceptors();
        let k = lines.iter().position(|&l| l == line)?;
        let west = self.streams[self.district().0];
        if line < west {
            return None;
        }
        lines.get(k + 1).copied().filter(|&l| l > west)
    }
}
