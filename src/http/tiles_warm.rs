//! Keeping the tiles' inputs ready in the background (see [`crate::tiles::warm`]): at
//! start-up and after every new snapshot, so that a map opened on a freshly started
//! server, or just after an import, draws without waiting for the connections' findings
//! to be derived (seconds on a county).

use std::sync::{Arc, Weak};
use std::time::Duration;

use super::AppState;
use crate::spatial::Snapshot;

/// Warms the tiles of the current snapshot now, then whenever the snapshot changes,
/// looking every `every`. Runs until the runtime stops.
pub fn keep_warm(state: AppState, every: Duration) {
    tokio::spawn(async move {
        let mut warmed: Weak<Snapshot> = Weak::new();
        loop {
            let snap = state.snapshot.current();
            if !warmed.upgrade().is_some_and(|w| Arc::ptr_eq(&w, &snap)) {
                warmed = Arc::downgrade(&snap);
                let st = state.clone();
                let done = tokio::task::spawn_blocking(move || warm_now(&st, &snap)).await;
                match done {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => tracing::warn!("preparing the tiles failed: {e:#}"),
                    Err(e) => tracing::warn!("preparing the tiles failed: {e}"),
                }
            }
            tokio::time::sleep(every).await;
        }
    });
}

/// Warms the tiles of `snap` with the current profile. Blocking.
fn warm_now(state: &AppState, snap: &Arc<Snapshot>) -> anyhow::Result<()> {
    let profile_now = state.profile.current();
    let profile = &*profile_now;
    let networks = &state.networks;
    let source = || networks.get_or_build(snap, |s| Ok(crate::answer::build_network(s, profile)));
    crate::tiles::warm(&state.tiles, snap, profile, &source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower::ServiceExt;

    /// A public-read service on a new registry with one connection.
    async fn state() -> (tempfile::TempDir, AppState) {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("warm.gpkg").display());
        let meta = crate::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
        let store = crate::store::create(&url, &meta).await.unwrap();
        let snapshot = crate::spatial::SnapshotHandle::load(store.as_ref())
            .await
            .unwrap();
        let profile = crate::rules::Profile::builtin("north-castle-ny").unwrap();
        let config = super::super::ServeConfig {
            public_read: true,
            ..Default::default()
        };
        (dir, AppState::with_config(store, snapshot, profile, config))
    }

    async fn until(what: &str, ok: impl Fn() -> bool) {
        for _ in 0..200 {
            if ok() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        panic!("{what}: not within 5 s");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn findings_are_derived_before_the_first_tile_and_again_after_a_write() {
        let (_dir, state) = state().await;
        let derived = || state.tiles.derived.derivations();
        assert_eq!(derived(), 0);
        keep_warm(state.clone(), Duration::from_millis(20));
        until("warm at start", || derived() == 1).await;

        // The first connections tile finds them made.
        let app = super::super::app(state.clone());
        let r = app
            .clone()
            .oneshot(
                axum::http::Request::get("/tiles/connections/16/19200/24600.mvt")
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        assert_eq!(derived(), 1, "the tile used the warmed findings");

        // A write to a layer the findings read: derived again with no tile asked for.
        let mut f = crate::domain::Feature::new(crate::domain::Layer::Connections, "C-1");
        f.geom = Some(geo_types::Geometry::LineString(
            geo_types::LineString::from(vec![(670_000.0, 870_000.0), (670_050.0, 870_010.0)]),
        ));
        let req = crate::store::WriteRequest {
            layer: crate::domain::Layer::Connections,
            mode: crate::store::WriteMode::Upsert,
            actor: "tester".into(),
            source: "test".into(),
        };
        state
            .snapshot
            .write(state.store.as_ref(), req, vec![f], serde_json::json!({}))
            .await
            .unwrap();
        until("warm after the write", || derived() == 2).await;
    }
}
