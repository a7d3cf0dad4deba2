//! The HTTP service (axum): OGC API – Features over every layer, the registry's answers
//! under `/api`, uploads, inspections and tokens, vector tiles and their map style.

mod answer_format;
mod api;
mod calendar;
pub mod caller;
mod cases;
pub mod coalition;
mod error;
mod extent;
mod extract;
mod footprint;
mod geojson;
pub mod inspections;
mod limits;
mod links;
pub mod live_profile;
mod networks;
mod ogc;
mod openapi;
mod openapi_types;
mod page;
mod photos;
mod routes;
mod security;
pub mod server;
mod sites;
pub mod style;
mod tiles;
pub mod tiles_warm;
mod tokens;
mod upload;
mod versions;

pub use networks::NetworkCache;
pub(crate) use networks::NETWORK_LAYERS;

use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::{Json, Router};

pub use caller::{Auth, Caller};
pub use error::HttpError;

use crate::rules::Profile;
use crate::spatial::SnapshotHandle;
use crate::store::Store;

/// What every handler can reach: one shared [`Shared`], so each request's clones of it
/// (the router's state, each middleware's) are one count, not one for each part.
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// The parts of [`AppState`].
#[derive(Clone)]
pub struct Shared {
    /// The registry's storage.
    pub store: Arc<dyn Store>,
    /// The current in-memory snapshot.
    pub snapshot: SnapshotHandle,
    /// The registry's jurisdiction profile, replaced when the stored one changes.
    pub profile: live_profile::CurrentProfile,
    /// The drainage network of the current snapshot, built on first use.
    pub networks: NetworkCache,
    /// Who may do what.
    pub auth: Auth,
    /// Limits.
    pub config: Arc<ServeConfig>,
    /// What vector tiles are rendered with (Web Mercator copies, generations).
    pub tiles: crate::tiles::Tiles,
}

/// The service's limits and access policy.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Reads need no token.
    pub public_read: bool,
    /// The largest request body accepted, in bytes (uploads included).
    pub body_limit: usize,
    /// How long a request may take before it is answered 408.
    pub request_timeout: Duration,
    /// How long a connection may take to send a request's head (idle keep-alive time
    /// included) before it is closed.
    pub header_timeout: Duration,
    /// The most connections open at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// The base URL links are made with (`https://ms4.example.org`), when the server sits
    /// behind a proxy or has a public name; else links use the address it listens on.
    pub public_url: Option<String>,
    /// Host names (with port, when not the default) a request's `Host` header may name to
    /// have links made with it; any other `Host` is never echoed into a link.
    pub allowed_hosts: Vec<String>,
    /// The address the server listens on, once bound: the fallback for links.
    pub listen_addr: Option<std::net::SocketAddr>,
    /// Origins whose pages may read the service from a browser (CORS); none by default.
    pub cors_origins: Vec<String>,
    /// A raster basemap tile URL template the map style draws under the layers; none by
    /// default (the style then needs nothing from outside the service).
    pub basemap_url: Option<String>,
    /// The most bytes of rendered tiles kept for the current snapshot; 0 keeps none.
    pub tile_cache_bytes: usize,
    /// The path a coalition's member is served under (`/r/north-castle`), which every
    /// link carries; empty when the service serves one registry at its root.
    pub path_prefix: String,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            public_read: false,
            body_limit: 200 * 1024 * 1024,
            request_timeout: Duration::from_secs(300),
            header_timeout: Duration::from_secs(10),
            max_connections: 512,
            public_url: None,
            allowed_hosts: Vec::new(),
            listen_addr: None,
            cors_origins: Vec::new(),
            basemap_url: None,
            tile_cache_bytes: 256 << 20,
            path_prefix: String::new(),
        }
    }
}

impl AppState {
    /// State for a store whose snapshot is already loaded.
    pub fn new(store: Arc<dyn Store>, snapshot: SnapshotHandle, profile: Profile) -> Self {
        Self::with_config(store, snapshot, profile, ServeConfig::default())
    }

    /// State with explicit limits and access policy.
    pub fn with_config(
        store: Arc<dyn Store>,
        snapshot: SnapshotHandle,
        profile: Profile,
        config: ServeConfig,
    ) -> Self {
        AppState(Arc::new(Shared {
            store,
            snapshot,
            profile: live_profile::CurrentProfile::new(profile),
            networks: NetworkCache::default(),
            auth: Auth::new(config.public_read),
            tiles: crate::tiles::Tiles {
                rendered: crate::tiles::cache::TileCache::with_budget(config.tile_cache_bytes),
                ..crate::tiles::Tiles::default()
            },
            config: Arc::new(config),
        }))
    }

    /// The state with its access policy changed (a coalition member's, which also takes
    /// the coalition's tokens), before the router shares it.
    pub fn with_auth(self, change: impl FnOnce(Auth) -> Auth) -> Self {
        let mut shared = Arc::unwrap_or_clone(self.0);
        shared.auth = change(shared.auth);
        AppState(Arc::new(shared))
    }
}

/// The largest JSON body a write of records takes (an inspection, a case, an action):
/// room for several notes at their limit ([`crate::domain::text::MAX_NOTE_CHARS`]), and
/// far below the upload limit, so a write cannot carry a file's worth of text.
pub const MAX_JSON_WRITE_BYTES: usize = 1024 * 1024;

/// The whole application, as a router tests can drive without a socket.
///
/// Every route is an entry of [`routes::routes`], which says who may call it: open
/// (health, the landing page, conformance, the API definition, the page's files: they
/// hold no registry data), reads (any valid token, or none on a public-read server) and
/// writes, each behind the role it needs.
pub fn app(state: AppState) -> Router {
    let timeout = state.config.request_timeout;
    let limit = state.config.body_limit;
    let cors = cors_layer(&state.config.cors_origins);
    routes::router(&state)
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method)
        .layer(DefaultBodyLimit::max(limit))
        .layer(from_fn_with_state(state.clone(), limits::refuse_early))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            axum::http::StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(axum::middleware::from_fn(error::json_bodies))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .layer(cors)
        .layer(axum::middleware::map_response_with_state(
            security::Policies::new(&state.config),
            security::baseline,
        ))
        .with_state(state)
}

/// CORS for the origins given (`--cors-origin`), none by default: without them a browser
/// keeps pages of other sites from reading the service. Preflights are answered before the
/// token check, as browsers send them without credentials.
fn cors_layer(origins: &[String]) -> tower_http::cors::CorsLayer {
    use axum::http::{header, HeaderValue, Method};
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let list: Vec<HeaderValue> = origins
        .iter()
        .filter_map(|o| HeaderValue::from_str(o.trim_end_matches('/')).ok())
        .collect();
    if list.is_empty() {
        return CorsLayer::new().allow_origin(AllowOrigin::list(Vec::<HeaderValue>::new()));
    }
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(list))
        .allow_methods([Method::GET, Method::POST, Method::DELETE, Method::OPTIONS])
        .allow_headers([
            header::AUTHORIZATION,
            header::CONTENT_TYPE,
            header::IF_NONE_MATCH,
            header::ACCEPT,
        ])
        .expose_headers([
            header::ETAG,
            header::HeaderName::from_static("x-ms4-generation"),
        ])
        .max_age(Duration::from_secs(3600))
}

/// The OpenAPI document the service serves at `/api/openapi.json`.
pub fn openapi_document() -> serde_json::Value {
    openapi::spec()
}

/// Marks an answer of the router's own fallbacks (no route at the path, or none for the
/// method), so the route check tells them from a route's own 404 or 405.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unrouted {
    /// No route at the path.
    Path,
    /// A route at the path, not for this method.
    Method,
}

async fn wrong_method(
    method: axum::http::Method,
    uri: axum::http::Uri,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut res = (
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        Json(serde_json::json!({
            "error": format!("{method} {}: this route does not take {method}; /api/openapi.json lists its methods", uri.path()),
            "status": 405,
        })),
    )
        .into_response();
    res.extensions_mut().insert(Unrouted::Method);
    res
}

async fn not_found(uri: axum::http::Uri) -> axum::response::Response {
    use axum::response::IntoResponse;
    let mut res = HttpError::NotFound(format!(
        "{}: no such route; /api/openapi.json lists them",
        uri.path()
    ))
    .into_response();
    res.extensions_mut().insert(Unrouted::Path);
    res
}

/// How long `/health` waits for the database before calling it unreachable.
const HEALTH_DB_TIMEOUT: Duration = Duration::from_secs(1);

/// Liveness and readiness. The process answers 200 whenever it serves at all, since
/// reads go on from the snapshot while the database is away; `ready` and `database` say
/// whether writes can be taken now, so a balancer can route writes (or page someone)
/// without restarting a server that is still answering reads.
async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Json<serde_json::Value> {
    let snap = state.snapshot.current();
    let reachable = matches!(
        tokio::time::timeout(HEALTH_DB_TIMEOUT, state.store.generation()).await,
        Ok(Ok(_))
    );
    Json(serde_json::json!({
        "status": "ok",
        "ready": reachable,
        "database": if reachable { "reachable" } else { "unreachable" },
        "reads": "served from the in-memory snapshot",
        "store": state.store.kind(),
        "jurisdiction": snap.meta.jurisdiction,
        // The town's own name, as its profile gives it: the page's heading.
        "name": state.profile.current().name,
        "crs": format!("EPSG:{}", snap.meta.srid),
    }))
}

/// Serves until Ctrl-C or SIGTERM, letting requests in flight finish for
/// [`server::SHUTDOWN_GRACE`]; see [`server`] for the connection limits.
pub async fn serve(state: AppState, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    let config = state.config.clone();
    server::run(listener, app(state), &config, shutdown_signal()).await
}

/// Ctrl-C or SIGTERM. The handlers are installed now, not when the future is first
/// polled, so a signal that arrives while the first connection is being accepted is
/// still a graceful shutdown rather than the default action (death).
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{signal, SignalKind};
        (
            signal(SignalKind::interrupt()).ok(),
            signal(SignalKind::terminate()).ok(),
        )
    };
    async move {
        #[cfg(unix)]
        {
            let (mut int, mut term) = signals;
            let int = async {
                match int.as_mut() {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending().await,
                }
            };
            let term = async {
                match term.as_mut() {
                    Some(s) => {
                        s.recv().await;
                    }
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = int => {},
                _ = term => {},
            }
        }
        #[cfg(not(unix))]
        {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
