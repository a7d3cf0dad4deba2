//! `ms4 import-attains` and `ms4 import-wbd`: the national datasets (EPA ATTAINS
//! records, USGS WBD HUC-12 units) onto the registry's waters and watersheds.

use std::path::PathBuf;

use clap::Args;

use super::Format;
use crate::import::attains::{import_attains, AttainsOptions};
use crate::import::wbd::{import_wbd, WbdOptions};

/// Arguments of `ms4 import-attains`.
#[derive(Debug, Args)]
pub struct ImportAttainsArgs {
    /// Saved JSON answers of ATTAINS's web service: assessmentUnits, assessments,
    /// actions, or a HUC's plans (any number, any order).
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The receiving waters' field (or extra attribute) holding the assessment unit id;
    /// by default their own id, water_id.
    #[arg(long, value_name = "FIELD")]
    pub join: Option<String>,
    /// The TMDL areas' field (or extra attribute) holding the ATTAINS action id; by
    /// default their own id, tmdl_id.
    #[arg(long, value_name = "FIELD")]
    pub tmdl_join: Option<String>,
    /// The MS4's NPDES / SPDES permit id, whose waste-load allocations are read from the
    /// TMDL actions (repeatable).
    #[arg(long = "permit", value_name = "ID")]
    pub permits: Vec<String>,
    /// Print the report and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Arguments of `ms4 import-wbd`.
#[derive(Debug, Args)]
pub struct ImportWbdArgs {
    /// The WBD HU-12 file (Shapefile, GeoPackage, File Geodatabase, GeoJSON...), with
    /// HUC12, NAME and TOHUC fields.
    pub path: PathBuf,
    /// The layer inside the file (WBDHU12 in WBD's own downloads).
    #[arg(long)]
    pub src_layer: Option<String>,
    /// Print the report and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace the watersheds: delete those the file does not carry.
    #[arg(long)]
    pub replace: bool,
    /// How to print the report.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

pub(super) async fn run_attains(store_url: &str, a: ImportAttainsArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let report = import_attains(
        store,
        AttainsOptions {
            paths: a.paths,
            join: a.join,
            tmdl_join: a.tmdl_join,
            permits: a.permits,
            dry_run: a.dry_run,
            actor: crate::import::default_actor(),
        },
    )
    .await?;
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => print!("{report}"),
    }
    Ok(())
}

pub(super) async fn run_wbd(store_url: &str, a: ImportWbdArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let report = import_wbd(
        store,
        WbdOptions {
            path: a.path,
            src_layer: a.src_layer,
            dry_run: a.dry_run,
            replace: a.replace,
            actor: crate::import::default_actor(),
        },
    )
    .await?;
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Table => print!("{report}"),
    }
    Ok(())
}
