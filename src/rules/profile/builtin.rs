//! The profiles compiled into the binary, so that it works anywhere.

use super::{Profile, ProfileError};

/// Profiles compiled into the binary: (id, TOML text).
pub(super) const BUILTIN: &[(&str, &str)] = &[
    (
        "north-castle-ny",
        include_str!("../../../data/jurisdictions/north-castle-ny.toml"),
    ),
    (
        "carmel-ny",
        include_str!("../../../data/jurisdictions/carmel-ny.toml"),
    ),
    (
        "windsor-ct",
        include_str!("../../../data/jurisdictions/windsor-ct.toml"),
    ),
];

const BUILTIN_IDS: &[&str] = &["north-castle-ny", "carmel-ny", "windsor-ct"];

impl Profile {
    /// A profile compiled into the binary (see [`Profile::builtin_ids`]).
    pub fn builtin(id: &str) -> Result<Profile, ProfileError> {
        let (_, text) = BUILTIN
            .iter()
            .find(|(builtin_id, _)| *builtin_id == id)
            .ok_or_else(|| ProfileError::UnknownBuiltin {
                id: id.to_string(),
                known: BUILTIN_IDS.iter().map(|s| s.to_string()).collect(),
            })?;
        Self::with_id(id, text, &format!("{id}.toml"))
    }

    /// The TOML text of a profile compiled into the binary, as the file holds it.
    pub fn builtin_text(id: &str) -> Option<&'static str> {
        BUILTIN
            .iter()
            .find(|(builtin_id, _)| *builtin_id == id)
            .map(|(_, text)| *text)
    }

    /// Ids of the profiles compiled into the binary.
    pub fn builtin_ids() -> &'static [&'static str] {
        BUILTIN_IDS
    }
}
