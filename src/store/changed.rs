//! The features a write inserted or updated, kept small: the first ids and the box of
//! them all, so an import's report can show the page what to highlight and where to
//! frame it, however many features the write carried.

use geo::BoundingRect;

use crate::domain::Feature;

/// How many ids of the features a write changed its summary keeps; the rest are counted.
pub const CHANGED_IDS: usize = 1000;

/// The features a write inserted or updated (or, in a dry run, would).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChangedFeatures {
    /// The first [`CHANGED_IDS`] of their ids, in the order the write took them.
    pub ids: Vec<String>,
    /// How many more there are.
    pub more: u64,
    /// The box of all their geometries, in the registry's CRS, as
    /// `[min x, min y, max x, max y]`; none when none has a geometry.
    pub bbox: Option<[f64; 4]>,
}

impl ChangedFeatures {
    /// Counts one changed feature in.
    pub fn note(&mut self, f: &Feature) {
        if self.ids.len() < CHANGED_IDS {
            self.ids.push(f.id.clone());
        } else {
            self.more += 1;
        }
        let Some(r) = f.geom.as_ref().and_then(BoundingRect::bounding_rect) else {
            return;
        };
        let (lo, hi) = (r.min(), r.max());
        self.bbox = Some(match self.bbox {
            None => [lo.x, lo.y, hi.x, hi.y],
            Some([a, b, c, d]) => [a.min(lo.x), b.min(lo.y), c.max(hi.x), d.max(hi.y)],
        });
    }

    /// How many features changed.
    pub fn count(&self) -> u64 {
        self.ids.len() as u64 + self.more
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::{point, Geometry};

    fn at(id: &str, x: f64, y: f64) -> Feature {
        Feature {
            id: id.into(),
            values: Vec::new(),
            extra: Default::default(),
            geom: Some(Geometry::Point(point! { x: x, y: y })),
        }
    }

    #[test]
    fn ids_are_capped_and_the_box_holds_every_feature() {
        let mut c = ChangedFeatures::default();
        for i in 0..CHANGED_IDS + 5 {
            c.note(&at(&format!("F-{i}"), i as f64, -(i as f64)));
        }
        assert_eq!((c.ids.len(), c.more, c.count()), (CHANGED_IDS, 5, 1005));
        assert_eq!(c.bbox, Some([0.0, -1004.0, 1004.0, 0.0]));
        let mut none = ChangedFeatures::default();
        none.note(&Feature {
            geom: None,
            ..at("T", 0.0, 0.0)
        });
        assert_eq!((none.ids, none.bbox), (vec!["T".to_string()], None));
    }
}
