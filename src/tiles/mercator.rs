//! Per-layer Web Mercator copies of the snapshot's layers, each with its own R-tree.
//!
//! Reprojecting every geometry of a tile on each request would cost more than the rest of
//! the tile; a layer is reprojected once, on the first tile that needs it, and kept while
//! the snapshot's layer (the same `Arc`) is current. A write to one layer (an inspection)
//! leaves every other layer's copy in place.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use geo::BoundingRect;
use geo_types::Geometry;
use rstar::primitives::{GeomWithData, Rectangle};
use rstar::{RTree, AABB};

use super::RenderError;
use crate::domain::Layer;
use crate::spatial::snapshot::{LayerIndex, Nodes};
use crate::spatial::Snapshot;

/// A layer in Web Mercator.
pub struct MercatorLayer {
    /// The geometries in EPSG:3857 with the position of their feature in the snapshot's
    /// layer (features without a geometry, or that cannot be reprojected, are left out).
    pub geoms: Vec<(usize, Geometry<f64>)>,
    tree: RTree<GeomWithData<Rectangle<[f64; 2]>, usize>, Nodes>,
    /// Features whose geometry could not be reprojected (outside Web Mercator's range).
    pub dropped: usize,
}

impl MercatorLayer {
    /// Reprojects a layer from the registry's CRS.
    pub fn build(index: &LayerIndex, srid: i32) -> Result<Self, RenderError> {
        Self::build_with(index, srid, |_, g| g.clone())
    }

    /// Reprojects a layer, each geometry first passed through `prepare`.
    fn build_with(
        index: &LayerIndex,
        srid: i32,
        prepare: impl Fn(&crate::domain::Feature, &Geometry<f64>) -> Geometry<f64>,
    ) -> Result<Self, RenderError> {
        Self::from_geometries(
            index
                .features
                .iter()
                .enumerate()
                .filter_map(|(i, f)| Some((i, prepare(f, f.geom.as_ref()?)))),
            srid,
        )
    }

    /// Reprojects geometries from the registry's CRS, each with the position of its
    /// feature in whatever list the caller reads its properties from (a layer of the
    /// snapshot, or the features of an answer).
    pub fn from_geometries(
        source: impl IntoIterator<Item = (usize, Geometry<f64>)>,
        srid: i32,
    ) -> Result<Self, RenderError> {
        let rp = crate::import::crs::Reprojector::new(srid, 3857)
            .map_err(|source| RenderError::Reproject { srid, source })?;
        let mut geoms = Vec::new();
        let mut dropped = 0;
        for (i, g) in source {
            match rp.apply(&g) {
                Ok(m) if finite(&m) => geoms.push((i, single(m))),
                _ => dropped += 1,
            }
        }
        let entries = geoms
            .iter()
            .enumerate()
            .filter_map(|(k, (_, g))| {
                let r = g.bounding_rect()?;
                Some(GeomWithData::new(
                    Rectangle::from_corners([r.min().x, r.min().y], [r.max().x, r.max().y]),
                    k,
                ))
            })
            .collect();
        Ok(MercatorLayer {
            geoms,
            tree: RTree::bulk_load_with_params(entries),
            dropped,
        })
    }

    /// Positions in [`MercatorLayer::geoms`] of the geometries whose box meets `b`, in
    /// the layer's order (so a tile's features come out the same on every request).
    pub fn in_envelope(&self, b: [f64; 4]) -> Vec<usize> {
        let env = AABB::from_corners([b[0], b[1]], [b[2], b[3]]);
        let mut v: Vec<usize> = self
            .tree
            .locate_in_envelope_intersecting(&env)
            .map(|e| e.data)
            .collect();
        v.sort_unstable();
        v
    }

    /// The layer's extent in EPSG:3857, if it has any geometry.
    pub fn extent(&self) -> Option<[f64; 4]> {
        if self.tree.size() == 0 {
            return None;
        }
        let env = self.tree.root().envelope();
        Some([
            env.lower()[0],
            env.lower()[1],
            env.upper()[0],
            env.upper()[1],
        ])
    }
}

/// A multi-part geometry of one part as that part (as GeoPackages store most lots and
/// pipes): the same shape and the same tile geometry, one pointer nearer its coordinates,
/// which a tile reads for hundreds of features, most often from memory its cache lost.
fn single(g: Geometry<f64>) -> Geometry<f64> {
    match g {
        Geometry::MultiPolygon(mut m) if m.0.len() == 1 => {
            Geometry::Polygon(m.0.pop().expect("one part"))
        }
        Geometry::MultiLineString(mut m) if m.0.len() == 1 => {
            Geometry::LineString(m.0.pop().expect("one part"))
        }
        Geometry::MultiPoint(mut m) if m.0.len() == 1 => {
            Geometry::Point(m.0.pop().expect("one part"))
        }
        g => g,
    }
}

/// The layers a pipe's `from_id` / `to_id` may name: every node layer of the network.
const STRUCTURES: [Layer; 5] = [
    Layer::Manholes,
    Layer::CatchBasins,
    Layer::Outfalls,
    Layer::Structures,
    Layer::Smps,
];

/// A pipe's line turned, when its `from_id` / `to_id` say so, to run from its upstream end
/// to its downstream end, so the style's arrows along it point the way the water flows.
/// The recorded ids decide, as they do first for the network: the end nearer the `from_id`
/// structure is upstream (else the end farther from the `to_id` one). A pipe naming no
/// structure keeps the order it was digitised in here; the network may still turn it by
/// its inverts, which the tile applies when it draws it (see `Flows`), since only the
/// whole network decides that.
fn downstream(snap: &Snapshot, f: &crate::domain::Feature, g: &Geometry<f64>) -> Geometry<f64> {
    use geo::{Distance, Euclidean};
    // A line, or a multi-line of one part (as GeoPackages often store pipes).
    let l = match g {
        Geometry::LineString(l) => l,
        Geometry::MultiLineString(m) if m.0.len() == 1 => &m.0[0],
        _ => return g.clone(),
    };
    let (Some(first), Some(last)) = (l.0.first(), l.0.last()) else {
        return g.clone();
    };
    let at = |field: &str| -> Option<geo_types::Point<f64>> {
        let id = f.get(Layer::Pipes, field).as_str()?;
        STRUCTURES
            .iter()
            .find_map(|&s| match snap.geometry(s, id)? {
                Geometry::Point(p) => Some(*p),
                _ => None,
            })
    };
    let (a, b) = (geo_types::Point(*first), geo_types::Point(*last));
    let turn = if let Some(up) = at("from_id") {
        Euclidean.distance(&b, &up) < Euclidean.distance(&a, &up)
    } else if let Some(down) = at("to_id") {
        Euclidean.distance(&a, &down) < Euclidean.distance(&b, &down)
    } else {
        false
    };
    if turn {
        let mut r = l.clone();
        r.0.reverse();
        match g {
            Geometry::MultiLineString(_) => {
                Geometry::MultiLineString(geo_types::MultiLineString(vec![r]))
            }
            _ => Geometry::LineString(r),
        }
    } else {
        g.clone()
    }
}

fn finite(g: &Geometry<f64>) -> bool {
    use geo::CoordsIter;
    g.coords_iter().all(|c| c.x.is_finite() && c.y.is_finite())
}

/// The Mercator copy of each layer, keyed on the snapshot layer it was made from.
#[derive(Clone, Default)]
pub struct MercatorCache {
    // Per layer: the snapshot layers it was made from (weakly: a replaced layer is freed;
    // the pipes' copy also reads the structures, for their flow) and the copy. The lock is
    // held while building, so two first tiles reproject a layer once.
    inner: Arc<Mutex<HashMap<Layer, MadeFrom>>>,
}

/// A layer's Web Mercator copy and the snapshot layers it was made from.
type MadeFrom = (Vec<Weak<LayerIndex>>, Arc<MercatorLayer>);

impl MercatorCache {
    /// The Mercator copy of `layer` in `snap`, built unless the cache holds it. Blocking.
    pub fn get(&self, snap: &Snapshot, layer: Layer) -> Result<Arc<MercatorLayer>, RenderError> {
        let source = snap.layer_shared(layer);
        let mut sources = vec![source.clone()];
        if layer == Layer::Pipes {
            sources.extend(STRUCTURES.iter().map(|&s| snap.layer_shared(s)));
        }
        let mut map = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((weak, m)) = map.get(&layer) {
            // A live Weak keeps its allocation, so an equal pointer is the same layer.
            let same = weak.len() == sources.len()
                && weak
                    .iter()
                    .zip(&sources)
                    .all(|(w, s)| w.strong_count() > 0 && std::ptr::eq(w.as_ptr(), Arc::as_ptr(s)));
            if same {
                return Ok(m.clone());
            }
        }
        let m = Arc::new(if layer == Layer::Pipes {
            MercatorLayer::build_with(&source, snap.meta.srid, |f, g| downstream(snap, f, g))?
        } else {
            MercatorLayer::build(&source, snap.meta.srid)?
        });
        if m.dropped > 0 {
            tracing::warn!(%layer, dropped = m.dropped, "features outside Web Mercator's range are left out of tiles");
        }
        map.insert(
            layer,
            (sources.iter().map(Arc::downgrade).collect(), m.clone()),
        );
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Feature, Value};
    use geo_types::{wkt, Point};

    fn pipe(id: &str, from: Option<&str>, to: Option<&str>, g: Geometry<f64>) -> Feature {
        let mut f = Feature::new(Layer::Pipes, id);
        for (field, v) in [("from_id", from), ("to_id", to)] {
            if let Some(v) = v {
                f.set(Layer::Pipes, field, Value::Text(v.into()));
            }
        }
        f.geom = Some(g);
        f
    }

    #[test]
    fn pipes_run_downstream_in_tiles_as_their_ids_say() {
        let mh = |id: &str, x: f64| {
            let mut f = Feature::new(Layer::Manholes, id);
            f.geom = Some(Point::new(x, 0.0).into());
            f
        };
        let line: Geometry<f64> = wkt!(LINESTRING(100. 0.,0. 0.)).into();
        let pipes = vec![
            // Digitised from B to A, recorded as from A to B: turned.
            pipe("P1", Some("A"), Some("B"), line.clone()),
            // Only the downstream end named (A, at the first vertex's far side): turned.
            pipe("P2", None, Some("B"), line.clone()),
            // Recorded the way it was digitised: kept.
            pipe("P3", Some("B"), Some("A"), line.clone()),
            // Naming no structure: the digitised order stands.
            pipe("P4", Some("nowhere"), None, line.clone()),
            // A multi-line of one part is turned as a line.
            pipe(
                "P5",
                Some("A"),
                None,
                wkt!(MULTILINESTRING((100. 0.,0. 0.))).into(),
            ),
        ];
        let meta = crate::store::RegistryMeta {
            jurisdiction: "north-castle-ny".into(),
            srid: 2260,
            crs_name: String::new(),
            crs_wkt: String::new(),
            linear_unit: crate::domain::LengthUnit::UsSurveyFoot,
        };
        let snap = Snapshot::from_features(
            meta,
            HashMap::from([
                (Layer::Pipes, pipes),
                (Layer::Manholes, vec![mh("A", 0.0), mh("B", 100.0)]),
            ]),
        );
        let first_x = |id: &str| {
            let f = snap.layer(Layer::Pipes).get(id).unwrap();
            let g = downstream(&snap, f, f.geom.as_ref().unwrap());
            match g {
                Geometry::LineString(l) => l.0[0].x,
                Geometry::MultiLineString(m) => m.0[0].0[0].x,
                other => panic!("{other:?}"),
            }
        };
        assert_eq!(first_x("P1"), 0.0);
        assert_eq!(first_x("P2"), 0.0);
        assert_eq!(first_x("P3"), 100.0);
        assert_eq!(first_x("P4"), 100.0);
        assert_eq!(first_x("P5"), 0.0);
        // And the cache: a copy made once is kept, and a new structure layer remakes it.
        let cache = MercatorCache::default();
        let a = cache.get(&snap, Layer::Pipes).unwrap();
        assert!(Arc::ptr_eq(&a, &cache.get(&snap, Layer::Pipes).unwrap()));
        let moved = snap.with_layer(Layer::Manholes, vec![mh("A", 200.0), mh("B", 100.0)]);
        assert!(!Arc::ptr_eq(&a, &cache.get(&moved, Layer::Pipes).unwrap()));
    }
}
