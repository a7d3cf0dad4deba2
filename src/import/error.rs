//! Import and export errors. Each names the file, and where it applies the layer,
//! feature and field, so an analyst can find the problem in the source.

use crate::store::StoreError;

/// What stopped an import or export.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// GDAL could not open the file.
    #[error("{path}: cannot be opened as GIS data: {message}")]
    Open {
        /// The file.
        path: String,
        /// GDAL's message.
        message: String,
    },
    /// The file is over a size limit (a zip that unpacks to too much).
    #[error("{path}: the zip {message}")]
    TooLarge {
        /// The file.
        path: String,
        /// What is over which limit.
        message: String,
    },
    /// The file holds several layers and none was chosen.
    #[error("{path}: holds {count} layers ({names}); choose one with --src-layer NAME")]
    WhichLayer {
        /// The file.
        path: String,
        /// How many.
        count: usize,
        /// Their names.
        names: String,
    },
    /// `--src-layer` names no layer of the file.
    #[error("{path}: has no layer {name:?}; its layers are: {names}")]
    NoSuchLayer {
        /// The file.
        path: String,
        /// The requested layer.
        name: String,
        /// What it has.
        names: String,
    },
    /// A CRS problem (unknown code, missing or unreadable source CRS...), by what it is.
    #[error(transparent)]
    Crs(#[from] CrsError),
    /// A request's option is wrong before anything is read, or the source shows it is
    /// (a `where` condition GDAL cannot apply, an `id` expression over fields the file
    /// does not have): the option by its request name (`map`, `s_srs`, `layer_by`,
    /// `where`...) and the message, which names the flag as the command line has it.
    #[error("{message}")]
    Invalid {
        /// The option at fault, as [`super::request::ImportRequest`] names it.
        field: &'static str,
        /// What is wrong, and what would do.
        message: String,
    },
    /// GDAL (or PROJ under it) failed at a step: what the step was, and GDAL's own error
    /// (its class, number and message) as it returned it. The message says both, so a
    /// person reads GDAL's words; the error is kept too, for code and for the log.
    #[error("{doing}: {source}")]
    Gdal {
        /// What was being done, naming the file or the CRS
        /// (`parcels.gpkg: cannot be opened as GIS data`).
        doing: String,
        /// GDAL's error.
        source: gdal::errors::GdalError,
    },
    /// The source has no field for a canonical field that must be present.
    #[error("{path} (layer {src_layer}): no field for {layer}.{field}; its fields are: {available}. Map one with --map {field}=SOURCE_FIELD")]
    MissingField {
        /// The file.
        path: String,
        /// The source layer.
        src_layer: String,
        /// The registry layer.
        layer: String,
        /// The canonical field.
        field: String,
        /// The source's fields.
        available: String,
    },
    /// A `--map` argument is malformed or names a field that does not exist.
    #[error("--map {arg}: {message}")]
    Map {
        /// The argument as given.
        arg: String,
        /// Why it is wrong.
        message: String,
    },
    /// Reading a feature failed part-way (a corrupt file).
    #[error("{path} (layer {src_layer}), feature {feature}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The source layer.
        src_layer: String,
        /// The feature's position or FID.
        feature: u64,
        /// GDAL's message.
        message: String,
    },
    /// The source holds less than it says, or could not be read to its end.
    #[error("{path} (layer {src_layer}): {message}")]
    ShortRead {
        /// The file.
        path: String,
        /// The source layer.
        src_layer: String,
        /// What is missing, in words.
        message: String,
    },
    /// Writing an export failed.
    #[error("{path}: {message}")]
    Write {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
    /// The read was stopped before the file's end (see [`super::cancel`]); nothing was
    /// written.
    #[error("{path}: stopped before the end of the file: {why}; nothing was imported")]
    Stopped {
        /// The file.
        path: String,
        /// Why it was stopped.
        why: super::cancel::Stop,
    },
    /// A feature of a layer imported whole or not at all (the programme submissions, each
    /// held to the permit calendar as `ms4 calendar record` holds one, and to the
    /// submission recorded for its occurrence) is at fault: the file is refused and
    /// nothing was written. The note names the feature (its number in the source and its
    /// id) and the field (the fields that differ from the recorded submission, separated
    /// by commas).
    #[error("{path} (layer {src_layer}), {}; nothing was imported into {layer}: {why}", describe_note(.note))]
    FeatureRefused {
        /// The file.
        path: String,
        /// The source layer.
        src_layer: String,
        /// The registry layer.
        layer: &'static str,
        /// The feature, its field and what is wrong.
        note: Box<super::report::FeatureNote>,
        /// Why one feature refuses the file.
        why: &'static str,
    },
    /// `--replace` into the programme submissions would remove submissions recorded
    /// there (by `ms4 calendar record`, the API or an earlier import) that the file does
    /// not carry: a submission is the evidence an item of the programme was done, and
    /// a replace never removes one. The file is refused and nothing was written.
    #[error(
        "{path}: --replace would remove {} from {layer} that the file does not carry ({}); nothing was imported. A recorded submission is the evidence a programme item was done, so --replace never removes one: carry every recorded submission in the file (ms4 export {layer} FILE writes them as recorded) or import without --replace, which adds the file's submissions and keeps the others",
        recorded_count(*.count),
        describe_ids(.ids, *.count)
    )]
    RecordedNotCarried {
        /// The file.
        path: String,
        /// The registry layer.
        layer: &'static str,
        /// The first few of the recorded submissions it would remove, by id, in order.
        ids: Vec<String>,
        /// How many it would remove.
        count: usize,
    },
    /// The import was refused as a whole (nothing was written).
    #[error("{0}")]
    Refused(String),
    /// The store refused the write (nothing was written).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A coordinate reference system problem: which CRS, in what, and GDAL's (PROJ's) own
/// error when one was the cause.
#[derive(Debug, thiserror::Error)]
pub enum CrsError {
    /// Text that is no EPSG code (`--s-srs`, `--crs`).
    #[error("{given:?} is not a CRS; expected EPSG:<code>, e.g. EPSG:2260")]
    NotACode {
        /// The text as given.
        given: String,
    },
    /// A registry's CRS must be projected.
    #[error("EPSG:{code} is not a projected CRS; a registry needs one so distances and areas are planar (e.g. EPSG:2260 NY East ftUS, EPSG:32618 UTM 18N)")]
    NotProjected {
        /// The EPSG code.
        code: i32,
    },
    /// A registry's CRS in a linear unit the registry has no name for.
    #[error(
        "EPSG:{code} has a linear unit of {metres_per_unit} m, which the registry does not support"
    )]
    UnsupportedUnit {
        /// The EPSG code.
        code: i32,
        /// Its unit, in metres.
        metres_per_unit: f64,
    },
    /// A GeoJSON file's `crs` member names a CRS PROJ does not know.
    #[error("{path} (layer {src_layer}): its \"crs\" member names {name}, which PROJ does not know; give the CRS with --s-srs EPSG:<code>")]
    UnknownToProj {
        /// The file.
        path: String,
        /// The source layer.
        src_layer: String,
        /// The CRS the file names.
        name: String,
    },
    /// A source with geometries and no CRS.
    #[error("{path} (layer {src_layer}): the source has no CRS (no .prj, an empty .prj, or one PROJ cannot read); give it with --s-srs EPSG:<code>")]
    Missing {
        /// The file.
        path: String,
        /// The source layer.
        src_layer: String,
    },
    /// GDAL (PROJ) failed at a step with a CRS: the step, and GDAL's error. The message
    /// is the step's words (if any) followed by GDAL's.
    #[error("{}{source}", .step.prefix())]
    Gdal {
        /// What was being done.
        step: CrsStep,
        /// GDAL's error.
        #[source]
        source: gdal::errors::GdalError,
    },
}

/// What was being done with a CRS when GDAL failed.
#[derive(Debug, Clone, PartialEq)]
pub enum CrsStep {
    /// Writing a CRS as WKT (the registry's, when `code` is set, or a source's).
    ToWkt {
        /// The EPSG code, when the CRS is one.
        code: Option<i32>,
    },
    /// Reading a source's CRS back from its WKT.
    FromWkt,
    /// Making the transformation between the source's CRS and the registry's.
    Transformation {
        /// The registry's EPSG code.
        to: i32,
    },
    /// Transforming a geometry's coordinates.
    Coordinates,
    /// Transforming one position.
    Point {
        /// Its x (easting or longitude).
        x: f64,
        /// Its y (northing or latitude).
        y: f64,
    },
}

impl CrsStep {
    /// The words said before GDAL's message.
    fn prefix(&self) -> String {
        match self {
            CrsStep::ToWkt { .. } | CrsStep::FromWkt | CrsStep::Transformation { .. } => {
                String::new()
            }
            CrsStep::Coordinates => "cannot transform coordinates: ".into(),
            CrsStep::Point { x, y } => format!("cannot transform ({x}, {y}): "),
        }
    }
}

/// A feature's note as the quality report writes it: `feature 3 id X: field F: why` (the
/// field named once, when the reason names it already).
fn describe_note(n: &super::report::FeatureNote) -> String {
    let id =
        n.id.as_deref()
            .map(|i| format!(" id {i}"))
            .unwrap_or_default();
    let field = n
        .field
        .as_deref()
        .map(|f| format!(" field {f}:"))
        .filter(|f| !n.reason.starts_with(f.trim_start()))
        .unwrap_or_default();
    format!("feature {}{id}:{field} {}", n.feature, n.reason)
}

/// `1 recorded submission`, `3 recorded submissions`.
fn recorded_count(count: usize) -> String {
    let s = if count == 1 { "" } else { "s" };
    format!("{count} recorded submission{s}")
}

/// The ids shown, and how many more there are: `a, b and 3 more`.
fn describe_ids(ids: &[String], count: usize) -> String {
    let shown = ids.join(", ");
    match count.saturating_sub(ids.len()) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// Result alias for import and export.
pub type Result<T, E = ImportError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gdal_failure_keeps_gdals_error_and_what_was_being_done() {
        let e = super::super::crs::srs_from_epsg(999_999).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("EPSG:999999 is not known to PROJ: "),
            "{e}"
        );
        let ImportError::Gdal { source, .. } = &e else {
            panic!("GDAL's error is kept: {e:?}");
        };
        assert!(e.to_string().ends_with(&source.to_string()), "{e}");
        let as_source = std::error::Error::source(&e).expect("a source");
        assert!(as_source.is::<gdal::errors::GdalError>());
    }

    #[test]
    fn a_crs_problem_keeps_the_code_and_says_what_it_said() {
        let e = super::super::crs::parse_epsg("EPSG:x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"EPSG:x\" is not a CRS; expected EPSG:<code>, e.g. EPSG:2260"
        );
        assert!(
            matches!(e, ImportError::Crs(CrsError::NotACode { .. })),
            "{e:?}"
        );
        let e = super::super::crs::registry_crs(4326).unwrap_err();
        assert!(
            matches!(e, ImportError::Crs(CrsError::NotProjected { code: 4326 })),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("EPSG:4326 is not a projected CRS; "),
            "{e}"
        );
    }
}
