//! The import quality report: what was read, imported, rejected and changed, and why.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use crate::store::WriteSummary;

/// Why one feature was not imported, or what was done to it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FeatureNote {
    /// The feature's FID in the source (or its 1-based position when the format has none).
    pub feature: u64,
    /// Its id, when it has one.
    pub id: Option<String>,
    /// The field concerned, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// What was wrong, in words.
    pub reason: String,
}

/// Counts of problems by kind.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct ProblemCounts {
    /// Features without a geometry where the layer needs one.
    pub missing_geometry: u64,
    /// Features with an empty geometry.
    pub empty_geometry: u64,
    /// Features whose geometry type the layer cannot hold.
    pub wrong_geometry_type: u64,
    /// Invalid geometries that were rejected.
    pub invalid_geometry: u64,
    /// Features without an id.
    pub missing_id: u64,
    /// Features whose id was already seen earlier in the file.
    pub duplicate_id: u64,
    /// Features without a value for a required field.
    pub missing_required: u64,
    /// Features with a value that cannot be read as its field's type.
    pub bad_value: u64,
    /// Features whose coordinates could not be transformed into the registry's CRS.
    pub transform_failed: u64,
    /// Features lying outside the registry CRS's area of use, or far beyond the boundary.
    pub misplaced: u64,
}

/// A unit conversion a mapping asked for (`--map diameter_in=SPAN:ft`).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnitConversion {
    /// The canonical field (`diameter_in`).
    pub field: String,
    /// The source field its values came from (`SPAN`).
    pub source_field: String,
    /// The unit the source gives them in (`ft`).
    pub from: String,
    /// The unit they are stored in (`in`).
    pub to: String,
    /// How many values were converted (of the features converted by this import).
    pub values: u64,
}

/// A field whose values look like another unit than the one they are stored in: a
/// warning, the features imported all the same.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UnitWarning {
    /// The registry layer.
    pub layer: String,
    /// The canonical field (`diameter_in`).
    pub field: String,
    /// The unit the field is stored in (`in`).
    pub unit: String,
    /// The values looked at.
    pub values: u64,
    /// The share of them (0 to 1) that look like another unit.
    pub share: f64,
    /// What they look like, in words (`under 5 in`).
    pub looks: String,
    /// The unit they are more likely in (`ft`, `m`, `mm`).
    pub suggested_unit: String,
    /// The warning in words, as `warnings` has it too.
    pub message: String,
}

/// What a write does to a layer, as counts: a dry run's (what the write would do,
/// decided as a write decides, with nothing written).
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct WriteCounts {
    /// New features.
    pub inserted: u64,
    /// Features whose values or geometry change.
    pub updated: u64,
    /// Features written again with nothing changed.
    pub unchanged: u64,
    /// Features a replace deletes.
    pub deleted: u64,
}

/// The features an import inserted or updated (in a dry run: would), for a page to
/// highlight and frame: the first ids and the box of them all in WGS 84.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ChangedSummary {
    /// The first ids (at most [`crate::store::CHANGED_IDS`]).
    pub ids: Vec<String>,
    /// How many more were changed than `ids` lists.
    pub more: u64,
    /// The box of every one of them, `[west, south, east, north]` in degrees of
    /// longitude and latitude (WGS 84); absent when none has a geometry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extent: Option<[f64; 4]>,
}

/// The quality report of one import (also printed for `--dry-run`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct ImportReport {
    /// The file read.
    pub source: String,
    /// The layer within the file.
    pub source_layer: String,
    /// The registry layer written.
    pub layer: String,

    /// The source's CRS, as found or as given with `--s-srs`.
    pub source_crs: Option<String>,
    /// The registry's CRS.
    pub target_crs: String,
    /// How each canonical field was filled: canonical name → source field.
    pub field_map: BTreeMap<String, String>,
    /// Source fields kept as extra attributes.
    pub extra_fields: Vec<String>,
    /// Features the source declares it holds (a shapefile's index, a layer's count),
    /// when it declares one.
    pub declared: Option<u64>,
    /// The `--where` condition that selected the features read, when one was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// With `--where`: the features the source holds before the condition, when it says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_features: Option<u64>,
    /// Where ids came from when they were made (`--id` or `--id-prefix`), not read from
    /// one field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ids: Option<String>,
    /// Features read from the source.
    pub read: u64,
    /// Features accepted (written unless this is a dry run).
    pub imported: u64,
    /// Features rejected.
    pub rejected: u64,
    /// Problem counts by kind.
    pub problems: ProblemCounts,
    /// Each rejected feature and why.
    pub rejections: Vec<FeatureNote>,
    /// Invalid geometries that were repaired, and what was wrong with them.
    pub repaired: Vec<FeatureNote>,
    /// Values converted to their field's type (Y/N to booleans, text to dates...), by field.
    pub converted: BTreeMap<String, u64>,
    /// The unit conversions mappings asked for (`--map diameter_in=SPAN:ft`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<UnitConversion>,
    /// Fields whose values look like another unit (diameters mostly under 5 "inches").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unit_warnings: Vec<UnitWarning>,
    /// Features lying outside the jurisdiction's boundary (imported, but worth a look).
    pub outside_boundary: Vec<String>,
    /// With `--replace`: the ids of the layer's features the file does not carry, which
    /// the import deletes (or, in a dry run, would delete).
    pub deletes: Vec<String>,
    /// Things the analyst should know (assumptions taken, fields ignored).
    pub warnings: Vec<String>,
    /// True when nothing was written.
    pub dry_run: bool,
    /// What the write did (absent for a dry run).
    pub written: Option<WriteSummary>,
    /// What the write would do, for a dry run: decided against the layer as it stands,
    /// as a write decides (absent when the import wrote).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub would_write: Option<WriteCounts>,
    /// The features inserted or updated (in a dry run: that would be), their first ids
    /// and extent in longitude and latitude.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<ChangedSummary>,
    /// Seconds the import took.
    pub seconds: f64,
    /// A copy of the features handed to the write, when the import asked to keep them
    /// ([`super::ImportOptions::keep_written`]) and they were no more than that.
    #[serde(skip)]
    pub kept: Option<Vec<crate::domain::Feature>>,
}

impl ImportReport {
    /// Records a rejected feature.
    pub fn reject(
        &mut self,
        feature: u64,
        id: Option<&str>,
        field: Option<&str>,
        reason: impl Into<String>,
    ) {
        self.rejected += 1;
        self.rejections.push(FeatureNote {
            feature,
            id: id.map(str::to_string),
            field: field.map(str::to_string),
            reason: reason.into(),
        });
    }
}

impl fmt::Display for ImportReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_source(f)?;
        self.fmt_counts(f)?;
        self.fmt_notes(f)?;
        writeln!(f, "  took {:.2} s", self.seconds)
    }
}

impl ImportReport {
    /// What was read and how: source, CRS, field map, filter, ids.
    fn fmt_source(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "import {} <- {} (layer {})",
            self.layer, self.source, self.source_layer
        )?;
        writeln!(
            f,
            "  CRS        {} -> {}",
            self.source_crs.as_deref().unwrap_or("none"),
            self.target_crs
        )?;
        let map: Vec<String> = self
            .field_map
            .iter()
            .map(|(k, v)| {
                if k == v {
                    k.clone()
                } else {
                    format!("{k}={v}")
                }
            })
            .collect();
        writeln!(f, "  fields     {}", map.join(", "))?;
        if !self.extra_fields.is_empty() {
            writeln!(
                f,
                "  kept as extra attributes: {}",
                self.extra_fields.join(", ")
            )?;
        }
        if let Some(w) = &self.filter {
            let of = self
                .source_features
                .map(|n| format!(" ({n} in the source)"))
                .unwrap_or_default();
            writeln!(f, "  where      {w}{of}")?;
        }
        if let Some(i) = &self.ids {
            writeln!(f, "  ids        {i}")?;
        }
        Ok(())
    }

    /// The counts: read, imported, rejected by problem, repaired, converted, outside, deleted, written.
    fn fmt_counts(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  read       {}", self.read)?;
        writeln!(
            f,
            "  imported   {}{}",
            self.imported,
            if self.dry_run {
                " (dry run: nothing written)"
            } else {
                ""
            }
        )?;
        writeln!(f, "  rejected   {}", self.rejected)?;
        let p = &self.problems;
        for (name, n) in [
            ("missing geometry", p.missing_geometry),
            ("empty geometry", p.empty_geometry),
            ("wrong geometry type", p.wrong_geometry_type),
            ("invalid geometry", p.invalid_geometry),
            ("missing id", p.missing_id),
            ("duplicate id", p.duplicate_id),
            ("missing required field", p.missing_required),
            ("unreadable value", p.bad_value),
            ("CRS transform failed", p.transform_failed),
            ("outside area of use", p.misplaced),
        ] {
            if n > 0 {
                writeln!(f, "    {name:<24} {n}")?;
            }
        }
        writeln!(f, "  repaired   {}", self.repaired.len())?;
        for (field, n) in &self.converted {
            writeln!(f, "  converted  {field}: {n} values")?;
        }
        for u in &self.units {
            writeln!(
                f,
                "  unit       {} <- {}: {} values from {} to {}",
                u.field, u.source_field, u.values, u.from, u.to
            )?;
        }
        if !self.outside_boundary.is_empty() {
            writeln!(
                f,
                "  outside the jurisdiction's boundary: {}",
                self.outside_boundary.len()
            )?;
        }
        if !self.deletes.is_empty() {
            const SHOW_IDS: usize = 20;
            let shown: Vec<&str> = self
                .deletes
                .iter()
                .take(SHOW_IDS)
                .map(String::as_str)
                .collect();
            writeln!(
                f,
                "  {} {}: {}{}",
                if self.dry_run {
                    "would delete"
                } else {
                    "deletes   "
                },
                self.deletes.len(),
                shown.join(", "),
                if self.deletes.len() > SHOW_IDS {
                    ", ..."
                } else {
                    ""
                }
            )?;
        }
        if let Some(w) = &self.would_write {
            writeln!(
                f,
                "  would write {} inserted, {} updated, {} unchanged, {} deleted (dry run)",
                w.inserted, w.updated, w.unchanged, w.deleted
            )?;
        }
        if let Some(w) = &self.written {
            writeln!(
                f,
                "  written    {} inserted, {} updated, {} unchanged, {} deleted (import #{})",
                w.inserted, w.updated, w.unchanged, w.deleted, w.import_id
            )?;
        }
        Ok(())
    }

    /// The warnings, then the rejected and repaired features (the first few of each).
    fn fmt_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        const SHOW: usize = 50;
        for (title, notes) in [("rejected", &self.rejections), ("repaired", &self.repaired)] {
            for n in notes.iter().take(SHOW) {
                let id =
                    n.id.as_deref()
                        .map(|i| format!(" id {i}"))
                        .unwrap_or_default();
                let field = n
                    .field
                    .as_deref()
                    .map(|i| format!(" field {i}:"))
                    .unwrap_or_default();
                writeln!(
                    f,
                    "  {title}: feature {}{id}:{field} {}",
                    n.feature, n.reason
                )?;
            }
            if notes.len() > SHOW {
                writeln!(
                    f,
                    "  ... and {} more {title} (use --format json for all)",
                    notes.len() - SHOW
                )?;
            }
        }
        Ok(())
    }
}
