//! `ms4 export`: write a layer to a file.

use std::path::PathBuf;

use clap::Args;

use crate::domain::Layer;
use crate::import::export::ExportOptions;

/// Arguments of `ms4 export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The registry layer.
    pub layer: Layer,
    /// The output: .gpkg, .shp, .geojson (RFC 7946, WGS 84) or .csv (WKT geometry).
    pub path: PathBuf,
    /// Write even when the format cannot hold every value (a shapefile cuts text to 254
    /// bytes and reads blank strings back as nulls); the losses are listed.
    #[arg(long)]
    pub allow_lossy: bool,
}

pub(super) async fn run(store_url: &str, a: ExportArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let meta = store.meta().await?;
    let features = store.features(a.layer).await?;
    let path = a.path.clone();
    let layer = a.layer;
    let opts = ExportOptions {
        allow_lossy: a.allow_lossy,
    };
    let done = tokio::task::spawn_blocking(move || {
        crate::import::export::export_with(layer, &features, &meta, &path, opts)
    })
    .await??;
    for loss in &done.losses {
        eprintln!("warning: lost in the export: {loss}");
    }
    for name in &done.renamed {
        eprintln!("note: a field written under another name (no value lost): {name}");
    }
    println!(
        "exported {} {} features to {}{}",
        done.written,
        a.layer,
        a.path.display(),
        if done.losses.is_empty() {
            String::new()
        } else {
            format!(" ({} losses, as --allow-lossy allowed)", done.losses.len())
        }
    );
    Ok(())
}
