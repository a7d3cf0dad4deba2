//! Reading a request's parameters and body, refused with a 400 that names the parameter
//! or field at fault (or a 413 over the body limit): every route reads through these.

use axum::body::Bytes;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use axum::Json;
use serde::de::DeserializeOwned;

use super::HttpError;

/// Query parameters, refused with a 400 that names the parameter at fault.
pub(super) struct Params<T>(pub(super) T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Params<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, HttpError> {
        Query::<T>::try_from_uri(&parts.uri)
            .map(|q| Params(q.0))
            .map_err(|e| HttpError::BadRequest(deserialize_message(&e.body_text())))
    }
}

/// A JSON body, refused with a 400 that names the field at fault, a 413 when it is over
/// the server's body limit, or a 415 when its `Content-Type` names another media type.
/// A body sent without a `Content-Type` is read as JSON (a command-line client's habit);
/// one labelled `text/plain` or as a form is not, since that is what a page of another
/// site can send without asking first.
pub(super) struct Body<T>(pub(super) T);

/// Whether a `Content-Type` names JSON: `application/json` or any `+json` type
/// (`application/geo+json`), with any parameters.
pub(super) fn is_json_media(content_type: &str) -> bool {
    let essence = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = HttpError;

    async fn from_request(req: Request, state: &S) -> Result<Self, HttpError> {
        if let Some(ct) = req.headers().get(axum::http::header::CONTENT_TYPE) {
            let ct = ct.to_str().unwrap_or("(not text)");
            if !is_json_media(ct) {
                return Err(HttpError::UnsupportedMediaType(format!(
                    "Content-Type: {ct:?} is not JSON; send the body as application/json"
                )));
            }
        }
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
    if let Some((name, _)) = m
        .strip_prefix("duplicate field `")
        .and_then(|r| r.split_once('`'))
    {
        return format!("{name}: given more than once");
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
        // `name: problem`, where the name is a field or a path into the body (`a.b[0]`).
        _ if m
            .split_once(": ")
            .is_some_and(|(name, _)| !name.is_empty() && !name.contains(' ')) =>
        {
            m
        }
        _ => format!("body: {m}"),
    }
}

/// Refuses a day a record cannot carry: before 1900 (chrono reads `0000-01-01` and
/// `-0001-01-01`, which other programs reading the store treat differently, and a year-1
/// day is a typing error) or after `today` (see [`crate::domain::text::past_day_problem`]).
pub(super) fn plausible_date(
    field: &str,
    date: chrono::NaiveDate,
    today: chrono::NaiveDate,
) -> Result<(), HttpError> {
    match crate::domain::text::past_day_problem(date, today) {
        Some(why) => Err(HttpError::BadRequest(format!("{field}: {why}"))),
        None => Ok(()),
    }
}

pub(super) fn path_param(
    p: Result<Path<String>, PathRejection>,
    name: &str,
) -> Result<String, HttpError> {
    p.map(|Path(v)| v)
        .map_err(|e| HttpError::BadRequest(format!("{name}: {}", e.body_text())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_media_types_are_read_as_json() {
        for ct in ["application/json", "application/json; charset=utf-8", "Application/JSON", "application/geo+json"] {
            assert!(is_json_media(ct), "{ct}");
        }
        for ct in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/json+x", ""] {
            assert!(!is_json_media(ct), "{ct}");
        }
    }

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
