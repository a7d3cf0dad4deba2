//! The duties of a site that follow from its enforcement and its inspections' findings:
//! the deficiencies to correct by their day, and the rule that only stabilization may
//! proceed while one is open; sediment traps past half full; more than five acres
//! disturbed at one time; and the stop-work orders in effect.

use chrono::NaiveDateTime;

use super::{end_of, rule_of, status_of, Due};
use crate::rules::profile::Role;
use crate::rules::Profile;
use crate::sites::site::{Site, SiteAction};

/// The deficiencies inspections found, each due by its day until a later inspection
/// records it corrected; while any is open, only stabilization may proceed (Carmel
/// § 156-83E; North Castle's inspection section A(1)(b)).
pub(super) fn deficiencies(
    site: &Site,
    profile: &Profile,
    as_of: NaiveDateTime,
    out: &mut Vec<Due>,
) {
    let (rule, citation) = profile.role_id(Role::ViolationHalt).map_or_else(
        || ("(none)".into(), "(uncited)".into()),
        |id| rule_of(profile, id),
    );
    let mut open = 0;
    for (i, a) in site.actions.iter().enumerate() {
        for d in &a.deficiencies {
            let met = site.actions[i + 1..]
                .iter()
                .find(|l| l.corrected.iter().any(|c| c == &d.deficiency))
                .map(SiteAction::datetime);
            let due_at = d.due_on.map(end_of);
            let status = match (due_at, met) {
                (Some(t), _) => status_of(t, met, as_of),
                (None, Some(_)) => "met",
                (None, None) => "due",
            };
            open += usize::from(met.is_none());
            out.push(Due {
                rule: rule.clone(),
                citation: citation.clone(),
                what: format!(
                    "correct \"{}\" (found {} by {}){}",
                    d.deficiency,
                    a.on,
                    a.by,
                    d.corrective_action
                        .as_deref()
                        .map(|c| format!(": {c}"))
                        .unwrap_or_default()
                ),
                due_at,
                status: status.into(),
                met_at: met,
                counted: vec![match d.due_on {
                    Some(day) => format!("by the day the inspection set, {day}"),
                    None => "the inspection set no day: due until corrected".into(),
                }],
                closed_days: Vec::new(),
                assumption: None,
            });
        }
    }
    if open > 0 {
        out.push(Due {
            rule,
            citation,
            what: format!(
                "{open} violation(s) not corrected: no further land development activity except site stabilization until corrected and approved"
            ),
            due_at: None,
            status: "in_effect".into(),
            met_at: None,
            counted: Vec::new(),
            closed_days: Vec::new(),
            assumption: None,
        });
    }
}

/// Sediment traps and ponds past half their design capacity at the latest inspection
/// that measured them: "Sediment shall be removed ... whenever their design capacity
/// has been reduced by 50%" (Carmel § 156-83A; North Castle § 267-7A(2)).
pub(super) fn sediment(site: &Site, profile: &Profile, out: &mut Vec<Due>) {
    let id = format!("{}.construction.operate_maintain", profile.rule_prefix);
    let (rule, citation) = rule_of(profile, &id);
    let mut latest: std::collections::BTreeMap<&str, (f64, &SiteAction)> = Default::default();
    for a in &site.actions {
        for p in &a.practices {
            if let Some(x) = p.filled_percent {
                latest.insert(p.practice.as_str(), (x, a));
            }
        }
    }
    for (practice, (filled, a)) in latest {
        if filled > 50.0 {
            out.push(Due {
                rule: rule.clone(),
                citation: citation.clone(),
                what: format!("remove the sediment from {practice}: {filled:.0}% of its design capacity filled at the inspection of {}", a.on),
                due_at: None,
                status: "due".into(),
                met_at: None,
                counted: vec!["past 50%: due until an inspection measures it at 50% or less".into()],
                closed_days: Vec::new(),
                assumption: None,
            });
        }
    }
}

/// "not more than five acres shall be disturbed at any one time" without approval in
/// the SWPPP: the area the latest inspection recorded, against the profile's threshold.
pub(super) fn at_one_time(site: &Site, profile: &Profile, out: &mut Vec<Due>) {
    let Some(t) = &profile.thresholds.max_disturbance_at_one_time else {
        return;
    };
    let Some((sqft, a)) = site
        .actions
        .iter()
        .filter_map(|a| a.disturbed_sqft.map(|s| (s, a)))
        .next_back()
    else {
        return;
    };
    if t.is_met_by_sqft(sqft) {
        return;
    }
    out.push(Due {
        rule: t.rule.clone(),
        citation: t.citation.clone(),
        what: format!(
            "{:.2} acres disturbed at the inspection of {}: more than the {} {} at one time, unless the approved SWPPP allows more",
            sqft / 43_560.0,
            a.on,
            t.value,
            t.unit
        ),
        due_at: None,
        status: "exceeded".into(),
        met_at: None,
        counted: vec![t.quote.clone().unwrap_or_default()],
        closed_days: Vec::new(),
        assumption: None,
    });
}

/// Each stop-work order in effect: in effect until the Town confirms compliance
/// (Carmel § 156-88B; North Castle's enforcement section C(2)).
pub(super) fn stop_work(site: &Site, profile: &Profile, out: &mut Vec<Due>) {
    let id = format!("{}.ld.stop_work_order", profile.rule_prefix);
    let (rule, citation) = rule_of(profile, &id);
    for a in site.stop_work_in_effect() {
        out.push(Due {
            rule: rule.clone(),
            citation: citation.clone(),
            what: "stop-work order in effect: all land development activity halted except what addresses the violations, until the Town confirms compliance".into(),
            due_at: None,
            status: "in_effect".into(),
            met_at: None,
            counted: vec![format!("issued on {} by {}", a.on, a.by)],
            closed_days: Vec::new(),
            assumption: None,
        });
    }
}
