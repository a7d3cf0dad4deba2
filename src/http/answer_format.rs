//! Which form an `/api` answer is asked in: JSON, or GeoJSON with `f=geojson` or
//! `Accept: application/geo+json`.
//!
//! Read once at the edge, before the answer's own parameters: `f` is taken out of the
//! query (the parameters refuse names they do not know) and the choice rides on the
//! request for the handler, which renders the one answer it computed in that form.

use axum::extract::Request;
use axum::http::{header, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::HttpError;

/// The form an answer is sent in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum AnswerFormat {
    /// The answer's JSON, as the CLI's `--format json` prints it.
    #[default]
    Json,
    /// A FeatureCollection of the places the answer names, in CRS84.
    GeoJson,
}

/// The form asked for; strips `f` from the query so the answer's own parameters are read
/// as always. `f` other than `json` or `geojson` is a 400 naming it.
fn asked(req: &mut Request) -> Result<AnswerFormat, HttpError> {
    let accept = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("application/geo+json"));
    let by_accept = if accept {
        AnswerFormat::GeoJson
    } else {
        AnswerFormat::Json
    };
    let Some(q) = req.uri().query() else {
        return Ok(by_accept);
    };
    let mut f = None;
    let kept: Vec<&str> = q
        .split('&')
        .filter(|kv| match kv.strip_prefix("f=") {
            Some(v) => {
                f = Some(v.to_string());
                false
            }
            None => true,
        })
        .collect();
    let Some(f) = f else { return Ok(by_accept) };
    let format = match f.as_str() {
        "geojson" => AnswerFormat::GeoJson,
        "json" => AnswerFormat::Json,
        other => {
            return Err(HttpError::BadRequest(format!(
                "f: {other:?} is not a format; expected json or geojson"
            )))
        }
    };
    let path = req.uri().path().to_string();
    let pq = if kept.is_empty() {
        path
    } else {
        format!("{path}?{}", kept.join("&"))
    };
    let mut parts = req.uri().clone().into_parts();
    parts.path_and_query = Some(
        pq.parse()
            .map_err(|_| HttpError::BadRequest("bad query".into()))?,
    );
    *req.uri_mut() =
        Uri::from_parts(parts).map_err(|_| HttpError::BadRequest("bad query".into()))?;
    Ok(format)
}

/// Middleware on the `/api` answers: records the form asked for as a request extension.
pub(super) async fn read(mut req: Request, next: Next) -> Response {
    match asked(&mut req) {
        Ok(format) => {
            req.extensions_mut().insert(format);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}
