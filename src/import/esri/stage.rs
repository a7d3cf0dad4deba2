//! Staging: the geodatabase's classes read once, their coded values decoded to words and
//! their subtypes honoured, each feature sent to its layer by the preset, and the result
//! written as one plain GeoPackage table per registry layer, its canonical fields under
//! their canonical names. The ordinary import then reads those tables: the same checks,
//! report and single transaction as any other file, with nothing Esri-specific left in it.
//!
//! An unknown code is never guessed: the feature is kept, the field it was meant for is
//! left empty, the raw code is kept in the extra `<FIELD>_unknown_code`, and the mapping
//! report lists the code with its count.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use gdal::vector::{FieldValue, LayerAccess, LayerOptions, OGRFieldType};
use gdal::DriverManager;

use super::domains::{self, Domains, Subtypes};
use super::mapping::{
    ClassMapping, DomainUse, LeftClass, MappingReport, NotTaken, UnitUse, UnknownCode,
};
use super::preset::{ClassRule, Preset};
use crate::domain::{FieldType, Layer};
use crate::import::error::{ImportError, Result};
use crate::import::map_unit::SourceUnit;
use crate::import::source::{self, CsvGeometry, MapArg};

/// Editor-tracking field names: ArcGIS's defaults, an enterprise geodatabase's, and the
/// ones a shapefile export cut to 10 characters.
const EDITOR_TRACKING: &[&str] = &[
    "created_user",
    "created_date",
    "last_edited_user",
    "last_edited_date",
    "CREATEDBY",
    "CREATEDDATE",
    "EDITEDBY",
    "EDITEDDATE",
    "LASTEDITOR",
    "LASTEDITDATE",
    "LASTEDITDA",
    "last_edite",
    "created_us",
    "created_da",
];

/// The extra naming the class a staged feature came from.
pub const CLASS_FIELD: &str = "esri_class";

/// A geodatabase staged for import: the GeoPackage, the layers it holds, and the mapping
/// report. The temporary folder goes when this is dropped.
pub struct Staged {
    _dir: tempfile::TempDir,
    /// The staged GeoPackage.
    pub path: PathBuf,
    /// Each layer staged, with its features and the units of its length fields.
    pub layers: Vec<StagedLayer>,
    /// What was done with every class and field.
    pub mapping: MappingReport,
    /// The related tables' attachments, stored as photos once their inspections are in.
    pub attachments: Vec<super::attach::Attachment>,
}

/// One layer's staged table.
#[derive(Debug, Clone)]
pub struct StagedLayer {
    /// The registry layer.
    pub layer: Layer,
    /// Its features.
    pub features: u64,
    /// The unit each length field's source is in.
    pub units: Vec<(String, SourceUnit)>,
    /// The classes that fed it.
    pub classes: Vec<String>,
}

/// A value on its way to the staged table.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    Text(String),
    Int(i64),
    Real(f64),
    DateTime(gdal::vector::FieldValue),
}

impl Value {
    pub(super) fn text(&self) -> String {
        match self {
            Value::Text(s) => s.clone(),
            Value::Int(i) => i.to_string(),
            Value::Real(r) => r.to_string(),
            Value::DateTime(v) => date_text(v, false),
        }
    }
}

fn date_text(v: &FieldValue, date_only: bool) -> String {
    match v {
        FieldValue::DateValue(d) => d.format("%Y-%m-%d").to_string(),
        FieldValue::DateTimeValue(t) if date_only => t.format("%Y-%m-%d").to_string(),
        FieldValue::DateTimeValue(t) => t.naive_local().format("%Y-%m-%dT%H:%M:%S").to_string(),
        _ => String::new(),
    }
}

/// One staged feature.
pub(super) struct Row {
    /// Its layer.
    pub(super) layer: Layer,
    /// Its staged values by column.
    pub(super) values: BTreeMap<String, Value>,
    /// Its geometry, as WKB.
    pub(super) geom: Option<Vec<u8>>,
    /// Its values of the fields relationship classes join by (upper-case name → text).
    pub(super) keys: BTreeMap<String, String>,
}

/// A source field of a class.
struct SourceField {
    name: String,
    domain: Option<String>,
}

/// Where a canonical field's value comes from, for one class and layer.
#[derive(Debug, Clone)]
enum Source {
    Field(usize),
    Constant(String),
}

/// Each canonical field of a layer (the id first) with where a class's value comes from.
type FieldSources = Vec<(&'static str, Option<Source>)>;

/// Reads the geodatabase at `path` by `preset` (with the analyst's `--map` entries
/// winning) and stages it in a temporary GeoPackage.
pub fn stage(path: &Path, preset: &Preset, maps: &[MapArg], any_driver: bool) -> Result<Staged> {
    let display = path.display().to_string();
    let opened = open_geodatabase(path, any_driver)?;
    let ds = &opened.ds;
    let domains = domains::read_domains(ds);
    let definitions = domains::class_definitions(ds);
    let mut mapping = MappingReport {
        preset: preset.name.clone(),
        source: display.clone(),
        ..Default::default()
    };
    check_maps(preset, maps)?;
    units_used(preset, maps, &mut mapping);

    let rels = super::related::read_relationships(ds);
    // A relationship joins a table to a class the preset reads, one-to-many by a key.
    let joinable: Vec<&super::related::Relationship> = rels
        .iter()
        .filter(|r| {
            r.mapping_table.is_none()
                && preset.rule_for(&r.left).is_some()
                && preset.rule_for(&r.right).is_none()
        })
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    let mut attachments = Vec::new();
    let mut srs: BTreeMap<Layer, (String, gdal::spatial_ref::SpatialRef)> = BTreeMap::new();
    let mut fed: BTreeMap<Layer, Vec<String>> = BTreeMap::new();
    for i in 0..ds.layer_count() {
        let mut layer = ds.layer(i).map_err(|source| ImportError::Gdal {
            doing: format!("{display}: reading its classes"),
            source,
        })?;
        let name = layer.name();
        let Some(rule) = preset.rule_for(&name) else {
            let attached_to_related = joinable
                .iter()
                .any(|r| format!("{}__ATTACH", r.right).eq_ignore_ascii_case(&name));
            if joinable.iter().any(|r| r.right.eq_ignore_ascii_case(&name)) {
                continue;
            }
            if attached_to_related {
                let (a, used) = super::attach::read(ds, &name);
                attachments.extend(a);
                mapping.attachments.push(used);
                continue;
            }
            mapping.left.push(LeftClass {
                features: layer.try_feature_count(),
                why: why_left(&name, layer.defn().geom_fields().count() > 0),
                name,
            });
            continue;
        };
        if let Some(s) = layer.spatial_ref() {
            one_crs_per_layer(&mut srs, rule, &name, s, &display)?;
        }
        let keys: Vec<String> = joinable
            .iter()
            .filter(|r| r.left.eq_ignore_ascii_case(&name))
            .filter_map(|r| r.left_fields.first().map(|k| k.to_ascii_uppercase()))
            .collect();
        let (class_rows, class_mapping) = read_class(
            &mut layer,
            rule,
            (preset, maps, &domains, &keys),
            &definitions,
            &display,
            &mut mapping,
        )?;
        for l in class_mapping.layers.keys() {
            if let Ok(l) = l.parse::<Layer>() {
                fed.entry(l).or_default().push(name.clone());
            }
        }
        rows.extend(class_rows);
        mapping.classes.push(class_mapping);
    }
    let related_rows = join_related(
        ds,
        &rels,
        &joinable,
        &rows,
        (preset, &domains),
        &mut mapping,
    );
    rows.extend(related_rows);
    if mapping.classes.is_empty() {
        return Err(none_read(&display, preset));
    }
    let (dir, staged_path) = staging_file(path, &display)?;
    let layers = write_staged(&staged_path, rows, &srs, &fed, preset, maps)?;
    Ok(Staged {
        _dir: dir,
        path: staged_path,
        layers,
        mapping,
        attachments,
    })
}

/// Opens the file, which must be a File Geodatabase (a folder or a zip of one).
fn open_geodatabase(path: &Path, any_driver: bool) -> Result<source::Opened> {
    source::check_source(path, any_driver)?;
    let opened = source::open(path, &CsvGeometry::None, any_driver)?;
    if opened.driver != "OpenFileGDB" {
        return Err(ImportError::Open {
            path: path.display().to_string(),
            message: format!(
                "read as {}, not as a File Geodatabase; the Esri presets read a .gdb folder or a zip of one",
                opened.driver
            ),
        });
    }
    Ok(opened)
}

/// The classes filling one layer are in one CRS: the staged table has one.
fn one_crs_per_layer(
    srs: &mut BTreeMap<Layer, (String, gdal::spatial_ref::SpatialRef)>,
    rule: &ClassRule,
    name: &str,
    s: gdal::spatial_ref::SpatialRef,
    display: &str,
) -> Result<()> {
    for target in rule.targets() {
        let entry = srs
            .entry(target)
            .or_insert_with(|| (name.to_string(), s.clone()));
        if entry.1 != s {
            return Err(ImportError::Refused(format!(
                "{display}: the classes {} and {name} both fill {target} but are in different CRSs; import them one at a time with ms4 import",
                entry.0
            )));
        }
    }
    Ok(())
}

/// The inspections of every joinable relationship; the others named as left.
fn join_related(
    ds: &gdal::Dataset,
    rels: &[super::related::Relationship],
    joinable: &[&super::related::Relationship],
    rows: &[Row],
    (preset, domains): (&Preset, &Domains),
    mapping: &mut MappingReport,
) -> Vec<Row> {
    let mut out = Vec::new();
    for r in rels {
        if joinable.contains(&r) {
            out.extend(super::related::join(ds, r, rows, preset, domains, mapping));
        } else {
            mapping.left.push(LeftClass {
                name: format!("relationship class {} ({} -> {})", r.name, r.left, r.right),
                features: None,
                why: if r.mapping_table.is_some() {
                    "a many-to-many relationship (with a mapping table) is not joined".into()
                } else {
                    "it does not join a table to a class the preset reads".into()
                },
            });
        }
    }
    out
}

/// The refusal of a geodatabase with no class the preset reads.
fn none_read(display: &str, preset: &Preset) -> ImportError {
    ImportError::Refused(format!(
        "{display}: none of its classes is one the {} preset reads ({}); see --show-preset, or give your own with --preset-file",
        preset.name,
        preset
            .classes
            .iter()
            .map(|c| c.class.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// A temporary folder and the staged GeoPackage's path in it, named after the file.
fn staging_file(path: &Path, display: &str) -> Result<(tempfile::TempDir, PathBuf)> {
    let dir = tempfile::tempdir().map_err(|e| {
        ImportError::Refused(format!(
            "{display}: cannot make a temporary folder to stage it in: {e}"
        ))
    })?;
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "geodatabase".into());
    let staged = dir.path().join(format!("{file_name}.gpkg"));
    Ok((dir, staged))
}

/// Why a class the preset does not name is left.
fn why_left(name: &str, spatial: bool) -> String {
    if name.to_ascii_uppercase().ends_with("__ATTACH") {
        "an asset class's attachments: ms4 keeps photos of inspections only (an inspection table's __ATTACH becomes its photos)".into()
    } else if !spatial {
        "a table the preset does not read (related inspection tables are not joined yet: export them and use ms4 import inspections)".into()
    } else {
        "not a class of the preset".into()
    }
}

/// Every `--map` names a canonical field of some layer the preset fills.
fn check_maps(preset: &Preset, maps: &[MapArg]) -> Result<()> {
    let layers: Vec<Layer> = preset.classes.iter().flat_map(ClassRule::targets).collect();
    for m in maps {
        let known = layers
            .iter()
            .any(|l| l.id_field() == m.canonical || l.field_index(&m.canonical).is_some());
        if !known {
            return Err(ImportError::Invalid {
                field: "map",
                message: format!(
                    "--map {}={}: no layer the {} preset fills has a field {:?}",
                    m.canonical, m.source, preset.name, m.canonical
                ),
            });
        }
    }
    Ok(())
}

/// The unit of each canonical field: the `--map`'s, else the preset's.
fn units_of(preset: &Preset, maps: &[MapArg]) -> BTreeMap<String, (SourceUnit, &'static str)> {
    let mut out: BTreeMap<String, (SourceUnit, &'static str)> = BTreeMap::new();
    for c in preset.units.keys() {
        if let Some(u) = preset.unit(c) {
            out.insert(c.clone(), (u, "preset"));
        }
    }
    for m in maps {
        if let Some(u) = m.unit {
            out.insert(m.canonical.clone(), (u, "--map"));
        }
    }
    out
}

fn units_used(preset: &Preset, maps: &[MapArg], mapping: &mut MappingReport) {
    mapping.units = units_of(preset, maps)
        .into_iter()
        .map(|(field, (u, from))| UnitUse {
            field,
            unit: u.symbol.into(),
            from: from.into(),
        })
        .collect();
}

/// The source of each canonical field of `layer` for one class: the preset's constant,
/// else the class's own list, else the analyst's `--map`, else the preset's list; the
/// first source field the class has.
fn sources_for(
    layer: Layer,
    rule: &ClassRule,
    preset: &Preset,
    maps: &[MapArg],
    fields: &[SourceField],
) -> FieldSources {
    let find = |name: &str| {
        fields
            .iter()
            .position(|f| f.name.eq_ignore_ascii_case(name))
    };
    std::iter::once(layer.id_field())
        .chain(layer.fields().iter().map(|f| f.name))
        .map(|c| {
            if let Some(v) = rule.set.get(c) {
                return (c, Some(Source::Constant(v.clone())));
            }
            let from_map = maps
                .iter()
                .filter(|m| m.canonical == c)
                .find_map(|m| find(&m.source));
            let from_lists = || {
                rule.fields
                    .get(c)
                    .into_iter()
                    .chain(preset.fields.get(c))
                    .flatten()
                    .find_map(|s| find(s))
            };
            (c, from_map.or_else(from_lists).map(Source::Field))
        })
        .collect()
}

/// Reads one class into staged rows, with its part of the mapping report.
// One pass over the class's features decodes, splits and stages each; the tallies the
// report needs are kept beside it. The decisions are the named functions it calls.
#[allow(clippy::too_many_lines)]
fn read_class(
    layer: &mut gdal::vector::Layer<'_>,
    rule: &ClassRule,
    (preset, maps, domains, keys): (&Preset, &[MapArg], &Domains, &[String]),
    definitions: &BTreeMap<String, String>,
    display: &str,
    mapping: &mut MappingReport,
) -> Result<(Vec<Row>, ClassMapping)> {
    let class = layer.name();
    let field_domains = domains::field_domains(layer);
    let fields: Vec<SourceField> = layer
        .defn()
        .fields()
        .zip(field_domains)
        .map(|(f, domain)| SourceField {
            name: f.name(),
            domain,
        })
        .collect();
    let subtypes: Option<Subtypes> = domains::class_subtypes(layer, definitions);
    let find = |name: &str| {
        fields
            .iter()
            .position(|f| f.name.eq_ignore_ascii_case(name))
    };
    let split = match &rule.split_by {
        Some(s) => Some(find(s).ok_or_else(|| ImportError::Refused(format!(
            "{display}: the class {class} has no field {s}, which the {} preset splits it by; its fields are: {}",
            preset.name,
            fields.iter().map(|f| f.name.as_str()).collect::<Vec<_>>().join(", ")
        )))?),
        None => None,
    };
    let plans: Vec<(Layer, FieldSources)> = rule
        .targets()
        .into_iter()
        .map(|l| (l, sources_for(l, rule, preset, maps, &fields)))
        .collect();
    for (l, plan) in &plans {
        if l.derived_id_from().is_none() && !matches!(plan[0].1, Some(Source::Field(_))) {
            return Err(ImportError::Refused(format!(
                "{display}: the class {class} has no field for {l}.{} (the preset looks for {}); give one with --map {}=FIELD",
                l.id_field(),
                preset.fields.get(l.id_field()).map(|v| v.join(" or ")).unwrap_or_else(|| "none".into()),
                l.id_field()
            )));
        }
    }
    let used: Vec<usize> = plans
        .iter()
        .flat_map(|(_, p)| p.iter())
        .filter_map(|(_, s)| match s {
            Some(Source::Field(i)) => Some(*i),
            _ => None,
        })
        .collect();
    let mut cm = ClassMapping {
        class: class.clone(),
        split_by: rule.split_by.clone(),
        subtype_field: subtypes.as_ref().map(|s| s.field.clone()),
        ..Default::default()
    };
    for (l, plan) in &plans {
        for (c, s) in plan {
            match s {
                Some(Source::Field(i)) => cm.used.push(format!("{l}.{c} <- {}", fields[*i].name)),
                Some(Source::Constant(v)) => cm.used.push(format!("{l}.{c} = {v:?}")),
                None => {}
            }
        }
    }
    let mut extra_idx = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if used.contains(&i) {
            continue;
        }
        if preset.ignores(&f.name) {
            cm.ignored.push(f.name.clone());
        } else {
            if EDITOR_TRACKING
                .iter()
                .any(|e| e.eq_ignore_ascii_case(&f.name))
            {
                cm.editor_tracking.push(f.name.clone());
            }
            cm.extra.push(f.name.clone());
            extra_idx.push(i);
        }
    }

    let mut decoded: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut unknown: BTreeMap<(String, String, String), u64> = BTreeMap::new();
    let mut not_taken: BTreeMap<String, u64> = BTreeMap::new();
    let mut null_dates: BTreeMap<String, u64> = BTreeMap::new();
    let mut rows = Vec::new();
    let subtype_idx = subtypes.as_ref().and_then(|s| find(&s.field));
    for feature in layer.features() {
        cm.features += 1;
        let raw: Vec<Option<FieldValue>> = (0..fields.len())
            .map(|i| feature.field(i).ok().flatten())
            .collect();
        let subtype = subtype_idx
            .and_then(|i| raw[i].as_ref())
            .and_then(code_int)
            .and_then(|c| subtypes.as_ref()?.by_code.get(&c));
        // Each field decoded: Some(value), None for empty; unknown codes tallied.
        let mut value: Vec<Option<Value>> = Vec::with_capacity(fields.len());
        let mut unknown_here: Vec<(usize, String)> = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            let Some(v) = raw[i].as_ref() else {
                value.push(None);
                continue;
            };
            let code = plain(v);
            if Some(i) == subtype_idx {
                if let Some(s) = subtype {
                    *decoded
                        .entry((f.name.clone(), "subtypes".into()))
                        .or_default() += 1;
                    value.push(Some(Value::Text(s.name.clone())));
                    continue;
                }
            }
            let domain_name = subtype
                .and_then(|s| {
                    s.domains
                        .iter()
                        .find(|(k, _)| k.eq_ignore_ascii_case(&f.name))
                        .map(|(_, d)| d.clone())
                })
                .or_else(|| f.domain.clone());
            match domain_name.as_ref().and_then(|d| domains.coded.get(d)) {
                Some(d) => match d.decode(&code.text()) {
                    Some(word) => {
                        *decoded.entry((f.name.clone(), d.name.clone())).or_default() += 1;
                        value.push(Some(Value::Text(
                            word.map(str::to_string).unwrap_or_else(|| code.text()),
                        )));
                    }
                    None => {
                        *unknown
                            .entry((f.name.clone(), d.name.clone(), code.text()))
                            .or_default() += 1;
                        unknown_here.push((i, code.text()));
                        value.push(None);
                    }
                },
                None => value.push(Some(code)),
            }
        }
        let target = match (split, &rule.layer) {
            (Some(si), _) => {
                let word = value[si].as_ref().map(Value::text);
                let code = raw[si].as_ref().map(|v| plain(v).text());
                match rule.layer_for_value(word.as_deref(), code.as_deref()) {
                    Some(l) => l,
                    None => {
                        *not_taken
                            .entry(word.or(code).unwrap_or_default())
                            .or_default() += 1;
                        continue;
                    }
                }
            }
            (None, Some(_)) => rule.targets()[0],
            (None, None) => continue,
        };
        let plan = &plans
            .iter()
            .find(|(l, _)| *l == target)
            .expect("a plan per target")
            .1;
        let mut values = BTreeMap::new();
        for (c, s) in plan {
            let v = match s {
                Some(Source::Field(i)) => value[*i]
                    .as_ref()
                    .map(|v| canonical_text(target, c, v))
                    .filter(|v| {
                        let placeholder = is_null_date(preset, target, c, v);
                        if placeholder {
                            *null_dates.entry(fields[*i].name.clone()).or_default() += 1;
                        }
                        !placeholder
                    }),
                Some(Source::Constant(v)) => Some(v.clone()),
                None => None,
            };
            if let Some(v) = v {
                values.insert(c.to_string(), Value::Text(v));
            }
        }
        for &i in &extra_idx {
            if let Some(v) = &value[i] {
                values.insert(extra_name(target, &fields[i].name), v.clone());
            }
        }
        for (i, code) in unknown_here {
            values.insert(
                extra_name(target, &format!("{}_unknown_code", fields[i].name)),
                Value::Text(code),
            );
        }
        values.insert(CLASS_FIELD.into(), Value::Text(class.clone()));
        *cm.layers.entry(target.name().to_string()).or_default() += 1;
        let keys = keys
            .iter()
            .filter_map(|k| {
                let i = find(k)?;
                Some((k.clone(), plain(raw[i].as_ref()?).text()))
            })
            .collect();
        rows.push(Row {
            layer: target,
            values,
            geom: feature.geometry().and_then(|g| g.wkb().ok()),
            keys,
        });
    }
    for ((field, domain), n) in decoded {
        mapping.domains.push(DomainUse {
            class: class.clone(),
            field,
            domain,
            decoded: n,
        });
    }
    for ((field, domain, code), count) in unknown {
        mapping.unknown_codes.push(UnknownCode {
            class: class.clone(),
            field,
            domain,
            code,
            count,
        });
    }
    for (field, n) in null_dates {
        mapping.null_dates.insert(format!("{class}.{field}"), n);
    }
    for (value, count) in not_taken {
        mapping.not_taken.push(NotTaken {
            class: class.clone(),
            field: rule.split_by.clone().unwrap_or_default(),
            value,
            count,
        });
    }
    Ok((rows, cm))
}

/// A canonical field's text: a date field's date only, anything else as it reads.
pub(super) fn canonical_text(layer: Layer, canonical: &str, v: &Value) -> String {
    let is_date = layer
        .fields()
        .iter()
        .any(|f| f.name == canonical && f.ty == FieldType::Date);
    match v {
        Value::DateTime(d) if is_date => date_text(d, true),
        other => other.text(),
    }
}

/// Whether a canonical date field's value is one of the preset's "no date" placeholders.
fn is_null_date(preset: &Preset, layer: Layer, canonical: &str, text: &str) -> bool {
    !preset.null_dates.is_empty()
        && layer
            .fields()
            .iter()
            .any(|f| f.name == canonical && f.ty == FieldType::Date)
        && crate::domain::feature::parse_date(text).is_some_and(|d| preset.null_dates.contains(&d))
}

/// An extra's staged name: its own, unless it is a canonical field's name (a source
/// `STATUS` the preset did not use) or the class field, when `_source` is added.
pub(super) fn extra_name(layer: Layer, name: &str) -> String {
    let clash = name.eq_ignore_ascii_case(layer.id_field())
        || layer
            .fields()
            .iter()
            .any(|f| f.name.eq_ignore_ascii_case(name))
        || name.eq_ignore_ascii_case(CLASS_FIELD)
        || name.eq_ignore_ascii_case("fid");
    if clash {
        format!("{name}_source")
    } else {
        name.to_string()
    }
}

/// A source value as it is, before any domain.
pub(super) fn plain(v: &FieldValue) -> Value {
    match v {
        FieldValue::IntegerValue(i) => Value::Int(i64::from(*i)),
        FieldValue::Integer64Value(i) => Value::Int(*i),
        FieldValue::RealValue(r) => Value::Real(*r),
        FieldValue::StringValue(s) => Value::Text(s.clone()),
        FieldValue::DateValue(_) | FieldValue::DateTimeValue(_) => Value::DateTime(v.clone()),
        FieldValue::IntegerListValue(l) => Value::Text(join(l)),
        FieldValue::Integer64ListValue(l) => Value::Text(join(l)),
        FieldValue::RealListValue(l) => Value::Text(join(l)),
        FieldValue::StringListValue(l) => Value::Text(l.join(",")),
    }
}

fn join<T: ToString>(l: &[T]) -> String {
    l.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// A subtype code as an integer.
fn code_int(v: &FieldValue) -> Option<i64> {
    match v {
        FieldValue::IntegerValue(i) => Some(i64::from(*i)),
        FieldValue::Integer64Value(i) => Some(*i),
        FieldValue::StringValue(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The staged column types of a layer's rows: each column's one type, or text where
/// its values differ in type.
fn column_types(rows: &[&Row]) -> Vec<(String, OGRFieldType::Type)> {
    let mut types: BTreeMap<String, OGRFieldType::Type> = BTreeMap::new();
    for r in rows {
        for (k, v) in &r.values {
            let t = match v {
                Value::Text(_) => OGRFieldType::OFTString,
                Value::Int(_) => OGRFieldType::OFTInteger64,
                Value::Real(_) => OGRFieldType::OFTReal,
                Value::DateTime(_) => OGRFieldType::OFTDateTime,
            };
            types
                .entry(k.clone())
                .and_modify(|old| {
                    if *old != t {
                        *old = OGRFieldType::OFTString;
                    }
                })
                .or_insert(t);
        }
    }
    types.into_iter().collect()
}

/// Writes each layer's rows as a table of the staged GeoPackage.
fn write_staged(
    path: &Path,
    rows: Vec<Row>,
    srs: &BTreeMap<Layer, (String, gdal::spatial_ref::SpatialRef)>,
    fed: &BTreeMap<Layer, Vec<String>>,
    preset: &Preset,
    maps: &[MapArg],
) -> Result<Vec<StagedLayer>> {
    let werr = |source: gdal::errors::GdalError| ImportError::Gdal {
        doing: "staging the geodatabase for import".into(),
        source,
    };
    let driver = DriverManager::get_driver_by_name("GPKG").map_err(werr)?;
    let mut ds = driver.create_vector_only(path).map_err(werr)?;
    let units = units_of(preset, maps);
    let mut out = Vec::new();
    for layer in Layer::ALL {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.layer == layer).collect();
        if mine.is_empty() {
            continue;
        }
        let columns = column_types(&mine);
        let geometry = mine.iter().any(|r| r.geom.is_some());
        let lyr = ds
            .create_layer(LayerOptions {
                name: layer.name(),
                srs: geometry.then(|| srs.get(&layer).map(|(_, s)| s)).flatten(),
                ty: if geometry {
                    gdal_sys::OGRwkbGeometryType::wkbUnknown
                } else {
                    gdal_sys::OGRwkbGeometryType::wkbNone
                },
                options: Some(&["SPATIAL_INDEX=NO"]),
            })
            .map_err(werr)?;
        for (name, ty) in &columns {
            gdal::vector::FieldDefn::new(name, *ty)
                .and_then(|f| f.add_to_layer(&lyr))
                .map_err(werr)?;
        }
        for r in &mine {
            let mut f = gdal::vector::Feature::new(lyr.defn()).map_err(werr)?;
            for (i, (name, ty)) in columns.iter().enumerate() {
                match r.values.get(name) {
                    None => f.set_field_null(i),
                    Some(v) if *ty == OGRFieldType::OFTString => f.set_field_string(i, &v.text()),
                    Some(Value::Int(n)) => f.set_field_integer64(i, *n),
                    Some(Value::Real(x)) => f.set_field_double(i, *x),
                    Some(Value::DateTime(d)) => f.set_field(i, d),
                    Some(Value::Text(s)) => f.set_field_string(i, s),
                }
                .map_err(werr)?;
            }
            if let Some(wkb) = &r.geom {
                let g = gdal::vector::Geometry::from_wkb(wkb).map_err(werr)?;
                f.set_geometry(g).map_err(werr)?;
            }
            f.create(&lyr).map_err(werr)?;
        }
        let layer_units = units
            .iter()
            .filter(|(c, _)| layer.field_index(c).is_some())
            .map(|(c, (u, _))| (c.clone(), *u))
            .collect();
        out.push(StagedLayer {
            layer,
            features: mine.len() as u64,
            units: layer_units,
            classes: fed.get(&layer).cloned().unwrap_or_default(),
        });
    }
    Ok(out)
}
