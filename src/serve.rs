//! Starting the HTTP service (`ms4 serve`, and `ms4 demo` once its registry is built):
//! the server's arguments, its configuration from them, the snapshot and profile loaded,
//! and the serving loop. The one place the command line meets the HTTP door, so that
//! neither imports the other.

use std::net::SocketAddr;

use clap::Args;

use crate::http::{self, AppState, ServeConfig};
use crate::spatial::SnapshotHandle;

/// Arguments of `ms4 serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Let anyone read without a token (writes still need one).
    #[arg(long, env = "MS4_PUBLIC_READ")]
    pub public_read: bool,
    /// The largest request body accepted (uploads included): 200MB, 50MB, 1GB.
    #[arg(long, default_value = "200MB")]
    pub body_limit: String,
    /// How long a request may take before it is answered 408, in seconds.
    #[arg(long, default_value_t = 300)]
    pub request_timeout: u64,
    /// How long a connection may take to send a request's headers (or sit idle between
    /// requests) before it is closed, in seconds.
    #[arg(long, default_value_t = 10)]
    pub header_timeout: u64,
    /// How long a write waits for another program's write lock (an import, QGIS) before
    /// it is answered 503 with Retry-After, in seconds.
    #[arg(long, default_value_t = 5)]
    pub write_wait: u64,
    /// The most connections open at once; more are answered 503 and closed. Keep it
    /// under the process's file-descriptor limit (`ulimit -n`).
    #[arg(long, default_value_t = 512)]
    pub max_connections: usize,
    /// The URL the service is reached at (https://ms4.town.example), for the links it
    /// returns; without it links use the listening address.
    #[arg(long, env = "MS4_PUBLIC_URL")]
    pub public_url: Option<String>,
    /// A host name (with :port unless the default) clients may reach the service by and
    /// see in links; repeat for several. Other `Host` headers never reach a link.
    #[arg(long = "allowed-host")]
    pub allowed_hosts: Vec<String>,
    /// An origin (https://maps.town.example) whose web pages may read the service from a
    /// browser (CORS); repeat for several. None by default.
    #[arg(long = "cors-origin")]
    pub cors_origins: Vec<String>,
    /// A raster basemap of the town's own, as a tile URL template
    /// (https://gis.town.example/basemap/{z}/{x}/{y}.png), drawn under the layers by the
    /// map style at /styles/ms4.json. None by default.
    #[arg(long, env = "MS4_BASEMAP_URL")]
    pub basemap_url: Option<String>,
    /// The most rendered vector tiles kept in memory for the current snapshot, as a size
    /// (256MB); 0 renders every tile afresh. A write empties it.
    #[arg(long, default_value = "256MB")]
    pub tile_cache: String,
    /// A PostgreSQL hot standby of the `--store` primary to read from (postgres://…): the
    /// snapshot is built from it and kept current by polling it, writes go to the primary,
    /// and a write returns once the standby has replayed it (or the writer's reads go to
    /// the primary until it has).
    #[arg(long, env = "MS4_READ_STORE")]
    pub read_store: Option<String>,
    /// A coalition's member to serve under /r/NAME/, as NAME=URL
    /// (north-castle=postgres://…/coalition?schema=north_castle); repeat for each. With
    /// it `--store` is not served, and `--tile-cache` is shared among the members.
    #[arg(long = "registry", value_name = "NAME=URL")]
    pub registry: Vec<String>,
    /// A file listing the coalition's members, one NAME=URL a line (or TOML's
    /// `name = "url"`), served as `--registry` serves each.
    #[arg(long, value_name = "FILE")]
    pub registries: Option<std::path::PathBuf>,
    /// A file of coalition tokens, one a line: each may read every member served and
    /// write none. Keep it as secret as the tokens (mode 600).
    #[arg(long, value_name = "FILE")]
    pub coalition_token_file: Option<std::path::PathBuf>,
}

/// Reads a size with its unit: `200MB`, `512KB`, `1GB`, or bytes.
fn parse_size(flag: &str, s: &str, zero_ok: bool) -> anyhow::Result<usize> {
    let t = s.trim().to_ascii_uppercase();
    let (num, mult) = [
        ("GB", 1usize << 30),
        ("MB", 1 << 20),
        ("KB", 1 << 10),
        ("B", 1),
    ]
    .iter()
    .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n.trim().to_string(), *m)))
    .unwrap_or((t.clone(), 1));
    let n: f64 = num
        .parse()
        .map_err(|_| anyhow::anyhow!("{flag}: {s:?} is not a size such as 200MB"))?;
    // Also refuses NaN, which the comparisons would let through.
    if n.is_nan() || n < 0.0 || (n == 0.0 && !zero_ok) {
        anyhow::bail!("{flag}: {s:?} must be positive");
    }
    Ok((n * mult as f64) as usize)
}

/// Checks a `--cors-origin`: scheme, host and port only, as browsers send `Origin`.
fn cors_origin(s: &str) -> anyhow::Result<String> {
    let u = url::Url::parse(s)
        .map_err(|e| anyhow::anyhow!("--cors-origin: {s:?} is not an origin ({e})"))?;
    if !matches!(u.scheme(), "http" | "https")
        || u.host_str().is_none()
        || u.path() != "/"
        || u.query().is_some()
    {
        anyhow::bail!("--cors-origin: {s:?} must be http(s)://HOST[:PORT], without a path");
    }
    Ok(u.origin().ascii_serialization())
}

/// Checks `--basemap-url`: an http(s) URL with `{z}`, `{x}` and `{y}`.
fn basemap_url(s: &str) -> anyhow::Result<String> {
    let u = url::Url::parse(&s.replace(['{', '}'], ""))
        .map_err(|e| anyhow::anyhow!("--basemap-url: {s:?} is not a URL ({e})"))?;
    if !matches!(u.scheme(), "http" | "https")
        || !["{z}", "{x}", "{y}"].iter().all(|p| s.contains(p))
    {
        anyhow::bail!(
            "--basemap-url: {s:?} must be an http(s) URL template with {{z}}, {{x}} and {{y}}"
        );
    }
    Ok(s.to_string())
}

/// Checks `--public-url`: an http(s) URL with a host and no query.
fn public_url(s: &str) -> anyhow::Result<String> {
    let u = url::Url::parse(s)
        .map_err(|e| anyhow::anyhow!("--public-url: {s:?} is not a URL ({e})"))?;
    if !matches!(u.scheme(), "http" | "https") || u.host_str().is_none() || u.query().is_some() {
        anyhow::bail!("--public-url: {s:?} must be http(s)://HOST[:PORT][/PATH] without a query");
    }
    Ok(s.trim_end_matches('/').to_string())
}

impl ServeArgs {
    fn config(&self) -> anyhow::Result<ServeConfig> {
        Ok(ServeConfig {
            public_read: self.public_read,
            body_limit: parse_size("--body-limit", &self.body_limit, false)?,
            request_timeout: std::time::Duration::from_secs(self.request_timeout.max(1)),
            header_timeout: std::time::Duration::from_secs(self.header_timeout.max(1)),
            max_connections: self.max_connections.max(1),
            public_url: self.public_url.as_deref().map(public_url).transpose()?,
            allowed_hosts: self.allowed_hosts.clone(),
            listen_addr: None,
            cors_origins: self
                .cors_origins
                .iter()
                .map(|o| cors_origin(o))
                .collect::<anyhow::Result<_>>()?,
            basemap_url: self.basemap_url.as_deref().map(basemap_url).transpose()?,
            tile_cache_bytes: parse_size("--tile-cache", &self.tile_cache, true)?,
            path_prefix: String::new(),
        })
    }
}

/// `ms4 serve`.
pub async fn run(store_url: &str, a: ServeArgs) -> anyhow::Result<()> {
    let config = a.config()?;
    crate::store::set_write_wait(std::time::Duration::from_secs(a.write_wait.max(1)));
    if !a.registry.is_empty() || a.registries.is_some() {
        return serve_coalition(&a, config).await;
    }
    let store: std::sync::Arc<dyn crate::store::Store> = match &a.read_store {
        Some(standby) => std::sync::Arc::new(
            crate::store::replica::ReplicatedStore::open(store_url, standby).await?,
        ),
        None => crate::store::open(store_url).await?,
    };
    serve_store(store, a.listen, config).await
}

/// The members `--registry` and `--registries` name, checked.
fn members_named(a: &ServeArgs) -> anyhow::Result<Vec<(String, String)>> {
    use crate::http::coalition::{check_members, parse_list, parse_registry};
    let mut list = a
        .registry
        .iter()
        .map(|r| parse_registry(r).map_err(|e| anyhow::anyhow!("--registry: {e}")))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(file) = &a.registries {
        let text = std::fs::read_to_string(file)
            .map_err(|e| anyhow::anyhow!("--registries {}: {e}", file.display()))?;
        list.extend(
            parse_list(&text)
                .map_err(|e| anyhow::anyhow!("--registries {}: {e}", file.display()))?,
        );
    }
    check_members(&list).map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(list)
}

/// The state of one coalition member: its registry opened and loaded, its links under
/// `/r/{name}`, its share of the tile cache, the coalition's tokens accepted for reads.
pub async fn member_state(
    name: &str,
    store: std::sync::Arc<dyn crate::store::Store>,
    config: &ServeConfig,
    share: usize,
    coalition: std::sync::Arc<std::collections::HashSet<String>>,
) -> anyhow::Result<crate::http::coalition::Member> {
    let snapshot = SnapshotHandle::load(store.as_ref()).await?;
    let mine = ServeConfig {
        path_prefix: format!("/r/{name}"),
        tile_cache_bytes: config.tile_cache_bytes / share.max(1),
        ..config.clone()
    };
    let st = state(store, snapshot, mine)
        .await?
        .with_auth(|auth| auth.with_coalition(coalition));
    Ok(crate::http::coalition::Member {
        name: name.to_string(),
        state: st,
    })
}

/// `ms4 serve --registry NAME=URL …`: every member under `/r/NAME/` in one service.
async fn serve_coalition(a: &ServeArgs, mut config: ServeConfig) -> anyhow::Result<()> {
    let list = members_named(a)?;
    let coalition = match &a.coalition_token_file {
        Some(f) => crate::http::coalition::token_hashes(
            &std::fs::read_to_string(f)
                .map_err(|e| anyhow::anyhow!("--coalition-token-file {}: {e}", f.display()))?,
        ),
        None => Default::default(),
    };
    let coalition = std::sync::Arc::new(coalition);
    let listener = tokio::net::TcpListener::bind(a.listen).await?;
    let addr = listener.local_addr()?;
    config.listen_addr = Some(addr);
    // One member at a time, each warming its tiles while the next loads: loading them
    // side by side starts faster but warms every member's tiles at once, which about
    // doubles the peak memory.
    let mut members = Vec::new();
    for (name, url) in &list {
        let store = crate::store::open(url)
            .await
            .map_err(|e| anyhow::anyhow!("--registry {name}: {e}"))?;
        let m = member_state(name, store, &config, list.len(), coalition.clone())
            .await
            .map_err(|e| anyhow::anyhow!("--registry {name}: {e}"))?;
        http::tiles_warm::keep_warm(m.state.clone(), std::time::Duration::from_millis(500));
        members.push(m);
    }
    if config.public_read {
        eprintln!(
            "public read: anyone may read every member without a token; writes still need one"
        );
    }
    println!(
        "serving {} registries at http://{addr}/r/NAME/ (http://{addr}/registries lists them)",
        members.len()
    );
    let router = http::coalition::app(members, config.clone());
    http::server::run(listener, router, &config, http::shutdown_signal()).await?;
    Ok(())
}

/// The state `ms4 serve` serves from: the snapshot given, the registry's profile, and the
/// watchers that keep both current (an outside write, a committed `ms4 profile update`,
/// each seen within a second or so). The tests' in-process service is built by this too.
pub async fn state(
    store: std::sync::Arc<dyn crate::store::Store>,
    snapshot: SnapshotHandle,
    config: ServeConfig,
) -> anyhow::Result<AppState> {
    let profile = crate::answer::profile::load(store.as_ref()).await?;
    // Polling the change numbers is one small read; twice a second keeps an outside
    // edit's delay well under 2 s.
    let every = std::time::Duration::from_millis(500);
    snapshot.watch(store.clone(), every);
    let state = AppState::with_config(store.clone(), snapshot, profile, config);
    state.profile.watch(store, state.networks.clone(), every);
    Ok(state)
}

/// Serves the demo town: anyone may read it without a token.
pub async fn serve_demo(
    store: std::sync::Arc<dyn crate::store::Store>,
    listen: SocketAddr,
) -> anyhow::Result<()> {
    crate::store::set_write_wait(std::time::Duration::from_secs(5));
    let config = ServeConfig {
        public_read: true,
        ..Default::default()
    };
    serve_store(store, listen, config).await
}

/// Loads the snapshot and serves until interrupted, printing the URL once listening.
pub async fn serve_store(
    store: std::sync::Arc<dyn crate::store::Store>,
    listen: SocketAddr,
    mut config: ServeConfig,
) -> anyhow::Result<()> {
    let snapshot = SnapshotHandle::load(store.as_ref()).await?;
    for u in snapshot.current().unreadable() {
        eprintln!(
            "warning: {} row {}: {}; it is left out until an import overwrites it",
            u.layer,
            u.id.as_deref().unwrap_or("with an unreadable id"),
            u.reason
        );
    }
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    config.listen_addr = Some(addr);
    if config.public_read {
        eprintln!("public read: anyone may read without a token; writes still need one");
    }
    let state = state(store, snapshot, config).await?;
    // Tests and scripts read the URL as the last word of this line.
    println!("serving the registry at http://{addr}/");
    // The first map drawn after start-up (or after a write) finds its tiles' inputs made.
    http::tiles_warm::keep_warm(state.clone(), std::time::Duration::from_millis(500));
    http::serve(state, listener).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_their_units() {
        let size = |s| parse_size("--body-limit", s, false);
        assert_eq!(size("200MB").unwrap(), 200 << 20);
        assert_eq!(size("1gb").unwrap(), 1 << 30);
        assert_eq!(size("4096").unwrap(), 4096);
        let e = size("lots").unwrap_err().to_string();
        assert!(e.starts_with("--body-limit: \"lots\""), "{e}");
        assert!(size("0").is_err());
        assert!(size("-1MB").is_err());
        // The tile cache may be turned off, never made negative.
        assert_eq!(parse_size("--tile-cache", "0", true).unwrap(), 0);
        let e = parse_size("--tile-cache", "-5MB", true)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--tile-cache:"), "{e}");
    }

    #[test]
    fn cors_origins_are_origins_and_basemaps_templates() {
        assert_eq!(
            cors_origin("https://maps.town.example").unwrap(),
            "https://maps.town.example"
        );
        assert_eq!(
            cors_origin("http://localhost:5173/").unwrap(),
            "http://localhost:5173"
        );
        assert!(cors_origin("https://maps.town.example/page").is_err());
        assert!(cors_origin("maps.town.example").is_err());
        assert!(basemap_url("https://gis.town.example/b/{z}/{x}/{y}.png").is_ok());
        assert!(basemap_url("https://gis.town.example/b.png").is_err());
    }
}
