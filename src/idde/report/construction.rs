//! The construction programme's counts: the sites active in the year, the inspections
//! logged at them (and the sites the Town itself inspected), the enforcement actions
//! and stop-work orders by site, and the guarantees held at the year's end. Each count
//! lists its records: a site's id, or an action as `SITE-ID#n` (its place in the log).

use super::{count, Count, YearDays};
use crate::domain::{InspectorRole, Layer, SiteActionKind};
use crate::sites::commands::all_sites;
use crate::sites::Site;
use crate::spatial::Snapshot;

/// Whether a site was under construction at some time in the year: started on or
/// before its last day, and not stabilized before its first.
fn active_in(s: &Site, year: YearDays) -> bool {
    let started = s.started_at().is_some_and(|t| t.date() <= year.to);
    let ended = s.stabilized_at().is_some_and(|t| t.date() < year.from);
    started && !ended
}

/// The actions of the year of these kinds, as `SITE-ID#n`, and the distinct sites.
fn actions(
    sites: &[Site],
    year: YearDays,
    pick: impl Fn(&crate::sites::SiteAction) -> bool,
) -> (Vec<String>, Vec<String>) {
    let mut ids = Vec::new();
    let mut at = Vec::new();
    for s in sites {
        for (i, a) in s.actions.iter().enumerate() {
            if year.has(a.on) && pick(a) {
                ids.push(format!("{}#{}", s.site_id, i + 1));
                at.push(s.site_id.clone());
            }
        }
    }
    ids.sort();
    at.sort();
    at.dedup();
    (ids, at)
}

/// The construction counts of the year.
pub(super) fn construction_counts(snap: &Snapshot, year: YearDays) -> Vec<Count> {
    let (sites, unreadable) = all_sites(snap);
    let yr = year.period();
    let mut active: Vec<String> = sites
        .iter()
        .filter(|s| active_in(s, year))
        .map(|s| s.site_id.clone())
        .collect();
    active.sort();
    let (inspections, _) = actions(&sites, year, |a| a.kind == SiteActionKind::Inspection);
    let (_, by_town) = actions(&sites, year, |a| a.is_inspection_by(InspectorRole::Town));
    let (enforcement, _) = actions(&sites, year, |a| {
        matches!(a.kind, SiteActionKind::Notice | SiteActionKind::StopWork)
    });
    let (stop_work, _) = actions(&sites, year, |a| a.kind == SiteActionKind::StopWork);
    let mut held = Vec::new();
    let mut dollars = 0.0;
    for s in &sites {
        // Held at the year's end: posted by then and not released by then.
        let mut upto = s.clone();
        upto.actions.retain(|a| a.on <= year.to);
        for g in upto.guarantees_held() {
            held.push(format!("{}/{}", s.site_id, g.reference));
            dollars += g.amount;
        }
    }
    held.sort();
    let note = (!unreadable.is_empty()).then(|| {
        format!(
            "{} site(s) could not be read and are not counted: {}",
            unreadable.len(),
            unreadable.join("; ")
        )
    });
    let active_n = active.len();
    let mut guarantees = count(
        "guarantees_held",
        "Performance and maintenance guarantees held at the year's end (site/reference), with their dollars",
        year.cumulative(),
        None,
        Layer::Sites,
        held,
        None,
    );
    guarantees.dollars = Some(dollars + 0.0);
    vec![
        count(
            "sites_active",
            "Construction sites active in the year (started by its end, not stabilized before its start)",
            yr,
            None,
            Layer::Sites,
            active,
            note,
        ),
        count(
            "construction_inspections",
            "Construction-phase inspections logged at sites in the year (contractor, qualified inspector and Town)",
            yr,
            None,
            Layer::Sites,
            inspections,
            None,
        ),
        count(
            "sites_inspected_by_town",
            "Active sites the Town itself inspected in the year (distinct sites)",
            yr,
            Some(("construction sites active in the year".into(), active_n)),
            Layer::Sites,
            by_town,
            None,
        ),
        count(
            "site_enforcement_actions",
            "Enforcement actions at sites in the year: notices of violation and stop-work orders (SITE-ID#n)",
            yr,
            None,
            Layer::Sites,
            enforcement,
            None,
        ),
        count(
            "stop_work_orders",
            "Stop-work orders issued at sites in the year (SITE-ID#n)",
            yr,
            None,
            Layer::Sites,
            stop_work,
            None,
        ),
        guarantees,
    ]
}
