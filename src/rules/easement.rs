//! Structural SMPs and the recorded maintenance easement that gives the town access
//! (North Castle § 267-7B, Carmel § 156-86). Windsor's article has no such rule.

use serde::Serialize;

use super::{Evidence, Finding, Profile};

/// Whether an SMP has the recorded easement the law requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EasementStatus {
    /// A recorded easement covers it.
    Covered,
    /// No recorded easement covers it.
    Missing,
    /// Whether it is structural is not recorded, or an easement covers it but shows no
    /// recording: someone has to look.
    NeedsReview,
    /// Not a structural SMP: the rule does not reach it.
    NotStructural,
    /// The jurisdiction's law has no such rule.
    NotCovered,
}

/// An easement that meets an SMP.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CoveringEasement {
    /// The easement's id.
    pub easement_id: String,
    /// Its recording instrument, if recorded.
    pub instrument: Option<String>,
    /// When it was recorded, if it was.
    pub recorded_on: Option<String>,
}

impl CoveringEasement {
    /// An easement counts as recorded when it carries a recording date or instrument.
    pub fn recorded(&self) -> bool {
        self.instrument.is_some() || self.recorded_on.is_some()
    }
}

/// The rule id of a jurisdiction's maintenance-easement requirement, if it has one.
pub fn rule_id(profile: &Profile) -> Option<String> {
    let id = format!("{}.maintenance_easement", profile.rule_prefix);
    profile.rule(&id).map(|_| id)
}

/// Judges one SMP from whether it is structural and the easements that meet it.
pub fn evaluate(
    profile: &Profile,
    smp_id: &str,
    structural: Option<bool>,
    easements: &[CoveringEasement],
) -> Finding<EasementStatus> {
    let Some(rule) = rule_id(profile) else {
        let mut f = Finding::new(EasementStatus::NotCovered);
        f.because(format!(
            "the {} profile records no maintenance-easement rule",
            profile.name
        ));
        return f;
    };
    let mut f = Finding::new(EasementStatus::Missing);
    f.cite(profile, &rule).assume(profile, "AMB-22");
    f.evidence.push(Evidence::Feature {
        layer: "smps".into(),
        id: smp_id.into(),
        note: String::new(),
    });
    for e in easements {
        f.evidence.push(Evidence::Feature {
            layer: "easements".into(),
            id: e.easement_id.clone(),
            note: match (&e.instrument, &e.recorded_on) {
                (Some(i), _) => format!("recorded ({i})"),
                (None, Some(d)) => format!("recorded on {d}"),
                (None, None) => "no recording shown".into(),
            },
        });
    }
    match structural {
        Some(false) => {
            f.result = EasementStatus::NotStructural;
            f.because("not a structural practice");
        }
        None => {
            f.result = EasementStatus::NeedsReview;
            f.because("whether the practice is structural is not recorded");
        }
        Some(true) if easements.iter().any(CoveringEasement::recorded) => {
            f.result = EasementStatus::Covered;
            f.because("a recorded easement covers the practice");
        }
        Some(true) if !easements.is_empty() => {
            f.result = EasementStatus::NeedsReview;
            f.because("an easement covers the practice but shows no recording");
        }
        Some(true) => {
            f.because("no recorded maintenance easement covers this structural practice");
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str) -> CoveringEasement {
        CoveringEasement {
            easement_id: id.into(),
            instrument: Some("Liber 1 cp 2".into()),
            recorded_on: None,
        }
    }

    #[test]
    fn structural_smp_without_recorded_easement_is_missing_in_ny_and_not_covered_in_windsor() {
        for (id, cite) in [("north-castle-ny", "267-7"), ("carmel-ny", "156-86")] {
            let p = Profile::builtin(id).unwrap();
            let f = evaluate(&p, "SMP-1", Some(true), &[]);
            assert_eq!(f.result, EasementStatus::Missing, "{id}");
            assert!(
                f.citations[0].citation.contains(cite),
                "{id}: {:?}",
                f.citations
            );
            assert_eq!(
                evaluate(&p, "SMP-1", Some(true), &[rec("E-1")]).result,
                EasementStatus::Covered
            );
            let unrecorded = CoveringEasement {
                easement_id: "E-2".into(),
                instrument: None,
                recorded_on: None,
            };
            assert_eq!(
                evaluate(&p, "SMP-1", Some(true), &[unrecorded]).result,
                EasementStatus::NeedsReview
            );
            assert_eq!(
                evaluate(&p, "SMP-1", Some(false), &[]).result,
                EasementStatus::NotStructural
            );
            assert_eq!(
                evaluate(&p, "SMP-1", None, &[]).result,
                EasementStatus::NeedsReview
            );
        }
        let w = Profile::builtin("windsor-ct").unwrap();
        assert_eq!(
            evaluate(&w, "SMP-1", Some(true), &[]).result,
            EasementStatus::NotCovered
        );
    }
}
