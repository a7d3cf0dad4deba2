//! The registry's profile as the server holds it: one copy, replaced when a committed
//! `ms4 profile update` (or `set`) changes the stored one, so a running server answers
//! with the new law without a restart.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use crate::rules::Profile;
use crate::store::Store;

use super::networks::NetworkCache;

/// The profile the server answers with; cheap to clone (shared).
#[derive(Clone)]
pub struct CurrentProfile {
    inner: Arc<RwLock<Numbered>>,
    // The SHA-256 of the stored text last read, so an unchanged profile is not parsed again.
    seen: Arc<Mutex<Option<String>>>,
}

/// The profile held and its number: 0 for the one the server started with, one more
/// for each that replaced it. Answers (tiles above all) are named by the snapshot and
/// this number, so a new profile, which may change any answer, changes their names.
struct Numbered {
    profile: Arc<Profile>,
    number: u64,
}

impl CurrentProfile {
    /// Holds `profile` until a changed stored one replaces it.
    pub fn new(profile: Profile) -> Self {
        CurrentProfile {
            inner: Arc::new(RwLock::new(Numbered {
                profile: Arc::new(profile),
                number: 0,
            })),
            seen: Arc::new(Mutex::new(None)),
        }
    }

    /// The profile now. A request takes it once and answers from that copy throughout,
    /// so one answer never mixes two profiles.
    pub fn current(&self) -> Arc<Profile> {
        self.numbered().0
    }

    /// The profile now with its number (see [`CurrentProfile::replace`]), read together.
    pub fn numbered(&self) -> (Arc<Profile>, u64) {
        let held = self.inner.read().unwrap_or_else(|p| p.into_inner());
        (held.profile.clone(), held.number)
    }

    /// Answers with `profile` from now on, under the next number. The server's watch
    /// calls it when the stored profile changes; a test or an embedding program may too.
    pub fn replace(&self, profile: Profile) {
        let mut held = self.inner.write().unwrap_or_else(|p| p.into_inner());
        *held = Numbered {
            profile: Arc::new(profile),
            number: held.number + 1,
        };
    }

    /// Reads the stored profile's hash every `interval`; when it moved, loads the stored
    /// profile as every command does and, if it differs from the one held, swaps it in and
    /// drops the cached network (its snap tolerance comes from the profile). A stored
    /// profile that no longer loads is logged and the one held is kept. Runs until the
    /// runtime stops.
    pub fn watch(
        &self,
        store: Arc<dyn Store>,
        networks: NetworkCache,
        interval: Duration,
    ) -> tokio::task::JoinHandle<()> {
        let handle = self.clone();
        tokio::spawn(async move {
            loop {
                if let Err(e) = handle.refresh(store.as_ref(), &networks).await {
                    tracing::warn!(error = %format!("{e:#}"), "reading the registry's profile failed; keeping the one held");
                }
                tokio::time::sleep(interval).await;
            }
        })
    }

    /// One turn of [`CurrentProfile::watch`]; returns whether the profile was replaced.
    pub async fn refresh(
        &self,
        store: &dyn Store,
        networks: &NetworkCache,
    ) -> anyhow::Result<bool> {
        let Some(stored) = store.stored_profile().await? else {
            return Ok(false);
        };
        {
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            if seen.as_deref() == Some(stored.sha256.as_str()) {
                return Ok(false);
            }
            // Remembered before loading: a text that does not load is reported once.
            *seen = Some(stored.sha256.clone());
        }
        let loaded = crate::answer::profile::load_stored(store, false).await?;
        if *self.current() == loaded.profile {
            return Ok(false);
        }
        self.replace(loaded.profile);
        networks.clear();
        tracing::info!(sha256 = %loaded.stored.sha256, "the registry's profile changed; answering with it");
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::{header, Request, StatusCode};
    use tower::ServiceExt;

    use crate::domain::{Feature, Layer, Value};
    use crate::http::{app, AppState, ServeConfig};
    use crate::store::profile::StoredProfile;
    use crate::store::{WriteMode, WriteRequest};

    /// The connection's tile (EPSG:2260 670,000 870,000 is 73.8534 W 41.2200 N).
    const TILE: &str = "/tiles/connections/16/19323/24518.mvt";
    /// A kind North Castle exempts (on conditions the registry cannot check).
    const KIND: &str = "air_conditioning_condensate";

    /// Status, ETag and body of a GET, with an `If-None-Match` when given.
    async fn get(
        state: &AppState,
        uri: &str,
        etag: Option<&str>,
    ) -> (StatusCode, String, bytes::Bytes) {
        let mut rq = Request::get(uri);
        if let Some(e) = etag {
            rq = rq.header(header::IF_NONE_MATCH, e);
        }
        let r = app(state.clone())
            .oneshot(rq.body(Body::empty()).unwrap())
            .await
            .unwrap();
        let status = r.status();
        let tag = r
            .headers()
            .get(header::ETAG)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        let body = axum::body::to_bytes(r.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, tag, body)
    }

    /// North Castle's profile without its exemption of `KIND`, as a town would store it.
    fn without_exemption() -> String {
        let text = crate::rules::Profile::builtin_text("north-castle-ny").unwrap();
        let mut t: toml::Table = text.parse().unwrap();
        let list = t["exempt_discharges"].as_array_mut().unwrap();
        list.retain(|e| e["kind"].as_str() != Some(KIND));
        t.to_string()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_profile_update_that_changes_an_answer_changes_the_tiles_generation() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("profile.gpkg").display());
        let meta = crate::import::crs::registry_meta("north-castle-ny", 2260).unwrap();
        let store = crate::store::create(&url, &meta).await.unwrap();
        let loaded = crate::answer::profile::load_stored(store.as_ref(), false)
            .await
            .unwrap();
        let snapshot = crate::spatial::SnapshotHandle::load(store.as_ref())
            .await
            .unwrap();
        let mut f = Feature::new(Layer::Connections, "C-1");
        f.set(
            Layer::Connections,
            "discharge_kind",
            Value::Text(KIND.into()),
        );
        f.geom = Some(geo_types::Geometry::LineString(
            geo_types::LineString::from(vec![(670_000.0, 870_000.0), (670_050.0, 870_010.0)]),
        ));
        let req = WriteRequest {
            layer: Layer::Connections,
            mode: WriteMode::Upsert,
            actor: "tester".into(),
            source: "test".into(),
        };
        snapshot
            .write(store.as_ref(), req, vec![f], serde_json::json!({}))
            .await
            .unwrap();
        let config = ServeConfig {
            public_read: true,
            ..Default::default()
        };
        let state = AppState::with_config(store.clone(), snapshot, loaded.profile, config);

        let (_, _, illicit_before) = get(&state, "/api/illicit", None).await;
        let (s, etag1, tile1) = get(&state, TILE, None).await;
        assert_eq!(s, StatusCode::OK);
        assert!(!tile1.is_empty(), "the connection is in its tile");
        let (s, _, _) = get(&state, TILE, Some(&etag1)).await;
        assert_eq!(s, StatusCode::NOT_MODIFIED, "nothing changed yet");
        let (_, _, tilejson) = get(&state, "/tiles.json", None).await;
        let g1: serde_json::Value = serde_json::from_slice(&tilejson).unwrap();

        // `ms4 profile update`: the stored profile changes, and the server's watch reads it.
        let stored =
            StoredProfile::new("north-castle-ny", &without_exemption(), "nc.toml", "tester");
        store.store_profile(&stored, false).await.unwrap();
        assert!(state
            .profile
            .refresh(store.as_ref(), &state.networks)
            .await
            .unwrap());

        let (_, _, illicit_after) = get(&state, "/api/illicit", None).await;
        assert_ne!(illicit_before, illicit_after, "the answer changed");
        let (s, etag2, tile2) = get(&state, TILE, None).await;
        assert_eq!(s, StatusCode::OK);
        assert_ne!(etag1, etag2);
        assert_ne!(tile1, tile2, "the tile shows the new finding");
        let (s, _, again) = get(&state, TILE, Some(&etag1)).await;
        assert_eq!(s, StatusCode::OK, "the old ETag is not a 304");
        assert_eq!(again, tile2);
        let (s, _, _) = get(&state, TILE, Some(&etag2)).await;
        assert_eq!(s, StatusCode::NOT_MODIFIED);
        let (_, _, tilejson) = get(&state, "/tiles.json", None).await;
        let g2: serde_json::Value = serde_json::from_slice(&tilejson).unwrap();
        assert_ne!(g1["generation"], g2["generation"]);
        assert_ne!(
            g1["tiles"], g2["tiles"],
            "the tile URLs name the new generation"
        );
    }

    #[test]
    fn each_replacement_gets_the_next_number() {
        let p = crate::rules::Profile::builtin("north-castle-ny").unwrap();
        let current = super::CurrentProfile::new(p.clone());
        assert_eq!(current.numbered().1, 0);
        current.replace(p);
        assert_eq!(current.numbered().1, 1);
    }
}
