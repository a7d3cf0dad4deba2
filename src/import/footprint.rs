//! A planner's footprint from a file (a zipped shapefile, a GeoPackage, GeoJSON, KML or
//! FlatGeobuf): every polygon of the file's layer, reprojected to CRS84 and joined into
//! one GeoJSON feature. The file is opened as an upload is (the allow-listed drivers, the
//! same checks of zips and GeoPackages), the polygons are counted against the
//! footprint's budget as they are read and before they are joined, and the read stops
//! when its [`Cancel`] says so.

use std::path::Path;

use gdal::spatial_ref::{AxisMappingStrategy, CoordTransform, SpatialRef};
use gdal::vector::{Geometry as OgrGeometry, LayerAccess};
use geo_types::{Geometry, MultiPolygon, Polygon};
use serde_json::{json, Value};

use super::cancel::{Cancel, Stop};
use super::{source, ImportError};
use crate::domain::Layer;
use crate::spatial::size::Size;

/// Why a file gives no footprint. Each message is about the file as the client sent it
/// (`name`), never where the server keeps it.
#[derive(Debug, thiserror::Error)]
pub enum FootprintError {
    /// The file cannot be opened or read, or its layer chosen: what the import says
    /// (without the server's path), and the import's own error (a zip over its limits
    /// is [`ImportError::TooLarge`]).
    #[error("{message}")]
    Unreadable {
        /// The import's message, naming the file as sent.
        message: String,
        /// The import's error.
        #[source]
        source: Box<ImportError>,
    },
    /// `s_srs` names a code PROJ does not know.
    #[error("EPSG:{code}: {source}")]
    UnknownCrs {
        /// The EPSG code.
        code: i32,
        /// GDAL's error.
        #[source]
        source: gdal::errors::GdalError,
    },
    /// The file says nothing of its CRS and no `s_srs` was given.
    #[error("{name} names no coordinate system (a shapefile without its .prj?); send s_srs")]
    NoCrs {
        /// The file's name as sent.
        name: String,
    },
    /// A feature that cannot be reprojected to CRS84.
    #[error("feature {feature}: cannot reach CRS84: {source}")]
    Transform {
        /// Its position among the features with a geometry, from 1.
        feature: usize,
        /// GDAL's error.
        #[source]
        source: gdal::errors::GdalError,
    },
    /// A feature whose geometry GDAL wrote as GeoJSON that does not read back.
    #[error("feature {feature}: {message}")]
    Geometry {
        /// Its position among the features with a geometry, from 1.
        feature: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A feature that is not a polygon.
    #[error(
        "feature {feature} of {name} is not a polygon; a footprint is the outline of the project"
    )]
    NotAPolygon {
        /// Its position among the features with a geometry, from 1.
        feature: usize,
        /// The file's name as sent.
        name: String,
    },
    /// The file holds no polygon at all.
    #[error("{name} holds no polygon")]
    NoPolygon {
        /// The file's name as sent.
        name: String,
    },
    /// The polygons read so far are over a footprint's budget: why.
    #[error("file: {0}")]
    OverBudget(String),
    /// The read was stopped (a deadline, the client gone, the server shutting down).
    #[error("{why}")]
    Stopped {
        /// Why.
        why: Stop,
        /// The features read by then.
        read: usize,
    },
    /// A failure that is no fault of the file (PROJ without CRS84, a geometry GDAL
    /// cannot write as JSON).
    #[error("{doing}: {source}")]
    Internal {
        /// What was being done.
        doing: &'static str,
        /// GDAL's error.
        #[source]
        source: gdal::errors::GdalError,
    },
}

/// The file's polygons as one: unioned, each wound the same way first (the union reads the
/// first ring's winding as the filled side, so a polygon drawn clockwise beside one drawn
/// counter-clockwise would otherwise be dropped, and the footprint come out smaller).
fn join(polys: Vec<Polygon<f64>>) -> MultiPolygon<f64> {
    use geo::orient::{Direction, Orient};
    if polys.len() == 1 {
        return MultiPolygon(polys);
    }
    let wound: Vec<Polygon<f64>> = polys.iter().map(|p| p.orient(Direction::Default)).collect();
    geo::unary_union(&wound)
}

/// Every polygon of the file's layer at `path`, in CRS84, joined into one GeoJSON
/// feature whose properties say the file's `name`, its features and the polygons. The
/// source CRS is `s_srs` when given, the file's otherwise. Blocking: run it on a
/// blocking thread.
pub fn read(
    path: &Path,
    name: &str,
    s_srs: Option<i32>,
    cancel: &Cancel,
) -> Result<Value, FootprintError> {
    let unreadable = |source: ImportError| FootprintError::Unreadable {
        message: format!("{name}: {}", strip_path(&source.to_string(), path)),
        source: Box::new(source),
    };
    source::check_source(path, false).map_err(unreadable)?;
    let mut opened = source::open(path, &source::CsvGeometry::None, false).map_err(unreadable)?;
    opened.watch(cancel);
    let mut layer =
        source::pick_layer(&opened.ds, name, None, Layer::Parcels).map_err(|source| {
            FootprintError::Unreadable {
                message: strip_path(&source.to_string(), path),
                source: Box::new(source),
            }
        })?;
    let mut from = match (s_srs, layer.spatial_ref()) {
        (Some(code), _) => SpatialRef::from_epsg(code as u32)
            .map_err(|source| FootprintError::UnknownCrs { code, source })?,
        (None, Some(sr)) => sr,
        (None, None) => {
            return Err(FootprintError::NoCrs {
                name: name.to_string(),
            })
        }
    };
    let mut to = SpatialRef::from_epsg(4326).map_err(|source| FootprintError::Internal {
        doing: "CRS84",
        source,
    })?;
    // Longitude first, as GeoJSON has it.
    from.set_axis_mapping_strategy(AxisMappingStrategy::TraditionalGisOrder);
    to.set_axis_mapping_strategy(AxisMappingStrategy::TraditionalGisOrder);
    let ct = CoordTransform::new(&from, &to).map_err(|source| FootprintError::Internal {
        doing: "a transformation to CRS84",
        source,
    })?;
    let mut polys: Vec<Polygon<f64>> = Vec::new();
    let mut features = 0;
    let mut size = Size::default();
    let stopped = |why, read| FootprintError::Stopped { why, read };
    for f in layer.features() {
        cancel.check().map_err(|why| stopped(why, features))?;
        let Some(g) = f.geometry() else { continue };
        features += 1;
        // Counted before the polygon is converted, and the whole file before the polygons
        // are joined: a union's cost grows faster than its input.
        size = size.plus(ogr_size(g));
        if let Some(why) = crate::spatial::size::footprint_refusal(size) {
            return Err(FootprintError::OverBudget(why));
        }
        let t = g
            .transform(&ct)
            .map_err(|source| FootprintError::Transform {
                feature: features,
                source,
            })?;
        let text = t.json().map_err(|source| FootprintError::Internal {
            doing: "writing a geometry as GeoJSON",
            source,
        })?;
        let gj: geojson::Geometry = text.parse().map_err(|e| FootprintError::Geometry {
            feature: features,
            message: format!("{e}"),
        })?;
        match Geometry::<f64>::try_from(gj) {
            Ok(Geometry::Polygon(p)) => polys.push(p),
            Ok(Geometry::MultiPolygon(m)) => polys.extend(m.0),
            _ => {
                return Err(FootprintError::NotAPolygon {
                    feature: features,
                    name: name.to_string(),
                })
            }
        }
    }
    // An interrupted statement ends the loop as the end of the file would.
    cancel.check().map_err(|why| stopped(why, features))?;
    if polys.is_empty() {
        return Err(FootprintError::NoPolygon {
            name: name.to_string(),
        });
    }
    let joined = join(polys);
    let geometry = geojson::Geometry::from(&joined);
    Ok(json!({
        "type": "Feature",
        "geometry": geometry,
        "properties": {"file": name, "features": features, "polygons": joined.0.len()},
    }))
}

/// Parts and vertices of an OGR geometry, counted without converting it.
fn ogr_size(g: &OgrGeometry) -> Size {
    fn vertices(g: &OgrGeometry) -> usize {
        match g.geometry_count() {
            0 => g.point_count(),
            n => (0..n).map(|i| vertices(&g.get_geometry(i))).sum(),
        }
    }
    use gdal_sys::OGRwkbGeometryType as T;
    let parts = match gdal::vector::geometry_type_flatten(g.geometry_type()) {
        T::wkbMultiPolygon | T::wkbMultiSurface | T::wkbGeometryCollection => g.geometry_count(),
        _ => 1,
    };
    Size {
        parts,
        vertices: vertices(g),
    }
}

/// A message without the server's temporary path.
fn strip_path(msg: &str, path: &Path) -> String {
    msg.replace(&path.display().to_string(), "the file")
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo::Area;
    use geo_types::polygon;

    #[test]
    fn polygons_drawn_either_way_are_all_in_the_footprint() {
        let cw = polygon![(x: 0., y: 0.), (x: 0., y: 1.), (x: 1., y: 1.), (x: 1., y: 0.), (x: 0., y: 0.)];
        let ccw = polygon![(x: 2., y: 0.), (x: 3., y: 0.), (x: 3., y: 1.), (x: 2., y: 1.), (x: 2., y: 0.)];
        for polys in [vec![cw.clone(), ccw.clone()], vec![ccw, cw]] {
            approx::assert_relative_eq!(join(polys).unsigned_area(), 2.0, epsilon = 1e-12);
        }
    }
}
