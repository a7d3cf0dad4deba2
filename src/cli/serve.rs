//! `ms4 serve`: the HTTP service.

use std::net::SocketAddr;

use clap::Args;

use crate::http::{self, AppState};
use crate::spatial::{Snapshot, SnapshotHandle};

/// Arguments of `ms4 serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
}

pub(super) async fn run(store_url: &str, a: ServeArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    serve_store(store, a.listen).await
}

/// Loads the snapshot and serves until interrupted, printing the URL once listening.
pub async fn serve_store(
    store: std::sync::Arc<dyn crate::store::Store>,
    listen: SocketAddr,
) -> anyhow::Result<()> {
    let snapshot = SnapshotHandle::new(Snapshot::load(store.as_ref()).await?);
    let profile = super::init::load_profile(&snapshot.current().meta.jurisdiction, None)?;
    snapshot.watch(store.clone(), std::time::Duration::from_secs(2));
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    println!("serving the registry at http://{addr}/");
    http::serve(AppState::new(store, snapshot, profile), listener).await?;
    Ok(())
}
