//! What a site's close-out requires besides final stabilization ([`super::stabilization`]),
//! at both towns' words: as-built plans of its stormwater management practices "certified
//! by a professional engineer" (North Castle's inspection section A(2), Carmel
//! § 156-83F); the maintenance agreement "recorded in the office of the County Clerk as a
//! deed restriction on the property prior to final plan approval" (§ 267-7D, § 156-85);
//! and the maintenance easement "prior to the issuance of any approval that has a
//! stormwater management facility as one of the requirements" (§ 267-7B, § 156-86).
//!
//! Each applies where the stored determination answered that it does, and, whatever it
//! answered, to a close-out that hands stormwater management practices over: "all
//! applicants are required to submit as-built plans for any stormwater management
//! practices located on site", and a practice the Town takes into its programme has a
//! facility's agreement and easement. The final plan approval is the site's `approved`
//! action: an agreement or easement recorded after it is kept and shown met late.

use chrono::NaiveDateTime;

use super::site::{Site, SiteAction};
use crate::domain::SiteActionKind;
use crate::rules::profile::Role;
use crate::rules::Profile;

/// One thing the close-out requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Requirement {
    /// The determination's requirement kind (`as_built_plans`).
    pub kind: &'static str,
    /// The action that meets it.
    pub action: SiteActionKind,
    /// The profile's role for its rule.
    pub role: Role,
    /// What must happen, in the law's words.
    pub what: &'static str,
    /// Whether it is due before the final plan approval (else at close-out).
    pub before_approval: bool,
}

/// The three, in the order a close-out checks them.
pub const REQUIREMENTS: [Requirement; 3] = [
    Requirement {
        kind: "as_built_plans",
        action: SiteActionKind::AsBuilt,
        role: Role::AsBuilt,
        what: "as-built plans of the stormwater management practices on site, certified by a professional engineer, after final construction is completed",
        before_approval: false,
    },
    Requirement {
        kind: "maintenance_agreement",
        action: SiteActionKind::AgreementRecorded,
        role: Role::MaintenanceAgreement,
        what: "the maintenance agreement recorded in the office of the County Clerk as a deed restriction on the property prior to final plan approval",
        before_approval: true,
    },
    Requirement {
        kind: "maintenance_easement",
        action: SiteActionKind::EasementRecorded,
        role: Role::MaintenanceEasement,
        what: "the maintenance easement executed prior to the issuance of any approval that has a stormwater management facility as one of the requirements",
        before_approval: true,
    },
];

/// Why a requirement applies to a site, if it does: the determination as answered, or
/// the practices handed over (`hands_over`, a close-out's SMPs).
pub fn applies(site: &Site, r: &Requirement, hands_over: bool) -> Option<String> {
    if site.requirement_status(r.kind) == Some("applies") {
        return Some(format!("the determination requires {}", r.kind));
    }
    hands_over.then(|| "the close-out hands stormwater management practices over".to_string())
}

/// The action that met a requirement: the first of its kind.
pub fn met_by<'a>(site: &'a Site, r: &Requirement) -> Option<&'a SiteAction> {
    site.actions.iter().find(|a| a.kind == r.action)
}

/// The final plan approval: the site's `approved` action.
pub fn approved_at(site: &Site) -> Option<NaiveDateTime> {
    site.actions
        .iter()
        .find(|a| a.kind == SiteActionKind::Approved)
        .map(SiteAction::datetime)
}

/// The rule and citation of a requirement in the profile.
pub fn rule(profile: &Profile, r: &Requirement) -> (String, String) {
    profile.role_id(r.role).map_or_else(
        || ("(none)".into(), "(uncited)".into()),
        |id| {
            (
                id.to_string(),
                profile.citation(id).unwrap_or("(uncited)").to_string(),
            )
        },
    )
}

/// The first requirement a close-out that `hands_over` practices finds unmet, in words
/// naming it and why it applies.
pub fn unmet(site: &Site, hands_over: bool) -> Option<String> {
    REQUIREMENTS.iter().find_map(|r| {
        let why = applies(site, r, hands_over)?;
        met_by(site, r).is_none().then(|| {
            format!(
                "{why}: {} and no {} is logged; log it before closing",
                r.what, r.action
            )
        })
    })
}
