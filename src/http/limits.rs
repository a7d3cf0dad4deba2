//! Refusals made before a handler runs, each with the JSON body every error has.
//!
//! - Headers over [`MAX_HEADER_BYTES`] together are a 431.
//! - A declared `Content-Length` over the body limit is a 413 before the body is read, so
//!   a client that sent `Expect: 100-continue` is told no instead of being asked for the
//!   body (hyper sends `100 Continue` only once a handler starts reading).
//! - A path segment with a control character (a `%00` in an id, say) is a 400: the
//!   stores compare ids as text, and SQLite's C strings would end an id at a NUL.

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::{AppState, HttpError};

/// The middleware: see the module doc.
pub(super) async fn refuse_early(
    State(state): State<AppState>,
    req: Request,
    next: Next,
) -> Response {
    if let Err(e) = check(&req, state.config.body_limit) {
        return e.into_response();
    }
    next.run(req).await
}

/// The most bytes a request's headers may take together (names and values): a bearer
/// token and a browser's usual headers take a few hundred; more is not a client of this
/// service.
pub const MAX_HEADER_BYTES: usize = 16 * 1024;

fn check(req: &Request, body_limit: usize) -> Result<(), HttpError> {
    let header_bytes: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return Err(HttpError::HeadersTooLarge(format!(
            "headers: {header_bytes} bytes is over this server's limit of {MAX_HEADER_BYTES} bytes"
        )));
    }
    if let Some(len) = req.headers().get(header::CONTENT_LENGTH) {
        let n: Option<u64> = len.to_str().ok().and_then(|s| s.trim().parse().ok());
        match n {
            Some(n) if n > body_limit as u64 => {
                return Err(HttpError::PayloadTooLarge(format!(
                    "body: {n} bytes is over this server's limit of {body_limit} bytes"
                )))
            }
            Some(_) => {}
            None => {
                return Err(HttpError::BadRequest(
                    "Content-Length: not a whole number of bytes".into(),
                ))
            }
        }
    }
    for (i, seg) in req.uri().path().split('/').enumerate().skip(1) {
        let decoded = percent_decode(seg);
        if let Some(c) = decoded.chars().find(|c| c.is_control()) {
            return Err(HttpError::BadRequest(format!(
                "path: segment {i} ({decoded:?}) holds the control character U+{:04X}; ids and names are printable text",
                c as u32
            )));
        }
    }
    Ok(())
}

/// A path segment with its `%XX` escapes decoded (invalid UTF-8 replaced).
fn percent_decode(seg: &str) -> String {
    let b = seg.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(uri: &str, len: Option<&str>) -> Request {
        let mut b = axum::http::Request::builder().uri(uri);
        if let Some(l) = len {
            b = b.header(header::CONTENT_LENGTH, l);
        }
        b.body(axum::body::Body::empty()).unwrap()
    }

    #[test]
    fn declared_bodies_over_the_limit_and_control_characters_are_refused() {
        assert!(check(&req("/api/tokens", Some("100")), 1000).is_ok());
        let e = check(&req("/api/tokens", Some("1001")), 1000).unwrap_err();
        assert_eq!(e.status_code(), 413);
        let e = check(&req("/api/assets/CB-1%00x/inspections", None), 1000).unwrap_err();
        assert!(e.to_string().contains("U+0000"), "{e}");
        assert!(check(&req("/api/assets/CB%2D1/inspections", None), 1000).is_ok());
        assert!(check(&req("/collections/x/items/a%", None), 1000).is_ok());
        let mut big = req("/health", None);
        big.headers_mut().insert(
            "x-padding",
            header::HeaderValue::from_str(&"a".repeat(MAX_HEADER_BYTES)).unwrap(),
        );
        assert_eq!(check(&big, 1000).unwrap_err().status_code(), 431);
    }
}
