//! The assets overdue for inspection by the profile's schedule on the report's day (its
//! last day, or the day asked for a year not yet over): the one definition of "overdue"
//! the list, the map and the watershed lists use (`ms4 inspections due`), judged by the
//! caller and handed in as data, since the schedule needs the drainage network's
//! priorities and this module only counts.

use chrono::NaiveDate;

use super::standing::Inventory;
use super::{count, Count, Period};
use crate::domain::Layer;

/// The assets overdue by the schedule on a day, by layer (ids), as the schedule judged
/// them; or why they could not be judged.
#[derive(Debug, Clone, PartialEq)]
pub enum OverdueBySchedule {
    /// Judged on `day`.
    Judged {
        /// The day judged on.
        day: NaiveDate,
        /// The overdue ids of each layer judged.
        by_layer: Vec<(Layer, Vec<String>)>,
    },
    /// The schedule could not be judged (its priorities need a network that could not
    /// be built): said as an open fact, and no count is made up.
    Unjudged(String),
}

/// One count per layer judged: the standing assets overdue on the day, out of those
/// standing.
pub(super) fn overdue_counts(
    overdue: &OverdueBySchedule,
    inventories: &[(Layer, &Inventory<'_>, &str)],
) -> Vec<Count> {
    let OverdueBySchedule::Judged { day, by_layer } = overdue else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (layer, inv, what) in inventories {
        let Some((_, ids)) = by_layer.iter().find(|(l, _)| l == layer) else {
            continue;
        };
        let mut standing: Vec<String> = ids.iter().filter(|id| inv.has(id)).cloned().collect();
        standing.sort_unstable();
        standing.dedup();
        out.push(count(
            measure_of(*layer),
            &format!("{what} overdue for inspection on {day} by the profile's schedule"),
            Period {
                from: None,
                to: *day,
            },
            Some((
                format!("{what} in the registry, less those recorded removed or proposed"),
                inv.ids.len(),
            )),
            *layer,
            standing,
            Some(format!(
                "as `ms4 inspections due --as-of {day}` judges them: never inspected, or past the day their last inspection set"
            )),
        ));
    }
    out
}

/// The open fact when the schedule could not be judged.
pub(super) fn unjudged_fact(overdue: &OverdueBySchedule) -> Option<String> {
    match overdue {
        OverdueBySchedule::Unjudged(why) => Some(format!(
            "the assets overdue for inspection by the schedule are not counted: {why}"
        )),
        OverdueBySchedule::Judged { .. } => None,
    }
}

fn measure_of(layer: Layer) -> &'static str {
    match layer {
        Layer::Outfalls => "outfalls_overdue",
        Layer::Smps => "smps_overdue",
        Layer::CatchBasins => "catch_basins_overdue",
        _ => "assets_overdue",
    }
}
