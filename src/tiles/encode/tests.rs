//! The clipping, cutting and snapping of tile geometries against the general paths.

use super::cut::*;
use super::*;
use geo::{Area, BooleanOps, Validation};
use geo_types::wkt;

fn frame() -> Frame {
    Frame {
        minx: 0.0,
        maxy: 4096.0,
        k: 1.0,
    }
}

#[test]
fn polygons_are_clipped_to_the_buffer_and_wound_as_mvt_wants() {
    // A square from the tile's middle to well past its right edge, in metres = units.
    let g: Geometry<f64> =
        wkt!(POLYGON((2000. 1000.,9000. 1000.,9000. 3000.,2000. 3000.,2000. 1000.))).into();
    let mut out = Vec::new();
    in_tile(&g, &frame(), &mut out);
    let Geometry::Polygon(p) = &out[0] else {
        panic!("{out:?}")
    };
    assert!(p.is_valid());
    let xs: Vec<f64> = p.exterior().0.iter().map(|c| c.x).collect();
    assert_eq!(
        xs.iter().cloned().fold(f64::MIN, f64::max),
        EXTENT as f64 + BUFFER
    );
    // Positive area in tile coordinates (y down): MVT's exterior ring.
    assert!(p.signed_area() > 0.0);
}

#[test]
fn a_polygon_under_a_unit_disappears_instead_of_turning_invalid() {
    let g: Geometry<f64> = wkt!(POLYGON((10. 10.,10.3 10.,10.3 10.2,10. 10.2,10. 10.))).into();
    let mut out = Vec::new();
    in_tile(&g, &frame(), &mut out);
    assert!(out.is_empty(), "{out:?}");
    // A sliver: snapping squashes it to a line, which is dropped, never sent invalid.
    let g: Geometry<f64> = wkt!(POLYGON((10. 10.,500. 10.,500. 10.4,10. 10.4,10. 10.))).into();
    let mut out = Vec::new();
    in_tile(&g, &frame(), &mut out);
    for o in &out {
        assert!(o.is_valid(), "{o:?}");
    }
}

#[test]
fn the_small_polygon_path_gives_what_the_full_path_gives() {
    // Lots of every winding and a few odd shapes, at sub-unit offsets so snapping
    // moves them differently; each must come out as the general path makes it.
    let mut seen = 0;
    for k in 0..400 {
        let (ox, oy) = (37.0 + k as f64 * 9.37, 4000.0 - k as f64 * 7.91);
        let w = 0.3 + (k % 13) as f64 * 1.7;
        let h = 0.2 + (k % 7) as f64 * 2.3;
        let mut ring = vec![
            Coord { x: ox, y: oy },
            Coord { x: ox + w, y: oy },
            Coord {
                x: ox + w,
                y: oy + h,
            },
            Coord {
                x: ox + w * 0.5,
                y: oy + h * (k % 3) as f64 * 0.5,
            },
            Coord { x: ox, y: oy + h },
        ];
        if k % 2 == 1 {
            ring.reverse();
        }
        let p = Polygon::new(LineString(ring), vec![]);
        let full = polygons(MultiPolygon(vec![p.map_coords(|c| frame().to_tile(c))]));
        if let Some(quick) = small_polygon(&p, &frame()) {
            seen += 1;
            // The same ring, perhaps from another first vertex (the overlay's).
            assert_eq!(from_lowest(&quick), from_lowest(&full), "lot {k}: {p:?}");
        }
    }
    // A third of them touch their own first edge (the fourth corner on it): those fall back.
    assert!(seen > 250, "the small path took only {seen} of 400");
}

/// A polygon's ring from its lowest vertex, without the closing one: the same shape
/// from another first vertex compares equal.
fn from_lowest(g: &Option<Geometry<f64>>) -> Option<Vec<(i64, i64)>> {
    let Some(Geometry::Polygon(p)) = g else {
        return None;
    };
    let mut r: Vec<(i64, i64)> = p
        .exterior()
        .0
        .iter()
        .map(|c| (c.x as i64, c.y as i64))
        .collect();
    r.pop();
    let k = (0..r.len()).min_by_key(|&i| r[i]).unwrap();
    r.rotate_left(k);
    Some(r)
}

#[test]
fn polygons_across_the_buffer_cut_quickly_give_the_full_paths_shape() {
    // Rectangles and quadrilaterals across every edge and corner of the buffer, and
    // over the whole tile, at sub-unit offsets away from half a unit (where the general
    // path's overlay, which works on its own integer grid, may round the other way).
    let mut seen = 0;
    for k in 0..300 {
        let f = k as f64;
        let (ox, oy) = (
            -900.3 + ((f * 37.3) % 5200.0).floor(),
            -900.2 + ((f * 53.9) % 5200.0).floor(),
        );
        let (w, h) = (
            200.4 + ((f * 91.7) % 6000.0).floor(),
            150.3 + ((f * 71.1) % 6000.0).floor(),
        );
        let mut ring = vec![
            Coord { x: ox, y: oy },
            Coord {
                x: ox + w,
                y: oy + (k % 5) as f64 * 3.3,
            },
            Coord {
                x: ox + w,
                y: oy + h,
            },
            Coord { x: ox, y: oy + h },
        ];
        if k % 2 == 1 {
            ring.reverse();
        }
        let p = Polygon::new(LineString(ring), vec![]);
        let full = polygons(MultiPolygon(vec![p.map_coords(|c| frame().to_tile(c))]));
        if let Some(quick) = small_polygon(&p, &frame()) {
            seen += 1;
            assert_eq!(
                from_lowest(&quick),
                from_lowest(&full),
                "polygon {k}: {p:?}"
            );
            if let Some(g) = &quick {
                assert!(g.is_valid(), "{g:?}");
            }
        }
    }
    assert!(seen > 250, "the quick cut took only {seen} of 300");
    // A triangle out past the right edge: cut to the buffer's edge.
    let g: Polygon<f64> = wkt!(POLYGON((2000. 1000.,9000. 1000.,9000. 3000.,2000. 1000.)));
    let quick = small_polygon(&g, &frame()).expect("a simple cut");
    let full = polygons(MultiPolygon(vec![g.map_coords(|c| frame().to_tile(c))]));
    assert_eq!(from_lowest(&quick), from_lowest(&full));
    // An n whose top is out past the tile's top: inside, two legs, which the cut joins
    // along the edge (a ring that runs along it twice), so the general path decides.
    let u: Polygon<f64> = wkt!(POLYGON((1000. 1000.,1500. 1000.,2000. 8000.,2500. 1000.,3000. 1000.,2000. 9000.,1000. 1000.)));
    assert!(small_polygon(&u, &frame()).is_none());
}

#[test]
fn lines_crossing_the_edge_are_cut_at_the_buffer() {
    let g: Geometry<f64> = wkt!(LINESTRING(100. 100.,8000. 100.)).into();
    let mut out = Vec::new();
    in_tile(&g, &frame(), &mut out);
    let Geometry::LineString(l) = &out[0] else {
        panic!("{out:?}")
    };
    assert_eq!(l.0.last().unwrap().x, EXTENT as f64 + BUFFER);
    assert_eq!(l.0[0].y, 4096.0 - 100.0);
}

#[test]
fn the_line_cut_keeps_what_the_general_clip_keeps_in_the_line_s_direction() {
    use geo::{Euclidean, Length};
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    let rect = clip_rect();
    let mut crossing = 0;
    for _ in 0..2000 {
        // Polylines of 2 to 6 positions, from well outside to well inside the buffer.
        let n = rng.gen_range(2..7);
        let l = LineString(
            (0..n)
                .map(|_| Coord {
                    x: rng.gen_range(-3000.0..7000.0),
                    y: rng.gen_range(-3000.0..7000.0),
                })
                .collect(),
        );
        let ours = cut_line(&l);
        let theirs = rect
            .to_polygon()
            .clip(&MultiLineString(vec![l.clone()]), false);
        let len = |ls: &[LineString<f64>]| ls.iter().map(|p| Euclidean.length(p)).sum::<f64>();
        let (a, b) = (len(&ours), len(&theirs.0));
        assert!((a - b).abs() < 1e-6 * (1.0 + b), "{l:?}: {a} against {b}");
        crossing += usize::from(!ours.is_empty());
        for part in &ours {
            assert!(part.0.len() >= 2);
            for c in &part.0 {
                assert!(
                    c.x >= rect.min().x - 1e-9 && c.x <= rect.max().x + 1e-9,
                    "{c:?}"
                );
                assert!(
                    c.y >= rect.min().y - 1e-9 && c.y <= rect.max().y + 1e-9,
                    "{c:?}"
                );
            }
            // Each piece runs the way its segment of the line runs (a pipe's flow).
            let (p, q) = (part.0[0], part.0[1]);
            let seg = l.lines().find(|s| {
                let d = (s.end - s.start, q - p);
                let cross = d.0.x * d.1.y - d.0.y * d.1.x;
                cross.abs() < 1e-6 * (d.0.x.hypot(d.0.y) * d.1.x.hypot(d.1.y) + 1.0)
                    && d.0.x * d.1.x + d.0.y * d.1.y > 0.0
            });
            assert!(seg.is_some(), "{part:?} runs against {l:?}");
        }
    }
    assert!(crossing > 500, "only {crossing} of 2000 lines met the tile");
    // Out and back in: two parts, in order.
    let l: LineString<f64> = wkt!(LINESTRING(100. 100.,100. 9000.,200. 9000.,200. 100.));
    let parts = cut_line(&l);
    assert_eq!(parts.len(), 2, "{parts:?}");
    assert_eq!(parts[0].0[0], Coord { x: 100., y: 100. });
    assert_eq!(parts[1].0.last(), Some(&Coord { x: 200., y: 100. }));
}

#[test]
fn a_hole_wound_as_its_exterior_stays_a_hole_and_a_crossing_ring_comes_out_valid() {
    // Twelve vertices (so the general path, simplified), a hole wound the same way as
    // the exterior: still a hole once in the tile.
    let ext: Vec<(f64, f64)> = (0..=10)
        .map(|i| (100.0 * i as f64, 0.0))
        .chain([(1000.0, 1000.0), (0.0, 1000.0), (0.0, 0.0)])
        .collect();
    let hole = vec![
        (400.0, 400.0),
        (600.0, 400.0),
        (600.0, 600.0),
        (400.0, 600.0),
        (400.0, 400.0),
    ];
    let g: Geometry<f64> = Polygon::new(LineString::from(ext), vec![LineString::from(hole)]).into();
    let mut out = Vec::new();
    in_tile(&g, &frame(), &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].is_valid(), "{out:?}");
    assert_eq!(out[0].unsigned_area(), 1000.0 * 1000.0 - 200.0 * 200.0);
    // A ring crossing itself (a bow tie of ten vertices): both lobes, valid.
    let bow: Vec<(f64, f64)> = vec![
        (0.0, 0.0),
        (250.0, 250.0),
        (500.0, 500.3),
        (750.0, 750.0),
        (1000.0, 1000.0),
        (1000.0, 0.0),
        (750.0, 250.0),
        (500.0, 500.0),
        (250.0, 750.0),
        (0.0, 1000.0),
        (0.0, 0.0),
    ];
    let g: Geometry<f64> = Polygon::new(LineString::from(bow), vec![]).into();
    let mut out = Vec::new();
    in_tile(&g, &frame(), &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].is_valid(), "{out:?}");
    assert!(
        (out[0].unsigned_area() - 500_000.0).abs() < 1_000.0,
        "{out:?}"
    );
}
