//! The registry's answers under `/api`: the same JSON as the CLI's `--format json`.
//!
//! Every route takes the CLI verb's parameters under the flags' names (`-` read as `_`),
//! from the query string or, for POST, a JSON body, and answers with the value the CLI
//! prints. Wrong parameters are a 400 naming the parameter, unknown ids a 404.

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::{header, request::Parts, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::de::DeserializeOwned;

use super::{AppState, HttpError};
use crate::answer::{self, Ask, AskError};
use crate::answer::{
    determine::{DetermineParams, ReceivingParams, ScreenParams},
    illicit::IllicitParams,
    nearby::NearbyParams,
    smps::SmpsParams,
    trace::{NetworkCheckParams, TraceParams},
    watershed::WatershedParams,
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

/// Query parameters, refused with a 400 that names the parameter at fault.
struct Params<T>(T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Params<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, HttpError> {
        Query::<T>::try_from_uri(&parts.uri)
            .map(|q| Params(q.0))
            .map_err(|e| HttpError::BadRequest(deserialize_message(&e.body_text())))
    }
}

/// A JSON body, whatever its content type says, refused with a 400 that names the field
/// at fault (or a 413 when it is over the server's body limit).
pub(super) struct Body<T>(pub(super) T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = HttpError;

    async fn from_request(req: Request, state: &S) -> Result<Self, HttpError> {
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                HttpError::PayloadTooLarge(format!("body: {}", e.body_text()))
            } else {
                HttpError::BadRequest(format!("body: {}", e.body_text()))
            }
        })?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(HttpError::BadRequest(
                "body: empty; send the question as a JSON object".into(),
            ));
        }
        Json::<T>::from_bytes(&bytes)
            .map(|Json(v)| Body(v))
            .map_err(|e: JsonRejection| HttpError::BadRequest(body_message(&e)))
    }
}

/// A rejected query string or body, said as `parameter: problem`.
fn deserialize_message(text: &str) -> String {
    const PREFIXES: [&str; 3] = [
        "Failed to deserialize query string: ",
        "Failed to deserialize the JSON body into the target type: ",
        "Failed to parse the request body as JSON: ",
    ];
    let mut m = text;
    for p in PREFIXES {
        if let Some(rest) = m.strip_prefix(p) {
            m = rest;
        }
    }
    let named = |rest: &str| {
        rest.split_once('`')
            .map(|(name, tail)| (name.to_string(), tail.to_string()))
    };
    if let Some((name, tail)) = m.strip_prefix("missing field `").and_then(named) {
        return format!("{name}: is required{}", at_position(&tail));
    }
    // serde_path_to_error may already have put the field's name in front.
    if let Some(i) = m.find("unknown field `") {
        if let Some((name, tail)) = named(&m[i + "unknown field `".len()..]) {
            let tail = tail.trim_start_matches(", ").replace('`', "");
            let tail = tail.replace("there are no fields", "this question takes none");
            return format!("{name}: unknown parameter; {tail}");
        }
    }
    m.to_string()
}

/// What follows a serde message's field name: a JSON position, kept; anything else dropped.
fn at_position(tail: &str) -> String {
    match tail.find(" at line ") {
        Some(i) => tail[i..].to_string(),
        None => String::new(),
    }
}

fn body_message(e: &JsonRejection) -> String {
    let m = deserialize_message(&e.body_text());
    match e {
        // A syntax error has no field to name: say it is the body.
        JsonRejection::JsonSyntaxError(_) => format!("body: not JSON: {m}"),
        _ if m.contains(": ") => m,
        _ => format!("body: {m}"),
    }
}

fn path_param(p: Result<Path<String>, PathRejection>, name: &str) -> Result<String, HttpError> {
    p.map(|Path(v)| v)
        .map_err(|e| HttpError::BadRequest(format!("{name}: {}", e.body_text())))
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
    let snap = state.snapshot.current();
    let bytes = tokio::task::spawn_blocking(move || {
        let profile = &*state.profile;
        let networks = &state.networks;
        let source = || networks.get_or_build(&snap, |s| Ok(answer::build_network(s, profile)));
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
    let a = answer::nearby::nearby(&Ask::new(&snap, &state.profile), &p)?;
    Ok(json_bytes(answer::to_json(&a)?))
}

async fn watershed_facilities(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<WatershedParams>,
) -> Result<Response, HttpError> {
    p.watershed_id = Some(path_param(id, "id")?);
    blocking(state, move |ask| {
        answer::to_json(&answer::watershed::watershed_facilities(ask, &p, None)?)
    })
    .await
}

async fn watershed_facilities_in_polygon(
    State(state): State<AppState>,
    id: Result<Path<String>, PathRejection>,
    Params(mut p): Params<WatershedParams>,
    Body(polygon): Body<serde_json::Value>,
) -> Result<Response, HttpError> {
    p.watershed_id = Some(path_param(id, "id")?);
    blocking(state, move |ask| {
        let area = answer::place::footprint_from_value(polygon, ask.snap.meta.srid, "polygon")?;
        answer::to_json(&answer::watershed::watershed_facilities(
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
    Params(p): Params<ReceivingParams>,
) -> Result<Response, HttpError> {
    blocking(state, move |ask| {
        answer::to_json(&answer::determine::receiving_waters(ask, &p)?)
    })
    .await
}

async fn receiving_waters_of_footprint(
    State(state): State<AppState>,
    Body(p): Body<ReceivingParams>,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejections_are_said_by_parameter() {
        assert_eq!(
            deserialize_message(
                "Failed to deserialize query string: k: invalid digit found in string"
            ),
            "k: invalid digit found in string"
        );
        assert_eq!(
            deserialize_message("Failed to deserialize query string: missing field `disturbed`"),
            "disturbed: is required"
        );
        assert_eq!(
            deserialize_message(
                "Failed to deserialize the JSON body into the target type: missing field `disturbed` at line 1 column 2"
            ),
            "disturbed: is required at line 1 column 2"
        );
        assert_eq!(
            deserialize_message("Failed to deserialize query string: kind: unknown field `kind`, expected one of `lon`, `kinds`"),
            "kind: unknown parameter; expected one of lon, kinds"
        );
        assert_eq!(
            deserialize_message(
                "Failed to deserialize query string: x: unknown field `x`, there are no fields"
            ),
            "x: unknown parameter; this question takes none"
        );
    }
}
