//! What an import reads and how it names it: `--where` on the source layer, and the id
//! rule of `--id` or `--id-prefix`.

use gdal::vector::LayerAccess;

use super::error::{ImportError, Result};
use super::{idexpr, ImportOptions, ImportReport};

/// Sets `--where` on the source layer; returns whether one was set. The features it
/// leaves out are counted for the report (GDAL's count of the unfiltered layer).
pub(super) fn apply_filter(
    src: &mut gdal::vector::Layer<'_>,
    opts: &ImportOptions,
    path: &str,
    src_name: &str,
    report: &mut ImportReport,
) -> Result<bool> {
    let Some(w) = opts.filter.as_deref().filter(|w| !w.trim().is_empty()) else {
        return Ok(false);
    };
    report.source_features = src.try_feature_count();
    src.set_attribute_filter(w).map_err(|e| {
        let fields: Vec<String> = src.defn().fields().map(|f| f.name()).collect();
        ImportError::Invalid {
            field: "where",
            message: format!(
                "{path} (layer {src_name}): --where {w:?} is not a condition GDAL can apply ({e}); write it in OGR SQL, e.g. \"FeatureType = 'Catch Basin'\" or \"FeatureType IN ('Manhole', 'Junction Box')\", over the fields: {}",
                fields.join(", ")
            ),
        }
    })?;
    report.filter = Some(w.to_string());
    Ok(true)
}

/// The id rule `--id` or `--id-prefix` asks for, parsed against the source's fields.
pub(super) fn id_rule(
    opts: &ImportOptions,
    fields: &[String],
    path: &str,
    src_name: &str,
) -> Result<Option<idexpr::IdRule>> {
    match (&opts.id_expr, &opts.id_prefix) {
        (Some(_), Some(_)) => Err(ImportError::Invalid {
            field: "id_prefix",
            message: super::request::ID_AND_PREFIX.into(),
        }),
        (Some(e), None) => idexpr::IdExpr::parse(e, fields)
            .map(|e| Some(idexpr::IdRule::Expr(e)))
            .map_err(|why| ImportError::Invalid {
                field: "id",
                message: format!("{path} (layer {src_name}): --id {e:?}: {why}"),
            }),
        (None, Some(p)) => Ok(Some(idexpr::IdRule::Generated { prefix: p.clone() })),
        (None, None) => Ok(None),
    }
}
