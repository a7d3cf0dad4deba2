//! `ms4 export`: write a layer to a file.

use std::path::PathBuf;

use clap::Args;

use crate::domain::Layer;

/// Arguments of `ms4 export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The registry layer.
    pub layer: Layer,
    /// The output: .gpkg, .shp, .geojson (RFC 7946, WGS 84) or .csv (WKT geometry).
    pub path: PathBuf,
}

pub(super) async fn run(store_url: &str, a: ExportArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let meta = store.meta().await?;
    let features = store.features(a.layer).await?;
    let path = a.path.clone();
    let layer = a.layer;
    let n = tokio::task::spawn_blocking(move || {
        crate::import::export::export(layer, &features, &meta, &path)
    })
    .await??;
    println!("exported {n} {} features to {}", a.layer, a.path.display());
    Ok(())
}
