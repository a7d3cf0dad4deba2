//! The close-out's hand-over as duties of the schedule ([`crate::sites::close_out`]):
//! the maintenance agreement and easement due by the final plan approval (met late when
//! recorded after it, overdue when the site was approved without them), the as-built
//! plans due once the site is stabilized; and the open fact of a stabilization logged
//! without its evidence.

use chrono::NaiveDateTime;

use super::{status_of, Due};
use crate::domain::SiteStatus;
use crate::rules::Profile;
use crate::sites::close_out::{applies, approved_at, met_by, rule, REQUIREMENTS};
use crate::sites::site::{Site, SiteAction};
use crate::sites::stabilization;

/// The hand-over's duties of a site not closed, and its stabilization's open fact.
pub(super) fn hand_over(
    site: &Site,
    profile: &Profile,
    as_of: NaiveDateTime,
    out: &mut Vec<Due>,
    open: &mut Vec<String>,
) {
    open.extend(stabilization::open_fact(site, profile));
    let approval = approved_at(site);
    for r in &REQUIREMENTS {
        let Some(why) = applies(site, r, false) else {
            continue;
        };
        let met = met_by(site, r).map(SiteAction::datetime);
        let (rule, citation) = rule(profile, r);
        let (due_at, status, when) = if r.before_approval {
            match approval {
                Some(t) => (
                    Some(t),
                    status_of(t, met, as_of),
                    format!("the final plan approval, {}", t.format("%Y-%m-%d %H:%M")),
                ),
                None => (
                    None,
                    if met.is_some() { "met" } else { "due" },
                    "the final plan approval (not yet logged)".into(),
                ),
            }
        } else if met.is_some() {
            (None, "met", "close-out".into())
        } else if site.status == SiteStatus::Stabilized {
            (None, "due", "close-out, the site being stabilized".into())
        } else {
            continue;
        };
        out.push(Due {
            rule,
            citation,
            what: r.what.to_string(),
            due_at,
            status: status.into(),
            met_at: met,
            counted: vec![why, format!("due by {when}")],
            closed_days: Vec::new(),
            assumption: None,
        });
    }
}
