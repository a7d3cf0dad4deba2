//! `ms4 demo`: build the demo town into a fresh embedded registry and serve it.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use serde::Deserialize;

use crate::domain::Layer;
use crate::import::{self, crs, ImportOptions};

/// Arguments of `ms4 demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// The demo data folder (holding `demo.toml`).
    #[arg(long, default_value = "data/demo")]
    pub data: PathBuf,
    /// The registry file to (re)create.
    #[arg(long, default_value = "demo.gpkg")]
    pub registry: PathBuf,
    /// The address to serve on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Build the registry, then exit instead of serving.
    #[arg(long)]
    pub no_serve: bool,
}

/// `data/demo/demo.toml`: which jurisdiction, which CRS, which file feeds which layer.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoManifest {
    /// The jurisdiction profile id.
    pub jurisdiction: String,
    /// The working CRS, `EPSG:<code>`.
    pub crs: String,
    /// Layer files, imported in this order.
    pub layers: Vec<DemoLayer>,
}

/// One file of the demo.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoLayer {
    /// The registry layer.
    pub layer: Layer,
    /// The file, relative to the demo folder.
    pub file: String,
}

fn demo_dir(given: &Path) -> PathBuf {
    if given.join("demo.toml").exists() {
        return given.to_path_buf();
    }
    // Run from elsewhere than the checkout: fall back to the checkout's copy.
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo")
}

/// Builds the demo registry; returns its store URL.
pub async fn build(data: &Path, registry: &Path) -> anyhow::Result<String> {
    let dir = demo_dir(data);
    let manifest_path = dir.join("demo.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .with_context(|| format!("reading {}", manifest_path.display()))?;
    let manifest: DemoManifest =
        toml::from_str(&text).with_context(|| format!("in {}", manifest_path.display()))?;
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let p = PathBuf::from(format!("{}{suffix}", registry.display()));
        if p.exists() {
            std::fs::remove_file(&p)
                .with_context(|| format!("removing the old {}", p.display()))?;
        }
    }
    let url = format!("sqlite://{}", registry.display());
    let (profile, stored) = super::init::load_profile_text(&manifest.jurisdiction, None)?;
    let meta = crs::registry_meta(&profile.id, crs::parse_epsg(&manifest.crs)?)?;
    let store = crate::store::create(&url, &meta).await?;
    store.store_profile(&stored, false).await?;
    println!(
        "building the demo registry {} ({}, EPSG:{})",
        registry.display(),
        profile.name,
        meta.srid
    );
    for l in &manifest.layers {
        let mut opts = ImportOptions::new(l.layer, dir.join(&l.file));
        opts.actor = "demo".into();
        let report = import::import(store.clone(), opts)
            .await
            .with_context(|| format!("importing {} into {}", l.file, l.layer))?;
        println!(
            "  {:<20} {:>6} imported, {:>3} rejected  <- {}",
            l.layer.name(),
            report.imported,
            report.rejected,
            l.file
        );
    }
    Ok(url)
}

pub(super) async fn run(a: DemoArgs) -> anyhow::Result<()> {
    let url = build(&a.data, &a.registry).await?;
    if a.no_serve {
        return Ok(());
    }
    let store = crate::store::open(&url).await?;
    crate::serve::serve_demo(store, a.listen).await
}
