//! Loading the registry's jurisdiction profile: what every command and the server read
//! it through. The registry stores its profile whole; a registry made by an older ms4
//! keeps only the profile's id, and on its first open the built-in profile of that id is
//! stored quietly (as a migration is) and used from then on. A built-in profile in this
//! ms4 that differs from a built-in copy stored earlier is reported, never applied.

use anyhow::{bail, Context};

use crate::import::default_actor;
use crate::rules::Profile;
use crate::store::profile::{Edited, StoredProfile, BUILTIN_SOURCE};
use crate::store::Store;

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

/// The first 12 hex digits of a hash, as notices print it.
pub(crate) fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// What a profile write did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// The text was the one stored already: nothing written.
    Unchanged {
        /// The profile's id.
        id: String,
        /// The stored text's SHA-256.
        sha256: String,
    },
    /// Stored and audited.
    Updated {
        /// The profile's id.
        id: String,
        /// The SHA-256 of the text it replaced (none: the registry kept none).
        from: Option<String>,
        /// The new text's SHA-256.
        to: String,
    },
}

/// Checks a profile text as `init` does (the whole schema, then the registry's id) and
/// stores it as the registry's, audited; a text already stored from the same source is
/// left as it is.
pub async fn store_checked(
    store: &dyn Store,
    meta: &crate::store::RegistryMeta,
    text: String,
    source: String,
    actor: &str,
) -> anyhow::Result<Stored> {
    let (new, old) = checked(store, meta, &text, &source, actor).await?;
    if let Some(same) = unchanged(&new, old.as_ref()) {
        return Ok(same);
    }
    store.store_profile(&new, false).await?;
    Ok(updated(new, old))
}

/// The settings [`set_tolerance`] changes: the `[tolerances]` distances.
pub const SETTABLE: [&str; 3] = [
    "snap_tolerance",
    "record_tolerance",
    "receiving_water_tolerance",
];

/// Sets one `[tolerances]` distance in the stored profile's text (the rest of the text,
/// comments included, kept) and stores it, checked and audited. The change is made to
/// the text as stored inside the write's transaction, under its lock, so a change landing
/// at the same moment is never written over, and this one is made on its text.
pub async fn set_tolerance(
    store: &dyn Store,
    key: &str,
    value: &str,
    actor: &str,
) -> anyhow::Result<Stored> {
    if !SETTABLE.contains(&key) {
        bail!(
            "{key:?} is not a setting ms4 profile set changes; those are: {}, {}",
            SETTABLE.join(", "),
            crate::import::settings::MAX_DELETE_SHARE
        );
    }
    let (n, unit) = parse_distance(value)?;
    let meta = store.meta().await?;
    let source = format!("ms4 profile set {key} {value}");
    let edit = |old: &StoredProfile| {
        with_tolerance(&old.toml, key, n, unit)
            .and_then(|text| checked_text(&meta, &text, &source, actor))
            .map_err(|e| crate::store::StoreError::Refused {
                field: key.to_string(),
                message: format!("{e:#}"),
            })
    };
    match store.edit_profile(&edit).await? {
        Edited::NoProfile => bail!("the registry keeps no profile yet"),
        Edited::Unchanged(old) => Ok(Stored::Unchanged {
            id: old.profile_id,
            sha256: old.sha256,
        }),
        Edited::Replaced { old, new } => Ok(updated(new, Some(old))),
    }
}

/// Reads a distance with its unit (`0.5ft`, `0.15 m`): the number and the profile's unit.
fn parse_distance(value: &str) -> anyhow::Result<(f64, &'static str)> {
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
    Ok((n, unit))
}

/// The profile text with `key` under `[tolerances]` set to `n` `unit`, every other line
/// as it was.
fn with_tolerance(text: &str, key: &str, n: f64, unit: &str) -> anyhow::Result<String> {
    let mut section = String::new();
    let mut done = false;
    let mut lines = Vec::new();
    for line in text.lines() {
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
    Ok(text)
}

/// The text checked as `init` checks it, as the profile to store, with the one stored now.
async fn checked(
    store: &dyn Store,
    meta: &crate::store::RegistryMeta,
    text: &str,
    source: &str,
    actor: &str,
) -> anyhow::Result<(StoredProfile, Option<StoredProfile>)> {
    let new = checked_text(meta, text, source, actor)?;
    let old = store.stored_profile().await?;
    Ok((new, old))
}

/// A profile text checked as `init` checks it (the whole schema, then the registry's
/// id), as the row to store.
fn checked_text(
    meta: &crate::store::RegistryMeta,
    text: &str,
    source: &str,
    actor: &str,
) -> anyhow::Result<StoredProfile> {
    let profile = Profile::from_toml_str(text, source)?;
    if profile.id != meta.jurisdiction {
        bail!(
            "{source}: id: the profile is {:?}, but this registry's jurisdiction is {:?}: a \
             registry keeps one jurisdiction (create another with `ms4 init`)",
            profile.id,
            meta.jurisdiction
        );
    }
    Ok(StoredProfile::new(&profile.id, text, source, actor))
}

/// `Unchanged` when the new text and its source are the stored ones.
fn unchanged(new: &StoredProfile, old: Option<&StoredProfile>) -> Option<Stored> {
    old.filter(|o| o.sha256 == new.sha256 && o.source == new.source)
        .map(|o| Stored::Unchanged {
            id: o.profile_id.clone(),
            sha256: o.sha256.clone(),
        })
}

fn updated(new: StoredProfile, old: Option<StoredProfile>) -> Stored {
    Stored::Updated {
        id: new.profile_id,
        from: old.map(|o| o.sha256),
        to: new.sha256,
    }
}
