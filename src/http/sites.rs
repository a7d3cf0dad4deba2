//! The construction programme over HTTP (`/api/sites`): each handler parses into a
//! [`SiteCommand`] and runs it with [`crate::sites::run`], the command `ms4 site`,
//! `ms4 sites due` and `ms4 rainfall import` run, then brings the server's snapshot up
//! to what was written. `GET /api/sites/{id}` sends the site's version as its `ETag`;
//! an action sent with `If-Match` is refused (412) when the stored site is another
//! version by then; one sent again with its `Idempotency-Key` is stored once.
//! `/api/rainfall` lists the daily totals and stores them, entered as JSON or uploaded as
//! the CSV `ms4 rainfall import` reads.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{NaiveDate, Utc};
use serde::Deserialize;

use super::extract::{Body, Params};
use super::versions::{etag, if_match};
use super::{AppState, Caller, HttpError};
use crate::auth::Role;
use crate::domain::{Layer, SiteActionKind, SiteStatus};
use crate::idde::deadlines::parse_as_of;
use crate::sites::commands::Registry;
use crate::sites::open::OpenSite;
use crate::sites::rainfall::{parse_csv, RainDay, RainfallRequest};
use crate::sites::{SiteAction, SiteAnswer, SiteCommand, SiteError, SiteRecorder};

impl From<SiteError> for HttpError {
    fn from(e: SiteError) -> Self {
        match e {
            SiteError::Invalid(f) => f.into(),
            SiteError::NotFound(m) => HttpError::NotFound(m),
            SiteError::Changed(m) => HttpError::PreconditionFailed(m),
            SiteError::Store(s) => s.into(),
        }
    }
}

async fn execute(
    state: &AppState,
    caller: Option<&Caller>,
    what: &str,
    cmd: SiteCommand,
) -> Result<SiteAnswer, HttpError> {
    let reload: &[Layer] = match cmd {
        // A closing writes the SMPs it hands over in the same transaction.
        SiteCommand::Open(_) | SiteCommand::Log { .. } => &[Layer::Sites, Layer::Smps],
        SiteCommand::Rainfall { .. } => &[Layer::Rainfall],
        _ => &[],
    };
    let snap = state.snapshot.current();
    let profile = state.profile.current();
    let by = SiteRecorder {
        name: caller.map_or_else(String::new, |c| c.subject.clone()),
        source: "api".into(),
        what: what.into(),
        today: Utc::now().date_naive(),
    };
    let reg = Registry {
        store: state.store.as_ref(),
        profile: &profile,
        snap: &snap,
    };
    let answer = crate::sites::run(reg, &by, Utc::now().naive_utc(), cmd).await?;
    for layer in reload {
        state
            .snapshot
            .reload_layer(state.store.as_ref(), *layer, 0)
            .await?;
    }
    Ok(answer)
}

fn site_response(answer: SiteAnswer, status: StatusCode) -> Result<Response, HttpError> {
    match answer {
        SiteAnswer::Site(v) => Ok((status, [etag(&v.version)], Json(*v)).into_response()),
        _ => Err(HttpError::Internal {
            source: "a site command answered no site".into(),
        }),
    }
}

/// The query of `GET /api/sites`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct SiteListParams {
    /// Only the sites of this status.
    status: Option<SiteStatus>,
}

/// The query of `GET /api/sites/{id}` and `GET /api/sites/due`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct SiteAsOf {
    /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now).
    as_of: Option<String>,
}

pub(super) async fn list(
    State(state): State<AppState>,
    Params(p): Params<SiteListParams>,
) -> Result<Json<serde_json::Value>, HttpError> {
    match execute(
        &state,
        None,
        "GET /api/sites",
        SiteCommand::List { status: p.status },
    )
    .await?
    {
        SiteAnswer::List { sites, unreadable } => Ok(Json(serde_json::json!({
            "count": sites.len(),
            "sites": sites,
            "unreadable": unreadable,
        }))),
        _ => Err(HttpError::Internal {
            source: "a site list answered no list".into(),
        }),
    }
}

pub(super) async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(p): Params<SiteAsOf>,
) -> Result<Response, HttpError> {
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let a = execute(
        &state,
        None,
        "GET /api/sites/{id}",
        SiteCommand::Show { id, as_of },
    )
    .await?;
    site_response(a, StatusCode::OK)
}

pub(super) async fn due(
    State(state): State<AppState>,
    Params(p): Params<SiteAsOf>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    match execute(
        &state,
        None,
        "GET /api/sites/due",
        SiteCommand::Due { as_of },
    )
    .await?
    {
        SiteAnswer::Due(d) => Ok(Json(serde_json::to_value(d).unwrap_or_default())),
        _ => Err(HttpError::Internal {
            source: "a due list answered no list".into(),
        }),
    }
}

pub(super) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(req): Body<OpenSite>,
) -> Result<Response, HttpError> {
    let a = execute(
        &state,
        Some(&caller),
        "POST /api/sites",
        SiteCommand::Open(Box::new(req)),
    )
    .await?;
    site_response(a, StatusCode::CREATED)
}

pub(super) async fn add_action(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(mut a): Body<SiteAction>,
) -> Result<Response, HttpError> {
    let if_version = if_match(&headers, "/api/sites/{id}")?;
    // The inspector's token records a site's inspections; the rest of its log is the
    // officer's.
    if caller.role == Some(Role::Inspector) && a.kind != SiteActionKind::Inspection {
        return Err(HttpError::Forbidden(format!(
            "the token of {} has the inspector role, which logs a site's inspections; {} needs the officer role",
            caller.subject, a.kind
        )));
    }
    if let Some(k) = idempotency_key(&headers)? {
        match &a.idempotency_key {
            Some(b) if *b != k => {
                return Err(HttpError::field(
                    "Idempotency-Key",
                    "differs from the body's idempotency_key",
                ))
            }
            _ => a.idempotency_key = Some(k),
        }
    }
    let cmd = SiteCommand::Log {
        id,
        action: Box::new(a),
        if_version,
    };
    let a = execute(&state, Some(&caller), "POST /api/sites/{id}/actions", cmd).await?;
    site_response(a, StatusCode::CREATED)
}

/// The `Idempotency-Key` header, checked: a client's key for one write.
pub(super) fn idempotency_key(headers: &HeaderMap) -> Result<Option<String>, HttpError> {
    let Some(v) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let k = v.to_str().unwrap_or("").trim();
    if k.is_empty() || k.len() > 200 || !k.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(HttpError::field(
            "Idempotency-Key",
            "must be 1 to 200 visible ASCII characters",
        ));
    }
    Ok(Some(k.to_string()))
}

/// The query of `GET /api/rainfall`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RainfallParams {
    /// Only this gauge or station.
    gauge: Option<String>,
    /// From this day, YYYY-MM-DD.
    from: Option<NaiveDate>,
    /// To this day, YYYY-MM-DD.
    to: Option<NaiveDate>,
}

pub(super) async fn rainfall(
    State(state): State<AppState>,
    Params(p): Params<RainfallParams>,
) -> Result<Json<serde_json::Value>, HttpError> {
    HttpError::check_days(p.from, p.to)?;
    let cmd = SiteCommand::RainfallList {
        gauge: p.gauge,
        from: p.from,
        to: p.to,
    };
    match execute(&state, None, "GET /api/rainfall", cmd).await? {
        SiteAnswer::RainDays(days) => Ok(Json(serde_json::json!({
            "count": days.len(),
            "entries": days,
        }))),
        _ => Err(HttpError::Internal {
            source: "a rainfall list answered no list".into(),
        }),
    }
}

async fn store_rain(
    state: &AppState,
    caller: &Caller,
    what: &str,
    headers: &HeaderMap,
    days: Vec<RainDay>,
) -> Result<Response, HttpError> {
    let cmd = SiteCommand::Rainfall {
        days,
        idempotency_key: idempotency_key(headers)?,
    };
    match execute(state, Some(caller), what, cmd).await? {
        SiteAnswer::Rainfall {
            written,
            unchanged,
            again,
        } => {
            let status = if again {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            };
            let body =
                serde_json::json!({"written": written, "unchanged": unchanged, "again": again});
            Ok((status, Json(body)).into_response())
        }
        _ => Err(HttpError::Internal {
            source: "a rainfall write answered no count".into(),
        }),
    }
}

pub(super) async fn add_rainfall(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    Body(req): Body<RainfallRequest>,
) -> Result<Response, HttpError> {
    store_rain(&state, &caller, "POST /api/rainfall", &headers, req.entries).await
}

pub(super) async fn import_rainfall(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, HttpError> {
    let text = std::str::from_utf8(&body)
        .map_err(|_| HttpError::field("body", "the CSV is not UTF-8 text"))?;
    let days = parse_csv(text).map_err(|e| HttpError::field("body", e))?;
    store_rain(&state, &caller, "POST /api/rainfall/import", &headers, days).await
}
