//! Cutting geometry to the tile and its buffer without the general overlay: lines
//! segment by segment, rings of a few corners edge by edge, and the integer test that
//! tells when a cut ring is plainly simple.

use geo_types::{Coord, LineString};

use super::{BUFFER, EXTENT};

/// A line cut to the tile and its buffer: the parts inside, each in the line's own
/// direction (a pipe's flow), segment by segment (Liang-Barsky), so a line that leaves and
/// comes back gives one part per stay.
pub(super) fn cut_line(l: &LineString<f64>) -> Vec<LineString<f64>> {
    let (lo, hi) = (-BUFFER, EXTENT as f64 + BUFFER);
    let mut parts = Vec::new();
    let mut part: Vec<Coord<f64>> = Vec::new();
    for w in l.0.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (dx, dy) = (b.x - a.x, b.y - a.y);
        // The segment is a + t (b - a), kept for t in [t0, t1].
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let mut keep = true;
        for (p, q) in [
            (-dx, a.x - lo),
            (dx, hi - a.x),
            (-dy, a.y - lo),
            (dy, hi - a.y),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    keep = false;
                    break;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
            }
        }
        if !keep || t0 > t1 {
            if part.len() >= 2 {
                parts.push(LineString(std::mem::take(&mut part)));
            }
            part.clear();
            continue;
        }
        let at = |t: f64| Coord {
            x: a.x + dx * t,
            y: a.y + dy * t,
        };
        let (p0, p1) = (
            if t0 > 0.0 { at(t0) } else { a },
            if t1 < 1.0 { at(t1) } else { b },
        );
        if t0 > 0.0 || part.is_empty() {
            // Entering (or the first segment inside): a new part.
            if part.len() >= 2 {
                parts.push(LineString(std::mem::take(&mut part)));
            }
            part.clear();
            part.push(p0);
        }
        part.push(p1);
        if t1 < 1.0 {
            // Leaving.
            if part.len() >= 2 {
                parts.push(LineString(std::mem::take(&mut part)));
            }
            part.clear();
        }
    }
    if part.len() >= 2 {
        parts.push(LineString(part));
    }
    parts
}

/// A ring (open or closed) cut to the tile and its buffer, Sutherland-Hodgman, one edge
/// of the buffer at a time; open, and empty when nothing is inside.
pub(super) fn cut_to_buffer(mut ring: Vec<Coord<f64>>) -> Vec<Coord<f64>> {
    let (lo, hi) = (-BUFFER, EXTENT as f64 + BUFFER);
    if ring.len() > 1 && ring.first() == ring.last() {
        ring.pop();
    }
    // Each edge: which side is kept, and where a segment crosses it.
    type Keep = fn(Coord<f64>, f64) -> bool;
    type Cross = fn(Coord<f64>, Coord<f64>, f64) -> Coord<f64>;
    let at_x: Cross = |a, b, x| Coord {
        x,
        y: a.y + (b.y - a.y) * (x - a.x) / (b.x - a.x),
    };
    let at_y: Cross = |a, b, y| Coord {
        x: a.x + (b.x - a.x) * (y - a.y) / (b.y - a.y),
        y,
    };
    let edges: [(Keep, Cross, f64); 4] = [
        (|c, v| c.x >= v, at_x, lo),
        (|c, v| c.x <= v, at_x, hi),
        (|c, v| c.y >= v, at_y, lo),
        (|c, v| c.y <= v, at_y, hi),
    ];
    let mut out = Vec::with_capacity(ring.len() + 4);
    for (keep, cross, v) in edges {
        out.clear();
        let Some(&last) = ring.last() else {
            return ring;
        };
        let mut prev = last;
        for &c in &ring {
            match (keep(c, v), keep(prev, v)) {
                (true, true) => out.push(c),
                (true, false) => {
                    out.push(cross(prev, c, v));
                    out.push(c);
                }
                (false, true) => out.push(cross(prev, c, v)),
                (false, false) => {}
            }
            prev = c;
        }
        std::mem::swap(&mut ring, &mut out);
    }
    ring
}

/// Whether no two non-neighbouring edges of a closed ring meet at all (not even touch):
/// stricter than geo's validity, so a ring passing it is valid there too.
pub(super) fn plainly_simple(pts: &[(i64, i64)]) -> bool {
    let n = pts.len() - 1;
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue;
            }
            if segments_meet(pts[i], pts[i + 1], pts[j], pts[j + 1]) {
                return false;
            }
        }
    }
    true
}

pub(super) fn orient2(a: (i64, i64), b: (i64, i64), c: (i64, i64)) -> i64 {
    ((b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)).signum()
}

pub(super) fn on_segment(a: (i64, i64), b: (i64, i64), p: (i64, i64)) -> bool {
    p.0 >= a.0.min(b.0) && p.0 <= a.0.max(b.0) && p.1 >= a.1.min(b.1) && p.1 <= a.1.max(b.1)
}

pub(super) fn segments_meet(a: (i64, i64), b: (i64, i64), c: (i64, i64), d: (i64, i64)) -> bool {
    let (o1, o2, o3, o4) = (
        orient2(a, b, c),
        orient2(a, b, d),
        orient2(c, d, a),
        orient2(c, d, b),
    );
    if o1 != o2 && o3 != o4 {
        return true;
    }
    (o1 == 0 && on_segment(a, b, c))
        || (o2 == 0 && on_segment(a, b, d))
        || (o3 == 0 && on_segment(c, d, a))
        || (o4 == 0 && on_segment(c, d, b))
}
