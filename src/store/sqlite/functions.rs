//! The SQL functions of the GeoPackage standard's triggers, registered on every ms4
//! connection.
//!
//! The GeoPackage R-tree extension (`gpkg_rtree_index`, added by ms4 itself, by QGIS or by
//! `SELECT CreateSpatialIndex(...)`) keeps its index with triggers that call `ST_IsEmpty`,
//! `ST_MinX`, `ST_MaxX`, `ST_MinY` and `ST_MaxY`. GDAL and QGIS register those functions on
//! their own connections; plain SQLite has none of them, so without these every write to
//! an indexed layer fails to prepare ("no such function: ST_IsEmpty"). `ST_GeometryType`
//! and `ST_SRID` come along for the geometry-type and SRS trigger extensions.
//!
//! Each function reads the GeoPackage binary header; the envelope, when the header has
//! one, answers the extent functions without decoding the WKB. A blob that is not a
//! GeoPackage geometry gives NULL, as GDAL's functions do, so one bad row written by
//! another program cannot make a write fail.

use std::ffi::{c_int, CStr};

use libsqlite3_sys as ffi;

use crate::domain::wkb;

/// What a function computes from a geometry blob.
#[derive(Clone, Copy)]
enum Op {
    IsEmpty,
    MinX,
    MaxX,
    MinY,
    MaxY,
    GeometryType,
    Srid,
}

const FUNCTIONS: [(&CStr, Op); 7] = [
    (c"ST_IsEmpty", Op::IsEmpty),
    (c"ST_MinX", Op::MinX),
    (c"ST_MaxX", Op::MaxX),
    (c"ST_MinY", Op::MinY),
    (c"ST_MaxY", Op::MaxY),
    (c"ST_GeometryType", Op::GeometryType),
    (c"ST_SRID", Op::Srid),
];

/// Registers the functions on one connection; the error names the function SQLite refused.
///
/// # Safety
/// `db` must be a valid, open connection that no other thread uses during the call.
pub(crate) unsafe fn register(db: *mut ffi::sqlite3) -> Result<(), String> {
    for (name, op) in FUNCTIONS {
        // The operation travels as the user-data pointer: a small integer, never freed.
        let rc = ffi::sqlite3_create_function_v2(
            db,
            name.as_ptr(),
            1,
            ffi::SQLITE_UTF8 | ffi::SQLITE_DETERMINISTIC,
            op as usize as *mut std::ffi::c_void,
            Some(call),
            None,
            None,
            None,
        );
        if rc != ffi::SQLITE_OK {
            return Err(format!(
                "registering {} failed with SQLite code {rc}",
                name.to_string_lossy()
            ));
        }
    }
    Ok(())
}

fn op_of(n: usize) -> Op {
    match n {
        0 => Op::IsEmpty,
        1 => Op::MinX,
        2 => Op::MaxX,
        3 => Op::MinY,
        4 => Op::MaxY,
        5 => Op::GeometryType,
        _ => Op::Srid,
    }
}

unsafe extern "C" fn call(
    ctx: *mut ffi::sqlite3_context,
    n: c_int,
    args: *mut *mut ffi::sqlite3_value,
) {
    if n != 1 {
        ffi::sqlite3_result_null(ctx);
        return;
    }
    let op = op_of(ffi::sqlite3_user_data(ctx) as usize);
    let v = *args;
    if ffi::sqlite3_value_type(v) != ffi::SQLITE_BLOB {
        ffi::sqlite3_result_null(ctx);
        return;
    }
    let len = ffi::sqlite3_value_bytes(v);
    let ptr = ffi::sqlite3_value_blob(v) as *const u8;
    if ptr.is_null() || len <= 0 {
        ffi::sqlite3_result_null(ctx);
        return;
    }
    let blob = std::slice::from_raw_parts(ptr, len as usize);
    match evaluate(op, blob) {
        Answer::Null => ffi::sqlite3_result_null(ctx),
        Answer::Int(i) => ffi::sqlite3_result_int64(ctx, i),
        Answer::Real(r) => ffi::sqlite3_result_double(ctx, r),
        Answer::Text(t) => ffi::sqlite3_result_text(
            ctx,
            t.as_ptr().cast(),
            t.len() as c_int,
            ffi::SQLITE_STATIC(),
        ),
    }
}

#[derive(Debug, PartialEq)]
enum Answer {
    Null,
    Int(i64),
    Real(f64),
    Text(&'static str),
}

/// A GeoPackage blob's header: flags, SRS id and envelope `[minx, maxx, miny, maxy]`.
struct Header {
    empty: bool,
    srs: i32,
    envelope: Option<[f64; 4]>,
}

fn header(b: &[u8]) -> Option<Header> {
    if b.len() < 8 || &b[0..2] != b"GP" {
        return None;
    }
    let flags = b[3];
    let le = flags & 1 == 1;
    let i32_at = |s: &[u8]| {
        let a: [u8; 4] = s.try_into().ok()?;
        Some(if le {
            i32::from_le_bytes(a)
        } else {
            i32::from_be_bytes(a)
        })
    };
    let f64_at = |s: &[u8]| {
        let a: [u8; 8] = s.try_into().ok()?;
        Some(if le {
            f64::from_le_bytes(a)
        } else {
            f64::from_be_bytes(a)
        })
    };
    let envelope = match (flags >> 1) & 0b111 {
        0 => None,
        1..=4 => {
            let e = b.get(8..40)?;
            Some([
                f64_at(&e[0..8])?,
                f64_at(&e[8..16])?,
                f64_at(&e[16..24])?,
                f64_at(&e[24..32])?,
            ])
        }
        _ => return None,
    };
    Some(Header {
        empty: flags & (1 << 4) != 0,
        srs: i32_at(&b[4..8])?,
        envelope,
    })
}

fn evaluate(op: Op, blob: &[u8]) -> Answer {
    let Some(h) = header(blob) else {
        return Answer::Null;
    };
    match op {
        Op::Srid => return Answer::Int(h.srs.into()),
        Op::IsEmpty if h.empty => return Answer::Int(1),
        _ => {}
    }
    let extent = |h: &Header| -> Option<[f64; 4]> {
        if let Some(e) = h.envelope {
            return Some(e);
        }
        let (g, _) = wkb::read_gpkg(blob).ok()?;
        let r = wkb::bounding_rect(&g)?;
        Some([r.min().x, r.max().x, r.min().y, r.max().y])
    };
    match op {
        Op::IsEmpty => match wkb::read_gpkg(blob) {
            Ok((g, _)) => Answer::Int(wkb::is_empty(&g).into()),
            Err(_) => Answer::Null,
        },
        Op::GeometryType => match wkb::read_gpkg(blob) {
            Ok((g, _)) => Answer::Text(type_name(&g)),
            Err(_) => Answer::Null,
        },
        Op::MinX | Op::MaxX | Op::MinY | Op::MaxY => {
            if h.empty {
                return Answer::Null;
            }
            let Some(e) = extent(&h) else {
                return Answer::Null;
            };
            Answer::Real(match op {
                Op::MinX => e[0],
                Op::MaxX => e[1],
                Op::MinY => e[2],
                _ => e[3],
            })
        }
        Op::Srid => unreachable!("answered above"),
    }
}

fn type_name(g: &geo_types::Geometry<f64>) -> &'static str {
    use geo_types::Geometry::*;
    match g {
        Point(_) => "POINT",
        LineString(_) | Line(_) => "LINESTRING",
        Polygon(_) | Rect(_) | Triangle(_) => "POLYGON",
        MultiPoint(_) => "MULTIPOINT",
        MultiLineString(_) => "MULTILINESTRING",
        MultiPolygon(_) => "MULTIPOLYGON",
        GeometryCollection(_) => "GEOMETRYCOLLECTION",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::{wkt, Geometry};

    #[test]
    fn extent_functions_read_points_polygons_and_refuse_junk() {
        let p = wkb::to_gpkg(&Geometry::from(wkt!(POINT(3. 4.))), 2260);
        assert_eq!(evaluate(Op::MinX, &p), Answer::Real(3.0));
        assert_eq!(evaluate(Op::MaxY, &p), Answer::Real(4.0));
        assert_eq!(evaluate(Op::IsEmpty, &p), Answer::Int(0));
        assert_eq!(evaluate(Op::Srid, &p), Answer::Int(2260));
        assert_eq!(evaluate(Op::GeometryType, &p), Answer::Text("POINT"));
        let poly = wkb::to_gpkg(
            &Geometry::from(wkt!(POLYGON((0. 0.,10. 0.,10. 5.,0. 0.)))),
            2260,
        );
        assert_eq!(evaluate(Op::MaxX, &poly), Answer::Real(10.0));
        assert_eq!(evaluate(Op::MinY, &poly), Answer::Real(0.0));
        assert_eq!(evaluate(Op::MaxY, &poly), Answer::Real(5.0));
        let empty = wkb::to_gpkg(
            &Geometry::from(geo_types::MultiPolygon::<f64>(vec![])),
            2260,
        );
        assert_eq!(evaluate(Op::IsEmpty, &empty), Answer::Int(1));
        assert_eq!(evaluate(Op::MinX, &empty), Answer::Null);
        assert_eq!(evaluate(Op::MinX, b"not a geometry"), Answer::Null);
        assert_eq!(
            evaluate(Op::IsEmpty, b"GP\0\x01\0\0\0\0\x01\x01"),
            Answer::Null
        );
    }
}
