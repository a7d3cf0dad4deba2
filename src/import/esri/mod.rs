//! Esri in one command: a File Geodatabase in the Local Government Information Model or
//! the Utility Network's stormwater schema, read into ms4's layers by a built-in preset.
//!
//! Three steps, each its own module: the [`preset`] says which class fills which layer
//! and where each canonical field comes from (a readable TOML table the analyst can print
//! and override); [`stage`] reads the geodatabase once, decodes coded values and subtypes
//! to words ([`domains`]), sends each feature to its layer and says what it did in a
//! [`mapping::MappingReport`]; then the ordinary import reads the staged tables, every
//! layer in one transaction, with its usual quality report per layer.

pub mod attach;
pub mod domains;
pub mod mapping;
pub mod preset;
pub mod related;
pub mod stage;

use std::path::PathBuf;
use std::sync::Arc;

pub use mapping::MappingReport;
pub use preset::Preset;
pub use stage::Staged;

use super::error::{ImportError, Result};
use super::source::{self, MapArg};
use super::{ImportOptions, ImportReport, InvalidPolicy};
use crate::store::{Store, WriteMode};

/// What an Esri import is asked to do, beside the preset.
#[derive(Debug, Clone)]
pub struct EsriOptions {
    /// The geodatabase (a `.gdb` folder or a zip of one).
    pub path: PathBuf,
    /// `--map canonical=SOURCE[:unit]`, winning over the preset.
    pub maps: Vec<String>,
    /// Report only; write nothing.
    pub dry_run: bool,
    /// Replace each asset layer the geodatabase fills (related inspections are always
    /// added or updated, never replaced).
    pub replace: bool,
    /// With `replace`, let the import delete more than the allowed share of a layer.
    pub allow_mass_delete: bool,
    /// Repair or reject invalid polygons.
    pub invalid: InvalidPolicy,
    /// Who is importing.
    pub actor: String,
    /// Let GDAL open the file with any driver (the command line's choice only).
    pub any_driver: bool,
}

impl EsriOptions {
    /// Options for the geodatabase at `path`: upsert, repair, the current user.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        EsriOptions {
            path: path.into(),
            maps: Vec::new(),
            dry_run: false,
            replace: false,
            allow_mass_delete: false,
            invalid: InvalidPolicy::default(),
            actor: super::default_actor(),
            any_driver: false,
        }
    }

    /// The `--map` entries parsed.
    fn map_args(&self) -> Result<Vec<MapArg>> {
        self.maps
            .iter()
            .map(|m| {
                source::parse_map(m).map_err(|e| ImportError::Invalid {
                    field: "map",
                    message: e.to_string(),
                })
            })
            .collect()
    }
}

/// What an Esri import did: the mapping, then each layer's report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct EsriOutcome {
    /// What was made of every class and field.
    pub mapping: MappingReport,
    /// One report per layer written (or, in a dry run, that would be).
    pub layers: Vec<ImportReport>,
    /// The attachments stored as photos of the inspections (none in a dry run).
    pub photos: Option<attach::PhotoSummary>,
}

impl std::fmt::Display for EsriOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in &self.layers {
            write!(f, "{r}")?;
        }
        if let Some(p) = &self.photos {
            writeln!(
                f,
                "photos from attachments: {} stored, {} already stored, {} attached to no imported inspection{}",
                p.added,
                p.already_stored,
                p.unmatched,
                if p.not_images.is_empty() {
                    String::new()
                } else {
                    format!(", not images: {}", p.not_images.join(", "))
                }
            )?;
        }
        let read: u64 = self.layers.iter().map(|r| r.read).sum();
        writeln!(
            f,
            "{} by the {} preset: {} layers, {read} features read (one transaction)",
            self.mapping.source,
            self.mapping.preset,
            self.layers.len()
        )
    }
}

/// Reads and stages the geodatabase (on the calling thread: GDAL blocks), writing
/// nothing to the registry: its mapping report is ready to show before the import.
pub fn stage(preset: &Preset, opts: &EsriOptions) -> Result<Staged> {
    let maps = opts.map_args()?;
    stage::stage(&opts.path, preset, &maps, opts.any_driver)
}

/// Stages the geodatabase off the async threads, then imports every layer it fills in
/// one transaction. `shown` is called with the mapping report before anything is written.
pub async fn import_esri(
    store: Arc<dyn Store>,
    preset: Preset,
    opts: EsriOptions,
    shown: impl FnOnce(&MappingReport),
) -> Result<EsriOutcome> {
    let for_stage = opts.clone();
    let mut staged = tokio::task::spawn_blocking(move || stage(&preset, &for_stage))
        .await
        .map_err(|e| ImportError::Refused(format!("the geodatabase's reader stopped: {e}")))??;
    let related: u64 = staged
        .layers
        .iter()
        .filter(|s| s.layer == crate::domain::Layer::Inspections)
        .map(|s| s.features)
        .sum();
    if opts.dry_run && related > 0 {
        staged.mapping.warnings.push(format!(
            "the {related} related inspections are imported after their assets are written; a dry run counts them (above) but does not check them"
        ));
    }
    shown(&staged.mapping);
    import_staged(store, &staged, &opts).await
}

/// Imports what [`stage`] staged, every layer in one transaction.
pub async fn import_staged(
    store: Arc<dyn Store>,
    staged: &Staged,
    opts: &EsriOptions,
) -> Result<EsriOutcome> {
    let reads: Vec<ImportOptions> = staged
        .layers
        .iter()
        .map(|s| {
            let mut o = ImportOptions::new(s.layer, staged.path.clone());
            o.src_layer = Some(s.layer.name().to_string());
            o.units = s.units.clone();
            o.dry_run = opts.dry_run;
            o.mode = if opts.replace {
                WriteMode::Replace
            } else {
                WriteMode::Upsert
            };
            o.allow_mass_delete = opts.allow_mass_delete;
            o.invalid = opts.invalid;
            o.actor = opts.actor.clone();
            o
        })
        .collect();
    // Inspections go in after their assets are written, in a transaction of their own:
    // a screening is held to the outfalls the registry has (see `import::inspections`).
    let (inspections, assets): (Vec<ImportOptions>, Vec<ImportOptions>) = reads
        .into_iter()
        .partition(|o| o.layer == crate::domain::Layer::Inspections);
    let mut layers = if assets.is_empty() {
        Vec::new()
    } else {
        super::import_many(store.clone(), assets).await?
    };
    // Never a replace: the registry's inspections come from the field as well as from
    // files, and a geodatabase's table is not the whole of them.
    let inspections: Vec<ImportOptions> = inspections
        .into_iter()
        .map(|mut o| {
            o.mode = WriteMode::Upsert;
            o
        })
        .collect();
    if !inspections.is_empty() && !opts.dry_run {
        layers.extend(super::import_many(store.clone(), inspections).await?);
    }
    let photos = if opts.dry_run || staged.attachments.is_empty() {
        None
    } else {
        Some(attach::store_photos(store.as_ref(), &staged.attachments, &opts.actor).await?)
    };
    // Each report names the geodatabase and its classes, not the staged copy.
    for r in &mut layers {
        r.source = opts.path.display().to_string();
        if let Some(s) = staged.layers.iter().find(|s| s.layer.name() == r.layer) {
            r.source_layer = s.classes.join(", ");
        }
    }
    Ok(EsriOutcome {
        mapping: staged.mapping.clone(),
        layers,
        photos,
    })
}
