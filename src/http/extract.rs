//! Reading a request's parameters and body, refused with a 400 that names the parameter
//! or field at fault (or a 413 over the body limit): every route reads through these.

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::HttpError;

/// Query parameters, refused with a 400 that names the parameter at fault.
pub(super) struct Params<T>(pub(super) T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Params<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, HttpError> {
        let query = parts.uri.query().unwrap_or_default();
        let de = serde_urlencoded::Deserializer::new(url::form_urlencoded::parse(query.as_bytes()));
        serde_path_to_error::deserialize(de)
            .map(Params)
            .map_err(|e| {
                let (path, inner) = (e.path().clone(), e.into_inner());
                field_error(&path, &inner.to_string())
                    .unwrap_or_else(|| HttpError::BadRequest(inner.to_string()))
            })
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
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let (path, inner) = (e.path().clone(), e.into_inner());
            if inner.is_data() {
                field_error(&path, &inner.to_string()).unwrap_or_else(|| whole_body(&inner))
            } else {
                HttpError::BadRequest(format!("body: not JSON: {inner}"))
            }
        })?;
        de.end()
            .map_err(|e| HttpError::BadRequest(format!("body: not JSON: {e}")))?;
        Ok(Body(value))
    }
}

/// A value serde refused, as the field at fault (its path into the request, taken from
/// [`serde_path_to_error`]) and the problem, or `None` when the problem is the whole
/// request's (a body that is no object).
///
/// A missing field, and one given twice, are the cases the path does not name: serde
/// reports them at the object that lacks (or repeats) it, and the error types of
/// serde_json and serde_urlencoded carry the name only in their message (`missing field
/// `x``, `duplicate field `x``), the one wording read here.
fn field_error(path: &serde_path_to_error::Path, serde_says: &str) -> Option<HttpError> {
    let at = if path.iter().next().is_some() {
        Some(path.to_string())
    } else {
        None
    };
    let within = |name: &str| match &at {
        Some(parent) => format!("{parent}.{name}"),
        None => name.to_string(),
    };
    let named = |prefix: &str| {
        serde_says
            .strip_prefix(prefix)
            .and_then(|r| r.split_once('`'))
    };
    if let Some((name, tail)) = named("missing field `") {
        let message = format!("is required{}", at_position(tail));
        return Some(HttpError::field(within(name), message));
    }
    if let Some((name, _)) = named("duplicate field `") {
        return Some(HttpError::field(within(name), "given more than once"));
    }
    let field = at?;
    let message = match serde_says.strip_prefix("unknown field `") {
        Some(rest) => {
            let expected = rest.split_once("`, ").map_or("", |(_, t)| t);
            let expected = expected
                .replace('`', "")
                .replace("there are no fields", "this question takes none");
            format!("unknown parameter; {expected}")
        }
        None => serde_says.to_string(),
    };
    Some(HttpError::field(field, message))
}

/// A body refused as a whole. A type whose own `Deserialize` reads its fields through
/// another deserializer says the field only in its message (`agricultural: 7 is not true
/// or false`): that message is kept as it is, with no `field`; any other is the body's.
fn whole_body(inner: &serde_json::Error) -> HttpError {
    let m = inner.to_string();
    let named = m
        .split_once(": ")
        .is_some_and(|(name, _)| !name.is_empty() && !name.contains(' '));
    HttpError::BadRequest(if named { m } else { format!("body: {m}") })
}

/// What follows a serde message's field name: a JSON position, kept; anything else dropped.
fn at_position(tail: &str) -> String {
    match tail.find(" at line ") {
        Some(i) => tail[i..].to_string(),
        None => String::new(),
    }
}

pub(super) fn path_param(
    p: Result<Path<String>, PathRejection>,
    name: &str,
) -> Result<String, HttpError> {
    p.map(|Path(v)| v)
        .map_err(|e| HttpError::field(name, e.body_text()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_json_media_types_are_read_as_json() {
        for ct in [
            "application/json",
            "application/json; charset=utf-8",
            "Application/JSON",
            "application/geo+json",
        ] {
            assert!(is_json_media(ct), "{ct}");
        }
        for ct in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "text/json+x",
            "",
        ] {
            assert!(!is_json_media(ct), "{ct}");
        }
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Q {
        disturbed: String,
        k: Option<u32>,
        kinds: Option<String>,
    }

    fn query(q: &str) -> HttpError {
        let de = serde_urlencoded::Deserializer::new(url::form_urlencoded::parse(q.as_bytes()));
        let e = serde_path_to_error::deserialize::<_, Q>(de).unwrap_err();
        let (path, inner) = (e.path().clone(), e.into_inner());
        field_error(&path, &inner.to_string()).expect("a field")
    }

    #[rstest::rstest]
    #[case::bad_value("disturbed=1&k=abc", "k", "k: invalid digit found in string")]
    #[case::missing("k=1", "disturbed", "disturbed: is required")]
    #[case::unknown(
        "disturbed=1&kind=x",
        "kind",
        "kind: unknown parameter; expected one of disturbed, k, kinds"
    )]
    #[case::twice("disturbed=1&k=1&k=2", "k", "k: given more than once")]
    fn a_refused_parameter_is_named_as_data(
        #[case] q: &str,
        #[case] field: &str,
        #[case] said: &str,
    ) {
        let e = query(q);
        assert_eq!(e.field_name(), Some(field), "{e}");
        assert_eq!(e.to_string(), said);
    }
}
