//! The nearest point of a layer of points, found in a grid of square cells rather than
//! the layer's R-tree: the answer [`nearest_one_within`] gives, for a million questions
//! asked of one layer at once (each of a county's parcels asks for its nearest catch
//! basin). The tree's nearest search keeps a heap of its nodes for each question, and
//! that was most of the time the county's parcels took; the grid reads a few cells laid
//! out side by side.
//!
//! [`nearest_one_within`]: super::query::nearest_one_within

use geo_types::Point;

use super::snapshot::LayerIndex;

/// A layer's points, by the cell of a square grid each lies in.
pub struct PointGrid {
    /// The grid's lower left corner.
    x0: f64,
    y0: f64,
    /// A cell's side.
    side: f64,
    /// Cells across and up.
    nx: i64,
    ny: i64,
    /// Where each cell's points start in `points` (cells row by row), and one past the
    /// last.
    starts: Vec<u32>,
    /// Each point and its feature's position in the layer, cell by cell.
    points: Vec<(f64, f64, u32)>,
}

impl PointGrid {
    /// The grid of a layer whose every geometry is a point (None otherwise, or when the
    /// layer has none or a coordinate is not finite): each cell as wide as a square
    /// holding two points on average over the layer's extent.
    pub fn new(idx: &LayerIndex) -> Option<Self> {
        let mut pts: Vec<(f64, f64, u32)> = Vec::with_capacity(idx.tree.size());
        for e in idx.tree.iter() {
            let r = e.geom();
            let [x, y] = r.lower();
            if r.lower() != r.upper() || !x.is_finite() || !y.is_finite() {
                return None;
            }
            pts.push((x, y, u32::try_from(e.data).ok()?));
        }
        let first = pts.first()?;
        let (mut x0, mut y0, mut x1, mut y1) = (first.0, first.1, first.0, first.1);
        for &(x, y, _) in &pts {
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
        }
        let (w, h) = (x1 - x0, y1 - y0);
        let n = pts.len() as f64;
        // Two points a cell on average; a grid of points along one line is one row.
        let side = match (w > 0.0, h > 0.0) {
            (true, true) => (2.0 * w * h / n).sqrt(),
            (true, false) => 2.0 * w / n,
            (false, true) => 2.0 * h / n,
            (false, false) => 1.0,
        }
        .max(f64::MIN_POSITIVE);
        let nx = ((w / side).floor() as i64 + 1).max(1);
        let ny = ((h / side).floor() as i64 + 1).max(1);
        let mut grid = PointGrid {
            x0,
            y0,
            side,
            nx,
            ny,
            starts: Vec::new(),
            points: Vec::new(),
        };
        let cell = |g: &PointGrid, x: f64, y: f64| {
            let (i, j) = g.cell_of(x, y);
            (j.clamp(0, g.ny - 1) * g.nx + i.clamp(0, g.nx - 1)) as usize
        };
        let mut counts = vec![0u32; (nx * ny) as usize + 1];
        for &(x, y, _) in &pts {
            counts[cell(&grid, x, y) + 1] += 1;
        }
        for c in 1..counts.len() {
            counts[c] += counts[c - 1];
        }
        let mut next = counts.clone();
        // Of equals, the first in the layer is kept by the comparison
        // ([`Nearest::offer`]), whatever order a cell holds them in.
        let mut placed = vec![(0.0, 0.0, 0); pts.len()];
        for p in pts {
            let c = cell(&grid, p.0, p.1);
            placed[next[c] as usize] = p;
            next[c] += 1;
        }
        grid.starts = counts;
        grid.points = placed;
        Some(grid)
    }

    /// The cell holding `(x, y)`, outside the grid for a point outside it.
    fn cell_of(&self, x: f64, y: f64) -> (i64, i64) {
        (
            ((x - self.x0) / self.side).floor() as i64,
            ((y - self.y0) / self.side).floor() as i64,
        )
    }

    /// The nearest point within `radius` of `p` and its distance, as
    /// [`nearest_one_within`](super::query::nearest_one_within) finds it: of equals,
    /// the first in the layer; the distance the same to the last bit. The cells are read
    /// in rings round `p`'s, nearest first, until the next ring lies wholly farther than
    /// the nearest point found or the radius. None for a point not finite.
    pub fn nearest_within(&self, p: &Point<f64>, radius: f64) -> Option<(usize, f64)> {
        if !p.x().is_finite() || !p.y().is_finite() || radius.is_nan() || radius < 0.0 {
            return None;
        }
        let mut best = Nearest::new(p, radius);
        let (cx, cy) = self.cell_of(p.x(), p.y());
        // A question from cells beyond counting (a coordinate far outside the layer's
        // extent) reads every point: the rings' arithmetic would overflow.
        const FAR: i64 = 1 << 40;
        if cx.abs() > FAR || cy.abs() > FAR {
            self.points.iter().for_each(|&q| best.offer(q));
            return best.found();
        }
        // A point in a cell `k` rings out lies at least `k - 1` cells' sides away; a
        // millionth of a side less, for the rounding of a point's cell.
        let slack = self.side * 1e-6;
        let nearest_of_ring = |k: i64| (k - 1) as f64 * self.side - slack;
        // The first ring that holds any of the grid's cells.
        let mut k = [cx - (self.nx - 1), -cx, cy - (self.ny - 1), -cy]
            .into_iter()
            .fold(0, i64::max);
        loop {
            let beyond = nearest_of_ring(k);
            if beyond > radius || best.found().is_some_and(|(_, d)| beyond > d) {
                break;
            }
            self.ring(cx, cy, k, &mut best);
            // This ring reached every edge of the grid: no cell lies farther out.
            if cx - k <= 0 && cy - k <= 0 && cx + k >= self.nx - 1 && cy + k >= self.ny - 1 {
                break;
            }
            k += 1;
        }
        best.found()
    }

    /// Offers each point in the cells `k` rings round cell `(cx, cy)`, within the grid.
    fn ring(&self, cx: i64, cy: i64, k: i64, best: &mut Nearest) {
        let mut cell = |i: i64, j: i64| {
            if (0..self.nx).contains(&i) && (0..self.ny).contains(&j) {
                let c = (j * self.nx + i) as usize;
                let (a, b) = (self.starts[c] as usize, self.starts[c + 1] as usize);
                self.points[a..b].iter().for_each(|&q| best.offer(q));
            }
        };
        if k == 0 {
            cell(cx, cy);
            return;
        }
        for i in cx - k..=cx + k {
            cell(i, cy - k);
            cell(i, cy + k);
        }
        for j in cy - k + 1..cy + k {
            cell(cx - k, j);
            cell(cx + k, j);
        }
    }
}

/// The nearest point offered so far within a radius of a point, of equals the first in
/// the layer.
struct Nearest {
    p: (f64, f64),
    radius: f64,
    best: Option<(u32, f64)>,
}

impl Nearest {
    fn new(p: &Point<f64>, radius: f64) -> Self {
        Nearest {
            p: (p.x(), p.y()),
            radius,
            best: None,
        }
    }

    /// The distance as the R-tree measures a point's: the differences squared, summed,
    /// and the root taken.
    fn offer(&mut self, (x, y, i): (f64, f64, u32)) {
        let (dx, dy) = (self.p.0 - x, self.p.1 - y);
        let d = (dx * dx + dy * dy).sqrt();
        let better = match self.best {
            None => true,
            Some((bi, bd)) => d < bd || (d == bd && i < bi),
        };
        if d <= self.radius && better {
            self.best = Some((i, d));
        }
    }

    fn found(&self) -> Option<(usize, f64)> {
        self.best.map(|(i, d)| (i as usize, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Feature, Layer, LengthUnit};
    use crate::spatial::query::nearest_one_within;
    use crate::spatial::Snapshot;
    use crate::store::RegistryMeta;
    use geo_types::{point, wkt, Geometry};
    use rstest::rstest;
    use std::collections::HashMap;

    fn layer_of(geoms: Vec<Geometry<f64>>) -> Snapshot {
        let meta = RegistryMeta {
            jurisdiction: "north-castle-ny".into(),
            srid: 2260,
            crs_name: "test".into(),
            crs_wkt: String::new(),
            linear_unit: LengthUnit::UsSurveyFoot,
        };
        let features = geoms
            .into_iter()
            .enumerate()
            .map(|(i, g)| {
                let mut f = Feature::new(Layer::CatchBasins, format!("CB-{i:05}"));
                f.geom = Some(g);
                f
            })
            .collect();
        Snapshot::from_features(meta, HashMap::from([(Layer::CatchBasins, features)]))
    }

    /// A town's inlets: a street grid's, a dense cluster, repeated points (equals: the
    /// first in the layer wins) and a few far off.
    fn inlets() -> Vec<Geometry<f64>> {
        let mut pts = Vec::new();
        let mut seed: u64 = 7;
        let mut rand = move || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 0..600 {
            let (x, y) = (f64::from(i % 30) * 37.0, f64::from(i / 30) * 29.0);
            pts.push(point!(x: x, y: y).into());
            if i % 7 == 0 {
                pts.push(point!(x: x, y: y).into());
            }
        }
        for _ in 0..400 {
            pts.push(point!(x: 300.0 + rand() * 40.0, y: 200.0 + rand() * 40.0).into());
        }
        pts.push(point!(x: -2000.0, y: 5000.0).into());
        pts.push(point!(x: 9000.0, y: -300.0).into());
        pts
    }

    #[rstest]
    #[case::a_town(inlets())]
    #[case::one_inlet(vec![point!(x: 5.0, y: 5.0).into()])]
    #[case::inlets_along_one_road(
        (0..50).map(|i| point!(x: 100.0, y: f64::from(i) * 13.0).into()).collect()
    )]
    #[case::inlets_at_one_point(vec![point!(x: 1.0, y: 1.0).into(); 5])]
    fn the_grid_finds_what_the_tree_finds(#[case] geoms: Vec<Geometry<f64>>) {
        let snap = layer_of(geoms);
        let idx = snap.layer(Layer::CatchBasins);
        let grid = PointGrid::new(idx).expect("a layer of points");
        let mut found = 0;
        for i in 0..2_500 {
            // Questions over the town and beyond it, some on cells' corners.
            let p = point!(
                x: f64::from(i % 50) * 29.3 - 300.0,
                y: f64::from(i / 50) * 23.7 - 250.0
            );
            for r in [0.0, 18.5, 300.0, f64::INFINITY] {
                let want = nearest_one_within(idx, &p, r);
                assert_eq!(grid.nearest_within(&p, r), want, "{p:?} within {r}");
                found += usize::from(want.is_some());
            }
        }
        for p in [point!(x: 1e200, y: -3.0), point!(x: -5e15, y: 1e17)] {
            assert_eq!(
                grid.nearest_within(&p, f64::INFINITY),
                nearest_one_within(idx, &p, f64::INFINITY),
                "{p:?}"
            );
        }
        assert!(found > 2_500, "most questions have an answer: {found}");
    }

    #[test]
    fn a_layer_with_any_shape_but_points_has_no_grid() {
        let snap = layer_of(vec![
            point!(x: 0.0, y: 0.0).into(),
            wkt!(POLYGON((0. 0.,1. 0.,1. 1.,0. 0.))).into(),
        ]);
        assert!(PointGrid::new(snap.layer(Layer::CatchBasins)).is_none());
        assert!(PointGrid::new(layer_of(Vec::new()).layer(Layer::CatchBasins)).is_none());
    }
}
