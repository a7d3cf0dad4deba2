//! Who is calling: `Authorization: Bearer <token>` (or HTTP Basic with the token as the
//! password) checked against the store's token hashes, and the role each route needs.
//!
//! Reads need any valid token unless the server runs public-read. Writes always check the
//! store, so a revoked token stops writing at once; reads trust a token seen in the last
//! [`READ_CACHE`], so a busy read route does not cost a database round trip per request
//! (a revoked token may go on reading for that long).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;

use super::{AppState, HttpError};
use crate::auth::{hash, Role, TokenRecord};

/// How long a read trusts a token it checked.
pub const READ_CACHE: Duration = Duration::from_secs(2);

/// How long a read waits for the store to recheck a token it has seen before trusting it
/// again (see `check`).
pub const READ_RECHECK: Duration = Duration::from_millis(250);

/// The caller of a request, put in the request's extensions by the access layers.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The token's subject, or `anonymous` on a public-read server.
    pub subject: String,
    /// The token's role; `None` for an anonymous reader.
    pub role: Option<Role>,
}

/// The tokens a server has checked recently.
#[derive(Clone, Default)]
pub struct Auth {
    /// Whether reads need no token.
    pub public_read: bool,
    seen: Arc<Mutex<HashMap<String, (TokenRecord, Instant)>>>,
    /// Hashes of the coalition's tokens (`ms4 serve --coalition-token-file`): accepted
    /// by every member for reads, and for nothing else.
    coalition: Arc<std::collections::HashSet<String>>,
}

impl Auth {
    /// Token checking, with reads open to everyone when `public_read`.
    pub fn new(public_read: bool) -> Self {
        Auth {
            public_read,
            seen: Arc::default(),
            coalition: Arc::default(),
        }
    }

    /// The same, also accepting the coalition's tokens (by their hashes) for reads.
    pub fn with_coalition(mut self, hashes: Arc<std::collections::HashSet<String>>) -> Self {
        self.coalition = hashes;
        self
    }
}

/// The subject a coalition token reads as.
pub const COALITION_SUBJECT: &str = "coalition";

/// What a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Any valid token (none on a public-read server).
    Read,
    /// A token of this role (or admin).
    Role(Role),
}

/// The token a request carries: `Authorization: Bearer <token>`, or HTTP Basic
/// authentication with the token as the password and any user name, because some
/// clients (QGIS's OGC API Features provider among them) can send only Basic. Basic
/// sends the token in the clear like Bearer does: both need TLS in front of the service.
fn bearer(headers: &axum::http::HeaderMap) -> Result<Option<String>, HttpError> {
    let Some(v) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let v = v.to_str().map_err(|_| {
        HttpError::Unauthorized("Authorization: the header is not readable text".into())
    })?;
    match v.trim().split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim().to_string()))
        }
        Some((scheme, creds)) if scheme.eq_ignore_ascii_case("basic") => {
            basic_password(creds.trim()).map(Some)
        }
        _ => Err(HttpError::Unauthorized(
            "Authorization: expected `Bearer <token>`, or Basic with the token as the password"
                .into(),
        )),
    }
}

/// The password of HTTP Basic credentials (`base64(user:password)`, RFC 7617).
fn basic_password(creds: &str) -> Result<String, HttpError> {
    use base64::Engine;
    let bad = |why: &str| HttpError::Unauthorized(format!("Authorization: Basic {why}"));
    let raw = base64::engine::general_purpose::STANDARD
        .decode(creds)
        .map_err(|_| bad("credentials are not base64"))?;
    let text = String::from_utf8(raw).map_err(|_| bad("credentials are not UTF-8 text"))?;
    let (_, password) = text
        .split_once(':')
        .ok_or_else(|| bad("credentials are not user:password"))?;
    if password.trim().is_empty() {
        return Err(bad(
            "credentials have no password: give the token as the password",
        ));
    }
    Ok(password.trim().to_string())
}

async fn check(state: &AppState, token: &str, fresh: bool) -> Result<TokenRecord, HttpError> {
    let h = hash(token);
    let cached = if fresh {
        None
    } else {
        let seen = state.auth.seen.lock().unwrap_or_else(|p| p.into_inner());
        match seen.get(&h) {
            Some((t, at)) if t.unusable(chrono::Utc::now()).is_none() => {
                if at.elapsed() < READ_CACHE {
                    return Ok(t.clone());
                }
                Some(t.clone())
            }
            _ => None,
        }
    };
    let lookup = state.store.token_by_hash(&h);
    let found = match cached {
        None => lookup.await?,
        // A read whose token was checked before goes on while the database is away or
        // slow (the answer comes from the snapshot anyway): the store is asked for at
        // most READ_RECHECK, and the token is trusted for another READ_CACHE if it does
        // not answer. Writes always wait for the store, and get 503 without it.
        Some(t) => match tokio::time::timeout(READ_RECHECK, lookup).await {
            Ok(Ok(found)) => found,
            Ok(Err(e)) if !super::error::unreachable(&e) => return Err(e.into()),
            Ok(Err(_)) | Err(_) => {
                state
                    .auth
                    .seen
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(h, (t.clone(), Instant::now()));
                return Ok(t);
            }
        },
    };
    let t = found.ok_or_else(|| HttpError::Unauthorized("Authorization: unknown token".into()))?;
    if let Some(why) = t.unusable(chrono::Utc::now()) {
        state
            .auth
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&h);
        return Err(HttpError::Unauthorized(format!("Authorization: {why}")));
    }
    state
        .auth
        .seen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(h, (t.clone(), Instant::now()));
    Ok(t)
}

/// Checks the caller (by the request's headers) against `need`, or answers 401/403.
pub async fn admit(
    state: &AppState,
    headers: &axum::http::HeaderMap,
    need: Need,
) -> Result<Caller, HttpError> {
    // The token is copied out first: the request body must not be held across an await.
    let token = bearer(headers)?;
    match (token.as_deref(), need) {
        (None, Need::Read) if state.auth.public_read => Ok(Caller {
            subject: "anonymous".into(),
            role: None,
        }),
        (None, Need::Read) => Err(HttpError::Unauthorized(
            "Authorization: this registry needs a token to read (Authorization: Bearer <token>)"
                .into(),
        )),
        (None, Need::Role(r)) => Err(HttpError::Unauthorized(format!(
            "Authorization: this needs a token with the {r} role (Authorization: Bearer <token>)"
        ))),
        // A coalition token reads every member and writes none: it is no member's own.
        (Some(t), need) if state.auth.coalition.contains(&hash(t)) => match need {
            Need::Read => Ok(Caller {
                subject: COALITION_SUBJECT.into(),
                role: None,
            }),
            Need::Role(r) => Err(HttpError::Forbidden(format!(
                "a coalition token reads every member and writes none; this needs a token of this registry with the {r} role"
            ))),
        },
        (Some(t), need) => {
            let rec = check(state, t, need != Need::Read).await?;
            if let Need::Role(r) = need {
                if !rec.role.allows(r) {
                    return Err(HttpError::Forbidden(format!(
                        "the token of {} has the {} role; this needs {r}",
                        rec.subject, rec.role
                    )));
                }
            }
            Ok(Caller {
                subject: rec.subject,
                role: Some(rec.role),
            })
        }
    }
}

async fn gate(state: AppState, mut req: Request, next: Next, need: Need) -> Response {
    use axum::response::IntoResponse;
    let admitted = admit(&state, req.headers(), need).await;
    match admitted {
        Ok(caller) => {
            req.extensions_mut().insert(caller);
            next.run(req).await
        }
        Err(e) => e.into_response(),
    }
}

/// Layer: any valid token (or none on a public-read server).
pub async fn read(State(s): State<AppState>, req: Request, next: Next) -> Response {
    gate(s, req, next, Need::Read).await
}

/// Layer: the analyst role.
pub async fn analyst(State(s): State<AppState>, req: Request, next: Next) -> Response {
    gate(s, req, next, Need::Role(Role::Analyst)).await
}

/// Layer: the inspector role.
pub async fn inspector(State(s): State<AppState>, req: Request, next: Next) -> Response {
    gate(s, req, next, Need::Role(Role::Inspector)).await
}

/// Layer: the officer role.
pub async fn officer(State(s): State<AppState>, req: Request, next: Next) -> Response {
    gate(s, req, next, Need::Role(Role::Officer)).await
}

/// Layer: the admin role.
pub async fn admin(State(s): State<AppState>, req: Request, next: Next) -> Response {
    gate(s, req, next, Need::Role(Role::Admin)).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::{HeaderMap, HeaderValue};

    fn with(auth: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(auth).unwrap());
        h
    }

    #[test]
    fn the_token_is_read_from_bearer_or_as_the_basic_password() {
        assert_eq!(
            bearer(&with("Bearer ms4_abc")).unwrap().as_deref(),
            Some("ms4_abc")
        );
        // "qgis:ms4_abc" and ":ms4_abc", base64.
        assert_eq!(
            bearer(&with("Basic cWdpczptczRfYWJj")).unwrap().as_deref(),
            Some("ms4_abc")
        );
        assert_eq!(
            bearer(&with("basic Om1zNF9hYmM=")).unwrap().as_deref(),
            Some("ms4_abc")
        );
        // A password with a colon in it is kept whole.
        assert_eq!(
            bearer(&with("Basic dTphOmI=")).unwrap().as_deref(),
            Some("a:b")
        );
        assert!(bearer(&HeaderMap::new()).unwrap().is_none());
        for bad in [
            "Basic !!!",
            "Basic cWdpcw==",
            "Basic cWdpczo=",
            "Digest x",
            "Bearer ",
        ] {
            let e = bearer(&with(bad)).unwrap_err();
            assert_eq!(e.status_code(), 401, "{bad}");
        }
    }
}
