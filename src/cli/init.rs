//! `ms4 init`: create a registry.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::import::crs;
use crate::rules::Profile;

/// Arguments of `ms4 init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The jurisdiction profile: north-castle-ny, carmel-ny, windsor-ct, or one in --profiles.
    #[arg(long)]
    pub jurisdiction: String,
    /// The registry's working CRS, projected (e.g. EPSG:2260, NY East, US feet).
    #[arg(long)]
    pub crs: String,
    /// A folder of extra profiles (`<id>.toml`), for a town not built in.
    #[arg(long)]
    pub profiles: Option<PathBuf>,
}

pub(super) async fn run(store: &str, a: InitArgs) -> anyhow::Result<()> {
    let profile = load_profile(&a.jurisdiction, a.profiles.as_deref())?;
    let code = crs::parse_epsg(&a.crs)?;
    let meta = crs::registry_meta(&profile.id, code)?;
    crate::store::create(store, &meta)
        .await
        .with_context(|| format!("creating the registry at {store}"))?;
    println!(
        "created registry for {} ({}) in EPSG:{} ({}, {}) at {store}",
        profile.name,
        profile.id,
        meta.srid,
        meta.crs_name,
        meta.linear_unit.symbol()
    );
    Ok(())
}

/// Loads a built-in profile, or one from a folder.
pub fn load_profile(id: &str, dir: Option<&std::path::Path>) -> anyhow::Result<Profile> {
    Ok(match dir {
        Some(d) => Profile::load(id, d)?,
        None => Profile::builtin(id)?,
    })
}
