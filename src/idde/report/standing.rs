//! Which assets the report counts as standing: an outfall, SMP or catch basin recorded
//! removed (abandoned, disconnected, ...) or proposed (not built) is in no inventory and
//! no denominator, nor is a connection recorded proposed the source of an illicit
//! discharge. A status the report does not read is neither dropped nor trusted: the asset
//! is counted (a denominator errs large, so a share errs low) and the report lists it as
//! an open fact, with the status that would decide it.

use rustc_hash::FxHashSet;

use crate::domain::Layer;
use crate::spatial::Snapshot;

/// Status words read as removed, and as proposed (normalised: lower case, one space).
const REMOVED: &[&str] = &[
    "abandoned",
    "abandoned in place",
    "removed",
    "disconnected",
    "decommissioned",
    "demolished",
];
const PROPOSED: &[&str] = &["proposed", "planned"];
const EXISTING: &[&str] = &["active", "existing", "in service", "in use"];

/// What a recorded status says about an asset's standing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Standing {
    /// Recorded as existing, or with no status (the layer records what stands).
    Stands,
    /// Recorded as removed.
    Removed,
    /// Recorded as proposed: not built.
    Proposed,
    /// A status the report does not read.
    Unread,
}

/// Reads a recorded status.
pub(crate) fn standing(raw: Option<&str>) -> Standing {
    let Some(raw) = raw.filter(|s| !s.trim().is_empty()) else {
        return Standing::Stands;
    };
    let s = raw
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if REMOVED.contains(&s.as_str()) {
        Standing::Removed
    } else if PROPOSED.contains(&s.as_str()) {
        Standing::Proposed
    } else if EXISTING.contains(&s.as_str()) {
        Standing::Stands
    } else {
        Standing::Unread
    }
}

/// A layer's inventory: the ids counted, those left out (removed or proposed, with the
/// status), and those counted with a status the report does not read.
pub(super) struct Inventory<'a> {
    /// The ids counted, sorted.
    pub ids: Vec<String>,
    /// For lookups.
    pub set: FxHashSet<&'a str>,
    /// Removed or proposed: `(id, status)`, sorted.
    pub left_out: Vec<(String, String)>,
    /// Counted, with a status not read: `(id, status)`, sorted.
    pub unread: Vec<(String, String)>,
}

impl<'a> Inventory<'a> {
    /// The inventory of `layer` (a layer with a `status` field).
    pub fn of(snap: &'a Snapshot, layer: Layer) -> Self {
        let mut inv = Inventory {
            ids: Vec::new(),
            set: FxHashSet::default(),
            left_out: Vec::new(),
            unread: Vec::new(),
        };
        for f in &snap.layer(layer).features {
            let raw = f.get(layer, "status").as_str();
            match standing(raw) {
                Standing::Removed | Standing::Proposed => inv
                    .left_out
                    .push((f.id.clone(), raw.unwrap_or_default().to_string())),
                s => {
                    if s == Standing::Unread {
                        inv.unread
                            .push((f.id.clone(), raw.unwrap_or_default().to_string()));
                    }
                    inv.ids.push(f.id.clone());
                    inv.set.insert(f.id.as_str());
                }
            }
        }
        inv.ids.sort_unstable();
        inv.left_out.sort_unstable();
        inv.unread.sort_unstable();
        inv
    }

    /// Whether `id` is counted.
    pub fn has(&self, id: &str) -> bool {
        self.set.contains(id)
    }

    /// The open fact for the statuses not read, if any.
    pub fn unread_fact(&self, what: &str) -> Option<String> {
        if self.unread.is_empty() {
            return None;
        }
        let listed: Vec<String> = self
            .unread
            .iter()
            .map(|(id, s)| format!("{id} ({s:?})"))
            .collect();
        Some(format!(
            "{what} {} have a status the report does not read as existing ({}), removed ({}) \
             or proposed ({}): they are counted in the inventory and its denominators; \
             whether each still stands decides it",
            listed.join(", "),
            EXISTING.join(", "),
            REMOVED.join(", "),
            PROPOSED.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_is_read_or_said_unread() {
        for (raw, want) in [
            (None, Standing::Stands),
            (Some(""), Standing::Stands),
            (Some("Active"), Standing::Stands),
            (Some("In-Service"), Standing::Stands),
            (Some("Abandoned in place"), Standing::Removed),
            (Some("removed"), Standing::Removed),
            (Some("PROPOSED"), Standing::Proposed),
            (Some("planned"), Standing::Proposed),
            (Some("capped"), Standing::Unread),
            (Some("inactive"), Standing::Unread),
        ] {
            assert_eq!(standing(raw), want, "{raw:?}");
        }
    }
}
