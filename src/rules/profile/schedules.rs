//! `[schedules]`: how often each kind of asset is inspected — outfalls and monitoring
//! locations by their priority, SMPs by practice type, catch basins, sites — and which
//! inspections a law wants made by a professional engineer, as profile data.
//!
//! Each item cites where its frequency comes from: the law or permit, or
//! [`super::PROGRAM_SETTING`] when the town chose it. A profile without the section keeps
//! the registry's one default (every asset within 365 days), and every answer built on it
//! says that is the default's reading, not the town's law. The arithmetic of next-due
//! and overdue is `crate::rules::schedule`'s.
//!
//! ```toml
//! [[schedules.items]]
//! asset = "outfall"                 # outfall | interconnection | catch_basin | manhole
//!                                   #   | smp | structure | site
//! priority = "high"                 # outfalls, interconnections, sites: only this priority
//! practice_type = "bioretention"    # smps: only this practice type (words, case ignored)
//! structural = true                 # smps: only structural (or non-structural) ones
//! every = 6
//! unit = "months"                   # days | weeks | months | years
//! by = "professional_engineer"      # optional: a separate item an engineer's inspection meets
//! citation = "program setting, not from your law"
//! quote = "…"                       # optional: the law's words
//! ```

use serde::{Deserialize, Serialize};

use super::issue::Issue;
use crate::rules::monitoring::Priority;

/// The asset kinds a schedule item may name.
pub const ASSETS: [&str; 7] = [
    "outfall",
    "interconnection",
    "catch_basin",
    "manhole",
    "smp",
    "structure",
    "site",
];

/// The unit of a schedule's interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum IntervalUnit {
    /// Calendar days.
    Days,
    /// Weeks of seven days.
    Weeks,
    /// Calendar months (the same day of the month, or its last day when shorter).
    Months,
    /// Calendar years.
    Years,
}

impl IntervalUnit {
    /// The word written in answers (`days`).
    pub fn as_str(self) -> &'static str {
        match self {
            IntervalUnit::Days => "days",
            IntervalUnit::Weeks => "weeks",
            IntervalUnit::Months => "months",
            IntervalUnit::Years => "years",
        }
    }
}

/// Who must make an inspection for it to meet an item.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Inspector {
    /// Anyone: the routine inspection.
    #[default]
    Anyone,
    /// A licensed professional engineer (North Castle § 267-7A(6) for structural SMPs):
    /// an inspection meets it when its `inspector` names one ([`PE_WORDS`]).
    ProfessionalEngineer,
}

impl Inspector {
    /// The word written in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Inspector::Anyone => "anyone",
            Inspector::ProfessionalEngineer => "professional_engineer",
        }
    }
}

/// Words in an inspection's `inspector` that say a professional engineer made it (whole
/// words, case and dots ignored: `J. Smith, P.E.`, `PE`, `Professional Engineer`).
pub const PE_WORDS: [&str; 3] = ["pe", "professional engineer", "p e"];

/// One line of `[schedules]`: which assets, how often, who, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScheduleItem {
    /// The asset kind ([`ASSETS`]).
    pub asset: String,
    /// Only assets of this priority (outfalls and interconnections by the `[monitoring]`
    /// rule, sites by their recorded priority); left out, any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub priority: Option<Priority>,
    /// SMPs only: this practice type (compared as words, case ignored); left out, any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub practice_type: Option<String>,
    /// SMPs only: only structural ones (true) or only non-structural ones (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structural: Option<bool>,
    /// How many units between inspections (positive).
    pub every: u32,
    /// The unit of `every`.
    pub unit: IntervalUnit,
    /// Who must inspect; an item for a professional engineer is a due item of its own,
    /// beside the routine one.
    #[serde(default, skip_serializing_if = "is_anyone")]
    pub by: Inspector,
    /// Where the frequency comes from (a section of the law or permit), or "program
    /// setting, not from your law".
    pub citation: String,
    /// The law's words, verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quote: Option<String>,
}

fn is_anyone(i: &Inspector) -> bool {
    *i == Inspector::Anyone
}

/// `[schedules]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScheduleSettings {
    /// The items; the most specific one that matches an asset decides its interval.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<ScheduleItem>,
}

impl ScheduleSettings {
    /// Whether nothing is set (the profile has no `[schedules]`): not written back.
    pub fn is_unset(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether an item of `asset` depends on a priority (so the priorities must be
    /// worked out before the asset's interval is known).
    pub fn by_priority(&self, asset: &str) -> bool {
        self.items
            .iter()
            .any(|i| i.asset == asset && i.priority.is_some())
    }
}

/// The load-time checks of `[schedules]`: a known asset kind, a positive interval, the
/// keys that fit the asset, a citation, no item given twice.
pub(super) fn validate(s: &ScheduleSettings) -> Result<(), Issue> {
    let fail = |key: String, message: String| Err(Issue { key, message });
    for (n, item) in s.items.iter().enumerate() {
        let key = |k: &str| format!("schedules.items[{n}].{k}");
        if !ASSETS.contains(&item.asset.as_str()) {
            return fail(
                key("asset"),
                format!(
                    "unknown asset {:?}, expected {}",
                    item.asset,
                    super::one_of(&ASSETS)
                ),
            );
        }
        if item.every == 0 {
            return fail(key("every"), "the interval must be positive".into());
        }
        if item.every > 100 * 366 {
            return fail(
                key("every"),
                format!("{} {} is over a century", item.every, item.unit.as_str()),
            );
        }
        let smp = item.asset == "smp";
        if item.priority.is_some()
            && !matches!(item.asset.as_str(), "outfall" | "interconnection" | "site")
        {
            return fail(
                key("priority"),
                format!(
                    "a {} has no priority: only outfall, interconnection and site items take one",
                    item.asset
                ),
            );
        }
        if !smp && item.practice_type.is_some() {
            return fail(
                key("practice_type"),
                "only smp items take a practice type".into(),
            );
        }
        if !smp && item.structural.is_some() {
            return fail(key("structural"), "only smp items take structural".into());
        }
        if item
            .practice_type
            .as_deref()
            .is_some_and(|p| p.trim().is_empty())
        {
            return fail(
                key("practice_type"),
                "must not be empty: leave it out for any practice type".into(),
            );
        }
        if item.citation.trim().is_empty() {
            return fail(
                key("citation"),
                format!(
                    "say where the frequency comes from, or \"{}\"",
                    super::PROGRAM_SETTING
                ),
            );
        }
        if item.quote.as_deref().is_some_and(|q| q.trim().is_empty()) {
            return fail(key("quote"), "must not be empty: leave it out".into());
        }
        let same = s.items[..n].iter().position(|o| {
            o.asset == item.asset
                && o.priority == item.priority
                && o.by == item.by
                && o.structural == item.structural
                && o.practice_type.as_deref().map(super::normalise_words)
                    == item.practice_type.as_deref().map(super::normalise_words)
        });
        if let Some(first) = same {
            return fail(
                key("asset"),
                format!("the same assets as schedules.items[{first}]: give each once"),
            );
        }
    }
    Ok(())
}
