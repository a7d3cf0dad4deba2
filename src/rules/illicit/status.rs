//! Who and what the rules apply to: whether the connection still exists (its recorded
//! status) and whether it reaches the MS4 (the Town's conveyances, AMB-19).

use crate::rules::{Evidence, Finding, MissingOwner, Profile, Role};

use super::{citation_of, ConnectionFacts, IllicitStatus, Ms4Reach, RuleIds};

/// What the recorded status says about the connection's existence.
pub(super) enum Existence {
    /// Abandoned or removed: it no longer exists.
    Removed,
    /// Proposed: a plan, not yet a connection.
    Proposed,
    /// It exists (recorded so, or taken so).
    Existing,
}

/// Status values read as removed, proposed and existing (normalised words).
const REMOVED: &[&str] = &["abandoned", "removed", "disconnected", "abandoned in place"];
const PROPOSED: &[&str] = &["proposed", "planned"];
const EXISTING: &[&str] = &["active", "existing", "in service", "in use"];

fn norm(s: &str) -> String {
    s.to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads the status; adds a reason when the connection is only taken as existing.
pub(super) fn existence(c: &ConnectionFacts, f: &mut Finding<IllicitStatus>) -> Existence {
    let Some(raw) = c.status_raw.as_deref().filter(|s| !s.trim().is_empty()) else {
        f.because(
            "no status is recorded for the connection, so it is taken as existing and judged",
        );
        return Existence::Existing;
    };
    let s = norm(raw);
    if REMOVED.contains(&s.as_str()) {
        Existence::Removed
    } else if PROPOSED.contains(&s.as_str()) {
        Existence::Proposed
    } else {
        if !EXISTING.contains(&s.as_str()) {
            f.because(format!(
                "the connection's status {raw:?} is not one the registry reads as removed \
                 (abandoned, removed, disconnected) or proposed, so it is taken as existing \
                 and judged"
            ));
        }
        Existence::Existing
    }
}

/// An abandoned or removed connection: it no longer exists, so it is not illicit.
pub(super) fn removed(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    mut f: Finding<IllicitStatus>,
) -> Finding<IllicitStatus> {
    let raw = c.status_raw.as_deref().unwrap_or_default();
    let when = match &c.removed_on {
        Some(d) => format!("removed on {d}"),
        None => "removed on a date the registry does not record (removed_on is empty)".into(),
    };
    f.evidence.push(Evidence::Fact {
        text: format!("status: {raw:?}; {when}"),
    });
    f.because(format!(
        "not illicit: the connection is recorded as {raw:?}, {when}; the prohibition covers \
         the construction, use, maintenance or continued existence of an illicit connection \
         ({}), and a removed connection no longer exists",
        citation_of(profile, &ids.prohibition)
    ));
    f.result = IllicitStatus::Ok;
    f
}

/// What the MS4 trace decides.
pub(super) enum Whose {
    /// The connection reaches the MS4 (or is taken to).
    Ms4,
    /// It reaches only others' systems: not covered, refer it.
    Other,
    /// Whose system it reaches needs review.
    Review,
}

/// Reads the MS4 trace into reasons and evidence (AMB-19).
pub(super) fn whose(
    profile: &Profile,
    c: &ConnectionFacts,
    f: &mut Finding<IllicitStatus>,
) -> Whose {
    let def = profile
        .role_id(Role::Ms4Definition)
        .unwrap_or(Role::Ms4Definition.as_str())
        .to_string();
    let cite_def = |f: &mut Finding<IllicitStatus>| {
        f.cite(profile, &def).assume(profile, "AMB-19");
    };
    match &c.ms4 {
        Ms4Reach::NotTraced => Whose::Ms4,
        Ms4Reach::Ms4 { asset, owner, path } => {
            if !path.is_empty() {
                f.evidence.push(Evidence::Trace { path: path.clone() });
            }
            if owner.is_none() {
                cite_def(f);
                f.because(format!(
                    "the connection reaches {asset}, which has no owner recorded; the \
                     profile's program setting reads an asset without an owner as part of \
                     the MS4 ({})",
                    citation_of(profile, &def)
                ));
            }
            Whose::Ms4
        }
        Ms4Reach::Unjoined => match profile.ms4.missing_owner() {
            MissingOwner::Ms4 => {
                cite_def(f);
                f.because(
                    "the connection's MS4 end joins no structure or pipe of the registry's \
                     network, so whose system it drains to cannot be traced; it is taken as \
                     connected to the MS4, as the connections layer records connections to \
                     the MS4 (program setting: a missing owner is read as the MS4's)",
                );
                Whose::Ms4
            }
            MissingOwner::Review => {
                cite_def(f);
                f.because(
                    "the connection's MS4 end joins no structure or pipe of the registry's \
                     network, so whether it reaches the MS4 needs review",
                );
                Whose::Review
            }
        },
        Ms4Reach::Other { joined, owners } => {
            cite_def(f);
            f.evidence.push(Evidence::Fact {
                text: format!(
                    "the connection joins {joined}; owners downstream: {}",
                    owners.join(", ")
                ),
            });
            f.because(format!(
                "not covered: the connection joins {joined}, and no asset downstream is owned \
                 or operated by the Town ({}; owners recorded: {}); it is not a connection to \
                 the MS4: refer it to {}",
                citation_of(profile, &def),
                owners.join(", "),
                owners.join(" or ")
            ));
            Whose::Other
        }
        Ms4Reach::OwnerUnknown { joined, assets } => {
            cite_def(f);
            f.because(format!(
                "the connection joins {joined}; no asset downstream is recorded as the \
                 Town's, and {} record no owner, so whether it reaches the MS4 needs review \
                 ({})",
                assets.join(", "),
                citation_of(profile, &def)
            ));
            Whose::Review
        }
    }
}
