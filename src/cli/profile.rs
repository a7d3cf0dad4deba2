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

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::{Args, Subcommand};

use super::Format;
use crate::answer::profile::{self, short};
pub use crate::answer::profile::{load, load_stored, Loaded};
use crate::import::default_actor;
use crate::rules::{Family, Profile, TemplateRequest, PROGRAM_SETTING};
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
    /// Write a documented profile for a town whose law is not built in, to fill from its
    /// text: `ms4 profile new --family ny-conditions --name "Town of X" --state NY`. Every
    /// value the law should give is a program setting until its section is written in.
    New {
        /// The law's families: a land development family (ny-conditions,
        /// ny-general-permit, illicit-discharge-only), an illicit discharge family
        /// (model-ordinance, none), or one of each (`--family ny-conditions,none`).
        #[arg(long = "family", required = true, value_delimiter = ',')]
        families: Vec<String>,
        /// The municipality, as the registry will name itself: "Town of X".
        #[arg(long)]
        name: String,
        /// The profile id (also the file name); from the name and state when left out.
        #[arg(long)]
        id: Option<String>,
        /// Two-letter state code.
        #[arg(long)]
        state: Option<String>,
        /// Where to write it: a file `<id>.toml`, or a folder to write `<id>.toml` in;
        /// printed when left out.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Replace a file that exists.
        #[arg(long)]
        force: bool,
    },
    /// The values of a profile still program settings (citation "program setting, not
    /// from your law"): the registry's, or a profile file's.
    Unfilled {
        /// A profile file to check instead of the registry's.
        file: Option<PathBuf>,
    },
    /// Every rule id of the profile with its role, citation and the code that decides it.
    Rules {
        /// How to print the list.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
}

pub(super) async fn run(store_url: &str, a: ProfileArgs) -> anyhow::Result<()> {
    // A new profile and a file's unfilled list need no registry: it is opened only where
    // an action reads it.
    let open = || crate::store::open(store_url);
    match a.action {
        ProfileAction::New {
            families,
            name,
            id,
            state,
            out,
            force,
        } => {
            let family = Family::from_names(&families).map_err(anyhow::Error::msg)?;
            let req = TemplateRequest {
                family,
                name,
                id,
                state,
            };
            new(&req, out, force)
        }
        ProfileAction::Unfilled { file: Some(path) } => {
            let (text, name) = read_profile_file(&path)?;
            print_unfilled(&Profile::from_toml_str(&text, &name)?);
            Ok(())
        }
        ProfileAction::Unfilled { file: None } => {
            let store = open().await?;
            print_unfilled(&load_stored(store.as_ref(), true).await?.profile);
            Ok(())
        }
        ProfileAction::Show { format } => show(open().await?.as_ref(), format).await,
        ProfileAction::Update { file, builtin } => {
            update(open().await?.as_ref(), file, builtin).await
        }
        ProfileAction::Set { key, value } => set(open().await?.as_ref(), &key, &value).await,
        ProfileAction::Rules { format } => {
            let loaded = load_stored(open().await?.as_ref(), true).await?;
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
        Some(path) if !builtin => read_profile_file(&path)?,
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

/// A profile file's text and the name its errors carry.
fn read_profile_file(path: &Path) -> anyhow::Result<(String, String)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the profile {}", path.display()))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    Ok((text, name))
}

/// `ms4 profile new`: writes the template (to stdout without `--out`), then says what is
/// left to fill and how to start a registry on it.
fn new(req: &TemplateRequest, out: Option<PathBuf>, force: bool) -> anyhow::Result<()> {
    let template = Profile::template(req)?;
    let file_name = format!("{}.toml", template.id);
    let Some(out) = out else {
        print!("{}", template.text);
        return Ok(());
    };
    let path = if out.is_dir() {
        out.join(&file_name)
    } else {
        out
    };
    if path.file_name().and_then(|n| n.to_str()) != Some(file_name.as_str()) {
        anyhow::bail!(
            "the profile {:?} must be saved as {file_name} (a profile's file name is its id): \
             give --out {}, a folder, or --id {}",
            template.id,
            path.with_file_name(&file_name).display(),
            path.file_stem()
                .map(|s| s.to_string_lossy())
                .unwrap_or_default()
        );
    }
    if path.exists() && !force {
        anyhow::bail!(
            "{} exists: give --force to replace it, or another --out",
            path.display()
        );
    }
    std::fs::write(&path, &template.text)
        .with_context(|| format!("writing the profile {}", path.display()))?;
    let profile = Profile::from_toml_str(&template.text, &file_name)?;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    println!(
        "wrote {} for {} ({} / {}): {} values are program settings until read from the law \
         (`ms4 profile unfilled {}` lists them)",
        path.display(),
        profile.name,
        profile.family.land_development,
        profile.family.illicit_discharge,
        profile.unfilled().len(),
        path.display()
    );
    println!(
        "start a registry on it: ms4 init --jurisdiction {} --profiles {} --crs EPSG:<code>",
        profile.id,
        folder.display()
    );
    Ok(())
}

/// Prints the keys of a profile still marked as program settings.
fn print_unfilled(profile: &Profile) {
    let keys = profile.unfilled();
    if keys.is_empty() {
        println!(
            "profile {}: every value cites the law (none is \"{PROGRAM_SETTING}\")",
            profile.id
        );
        return;
    }
    println!(
        "profile {}: {} values cite \"{PROGRAM_SETTING}\"; write the law's section over each:",
        profile.id,
        keys.len()
    );
    for key in keys {
        println!("  {key}");
    }
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
