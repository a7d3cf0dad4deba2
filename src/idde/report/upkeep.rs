//! The upkeep counts: SMPs inspected and catch basins cleaned in the year (construction
//! inspections are counted from the sites' logs, in [`super::construction`]). An asset count is of distinct assets that stand (not recorded removed or
//! proposed) out of the assets that stand; how many inspection records lie behind it is
//! a count of its own, so two visits to one SMP are never two SMPs.

use rustc_hash::FxHashMap;

use super::standing::Inventory;
use super::{count, Count, YearDays};
use crate::domain::{Layer, Value};
use crate::spatial::Snapshot;

/// The inspections of the year of the kinds counted here: by kind, the inspection ids
/// and the assets inspected.
fn of_year(snap: &Snapshot, year: YearDays) -> FxHashMap<&str, Vec<(&str, &str)>> {
    let l = Layer::Inspections;
    let (ki, ai, di) = (
        l.field_index("kind").expect("field"),
        l.field_index("asset_id").expect("field"),
        l.field_index("inspected_on").expect("field"),
    );
    let mut by_kind: FxHashMap<&str, Vec<(&str, &str)>> = FxHashMap::default();
    for f in &snap.layer(l).features {
        let Some(k) = f.values[ki].as_str() else {
            continue;
        };
        if !matches!(k, "smp_maintenance" | "catch_basin_cleaning") {
            continue;
        }
        if !matches!(&f.values[di], Value::Date(d) if year.has(*d)) {
            continue;
        }
        let asset = f.values[ai].as_str().unwrap_or_default();
        by_kind.entry(k).or_default().push((f.id.as_str(), asset));
    }
    by_kind
}

/// The distinct assets of some inspections that are in `inv`, sorted.
fn assets_in(rows: &[(&str, &str)], inv: &Inventory<'_>) -> Vec<String> {
    let mut v: Vec<String> = rows
        .iter()
        .filter(|(_, a)| inv.has(a))
        .map(|(_, a)| a.to_string())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The ids of some inspections, sorted.
fn ids(rows: &[(&str, &str)]) -> Vec<String> {
    let mut v: Vec<String> = rows.iter().map(|(i, _)| i.to_string()).collect();
    v.sort_unstable();
    v
}

/// The SMPs inspected, the inspection records behind them and the catch basins cleaned
/// in the year.
pub(super) fn upkeep_counts(
    snap: &Snapshot,
    smps: &Inventory<'_>,
    basins: &Inventory<'_>,
    year: YearDays,
) -> Vec<Count> {
    let yr = year.period();
    let by_kind = of_year(snap, year);
    let rows = |k: &str| by_kind.get(k).map(Vec::as_slice).unwrap_or_default();
    let smp_rows = rows("smp_maintenance");
    vec![
        count(
            "smps_inspected",
            "SMPs inspected or maintained in the year (distinct SMPs)",
            yr,
            Some((
                "SMPs in the registry, less those recorded removed or proposed".into(),
                smps.ids.len(),
            )),
            Layer::Smps,
            assets_in(smp_rows, smps),
            Some("an SMP inspected more than once counts once; the records are smp_inspection_records".into()),
        ),
        count(
            "smp_inspection_records",
            "SMP inspection and maintenance records in the year (one SMP may have several)",
            yr,
            None,
            Layer::Inspections,
            ids(smp_rows),
            None,
        ),
        count(
            "catch_basins_cleaned",
            "Catch basins cleaned in the year (distinct catch basins)",
            yr,
            Some((
                "catch basins in the registry, less those recorded removed or proposed".into(),
                basins.ids.len(),
            )),
            Layer::CatchBasins,
            assets_in(rows("catch_basin_cleaning"), basins),
            None,
        ),
    ]
}
