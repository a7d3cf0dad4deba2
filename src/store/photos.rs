//! Photos taken at an inspection: kept whole in the registry (table `ms4_photos`, both
//! stores) with their SHA-256, so what is served back can be checked against what was
//! taken, and audited like every other write.

use serde::Serialize;
use sha2::{Digest, Sha256};

/// A photo to store.
#[derive(Debug, Clone)]
pub struct NewPhoto {
    /// The inspection it belongs to.
    pub inspection_id: String,
    /// Its media type (`image/jpeg`, ...).
    pub content_type: String,
    /// The image itself.
    pub bytes: Vec<u8>,
}

impl NewPhoto {
    /// The SHA-256 of the bytes, lower-case hex.
    pub fn sha256(&self) -> String {
        sha256_hex(&self.bytes)
    }
}

/// Lower-case hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A stored photo, without its bytes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PhotoRecord {
    /// The store's id of the photo.
    pub photo_id: i64,
    /// The inspection it belongs to.
    pub inspection_id: String,
    /// SHA-256 of the bytes, lower-case hex.
    pub sha256: String,
    /// Media type.
    pub content_type: String,
    /// Size in bytes.
    pub size: i64,
    /// Who stored it.
    pub taken_by: String,
    /// When it was stored (RFC 3339).
    pub stored_at: String,
}

/// What the audit records of a new photo: never the bytes.
pub(crate) fn audit_json(p: &NewPhoto, sha: &str) -> serde_json::Value {
    serde_json::json!({
        "inspection_id": p.inspection_id,
        "sha256": sha,
        "content_type": p.content_type,
        "size": p.bytes.len(),
    })
}

/// The row of `ms4_photos` both stores read.
pub(crate) type PhotoRow = (i64, String, String, String, i64, String, String);

pub(crate) fn record(
    (photo_id, inspection_id, sha256, content_type, size, taken_by, stored_at): PhotoRow,
) -> PhotoRecord {
    PhotoRecord {
        photo_id,
        inspection_id,
        sha256,
        content_type,
        size,
        taken_by,
        stored_at,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sha256_of_abc_is_the_standard_one() {
        assert_eq!(
            super::sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
