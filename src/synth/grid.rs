//! Parcels: two rows of lots per block, back to back, each row facing its street, with
//! land uses from New York's property class codes, addresses and owners.

use geo_types::{Geometry, LineString, MultiPolygon, Polygon};
use rand::rngs::SmallRng;
use rand::Rng;

use super::layout::{Layout, BLOCK_H, BLOCK_W, STREET};
use super::{pick, text, Ids, Out};
use crate::domain::{Feature, Layer};

/// A lot as the rest of the block's generation needs it.
#[derive(Debug, Clone)]
pub struct Lot {
    /// The parcel id.
    pub id: String,
    /// Local `(x0, y0, x1, y1)` in feet.
    pub rect: (f64, f64, f64, f64),
    /// Whether the lot faces the street to its north (else the one to its south).
    pub faces_north: bool,
    /// The NY property class code.
    pub land_use: u16,
}

impl Lot {
    /// Whether the land use is commercial, industrial or vacant commercial/industrial,
    /// the classes whose connections more often carry something other than stormwater.
    pub fn is_business(&self) -> bool {
        matches!(self.land_use, 330..=349 | 400..=499 | 700..=799)
    }

    /// Whether the land use is public (parks, government, schools).
    pub fn is_public(&self) -> bool {
        matches!(self.land_use, 590..=599 | 610..=619 | 650..=659)
    }
}

/// Land-use mixes by the kind of block: blocks cluster uses, as zoning does.
const RESIDENTIAL: &[(u16, u32)] = &[
    (210, 160),
    (220, 10),
    (230, 2),
    (280, 6),
    (311, 8),
    (411, 6),
    (590, 2),
    (620, 2),
    (650, 1),
];
const COMMERCIAL: &[(u16, u32)] = &[
    (421, 10),
    (425, 3),
    (432, 6),
    (464, 12),
    (411, 8),
    (449, 4),
    (484, 8),
    (330, 6),
    (210, 10),
    (620, 2),
    (650, 2),
];
const INDUSTRIAL: &[(u16, u32)] = &[
    (710, 30),
    (714, 15),
    (720, 5),
    (449, 15),
    (330, 10),
    (340, 10),
    (432, 5),
];
const CIVIC: &[(u16, u32)] = &[(590, 30), (592, 20), (620, 20), (650, 20), (612, 10)];

const STREET_NAMES: [&str; 40] = [
    "Elm",
    "Oak",
    "Maple",
    "Main",
    "Church",
    "Mill",
    "Spring",
    "Park",
    "Cedar",
    "Pine",
    "Walnut",
    "Chestnut",
    "Hillside",
    "Lake",
    "Ridge",
    "Orchard",
    "Bedford",
    "Hudson",
    "Washington",
    "Lincoln",
    "Franklin",
    "Jefferson",
    "Madison",
    "Adams",
    "Highland",
    "Meadow",
    "Valley",
    "School",
    "Union",
    "Center",
    "Prospect",
    "Pleasant",
    "Grove",
    "Willow",
    "Birch",
    "Hickory",
    "Sunset",
    "Forest",
    "Brook",
    "Academy",
];
const SUFFIXES: [&str; 10] = [
    "St", "Ave", "Rd", "Ln", "Dr", "Pl", "Ct", "Way", "Ter", "Blvd",
];
const PREFIXES: [&str; 5] = ["", "North ", "South ", "East ", "West "];
const SURNAMES: [&str; 40] = [
    "Smith",
    "Johnson",
    "Williams",
    "Brown",
    "Jones",
    "Miller",
    "Davis",
    "Garcia",
    "Rodriguez",
    "Wilson",
    "Martinez",
    "Anderson",
    "Taylor",
    "Thomas",
    "Hernandez",
    "Moore",
    "Martin",
    "Jackson",
    "Thompson",
    "White",
    "Lopez",
    "Lee",
    "Gonzalez",
    "Harris",
    "Clark",
    "Lewis",
    "Robinson",
    "Walker",
    "Perez",
    "Hall",
    "Young",
    "Allen",
    "Sanchez",
    "Wright",
    "King",
    "Scott",
    "Green",
    "Baker",
    "Adams",
    "Nelson",
];

/// The name of east-west street line `j`; unique for the first 2,000 lines.
pub fn street_name(j: usize) -> String {
    let n = STREET_NAMES.len();
    let s = SUFFIXES.len();
    let prefix = PREFIXES[(j / (n * s)) % PREFIXES.len()];
    format!("{prefix}{} {}", STREET_NAMES[j % n], SUFFIXES[(j / n) % s])
}

/// Who owns a parcel of a land use.
fn owner(rng: &mut SmallRng, land_use: u16) -> String {
    let surname = SURNAMES[rng.gen_range(0..SURNAMES.len())];
    match land_use {
        590..=599 | 650..=659 => "Town".into(),
        612 => "Central School District".into(),
        620..=629 => format!(
            "{} Community Church",
            STREET_NAMES[rng.gen_range(0..STREET_NAMES.len())]
        ),
        330..=349 | 400..=499 | 700..=799 => {
            let kind = pick(
                rng,
                &[
                    ("Holdings LLC", 4),
                    ("Realty Corp", 2),
                    ("Properties LLC", 3),
                    ("& Sons Inc", 1),
                ],
            );
            format!("{surname} {kind}")
        }
        _ if rng.gen_bool(0.1) => format!("{surname} Family Trust"),
        _ => format!("{}. {surname}", (b'A' + rng.gen_range(0..26u8)) as char),
    }
}

/// The cuts that split `[a, b]` into `m` lots of roughly equal width.
fn cuts(rng: &mut SmallRng, a: f64, b: f64, m: usize) -> Vec<f64> {
    let w = (b - a) / m as f64;
    let mut v = Vec::with_capacity(m + 1);
    v.push(a);
    for t in 1..m {
        v.push(a + w * (t as f64 + rng.gen_range(-0.2..0.2)));
    }
    v.push(b);
    v
}

/// Emits the `n` parcels of block `(i, j)` and returns them as lots: the southern row
/// faces street line `j`, the northern row street line `j + 1`.
pub fn block(
    lay: &Layout,
    i: usize,
    j: usize,
    n: usize,
    rng: &mut SmallRng,
    out: &mut Out,
    ids: &mut Ids,
) -> Vec<Lot> {
    let mut lots = Vec::with_capacity(n);
    if n == 0 {
        return lots;
    }
    let table = pick(
        rng,
        &[
            (RESIDENTIAL, 78),
            (COMMERCIAL, 13),
            (INDUSTRIAL, 5),
            (CIVIC, 4),
        ],
    );
    let (x0, x1) = (lay.x(i) + STREET / 2.0, lay.x(i) + STREET / 2.0 + BLOCK_W);
    let (y0, y1) = (lay.y(j) + STREET / 2.0, lay.y(j) + STREET / 2.0 + BLOCK_H);
    let north = n / 2;
    let south = n - north;
    // Rear lot lines meet at a jittered line, so depths vary from block to block.
    let mid = if north == 0 {
        y1
    } else {
        y0 + BLOCK_H / 2.0 + rng.gen_range(-20.0..20.0)
    };
    for (row, m) in [(false, south), (true, north)] {
        if m == 0 {
            continue;
        }
        let (ya, yb) = if row { (mid, y1) } else { (y0, mid) };
        let xs = cuts(rng, x0, x1, m);
        let street = street_name(if row { j + 1 } else { j });
        for k in 0..m {
            let rect = (xs[k], ya, xs[k + 1], yb);
            let land_use = pick(rng, table);
            let id = format!("P-{:06}", ids.next_parcel());
            // Odd numbers on the north side of a street, even on the south, by hundred
            // per block so numbers rise eastwards.
            let number = (i + 1) * 100 + 2 * k + if row { 2 } else { 1 };
            let mut f = Feature::new(Layer::Parcels, id.clone());
            f.set(Layer::Parcels, "land_use", text(land_use.to_string()));
            f.set(
                Layer::Parcels,
                "address",
                text(format!("{number} {street}")),
            );
            f.set(Layer::Parcels, "owner", text(owner(rng, land_use)));
            f.geom = Some(Geometry::MultiPolygon(MultiPolygon(vec![rect_polygon(
                lay, rect,
            )])));
            out.push(Layer::Parcels, f);
            lots.push(Lot {
                id,
                rect,
                faces_north: row,
                land_use,
            });
        }
    }
    lots
}

/// A local rectangle as a CRS polygon, counter-clockwise.
pub fn rect_polygon(lay: &Layout, (x0, y0, x1, y1): (f64, f64, f64, f64)) -> Polygon<f64> {
    let ring: LineString<f64> = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)]
        .iter()
        .map(|&(x, y)| lay.c(x, y))
        .collect();
    Polygon::new(ring, vec![])
}
