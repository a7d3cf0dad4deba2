//! The web page at `/` for browsers: its built files (`web/`, built by `scripts/web.sh`)
//! are embedded in the binary by `build.rs`, so one file deploys and the page can never be
//! older or newer than the service it talks to. The page is a client of the public API
//! only; the one route added for it, `/api/session`, says what a token may do, which any
//! script may ask too.
//!
//! The page names its files relative to itself (`./page/…`) and asks the API under the
//! folder it was loaded from, so the same build works at a server's root and under a
//! coalition member's `/r/{name}/`: the page must only be loaded from its folder, with
//! the trailing slash (see [`index`]).

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::caller::{admit, Need};
use super::AppState;
use crate::auth::Role;

include!(concat!(env!("OUT_DIR"), "/web_assets.rs"));

/// Whether the page's files were built into this binary.
pub fn built() -> bool {
    ASSETS.iter().any(|(p, _, _)| *p == "/index.html")
}

/// Whether a request for `/` wants the page rather than the OGC landing page: a browser
/// asks for `text/html` first; `?f=json` (or any other `f`) forces the JSON document, and
/// `?f=html` the page.
pub(super) fn wants_html(headers: &HeaderMap, f: Option<&str>) -> bool {
    match f {
        Some(f) => f.eq_ignore_ascii_case("html"),
        None => {
            let accept = headers
                .get(header::ACCEPT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            // The first type listed that is html or json decides (browsers list html first,
            // `*/*` last; JSON clients name json or nothing).
            accept
                .split(',')
                .map(|t| t.split(';').next().unwrap_or("").trim())
                .find_map(|t| match t {
                    "text/html" | "application/xhtml+xml" => Some(true),
                    "application/json" | "application/geo+json" => Some(false),
                    _ => None,
                })
                .unwrap_or(false)
        }
    }
}

/// The `f` parameter of a raw query string (`f=json`), if given.
pub(super) fn format(q: Option<&str>) -> Option<String> {
    url::form_urlencoded::parse(q?.as_bytes())
        .find(|(k, _)| k == "f")
        .map(|(_, v)| v.into_owned())
}

fn file(path: &str) -> Option<(&'static str, &'static [u8])> {
    ASSETS
        .iter()
        .find(|(p, _, _)| *p == path)
        .map(|(_, t, b)| (*t, *b))
}

/// The page itself (`index.html`), or, in a binary built without it, a page that says so
/// and how to build it: never a blank page. Asked for at a folder without its slash (a
/// member's `/r/carmel`), it is a redirect to the folder: from there the page's relative
/// names would reach outside its registry (`/r/page/…`).
pub(super) fn index(asked: &Uri) -> Response {
    if let Some(to) = folder_of(asked) {
        return (
            StatusCode::PERMANENT_REDIRECT,
            [(header::LOCATION, to)],
            "the page is at its folder, with a trailing slash",
        )
            .into_response();
    }
    match file("/index.html") {
        Some((ty, bytes)) => with_type(ty, bytes, "no-cache"),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
            "<!doctype html><html lang=en><meta charset=utf-8><title>ms4: the page is not built</title>\
             <h1>The web page was not built into this binary</h1>\
             <p>Run <code>scripts/web.sh</code> and build ms4 again. The API is served as usual: \
             <a href=\"/?f=json\">the landing page</a>, <a href=\"/api/openapi.json\">the API definition</a>.</p></html>",
        )
            .into_response(),
    }
}

/// Where a request for the page at `asked` must go instead, when its path does not end
/// in `/`: the last segment with a slash, relative, so a proxy's prefix is kept
/// (`/r/carmel?view=planner` → `carmel/?view=planner`).
fn folder_of(asked: &Uri) -> Option<String> {
    let path = asked.path();
    if path.ends_with('/') {
        return None;
    }
    let last = path.rsplit('/').next().unwrap_or("");
    Some(match asked.query() {
        Some(q) => format!("{last}/?{q}"),
        None => format!("{last}/"),
    })
}

fn with_type(ty: &'static str, bytes: &'static [u8], cache: &'static str) -> Response {
    let mut r = bytes.into_response();
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(ty));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    // The page loads nothing from another origin: the baseline layer gives these files
    // the policy that says so.
    r.extensions_mut().insert(super::security::PageFile);
    r
}

pub(super) async fn asset(Path(rest): Path<String>) -> Response {
    match file(&format!("/page/{rest}")) {
        // Their names carry a content hash: a new build makes new names.
        Some((ty, bytes)) => with_type(ty, bytes, "public, max-age=31536000, immutable"),
        None => super::HttpError::NotFound(format!(
            "/page/{rest}: no such file of the web page{}",
            if built() {
                ""
            } else {
                " (the page was not built into this binary)"
            }
        ))
        .into_response(),
    }
}

pub(super) async fn service_worker() -> Response {
    match file("/sw.js") {
        Some((ty, bytes)) => with_type(ty, bytes, "no-cache"),
        None => {
            super::HttpError::NotFound("/sw.js: the page was not built into this binary".into())
                .into_response()
        }
    }
}

pub(super) async fn manifest() -> Response {
    match file("/manifest.webmanifest") {
        Some((_, bytes)) => with_type("application/manifest+json", bytes, "no-cache"),
        None => super::HttpError::NotFound(
            "/manifest.webmanifest: the page was not built into this binary".into(),
        )
        .into_response(),
    }
}

/// `GET /api/session`: who the token (or no token) is and what it may do, so the page
/// shows only the actions the role allows. Without a token on a registry that is not
/// public-read the answer says a token is needed (200, not 401: nothing is refused yet).
/// What a token (or no token) may do: the answer of `GET /api/session`.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct Session {
    /// A token was given and is valid.
    pub signed_in: bool,
    /// Reads need no token on this server.
    pub public_read: bool,
    /// The caller may read the registry.
    pub may_read: bool,
    /// Who the token was made for.
    pub subject: Option<String>,
    /// The token's role.
    pub role: Option<String>,
    /// What the caller may do.
    pub may: May,
}

/// What a caller may do, by the page's parts.
#[derive(Debug, serde::Serialize, schemars::JsonSchema)]
pub struct May {
    /// Read the registry.
    pub read: bool,
    /// Record inspections and their photos.
    pub inspect: bool,
    /// Open and work illicit discharge cases.
    pub enforce: bool,
    /// Import layers.
    pub import: bool,
    /// Manage tokens.
    pub admin: bool,
}

pub(super) async fn session(State(state): State<AppState>, headers: HeaderMap) -> Response {
    let public_read = state.auth.public_read;
    if headers.get(header::AUTHORIZATION).is_none() && !public_read {
        return Json(Session {
            signed_in: false,
            public_read: false,
            may_read: false,
            subject: None,
            role: None,
            may: may(None, false),
        })
        .into_response();
    }
    match admit(&state, &headers, Need::Read).await {
        Ok(c) => Json(Session {
            signed_in: c.role.is_some(),
            public_read,
            may_read: true,
            subject: Some(c.subject),
            role: c.role.map(|r| r.to_string()),
            may: may(c.role, true),
        })
        .into_response(),
        Err(e) => e.into_response(),
    }
}

fn may(role: Option<Role>, read: bool) -> May {
    let allows = |r: Role| role.is_some_and(|x| x.allows(r));
    May {
        read,
        inspect: allows(Role::Inspector),
        enforce: allows(Role::Officer),
        import: allows(Role::Analyst),
        admin: allows(Role::Admin),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::ACCEPT, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn browsers_get_the_page_and_json_clients_the_landing_page() {
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";
        assert!(wants_html(&accept(browser), None));
        assert!(!wants_html(&accept(browser), Some("json")));
        assert!(!wants_html(&accept("application/json"), None));
        assert!(!wants_html(&accept("*/*"), None));
        assert!(!wants_html(&HeaderMap::new(), None));
        assert!(wants_html(&HeaderMap::new(), Some("html")));
    }

    #[rstest::rstest]
    #[case("/", None)]
    #[case("/?view=planner", None)]
    #[case("/r/carmel/", None)]
    #[case("/r/carmel", Some("carmel/"))]
    #[case(
        "/r/carmel?view=planner&parcel=P-1",
        Some("carmel/?view=planner&parcel=P-1")
    )]
    fn the_page_is_served_only_at_its_folder(#[case] asked: &str, #[case] to: Option<&str>) {
        let uri: Uri = asked.parse().unwrap();
        assert_eq!(folder_of(&uri).as_deref(), to);
    }
}
