//! Keeping the tiles' inputs ready in the background (see [`crate::tiles::warm`]): at
//! start-up, so that a map opened on a freshly started server draws without waiting for
//! the connections' findings to be derived (seconds on a county), and after each new
//! snapshot while a map is open (a tile was asked for in the last [`IN_USE`]), so that
//! after an import its next tiles do not wait either. A server nobody draws maps from
//! pays the start-up warm-up once and nothing after writes.

use std::sync::{Arc, Weak};
use std::time::Duration;

use super::AppState;
use crate::spatial::Snapshot;

/// How recently a tile must have been asked for to warm the tiles after a write.
pub const IN_USE: Duration = Duration::from_secs(600);

/// Warms the tiles of the current snapshot now, then whenever the snapshot changes while
/// a map is open, looking every `every`. Runs until the runtime stops.
pub fn keep_warm(state: AppState, every: Duration) {
    tokio::spawn(async move {
        let mut warmed: Weak<Snapshot> = Weak::new();
        let mut first = true;
        loop {
            let snap = state.snapshot.current();
            let changed = !warmed.upgrade().is_some_and(|w| Arc::ptr_eq(&w, &snap));
            if changed && (first || state.tiles.used_within(IN_USE)) {
                first = false;
                warmed = Arc::downgrade(&snap);
                let st = state.clone();
                let done = tokio::task::spawn_blocking(move || warm_now(&st, &snap)).await;
                match done {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        tracing::warn!(error = %super::error::chain(&e), "preparing the tiles failed");
                    }
                    Err(e) => tracing::warn!("preparing the tiles failed: {e}"),
                }
            }
            tokio::time::sleep(every).await;
        }
    });
}

/// Warms the tiles of `snap` with the current profile. Blocking.
fn warm_now(state: &AppState, snap: &Arc<Snapshot>) -> Result<(), crate::tiles::RenderError> {
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

    /// Writes a connection (a layer the findings read) through the server's snapshot.
    async fn write_connection(state: &AppState, id: &str) {
        let mut f = crate::domain::Feature::new(crate::domain::Layer::Connections, id);
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
    async fn findings_are_derived_before_the_first_tile_and_after_a_write_while_a_map_is_open() {
        let (_dir, state) = state().await;
        let derived = || state.tiles.derived.derivations();
        assert_eq!(derived(), 0);
        keep_warm(state.clone(), Duration::from_millis(20));
        until("warm at start", || derived() == 1).await;

        // The first connections tile finds them made.
        let app = super::super::app(state.clone());
        let r = app
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
        write_connection(&state, "C-1").await;
        until("warm after the write", || derived() == 2).await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn without_a_map_open_a_write_is_not_followed_by_warming() {
        let (_dir, state) = state().await;
        let derived = || state.tiles.derived.derivations();
        keep_warm(state.clone(), Duration::from_millis(20));
        until("warm at start", || derived() == 1).await;
        write_connection(&state, "C-0").await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(derived(), 1, "no tile asked for, no work after a write");
    }
}
