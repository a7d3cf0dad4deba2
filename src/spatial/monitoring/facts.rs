//! The facts about a location the priority rule ranks that are not its waters: its
//! illicit discharge history, and the commercial or industrial parcels connected upstream.

use std::collections::HashMap;

use geo_types::Point;

use super::super::connections::ms4_end;
use super::super::network::{StructureKind, Trace};
use super::super::query::nearest_in;
use super::super::snapshot::Snapshot;
use super::super::waters::text;
use crate::domain::{Characterisation, Feature, Layer};
use crate::rules::Profile;
use rustc_hash::FxHashMap;

/// The open illicit discharge cases and the suspect screenings at each asset.
pub(super) struct IddeHistory {
    open_cases: HashMap<String, Vec<String>>,
}

impl IddeHistory {
    pub(super) fn new(snap: &Snapshot) -> Self {
        let mut open_cases: HashMap<String, Vec<String>> = HashMap::new();
        for c in snap.layer(Layer::Cases).features.iter() {
            let open = text(c, Layer::Cases, "status").is_none_or(|s| s == "open");
            if let (true, Some(a)) = (open, text(c, Layer::Cases, "asset_id")) {
                open_cases.entry(a).or_default().push(c.id.clone());
            }
        }
        IddeHistory { open_cases }
    }

    /// The sentence of an asset's history, if it has one to rank.
    pub(super) fn of(&self, snap: &Snapshot, id: &str) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(cases) = self.open_cases.get(id) {
            let mut cases = cases.clone();
            cases.sort();
            parts.push(format!(
                "illicit discharge case(s) {} open at it",
                cases.join(", ")
            ));
        }
        let mut suspect: Vec<String> = snap
            .inspections_of(id)
            .filter(|i| {
                i.get(Layer::Inspections, "sewage_indicators").as_bool() == Some(true)
                    || text(i, Layer::Inspections, "characterisation")
                        .and_then(|c| c.parse::<Characterisation>().ok())
                        .is_some_and(Characterisation::opens_case)
            })
            .map(|i| {
                let on = text(i, Layer::Inspections, "inspected_on").unwrap_or_default();
                format!("{} ({on})", i.id)
            })
            .collect();
        suspect.sort();
        if !suspect.is_empty() {
            parts.push(format!(
                "dry-weather screening(s) {} found sewage indicators or a suspect or obvious discharge",
                suspect.join(", ")
            ));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// The commercial and industrial parcels whose connections join each structure or pipe
/// (by their MS4 end, within the snap tolerance).
pub(super) struct ConnectionJoins {
    by_asset: FxHashMap<String, Vec<String>>,
}

impl ConnectionJoins {
    /// Each connection's join and its parcel's class, found once, on every core (each
    /// land-use value classified once for each core's share), not again for each trace
    /// that reaches it: the county's interconnections lie on its outfalls' traces.
    pub(super) fn new(snap: &Snapshot, profile: &Profile, tol: f64) -> Self {
        use rayon::prelude::*;
        let parcels = snap.layer(Layer::Parcels);
        let connections: Vec<&Feature> = snap.layer(Layer::Connections).features.iter().collect();
        let joins: Vec<(String, String)> = connections
            .par_iter()
            .map_init(FxHashMap::<String, bool>::default, |classed, c| {
                let parcel = text(c, Layer::Connections, "parcel_id")?;
                let lu = parcels
                    .get(&parcel)
                    .and_then(|f| text(f, Layer::Parcels, "land_use"))?;
                let ci = match classed.get(&lu) {
                    Some(&ci) => ci,
                    None => {
                        let ci = profile.land_use_class(&lu).is_commercial_or_industrial();
                        classed.insert(lu, ci);
                        ci
                    }
                };
                if !ci {
                    return None;
                }
                let end = c.geom.as_ref().and_then(ms4_end)?;
                Some((joined_at(snap, &end, tol)?.to_string(), parcel))
            })
            .flatten()
            .collect();
        let mut by_asset: FxHashMap<String, Vec<String>> = FxHashMap::default();
        for (asset, parcel) in joins {
            by_asset.entry(asset).or_default().push(parcel);
        }
        ConnectionJoins { by_asset }
    }

    /// The commercial and industrial parcels whose connections join the trace, as a
    /// sentence; none when there are none.
    pub(super) fn commercial_industrial(&self, t: &Trace) -> Option<String> {
        let mut parcels: Vec<&str> = t
            .structures
            .iter()
            .chain(&t.pipes)
            .filter_map(|a| self.by_asset.get(a))
            .flatten()
            .map(String::as_str)
            .collect();
        parcels.sort_unstable();
        parcels.dedup();
        (!parcels.is_empty()).then(|| {
            let shown: Vec<&str> = parcels.iter().take(10).copied().collect();
            let more = parcels.len().saturating_sub(10);
            format!(
                "{} commercial or industrial parcel(s) drain to it through connections ({}{})",
                parcels.len(),
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            )
        })
    }
}

/// The structure (else the pipe) a point joins within the tolerance.
pub(crate) fn joined_at<'s>(snap: &'s Snapshot, p: &Point<f64>, tol: f64) -> Option<&'s str> {
    let mut best: Option<(f64, &str)> = None;
    for k in [
        StructureKind::CatchBasin,
        StructureKind::Manhole,
        StructureKind::Outfall,
        StructureKind::Other,
    ] {
        let layer = snap.layer(k.layer());
        if let Some(&(i, d)) = nearest_in(layer, p, Some(tol), Some(1)).first() {
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, layer.features[i].id.as_str()));
            }
        }
    }
    best.map(|(_, id)| id).or_else(|| {
        let pipes = snap.layer(Layer::Pipes);
        nearest_in(pipes, p, Some(tol), Some(1))
            .first()
            .map(|(i, _)| pipes.features[*i].id.as_str())
    })
}
