//! What inspections are due: every asset's next-due day from its latest inspection under
//! the profile's `[schedules]` (or the registry's default, said to be its reading), and
//! whether it is due or overdue on a day.
//!
//! The one place the facts an asset's schedule needs are read from a snapshot — its
//! kind, its priority (outfalls and interconnections by the `[monitoring]` rule, sites as
//! recorded), an SMP's practice type, its latest inspection and its latest by a
//! professional engineer — so `ms4 inspections due`, `GET /api/inspections/due`, the
//! map's `overdue` and the watershed lists answer alike.

use std::borrow::Cow;
use std::collections::HashMap;

use chrono::{NaiveDate, NaiveDateTime};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::places::{fields, Place, Places};
use super::{comma_list, flag, Ask, AskError};
use crate::domain::{Feature, Layer};
use crate::idde::report::standing::Standing as AssetStanding;
use crate::idde::report::OverdueBySchedule;
use crate::rules::monitoring::Priority;
use crate::rules::profile::{Inspector, SCHEDULE_ASSETS};
use crate::rules::schedule::{
    by_engineer, holds, standing, AssetFacts, Holds, Requirement, Standing, DEFAULT_READING,
    DEFAULT_WITHIN_DAYS,
};
use crate::rules::Profile;
use crate::spatial::monitoring::LocationKind;
use crate::spatial::query::FACILITY_LAYERS;
use crate::spatial::Snapshot;

/// `ms4 inspections due` and `GET /api/inspections/due`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct InspectionsDueParams {
    /// The day to judge on, YYYY-MM-DD (default: today).
    #[arg(long)]
    pub as_of: Option<String>,
    /// Only these assets: outfall, interconnection, catch_basin, manhole, smp, structure,
    /// site (comma-separated; default: all).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub kind: Vec<String>,
    /// List an inspection as due this many days before its day (default 30).
    #[arg(long)]
    #[schemars(range(max = 3660))]
    pub within_days: Option<u32>,
    /// List every asset, also those not due within the window.
    #[arg(long)]
    #[serde(deserialize_with = "flag")]
    pub all: bool,
}

/// The schedule asset kind of a facility layer's features.
pub fn asset_of(layer: Layer) -> &'static str {
    match layer {
        Layer::Outfalls => "outfall",
        Layer::CatchBasins => "catch_basin",
        Layer::Manholes => "manhole",
        Layer::Smps => "smp",
        Layer::Sites => "site",
        _ => "structure",
    }
}

impl InspectionsDueParams {
    /// The day asked for, or `today`.
    pub fn day(&self, today: NaiveDate) -> Result<NaiveDate, AskError> {
        match self.as_of.as_deref() {
            None => Ok(today),
            Some(s) => s.trim().parse().map_err(|_| {
                AskError::invalid("as_of", format!("{s:?} is not a date, YYYY-MM-DD"))
            }),
        }
    }

    /// The asset kinds asked for (all when none), refusing an unknown one.
    pub fn kinds(&self) -> Result<Vec<&'static str>, AskError> {
        if self.kind.is_empty() {
            return Ok(SCHEDULE_ASSETS.to_vec());
        }
        self.kind
            .iter()
            .map(|k| {
                let k = k.trim().to_ascii_lowercase().replace('-', "_");
                SCHEDULE_ASSETS
                    .iter()
                    .copied()
                    .find(|a| *a == k || format!("{a}s") == k)
                    .ok_or_else(|| {
                        AskError::invalid(
                            "kind",
                            format!(
                                "unknown asset kind {k:?}; expected {}",
                                SCHEDULE_ASSETS.join(", ")
                            ),
                        )
                    })
            })
            .collect()
    }

    /// Refuses a bad day or kind before any work.
    pub fn check(&self) -> Result<(), AskError> {
        self.day(NaiveDate::MIN)?;
        self.kinds()?;
        Ok(())
    }
}

/// One inspection an asset is held to, and where it stands.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DueItem {
    /// The asset kind (`outfall`, `smp`...).
    pub asset: &'static str,
    /// Its layer.
    pub layer: Layer,
    /// Its id.
    pub id: String,
    /// Its priority, where the schedule reads one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<Priority>,
    /// An SMP's practice type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub practice_type: Option<String>,
    /// The interval, who must inspect, and its source.
    pub requirement: Requirement,
    /// The latest inspection that counts (by an engineer, for an engineer's item).
    pub last_inspection: Option<NaiveDate>,
    /// The day the next is due by; none when never inspected (due now).
    pub next_due: Option<NaiveDate>,
    /// Where it stands on the day asked.
    pub standing: Standing,
    /// Why, in words.
    pub reason: String,
}

/// Where the schedule came from, as the answer states it.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleSource {
    /// How many `[schedules]` items the profile has.
    pub profile_items: usize,
    /// The default's reading, when some asset took it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_reading: Option<&'static str>,
    /// The priority rule's source, when an item is by priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_rule: Option<String>,
}

/// Counts over every item judged, whatever was listed.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DueSummary {
    /// Items judged.
    pub items: usize,
    /// Never inspected.
    pub never_inspected: usize,
    /// Overdue.
    pub overdue: usize,
    /// Due within the window.
    pub due: usize,
    /// Not due within it.
    pub not_due: usize,
}

/// The inspections due on a day.
#[derive(Debug, Clone, Serialize)]
pub struct InspectionsDueAnswer {
    /// The jurisdiction.
    pub jurisdiction: String,
    /// The day judged on.
    pub as_of: NaiveDate,
    /// Days ahead an inspection is listed as due.
    pub within_days: u32,
    /// Where the intervals come from.
    pub schedule: ScheduleSource,
    /// Counts.
    pub summary: DueSummary,
    /// The items: never inspected, overdue, due (and with `all`, the rest), each group
    /// by its due day.
    pub items: Vec<DueItem>,
}

impl Places for InspectionsDueAnswer {
    /// Each item's asset.
    fn places(&self) -> Vec<Place> {
        self.items
            .iter()
            .map(|i| Place::feature(i.layer, &i.id, fields(i)))
            .collect()
    }
}

/// The facts an asset's schedule is read from, found once per snapshot: the priorities
/// (only when an item depends on them) and a flat interval a caller may ask for instead.
pub struct Schedule<'a> {
    snap: &'a Snapshot,
    profile: &'a Profile,
    /// Outfalls' and interconnections' priorities by id.
    priorities: Cow<'a, HashMap<String, Priority>>,
    /// Interconnections, when an item names them: layer and id.
    interconnections: Vec<(Layer, String)>,
    /// The priority rule's source, when read.
    priority_rule: Option<String>,
    /// A flat interval of days asked for instead of the schedule.
    flat_days: Option<u32>,
}

/// The monitoring priorities by id, the interconnections (layer and id) and the priority
/// rule's source.
pub type Priorities = (
    HashMap<String, Priority>,
    Vec<(Layer, String)>,
    Option<String>,
);

/// The monitoring priorities by id, and the interconnections, worked out only when a
/// schedule item depends on them (they need the drainage network).
pub fn priorities(ask: &Ask<'_>) -> Result<Priorities, AskError> {
    let s = &ask.profile.schedules;
    let wanted = s.by_priority("outfall") || s.items.iter().any(|i| i.asset == "interconnection");
    if !wanted {
        return Ok((HashMap::new(), Vec::new(), None));
    }
    let found = super::mapping::monitoring_locations(ask, &Default::default())?;
    let mut by_id = HashMap::new();
    let mut inter = Vec::new();
    for l in &found.locations {
        by_id.insert(l.id.clone(), l.priority);
        if l.kind == LocationKind::Interconnection {
            inter.push((l.layer, l.id.clone()));
        }
    }
    Ok((by_id, inter, Some(found.rule.source)))
}

impl<'a> Schedule<'a> {
    /// The schedule of `ask`'s registry, with the priorities its items need.
    pub fn of(ask: &Ask<'a>) -> Result<Self, AskError> {
        let (priorities, interconnections, priority_rule) = priorities(ask)?;
        Ok(Schedule {
            snap: ask.snap,
            profile: ask.profile,
            priorities: Cow::Owned(priorities),
            interconnections,
            priority_rule,
            flat_days: None,
        })
    }

    /// The schedule with priorities already worked out (the map's, kept per snapshot;
    /// none when no item depends on them).
    pub fn with_priorities(
        snap: &'a Snapshot,
        profile: &'a Profile,
        priorities: Option<&'a HashMap<String, Priority>>,
    ) -> Self {
        Schedule {
            snap,
            profile,
            priorities: priorities.map_or_else(|| Cow::Owned(HashMap::new()), Cow::Borrowed),
            interconnections: Vec::new(),
            priority_rule: None,
            flat_days: None,
        }
    }

    /// Every asset held to `days` between routine inspections instead of the schedule.
    pub fn flat(mut self, days: u32) -> Self {
        self.flat_days = Some(days);
        self
    }

    /// What holds an asset: the schedule's, or the flat interval asked for in place of
    /// its routine one (the engineer's item stays).
    fn holds<'s>(&'s self, facts: &AssetFacts<'_>) -> [Option<(Holds<'s>, Option<u32>)>; 2] {
        let [routine, engineer] = holds(&self.profile.schedules, facts);
        let routine = match self.flat_days {
            Some(d) => Some((Holds::Default, Some(d))),
            None => routine.map(|h| (h, None)),
        };
        [routine, engineer.map(|h| (h, None))]
    }

    /// The facts the schedule reads of a feature, and for a site its latest inspection by
    /// the Town; none for a site that is not active (or not readable).
    fn facts<'f>(
        &self,
        asset: &'static str,
        layer: Layer,
        f: &'f Feature,
    ) -> Option<(AssetFacts<'f>, Option<NaiveDate>)> {
        let mut facts = AssetFacts {
            asset,
            ..AssetFacts::default()
        };
        let mut site_last = None;
        // An asset recorded removed or proposed is held to no inspection (as the annual
        // report leaves it out of every inventory); a status not read is held, erring
        // toward an inspection.
        if matches!(
            crate::idde::report::standing::standing(f.get(layer, "status").as_str()),
            AssetStanding::Removed | AssetStanding::Proposed
        ) && layer != Layer::Sites
        {
            return None;
        }
        match layer {
            Layer::Smps => {
                facts.practice_type = f.get(layer, "practice_type").as_str();
                facts.structural = f.get(layer, "structural").as_bool();
            }
            Layer::Sites => {
                let site = crate::sites::site::Site::from_feature(f).ok()?;
                if site.status != crate::domain::SiteStatus::Active {
                    return None;
                }
                facts.priority = site.priority.as_deref().and_then(priority_word);
                site_last = site
                    .actions
                    .iter()
                    .filter(|a| a.is_inspection_by(crate::domain::InspectorRole::Town))
                    .map(|a| a.on)
                    .max();
            }
            _ => facts.priority = self.priorities.get(&f.id).copied(),
        }
        Some((facts, site_last))
    }

    /// The latest inspection on or before `day` that meets what holds an asset: a day
    /// judged in the past is judged without the inspections made after it.
    fn last(
        &self,
        layer: Layer,
        f: &Feature,
        by: Inspector,
        site_last: Option<NaiveDate>,
        day: NaiveDate,
    ) -> Option<NaiveDate> {
        match (layer, by) {
            (Layer::Sites, _) => site_last.filter(|d| *d <= day),
            (_, Inspector::Anyone) => match self.snap.last_inspection(&f.id) {
                Some(d) if d > day => self.last_of(&f.id, day, None),
                last => last,
            },
            (_, Inspector::ProfessionalEngineer) => self.last_of(&f.id, day, Some(by_engineer)),
        }
    }

    /// The items a feature of `layer` (a facility, or a site) is held to on `as_of`.
    pub fn items(&self, layer: Layer, f: &Feature, as_of: NaiveDate, within: u32) -> Vec<DueItem> {
        self.items_as(asset_of(layer), layer, f, as_of, within)
    }

    fn items_as(
        &self,
        asset: &'static str,
        layer: Layer,
        f: &Feature,
        as_of: NaiveDate,
        within: u32,
    ) -> Vec<DueItem> {
        let Some((facts, site_last)) = self.facts(asset, layer, f) else {
            return Vec::new();
        };
        self.holds(&facts)
            .into_iter()
            .flatten()
            .map(|(h, flat)| {
                let req = match flat {
                    Some(d) => Requirement::days_asked(d),
                    None => h.requirement(),
                };
                let last = self.last(layer, f, req.by, site_last, as_of);
                let next_due = last.map(|d| req.next_due(d));
                let standing = standing(last, next_due, as_of, within);
                let reason = reason(&req, last, next_due, standing);
                DueItem {
                    asset,
                    layer,
                    id: f.id.clone(),
                    priority: facts.priority,
                    practice_type: facts.practice_type.map(str::to_string),
                    requirement: req,
                    last_inspection: last,
                    next_due,
                    standing,
                    reason,
                }
            })
            .collect()
    }

    /// The day of an asset's latest inspection whose inspector names an engineer.
    /// The latest inspection of `id` on or before `day`; with `who`, only those whose
    /// inspector it passes.
    fn last_of(
        &self,
        id: &str,
        day: NaiveDate,
        who: Option<fn(&str) -> bool>,
    ) -> Option<NaiveDate> {
        self.snap
            .inspections_of(id)
            .filter(|i| match who {
                None => true,
                Some(who) => i
                    .get(Layer::Inspections, "inspector")
                    .as_str()
                    .is_some_and(who),
            })
            .filter_map(|i| i.get(Layer::Inspections, "inspected_on").as_date())
            .filter(|d| *d <= day)
            .max()
    }

    /// Whether a feature is overdue on `day` for any inspection it is held to (never
    /// inspected, or past its day): the map's `overdue`. Judged without the items'
    /// words, since the map asks it of every feature it draws.
    pub fn overdue(&self, layer: Layer, f: &Feature, day: NaiveDate) -> bool {
        let Some((facts, site_last)) = self.facts(asset_of(layer), layer, f) else {
            return false;
        };
        self.holds(&facts).into_iter().flatten().any(|(h, flat)| {
            let last = self.last(layer, f, h.by(), site_last, day);
            let due_by = last.map(|d| match flat {
                Some(n) => Requirement::days_asked(n).next_due(d),
                None => h.next_due(d),
            });
            standing(last, due_by, day, 0).is_overdue()
        })
    }
}

fn priority_word(w: &str) -> Option<Priority> {
    match w.trim().to_ascii_lowercase().as_str() {
        "high" => Some(Priority::High),
        "medium" => Some(Priority::Medium),
        "low" => Some(Priority::Low),
        _ => None,
    }
}

/// Why an item stands where it does, in words.
fn reason(
    req: &Requirement,
    last: Option<NaiveDate>,
    due: Option<NaiveDate>,
    s: Standing,
) -> String {
    let who = match req.by {
        Inspector::Anyone => "",
        Inspector::ProfessionalEngineer => " by a professional engineer",
    };
    let rule = format!("{}{who} ({})", req.describe(), req.citation);
    match (last, due) {
        (Some(l), Some(d)) => {
            let now = match s {
                Standing::Overdue => "overdue",
                Standing::Due => "due",
                _ => "not yet due",
            };
            format!("last inspected{who} {l}; {rule}: due by {d}, {now}")
        }
        _ => format!("never inspected{who}: due now; {rule}"),
    }
}

/// The outfalls, SMPs and catch basins overdue by the schedule for the annual report of
/// `year`: judged on the year's last day, or on `as_of` for a year not yet over (the same
/// judgement as the list, the map and the watershed lists).
pub fn overdue_for_report(ask: &Ask<'_>, year: i32, as_of: NaiveDateTime) -> OverdueBySchedule {
    let Some(period) = crate::idde::report::year_period(ask.profile, year) else {
        return OverdueBySchedule::Unjudged(
            "the profile's reporting year start is not a date".into(),
        );
    };
    let day = period.to.min(as_of.date());
    let schedule = match Schedule::of(ask) {
        Ok(s) => s,
        Err(e) => return OverdueBySchedule::Unjudged(e.to_string()),
    };
    let by_layer = [Layer::Outfalls, Layer::Smps, Layer::CatchBasins]
        .into_iter()
        .map(|l| {
            let ids = ask
                .snap
                .layer(l)
                .features
                .iter()
                .filter(|f| schedule.overdue(l, f, day))
                .map(|f| f.id.clone())
                .collect();
            (l, ids)
        })
        .collect();
    OverdueBySchedule::Judged { day, by_layer }
}

/// The inspections due on the day asked: every asset of the kinds asked, judged.
pub fn inspections_due(
    ask: &Ask<'_>,
    p: &InspectionsDueParams,
) -> Result<InspectionsDueAnswer, AskError> {
    let as_of = p.day(chrono::Local::now().date_naive())?;
    let kinds = p.kinds()?;
    let within = p.within_days.unwrap_or(DEFAULT_WITHIN_DAYS);
    let schedule = Schedule::of(ask)?;
    let mut all = Vec::new();
    for layer in FACILITY_LAYERS.into_iter().chain([Layer::Sites]) {
        if !kinds.contains(&asset_of(layer)) {
            continue;
        }
        for f in &ask.snap.layer(layer).features {
            all.extend(schedule.items(layer, f, as_of, within));
        }
    }
    if kinds.contains(&"interconnection") {
        for (layer, id) in &schedule.interconnections {
            if let Some(f) = ask.snap.layer(*layer).get(id) {
                all.extend(schedule.items_as("interconnection", *layer, f, as_of, within));
            }
        }
    }
    Ok(answer(ask.profile, &schedule, as_of, within, all, p.all))
}

fn answer(
    profile: &Profile,
    schedule: &Schedule<'_>,
    as_of: NaiveDate,
    within: u32,
    mut all: Vec<DueItem>,
    list_all: bool,
) -> InspectionsDueAnswer {
    let mut summary = DueSummary::default();
    for i in &all {
        summary.items += 1;
        match i.standing {
            Standing::NeverInspected => summary.never_inspected += 1,
            Standing::Overdue => summary.overdue += 1,
            Standing::Due => summary.due += 1,
            Standing::NotDue => summary.not_due += 1,
        }
    }
    let took_default = all.iter().any(|i| i.requirement.default_reading);
    if !list_all {
        all.retain(|i| i.standing != Standing::NotDue);
    }
    all.sort_by(|a, b| {
        a.standing
            .cmp(&b.standing)
            .then_with(|| a.next_due.cmp(&b.next_due))
            .then_with(|| a.layer.cmp(&b.layer))
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| a.requirement.by.as_str().cmp(b.requirement.by.as_str()))
    });
    InspectionsDueAnswer {
        jurisdiction: profile.id.clone(),
        as_of,
        within_days: within,
        schedule: ScheduleSource {
            profile_items: profile.schedules.items.len(),
            default_reading: took_default.then_some(DEFAULT_READING),
            priority_rule: schedule.priority_rule.clone(),
        },
        summary,
        items: all,
    }
}
