//! What a dry run would write: each accepted feature decided against the layer as it
//! stands, as the write decides it (a new id is inserted; a stored row the feature
//! would leave as it is, by [`crate::store::unchanged_by`], is unchanged; the rest,
//! unreadable rows included, are updated), and a replace's deletions counted from the
//! ids it lists. Nothing is written, and the registry is not locked while the file is
//! read: the counts are those of a write started now.

use geo_types::Geometry;
use rustc_hash::FxHashMap;

use super::error::Result;
use super::report::{ChangedSummary, WriteCounts};
use crate::domain::{Feature, Layer};
use crate::store::{ChangedFeatures, LayerRows, Store, UnreadableRow};

/// A layer's stored rows, read once for a dry run to decide against.
#[derive(Debug, Default)]
pub(super) struct StoredLayer {
    rows: FxHashMap<String, Feature>,
    /// Rows another program wrote that cannot be read, by id, with why: a write
    /// overwrites them.
    unreadable: FxHashMap<String, String>,
}

impl StoredLayer {
    /// Reads the layer (rows that cannot be read are kept by id, as the write keeps them).
    pub async fn read(store: &dyn Store, layer: Layer) -> Result<StoredLayer> {
        let read = store.read_layer(layer).await?;
        Ok(StoredLayer {
            rows: read
                .features
                .into_iter()
                .map(|f| (f.id.clone(), f))
                .collect(),
            unreadable: read
                .unreadable
                .into_iter()
                .filter_map(|u| Some((u.id?, u.reason)))
                .collect(),
        })
    }

    /// The row stored under `id`, as a write's transaction reads the rows of its ids.
    pub fn rows_of(&self, layer: Layer, id: &str) -> LayerRows {
        LayerRows {
            features: self.rows.get(id).cloned().into_iter().collect(),
            unreadable: self
                .unreadable
                .get(id)
                .map(|reason| UnreadableRow {
                    layer,
                    id: Some(id.to_string()),
                    reason: reason.clone(),
                })
                .into_iter()
                .collect(),
        }
    }
}

/// A dry run's decisions so far.
#[derive(Debug)]
pub(super) struct WouldWrite<'a> {
    stored: &'a StoredLayer,
    /// How far a position read from the source may lie from the stored one and still be
    /// it (see `store::near`), as the write is told.
    tolerance: Option<f64>,
    pub counts: WriteCounts,
    pub changed: ChangedFeatures,
}

impl<'a> WouldWrite<'a> {
    /// Decisions against `stored`, none yet.
    pub fn new(stored: &'a StoredLayer, tolerance: Option<f64>) -> Self {
        WouldWrite {
            stored,
            tolerance,
            counts: WriteCounts::default(),
            changed: ChangedFeatures::default(),
        }
    }

    /// The layer as it stands, which the dry run decides against.
    pub fn stored(&self) -> &'a StoredLayer {
        self.stored
    }

    /// Decides an accepted feature (its id not seen before in the file).
    pub fn take(&mut self, f: &Feature) {
        match self.stored.rows.get(&f.id) {
            Some(old) if crate::store::unchanged_by(old, f, self.tolerance) => {
                self.counts.unchanged += 1;
                return;
            }
            Some(_) => self.counts.updated += 1,
            None if self.stored.unreadable.contains_key(&f.id) => self.counts.updated += 1,
            None => self.counts.inserted += 1,
        }
        self.changed.note(f);
    }
}

/// The features a write changed, for the report: their first ids, and their box in
/// longitude and latitude (none when none has a geometry, or the box cannot be
/// transformed, which a registry's CRS always allows).
pub(super) fn summary(changed: &ChangedFeatures, srid: i32) -> ChangedSummary {
    ChangedSummary {
        ids: changed.ids.clone(),
        more: changed.more,
        extent: changed
            .bbox
            .and_then(|b| lon_lat_box(b, srid).ok())
            .map(outward),
    }
}

/// A box in degrees to 7 decimals (about a centimetre), rounded outward with one more
/// step of margin, so that it still holds every feature on its edge however the stored
/// coordinates come back through the registry's CRS (a `bbox` query with it finds them).
fn outward([w, s, e, n]: [f64; 4]) -> [f64; 4] {
    let down = |v: f64| ((v * 1e7).floor() - 1.0) / 1e7;
    let up = |v: f64| ((v * 1e7).ceil() + 1.0) / 1e7;
    [down(w), down(s), up(e), up(n)]
}

/// A box in the registry's CRS as longitude and latitude, edges densified (a projected
/// box's extremes in degrees often lie between its corners).
fn lon_lat_box(b: [f64; 4], srid: i32) -> Result<[f64; 4]> {
    if srid == 4326 {
        return Ok(b);
    }
    let rp = super::crs::cached_reprojector(srid, 4326)?;
    if b[0] == b[2] && b[1] == b[3] {
        let (x, y) = rp.point(b[0], b[1])?;
        return Ok([x, y, x, y]);
    }
    let ring: Vec<(f64, f64)> = (0..=4 * EDGE_POINTS)
        .map(|k| {
            let t = (k % EDGE_POINTS) as f64 / EDGE_POINTS as f64;
            match k / EDGE_POINTS {
                0 => (b[0] + t * (b[2] - b[0]), b[1]),
                1 => (b[2], b[1] + t * (b[3] - b[1])),
                2 => (b[2] - t * (b[2] - b[0]), b[3]),
                _ => (b[0], b[3] - t * (b[3] - b[1])),
            }
        })
        .collect();
    let line = Geometry::LineString(ring.into());
    let g = rp.apply(&line)?;
    let r = geo::BoundingRect::bounding_rect(&g).ok_or(super::ImportError::Refused(
        "the changed features' box could not be transformed".into(),
    ))?;
    Ok([r.min().x, r.min().y, r.max().x, r.max().y])
}

/// Points per edge of a box transformed into longitude and latitude.
const EDGE_POINTS: usize = 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_plane_box_is_framed_in_degrees() {
        // North Castle, NY in NAD83 / New York East (ftUS).
        let mut c = ChangedFeatures {
            ids: vec!["A".into()],
            more: 0,
            bbox: Some([690_000.0, 850_000.0, 700_000.0, 860_000.0]),
        };
        let s = summary(&c, 2260);
        let [w, south, e, n] = s.extent.unwrap();
        assert!((-73.9..-73.7).contains(&w) && w < e, "{:?}", s.extent);
        assert!((41.0..41.3).contains(&south) && south < n, "{:?}", s.extent);
        c.bbox = None;
        assert_eq!(summary(&c, 2260).extent, None);
    }

    /// Rounded to 7 decimals the box still holds the features on its edges.
    #[test]
    fn a_box_is_rounded_outward() {
        let c = ChangedFeatures {
            ids: vec!["A".into(), "B".into()],
            more: 0,
            bbox: Some([-73.858_000_04, 41.216_000_04, -73.852_999_96, 41.219_000_06]),
        };
        let [w, s, e, n] = summary(&c, 4326).extent.unwrap();
        assert!(w <= -73.858_000_04 && s <= 41.216_000_04, "{w} {s}");
        assert!(e >= -73.852_999_96 && n >= 41.219_000_06, "{e} {n}");
        assert_eq!(
            [w, s, e, n],
            [-73.858_000_2, 41.215_999_9, -73.852_999_8, 41.219_000_2]
        );
    }
}
