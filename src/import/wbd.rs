//! USGS Watershed Boundary Dataset (WBD) HUC-12 units as the registry's watersheds.
//!
//! A WBD HU-12 layer is read by the ordinary import (any format it reads, its CRS, its
//! quality report, its one transaction and audit), with its fields named for it:
//! `watershed_id` from `HUC12`, `name` from `NAME`, `drains_to` from `TOHUC` (any case,
//! as WBD's own downloads spell them; `HUC_12`, `HU_12_NAME` and `HU_12_DS` in releases
//! before 2014), every other field kept as an extra attribute.
//!
//! `drains_to` follows `TOHUC` as WBD writes it, so the chain of units downstream can be
//! walked. Before the import, every `TOHUC` is read and judged, and the report lists:
//! a code of a unit neither the file nor the registry holds (kept as the code: the unit
//! downstream is simply not loaded), a WBD word for the end of the chain (`OCEAN`,
//! `CLOSED BASIN`, `CANADA`, `MEXICO`: kept as written), a value that is neither, and a
//! unit without one.

use std::collections::BTreeSet;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gdal::vector::LayerAccess;
use serde::Serialize;

use super::attains::Note;
use super::error::{ImportError, Result};
use super::source::{self, CsvGeometry};
use super::{ImportOutcome, ImportReport, ImportRequest, RunContext};
use crate::domain::Layer;
use crate::store::Store;

/// WBD's words for where a chain of units ends, with what each means.
pub const TERMINAL_WORDS: &[(&str, &str)] = &[
    ("OCEAN", "drains to the ocean"),
    ("CLOSED BASIN", "a closed basin: drains to no other unit"),
    ("CANADA", "drains across the border into Canada"),
    ("MEXICO", "drains across the border into Mexico"),
];

/// What to load and how.
#[derive(Debug, Clone)]
pub struct WbdOptions {
    /// The WBD file (a HU-12 layer: Shapefile, GeoPackage, File Geodatabase, GeoJSON...).
    pub path: PathBuf,
    /// The layer inside the file (`WBDHU12` in WBD's own downloads).
    pub src_layer: Option<String>,
    /// Report only; write nothing.
    pub dry_run: bool,
    /// Replace the watersheds: delete those the file does not carry.
    pub replace: bool,
    /// Who loads (for the audit log).
    pub actor: String,
}

/// The import's report, and what `TOHUC` says of each unit.
#[derive(Debug, Clone, Serialize)]
pub struct WbdReport {
    /// The import's quality report.
    pub import: ImportReport,
    /// Units whose `TOHUC` names a unit the file and the registry do not hold, or is not
    /// a HUC-12 code or WBD word, or is missing (the value, when there is one, is kept).
    pub drains_to: Vec<Note>,
    /// Units at the end of a chain (`OCEAN`, `CLOSED BASIN`...), with what the word means.
    pub terminal: Vec<Note>,
}

/// Loads a WBD HU-12 layer into the watersheds.
pub async fn import_wbd(store: Arc<dyn Store>, opts: WbdOptions) -> Result<WbdReport> {
    let registry: BTreeSet<String> = store
        .features(Layer::Watersheds)
        .await?
        .into_iter()
        .map(|f| f.id)
        .collect();
    let path = opts.path.clone();
    let wanted = opts.src_layer.clone();
    let (fields, units) = tokio::task::spawn_blocking(move || read_tohuc(&path, wanted.as_deref()))
        .await
        .map_err(|e| ImportError::Refused(format!("the WBD reader stopped: {e}")))??;
    let (drains_to, terminal) = judge(&units, &registry);
    let request = ImportRequest {
        layer: Some(Layer::Watersheds.name().to_string()),
        map: vec![
            format!("watershed_id={}", fields.huc12),
            format!("drains_to={}", fields.tohuc),
        ]
        .into_iter()
        .chain(fields.name.map(|n| format!("name={n}")))
        .collect(),
        src_layer: opts.src_layer.clone(),
        dry_run: opts.dry_run,
        replace: opts.replace,
        ..Default::default()
    };
    let mut ctx = RunContext::new(&opts.path);
    ctx.actor = opts.actor.clone();
    let outcome = request.plan(ctx)?.run(store).await?;
    let import = match outcome {
        ImportOutcome::One(r) => *r,
        ImportOutcome::Split(_) | ImportOutcome::Esri(_) => {
            return Err(ImportError::Refused(
                "a WBD load writes the watersheds only".into(),
            ))
        }
    };
    Ok(WbdReport {
        import,
        drains_to,
        terminal,
    })
}

/// The source's names of WBD's fields.
struct WbdFields {
    huc12: String,
    tohuc: String,
    name: Option<String>,
}

/// Reads each unit's `HUC12` and `TOHUC` (blank ones as `None`), through the same
/// checks and allow-listed drivers as the import.
#[allow(clippy::type_complexity)]
fn read_tohuc(
    path: &Path,
    src_layer: Option<&str>,
) -> Result<(WbdFields, Vec<(Option<String>, Option<String>)>)> {
    let shown = path.display().to_string();
    source::check_source(path, false)?;
    let opened = source::open(path, &CsvGeometry::None, false)?;
    let mut layer = source::pick_layer(&opened.ds, &shown, src_layer, Layer::Watersheds)?;
    let names: Vec<String> = layer.defn().fields().map(|f| f.name()).collect();
    // WBD's names since 2014, then the older releases' (`HUC_12`, `HU_12_DS`...).
    let find = |want: &[&str]| {
        want.iter()
            .find_map(|w| names.iter().position(|n| n.eq_ignore_ascii_case(w)))
    };
    let missing = |want: &str| ImportError::MissingField {
        path: shown.clone(),
        src_layer: layer_name(src_layer),
        layer: Layer::Watersheds.name().into(),
        field: want.into(),
        available: names.join(", "),
    };
    let huc = find(&["HUC12", "HUC_12"]).ok_or_else(|| missing("HUC12"))?;
    let to = find(&["TOHUC", "HU_12_DS"]).ok_or_else(|| missing("TOHUC"))?;
    let fields = WbdFields {
        huc12: names[huc].clone(),
        tohuc: names[to].clone(),
        name: find(&["NAME", "HU_12_NAME"]).map(|i| names[i].clone()),
    };
    let text = |f: &gdal::vector::Feature<'_>, i: usize| {
        f.field_as_string(i)
            .ok()
            .flatten()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let units = layer
        .features()
        .map(|f| (text(&f, huc), text(&f, to)))
        .collect();
    Ok((fields, units))
}

fn layer_name(src_layer: Option<&str>) -> String {
    src_layer.unwrap_or("(the only layer)").to_string()
}

/// Whether a value is a HUC-12 code: twelve digits.
fn is_huc12(s: &str) -> bool {
    s.len() == 12 && s.bytes().all(|b| b.is_ascii_digit())
}

/// Judges each unit's `TOHUC` against the units of the file and of the registry.
fn judge(
    units: &[(Option<String>, Option<String>)],
    registry: &BTreeSet<String>,
) -> (Vec<Note>, Vec<Note>) {
    let in_file: BTreeSet<&str> = units.iter().filter_map(|(h, _)| h.as_deref()).collect();
    let mut drains_to = Vec::new();
    let mut terminal = Vec::new();
    for (huc, to) in units {
        let Some(huc) = huc else {
            continue; // the import rejects it, naming the feature
        };
        let note = |reason: String| Note {
            record: "HUC-12".into(),
            id: huc.clone(),
            reason,
        };
        let Some(to) = to else {
            drains_to.push(note(
                "TOHUC is empty: drains_to is left empty (where it drains is not recorded)".into(),
            ));
            continue;
        };
        let word = to.to_ascii_uppercase();
        if let Some((w, means)) = TERMINAL_WORDS.iter().find(|(w, _)| *w == word) {
            terminal.push(note(format!(
                "TOHUC {w}: {means}; drains_to keeps the word"
            )));
        } else if !is_huc12(to) {
            drains_to.push(note(format!(
                "TOHUC {to:?} is neither a HUC-12 code nor a WBD word ({}): kept as written, for review",
                TERMINAL_WORDS
                    .iter()
                    .map(|(w, _)| *w)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        } else if !in_file.contains(to.as_str()) && !registry.contains(to) {
            drains_to.push(note(format!(
                "TOHUC {to} is a unit neither the file nor the registry holds: drains_to keeps the code"
            )));
        }
    }
    (drains_to, terminal)
}

impl fmt::Display for WbdReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.import)?;
        for n in &self.terminal {
            writeln!(f, "  end of chain: {} {}: {}", n.record, n.id, n.reason)?;
        }
        for n in &self.drains_to {
            writeln!(f, "  drains_to: {} {}: {}", n.record, n.id, n.reason)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(Some("020301010102"), 0, 0)] // in the file
    #[case(Some("020301019999"), 1, 0)] // nowhere: kept, reported
    #[case(Some("020301010777"), 0, 0)] // in the registry
    #[case(Some("OCEAN"), 0, 1)]
    #[case(Some("Closed Basin"), 0, 1)]
    #[case(Some("SOUND"), 1, 0)]
    #[case(None, 1, 0)]
    fn tohuc_values_are_judged(
        #[case] to: Option<&str>,
        #[case] reported: usize,
        #[case] ends: usize,
    ) {
        let units = vec![
            (Some("020301010101".to_string()), to.map(str::to_string)),
            (Some("020301010102".to_string()), Some("OCEAN".to_string())),
        ];
        let registry: BTreeSet<String> = ["020301010777".to_string()].into();
        let (d, t) = judge(&units, &registry);
        assert_eq!(d.len(), reported, "{d:?}");
        // The second unit always ends its chain at the ocean.
        assert_eq!(t.len(), ends + 1, "{t:?}");
    }
}
