//! A construction site as the code works with it: a feature of the `sites` layer
//! (stored, audited, exported and served like every layer) whose determination, phases,
//! planned milestones and action log are JSON text in it, so each action is one audited
//! update of the site, as a case's are.
//!
//! Its log's entries and the rule that appends one are in [`super::action`].

use chrono::{NaiveDate, NaiveDateTime};
use geo_types::Geometry;
use serde::{Deserialize, Serialize};

pub use super::action::{Deficiency, Guarantee, HandedOverSmp, PracticeCondition, SiteAction};
use crate::domain::{Feature, Layer, Milestone, SiteActionKind, SiteStatus, Value};

const L: Layer = Layer::Sites;

/// A phase of the work, with the area it disturbs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Phase {
    /// Its name (`Phase 1`).
    #[schemars(length(max = 1024))]
    pub name: String,
    /// The area it disturbs, square feet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed_sqft: Option<f64>,
    /// When it starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starts_on: Option<NaiveDate>,
}

/// A milestone planned for a time: its 48-hour notice is due before it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PlannedMilestone {
    /// Which.
    pub milestone: Milestone,
    /// When, `YYYY-MM-DDTHH:MM`.
    pub at: NaiveDateTime,
}

/// A construction site.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Site {
    /// Its id (`SITE-2026-0001`).
    pub site_id: String,
    /// The day it was entered.
    pub opened_on: NaiveDate,
    /// Where it is in its life.
    pub status: SiteStatus,
    /// Its name or address.
    pub name: Option<String>,
    /// The parcels it covers.
    pub parcels: Vec<String>,
    /// The landowner.
    pub owner: Option<String>,
    /// The applicant or developer.
    pub developer: Option<String>,
    /// The operator (the contractor in charge).
    pub operator: Option<String>,
    /// The determination it came from, as answered (`ms4 determine --format json`),
    /// kept whole and never recomputed.
    pub determination: Option<serde_json::Value>,
    /// The area disturbed over all phases, square feet.
    pub disturbed_sqft: Option<f64>,
    /// Its phases.
    pub phases: Vec<Phase>,
    /// Who prepared the SWPPP.
    pub swppp_preparer: Option<String>,
    /// The day the SWPPP was accepted.
    pub swppp_accepted_on: Option<NaiveDate>,
    /// Who accepted it.
    pub swppp_accepted_by: Option<String>,
    /// The notice of intent's id.
    pub noi_id: Option<String>,
    /// The SPDES general permit coverage id.
    pub spdes_permit_id: Option<String>,
    /// The day construction started (or is to start).
    pub start_on: Option<NaiveDate>,
    /// The qualified inspector (or qualified professional) named.
    pub qualified_inspector: Option<String>,
    /// The trained contractor named.
    pub trained_contractor: Option<String>,
    /// The rain gauge whose daily totals decide its storm inspections.
    pub rain_gauge: Option<String>,
    /// Its priority, with the rule's reason (see [`super::priority`]).
    pub priority: Option<String>,
    /// The milestones planned.
    pub milestones: Vec<PlannedMilestone>,
    /// Its log, in order.
    pub actions: Vec<SiteAction>,
    /// Its footprint.
    #[serde(skip)]
    pub geom: Option<Geometry<f64>>,
}

fn text_of(f: &Feature, name: &str) -> Option<String> {
    f.get(L, name).as_str().map(str::to_string)
}

fn date_of(f: &Feature, name: &str) -> Option<NaiveDate> {
    f.get(L, name).as_date()
}

fn json_of<T: serde::de::DeserializeOwned + Default>(f: &Feature, name: &str) -> Result<T, String> {
    match text_of(f, name) {
        None => Ok(T::default()),
        Some(s) => serde_json::from_str(&s).map_err(|e| format!("site {}: {name}: {e}", f.id)),
    }
}

fn json_text<T: Serialize>(v: &T) -> Value {
    serde_json::to_string(v).map_or(Value::Null, Value::Text)
}

impl Site {
    /// Reads a site from its feature; a field that is not what it should be (an outside
    /// edit) makes the site unreadable, named, rather than read as something else.
    pub fn from_feature(f: &Feature) -> Result<Site, String> {
        let status = match text_of(f, "status") {
            None => SiteStatus::Proposed,
            Some(s) => s
                .parse()
                .map_err(|e| format!("site {}: status: {e}", f.id))?,
        };
        let determination = match text_of(f, "determination") {
            None => None,
            Some(s) => Some(
                serde_json::from_str(&s)
                    .map_err(|e| format!("site {}: determination: {e}", f.id))?,
            ),
        };
        Ok(Site {
            site_id: f.id.clone(),
            opened_on: date_of(f, "opened_on")
                .ok_or_else(|| format!("site {}: no opened_on", f.id))?,
            status,
            name: text_of(f, "name"),
            parcels: text_of(f, "parcels")
                .map(|s| {
                    s.split(',')
                        .map(|p| p.trim().to_string())
                        .filter(|p| !p.is_empty())
                        .collect()
                })
                .unwrap_or_default(),
            owner: text_of(f, "owner"),
            developer: text_of(f, "developer"),
            operator: text_of(f, "operator"),
            determination,
            disturbed_sqft: f.get(L, "disturbed_sqft").as_f64(),
            phases: json_of(f, "phases")?,
            swppp_preparer: text_of(f, "swppp_preparer"),
            swppp_accepted_on: date_of(f, "swppp_accepted_on"),
            swppp_accepted_by: text_of(f, "swppp_accepted_by"),
            noi_id: text_of(f, "noi_id"),
            spdes_permit_id: text_of(f, "spdes_permit_id"),
            start_on: date_of(f, "start_on"),
            qualified_inspector: text_of(f, "qualified_inspector"),
            trained_contractor: text_of(f, "trained_contractor"),
            rain_gauge: text_of(f, "rain_gauge"),
            priority: text_of(f, "priority"),
            milestones: json_of(f, "milestones")?,
            actions: json_of(f, "actions")?,
            geom: f.geom.clone(),
        })
    }

    /// The site as a feature of the sites layer.
    pub fn to_feature(&self) -> Feature {
        let mut f = Feature::new(L, self.site_id.clone());
        let t = |s: &Option<String>| s.clone().map_or(Value::Null, Value::Text);
        let d = |s: Option<NaiveDate>| s.map_or(Value::Null, Value::Date);
        f.set(L, "opened_on", Value::Date(self.opened_on));
        f.set(L, "status", Value::Text(self.status.as_str().into()));
        f.set(L, "name", t(&self.name));
        f.set(
            L,
            "parcels",
            if self.parcels.is_empty() {
                Value::Null
            } else {
                Value::Text(self.parcels.join(","))
            },
        );
        f.set(L, "owner", t(&self.owner));
        f.set(L, "developer", t(&self.developer));
        f.set(L, "operator", t(&self.operator));
        f.set(
            L,
            "determination",
            self.determination.as_ref().map_or(Value::Null, json_text),
        );
        f.set(
            L,
            "disturbed_sqft",
            self.disturbed_sqft.map_or(Value::Null, Value::Real),
        );
        f.set(L, "phases", json_text(&self.phases));
        f.set(L, "swppp_preparer", t(&self.swppp_preparer));
        f.set(L, "swppp_accepted_on", d(self.swppp_accepted_on));
        f.set(L, "swppp_accepted_by", t(&self.swppp_accepted_by));
        f.set(L, "noi_id", t(&self.noi_id));
        f.set(L, "spdes_permit_id", t(&self.spdes_permit_id));
        f.set(L, "start_on", d(self.start_on));
        f.set(L, "qualified_inspector", t(&self.qualified_inspector));
        f.set(L, "trained_contractor", t(&self.trained_contractor));
        f.set(L, "rain_gauge", t(&self.rain_gauge));
        f.set(L, "priority", t(&self.priority));
        f.set(L, "milestones", json_text(&self.milestones));
        f.set(L, "actions", json_text(&self.actions));
        f.geom = self.geom.clone();
        f
    }

    /// When construction started: the `started` action, else the start day on record.
    pub fn started_at(&self) -> Option<NaiveDateTime> {
        self.actions
            .iter()
            .find(|a| a.kind == SiteActionKind::Started)
            .map(SiteAction::datetime)
            .or_else(|| self.start_on.map(|d| d.and_time(chrono::NaiveTime::MIN)))
    }

    /// When final stabilization was recorded, if it was.
    pub fn stabilized_at(&self) -> Option<NaiveDateTime> {
        self.actions
            .iter()
            .find(|a| a.kind == SiteActionKind::Stabilized)
            .map(SiteAction::datetime)
    }

    /// The stop-work orders in effect: each `stop_work` not yet followed by a
    /// `stop_work_lifted` (one lifting lifts the earliest order still in effect).
    pub fn stop_work_in_effect(&self) -> Vec<&SiteAction> {
        let mut open: Vec<&SiteAction> = Vec::new();
        for a in &self.actions {
            match a.kind {
                SiteActionKind::StopWork => open.push(a),
                SiteActionKind::StopWorkLifted if !open.is_empty() => {
                    open.remove(0);
                }
                _ => {}
            }
        }
        open
    }

    /// The guarantees still held: posted and not released.
    pub fn guarantees_held(&self) -> Vec<&Guarantee> {
        let released: Vec<&str> = self
            .actions
            .iter()
            .filter(|a| a.kind == SiteActionKind::GuaranteeReleased)
            .filter_map(|a| a.reference.as_deref())
            .collect();
        self.actions
            .iter()
            .filter_map(|a| a.guarantee.as_ref())
            .filter(|g| !released.contains(&g.reference.as_str()))
            .collect()
    }

    /// Whether the stored determination says a requirement (by its JSON kind, e.g.
    /// `as_built_plans`) applies: read as answered, never recomputed.
    pub fn requirement_status(&self, kind: &str) -> Option<&str> {
        self.determination
            .as_ref()?
            .pointer("/determination/requirements")
            .or_else(|| self.determination.as_ref()?.pointer("/requirements"))?
            .as_array()?
            .iter()
            .find(|r| r.pointer("/result/kind").and_then(|k| k.as_str()) == Some(kind))?
            .pointer("/result/status")?
            .as_str()
    }
}

/// The id for the next site opened in `year` among these ids: one more than the
/// highest of that year's.
pub fn next_site_id_among<'a>(ids: impl IntoIterator<Item = &'a str>, year: i32) -> String {
    let prefix = format!("SITE-{year}-");
    let n = ids
        .into_iter()
        .filter_map(|id| id.strip_prefix(&prefix)?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    format!("{prefix}{:04}", n + 1)
}
