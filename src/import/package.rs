//! Writes a deliverable of several layers of plain values into one GeoPackage (the
//! Mapping Phase I package): each layer its name, geometry type, typed fields and rows,
//! in the registry's CRS, all in one transaction; and the same layers as a folder of
//! shapefiles for those who need them, made to fit that format first
//! ([`for_shapefiles`]: one geometry type per file, names of 10 characters, text of 254
//! bytes), with every change it made listed.
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
            let n = write_layer(&mut txn, l, &srs, &["FID=ms4_fid", "GEOMETRY_NAME=geom"])
                .map_err(|source| ImportError::Gdal {
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

/// What the shapefile format made of the package's layers: the changes a reader of the
/// files must know, for the package's README.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShapefileChanges {
    /// Layers of mixed geometry written as one file per type: (layer, the files).
    pub split: Vec<(String, Vec<String>)>,
    /// Fields written under a name of 10 characters: (file, name, short name).
    pub renamed: Vec<(String, String, String)>,
    /// Text cut to 254 bytes: (file, field, how many values).
    pub cut: Vec<(String, String, usize)>,
}

/// The longest name a shapefile's field holds, in characters.
const DBF_MAX_NAME: usize = 10;
/// The longest text a shapefile's field holds, in bytes.
const DBF_MAX_TEXT_BYTES: usize = 254;

/// The geometry family of a geometry, for splitting a mixed layer.
fn family(g: &Geometry<f64>) -> PackageGeometry {
    match g {
        Geometry::Point(_) | Geometry::MultiPoint(_) => PackageGeometry::Point,
        Geometry::Line(_) | Geometry::LineString(_) | Geometry::MultiLineString(_) => {
            PackageGeometry::Lines
        }
        _ => PackageGeometry::Areas,
    }
}

/// Names of at most 10 characters for `names`, each distinct: the first 10 characters,
/// else the first 9 and a digit.
fn short_names(names: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for n in names {
        let cut = |k: usize| n.chars().take(k).collect::<String>();
        let mut s = cut(DBF_MAX_NAME);
        let mut i = 1;
        while out.iter().any(|o| o.eq_ignore_ascii_case(&s)) {
            s = format!("{}{i}", cut(DBF_MAX_NAME - 1));
            i += 1;
        }
        out.push(s);
    }
    out
}

/// `s` cut to at most `max` bytes at a character boundary.
fn cut_text(s: &str, max: usize) -> &str {
    let mut end = max.min(s.len());
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The package's layers made to fit shapefiles: a layer of mixed geometry becomes one
/// layer per type (`_points`, `_lines`, `_areas`; an empty one is written as areas),
/// field names are cut to 10 characters and text to 254 bytes. Decides only; see
/// [`write_shapefiles`].
pub fn for_shapefiles(layers: &[PackageLayer]) -> (Vec<PackageLayer>, ShapefileChanges) {
    let mut out = Vec::new();
    let mut changes = ShapefileChanges::default();
    for l in layers {
        let parts: Vec<PackageLayer> = if l.geometry == PackageGeometry::Any {
            let of = |fam: PackageGeometry| -> Vec<(Option<Geometry<f64>>, Vec<Cell>)> {
                l.rows
                    .iter()
                    .filter(|(g, _)| g.as_ref().map_or(PackageGeometry::Areas, family) == fam)
                    .cloned()
                    .collect()
            };
            let fams: Vec<(PackageGeometry, &str)> = vec![
                (PackageGeometry::Point, "points"),
                (PackageGeometry::Lines, "lines"),
                (PackageGeometry::Areas, "areas"),
            ];
            let mut split: Vec<PackageLayer> = fams
                .into_iter()
                .filter_map(|(fam, word)| {
                    let rows = of(fam);
                    (!rows.is_empty()).then(|| PackageLayer {
                        name: format!("{}_{word}", l.name),
                        geometry: fam,
                        fields: l.fields.clone(),
                        rows,
                    })
                })
                .collect();
            match split.len() {
                0 => vec![PackageLayer {
                    geometry: PackageGeometry::Areas,
                    ..l.clone()
                }],
                1 => {
                    split[0].name.clone_from(&l.name);
                    split
                }
                _ => {
                    changes.split.push((
                        l.name.clone(),
                        split.iter().map(|p| p.name.clone()).collect(),
                    ));
                    split
                }
            }
        } else {
            vec![l.clone()]
        };
        for mut p in parts {
            let names: Vec<String> = p.fields.iter().map(|(n, _)| n.clone()).collect();
            for ((n, _), short) in p.fields.iter_mut().zip(short_names(&names)) {
                if *n != short {
                    changes
                        .renamed
                        .push((p.name.clone(), n.clone(), short.clone()));
                    *n = short;
                }
            }
            let mut cut = vec![0usize; p.fields.len()];
            for (_, cells) in &mut p.rows {
                for (i, c) in cells.iter_mut().enumerate() {
                    if let Cell::Text(t) = c {
                        if t.len() > DBF_MAX_TEXT_BYTES {
                            *t = cut_text(t, DBF_MAX_TEXT_BYTES).to_string();
                            cut[i] += 1;
                        }
                    }
                }
            }
            for (i, n) in cut.into_iter().enumerate() {
                if n > 0 {
                    changes.cut.push((p.name.clone(), p.fields[i].0.clone(), n));
                }
            }
            out.push(p);
        }
    }
    (out, changes)
}

/// Writes `layers` (already fit by [`for_shapefiles`]) as one shapefile each into the new
/// folder `dir`, in EPSG:`srid`, text in UTF-8; refuses an existing folder. Returns the
/// rows written per file.
pub fn write_shapefiles(
    dir: &Path,
    srid: i32,
    layers: &[PackageLayer],
) -> Result<Vec<(String, u64)>> {
    let path_str = dir.display().to_string();
    if dir.exists() {
        return Err(ImportError::Write {
            path: path_str,
            message: "the folder exists; give a new one or remove it".into(),
        });
    }
    let werr = |source: gdal::errors::GdalError| ImportError::Gdal {
        doing: format!("{path_str}: writing the shapefiles"),
        source,
    };
    let capture = super::gdal_guard::ErrorCapture::start_with_warnings();
    let driver = DriverManager::get_driver_by_name("ESRI Shapefile").map_err(werr)?;
    let mut ds = driver.create_vector_only(dir).map_err(werr)?;
    let srs = crs::srs_from_epsg(srid)?;
    let mut written = Vec::new();
    for l in layers {
        let n = write_layer(&mut ds, l, &srs, &["ENCODING=UTF-8"]).map_err(|source| {
            ImportError::Gdal {
                doing: format!("{path_str}: writing {}.shp", l.name),
                source,
            }
        })?;
        written.push((l.name.clone(), n));
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
    options: &[&str],
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
        options: Some(options),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapefile_names_are_ten_characters_and_distinct() {
        let names: Vec<String> = [
            "id",
            "commercial_industrial_share",
            "commercial_area",
            "location_id",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            short_names(&names),
            ["id", "commercial", "commercia1", "location_i"]
        );
    }

    #[test]
    fn a_mixed_layer_becomes_one_shapefile_per_geometry_type_and_long_text_is_cut() {
        let line = Geometry::LineString(geo_types::wkt!(LINESTRING(0. 0.,1. 1.)));
        let area = Geometry::Polygon(geo_types::wkt!(POLYGON((0. 0.,1. 0.,1. 1.,0. 0.))));
        let long = "é".repeat(200);
        let l = PackageLayer {
            name: "receiving_waters".into(),
            geometry: PackageGeometry::Any,
            fields: vec![("classification".into(), FieldKind::Text)],
            rows: vec![
                (Some(line), vec![Cell::Text("A".into())]),
                (Some(area), vec![Cell::Text(long)]),
            ],
        };
        let (out, changes) = for_shapefiles(&[l]);
        let names: Vec<&str> = out.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["receiving_waters_lines", "receiving_waters_areas"]);
        assert_eq!(out[1].fields[0].0, "classifica");
        let Cell::Text(t) = &out[1].rows[0].1[0] else {
            panic!()
        };
        assert_eq!(t.len(), 254, "127 two-byte characters");
        assert_eq!(
            changes.cut,
            [(
                "receiving_waters_areas".to_string(),
                "classifica".to_string(),
                1
            )]
        );
        assert_eq!(changes.split.len(), 1);
    }
}
