//! The service's one error type: a status and a JSON message a person can act on, with
//! the field at fault as data (`field`) when one is, and for a failure on our side the
//! typed cause, logged with its chain and never sent.

use std::error::Error as StdError;

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An HTTP error.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// The request is wrong as a whole, or in a way no one field names.
    #[error("{0}")]
    BadRequest(String),
    /// One field or parameter is wrong: its path into the request (`k`,
    /// `screening.field_tests.ph`, `actions[0].by`) and why. A 400 whose body carries
    /// the path as `field`, so a client finds the field without reading the message.
    #[error("{field}: {message}")]
    Invalid {
        /// The parameter, or the path into the body, as the request names it.
        field: String,
        /// What is wrong, and what would do.
        message: String,
    },
    /// No token, or one that is unknown, revoked or expired.
    #[error("{0}")]
    Unauthorized(String),
    /// A valid token whose role may not do this.
    #[error("{0}")]
    Forbidden(String),
    /// Nothing there.
    #[error("{0}")]
    NotFound(String),
    /// The request body is larger than the configured limit.
    #[error("{0}")]
    PayloadTooLarge(String),
    /// The body's media type is not one the route reads (`text/plain` sent to a route
    /// that reads JSON).
    #[error("{0}")]
    UnsupportedMediaType(String),
    /// The request's headers are larger than the service reads.
    #[error("{0}")]
    HeadersTooLarge(String),
    /// The request was made from a version of the record that is no longer the stored
    /// one (`If-Match`): nothing was changed.
    #[error("{0}")]
    PreconditionFailed(String),
    /// What the request records is recorded already (an occurrence of a programme item
    /// answered by a submission): the message names the record; nothing was written.
    #[error("{0}")]
    Conflict(String),
    /// The request is well formed but its content cannot be accepted (an import whose
    /// file has rejected features under `--replace`, say).
    #[error("{0}")]
    Unprocessable(String),
    /// The store is busy (another program holds its write lock) or unreachable: retry
    /// after the seconds given, sent as `Retry-After`.
    #[error("{message}")]
    Unavailable {
        /// What to tell the client.
        message: String,
        /// Seconds to wait before retrying.
        retry_after: u32,
    },
    /// Something failed on our side; the cause is logged with its chain, not sent.
    #[error("internal error")]
    Internal {
        /// What failed, as its own type, sources and all.
        source: Cause,
    },
}

/// The cause of a failure on our side, whatever its type.
pub type Cause = Box<dyn StdError + Send + Sync>;

/// What the service was doing when the cause failed, so the log says both.
#[derive(Debug, thiserror::Error)]
#[error("{doing}")]
struct While {
    doing: String,
    #[source]
    source: Cause,
}

impl HttpError {
    /// A field or parameter at fault (`field` is its path into the request).
    pub fn field(field: impl Into<String>, message: impl Into<String>) -> Self {
        HttpError::Invalid {
            field: field.into(),
            message: message.into(),
        }
    }

    /// A `from`/`to` pair of days refused at `from` when it comes after `to`.
    pub fn check_days(
        from: Option<chrono::NaiveDate>,
        to: Option<chrono::NaiveDate>,
    ) -> Result<(), Self> {
        match (from, to) {
            (Some(f), Some(t)) if f > t => {
                Err(HttpError::field("from", format!("{f} is after to, {t}")))
            }
            _ => Ok(()),
        }
    }

    /// A failure on our side, its cause kept for the log: any error (its sources
    /// follow it there), or text where that is all there is. Named as the variant so
    /// `.map_err(HttpError::Internal)` reads as it did when the cause was text.
    #[allow(non_snake_case)]
    pub fn Internal(cause: impl Into<Cause>) -> Self {
        HttpError::Internal {
            source: cause.into(),
        }
    }

    /// A failure on our side while `doing` something ("building a tile").
    pub fn internal(doing: impl Into<String>, cause: impl Into<Cause>) -> Self {
        HttpError::Internal {
            source: Box::new(While {
                doing: doing.into(),
                source: cause.into(),
            }),
        }
    }

    /// The field at fault, when one is.
    pub fn field_name(&self) -> Option<&str> {
        match self {
            HttpError::Invalid { field, .. } => Some(field),
            _ => None,
        }
    }

    /// The status code.
    pub fn status_code(&self) -> StatusCode {
        match self {
            HttpError::BadRequest(_) | HttpError::Invalid { .. } => StatusCode::BAD_REQUEST,
            HttpError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            HttpError::Forbidden(_) => StatusCode::FORBIDDEN,
            HttpError::NotFound(_) => StatusCode::NOT_FOUND,
            HttpError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            HttpError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            HttpError::HeadersTooLarge(_) => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            HttpError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            HttpError::Conflict(_) => StatusCode::CONFLICT,
            HttpError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            HttpError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            HttpError::Internal { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<crate::store::StoreError> for HttpError {
    fn from(e: crate::store::StoreError) -> Self {
        use crate::store::StoreError;
        match &e {
            // Refused by a rule applied to the stored row: the request's fault, named.
            StoreError::Refused { field, message } => {
                return HttpError::field(field.clone(), message.clone())
            }
            StoreError::NotFound { .. } => return HttpError::NotFound(e.to_string()),
            StoreError::Changed { .. } => return HttpError::PreconditionFailed(e.to_string()),
            StoreError::Exists { .. } => return HttpError::Conflict(e.to_string()),
            _ => {}
        }
        match busy(&e) {
            Some(message) => {
                tracing::warn!(cause = %e, "store busy or unreachable");
                HttpError::Unavailable {
                    message: message.into(),
                    retry_after: 5,
                }
            }
            None => match refused(&e) {
                Some(message) => HttpError::Unprocessable(format!(
                    "the registry refused the write: {message}; nothing was changed"
                )),
                None => HttpError::Internal(e),
            },
        }
    }
}

impl From<crate::idde::FieldError> for HttpError {
    fn from(e: crate::idde::FieldError) -> Self {
        HttpError::field(e.field, e.message)
    }
}

/// An error and its sources, outermost first: `building a tile: reading the layer: …`.
/// A source whose words its error already says (`{doing}: {source}`) is said once.
pub fn chain(e: &(dyn StdError + 'static)) -> String {
    let mut out = e.to_string();
    let mut next = e.source();
    while let Some(s) = next {
        let said = s.to_string();
        if !out.contains(&said) {
            out.push_str(": ");
            out.push_str(&said);
        }
        next = s.source();
    }
    out
}

/// The database's own message when a rule in it refused a write: a constraint or a
/// trigger another program added (SQLite's constraint codes, whose low byte is 19;
/// PostgreSQL's `P0001` raised exceptions and class `23` integrity violations). The write
/// was rolled back whole; the client is told why, not "internal error".
fn refused(e: &crate::store::StoreError) -> Option<String> {
    use crate::store::StoreError;
    let StoreError::Db(sqlx::Error::Database(d)) = e else {
        return None;
    };
    let code = d.code();
    let code = code.as_deref().unwrap_or("");
    let sqlite = code.parse::<i32>().is_ok_and(|c| c & 0xff == 19);
    let pg = code == "P0001" || code.starts_with("23");
    (sqlite || pg).then(|| d.message().to_string())
}

/// What to say when a store error means "busy or unreachable, try again", else `None`.
///
/// SQLite answers `SQLITE_BUSY` (5) or `SQLITE_LOCKED` (6) once its busy timeout has
/// passed while another connection (QGIS, `sqlite3`, a second `ms4`) holds the write lock;
/// PostgreSQL answers `55P03` (lock not available), `57014` (statement or lock timeout),
/// `40001`/`40P01` (serialization failure, deadlock: retrying is the remedy). A server
/// gone or going away is as transient, and is said as such (see [`unreachable`]).
pub fn busy(e: &crate::store::StoreError) -> Option<&'static str> {
    use crate::store::StoreError;
    if unreachable(e) {
        return Some(UNREACHABLE);
    }
    let StoreError::Db(sqlx::Error::Database(d)) = e else {
        return None;
    };
    let code = d.code();
    let code = code.as_deref().unwrap_or("");
    // SQLite's extended codes keep the primary code in the low byte.
    let sqlite_busy = code.parse::<i32>().is_ok_and(|c| matches!(c & 0xff, 5 | 6));
    let pg_busy = matches!(code, "55P03" | "57014" | "40001" | "40P01");
    let said = d.message().contains("database is locked");
    (sqlite_busy || pg_busy || said).then_some(
        "the registry is busy: another program holds its write lock; nothing was changed, retry shortly",
    )
}

/// What a client is told when the database cannot be reached.
pub const UNREACHABLE: &str =
    "the registry's database is unreachable (or too slow to hand out a connection); nothing was changed, retry shortly";

/// True when a store error means the database server cannot be reached: the pool found
/// no connection in its acquire timeout (it retries a refused connection until then), a
/// socket failed, or PostgreSQL said it is shutting down or refusing connections
/// (`57P01`-`57P03`, class `08`). Reads go on from the snapshot; writes are refused with
/// this, so a client knows to retry rather than to report a bug.
pub fn unreachable(e: &crate::store::StoreError) -> bool {
    use crate::store::StoreError;
    let StoreError::Db(db) = e else {
        return false;
    };
    match db {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        sqlx::Error::Database(d) => {
            let code = d.code();
            let code = code.as_deref().unwrap_or("");
            matches!(code, "57P01" | "57P02" | "57P03") || code.starts_with("08")
        }
        _ => false,
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if let HttpError::Internal { source } = &self {
            tracing::error!(error = %chain(source.as_ref()), cause = ?source, "request failed");
        }
        let status = self.status_code();
        let mut body = serde_json::json!({
            "error": plain_message(&self.to_string()),
            "status": status.as_u16(),
        });
        if let Some(field) = self.field_name() {
            body["field"] = field.into();
        }
        let body = Json(body);
        if let HttpError::Unavailable { retry_after, .. } = &self {
            let after = retry_after.to_string();
            return (status, [(header::RETRY_AFTER, after)], body).into_response();
        }
        if status == StatusCode::UNAUTHORIZED {
            // RFC 6750: tell the client which scheme to use.
            return (status, [(header::WWW_AUTHENTICATE, "Bearer")], body).into_response();
        }
        (status, body).into_response()
    }
}

/// A message with the Rust names serde and `Debug` put in it said for people:
/// `expected struct DetermineWire` is "expected a JSON object", `Some("P-1")` is
/// `"P-1"`. The names are the code's, not the API's, and mean nothing to a client.
pub fn plain_message(m: &str) -> String {
    let mut out = String::with_capacity(m.len());
    let mut rest = m;
    loop {
        let next = [
            ("expected struct ", "expected a JSON object"),
            ("expected tuple struct ", "expected a JSON array"),
            ("expected unit struct ", "expected null"),
            ("expected enum ", "expected one of the documented values"),
        ]
        .iter()
        .filter_map(|(pat, say)| rest.find(pat).map(|i| (i, *pat, *say)))
        .min_by_key(|(i, ..)| *i);
        let some = rest.find("Some(");
        match (next, some) {
            (Some((i, pat, say)), s) if s.is_none_or(|s| i < s) => {
                out.push_str(&rest[..i]);
                out.push_str(say);
                let after = &rest[i + pat.len()..];
                // Skip the type's name.
                let end = after
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(after.len());
                rest = &after[end..];
            }
            (_, Some(i)) => {
                out.push_str(&rest[..i]);
                let after = &rest[i + "Some(".len()..];
                // The matching parenthesis, outside quotes.
                let (mut depth, mut quoted, mut end) = (1, false, None);
                for (j, c) in after.char_indices() {
                    match c {
                        '"' => quoted = !quoted,
                        '(' if !quoted => depth += 1,
                        ')' if !quoted => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(j);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                match end {
                    Some(j) => {
                        out.push_str(&after[..j]);
                        rest = &after[j + 1..];
                    }
                    None => {
                        out.push_str(&rest[i..]);
                        rest = "";
                    }
                }
            }
            _ => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// Gives every error response a JSON body: those made outside the handlers (axum's
/// own rejections such as a multipart form without a boundary, the timeout layer's 408)
/// are plain text or empty. Their text, if any, becomes the message.
pub(super) async fn json_bodies(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let res = next.run(req).await;
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let (parts, body) = res.into_parts();
    let text = axum::body::to_bytes(body, 16 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let message = if status.is_server_error() {
        // Never pass on what an inner layer said of a failure on our side.
        tracing::error!(%status, cause = %text, "request failed");
        status
            .canonical_reason()
            .unwrap_or("internal error")
            .to_lowercase()
    } else if text.is_empty() {
        default_message(status)
    } else {
        plain_message(&text.replace('`', ""))
    };
    let mut out = (
        status,
        Json(serde_json::json!({"error": message, "status": status.as_u16()})),
    )
        .into_response();
    for (k, v) in &parts.headers {
        if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
            out.headers_mut().insert(k.clone(), v.clone());
        }
    }
    out
}

fn default_message(status: StatusCode) -> String {
    match status {
        StatusCode::REQUEST_TIMEOUT => {
            "the request took longer than this server allows; retry, or ask for less".into()
        }
        StatusCode::PAYLOAD_TOO_LARGE => "body: over this server's limit".into(),
        s => s.canonical_reason().unwrap_or("refused").to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_names_are_said_for_people() {
        assert_eq!(
            plain_message(
                "invalid type: string \"abc\", expected struct DetermineWire at line 1 column 5"
            ),
            "invalid type: string \"abc\", expected a JSON object at line 1 column 5"
        );
        assert_eq!(
            plain_message("parcel: no parcel Some(\"P-1 (x)\") here"),
            "parcel: no parcel \"P-1 (x)\" here"
        );
        assert_eq!(plain_message("nothing odd"), "nothing odd");
    }

    /// Where a test's log lines go.
    #[derive(Clone, Default)]
    struct Log(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Log {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[derive(Debug, thiserror::Error)]
    #[error("reading the layer")]
    struct Reading(#[source] std::io::Error);

    #[tokio::test]
    async fn an_internal_cause_is_logged_with_its_chain_and_never_sent() {
        let log = Log::default();
        let sink = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || sink.clone())
            .with_ansi(false)
            .finish();
        let _guard = tracing::subscriber::set_default(subscriber);
        let cause = Reading(std::io::Error::other("disk /srv/ms4 on fire"));
        let res = HttpError::internal("rendering a tile", cause).into_response();
        assert_eq!(res.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let body = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            body,
            serde_json::json!({"error": "internal error", "status": 500})
        );
        let logged = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
        assert!(
            logged.contains("rendering a tile: reading the layer: disk /srv/ms4 on fire"),
            "{logged}"
        );
    }

    #[test]
    fn a_field_error_keeps_its_field() {
        let e = HttpError::from(crate::idde::FieldError {
            field: "screening.field_tests.ph".into(),
            message: "15 is outside 0 to 14".into(),
        });
        assert_eq!(e.status_code(), StatusCode::BAD_REQUEST);
        assert_eq!(e.field_name(), Some("screening.field_tests.ph"));
        assert_eq!(
            e.to_string(),
            "screening.field_tests.ph: 15 is outside 0 to 14"
        );
        assert_eq!(
            HttpError::BadRequest("body: empty".into()).field_name(),
            None
        );
    }
}
