//! One import as it is asked for: the options of `ms4 import` and of an upload
//! (`POST /api/import`, `POST /api/layers/{layer}/import`), as one typed request. The
//! command line parses its flags into an [`ImportRequest`], the server its form's parts;
//! both then run it through [`ImportRequest::plan`] and [`ImportPlan::run`], and only
//! render the outcome.
//!
//! An option that is wrong before anything is read (a `map` without `=`, an `s_srs`
//! that is no EPSG code, a `layer_by` mapping that names no layer, `id` and `id_prefix`
//! together...) is an [`ImportError::Invalid`] naming the option as the request does
//! (`map`, `s_srs`, `layer_by`...), with the message the command line has always given.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Deserializer};

use super::cancel::Cancel;
use super::error::{ImportError, Result};
use super::split::{self, LayerBy, SplitReport};
use super::{crs, source, ImportOptions, ImportReport, InvalidPolicy};
use crate::domain::Layer;
use crate::store::{Store, WriteMode};

/// The message of a request that gives both `id` and `id_prefix`.
pub(super) const ID_AND_PREFIX: &str =
    "give --id (an expression) or --id-prefix (generated ids), not both";

/// What to import and how: every option of `ms4 import` but the file, named as the
/// command line's flags with `_` for `-` (`--src-layer` is `src_layer`). The upload's
/// form parts carry the same names.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The registry layer: parcels, catch_basins, manholes, outfalls, structures, pipes,
    /// connections, connection_records, smps, easements, receiving_waters, impairments,
    /// watersheds, tmdl_areas, inspections, discharge_determinations or boundary. Left
    /// out with `layer_by`, whose mapping names the layers.
    #[serde(default)]
    pub layer: Option<String>,
    /// Import only the features this OGR SQL condition selects:
    /// `FeatureType = 'Catch Basin'` (`--where`).
    #[serde(rename = "where", default)]
    pub filter: Option<String>,
    /// Split the file over several layers by one field's value, in one transaction:
    /// `FeatureType=catch_basins:'Catch Basin','Inlet';manholes:'Manhole'`. The command
    /// line may name a `.toml` file instead; an upload may not.
    #[serde(default)]
    pub layer_by: Option<String>,
    /// Make each id from an expression over the source fields, when the file has no
    /// usable id field: `COALESCE(FACILITYID, ALTID)` (fields, 'text', COALESCE, ||).
    #[serde(default)]
    pub id: Option<String>,
    /// Generate ids: this prefix followed by the source feature number (`P-`). Not
    /// with `id`.
    #[serde(default)]
    pub id_prefix: Option<String>,
    /// Field mappings, `canonical=SOURCE` (`asset_id=FACILITYID`), one per entry; a
    /// length may name the unit its source field is in, `canonical=SOURCE:unit`
    /// (`diameter_in=SPAN:ft`; in, ft, ftUS, m, cm or mm), to be converted into the
    /// field's own.
    #[serde(default)]
    pub map: Vec<String>,
    /// The layer inside the file, when it has several.
    #[serde(default)]
    pub src_layer: Option<String>,
    /// The source CRS, when the file has none or states it wrongly: `EPSG:<code>`.
    #[serde(default)]
    pub s_srs: Option<String>,
    /// Report only; write nothing.
    #[serde(default, deserialize_with = "flag")]
    #[schemars(with = "bool")]
    pub dry_run: bool,
    /// Replace the layer: delete the features the file does not carry. Into
    /// `programme_submissions`, refused when the file leaves out a recorded submission,
    /// which a replace never removes.
    #[serde(default, deserialize_with = "flag")]
    #[schemars(with = "bool")]
    pub replace: bool,
    /// With `replace`, let a file with no features empty the layer.
    #[serde(default, deserialize_with = "flag")]
    #[schemars(with = "bool")]
    pub allow_empty: bool,
    /// With `replace`, let the import delete more than the registry's share of the
    /// layer (half, unless `ms4 profile set max_delete_share` says otherwise).
    #[serde(default, deserialize_with = "flag")]
    #[schemars(with = "bool")]
    pub allow_mass_delete: bool,
    /// What to do with invalid polygons: `repair` (the default) or `reject`.
    #[serde(default)]
    pub invalid: Option<String>,
    /// Read a File Geodatabase (zipped, for an upload) by a built-in Esri preset, into
    /// every layer it fills: `lgim` or `utility-network` (`ms4 import-esri --show-preset`
    /// prints them). The command line may name an edited copy (a `.toml` file) instead.
    /// Not with `layer`, `layer_by`, `where`, `id`, `id_prefix`, `src_layer` or `s_srs`.
    #[serde(default)]
    pub preset: Option<String>,
}

/// A flag as JSON's `true`/`false` or as a form's text (`true`, `false`, `yes`, `no`,
/// `1`, `0`...).
fn flag<'de, D: Deserializer<'de>>(d: D) -> std::result::Result<bool, D::Error> {
    struct Flag;
    impl serde::de::Visitor<'_> for Flag {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E: serde::de::Error>(self, v: bool) -> std::result::Result<bool, E> {
            Ok(v)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> std::result::Result<bool, E> {
            crate::domain::feature::parse_bool(v)
                .ok_or_else(|| E::custom(format!("{v:?} is not true or false")))
        }
    }
    d.deserialize_any(Flag)
}

impl InvalidPolicy {
    /// The policy's name, as `--invalid` and the request's `invalid` take it.
    pub fn name(self) -> &'static str {
        match self {
            InvalidPolicy::Repair => "repair",
            InvalidPolicy::Reject => "reject",
        }
    }
}

/// What the caller of an import knows that the request does not say: the file, who
/// imports it, and how the run is watched.
#[derive(Debug, Clone)]
pub struct RunContext {
    /// The file.
    pub path: PathBuf,
    /// Who is importing (for the audit log).
    pub actor: String,
    /// Stops the read part-way; nothing is then written.
    pub cancel: Cancel,
    /// Show a progress bar on a terminal (never for a split: the bars would garble it).
    pub progress: bool,
    /// Let GDAL open the file with any driver (the command line's `--allow-any-driver`;
    /// never for uploads).
    pub any_driver: bool,
    /// Let `layer_by` name a `.toml` file on this machine (the command line only: a
    /// server's files are not a client's to name).
    pub local_files: bool,
    /// Keep a copy of the features written, up to this many (see
    /// [`ImportOptions::keep_written`]).
    pub keep_written: usize,
}

impl RunContext {
    /// A run of the file at `path` by the user running the command: no progress bar, no
    /// deadline, the allow-listed drivers only, no local mapping files, no copies kept.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        RunContext {
            path: path.into(),
            actor: super::default_actor(),
            cancel: Cancel::new(),
            progress: false,
            any_driver: false,
            local_files: false,
            keep_written: 0,
        }
    }
}

/// A checked request, ready to run: the import's options and, for a split, its
/// mapping (the options' layer is then a placeholder each read replaces).
#[derive(Debug, Clone)]
pub struct ImportPlan {
    /// The options of the import (of each read, for a split).
    pub options: ImportOptions,
    /// The `layer_by` mapping, when the file is split over several layers.
    pub layer_by: Option<LayerBy>,
    /// The Esri preset, when the file is a geodatabase read by one (the options' layer
    /// is then a placeholder; the preset names the layers).
    pub esri: Option<super::esri::Preset>,
}

/// What an import did: one layer's report, or a split's report per layer. Serialised
/// as the report itself, as `ms4 import --format json` prints it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum ImportOutcome {
    /// One layer.
    One(Box<ImportReport>),
    /// Several layers, from `layer_by`.
    Split(SplitReport),
    /// A geodatabase read by an Esri preset: its mapping and a report per layer.
    Esri(Box<super::esri::EsriOutcome>),
}

impl ImportOutcome {
    /// Each layer's report.
    pub fn reports_mut(&mut self) -> Vec<&mut ImportReport> {
        match self {
            ImportOutcome::One(r) => vec![r.as_mut()],
            ImportOutcome::Split(s) => s.layers.iter_mut().collect(),
            ImportOutcome::Esri(e) => e.layers.iter_mut().collect(),
        }
    }
}

impl std::fmt::Display for ImportOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ImportOutcome::One(r) => write!(f, "{r}"),
            ImportOutcome::Split(s) => write!(f, "{s}"),
            ImportOutcome::Esri(e) => write!(f, "{}{e}", e.mapping),
        }
    }
}

fn invalid(field: &'static str, message: impl Into<String>) -> ImportError {
    ImportError::Invalid {
        field,
        message: message.into(),
    }
}

impl ImportRequest {
    /// Checks the request and makes its plan, reading nothing yet. A wrong option is an
    /// [`ImportError::Invalid`] naming it.
    pub fn plan(&self, ctx: RunContext) -> Result<ImportPlan> {
        if let Some(name) = &self.preset {
            return self.plan_esri(name, ctx);
        }
        let (layer, layer_by) = match (&self.layer, &self.layer_by) {
            (Some(l), None) => (
                l.parse::<Layer>()
                    .map_err(|e| invalid("layer", e.to_string()))?,
                None,
            ),
            (None, Some(by)) => {
                let by = if ctx.local_files {
                    LayerBy::parse(by)?
                } else {
                    LayerBy::parse_inline(by)?
                };
                // The mapping gives each read its layer.
                (Layer::CatchBasins, Some(by))
            }
            (Some(_), Some(_)) => {
                return Err(invalid(
                    "layer_by",
                    "with layer_by the layers come from the mapping: give no layer",
                ))
            }
            (None, None) => {
                return Err(invalid(
                    "layer",
                    "give the layer, or layer_by to split the file over several layers",
                ))
            }
        };
        let maps = self
            .map
            .iter()
            .map(|m| source::parse_map(m).map_err(|e| invalid("map", e.to_string())))
            .collect::<Result<Vec<_>>>()?;
        let units = maps
            .iter()
            .filter_map(|m| Some((m.canonical.clone(), m.unit?)))
            .collect();
        let maps = maps.into_iter().map(|m| (m.canonical, m.source)).collect();
        let s_srs = self
            .s_srs
            .as_deref()
            .map(|s| crs::parse_epsg(s).map_err(|e| invalid("s_srs", e.to_string())))
            .transpose()?;
        let policy = match self.invalid.as_deref() {
            None => InvalidPolicy::default(),
            Some(v) => [InvalidPolicy::Repair, InvalidPolicy::Reject]
                .into_iter()
                .find(|p| p.name() == v)
                .ok_or_else(|| invalid("invalid", format!("{v:?}; expected repair or reject")))?,
        };
        if self.id.is_some() && self.id_prefix.is_some() {
            return Err(invalid("id_prefix", ID_AND_PREFIX));
        }
        let mut o = ImportOptions::new(layer, ctx.path);
        o.filter = self.filter.clone();
        o.id_expr = self.id.clone();
        o.id_prefix = self.id_prefix.clone();
        o.maps = maps;
        o.units = units;
        o.src_layer = self.src_layer.clone();
        o.s_srs = s_srs;
        o.dry_run = self.dry_run;
        o.mode = if self.replace {
            WriteMode::Replace
        } else {
            WriteMode::Upsert
        };
        o.invalid = policy;
        o.allow_empty = self.allow_empty;
        o.allow_mass_delete = self.allow_mass_delete;
        o.actor = ctx.actor;
        o.cancel = ctx.cancel;
        o.any_driver = ctx.any_driver;
        o.keep_written = ctx.keep_written;
        // Several reads run at once: one progress bar each would garble the terminal.
        o.progress = ctx.progress && layer_by.is_none();
        Ok(ImportPlan {
            options: o,
            layer_by,
            esri: None,
        })
    }

    /// The plan of a geodatabase read by an Esri preset: the preset found (by name, or
    /// from the command line's own `.toml`), the options it cannot take refused by name.
    fn plan_esri(&self, name: &str, ctx: RunContext) -> Result<ImportPlan> {
        let not_with = [
            ("layer", self.layer.is_some()),
            ("layer_by", self.layer_by.is_some()),
            ("where", self.filter.is_some()),
            ("id", self.id.is_some()),
            ("id_prefix", self.id_prefix.is_some()),
            ("src_layer", self.src_layer.is_some()),
            ("s_srs", self.s_srs.is_some()),
            ("allow_empty", self.allow_empty),
        ];
        if let Some((part, _)) = not_with.iter().find(|(_, given)| *given) {
            return Err(invalid(
                part,
                format!(
                    "with preset the preset names the classes, layers and fields: give no {part}"
                ),
            ));
        }
        let preset = if ctx.local_files && name.trim_end().ends_with(".toml") {
            super::esri::Preset::from_file(std::path::Path::new(name.trim()))?
        } else {
            super::esri::Preset::built_in(name)?
        };
        for m in &self.map {
            source::parse_map(m).map_err(|e| invalid("map", e.to_string()))?;
        }
        let planned = ImportRequest {
            preset: None,
            layer: Some(Layer::Pipes.name().into()),
            ..self.clone()
        }
        .plan(ctx)?;
        Ok(ImportPlan {
            esri: Some(preset),
            ..planned
        })
    }
}

impl ImportPlan {
    /// The layers the import writes, in the order of their reports.
    pub fn layers(&self) -> Vec<Layer> {
        if let Some(p) = &self.esri {
            // Every layer the preset may fill, in the registry's order.
            let targets: Vec<Layer> = p.classes.iter().flat_map(|c| c.targets()).collect();
            return Layer::ALL
                .into_iter()
                .filter(|l| targets.contains(l))
                .collect();
        }
        match &self.layer_by {
            Some(by) => by.layers.iter().map(|(l, _)| *l).collect(),
            None => vec![self.options.layer],
        }
    }

    /// Runs the import: one layer, or the split over the mapping's layers, in one
    /// transaction either way.
    pub async fn run(self, store: Arc<dyn Store>) -> Result<ImportOutcome> {
        if let Some(preset) = self.esri {
            let o = &self.options;
            let mut e = super::esri::EsriOptions::new(o.path.clone());
            e.maps = o
                .maps
                .iter()
                .map(|(c, s)| match o.units.iter().find(|(u, _)| u == c) {
                    Some((_, unit)) => format!("{c}={s}:{unit}"),
                    None => format!("{c}={s}"),
                })
                .collect();
            e.dry_run = o.dry_run;
            e.replace = o.mode == WriteMode::Replace;
            e.allow_mass_delete = o.allow_mass_delete;
            e.invalid = o.invalid;
            e.actor = o.actor.clone();
            e.any_driver = o.any_driver;
            return super::esri::import_esri(store, preset, e, |_| {})
                .await
                .map(|r| ImportOutcome::Esri(Box::new(r)));
        }
        match &self.layer_by {
            Some(by) => split::import_split(store, self.options, by)
                .await
                .map(ImportOutcome::Split),
            None => super::import(store, self.options)
                .await
                .map(|r| ImportOutcome::One(Box::new(r))),
        }
    }
}

/// Checks a request and runs it: [`ImportRequest::plan`] then [`ImportPlan::run`].
pub async fn run(
    store: Arc<dyn Store>,
    request: &ImportRequest,
    ctx: RunContext,
) -> Result<ImportOutcome> {
    request.plan(ctx)?.run(store).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field_of(r: ImportRequest) -> (&'static str, String) {
        match r.plan(RunContext::new("f.geojson")) {
            Err(ImportError::Invalid { field, message }) => (field, message),
            other => panic!("not refused by field: {other:?}"),
        }
    }

    fn layer(l: &str) -> ImportRequest {
        ImportRequest {
            layer: Some(l.into()),
            ..Default::default()
        }
    }

    #[test]
    fn each_wrong_option_is_named() {
        let cases = [
            (
                ImportRequest {
                    map: vec!["asset_id".into()],
                    ..layer("catch_basins")
                },
                "map",
                "--map asset_id",
            ),
            (
                ImportRequest {
                    s_srs: Some("EPSG:abc".into()),
                    ..layer("catch_basins")
                },
                "s_srs",
                "\"EPSG:abc\" is not a CRS; expected EPSG:<code>, e.g. EPSG:2260",
            ),
            (
                ImportRequest {
                    invalid: Some("fix".into()),
                    ..layer("catch_basins")
                },
                "invalid",
                "\"fix\"; expected repair or reject",
            ),
            (
                ImportRequest {
                    layer_by: Some("FeatureType=drains:'A'".into()),
                    ..Default::default()
                },
                "layer_by",
                "--layer-by \"FeatureType=drains:'A'\": \"drains\" is not a registry layer",
            ),
            (
                ImportRequest {
                    id: Some("FACILITYID".into()),
                    id_prefix: Some("P-".into()),
                    ..layer("catch_basins")
                },
                "id_prefix",
                ID_AND_PREFIX,
            ),
            (layer("drains"), "layer", "drains"),
            (
                ImportRequest {
                    preset: Some("lgim".into()),
                    filter: Some("A = 1".into()),
                    ..Default::default()
                },
                "where",
                "with preset the preset names the classes",
            ),
            (
                ImportRequest {
                    preset: Some("arcfm".into()),
                    ..Default::default()
                },
                "preset",
                "no such preset",
            ),
            (
                ImportRequest {
                    preset: Some("lgim".into()),
                    map: vec!["diameter_in".into()],
                    ..Default::default()
                },
                "map",
                "--map diameter_in",
            ),
            (ImportRequest::default(), "layer", "layer_by"),
            (
                ImportRequest {
                    layer_by: Some("T=manholes:'A'".into()),
                    ..layer("catch_basins")
                },
                "layer_by",
                "give no layer",
            ),
        ];
        for (r, field, says) in cases {
            let (f, m) = field_of(r.clone());
            assert_eq!(f, field, "{r:?}: {m}");
            assert!(m.contains(says), "{r:?}: {m}");
        }
    }

    #[test]
    fn a_good_request_is_the_command_lines_options() {
        let r = ImportRequest {
            filter: Some("FeatureType = 'Catch Basin'".into()),
            id: Some("COALESCE(FACILITYID, ALTID)".into()),
            map: vec!["asset_id=FACILITYID".into()],
            s_srs: Some("EPSG:2260".into()),
            replace: true,
            invalid: Some("reject".into()),
            ..layer("catch_basins")
        };
        let mut ctx = RunContext::new("f.geojson");
        ctx.progress = true;
        let p = r.plan(ctx).unwrap();
        assert_eq!(p.layers(), [Layer::CatchBasins]);
        let o = &p.options;
        assert_eq!(o.filter.as_deref(), Some("FeatureType = 'Catch Basin'"));
        assert_eq!(o.id_expr.as_deref(), Some("COALESCE(FACILITYID, ALTID)"));
        assert_eq!(o.maps, [("asset_id".to_string(), "FACILITYID".to_string())]);
        assert_eq!(o.s_srs, Some(2260));
        assert_eq!(o.mode, WriteMode::Replace);
        assert_eq!(o.invalid, InvalidPolicy::Reject);
        assert!(o.progress);
        let split = ImportRequest {
            layer_by: Some("FeatureType=catch_basin:'Catch Basin';manhole:'Manhole'".into()),
            ..Default::default()
        };
        let mut ctx = RunContext::new("f.geojson");
        ctx.progress = true;
        let p = split.plan(ctx).unwrap();
        assert_eq!(p.layers(), [Layer::CatchBasins, Layer::Manholes]);
        assert!(!p.options.progress, "no progress bars for a split");
    }

    #[test]
    fn only_the_command_line_reads_a_mapping_file() {
        let dir = tempfile::tempdir().unwrap();
        let toml = dir.path().join("split.toml");
        std::fs::write(&toml, "field = \"T\"\n[layers]\nmanholes = [\"M\"]\n").unwrap();
        let r = ImportRequest {
            layer_by: Some(toml.display().to_string()),
            ..Default::default()
        };
        let mut ctx = RunContext::new("f.geojson");
        ctx.local_files = true;
        assert_eq!(r.plan(ctx).unwrap().layers(), [Layer::Manholes]);
        assert_eq!(field_of(r).0, "layer_by");
    }

    #[test]
    fn a_form_or_json_deserialises_into_it_naming_the_part_at_fault() {
        let r: ImportRequest = serde_json::from_value(serde_json::json!({
            "layer": "pipes", "where": "A = 1", "dry_run": "yes", "replace": true,
            "map": ["asset_id=ID"], "id_prefix": "L-"
        }))
        .unwrap();
        assert_eq!(r.filter.as_deref(), Some("A = 1"));
        assert!(r.dry_run && r.replace && !r.allow_empty);
        let bad = |v: serde_json::Value| {
            let e = serde_path_to_error::deserialize::<_, ImportRequest>(v).unwrap_err();
            (e.path().to_string(), e.into_inner().to_string())
        };
        let (path, msg) = bad(serde_json::json!({"dry_run": "maybe"}));
        assert_eq!(path, "dry_run");
        assert_eq!(msg, "\"maybe\" is not true or false");
        let (path, msg) = bad(serde_json::json!({"allow_any_driver": "true"}));
        assert_eq!(path, "allow_any_driver", "{msg}");
    }
}
