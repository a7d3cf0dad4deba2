//! Named non-stormwater kinds are illicit; unrecognised kinds need review.

use rstest::rstest;

use super::*;

/// A named non-stormwater kind in North Castle and Windsor, and the rule (by id suffix)
/// that must be cited.
#[rstest]
#[case::sewage("sewage", Illicit, Illicit, "illicit_connection.sewage_line")]
#[case::sanitary_lateral("sanitary lateral", Illicit, Illicit, "illicit_connection.sewage_line")]
#[case::process_wastewater("process wastewater", Illicit, Illicit, "enum.exempt_discharge_kinds")]
#[case::wash_water("wash water", Illicit, Illicit, "enum.exempt_discharge_kinds")]
#[case::floor_drain("floor drain", Illicit, Illicit, "enum.exempt_discharge_kinds")]
#[case::sink("sink", Illicit, Illicit, "enum.exempt_discharge_kinds")]
#[case::chlorinated_pool_water(
    "chlorinated pool water",
    Illicit,
    Illicit,
    "enum.exempt_discharge_kinds"
)]
// Windsor's footing-drain item excludes dewatering systems, but whether the exclusion
// reaches its "uncontaminated pumped groundwater" is open (AMB-33); North Castle does not
// name them, and they may be its exempt "uncontaminated pumped groundwater".
#[case::groundwater_dewatering(
    "active groundwater dewatering system",
    NeedsReview,
    NeedsReview,
    "illicit_connection.nonstormwater_conveyance"
)]
// Dye testing is allowed with verbal notice, which the registry does not hold.
#[case::dye_testing("dye testing", NeedsReview, NeedsReview, "dye_testing")]
fn named_non_stormwater_kinds_are_illicit_in_both_towns(
    #[case] raw: &str,
    #[case] want_nc: IllicitStatus,
    #[case] want_windsor: IllicitStatus,
    #[case] rule: &str,
) {
    for (p, want) in [
        (profile("north-castle-ny"), want_nc),
        (profile("windsor-ct"), want_windsor),
    ] {
        // A residential source with an approved record: clause (1) ignores approvals (by a
        // board that is not the official of the written-approval route, which is weighed
        // apart: see the routes tests).
        let mut approved = record("R-1", Some(true));
        approved.approved_by = Some("Planning Board".into());
        let c = facts(Some(raw), Some(residential(&p)), vec![approved]);
        let got = evaluate(&p, &c);
        let what = format!("{raw:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
        let suffix_cited = got.citations.iter().any(|c| c.rule.ends_with(rule));
        assert!(
            suffix_cited,
            "{what}: {rule} not cited in {:?}",
            got.citations
        );
        if got.result == Illicit {
            assert!(
                reasons(&got).contains("does not clear clause (1)"),
                "{what}: {}",
                reasons(&got)
            );
            assert!(assumes(&got, "AMB-31"));
        }
    }
}

/// A kind the registry cannot read, by the source's land use (each town's own code for
/// it): the outcome in both towns and a phrase the reasons must hold.
#[rstest]
#[case::an_unrecognised_kind(Some("widget runoff"), residential, NeedsReview, "is not recognised")]
#[case::an_ambiguous_kind(Some("wastewater"), residential, NeedsReview, "is ambiguous")]
#[case::recorded_as_unknown(Some("unknown"), residential, NeedsReview, "recorded as unknown")]
#[case::no_kind_recorded(None, residential, NeedsReview, "no discharge kind is recorded")]
#[case::an_empty_kind(Some(""), residential, NeedsReview, "discharge kind is empty")]
// An undocumented industrial drain is illicit whatever it carries.
#[case::an_unrecognised_kind_from_industrial_land(
    Some("widget runoff"),
    industrial,
    Illicit,
    "is not recognised"
)]
fn unknown_discharge_kinds_need_review_unless_clause_two_decides(
    #[case] raw: Option<&str>,
    #[case] land_use_of: fn(&Profile) -> &'static str,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for p in [profile("north-castle-ny"), profile("windsor-ct")] {
        let land_use = land_use_of(&p);
        let got = evaluate(&p, &facts(raw, Some(land_use), vec![]));
        let what = format!("{raw:?} on {land_use} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
    }
}
