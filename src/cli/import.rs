//! `ms4 import`: read a file into a layer.

use std::path::PathBuf;

use clap::Args;

use super::Format;
use crate::domain::Layer;
use crate::import::{ImportRequest, InvalidPolicy, RunContext};

/// Arguments of `ms4 import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The registry layer: parcels, catch_basins, manholes, outfalls, structures
    /// (headwalls, inlets, junction boxes and other drainage structures), pipes,
    /// connections, connection_records, smps, easements, receiving_waters, impairments,
    /// watersheds, tmdl_areas, inspections, discharge_determinations, rainfall (or `ms4
    /// rainfall import`), programme_submissions (each row checked against the calendar as
    /// `ms4 calendar record` checks one, and against a submission recorded for its
    /// occurrence, which it never overwrites; a row at fault refuses the file; --replace
    /// never removes a recorded submission) or boundary.
    /// With --layer-by, leave it out and give the file only.
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
    /// Read a File Geodatabase (a .gdb folder or a zip of one) by an Esri preset into
    /// every layer it fills: lgim or utility-network, or your own edited copy (a .toml
    /// file; see ms4 import-esri --show-preset). Give the file only.
    #[arg(
        long,
        value_name = "lgim | utility-network | FILE.toml",
        conflicts_with = "layer_by"
    )]
    pub preset: Option<String>,
    /// Make each id from an expression over the source fields, when the file has no
    /// usable id field: --id "COALESCE(FACILITYID, ALTID)" (fields, 'text', COALESCE, ||).
    #[arg(long, value_name = "EXPRESSION")]
    pub id: Option<String>,
    /// Generate ids: this prefix followed by the source feature number (--id-prefix P-).
    #[arg(long, value_name = "PREFIX", conflicts_with = "id")]
    pub id_prefix: Option<String>,
    /// Map a canonical field to a source field: --map asset_id=FACILITYID (repeatable).
    /// A length may name its source's unit, converted into the field's own (diameters in
    /// inches, elevations in the registry's unit): --map diameter_in=SPAN:ft (in, ft,
    /// ftUS, m, cm or mm).
    #[arg(long = "map", value_name = "CANONICAL=SOURCE[:UNIT]")]
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
    /// Replace the layer: delete features the file does not carry. Into
    /// programme_submissions the file must carry every submission recorded (by `ms4
    /// calendar record`, the API or an earlier import), as recorded: a file that leaves
    /// one out is refused, naming them, and nothing is stored (a submission is the
    /// evidence an item was done; `ms4 export programme_submissions FILE` starts a file
    /// from them).
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
    // Which positional argument is the file: the second, or with --layer-by the first.
    let several = a.layer_by.is_some() || a.preset.is_some();
    let (layer, path) = match (a.path, several) {
        (Some(p), by) => {
            let layer: Layer = a.layer.parse().map_err(|e| anyhow::anyhow!("{e}"))?;
            if by {
                anyhow::bail!("with --layer-by or --preset the layers come from the mapping: give the file only (ms4 import {} --layer-by ...)", p.display());
            }
            (Some(layer.name().to_string()), p)
        }
        (None, true) => (None, PathBuf::from(&a.layer)),
        (None, false) => anyhow::bail!(
            "give the layer and the file (ms4 import catch_basins basins.shp), or the file with --layer-by or --preset"
        ),
    };
    let request = ImportRequest {
        layer,
        filter: a.filter,
        layer_by: a.layer_by,
        id: a.id,
        id_prefix: a.id_prefix,
        map: a.maps,
        src_layer: a.src_layer,
        s_srs: a.s_srs,
        dry_run: a.dry_run,
        replace: a.replace,
        allow_empty: a.allow_empty,
        allow_mass_delete: a.allow_mass_delete,
        invalid: Some(a.invalid.name().to_string()),
        preset: a.preset,
    };
    let mut ctx = RunContext::new(path);
    ctx.progress = a.format == Format::Table;
    ctx.any_driver = a.allow_any_driver;
    ctx.local_files = true;
    // Checked before the store is opened: a mistyped flag costs no connection.
    let plan = request.plan(ctx)?;
    let store = crate::store::open(store_url).await?;
    let outcome = plan.run(store).await?;
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&outcome)?),
        Format::Table => print!("{outcome}"),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use crate::domain::Layer;

    /// `ms4 import --help` names every layer a file can be imported into (all but the
    /// cases and the sites, which are opened by commands).
    #[test]
    fn the_help_lists_every_layer() {
        let mut cli = crate::cli::Cli::command();
        let import = cli.find_subcommand_mut("import").expect("import");
        let help = import.render_long_help().to_string();
        for l in Layer::ALL
            .iter()
            .filter(|l| !matches!(l, Layer::Cases | Layer::Sites))
        {
            assert!(help.contains(l.name()), "{} is not in:\n{help}", l.name());
        }
    }
}
