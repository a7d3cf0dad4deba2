//! Deterministic synthetic MS4s: a town (about 2,000 parcels) or a county (about a
//! million) with every layer of the registry, for demos, tests and benchmarks.
//!
//! The town is a street grid. Blocks of 8–12 rectangular parcels sit between 50-ft
//! streets; catch basins stand on both curbs of every street segment, manholes at the
//! crossings; trunk lines run along the east-west streets downhill to outfalls on streams
//! that follow some of the north-south street lines. Each stream is cut into reaches (one
//! receiving water each) and each reach has a watershed; watersheds partition the
//! boundary, and are cut where the drainage divides, so a structure lies in the watershed
//! of the water it drains to. Private connections, their approval records, SMPs and
//! easements are scattered over the parcels at realistic rates.
//!
//! Real data is messy, and the registry must cope, so some of the mess is generated on
//! purpose: pipes without from/to ids whose ends are a digitising error off their
//! structures, a few pipes laid against their inverts, outfalls without a receiving water,
//! connections without a parcel and records without a connection.
//!
//! Generation is block by block and node by node: nothing scans the whole network, so a
//! county of a million parcels costs time and memory in proportion. Every random choice
//! comes from a generator seeded by the seed and the thing being placed, so the same seed
//! gives the same features, byte for byte, whatever the platform's thread count.

mod grid;
mod layout;
mod network;
mod private;
mod trunk;
mod waters;

#[cfg(test)]
mod network_tests;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use chrono::NaiveDate;
use geo_types::Geometry;
use rand::rngs::SmallRng;
use rand::Rng;

use crate::domain::{Feature, GeomKind, Layer, LengthUnit, Value};
use crate::import::export::export;
use crate::import::{ImportError, Result};
use crate::store::RegistryMeta;

/// What to generate.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthOptions {
    /// How many parcels; every other layer scales with it.
    pub parcels: usize,
    /// The seed: the same seed and options give identical output.
    pub seed: u64,
    /// The EPSG code of the CRS the coordinates are in (recorded by the caller; the
    /// generator itself only needs the unit and the origin).
    pub srid: i32,
    /// The CRS's linear unit: the town is designed in feet and converted to it.
    pub unit: LengthUnit,
    /// The centre of the town, in CRS coordinates.
    pub origin: (f64, f64),
}

impl SynthOptions {
    /// `parcels` parcels with `seed`, in NY State Plane East (EPSG:2260, US survey feet),
    /// centred on North Castle, NY, so the town lands where the seed laws apply.
    pub fn new(parcels: usize, seed: u64) -> Self {
        SynthOptions {
            parcels,
            seed,
            srid: 2260,
            unit: LengthUnit::UsSurveyFoot,
            origin: (718_000.0, 841_000.0),
        }
    }
}

impl Default for SynthOptions {
    /// A town with seed 1.
    fn default() -> Self {
        SynthOptions::new(Scale::Town.parcels(), 1)
    }
}

/// How big a place to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// A town: about 2,000 parcels.
    Town,
    /// A county: about 1,000,000 parcels.
    County,
    /// An exact number of parcels.
    Parcels(usize),
}

impl Scale {
    /// The number of parcels.
    pub fn parcels(self) -> usize {
        match self {
            Scale::Town => 2_000,
            Scale::County => 1_000_000,
            Scale::Parcels(n) => n,
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scale::Town => f.write_str("town"),
            Scale::County => f.write_str("county"),
            Scale::Parcels(n) => write!(f, "{n}"),
        }
    }
}

/// A scale that is neither `town`, `county` nor a number of parcels.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scale {0:?}; expected town, county or a number of parcels (e.g. 50000)")]
pub struct ParseScaleError(pub String);

impl FromStr for Scale {
    type Err = ParseScaleError;

    /// `town`, `county`, or a number; `_` and `,` between digits are allowed (`1_000_000`).
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "town" => Ok(Scale::Town),
            "county" => Ok(Scale::County),
            t => t
                .replace(['_', ','], "")
                .parse::<usize>()
                .map(Scale::Parcels)
                .map_err(|_| ParseScaleError(s.to_string())),
        }
    }
}

/// The file format [`write`] produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SynthFormat {
    /// One GeoPackage per layer, `<layer>.gpkg`.
    Gpkg,
    /// One shapefile per layer, `<layer>.shp` (tables without geometry as `<layer>.csv`).
    Shapefile,
}

impl FromStr for SynthFormat {
    type Err = String;

    /// `gpkg`/`geopackage` or `shp`/`shapefile`.
    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "gpkg" | "geopackage" => Ok(SynthFormat::Gpkg),
            "shp" | "shapefile" => Ok(SynthFormat::Shapefile),
            _ => Err(format!("unknown format {s:?}; expected gpkg or shp")),
        }
    }
}

/// Generates a synthetic MS4: every layer except `inspections`, keyed by layer, each in
/// generation order (deterministic for a seed).
pub fn generate(opts: &SynthOptions) -> BTreeMap<Layer, Vec<Feature>> {
    let lay = layout::Layout::new(opts);
    let mut out = Out::with_capacity(opts.parcels, (lay.cols + 1) * (lay.rows + 1));
    let mut ids = Ids::default();
    for j in 0..=lay.rows {
        for i in 0..=lay.cols {
            network::node(&lay, i, j, &mut out, &mut ids);
            if i < lay.cols && j < lay.rows {
                private::block(&lay, i, j, &mut out, &mut ids);
            }
        }
    }
    network::trunk_main(&lay, &mut out, &mut ids);
    waters::generate(&lay, &mut out);
    out.layers
}

/// Writes generated layers to `dir` (created if missing), one file per layer, and returns
/// each file with its layer and feature count. Empty layers are skipped: a file with no
/// features would only make an importer guess its geometry type.
///
/// A shapefile holds one geometry type, so a layer that mixes points and polygons (SMPs)
/// is split: the commonest type goes to `<layer>.shp`, the others to
/// `<layer>_points.shp`, `<layer>_lines.shp` or `<layer>_polygons.shp`; import them all
/// into the same layer.
pub fn write(
    layers: &BTreeMap<Layer, Vec<Feature>>,
    meta: &RegistryMeta,
    dir: &Path,
    format: SynthFormat,
) -> Result<Vec<(Layer, PathBuf, u64)>> {
    std::fs::create_dir_all(dir).map_err(|e| ImportError::Write {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let _stamp = FixedTimestamp::set();
    let mut written = Vec::new();
    for (&layer, features) in layers {
        if features.is_empty() {
            continue;
        }
        let name = layer.name();
        match format {
            SynthFormat::Gpkg => {
                let path = dir.join(format!("{name}.gpkg"));
                let n = export(layer, features, meta, &path)?;
                written.push((layer, path, n));
            }
            SynthFormat::Shapefile if layer.geom_kind() == GeomKind::None => {
                let path = dir.join(format!("{name}.csv"));
                let n = export(layer, features, meta, &path)?;
                written.push((layer, path, n));
            }
            SynthFormat::Shapefile => {
                let mut groups: Vec<(&str, Vec<Feature>)> = ["points", "lines", "polygons"]
                    .map(|g| (g, Vec::new()))
                    .into();
                for f in features {
                    groups[shape_family(f.geom.as_ref())].1.push(f.clone());
                }
                groups.retain(|g| !g.1.is_empty());
                // Stable sort: the commonest first, ties in points-lines-polygons order.
                groups.sort_by_key(|g| std::cmp::Reverse(g.1.len()));
                for (k, (family, group)) in groups.iter().enumerate() {
                    let file = if k == 0 {
                        format!("{name}.shp")
                    } else {
                        format!("{name}_{family}.shp")
                    };
                    let path = dir.join(file);
                    let n = export(layer, group, meta, &path)?;
                    written.push((layer, path, n));
                }
            }
        }
    }
    Ok(written)
}

/// GeoPackages record when each table was written (`gpkg_contents.last_change`), so two
/// runs would differ in those bytes. GDAL takes the stamp from `OGR_CURRENT_DATE` when it
/// is set; setting it for this thread only, while [`write`] runs, makes the same seed
/// write byte-identical GeoPackages without touching other writers in the process.
struct FixedTimestamp;

impl FixedTimestamp {
    fn set() -> FixedTimestamp {
        // Best effort: without it the files differ only in their timestamps.
        let _ = gdal::config::set_thread_local_config_option(
            "OGR_CURRENT_DATE",
            "2000-01-01T00:00:00.000Z",
        );
        FixedTimestamp
    }
}

impl Drop for FixedTimestamp {
    fn drop(&mut self) {
        let _ = gdal::config::clear_thread_local_config_option("OGR_CURRENT_DATE");
    }
}

/// 0 for points, 1 for lines, 2 for polygons (and anything else).
fn shape_family(g: Option<&Geometry<f64>>) -> usize {
    match g {
        Some(Geometry::Point(_) | Geometry::MultiPoint(_)) => 0,
        Some(Geometry::LineString(_) | Geometry::MultiLineString(_) | Geometry::Line(_)) => 1,
        _ => 2,
    }
}

/// The layers being filled.
pub(crate) struct Out {
    layers: BTreeMap<Layer, Vec<Feature>>,
}

impl Out {
    /// Empty layers, with room reserved for the big ones so a county does not regrow them.
    fn with_capacity(parcels: usize, nodes: usize) -> Out {
        let mut layers = BTreeMap::new();
        for (layer, cap) in [
            (Layer::Parcels, parcels),
            (Layer::CatchBasins, nodes * 4),
            (Layer::Manholes, nodes),
            (Layer::Pipes, nodes * 5),
            (Layer::Connections, parcels / 9),
            (Layer::ConnectionRecords, parcels / 11),
            (Layer::Outfalls, 0),
            (Layer::Smps, 0),
            (Layer::Easements, 0),
            (Layer::ReceivingWaters, 0),
            (Layer::Impairments, 0),
            (Layer::Watersheds, 0),
            (Layer::TmdlAreas, 0),
            (Layer::Boundary, 1),
        ] {
            layers.insert(layer, Vec::with_capacity(cap));
        }
        Out { layers }
    }

    /// Appends a feature to a layer.
    fn push(&mut self, layer: Layer, f: Feature) {
        self.layers.entry(layer).or_default().push(f);
    }
}

/// Sequence numbers for ids handed out in generation order.
#[derive(Default)]
pub(crate) struct Ids {
    parcel: usize,
    pipe: usize,
    connection: usize,
    record: usize,
    smp: usize,
    easement: usize,
}

impl Ids {
    fn next_parcel(&mut self) -> usize {
        self.parcel += 1;
        self.parcel
    }
    fn next_pipe(&mut self) -> usize {
        self.pipe += 1;
        self.pipe
    }
    fn next_connection(&mut self) -> usize {
        self.connection += 1;
        self.connection
    }
    fn next_record(&mut self) -> usize {
        self.record += 1;
        self.record
    }
    fn next_smp(&mut self) -> usize {
        self.smp += 1;
        self.smp
    }
    fn next_easement(&mut self) -> usize {
        self.easement += 1;
        self.easement
    }
}

/// One of `items`, with probability proportional to its weight.
fn pick<T: Copy>(rng: &mut SmallRng, items: &[(T, u32)]) -> T {
    let total: u32 = items.iter().map(|(_, w)| w).sum();
    let mut r = rng.gen_range(0..total);
    for &(item, w) in items {
        if r < w {
            return item;
        }
        r -= w;
    }
    items[items.len() - 1].0
}

/// A text value.
fn text(s: impl Into<String>) -> Value {
    Value::Text(s.into())
}

/// A date between the first and the last year (days 1–28, so every month has them).
fn date(rng: &mut SmallRng, from_year: i32, to_year: i32) -> Value {
    let y = rng.gen_range(from_year..=to_year);
    let d = NaiveDate::from_ymd_opt(y, rng.gen_range(1..=12), rng.gen_range(1..=28));
    d.map_or(Value::Null, Value::Date)
}
