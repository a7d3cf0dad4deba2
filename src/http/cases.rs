//! The illicit discharge programme over HTTP: cases (`/api/cases`), their actions,
//! closing and notices; the deadlines and fines computed for them (`/api/deadlines`);
//! and the annual report (`/api/report`). Inspection photos are in [`super::photos`].
//!
//! An action logged and a case closed are made from the case as stored, inside the
//! write's own transaction ([`crate::idde::case_update`]), never from this server's
//! snapshot: an action another process (`ms4 case action`, a second server) stored a
//! moment before is kept. A new case's id is allocated inside its write's transaction,
//! under the store's write lock, so cases opened at once by this server and by other
//! processes get distinct ids. So no lock of this server's own carries correctness.
//!
//! `GET /api/cases/{id}` sends the case's version as its `ETag`; a close sent with
//! `If-Match` is refused (412) when the stored case is another version by then.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{NaiveDate, NaiveDateTime, Utc};
use serde::Deserialize;

use super::extract::{Body, Params};
use super::versions::{etag, if_match};
use super::{AppState, Caller, HttpError};
use crate::answer::{self, Ask};
use crate::domain::{CaseStatus, Layer};
use crate::idde::case::next_case_id;
use crate::idde::case_update::{
    case_version, check_connection, close_case as closing, log_action, set_case_respondent,
    Recorder, Updated,
};
use crate::idde::cases_cache::cases_of;
use crate::idde::commands::CaseView;
use crate::idde::deadlines::{all_deadlines, parse_as_of};
use crate::idde::open::{
    case_for_screening, from_connections, open_case, screening_case_json, store_new_case, OpenCase,
    ScreeningCase,
};
use crate::idde::respondent::RespondentRequest;
use crate::idde::{Action, Case, Closing, FieldError};
use crate::store::StoreError;

fn field(e: FieldError) -> HttpError {
    HttpError::from(e)
}

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

/// Runs a question with the snapshot's network (from the shared cache) on a blocking
/// thread: candidates trace the network and judge every connection.
async fn with_ask<T: Send + 'static>(
    state: &AppState,
    f: impl FnOnce(&Ask<'_>) -> T + Send + 'static,
) -> Result<T, HttpError> {
    let snap = state.snapshot.current();
    let st = state.clone();
    tokio::task::spawn_blocking(move || {
        let profile_now = st.profile.current();
        let profile = &*profile_now;
        let networks = &st.networks;
        let source = || networks.get_or_build(&snap, |s| Ok(answer::build_network(s, profile)));
        let ask = Ask::new(&snap, profile).with_network(&source);
        f(&ask)
    })
    .await
    .map_err(|e| HttpError::internal("answering", e))
}

fn find_case(state: &AppState, id: &str) -> Result<Case, HttpError> {
    find_versioned(state, id).map(|(c, _)| c)
}

/// A case as the snapshot holds it, with its version.
fn find_versioned(state: &AppState, id: &str) -> Result<(Case, String), HttpError> {
    let snap = state.snapshot.current();
    let f = snap
        .layer(Layer::Cases)
        .get(id)
        .ok_or_else(|| no_such_case(id))?;
    let c = Case::from_feature(f).map_err(HttpError::Internal)?;
    Ok((c, case_version(f)))
}

fn no_such_case(id: &str) -> HttpError {
    HttpError::NotFound(format!("case {id:?}: no such case"))
}

fn recorder(state: &AppState, caller: &Caller, what: &str) -> Recorder {
    Recorder {
        name: caller.subject.clone(),
        source: "api".into(),
        what: what.into(),
        law: state.profile.current().idde.clone(),
        today: today(),
    }
}

/// A store error of a case's update as the client is told it: a missing case in the
/// words of every case route.
fn update_error(id: &str, e: StoreError) -> HttpError {
    match e {
        StoreError::NotFound { .. } => no_such_case(id),
        e => e.into(),
    }
}

/// The answer to a case's update: the case as written, with its deadlines and version.
fn updated_response(state: &AppState, u: &Updated, status: StatusCode) -> Response {
    (
        status,
        [etag(&u.version)],
        Json(case_json(state, &u.case, now())),
    )
        .into_response()
}

/// A case as every case route answers it ([`CaseView`]: with its deadlines and the
/// actions the law bars or may bar against its respondent).
fn case_json(state: &AppState, c: &Case, as_of: NaiveDateTime) -> serde_json::Value {
    let view = CaseView::new(c.clone(), &state.profile.current().idde, as_of);
    serde_json::to_value(view).unwrap_or_default()
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

async fn open_one(state: &AppState, caller: &Caller, req: OpenCase) -> Result<Case, HttpError> {
    let by = caller.subject.clone();
    let case = with_ask(state, move |ask| {
        let id = next_case_id(ask.snap, chrono::Datelike::year(&req.opened_on));
        open_case(ask, &req, id, &by, today())
    })
    .await?
    .map_err(field)?;
    // The id is allocated again inside the write's transaction: another process (a
    // command, a second server) may have opened a case since the snapshot was taken.
    let case = store_new_case(
        state.store.as_ref(),
        case,
        &caller.subject,
        "api",
        "POST /api/cases",
    )
    .await?;
    state
        .snapshot
        .reload_layer(state.store.as_ref(), Layer::Cases, 0)
        .await?;
    Ok(case)
}

/// Opens the case a suspect or obvious screening calls for, unless a case open at its
/// outfall already exists (then that case is named): what `POST /api/inspections` does
/// after writing the screening. `None` for any other inspection.
pub(super) async fn open_from_screening(
    state: &AppState,
    caller: &Caller,
    inspection: &serde_json::Value,
) -> Result<Option<serde_json::Value>, HttpError> {
    let set = cases_of(&state.snapshot.current());
    match case_for_screening(inspection, &set.cases, today()) {
        ScreeningCase::None => Ok(None),
        ScreeningCase::AlreadyOpen(id) => Ok(Some(screening_case_json(&id, None))),
        ScreeningCase::Open(req) => {
            let case = open_one(state, caller, req).await?;
            Ok(Some(screening_case_json(&case.case_id, Some(&case))))
        }
    }
}

pub(super) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(req): Body<OpenCase>,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let case = open_one(&state, &caller, req).await?;
    Ok((StatusCode::CREATED, Json(case_json(&state, &case, now()))))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FromConnections {
    opened_on: NaiveDate,
}

pub(super) async fn create_from_connections(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(req): Body<FromConnections>,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let set = cases_of(&state.snapshot.current());
    let on = req.opened_on;
    let wanted = with_ask(&state, move |ask| from_connections(ask, &set.cases, on))
        .await?
        .map_err(HttpError::Internal)?;
    let mut opened = Vec::new();
    for r in wanted {
        opened.push(open_one(&state, &caller, r).await?.case_id);
    }
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({ "opened": opened })),
    ))
}

pub(super) async fn add_action(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    Body(a): Body<Action>,
) -> Result<Response, HttpError> {
    check_connection(&state.snapshot.current(), &a).map_err(field)?;
    let by = recorder(&state, &caller, "POST /api/cases/{id}/actions");
    let u = log_action(&id, a, &by)
        .run_through(state.store.as_ref(), &state.snapshot)
        .await
        .map_err(|e| update_error(&id, e))?;
    Ok(updated_response(&state, &u, StatusCode::CREATED))
}

/// `PUT /api/cases/{id}/respondent`: sets or corrects who an open case is against, on
/// the case as stored, audited.
pub(super) async fn set_respondent(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    Body(r): Body<RespondentRequest>,
) -> Result<Response, HttpError> {
    let by = recorder(&state, &caller, "PUT /api/cases/{id}/respondent");
    let u = set_case_respondent(&id, r, &by)
        .run_through(state.store.as_ref(), &state.snapshot)
        .await
        .map_err(|e| update_error(&id, e))?;
    Ok(updated_response(&state, &u, StatusCode::OK))
}

pub(super) async fn close_case(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Body(c): Body<Closing>,
) -> Result<Response, HttpError> {
    let versions = if_match(&headers, "/api/cases/{id}")?;
    let by = recorder(&state, &caller, "POST /api/cases/{id}/close");
    let u = closing(&id, c, &by, versions)
        .run_through(state.store.as_ref(), &state.snapshot)
        .await
        .map_err(|e| update_error(&id, e))?;
    Ok(updated_response(&state, &u, StatusCode::OK))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct ListParams {
    /// Only the cases open or closed (default: both).
    status: Option<CaseStatus>,
}

pub(super) async fn list(
    State(state): State<AppState>,
    Params(p): Params<ListParams>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let set = cases_of(&state.snapshot.current());
    let unreadable = &set.unreadable;
    let shown: Vec<&Case> = set
        .cases
        .iter()
        .filter(|c| p.status.is_none_or(|s| c.status == s))
        .collect();
    Ok(Json(serde_json::json!({
        "count": shown.len(),
        "cases": shown,
        "unreadable": unreadable,
    })))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct AsOf {
    /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now).
    as_of: Option<String>,
    /// Closed cases too (the deadlines list).
    all: Option<bool>,
}

pub(super) async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(p): Params<AsOf>,
) -> Result<Response, HttpError> {
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let (c, version) = find_versioned(&state, &id)?;
    Ok(([etag(&version)], Json(case_json(&state, &c, as_of))).into_response())
}

/// The query of `GET /api/cases/{id}/notice`.
#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct NoticeParams {
    /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now): when the deadlines it states are
    /// counted to.
    as_of: Option<String>,
    /// notice_of_violation (default), written_notice or citation.
    document: Option<String>,
    /// The orders the notice makes, comma-separated, from the town's list (monitoring,
    /// elimination, cease_and_desist, abatement, fine, bmps).
    orders: Option<String>,
    /// The deadline for abatement or restoration, YYYY-MM-DD (else the notice action's).
    deadline: Option<chrono::NaiveDate>,
}

/// `GET /api/cases/{id}/notice`: the case's notice as printable HTML, its open facts
/// counted in the `x-open-facts` header and listed on the page; a notice the town's law
/// does not have answers 400 saying so, a bad order 400 naming its field.
pub(super) async fn notice(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(p): Params<NoticeParams>,
) -> Result<Response, HttpError> {
    use crate::idde::notice::{for_case, NoticeError, NoticeFacts};
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let orders: Vec<&str> = p.orders.as_deref().unwrap_or("").split(',').collect();
    let refused = |e: NoticeError| match e {
        NoticeError::Bad(field, message) => HttpError::field(field, message),
        e @ NoticeError::NoSuchNotice(_) => HttpError::BadRequest(e.to_string()),
    };
    let facts =
        NoticeFacts::from_words(p.document.as_deref(), &orders, p.deadline).map_err(refused)?;
    let c = find_case(&state, &id)?;
    let n = for_case(
        &state.snapshot.current(),
        &state.profile.current(),
        &c,
        &facts,
        as_of,
    )
    .map_err(refused)?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::HeaderName::from_static("x-open-facts"),
                HeaderValue::from(n.open_facts.len()),
            ),
        ],
        n.html,
    )
        .into_response())
}

/// `POST /api/notices/land-development`: the land development notice of violation (North
/// Castle ch. 267 Part 1 C(1), Carmel § 156-88A) as printable HTML, from the facts in
/// the body and the case it names. It writes nothing, so any reader may ask. The print
/// view is the paper form: no PDF is made (no maintained Rust crate lays out HTML as
/// PDF well); print the page, the open facts are left off the printout. The facts the
/// record lacks are in the `x-open-facts` header (a count) and listed on the page. A
/// town whose law has no such notice answers 400 saying so.
pub(super) async fn ld_notice(
    State(state): State<AppState>,
    Body(facts): Body<crate::idde::ld_notice::LdFacts>,
) -> Result<Response, HttpError> {
    let case = match &facts.case_id {
        Some(id) => Some(find_case(&state, id)?),
        None => None,
    };
    let n = crate::idde::ld_notice::render(
        &state.snapshot.current(),
        &state.profile.current(),
        &facts,
        case.as_ref(),
    )
    .map_err(|e| HttpError::BadRequest(e.to_string()))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::HeaderName::from_static("x-open-facts"),
                HeaderValue::from(n.open_facts.len()),
            ),
        ],
        n.html,
    )
        .into_response())
}

pub(super) async fn deadlines(
    State(state): State<AppState>,
    Params(p): Params<AsOf>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let set = cases_of(&state.snapshot.current());
    let profile = state.profile.current();
    let a = all_deadlines(
        &set.cases,
        &profile.idde,
        &profile.id,
        as_of,
        !p.all.unwrap_or(false),
    );
    Ok(Json(serde_json::to_value(a).unwrap_or_default()))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct ReportParams {
    /// The reporting year.
    year: Option<i32>,
    /// `json` (default) or `csv`.
    format: Option<String>,
    /// The record as it stood at (`YYYY-MM-DD` or `YYYY-MM-DDTHH:MM`, UTC; default now):
    /// a year not yet over counts the fines accrued up to then.
    as_of: Option<String>,
}

pub(super) async fn report(
    State(state): State<AppState>,
    Params(p): Params<ReportParams>,
) -> Result<Response, HttpError> {
    let year = p
        .year
        .ok_or_else(|| HttpError::field("year", "give the reporting year, e.g. year=2026"))?;
    if !(1900..=2200).contains(&year) {
        return Err(HttpError::BadRequest(format!(
            "year: {year} is not a reporting year"
        )));
    }
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let r = with_ask(&state, move |ask| {
        let overdue = crate::answer::schedule::overdue_for_report(ask, year, as_of);
        let set = cases_of(ask.snap);
        crate::idde::report::annual_report(ask.snap, ask.profile, &set.cases, year, as_of, &overdue)
    })
    .await?
    .ok_or_else(|| HttpError::Internal("the profile's reporting year start is not a date"))?;
    match p.format.as_deref() {
        None | Some("json") => {
            Ok(Json(serde_json::to_value(r).unwrap_or_default()).into_response())
        }
        Some("csv") => Ok((
            [(header::CONTENT_TYPE, "text/csv; charset=utf-8")],
            crate::idde::report::to_csv(&r),
        )
            .into_response()),
        Some(other) => Err(HttpError::BadRequest(format!(
            "format: {other:?} is not json or csv"
        ))),
    }
}
