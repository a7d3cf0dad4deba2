//! The service's one error type: a status and a JSON message a person can act on.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// An HTTP error.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// A request parameter is wrong; the message names it.
    #[error("{0}")]
    BadRequest(String),
    /// Nothing there.
    #[error("{0}")]
    NotFound(String),
    /// Something failed on our side; the cause is logged, not sent.
    #[error("internal error")]
    Internal(String),
}

impl HttpError {
    /// The status code.
    pub fn status_code(&self) -> StatusCode {
        match self {
            HttpError::BadRequest(_) => StatusCode::BAD_REQUEST,
            HttpError::NotFound(_) => StatusCode::NOT_FOUND,
            HttpError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if let HttpError::Internal(cause) = &self {
            tracing::error!(%cause, "request failed");
        }
        (
            self.status_code(),
            Json(serde_json::json!({ "error": self.to_string() })),
        )
            .into_response()
    }
}
