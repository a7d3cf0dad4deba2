//! Inspection photos: `POST /api/inspections/{id}/photos` stores one, `GET
//! /api/inspections/{id}/photos` lists them and `GET /api/photos/{sha256}` serves one.
//!
//! Photos are the one thing the service serves back that a user wrote byte for byte, from
//! the service's own origin, where the page keeps its token. So a photo is taken only when
//! its bytes are a JPEG, PNG, WebP or HEIC/HEIF image, and its type is the one the bytes
//! name, never the client's `Content-Type`. What comes back is served so no browser runs
//! it even if it hides markup after a valid signature: the type read from the bytes again
//! (a row stored before this check may hold anything), `nosniff`, and a sandboxing CSP.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

use super::{AppState, Caller, HttpError};
use crate::domain::photo::PhotoKind;
use crate::domain::Layer;
use crate::idde::MAX_PHOTO_BYTES;
use crate::store::photos::{served_type, NewPhoto};

/// A photo is an image and nothing else: it loads nothing, runs nothing even when opened
/// as a document (the sandbox gives it an opaque origin, away from the page's storage),
/// and no page frames it.
const PHOTO_CSP: &str = "default-src 'none'; img-src 'self'; frame-ancestors 'none'; sandbox";

fn inspection_exists(state: &AppState, id: &str) -> bool {
    state
        .snapshot
        .current()
        .layer(Layer::Inspections)
        .get(id)
        .is_some()
}

fn no_such_inspection(id: &str) -> HttpError {
    HttpError::NotFound(format!("inspection {id:?}: no such inspection"))
}

/// The header's type when it rules the body out: anything but an image type or
/// `application/octet-stream`. It never decides the stored type; a client that says
/// `text/plain` is told so rather than having its text read as an image.
fn declared_non_image(headers: &HeaderMap) -> Option<String> {
    let ct = headers.get(header::CONTENT_TYPE)?;
    let ct = String::from_utf8_lossy(ct.as_bytes());
    let t = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    let fine = t.is_empty() || t.starts_with("image/") || t == "application/octet-stream";
    (!fine).then_some(t)
}

pub(super) async fn add_photo(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    if !inspection_exists(&state, &id) {
        return Err(no_such_inspection(&id));
    }
    if let Some(t) = declared_non_image(&headers) {
        return Err(HttpError::BadRequest(format!(
            "content-type: {t:?} is not an image type; send the photo's bytes as image/jpeg, image/png, image/webp or image/heic"
        )));
    }
    if body.is_empty() {
        return Err(HttpError::BadRequest(
            "body: empty; send the image bytes".into(),
        ));
    }
    if body.len() > MAX_PHOTO_BYTES {
        return Err(HttpError::PayloadTooLarge(format!(
            "body: over {MAX_PHOTO_BYTES} bytes"
        )));
    }
    let photo = NewPhoto::new(id, body.to_vec()).map_err(|e| {
        HttpError::UnsupportedMediaType(format!(
            "body: {e}; a photo must be a JPEG, PNG, WebP or HEIC/HEIF image"
        ))
    })?;
    let (rec, new) = state.store.add_photo(&photo, &caller.subject).await?;
    let status = if new {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(serde_json::json!({
            "photo_id": rec.photo_id, "sha256": rec.sha256, "size": rec.size,
            "content_type": photo.content_type(),
        })),
    ))
}

pub(super) async fn photos_of(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let photos = state.store.photos_of(&id).await?;
    // Photos of an inspection since removed from the layer are still listed.
    if photos.is_empty() && !inspection_exists(&state, &id) {
        return Err(no_such_inspection(&id));
    }
    let list: Vec<serde_json::Value> = photos
        .iter()
        .map(|p| {
            let mut v = serde_json::to_value(p).unwrap_or_default();
            v["href"] = format!("/api/photos/{}", p.sha256).into();
            v
        })
        .collect();
    Ok(Json(
        serde_json::json!({"inspection_id": id, "photos": list}),
    ))
}

pub(super) async fn photo(
    State(state): State<AppState>,
    Path(sha): Path<String>,
) -> Result<Response, HttpError> {
    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(HttpError::BadRequest(format!(
            "sha256: {sha:?} is not 64 hex digits"
        )));
    }
    let (rec, bytes) = state
        .store
        .photo(&sha.to_ascii_lowercase())
        .await?
        .ok_or_else(|| HttpError::NotFound(format!("photo {sha}: no such photo")))?;
    Ok((photo_headers(&rec.sha256, served_type(&bytes)), bytes).into_response())
}

/// What a photo is served with. Bytes that are no accepted image (a row from before the
/// check) go out as an opaque download, never under the type stored with them.
fn photo_headers(sha: &str, kind: Option<PhotoKind>) -> [(HeaderName, HeaderValue); 7] {
    let (ty, disposition) = match kind {
        Some(k) => (
            k.media_type(),
            format!("inline; filename=\"{sha}.{}\"", k.extension()),
        ),
        None => (
            "application/octet-stream",
            format!("attachment; filename=\"{sha}.bin\""),
        ),
    };
    let value = |s: String| HeaderValue::from_str(&s).expect("hex digits and ASCII words");
    [
        (header::CONTENT_TYPE, HeaderValue::from_static(ty)),
        (header::CONTENT_DISPOSITION, value(disposition)),
        (
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ),
        (
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(PHOTO_CSP),
        ),
        (
            HeaderName::from_static("cross-origin-resource-policy"),
            HeaderValue::from_static("same-origin"),
        ),
        (header::ETAG, value(format!("\"{sha}\""))),
        (
            header::CACHE_CONTROL,
            HeaderValue::from_static("private, max-age=31536000, immutable"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(h: &'a [(HeaderName, HeaderValue)], name: &HeaderName) -> &'a str {
        h.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.to_str().unwrap())
            .unwrap_or_default()
    }

    #[test]
    fn an_image_is_served_inline_under_its_own_type_and_inert() {
        let h = photo_headers(&"a".repeat(64), Some(PhotoKind::Png));
        assert_eq!(get(&h, &header::CONTENT_TYPE), "image/png");
        assert_eq!(
            get(&h, &header::CONTENT_DISPOSITION),
            format!("inline; filename=\"{}.png\"", "a".repeat(64))
        );
        assert_eq!(get(&h, &header::X_CONTENT_TYPE_OPTIONS), "nosniff");
        assert!(get(&h, &header::CONTENT_SECURITY_POLICY).ends_with("sandbox"));
    }

    #[test]
    fn stored_bytes_that_are_no_image_are_a_download() {
        let h = photo_headers(&"b".repeat(64), None);
        assert_eq!(get(&h, &header::CONTENT_TYPE), "application/octet-stream");
        assert!(get(&h, &header::CONTENT_DISPOSITION).starts_with("attachment;"));
    }

    #[test]
    fn only_non_image_declarations_are_refused_before_the_bytes_are_read() {
        let with = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_str(v).unwrap());
            declared_non_image(&h)
        };
        assert_eq!(with("text/plain"), Some("text/plain".into()));
        assert_eq!(with("text/html; charset=utf-8"), Some("text/html".into()));
        assert_eq!(with("image/jpeg"), None);
        assert_eq!(with("application/octet-stream"), None);
        assert_eq!(declared_non_image(&HeaderMap::new()), None);
    }
}
