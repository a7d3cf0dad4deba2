//! Is a connection to the MS4 an illicit connection? (catalogue rule
//! `shared.registry.flag_illicit_connection`)
//!
//! Pure rule evaluation: the spatial side finds the connection's source parcel and the
//! connection records that document it and hands them over as plain facts
//! ([`ConnectionFacts`]); [`evaluate`] applies the jurisdiction's law from its [`Profile`].
//!
//! North Castle (§ 267-4B ILLICIT CONNECTION, § 267-12B) and Windsor (ILLICIT CONNECTIONS,
//! Sec. 3-169(b)) share one structure:
//! - clause (1): a conveyance that lets a non-stormwater discharge into the system is
//!   illicit unless the discharge is exempt. The exempt lists differ by town, so the list
//!   always comes from the profile. Sewage, process wastewater, wash water and indoor drains
//!   and sinks are named and never exempt. The sewage-line rule makes a sewage connection a
//!   violation of its own.
//! - clause (2): a drain from a commercial or industrial land use is illicit unless it is
//!   documented in records *and* approved, whatever it carries.
//!
//! The clauses are evaluated independently (AMB-31): a prior approval never clears a
//! clause (1) finding. The result is `illicit` if either clause is met, else `needs_review`
//! if either cannot be decided from the facts, else `ok`. Carmel's Article X has no
//! illicit-connection rules, so a Carmel connection is `not_covered`.

mod conveyance;
mod determinations;
mod records;
mod routes;
mod status;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use super::{Evidence, Finding, LandUseClass, NameMatch, Profile, Role};
use crate::domain::layer::Layer;
pub use determinations::{read_finding, Reading};
use records::clause_two;

/// The catalogue recipe every covered finding follows, cited by the rule the profile maps
/// to [`Role::FlagIllicitConnection`] (this id only for a profile built in code without it).
const FLAG_RULE: &str = "shared.registry.flag_illicit_connection";

/// What the registry knows about one connection, gathered by the spatial side.
///
/// Optional facts default to "not known"; build with `..Default::default()` to leave them
/// out.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConnectionFacts {
    /// The connection's id (`connections.connection_id`).
    pub connection_id: String,
    /// The `discharge_kind` attribute as found in the data; `None` when it is empty.
    pub discharge_kind_raw: Option<String>,
    /// The parcel the drain comes from, when one was found.
    pub source_parcel: Option<SourceParcel>,
    /// Connection records that document this connection.
    pub records: Vec<RecordFacts>,
    /// The latest sampling result for the discharge: `Some(true)` when pollutants were
    /// found, `Some(false)` when sampling found none, `None` when never sampled. Exemptions
    /// for "uncontaminated" water are lost on `Some(true)`; North Castle's catch-all "any
    /// other water source not containing pollutants" needs `Some(false)`.
    #[serde(default)]
    pub pollutants_found: Option<bool>,
    /// True when a body the law names (North Castle § 267-12A(1): "the Department or the
    /// municipality") is on record as having determined this discharge a substantial
    /// contributor of pollutants, which withdraws the exemption. No record of a
    /// determination is read as none made; dated determinations go in `determinations`.
    #[serde(default)]
    pub substantial_contributor_determined: bool,
    /// The `status` attribute as found; `None` when empty (taken as existing).
    #[serde(default)]
    pub status_raw: Option<String>,
    /// When an abandoned or removed connection was removed (`removed_on`), as recorded.
    #[serde(default)]
    pub removed_on: Option<String>,
    /// When the discharge was last sampled (`sampled_on`), as recorded.
    #[serde(default)]
    pub sampled_on: Option<String>,
    /// Whose system the connection reaches, traced downstream.
    #[serde(default)]
    pub ms4: Ms4Reach,
    /// Dated determinations (substantial contributor of pollutants, or not) whose scope is
    /// this connection, its source parcel or its discharge kind.
    #[serde(default)]
    pub determinations: Vec<DeterminationFacts>,
    /// Dry-weather screenings that found sewage indicators at an outfall downstream.
    #[serde(default)]
    pub screenings: Vec<ScreeningFacts>,
}

/// Whose system a connection reaches, traced downstream to the first MS4 asset (AMB-19:
/// the MS4 is the conveyances the Town owns or operates; the profile's `[ms4] owners` say
/// which recorded owners those are).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Ms4Reach {
    /// Not traced (no drainage network was consulted).
    #[default]
    NotTraced,
    /// The connection reaches an MS4 asset: the first one downstream, how it is owned,
    /// and the path to it.
    Ms4 {
        /// The first MS4 asset.
        asset: String,
        /// Its recorded owner; `None` when none is recorded and the profile reads a missing
        /// owner as the MS4's.
        owner: Option<String>,
        /// Ids from the asset the connection joins to `asset`, in flow order.
        path: Vec<String>,
    },
    /// The connection's MS4 end joins no asset of the network; the missing-owner reading
    /// decides whose system that is.
    Unjoined,
    /// Every asset downstream is someone else's: the owners to refer the connection to.
    Other {
        /// The asset the connection joins.
        joined: String,
        /// The distinct recorded owners met downstream.
        owners: Vec<String>,
    },
    /// Assets with no recorded owner lie downstream and none is an MS4 asset; the profile
    /// sends a missing owner to review.
    OwnerUnknown {
        /// The asset the connection joins.
        joined: String,
        /// The assets without an owner.
        assets: Vec<String>,
    },
}

/// A dated determination about a discharge (`discharge_determinations`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeterminationFacts {
    /// Its id.
    pub determination_id: String,
    /// What it is scoped to: `connection`, `parcel` or `kind`, with the subject's id or
    /// kind name.
    pub scope: String,
    /// The connection id, parcel id or discharge kind.
    pub subject: String,
    /// When it was made.
    pub determined_on: Option<String>,
    /// Who made it, as recorded.
    pub determined_by: Option<String>,
    /// `Some(true)`: a substantial contributor of pollutants; `Some(false)`: determined not
    /// to be, or an earlier determination withdrawn; `None`: the finding is not one of
    /// those. Read only when `finding_raw` is empty: the rule reads the recorded words.
    pub substantial_contributor: Option<bool>,
    /// The finding as recorded (read by [`read_finding`]).
    pub finding_raw: Option<String>,
}

/// A dry-weather screening of an outfall downstream that found sewage indicators.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreeningFacts {
    /// The inspection's id.
    pub inspection_id: String,
    /// The outfall screened.
    pub outfall: String,
    /// When.
    pub inspected_on: Option<String>,
}

/// A discharge permit recorded on a connection record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PermitFacts {
    /// The permit number (SPDES / NPDES permit, waiver or order); empty when the record
    /// holds other permit fields but no number.
    pub number: String,
    /// Its kind, as recorded.
    pub kind: Option<String>,
    /// Its holder, as recorded.
    pub holder: Option<String>,
    /// Whether written approval of the discharge to the MS4 was granted; `None` when the
    /// record does not say.
    pub ms4_approval: Option<bool>,
    /// When it was granted.
    pub ms4_approved_on: Option<String>,
}

/// The parcel a connection's drain originates on (AMB-04: the source parcel, current use).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceParcel {
    /// The parcel's id (`parcels.parcel_id`).
    pub parcel_id: String,
    /// Its `land_use` attribute as found (an assessor code or words); `None` when empty.
    pub land_use_raw: Option<String>,
    /// How the parcel was found: "connection's parcel_id" or "parcel holding the upstream
    /// end".
    pub found_by: String,
}

/// One connection record (`connection_records`) matched to the connection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordFacts {
    /// The record's id (`connection_records.record_id`).
    pub record_id: String,
    /// Whether the record says the connection was approved; `None` when it does not say.
    pub approved: Option<bool>,
    /// Who approved it, as recorded.
    pub approved_by: Option<String>,
    /// When, as recorded.
    pub approved_on: Option<String>,
    /// The plan, map or permit the record cites, when it names one.
    #[serde(default)]
    pub plan_ref: Option<String>,
    /// The discharge permit the record holds, if it records one.
    #[serde(default)]
    pub permit: Option<PermitFacts>,
    /// How the record was matched: "connection_id" or "within 25 ftUS of the MS4 end on the
    /// same parcel".
    pub matched_by: String,
}

/// Whether a connection is illicit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IllicitStatus {
    /// An illicit connection under clause (1), clause (2) or the sewage-line rule.
    Illicit,
    /// The facts do not decide it (unknown discharge kind or land use, approval not
    /// recorded, an exemption condition the registry cannot check); the reasons say what
    /// is missing.
    NeedsReview,
    /// Not illicit on the facts held.
    Ok,
    /// The jurisdiction's law has no illicit-connection rules.
    NotCovered,
}

impl IllicitStatus {
    /// Every status, in declaration order.
    pub const ALL: [IllicitStatus; 4] = [
        IllicitStatus::Illicit,
        IllicitStatus::NeedsReview,
        IllicitStatus::Ok,
        IllicitStatus::NotCovered,
    ];

    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            IllicitStatus::Illicit => "illicit",
            IllicitStatus::NeedsReview => "needs_review",
            IllicitStatus::Ok => "ok",
            IllicitStatus::NotCovered => "not_covered",
        }
    }
}

impl std::fmt::Display for IllicitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Counts of statuses over many connections, with the ids that need action.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct IllicitSummary {
    /// Connections evaluated.
    pub total: usize,
    /// Illicit connections.
    pub illicit: usize,
    /// Connections that need review.
    pub needs_review: usize,
    /// Connections found not illicit.
    pub ok: usize,
    /// Connections in a jurisdiction without illicit-connection rules.
    pub not_covered: usize,
    /// Ids of the illicit connections, in input order.
    pub illicit_ids: Vec<String>,
    /// Ids of the connections that need review, in input order.
    pub needs_review_ids: Vec<String>,
}

impl IllicitSummary {
    /// The count for one status.
    pub fn count(&self, status: IllicitStatus) -> usize {
        match status {
            IllicitStatus::Illicit => self.illicit,
            IllicitStatus::NeedsReview => self.needs_review,
            IllicitStatus::Ok => self.ok,
            IllicitStatus::NotCovered => self.not_covered,
        }
    }
}

/// Counts the statuses of `(connection_id, finding)` pairs.
pub fn summarize(findings: &[(String, Finding<IllicitStatus>)]) -> IllicitSummary {
    let mut s = IllicitSummary {
        total: findings.len(),
        ..IllicitSummary::default()
    };
    for (id, finding) in findings {
        match finding.result {
            IllicitStatus::Illicit => {
                s.illicit += 1;
                s.illicit_ids.push(id.clone());
            }
            IllicitStatus::NeedsReview => {
                s.needs_review += 1;
                s.needs_review_ids.push(id.clone());
            }
            IllicitStatus::Ok => s.ok += 1,
            IllicitStatus::NotCovered => s.not_covered += 1,
        }
    }
    s
}

/// What one clause concluded. Ordered so that the strongest conclusion wins when combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    /// The clause is not met.
    Clear,
    /// The facts do not decide the clause.
    Review,
    /// The clause is met.
    Illicit,
}

/// The catalogue ids of the rules this evaluation uses, for one profile.
struct RuleIds {
    /// Illicit connection, clause (1).
    conveyance: String,
    /// Illicit connection, clause (2).
    undocumented: String,
    /// Prohibition of illicit connections (the profile's coverage rule).
    prohibition: String,
    /// Sewage line connected to the MS4.
    sewage_line: String,
    /// The exempt-discharge enumeration.
    exempt_kinds: String,
    /// The discharge prohibition that defines an illegal discharge (North Castle calls it
    /// `illicit_discharge`, Windsor `illegal_discharge`, so it is read from the profile).
    discharge_prohibition: Option<String>,
}

impl RuleIds {
    fn of(profile: &Profile) -> RuleIds {
        // Loading checks that a profile of the model-ordinance family maps every role; a
        // law without one never gets this far (`not_covered`), so the role's name only
        // stands in for a profile built in code.
        let id = |role: Role| profile.role_id(role).unwrap_or(role.as_str()).to_string();
        RuleIds {
            conveyance: id(Role::NonstormwaterConveyance),
            undocumented: id(Role::UndocumentedCommercialIndustrial),
            prohibition: profile
                .role_id(Role::IllicitConnectionProhibition)
                .map(str::to_string)
                .or_else(|| profile.coverage.illicit_connections.rule.clone())
                .unwrap_or_else(|| id(Role::IllicitConnectionProhibition)),
            sewage_line: id(Role::SewageLine),
            exempt_kinds: id(Role::ExemptDischargeKinds),
            discharge_prohibition: profile.coverage.illicit_discharges.rule.clone(),
        }
    }
}

/// The town's names a recorded office may be qualified by ("Town of North Castle
/// Planning Board"): the profile's name and the town's name as its law writes it.
fn towns(profile: &Profile) -> [&str; 2] {
    [profile.name.as_str(), profile.wording.town.as_str()]
}

/// A rule's citation as the profile records it, or its id when the profile lacks it.
fn citation_of<'a>(profile: &'a Profile, rule: &'a str) -> &'a str {
    profile.citation(rule).unwrap_or(rule)
}

/// [`evaluate`] for every connection, each with its id, in their order: decided on every
/// core (each connection's finding is its own).
pub fn evaluate_each(
    profile: &Profile,
    connections: &[ConnectionFacts],
) -> Vec<(String, Finding<IllicitStatus>)> {
    use rayon::prelude::*;
    connections
        .par_iter()
        .map(|c| (c.connection_id.clone(), evaluate(profile, c)))
        .collect()
}

/// Decides whether one connection is an illicit connection under `profile`'s law.
///
/// The finding cites every rule it used, carries the profile's readings for the ambiguities
/// involved, and names as evidence the connection, the discharge kind, the source parcel
/// (with its land-use class and the basis of the classification) and each record.
pub fn evaluate(profile: &Profile, c: &ConnectionFacts) -> Finding<IllicitStatus> {
    let coverage = &profile.coverage.illicit_connections;
    if !coverage.present {
        return not_covered(profile, c);
    }
    let ids = RuleIds::of(profile);
    let mut f = Finding::new(IllicitStatus::Ok);
    let recipe = profile
        .role_id(Role::FlagIllicitConnection)
        .unwrap_or(FLAG_RULE);
    f.cite(profile, recipe).cite(profile, &ids.prohibition);
    f.evidence.push(connection_evidence(c));

    // Who and what the rules apply to: a connection that still exists, to the MS4.
    let existence = status::existence(c, &mut f);
    if let status::Existence::Removed = existence {
        return status::removed(profile, &ids, c, f);
    }
    let whose = status::whose(profile, c, &mut f);
    if let status::Whose::Other = whose {
        f.result = IllicitStatus::NotCovered;
        return f;
    }
    f.assume(profile, "AMB-31");

    let one = conveyance::clause_one(profile, &ids, c, &mut f);
    if one == Verdict::Illicit {
        let approved: Vec<&str> = c
            .records
            .iter()
            .filter(|r| r.approved == Some(true))
            .map(|r| r.record_id.as_str())
            .collect();
        if !approved.is_empty() {
            // AMB-31: clause (1) applies "regardless of whether said drain or connection had
            // been previously allowed, permitted or approved".
            f.because(format!(
                "the approval in record {} does not clear clause (1), which applies whatever \
                 was previously allowed, permitted or approved",
                approved.join(", ")
            ));
        }
    }
    let two = clause_two(profile, &ids, c, &mut f);

    let verdict = one.max(two);
    let would_be = match verdict {
        Verdict::Illicit => "illicit",
        Verdict::Review => "for review",
        Verdict::Clear => "not illicit",
    };
    let capped = match (&existence, &whose) {
        (status::Existence::Proposed, _) => {
            let raw = c.status_raw.as_deref().unwrap_or_default();
            f.because(format!(
                "the connection is recorded as {raw:?}: a plan to review, not a violation; \
                 if built as recorded it would be {would_be}"
            ));
            true
        }
        (status::Existence::Unsure(why), _) if verdict != Verdict::Clear => {
            f.because(format!(
                "{why}; if it still exists as recorded it would be {would_be}"
            ));
            true
        }
        (status::Existence::Unsure(why), _) => {
            // Removed or existing, it is not illicit: the status cannot change the answer.
            f.because(format!(
                "{why}; it would not be illicit even if it still exists, so the answer does \
                 not turn on it"
            ));
            matches!(whose, status::Whose::Review)
        }
        (_, status::Whose::Review) => true,
        _ => false,
    };
    if capped {
        f.result = IllicitStatus::NeedsReview;
        return f;
    }
    f.result = match verdict {
        Verdict::Illicit => {
            // § 267-12B(2) / Sec. 3-169(b)(2): no grandfathering by age or prior legality.
            f.because(format!(
                "the prohibition covers the connection's construction, use, maintenance or \
                 continued existence, including connections made in the past that were \
                 permissible when made ({})",
                citation_of(profile, &ids.prohibition)
            ));
            IllicitStatus::Illicit
        }
        Verdict::Review => IllicitStatus::NeedsReview,
        Verdict::Clear => IllicitStatus::Ok,
    };
    f
}

/// A jurisdiction whose law has no illicit-connection rules (Carmel).
fn not_covered(profile: &Profile, c: &ConnectionFacts) -> Finding<IllicitStatus> {
    let coverage = &profile.coverage.illicit_connections;
    let mut f = Finding::new(IllicitStatus::NotCovered);
    if let Some(rule) = &coverage.rule {
        f.cite(profile, rule);
    }
    f.because(format!(
        "the {} law in this profile ({}) has no illicit-connection rules, so the connection \
         is not evaluated",
        profile.name, profile.law.title
    ));
    if let Some(note) = &coverage.note {
        f.because(note.clone());
    }
    f.evidence.push(connection_evidence(c));
    f
}

fn connection_evidence(c: &ConnectionFacts) -> Evidence {
    Evidence::Feature {
        layer: Layer::Connections.name().to_string(),
        id: c.connection_id.clone(),
        note: String::new(),
    }
}
