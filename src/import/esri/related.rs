//! Related inspection tables: the geodatabase's relationship classes (read through GDAL's
//! relationship API, GDAL 3.6 and later) join a table's rows to the features of a class
//! the preset reads, by the key the relationship names (`FACILITYID`, or a `GlobalID`
//! against a `REL_GLOBALID`-style foreign key). Each joined row becomes an inspection of
//! its parent, of the kind the preset gives the parent's layer; a row whose key no
//! feature carries is an orphan, counted and named in the mapping report, never attached
//! to a guess.

use std::collections::BTreeMap;
use std::ffi::{c_char, CStr};

use gdal::vector::LayerAccess;

use super::domains::Domains;
use super::mapping::{DomainUse, MappingReport, RelatedUse, UnknownCode};
use super::preset::Preset;
use super::stage::{self, Row, Value, CLASS_FIELD};
use crate::domain::Layer;

/// A relationship class as GDAL reports it.
#[derive(Debug, Clone, PartialEq)]
pub struct Relationship {
    /// Its name.
    pub name: String,
    /// The origin (parent) table.
    pub left: String,
    /// The destination (related) table.
    pub right: String,
    /// The origin's key fields.
    pub left_fields: Vec<String>,
    /// The destination's foreign-key fields.
    pub right_fields: Vec<String>,
    /// Its mapping table, for a many-to-many relationship (not joined).
    pub mapping_table: Option<String>,
}

/// Reads every relationship class of the dataset.
pub fn read_relationships(ds: &gdal::Dataset) -> Vec<Relationship> {
    let mut out = Vec::new();
    // SAFETY: the dataset handle is valid while `ds` lives; the name list is ours to free,
    // relationship handles and their string lists belong to the dataset and are only read.
    unsafe {
        let names = gdal_sys::GDALDatasetGetRelationshipNames(ds.c_dataset(), std::ptr::null_mut());
        if names.is_null() {
            return out;
        }
        for name in strings(names) {
            let Ok(c) = std::ffi::CString::new(name.clone()) else {
                continue;
            };
            let h = gdal_sys::GDALDatasetGetRelationship(ds.c_dataset(), c.as_ptr());
            if h.is_null() {
                continue;
            }
            let text = |p: *const c_char| {
                (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
            };
            let list = |p: *mut *mut c_char| {
                let v = if p.is_null() { Vec::new() } else { strings(p) };
                gdal_sys::CSLDestroy(p);
                v
            };
            out.push(Relationship {
                name,
                left: text(gdal_sys::GDALRelationshipGetLeftTableName(h)).unwrap_or_default(),
                right: text(gdal_sys::GDALRelationshipGetRightTableName(h)).unwrap_or_default(),
                left_fields: list(gdal_sys::GDALRelationshipGetLeftTableFields(h)),
                right_fields: list(gdal_sys::GDALRelationshipGetRightTableFields(h)),
                mapping_table: text(gdal_sys::GDALRelationshipGetMappingTableName(h))
                    .filter(|s| !s.is_empty()),
            });
        }
        gdal_sys::CSLDestroy(names);
    }
    out
}

/// The strings of a NULL-terminated list.
///
/// # Safety
/// `p` must be a valid NULL-terminated list of C strings.
unsafe fn strings(p: *mut *mut c_char) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    loop {
        let s = *p.add(i);
        if s.is_null() {
            break;
        }
        out.push(CStr::from_ptr(s).to_string_lossy().into_owned());
        i += 1;
    }
    out
}

/// A key as the join compares it: trimmed, upper case, without a GUID's braces.
pub fn key(v: &str) -> String {
    v.trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .to_ascii_uppercase()
}

/// Joins one relationship's related table to its parents' staged rows: the inspections
/// it makes, its entry in the mapping report (joined, orphaned, without a kind).
pub(super) fn join(
    ds: &gdal::Dataset,
    rel: &Relationship,
    parents: &[Row],
    preset: &Preset,
    domains: &Domains,
    mapping: &mut MappingReport,
) -> Vec<Row> {
    let mut used = RelatedUse {
        relationship: rel.name.clone(),
        parent: rel.left.clone(),
        table: rel.right.clone(),
        key: format!(
            "{} = {}",
            rel.left_fields.join(","),
            rel.right_fields.join(",")
        ),
        ..Default::default()
    };
    let Some(rule) = &preset.inspections else {
        return not_joined(mapping, used, "the preset has no [inspections] table");
    };
    let (Some(left_key), Some(right_key)) = (rel.left_fields.first(), rel.right_fields.first())
    else {
        return not_joined(mapping, used, "the relationship names no key fields");
    };
    let by_key = parents_by_key(rel, parents, left_key);
    let Ok(mut table) = ds.layer_by_name(&rel.right) else {
        return not_joined(mapping, used, "the related table is not in the file");
    };
    let fields: Vec<String> = table.defn().fields().map(|f| f.name()).collect();
    let field_domains = super::domains::field_domains(&table);
    let find = |name: &str| fields.iter().position(|f| f.eq_ignore_ascii_case(name));
    let Some(fk) = find(right_key) else {
        return not_joined(
            mapping,
            used,
            format!("the related table has no field {right_key}"),
        );
    };
    let sources: Vec<(&str, usize)> = rule
        .fields
        .iter()
        .filter_map(|(c, names)| Some((c.as_str(), names.iter().find_map(|n| find(n))?)))
        .collect();
    for (c, i) in &sources {
        used.used.push(format!("inspections.{c} <- {}", fields[*i]));
    }
    let mut tally = Tally::default();
    let mut rows = Vec::new();
    let l = Layer::Inspections;
    for feature in table.features() {
        used.rows += 1;
        let raw: Vec<Option<Value>> = (0..fields.len())
            .map(|i| feature.field(i).ok().flatten().map(|v| stage::plain(&v)))
            .collect();
        let Some(parent) = raw[fk].as_ref().and_then(|v| by_key.get(&key(&v.text()))) else {
            used.orphaned += 1;
            if let Some(v) = &raw[fk] {
                if used.orphan_keys.len() < 10 {
                    used.orphan_keys.push(v.text());
                }
            }
            continue;
        };
        let Some(kind) = rule.kinds.get(parent.0.name()) else {
            *used
                .without_kind
                .entry(parent.0.name().to_string())
                .or_default() += 1;
            continue;
        };
        let mut values = BTreeMap::new();
        values.insert("asset_id".to_string(), Value::Text(parent.1.clone()));
        values.insert("kind".to_string(), Value::Text(kind.clone()));
        let mut value_of = |i: usize| {
            let domain = field_domains[i].as_ref().and_then(|d| domains.coded.get(d));
            tally.decode(&fields[i], domain, raw[i].clone())
        };
        let mut taken = vec![fk];
        for (c, i) in &sources {
            taken.push(*i);
            if let Some(v) = value_of(*i) {
                values.insert(c.to_string(), Value::Text(stage::canonical_text(l, c, &v)));
            }
        }
        for (i, name) in fields.iter().enumerate() {
            if taken.contains(&i) || preset.ignores(name) {
                continue;
            }
            if let Some(v) = value_of(i) {
                values.insert(stage::extra_name(l, name), v);
            }
        }
        values.insert(CLASS_FIELD.into(), Value::Text(rel.right.clone()));
        *used.kinds.entry(kind.clone()).or_default() += 1;
        used.joined += 1;
        rows.push(Row {
            layer: l,
            values,
            geom: None,
            keys: BTreeMap::new(),
        });
    }
    tally.report(mapping, &rel.right);
    mapping.related.push(used);
    rows
}

/// A relationship not joined, and why, in the report; no rows.
fn not_joined(
    mapping: &mut MappingReport,
    mut used: RelatedUse,
    why: impl Into<String>,
) -> Vec<Row> {
    used.why_not = Some(why.into());
    mapping.related.push(used);
    Vec::new()
}

/// The parent features by their key's value: their layer and id.
fn parents_by_key(
    rel: &Relationship,
    parents: &[Row],
    left_key: &str,
) -> BTreeMap<String, (Layer, String)> {
    let mut by_key = BTreeMap::new();
    for r in parents {
        let is_parent = matches!(r.values.get(CLASS_FIELD), Some(Value::Text(c)) if c.eq_ignore_ascii_case(&rel.left));
        if !is_parent {
            continue;
        }
        let Some(k) = r.keys.get(&left_key.to_ascii_uppercase()) else {
            continue;
        };
        if let Some(Value::Text(id)) = r.values.get(r.layer.id_field()) {
            by_key.insert(key(k), (r.layer, id.clone()));
        }
    }
    by_key
}

/// The values a table's domains decoded, and the codes they do not have.
#[derive(Default)]
struct Tally {
    decoded: BTreeMap<(String, String), u64>,
    unknown: BTreeMap<(String, String, String), u64>,
}

impl Tally {
    /// A field's value through its coded-value domain, if it has one: the word, or none
    /// for a code the domain does not have (counted, never guessed).
    fn decode(
        &mut self,
        field: &str,
        domain: Option<&super::domains::CodedDomain>,
        v: Option<Value>,
    ) -> Option<Value> {
        let v = v?;
        let Some(d) = domain else {
            return Some(v);
        };
        let code = v.text();
        match d.decode(&code) {
            Some(word) => {
                *self
                    .decoded
                    .entry((field.to_string(), d.name.clone()))
                    .or_default() += 1;
                Some(Value::Text(word.map_or(code, str::to_string)))
            }
            None => {
                *self
                    .unknown
                    .entry((field.to_string(), d.name.clone(), code))
                    .or_default() += 1;
                None
            }
        }
    }

    /// Into the mapping report, under the table's name.
    fn report(self, mapping: &mut MappingReport, table: &str) {
        for ((field, domain), n) in self.decoded {
            mapping.domains.push(DomainUse {
                class: table.to_string(),
                field,
                domain,
                decoded: n,
            });
        }
        for ((field, domain, code), count) in self.unknown {
            mapping.unknown_codes.push(UnknownCode {
                class: table.to_string(),
                field,
                domain,
                code,
                count,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_compare_without_case_spaces_or_a_guids_braces() {
        assert_eq!(
            key(" {0b0c7a2e-1d4e-4a43-9e0b-0f4e1b2c3d4e} "),
            key("0B0C7A2E-1D4E-4A43-9E0B-0F4E1B2C3D4E")
        );
        assert_eq!(key("of-1"), "OF-1");
        assert_ne!(key("OF-1"), key("OF-10"));
    }
}
