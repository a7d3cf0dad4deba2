//! The service's one error type: a status and a JSON message a person can act on.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An HTTP error.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// A request parameter is wrong; the message names it.
    #[error("{0}")]
    BadRequest(String),
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
    /// Something failed on our side; the cause is logged, not sent.
    #[error("internal error")]
    Internal(String),
}

impl HttpError {
    /// The status code.
    pub fn status_code(&self) -> StatusCode {
        match self {
            HttpError::BadRequest(_) => StatusCode::BAD_REQUEST,
            HttpError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            HttpError::Forbidden(_) => StatusCode::FORBIDDEN,
            HttpError::NotFound(_) => StatusCode::NOT_FOUND,
            HttpError::PayloadTooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            HttpError::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            HttpError::Unavailable { .. } => StatusCode::SERVICE_UNAVAILABLE,
            HttpError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<crate::store::StoreError> for HttpError {
    fn from(e: crate::store::StoreError) -> Self {
        match busy(&e) {
            Some(message) => {
                tracing::warn!(cause = %e, "store busy");
                HttpError::Unavailable {
                    message: message.into(),
                    retry_after: 5,
                }
            }
            None => HttpError::Internal(e.to_string()),
        }
    }
}

/// What to say when a store error means "busy or unreachable, try again", else `None`.
///
/// SQLite answers `SQLITE_BUSY` (5) or `SQLITE_LOCKED` (6) once its busy timeout has
/// passed while another connection (QGIS, `sqlite3`, a second `ms4`) holds the write lock;
/// PostgreSQL answers `55P03` (lock not available), `57014` (statement or lock timeout),
/// `40001`/`40P01` (serialization failure, deadlock: retrying is the remedy), and a
/// pool that cannot get a connection in time, or a server gone, is as transient.
pub fn busy(e: &crate::store::StoreError) -> Option<&'static str> {
    use crate::store::StoreError;
    let StoreError::Db(db) = e else {
        return None;
    };
    match db {
        sqlx::Error::Database(d) => {
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
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => Some(
            "the registry's database is busy or unreachable; nothing was changed, retry shortly",
        ),
        _ => None,
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if let HttpError::Internal(cause) = &self {
            tracing::error!(%cause, "request failed");
        }
        let status = self.status_code();
        let body = Json(serde_json::json!({
            "error": self.to_string(),
            "status": status.as_u16(),
        }));
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
