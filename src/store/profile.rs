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
pub enum When {
    /// Always: the text replaces whatever is stored.
    Always,
    /// Only when no profile is stored yet.
    Absent,
}

impl When {
    /// The write to make over the stored row `before` (none: no row), if any: `profile`
    /// itself, audited unless it only fills in an absent row.
    pub(crate) fn decide(
        self,
        profile: &StoredProfile,
        before: Option<&StoredProfile>,
    ) -> Option<ProfileWrite> {
        match self {
            When::Always => Some(ProfileWrite {
                profile: profile.clone(),
                audited: true,
            }),
            When::Absent => before.is_none().then(|| ProfileWrite {
                profile: profile.clone(),
                audited: false,
            }),
        }
    }
}

/// A profile write decided on the row read inside its transaction.
#[derive(Debug, Clone)]
pub(crate) struct ProfileWrite {
    /// The text to store.
    pub profile: StoredProfile,
    /// Whether the audit log records it (`profile_update`, old and new text).
    pub audited: bool,
}

/// A change to the stored profile made on its text as stored: given the stored row, the
/// row to store in its place, or why not (the error names the setting at fault).
pub type ProfileEdit<'a> =
    &'a (dyn Fn(&StoredProfile) -> Result<StoredProfile, crate::store::StoreError> + Send + Sync);

/// What [`crate::store::Store::edit_profile`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Edited {
    /// The registry keeps no profile yet: nothing to edit.
    NoProfile,
    /// The edit gave the stored text and source back: nothing written.
    Unchanged(StoredProfile),
    /// The edit was stored (and audited) over `old`.
    Replaced {
        /// The row replaced.
        old: StoredProfile,
        /// The row stored (its `stored_at` as the store set it is not read back).
        new: StoredProfile,
    },
}

impl Edited {
    /// The edit's outcome, from the row read in the write's transaction and the row the
    /// edit gave (none: no row, or the edit changed nothing).
    pub(crate) fn from_rows(
        before: Option<StoredProfile>,
        written: Option<StoredProfile>,
    ) -> Edited {
        match (before, written) {
            (None, _) => Edited::NoProfile,
            (Some(old), None) => Edited::Unchanged(old),
            (Some(old), Some(new)) => Edited::Replaced { old, new },
        }
    }
}

/// The write an edit asks for over the stored row: none when there is no row or the edit
/// gives back the stored text and source.
pub(crate) fn edit_write(
    edit: ProfileEdit<'_>,
    before: Option<&StoredProfile>,
) -> Result<Option<ProfileWrite>, crate::store::StoreError> {
    let Some(old) = before else {
        return Ok(None);
    };
    let new = edit(old)?;
    Ok(
        (new.sha256 != old.sha256 || new.source != old.source).then_some(ProfileWrite {
            profile: new,
            audited: true,
        }),
    )
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
