//! Clause two: documentation and approval, the source parcel and its land use class.

use rstest::rstest;

use super::*;

/// Clause (2) by (land use in North Castle, in Windsor, records), the outcome in both and
/// a phrase the reasons must hold.
#[rstest]
#[case::industrial_without_records(
    "710",
    "400",
    vec![],
    Illicit,
    "missing: documentation and approval"
)]
#[case::industrial_with_an_approved_record(
    "710",
    "400",
    vec![record("R-1", Some(true))],
    Ok,
    "and approved in record R-1"
)]
#[case::industrial_with_an_unapproved_record(
    "710",
    "400",
    vec![record("R-1", Some(false))],
    Illicit,
    "missing: approval"
)]
// A record that is silent on approval proves neither way: review.
#[case::a_record_silent_on_approval(
    "710",
    "400",
    vec![record("R-1", None)],
    NeedsReview,
    "does not say whether it was approved"
)]
#[case::any_approved_record_documents_it(
    "710",
    "400",
    vec![record("R-1", Some(false)), record("R-2", Some(true))],
    Ok,
    "record R-2"
)]
#[case::commercial_without_records("432", "340", vec![], Illicit, "commercial")]
#[case::commercial_with_an_approved_record(
    "432",
    "340",
    vec![record("R-1", Some(true))],
    Ok,
    "an approver the profile lists"
)]
// Commercial-looking codes the town has to classify, codes in no list, no value.
#[case::a_code_left_to_the_town(
    "484",
    "13",
    vec![],
    NeedsReview,
    "unknown or left to the town"
)]
#[case::a_code_in_no_list("42", "9", vec![], NeedsReview, "is in no land-use list")]
#[case::no_land_use_value("", "", vec![], NeedsReview, "no land-use value")]
// Residential: clause (2) does not apply, records or not.
#[case::residential_without_records(
    "210",
    "101",
    vec![],
    Ok,
    "not a commercial or industrial land use"
)]
#[case::residential_with_an_unapproved_record(
    "210",
    "101",
    vec![record("R-1", Some(false))],
    Ok,
    "not a commercial"
)]
fn clause_two_needs_documentation_and_approval(
    #[case] nc_code: &str,
    #[case] w_code: &str,
    #[case] records: Vec<RecordFacts>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for (p, code) in [
        (profile("north-castle-ny"), nc_code),
        (profile("windsor-ct"), w_code),
    ] {
        let land_use = (!code.is_empty()).then_some(code);
        let c = facts(Some("stormwater"), land_use, records.clone());
        let got = evaluate(&p, &c);
        let what = format!(
            "land use {code:?} with {} record(s) in {}",
            records.len(),
            p.id
        );
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
        let clause2 = format!(
            "{}.illicit_connection.undocumented_commercial_industrial",
            p.rule_prefix
        );
        assert!(cites(&got, &clause2), "{what}");
        assert!(
            cites(&got, "shared.def.commercial_industrial_land_use"),
            "{what}"
        );
        assert!(assumes(&got, "AMB-03") && assumes(&got, "AMB-04"), "{what}");
        let parcel_named = got.evidence.iter().any(|e| matches!(
            e,
            Evidence::Feature { layer, id, note } if layer == "parcels" && id == "P-1" && note.contains("found by")
        ));
        assert!(parcel_named, "{what}: {:?}", got.evidence);
        for r in &records {
            let named = got.evidence.iter().any(|e| matches!(
                e,
                Evidence::Feature { layer, id, .. } if layer == "connection_records" && *id == r.record_id
            ));
            assert!(named, "{what}: record {} missing", r.record_id);
        }
    }
}

#[test]
fn evidence_gives_the_land_use_class_and_basis() {
    let nc = profile("north-castle-ny");
    let got = evaluate(&nc, &facts(Some("stormwater"), Some("432"), vec![]));
    assert_eq!(got.result, Illicit);
    let note = got
        .evidence
        .iter()
        .find_map(|e| match e {
            Evidence::Feature { layer, note, .. } if layer == "parcels" => Some(note.clone()),
            _ => None,
        })
        .unwrap();
    assert!(
        note.contains("commercial (code 432 matches commercial code 400-499)"),
        "{note}"
    );
    assert!(assumes(&got, "AMB-01") && assumes(&got, "AMB-02"));
    assert!(got
        .evidence
        .iter()
        .any(|e| matches!(e, Evidence::Fact { text } if text.contains("stormwater"))));
}

#[test]
fn no_source_parcel_needs_review() {
    let p = profile("windsor-ct");
    let mut c = facts(Some("stormwater"), None, vec![]);
    c.source_parcel = None;
    let got = evaluate(&p, &c);
    assert_eq!(got.result, NeedsReview);
    assert!(
        reasons(&got).contains("no source parcel"),
        "{}",
        reasons(&got)
    );
    // Sewage stays illicit without a parcel.
    c.discharge_kind_raw = Some("sewage".into());
    assert_eq!(evaluate(&p, &c).result, Illicit);
}

#[rstest]
#[case::north_castle("north-castle-ny")]
#[case::windsor("windsor-ct")]
fn residential_stormwater_without_records_is_ok(#[case] id: &str) {
    let p = profile(id);
    let mut c = facts(Some("Stormwater"), Some(residential(&p)), vec![]);
    c.source_parcel.as_mut().unwrap().found_by = "parcel holding the upstream end".into();
    let got = evaluate(&p, &c);
    assert_eq!(got.result, Ok, "{}: {}", p.id, reasons(&got));
    check_shape(&p, &got, &p.id);
    assert!(cites(&got, "shared.registry.flag_illicit_connection"));
    assert!(got.evidence.iter().any(|e| matches!(
        e,
        Evidence::Feature { note, .. } if note.contains("parcel holding the upstream end")
    )));
}
