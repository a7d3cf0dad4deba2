//! The permit calendar's records over HTTP (`/api/calendar/records`): each handler parses
//! into a [`CalendarCommand`] and runs it with [`crate::programme::run`], the command
//! `ms4 calendar record` and `ms4 calendar records` run, then brings the server's snapshot
//! up to what was written. A submission sent again with its `Idempotency-Key` is stored
//! once (200, nothing written); an occurrence recorded already is a 409 naming the
//! submission stored.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::NaiveDate;
use serde::Deserialize;

use super::extract::{Body, Params};
use super::{AppState, Caller, HttpError};
use crate::domain::Layer;
use crate::programme::{CalendarCommand, CalendarRecordAnswer, SubmissionError, SubmissionRequest};
use crate::sites::commands::Registry;
use crate::sites::SiteRecorder;

impl From<SubmissionError> for HttpError {
    fn from(e: SubmissionError) -> Self {
        match e {
            SubmissionError::Invalid(f) => f.into(),
            SubmissionError::Conflict(m) => HttpError::Conflict(m),
            SubmissionError::Store(s) => s.into(),
        }
    }
}

async fn execute(
    state: &AppState,
    caller: Option<&Caller>,
    what: &str,
    cmd: CalendarCommand,
) -> Result<CalendarRecordAnswer, HttpError> {
    let writes = matches!(cmd, CalendarCommand::Record { .. });
    let snap = state.snapshot.current();
    let profile = state.profile.current();
    let by = SiteRecorder {
        name: caller.map_or_else(String::new, |c| c.subject.clone()),
        source: "api".into(),
        what: what.into(),
        // The calendar judges on the local day; a submission's day is bounded by it too.
        today: chrono::Local::now().date_naive(),
    };
    let reg = Registry {
        store: state.store.as_ref(),
        profile: &profile,
        snap: &snap,
    };
    let answer = crate::programme::run(reg, &by, cmd).await?;
    if writes {
        state
            .snapshot
            .reload_layer(state.store.as_ref(), Layer::ProgrammeSubmissions, 0)
            .await?;
    }
    Ok(answer)
}

/// The query of `GET /api/calendar/records`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct RecordsParams {
    /// Only this calendar item's submissions.
    item_id: Option<String>,
    /// Answering an occurrence due on or after this day, YYYY-MM-DD.
    from: Option<NaiveDate>,
    /// Answering an occurrence due on or before this day, YYYY-MM-DD.
    to: Option<NaiveDate>,
}

pub(super) async fn records(
    State(state): State<AppState>,
    Params(p): Params<RecordsParams>,
) -> Result<Json<crate::programme::commands::RecordList>, HttpError> {
    HttpError::check_days(p.from, p.to)?;
    let cmd = CalendarCommand::List {
        item_id: p.item_id,
        from: p.from,
        to: p.to,
    };
    match execute(&state, None, "GET /api/calendar/records", cmd).await? {
        CalendarRecordAnswer::Records(list) => Ok(Json(list)),
        CalendarRecordAnswer::Recorded(_) => Err(HttpError::Internal {
            source: "a list of submissions answered a record".into(),
        }),
    }
}

pub(super) async fn add_record(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    Body(request): Body<SubmissionRequest>,
) -> Result<Response, HttpError> {
    let cmd = CalendarCommand::Record {
        request,
        idempotency_key: super::sites::idempotency_key(&headers)?,
    };
    match execute(&state, Some(&caller), "POST /api/calendar/records", cmd).await? {
        CalendarRecordAnswer::Recorded(r) => {
            let status = if r.again {
                StatusCode::OK
            } else {
                StatusCode::CREATED
            };
            Ok((status, Json(r)).into_response())
        }
        CalendarRecordAnswer::Records(_) => Err(HttpError::Internal {
            source: "a submission answered a list".into(),
        }),
    }
}
