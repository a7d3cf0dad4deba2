//! Clause (1) and the sewage-line rule: what the connection carries, against the
//! jurisdiction's exempt list.
//!
//! The catalogue's default reading (AMB-05 "chapeau"): a conveyance carrying only exempt
//! water is not illicit, because the definition speaks of a conveyance that "allows an
//! illegal discharge"; indoor drains and sinks are illicit per se.

use crate::domain::discharge::DischargeKind;
use crate::rules::{
    AllowedRoute, DischargeCondition, Evidence, ExemptConveyance, ExemptEntry, ExemptionConditions,
    Finding, PlanDuty, Profile, SumpPumpReading,
};

use super::{citation_of, ConnectionFacts, IllicitStatus, RuleIds, Verdict};

/// Clause (1) for one connection; adds citations, reasons, evidence and assumptions to `f`.
/// A permit on record, an approval by the written-approval route's official, or a record
/// naming either takes a non-stormwater discharge to review at most.
pub(super) fn clause_one(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    let (kind, verdict) = by_kind(profile, ids, c, f);
    if matches!(kind, DischargeKind::Stormwater | DischargeKind::Unknown)
        || verdict == Verdict::Clear
    {
        return verdict;
    }
    let verdict = permitted(profile, ids, c, verdict, f);
    super::routes::weigh(
        profile,
        citation_of(profile, &ids.conveyance),
        c,
        verdict,
        f,
    )
}

/// The permit route (NC § 267-12A(4), Windsor Sec. 3-169(a)(4)): a discharge permitted
/// under a state or federal permit, with written approval of its discharge to the MS4, is
/// not an illegal discharge; clause (1) then cannot be read either way with certainty.
fn permitted(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    verdict: Verdict,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    let Some(route) = profile.allowed(AllowedRoute::Permitted) else {
        return verdict;
    };
    let clause = citation_of(profile, &ids.conveyance);
    let mut out = verdict;
    for r in &c.records {
        let Some(p) = &r.permit else { continue };
        f.cite(profile, &route.rule);
        let kind = p
            .kind
            .as_deref()
            .map(|k| format!("{k}, "))
            .unwrap_or_default();
        let holder = p
            .holder
            .as_deref()
            .map(|h| format!("held by {h}"))
            .unwrap_or_else(|| "holder not recorded".into());
        let number = if p.number.trim().is_empty() {
            "with no number recorded (permit_number)".to_string()
        } else {
            p.number.clone()
        };
        let desc = format!("permit {number} ({kind}{holder}) in record {}", r.record_id);
        match p.ms4_approval {
            Some(true) => {
                let on = p
                    .ms4_approved_on
                    .as_deref()
                    .map(|d| format!(" on {d}"))
                    .unwrap_or_default();
                f.because(format!(
                    "clause (1) cannot be decided: {desc} is on record with written approval \
                     of the discharge to the MS4{on}; on one reading the prohibition does not \
                     apply to a discharge so permitted ({}), so it is not an illegal discharge \
                     and clause (1) is not met; on the other, clause (1) reaches a conveyance \
                     that lets a non-stormwater discharge in whether or not it was previously \
                     allowed, permitted or approved ({clause}); whether the discharger is in \
                     full compliance with the permit is not recorded; review",
                    route.citation
                ));
                out = out.min(Verdict::Review);
            }
            None => {
                f.because(format!(
                    "clause (1) cannot be decided: {desc} is on record, but the record does not \
                     say whether written approval of the discharge to the MS4 was granted, \
                     which the permit route requires ({}); review",
                    route.citation
                ));
                out = out.min(Verdict::Review);
            }
            Some(false) => {
                f.because(format!(
                "{desc} is on record, but the record says written approval of the discharge to \
                 the MS4 was not granted, which the permit route requires ({}), so the permit \
                 does not take the discharge out of the prohibition",
                route.citation
            ));
            }
        }
    }
    out
}

/// Clause (1) by the discharge kind alone.
fn by_kind(
    profile: &Profile,
    ids: &RuleIds,
    c: &ConnectionFacts,
    f: &mut Finding<IllicitStatus>,
) -> (DischargeKind, Verdict) {
    let (kind, problem) = match c.discharge_kind_raw.as_deref() {
        None => (
            DischargeKind::Unknown,
            Some("no discharge kind is recorded".to_string()),
        ),
        Some(raw) => DischargeKind::parse_or_unknown(raw),
    };
    f.evidence.push(Evidence::Fact {
        text: match &c.discharge_kind_raw {
            Some(raw) => format!("discharge kind: {kind} (recorded as {raw:?})"),
            None => "discharge kind: unknown (none recorded)".to_string(),
        },
    });
    f.cite(profile, &ids.conveyance);
    let clause = citation_of(profile, &ids.conveyance);

    let verdict = match kind {
        DischargeKind::Stormwater => {
            f.because("clause (1) is not met: the connection carries stormwater only");
            Verdict::Clear
        }
        DischargeKind::Unknown => {
            let why = problem.unwrap_or_else(|| "the discharge kind is recorded as unknown".into());
            f.because(format!(
                "clause (1) cannot be decided: {why}; whether the connection lets a \
                 non-stormwater discharge in needs review"
            ));
            Verdict::Review
        }
        DischargeKind::Sewage => {
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
        DischargeKind::ProcessWastewater | DischargeKind::WashWater => {
            cite_prohibition(profile, ids, f);
            f.because(format!(
                "clause (1) is met: the connection carries {}, a non-stormwater discharge \
                 the definition names ({clause}) and the exempt list does not include{}",
                words(kind),
                other_routes(profile, c)
            ));
            Verdict::Illicit
        }
        DischargeKind::IndoorDrain => {
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
    };
    (kind, verdict)
}

/// A kind's name for a sentence: "air conditioning condensate".
fn words(kind: DischargeKind) -> String {
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
    kind: DischargeKind,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    cite_prohibition(profile, ids, f);
    f.assume(profile, "AMB-05");
    if let Some(entry) = profile.is_exempt(kind) {
        return exempt(profile, entry, c, kind, f);
    }
    let town = &profile.name;
    let sump = profile
        .table_reading::<ExemptConveyance>()
        .map(|r| r.basement_sump_pump);

    if kind == DischargeKind::DyeTesting {
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
    if kind == DischargeKind::BasementSumpPump && sump == Some(SumpPumpReading::Review) {
        if let Some(pumped) = profile.is_exempt(DischargeKind::UncontaminatedPumpedGroundwater) {
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

    if kind == DischargeKind::ActiveGroundwaterDewateringSystem {
        // Windsor carves dewatering systems out of its footing-drain item; North Castle never
        // names them, so they may be its exempt "uncontaminated pumped groundwater".
        if let Some(carve_out) = profile
            .exempt_discharges
            .iter()
            .find(|e| e.has_condition(DischargeCondition::NotActiveGroundwaterDewatering))
        {
            f.cite(profile, &carve_out.rule);
            f.assume(profile, "AMB-33");
            if c.pollutants_found == Some(true) {
                f.because(format!(
                    "clause (1) is met: {town}'s footing-drain exemption excludes active \
                     groundwater dewatering systems ({:?}, {}), and sampling found pollutants, \
                     so the water is not uncontaminated pumped groundwater either",
                    carve_out.text, carve_out.citation
                ));
                return Verdict::Illicit;
            }
            f.because(format!(
                "clause (1) cannot be decided: {town}'s item {:?} ({}) excludes active \
                 groundwater dewatering systems from the footing-drain exemption; whether the \
                 exclusion also reaches \"uncontaminated pumped groundwater\" in the same item \
                 is open (AMB-33): on one reading the discharge is never exempt, on the other \
                 it is exempt when the water is uncontaminated; review",
                carve_out.text, carve_out.citation
            ));
            return Verdict::Review;
        }
        if let Some(pumped) = profile.is_exempt(DischargeKind::UncontaminatedPumpedGroundwater) {
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
        other_routes(profile, c)
    ));
    Verdict::Illicit
}

/// "; it is allowed only ..." for the routes other than the exempt list, which need
/// documents the registry does not hold (a permit, a route's approval or a record naming
/// one is judged apart, and then "none is on record" is not said).
fn other_routes(profile: &Profile, c: &ConnectionFacts) -> String {
    let permit_on_record = super::routes::any_on_record(profile, c);
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
    } else if permit_on_record {
        format!("; it would be allowed only under {}", routes.join(" or "))
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
    kind: DischargeKind,
    f: &mut Finding<IllicitStatus>,
) -> Verdict {
    f.cite(profile, &entry.rule);
    if !entry.conditions.is_empty() {
        f.assume(profile, "AMB-06");
    }
    let mut check = ExemptCheck {
        profile,
        entry,
        c,
        kind,
        // Load refuses a profile whose exempt list uses a condition this reading leaves out.
        amb06: profile
            .table_reading::<ExemptionConditions>()
            .unwrap_or_default(),
        verdict: Verdict::Clear,
        assumed: Vec::new(),
        problems: Vec::new(),
        notes: Vec::new(),
    };
    for condition in &entry.conditions {
        check.condition(condition, f);
    }
    check.screenings(f);
    for d in &c.determinations {
        f.evidence.push(Evidence::Feature {
            layer: "discharge_determinations".into(),
            id: d.determination_id.clone(),
            note: super::determinations::words(d),
        });
    }
    f.because(check.reason());
    for note in check.notes {
        f.because(note);
    }
    check.verdict
}

/// An exemption being checked: the worst verdict so far, the conditions taken as met,
/// the problems found and the notes to add.
struct ExemptCheck<'a> {
    profile: &'a Profile,
    entry: &'a ExemptEntry,
    c: &'a ConnectionFacts,
    kind: DischargeKind,
    amb06: ExemptionConditions,
    verdict: Verdict,
    assumed: Vec<String>,
    problems: Vec<String>,
    notes: Vec<String>,
}

impl ExemptCheck<'_> {
    /// A condition not met (or not decidable): the verdict is at least `v`, for `why`.
    fn fail(&mut self, v: Verdict, why: String) {
        self.verdict = self.verdict.max(v);
        self.problems.push(why);
    }

    /// Checks one condition of the exemption against the facts.
    fn condition(&mut self, condition: &DischargeCondition, f: &mut Finding<IllicitStatus>) {
        use DischargeCondition as D;
        let kind = self.kind;
        match condition {
            D::NotSubstantialContributor => self.not_substantial_contributor(),
            D::PollutantReductionPlan => {
                if self.amb06.pollutant_reduction_plan == Some(PlanDuty::Condition) {
                    self.fail(
                        Verdict::Review,
                        "it is exempt only when made under an appropriate plan for reducing \
                         pollutants, and the registry holds no plan"
                            .into(),
                    );
                } else {
                    self.notes.push(format!(
                        "exempt discharges must be made under an appropriate plan for reducing \
                         pollutants ({}); the registry holds no plan, which is flagged as a \
                         separate duty, not a loss of the exemption",
                        self.entry.citation
                    ));
                }
            }
            D::Uncontaminated | D::NoPollutantsBySampling => self.sampling(condition),
            D::ExistingDiversion => {
                f.assume(self.profile, "AMB-14");
                let baseline = self
                    .profile
                    .exemption_cutoff()
                    .map(|r| {
                        format!(
                            "the chapter's effective date, taken as {}",
                            r.effective_date
                        )
                    })
                    .unwrap_or_else(|| "the chapter's effective date".into());
                self.fail(
                    Verdict::Review,
                    format!(
                        "only existing diverted stream flows are exempt, and the registry does \
                         not know whether this diversion existed on {baseline}"
                    ),
                );
            }
            D::Dechlorinated => {
                self.assumed
                    .push(format!("dechlorinated (recorded as {})", words(kind)));
            }
            D::NotActiveGroundwaterDewatering => self.assumed.push(format!(
                "not an active groundwater dewatering system (recorded as {}; dewatering \
                 systems are recorded as a kind of their own)",
                words(kind)
            )),
            other => self.fail(
                Verdict::Review,
                format!("its condition {other} cannot be checked from the registry's facts"),
            ),
        }
    }

    /// Not a substantial contributor of pollutants: lost when a body the law names has
    /// determined it one (its latest determination for the scope), to review when another
    /// body has or the words cannot be read, else taken as met.
    fn not_substantial_contributor(&mut self) {
        let weighed = super::determinations::weigh(self.profile, self.c, &self.entry.citation);
        if weighed.iter().all(|w| w.aside) {
            let who = self
                .profile
                .ms4
                .determiners
                .as_ref()
                .map_or("the body the law names", |d| d.authority.as_str());
            self.assumed.push(format!(
                "not determined a substantial contributor of pollutants (no determination by \
                 {who} is on record in the discharge determinations)"
            ));
        }
        for w in weighed {
            match w.verdict {
                Verdict::Clear if w.aside => self.notes.push(w.text),
                Verdict::Clear => self.assumed.push(w.text),
                v => self.fail(v, w.text),
            }
        }
    }

    /// Uncontaminated, or free of pollutants by sampling: decided by the sampling result
    /// on record, if any.
    fn sampling(&mut self, condition: &DischargeCondition) {
        let c = self.c;
        if matches!(condition, DischargeCondition::Uncontaminated) {
            match c.pollutants_found {
                Some(true) => self.fail(
                    Verdict::Illicit,
                    "sampling found pollutants, so the water is not uncontaminated".into(),
                ),
                Some(false) => self.assumed.push(format!(
                    "uncontaminated (sampling{} found no pollutants)",
                    sampled_on(c)
                )),
                None => self.assumed.push(
                    "uncontaminated (no sampling result is recorded on the connection, so the \
                     condition is taken as met until one shows pollutants)"
                        .into(),
                ),
            }
            return;
        }
        let needs_sampling = self.amb06.catch_all_requires_sampling.unwrap_or(true);
        match c.pollutants_found {
            Some(false) => self
                .assumed
                .push("free of pollutants (sampling found none)".into()),
            Some(true) => self.fail(Verdict::Illicit, "sampling found pollutants".into()),
            None if needs_sampling => self.fail(
                Verdict::Review,
                "it is exempt only if it contains no pollutants, which needs a sampling \
                 result, and none is on record"
                    .into(),
            ),
            None => self.assumed.push("free of pollutants (not sampled)".into()),
        }
    }

    /// A dry-weather screening downstream that found sewage indicators puts the exempt
    /// kind recorded to review, with the screening as evidence.
    fn screenings(&mut self, f: &mut Finding<IllicitStatus>) {
        for sc in &self.c.screenings {
            f.evidence.push(Evidence::Feature {
                layer: "inspections".into(),
                id: sc.inspection_id.clone(),
                note: format!(
                    "dry-weather screening of outfall {} downstream found sewage indicators",
                    sc.outfall
                ),
            });
            let on = sc
                .inspected_on
                .as_deref()
                .map(|d| format!(" on {d}"))
                .unwrap_or_default();
            self.fail(
                Verdict::Review,
                format!(
                    "dry-weather screening {} of outfall {}{on}, downstream of the connection, \
                     found sewage indicators, so whether this discharge is still the exempt kind \
                     recorded (uncontaminated, not a substantial contributor of pollutants) needs \
                     review",
                    sc.inspection_id, sc.outfall
                ),
            );
        }
    }

    /// The finding's reason: clause (1) not met, undecided or met, with the problems and
    /// the conditions taken as met.
    fn reason(&self) -> String {
        let headline = format!(
            "{} is on {}'s exempt list ({:?}, {})",
            words(self.kind),
            self.profile.name,
            self.entry.text,
            self.entry.citation
        );
        let (assumed, problems) = (&self.assumed, &self.problems);
        match self.verdict {
            Verdict::Clear if assumed.is_empty() => {
                format!("clause (1) is not met: {headline}")
            }
            Verdict::Clear => format!(
                "clause (1) is not met: {headline}; conditions taken as met: {}",
                assumed.join("; ")
            ),
            Verdict::Review if assumed.is_empty() => format!(
                "clause (1) cannot be decided: {headline}, but {}",
                problems.join("; and ")
            ),
            Verdict::Review => format!(
                "clause (1) cannot be decided: {headline}, but {}; conditions taken as met: {}",
                problems.join("; and "),
                assumed.join("; ")
            ),
            Verdict::Illicit => format!(
                "clause (1) is met: {headline}, but the exemption is lost: {}",
                problems.join("; and ")
            ),
        }
    }
}

/// " on 2024-05-01" when the sampling date is recorded.
fn sampled_on(c: &ConnectionFacts) -> String {
    c.sampled_on
        .as_deref()
        .map(|d| format!(" on {d}"))
        .unwrap_or_default()
}
