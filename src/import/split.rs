//! `--layer-by`: one source file that holds every structure type, split over several
//! layers by the value of one field, in one transaction with a report per layer.
//!
//! The mapping is `FIELD=layer:'value','value';layer:'value'` on the command line, or a
//! small TOML file:
//!
//! ```toml
//! field = "FeatureType"
//! [layers]
//! catch_basins = ["Catch Basin", "Inlet"]
//! manholes = ["Manhole", "Junction Box"]
//! ```
//!
//! Each layer's features are read with an OGR SQL condition (`"FeatureType" IN (...)`,
//! and `--where` when given), so a layer's read is an ordinary import of that subset:
//! the same fields, checks and report.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::{ImportError, Result};
use super::ImportOptions;
use crate::domain::Layer;

/// A parsed `--layer-by` mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerBy {
    /// The source field whose value picks the layer.
    pub field: String,
    /// Each layer with the values that send a feature to it, in the order given.
    pub layers: Vec<(Layer, Vec<String>)>,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LayerByToml {
    field: String,
    layers: BTreeMap<String, Vec<String>>,
}

impl LayerBy {
    /// Parses the command-line form, or reads the TOML file `arg` names (a path ending
    /// in `.toml`).
    pub fn parse(arg: &str) -> Result<LayerBy> {
        let bad = |why: String| invalid(arg, why);
        if arg.trim_end().ends_with(".toml") && Path::new(arg.trim()).is_file() {
            let text = std::fs::read_to_string(arg.trim())
                .map_err(|e| bad(format!("cannot read it: {e}")))?;
            let t: LayerByToml = toml::from_str(&text).map_err(|e| bad(e.to_string()))?;
            let layers = t
                .layers
                .into_iter()
                .map(|(l, v)| Ok((layer_name(&l).map_err(&bad)?, v)))
                .collect::<Result<Vec<_>>>()?;
            return LayerBy {
                field: t.field,
                layers,
            }
            .checked()
            .map_err(bad);
        }
        Self::parse_inline(arg)
    }

    /// Parses the command-line form only (`FIELD=layer:'value';...`), never reading a
    /// file: what an upload's `layer_by` may be, since a server's files are not the
    /// client's to name.
    pub fn parse_inline(arg: &str) -> Result<LayerBy> {
        let bad = |why: String| invalid(arg, why);
        let (field, rest) = arg.split_once('=').ok_or_else(|| {
            bad("expected FIELD=layer:'value','value';layer:'value' or a .toml file".into())
        })?;
        let mut layers = Vec::new();
        for part in split_outside_quotes(rest, ';') {
            if part.trim().is_empty() {
                continue;
            }
            let (l, values) = part
                .split_once(':')
                .ok_or_else(|| bad(format!("{part:?}: expected layer:'value','value'")))?;
            let values = split_outside_quotes(values, ',')
                .into_iter()
                .map(|v| unquote(v.trim()))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(&bad)?;
            layers.push((layer_name(l.trim()).map_err(&bad)?, values));
        }
        LayerBy {
            field: field.trim().to_string(),
            layers,
        }
        .checked()
        .map_err(bad)
    }

    fn checked(self) -> std::result::Result<LayerBy, String> {
        if self.field.is_empty() {
            return Err("no field named before '='".into());
        }
        if self.layers.is_empty() {
            return Err("no layer given".into());
        }
        let mut seen: Vec<Layer> = Vec::new();
        let mut values: Vec<&str> = Vec::new();
        for (l, v) in &self.layers {
            if seen.contains(l) {
                return Err(format!("{l} is given twice"));
            }
            seen.push(*l);
            if v.is_empty() {
                return Err(format!("{l} has no values"));
            }
            for x in v {
                if values.contains(&x.as_str()) {
                    return Err(format!("the value {x:?} is given for two layers"));
                }
                values.push(x);
            }
        }
        Ok(self)
    }

    /// The import of each layer: `base` with the layer and its condition.
    pub fn reads(&self, base: &ImportOptions) -> Vec<ImportOptions> {
        self.layers
            .iter()
            .map(|(layer, values)| {
                let mut o = base.clone();
                o.layer = *layer;
                let cond = self.condition(values);
                o.filter = Some(match base.filter.as_deref() {
                    Some(w) if !w.trim().is_empty() => format!("({w}) AND {cond}"),
                    _ => cond,
                });
                o
            })
            .collect()
    }

    /// The OGR SQL condition selecting these values of the field.
    fn condition(&self, values: &[String]) -> String {
        let quoted: Vec<String> = values
            .iter()
            .map(|v| format!("'{}'", v.replace('\'', "''")))
            .collect();
        format!(
            "\"{}\" IN ({})",
            self.field.replace('"', "\"\""),
            quoted.join(", ")
        )
    }

    /// The condition selecting what no layer takes (for the report of what was left).
    pub fn unmapped_condition(&self) -> String {
        let all: Vec<String> = self
            .layers
            .iter()
            .flat_map(|(_, v)| v.iter().cloned())
            .collect();
        format!(
            "\"{0}\" IS NULL OR NOT ({1})",
            self.field.replace('"', "\"\""),
            self.condition(&all)
        )
    }
}

/// A refused mapping, named as the command line and the request name it.
fn invalid(arg: &str, why: String) -> ImportError {
    ImportError::Invalid {
        field: "layer_by",
        message: format!("--layer-by {arg:?}: {why}"),
    }
}

/// A layer by its name, or its name without the final "s" (`catch_basin`).
fn layer_name(s: &str) -> std::result::Result<Layer, String> {
    s.parse::<Layer>()
        .or_else(|_| format!("{s}s").parse::<Layer>())
        .map_err(|_| {
            format!(
                "{s:?} is not a registry layer; the layers are: {}",
                Layer::ALL
                    .iter()
                    .map(|l| l.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

fn split_outside_quotes(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == sep => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            None => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn unquote(v: &str) -> std::result::Result<String, String> {
    for q in ['\'', '"'] {
        if let Some(inner) = v.strip_prefix(q) {
            return inner
                .strip_suffix(q)
                .map(str::to_string)
                .ok_or_else(|| format!("the value {v} has no closing {q}"));
        }
    }
    if v.is_empty() {
        return Err("an empty value".into());
    }
    Ok(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_form_names_layers_and_their_values() {
        let l = LayerBy::parse(
            "FeatureType=catch_basin:'Catch Basin','Inlet';manhole:'Manhole','Junction Box'",
        )
        .unwrap();
        assert_eq!(l.field, "FeatureType");
        assert_eq!(
            l.layers,
            vec![
                (
                    Layer::CatchBasins,
                    vec!["Catch Basin".to_string(), "Inlet".into()]
                ),
                (
                    Layer::Manholes,
                    vec!["Manhole".into(), "Junction Box".into()]
                ),
            ]
        );
        let reads = l.reads(&ImportOptions::new(Layer::CatchBasins, "f.geojson"));
        assert_eq!(
            reads[1].filter.as_deref(),
            Some("\"FeatureType\" IN ('Manhole', 'Junction Box')")
        );
    }

    #[test]
    fn mistakes_are_named() {
        let e = LayerBy::parse("FeatureType=drains:'A'")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"drains\" is not a registry layer"), "{e}");
        let e = LayerBy::parse("T=manholes:'A';catch_basins:'A'")
            .unwrap_err()
            .to_string();
        assert!(e.contains("\"A\" is given for two layers"), "{e}");
        let e = LayerBy::parse("manholes:'A'").unwrap_err().to_string();
        assert!(e.contains("FIELD="), "{e}");
    }
}

/// What a split import did: the report of each layer's read, and what no layer took.
#[derive(Debug, Clone, serde::Serialize)]
pub struct SplitReport {
    /// The field whose value chose the layer.
    pub field: String,
    /// One report per layer, in the order the mapping gives them.
    pub layers: Vec<super::ImportReport>,
    /// The features the source holds, when it says.
    pub source_features: Option<u64>,
    /// The source features no layer (or `--where`) took, when the source says how many
    /// it holds.
    pub not_taken: Option<u64>,
}

impl std::fmt::Display for SplitReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in &self.layers {
            write!(f, "{r}")?;
        }
        let read: u64 = self.layers.iter().map(|r| r.read).sum();
        write!(
            f,
            "split by {}: {} layers, {read} features read",
            self.field,
            self.layers.len()
        )?;
        if let (Some(n), Some(left)) = (self.source_features, self.not_taken) {
            write!(f, " of {n}; {left} taken by no layer")?;
        }
        writeln!(f, " (one transaction)")
    }
}

/// Imports `base`'s file split over the layers of `by`, in one transaction.
pub async fn import_split(
    store: std::sync::Arc<dyn crate::store::Store>,
    base: ImportOptions,
    by: &LayerBy,
) -> Result<SplitReport> {
    let layers = super::import_many(store, by.reads(&base)).await?;
    let source_features = layers.first().and_then(|r| r.source_features);
    let read: u64 = layers.iter().map(|r| r.read).sum();
    Ok(SplitReport {
        field: by.field.clone(),
        source_features,
        not_taken: source_features.map(|n| n.saturating_sub(read)),
        layers,
    })
}
