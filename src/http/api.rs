//! The registry's answers under `/api`: the same JSON as the CLI's `--format json`.
//!
//! Every route takes the CLI verb's parameters under the flags' names (`-` read as `_`),
//! from the query string or, for POST, a JSON body, and answers with the value the CLI
//! prints. Wrong parameters are a 400 naming the parameter, unknown ids a 404.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;

use super::extract::{path_param, Body, Params};
use super::{AppState, HttpError};
use crate::answer::{self, Ask, AskError};
use crate::answer::{
    determine::{DetermineParams, ReceivingWatersParams, ScreenParams},
    illicit::IllicitParams,
    nearby::NearbyParams,
    smps::SmpsParams,
    trace::{NetworkCheckParams, TraceParams},
    watershed_facilities::WatershedFacilitiesParams,
};

/// The `/api` answer routes (nested under `/api` by [`super::app`]).
pub(super) fn router() -> Router<AppState> {
    Router::new()
        .route("/nearby", get(nearby))
        .route(
            "/watersheds/{id}/facilities",
            get(watershed_facilities).post(watershed_facilities_in_polygon),
        )
        .route("/trace/{asset_id}", get(trace))
        .route("/illicit", get(illicit))
        .route("/smps-without-easement", get(smps_without_easement))
        .route("/network-check", get(network_check))
        .route(
            "/receiving-waters",
            get(receiving_waters).post(receiving_waters_of_footprint),
        )
        .route("/determinations", post(determinations))
        .route("/screen", get(screen))
}

impl From<AskError> for HttpError {
    fn from(e: AskError) -> Self {
        match e {
            AskError::Invalid { .. } | AskError::BadRequest(_) => {
                HttpError::BadRequest(e.to_string())
            }
            AskError::NotFound(m) => HttpError::NotFound(m),
            AskError::Other(e) => HttpError::Internal(format!("{e:#}")),
        }
    }
}

/// An answer already serialized, sent as JSON.
fn json_bytes(bytes: Vec<u8>) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        bytes,
    )
        .into_response()
}

/// Answers on a blocking thread, with the network from the shared cache: for questions
/// that walk every connection or parcel, or need the network built.
async fn blocking(
    state: AppState,
    question: impl FnOnce(&Ask<'_>) -> Result<Vec<u8>, AskError> + Send + 'static,
) -> Result<Response, HttpError> {
    // While an upload's new network is built, the snapshot before it (and its network).
    let (snap, ready) = state.networks.consistent(state.snapshot.current());
    let bytes = tokio::task::spawn_blocking(move || {
        let profile_now = state.profile.current();
        let profile = &*profile_now;
        let networks = &state.networks;
        let source = || match &ready {
            Some(net) => Ok(net.clone()),
            None => networks.get_or_build(&snap, |s| Ok(answer::build_network(s, profile))),
        };
        let ask = Ask::new(&snap, profile).with_network(&source);
        question(&ask)
    })
    .await
    .map_err(|e| HttpError::Internal(format!("the answer failed: {e}")))??;
    Ok(json_bytes(bytes))
}

async fn nearby(
    State(state): State<AppState>,
    Params(p): Params<NearbyParams>,
) -> Result<Response, HttpError> {
    // Inline, not on a blocking thread: a nearby answer takes microseconds.
    let snap = state.snapshot.current();
    let a = answer::nearby::nearby(&Ask::new(&snap, &state.profile.current()), &p)?;
    Ok(json_bytes(answer::to_json(&a)?))
}

async fn watershed_facilities(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<WatershedFacilitiesParams>,
) -> Result<Response, HttpError> {
    p.watershed_id = Some(path_param(id, "id")?);
    blocking(state, move |ask| {
        answer::to_json(&answer::watershed_facilities::watershed_facilities(
            ask, &p, None,
        )?)
    })
    .await
}

async fn watershed_facilities_in_polygon(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<WatershedFacilitiesParams>,
    Body(polygon): Body<serde_json::Value>,
) -> Result<Response, HttpError> {
    p.watershed_id = Some(path_param(id, "id")?);
    blocking(state, move |ask| {
        let area = answer::place::footprint_from_value(&polygon, ask.snap.meta.srid, "polygon")?;
        answer::to_json(&answer::watershed_facilities::watershed_facilities(
            ask,
            &p,
            Some(area),
        )?)
    })
    .await
}

async fn trace(
    State(state): State<AppState>,
    asset_id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<TraceParams>,
) -> Result<Response, HttpError> {
    p.asset_id = path_param(asset_id, "asset_id")?;
    // Refuse a bad direction before building the network for it.
    p.direction()?;
    blocking(state, move |ask| {
        answer::to_json(&answer::trace::trace(ask, &p)?)
    })
    .await
}

async fn illicit(
    State(state): State<AppState>,
    Params(p): Params<IllicitParams>,
) -> Result<Response, HttpError> {
    answer::illicit::wanted_statuses(&p.status)?;
    blocking(state, move |ask| {
        answer::to_json(&answer::illicit::illicit(ask, &p)?)
    })
    .await
}

async fn smps_without_easement(
    State(state): State<AppState>,
    Params(p): Params<SmpsParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::smps::smps_without_easement(ask, &p)?)
    })
    .await
}

async fn network_check(
    State(state): State<AppState>,
    Params(p): Params<NetworkCheckParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::trace::network_check(ask, &p)?)
    })
    .await
}

async fn receiving_waters(
    State(state): State<AppState>,
    Params(p): Params<ReceivingWatersParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::determine::receiving_waters(ask, &p)?)
    })
    .await
}

async fn receiving_waters_of_footprint(
    State(state): State<AppState>,
    Body(p): Body<ReceivingWatersParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::determine::receiving_waters(ask, &p)?)
    })
    .await
}

async fn determinations(
    State(state): State<AppState>,
    Body(p): Body<DetermineParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::determine::determine(ask, &p)?)
    })
    .await
}

async fn screen(
    State(state): State<AppState>,
    Params(p): Params<ScreenParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::determine::screen(ask, &p)?)
    })
    .await
}
