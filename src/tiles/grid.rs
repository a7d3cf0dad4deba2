//! Tile ids of the WebMercatorQuad grid and their bounds.

/// Half the width of the Web Mercator world, in metres (EPSG:3857's x and y range).
pub const WORLD: f64 = 20_037_508.342_789_244;

/// The highest zoom served.
pub const MAX_ZOOM: u8 = 22;

/// One tile: zoom, column (west to east) and row (north to south).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TileId {
    /// Zoom, 0 to [`MAX_ZOOM`].
    pub z: u8,
    /// Column, 0 at the antimeridian's west edge.
    pub x: u32,
    /// Row, 0 at the top (north).
    pub y: u32,
}

/// A tile address that is not a tile.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TileError {
    /// A part of the address is not a whole number.
    #[error("{name}: {value:?} is not a whole number")]
    NotANumber {
        /// `z`, `x` or `y`.
        name: &'static str,
        /// What was given.
        value: String,
    },
    /// A part of the address is outside the grid at its zoom.
    #[error("{name}: {value} is out of range; at zoom {z} it runs from 0 to {max}")]
    OutOfRange {
        /// `z`, `x` or `y`.
        name: &'static str,
        /// What was given.
        value: u64,
        /// The zoom (for `z` itself, the highest zoom served).
        z: u64,
        /// The largest value allowed.
        max: u64,
    },
}

fn number(name: &'static str, s: &str) -> Result<u64, TileError> {
    s.parse::<u64>().map_err(|_| TileError::NotANumber {
        name,
        value: s.to_string(),
    })
}

impl TileId {
    /// Reads z, x and y as given in a URL, checking each against the grid.
    pub fn parse(z: &str, x: &str, y: &str) -> Result<TileId, TileError> {
        let zn = number("z", z)?;
        if zn > MAX_ZOOM as u64 {
            return Err(TileError::OutOfRange {
                name: "z",
                value: zn,
                z: MAX_ZOOM as u64,
                max: MAX_ZOOM as u64,
            });
        }
        let max = (1u64 << zn) - 1;
        let check = |name: &'static str, s: &str| -> Result<u32, TileError> {
            let v = number(name, s)?;
            if v > max {
                return Err(TileError::OutOfRange {
                    name,
                    value: v,
                    z: zn,
                    max,
                });
            }
            Ok(v as u32)
        };
        Ok(TileId {
            z: zn as u8,
            x: check("x", x)?,
            y: check("y", y)?,
        })
    }

    /// The tile's width in Web Mercator metres.
    pub fn size(self) -> f64 {
        2.0 * WORLD / (1u64 << self.z) as f64
    }

    /// `[minx, miny, maxx, maxy]` in EPSG:3857.
    pub fn bounds(self) -> [f64; 4] {
        let s = self.size();
        let minx = -WORLD + self.x as f64 * s;
        let maxy = WORLD - self.y as f64 * s;
        [minx, maxy - s, minx + s, maxy]
    }

    /// The tiles at zoom `z` that meet a Web Mercator box, as inclusive column and row
    /// ranges `(x0, y0, x1, y1)`.
    pub fn range(z: u8, b: [f64; 4]) -> (u32, u32, u32, u32) {
        let n = (1u64 << z) as f64;
        let s = 2.0 * WORLD / n;
        let clamp = |v: f64| v.floor().clamp(0.0, n - 1.0) as u32;
        (
            clamp((b[0] + WORLD) / s),
            clamp((WORLD - b[3]) / s),
            clamp((b[2] + WORLD) / s),
            clamp((WORLD - b[1]) / s),
        )
    }
}

/// Web Mercator metres to longitude/latitude degrees.
pub fn to_lon_lat(x: f64, y: f64) -> (f64, f64) {
    let lon = x / WORLD * 180.0;
    let lat = (2.0 * (y / WORLD * std::f64::consts::PI).exp().atan() - std::f64::consts::FRAC_PI_2)
        .to_degrees();
    (lon, lat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_outside_the_grid_name_the_part_at_fault() {
        assert_eq!(TileId::parse("0", "0", "0").unwrap().bounds()[0], -WORLD);
        let e = TileId::parse("3", "8", "0").unwrap_err().to_string();
        assert!(e.starts_with("x: 8 is out of range; at zoom 3"), "{e}");
        let e = TileId::parse("23", "0", "0").unwrap_err().to_string();
        assert!(e.starts_with("z: 23"), "{e}");
        let e = TileId::parse("2", "1", "-1").unwrap_err().to_string();
        assert!(e.starts_with("y: \"-1\""), "{e}");
    }

    #[test]
    fn bounds_and_ranges_agree() {
        let t = TileId {
            z: 12,
            x: 1205,
            y: 1540,
        };
        let b = t.bounds();
        let inner = [b[0] + 1.0, b[1] + 1.0, b[2] - 1.0, b[3] - 1.0];
        assert_eq!(TileId::range(12, inner), (1205, 1540, 1205, 1540));
        let (lon, lat) = to_lon_lat(0.0, WORLD);
        assert!((lon - 0.0).abs() < 1e-9 && (lat - 85.051_128_78).abs() < 1e-6);
    }
}
