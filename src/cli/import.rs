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
    /// tmdl_areas, inspections or boundary. With --layer-by, leave it out and give the
    /// file only.
    pub layer: String,
    /// The file: Shapefile (or a zip of one), GeoPackage, File Geodatabase, GeoJSON, KML, CSV.
    pub path: Option<PathBuf>,
    /// Import only the features this OGR SQL condition selects:
    /// --where "FeatureType = 'Catch Basin'".
    #[arg(long = "where", value_name = "CONDITION")]
    pub filter: Option<String>,
    /// Split the file over several layers by one field's value, in one transaction:
    /// --layer-by "FeatureType=catch_basins:'Catch Basin','Inlet';manholes:'Manhole'",
    /// or a .toml file with `field = "..."` and a [layers] table of value lists.
    #[arg(long, value_name = "FIELD=LAYER:VALUES;... | FILE.toml")]
    pub layer_by: Option<String>,
    /// Make each id from an expression over the source fields, when the file has no
    /// usable id field: --id "COALESCE(FACILITYID, ALTID)" (fields, 'text', COALESCE, ||).
    #[arg(long, value_name = "EXPRESSION")]
    pub id: Option<String>,
    /// Generate ids: this prefix followed by the source feature number (--id-prefix P-).
    #[arg(long, value_name = "PREFIX", conflicts_with = "id")]
    pub id_prefix: Option<String>,
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
    let (layer, path, by) = match (a.path.clone(), &a.layer_by) {
        (Some(p), by) => {
            let layer: Layer = a.layer.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
            if by.is_some() {
                anyhow::bail!("with --layer-by the layers come from the mapping: give the file only (ms4 import {} --layer-by ...)", p.display());
            }
            (layer, p, None)
        }
        // The mapping gives each read its layer.
        (None, Some(by)) => (
            Layer::CatchBasins,
            PathBuf::from(&a.layer),
            Some(import::split::LayerBy::parse(by)?),
        ),
        (None, None) => anyhow::bail!(
            "give the layer and the file (ms4 import catch_basins basins.shp), or the file with --layer-by"
        ),
    };
    let store = crate::store::open(store_url).await?;
    let mut opts = ImportOptions::new(layer, &path);
    opts.filter = a.filter;
    opts.id_expr = a.id;
    opts.id_prefix = a.id_prefix;
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
    if let Some(by) = by {
        // Several reads run at once: one progress bar each would garble the terminal.
        opts.progress = false;
        let report = import::split::import_split(store, opts, &by).await?;
        match a.format {
            Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
            Format::Table => print!("{report}"),
        }
        return Ok(());
    }
    let report = import::import(store, opts).await?;
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => print!("{report}"),
    }
    Ok(())
}
