//! `ms4 profile`: the jurisdiction profile a registry keeps, and the loader every other
//! command and the server read it through.
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

/// The registry's profile and what was noticed loading it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The profile, parsed and checked.
    pub profile: Profile,
    /// Its stored form.
    pub stored: StoredProfile,
    /// The SHA-256 of this ms4's built-in profile of the same id, when the stored copy
    /// came from a built-in one and differs from it: a newer built-in text, not applied.
    pub newer_builtin: Option<String>,
}

/// Loads the registry's profile for a command, printing the notices (a built-in profile
/// stored on first open, a newer built-in one not applied) on stderr.
pub async fn load(store: &dyn Store) -> anyhow::Result<Profile> {
    Ok(load_stored(store, true).await?.profile)
}

/// Loads the registry's stored profile (storing the built-in one on a registry that has
/// none yet, see the module docs), checked against the registry's jurisdiction.
pub async fn load_stored(store: &dyn Store, notices: bool) -> anyhow::Result<Loaded> {
    let meta = store.meta().await?;
    let stored = match store.stored_profile().await? {
        Some(s) => s,
        None => {
            let Some(text) = Profile::builtin_text(&meta.jurisdiction) else {
                bail!(
                    "the registry keeps only its profile id {:?}, and no profile of that id is \
                     built into this ms4: store the town's profile with \
                     `ms4 profile update {}.toml`",
                    meta.jurisdiction,
                    meta.jurisdiction
                );
            };
            let first = StoredProfile::new(
                &meta.jurisdiction,
                text,
                BUILTIN_SOURCE,
                &format!("{} (first open)", default_actor()),
            );
            // Like a migration, quietly: a log line; the stored row says who and when.
            match store.store_profile(&first, true).await {
                Ok(true) => tracing::info!(
                    profile = %meta.jurisdiction,
                    sha256 = %first.sha256,
                    "the registry kept only its profile id; stored the built-in profile"
                ),
                Ok(false) => {}
                // A registry this user may only read still answers, from the built-in text.
                Err(e) if notices => eprintln!(
                    "warning: could not store the built-in profile {} in the registry ({e}); \
                     using it unstored",
                    meta.jurisdiction
                ),
                Err(_) => {}
            }
            match store.stored_profile().await.ok().flatten() {
                Some(s) => s,
                None => first,
            }
        }
    };
    if stored.profile_id != meta.jurisdiction {
        bail!(
            "the registry's stored profile is {:?} but its jurisdiction is {:?}",
            stored.profile_id,
            meta.jurisdiction
        );
    }
    let source_name = format!(
        "the registry's profile {} ({})",
        stored.profile_id, stored.source
    );
    let (text, taken) = with_new_tables(&stored);
    if !taken.is_empty() && notices {
        eprintln!(
            "warning: the registry's copy of the built-in profile {} predates its [{}] \
             table{}; this ms4's built-in one is used for {}, every value the stored copy \
             has is kept: `ms4 profile update --builtin` stores the whole built-in profile",
            stored.profile_id,
            taken.join("], ["),
            if taken.len() == 1 { "" } else { "s" },
            if taken.len() == 1 { "it" } else { "them" },
        );
    }
    let profile = Profile::with_id(&stored.profile_id, &text, &source_name).with_context(|| {
        "the registry's stored profile no longer loads: replace it with `ms4 profile update FILE`"
    })?;
    let newer_builtin = newer_builtin(&stored);
    if let (Some(hash), true) = (&newer_builtin, notices) {
        eprintln!(
            "warning: this ms4's built-in profile {} (sha256 {}) differs from the copy the \
             registry stores (sha256 {}, stored {}); the stored copy is used: \
             `ms4 profile update --builtin` applies the built-in one",
            stored.profile_id,
            short(hash),
            short(&stored.sha256),
            stored.stored_at
        );
    }
    Ok(Loaded {
        profile,
        stored,
        newer_builtin,
    })
}

/// The stored text, with every top-level table a newer ms4 added to a built-in profile
/// (`[wording]` for North Castle, say) taken from this ms4's built-in copy when the stored
/// built-in copy has no such table at all; and the names of those tables. A table the
/// stored copy has is never touched, and a town's own profile is never filled in: its
/// missing keys are load errors naming them.
fn with_new_tables(stored: &StoredProfile) -> (String, Vec<String>) {
    let unchanged = || (stored.toml.clone(), Vec::new());
    if !stored.is_builtin() {
        return unchanged();
    }
    let Some(builtin) = Profile::builtin_text(&stored.profile_id) else {
        return unchanged();
    };
    let (Ok(mut old), Ok(new)) = (
        stored.toml.parse::<toml::Table>(),
        builtin.parse::<toml::Table>(),
    ) else {
        return unchanged();
    };
    let mut taken = Vec::new();
    for (key, value) in new {
        if value.is_table() && !old.contains_key(&key) {
            taken.push(key.clone());
            old.insert(key, value);
        }
    }
    if taken.is_empty() {
        return unchanged();
    }
    (old.to_string(), taken)
}

/// The built-in text's hash when a stored built-in copy differs from it.
fn newer_builtin(stored: &StoredProfile) -> Option<String> {
    if !stored.is_builtin() {
        return None;
    }
    let text = Profile::builtin_text(&stored.profile_id)?;
    let hash = crate::store::profile::sha256_hex(text);
    (hash != stored.sha256).then_some(hash)
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
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
