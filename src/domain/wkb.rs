//! Well-known binary for `geo_types`, with the GeoPackage and PostGIS (EWKB) framings.
//!
//! Both stores and the importer speak WKB. Writing it here instead of going through a
//! geometry library's trait machinery keeps the hot path of a million-feature import to
//! one pass over the coordinates, and decoding returns an error value for anything
//! malformed instead of panicking. Z and M ordinates are read and dropped: the registry is
//! planar.

use geo_types::{
    Coord, Geometry, GeometryCollection, LineString, MultiLineString, MultiPoint, MultiPolygon,
    Point, Polygon, Rect,
};

/// Why a WKB blob could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WkbError {
    /// The blob ended before the geometry did.
    #[error("WKB ends early at byte {0}")]
    Truncated(usize),
    /// The byte-order marker was neither 0 nor 1.
    #[error("WKB byte order {0} is neither 0 nor 1")]
    ByteOrder(u8),
    /// A geometry type code this reader does not handle (curves, TINs...).
    #[error("unsupported WKB geometry type {0}")]
    Type(u32),
    /// A GeoPackage blob without the `GP` magic.
    #[error("not a GeoPackage geometry blob (no GP magic)")]
    GpkgMagic,
    /// A GeoPackage blob with a reserved envelope indicator.
    #[error("GeoPackage envelope indicator {0} is not valid")]
    GpkgEnvelope(u8),
    /// A line or ring vertex that is NaN or infinite (an empty point's NaN, NaN is fine).
    #[error("a line or ring has a vertex that is not a finite number (byte {0})")]
    NonFinite(usize),
}

type Result<T> = std::result::Result<T, WkbError>;

// ---------------------------------------------------------------- writing

/// Writes `geom` as little-endian 2-D WKB.
pub fn write_wkb(geom: &Geometry<f64>, out: &mut Vec<u8>) {
    match geom {
        Geometry::Point(p) => {
            header(out, 1);
            coord(out, p.0);
        }
        Geometry::LineString(l) => {
            header(out, 2);
            coords(out, &l.0);
        }
        Geometry::Polygon(p) => {
            header(out, 3);
            polygon_body(out, p);
        }
        Geometry::MultiPoint(mp) => {
            header(out, 4);
            u32le(out, mp.0.len() as u32);
            for p in &mp.0 {
                header(out, 1);
                coord(out, p.0);
            }
        }
        Geometry::MultiLineString(ml) => {
            header(out, 5);
            u32le(out, ml.0.len() as u32);
            for l in &ml.0 {
                header(out, 2);
                coords(out, &l.0);
            }
        }
        Geometry::MultiPolygon(mp) => {
            header(out, 6);
            u32le(out, mp.0.len() as u32);
            for p in &mp.0 {
                header(out, 3);
                polygon_body(out, p);
            }
        }
        Geometry::GeometryCollection(gc) => {
            header(out, 7);
            u32le(out, gc.0.len() as u32);
            for g in &gc.0 {
                write_wkb(g, out);
            }
        }
        Geometry::Line(l) => {
            write_wkb(&Geometry::LineString(LineString(vec![l.start, l.end])), out);
        }
        Geometry::Rect(r) => write_wkb(&Geometry::Polygon(r.to_polygon()), out),
        Geometry::Triangle(t) => write_wkb(&Geometry::Polygon(t.to_polygon()), out),
    }
}

/// `geom` as WKB in a new buffer.
pub fn to_wkb(geom: &Geometry<f64>) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    write_wkb(geom, &mut out);
    out
}

/// `geom` as PostGIS EWKB carrying `srid`.
pub fn to_ewkb(geom: &Geometry<f64>, srid: i32) -> Vec<u8> {
    let mut out = to_wkb(geom);
    // EWKB: the SRID flag on the outer type word, then the SRID after it.
    let ty = u32::from_le_bytes([out[1], out[2], out[3], out[4]]) | 0x2000_0000;
    out[1..5].copy_from_slice(&ty.to_le_bytes());
    out.splice(5..5, srid.to_le_bytes());
    out
}

/// `geom` as a GeoPackage geometry blob (header with SRS id and envelope, then WKB).
pub fn to_gpkg(geom: &Geometry<f64>, srs_id: i32) -> Vec<u8> {
    let mut out = Vec::with_capacity(96);
    out.extend_from_slice(b"GP");
    out.push(0); // version 1
    let env = match geom {
        Geometry::Point(_) => None,
        g => bounding_rect(g),
    };
    let empty = is_empty(geom);
    // flags: little-endian header (bit 0), envelope [minx,maxx,miny,maxy] (indicator 1)
    let mut flags = 0b0000_0001u8;
    if env.is_some() {
        flags |= 1 << 1;
    }
    if empty {
        flags |= 1 << 4;
    }
    out.push(flags);
    out.extend_from_slice(&srs_id.to_le_bytes());
    if let Some(r) = env {
        for v in [r.min().x, r.max().x, r.min().y, r.max().y] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    write_wkb(geom, &mut out);
    out
}

fn header(out: &mut Vec<u8>, ty: u32) {
    out.push(1);
    u32le(out, ty);
}

fn u32le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn coord(out: &mut Vec<u8>, c: Coord<f64>) {
    out.extend_from_slice(&c.x.to_le_bytes());
    out.extend_from_slice(&c.y.to_le_bytes());
}

fn coords(out: &mut Vec<u8>, cs: &[Coord<f64>]) {
    u32le(out, cs.len() as u32);
    out.reserve(cs.len() * 16);
    for c in cs {
        coord(out, *c);
    }
}

fn polygon_body(out: &mut Vec<u8>, p: &Polygon<f64>) {
    if p.exterior().0.is_empty() {
        u32le(out, 0);
        return;
    }
    u32le(out, 1 + p.interiors().len() as u32);
    coords(out, &p.exterior().0);
    for r in p.interiors() {
        coords(out, &r.0);
    }
}

/// Whether a geometry has no coordinates at all.
pub fn is_empty(g: &Geometry<f64>) -> bool {
    match g {
        Geometry::Point(p) => p.x().is_nan() && p.y().is_nan(),
        Geometry::LineString(l) => l.0.is_empty(),
        Geometry::Polygon(p) => p.exterior().0.is_empty(),
        Geometry::MultiPoint(m) => m.0.is_empty(),
        Geometry::MultiLineString(m) => m.0.iter().all(|l| l.0.is_empty()),
        Geometry::MultiPolygon(m) => m.0.iter().all(|p| p.exterior().0.is_empty()),
        Geometry::GeometryCollection(c) => c.0.iter().all(is_empty),
        _ => false,
    }
}

/// The bounding rectangle, or `None` for an empty geometry.
pub fn bounding_rect(g: &Geometry<f64>) -> Option<Rect<f64>> {
    use geo::BoundingRect;
    if is_empty(g) {
        return None;
    }
    g.bounding_rect()
}

// ---------------------------------------------------------------- reading

/// Reads WKB, ISO WKB with Z/M, or EWKB (the SRID, if any, is returned beside it).
pub fn read_wkb(buf: &[u8]) -> Result<(Geometry<f64>, Option<i32>)> {
    let mut r = Reader { buf, pos: 0 };
    let (g, srid) = r.geometry()?;
    Ok((g, srid))
}

/// Reads a GeoPackage geometry blob; returns the geometry and the blob's SRS id.
pub fn read_gpkg(buf: &[u8]) -> Result<(Geometry<f64>, i32)> {
    if buf.len() < 8 || &buf[0..2] != b"GP" {
        return Err(WkbError::GpkgMagic);
    }
    let flags = buf[3];
    let le = flags & 1 == 1;
    let srs = if le {
        i32::from_le_bytes(buf[4..8].try_into().unwrap())
    } else {
        i32::from_be_bytes(buf[4..8].try_into().unwrap())
    };
    let env_len = match (flags >> 1) & 0b111 {
        0 => 0,
        1 => 32,
        2 | 3 => 48,
        4 => 64,
        n => return Err(WkbError::GpkgEnvelope(n)),
    };
    let start = 8 + env_len;
    if buf.len() < start {
        return Err(WkbError::Truncated(buf.len()));
    }
    let (g, _) = read_wkb(&buf[start..]).map_err(|e| match e {
        WkbError::Truncated(p) => WkbError::Truncated(p + start),
        e => e,
    })?;
    Ok((g, srs))
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let end = self.pos + N;
        let bytes = self
            .buf
            .get(self.pos..end)
            .ok_or(WkbError::Truncated(self.buf.len()))?;
        self.pos = end;
        Ok(bytes.try_into().unwrap())
    }

    fn u32(&mut self, le: bool) -> Result<u32> {
        let b = self.take::<4>()?;
        Ok(if le {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn f64(&mut self, le: bool) -> Result<f64> {
        let b = self.take::<8>()?;
        Ok(if le {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    fn geometry(&mut self) -> Result<(Geometry<f64>, Option<i32>)> {
        let [order] = self.take::<1>()?;
        let le = match order {
            0 => false,
            1 => true,
            b => return Err(WkbError::ByteOrder(b)),
        };
        let raw = self.u32(le)?;
        // EWKB flags in the high bits; ISO dimension in the thousands.
        let ewkb_z = raw & 0x8000_0000 != 0;
        let ewkb_m = raw & 0x4000_0000 != 0;
        let srid = if raw & 0x2000_0000 != 0 {
            Some(self.u32(le)? as i32)
        } else {
            None
        };
        let code = raw & 0x0FFF_FFFF;
        let (base, iso_dims) = (code % 1000, code / 1000);
        let extra = match iso_dims {
            0 => 0,
            1 | 2 => 1,
            3 => 2,
            _ => return Err(WkbError::Type(raw)),
        } + ewkb_z as usize
            + ewkb_m as usize;
        let g = match base {
            1 => Geometry::Point(Point(self.coord(le, extra)?)),
            2 => Geometry::LineString(self.line(le, extra)?),
            3 => Geometry::Polygon(self.polygon(le, extra)?),
            4 => {
                let n = self.u32(le)?;
                let mut pts = Vec::with_capacity(n.min(1 << 20) as usize);
                for _ in 0..n {
                    match self.geometry()?.0 {
                        Geometry::Point(p) => pts.push(p),
                        _ => return Err(WkbError::Type(raw)),
                    }
                }
                Geometry::MultiPoint(MultiPoint(pts))
            }
            5 => {
                let n = self.u32(le)?;
                let mut ls = Vec::with_capacity(n.min(1 << 20) as usize);
                for _ in 0..n {
                    match self.geometry()?.0 {
                        Geometry::LineString(l) => ls.push(l),
                        _ => return Err(WkbError::Type(raw)),
                    }
                }
                Geometry::MultiLineString(MultiLineString(ls))
            }
            6 => {
                let n = self.u32(le)?;
                let mut ps = Vec::with_capacity(n.min(1 << 20) as usize);
                for _ in 0..n {
                    match self.geometry()?.0 {
                        Geometry::Polygon(p) => ps.push(p),
                        _ => return Err(WkbError::Type(raw)),
                    }
                }
                Geometry::MultiPolygon(MultiPolygon(ps))
            }
            7 => {
                let n = self.u32(le)?;
                let mut gs = Vec::with_capacity(n.min(1 << 16) as usize);
                for _ in 0..n {
                    gs.push(self.geometry()?.0);
                }
                Geometry::GeometryCollection(GeometryCollection(gs))
            }
            _ => return Err(WkbError::Type(raw)),
        };
        Ok((g, srid))
    }

    fn coord(&mut self, le: bool, extra: usize) -> Result<Coord<f64>> {
        let x = self.f64(le)?;
        let y = self.f64(le)?;
        for _ in 0..extra {
            self.f64(le)?;
        }
        Ok(Coord { x, y })
    }

    fn line(&mut self, le: bool, extra: usize) -> Result<LineString<f64>> {
        let n = self.u32(le)? as usize;
        if n.saturating_mul(16) > self.buf.len() {
            return Err(WkbError::Truncated(self.buf.len()));
        }
        let mut cs = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.pos;
            let c = self.coord(le, extra)?;
            // A ring whose first vertex is NaN never equals its last, so geo's Polygon
            // would "close" it again on every read: refuse such vertices outright.
            if !(c.x.is_finite() && c.y.is_finite()) {
                return Err(WkbError::NonFinite(at));
            }
            cs.push(c);
        }
        Ok(LineString(cs))
    }

    fn polygon(&mut self, le: bool, extra: usize) -> Result<Polygon<f64>> {
        let n = self.u32(le)?;
        if n == 0 {
            return Ok(Polygon::new(LineString(vec![]), vec![]));
        }
        let ext = self.line(le, extra)?;
        let mut holes = Vec::with_capacity((n - 1).min(1 << 16) as usize);
        for _ in 1..n {
            holes.push(self.line(le, extra)?);
        }
        Ok(Polygon::new(ext, holes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use geo_types::wkt;

    fn round_trip(g: Geometry<f64>) {
        assert_eq!(read_wkb(&to_wkb(&g)).unwrap().0, g);
        let (back, srid) = read_wkb(&to_ewkb(&g, 2927)).unwrap();
        assert_eq!((back, srid), (g.clone(), Some(2927)));
        assert_eq!(read_gpkg(&to_gpkg(&g, 32610)).unwrap(), (g, 32610));
    }

    /// Found by the wkb fuzz target: a ring with a NaN vertex grew by one vertex on each
    /// read and write.
    #[test]
    fn a_ring_with_a_nan_vertex_is_refused() {
        let mut b = vec![1u8, 3, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0];
        for (x, y) in [(f64::NAN, 0.0f64), (10.0, 0.0), (10.0, 10.0), (0.0, 0.0)] {
            b.extend(x.to_le_bytes());
            b.extend(y.to_le_bytes());
        }
        assert!(matches!(read_wkb(&b), Err(WkbError::NonFinite(13))));
        // An empty point (NaN, NaN) still reads.
        let mut p = vec![1u8, 1, 0, 0, 0];
        p.extend(f64::NAN.to_le_bytes());
        p.extend(f64::NAN.to_le_bytes());
        assert!(read_wkb(&p).is_ok());
    }

    #[test]
    fn every_geometry_type_round_trips() {
        round_trip(wkt!(POINT(1.5 - 2.0)).into());
        round_trip(wkt!(LINESTRING(0. 0.,1. 1.,2. 0.)).into());
        round_trip(wkt!(POLYGON((0. 0.,4. 0.,4. 4.,0. 0.),(1. 1.,2. 1.,2. 2.,1. 1.))).into());
        round_trip(wkt!(MULTIPOINT(0. 0.,1. 1.)).into());
        round_trip(wkt!(MULTILINESTRING((0. 0.,1. 1.),(2. 2.,3. 3.))).into());
        round_trip(wkt!(MULTIPOLYGON(((0. 0.,1. 0.,1. 1.,0. 0.)))).into());
        round_trip(Geometry::GeometryCollection(GeometryCollection(vec![
            wkt!(POINT(1. 2.)).into(),
        ])));
    }

    #[test]
    fn iso_z_point_drops_z() {
        let mut b = vec![1u8];
        b.extend_from_slice(&1001u32.to_le_bytes());
        for v in [1.0f64, 2.0, 99.0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(read_wkb(&b).unwrap().0, wkt!(POINT(1. 2.)).into());
    }

    #[test]
    fn truncated_and_garbage_blobs_are_errors_not_panics() {
        let full = to_wkb(&wkt!(LINESTRING(0. 0.,1. 1.)).into());
        for n in 0..full.len() {
            assert!(read_wkb(&full[..n]).is_err(), "prefix {n}");
        }
        assert_eq!(read_wkb(&[7, 0, 0]).unwrap_err(), WkbError::ByteOrder(7));
        assert_eq!(
            read_gpkg(b"XX\0\0\0\0\0\0").unwrap_err(),
            WkbError::GpkgMagic
        );
        // A huge declared count must not allocate before failing.
        let mut b = vec![1u8];
        b.extend_from_slice(&2u32.to_le_bytes());
        b.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(read_wkb(&b).is_err());
    }

    #[test]
    fn gpkg_header_carries_the_envelope() {
        let blob = to_gpkg(&wkt!(LINESTRING(1. 2.,3. 5.)).into(), 4326);
        assert_eq!(blob[3] & 0b1110, 0b0010);
        let minx = f64::from_le_bytes(blob[8..16].try_into().unwrap());
        let maxy = f64::from_le_bytes(blob[32..40].try_into().unwrap());
        assert_eq!((minx, maxy), (1.0, 5.0));
    }
}
