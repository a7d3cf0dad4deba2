//! Who and what the rules apply to: whether the connection still exists (its recorded
//! status) and whether it reaches the MS4 (the Town's conveyances, AMB-19).

use crate::rules::{Evidence, Finding, MissingOwner, Profile, Role};

use super::{citation_of, ConnectionFacts, IllicitStatus, Ms4Reach, RuleIds};
use crate::rules::profile::normalise_words as norm;

/// What the recorded status says about the connection's existence.
pub(super) enum Existence {
    /// It no longer exists: removed or disconnected, or out of use with a removal date.
    Removed,
    /// Proposed: a plan, not yet a connection.
    Proposed,
    /// It exists (recorded so, or taken so).
    Existing,
    /// The status does not say whether it still exists (out of use without a removal date,
    /// an unrecognised word, or recorded in use with a removal date): judged as if it
    /// exists, and sent to review for the reason given.
    Unsure(String),
}

/// Status values read as removed: the words say the connection is gone or no longer joined
/// to the MS4.
const REMOVED: &[&str] = &["removed", "disconnected"];
/// Status values that say the connection is out of use but not that it is gone: the pipe
/// may remain and still let a discharge in, and the prohibition covers an illicit
/// connection's "continued existence". Read as removed only with a removal date.
const OUT_OF_USE: &[&str] = &[
    "abandoned",
    "abandoned in place",
    "capped",
    "plugged",
    "sealed",
    "inactive",
    "closed",
    "out of service",
    "decommissioned",
    "retired",
];
const PROPOSED: &[&str] = &["proposed", "planned"];
const EXISTING: &[&str] = &["active", "existing", "in service", "in use"];

/// Reads the status (and the removal date beside it); adds a reason when the connection is
/// only taken as existing or read as removed from its date.
pub(super) fn existence(c: &ConnectionFacts, f: &mut Finding<IllicitStatus>) -> Existence {
    let removed_on = c.removed_on.as_deref().filter(|d| !d.trim().is_empty());
    let Some(raw) = c.status_raw.as_deref().filter(|s| !s.trim().is_empty()) else {
        if let Some(d) = removed_on {
            f.because(format!(
                "no status is recorded for the connection, but a removal date is \
                 (removed_on {d}), so it is read as removed"
            ));
            return Existence::Removed;
        }
        f.because(
            "no status is recorded for the connection, so it is taken as existing and judged",
        );
        return Existence::Existing;
    };
    let s = norm(raw);
    let words = "removed and disconnected are read as removed; abandoned, capped, plugged, \
                 sealed, inactive, closed, out of service, decommissioned and retired are \
                 read as removed only with a removal date (removed_on), since the pipe may \
                 remain; proposed and planned as a plan; active, existing, in service and in \
                 use as existing";
    if REMOVED.contains(&s.as_str()) {
        Existence::Removed
    } else if PROPOSED.contains(&s.as_str()) {
        Existence::Proposed
    } else if EXISTING.contains(&s.as_str()) {
        match removed_on {
            None => Existence::Existing,
            Some(d) => Existence::Unsure(format!(
                "the connection is recorded as {raw:?} (status) but also as removed on {d} \
                 (removed_on): the records contradict each other; what would decide: which \
                 of the two is right"
            )),
        }
    } else if OUT_OF_USE.contains(&s.as_str()) {
        match removed_on {
            Some(d) => {
                f.because(format!(
                    "the status {raw:?} says the connection is out of use, and a removal date \
                     is recorded (removed_on {d}), so it is read as removed"
                ));
                Existence::Removed
            }
            None => Existence::Unsure(format!(
                "the status {raw:?} says the connection is out of use, not that it was \
                 removed or disconnected from the MS4, and no removal date (removed_on) is \
                 recorded; a pipe left in place may still let a discharge in, so whether the \
                 connection still exists needs review ({words}); what would decide: a record \
                 of its removal or disconnection (removed_on)"
            )),
        }
    } else {
        match removed_on {
            Some(d) => {
                f.because(format!(
                    "the status {raw:?} is not one the registry reads, but a removal date is \
                     recorded (removed_on {d}), so the connection is read as removed"
                ));
                Existence::Removed
            }
            None => Existence::Unsure(format!(
                "the connection's status {raw:?} is not one the registry reads ({words}), so \
                 whether the connection still exists needs review; what would decide: a \
                 status the registry reads, or a removal date (removed_on)"
            )),
        }
    }
}

/// A date as recorded ("2024-05-01", or with a time after it).
fn day(s: &str) -> Option<chrono::NaiveDate> {
    chrono::NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d").ok()
}

/// A removed connection whose discharge sampling found pollutants: `Some(reason)` when the
/// sampling came after the removal, or when the dates cannot say it came before.
fn sampled_after_removal(c: &ConnectionFacts) -> Option<String> {
    if c.pollutants_found != Some(true) {
        return None;
    }
    let shown = |d: &Option<String>, field: &str| match d {
        Some(d) => format!("{field} {d}"),
        None => format!("{field} not recorded"),
    };
    let (sampled, removed) = (
        shown(&c.sampled_on, "sampled_on"),
        shown(&c.removed_on, "removed_on"),
    );
    match (
        c.sampled_on.as_deref().and_then(day),
        c.removed_on.as_deref().and_then(day),
    ) {
        (Some(s), Some(r)) if s <= r => None,
        (Some(_), Some(_)) => Some(format!(
            "the connection is recorded as removed, but its discharge was sampled after the \
             removal with pollutants found ({sampled}, after {removed}; pollutants_found \
             yes): the records contradict each other, and a connection still discharging \
             pollutants is not removed; what would decide: an inspection of whether it still \
             discharges"
        )),
        _ => Some(format!(
            "the connection is recorded as removed, but sampling of its discharge found \
             pollutants (pollutants_found yes; {sampled}; {removed}), and the dates do not \
             show that the sampling came before the removal; what would decide: both dates, \
             or an inspection of whether it still discharges"
        )),
    }
}

/// A connection read as removed: it no longer exists, so it is not illicit, unless sampling
/// after the removal found pollutants (a contradiction to review).
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
    if let Some(why) = sampled_after_removal(c) {
        f.evidence.push(Evidence::Fact {
            text: format!(
                "sampling: pollutants found{}",
                c.sampled_on
                    .as_deref()
                    .map(|d| format!(" on {d}"))
                    .unwrap_or_default()
            ),
        });
        f.because(format!(
            "{why}; the prohibition covers the construction, use, maintenance or continued \
             existence of an illicit connection ({})",
            citation_of(profile, &ids.prohibition)
        ));
        f.result = IllicitStatus::NeedsReview;
        return f;
    }
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
