//! Tiered penalties (the NY model law's land development penalties: North Castle ch. 267
//! and Carmel § 156-88D): the tier follows from the offences on record within the window,
//! and each further period of continued violation is a separate additional violation.
//! A court sets the fine within the tier's range, so the answer is a range, never one
//! figure, and it says that the convictions that decide the tier are the court's record.

use chrono::{Duration, NaiveDate};
use serde::Serialize;

use crate::rules::PenaltyTiers;

/// The range of fines for one offence.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PenaltyRange {
    /// The rule id.
    pub rule: String,
    /// The citation.
    pub citation: String,
    /// 1 for a first offence, 2 for a second within the window, ...
    pub offence: usize,
    /// Violations: the offence and each full period it continued.
    pub violations: i64,
    /// Least total, dollars.
    pub min: f64,
    /// Greatest total, dollars.
    pub max: f64,
    /// What decides it that the registry cannot.
    pub open_fact: String,
}

/// The range for an offence committed `on`, continued to `until`, given the days of the
/// offender's earlier convicted offences.
pub fn tiered_penalty(
    t: &PenaltyTiers,
    earlier: &[NaiveDate],
    on: NaiveDate,
    until: NaiveDate,
) -> PenaltyRange {
    let window = Duration::days(365 * t.window_years as i64 + (t.window_years as i64) / 4);
    let prior = earlier
        .iter()
        .filter(|d| **d < on && on - **d <= window)
        .count();
    let offence = prior + 1;
    let tier = &t.tiers[offence.min(t.tiers.len()) - 1];
    // At least one day (0 is refused at load): no division by zero whatever the data.
    let continued = (until - on).num_days().max(0) / i64::from(t.continued_per_days.max(1));
    let violations = 1 + continued;
    PenaltyRange {
        rule: t.rule.clone(),
        citation: t.citation.clone(),
        offence,
        violations,
        min: tier.min * violations as f64,
        max: tier.max * violations as f64,
        open_fact: format!(
            "the tier counts convictions for offences within {} years: a court's record, given here as the earlier offences' dates",
            t.window_years
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Profile;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn carmel_tiers_follow_the_record_within_five_years_and_each_week_counts() {
        let p = Profile::builtin("carmel-ny").unwrap();
        let t = &p.idde.penalty_tiers[0];
        assert_eq!(t.citation, "§ 156-88D");
        // A first offence continued 15 days: two full weeks, three violations, up to $350 each.
        let r = tiered_penalty(t, &[], d("2026-03-01"), d("2026-03-16"));
        assert_eq!((r.offence, r.violations, r.min, r.max), (1, 3, 0.0, 1050.0));
        // A second within five years: $350 to $700.
        let r = tiered_penalty(t, &[d("2023-01-10")], d("2026-03-01"), d("2026-03-01"));
        assert_eq!((r.offence, r.min, r.max), (2, 350.0, 700.0));
        // A third (or later) within five years: $700 to $1,000; one older than five
        // years does not count.
        let r = tiered_penalty(
            t,
            &[d("2018-01-01"), d("2023-01-10"), d("2025-05-05")],
            d("2026-03-01"),
            d("2026-03-01"),
        );
        assert_eq!((r.offence, r.min, r.max), (3, 700.0, 1000.0));
        let nc = Profile::builtin("north-castle-ny").unwrap();
        assert_eq!(
            nc.idde.penalty_tiers[0].tiers, t.tiers,
            "the same model-law tiers"
        );
    }
}
