//! `ms4 profile`: the jurisdiction profile a registry keeps (the loader every other
//! command and the server read it through is [`crate::answer::profile`]).
//!
//! The registry stores its profile whole (`init` puts it there), so a town's own profile
//! works on every later command without the folder it came from. A registry made by an
//! older ms4 keeps only the profile's id: on its first open the built-in profile of that
//! id is stored quietly and unaudited, as a migration is (the row records it), and used from then on; a registry
//! whose id is not built in is refused with the command that fixes it. A built-in profile
//! in this ms4 that differs from a built-in copy stored earlier is reported on every
//! command, never applied: `ms4 profile update --builtin` applies it.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Subcommand};

use super::Format;
use crate::answer::profile::{self, short};
pub use crate::answer::profile::{load, load_stored, Loaded};
use crate::import::default_actor;
use crate::rules::Profile;
use crate::store::profile::BUILTIN_SOURCE;
use crate::store::Store;

/// Arguments of `ms4 profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: ProfileAction,
}

/// Profile actions.
#[derive(Debug, Subcommand)]
pub enum ProfileAction {
    /// Print the registry's stored profile (TOML, after a comment header with its hash).
    Show {
        /// `table` prints the TOML; `json` the text with its hash, source and history.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Replace the registry's profile with a checked TOML file (or this ms4's built-in
    /// copy); the old and new texts are audited.
    Update {
        /// The new profile; its `id` must be the registry's jurisdiction.
        #[arg(required_unless_present = "builtin", conflicts_with = "builtin")]
        file: Option<PathBuf>,
        /// Store the profile built into this ms4 under the registry's id.
        #[arg(long)]
        builtin: bool,
    },
    /// Change one network setting in the stored profile (checked and audited as an
    /// update): `ms4 profile set snap_tolerance 0.5ft` (also record_tolerance,
    /// receiving_water_tolerance; units ft, us_ft or m); and the registry's
    /// max_delete_share (`0.25` or `25%`), the share of a layer a replace may delete.
    Set {
        /// The setting: snap_tolerance, record_tolerance or receiving_water_tolerance.
        key: String,
        /// The distance with its unit: 0.5ft, 0.15m.
        value: String,
    },
    /// Every rule id of the profile with its role, citation and the code that decides it.
    Rules {
        /// How to print the list.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

pub(super) async fn run(store_url: &str, a: ProfileArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    match a.action {
        ProfileAction::Show { format } => show(store.as_ref(), format).await,
        ProfileAction::Update { file, builtin } => update(store.as_ref(), file, builtin).await,
        ProfileAction::Set { key, value } => set(store.as_ref(), &key, &value).await,
        ProfileAction::Rules { format } => {
            let loaded = load_stored(store.as_ref(), true).await?;
            super::profile_rules::print(&loaded.profile, format)
        }
    }
}

async fn show(store: &dyn Store, format: Format) -> anyhow::Result<()> {
    let l = load_stored(store, format == Format::Table).await?;
    match format {
        Format::Table => {
            println!(
                "# profile {} as the registry stores it: sha256 {}, from {}, stored {} by {}",
                l.stored.profile_id,
                l.stored.sha256,
                l.stored.source,
                l.stored.stored_at,
                l.stored.stored_by
            );
            print!("{}", l.stored.toml);
            if !l.stored.toml.ends_with('\n') {
                println!();
            }
        }
        Format::Json => {
            let v = serde_json::json!({
                "profile_id": l.stored.profile_id,
                "sha256": l.stored.sha256,
                "source": l.stored.source,
                "stored_at": l.stored.stored_at,
                "stored_by": l.stored.stored_by,
                "newer_builtin_sha256": l.newer_builtin,
                "toml": l.stored.toml,
            });
            println!("{}", serde_json::to_string_pretty(&v)?);
        }
    }
    Ok(())
}

async fn update(store: &dyn Store, file: Option<PathBuf>, builtin: bool) -> anyhow::Result<()> {
    let meta = store.meta().await?;
    let (text, source) = match file {
        Some(path) if !builtin => {
            let text = std::fs::read_to_string(&path)
                .with_context(|| format!("reading the profile {}", path.display()))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.display().to_string());
            (text, name)
        }
        _ => {
            let text = Profile::builtin_text(&meta.jurisdiction).with_context(|| {
                format!("no profile {:?} is built into this ms4", meta.jurisdiction)
            })?;
            (text.to_string(), BUILTIN_SOURCE.to_string())
        }
    };
    let done = profile::store_checked(store, &meta, text, source, &default_actor()).await?;
    say(&done);
    Ok(())
}

/// `ms4 profile set KEY VALUE`: a `[tolerances]` distance, or the registry's
/// `max_delete_share` setting.
async fn set(store: &dyn Store, key: &str, value: &str) -> anyhow::Result<()> {
    // The share a replace may delete is the registry's own setting, not the profile's.
    let share_key = crate::import::settings::MAX_DELETE_SHARE;
    if key == share_key {
        let share =
            crate::import::settings::set_max_delete_share(store, value, &default_actor()).await?;
        println!("{share_key} set to {share}: a --replace may delete up to {:.0}% of a layer without --allow-mass-delete", share * 100.0);
        return Ok(());
    }
    let done = profile::set_tolerance(store, key, value, &default_actor()).await?;
    say(&done);
    Ok(())
}

/// Prints what a profile write did.
fn say(done: &profile::Stored) {
    match done {
        profile::Stored::Unchanged { id, sha256 } => {
            println!("profile {id} unchanged (sha256 {})", short(sha256));
        }
        profile::Stored::Updated { id, from, to } => println!(
            "profile {id} updated: sha256 {} -> {}; a running `ms4 serve` answers with it within a second",
            from.as_deref().map_or("(none)", short),
            short(to)
        ),
    }
}
