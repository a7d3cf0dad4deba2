//! Final stabilization as the laws define it, and the evidence a `stabilized` action
//! records of it. North Castle defines it (§ 267-4B STABILIZED): "all soil disturbance
//! activities have ceased and a uniform, perennial vegetative cover with a minimum
//! density of 80% over the entire pervious surface has been established; or other
//! equivalent stabilization measures, such as permanent landscape mulches, rock riprap or
//! washed/crushed stone have been applied on all disturbed areas that are not covered by
//! permanent structures, concrete or pavement". Carmel's article uses the words (the
//! SWPPP kept on site "to the date of final stabilization", § 156-81G) without defining
//! them; they are read as the SPDES general permit its sites are covered under defines
//! them, in the same words, and the answer says so.
//!
//! A stabilization logged without its evidence is kept (it is what was reported), but
//! the close-out stays open, as an open fact, until a further `stabilized` action gives
//! the cover or the measures and who found them.

use super::site::{Site, SiteAction};
use crate::domain::SiteActionKind;
use crate::idde::FieldError;
use crate::rules::Profile;

/// The least density of the perennial vegetative cover, percent of the pervious surface.
pub const MIN_COVER_PERCENT: f64 = 80.0;

/// The definition's words, as North Castle § 267-4B STABILIZED gives them.
pub const DEFINITION: &str = "all soil disturbance activities have ceased and a uniform, perennial vegetative cover with a minimum density of 80% over the entire pervious surface has been established; or other equivalent stabilization measures, such as permanent landscape mulches, rock riprap or washed/crushed stone have been applied on all disturbed areas that are not covered by permanent structures, concrete or pavement";

/// Where the profile's law defines final stabilization: its rule's citation, else a
/// sentence saying whose definition is read and why.
pub fn citation(profile: &Profile) -> String {
    profile
        .rules
        .iter()
        .find(|(id, _)| id.ends_with(".def.stabilized"))
        .and_then(|(id, _)| profile.citation(id))
        .map_or_else(
            || "final stabilization as the SPDES general permit for construction activity defines it (the town's law uses the words without defining them)".to_string(),
            str::to_string,
        )
}

/// Whether an action gives the evidence of final stabilization: the cover or the
/// equivalent measures.
pub fn has_evidence(a: &SiteAction) -> bool {
    a.cover_percent.is_some() || !a.equivalent_measures.is_empty()
}

/// The `stabilized` action whose evidence stands: the last one that gives any.
pub fn evidence(site: &Site) -> Option<&SiteAction> {
    site.actions
        .iter()
        .rev()
        .find(|a| a.kind == SiteActionKind::Stabilized && has_evidence(a))
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// Checks a `stabilized` action's evidence against the definition: soil disturbance
/// ceased, the cover at least 80% (a number of percent), each measure named, and who
/// found it. `again` is a stabilized site taking the evidence it was logged without: that
/// action must give it.
pub fn check(a: &SiteAction, again: bool) -> Result<(), FieldError> {
    if a.soil_disturbance == Some(true) {
        return Err(err(
            "soil_disturbance",
            format!(
                "final stabilization means {DEFINITION}: soil disturbance is still being performed"
            ),
        ));
    }
    if let Some(c) = a.cover_percent {
        if !(c.is_finite() && (0.0..=100.0).contains(&c)) {
            return Err(err(
                "cover_percent",
                format!("{c} is not a percent of the pervious surface (0 to 100)"),
            ));
        }
        if c < MIN_COVER_PERCENT {
            return Err(err(
                "cover_percent",
                format!(
                    "{c}% perennial vegetative cover is below the minimum density of 80% over the entire pervious surface that final stabilization requires; give the equivalent stabilization measures applied instead (equivalent_measures), or log it when the cover is established"
                ),
            ));
        }
    }
    if let Some(i) = a
        .equivalent_measures
        .iter()
        .position(|m| m.trim().is_empty())
    {
        return Err(err(
            &format!("equivalent_measures[{i}]"),
            "name the measure (permanent landscape mulch, rock riprap, washed/crushed stone)",
        ));
    }
    if has_evidence(a) && a.by.trim().is_empty() {
        return Err(err(
            "by",
            "the evidence of final stabilization says who found it (the inspector)",
        ));
    }
    if again && !has_evidence(a) {
        return Err(err(
            "cover_percent",
            "the site is stabilized already: a further stabilized action gives the evidence (cover_percent, or equivalent_measures) and who found it",
        ));
    }
    Ok(())
}

/// The open fact of a site stabilized without evidence, if it is one.
pub fn open_fact(site: &Site, profile: &Profile) -> Option<String> {
    let logged = site
        .actions
        .iter()
        .find(|a| a.kind == SiteActionKind::Stabilized)?;
    if evidence(site).is_some() {
        return None;
    }
    Some(format!(
        "site {} was logged stabilized on {} without the evidence final stabilization is judged by ({}: {DEFINITION}): the close-out stays open until a stabilized action gives the cover (cover_percent, at least 80) or the equivalent measures (equivalent_measures), and who found them",
        site.site_id,
        logged.on,
        citation(profile)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn stabilized(cover: Option<f64>, measures: &[&str], by: &str) -> SiteAction {
        let mut a = SiteAction::new(SiteActionKind::Stabilized, "2026-06-01".parse().unwrap());
        a.cover_percent = cover;
        a.equivalent_measures = measures.iter().map(|m| m.to_string()).collect();
        a.by = by.into();
        a
    }

    /// "a uniform, perennial vegetative cover with a minimum density of 80% over the
    /// entire pervious surface ... or other equivalent stabilization measures".
    #[rstest]
    #[case::cover_at_the_minimum(Some(80.0), &[], "QI", None)]
    #[case::cover_above(Some(95.0), &[], "QI", None)]
    #[case::cover_below(Some(79.5), &[], "QI", Some("cover_percent"))]
    #[case::not_a_percent(Some(120.0), &[], "QI", Some("cover_percent"))]
    #[case::riprap_instead(None, &["rock riprap"], "QI", None)]
    #[case::a_measure_unnamed(None, &[" "], "QI", Some("equivalent_measures[0]"))]
    #[case::no_one_found_it(Some(90.0), &[], "", Some("by"))]
    #[case::no_evidence_is_kept(None, &[], "", None)]
    fn the_evidence_is_judged_at_the_definitions_words(
        #[case] cover: Option<f64>,
        #[case] measures: &[&str],
        #[case] by: &str,
        #[case] refused: Option<&str>,
    ) {
        let r = check(&stabilized(cover, measures, by), false);
        assert_eq!(r.as_ref().err().map(|e| e.field.as_str()), refused, "{r:?}");
        if cover == Some(79.5) {
            let e = r.unwrap_err();
            assert!(
                e.message.contains("minimum density of 80%"),
                "{}",
                e.message
            );
        }
    }

    #[test]
    fn soil_still_disturbed_is_not_stabilized() {
        let mut a = stabilized(Some(90.0), &[], "QI");
        a.soil_disturbance = Some(true);
        assert_eq!(check(&a, false).unwrap_err().field, "soil_disturbance");
    }

    #[test]
    fn a_second_stabilized_action_must_give_the_evidence() {
        assert_eq!(
            check(&stabilized(None, &[], "QI"), true).unwrap_err().field,
            "cover_percent"
        );
        assert!(check(&stabilized(Some(85.0), &[], "QI"), true).is_ok());
    }

    #[rstest]
    #[case::north_castle("north-castle-ny", "§ 267-4B STABILIZED")]
    #[case::carmel("carmel-ny", "SPDES general permit")]
    fn each_town_cites_the_definition_it_reads(#[case] town: &str, #[case] cited: &str) {
        let p = Profile::builtin(town).unwrap();
        assert!(citation(&p).contains(cited), "{}", citation(&p));
    }
}
