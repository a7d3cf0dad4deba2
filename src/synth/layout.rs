//! The shape of a synthetic town: a street grid with blocks of parcels, streams along some
//! of the north-south street lines, and the arithmetic that places everything on it.
//!
//! Everything is designed in feet on a local grid (node `(i, j)` is the crossing of
//! north-south street line `i` and east-west street line `j`) and converted to the CRS's
//! unit only when a coordinate or an elevation is written out. Every random choice is drawn
//! from a generator seeded by the seed *and* the thing being placed (see [`Layout::rng`]),
//! so a block can recompute where its neighbouring catch basins are without the order of
//! generation mattering, and without holding the whole network in memory.

use geo_types::{coord, Coord};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::SynthOptions;
use crate::domain::{LengthUnit, Value};

/// Width of a block, between the curbs of its two north-south streets (feet).
pub const BLOCK_W: f64 = 320.0;
/// Depth of a block, between the curbs of its two east-west streets (feet).
pub const BLOCK_H: f64 = 220.0;
/// Width of a street right of way (feet).
pub const STREET: f64 = 50.0;
/// Distance between north-south street centre lines.
pub const PITCH_X: f64 = BLOCK_W + STREET;
/// Distance between east-west street centre lines.
pub const PITCH_Y: f64 = BLOCK_H + STREET;
/// Land beyond the outer streets, inside the boundary.
pub const MARGIN: f64 = 300.0;
/// Offset of a catch basin from its street's centre line (just inside the curb).
pub const CURB: f64 = 23.0;
/// Offset of a catch-basin lead from the centre line, so leads do not lie on the trunk.
pub const LEAD: f64 = 6.0;
/// Distance of an outfall from the stream's centre line.
pub const OUTFALL_SETBACK: f64 = 8.0;
/// How far a stream wanders from its street line; less than half a street, so it never
/// enters a block.
pub const MEANDER: f64 = 12.0;
/// Block columns per stream: each stream drains about this many columns.
const STREAM_SPACING: usize = 6;
/// East-west street lines per stream reach (one reach is one receiving water).
pub const REACH_LINES: usize = 12;
/// Parcels per block, on average.
const PARCELS_PER_BLOCK: usize = 10;

/// Tags that keep the random streams of different kinds of things apart.
pub mod tag {
    /// Block-size distribution.
    pub const COUNTS: u64 = 1;
    /// A block's parcels and private facilities.
    pub const BLOCK: u64 = 2;
    /// A manhole and its trunk pipe.
    pub const NODE: u64 = 3;
    /// A catch basin and its lead.
    pub const CB: u64 = 4;
    /// A stream's meander and names.
    pub const STREAM: u64 = 5;
    /// Receiving waters, impairments and TMDLs.
    pub const WATER: u64 = 6;
    /// An outfall.
    pub const OUTFALL: u64 = 7;
}

/// The grid and the conversions from design feet to the CRS.
pub struct Layout {
    /// The seed everything derives from.
    pub seed: u64,
    /// Block columns.
    pub cols: usize,
    /// Block rows.
    pub rows: usize,
    /// Parcels in each block, row-major.
    pub counts: Vec<u16>,
    /// The north-south street lines that are streams instead, ascending.
    pub streams: Vec<usize>,
    /// Per street line: the stream (index into `streams`) its manholes drain to, or `None`
    /// when the line is a stream.
    target: Vec<Option<usize>>,
    /// Per street line: manholes upstream of this one on the same trunk.
    hops: Vec<usize>,
    /// Stream reaches per stream.
    pub reaches: usize,
    /// CRS units per foot.
    k: f64,
    /// CRS position of the local origin (node `(0, 0)`).
    x0: f64,
    y0: f64,
}

impl Layout {
    /// Lays out a grid for the options' number of parcels.
    pub fn new(opts: &SynthOptions) -> Layout {
        let parcels = opts.parcels;
        let wanted = (parcels as f64 / PARCELS_PER_BLOCK as f64).round().max(1.0) as usize;
        // About square on the ground: cols * PITCH_X ≈ rows * PITCH_Y.
        let cols = ((wanted as f64 * PITCH_Y / PITCH_X).sqrt().round() as usize).max(1);
        let rows = wanted.div_ceil(cols);
        let counts = block_counts(opts.seed, parcels, rows * cols);

        let n_streams = ((cols as f64 / STREAM_SPACING as f64).round() as usize).max(1);
        let streams: Vec<usize> = (0..n_streams)
            .map(|k| {
                (((k as f64 + 0.5) * cols as f64 / n_streams as f64).round() as usize).min(cols)
            })
            .collect();
        let target: Vec<Option<usize>> = (0..=cols)
            .map(|i| {
                if streams.contains(&i) {
                    return None;
                }
                // Nearest stream; a tie goes to the western one (min_by_key keeps the first).
                (0..streams.len()).min_by_key(|&s| streams[s].abs_diff(i))
            })
            .collect();
        let mut hops = vec![0usize; cols + 1];
        for i in 0..=cols {
            let Some(t) = target[i] else { continue };
            if i < streams[t] {
                // Flows east: upstream is the run of lines to the west with the same target.
                if i > 0 && target[i - 1] == Some(t) {
                    hops[i] = hops[i - 1] + 1;
                }
            }
        }
        for i in (0..=cols).rev() {
            let Some(t) = target[i] else { continue };
            if i > streams[t] && i < cols && target[i + 1] == Some(t) {
                hops[i] = hops[i + 1] + 1;
            }
        }
        let reaches = (rows + 1).div_ceil(REACH_LINES);
        let k = LengthUnit::Foot.metres() / opts.unit.metres();
        let width = cols as f64 * PITCH_X;
        let height = rows as f64 * PITCH_Y;
        Layout {
            seed: opts.seed,
            cols,
            rows,
            counts,
            streams,
            target,
            hops,
            reaches,
            k,
            x0: opts.origin.0 - width / 2.0 * k,
            y0: opts.origin.1 - height / 2.0 * k,
        }
    }

    /// A generator for one thing: the seed, a kind tag and the thing's number. Mixing them
    /// with SplitMix64 makes neighbouring numbers give unrelated streams.
    pub fn rng(&self, tag: u64, n: u64) -> SmallRng {
        let mut h = splitmix(self.seed ^ splitmix(tag.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        h = splitmix(h ^ n);
        SmallRng::seed_from_u64(h)
    }

    /// Local x of north-south street line `i` (feet).
    pub fn x(&self, i: usize) -> f64 {
        i as f64 * PITCH_X
    }

    /// Local y of east-west street line `j` (feet).
    pub fn y(&self, j: usize) -> f64 {
        j as f64 * PITCH_Y
    }

    /// Local width of the street grid (feet).
    pub fn width(&self) -> f64 {
        self.cols as f64 * PITCH_X
    }

    /// Local height of the street grid (feet).
    pub fn height(&self) -> f64 {
        self.rows as f64 * PITCH_Y
    }

    /// A local position in the CRS, rounded to a thousandth of a unit so files stay small
    /// and equal inputs give equal bytes.
    pub fn c(&self, x: f64, y: f64) -> Coord<f64> {
        coord! { x: round(self.x0 + x * self.k, 1000.0), y: round(self.y0 + y * self.k, 1000.0) }
    }

    /// An elevation given in feet, as a value in the CRS's unit.
    pub fn elev(&self, feet: f64) -> Value {
        Value::Real(round(feet * self.k, 100.0))
    }

    /// Whether street line `i` is a stream.
    pub fn is_stream(&self, i: usize) -> bool {
        self.target[i].is_none()
    }

    /// The stream index of street line `i`, when it is one.
    pub fn stream_at(&self, i: usize) -> Option<usize> {
        self.streams.iter().position(|&s| s == i)
    }

    /// The stream the manholes of line `i` drain to.
    pub fn target(&self, i: usize) -> Option<usize> {
        self.target[i]
    }

    /// Whether manholes on line `i` drain east (towards larger `i`).
    pub fn flows_east(&self, i: usize) -> bool {
        self.target[i].is_some_and(|t| i < self.streams[t])
    }

    /// Manholes upstream of line `i` on its trunk.
    pub fn hops(&self, i: usize) -> usize {
        self.hops[i]
    }

    /// Whether the east-west street segment from line `i` to `i + 1` has a trunk along its
    /// centre line (every segment except a divide, whose ends drain apart, and the
    /// segments beside a trunk-district stream).
    pub fn has_trunk(&self, i: usize) -> bool {
        if self.beside_district_stream(i) {
            // The manhole there drains along the bank (see `trunk`).
            return false;
        }
        self.is_stream(i) || self.is_stream(i + 1) || self.flows_east(i) == self.flows_east(i + 1)
    }

    /// The stream's centre line at local `y`: its street line plus a gentle meander.
    pub fn stream_x(&self, s: usize, y: f64) -> f64 {
        let phase =
            (splitmix(self.seed ^ splitmix(tag::STREAM << 32 | s as u64)) % 6283) as f64 / 1000.0;
        self.x(self.streams[s]) + MEANDER * (y / 400.0 + phase).sin()
    }

    /// The reach a street line's outfalls discharge to.
    pub fn reach_of_line(&self, j: usize) -> usize {
        (j / REACH_LINES).min(self.reaches - 1)
    }

    /// The local y range of reach `r` (and its watersheds): cut mid-block, so each
    /// vertical street's catch basins fall on the side of the manhole they drain to.
    pub fn reach_y(&self, r: usize) -> (f64, f64) {
        let lo = if r == 0 {
            -MARGIN
        } else {
            self.y(r * REACH_LINES) - PITCH_Y / 2.0
        };
        let hi = if r + 1 == self.reaches {
            self.height() + MARGIN
        } else {
            self.y((r + 1) * REACH_LINES) - PITCH_Y / 2.0
        };
        (lo, hi)
    }

    /// The local x range of stream `s`'s watersheds: cut mid-block on the divide, where
    /// catch basins west of the block's middle drain west and the others east.
    pub fn watershed_x(&self, s: usize) -> (f64, f64) {
        let divide =
            |a: usize, b: usize| self.x((self.streams[a] + self.streams[b]) / 2) + PITCH_X / 2.0;
        let lo = if s == 0 { -MARGIN } else { divide(s - 1, s) };
        let hi = if s + 1 == self.streams.len() {
            self.width() + MARGIN
        } else {
            divide(s, s + 1)
        };
        (lo, hi)
    }

    /// The number of node `(i, j)`, used in structure ids.
    pub fn node_index(&self, i: usize, j: usize) -> usize {
        j * (self.cols + 1) + i
    }

    /// The id of the receiving water of stream `s`, reach `r`.
    pub fn water_id(&self, s: usize, r: usize) -> String {
        format!("NY-1301-{:04}", s * self.reaches + r + 1)
    }
}

/// Parcels per block: as even as the total allows, then shuffled by moving a few parcels
/// between neighbouring blocks so the sum stays exact and blocks hold 8–12 at 10 a block.
fn block_counts(seed: u64, parcels: usize, blocks: usize) -> Vec<u16> {
    let q = parcels / blocks;
    let rem = parcels % blocks;
    let mut counts: Vec<u16> = (0..blocks)
        .map(|b| (q + usize::from(b < rem)) as u16)
        .collect();
    let lo = q.saturating_sub(2).max(1) as i64;
    let hi = (q + 2) as i64;
    let mut rng = SmallRng::seed_from_u64(splitmix(seed ^ tag::COUNTS));
    for b in 0..blocks.saturating_sub(1) {
        let d: i64 = rng.gen_range(-2..=2);
        let (a, c) = (counts[b] as i64 - d, counts[b + 1] as i64 + d);
        if (lo..=hi).contains(&a) && (lo..=hi).contains(&c) {
            counts[b] = a as u16;
            counts[b + 1] = c as u16;
        }
    }
    counts
}

/// SplitMix64's finaliser: a cheap, well-mixed hash of a 64-bit number.
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Rounds to `1/scale`.
pub fn round(v: f64, scale: f64) -> f64 {
    (v * scale).round() / scale
}
