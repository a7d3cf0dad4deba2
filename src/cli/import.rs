//! `ms4 import`: read a file into a layer.

use std::path::PathBuf;

use clap::Args;

use super::Format;
use crate::domain::Layer;
use crate::import::{self, crs, source, ImportOptions, InvalidPolicy};
use crate::store::WriteMode;

/// Arguments of `ms4 import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The registry layer: parcels, catch_basins, manholes, outfalls, pipes, connections,
    /// connection_records, smps, easements, receiving_waters, impairments, watersheds,
    /// tmdl_areas, inspections or boundary.
    pub layer: Layer,
    /// The file: Shapefile (or a zip of one), GeoPackage, File Geodatabase, GeoJSON, KML, CSV.
    pub path: PathBuf,
    /// Map a canonical field to a source field: --map asset_id=FACILITYID (repeatable).
    #[arg(long = "map", value_name = "CANONICAL=SOURCE")]
    pub maps: Vec<String>,
    /// The layer inside the file, when it has several.
    #[arg(long)]
    pub src_layer: Option<String>,
    /// The source CRS, when the file has none or states it wrongly: EPSG:<code>.
    #[arg(long)]
    pub s_srs: Option<String>,
    /// Print the quality report and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace the layer: delete features the file does not carry.
    #[arg(long)]
    pub replace: bool,
    /// With --replace, let a file with no features empty the layer.
    #[arg(long, requires = "replace")]
    pub allow_empty: bool,
    /// With --replace, let the import delete more than half of the layer.
    #[arg(long, requires = "replace")]
    pub allow_mass_delete: bool,
    /// Let GDAL open the file with any driver (VRTs, /vsicurl/ URLs...). Only for files
    /// you trust: a VRT can read any data this machine can.
    #[arg(long)]
    pub allow_any_driver: bool,
    /// What to do with invalid polygons.
    #[arg(long, value_enum, default_value_t = InvalidPolicy::Repair)]
    pub invalid: InvalidPolicy,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

pub(super) async fn run(store_url: &str, a: ImportArgs) -> anyhow::Result<()> {
    let maps = a
        .maps
        .iter()
        .map(|m| source::parse_map(m))
        .collect::<Result<Vec<_>, _>>()?;
    let s_srs = a.s_srs.as_deref().map(crs::parse_epsg).transpose()?;
    let store = crate::store::open(store_url).await?;
    let mut opts = ImportOptions::new(a.layer, &a.path);
    opts.maps = maps;
    opts.src_layer = a.src_layer;
    opts.s_srs = s_srs;
    opts.dry_run = a.dry_run;
    opts.mode = if a.replace {
        WriteMode::Replace
    } else {
        WriteMode::Upsert
    };
    opts.invalid = a.invalid;
    opts.allow_empty = a.allow_empty;
    opts.allow_mass_delete = a.allow_mass_delete;
    opts.any_driver = a.allow_any_driver;
    opts.progress = a.format == Format::Table;
    let report = import::import(store, opts).await?;
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => print!("{report}"),
    }
    Ok(())
}
