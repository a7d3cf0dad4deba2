//! Turning one GDAL feature into a registry feature, or a reason it cannot be one.

use gdal::cpl::CslStringList;
use gdal::spatial_ref::CoordTransform;
use gdal::vector::{FieldValue, Geometry as OgrGeometry};
use geo::Validation;
use geo_types::{Geometry, LineString, MultiLineString, MultiPolygon, Polygon};

use super::source::FieldPlan;
use crate::domain::{wkb, Feature, GeomKind, Layer, Value};
use crate::spatial::size::{self, Size};
use crate::store::timing;

/// What to do with an invalid polygon.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    clap::ValueEnum,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum InvalidPolicy {
    /// Repair it with GEOS's MakeValid (structure method) and note what was wrong.
    #[default]
    Repair,
    /// Reject the feature.
    Reject,
}

/// The longest value (in bytes of UTF-8) a field may hold: a page of notes is a few KiB,
/// and one 150 MB value would be copied into every answer, audit row and export.
pub const MAX_VALUE_BYTES: usize = 64 * 1024;

/// A problem that keeps a feature out.
#[derive(Debug, Clone, PartialEq)]
pub enum Problem {
    /// No geometry where the layer needs one.
    MissingGeometry,
    /// An empty geometry.
    EmptyGeometry,
    /// A geometry type the layer cannot hold.
    WrongType(String),
    /// An invalid geometry that could not (or may not) be repaired.
    Invalid(String),
    /// The coordinates could not be transformed.
    Transform(String),
    /// No id.
    MissingId,
    /// A required field without a value.
    MissingRequired(&'static str),
    /// A value its field cannot hold.
    BadValue(&'static str, String),
    /// A value longer than any field may hold.
    TooLong {
        /// The field (canonical or kept as an extra).
        field: String,
        /// Its length in bytes.
        bytes: usize,
    },
    /// Coordinates that cannot belong to the registry's place (why, in words).
    OutsideArea(String),
    /// Text a record may not hold: a control character (a NUL ends an id in SQLite's C
    /// API, an escape rewrites a terminal), or in an id a line break or a bidirectional
    /// override ([`crate::domain::text`]).
    BadText {
        /// The field (canonical or kept as an extra).
        field: String,
        /// Why, in words.
        why: String,
    },
}

impl Problem {
    /// The field concerned.
    pub fn field(&self) -> Option<&str> {
        match self {
            Problem::MissingRequired(f) | Problem::BadValue(f, _) => Some(f),
            Problem::TooLong { field, .. } | Problem::BadText { field, .. } => Some(field),
            Problem::OutsideArea(_) => Some("geometry"),
            _ => None,
        }
    }

    /// The reason in words.
    pub fn reason(&self) -> String {
        match self {
            Problem::MissingGeometry => "no geometry".into(),
            Problem::EmptyGeometry => "empty geometry".into(),
            Problem::WrongType(t) => t.clone(),
            Problem::Invalid(r) => format!("invalid geometry: {r}"),
            Problem::Transform(r) => format!("cannot transform into the registry's CRS: {r}"),
            Problem::MissingId => "no id".into(),
            Problem::MissingRequired(f) => format!("required field {f} has no value"),
            Problem::BadValue(_, r) => r.clone(),
            Problem::TooLong { field, bytes } => format!(
                "field {field}: the value is {bytes} bytes long, more than the {MAX_VALUE_BYTES} bytes a value may hold"
            ),
            Problem::OutsideArea(why) => format!("geometry {why}"),
            Problem::BadText { field, why } => format!("field {field}: the value {why}"),
        }
    }
}

/// Reads a source value as a registry value (no type conversion yet).
pub fn raw_value(v: Option<FieldValue>) -> Value {
    match v {
        None => Value::Null,
        Some(FieldValue::IntegerValue(i)) => Value::Int(i as i64),
        Some(FieldValue::Integer64Value(i)) => Value::Int(i),
        Some(FieldValue::RealValue(r)) => Value::Real(r),
        Some(FieldValue::StringValue(s)) => Value::Text(s),
        Some(FieldValue::DateValue(d)) => Value::Date(d),
        Some(FieldValue::DateTimeValue(d)) => Value::Date(d.date_naive()),
        Some(FieldValue::IntegerListValue(l)) => Value::Text(format!("{l:?}")),
        Some(FieldValue::Integer64ListValue(l)) => Value::Text(format!("{l:?}")),
        Some(FieldValue::RealListValue(l)) => Value::Text(format!("{l:?}")),
        Some(FieldValue::StringListValue(l)) => Value::Text(l.join(";")),
    }
}

/// A source value's text: at most [`MAX_VALUE_BYTES`]; an id a printable line (no control
/// character, no bidirectional override), any other value free of control characters
/// but line breaks and tabs (a note may run over lines).
fn check_text(field: &str, t: &str, id: bool) -> Result<(), Problem> {
    if t.len() > MAX_VALUE_BYTES {
        return Err(Problem::TooLong {
            field: field.to_string(),
            bytes: t.len(),
        });
    }
    let why = if id {
        crate::domain::text::line_problem(t)
    } else {
        crate::domain::text::note_problem(t)
    };
    match why {
        Some(why) => Err(Problem::BadText {
            field: field.to_string(),
            why,
        }),
        None => Ok(()),
    }
}

/// Converts attributes: the id, canonical values (coerced to their types) and extras.
/// `raw` holds the source feature's values by source field index.
pub fn convert_attributes(
    layer: Layer,
    plan: &FieldPlan,
    raw: &mut [Value],
) -> Result<(Feature, Vec<&'static str>), Problem> {
    for (spec, src) in layer.fields().iter().zip(&plan.fields) {
        if let Some(Value::Text(t)) = src.map(|i| &raw[i]) {
            check_text(spec.name, t, false)?;
        }
    }
    for (i, name) in &plan.extra {
        if let Value::Text(t) = &raw[*i] {
            check_text(name, t, false)?;
        }
    }
    if let Some(Value::Text(t)) = plan.id.map(|i| &raw[i]) {
        check_text(layer.id_field(), t, true)?;
    }
    let mut converted = Vec::new();
    let mut values = Vec::with_capacity(layer.fields().len());
    for (k, (spec, src)) in layer.fields().iter().zip(&plan.fields).enumerate() {
        let v = src
            .map(|i| std::mem::replace(&mut raw[i], Value::Null))
            .unwrap_or(Value::Null);
        let unit = plan.units.get(k).copied().flatten();
        let (v, changed) = match (iso_date(spec.ty, v).coerce(spec.ty), unit) {
            (Ok((v, changed)), None) => (v, changed),
            (Ok((v, changed)), Some(u)) => (
                u.apply(spec.name, v)
                    .map_err(|why| Problem::BadValue(spec.name, why))?,
                changed,
            ),
            // A value that is no number, in a field whose mapping gave a unit: say what
            // could not be converted.
            (Err(why), Some(u)) => {
                return Err(Problem::BadValue(
                    spec.name,
                    format!(
                        "field {}: {why}, so it cannot be converted from {} to {}",
                        spec.name, u.from, u.to
                    ),
                ))
            }
            (Err(why), None) => {
                return Err(Problem::BadValue(
                    spec.name,
                    format!("field {}: {why}", spec.name),
                ))
            }
        };
        if spec.required && v.is_null() {
            return Err(Problem::MissingRequired(spec.name));
        }
        if changed && !v.is_null() {
            converted.push(spec.name);
        }
        values.push(v);
    }
    let id = match plan.id {
        Some(i) => match std::mem::replace(&mut raw[i], Value::Null)
            .coerce(crate::domain::FieldType::Text)
        {
            Ok((Value::Text(s), _)) if !s.trim().is_empty() => s.trim().to_string(),
            _ => return Err(Problem::MissingId),
        },
        None => {
            // Tables such as impairments have no natural id: derive a stable one.
            let parts: Vec<String> = layer
                .derived_id_from()
                .unwrap_or(&[])
                .iter()
                .map(|f| {
                    layer
                        .field_index(f)
                        .map(|i| values[i].to_string())
                        .unwrap_or_default()
                })
                .collect();
            parts.join(":")
        }
    };
    let mut extra = serde_json::Map::new();
    for (i, name) in &plan.extra {
        let v = std::mem::replace(&mut raw[*i], Value::Null);
        if !v.is_null() {
            extra.insert(name.clone(), v.to_json());
        }
    }
    Ok((
        Feature {
            id,
            values,
            extra,
            geom: None,
        },
        converted,
    ))
}

/// A date field's text in ISO form (YYYY-MM-DD, as ms4 and GDAL write a date in a
/// text format) as the date it spells, so it is read, not converted; any other value
/// as it is.
fn iso_date(ty: crate::domain::FieldType, v: Value) -> Value {
    if let Value::Text(t) = &v {
        if ty == crate::domain::FieldType::Date && t.len() == 10 {
            if let Ok(d) = chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d") {
                return Value::Date(d);
            }
        }
    }
    v
}

/// Transforms, decodes, checks and (by policy) repairs a source geometry.
pub fn convert_geometry(
    layer: Layer,
    ogr: Option<&OgrGeometry>,
    ct: Option<&CoordTransform>,
    invalid: InvalidPolicy,
) -> Result<(Option<Geometry<f64>>, Option<String>), Problem> {
    let kind = layer.geom_kind();
    let ogr = match ogr {
        None if layer.geometry_optional() => return Ok((None, None)),
        None => return Err(Problem::MissingGeometry),
        Some(g) if kind == GeomKind::None => {
            let _ = g;
            return Ok((None, None));
        }
        Some(g) => g,
    };
    if ogr.is_empty() {
        return if layer.geometry_optional() {
            Ok((None, None))
        } else {
            Err(Problem::EmptyGeometry)
        };
    }
    let t = timing::start();
    let transformed;
    let ogr = match ct {
        Some(ct) => {
            transformed = ogr
                .transform(ct)
                .map_err(|_| {
                    Problem::Transform(
                        "PROJ found no position for it (coordinates outside what the source CRS can describe?)".into(),
                    )
                })?;
            &transformed
        }
        None => ogr,
    };
    timing::add(&timing::REPROJECT, t);
    let t = timing::start();
    let bytes = ogr.wkb().map_err(|_| malformed())?;
    let geom = match wkb::read_wkb(&bytes) {
        Ok((g, _)) => g,
        // Curves and other types the WKB reader does not take: let GDAL linearise them.
        Err(wkb::WkbError::Type(_)) => {
            let lin = linearise(ogr)?;
            wkb::read_wkb(&lin)
                .map_err(|e| Problem::Invalid(e.to_string()))?
                .0
        }
        Err(e) => return Err(Problem::Invalid(e.to_string())),
    };
    if !coords_finite(&geom) {
        return Err(Problem::Transform("a coordinate is not finite".into()));
    }
    let geom = fit_kind(kind, geom)?;
    timing::add(&timing::DECODE, t);
    let t = timing::start();
    // GEOS (through OGR) is the reference GIS tools agree on, and also catches rings
    // that touch themselves at a point; geo then names what is wrong.
    // Most parcels are plainly valid (`simple`), which spares them the copy into GEOS.
    let invalidity = (is_areal(&geom) && !super::simple::plainly_valid(&geom) && !ogr.is_valid())
        .then(|| {
            first_invalidity(&geom).unwrap_or_else(|| {
                "ring self-intersection (a ring touches itself; found by GEOS)".to_string()
            })
        });
    timing::add(&timing::VALIDATE, t);
    match invalidity {
        None => Ok((Some(geom), None)),
        Some(why) if invalid == InvalidPolicy::Reject => Err(Problem::Invalid(why)),
        Some(why) => {
            // GEOS's MakeValid grows much faster than linearly with overlapping parts
            // (5,000 overlapping squares: 110 s and 1.4 GB): past these sizes, say so
            // and leave the repair to a GIS, where someone can see what it does.
            let size = Size::of(&geom);
            if size.over(size::REPAIR) {
                return Err(Problem::Invalid(format!(
                    "{why}; too large to repair automatically ({}): repair it in a GIS first",
                    size.against(size::REPAIR)
                )));
            }
            let fixed = ogr
                .make_valid(&CslStringList::new())
                .map_err(|_| Problem::Invalid(format!("{why}; GEOS could not repair it")))?;
            let bytes = fixed.wkb().map_err(|_| malformed())?;
            let g = wkb::read_wkb(&bytes)
                .map_err(|e| Problem::Invalid(e.to_string()))?
                .0;
            let g = fit_kind(kind, keep_dimension(kind, g)).map_err(|_| {
                Problem::Invalid(format!("{why}; the repair left no {}", kind.ogc_name()))
            })?;
            match first_invalidity(&g) {
                None if fixed.is_valid() => Ok((Some(g), Some(why))),
                None => Err(Problem::Invalid(format!(
                    "{why}; still invalid after repair"
                ))),
                Some(still) => Err(Problem::Invalid(format!(
                    "{why}; still invalid after repair: {still}"
                ))),
            }
        }
    }
}

/// A geometry GDAL cannot write as WKB: an empty ring or part, a ring of too few points.
fn malformed() -> Problem {
    Problem::Invalid(
        "the geometry is malformed (an empty ring or part, or a ring of fewer than 4 points)"
            .into(),
    )
}

fn linearise(g: &OgrGeometry) -> Result<Vec<u8>, Problem> {
    // SAFETY: OGR_G_GetLinearGeometry returns a new geometry we own and destroy here.
    unsafe {
        let h = gdal_sys::OGR_G_GetLinearGeometry(g.c_geometry(), 0.0, std::ptr::null_mut());
        if h.is_null() {
            return Err(Problem::WrongType(
                "a curve that GDAL cannot linearise".into(),
            ));
        }
        let n = gdal_sys::OGR_G_WkbSize(h) as usize;
        let mut buf = vec![0u8; n];
        let rv =
            gdal_sys::OGR_G_ExportToIsoWkb(h, gdal_sys::OGRwkbByteOrder::wkbNDR, buf.as_mut_ptr());
        gdal_sys::OGR_G_DestroyGeometry(h);
        if rv != gdal_sys::OGRErr::OGRERR_NONE {
            return Err(Problem::WrongType(
                "a curve that GDAL cannot linearise".into(),
            ));
        }
        Ok(buf)
    }
}

fn coords_finite(g: &Geometry<f64>) -> bool {
    use geo::CoordsIter;
    g.coords_iter().all(|c| c.x.is_finite() && c.y.is_finite())
}

/// The reason a geometry is invalid, if it is. Only areal geometries are checked: the
/// registry's lines and points are valid whenever their coordinates are finite.
fn first_invalidity(g: &Geometry<f64>) -> Option<String> {
    match g {
        Geometry::Polygon(p) => p.check_validation().err().map(|e| e.to_string()),
        Geometry::MultiPolygon(m) => m.check_validation().err().map(|e| e.to_string()),
        _ => None,
    }
}

fn is_areal(g: &Geometry<f64>) -> bool {
    matches!(g, Geometry::Polygon(_) | Geometry::MultiPolygon(_))
}

/// After MakeValid, keep only the parts of the layer's dimension (a repaired bow-tie may
/// come back as a collection with a stray line).
fn keep_dimension(kind: GeomKind, g: Geometry<f64>) -> Geometry<f64> {
    match (kind, g) {
        (GeomKind::Polygon | GeomKind::Any, Geometry::GeometryCollection(gc)) => {
            let polys: Vec<Polygon<f64>> =
                gc.0.into_iter()
                    .flat_map(|g| match g {
                        Geometry::Polygon(p) => vec![p],
                        Geometry::MultiPolygon(m) => m.0,
                        _ => vec![],
                    })
                    .collect();
            Geometry::MultiPolygon(MultiPolygon(polys))
        }
        (_, g) => g,
    }
}

/// Makes a geometry fit the layer: single parts are promoted to multi for line and polygon
/// layers, a one-point MultiPoint becomes a Point; anything else of the wrong dimension
/// is refused with a reason.
fn fit_kind(kind: GeomKind, g: Geometry<f64>) -> Result<Geometry<f64>, Problem> {
    let name = geometry_name(&g);
    let wrong = || {
        Problem::WrongType(format!(
            "geometry is {name}; the layer holds {}",
            kind.ogc_name().to_lowercase()
        ))
    };
    match (kind, g) {
        (GeomKind::Any, g) => Ok(g),
        (GeomKind::Point, g @ Geometry::Point(_)) => Ok(g),
        (GeomKind::Point, Geometry::MultiPoint(mp)) if mp.0.len() == 1 => {
            Ok(Geometry::Point(mp.0[0]))
        }
        (GeomKind::Line, Geometry::LineString(l)) => {
            Ok(Geometry::MultiLineString(MultiLineString(vec![l])))
        }
        (GeomKind::Line, g @ Geometry::MultiLineString(_)) => Ok(g),
        (GeomKind::Line, Geometry::GeometryCollection(gc)) => {
            let mut lines: Vec<LineString<f64>> = Vec::new();
            for g in gc.0 {
                match g {
                    Geometry::LineString(l) => lines.push(l),
                    Geometry::MultiLineString(m) => lines.extend(m.0),
                    _ => return Err(wrong()),
                }
            }
            Ok(Geometry::MultiLineString(MultiLineString(lines)))
        }
        (GeomKind::Polygon, Geometry::Polygon(p)) => {
            Ok(Geometry::MultiPolygon(MultiPolygon(vec![p])))
        }
        (GeomKind::Polygon, g @ Geometry::MultiPolygon(_)) => Ok(g),
        (GeomKind::Polygon, Geometry::GeometryCollection(gc)) => {
            let mut polys = Vec::new();
            for g in gc.0 {
                match g {
                    Geometry::Polygon(p) => polys.push(p),
                    Geometry::MultiPolygon(m) => polys.extend(m.0),
                    _ => return Err(wrong()),
                }
            }
            Ok(Geometry::MultiPolygon(MultiPolygon(polys)))
        }
        _ => Err(wrong()),
    }
}

/// The OGC name of a geometry's type.
pub fn geometry_name(g: &Geometry<f64>) -> &'static str {
    match g {
        Geometry::Point(_) => "Point",
        Geometry::LineString(_) | Geometry::Line(_) => "LineString",
        Geometry::Polygon(_) | Geometry::Rect(_) | Geometry::Triangle(_) => "Polygon",
        Geometry::MultiPoint(_) => "MultiPoint",
        Geometry::MultiLineString(_) => "MultiLineString",
        Geometry::MultiPolygon(_) => "MultiPolygon",
        Geometry::GeometryCollection(_) => "GeometryCollection",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ogr(wkt: &str) -> OgrGeometry {
        OgrGeometry::from_wkt(wkt).unwrap()
    }

    #[test]
    fn bow_tie_parcel_is_repaired_or_rejected_by_policy() {
        let bow = ogr("POLYGON((0 0,10 10,10 0,0 10,0 0))");
        let (g, why) =
            convert_geometry(Layer::Parcels, Some(&bow), None, InvalidPolicy::Repair).unwrap();
        assert!(why.unwrap().contains("self-intersection"));
        match g.unwrap() {
            Geometry::MultiPolygon(m) => assert_eq!(m.0.len(), 2),
            other => panic!("{other:?}"),
        }
        let e =
            convert_geometry(Layer::Parcels, Some(&bow), None, InvalidPolicy::Reject).unwrap_err();
        assert!(matches!(e, Problem::Invalid(_)));
    }

    #[test]
    fn points_layer_refuses_a_polygon_and_takes_a_single_multipoint() {
        let e = convert_geometry(
            Layer::Outfalls,
            Some(&ogr("POLYGON((0 0,1 0,1 1,0 0))")),
            None,
            InvalidPolicy::Repair,
        )
        .unwrap_err();
        assert_eq!(e.reason(), "geometry is Polygon; the layer holds point");
        let (g, _) = convert_geometry(
            Layer::Outfalls,
            Some(&ogr("MULTIPOINT((3 4))")),
            None,
            InvalidPolicy::Repair,
        )
        .unwrap();
        assert_eq!(g, Some(Geometry::Point((3.0, 4.0).into())));
    }

    #[test]
    fn empty_and_missing_geometries_are_problems_unless_optional() {
        let empty = ogr("POINT EMPTY");
        assert_eq!(
            convert_geometry(Layer::Manholes, Some(&empty), None, InvalidPolicy::Repair)
                .unwrap_err(),
            Problem::EmptyGeometry
        );
        assert_eq!(
            convert_geometry(Layer::Manholes, None, None, InvalidPolicy::Repair).unwrap_err(),
            Problem::MissingGeometry
        );
        assert_eq!(
            convert_geometry(Layer::ConnectionRecords, None, None, InvalidPolicy::Repair).unwrap(),
            (None, None)
        );
    }

    #[test]
    fn curves_are_linearised() {
        let arc = ogr("CIRCULARSTRING(0 0,1 1,2 0)");
        let (g, _) =
            convert_geometry(Layer::Pipes, Some(&arc), None, InvalidPolicy::Repair).unwrap();
        match g.unwrap() {
            Geometry::MultiLineString(m) => assert!(m.0[0].0.len() > 3),
            other => panic!("{other:?}"),
        }
    }
}
