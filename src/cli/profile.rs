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

use anyhow::{bail, Context};
use clap::{Args, Subcommand};

use super::Format;
use crate::answer::profile::short;
pub use crate::answer::profile::{load, load_stored, Loaded};
use crate::import::default_actor;
use crate::rules::Profile;
use crate::store::profile::{StoredProfile, BUILTIN_SOURCE};
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
    store_checked(store, &meta, text, source).await
}

/// The settings `ms4 profile set` changes: the `[tolerances]` distances.
const SETTABLE: [&str; 3] = [
    "snap_tolerance",
    "record_tolerance",
    "receiving_water_tolerance",
];

/// Sets one `[tolerances]` distance in the stored profile's text and stores it as an
/// update (checked, audited); the rest of the text, comments included, is kept.
async fn set(store: &dyn Store, key: &str, value: &str) -> anyhow::Result<()> {
    // The share a replace may delete is the registry's own setting, not the profile's.
    let share_key = crate::import::settings::MAX_DELETE_SHARE;
    if key == share_key {
        let share =
            crate::import::settings::set_max_delete_share(store, value, &default_actor()).await?;
        println!("{share_key} set to {share}: a --replace may delete up to {:.0}% of a layer without --allow-mass-delete", share * 100.0);
        return Ok(());
    }
    if !SETTABLE.contains(&key) {
        bail!(
            "{key:?} is not a setting ms4 profile set changes; those are: {}, {share_key}",
            SETTABLE.join(", ")
        );
    }
    let split = value
        .trim()
        .find(|c: char| c.is_ascii_alphabetic())
        .ok_or_else(|| {
            anyhow::anyhow!("{value:?}: give a distance with its unit, e.g. 0.5ft or 0.15m")
        })?;
    let (num, unit) = value.trim().split_at(split);
    let n: f64 = num
        .trim()
        .parse()
        .ok()
        .filter(|n: &f64| n.is_finite() && *n >= 0.0)
        .ok_or_else(|| anyhow::anyhow!("{value:?}: {num:?} is not a distance (0 or more)"))?;
    let unit = match unit.trim() {
        "ft" | "feet" => "ft",
        "us_ft" | "ftUS" => "us_ft",
        "m" => "m",
        other => bail!("{value:?}: unit {other:?}; use ft, us_ft or m"),
    };
    let meta = store.meta().await?;
    let old = store
        .stored_profile()
        .await?
        .ok_or_else(|| anyhow::anyhow!("the registry keeps no profile yet"))?;
    let mut section = String::new();
    let mut done = false;
    let mut lines = Vec::new();
    for line in old.toml.lines() {
        let t = line.trim_start();
        if t.starts_with('[') {
            section = t.trim_end().to_string();
        }
        if !done && section == "[tolerances]" && t.split('=').next().map(str::trim) == Some(key) {
            lines.push(format!("{key} = {{ value = {n:?}, unit = \"{unit}\" }}"));
            done = true;
        } else {
            lines.push(line.to_string());
        }
    }
    if !done {
        bail!(
            "the stored profile has no {key} under [tolerances]; edit it with ms4 profile update"
        );
    }
    let mut text = lines.join("\n");
    text.push('\n');
    store_checked(store, &meta, text, format!("ms4 profile set {key} {value}")).await
}

/// Checks a profile text as `init` does and stores it as the registry's, audited.
async fn store_checked(
    store: &dyn Store,
    meta: &crate::store::RegistryMeta,
    text: String,
    source: String,
) -> anyhow::Result<()> {
    // Checked as `init` checks it: the whole schema, then the registry's id.
    let profile = Profile::from_toml_str(&text, &source)?;
    if profile.id != meta.jurisdiction {
        bail!(
            "{source}: id: the profile is {:?}, but this registry's jurisdiction is {:?}: a \
             registry keeps one jurisdiction (create another with `ms4 init`)",
            profile.id,
            meta.jurisdiction
        );
    }
    let old = store.stored_profile().await?;
    let new = StoredProfile::new(&profile.id, &text, &source, &default_actor());
    if old
        .as_ref()
        .is_some_and(|o| o.sha256 == new.sha256 && o.source == new.source)
    {
        println!(
            "profile {} unchanged (sha256 {})",
            profile.id,
            short(&new.sha256)
        );
        return Ok(());
    }
    store.store_profile(&new, false).await?;
    println!(
        "profile {} updated: sha256 {} -> {}; a running `ms4 serve` answers with it within a second",
        profile.id,
        old.as_ref().map_or("(none)", |o| short(&o.sha256)),
        short(&new.sha256)
    );
    Ok(())
}
