//! Determinations that a discharge is (or is not, or no longer is) a substantial contributor
//! of pollutants (`discharge_determinations`), weighed for an exemption that the law
//! withdraws on such a determination (North Castle § 267-12A(1): "unless the Department or
//! the municipality has determined them to be substantial contributors of pollutants").
//!
//! A determination is a dated act by a body. Only the bodies the profile names for the law
//! (`[ms4.determiners]`) withdraw an exemption; another body's finding goes to review. For
//! each scope (a connection, a parcel, a discharge kind) the latest determination by such a
//! body replaces the earlier ones; a finding the code cannot read goes to review, never to
//! "yes".

use chrono::NaiveDate;

use super::{towns, ConnectionFacts, DeterminationFacts, NameMatch, Profile, Verdict};
use crate::rules::profile::normalise_words as norm;
use crate::rules::profile::whole_name;

/// What a determination's recorded finding says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// The discharge is a substantial contributor of pollutants.
    Substantial,
    /// It is not one.
    NotSubstantial,
    /// An earlier determination is withdrawn ("no longer", "rescinded", "withdrawn").
    Withdrawn,
    /// The words are not one of the above: review.
    Unread,
}

/// Words that withdraw an earlier determination.
const WITHDRAWS: &[&str] = &[
    "no longer",
    "rescinded",
    "rescind",
    "rescinds",
    "withdrawn",
    "withdraw",
    "withdraws",
    "revoked",
    "revokes",
    "vacated",
];

/// Words that make a finding less than a determination ("potential substantial
/// contributor"): read as unread, never as "yes".
const HEDGES: &[&str] = &[
    "potential",
    "potentially",
    "possible",
    "possibly",
    "suspected",
    "may",
    "might",
    "likely",
    "pending",
    "proposed",
    "draft",
    "review",
    "investigation",
    "unknown",
    "undetermined",
];

/// Words a plain finding may carry around its operative words.
const FILLER: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "was",
    "be",
    "to",
    "been",
    "has",
    "determined",
    "found",
    "of",
    "pollutants",
    "pollutant",
    "discharge",
    "this",
];

/// Reads a recorded finding. "substantial contributor" (with filler words such as
/// "determined a ... of pollutants") is [`Reading::Substantial`]; "not a substantial
/// contributor" is [`Reading::NotSubstantial`]; a finding holding "no longer", "rescinded",
/// "withdrawn", "revoked" or "vacated" is [`Reading::Withdrawn`]; anything else, or any of
/// those with a hedge ("potential", "pending", "under review"), is [`Reading::Unread`].
pub fn read_finding(raw: &str) -> Reading {
    let text = norm(raw);
    let padded = format!(" {text} ");
    let has = |w: &str| padded.contains(&format!(" {w} "));
    if HEDGES.iter().any(|w| has(w)) {
        return Reading::Unread;
    }
    if WITHDRAWS.iter().any(|w| has(w)) {
        return Reading::Withdrawn;
    }
    let core: Vec<&str> = text
        .split(' ')
        .filter(|w| !w.is_empty() && !FILLER.contains(w))
        .map(|w| {
            if w == "contributors" {
                "contributor"
            } else {
                w
            }
        })
        .collect();
    match core.as_slice() {
        ["substantial", "contributor"] => Reading::Substantial,
        ["not" | "non", "substantial", "contributor"] => Reading::NotSubstantial,
        _ => Reading::Unread,
    }
}

/// What the facts say of one determination: its reading, from the recorded words when
/// there are some.
fn reading(d: &DeterminationFacts) -> Reading {
    match (&d.finding_raw, d.substantial_contributor) {
        (Some(raw), _) => read_finding(raw),
        (None, Some(true)) => Reading::Substantial,
        (None, Some(false)) => Reading::NotSubstantial,
        (None, None) => Reading::Unread,
    }
}

/// One conclusion for the exemption's condition: a verdict and its reason.
pub(super) struct Weighed {
    /// `Clear` (the exemption stands), `Review` or `Illicit` (the exemption is lost).
    pub verdict: Verdict,
    /// The reason, naming the determinations, the law's words and the fields.
    pub text: String,
    /// A determination that changes nothing (another body's "no"): said beside the
    /// finding's reason, whatever the verdict.
    pub aside: bool,
}

/// "determination D-1 (finding \"substantial contributor\") by NYSDEC on 2024-05-01,
/// scoped to parcel P-1".
pub(super) fn words(d: &DeterminationFacts) -> String {
    let finding = d
        .finding_raw
        .as_deref()
        .map(|f| format!(" (finding {f:?})"))
        .unwrap_or_default();
    let by = d
        .determined_by
        .as_deref()
        .map(|b| format!(" by {b}"))
        .unwrap_or_else(|| " (determined_by not recorded)".into());
    let on = d
        .determined_on
        .as_deref()
        .map(|o| format!(" on {o}"))
        .unwrap_or_else(|| " (determined_on not recorded)".into());
    format!(
        "determination {}{finding}{by}{on}, scoped to {} {}",
        d.determination_id, d.scope, d.subject
    )
}

fn date(d: &DeterminationFacts) -> Option<NaiveDate> {
    let s = d.determined_on.as_deref()?;
    NaiveDate::parse_from_str(s.get(..10).unwrap_or(s), "%Y-%m-%d").ok()
}

/// The law's words for who determines, and its citation.
fn authority(profile: &Profile, citation: &str) -> (String, String) {
    match &profile.ms4.determiners {
        Some(d) => (d.authority.clone(), d.citation.clone()),
        None => ("the body the law names".into(), citation.to_string()),
    }
}

/// Whether the determination was made by a body the law names, or why not.
fn by_authority(profile: &Profile, d: &DeterminationFacts) -> Result<(), String> {
    let Some(det) = &profile.ms4.determiners else {
        return Err(
            "the profile names no body whose determination withdraws the \
                    exemption ([ms4.determiners])"
                .into(),
        );
    };
    let Some(by) = d.determined_by.as_deref() else {
        return Err("it does not say who made it (determined_by)".into());
    };
    match whole_name(by, &det.names, &towns(profile)) {
        NameMatch::Named(_) => Ok(()),
        NameMatch::Contains(name) => Err(format!(
            "{by:?} contains the words {name:?} but is not the whole name of {}: another \
             public body's finding",
            det.authority
        )),
        NameMatch::Unlisted => Err(format!("{by:?} is not {}", det.authority)),
    }
}

/// Weighs every determination on record for the connection against the exemption whose
/// citation is `citation`. An empty list means no determination bears on it.
pub(super) fn weigh(profile: &Profile, c: &ConnectionFacts, citation: &str) -> Vec<Weighed> {
    let (who, cite) = authority(profile, citation);
    let mut out = Vec::new();
    if c.substantial_contributor_determined {
        out.push(Weighed {
            verdict: Verdict::Illicit,
            text: format!(
                "{who} has determined it a substantial contributor of pollutants (on record \
                 for the connection), which withdraws the exemption ({cite})"
            ),
            aside: false,
        });
    }
    let mut scopes: Vec<(String, String)> = Vec::new();
    for d in &c.determinations {
        match by_authority(profile, d) {
            Ok(()) => {
                let key = (d.scope.trim().to_lowercase(), d.subject.clone());
                if !scopes.contains(&key) {
                    scopes.push(key);
                }
            }
            Err(why) => out.extend(other_body(d, &why, &who, &cite)),
        }
    }
    let latest: Vec<(&DeterminationFacts, Weighed)> = scopes
        .iter()
        .filter_map(|(scope, subject)| {
            let of_scope: Vec<&DeterminationFacts> = c
                .determinations
                .iter()
                .filter(|d| {
                    d.scope.trim().to_lowercase() == *scope
                        && d.subject == *subject
                        && by_authority(profile, d).is_ok()
                })
                .collect();
            scope_outcome(&of_scope, &who, &cite)
        })
        .collect();
    out.extend(across_scopes(latest, &cite));
    out
}

/// A determination by a body the law does not name: its "yes" (or unread words) goes to
/// review; its "no" or withdrawal changes nothing, and is said.
fn other_body(d: &DeterminationFacts, why: &str, who: &str, cite: &str) -> Option<Weighed> {
    let w = words(d);
    match reading(d) {
        Reading::Substantial | Reading::Unread => Some(Weighed {
            verdict: Verdict::Review,
            text: format!(
                "{w} does not withdraw the exemption by itself: only a determination by {who} \
                 does ({cite}), and {why}; what would decide: a determination by {who}"
            ),
            aside: false,
        }),
        Reading::NotSubstantial | Reading::Withdrawn => Some(Weighed {
            verdict: Verdict::Clear,
            text: format!("{w} is not counted: only {who} determines ({cite}), and {why}"),
            aside: true,
        }),
    }
}

/// The latest determination by a named body for one scope replaces the earlier ones.
fn scope_outcome<'d>(
    of_scope: &[&'d DeterminationFacts],
    who: &str,
    cite: &str,
) -> Option<(&'d DeterminationFacts, Weighed)> {
    let mut sorted = of_scope.to_vec();
    sorted.sort_by_key(|d| date(d));
    let last = *sorted.last()?;
    let replaced: Vec<String> = sorted[..sorted.len() - 1]
        .iter()
        .map(|d| d.determination_id.clone())
        .collect();
    let replaces = if replaced.is_empty() {
        String::new()
    } else {
        format!(
            "; it is the latest for {} {} and replaces {}",
            last.scope,
            last.subject,
            replaced.join(", ")
        )
    };
    let w = words(last);
    // Two determinations of one scope that cannot be ordered (a missing date, or the same
    // day) and say different things: which stands cannot be told.
    let undated = sorted.iter().any(|d| date(d).is_none());
    let rivals = sorted
        .iter()
        .filter(|d| undated || date(d) == date(last))
        .any(|d| reading(d) != reading(last));
    if rivals {
        let ids: Vec<&str> = sorted.iter().map(|d| d.determination_id.as_str()).collect();
        return Some((
            last,
            Weighed {
                verdict: Verdict::Review,
                text: format!(
                    "the determinations {} for {} {} say different things and cannot be \
                     ordered by their dates (determined_on), so which one stands needs \
                     review ({cite}); what would decide: their dates",
                    ids.join(", "),
                    last.scope,
                    last.subject
                ),
                aside: false,
            },
        ));
    }
    let (verdict, text) = match reading(last) {
        Reading::Substantial => (
            Verdict::Illicit,
            format!(
                "{who} has determined it a substantial contributor of pollutants ({w}{replaces}), \
                 which withdraws the exemption ({cite})"
            ),
        ),
        Reading::NotSubstantial => (
            Verdict::Clear,
            format!("determined not a substantial contributor of pollutants ({w}{replaces})"),
        ),
        Reading::Withdrawn => (
            Verdict::Clear,
            format!(
                "not a substantial contributor of pollutants now: {w} withdraws the \
                 determination{replaces}, read from its words (\"no longer\", \"rescinded\", \
                 \"withdrawn\", \"revoked\", \"vacated\")"
            ),
        ),
        Reading::Unread => (
            Verdict::Review,
            format!(
                "{w}{replaces}, but its finding (finding) is not words the registry reads as \
                 a substantial contributor, not one, or a withdrawal, so whether {who} has \
                 determined it a substantial contributor of pollutants ({cite}) needs review; \
                 what would decide: the determination's terms"
            ),
        ),
    };
    Some((
        last,
        Weighed {
            verdict,
            text,
            aside: false,
        },
    ))
}

/// The scopes together: a scope whose latest determination withdraws the exemption
/// decides, unless a later determination for another scope (the connection against its
/// kind, say) says otherwise: which of the two governs needs review.
fn across_scopes(latest: Vec<(&DeterminationFacts, Weighed)>, cite: &str) -> Vec<Weighed> {
    let later_clear = |lost: &DeterminationFacts| {
        latest.iter().find(|(d, w)| {
            w.verdict == Verdict::Clear && date(d).zip(date(lost)).is_some_and(|(a, b)| a > b)
        })
    };
    let mut out = Vec::new();
    for (d, w) in &latest {
        match (w.verdict, later_clear(d)) {
            (Verdict::Illicit, Some((other, _))) => out.push(Weighed {
                verdict: Verdict::Review,
                text: format!(
                    "{}; but the later {} says otherwise for {} {}, and which of the two \
                     governs this connection needs review ({cite}); what would decide: \
                     whether the later determination covers this discharge",
                    w.text,
                    words(other),
                    other.scope,
                    other.subject
                ),
                aside: false,
            }),
            _ => out.push(Weighed {
                verdict: w.verdict,
                text: w.text.clone(),
                aside: false,
            }),
        }
    }
    out
}
