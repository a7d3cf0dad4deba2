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

/// Refuses a date in year 0 or before: chrono reads `0000-01-01` and `-0001-01-01`, but
/// no record of this registry can be that old, and other programs reading the store
/// (GeoPackage readers, PostgreSQL's `date`) treat such years differently.
pub(super) fn plausible_date(field: &str, date: chrono::NaiveDate) -> Result<(), HttpError> {
    use chrono::Datelike;
    if date.year() < 1 {
        return Err(HttpError::BadRequest(format!(
            "{field}: {date} is in year {} (before year 1); give the real date, YYYY-MM-DD",
            date.year()
        )));
    }
    Ok(())
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
