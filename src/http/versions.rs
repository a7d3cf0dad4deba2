//! Versions of what a client may write back whole (a case, an inspection): the stored
//! row's version ([`crate::store::update::version`]) as a strong `ETag`, and `If-Match`
//! read into the versions a write is allowed over (RFC 9110 13.1.1).

use axum::http::{header, HeaderMap};

use super::HttpError;

/// A version as an entity tag (a strong one: it names the row's exact content).
pub(super) fn etag(version: &str) -> (header::HeaderName, String) {
    (header::ETAG, format!("\"{version}\""))
}

/// The versions `If-Match` accepts: `None` for none sent or `*`. A weak tag never
/// matches (RFC 9110 compares strongly), so a list of only weak tags accepts nothing:
/// a 412. `read_at` names where the client gets the ETag, for the error.
pub(super) fn if_match(
    headers: &HeaderMap,
    read_at: &str,
) -> Result<Option<Vec<String>>, HttpError> {
    let mut tags = Vec::new();
    let mut any = false;
    for v in headers.get_all(header::IF_MATCH) {
        let v = v
            .to_str()
            .map_err(|_| HttpError::field("If-Match", "not an entity tag list"))?;
        for t in v.split(',').map(str::trim).filter(|t| !t.is_empty()) {
            if t == "*" {
                any = true;
                continue;
            }
            let strong = !t.starts_with("W/");
            let quoted = t.trim_start_matches("W/");
            let inner = quoted
                .strip_prefix('"')
                .and_then(|q| q.strip_suffix('"'))
                .ok_or_else(|| {
                    HttpError::BadRequest(format!(
                        "If-Match: {t:?} is not an entity tag; send the ETag of GET {read_at}, quotes included"
                    ))
                })?;
            tags.push(if strong {
                inner.to_string()
            } else {
                format!("W/{inner}")
            });
        }
    }
    Ok((!any && !tags.is_empty()).then_some(tags))
}
