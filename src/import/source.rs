//! Opening a source with GDAL and deciding how its fields map onto a layer.

use std::path::Path;

use gdal::vector::LayerAccess;
use gdal::{Dataset, DatasetOptions, GdalOpenFlags};

use super::error::{ImportError, Result};
use super::gdal_guard;
use crate::domain::Layer;

/// Column names read as longitude / latitude in a CSV.
const LON_NAMES: &[&str] = &[
    "lon",
    "long",
    "longitude",
    "lng",
    "x_wgs84",
    "point_x_wgs84",
];
const LAT_NAMES: &[&str] = &["lat", "latitude", "y_wgs84", "point_y_wgs84"];
/// Column names read as planar x / y in a CSV.
const X_NAMES: &[&str] = &["x", "x_coord", "xcoord", "point_x", "easting", "east"];
const Y_NAMES: &[&str] = &["y", "y_coord", "ycoord", "point_y", "northing", "north"];

/// How a CSV's coordinates were found.
#[derive(Debug, Clone, PartialEq)]
pub enum CsvGeometry {
    /// Longitude/latitude columns: WGS 84 unless `--s-srs` says otherwise.
    LonLat(String, String),
    /// Planar x/y columns: the CRS must be given.
    Xy(String, String),
    /// No coordinate columns: a table.
    None,
}

/// The longest CSV header line read when looking for coordinate columns: a header is a
/// few hundred bytes, and a file without line breaks must not be read whole into memory.
pub const MAX_CSV_HEADER_BYTES: u64 = 64 * 1024;

/// Finds coordinate columns in a CSV header (a UTF-8 byte-order mark is skipped).
pub fn csv_geometry(path: &Path, prefer_planar: bool) -> Result<CsvGeometry> {
    use std::io::{BufRead, Read};
    let display = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| ImportError::Open {
        path: display.clone(),
        message: io_reason(&e),
    })?;
    let mut raw = Vec::new();
    std::io::BufReader::new(file)
        .take(MAX_CSV_HEADER_BYTES)
        .read_until(b'\n', &mut raw)
        .map_err(|e| ImportError::Open {
            path: display.clone(),
            message: io_reason(&e),
        })?;
    if !raw.ends_with(b"\n") && raw.len() as u64 == MAX_CSV_HEADER_BYTES {
        return Err(ImportError::Open {
            path: display,
            message: format!(
                "its first line (the CSV header) is longer than {} KiB; a CSV needs a header line of column names",
                MAX_CSV_HEADER_BYTES / 1024
            ),
        });
    }
    let line = String::from_utf8_lossy(&raw);
    let header = line.trim_start_matches('\u{feff}');
    let cols: Vec<String> = header
        .trim_end()
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_string())
        .collect();
    let find = |names: &[&str]| {
        cols.iter()
            .find(|c| names.contains(&c.to_ascii_lowercase().as_str()))
            .cloned()
    };
    let lonlat = find(LON_NAMES).zip(find(LAT_NAMES));
    let xy = find(X_NAMES).zip(find(Y_NAMES));
    Ok(match (lonlat, xy, prefer_planar) {
        (_, Some((x, y)), true) => CsvGeometry::Xy(x, y),
        (Some((x, y)), _, _) => CsvGeometry::LonLat(x, y),
        (None, Some((x, y)), _) => CsvGeometry::Xy(x, y),
        (None, None, _) => CsvGeometry::None,
    })
}

/// An I/O error in words, without Rust's `(os error N)` suffix.
fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}

/// Whether a path names a CSV file.
pub fn is_csv(path: &Path) -> bool {
    has_extension(path, "csv")
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Refuses a source that is not a local regular file (or a directory, as a File
/// Geodatabase is), that is a GDAL VRT under any name, or that is a GeoPackage holding
/// anything but plain tables (a view, a trigger of its own: see `gpkg_check`), before GDAL
/// or the CSV sniffer reads a byte of it. A FIFO or device would block the import for
/// ever; a VRT or a `/vsicurl/` path would read data the user was never meant to see; a
/// view runs SQL for as long as it likes. With `any_driver` (the CLI's
/// `--allow-any-driver`) only the existence check and the zip's limits remain.
pub fn check_source(path: &Path, any_driver: bool) -> Result<()> {
    let display = path.display().to_string();
    let refuse = |message: String| ImportError::Open {
        path: display.clone(),
        message,
    };
    if gdal_guard::is_virtual_path(&display) {
        if any_driver {
            return Ok(());
        }
        return Err(refuse(
            "GDAL virtual paths (/vsicurl/, /vsizip/, ...) are not read; give a local file (a .zip is opened for you), or --allow-any-driver to let GDAL open it".into(),
        ));
    }
    let meta = std::fs::metadata(path).map_err(|e| refuse(io_reason(&e)))?;
    if meta.is_dir() {
        return Ok(());
    }
    if !meta.is_file() {
        return Err(refuse(
            "not a regular file (a FIFO, socket or device); ms4 reads only regular files".into(),
        ));
    }
    if has_extension(path, "zip") {
        // Before GDAL inflates a byte: what the zip claims to hold, from its directory.
        let (max_bytes, max_members) = super::zipcheck::limits();
        super::zipcheck::check(path, max_bytes, max_members).map_err(|r| match r {
            super::zipcheck::ZipRefusal::TooLarge(message) => ImportError::TooLarge {
                path: display.clone(),
                message,
            },
            super::zipcheck::ZipRefusal::Unreadable(message) => refuse(message),
        })?;
    }
    if any_driver {
        return Ok(());
    }
    if super::gpkg_check::file_is_sqlite(path) {
        return super::gpkg_check::check(path).map_err(refuse);
    }
    let vrt = |inner: Option<&str>| {
        refuse(format!(
            "{}is a GDAL VRT (an XML file that points GDAL at other data), which ms4 does not read; send the data itself as {}",
            inner.map(|n| format!("{n} inside it ")).unwrap_or_default(),
            gdal_guard::ALLOWED_FORMATS
        ))
    };
    if gdal_guard::vsi_head(&display, 4096).is_some_and(|h| gdal_guard::looks_like_vrt(&h)) {
        return Err(vrt(None));
    }
    if has_extension(path, "zip") {
        let root = format!("/vsizip/{display}");
        for entry in gdal_guard::vsi_list(&root) {
            let inner = format!("{root}/{entry}");
            let is_vrt = entry.to_ascii_lowercase().ends_with(".vrt")
                || gdal_guard::vsi_head(&inner, 4096)
                    .is_some_and(|h| gdal_guard::looks_like_vrt(&h));
            if is_vrt {
                return Err(vrt(Some(&entry)));
            }
            // GDAL opens a zip's only file as if it were the zip: a GeoPackage inside one
            // would reach GDAL without the look that one sent as itself gets.
            if gdal_guard::vsi_head(&inner, 16).is_some_and(|h| super::gpkg_check::is_sqlite(&h)) {
                return Err(refuse(format!(
                    "holds a GeoPackage (or another SQLite database), {entry}, inside it; send the GeoPackage itself, not zipped"
                )));
            }
        }
    }
    Ok(())
}

/// An opened source: the dataset, its driver and what GDAL complained of while opening
/// it (an unreadable `.prj` or GeoJSON `crs`, say).
pub struct Opened {
    /// The dataset. First, so it is closed before the fields after it are dropped.
    pub ds: Dataset,
    /// The GDAL driver's short name (`ESRI Shapefile`, `GeoJSON`...).
    pub driver: String,
    /// GDAL's errors during the open.
    pub open_errors: Vec<String>,
    /// The token SQLite checks during a GeoPackage's statements ([`Opened::watch`]).
    watch: Option<super::cancel::SqliteWatch>,
}

impl Opened {
    /// Lets `cancel` interrupt a GeoPackage's SQLite statements as well as the reader's
    /// loop (see [`super::cancel::Cancel::watch_sqlite`]).
    pub fn watch(&mut self, cancel: &super::cancel::Cancel) {
        self.watch = cancel.watch_sqlite(&self.ds);
    }
}

/// Opens a vector source. Zip files are read through GDAL's `/vsizip/`; CSVs get their
/// coordinate columns named explicitly so GDAL builds point geometries from them. Unless
/// `any_driver`, only [`gdal_guard::ALLOWED_DRIVERS`] may open it, GDAL choosing by
/// content, and GDAL's network access is off for the process.
pub fn open(path: &Path, csv: &CsvGeometry, any_driver: bool) -> Result<Opened> {
    let display = path.display().to_string();
    if !any_driver {
        gdal_guard::lock_down();
    }
    let gdal_path = if has_extension(path, "zip") {
        format!("/vsizip/{}", path.display())
    } else {
        display.clone()
    };
    let mut opts: Vec<String> = Vec::new();
    if is_csv(path) {
        // Keep every value as text: the importer converts with its own rules and reports
        // what it converted, instead of GDAL guessing a type from the first rows.
        opts.push("AUTODETECT_TYPE=NO".into());
        opts.push("EMPTY_STRING_AS_NULL=YES".into());
        // The columns the geometry is made of (coordinates, or the WKT an export writes)
        // are the geometry, not attributes besides it.
        opts.push("KEEP_GEOM_COLUMNS=NO".into());
        if let CsvGeometry::LonLat(x, y) | CsvGeometry::Xy(x, y) = csv {
            opts.push(format!("X_POSSIBLE_NAMES={x}"));
            opts.push(format!("Y_POSSIBLE_NAMES={y}"));
        }
    }
    if has_extension(path, "geojson") || has_extension(path, "json") {
        // Text that looks like a date stays the text it is ("2000/01/31 00:00:00.000" is
        // not made 2000-01-31): a canonical date field converts it by the import's rules.
        opts.push("DATE_AS_STRING=YES".into());
    }
    let opt_refs: Vec<&str> = opts.iter().map(String::as_str).collect();
    let capture = gdal_guard::ErrorCapture::start();
    let opened = Dataset::open_ex(
        &gdal_path,
        DatasetOptions {
            open_flags: GdalOpenFlags::GDAL_OF_VECTOR | GdalOpenFlags::GDAL_OF_READONLY,
            open_options: (!opt_refs.is_empty()).then_some(opt_refs.as_slice()),
            allowed_drivers: (!any_driver).then_some(gdal_guard::ALLOWED_DRIVERS),
            ..Default::default()
        },
    );
    let open_errors = capture.take();
    drop(capture);
    match opened {
        Ok(ds) => {
            let driver = ds.driver().short_name();
            Ok(Opened {
                ds,
                driver,
                open_errors,
                watch: None,
            })
        }
        Err(_) => Err(ImportError::Open {
            path: display,
            message: explain_open_failure(path, &open_errors, any_driver),
        }),
    }
}

/// Why GDAL could not open a file, in the analyst's terms rather than GDAL's.
fn explain_open_failure(path: &Path, errors: &[String], any_driver: bool) -> String {
    let all = errors.join(" ").to_ascii_lowercase();
    if has_extension(path, "shp") || all.contains(".shx") || all.contains(".dbf") {
        for (ext, what) in [("shx", "index"), ("dbf", "attribute table")] {
            let upper = path.with_extension(ext.to_ascii_uppercase());
            if (!path.with_extension(ext).exists() && !upper.exists())
                || all.contains(&format!(".{ext}"))
            {
                return format!(
                    "the .{ext} (the shapefile's {what}) is missing or unreadable; a shapefile needs its .shp, .shx and .dbf side by side (zip them together for an upload)"
                );
            }
        }
    }
    if has_extension(path, "zip") {
        return format!(
            "the zip holds no file ms4 reads ({}); a zipped shapefile needs its .shp, .shx and .dbf",
            gdal_guard::ALLOWED_FORMATS
        );
    }
    if !any_driver {
        return format!(
            "not a file ms4 reads, or a damaged one: expected {}",
            gdal_guard::ALLOWED_FORMATS
        );
    }
    "GDAL recognised no format in it".into()
}

/// The CRS name a GeoJSON's legacy `crs` member gives, read from the start of the file
/// (where the member sits in every file GDAL, QGIS or ArcGIS writes).
pub fn geojson_crs_name(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(64 * 1024)
        .read_to_end(&mut head)
        .ok()?;
    let text = String::from_utf8_lossy(&head);
    let at = text.find("\"crs\"")?;
    let mut rest = &text[at..];
    // The key "name" (the first "name" may be the value of "type").
    loop {
        let name_at = rest.find("\"name\"")?;
        rest = &rest[name_at + 6..];
        if let Some(after) = rest.trim_start().strip_prefix(':') {
            let value = after.trim_start().strip_prefix('"')?;
            let end = value.find('"')?;
            return Some(value[..end].chars().take(200).collect());
        }
    }
}

/// Picks the source layer: the one named, the only one, or the one named like the target.
pub fn pick_layer<'d>(
    ds: &'d Dataset,
    path: &str,
    wanted: Option<&str>,
    target: Layer,
) -> Result<gdal::vector::Layer<'d>> {
    let names: Vec<String> = ds.layers().map(|l| l.name()).collect();
    let list = names.join(", ");
    if let Some(w) = wanted {
        return ds.layer_by_name(w).map_err(|_| ImportError::NoSuchLayer {
            path: path.into(),
            name: w.into(),
            names: list,
        });
    }
    match names.len() {
        0 => Err(ImportError::Open {
            path: path.into(),
            message: "the file holds no vector layer".into(),
        }),
        1 => ds.layer(0).map_err(|source| ImportError::Gdal {
            doing: format!("{path}: cannot be opened as GIS data"),
            source,
        }),
        n => match names
            .iter()
            .position(|x| x.eq_ignore_ascii_case(target.name()))
        {
            Some(i) => ds.layer(i).map_err(|source| ImportError::Gdal {
                doing: format!("{path}: cannot be opened as GIS data"),
                source,
            }),
            None => Err(ImportError::WhichLayer {
                path: path.into(),
                count: n,
                names: list,
            }),
        },
    }
}

/// Where each canonical field's values come from.
#[derive(Debug, Clone)]
pub struct FieldPlan {
    /// Source field index for the id, if the source has one.
    pub id: Option<usize>,
    /// Source field index for each canonical field (in [`Layer::fields`] order).
    pub fields: Vec<Option<usize>>,
    /// Source fields kept as extras: (index, name).
    pub extra: Vec<(usize, String)>,
    /// canonical → source name, for the report.
    pub described: Vec<(String, String)>,
    /// When ids are made rather than read from one field: how. Its value is placed after
    /// the source's own values, at index `id`.
    pub id_rule: Option<super::idexpr::IdRule>,
    /// The unit conversion of each canonical field (in [`Layer::fields`] order) whose
    /// mapping gave a unit (`--map diameter_in=SPAN:ft`); empty when none did.
    pub units: Vec<Option<super::map_unit::FieldUnit>>,
}

impl FieldPlan {
    /// A plan that fills nothing, for a source without features.
    pub fn empty(layer: Layer) -> Self {
        FieldPlan {
            id: None,
            fields: vec![None; layer.fields().len()],
            extra: Vec::new(),
            described: Vec::new(),
            id_rule: None,
            units: Vec::new(),
        }
    }
}

/// One `--map` argument: the canonical field, the source field, and the unit the
/// source gives it in, when one follows a `:` (`diameter_in=SPAN:ft`).
#[derive(Debug, Clone, PartialEq)]
pub struct MapArg {
    /// The canonical field.
    pub canonical: String,
    /// The source field.
    pub source: String,
    /// The source field's unit, when given (see [`super::map_unit`]).
    pub unit: Option<super::map_unit::SourceUnit>,
}

/// Parses one `--map canonical=source[:unit]` argument; the command line and an
/// upload's `map` parts both come here. An unknown unit word is refused naming the
/// mapping.
pub fn parse_map(arg: &str) -> Result<MapArg> {
    let bad = |message: String| ImportError::Map {
        arg: arg.into(),
        message,
    };
    match arg.split_once('=') {
        Some((c, s)) if !c.trim().is_empty() && !s.trim().is_empty() => {
            let (source, unit) = super::map_unit::split_source(s.trim()).map_err(bad)?;
            Ok(MapArg {
                canonical: c.trim().to_string(),
                source: source.to_string(),
                unit,
            })
        }
        _ => Err(bad(
            "expected canonical=source, e.g. --map asset_id=FACILITYID (or canonical=source:unit, e.g. --map diameter_in=SPAN:ft)".into(),
        )),
    }
}

/// Decides the field plan. Explicit `--map` entries win; then a source field with the
/// canonical name (any case); then one with the canonical name cut to 10 characters, which
/// is what a shapefile's DBF did to it.
pub fn plan_fields(
    layer: Layer,
    source_fields: &[String],
    maps: &[(String, String)],
    path: &str,
    src_layer: &str,
) -> Result<FieldPlan> {
    plan_fields_with(layer, source_fields, maps, path, src_layer, None)
}

/// [`plan_fields`], with ids made by `id_rule` instead of read from a field: the source
/// then needs no id field, and a field that would have been the id is kept as an extra.
pub fn plan_fields_with(
    layer: Layer,
    source_fields: &[String],
    maps: &[(String, String)],
    path: &str,
    src_layer: &str,
    id_rule: Option<super::idexpr::IdRule>,
) -> Result<FieldPlan> {
    let canon: Vec<&str> = std::iter::once(layer.id_field())
        .chain(layer.fields().iter().map(|f| f.name))
        .collect();
    let find = |name: &str| {
        source_fields
            .iter()
            .position(|s| s.eq_ignore_ascii_case(name))
    };
    let mut chosen: Vec<Option<usize>> = vec![None; canon.len()];
    for (c, s) in maps {
        let ci = canon
            .iter()
            .position(|x| x == c)
            .ok_or_else(|| ImportError::Map {
                arg: format!("{c}={s}"),
                message: format!(
                    "{layer} has no field {c:?}; its fields are: {}",
                    canon.join(", ")
                ),
            })?;
        let si = find(s).ok_or_else(|| ImportError::Map {
            arg: format!("{c}={s}"),
            message: format!(
                "{path} (layer {src_layer}) has no field {s:?}; its fields are: {}",
                source_fields.join(", ")
            ),
        })?;
        chosen[ci] = Some(si);
    }
    for (ci, c) in canon.iter().enumerate() {
        if chosen[ci].is_some() {
            continue;
        }
        let taken = |si: usize, chosen: &[Option<usize>]| chosen.contains(&Some(si));
        let exact = find(c).filter(|si| !taken(*si, &chosen));
        let cut = || {
            (c.len() > 10)
                .then(|| find(&c[..10]))
                .flatten()
                .filter(|si| !taken(*si, &chosen))
        };
        chosen[ci] = exact.or_else(cut);
    }
    if id_rule.is_some() {
        chosen[0] = None;
    }
    let used: Vec<usize> = chosen.iter().flatten().copied().collect();
    let extra = source_fields
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(i))
        .map(|(i, n)| (i, n.clone()))
        .collect();
    let mut described: Vec<(String, String)> = canon
        .iter()
        .zip(&chosen)
        .filter_map(|(c, s)| s.map(|si| (c.to_string(), source_fields[si].clone())))
        .collect();
    if let Some(r) = &id_rule {
        described.push((layer.id_field().to_string(), r.describe()));
        chosen[0] = Some(source_fields.len());
    }
    let plan = FieldPlan {
        id: chosen[0],
        fields: chosen[1..].to_vec(),
        extra,
        described,
        id_rule,
        units: Vec::new(),
    };
    let missing = |field: &str| ImportError::MissingField {
        path: path.into(),
        src_layer: src_layer.into(),
        layer: layer.name().into(),
        field: field.into(),
        available: if source_fields.is_empty() {
            "none (it has no attribute fields)".into()
        } else {
            source_fields.join(", ")
        },
    };
    if plan.id.is_none() && layer.derived_id_from().is_none() {
        return Err(missing(layer.id_field()));
    }
    for (spec, src) in layer.fields().iter().zip(&plan.fields) {
        if spec.required && src.is_none() {
            return Err(missing(spec.name));
        }
    }
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn cut_shapefile_names_are_matched_to_long_canonical_names() {
        let src = names(&["ASSET_ID", "receiving_", "diameter_i", "STATUS"]);
        let plan = plan_fields(Layer::Outfalls, &src, &[], "f.shp", "f").unwrap();
        assert_eq!(plan.id, Some(0));
        let rw = Layer::Outfalls.field_index("receiving_water_id").unwrap();
        assert_eq!(plan.fields[rw], Some(1));
        assert!(plan.extra.is_empty());
    }

    #[test]
    fn explicit_map_wins_and_unknown_names_are_errors() {
        let src = names(&["ALTID", "DISCHRGTYPE"]);
        let maps = vec![("asset_id".to_string(), "altid".to_string())];
        let plan = plan_fields(Layer::Outfalls, &src, &maps, "f", "f").unwrap();
        assert_eq!(plan.id, Some(0));
        assert_eq!(plan.extra, vec![(1, "DISCHRGTYPE".to_string())]);

        let bad = vec![("asset_id".to_string(), "NOPE".to_string())];
        let e = plan_fields(Layer::Outfalls, &src, &bad, "f.geojson", "pts")
            .unwrap_err()
            .to_string();
        assert!(e.contains("NOPE") && e.contains("ALTID"), "{e}");
        let bad = vec![("colour".to_string(), "ALTID".to_string())];
        let e = plan_fields(Layer::Outfalls, &src, &bad, "f", "f")
            .unwrap_err()
            .to_string();
        assert!(e.contains("outfalls has no field \"colour\""), "{e}");
    }

    #[test]
    fn missing_id_names_the_field_and_the_fix() {
        let e = plan_fields(
            Layer::Parcels,
            &names(&["ML", "land_use"]),
            &[],
            "p.shp",
            "p",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("parcels.parcel_id") && e.contains("--map parcel_id="),
            "{e}"
        );
    }

    #[test]
    fn map_argument_must_have_both_sides() {
        assert!(parse_map("asset_id=").is_err());
        let m = parse_map("asset_id = ALTID").unwrap();
        assert_eq!(
            (m.canonical.as_str(), m.source.as_str()),
            ("asset_id", "ALTID")
        );
        assert_eq!(m.unit, None);
        let m = parse_map("diameter_in=SPAN:ft").unwrap();
        assert_eq!(m.source, "SPAN");
        assert_eq!(m.unit.map(|u| u.symbol), Some("ft"));
        let e = parse_map("diameter_in=SPAN:yd").unwrap_err().to_string();
        assert_eq!(
            e,
            "--map diameter_in=SPAN:yd: \"yd\" is not a unit ms4 converts; give one of in, ft, ftUS, m, cm, mm"
        );
    }
}
