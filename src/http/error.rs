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
            HttpError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl From<crate::store::StoreError> for HttpError {
    fn from(e: crate::store::StoreError) -> Self {
        HttpError::Internal(e.to_string())
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
        if status == StatusCode::UNAUTHORIZED {
            // RFC 6750: tell the client which scheme to use.
            return (status, [(header::WWW_AUTHENTICATE, "Bearer")], body).into_response();
        }
        (status, body).into_response()
    }
}
