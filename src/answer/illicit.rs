//! Every connection judged under the registry's jurisdiction.

use clap::Args;
use serde::{Deserialize, Serialize};

use super::places::{fields, Place, Places};
use super::{comma_list, Ask, AskError, Measure};
use crate::domain::Layer;
use crate::rules::illicit::{self, IllicitStatus, IllicitSummary};
use crate::rules::Finding;
use crate::spatial::connections::{connection_facts_traced, Ms4Trace};

/// `ms4 illicit` and `GET /api/illicit`.
#[derive(Debug, Clone, Default, Args, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct IllicitParams {
    /// Only these statuses: illicit, needs_review, ok, not_covered (comma-separated;
    /// default: illicit and needs_review).
    #[arg(long, value_delimiter = ',')]
    #[serde(deserialize_with = "comma_list")]
    pub status: Vec<String>,
}

/// One connection and its finding.
#[derive(Debug, Clone, Serialize)]
pub struct JudgedConnection {
    /// The connection's id.
    pub connection_id: String,
    /// The finding, with citations.
    pub finding: Finding<IllicitStatus>,
}

/// The connections shown and the count of every status.
#[derive(Debug, Clone, Serialize)]
pub struct IllicitAnswer {
    /// The jurisdiction judged under.
    pub jurisdiction: String,
    /// How near a record must lie to a connection to be its record.
    pub record_tolerance: Measure,
    /// Counts over every connection, whatever was asked to be shown.
    pub summary: IllicitSummary,
    /// The connections with the statuses asked for.
    pub connections: Vec<JudgedConnection>,
}

/// The statuses a `status` list asks for (illicit and needs_review when empty).
pub fn wanted_statuses(status: &[String]) -> Result<Vec<IllicitStatus>, AskError> {
    if status.is_empty() {
        return Ok(vec![IllicitStatus::Illicit, IllicitStatus::NeedsReview]);
    }
    status
        .iter()
        .map(|s| {
            IllicitStatus::ALL
                .into_iter()
                .find(|x| x.as_str() == s.trim())
                .ok_or_else(|| {
                    AskError::invalid(
                        "status",
                        format!(
                            "unknown status {s:?}; expected illicit, needs_review, ok or not_covered"
                        ),
                    )
                })
        })
        .collect()
}

/// Judges every connection; lists those with the statuses asked for.
pub fn illicit(ask: &Ask<'_>, p: &IllicitParams) -> Result<IllicitAnswer, AskError> {
    let wanted = wanted_statuses(&p.status)?;
    let tol = ask.in_crs(&ask.profile.tolerances.record_tolerance);
    let trace = Ms4Trace {
        network: ask.network()?,
        join_tolerance: ask.in_crs(&ask.profile.tolerances.snap_tolerance),
        settings: &ask.profile.ms4,
    };
    let findings: Vec<(String, Finding<IllicitStatus>)> = illicit::evaluate_each(
        ask.profile,
        &connection_facts_traced(ask.snap, tol, Some(&trace)),
    );
    let summary = illicit::summarize(&findings);
    let connections = findings
        .into_iter()
        .filter(|(_, f)| wanted.contains(&f.result))
        .map(|(connection_id, finding)| JudgedConnection {
            connection_id,
            finding,
        })
        .collect();
    Ok(IllicitAnswer {
        jurisdiction: ask.profile.id.clone(),
        record_tolerance: Measure {
            // Without a conversion's float noise (100 ft is 99.9998 ftUS), as every
            // distance an answer gives.
            value: crate::domain::units::for_display(tol),
            unit: ask.snap.meta.linear_unit.symbol(),
        },
        summary,
        connections,
    })
}

impl Places for IllicitAnswer {
    /// Each connection shown, with its finding.
    fn places(&self) -> Vec<Place> {
        self.connections
            .iter()
            .map(|c| Place::feature(Layer::Connections, &c.connection_id, fields(c)))
            .collect()
    }
}
