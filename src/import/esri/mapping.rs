//! The mapping report: what an Esri import will do with every class and field of the
//! geodatabase, said before anything is written. Every class is used or left (with why);
//! every field of a used class is used for a canonical field, kept as an extra, or
//! ignored; every domain applied is named with how many values it decoded, and every
//! code it does not have is listed with its count, never guessed.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// What the preset makes of a geodatabase.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MappingReport {
    /// The preset applied.
    pub preset: String,
    /// The geodatabase.
    pub source: String,
    /// The classes read, in the file's order.
    pub classes: Vec<ClassMapping>,
    /// The classes, tables and relationship classes not read, with why.
    pub left: Vec<LeftClass>,
    /// The unit each length's source was read in, and who said so.
    pub units: Vec<UnitUse>,
    /// Each coded-value domain applied to a field of a class.
    pub domains: Vec<DomainUse>,
    /// Codes found in a field that its domain does not have.
    pub unknown_codes: Vec<UnknownCode>,
    /// Values of a split field that no layer of the preset takes.
    pub not_taken: Vec<NotTaken>,
    /// Each related table joined (or not) through a relationship class.
    pub related: Vec<RelatedUse>,
    /// Each attachments table read, whose rows become photos of the inspections.
    pub attachments: Vec<AttachmentUse>,
    /// Canonical date values left empty as the preset's "no date" placeholders, by
    /// `class.FIELD`.
    pub null_dates: BTreeMap<String, u64>,
    /// Anything else the analyst should know.
    pub warnings: Vec<String>,
}

/// One class read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClassMapping {
    /// The class's name in the file.
    pub class: String,
    /// Its features.
    pub features: u64,
    /// The field whose value picked each feature's layer, for a split class.
    pub split_by: Option<String>,
    /// The subtype field the class's definition names, when GDAL gave the definition.
    pub subtype_field: Option<String>,
    /// How many features went to each layer.
    pub layers: BTreeMap<String, u64>,
    /// `layer.canonical ← SOURCE` (or `= "value"` for the preset's constants).
    pub used: Vec<String>,
    /// Source fields kept as extra attributes.
    pub extra: Vec<String>,
    /// Source fields the preset ignores.
    pub ignored: Vec<String>,
    /// The editor-tracking fields among the extras (who made and last edited each
    /// feature, and when), carried with every feature.
    pub editor_tracking: Vec<String>,
}

/// A class, table or relationship class not read.
#[derive(Debug, Clone, Serialize)]
pub struct LeftClass {
    /// Its name.
    pub name: String,
    /// Its rows, when it has any.
    pub features: Option<u64>,
    /// Why it was not read.
    pub why: String,
}

/// The unit a canonical field's source is read in.
#[derive(Debug, Clone, Serialize)]
pub struct UnitUse {
    /// The canonical field.
    pub field: String,
    /// The unit.
    pub unit: String,
    /// `preset` or `--map`.
    pub from: String,
}

/// A coded-value domain applied.
#[derive(Debug, Clone, Serialize)]
pub struct DomainUse {
    /// The class.
    pub class: String,
    /// The field.
    pub field: String,
    /// The domain (for a subtype field: `subtypes`).
    pub domain: String,
    /// Values decoded to their words.
    pub decoded: u64,
}

/// A code its domain does not have.
#[derive(Debug, Clone, Serialize)]
pub struct UnknownCode {
    /// The class.
    pub class: String,
    /// The field.
    pub field: String,
    /// The domain it should be in.
    pub domain: String,
    /// The code as the file has it.
    pub code: String,
    /// Features carrying it.
    pub count: u64,
}

/// A related table and what its join made.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RelatedUse {
    /// The relationship class.
    pub relationship: String,
    /// The parent class.
    pub parent: String,
    /// The related table.
    pub table: String,
    /// `PARENT_KEY = TABLE_KEY`.
    pub key: String,
    /// The table's rows.
    pub rows: u64,
    /// Rows joined to a parent and made inspections.
    pub joined: u64,
    /// Rows whose key no parent carries (left out).
    pub orphaned: u64,
    /// The first orphans' keys, to look for.
    pub orphan_keys: Vec<String>,
    /// Rows joined to a parent whose layer the preset gives no inspection kind, by layer.
    pub without_kind: BTreeMap<String, u64>,
    /// Inspections made, by kind.
    pub kinds: BTreeMap<String, u64>,
    /// `inspections.field <- SOURCE`.
    pub used: Vec<String>,
    /// Why the table was not joined at all, if it was not.
    pub why_not: Option<String>,
}

/// An attachments table read for photos.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AttachmentUse {
    /// The `__ATTACH` table.
    pub table: String,
    /// Its rows.
    pub rows: u64,
    /// Their bytes in all.
    pub bytes: u64,
    /// Why it was not read, if it was not.
    pub why_not: Option<String>,
}

/// A split value no layer takes.
#[derive(Debug, Clone, Serialize)]
pub struct NotTaken {
    /// The class.
    pub class: String,
    /// The split field.
    pub field: String,
    /// The value (its word where it has one, else the code; empty for none).
    pub value: String,
    /// Features carrying it, left out of the import.
    pub count: u64,
}

impl fmt::Display for MappingReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "mapping of {} by the {} preset",
            self.source, self.preset
        )?;
        for c in &self.classes {
            write!(f, "{c}")?;
        }
        for u in &self.units {
            writeln!(f, "  unit: {} read in {} ({})", u.field, u.unit, u.from)?;
        }
        for d in &self.domains {
            writeln!(
                f,
                "  domain {} on {}.{}: {} values decoded",
                d.domain, d.class, d.field, d.decoded
            )?;
        }
        for u in &self.unknown_codes {
            writeln!(
                f,
                "  unknown code {:?} in {}.{} (domain {}): {} features; the field is left empty and the code kept in {}_unknown_code",
                u.code, u.class, u.field, u.domain, u.count, u.field
            )?;
        }
        for (field, n) in &self.null_dates {
            writeln!(
                f,
                "  {field}: {n} placeholder dates (the preset's null_dates) left empty"
            )?;
        }
        for n in &self.not_taken {
            writeln!(
                f,
                "  not taken: {} {}={:?}: {} features (no layer of the preset takes it)",
                n.class, n.field, n.value, n.count
            )?;
        }
        for r in &self.related {
            write!(f, "{r}")?;
        }
        for a in &self.attachments {
            match &a.why_not {
                Some(why) => writeln!(f, "  attachments {}: not read: {why}", a.table)?,
                None => writeln!(
                    f,
                    "  attachments {}: {} rows ({} bytes), stored as photos of their inspections after the import",
                    a.table, a.rows, a.bytes
                )?,
            }
        }
        for l in &self.left {
            match l.features {
                Some(n) => writeln!(f, "  left {} ({n} rows): {}", l.name, l.why)?,
                None => writeln!(f, "  left {}: {}", l.name, l.why)?,
            }
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        Ok(())
    }
}

impl fmt::Display for ClassMapping {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = self;
        let to: Vec<String> = c.layers.iter().map(|(l, n)| format!("{l} {n}")).collect();
        writeln!(
            f,
            "  class {} ({} features) -> {}",
            c.class,
            c.features,
            if to.is_empty() {
                "nothing".into()
            } else {
                to.join(", ")
            }
        )?;
        if let Some(s) = &c.split_by {
            writeln!(f, "    split by {s}")?;
        }
        if let Some(s) = &c.subtype_field {
            writeln!(f, "    subtype field {s}")?;
        }
        for u in &c.used {
            writeln!(f, "    used   {u}")?;
        }
        if !c.extra.is_empty() {
            writeln!(f, "    extra  {}", c.extra.join(", "))?;
        }
        if !c.editor_tracking.is_empty() {
            writeln!(
                f,
                "    editor tracking (extras) {}",
                c.editor_tracking.join(", ")
            )?;
        }
        if !c.ignored.is_empty() {
            writeln!(f, "    ignored {}", c.ignored.join(", "))?;
        }
        Ok(())
    }
}

impl fmt::Display for RelatedUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self;
        write!(
            f,
            "  related {} ({} -> {}, {}): ",
            r.relationship, r.parent, r.table, r.key
        )?;
        match &r.why_not {
            Some(why) => writeln!(f, "not joined: {why}")?,
            None => {
                let kinds: Vec<String> = r.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
                write!(
                    f,
                    "{} rows, {} joined ({}), {} orphaned",
                    r.rows,
                    r.joined,
                    kinds.join(", "),
                    r.orphaned
                )?;
                if !r.orphan_keys.is_empty() {
                    write!(f, " (keys {})", r.orphan_keys.join(", "))?;
                }
                for (l, n) in &r.without_kind {
                    write!(f, "; {n} of {l}, which the preset gives no inspection kind")?;
                }
                writeln!(f)?;
                for u in &r.used {
                    writeln!(f, "    used   {u}")?;
                }
            }
        }
        Ok(())
    }
}
