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
    inner: Arc<RwLock<Arc<Profile>>>,
    // The SHA-256 of the stored text last read, so an unchanged profile is not parsed again.
    seen: Arc<Mutex<Option<String>>>,
}

impl CurrentProfile {
    /// Holds `profile` until a changed stored one replaces it.
    pub fn new(profile: Profile) -> Self {
        CurrentProfile {
            inner: Arc::new(RwLock::new(Arc::new(profile))),
            seen: Arc::new(Mutex::new(None)),
        }
    }

    /// The profile now. A request takes it once and answers from that copy throughout,
    /// so one answer never mixes two profiles.
    pub fn current(&self) -> Arc<Profile> {
        self.inner.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn replace(&self, profile: Profile) {
        *self.inner.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(profile);
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
        let loaded = crate::cli::profile::load_stored(store, false).await?;
        if *self.current() == loaded.profile {
            return Ok(false);
        }
        self.replace(loaded.profile);
        networks.clear();
        tracing::info!(sha256 = %loaded.stored.sha256, "the registry's profile changed; answering with it");
        Ok(true)
    }
}
