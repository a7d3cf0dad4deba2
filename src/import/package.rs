//! Writes a deliverable of several layers of plain values into one GeoPackage (the
//! Mapping Phase I package): each layer its name, geometry type, typed fields and rows,
//! in the registry's CRS, all in one transaction.
//!
//! What goes in each layer is decided by the caller; this module only writes.

use std::path::Path;

use gdal::vector::{
    FieldDefn, Geometry as OgrGeometry, LayerAccess, LayerOptions, OGRFieldType, OGRwkbGeometryType,
};
use gdal::DriverManager;
use geo_types::{Geometry, MultiLineString, MultiPolygon};

use super::crs;
use super::error::{ImportError, Result};
use crate::domain::wkb;

/// The geometry a package layer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackageGeometry {
    /// Points.
    Point,
    /// Lines, written as multi-lines.
    Lines,
    /// Areas, written as multi-polygons.
    Areas,
    /// Any geometry (a layer whose features mix lines and areas).
    Any,
}

/// A field's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Text.
    Text,
    /// A number.
    Real,
    /// A whole number.
    Integer,
}

/// One cell of a row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// No value.
    Null,
    /// Text.
    Text(String),
    /// A number.
    Real(f64),
    /// A whole number.
    Integer(i64),
}

impl From<Option<String>> for Cell {
    fn from(v: Option<String>) -> Self {
        v.map_or(Cell::Null, Cell::Text)
    }
}

/// One layer of the package.
#[derive(Debug, Clone, PartialEq)]
pub struct PackageLayer {
    /// The table's name.
    pub name: String,
    /// Its geometry.
    pub geometry: PackageGeometry,
    /// Its fields, in order.
    pub fields: Vec<(String, FieldKind)>,
    /// Its rows: a geometry (in the registry's CRS) and one cell per field.
    pub rows: Vec<(Option<Geometry<f64>>, Vec<Cell>)>,
}

/// Writes `layers` into a new GeoPackage at `path` in EPSG:`srid`; refuses an existing
/// file rather than add to it. Returns the rows written per layer.
pub fn write_package(
    path: &Path,
    srid: i32,
    layers: &[PackageLayer],
) -> Result<Vec<(String, u64)>> {
    let path_str = path.display().to_string();
    if path.exists() {
        return Err(ImportError::Write {
            path: path_str,
            message: "the file exists; give a new name or remove it".into(),
        });
    }
    let werr = |source: gdal::errors::GdalError| ImportError::Gdal {
        doing: format!("{path_str}: writing the package"),
        source,
    };
    let capture = super::gdal_guard::ErrorCapture::start_with_warnings();
    let driver = DriverManager::get_driver_by_name("GPKG").map_err(werr)?;
    let mut ds = driver.create_vector_only(path).map_err(werr)?;
    let srs = crs::srs_from_epsg(srid)?;
    let mut written = Vec::new();
    {
        let mut txn = ds.start_transaction().map_err(werr)?;
        for l in layers {
            let n = write_layer(&mut txn, l, &srs).map_err(|source| ImportError::Gdal {
                doing: format!("{path_str}: writing layer {}", l.name),
                source,
            })?;
            written.push((l.name.clone(), n));
        }
        txn.commit().map_err(werr)?;
    }
    ds.close().map_err(werr)?;
    let errors = capture.take();
    drop(capture);
    if let Some(e) = errors.first() {
        return Err(ImportError::Write {
            path: path_str,
            message: e.clone(),
        });
    }
    Ok(written)
}

fn write_layer(
    ds: &mut gdal::Dataset,
    l: &PackageLayer,
    srs: &gdal::spatial_ref::SpatialRef,
) -> gdal::errors::Result<u64> {
    let ty = match l.geometry {
        PackageGeometry::Point => OGRwkbGeometryType::wkbPoint,
        PackageGeometry::Lines => OGRwkbGeometryType::wkbMultiLineString,
        PackageGeometry::Areas => OGRwkbGeometryType::wkbMultiPolygon,
        PackageGeometry::Any => OGRwkbGeometryType::wkbUnknown,
    };
    let lyr = ds.create_layer(LayerOptions {
        name: &l.name,
        srs: Some(srs),
        ty,
        options: Some(&["FID=ms4_fid", "GEOMETRY_NAME=geom"]),
    })?;
    for (name, kind) in &l.fields {
        let t = match kind {
            FieldKind::Text => OGRFieldType::OFTString,
            FieldKind::Real => OGRFieldType::OFTReal,
            FieldKind::Integer => OGRFieldType::OFTInteger64,
        };
        FieldDefn::new(name, t)?.add_to_layer(&lyr)?;
    }
    let mut n = 0;
    for (g, cells) in &l.rows {
        let mut f = gdal::vector::Feature::new(lyr.defn())?;
        for (i, c) in cells.iter().enumerate() {
            match c {
                Cell::Null => f.set_field_null(i)?,
                Cell::Text(s) => f.set_field_string(i, s)?,
                Cell::Real(x) => f.set_field_double(i, *x)?,
                Cell::Integer(x) => f.set_field_integer64(i, *x)?,
            }
        }
        if let Some(g) = g {
            f.set_geometry(OgrGeometry::from_wkb(&wkb::to_wkb(&promote(
                g, l.geometry,
            )))?)?;
        }
        f.create(&lyr)?;
        n += 1;
    }
    Ok(n)
}

/// A single line or polygon as the multi type its layer holds.
fn promote(g: &Geometry<f64>, to: PackageGeometry) -> Geometry<f64> {
    match (g, to) {
        (Geometry::LineString(l), PackageGeometry::Lines) => {
            Geometry::MultiLineString(MultiLineString(vec![l.clone()]))
        }
        (Geometry::Polygon(p), PackageGeometry::Areas) => {
            Geometry::MultiPolygon(MultiPolygon(vec![p.clone()]))
        }
        _ => g.clone(),
    }
}
