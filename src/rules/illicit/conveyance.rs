//! Clause (1) and the sewage-line rule: what the connection carries, against the
//! jurisdiction's exempt list.
//!
//! The catalogue's default reading (AMB-05 "chapeau"): a conveyance carrying only exempt
//! water is not illicit, because the definition speaks of a conveyance that "allows an
//! illegal discharge"; indoor drains and sinks are illicit per se.

use crate::domain::discharge::DischargeKind as K;
use crate::rules::{AllowedRoute, DischargeCondition, Evidence, ExemptEntry, Finding, Profile};

use super::{citation_of, ConnectionFacts, IllicitStatus, RuleIds, Verdict};

/// Clause (1) for one connection; adds citations, reasons, evidence and assumptions to `f`.
pub(super) fn clause_one(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    let (kind, problem) = match c.discharge_kind_raw.as_deref() {
        None => (
            K::Unknown,
            Some("no discharge kind is recorded".to_string()),
        ),
        Some(raw) => K::parse_or_unknown(raw),
    };
    f.evidence.push(Evidence::Fact {
        text: match &c.discharge_kind_raw {
            Some(raw) => format!("discharge kind: {kind} (recorded as {raw:?})"),
            None => "discharge kind: unknown (none recorded)".to_string(),
        },
    });
    f.cite(profile, &ids.conveyance);
    let clause = citation_of(profile, &ids.conveyance);

    match kind {
        K::Stormwater => {
            f.because("clause (1) is not met: the connection carries stormwater only");
            Verdict::Clear
        }
        K::Unknown => {
            let why = problem.unwrap_or_else(|| "the discharge kind is recorded as unknown".into());
            f.because(format!(
                "clause (1) cannot be decided: {why}; whether the connection lets a \
                 non-stormwater discharge in needs review"
            ));
            Verdict::Review
        }
        K::Sewage => {
            cite_prohibition(profile, ids, f);
            f.cite(profile, &ids.sewage_line);
            f.because(format!(
                "clause (1) is met: the connection carries sewage, which the definition names \
                 ({clause}); connecting a line conveying sewage to the MS4, or allowing such a \
                 connection to continue, is itself a violation ({})",
                citation_of(profile, &ids.sewage_line)
            ));
            Verdict::Illicit
        }
        K::ProcessWastewater | K::WashWater => {
            cite_prohibition(profile, ids, f);
            f.because(format!(
                "clause (1) is met: the connection carries {}, a non-stormwater discharge \
                 the definition names ({clause}) and no exemption covers",
                words(kind)
            ));
            Verdict::Illicit
        }
        K::IndoorDrain => {
            cite_prohibition(profile, ids, f);
            f.assume(profile, "AMB-05");
            f.because(format!(
                "clause (1) is met: connections from indoor drains and sinks (floor drains \
                 included) are illicit whether or not they were previously allowed, permitted \
                 or approved ({clause})"
            ));
            Verdict::Illicit
        }
        _ => non_stormwater(profile, ids, c, kind, f),
    }
}

/// A kind's name for a sentence: "air conditioning condensate".
fn words(kind: K) -> String {
    kind.as_str().replace('_', " ")
}

/// The discharge prohibition and the exempt list decide a non-stormwater discharge.
fn cite_prohibition(profile: &Profile, ids: &RuleIds, f: &mut Finding<IllicitStatus>) {
    if let Some(rule) = &ids.discharge_prohibition {
        f.cite(profile, rule);
    }
    f.cite(profile, &ids.exempt_kinds);
}

/// A non-stormwater kind the definitions do not name: exempt, allowed, or illicit.
fn non_stormwater(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    kind: K,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    cite_prohibition(profile, ids, f);
    f.assume(profile, "AMB-05");
    if let Some(entry) = profile.is_exempt(kind) {
        return exempt(profile, entry, c, kind, f);
    }
    let town = &profile.name;
    let amb05 = |key: &str| {
        profile
            .assumption("AMB-05")
            .and_then(|a| a.setting.get(key))
            .and_then(|v| v.as_str())
    };

    if kind == K::DyeTesting {
        if let Some(allowed) = profile.allowed(AllowedRoute::DyeTesting) {
            f.cite(profile, &allowed.rule);
            f.because(format!(
                "clause (1) cannot be decided: dye testing is allowed only with verbal notice \
                 to the {} before the test ({}), and the registry holds no such notice",
                allowed.authority, allowed.citation
            ));
            return Verdict::Review;
        }
    }

    // The water of a basement sump may still be exempt as uncontaminated pumped groundwater;
    // the profile's AMB-05 reading says whether to ask for review instead of flagging it.
    if kind == K::BasementSumpPump && amb05("basement_sump_pump") == Some("review") {
        if let Some(pumped) = profile.is_exempt(K::UncontaminatedPumpedGroundwater) {
            f.cite(profile, &pumped.rule);
            if c.pollutants_found == Some(true) {
                f.because(format!(
                    "clause (1) is met: basement sump pumps are not on {town}'s exempt list, \
                     and sampling found pollutants, so the water is not uncontaminated pumped \
                     groundwater ({})",
                    pumped.citation
                ));
                return Verdict::Illicit;
            }
            f.because(format!(
                "clause (1) cannot be decided: basement sump pumps are not on {town}'s exempt \
                 list, but the water is exempt if it is {:?} ({}); review what the sump \
                 discharges",
                pumped.text, pumped.citation
            ));
            return Verdict::Review;
        }
    }

    if kind == K::ActiveGroundwaterDewateringSystem {
        // Windsor carves dewatering systems out of its footing-drain item; North Castle never
        // names them, so they may be its exempt "uncontaminated pumped groundwater".
        if let Some(carve_out) = profile
            .exempt_discharges
            .iter()
            .find(|e| e.has_condition(DischargeCondition::NotActiveGroundwaterDewatering))
        {
            f.cite(profile, &carve_out.rule);
            f.because(format!(
                "clause (1) is met: {town}'s exemption expressly excludes active groundwater \
                 dewatering systems ({:?}, {})",
                carve_out.text, carve_out.citation
            ));
            return Verdict::Illicit;
        }
        if let Some(pumped) = profile.is_exempt(K::UncontaminatedPumpedGroundwater) {
            f.cite(profile, &pumped.rule);
            if c.pollutants_found != Some(true) {
                f.because(format!(
                    "clause (1) cannot be decided: {town}'s law does not name active \
                     groundwater dewatering systems; the discharge may be its exempt {:?} ({}); \
                     review",
                    pumped.text, pumped.citation
                ));
                return Verdict::Review;
            }
        }
    }

    f.because(format!(
        "clause (1) is met: {} is a non-stormwater discharge that is not on {town}'s \
         exempt list ({}){}",
        words(kind),
        citation_of(profile, &ids.exempt_kinds),
        other_routes(profile)
    ));
    Verdict::Illicit
}

/// "; it is allowed only ..." for the routes other than the exempt list, which need
/// documents the registry does not hold.
fn other_routes(profile: &Profile) -> String {
    let routes: Vec<String> = profile
        .allowed_discharges
        .iter()
        .filter(|a| a.route != AllowedRoute::DyeTesting)
        .map(|a| match a.route {
            AllowedRoute::EmergencyWrittenApproval => {
                format!("a written approval by the {} ({})", a.authority, a.citation)
            }
            _ => format!(
                "a permit of {} with written approval ({})",
                a.authority, a.citation
            ),
        })
        .collect();
    if routes.is_empty() {
        String::new()
    } else {
        format!(
            "; it would be allowed only under {}, and none is on record",
            routes.join(" or ")
        )
    }
}

/// An exempt kind: check each condition the exemption carries against the facts.
fn exempt(
    profile: &Profile,
    entry: &ExemptEntry,
    c: &ConnectionFacts,
    kind: K,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    use DischargeCondition as D;
    f.cite(profile, &entry.rule);
    if !entry.conditions.is_empty() {
        f.assume(profile, "AMB-06");
    }
    let amb06 = |key: &str| {
        profile
            .assumption("AMB-06")
            .and_then(|a| a.setting.get(key))
            .cloned()
    };
    let mut verdict = Verdict::Clear;
    let mut assumed: Vec<String> = Vec::new();
    let mut problems: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut fail = |v: Verdict, why: String, verdict: &mut Verdict| {
        *verdict = (*verdict).max(v);
        problems.push(why);
    };

    for condition in &entry.conditions {
        match condition {
            D::NotSubstantialContributor => {
                if c.substantial_contributor_determined {
                    fail(
                        Verdict::Illicit,
                        "NYSDEC or the Town has determined it a substantial contributor of \
                         pollutants"
                            .into(),
                        &mut verdict,
                    );
                } else {
                    assumed.push(
                        "not determined a substantial contributor of pollutants (no \
                         determination by NYSDEC or the Town is on record)"
                            .into(),
                    );
                }
            }
            D::PollutantReductionPlan => {
                let plan = amb06("pollutant_reduction_plan");
                if plan.as_ref().and_then(|v| v.as_str()) == Some("condition") {
                    fail(
                        Verdict::Review,
                        "it is exempt only when made under an appropriate plan for reducing \
                         pollutants, and the registry holds no plan"
                            .into(),
                        &mut verdict,
                    );
                } else {
                    notes.push(format!(
                        "exempt discharges must be made under an appropriate plan for reducing \
                         pollutants ({}); the registry holds no plan, which is flagged as a \
                         separate duty, not a loss of the exemption",
                        entry.citation
                    ));
                }
            }
            D::Uncontaminated => match c.pollutants_found {
                Some(true) => fail(
                    Verdict::Illicit,
                    "sampling found pollutants, so the water is not uncontaminated".into(),
                    &mut verdict,
                ),
                Some(false) => assumed.push("uncontaminated (sampling found no pollutants)".into()),
                None => assumed.push("uncontaminated (no sampling result shows pollutants)".into()),
            },
            D::NoPollutantsBySampling => {
                let needs_sampling = amb06("catch_all_requires_sampling")
                    .and_then(|v| v.as_bool())
                    .unwrap_or(true);
                match c.pollutants_found {
                    Some(false) => assumed.push("free of pollutants (sampling found none)".into()),
                    Some(true) => fail(
                        Verdict::Illicit,
                        "sampling found pollutants".into(),
                        &mut verdict,
                    ),
                    None if needs_sampling => fail(
                        Verdict::Review,
                        "it is exempt only if it contains no pollutants, which needs a sampling \
                         result, and none is on record"
                            .into(),
                        &mut verdict,
                    ),
                    None => assumed.push("free of pollutants (not sampled)".into()),
                }
            }
            D::ExistingDiversion => {
                f.assume(profile, "AMB-14");
                let baseline = profile
                    .assumption("AMB-14")
                    .and_then(|a| a.setting.get("effective_date"))
                    .and_then(|v| v.as_str())
                    .map(|d| format!("the chapter's effective date, taken as {d}"))
                    .unwrap_or_else(|| "the chapter's effective date".into());
                fail(
                    Verdict::Review,
                    format!(
                        "only existing diverted stream flows are exempt, and the registry does \
                         not know whether this diversion existed on {baseline}"
                    ),
                    &mut verdict,
                );
            }
            D::Dechlorinated => {
                assumed.push(format!("dechlorinated (recorded as {})", words(kind)));
            }
            D::NotActiveGroundwaterDewatering => assumed.push(format!(
                "not an active groundwater dewatering system (recorded as {}; dewatering \
                 systems are recorded as a kind of their own)",
                words(kind)
            )),
            other => fail(
                Verdict::Review,
                format!("its condition {other} cannot be checked from the registry's facts"),
                &mut verdict,
            ),
        }
    }

    let headline = format!(
        "{} is on {}'s exempt list ({:?}, {})",
        words(kind),
        profile.name,
        entry.text,
        entry.citation
    );
    let reason = match verdict {
        Verdict::Clear if assumed.is_empty() => {
            format!("clause (1) is not met: {headline}")
        }
        Verdict::Clear => format!(
            "clause (1) is not met: {headline}; conditions taken as met: {}",
            assumed.join("; ")
        ),
        Verdict::Review => format!(
            "clause (1) cannot be decided: {headline}, but {}",
            problems.join("; and ")
        ),
        Verdict::Illicit => format!(
            "clause (1) is met: {headline}, but the exemption is lost: {}",
            problems.join("; and ")
        ),
    };
    f.because(reason);
    for note in notes {
        f.because(note);
    }
    verdict
}
