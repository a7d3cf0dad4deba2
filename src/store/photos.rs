//! Photos taken at an inspection: kept whole in the registry (table `ms4_photos`, both
//! stores) with their SHA-256, so what is served back can be checked against what was
//! taken, and audited like every other write.
//!
//! A photo's media type is the one its bytes' signature names
//! ([`crate::domain::photo::sniff`]), never what the sender said: a [`NewPhoto`] can only
//! be made from bytes that are an accepted image, so nothing else reaches the table.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::domain::photo::{sniff, PhotoError, PhotoKind};

/// A photo to store: bytes known to be an accepted image, and the kind they are.
#[derive(Debug, Clone)]
pub struct NewPhoto {
    inspection_id: String,
    kind: PhotoKind,
    bytes: Vec<u8>,
}

impl NewPhoto {
    /// A photo of an inspection, if the bytes are a JPEG, PNG, WebP or HEIC/HEIF image.
    pub fn new(inspection_id: impl Into<String>, bytes: Vec<u8>) -> Result<Self, PhotoError> {
        let kind = sniff(&bytes)?;
        Ok(NewPhoto {
            inspection_id: inspection_id.into(),
            kind,
            bytes,
        })
    }

    /// The inspection it belongs to.
    pub fn inspection_id(&self) -> &str {
        &self.inspection_id
    }

    /// What kind of image the bytes are.
    pub fn kind(&self) -> PhotoKind {
        self.kind
    }

    /// Its media type, from the bytes (`image/jpeg`, ...).
    pub fn content_type(&self) -> &'static str {
        self.kind.media_type()
    }

    /// The image itself.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

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
    /// Media type as stored. Rows written before types were read from the bytes may hold
    /// what a client claimed; serve a photo with [`served_type`], never this.
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
        "content_type": p.content_type(),
        "size": p.bytes.len(),
    })
}

/// The row of `ms4_photos` both stores read.
pub(crate) type PhotoRow = (i64, String, String, String, i64, String, String);
/// The same row with the photo's bytes after it.
pub(crate) type PhotoRowWithBytes = (i64, String, String, String, i64, String, String, Vec<u8>);

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

/// The type a stored photo is served with: the one its bytes name, or `None` when they
/// are no accepted image (a row stored before the check, or written by another program).
pub fn served_type(bytes: &[u8]) -> Option<PhotoKind> {
    sniff(bytes).ok()
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

    #[test]
    fn a_photo_takes_its_type_from_its_bytes() {
        let p = super::NewPhoto::new("I-1", b"\x89PNG\r\n\x1a\nrest".to_vec()).unwrap();
        assert_eq!(p.content_type(), "image/png");
        assert!(super::NewPhoto::new("I-1", b"<svg/>".to_vec()).is_err());
    }
}
