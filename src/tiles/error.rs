//! What stops a tile (or the warming of the tiles' inputs): each variant says what was
//! being made and keeps the failure under it as its source.

use crate::answer::AskError;
use crate::import::ImportError;

/// A tile, or one of its inputs, could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// GDAL cannot transform the registry's CRS to Web Mercator.
    #[error("cannot reproject EPSG:{srid} to Web Mercator")]
    Reproject {
        /// The registry's CRS.
        srid: i32,
        /// GDAL's failure, as the import module reports it.
        #[source]
        source: ImportError,
    },
    /// The drainage network, needed for connections' findings and pipes' flow, failed
    /// to build.
    #[error("building the drainage network")]
    Network(#[source] anyhow::Error),
    /// Judging the connections or the SMPs failed.
    #[error("judging the connections and SMPs")]
    Findings(#[source] AskError),
}

/// Result alias for the tiles.
pub type Result<T, E = RenderError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_render_error_says_what_was_being_made_and_keeps_its_cause() {
        let source = crate::import::crs::Reprojector::new(999_999, 3857)
            .err()
            .expect("no such CRS");
        let e = RenderError::Reproject {
            srid: 999_999,
            source,
        };
        assert_eq!(
            e.to_string(),
            "cannot reproject EPSG:999999 to Web Mercator"
        );
        let cause = std::error::Error::source(&e).expect("the import module's error");
        assert!(
            cause
                .to_string()
                .starts_with("EPSG:999999 is not known to PROJ"),
            "{cause}"
        );
        assert!(cause
            .source()
            .is_some_and(|g| g.is::<gdal::errors::GdalError>()));
    }
}
