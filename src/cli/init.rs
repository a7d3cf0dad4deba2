//! `ms4 init`: create a registry.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::import::crs;
use crate::rules::Profile;
use crate::store::profile::{StoredProfile, BUILTIN_SOURCE};

/// Arguments of `ms4 init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// The jurisdiction profile: north-castle-ny, carmel-ny, windsor-ct, or one in --profiles
    /// (a town that is none of the three writes its own with `ms4 profile new`).
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
    let (profile, stored) = load_profile_text(&a.jurisdiction, a.profiles.as_deref())?;
    let code = crs::parse_epsg(&a.crs)?;
    let meta = crs::registry_meta(&profile.id, code)?;
    let registry = crate::store::create(store, &meta)
        .await
        .with_context(|| format!("creating the registry at {store}"))?;
    // The whole profile goes into the registry, so no later command needs the folder.
    registry
        .store_profile(&stored, false)
        .await
        .with_context(|| format!("storing the profile {} in the registry", profile.id))?;
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

/// Loads a built-in profile, or one from a folder, with the text the registry stores.
pub fn load_profile_text(
    id: &str,
    dir: Option<&std::path::Path>,
) -> anyhow::Result<(Profile, StoredProfile)> {
    let actor = crate::import::default_actor();
    Ok(match dir {
        Some(d) => {
            let (profile, text) = Profile::load_with_text(id, d)?;
            let stored = StoredProfile::new(&profile.id, &text, &format!("{id}.toml"), &actor);
            (profile, stored)
        }
        None => {
            let profile = Profile::builtin(id)?;
            let text = Profile::builtin_text(id).unwrap_or_default();
            (
                profile.clone(),
                StoredProfile::new(id, text, BUILTIN_SOURCE, &actor),
            )
        }
    })
}
