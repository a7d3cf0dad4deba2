//! The HTTP service (axum): health and layers as GeoJSON for now.

mod error;
mod features;

use std::sync::Arc;

use axum::routing::get;
use axum::{Json, Router};

pub use error::HttpError;

use crate::spatial::SnapshotHandle;
use crate::store::Store;

/// What every handler can reach.
#[derive(Clone)]
pub struct AppState {
    /// The registry's storage.
    pub store: Arc<dyn Store>,
    /// The current in-memory snapshot.
    pub snapshot: SnapshotHandle,
}

/// The whole application, as a router tests can drive without a socket.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/health", get(health))
        .merge(features::router())
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .with_state(state)
}

async fn health(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> Json<serde_json::Value> {
    let snap = state.snapshot.current();
    Json(serde_json::json!({
        "status": "ok",
        "store": state.store.kind(),
        "jurisdiction": snap.meta.jurisdiction,
        "crs": format!("EPSG:{}", snap.meta.srid),
    }))
}

/// Serves until Ctrl-C or SIGTERM, letting requests in flight finish.
pub async fn serve(state: AppState, listener: tokio::net::TcpListener) -> std::io::Result<()> {
    axum::serve(listener, app(state))
        .with_graceful_shutdown(shutdown_signal())
        .await
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
}
