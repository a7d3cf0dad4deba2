//! `ms4 list <layer>`: a layer's ids, with its name and status where the layer has them,
//! so the id another verb asks for can be looked up (`ms4 list watersheds`).

use clap::Args;

use super::output::{self, QueryFormat};
use crate::domain::Layer;
use crate::spatial::Snapshot;

/// Arguments of `ms4 list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// The layer: watersheds, outfalls, catch_basins, pipes, ...
    pub layer: Layer,
    /// How to print the list (geojson: the features, WGS 84).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

/// The fields shown beside the id, when the layer has them.
const SHOWN: [&str; 3] = ["name", "status", "kind"];

pub(super) async fn run(store_url: &str, a: ListArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let layer = a.layer;
    let fields: Vec<&str> = SHOWN
        .into_iter()
        .filter(|f| layer.field_index(f).is_some())
        .collect();
    let features = &snap.layer(layer).features;
    let rows: Vec<Vec<String>> = features
        .iter()
        .map(|f| {
            std::iter::once(f.id.clone())
                .chain(fields.iter().map(|n| {
                    let v = f.get(layer, n);
                    if v.is_null() {
                        String::new()
                    } else {
                        v.to_string()
                    }
                }))
                .collect()
        })
        .collect();
    let header: Vec<&str> = std::iter::once(layer.id_field())
        .chain(fields.iter().copied())
        .collect();
    match a.format {
        QueryFormat::Table => {
            print!("{}", output::table(&header, &rows));
            println!("{} {}", rows.len(), layer);
        }
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows)),
        QueryFormat::Json => {
            let list: Vec<serde_json::Value> = rows
                .iter()
                .map(|r| {
                    serde_json::Value::Object(
                        header
                            .iter()
                            .zip(r)
                            .map(|(h, v)| (h.to_string(), serde_json::Value::String(v.clone())))
                            .collect(),
                    )
                })
                .collect();
            println!("{}", serde_json::to_string_pretty(&list)?);
        }
        QueryFormat::Geojson => {
            let items = features
                .iter()
                .zip(&rows)
                .filter_map(|(f, r)| {
                    let props: serde_json::Map<String, serde_json::Value> = header
                        .iter()
                        .zip(r)
                        .map(|(h, v)| (h.to_string(), serde_json::Value::String(v.clone())))
                        .collect();
                    Some((f.geom.clone()?, serde_json::Value::Object(props)))
                })
                .collect();
            println!("{}", output::geojson(snap.meta.srid, items)?);
        }
    }
    Ok(())
}
