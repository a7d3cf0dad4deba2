//! The drainage network: catch basins on both curbs of every street segment, manholes at
//! the crossings, trunk lines along the east-west streets down to an outfall on the nearest
//! stream (or, in the trunk district, to an interceptor along the bank and a trunk main:
//! see `trunk`), and a lead from every catch basin to the structure below it.
//!
//! Each node `(i, j)` of the grid emits its manhole, its trunk pipe, the catch basins of
//! the two street segments that start at it (east and north) with their leads, and, when
//! the line is a stream, the outfalls on both banks. Nothing refers to anything not yet
//! generated except by position and id, both of which are pure functions of the grid.

use geo_types::{Geometry, LineString, Point};
use rand::rngs::SmallRng;
use rand::Rng;

use super::layout::{tag, Layout, CURB, LEAD, OUTFALL_SETBACK, PITCH_X, PITCH_Y};
use super::{date, pick, text, Ids, Out};
use crate::domain::{Feature, Layer, Value};

/// Which curb of which street segment a catch basin sits on. Segments are named by the
/// node they start at: the east-west one runs east from it, the north-south one north.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Curb {
    /// South curb of the east-west segment.
    South = 0,
    /// North curb of the east-west segment.
    North = 1,
    /// West curb of the north-south segment.
    West = 2,
    /// East curb of the north-south segment.
    East = 3,
}

/// A catch basin's number (for its id) and local position.
#[derive(Debug, Clone, Copy)]
pub struct CbSite {
    /// The number in its id.
    pub n: usize,
    /// Local x (feet).
    pub x: f64,
    /// Local y (feet).
    pub y: f64,
}

impl CbSite {
    /// The catch basin's id.
    pub fn id(&self) -> String {
        format!("CB-{:07}", self.n)
    }
}

/// The structure a pipe flows into.
#[derive(Debug, Clone, Copy)]
enum End {
    /// The manhole at node `(i, j)`.
    Mh(usize, usize),
    /// The outfall on stream `s` at street line `j`, on the east bank when `east`.
    Of { s: usize, east: bool, j: usize },
    /// The trunk main's manhole below interceptor line `i` (see `trunk`).
    Main(usize),
    /// The trunk main's outfall.
    TrunkOf,
}

impl Layout {
    /// The catch basin on `curb` of the segment starting at node `(i, j)`, if the segment
    /// exists (no north-south segment above the top line or along a stream).
    pub fn cb(&self, i: usize, j: usize, curb: Curb) -> Option<CbSite> {
        let east_west = matches!(curb, Curb::South | Curb::North);
        if east_west && i >= self.cols || !east_west && (j >= self.rows || self.is_stream(i)) {
            return None;
        }
        let n = self.node_index(i, j) * 4 + curb as usize + 1;
        let t: f64 = self.rng(tag::CB, n as u64).gen_range(0.35..0.65);
        let (x, y) = match curb {
            Curb::South => (self.x(i) + t * PITCH_X, self.y(j) - CURB),
            Curb::North => (self.x(i) + t * PITCH_X, self.y(j) + CURB),
            Curb::West => (self.x(i) - CURB, self.y(j) + t * PITCH_Y),
            Curb::East => (self.x(i) + CURB, self.y(j) + t * PITCH_Y),
        };
        Some(CbSite { n, x, y })
    }

    /// Where a catch basin drains: along its segment towards the stream, or to the nearer
    /// manhole on a north-south segment or a divide.
    fn cb_end(&self, i: usize, j: usize, curb: Curb, site: &CbSite) -> End {
        match curb {
            Curb::South | Curb::North => {
                let (a, b) = (i, i + 1);
                // Beside a trunk-district stream, to the bank's manhole (its interceptor).
                if self.stream_at(b).is_some_and(|s| self.in_district(s)) {
                    End::Mh(a, j)
                } else if self.stream_at(a).is_some_and(|s| self.in_district(s)) {
                    End::Mh(b, j)
                } else if let Some(s) = self.stream_at(b) {
                    End::Of { s, east: false, j }
                } else if let Some(s) = self.stream_at(a) {
                    End::Of { s, east: true, j }
                } else if self.has_trunk(a) {
                    End::Mh(if self.flows_east(a) { b } else { a }, j)
                } else {
                    End::Mh(
                        if site.x < self.x(a) + PITCH_X / 2.0 {
                            a
                        } else {
                            b
                        },
                        j,
                    )
                }
            }
            Curb::West | Curb::East => End::Mh(
                i,
                if site.y < self.y(j) + PITCH_Y / 2.0 {
                    j
                } else {
                    j + 1
                },
            ),
        }
    }

    fn end_pos(&self, e: End) -> (f64, f64) {
        match e {
            End::Mh(i, j) => (self.x(i), self.y(j)),
            End::Of { s, east, j } => {
                let y = self.y(j);
                let dx = if east {
                    OUTFALL_SETBACK
                } else {
                    -OUTFALL_SETBACK
                };
                (self.stream_x(s, y) + dx, y)
            }
            End::Main(i) => (self.x(i), super::trunk::MAIN_Y),
            End::TrunkOf => self.trunk_outfall_pos(),
        }
    }

    fn end_id(&self, e: End) -> String {
        match e {
            End::Mh(i, j) => format!("MH-{:07}", self.node_index(i, j) + 1),
            End::Of { s, east, j } => format!(
                "OF-{:06}",
                (j * self.streams.len() + s) * 2 + usize::from(east) + 1
            ),
            End::Main(i) => format!("MH-T{:06}", i + 1),
            End::TrunkOf => "OF-T00001".to_string(),
        }
    }

    /// Invert elevation in feet: the stream bed falls southwards, outfalls sit 2 ft above
    /// it and trunks rise 1 ft per 100 ft away from their outfall.
    fn end_invert(&self, e: End) -> f64 {
        match e {
            End::Of { j, .. } => 102.0 + 0.004 * self.y(j),
            End::Main(i) => self.main_invert(i),
            End::TrunkOf => self.trunk_outfall_invert(),
            End::Mh(i, j) => {
                let s = self.target(i).expect("manholes are not on streams");
                let east = i > self.streams[s];
                let of = End::Of { s, east, j };
                self.end_invert(of) + 0.5 + 0.01 * (self.x(i) - self.end_pos(of).0).abs()
            }
        }
    }
}

/// Trunk diameter grows quickly with the manholes upstream, so trunks span the standard
/// sizes from 15 to 48 in even though they are a few blocks long.
fn trunk_diameter(hops: usize) -> f64 {
    const SIZES: [f64; 10] = [12.0, 15.0, 18.0, 21.0, 24.0, 27.0, 30.0, 36.0, 42.0, 48.0];
    SIZES[(2 * hops + 1).min(SIZES.len() - 1)]
}

/// Emits everything node `(i, j)` owns (see the module docs).
pub fn node(lay: &Layout, i: usize, j: usize, out: &mut Out, ids: &mut Ids) {
    let mut rng = lay.rng(tag::NODE, lay.node_index(i, j) as u64);
    if let Some(s) = lay.stream_at(i) {
        // A trunk-district stream has one outfall, the trunk main's (see `trunk_main`).
        for east in [false, true].into_iter().filter(|_| !lay.in_district(s)) {
            let upstream = if east { i + 1 } else { i.wrapping_sub(1) };
            if upstream <= lay.cols {
                outfall(lay, s, east, j, upstream, out);
            }
        }
    } else {
        let here = End::Mh(i, j);
        let inv = lay.end_invert(here);
        structure(
            lay,
            Layer::Manholes,
            lay.end_id(here),
            lay.end_pos(here),
            inv,
            7.0,
            &mut rng,
            out,
        );
        let down_i = if lay.flows_east(i) { i + 1 } else { i - 1 };
        let down = match lay.stream_at(down_i) {
            // Beside a trunk-district stream: south along the bank, then the main.
            Some(s) if lay.in_district(s) && j > 0 => End::Mh(i, j - 1),
            Some(s) if lay.in_district(s) => End::Main(i),
            Some(s) => End::Of {
                s,
                east: down_i < i,
                j,
            },
            None => End::Mh(down_i, j),
        };
        let (a, b) = (lay.end_pos(here), lay.end_pos(down));
        let (kind, material) = if rng.gen_bool(0.04) {
            (
                "culvert",
                pick(&mut rng, &[("RCP", 6), ("CMP", 3), ("HDPE", 1)]),
            )
        } else {
            (
                "pipe",
                pick(
                    &mut rng,
                    &[("RCP", 14), ("HDPE", 3), ("CMP", 2), ("VCP", 1)],
                ),
            )
        };
        let diameter = match down {
            // An interceptor carries a whole bank.
            End::Mh(_, dj) if dj != j => 54.0,
            End::Main(_) => 54.0,
            _ => trunk_diameter(lay.hops(i)),
        };
        let pipe = PipeSpec {
            from: (lay.end_id(here), a),
            to: (lay.end_id(down), b),
            path: vec![a, b],
            kind,
            diameter: Some(diameter),
            material,
            from_inv: inv,
            to_inv: lay.end_invert(down),
        };
        emit_pipe(lay, pipe, &mut rng, out, ids);
        // Towns record drainage easements over some lines (laid before a road was
        // dedicated, or across a lot); give a few trunks one so pipe easements have data.
        if rng.gen_bool(0.01) {
            let (x0, x1) = (a.0.min(b.0) - 10.0, a.0.max(b.0) + 10.0);
            super::private::easement(
                lay,
                (x0, a.1 - 10.0, x1, a.1 + 10.0),
                "drainage",
                &mut rng,
                out,
                ids,
            );
        }
    }
    for curb in [Curb::South, Curb::North, Curb::West, Curb::East] {
        if let Some(site) = lay.cb(i, j, curb) {
            catch_basin(lay, i, j, curb, site, out, ids);
        }
    }
}

/// The trunk main below the southernmost street: a manhole below each interceptor, the
/// pipes between them (crossing under the district's streams) and its outfall. Emitted
/// after the grid, so every other id is as it would be without it.
pub fn trunk_main(lay: &Layout, out: &mut Out, ids: &mut Ids) {
    let lines = lay.interceptors();
    if lines.is_empty() {
        return;
    }
    let mut rng = lay.rng(tag::OUTFALL, u64::MAX);
    let (a, _) = lay.district();
    let (x, y) = lay.end_pos(End::TrunkOf);
    let mut f = Feature::new(Layer::Outfalls, lay.end_id(End::TrunkOf));
    f.set(
        Layer::Outfalls,
        "receiving_water_id",
        text(lay.water_id(a, 0)),
    );
    f.set(Layer::Outfalls, "diameter_in", Value::Real(72.0));
    f.set(Layer::Outfalls, "status", text("active"));
    f.set(Layer::Outfalls, "owner", text("Town"));
    f.geom = Some(Geometry::Point(Point(lay.c(x, y))));
    out.push(Layer::Outfalls, f);
    for &l in &lines {
        let here = End::Main(l);
        let inv = lay.end_invert(here);
        structure(
            lay,
            Layer::Manholes,
            lay.end_id(here),
            lay.end_pos(here),
            inv,
            12.0,
            &mut rng,
            out,
        );
        let down = lay.main_next(l).map_or(End::TrunkOf, End::Main);
        let (p, q) = (lay.end_pos(here), lay.end_pos(down));
        let pipe = PipeSpec {
            from: (lay.end_id(here), p),
            to: (lay.end_id(down), q),
            path: vec![p, q],
            kind: "pipe",
            diameter: Some(72.0),
            material: "RCP",
            from_inv: inv,
            to_inv: lay.end_invert(down),
        };
        emit_pipe(lay, pipe, &mut rng, out, ids);
    }
}

/// An outfall and nothing else: the pipes into it belong to the manhole and catch basins
/// upstream.
fn outfall(lay: &Layout, s: usize, east: bool, j: usize, upstream: usize, out: &mut Out) {
    let e = End::Of { s, east, j };
    let id = lay.end_id(e);
    let mut rng = lay.rng(
        tag::OUTFALL,
        (j * lay.streams.len() + s) as u64 * 2 + u64::from(east),
    );
    let (x, y) = lay.end_pos(e);
    let mut f = Feature::new(Layer::Outfalls, id);
    // Most outfalls name their water; the rest leave it to the nearest-water rule.
    if rng.gen_bool(0.9) {
        f.set(
            Layer::Outfalls,
            "receiving_water_id",
            text(lay.water_id(s, lay.reach_of_line(j))),
        );
    }
    f.set(
        Layer::Outfalls,
        "diameter_in",
        Value::Real(trunk_diameter(lay.hops(upstream))),
    );
    f.set(
        Layer::Outfalls,
        "status",
        text(pick(&mut rng, &[("active", 97), ("abandoned", 3)])),
    );
    f.set(Layer::Outfalls, "owner", text(owner(&mut rng)));
    f.geom = Some(Geometry::Point(Point(lay.c(x, y))));
    out.push(Layer::Outfalls, f);
}

/// A catch basin and its lead to the structure it drains to.
fn catch_basin(
    lay: &Layout,
    i: usize,
    j: usize,
    curb: Curb,
    site: CbSite,
    out: &mut Out,
    ids: &mut Ids,
) {
    // A stream separate from the one `cb()` drew the position from.
    let mut rng = lay.rng(tag::CB, site.n as u64 ^ (1 << 40));
    let down = lay.cb_end(i, j, curb, &site);
    let (dx, dy) = lay.end_pos(down);
    let (cx, cy) = (site.x, site.y);
    // Leads run across to a line just off the street's centre, then along it.
    let path = match curb {
        Curb::South => vec![(cx, cy), (cx, dy - LEAD), (dx, dy - LEAD), (dx, dy)],
        Curb::North => vec![(cx, cy), (cx, dy + LEAD), (dx, dy + LEAD), (dx, dy)],
        Curb::West => vec![(cx, cy), (dx - LEAD, cy), (dx - LEAD, dy), (dx, dy)],
        Curb::East => vec![(cx, cy), (dx + LEAD, cy), (dx + LEAD, dy), (dx, dy)],
    };
    let length: f64 = path
        .windows(2)
        .map(|w| (w[1].0 - w[0].0).abs() + (w[1].1 - w[0].1).abs())
        .sum();
    let to_inv = lay.end_invert(down) + 0.5;
    let inv = to_inv + 0.01 * length;
    structure(
        lay,
        Layer::CatchBasins,
        site.id(),
        (cx, cy),
        inv,
        4.0,
        &mut rng,
        out,
    );
    let (kind, diameter, material) =
        match pick(&mut rng, &[("pipe", 94), ("ditch", 3), ("swale", 3)]) {
            "pipe" => (
                "pipe",
                Some(pick(&mut rng, &[(12.0, 8), (15.0, 2)])),
                pick(&mut rng, &[("HDPE", 5), ("RCP", 3), ("PVC", 2), ("CMP", 1)]),
            ),
            k => (k, None, if k == "ditch" { "earth" } else { "grass" }),
        };
    let pipe = PipeSpec {
        from: (site.id(), (cx, cy)),
        to: (lay.end_id(down), (dx, dy)),
        path,
        kind,
        diameter,
        material,
        from_inv: inv,
        to_inv,
    };
    emit_pipe(lay, pipe, &mut rng, out, ids);
}

/// Moves a pipe end by up to a foot, as a digitiser would: 0.7 ft at most each way, so
/// every end stays within the profiles' 1 ft snap tolerance of its structure (up to a
/// foot each way put a fifth of them beyond it, which cut the long interceptors of the
/// trunk district short).
fn jitter(pt: &mut (f64, f64), rng: &mut SmallRng) {
    pt.0 += 0.7 * rng.gen_range(-1.0..1.0);
    pt.1 += 0.7 * rng.gen_range(-1.0..1.0);
}

/// A catch basin or manhole.
#[allow(clippy::too_many_arguments)]
fn structure(
    lay: &Layout,
    layer: Layer,
    id: String,
    (x, y): (f64, f64),
    invert: f64,
    depth: f64,
    rng: &mut SmallRng,
    out: &mut Out,
) {
    let mut f = Feature::new(layer, id);
    f.set(
        layer,
        "status",
        text(pick(
            rng,
            &[("active", 94), ("proposed", 4), ("abandoned", 2)],
        )),
    );
    f.set(layer, "owner", text(owner(rng)));
    f.set(
        layer,
        "rim_elev",
        lay.elev(invert + depth + rng.gen_range(0.0..3.0)),
    );
    f.set(layer, "installed_on", date(rng, 1955, 2023));
    f.geom = Some(Geometry::Point(Point(lay.c(x, y))));
    out.push(layer, f);
}

/// Who owns a structure: mostly the town, some the county or the state on their roads.
fn owner(rng: &mut SmallRng) -> &'static str {
    pick(
        rng,
        &[("Town", 90), ("County", 5), ("NYSDOT", 3), ("Private", 2)],
    )
}

/// A pipe before the data-quality noise is applied.
struct PipeSpec {
    from: (String, (f64, f64)),
    to: (String, (f64, f64)),
    path: Vec<(f64, f64)>,
    kind: &'static str,
    diameter: Option<f64>,
    material: &'static str,
    from_inv: f64,
    to_inv: f64,
}

/// Writes a pipe, digitised downstream, with the noise real networks carry: about 10%
/// without from/to ids (their ends a digitising error off the structure, to exercise
/// snapping) and about 2% whose inverts contradict their from/to.
fn emit_pipe(lay: &Layout, p: PipeSpec, rng: &mut SmallRng, out: &mut Out, ids: &mut Ids) {
    let mut f = Feature::new(Layer::Pipes, format!("PIPE-{:07}", ids.next_pipe()));
    let mut path = p.path;
    let last = path.len() - 1;
    let (mut from_id, mut to_id) = (Some(p.from.0), Some(p.to.0));
    match rng.gen_range(0..100) {
        0..=7 => (from_id, to_id) = (None, None),
        8 => from_id = None,
        9 => to_id = None,
        _ => {}
    }
    if from_id.is_none() {
        jitter(&mut path[0], rng);
    }
    if to_id.is_none() {
        jitter(&mut path[last], rng);
    }
    let (from_inv, to_inv) = if rng.gen_bool(0.02) {
        (p.to_inv, p.from_inv)
    } else {
        (p.from_inv, p.to_inv)
    };
    let l = Layer::Pipes;
    f.set(l, "from_id", from_id.map_or(Value::Null, Value::Text));
    f.set(l, "to_id", to_id.map_or(Value::Null, Value::Text));
    f.set(l, "kind", text(p.kind));
    f.set(
        l,
        "diameter_in",
        p.diameter.map_or(Value::Null, Value::Real),
    );
    f.set(l, "material", text(p.material));
    f.set(l, "from_invert", lay.elev(from_inv));
    f.set(l, "to_invert", lay.elev(to_inv));
    f.set(
        l,
        "status",
        text(pick(
            rng,
            &[("active", 97), ("abandoned", 2), ("proposed", 1)],
        )),
    );
    let line: LineString<f64> = path.iter().map(|&(x, y)| lay.c(x, y)).collect();
    f.geom = Some(Geometry::MultiLineString(line.into()));
    out.push(l, f);
}
