//! The outfall counts: the inventory (outfalls that stand: not recorded removed or
//! proposed), those mapped, and the dry-weather screenings of the year. Every outfall
//! count is out of the inventory and counts only outfalls in it; a screening of an outfall
//! outside it is listed on its own, never in a share. A screening meets the dry-weather
//! rule when the profile's rule, applied to its recorded hours since rain by the function
//! the API and an import record it with, says so.

use chrono::NaiveDate;
use rustc_hash::FxHashSet;

use super::standing::Inventory;
use super::{count, Count, YearDays};
use crate::domain::{Layer, Value};
use crate::rules::Profile;
use crate::spatial::Snapshot;

/// One screening as the report reads it.
struct Screened<'a> {
    id: &'a str,
    asset: &'a str,
    on: NaiveDate,
    dry: Option<bool>,
    not_found: bool,
    not_accessible: bool,
}

fn screenings<'a>(snap: &'a Snapshot, profile: &Profile) -> Vec<Screened<'a>> {
    let l = Layer::Inspections;
    let (ki, ai, di, hi, fi) = (
        l.field_index("kind").expect("field"),
        l.field_index("asset_id").expect("field"),
        l.field_index("inspected_on").expect("field"),
        l.field_index("hours_since_rain").expect("field"),
        l.field_index("findings").expect("field"),
    );
    snap.layer(l)
        .features
        .iter()
        .filter(|f| f.values[ki].as_str() == Some("dry_weather_screening"))
        .filter_map(|f| {
            let on = match &f.values[di] {
                Value::Date(d) => *d,
                _ => return None,
            };
            let findings = f.values[fi].as_str().unwrap_or("");
            Some(Screened {
                id: &f.id,
                asset: f.values[ai].as_str()?,
                on,
                // The rule of the profile the report states, not the one in force when
                // the row was written.
                dry: crate::idde::screening::is_dry_weather(
                    f.values[hi].as_f64(),
                    profile.idde.dry_weather_hours,
                ),
                // Cheap tests on the stored JSON: the keys are written only when true.
                not_found: findings.contains("\"not_found\":true"),
                not_accessible: findings.contains("\"not_accessible\":true"),
            })
        })
        .collect()
}

/// What an outfall count is out of: the outfalls in the inventory.
fn inventory_denominator(inv: &Inventory<'_>) -> Option<(String, usize)> {
    Some((
        "outfalls in the inventory (not recorded removed or proposed)".to_string(),
        inv.ids.len(),
    ))
}

/// The outfalls in the inventory, those mapped, and those left out of it.
pub(super) fn inventory_counts(snap: &Snapshot, inv: &Inventory<'_>, year: YearDays) -> Vec<Count> {
    let cumulative = year.cumulative();
    let outfalls = snap.layer(Layer::Outfalls);
    let mut mapped: Vec<String> = outfalls
        .features
        .iter()
        .filter(|f| f.geom.is_some() && inv.has(&f.id))
        .map(|f| f.id.clone())
        .collect();
    mapped.sort_unstable();
    vec![
        count(
            "outfalls_in_inventory",
            "Outfalls in the inventory: those recorded, less those recorded removed or proposed",
            cumulative,
            None,
            Layer::Outfalls,
            inv.ids.clone(),
            None,
        ),
        count(
            "outfalls_mapped",
            "Outfalls in the inventory mapped (with a location)",
            cumulative,
            inventory_denominator(inv),
            Layer::Outfalls,
            mapped,
            None,
        ),
        count(
            "outfalls_not_in_inventory",
            "Outfalls recorded removed or proposed: in no inventory or denominator",
            cumulative,
            None,
            Layer::Outfalls,
            inv.left_out.iter().map(|(id, _)| id.clone()).collect(),
            None,
        ),
    ]
}

/// Distinct outfalls of some screenings, sorted.
fn distinct<'a>(it: impl Iterator<Item = &'a Screened<'a>>) -> Vec<String> {
    let mut seen = FxHashSet::default();
    let mut v: Vec<String> = it
        .filter(|s| seen.insert(s.asset))
        .map(|s| s.asset.to_string())
        .collect();
    v.sort();
    v
}

/// The ids of some screenings, sorted.
fn ids<'a>(it: impl Iterator<Item = &'a Screened<'a>>) -> Vec<String> {
    let mut v: Vec<String> = it.map(|s| s.id.to_string()).collect();
    v.sort();
    v
}

/// The dry-weather screenings: outfalls screened in the year and since coverage began,
/// the screenings counted and not, the outfalls not found or not reached, and the
/// screenings of outfalls outside the inventory.
pub(super) fn screening_counts(
    snap: &Snapshot,
    profile: &Profile,
    inv: &Inventory<'_>,
    year: YearDays,
) -> Vec<Count> {
    let (yr, cumulative, to) = (year.period(), year.cumulative(), year.to);
    let sc = screenings(snap, profile);
    let of_year = || sc.iter().filter(|s| year.has(s.on));
    let in_inv = || of_year().filter(|s| inv.has(s.asset));
    let counted = |s: &&Screened<'_>| s.dry == Some(true) && !s.not_found && !s.not_accessible;
    let inv_denom = || inventory_denominator(inv);
    let hours = profile.idde.dry_weather_hours;
    vec![
        count(
            "outfalls_screened",
            "Outfalls in the inventory screened in dry weather in the year",
            yr,
            inv_denom(),
            Layer::Outfalls,
            distinct(in_inv().filter(counted)),
            Some(format!("a screening counts when at least {hours} hours had passed since rain of 0.1 inch (its recorded hours_since_rain, under the profile's rule) and the outfall was found and reached")),
        ),
        count(
            "outfalls_screened_cumulative",
            "Outfalls in the inventory screened in dry weather since coverage began",
            cumulative,
            inv_denom(),
            Layer::Outfalls,
            distinct(
                sc.iter()
                    .filter(|s| s.on <= to && inv.has(s.asset))
                    .filter(counted),
            ),
            None,
        ),
        count(
            "dry_weather_screenings",
            "Dry-weather screenings in the year of outfalls in the inventory",
            yr,
            Some((
                "screenings in the year of outfalls in the inventory".into(),
                in_inv().count(),
            )),
            Layer::Inspections,
            ids(in_inv().filter(counted)),
            None,
        ),
        count(
            "screenings_not_dry_weather",
            "Screenings too soon after rain (or without the hours since rain): not counted",
            yr,
            None,
            Layer::Inspections,
            ids(in_inv().filter(|s| s.dry != Some(true))),
            None,
        ),
        count(
            "outfalls_not_found",
            "Outfalls in the inventory not found in the year",
            yr,
            inv_denom(),
            Layer::Outfalls,
            distinct(in_inv().filter(|s| s.not_found)),
            None,
        ),
        count(
            "outfalls_not_accessible",
            "Outfalls in the inventory not accessible in the year",
            yr,
            inv_denom(),
            Layer::Outfalls,
            distinct(in_inv().filter(|s| s.not_accessible)),
            None,
        ),
        count(
            "screenings_outside_inventory",
            "Screenings in the year of an outfall not in the inventory (recorded removed or proposed, or no outfall of that id): in no count above",
            yr,
            None,
            Layer::Inspections,
            ids(of_year().filter(|s| !inv.has(s.asset))),
            None,
        ),
    ]
}
