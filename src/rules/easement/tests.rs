//! Item 14 of the law's easement rule, per jurisdiction: at the law's words and the
//! counter-case.

use super::*;

fn easement(id: &str, purpose: Option<&str>, recorded: bool) -> CoveringEasement {
    CoveringEasement {
        easement_id: id.into(),
        instrument: recorded.then(|| "Liber 1 cp 2".to_string()),
        recorded_on: None,
        purpose: purpose.map(str::to_string),
    }
}

fn smp(structural: Option<bool>, owner_kind: Option<&str>, status: Option<&str>) -> SmpFacts {
    SmpFacts {
        smp_id: "SMP-1".into(),
        structural,
        owner_kind: owner_kind.map(str::to_string),
        status: status.map(str::to_string),
    }
}

#[test]
// A table of cases, one a row: split up, it would no longer read as one table.
#[allow(clippy::too_many_lines)]
fn item_14_easements_at_the_laws_words_and_counter_cases() {
    use EasementStatus::*;
    // (smp, easements, expected, phrase)
    let table: Vec<(SmpFacts, Vec<CoveringEasement>, EasementStatus, &str)> = vec![
        // Counter-case: a recorded maintenance easement still covers.
        (
            smp(Some(true), Some("private"), Some("active")),
            vec![easement("E-1", Some("stormwater maintenance"), true)],
            Covered,
            "covers the practice",
        ),
        (
            smp(Some(true), Some("private"), None),
            vec![],
            Missing,
            "no recorded maintenance or access easement",
        ),
        // A sanitary-sewer easement does not count.
        (
            smp(Some(true), None, None),
            vec![easement("E-2", Some("sanitary sewer"), true)],
            Missing,
            "gives no maintenance or access",
        ),
        (
            smp(Some(true), None, None),
            vec![easement("E-3", None, true)],
            NeedsReview,
            "records no purpose",
        ),
        (
            smp(Some(true), None, None),
            vec![easement("E-4", Some("access"), false)],
            NeedsReview,
            "shows no recording",
        ),
        // Nonstructural practices are flagged, naming the reading that leaves them out.
        (
            smp(Some(false), Some("private"), None),
            vec![],
            NeedsReview,
            "structural facilities alone would leave it out",
        ),
        (
            smp(Some(false), None, None),
            vec![easement("E-5", Some("access and maintenance"), true)],
            Covered,
            "covers the practice",
        ),
        // Unknown structure: the law asks for access to all practices.
        (
            smp(None, None, None),
            vec![],
            Missing,
            "access to all practices",
        ),
        // Town-owned or dedicated practices are outside the rule.
        (
            smp(Some(true), Some("Dedicated"), None),
            vec![],
            TownOwned,
            "in lieu of a maintenance agreement",
        ),
        (
            smp(Some(true), Some("municipal"), None),
            vec![],
            TownOwned,
            "outside the rule",
        ),
        // Removed practices are skipped.
        (
            smp(Some(true), Some("private"), Some("Removed")),
            vec![],
            Removed,
            "skipped",
        ),
    ];
    for (id, sections) in [
        ("north-castle-ny", ["267-7B", "267-5D(2)"]),
        ("carmel-ny", ["156-86", "156-81D"]),
    ] {
        let p = Profile::builtin(id).unwrap();
        for (s, es, want, phrase) in &table {
            let f = evaluate(&p, s, es);
            let what = format!("{id}: {s:?} {es:?}");
            let reasons = f.reasons.join(" | ");
            assert_eq!(f.result, *want, "{what}: {reasons}");
            assert!(reasons.contains(phrase), "{what}: {reasons}");
            let cites = f.citation_line();
            assert!(cites.contains(sections[0]), "{what}: {cites}");
            if !matches!(want, Removed | TownOwned) {
                assert!(cites.contains(sections[1]), "{what}: {cites}");
            }
            if *want == TownOwned {
                assert!(
                    cites.contains("156-85") || cites.contains("267-7D"),
                    "{cites}"
                );
            }
            // The rule takes no reading of an ambiguity; what it reads it says in reasons.
            assert!(f.assumptions.is_empty(), "{what}: {:?}", f.assumptions);
            for c in &f.citations {
                // Subparagraphs ([10]) are the law's; a bracketed word is a catalogue note.
                let note = c
                    .citation
                    .split('[')
                    .skip(1)
                    .any(|rest| rest.starts_with(|ch: char| ch.is_alphabetic()));
                assert!(!note, "bracket note in {}", c.citation);
            }
        }
    }
    let w = Profile::builtin("windsor-ct").unwrap();
    assert_eq!(
        evaluate(&w, &smp(Some(true), None, None), &[]).result,
        NotCovered
    );
}

#[test]
fn access_test_reads_the_purpose() {
    let cases = [
        (Some("Maintenance easement"), true, AccessTest::Gives),
        (Some("drainage and access"), true, AccessTest::Gives),
        (Some("storm sewer maintenance"), true, AccessTest::Gives),
        (
            Some("sanitary sewer maintenance"),
            true,
            AccessTest::OtherPurpose,
        ),
        (Some("utility"), true, AccessTest::OtherPurpose),
        (Some("drainage"), true, AccessTest::TermsDecide),
        (None, true, AccessTest::PurposeUnknown),
        (Some("inspection"), false, AccessTest::Unrecorded),
    ];
    for (purpose, recorded, want) in cases {
        assert_eq!(
            access_test(&easement("E", purpose, recorded)),
            want,
            "{purpose:?}"
        );
    }
}

/// Item 16 of issue 25, at the law's words: "Maintenance easements to ensure access to all
/// stormwater management practices at the site for the purpose of inspection and repair"
/// (North Castle § 267-5D(2)(b)[10], Carmel § 156-81D(8)). A recorded easement whose purpose
/// names neither maintenance nor access (a "drainage easement") may or may not give that
/// access: its terms decide, so the practice is for review, never "no access". Each row
/// has its counter-case: the same easement with words that do name maintenance or access
/// covers, and no easement at all stays missing.
#[rstest::rstest]
#[case::drainage_easement(
    "north-castle-ny",
    Some("drainage easement"),
    EasementStatus::NeedsReview,
    "its terms decide"
)]
#[case::drainage_easement_carmel(
    "carmel-ny",
    Some("drainage easement"),
    EasementStatus::NeedsReview,
    "its terms decide"
)]
#[case::storm_drainage_carmel(
    "carmel-ny",
    Some("storm drainage and conservation"),
    EasementStatus::NeedsReview,
    "names neither maintenance nor access"
)]
#[case::counter_drainage_and_maintenance(
    "north-castle-ny",
    Some("drainage and maintenance"),
    EasementStatus::Covered,
    "covers the practice"
)]
#[case::counter_access_carmel(
    "carmel-ny",
    Some("drainage; access for inspection and repair"),
    EasementStatus::Covered,
    "covers the practice"
)]
#[case::counter_sanitary_sewer(
    "north-castle-ny",
    Some("sanitary sewer"),
    EasementStatus::Missing,
    "gives no maintenance or access"
)]
#[case::counter_no_easement(
    "carmel-ny",
    None,
    EasementStatus::Missing,
    "no recorded maintenance or access easement"
)]
fn item_16_a_purpose_that_names_neither_maintenance_nor_access_is_for_review(
    #[case] town: &str,
    #[case] purpose: Option<&str>,
    #[case] want: EasementStatus,
    #[case] phrase: &str,
) {
    let p = Profile::builtin(town).unwrap();
    let es: Vec<CoveringEasement> = match purpose {
        Some(words) => vec![easement("E-9", Some(words), true)],
        None => vec![],
    };
    let f = evaluate(&p, &smp(Some(true), Some("private"), None), &es);
    let reasons = f.reasons.join(" | ");
    assert_eq!(f.result, want, "{town} {purpose:?}: {reasons}");
    assert!(reasons.contains(phrase), "{town} {purpose:?}: {reasons}");
    if want == EasementStatus::NeedsReview {
        assert!(reasons.contains("read the instrument"), "{reasons}");
        assert!(!reasons.contains("does not count"), "{reasons}");
    }
}

/// Windsor's article has no maintenance-easement rule: a drainage easement changes nothing.
#[test]
fn item_16_windsor_has_no_easement_rule_whatever_the_purpose() {
    let w = Profile::builtin("windsor-ct").unwrap();
    let es = [easement("E-9", Some("drainage easement"), true)];
    assert_eq!(
        evaluate(&w, &smp(Some(true), None, None), &es).result,
        EasementStatus::NotCovered
    );
}
