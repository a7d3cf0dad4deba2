//! The built-in tables that say how an Esri geodatabase's classes become ms4's layers:
//! which class fills which layer (or which subtype value, for a class split by its
//! subtype field), where each canonical field comes from, and what unit a length is in.
//!
//! They are plain TOML (`lgim.toml`, `utility_network.toml` beside this file) so the
//! analyst reads exactly what the import does (`--show-preset`) and overrides it with an
//! edited copy (`--preset-file`), instead of trusting a table hidden in code.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::domain::Layer;
use crate::import::error::{ImportError, Result};
use crate::import::map_unit::{self, SourceUnit};

/// The Local Government Information Model's stormwater classes.
const LGIM: &str = include_str!("lgim.toml");
/// The Utility Network's stormwater classes, split by asset group.
const UTILITY_NETWORK: &str = include_str!("utility_network.toml");

/// The presets built in, by the name `--preset` takes.
pub const BUILT_IN: &[(&str, &str)] = &[("lgim", LGIM), ("utility-network", UTILITY_NETWORK)];

/// How one schema's classes map onto the registry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Preset {
    /// Its name (`lgim`, `utility-network`, or the override file's own).
    pub name: String,
    /// What schema it reads, in words.
    #[serde(default)]
    pub about: String,
    /// The unit each length field's source values are in (`diameter_in = "in"`).
    #[serde(default)]
    pub units: BTreeMap<String, String>,
    /// Canonical field → the source fields that may hold it, the first a class has wins.
    #[serde(default)]
    pub fields: BTreeMap<String, Vec<String>>,
    /// Source fields never carried, not even as extras (the geodatabase's bookkeeping).
    #[serde(default)]
    pub ignore: Vec<String>,
    /// Dates that stand for "no date" in the schema's data (`1753-01-01`, SQL Server's
    /// least datetime, which enterprise geodatabases hold where nothing was entered): a
    /// canonical date field with one is left empty, and the mapping report counts them.
    #[serde(default)]
    pub null_dates: Vec<chrono::NaiveDate>,
    /// The classes read; a class not listed is reported and left alone.
    #[serde(default)]
    pub classes: Vec<ClassRule>,
    /// How related inspection tables become inspections.
    #[serde(default)]
    pub inspections: Option<InspectionRule>,
}

/// Related inspection tables: the kind of each parent layer's inspections and the
/// source fields of the inspection's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectionRule {
    /// Parent layer → the kind of its inspections (`outfalls = "dry_weather_screening"`).
    #[serde(default)]
    pub kinds: BTreeMap<String, String>,
    /// Inspection field → the source fields that may hold it, the first present winning.
    #[serde(default)]
    pub fields: BTreeMap<String, Vec<String>>,
}

/// One class of the geodatabase and where its features go.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassRule {
    /// The class (feature class or table) name; matched ignoring case.
    pub class: String,
    /// The one layer the whole class fills.
    #[serde(default)]
    pub layer: Option<String>,
    /// The field whose value (decoded to its word, or the raw code) picks the layer: the
    /// subtype field, for the Utility Network's `ASSETGROUP`.
    #[serde(default)]
    pub split_by: Option<String>,
    /// With `split_by`: each layer with the values that send a feature to it.
    #[serde(default)]
    pub layers: BTreeMap<String, Vec<String>>,
    /// Canonical fields given one value for every feature of the class (`kind = "culvert"`).
    #[serde(default)]
    pub set: BTreeMap<String, String>,
    /// This class's own source fields for canonical fields, before the preset's `fields`.
    #[serde(default)]
    pub fields: BTreeMap<String, Vec<String>>,
}

impl Preset {
    /// A built-in preset by name (`lgim`, `utility-network`; `un` and `utility_network`
    /// are taken too).
    pub fn built_in(name: &str) -> Result<Preset> {
        let text = Self::built_in_text(name)?;
        Self::parse(text, name)
    }

    /// A built-in preset's TOML, as `--show-preset` prints it.
    pub fn built_in_text(name: &str) -> Result<&'static str> {
        let norm = match name.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "un" => "utility-network".to_string(),
            other => other.to_string(),
        };
        BUILT_IN
            .iter()
            .find(|(n, _)| *n == norm)
            .map(|(_, t)| *t)
            .ok_or_else(|| ImportError::Invalid {
                field: "preset",
                message: format!(
                    "--preset {name:?}: no such preset; the presets are: {}",
                    BUILT_IN
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
    }

    /// A preset from an analyst's TOML file (an edited `--show-preset`).
    pub fn from_file(path: &Path) -> Result<Preset> {
        let text = std::fs::read_to_string(path).map_err(|e| ImportError::Invalid {
            field: "preset_file",
            message: format!("{}: cannot read it: {e}", path.display()),
        })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses and checks a preset's TOML; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Preset> {
        let bad = |message: String| ImportError::Invalid {
            field: "preset",
            message: format!("{origin}: {message}"),
        };
        let p: Preset = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        p.check().map_err(bad)?;
        Ok(p)
    }

    /// Every layer, field and unit the preset names exists; each class says where its
    /// features go, once.
    fn check(&self) -> std::result::Result<(), String> {
        for (canonical, unit) in &self.units {
            map_unit::SourceUnit::parse(unit).ok_or_else(|| {
                format!("[units] {canonical} = {unit:?}: not a unit ms4 converts")
            })?;
        }
        if let Some(i) = &self.inspections {
            for (layer, kind) in &i.kinds {
                let l = layer_of(layer).map_err(|e| format!("[inspections] kinds: {e}"))?;
                let k: crate::domain::InspectionKind = kind
                    .parse()
                    .map_err(|e| format!("[inspections] kinds: {l}: {e}"))?;
                if k.layer() != l {
                    return Err(format!(
                        "[inspections] kinds: {l} = {kind:?}, but a {kind} inspects {}",
                        k.layer()
                    ));
                }
            }
            for name in i.fields.keys() {
                if Layer::Inspections.field_index(name).is_none() {
                    return Err(format!(
                        "[inspections] fields: inspections have no field {name:?}"
                    ));
                }
            }
        }
        let known = |name: &str| {
            Layer::ALL
                .iter()
                .any(|l| l.id_field() == name || l.field_index(name).is_some())
        };
        for (name, _) in self
            .fields
            .iter()
            .chain(self.classes.iter().flat_map(|c| &c.fields))
        {
            if !known(name) {
                return Err(format!(
                    "[fields] {name}: no layer has a field {name:?} (a setting placed after a [table] heading belongs to that table)"
                ));
            }
        }
        let mut seen: Vec<String> = Vec::new();
        for c in &self.classes {
            let lower = c.class.to_ascii_lowercase();
            if seen.contains(&lower) {
                return Err(format!("the class {} is given twice", c.class));
            }
            seen.push(lower);
            match (&c.layer, &c.split_by) {
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "class {}: give layer or split_by, not both",
                        c.class
                    ))
                }
                (None, None) => return Err(format!("class {}: give layer or split_by", c.class)),
                (None, Some(_)) if c.layers.is_empty() => {
                    return Err(format!(
                        "class {}: split_by needs a [layers] table of values",
                        c.class
                    ))
                }
                _ => {}
            }
            for layer in c.target_names() {
                let l = layer_of(layer).map_err(|e| format!("class {}: {e}", c.class))?;
                for name in c.set.keys() {
                    if c.layer.is_some() && l.field_index(name).is_none() {
                        return Err(format!(
                            "class {}: set {name}: {l} has no field {name:?}",
                            c.class
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The rule for a class of the file, matched ignoring case.
    pub fn rule_for(&self, class: &str) -> Option<&ClassRule> {
        self.classes
            .iter()
            .find(|c| c.class.eq_ignore_ascii_case(class))
    }

    /// The unit the preset gives a canonical field's source, if any.
    pub fn unit(&self, canonical: &str) -> Option<SourceUnit> {
        self.units.get(canonical).and_then(|u| SourceUnit::parse(u))
    }

    /// Whether a source field is one the preset never carries.
    pub fn ignores(&self, field: &str) -> bool {
        self.ignore.iter().any(|i| i.eq_ignore_ascii_case(field))
    }
}

impl ClassRule {
    /// The names of the layers this class may fill.
    pub fn target_names(&self) -> Vec<&str> {
        match &self.layer {
            Some(l) => vec![l.as_str()],
            None => self.layers.keys().map(String::as_str).collect(),
        }
    }

    /// The layers this class may fill (checked when the preset was parsed).
    pub fn targets(&self) -> Vec<Layer> {
        self.target_names()
            .into_iter()
            .filter_map(|n| layer_of(n).ok())
            .collect()
    }

    /// The layer a split value sends a feature to: the value's word or its raw code,
    /// ignoring case and surrounding spaces.
    pub fn layer_for_value(&self, word: Option<&str>, code: Option<&str>) -> Option<Layer> {
        let matches = |v: &str| {
            let v = v.trim();
            word.is_some_and(|w| w.trim().eq_ignore_ascii_case(v))
                || code.is_some_and(|c| c.trim().eq_ignore_ascii_case(v))
        };
        self.layers
            .iter()
            .find(|(_, values)| values.iter().any(|v| matches(v)))
            .and_then(|(l, _)| layer_of(l).ok())
    }
}

/// A layer by its name or its singular (`catch_basin`).
fn layer_of(name: &str) -> std::result::Result<Layer, String> {
    name.parse::<Layer>().or_else(|e| {
        format!("{name}s")
            .parse::<Layer>()
            .map_err(|_| e.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_presets_parse_and_name_real_layers() {
        for (name, _) in BUILT_IN {
            let p = Preset::built_in(name).unwrap();
            assert_eq!(&p.name, name);
            assert!(!p.classes.is_empty());
            for c in &p.classes {
                assert!(!c.targets().is_empty(), "{}", c.class);
            }
        }
        let lgim = Preset::built_in("LGIM").unwrap();
        assert_eq!(
            lgim.rule_for("SWINLET").unwrap().targets(),
            [Layer::CatchBasins]
        );
        assert_eq!(lgim.unit("diameter_in").map(|u| u.symbol), Some("in"));
        assert_eq!(Preset::built_in("un").unwrap().name, "utility-network");
    }

    #[test]
    fn a_split_value_is_matched_by_word_or_code() {
        let un = Preset::built_in("utility-network").unwrap();
        let device = un.rule_for("StormwaterDevice").unwrap();
        assert_eq!(
            device.layer_for_value(Some("catch basin"), Some("12")),
            Some(Layer::CatchBasins)
        );
        assert_eq!(
            device.layer_for_value(None, Some("Outfall")),
            Some(Layer::Outfalls)
        );
        assert_eq!(device.layer_for_value(Some("Hydrant"), Some("3")), None);
    }

    #[test]
    fn a_wrong_override_is_named() {
        let cases = [
            (
                "name = \"x\"\n[[classes]]\nclass = \"A\"\nlayer = \"drains\"\n",
                "\"drains\"",
            ),
            (
                "name = \"x\"\n[[classes]]\nclass = \"A\"\n",
                "give layer or split_by",
            ),
            (
                "name = \"x\"\n[units]\ndiameter_in = \"yd\"\n",
                "not a unit",
            ),
            (
                "name = \"x\"\n[[classes]]\nclass = \"A\"\nlayer = \"pipes\"\nset = { colour = \"red\" }\n",
                "pipes has no field \"colour\"",
            ),
            ("name = \"x\"\ncolour = 1\n", "unknown field"),
            (
                "name = \"x\"\n[fields]\nasset_id = [\"ID\"]\nignore = [\"OBJECTID\"]\n",
                "[fields] ignore: no layer has a field",
            ),
        ];
        for (text, says) in cases {
            let e = Preset::parse(text, "over.toml").unwrap_err().to_string();
            assert!(e.contains("over.toml") && e.contains(says), "{text}: {e}");
        }
        let e = Preset::built_in("arcfm").unwrap_err().to_string();
        assert!(e.contains("lgim, utility-network"), "{e}");
    }
}
