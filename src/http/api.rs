//! The registry's answers under `/api`: the same JSON as the CLI's `--format json`.
//!
//! Every route takes the CLI verb's parameters under the flags' names (`-` read as `_`),
//! from the query string or, for POST, a JSON body, and answers with the value the CLI
//! prints. Wrong parameters are a 400 naming the parameter, unknown ids a 404. Asked
//! for GeoJSON ([`AnswerFormat`]), the same answer comes as the places it names.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Extension;

use super::answer_format::AnswerFormat;
use super::extract::{path_param, Body, Params};
use super::{AppState, HttpError};
use crate::answer::places::{feature_collection, Places};
use crate::answer::{self, Ask, AskError};
use crate::answer::{
    determine::{DetermineParams, ReceivingWatersParams, ScreenParams},
    illicit::IllicitParams,
    mapping::{MappingStatusParams, MonitoringLocationsParams, SewershedsParams},
    nearby::NearbyParams,
    smps::SmpsParams,
    trace::{NetworkCheckParams, TraceParams},
    watershed_facilities::WatershedFacilitiesParams,
};

impl From<AskError> for HttpError {
    fn from(e: AskError) -> Self {
        match e {
            AskError::Invalid { param, message } => HttpError::field(param, message),
            AskError::BadRequest(m) => HttpError::BadRequest(m),
            AskError::NotFound(m) => HttpError::NotFound(m),
            AskError::Other(e) => HttpError::Internal(e),
        }
    }
}

/// An answer serialized in the form asked for, with its media type.
struct Rendered {
    bytes: Vec<u8>,
    media_type: &'static str,
}

impl Rendered {
    /// The answer as JSON, or as GeoJSON of its places drawn from `ask`'s snapshot.
    fn of<A: Places>(ask: &Ask<'_>, answer: &A, format: AnswerFormat) -> Result<Self, AskError> {
        Ok(match format {
            AnswerFormat::Json => Rendered {
                bytes: answer::to_json(answer)?,
                media_type: "application/json",
            },
            AnswerFormat::GeoJson => Rendered {
                bytes: answer::to_json(&feature_collection(ask.snap, answer)?)?,
                media_type: "application/geo+json",
            },
        })
    }
}

impl IntoResponse for Rendered {
    fn into_response(self) -> Response {
        (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static(self.media_type),
            )],
            self.bytes,
        )
            .into_response()
    }
}

/// Answers on a blocking thread, with the network from the shared cache: for questions
/// that walk every connection or parcel, or need the network built.
async fn blocking<A: Places>(
    state: AppState,
    format: AnswerFormat,
    question: impl FnOnce(&Ask<'_>) -> Result<A, AskError> + Send + 'static,
) -> Result<Response, HttpError> {
    // While an upload's new network is built, the snapshot before it (and its network).
    let (snap, ready) = state.networks.consistent(state.snapshot.current());
    let rendered = tokio::task::spawn_blocking(move || {
        let profile_now = state.profile.current();
        let profile = &*profile_now;
        let networks = &state.networks;
        let source = || match &ready {
            Some(net) => Ok(net.clone()),
            None => networks.get_or_build(&snap, |s| Ok(answer::build_network(s, profile))),
        };
        let ask = Ask::new(&snap, profile).with_network(&source);
        Rendered::of(&ask, &question(&ask)?, format)
    })
    .await
    .map_err(|e| HttpError::Internal(format!("the answer failed: {e}")))??;
    Ok(rendered.into_response())
}

pub(super) async fn nearby(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<NearbyParams>,
) -> Result<Response, HttpError> {
    // Inline, not on a blocking thread: a nearby answer takes microseconds.
    let snap = state.snapshot.current();
    let profile = state.profile.current();
    let ask = Ask::new(&snap, &profile);
    let a = answer::nearby::nearby(&ask, &p)?;
    Ok(Rendered::of(&ask, &a, format)?.into_response())
}

pub(super) async fn watershed_facilities(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<WatershedFacilitiesParams>,
) -> Result<Response, HttpError> {
    p.watershed_id = Some(path_param(id, "id")?);
    blocking(state, format, move |ask| {
        answer::watershed_facilities::watershed_facilities(ask, &p, None)
    })
    .await
}

pub(super) async fn watershed_facilities_in_polygon(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<WatershedFacilitiesParams>,
    Body(polygon): Body<serde_json::Value>,
) -> Result<Response, HttpError> {
    p.watershed_id = Some(path_param(id, "id")?);
    blocking(state, format, move |ask| {
        let area = answer::place::footprint_from_value(&polygon, ask.snap.meta.srid, "polygon")?;
        answer::watershed_facilities::watershed_facilities(ask, &p, Some(area))
    })
    .await
}

pub(super) async fn trace(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    asset_id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<TraceParams>,
) -> Result<Response, HttpError> {
    p.asset_id = path_param(asset_id, "asset_id")?;
    // Refuse a bad direction before building the network for it.
    p.direction()?;
    blocking(state, format, move |ask| answer::trace::trace(ask, &p)).await
}

pub(super) async fn illicit(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<IllicitParams>,
) -> Result<Response, HttpError> {
    answer::illicit::wanted_statuses(&p.status)?;
    blocking(state, format, move |ask| answer::illicit::illicit(ask, &p)).await
}

pub(super) async fn smps_without_easement(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<SmpsParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| {
        answer::smps::smps_without_easement(ask, &p)
    })
    .await
}

pub(super) async fn network_check(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<NetworkCheckParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| {
        answer::trace::network_check(ask, &p)
    })
    .await
}

pub(super) async fn receiving_waters(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<ReceivingWatersParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| {
        answer::determine::receiving_waters(ask, &p)
    })
    .await
}

pub(super) async fn receiving_waters_of_footprint(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Body(p): Body<ReceivingWatersParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| {
        answer::determine::receiving_waters(ask, &p)
    })
    .await
}

pub(super) async fn determinations(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Body(body): Body<serde_json::Map<String, serde_json::Value>>,
) -> Result<Response, HttpError> {
    // Read here rather than by the extractor, so a fact's error keeps its path as data.
    let p = DetermineParams::from_body(body)?;
    blocking(state, format, move |ask| {
        answer::determine::determine(ask, &p)
    })
    .await
}

pub(super) async fn screen(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<ScreenParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| answer::determine::screen(ask, &p)).await
}

pub(super) async fn monitoring_locations(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<MonitoringLocationsParams>,
) -> Result<Response, HttpError> {
    p.check()?;
    blocking(state, format, move |ask| {
        answer::mapping::monitoring_locations(ask, &p)
    })
    .await
}

pub(super) async fn inspections_due(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<crate::answer::schedule::InspectionsDueParams>,
) -> Result<Response, HttpError> {
    p.check()?;
    blocking(state, format, move |ask| {
        answer::schedule::inspections_due(ask, &p)
    })
    .await
}

pub(super) async fn calendar(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<crate::answer::calendar::CalendarParams>,
) -> Result<Response, HttpError> {
    p.day(chrono::NaiveDate::MIN)?;
    blocking(state, format, move |ask| {
        answer::calendar::calendar(ask, &p)
    })
    .await
}

pub(super) async fn sewersheds(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<SewershedsParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| {
        answer::mapping::sewersheds(ask, &p)
    })
    .await
}

pub(super) async fn mapping_status(
    State(state): State<AppState>,
    Extension(format): Extension<AnswerFormat>,
    Params(p): Params<MappingStatusParams>,
) -> Result<Response, HttpError> {
    blocking(state, format, move |ask| {
        answer::mapping::mapping_status(ask, &p)
    })
    .await
}
