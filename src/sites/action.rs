//! The entries of a site's log, and the rule that appends one. Pure: [`new_action`]
//! checks an action against the site as stored and returns the site with it
//! ([`super::commands`] applies it to the stored row inside the write's transaction).
//! The status moves one step at a time (proposed → approved → active → stabilized →
//! closed); an action that would skip a step, or any action on a closed site, is
//! refused naming the field, and so is a kind without the fields it needs.

use chrono::{NaiveDate, NaiveDateTime};
use serde::{Deserialize, Serialize};

use super::site::Site;
use super::{close_out, stabilization};
use crate::domain::{text, InspectorRole, Milestone, SiteActionKind, SiteStatus};
use crate::idde::FieldError;

/// The condition of one erosion and sediment control practice at an inspection.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PracticeCondition {
    /// The practice (`silt fence`, `inlet protection`, `sediment trap 1`).
    #[schemars(length(max = 1024))]
    pub practice: String,
    /// Its condition (`effective`, `needs repair`, `failed`, `missing`).
    #[schemars(length(max = 1024))]
    pub condition: String,
    /// For a sediment trap or pond: the share of its design capacity filled, percent
    /// (past 50% the sediment must be removed: North Castle § 267-7A(2), Carmel
    /// § 156-83A).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100))]
    pub filled_percent: Option<f64>,
}

/// A deficiency an inspection found, with its corrective action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Deficiency {
    /// What is wrong.
    #[schemars(length(max = 1024))]
    pub deficiency: String,
    /// The corrective action required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub corrective_action: Option<String>,
    /// The day it is to be corrected by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due_on: Option<NaiveDate>,
}

/// A performance or maintenance guarantee (North Castle § 267-8B, Carmel § 156-87).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Guarantee {
    /// The site's own name for it, which a release names (`PG-1`).
    #[schemars(length(max = 1024))]
    pub reference: String,
    /// `performance` or `maintenance`.
    #[schemars(length(max = 1024))]
    pub kind: String,
    /// Dollars.
    pub amount: f64,
    /// The bank or surety.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub institution: Option<String>,
    /// In whose favour (the Town).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub beneficiary: Option<String>,
}

/// A stormwater management practice handed over at close-out: it becomes a feature of
/// the `smps` layer, and so enters the post-construction programme (and the check of
/// SMPs without a recorded easement).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandedOverSmp {
    /// Its asset id in the `smps` layer (new).
    #[schemars(length(max = 1024))]
    pub asset_id: String,
    /// The practice (`wet pond`, `bioretention`, `infiltration trench`).
    #[schemars(length(max = 1024))]
    pub practice_type: String,
    /// Whether it has structural components (North Castle § 267-7A(6): a professional
    /// engineer inspects those).
    pub structural: bool,
    /// Its owner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub owner: Option<String>,
    /// Who maintains it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub responsible_party: Option<String>,
    /// Where it is: a GeoJSON (Multi)Polygon in WGS 84; else a point inside the site's
    /// footprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub footprint: Option<serde_json::Value>,
}

/// One entry of a site's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SiteAction {
    /// What was done.
    pub kind: SiteActionKind,
    /// The day.
    pub on: NaiveDate,
    /// The time of day, `HH:MM` (a storm inspection's 24 hours are counted to the
    /// minute).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 5))]
    pub at: Option<String>,
    /// Who acted (the inspector, the office that issued the order).
    #[serde(default)]
    #[schemars(length(max = 1024))]
    pub by: String,
    /// Who recorded it: set by the registry, never taken from a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub recorded_by: Option<String>,
    /// A client's key for this action: the same action sent again with it is stored
    /// once; another action with it is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 256))]
    pub idempotency_key: Option<String>,
    /// For an inspection: who made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<InspectorRole>,
    /// For an inspection: each erosion and sediment control practice's condition.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub practices: Vec<PracticeCondition>,
    /// For an inspection: the deficiencies found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deficiencies: Vec<Deficiency>,
    /// For an inspection: the area disturbed at the time, square feet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbed_sqft: Option<f64>,
    /// For an inspection: whether soil disturbance was being performed that day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub soil_disturbance: Option<bool>,
    /// For an inspection: the deficiencies of earlier inspections found corrected, by
    /// their words as logged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub corrected: Vec<String>,
    /// For an inspection: its photos' SHA-256 (stored with `ms4 inspect photo` or
    /// `POST /api/inspections/{id}/photos`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub photos: Vec<String>,
    /// For a milestone notice: which milestone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub milestone: Option<Milestone>,
    /// For a milestone notice: when the milestone is to happen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub milestone_at: Option<NaiveDateTime>,
    /// For a notice: the case whose land development notice of violation it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub case_id: Option<String>,
    /// For a guarantee: the guarantee posted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guarantee: Option<Guarantee>,
    /// For a release: the guarantee released (its `reference`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub reference: Option<String>,
    /// For final stabilization: the density of the uniform, perennial vegetative cover
    /// established over the entire pervious surface, percent (at least 80: North Castle
    /// § 267-4B STABILIZED; the SPDES general permit's final stabilization).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 100))]
    pub cover_percent: Option<f64>,
    /// For final stabilization: the equivalent stabilization measures applied on all
    /// disturbed areas not covered by permanent structures, concrete or pavement, instead
    /// of the cover (`permanent landscape mulch`, `rock riprap`, `washed/crushed stone`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub equivalent_measures: Vec<String>,
    /// For as-built plans: the professional engineer who certified them (name and
    /// licence number).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub certified_by: Option<String>,
    /// For the maintenance agreement: recorded as a deed restriction on the property.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deed_restriction: Option<bool>,
    /// For an agreement or easement recorded: where and under what number (`Putnam
    /// County Clerk, Liber 2210 page 14`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub recording: Option<String>,
    /// For a close: the SMPs handed over to the post-construction programme.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub smps: Vec<HandedOverSmp>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 65536))]
    pub notes: Option<String>,
}

impl SiteAction {
    /// An action of `kind` on a day, with nothing else said.
    pub fn new(kind: SiteActionKind, on: NaiveDate) -> Self {
        SiteAction {
            kind,
            on,
            at: None,
            by: String::new(),
            recorded_by: None,
            idempotency_key: None,
            role: None,
            practices: Vec::new(),
            deficiencies: Vec::new(),
            corrected: Vec::new(),
            disturbed_sqft: None,
            soil_disturbance: None,
            photos: Vec::new(),
            milestone: None,
            milestone_at: None,
            case_id: None,
            guarantee: None,
            reference: None,
            cover_percent: None,
            equivalent_measures: Vec::new(),
            certified_by: None,
            deed_restriction: None,
            recording: None,
            smps: Vec::new(),
            notes: None,
        }
    }

    /// When it was done, to the minute (the start of its day without a time).
    pub fn datetime(&self) -> NaiveDateTime {
        crate::idde::calendar::at_time(self.on, self.at.as_deref())
    }

    /// An inspection by `role`.
    pub fn is_inspection_by(&self, role: InspectorRole) -> bool {
        self.kind == SiteActionKind::Inspection && self.role == Some(role)
    }

    /// The first field whose text is over its limit or holds a character a record may
    /// not ([`crate::domain::text`]), with why.
    fn text_problem(&self) -> Option<FieldError> {
        let mut lines: Vec<(String, &str)> = vec![("by".into(), self.by.as_str())];
        for (f, v) in [
            ("at", self.at.as_deref()),
            ("idempotency_key", self.idempotency_key.as_deref()),
            ("case_id", self.case_id.as_deref()),
            ("reference", self.reference.as_deref()),
            ("certified_by", self.certified_by.as_deref()),
            ("recording", self.recording.as_deref()),
        ] {
            if let Some(v) = v {
                lines.push((f.into(), v));
            }
        }
        for (i, p) in self.practices.iter().enumerate() {
            lines.push((format!("practices[{i}].practice"), &p.practice));
            lines.push((format!("practices[{i}].condition"), &p.condition));
        }
        for (i, d) in self.deficiencies.iter().enumerate() {
            lines.push((format!("deficiencies[{i}].deficiency"), &d.deficiency));
            if let Some(c) = &d.corrective_action {
                lines.push((format!("deficiencies[{i}].corrective_action"), c));
            }
        }
        for (i, m) in self.smps.iter().enumerate() {
            lines.push((format!("smps[{i}].asset_id"), &m.asset_id));
            lines.push((format!("smps[{i}].practice_type"), &m.practice_type));
            for v in [&m.owner, &m.responsible_party].into_iter().flatten() {
                lines.push((format!("smps[{i}]"), v));
            }
        }
        for (i, m) in self.equivalent_measures.iter().enumerate() {
            lines.push((format!("equivalent_measures[{i}]"), m));
        }
        for (i, c) in self.corrected.iter().enumerate() {
            lines.push((format!("corrected[{i}]"), c));
        }
        for (i, p) in self.photos.iter().enumerate() {
            lines.push((format!("photos[{i}]"), p));
        }
        if let Some(g) = &self.guarantee {
            lines.push(("guarantee.reference".into(), &g.reference));
            lines.push(("guarantee.kind".into(), &g.kind));
        }
        for (field, v) in lines {
            if let Some(why) = text::line_problem(v) {
                return Some(err(&field, why));
            }
        }
        self.notes
            .as_deref()
            .and_then(text::note_problem)
            .map(|why| err("notes", why))
    }
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// What appending an action to a site does.
#[derive(Debug)]
pub enum Appended {
    /// The site with the action appended (and its status moved, where the action moves
    /// it).
    Site(Box<Site>),
    /// The same action was stored before under its idempotency key: nothing to write.
    Again,
}

/// Checks an action against the site as stored and appends it: a status moves one step
/// only, a closed site takes nothing more, a lifting needs an order in effect, a release
/// a guarantee held, and each kind the fields it needs. `by` records it; `today` refuses
/// a day in the future.
pub fn new_action(
    site: &Site,
    mut a: SiteAction,
    recorded_by: &str,
    today: NaiveDate,
) -> Result<Appended, FieldError> {
    if let Some(e) = a.text_problem() {
        return Err(e);
    }
    if let Some(k) = &a.idempotency_key {
        if let Some(prev) = site
            .actions
            .iter()
            .find(|p| p.idempotency_key.as_deref() == Some(k))
        {
            let mut same = prev.clone();
            same.recorded_by = None;
            return if same == a {
                Ok(Appended::Again)
            } else {
                Err(err(
                    "idempotency_key",
                    format!("{k:?} was used for another action on {}; nothing was written (send a new key for a new action)", prev.on),
                ))
            };
        }
    }
    if let Some(why) = text::past_day_problem(a.on, today) {
        return Err(err("on", why));
    }
    if let Some(t) = &a.at {
        if crate::idde::calendar::time_of_day(t).is_none() {
            return Err(err("at", format!("{t:?} is not a time of day, HH:MM")));
        }
    }
    if site.status == SiteStatus::Closed {
        return Err(err(
            "kind",
            format!("site {} is closed: it takes no more actions", site.site_id),
        ));
    }
    let mut next = site.clone();
    // A stabilized site takes a further `stabilized` action: the evidence it was logged
    // without (see [`stabilization`]).
    let evidence_again =
        a.kind == SiteActionKind::Stabilized && site.status == SiteStatus::Stabilized;
    if let Some(to) = site.status.after(a.kind).filter(|_| !evidence_again) {
        let from = SiteStatus::before(to).expect("every status after proposed has one before");
        if site.status != from {
            return Err(err(
                "kind",
                format!(
                    "{} moves a site from {from} to {to}; site {} is {}",
                    a.kind, site.site_id, site.status
                ),
            ));
        }
        next.status = to;
    }
    check_kind(site, &a, evidence_again)?;
    if !a.smps.is_empty() && a.kind != SiteActionKind::Close {
        return Err(err("smps", "SMPs are handed over when the site closes"));
    }
    if a.kind == SiteActionKind::Started && next.start_on.is_none() {
        next.start_on = Some(a.on);
    }
    a.recorded_by = Some(recorded_by.to_string());
    next.actions.push(a);
    Ok(Appended::Site(Box::new(next)))
}

/// The fields each kind needs, and what it needs of the site: a stabilization its
/// evidence judged by the definition ([`stabilization::check`]; `evidence_again` is a
/// stabilized site taking the evidence it was logged without), as-built plans the
/// engineer who certified them, an agreement its recording as a deed restriction, a
/// lifting an order in effect, a release a guarantee held, a closing what
/// [`check_close`] asks.
fn check_kind(site: &Site, a: &SiteAction, evidence_again: bool) -> Result<(), FieldError> {
    if a.kind != SiteActionKind::Stabilized
        && (a.cover_percent.is_some() || !a.equivalent_measures.is_empty())
    {
        return Err(err(
            if a.cover_percent.is_some() {
                "cover_percent"
            } else {
                "equivalent_measures"
            },
            "the evidence of final stabilization is given with a stabilized action",
        ));
    }
    match a.kind {
        SiteActionKind::Stabilized => stabilization::check(a, evidence_again)?,
        SiteActionKind::AsBuilt if a.certified_by.as_deref().is_none_or(|c| c.trim().is_empty()) => {
            return Err(err(
                "certified_by",
                "as-built plans \"must be certified by a professional engineer\": name the engineer who certified them",
            ))
        }
        SiteActionKind::AgreementRecorded if a.deed_restriction != Some(true) => {
            return Err(err(
                "deed_restriction",
                "the maintenance agreement is \"recorded in the office of the County Clerk as a deed restriction on the property\": say it was (deed_restriction: true)",
            ))
        }
        SiteActionKind::Inspection if a.role.is_none() => {
            return Err(err(
                "role",
                format!(
                    "an inspection says who made it: {}",
                    InspectorRole::list()
                ),
            ))
        }
        SiteActionKind::MilestoneNotice if a.milestone.is_none() || a.milestone_at.is_none() => {
            return Err(err(
                if a.milestone.is_none() { "milestone" } else { "milestone_at" },
                "a milestone notice names the milestone and when it is to happen (milestone_at, YYYY-MM-DDTHH:MM)",
            ))
        }
        SiteActionKind::Guarantee => {
            let Some(g) = &a.guarantee else {
                return Err(err(
                    "guarantee",
                    "a guarantee action gives the guarantee: {reference, kind, amount, institution?, beneficiary?}",
                ));
            };
            if !(g.amount.is_finite() && g.amount > 0.0) {
                return Err(err("guarantee.amount", "a guarantee's amount is a positive number of dollars"));
            }
            if site.guarantees_held().iter().any(|h| h.reference == g.reference) {
                return Err(err(
                    "guarantee.reference",
                    format!("a guarantee {:?} is already held", g.reference),
                ));
            }
        }
        SiteActionKind::GuaranteeReleased => {
            let held = site.guarantees_held();
            if !held.iter().any(|g| Some(g.reference.as_str()) == a.reference.as_deref()) {
                return Err(err(
                    "reference",
                    format!(
                        "name a guarantee held: {}",
                        held.iter().map(|g| g.reference.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                ));
            }
        }
        SiteActionKind::StopWorkLifted if site.stop_work_in_effect().is_empty() => {
            return Err(err(
                "kind",
                format!("site {} has no stop-work order in effect", site.site_id),
            ))
        }
        SiteActionKind::Close => check_close(site, a)?,
        _ => {}
    }
    Ok(())
}

/// What a closing needs: each SMP handed over with its own id, no stop-work order in
/// effect, final stabilization with its evidence, and the hand-over the law requires
/// ([`close_out`]).
fn check_close(site: &Site, a: &SiteAction) -> Result<(), FieldError> {
    for (i, m) in a.smps.iter().enumerate() {
        if m.asset_id.trim().is_empty() || a.smps[..i].iter().any(|o| o.asset_id == m.asset_id) {
            return Err(err(
                &format!("smps[{i}].asset_id"),
                "each SMP handed over has its own asset id",
            ));
        }
    }
    if !site.stop_work_in_effect().is_empty() {
        return Err(err(
            "kind",
            "a stop-work order is in effect: it is lifted (the Town confirms compliance) before the site closes",
        ));
    }
    // Final stabilization, with its evidence, then the hand-over.
    if stabilization::evidence(site).is_none() {
        return Err(err(
            "cover_percent",
            format!(
                "site {} is stabilized without the evidence final stabilization is judged by ({}): log a stabilized action with the cover (cover_percent, at least 80) or the equivalent measures (equivalent_measures) before closing",
                site.site_id,
                stabilization::DEFINITION
            ),
        ));
    }
    if let Some(why) = close_out::unmet(site, !a.smps.is_empty()) {
        return Err(err("kind", why));
    }
    Ok(())
}
