//! Token management over HTTP (admin only): create, list, revoke.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::Deserialize;

use super::extract::Body;
use super::{AppState, Caller, HttpError};
use crate::auth::{self, NewToken, Role};

/// `POST /api/tokens`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateToken {
    role: String,
    subject: String,
    /// RFC 3339 time after which the token stops working.
    expires_at: Option<String>,
}

pub(super) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(req): Body<CreateToken>,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let role: Role = req
        .role
        .parse()
        .map_err(|e: auth::UnknownRole| HttpError::field("role", e.to_string()))?;
    let subject =
        auth::check_name(&req.subject).map_err(|m| HttpError::field("subject", m.to_string()))?;
    let expires_at = req
        .expires_at
        .as_deref()
        .map(|e| {
            chrono::DateTime::parse_from_rfc3339(e)
                .map(|t| t.with_timezone(&chrono::Utc))
                .map_err(|err| HttpError::field("expires_at", format!("{e:?}: {err}")))
        })
        .transpose()?;
    if expires_at.is_some_and(|e| e <= chrono::Utc::now()) {
        return Err(HttpError::field("expires_at", "already past"));
    }
    let token = auth::generate();
    let id = state
        .store
        .create_token(
            &NewToken {
                hash: auth::hash(&token),
                role,
                subject: subject.to_string(),
                expires_at,
            },
            &caller.subject,
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "token_id": id, "token": token, "role": role, "subject": subject,
            "expires_at": expires_at,
        })),
    ))
}

pub(super) async fn list(
    State(state): State<AppState>,
) -> Result<Json<serde_json::Value>, HttpError> {
    Ok(Json(
        serde_json::json!({ "tokens": state.store.tokens().await? }),
    ))
}

pub(super) async fn revoke(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let id: i64 = id
        .parse()
        .map_err(|_| HttpError::field("id", format!("{id:?} is not a token id")))?;
    if !state.store.revoke_token(id, &caller.subject).await? {
        return Err(HttpError::NotFound(format!(
            "token {id}: no such token, or it was revoked already"
        )));
    }
    Ok(Json(serde_json::json!({ "token_id": id, "revoked": true })))
}
