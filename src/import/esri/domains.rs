//! A geodatabase's coded-value domains and subtypes, read through GDAL's field-domain
//! API (GDAL 3.3 and later). The `gdal` crate this project uses does not wrap that API,
//! so the few calls are made here through `gdal-sys`, each pointer checked and every
//! string copied out before the dataset can go away.
//!
//! Subtypes are not in GDAL's API: the subtype field, each subtype's code and name and its
//! own domain per field are read from the class's Esri XML definition, which a driver may
//! hand out as the layer's `xml:definition` metadata and which GDAL 3.6's OpenFileGDB
//! driver gives as a row of the geodatabase's `GDB_Items` system table.

use std::collections::BTreeMap;
use std::ffi::{CStr, CString};

use gdal::vector::LayerAccess;
use gdal::Dataset;
use gdal_sys::OGRFieldDomainType;

/// A coded-value domain: code → word (a code without a word keeps none).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CodedDomain {
    /// The domain's name.
    pub name: String,
    /// Each code with its word.
    pub codes: BTreeMap<String, Option<String>>,
}

impl CodedDomain {
    /// The word for a code: `Some(Some(word))`, `Some(None)` for a code the domain has
    /// without a word, `None` for a code it does not have. Integer codes are matched by
    /// value (`"01"` and `"1"` are one code).
    pub fn decode(&self, code: &str) -> Option<Option<&str>> {
        if let Some(w) = self.codes.get(code) {
            return Some(w.as_deref());
        }
        let n: i64 = code.trim().parse().ok()?;
        self.codes
            .iter()
            .find(|(c, _)| c.trim().parse::<i64>().ok() == Some(n))
            .map(|(_, w)| w.as_deref())
    }
}

/// The domains of a dataset that are not coded values (ranges, globs): named in the
/// mapping report, their values kept as they are.
#[derive(Debug, Clone, Default)]
pub struct Domains {
    /// Coded-value domains by name.
    pub coded: BTreeMap<String, CodedDomain>,
    /// Other domains by name, with their kind in words.
    pub other: BTreeMap<String, &'static str>,
}

/// Reads every field domain of the dataset.
pub fn read_domains(ds: &Dataset) -> Domains {
    let mut out = Domains::default();
    // SAFETY: the dataset handle is valid while `ds` lives; the name list is ours to free
    // (CSLDestroy); a domain handle belongs to the dataset and is only read here.
    unsafe {
        let names = gdal_sys::GDALDatasetGetFieldDomainNames(ds.c_dataset(), std::ptr::null_mut());
        if names.is_null() {
            return out;
        }
        let mut i = 0;
        loop {
            let p = *names.add(i);
            if p.is_null() {
                break;
            }
            i += 1;
            let name = CStr::from_ptr(p).to_string_lossy().into_owned();
            let h = gdal_sys::GDALDatasetGetFieldDomain(ds.c_dataset(), p);
            if h.is_null() {
                continue;
            }
            match gdal_sys::OGR_FldDomain_GetDomainType(h) {
                OGRFieldDomainType::OFDT_CODED => {
                    let mut codes = BTreeMap::new();
                    let mut e = gdal_sys::OGR_CodedFldDomain_GetEnumeration(h);
                    while !e.is_null() && !(*e).pszCode.is_null() {
                        let code = CStr::from_ptr((*e).pszCode).to_string_lossy().into_owned();
                        let word = (!(*e).pszValue.is_null())
                            .then(|| CStr::from_ptr((*e).pszValue).to_string_lossy().into_owned());
                        codes.insert(code, word);
                        e = e.add(1);
                    }
                    out.coded.insert(name.clone(), CodedDomain { name, codes });
                }
                OGRFieldDomainType::OFDT_RANGE => {
                    out.other.insert(name, "range");
                }
                _ => {
                    out.other.insert(name, "glob");
                }
            }
        }
        gdal_sys::CSLDestroy(names);
    }
    out
}

/// The domain name of each field of a layer, by field position (`None` where a field has
/// none).
pub fn field_domains<L: LayerAccess>(layer: &L) -> Vec<Option<String>> {
    let n = layer.defn().fields().count();
    let mut out = Vec::with_capacity(n);
    // SAFETY: the layer and its definition live as long as `layer`; each field
    // definition is owned by the layer definition and only read.
    unsafe {
        let defn = gdal_sys::OGR_L_GetLayerDefn(layer.c_layer());
        for i in 0..n {
            let fd = gdal_sys::OGR_FD_GetFieldDefn(defn, i as i32);
            let name = if fd.is_null() {
                None
            } else {
                let p = gdal_sys::OGR_Fld_GetDomainName(fd);
                (!p.is_null())
                    .then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
                    .filter(|s| !s.is_empty())
            };
            out.push(name);
        }
    }
    out
}

/// A class's subtypes, as its Esri definition gives them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subtypes {
    /// The subtype field (`SUBTYPECD`, `ASSETGROUP`).
    pub field: String,
    /// Each subtype by its code.
    pub by_code: BTreeMap<i64, Subtype>,
}

/// One subtype: its name and the domain it gives each field (where it differs).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Subtype {
    /// The subtype's name (`Catch Basin`).
    pub name: String,
    /// Field → the domain this subtype gives it.
    pub domains: BTreeMap<String, String>,
}

/// Each class's Esri XML definition from the geodatabase's `GDB_Items` table, by the
/// class's name in upper case (none when the driver does not show the table).
pub fn class_definitions(ds: &Dataset) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(mut items) = ds.layer_by_name("GDB_Items") else {
        return out;
    };
    let (Ok(name_at), Ok(def_at)) = (
        items.defn().field_index("Name"),
        items.defn().field_index("Definition"),
    ) else {
        return out;
    };
    for f in items.features() {
        let (Ok(Some(name)), Ok(Some(def))) =
            (f.field_as_string(name_at), f.field_as_string(def_at))
        else {
            continue;
        };
        if def.contains("SubtypeFieldName") {
            // A name may be qualified (`owner.class`): the class is the last part.
            let short = name
                .rsplit('.')
                .next()
                .unwrap_or(&name)
                .to_ascii_uppercase();
            out.insert(short, def);
        }
    }
    out
}

/// The class's subtypes: from its `xml:definition` metadata, else from its definition
/// in `GDB_Items` (`definitions`), when either names a subtype field.
pub fn class_subtypes<L: LayerAccess>(
    layer: &L,
    definitions: &BTreeMap<String, String>,
) -> Option<Subtypes> {
    layer_subtypes(layer).or_else(|| {
        definitions
            .get(&layer.name().to_ascii_uppercase())
            .and_then(|d| parse_subtypes(d))
    })
}

/// The class's subtypes from its `xml:definition` metadata, when the driver gives one
/// and it names a subtype field.
pub fn layer_subtypes<L: LayerAccess>(layer: &L) -> Option<Subtypes> {
    let domain = CString::new("xml:definition").ok()?;
    // SAFETY: a layer handle is a GDAL major object; the metadata list belongs to the
    // layer and is only read (its first item is the whole XML document).
    let xml = unsafe {
        let md = gdal_sys::GDALGetMetadata(
            layer.c_layer() as gdal_sys::GDALMajorObjectH,
            domain.as_ptr(),
        );
        if md.is_null() || (*md).is_null() {
            return None;
        }
        CStr::from_ptr(*md).to_string_lossy().into_owned()
    };
    parse_subtypes(&xml)
}

/// Reads the subtypes out of an Esri class definition (`DEFeatureClassInfo` or
/// `DETableInfo` XML).
pub fn parse_subtypes(xml: &str) -> Option<Subtypes> {
    let field = inner(xml, "SubtypeFieldName")?.trim().to_string();
    if field.is_empty() {
        return None;
    }
    let mut by_code = BTreeMap::new();
    for block in elements(xml, "Subtype") {
        let Some(code) = inner(block, "SubtypeCode").and_then(|c| c.trim().parse().ok()) else {
            continue;
        };
        let name = unescape(inner(block, "SubtypeName").unwrap_or_default().trim());
        let mut domains = BTreeMap::new();
        for info in elements(block, "SubtypeFieldInfo") {
            if let (Some(f), Some(d)) = (inner(info, "FieldName"), inner(info, "DomainName")) {
                if !d.trim().is_empty() {
                    domains.insert(unescape(f.trim()), unescape(d.trim()));
                }
            }
        }
        by_code.insert(code, Subtype { name, domains });
    }
    Some(Subtypes { field, by_code })
}

/// The text inside the first `<tag ...>...</tag>`.
fn inner<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    elements(xml, tag).into_iter().next()
}

/// The contents of every `<tag>` or `<tag attr...>` element (not `<tagLonger>`), not nested.
fn elements<'a>(xml: &'a str, tag: &str) -> Vec<&'a str> {
    let open = format!("<{tag}");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(at) = rest.find(&open) {
        let after = &rest[at + open.len()..];
        let next = after.chars().next();
        if !matches!(next, Some('>' | ' ' | '\t' | '\n' | '\r')) {
            rest = after;
            continue;
        }
        let Some(gt) = after.find('>') else { break };
        if after[..gt].ends_with('/') {
            rest = &after[gt + 1..];
            continue;
        }
        let body = &after[gt + 1..];
        let Some(end) = body.find(&close) else { break };
        out.push(&body[..end]);
        rest = &body[end + close.len()..];
    }
    out
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A definition cut down from what ArcGIS writes for a Utility Network device class.
    const DEFINITION: &str = r#"<DEFeatureClassInfo xsi:type="typens:DEFeatureClassInfo">
<Name>StormwaterDevice</Name><SubtypeFieldName>ASSETGROUP</SubtypeFieldName>
<DefaultSubtypeCode>0</DefaultSubtypeCode>
<Subtypes xsi:type="typens:ArrayOfSubtype">
<Subtype xsi:type="typens:Subtype"><SubtypeName>Catch Basin</SubtypeName><SubtypeCode>1</SubtypeCode>
<FieldInfos xsi:type="typens:ArrayOfSubtypeFieldInfo">
<SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo"><FieldName>ASSETTYPE</FieldName><DomainName>Stormwater Device-Catch Basin-Asset Type</DomainName><DefaultValue xsi:type="xs:short">0</DefaultValue></SubtypeFieldInfo>
<SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo"><FieldName>LIFECYCLESTATUS</FieldName><DomainName>Lifecycle Status</DomainName></SubtypeFieldInfo>
</FieldInfos></Subtype>
<Subtype xsi:type="typens:Subtype"><SubtypeName>Outfall &amp; Headwall</SubtypeName><SubtypeCode>2</SubtypeCode>
<FieldInfos xsi:type="typens:ArrayOfSubtypeFieldInfo"><SubtypeFieldInfo xsi:type="typens:SubtypeFieldInfo"><FieldName>ASSETTYPE</FieldName><DomainName>Stormwater Device-Outfall-Asset Type</DomainName></SubtypeFieldInfo></FieldInfos>
</Subtype></Subtypes></DEFeatureClassInfo>"#;

    #[test]
    fn subtypes_and_their_own_domains_are_read_from_the_definition() {
        let s = parse_subtypes(DEFINITION).unwrap();
        assert_eq!(s.field, "ASSETGROUP");
        assert_eq!(s.by_code.len(), 2);
        assert_eq!(s.by_code[&1].name, "Catch Basin");
        assert_eq!(
            s.by_code[&1].domains["ASSETTYPE"],
            "Stormwater Device-Catch Basin-Asset Type"
        );
        assert_eq!(s.by_code[&2].name, "Outfall & Headwall");
        assert!(!s.by_code[&2].domains.contains_key("LIFECYCLESTATUS"));
        assert_eq!(
            parse_subtypes("<DETableInfo><Name>T</Name></DETableInfo>"),
            None
        );
    }

    #[test]
    fn integer_codes_are_matched_by_value_and_unknown_codes_are_not_guessed() {
        let d = CodedDomain {
            name: "Owned By".into(),
            codes: [
                ("1".to_string(), Some("City".to_string())),
                ("2".into(), None),
            ]
            .into_iter()
            .collect(),
        };
        assert_eq!(d.decode("1"), Some(Some("City")));
        assert_eq!(d.decode("01"), Some(Some("City")));
        assert_eq!(d.decode("2"), Some(None));
        assert_eq!(d.decode("3"), None);
        assert_eq!(d.decode("city"), None);
    }
}
