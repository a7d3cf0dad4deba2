//! The jurisdiction profile a registry keeps (table `ms4_profile`): the whole TOML text,
//! so a town's own profile travels with its registry.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// Where a stored profile's text came from, as the `source` column writes it for a text
/// compiled into ms4.
pub const BUILTIN_SOURCE: &str = "builtin";

/// A profile as the registry stores it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StoredProfile {
    /// The profile's id (the registry's jurisdiction).
    pub profile_id: String,
    /// The TOML text, exactly as given.
    pub toml: String,
    /// SHA-256 of the text, in hex.
    pub sha256: String,
    /// [`BUILTIN_SOURCE`], or the name of the file the text came from.
    pub source: String,
    /// When it was stored (RFC 3339).
    pub stored_at: String,
    /// Who stored it.
    pub stored_by: String,
}

impl StoredProfile {
    /// A profile text to store, hashed; `stored_at` is filled in by the store.
    pub fn new(profile_id: &str, toml: &str, source: &str, stored_by: &str) -> StoredProfile {
        StoredProfile {
            profile_id: profile_id.to_string(),
            toml: toml.to_string(),
            sha256: sha256_hex(toml),
            source: source.to_string(),
            stored_at: String::new(),
            stored_by: stored_by.to_string(),
        }
    }

    /// Whether the text is one compiled into ms4 (and so may be outdated by a newer one).
    pub fn is_builtin(&self) -> bool {
        self.source == BUILTIN_SOURCE
    }
}

/// When a profile write goes ahead, judged on the row read inside its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When<'a> {
    /// Always: the text replaces whatever is stored.
    Always,
    /// Only when no profile is stored yet.
    Absent,
    /// Only when the stored text is still the one with this SHA-256: a change made from
    /// a text read earlier is never written over another change made since.
    Unchanged(&'a str),
}

impl When<'_> {
    /// Whether a write goes ahead over the stored row of this SHA-256 (none: no row).
    pub(crate) fn holds(self, stored_sha256: Option<&str>) -> bool {
        match self {
            When::Always => true,
            When::Absent => stored_sha256.is_none(),
            When::Unchanged(sha) => stored_sha256 == Some(sha),
        }
    }
}

/// SHA-256 of a text, in lower-case hex.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What the audit log keeps of a stored profile: everything, so an older text can be
/// restored from the log.
pub(crate) fn audit_json(p: &StoredProfile) -> serde_json::Value {
    serde_json::json!({
        "profile_id": p.profile_id,
        "sha256": p.sha256,
        "source": p.source,
        "toml": p.toml,
    })
}
