//! Stormwater management practices that no recorded maintenance or access easement covers.

use clap::Args;
use serde::{Deserialize, Serialize};

use super::places::{fields, Place, Places};
use super::{flag, Ask, AskError};
use crate::domain::Layer;
use crate::rules::easement::{self, CoveringEasement, EasementStatus, SmpFacts};
use crate::rules::Finding;
use crate::spatial::query;

/// `ms4 smps-without-easement` and `GET /api/smps-without-easement`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct SmpsParams {
    /// List every SMP with its status, not only those lacking an easement.
    #[arg(long)]
    #[serde(deserialize_with = "flag")]
    pub all: bool,
}

/// One SMP and its easement finding.
#[derive(Debug, Clone, Serialize)]
pub struct SmpFinding {
    /// The SMP's id.
    pub smp_id: String,
    /// Whether a recorded easement covers it, with citations.
    pub finding: Finding<EasementStatus>,
}

/// The SMPs lacking an easement (or every SMP).
#[derive(Debug, Clone, Serialize)]
pub struct SmpsAnswer {
    /// The jurisdiction judged under.
    pub jurisdiction: String,
    /// The SMPs, by id.
    pub smps: Vec<SmpFinding>,
}

/// Judges every SMP's easement; lists those missing one or needing review (or all).
pub fn smps_without_easement(ask: &Ask<'_>, p: &SmpsParams) -> Result<SmpsAnswer, AskError> {
    let snap = ask.snap;
    let mut smps = Vec::new();
    for smp in &snap.layer(Layer::Smps).features {
        let covering: Vec<CoveringEasement> = smp
            .geom
            .as_ref()
            .map(|g| query::easements_meeting(snap, g))
            .unwrap_or_default()
            .into_iter()
            .map(CoveringEasement::from_feature)
            .collect();
        let text = |field: &str| smp.get(Layer::Smps, field).as_str().map(str::to_string);
        let facts = SmpFacts {
            smp_id: smp.id.clone(),
            structural: smp.get(Layer::Smps, "structural").as_bool(),
            owner_kind: text("owner_kind"),
            status: text("status"),
        };
        let finding = easement::evaluate(ask.profile, &facts, &covering);
        if p.all
            || matches!(
                finding.result,
                EasementStatus::Missing | EasementStatus::NeedsReview
            )
        {
            smps.push(SmpFinding {
                smp_id: smp.id.clone(),
                finding,
            });
        }
    }
    Ok(SmpsAnswer {
        jurisdiction: ask.profile.id.clone(),
        smps,
    })
}

impl Places for SmpsAnswer {
    /// Each SMP listed, with its finding.
    fn places(&self) -> Vec<Place> {
        self.smps
            .iter()
            .map(|s| Place::feature(Layer::Smps, &s.smp_id, fields(s)))
            .collect()
    }
}
