//! Reading a layer row into a feature: the same for both stores, apart from how the
//! geometry blob is framed (GeoPackage binary or EWKB).

use geo_types::Geometry;

use super::{LayerRows, Result, StoreError, UnreadableRow};
use crate::domain::wkb::WkbError;
use crate::domain::{Feature, FieldType, Layer, Value};

/// Reads every row; a row that cannot be read (a geometry or value another program
/// wrote) is set aside with its reason instead of failing the layer.
pub(crate) fn decode_rows<'r, R>(
    layer: Layer,
    rows: &'r [R],
    read_geom: fn(&[u8]) -> std::result::Result<Geometry<f64>, WkbError>,
) -> LayerRows
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    f64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Vec<u8>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let mut out = LayerRows {
        features: Vec::with_capacity(rows.len()),
        unreadable: Vec::new(),
    };
    for row in rows {
        match decode_feature(layer, row, read_geom) {
            Ok(f) => out.features.push(f),
            Err(e) => out.unreadable.push(UnreadableRow {
                layer,
                id: row.try_get::<String, _>(1).ok(),
                reason: e.to_string(),
            }),
        }
    }
    out
}

/// Reads a row selected as (geometry blob, id, canonical fields..., extra as text).
pub(crate) fn decode_feature<'r, R>(
    layer: Layer,
    row: &'r R,
    read_geom: fn(&[u8]) -> std::result::Result<Geometry<f64>, WkbError>,
) -> Result<Feature>
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    f64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    Vec<u8>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let id: String = row.try_get(1)?;
    let geom = match row.try_get::<Option<Vec<u8>>, _>(0)? {
        Some(blob) => Some(read_geom(&blob).map_err(|source| StoreError::Geometry {
            layer,
            id: id.clone(),
            source,
        })?),
        None => None,
    };
    let mut values = Vec::with_capacity(layer.fields().len());
    for (i, spec) in layer.fields().iter().enumerate() {
        let col = i + 2;
        let v = match spec.ty {
            FieldType::Text => row.try_get::<Option<String>, _>(col)?.map(Value::Text),
            FieldType::Integer => row.try_get::<Option<i64>, _>(col)?.map(Value::Int),
            FieldType::Real | FieldType::Length(_) | FieldType::Elevation => {
                row.try_get::<Option<f64>, _>(col)?.map(Value::Real)
            }
            FieldType::Bool => row.try_get::<Option<bool>, _>(col)?.map(Value::Bool),
            // Dates travel as text (`YYYY-MM-DD`): a GIS user may have typed anything
            // into a GeoPackage, so a bad one is an error that names the field.
            FieldType::Date => match row.try_get::<Option<String>, _>(col)? {
                Some(s) => Some(Value::Date(
                    crate::domain::feature::parse_date(&s).ok_or_else(|| StoreError::Value {
                        layer,
                        id: id.clone(),
                        field: spec.name.into(),
                        message: format!("{s:?} is not a date"),
                    })?,
                )),
                None => None,
            },
        };
        values.push(v.unwrap_or(Value::Null));
    }
    let extra = match row.try_get::<Option<String>, _>(layer.fields().len() + 2)? {
        Some(s) if !s.is_empty() => serde_json::from_str(&s).map_err(|e| StoreError::Value {
            layer,
            id: id.clone(),
            field: "extra".into(),
            message: e.to_string(),
        })?,
        _ => serde_json::Map::new(),
    };
    Ok(Feature {
        id,
        values,
        extra,
        geom,
    })
}

/// The columns a feature's row is written with, in the order both stores write them
/// (COPY's rows on PostGIS, the INSERT's values in a GeoPackage).
pub(crate) fn write_columns(layer: Layer) -> Vec<&'static str> {
    let mut cols = Vec::new();
    if layer.geom_kind() != crate::domain::GeomKind::None {
        cols.push("geom");
    }
    cols.push(layer.id_field());
    cols.extend(layer.fields().iter().map(|f| f.name));
    cols.push("extra");
    cols.push("import_id");
    cols.push(super::hash::COLUMN);
    cols.push(super::hash::SOURCE_COLUMN);
    cols
}
