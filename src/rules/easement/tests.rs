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
        (Some("drainage"), true, AccessTest::OtherPurpose),
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
