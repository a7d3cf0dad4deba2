//! `ms4 import-esri`: a File Geodatabase in the LGIM or Utility Network stormwater schema,
//! into every layer it fills, in one command.

use std::path::PathBuf;

use clap::Args;

use super::Format;
use crate::import::esri::{self, EsriOptions, Preset};
use crate::import::InvalidPolicy;

/// Arguments of `ms4 import-esri`.
#[derive(Debug, Args)]
pub struct ImportEsriArgs {
    /// The File Geodatabase: a .gdb folder or a zip of one.
    #[arg(required_unless_present = "show_preset")]
    pub path: Option<PathBuf>,
    /// The schema's built-in preset: lgim (Local Government Information Model) or
    /// utility-network.
    #[arg(long, default_value = "lgim")]
    pub preset: String,
    /// Your own preset: an edited copy of what --show-preset prints. Replaces --preset.
    #[arg(long, value_name = "FILE.toml")]
    pub preset_file: Option<PathBuf>,
    /// Print the preset (classes, layers, fields, units) as TOML and stop.
    #[arg(long)]
    pub show_preset: bool,
    /// Map a canonical field to a source field, winning over the preset, for every class
    /// that has the field: --map diameter_in=DIAM:ft (repeatable; the unit is optional).
    #[arg(long = "map", value_name = "CANONICAL=SOURCE[:UNIT]")]
    pub maps: Vec<String>,
    /// Print the mapping and each layer's quality report, and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace each asset layer the geodatabase fills: delete features it does not carry
    /// (related inspections are added or updated, never replaced).
    #[arg(long)]
    pub replace: bool,
    /// With --replace, let the import delete more than the allowed share of a layer.
    #[arg(long, requires = "replace")]
    pub allow_mass_delete: bool,
    /// Let GDAL open the file with any driver. Only for files you trust.
    #[arg(long)]
    pub allow_any_driver: bool,
    /// What to do with invalid polygons.
    #[arg(long, value_enum, default_value_t = InvalidPolicy::Repair)]
    pub invalid: InvalidPolicy,
    /// How to print the reports.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

pub(super) async fn run(store_url: &str, a: ImportEsriArgs) -> anyhow::Result<()> {
    if a.show_preset {
        match &a.preset_file {
            Some(f) => print!("{}", std::fs::read_to_string(f)?),
            None => print!("{}", Preset::built_in_text(&a.preset)?),
        }
        return Ok(());
    }
    let preset = match &a.preset_file {
        Some(f) => Preset::from_file(f)?,
        None => Preset::built_in(&a.preset)?,
    };
    let path = a.path.expect("clap requires the path");
    let mut opts = EsriOptions::new(path);
    opts.maps = a.maps;
    opts.dry_run = a.dry_run;
    opts.replace = a.replace;
    opts.allow_mass_delete = a.allow_mass_delete;
    opts.invalid = a.invalid;
    opts.any_driver = a.allow_any_driver;
    let store = crate::store::open(store_url).await?;
    let table = a.format == Format::Table;
    // The mapping is printed before anything is written.
    let outcome = esri::import_esri(store, preset, opts, |m| {
        if table {
            print!("{m}");
        }
    })
    .await?;
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&outcome)?),
        Format::Table => print!("{outcome}"),
    }
    Ok(())
}
