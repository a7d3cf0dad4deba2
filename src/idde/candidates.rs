//! The candidate sources of a discharge seen at an outfall: the connections the
//! upstream trace reaches and their parcels, ranked so the likeliest come first —
//! connections found illicit, then those needing review; within each, non-stormwater
//! discharge kinds before stormwater; then commercial and industrial land uses before
//! others (the order of the programme's desktop analysis, EPA 833-B-04-002 ch. 5).

use serde::{Deserialize, Serialize};

use crate::answer::illicit::{illicit, IllicitParams};
use crate::answer::trace::{trace, TraceParams};
use crate::answer::Ask;
use crate::domain::discharge::DischargeKind;
use crate::domain::Layer;
use crate::rules::LandUseClass;

/// One candidate source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// Its rank, 1 first.
    pub rank: u32,
    /// The connection.
    pub connection_id: String,
    /// Its source parcel, when recorded.
    pub parcel_id: Option<String>,
    /// What `/api/illicit` finds of it: illicit, needs_review, ok or not_covered.
    pub finding: String,
    /// Its discharge kind as recorded.
    pub discharge_kind: Option<String>,
    /// The parcel's land-use class under the profile.
    pub land_use_class: Option<String>,
    /// Why it ranks where it does.
    pub reasons: Vec<String>,
}

/// The candidates upstream of `asset_id`; empty when it is not in the drainage network.
pub fn upstream_candidates(ask: &Ask<'_>, asset_id: &str) -> Result<Vec<Candidate>, String> {
    let p = TraceParams {
        asset_id: asset_id.to_string(),
        upstream: true,
        ..Default::default()
    };
    let reached = match trace(ask, &p) {
        Ok(t) => t.connections,
        Err(crate::answer::AskError::NotFound(_)) => return Ok(Vec::new()),
        Err(e) => return Err(e.to_string()),
    };
    let judged = illicit(
        ask,
        &IllicitParams {
            status: vec![
                "illicit".into(),
                "needs_review".into(),
                "ok".into(),
                "not_covered".into(),
            ],
        },
    )
    .map_err(|e| e.to_string())?;
    let finding = |id: &str| {
        judged
            .connections
            .iter()
            .find(|c| c.connection_id == id)
            .map(|c| c.finding.result.as_str().to_string())
            .unwrap_or_else(|| "not_covered".into())
    };
    let snap = ask.snap;
    let mut out: Vec<(u8, u8, u8, Candidate)> = reached
        .into_iter()
        .map(|r| {
            let conn = snap.layer(Layer::Connections).get(&r.connection_id);
            let kind = conn
                .and_then(|c| c.get(Layer::Connections, "discharge_kind").as_str())
                .map(str::to_string);
            let class = r
                .parcel_id
                .as_deref()
                .and_then(|p| snap.layer(Layer::Parcels).get(p))
                .and_then(|p| p.get(Layer::Parcels, "land_use").as_str())
                .map(|raw| ask.profile.land_use_class(raw));
            let f = finding(&r.connection_id);
            let mut reasons = Vec::new();
            let by_finding = match f.as_str() {
                "illicit" => 0,
                "needs_review" => 1,
                _ => 2,
            };
            reasons.push(format!("the connection is {f} (as /api/illicit judges it)"));
            let non_storm = kind
                .as_deref()
                .map(|k| !DischargeKind::parse_or_unknown(k).0.is_stormwater())
                .unwrap_or(true);
            if non_storm {
                reasons.push(format!(
                    "its discharge kind ({}) is not stormwater, or may not be",
                    kind.as_deref().unwrap_or("not recorded")
                ));
            }
            let hot = matches!(
                class,
                Some(LandUseClass::Commercial | LandUseClass::Industrial)
            );
            if hot {
                reasons.push(format!(
                    "its parcel's land use is {}",
                    class.map(|c| c.as_str()).unwrap_or_default()
                ));
            }
            (
                by_finding,
                u8::from(!non_storm),
                u8::from(!hot),
                Candidate {
                    rank: 0,
                    connection_id: r.connection_id,
                    parcel_id: r.parcel_id,
                    finding: f,
                    discharge_kind: kind,
                    land_use_class: class.map(|c| c.as_str().to_string()),
                    reasons,
                },
            )
        })
        .collect();
    out.sort_by(|a, b| {
        (a.0, a.1, a.2, &a.3.connection_id).cmp(&(b.0, b.1, b.2, &b.3.connection_id))
    });
    Ok(out
        .into_iter()
        .enumerate()
        .map(|(i, (.., mut c))| {
            c.rank = i as u32 + 1;
            c
        })
        .collect())
}
