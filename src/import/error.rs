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
    /// A CRS problem (unknown code, missing or unreadable source CRS...).
    #[error("{0}")]
    Crs(String),
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
    /// The import was refused as a whole (nothing was written).
    #[error("{0}")]
    Refused(String),
    /// The store refused the write (nothing was written).
    #[error(transparent)]
    Store(#[from] StoreError),
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
}
