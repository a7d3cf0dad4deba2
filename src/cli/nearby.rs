//! `ms4 nearby`: facilities near a point, nearest first.

use clap::Args;

use super::output::{self, QueryFormat};
use crate::answer::nearby::{nearby, NearbyParams};
use crate::answer::{to_pretty_json, Ask};
use crate::spatial::query::Access;
use crate::spatial::Snapshot;

/// Arguments of `ms4 nearby`.
#[derive(Debug, Args)]
pub struct NearbyArgs {
    /// The question (the same parameters as `GET /api/nearby`).
    #[command(flatten)]
    pub ask: NearbyParams,
    /// How to print the answer.
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub format: QueryFormat,
}

pub(super) async fn run(store_url: &str, a: NearbyArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let answer = nearby(&Ask::new(&snap, &profile), &a.ask).map_err(|e| e.into_cli())?;
    let found = &answer.facilities;
    let header = [
        "layer",
        "id",
        "distance",
        "unit",
        "bearing",
        "direction",
        "status",
        "last_inspection",
        "access",
    ];
    let rows = || -> Vec<Vec<String>> {
        found
            .iter()
            .map(|n| {
                vec![
                    n.layer.name().to_string(),
                    n.id.clone(),
                    format!("{:.2}", n.distance),
                    n.unit.symbol().to_string(),
                    format!("{:.0}", n.bearing_deg),
                    n.direction.to_string(),
                    n.status.clone().unwrap_or_default(),
                    n.last_inspection.clone().unwrap_or_else(|| "never".into()),
                    match &n.access {
                        Access::Easement {
                            easement_id,
                            instrument,
                            ..
                        } => match instrument {
                            Some(i) => format!("easement {easement_id} ({i})"),
                            None => format!("easement {easement_id}"),
                        },
                        Access::NeedsReview { easement_id, .. } => {
                            format!("review easement {easement_id}")
                        }
                        Access::NoRecordedEasement => "no recorded easement".into(),
                    },
                ]
            })
            .collect()
    };
    match a.format {
        QueryFormat::Geojson => println!("{}", output::answer_geojson(&snap, &answer)?),
        QueryFormat::Table => print!("{}", output::table(&header, &rows())),
        QueryFormat::Csv => print!("{}", output::csv(&header, &rows())),
        QueryFormat::Json => println!("{}", to_pretty_json(&answer)?),
    }
    Ok(())
}
