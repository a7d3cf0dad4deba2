//! The profile's description of the law itself: title and history, the working CRS, and the
//! catalogue rules it cites.

use serde::{Deserialize, Serialize};

use super::DistanceUnit;

/// The law a profile encodes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Law {
    /// Title of the chapter or article.
    pub title: String,
    /// File name of the law text in the project's seed folder.
    pub seed: String,
    /// Adoption and amendment history.
    pub history: String,
    /// Who administers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub administrator: Option<String>,
}

/// The projected CRS a registry for this jurisdiction should use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrsHint {
    /// EPSG code, e.g. 2260.
    pub epsg: u32,
    /// Its name, e.g. `NAD83 / New York East (ftUS)`.
    pub name: String,
    /// Its linear unit.
    pub unit: DistanceUnit,
}

/// A catalogue rule as this profile cites it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleRef {
    /// Short title.
    pub title: String,
    /// Where the law states it.
    pub citation: String,
}
