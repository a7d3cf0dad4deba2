//! Export a layer to GeoPackage, Shapefile, GeoJSON (RFC 7946, WGS 84) or CSV.

use std::borrow::Cow;
use std::path::Path;

use chrono::{NaiveTime, TimeZone};
use gdal::spatial_ref::SpatialRef;
use gdal::vector::{
    FieldDefn, Geometry as OgrGeometry, LayerAccess, LayerOptions, OGRFieldType, OGRwkbGeometryType,
};
use gdal::DriverManager;

use super::crs;
use super::error::{ImportError, Result};
use crate::domain::{wkb, Feature, FieldType, GeomKind, Layer, Value};
use crate::store::RegistryMeta;

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    /// GeoPackage, in the registry's CRS.
    GeoPackage,
    /// ESRI Shapefile, in the registry's CRS (field names cut to 10 characters by the format).
    Shapefile,
    /// GeoJSON per RFC 7946: WGS 84 longitude/latitude.
    GeoJson,
    /// CSV with the geometry as WKT, in the registry's CRS.
    Csv,
}

impl ExportFormat {
    /// Picks the format from a file name's extension.
    pub fn from_path(path: &Path) -> Result<Self> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match ext.as_str() {
            "gpkg" => Ok(ExportFormat::GeoPackage),
            "shp" => Ok(ExportFormat::Shapefile),
            "geojson" | "json" => Ok(ExportFormat::GeoJson),
            "csv" => Ok(ExportFormat::Csv),
            _ => Err(ImportError::Write {
                path: path.display().to_string(),
                message: "unknown output format; use .gpkg, .shp, .geojson or .csv".into(),
            }),
        }
    }

    fn driver(self) -> &'static str {
        match self {
            ExportFormat::GeoPackage => "GPKG",
            ExportFormat::Shapefile => "ESRI Shapefile",
            ExportFormat::GeoJson => "GeoJSON",
            ExportFormat::Csv => "CSV",
        }
    }
}

fn ogr_type(ty: FieldType) -> OGRFieldType::Type {
    match ty {
        FieldType::Text => OGRFieldType::OFTString,
        FieldType::Integer => OGRFieldType::OFTInteger64,
        FieldType::Real | FieldType::Length(_) | FieldType::Elevation => OGRFieldType::OFTReal,
        FieldType::Bool => OGRFieldType::OFTInteger,
        FieldType::Date => OGRFieldType::OFTDate,
    }
}

fn wkb_type(kind: GeomKind, features: &[Feature], path: &str) -> Result<OGRwkbGeometryType::Type> {
    Ok(match kind {
        GeomKind::Point => OGRwkbGeometryType::wkbPoint,
        GeomKind::Line => OGRwkbGeometryType::wkbMultiLineString,
        GeomKind::Polygon => OGRwkbGeometryType::wkbMultiPolygon,
        GeomKind::None => OGRwkbGeometryType::wkbNone,
        GeomKind::Any => {
            let mut names: Vec<&str> = features
                .iter()
                .filter_map(|f| f.geom.as_ref())
                .map(super::geometry_name)
                .collect();
            names.sort();
            names.dedup();
            match names.as_slice() {
                [] => OGRwkbGeometryType::wkbUnknown,
                ["Point"] => OGRwkbGeometryType::wkbPoint,
                ["LineString"] => OGRwkbGeometryType::wkbLineString,
                ["Polygon"] => OGRwkbGeometryType::wkbPolygon,
                ["LineString", "MultiLineString"] | ["MultiLineString"] => OGRwkbGeometryType::wkbMultiLineString,
                ["MultiPolygon", "Polygon"] | ["MultiPolygon"] => OGRwkbGeometryType::wkbMultiPolygon,
                _ if path.to_ascii_lowercase().ends_with(".shp") => {
                    return Err(ImportError::Write {
                        path: path.into(),
                        message: format!(
                            "a shapefile holds one geometry type, but this layer mixes {}; export to .gpkg or .geojson",
                            names.join(", ")
                        ),
                    })
                }
                _ => OGRwkbGeometryType::wkbUnknown,
            }
        }
    })
}

/// How an export treats what its format cannot hold.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExportOptions {
    /// Write even when the format loses data (a shapefile cuts text to 254 bytes), and
    /// report the losses instead of failing.
    pub allow_lossy: bool,
}

/// What an export wrote.
#[derive(Debug, Clone, Default)]
pub struct Exported {
    /// Features written.
    pub written: u64,
    /// What the format could not hold (only with [`ExportOptions::allow_lossy`]).
    pub losses: Vec<String>,
    /// Fields written under another name than their own, as GDAL said it laundered them
    /// (a shapefile's names hold 10 characters): no value is lost, and ms4's import maps
    /// them back by their cut, but a reader of the file sees the new names.
    pub renamed: Vec<String>,
}

/// The longest text a shapefile's DBF holds in one field, in bytes.
const DBF_MAX_TEXT_BYTES: usize = 254;
/// Losses named one by one in a message; the rest are counted.
const SHOW_LOSSES: usize = 10;

/// Writes features of a layer to a file; returns how many were written. An existing file
/// is replaced only once the new one is complete; an export that would lose data fails.
pub fn export(layer: Layer, features: &[Feature], meta: &RegistryMeta, path: &Path) -> Result<u64> {
    export_with(layer, features, meta, path, ExportOptions::default()).map(|e| e.written)
}

/// Writes features of a layer to a file. The file (and, for a shapefile, each of its
/// sidecars) is written in a temporary folder beside the destination and renamed into
/// place only when complete, so a failed export leaves the old file as it was and no
/// partial one. Unless `opts.allow_lossy`, an export the format cannot hold whole (text
/// over 254 bytes in a shapefile) fails and names what would be lost.
pub fn export_with(
    layer: Layer,
    features: &[Feature],
    meta: &RegistryMeta,
    path: &Path,
    opts: ExportOptions,
) -> Result<Exported> {
    let format = ExportFormat::from_path(path)?;
    let path_str = path.display().to_string();
    let fail = |message: String| ImportError::Write {
        path: path_str.clone(),
        message,
    };
    let mut losses = match format {
        ExportFormat::Shapefile => shapefile_losses(layer, features),
        // GDAL's CSV writer puts a blank and a null alike as an empty cell (quoted or
        // not), and its reader cannot tell them apart either.
        ExportFormat::Csv => blank_losses(layer, features, "a CSV", str::is_empty),
        _ => Vec::new(),
    };
    if !losses.is_empty() && !opts.allow_lossy {
        return Err(fail(lossy_message(&losses)));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let file_name = path
        .file_name()
        .ok_or_else(|| fail("not a file name".into()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".ms4-export-")
        .tempdir_in(&parent)
        .map_err(|e| fail(format!("cannot write in {}: {e}", parent.display())))?;
    let tmp_path = tmp.path().join(file_name);
    let (written, warnings, renamed) = write_file(layer, features, meta, &tmp_path, format)
        .map_err(|e| match e {
            ImportError::Write { message, .. } => fail(message),
            // Named by the file asked for, not the temporary one written first.
            ImportError::Gdal { source, .. } => ImportError::Gdal {
                doing: format!("{path_str}: writing the export"),
                source,
            },
            other => other,
        })?;
    // GDAL's own warnings (a value cut, a number that did not fit) are losses too.
    losses.extend(warnings);
    if !losses.is_empty() && !opts.allow_lossy {
        return Err(fail(lossy_message(&losses)));
    }
    let produced: Vec<std::path::PathBuf> = std::fs::read_dir(tmp.path())
        .map_err(|e| fail(e.to_string()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    if format == ExportFormat::Shapefile {
        // An old sidecar the new export does not write (a .cpg, say) would describe the
        // new file wrongly.
        for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
            let old = path.with_extension(ext);
            let replaced = produced.iter().any(|p| p.file_name() == old.file_name());
            if !replaced {
                match std::fs::remove_file(&old) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err(fail(e.to_string()))
                    }
                    _ => {}
                }
            }
        }
    }
    for p in &produced {
        let dest = parent.join(p.file_name().expect("a listed file has a name"));
        std::fs::rename(p, &dest)
            .map_err(|e| fail(format!("cannot move the finished file into place: {e}")))?;
    }
    Ok(Exported {
        written,
        losses,
        renamed,
    })
}

fn lossy_message(losses: &[String]) -> String {
    let shown: Vec<&str> = losses
        .iter()
        .take(SHOW_LOSSES)
        .map(String::as_str)
        .collect();
    let more = if losses.len() > SHOW_LOSSES {
        format!(" and {} more", losses.len() - SHOW_LOSSES)
    } else {
        String::new()
    };
    format!(
        "the format cannot hold every value, and the export would lose data: {}{more}; export to .gpkg or .geojson instead, or accept the loss with --allow-lossy",
        shown.join("; ")
    )
}

/// Per field, the blank strings a format that cannot tell a blank from no value
/// (`what`: "a shapefile", "a CSV") would turn into nulls; `blank` says which strings it
/// loses (a DBF pads with spaces, so all-space ones too; a CSV only the empty ones).
fn blank_losses(
    layer: Layer,
    features: &[Feature],
    what: &str,
    blank: fn(&str) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut blanks: std::collections::BTreeMap<&str, usize> = Default::default();
    for f in features {
        for (spec, v) in layer.fields().iter().zip(&f.values) {
            if matches!(v, Value::Text(t) if blank(t)) {
                *blanks.entry(spec.name).or_default() += 1;
            }
        }
        for (k, v) in &f.extra {
            if matches!(v, serde_json::Value::String(t) if blank(t)) {
                *blanks.entry(k.as_str()).or_default() += 1;
            }
        }
    }
    for (field, n) in blanks {
        out.push(format!(
            "layer {layer} field {field}: {n} blank {}, which {what} cannot tell from no value (they come back as nulls)",
            if n == 1 { "string" } else { "strings" }
        ));
    }
    out
}

/// What a shapefile would lose: every text value longer than a DBF field holds, and per
/// field the blank strings (a DBF cannot tell a blank from no value: they come back as
/// nulls).
fn shapefile_losses(layer: Layer, features: &[Feature]) -> Vec<String> {
    let mut out = blank_losses(layer, features, "a shapefile", |t| t.trim().is_empty());
    let long = |s: &str| s.len() > DBF_MAX_TEXT_BYTES;
    for f in features {
        let mut note = |field: &str, n: usize| {
            out.push(format!(
                "feature {} field {field}: {n} bytes, a shapefile holds {DBF_MAX_TEXT_BYTES}",
                f.id
            ));
        };
        if long(&f.id) {
            note(layer.id_field(), f.id.len());
        }
        for (spec, v) in layer.fields().iter().zip(&f.values) {
            if let Value::Text(t) = v {
                if long(t) {
                    note(spec.name, t.len());
                }
            }
        }
        for (k, v) in &f.extra {
            let n = match v {
                serde_json::Value::String(s) => s.len(),
                serde_json::Value::Null => 0,
                other => other.to_string().len(),
            };
            if n > DBF_MAX_TEXT_BYTES {
                note(k, n);
            }
        }
    }
    out
}

/// Writes the file; returns the features written and GDAL's warnings about lost data.
fn write_file(
    layer: Layer,
    features: &[Feature],
    meta: &RegistryMeta,
    path: &Path,
    format: ExportFormat,
) -> Result<(u64, Vec<String>, Vec<String>)> {
    let path_str = path.display().to_string();
    let werr = |source: gdal::errors::GdalError| ImportError::Gdal {
        doing: format!("{path_str}: writing the export"),
        source,
    };
    let capture = super::gdal_guard::ErrorCapture::start_with_warnings();
    let driver = DriverManager::get_driver_by_name(format.driver()).map_err(werr)?;
    let mut ds = driver.create_vector_only(path).map_err(werr)?;

    let registry_srs = crs::srs_from_epsg(meta.srid)?;
    let (out_srs, ct): (SpatialRef, _) = if format == ExportFormat::GeoJson {
        let wgs84 = crs::srs_from_epsg(4326)?;
        let ct = crs::transform(&registry_srs, &wgs84)?;
        (wgs84, Some(ct))
    } else {
        (registry_srs, None)
    };
    let geom_type = wkb_type(layer.geom_kind(), features, &path_str)?;
    // Extra attributes: the union of keys, in first-seen order.
    let mut extra_keys: Vec<String> = Vec::new();
    for f in features {
        for k in f.extra.keys() {
            if !extra_keys.contains(k) && k != layer.id_field() && layer.field_index(k).is_none() {
                extra_keys.push(k.clone());
            }
        }
    }
    let text = text_cells(format);
    let written_names: Vec<String> = std::iter::once(layer.id_field().to_string())
        .chain(layer.fields().iter().map(|f| f.name.to_string()))
        .chain(extra_keys.iter().map(|k| text(k).into_owned()))
        .collect();
    let gpkg_fid = format!("FID={}", free_name("fid", &written_names));
    let gpkg_geom = format!("GEOMETRY_NAME={}", free_name("geom", &written_names));
    let mut options: Vec<&str> = Vec::new();
    match format {
        // Ten decimals of a degree is about 0.01 mm: a round trip keeps positions far
        // inside the registry's 0.001-unit tolerance (RFC 7946's suggested 6 would not).
        ExportFormat::GeoJson => {
            options.extend(["RFC7946=YES", "COORDINATE_PRECISION=10", "WRITE_NAME=NO"]);
        }
        // The .csvt beside it gives each column its type, so numbers come back as numbers.
        ExportFormat::Csv => options.extend(["GEOMETRY=AS_WKT", "CREATE_CSVT=YES"]),
        ExportFormat::Shapefile => options.push("ENCODING=UTF-8"),
        // The table's own key and geometry columns take names no written field has: a
        // source field kept as `fid` (common in shapefiles from Esri) keeps its name and
        // values, and the GeoPackage's key is `ms4_fid` instead.
        ExportFormat::GeoPackage => options.extend([gpkg_fid.as_str(), gpkg_geom.as_str()]),
    }

    // GeoPackage writes are one SQLite transaction (fast and all-or-nothing); the other
    // drivers have no transactions.
    let written = if matches!(format, ExportFormat::GeoPackage) {
        let mut txn = ds.start_transaction().map_err(werr)?;
        let n = write_features(
            &mut txn,
            layer,
            features,
            &extra_keys,
            geom_type,
            &out_srs,
            &options,
            ct.as_ref(),
            text,
        )
        .map_err(werr)?;
        txn.commit().map_err(werr)?;
        n
    } else {
        write_features(
            &mut ds,
            layer,
            features,
            &extra_keys,
            geom_type,
            &out_srs,
            &options,
            ct.as_ref(),
            text,
        )
        .map_err(werr)?
    };
    // Closing flushes the last records (and may warn about them).
    ds.close().map_err(werr)?;
    // The DBF's 10-character field names: no value lost (the import maps them back by
    // their cut), but said, since a reader of the file sees other names.
    let (renamed, warnings): (Vec<String>, Vec<String>) = capture
        .take_warnings()
        .into_iter()
        // A table without geometry written as GeoJSON: no position to place, none lost.
        .filter(|w| !w.contains("No SRS set on layer"))
        .map(|w| format!("GDAL: {w}"))
        .partition(|w| w.contains("aundered") || w.contains("ormalized"));
    let errors = capture.take();
    drop(capture);
    if let Some(e) = errors.first() {
        return Err(ImportError::Write {
            path: path_str,
            message: e.clone(),
        });
    }
    Ok((written, warnings, renamed))
}

/// `wanted`, or the first of `ms4_wanted`, `ms4_wanted_2`, ... that no field in `taken` is
/// named (SQLite compares column names without case).
fn free_name(wanted: &str, taken: &[String]) -> String {
    let free = |n: &str| !taken.iter().any(|t| t.eq_ignore_ascii_case(n));
    std::iter::once(wanted.to_string())
        .chain(std::iter::once(format!("ms4_{wanted}")))
        .chain((2..).map(|i| format!("ms4_{wanted}_{i}")))
        .find(|n| free(n))
        .expect("an endless list has a free name")
}

/// How a text value (or a field name) is written in `format`. A spreadsheet opens a CSV
/// and runs a cell that looks like a formula: there, text is neutralised (see
/// [`crate::domain::csv`]; the import reads it back). Numbers and the WKT geometry are
/// not text, and GDAL writes them as they are.
fn text_cells(format: ExportFormat) -> fn(&str) -> Cow<'_, str> {
    fn as_is(text: &str) -> Cow<'_, str> {
        Cow::Borrowed(text)
    }
    match format {
        ExportFormat::Csv => crate::domain::csv::neutralise,
        _ => as_is,
    }
}

#[allow(clippy::too_many_arguments)]
fn write_features(
    ds: &mut gdal::Dataset,
    layer: Layer,
    features: &[Feature],
    extra_keys: &[String],
    geom_type: OGRwkbGeometryType::Type,
    out_srs: &SpatialRef,
    options: &[&str],
    ct: Option<&gdal::spatial_ref::CoordTransform>,
    text: fn(&str) -> Cow<'_, str>,
) -> gdal::errors::Result<u64> {
    let lyr = ds.create_layer(LayerOptions {
        name: layer.name(),
        srs: (geom_type != OGRwkbGeometryType::wkbNone).then_some(out_srs),
        ty: geom_type,
        options: Some(options),
    })?;
    FieldDefn::new(layer.id_field(), OGRFieldType::OFTString)?.add_to_layer(&lyr)?;
    for spec in layer.fields() {
        FieldDefn::new(spec.name, ogr_type(spec.ty))?.add_to_layer(&lyr)?;
    }
    let extra_types: Vec<ExtraType> = extra_keys.iter().map(|k| extra_type(features, k)).collect();
    for (k, t) in extra_keys.iter().zip(&extra_types) {
        let ty = match t {
            ExtraType::Integer => OGRFieldType::OFTInteger64,
            ExtraType::Real => OGRFieldType::OFTReal,
            ExtraType::Text => OGRFieldType::OFTString,
        };
        FieldDefn::new(&text(k), ty)?.add_to_layer(&lyr)?;
    }
    let n_canon = layer.fields().len();
    let mut written = 0u64;
    for f in features {
        let mut out = gdal::vector::Feature::new(lyr.defn())?;
        out.set_field_string(0, &text(&f.id))?;
        for (i, v) in f.values.iter().enumerate() {
            set_value(&mut out, i + 1, v, text)?;
        }
        for (j, (k, t)) in extra_keys.iter().zip(&extra_types).enumerate() {
            let idx = 1 + n_canon + j;
            match (f.extra.get(k), t) {
                // Set as null, not left unset: some drivers write an unset text field
                // as "" (GeoJSON did), which would come back as a value.
                (None | Some(serde_json::Value::Null), _) => out.set_field_null(idx)?,
                (Some(serde_json::Value::Number(n)), ExtraType::Integer) => match n.as_i64() {
                    Some(i) => out.set_field_integer64(idx, i)?,
                    None => out.set_field_double(idx, n.as_f64().unwrap_or(f64::NAN))?,
                },
                (Some(serde_json::Value::Number(n)), ExtraType::Real) => {
                    out.set_field_double(idx, n.as_f64().unwrap_or(f64::NAN))?;
                }
                (Some(serde_json::Value::String(s)), _) => out.set_field_string(idx, &text(s))?,
                (Some(other), _) => out.set_field_string(idx, &text(&other.to_string()))?,
            }
        }
        if let Some(g) = &f.geom {
            let mut og = OgrGeometry::from_wkb(&wkb::to_wkb(&promote(g, geom_type)))?;
            if let Some(ct) = ct {
                og.transform_inplace(ct)?;
            }
            out.set_geometry(og)?;
        }
        out.create(&lyr)?;
        written += 1;
    }
    Ok(written)
}

/// The type an extra attribute is written as: the one every stored value of it fits.
/// Extra attributes keep the JSON type the import read them with (a source's integer
/// `OBJECTID` is a number), so a file exported and imported again has the same types.
#[derive(Debug, Clone, Copy, PartialEq)]
enum ExtraType {
    Integer,
    Real,
    Text,
}

fn extra_type(features: &[Feature], key: &str) -> ExtraType {
    let mut t: Option<ExtraType> = None;
    for v in features.iter().filter_map(|f| f.extra.get(key)) {
        let this = match v {
            serde_json::Value::Null => continue,
            serde_json::Value::Number(n) if n.is_i64() => ExtraType::Integer,
            serde_json::Value::Number(_) => ExtraType::Real,
            _ => return ExtraType::Text,
        };
        t = Some(match (t, this) {
            (None, x) => x,
            (Some(ExtraType::Integer), ExtraType::Integer) => ExtraType::Integer,
            _ => ExtraType::Real,
        });
    }
    t.unwrap_or(ExtraType::Text)
}

/// A single part as a multi-part when the layer is declared multi-part, so the file
/// stays conformant (GeoPackage wants one geometry type per layer).
fn promote(
    g: &geo_types::Geometry<f64>,
    ty: OGRwkbGeometryType::Type,
) -> std::borrow::Cow<'_, geo_types::Geometry<f64>> {
    use geo_types::Geometry as G;
    match (g, ty) {
        (G::LineString(l), OGRwkbGeometryType::wkbMultiLineString) => {
            Cow::Owned(G::MultiLineString(geo_types::MultiLineString(vec![
                l.clone()
            ])))
        }
        (G::Polygon(p), OGRwkbGeometryType::wkbMultiPolygon) => {
            Cow::Owned(G::MultiPolygon(geo_types::MultiPolygon(vec![p.clone()])))
        }
        _ => Cow::Borrowed(g),
    }
}

fn set_value(
    out: &mut gdal::vector::Feature,
    idx: usize,
    v: &Value,
    text: fn(&str) -> Cow<'_, str>,
) -> gdal::errors::Result<()> {
    match v {
        Value::Null => out.set_field_null(idx),
        Value::Bool(b) => out.set_field_integer(idx, *b as i32),
        Value::Int(i) => out.set_field_integer64(idx, *i),
        Value::Real(r) => out.set_field_double(idx, *r),
        Value::Text(s) => out.set_field_string(idx, &text(s)),
        Value::Date(d) => {
            let dt = chrono::FixedOffset::east_opt(0)
                .expect("zero offset")
                .from_local_datetime(&d.and_time(NaiveTime::MIN))
                .single()
                .expect("a UTC date is unambiguous");
            out.set_field_datetime(idx, dt)
        }
    }
}
