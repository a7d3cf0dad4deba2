//! The illicit discharge programme over HTTP: cases (`/api/cases`), their actions,
//! closing and notices; the deadlines and fines computed for them (`/api/deadlines`);
//! and the annual report (`/api/report`). Inspection photos are in [`super::photos`].
//!
//! Case writes in one server go one at a time (a lock held across the read, the check
//! and the write), so two actions posted at once cannot overwrite each other's log. A new
//! case's id is allocated inside its write's transaction, under the store's write lock,
//! so cases opened at once by this server and by other processes (`ms4 case open`, a
//! second server) get distinct ids.

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use chrono::{NaiveDate, NaiveDateTime, Utc};
use serde::Deserialize;

use super::extract::{Body, Params};
use super::{AppState, Caller, HttpError};
use crate::answer::{self, Ask};
use crate::domain::Layer;
use crate::idde::case::{close, closing_writes, new_action, next_case_id};
use crate::idde::cases_cache::cases_of;
use crate::idde::deadlines::{all_deadlines, case_deadlines, parse_as_of};
use crate::idde::open::{from_connections, open_case, store_new_case, OpenCase};
use crate::idde::{Action, Case, Closing, FieldError};
use crate::store::{WriteMode, WriteRequest};

static CASE_WRITES: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub(super) fn read_router() -> Router<AppState> {
    Router::new()
        .route("/cases", get(list))
        .route("/cases/{id}", get(one))
        .route("/cases/{id}/notice", get(notice))
        .route("/notices/land-development", post(ld_notice))
        .route("/deadlines", get(deadlines))
        .route("/report", get(report))
}

pub(super) fn write_router() -> Router<AppState> {
    Router::new()
        .route("/cases", post(create))
        .route("/cases/from-connections", post(create_from_connections))
        .route("/cases/{id}/actions", post(add_action))
        .route("/cases/{id}/close", post(close_case))
}

fn field(e: FieldError) -> HttpError {
    HttpError::BadRequest(e.to_string())
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
    .map_err(|e| HttpError::Internal(format!("the answer failed: {e}")))
}

async fn write_case(
    state: &AppState,
    caller: &Caller,
    case: &Case,
    what: &str,
) -> Result<(), HttpError> {
    write_layer(state, caller, Layer::Cases, vec![case.to_feature()], what).await
}

async fn write_layer(
    state: &AppState,
    caller: &Caller,
    layer: Layer,
    features: Vec<crate::domain::Feature>,
    what: &str,
) -> Result<(), HttpError> {
    state
        .snapshot
        .write(
            state.store.as_ref(),
            WriteRequest {
                layer,
                mode: WriteMode::Upsert,
                actor: caller.subject.clone(),
                source: "api".into(),
            },
            features,
            serde_json::json!({ "source": what }),
        )
        .await?;
    Ok(())
}

fn find_case(state: &AppState, id: &str) -> Result<Case, HttpError> {
    let snap = state.snapshot.current();
    let f = snap
        .layer(Layer::Cases)
        .get(id)
        .ok_or_else(|| HttpError::NotFound(format!("case {id:?}: no such case")))?;
    Case::from_feature(f).map_err(HttpError::Internal)
}

fn case_json(state: &AppState, c: &Case, as_of: NaiveDateTime) -> serde_json::Value {
    let mut v = serde_json::to_value(c).unwrap_or_default();
    v["deadlines"] = serde_json::to_value(case_deadlines(c, &state.profile.current().idde, as_of))
        .unwrap_or_default();
    v
}

fn now() -> NaiveDateTime {
    Utc::now().naive_utc()
}

async fn open_one(state: &AppState, caller: &Caller, req: OpenCase) -> Result<Case, HttpError> {
    let _one_at_a_time = CASE_WRITES.lock().await;
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
    let opens = matches!(
        inspection["characterisation"].as_str(),
        Some("suspect" | "obvious")
    );
    if !opens || inspection["kind"] != "dry_weather_screening" {
        return Ok(None);
    }
    let asset = inspection["asset_id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let set = cases_of(&state.snapshot.current());
    if let Some(c) = set
        .cases
        .iter()
        .find(|c| c.is_open() && c.asset_id.as_deref() == Some(&asset))
    {
        return Ok(Some(
            serde_json::json!({"case_id": c.case_id, "opened": false}),
        ));
    }
    let on = inspection["inspected_on"]
        .as_str()
        .and_then(crate::domain::feature::parse_date)
        .unwrap_or_else(today);
    let req = OpenCase {
        origin: "screening".into(),
        opened_on: on,
        description: Some(format!(
            "dry-weather screening characterised {}",
            inspection["characterisation"].as_str().unwrap_or_default()
        )),
        asset_id: Some(asset),
        inspection_id: inspection["inspection_id"].as_str().map(str::to_string),
        ..Default::default()
    };
    let case = open_one(state, caller, req).await?;
    Ok(Some(
        serde_json::json!({"case_id": case.case_id, "opened": true, "candidates": case.candidates}),
    ))
}

async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Body(req): Body<OpenCase>,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let case = open_one(&state, &caller, req).await?;
    Ok((StatusCode::CREATED, Json(case_json(&state, &case, now()))))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FromConnections {
    opened_on: NaiveDate,
}

async fn create_from_connections(
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

async fn add_action(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    Body(a): Body<Action>,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let _one_at_a_time = CASE_WRITES.lock().await;
    let mut case = find_case(&state, &id)?;
    let offices = state.profile.current().idde.offices.clone();
    let a = new_action(&case, a, &offices, &caller.subject, today()).map_err(field)?;
    if let Some(c) = &a.connection_id {
        if state
            .snapshot
            .current()
            .layer(Layer::Connections)
            .get(c)
            .is_none()
        {
            return Err(HttpError::BadRequest(format!(
                "connection_id: no connection has id {c:?}"
            )));
        }
    }
    case.actions.push(a);
    write_case(&state, &caller, &case, "POST /api/cases/{id}/actions").await?;
    Ok((StatusCode::CREATED, Json(case_json(&state, &case, now()))))
}

async fn close_case(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
    Body(c): Body<Closing>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let _one_at_a_time = CASE_WRITES.lock().await;
    let case = find_case(&state, &id)?;
    let snap = state.snapshot.current();
    let offices = state.profile.current().idde.offices.clone();
    let (closed, connection) =
        close(&snap, &case, &c, &offices, &caller.subject, today()).map_err(field)?;
    // The case and its connection's new status in one transaction: a case says
    // eliminated only with the connection's record saying so, and neither without the
    // other.
    let writes = closing_writes(
        &closed,
        connection,
        &caller.subject,
        "api",
        "POST /api/cases/{id}/close",
    );
    state
        .snapshot
        .write_layers(state.store.as_ref(), writes)
        .await?;
    Ok(Json(case_json(&state, &closed, now())))
}

#[derive(Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(super) struct ListParams {
    /// `open` or `closed` (default: both).
    status: Option<String>,
}

async fn list(
    State(state): State<AppState>,
    Params(p): Params<ListParams>,
) -> Result<Json<serde_json::Value>, HttpError> {
    if let Some(s) = p.status.as_deref() {
        if s != "open" && s != "closed" {
            return Err(HttpError::BadRequest(format!(
                "status: {s:?} is not open or closed"
            )));
        }
    }
    let set = cases_of(&state.snapshot.current());
    let unreadable = &set.unreadable;
    let shown: Vec<&Case> = set
        .cases
        .iter()
        .filter(|c| p.status.as_deref().is_none_or(|s| c.status == s))
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

async fn one(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(p): Params<AsOf>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let c = find_case(&state, &id)?;
    Ok(Json(case_json(&state, &c, as_of)))
}

async fn notice(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Params(p): Params<AsOf>,
) -> Result<Response, HttpError> {
    let as_of = parse_as_of(p.as_of.as_deref()).map_err(HttpError::BadRequest)?;
    let c = find_case(&state, &id)?;
    let profile = state.profile.current();
    let d = case_deadlines(&c, &profile.idde, as_of);
    let html = crate::idde::notice::render(&state.snapshot.current(), &profile, &c, &d);
    Ok(([(header::CONTENT_TYPE, "text/html; charset=utf-8")], html).into_response())
}

/// `POST /api/notices/land-development`: the land development notice of violation (North
/// Castle ch. 267 Part 1 C(1), Carmel § 156-88A) as printable HTML, from the facts in
/// the body and the case it names. It writes nothing, so any reader may ask. The print
/// view is the paper form: no PDF is made (no maintained Rust crate lays out HTML as
/// PDF well); print the page, the open facts are left off the printout. The facts the
/// record lacks are in the `x-open-facts` header (a count) and listed on the page. A
/// town whose law has no such notice answers 400 saying so.
async fn ld_notice(
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

async fn deadlines(
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
}

async fn report(
    State(state): State<AppState>,
    Params(p): Params<ReportParams>,
) -> Result<Response, HttpError> {
    let year = p.year.ok_or_else(|| {
        HttpError::BadRequest("year: give the reporting year, e.g. year=2026".into())
    })?;
    if !(1900..=2200).contains(&year) {
        return Err(HttpError::BadRequest(format!(
            "year: {year} is not a reporting year"
        )));
    }
    let snap = state.snapshot.current();
    let set = cases_of(&snap);
    let r = crate::idde::report::annual_report(&snap, &state.profile.current(), &set.cases, year)
        .ok_or_else(|| {
        HttpError::Internal("the profile's reporting year start is not a date".into())
    })?;
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
