//! Which parts of the registry's rule set a jurisdiction's law contains.

use serde::{Deserialize, Serialize};

/// Which parts of the registry's rule set the law contains.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Coverage {
    /// A prohibition of illicit (illegal) discharges.
    pub illicit_discharges: CoverageEntry,
    /// Illicit-connection rules.
    pub illicit_connections: CoverageEntry,
    /// Land development activity rules (SWPPP, exemptions).
    pub land_development: CoverageEntry,
    /// Carmel's Conditions One, Two and Three (post-construction triggers).
    pub conditions: CoverageEntry,
}

impl Coverage {
    /// Each entry with its TOML key.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &CoverageEntry)> + '_ {
        [
            ("illicit_discharges", &self.illicit_discharges),
            ("illicit_connections", &self.illicit_connections),
            ("land_development", &self.land_development),
            ("conditions", &self.conditions),
        ]
        .into_iter()
    }
}

/// Whether the law contains one part of the rule set, and which rule says so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoverageEntry {
    /// True when the law has these rules.
    pub present: bool,
    /// The rule that establishes them, or records their absence
    /// (`carmel.illicit_discharge.absent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Its citation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation: Option<String>,
    /// Who approves (e.g. connections: "the Town").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approving_authority: Option<String>,
    /// What a reader should know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}
