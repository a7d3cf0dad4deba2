//! Attachments: an inspection table's `__ATTACH` table (ArcGIS's `REL_GLOBALID`,
//! `ATT_NAME`, `DATA` columns) becomes the photos of the inspections its rows were
//! attached to, each stored with its SHA-256 like a photo taken in the field. An
//! attachment is matched by its `REL_GLOBALID` to the `GlobalID` the imported inspection
//! keeps as an extra; bytes that are no accepted image are counted, not stored.
//!
//! ms4 keeps photos of inspections only: an asset class's own attachments are named in
//! the mapping report and left.

use std::collections::BTreeMap;

use gdal::vector::LayerAccess;
use serde::Serialize;

use super::mapping::AttachmentUse;
use super::related::key;
use crate::domain::Layer;
use crate::import::error::Result;
use crate::store::photos::NewPhoto;
use crate::store::Store;

/// One attachment read from the geodatabase.
#[derive(Debug, Clone)]
pub struct Attachment {
    /// The table it was read from.
    pub table: String,
    /// The `GlobalID` of the row it is attached to.
    pub rel_globalid: String,
    /// Its file name, as the attachment table gives it.
    pub name: String,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// What storing the attachments as photos did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PhotoSummary {
    /// Photos stored.
    pub added: u64,
    /// Photos the registry already had for that inspection (the same bytes).
    pub already_stored: u64,
    /// Attachments whose `REL_GLOBALID` no imported inspection carries.
    pub unmatched: u64,
    /// Attachments that are not an accepted image (JPEG, PNG, WebP, HEIC), by name.
    pub not_images: Vec<String>,
}

/// Reads `table` (an `__ATTACH` table) whole; its entry in the mapping report.
pub fn read(ds: &gdal::Dataset, table: &str) -> (Vec<Attachment>, AttachmentUse) {
    let mut used = AttachmentUse {
        table: table.to_string(),
        ..Default::default()
    };
    let mut out = Vec::new();
    let Ok(mut layer) = ds.layer_by_name(table) else {
        return (out, used);
    };
    let fields: Vec<String> = layer.defn().fields().map(|f| f.name()).collect();
    let find = |n: &str| fields.iter().position(|f| f.eq_ignore_ascii_case(n));
    let (Some(rel), Some(data)) = (find("REL_GLOBALID"), find("DATA")) else {
        used.why_not = Some("it has no REL_GLOBALID or DATA column".into());
        return (out, used);
    };
    let name_at = find("ATT_NAME");
    for f in layer.features() {
        used.rows += 1;
        let Ok(Some(rel_globalid)) = f.field_as_string(rel) else {
            continue;
        };
        // SAFETY: the feature handle is valid while `f` lives; GDAL owns the returned
        // buffer, which is copied out at once.
        let bytes = unsafe {
            let mut n: std::ffi::c_int = 0;
            let p = gdal_sys::OGR_F_GetFieldAsBinary(f.c_feature(), data as i32, &mut n);
            if p.is_null() || n <= 0 {
                Vec::new()
            } else {
                std::slice::from_raw_parts(p, n as usize).to_vec()
            }
        };
        let name = name_at
            .and_then(|i| f.field_as_string(i).ok().flatten())
            .unwrap_or_default();
        used.bytes += bytes.len() as u64;
        out.push(Attachment {
            table: table.to_string(),
            rel_globalid,
            name,
            bytes,
        });
    }
    (out, used)
}

/// Stores each attachment as a photo of the inspection whose `GlobalID` extra its
/// `REL_GLOBALID` names.
pub async fn store_photos(
    store: &dyn Store,
    attachments: &[Attachment],
    actor: &str,
) -> Result<PhotoSummary> {
    let mut summary = PhotoSummary::default();
    if attachments.is_empty() {
        return Ok(summary);
    }
    let by_globalid: BTreeMap<String, String> = store
        .features(Layer::Inspections)
        .await?
        .into_iter()
        .filter_map(|f| {
            let g = f
                .extra
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("GlobalID"))
                .and_then(|(_, v)| v.as_str().map(key))?;
            Some((g, f.id))
        })
        .collect();
    for a in attachments {
        let Some(inspection) = by_globalid.get(&key(&a.rel_globalid)) else {
            summary.unmatched += 1;
            continue;
        };
        match NewPhoto::new(inspection.clone(), a.bytes.clone()) {
            Ok(photo) => {
                let (_, added) = store.add_photo(&photo, actor).await?;
                if added {
                    summary.added += 1;
                } else {
                    summary.already_stored += 1;
                }
            }
            Err(_) => summary.not_images.push(format!("{} ({})", a.name, a.table)),
        }
    }
    Ok(summary)
}
