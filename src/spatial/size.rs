//! How large a polygon may be before the registry does costly geometry work on it.
//!
//! Repairing an invalid polygon (GEOS MakeValid), joining polygons (a unary union) and
//! clipping a footprint against watersheds and TMDL areas all grow faster than the
//! polygon: 5,000 overlapping squares took MakeValid 110 s and 1.4 GB. So a polygon is
//! measured first, by counting, and one over its [`Budget`] is refused by name before
//! any of that work starts. Imports and footprints share the measure and the repair
//! budget; footprints, which anyone may send to a public-read server, have their own.

use geo::CoordsIter;
use geo_types::Geometry;

/// Polygons (parts) and vertices of a geometry.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Size {
    /// Polygons of a multipolygon, members of a collection, else 1.
    pub parts: usize,
    /// Every vertex of every ring, closing ones included.
    pub vertices: usize,
}

/// The most parts and vertices some work is done on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    /// Most parts.
    pub parts: usize,
    /// Most vertices.
    pub vertices: usize,
}

/// What an import repairs with GEOS MakeValid; a larger invalid polygon is rejected, to be
/// repaired in a GIS where someone can see what the repair does.
pub const REPAIR: Budget = Budget {
    parts: 500,
    vertices: 100_000,
};

/// What a footprint may hold: a project's outline, drawn on the page or traced from a
/// site plan, has tens to a few thousand vertices. Every connection and inlet under it is
/// tested against it and every watershed and TMDL area on its edge is clipped by it, so
/// its size is paid for many times over. On the demo town (a debug build) the receiving
/// waters of a self-intersecting ring took 16 to 27 s at 300,000 vertices, 6 to 8.5 s at
/// 100,000 and under 0.75 s at 10,000; a union of 500 overlapping rings of 10,000
/// vertices in all took 1.3 s. It grows with the town.
pub const FOOTPRINT: Budget = Budget {
    parts: REPAIR.parts,
    vertices: 10_000,
};

impl Size {
    /// The size of a geometry.
    pub fn of(g: &Geometry<f64>) -> Self {
        let parts = match g {
            Geometry::MultiPolygon(m) => m.0.len(),
            Geometry::GeometryCollection(c) => c.0.len(),
            _ => 1,
        };
        Size {
            parts,
            vertices: g.coords_count(),
        }
    }

    /// Both sizes together.
    pub fn plus(self, other: Size) -> Size {
        Size {
            parts: self.parts.saturating_add(other.parts),
            vertices: self.vertices.saturating_add(other.vertices),
        }
    }

    /// Whether it holds more parts or vertices than `budget` allows.
    pub fn over(&self, budget: Budget) -> bool {
        self.parts > budget.parts || self.vertices > budget.vertices
    }

    /// `N parts, M vertices; the limits are P parts and V vertices`, for a refusal.
    pub fn against(&self, budget: Budget) -> String {
        format!(
            "{} parts, {} vertices; the limits are {} parts and {} vertices",
            self.parts, self.vertices, budget.parts, budget.vertices
        )
    }
}

// A footprint is never allowed more than an import may repair.
const _: () = assert!(FOOTPRINT.vertices <= REPAIR.vertices && FOOTPRINT.parts <= REPAIR.parts);

/// Why a footprint of this size is refused (over [`FOOTPRINT`]), naming both counts; none
/// when it is within the budget. Every footprint passes here (GeoJSON given to a
/// determination, a file sent to `/api/footprint`) before any geometry work on it.
pub fn footprint_refusal(size: Size) -> Option<String> {
    size.over(FOOTPRINT).then(|| {
        format!(
            "too large for a footprint ({}); simplify the outline in a GIS before sending it",
            size.against(FOOTPRINT)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;

    #[test]
    fn parts_and_vertices_are_counted_closing_vertices_included() {
        let square = Geometry::from(wkt! { POLYGON((0. 0.,1. 0.,1. 1.,0. 0.)) });
        assert_eq!(
            Size::of(&square),
            Size {
                parts: 1,
                vertices: 4
            }
        );
        let two = Geometry::from(
            wkt! { MULTIPOLYGON(((0. 0.,1. 0.,1. 1.,0. 0.)),((5. 5.,6. 5.,6. 6.,5. 6.,5. 5.))) },
        );
        assert_eq!(
            Size::of(&two),
            Size {
                parts: 2,
                vertices: 9
            }
        );
        assert_eq!(
            Size::of(&square).plus(Size::of(&two)),
            Size {
                parts: 3,
                vertices: 13
            }
        );
    }

    #[test]
    fn a_size_is_over_a_budget_by_either_count_and_says_both() {
        let budget = Budget {
            parts: 2,
            vertices: 10,
        };
        let at = Size {
            parts: 2,
            vertices: 10,
        };
        assert!(!at.over(budget));
        assert!(Size { parts: 3, ..at }.over(budget));
        assert!(Size { vertices: 11, ..at }.over(budget));
        assert_eq!(
            Size {
                parts: 1,
                vertices: 11
            }
            .against(budget),
            "1 parts, 11 vertices; the limits are 2 parts and 10 vertices"
        );
    }
}
