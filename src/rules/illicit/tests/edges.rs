//! Issue 25, items 12 to 15: determinations of "substantial contributor" as dated acts by
//! the bodies the law names, approvals by whole names, statuses and facts the list lacks,
//! and every route out of the prohibition. One table per item, at the law's words, each
//! case with its counter-case.

use rstest::rstest;

use super::*;

fn nc() -> Profile {
    profile("north-castle-ny")
}

/// A determination of parcel P-1 (the source parcel of [`facts`]).
fn det(id: &str, on: &str, by: &str, finding: &str) -> DeterminationFacts {
    DeterminationFacts {
        determination_id: id.into(),
        scope: "parcel".into(),
        subject: "P-1".into(),
        determined_on: Some(on.into()),
        determined_by: Some(by.into()),
        substantial_contributor: None,
        finding_raw: Some(finding.into()),
    }
}

/// § 267-12A(1): "The following discharges are exempt from discharge prohibitions
/// established by this chapter, unless the Department or the municipality has determined
/// them to be substantial contributors of pollutants: ... springs; ...". Springs from a
/// residence, by the determinations on record: the outcome and a phrase of the reasons.
#[rstest]
#[case::the_department_determined_it(
    vec![det("D-1", "2023-01-05", "NYSDEC", "substantial contributor")],
    Illicit,
    "withdraws the exemption (§ 267-12A(1))"
)]
#[case::the_municipality_determined_it(
    vec![det("D-1", "2023-01-05", "Town of North Castle Town Board", "Substantial contributor of pollutants")],
    Illicit,
    "the Department or the municipality has determined it"
)]
// Counter-case: a county body whose name holds the word "Department" is not the Department.
#[case::a_county_department_is_another_body(
    vec![det("D-1", "2023-01-05", "Westchester County Department of Health", "substantial contributor")],
    NeedsReview,
    "contains the words \"Department\" but is not the whole name of the Department or the municipality"
)]
#[case::who_made_it_is_not_recorded(
    vec![DeterminationFacts { determined_by: None, ..det("D-1", "2023-01-05", "", "substantial contributor") }],
    NeedsReview,
    "does not say who made it (determined_by)"
)]
// The latest determination for a scope replaces the earlier ones.
#[case::no_longer_a_substantial_contributor(
    vec![
        det("D-1", "2022-12-30", "NYSDEC", "substantial contributor"),
        det("D-2", "2024-01-02", "NYSDEC", "no longer a substantial contributor"),
    ],
    Ok,
    "withdraws the determination; it is the latest for parcel P-1 and replaces D-1"
)]
#[case::rescinded(
    vec![
        det("D-2", "2024-01-02", "Town", "determination rescinded"),
        det("D-1", "2022-12-30", "NYSDEC", "substantial contributor"),
    ],
    Ok,
    "replaces D-1"
)]
// Counter-case: a later "yes" replaces an earlier "no".
#[case::a_later_determination_that_it_is_one(
    vec![
        det("D-1", "2022-12-30", "NYSDEC", "not a substantial contributor"),
        det("D-2", "2024-01-02", "SMO", "substantial contributor"),
    ],
    Illicit,
    "replaces D-1"
)]
// Only the bodies the law names withdraw: another body's later withdrawal changes nothing.
#[case::another_body_cannot_withdraw_the_departments(
    vec![
        det("D-1", "2022-12-30", "NYSDEC", "substantial contributor"),
        det("D-2", "2024-01-02", "Putnam County Planning Board", "withdrawn"),
    ],
    Illicit,
    "is not counted"
)]
// Words the code cannot read go to review, never to "yes".
#[case::a_potential_contributor_is_not_a_determination(
    vec![det("D-1", "2023-01-05", "NYSDEC", "potential substantial contributor")],
    NeedsReview,
    "not words the registry reads"
)]
#[case::words_the_code_cannot_read(
    vec![det("D-1", "2023-01-05", "NYSDEC", "see attached letter")],
    NeedsReview,
    "what would decide: the determination's terms"
)]
#[case::two_on_one_day_that_disagree(
    vec![
        det("D-1", "2023-01-05", "NYSDEC", "substantial contributor"),
        det("D-2", "2023-01-05", "Town", "not a substantial contributor"),
    ],
    NeedsReview,
    "cannot be ordered by their dates"
)]
// Counter-case: no determination on record: the condition is taken as met, and said so.
#[case::none_on_record(
    vec![],
    Ok,
    "no determination by the Department or the municipality is on record"
)]
fn item_12_determinations_are_dated_acts_by_the_bodies_the_law_names(
    #[case] dets: Vec<DeterminationFacts>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    let p = nc();
    let mut c = facts(Some("springs"), Some("210"), vec![]);
    c.determinations = dets;
    let got = evaluate(&p, &c);
    assert_eq!(got.result, want, "{}", reasons(&got));
    assert!(reasons(&got).contains(phrase), "{}", reasons(&got));
    check_shape(&p, &got, "item 12");
    // Each determination is evidence, by its id.
    for d in &c.determinations {
        assert!(got.evidence.iter().any(|e| matches!(
            e,
            Evidence::Feature { layer, id, .. }
                if layer == "discharge_determinations" && *id == d.determination_id
        )));
    }
}

/// A later determination for the connection against an earlier one for its kind: which
/// governs is not for the code to guess. Counter-case: the connection's is the earlier.
#[rstest]
#[case::a_later_no_for_the_connection(
    "2024-01-02",
    NeedsReview,
    "which of the two governs this connection needs review"
)]
#[case::an_earlier_no_for_the_connection("2021-06-01", Illicit, "withdraws the exemption")]
fn item_12_scopes_that_disagree(
    #[case] connection_on: &str,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    let p = nc();
    let mut c = facts(Some("springs"), Some("210"), vec![]);
    let mut kind = det("D-1", "2022-12-30", "NYSDEC", "substantial contributor");
    kind.scope = "kind".into();
    kind.subject = "springs".into();
    let mut conn = det("D-2", connection_on, "SMO", "not a substantial contributor");
    conn.scope = "connection".into();
    conn.subject = "C-1".into();
    c.determinations = vec![kind, conn];
    let got = evaluate(&p, &c);
    assert_eq!(got.result, want, "{}", reasons(&got));
    assert!(reasons(&got).contains(phrase), "{}", reasons(&got));
}

/// A town added as data whose profile names no determining body: a determination goes to
/// review, never to a verdict.
#[test]
fn item_12_a_profile_without_determiners_sends_determinations_to_review() {
    let mut p = nc();
    p.ms4.determiners = None;
    let mut c = facts(Some("springs"), Some("210"), vec![]);
    c.determinations = vec![det(
        "D-1",
        "2023-01-05",
        "NYSDEC",
        "substantial contributor",
    )];
    let got = evaluate(&p, &c);
    assert_eq!(got.result, NeedsReview, "{}", reasons(&got));
    assert!(reasons(&got).contains("names no body"), "{}", reasons(&got));
}

/// The words of a finding, as read.
#[rstest]
#[case::plain("substantial contributor", Reading::Substantial)]
#[case::with_filler(
    "Determined to be a substantial contributor of pollutants",
    Reading::Substantial
)]
#[case::snake_case("substantial_contributor", Reading::Substantial)]
#[case::not_one("not a substantial contributor", Reading::NotSubstantial)]
#[case::no_longer("no longer a substantial contributor", Reading::Withdrawn)]
#[case::rescinded("Rescinded", Reading::Withdrawn)]
#[case::withdrawn("determination withdrawn", Reading::Withdrawn)]
#[case::potential("potential substantial contributor", Reading::Unread)]
#[case::pending("pending review", Reading::Unread)]
#[case::a_contributor("contributor", Reading::Unread)]
#[case::significant("significant contributor", Reading::Unread)]
// A bare "yes" does not say what was determined.
#[case::a_bare_yes("yes", Reading::Unread)]
fn item_12_findings_are_read_by_their_words(#[case] raw: &str, #[case] want: Reading) {
    assert_eq!(read_finding(raw), want, "{raw:?}");
}

fn approval(by: &str) -> RecordFacts {
    RecordFacts {
        record_id: "R-1".into(),
        approved: Some(true),
        approved_by: Some(by.into()),
        approved_on: Some("2015-06-01".into()),
        plan_ref: Some("SP-1".into()),
        matched_by: "names the connection".into(),
        ..RecordFacts::default()
    }
}

/// ILLICIT CONNECTION (2): a drain from commercial or industrial land "which has not been
/// documented in plans, maps or equivalent records and approved by an authorized
/// enforcement agency" (North Castle), "approved by the Town" (Windsor). An approver counts
/// as a whole name of an office the profile lists for the town.
#[rstest]
#[case::nc_planning_board(
    "north-castle-ny",
    "Planning Board",
    Ok,
    "the whole name of Planning Board"
)]
#[case::nc_the_towns_planning_board(
    "north-castle-ny",
    "Town of North Castle Planning Board",
    Ok,
    "the whole name of Planning Board"
)]
#[case::nc_planning_board_of_the_town(
    "north-castle-ny",
    "Planning Board of the Town of North Castle",
    Ok,
    "the whole name of Planning Board"
)]
#[case::nc_a_county_planning_board(
    "north-castle-ny",
    "Putnam County Planning Board",
    NeedsReview,
    "contains the words of the listed office \"Planning Board\" but is not that office's whole name"
)]
#[case::nc_another_towns_board(
    "north-castle-ny",
    "Town of Bedford Planning Board",
    NeedsReview,
    "another public body"
)]
#[case::windsor_town_engineer("windsor-ct", "Town Engineer", Ok, "the whole name of Town Engineer")]
#[case::windsor_another_towns_manager(
    "windsor-ct",
    "Bloomfield Town Manager",
    NeedsReview,
    "is not that office's whole name for the Town of Windsor"
)]
fn item_13_approvals_by_whole_names(
    #[case] id: &str,
    #[case] by: &str,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    let p = profile(id);
    let c = facts(Some("stormwater"), Some(industrial(&p)), vec![approval(by)]);
    let got = evaluate(&p, &c);
    assert_eq!(got.result, want, "{by:?} in {id}: {}", reasons(&got));
    assert!(
        reasons(&got).contains(phrase),
        "{by:?} in {id}: {}",
        reasons(&got)
    );
    check_shape(&p, &got, by);
}

/// The matcher itself: whole names, qualified by the town, and the words in other company.
#[rstest]
#[case::equal("SMO", NameMatch::Named("SMO"))]
#[case::case_and_punctuation("The S.M.O.", NameMatch::Unlisted)]
#[case::the_and_case("the smo", NameMatch::Named("SMO"))]
#[case::possessive("North Castle's Town Board", NameMatch::Named("Town Board"))]
#[case::a_person_after_the_office("Town Engineer J. Smith", NameMatch::Contains("Town Engineer"))]
#[case::a_county_board(
    "Westchester County Planning Board",
    NameMatch::Contains("Planning Board")
)]
#[case::unlisted("Acme Corp.", NameMatch::Unlisted)]
fn item_13_whole_name_matching(#[case] value: &str, #[case] want: NameMatch<'static>) {
    let names: Vec<String> = ["SMO", "Town Engineer", "Town Board", "Planning Board"]
        .into_iter()
        .map(String::from)
        .collect();
    let got = crate::rules::whole_name(value, &names, &["Town of North Castle", "North Castle"]);
    assert_eq!(format!("{got:?}"), format!("{want:?}"), "{value:?}");
}

/// § 267-12B(1) / Sec. 3-169(b)(1): "The construction, use, maintenance or continued
/// existence of illicit connections ... is prohibited." A sewage connection from a
/// residence by its recorded status and removal date: the words the registry reads as
/// removed, and those it sends to review.
#[rstest]
#[case::capped(
    Some("capped"),
    None,
    NeedsReview,
    "out of use, not that it was removed"
)]
#[case::plugged(
    Some("Plugged"),
    None,
    NeedsReview,
    "if it still exists as recorded it would be illicit"
)]
#[case::sealed(
    Some("sealed"),
    None,
    NeedsReview,
    "what would decide: a record of its removal"
)]
#[case::abandoned_without_a_date(Some("abandoned"), None, NeedsReview, "a pipe left in place")]
#[case::inactive(
    Some("Inactive"),
    None,
    NeedsReview,
    "the status \"Inactive\" says the connection is out of use"
)]
// Counter-cases: with a removal date the out-of-use words are read as removed.
#[case::capped_with_a_removal_date(
    Some("capped"),
    Some("2019-04-02"),
    Ok,
    "so it is read as removed"
)]
#[case::abandoned_with_a_removal_date(
    Some("abandoned"),
    Some("2019-04-02"),
    Ok,
    "removed on 2019-04-02"
)]
#[case::disconnected(
    Some("disconnected"),
    None,
    Ok,
    "a removed connection no longer exists"
)]
#[case::an_unrecognised_word(Some("see file"), None, NeedsReview, "is not one the registry reads")]
#[case::active_but_removed(
    Some("active"),
    Some("2019-04-02"),
    NeedsReview,
    "contradict each other"
)]
#[case::no_status_but_a_removal_date(None, Some("2019-04-02"), Ok, "a removal date is")]
fn item_14_statuses_the_list_lacks_go_to_review(
    #[case] status: Option<&str>,
    #[case] removed_on: Option<&str>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for p in [nc(), profile("windsor-ct")] {
        let mut c = facts(Some("sewage"), Some(residential(&p)), vec![]);
        c.status_raw = status.map(str::to_string);
        c.removed_on = removed_on.map(str::to_string);
        let got = evaluate(&p, &c);
        let what = format!("{status:?} {removed_on:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
    }
}

/// Counter-case: a capped stormwater drain from a residence is not illicit whether or not
/// it still exists, so its status does not send it to review.
#[test]
fn item_14_a_status_the_answer_does_not_turn_on() {
    for p in [nc(), profile("windsor-ct")] {
        let mut c = facts(Some("stormwater"), Some(residential(&p)), vec![]);
        c.status_raw = Some("capped".into());
        let got = evaluate(&p, &c);
        assert_eq!(got.result, Ok, "{}", reasons(&got));
        assert!(
            reasons(&got).contains("does not turn on it"),
            "{}",
            reasons(&got)
        );
    }
}

/// A connection recorded removed, by its later sampling (sampled_on, pollutants_found): a
/// removed connection that still discharges pollutants is a contradiction to review. The
/// dates cross a year's end.
#[rstest]
#[case::sampled_after_removal_with_pollutants(
    Some("2020-01-02"),
    Some(true),
    NeedsReview,
    "sampled after the removal with pollutants found (sampled_on 2020-01-02, after removed_on 2019-12-31"
)]
#[case::sampled_before_removal(Some("2019-12-30"), Some(true), Ok, "no longer exists")]
#[case::sampled_after_removal_clean(Some("2020-01-02"), Some(false), Ok, "no longer exists")]
#[case::sampling_date_not_recorded(None, Some(true), NeedsReview, "sampled_on not recorded")]
fn item_14_removed_but_sampled_later_with_pollutants(
    #[case] sampled_on: Option<&str>,
    #[case] pollutants: Option<bool>,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    for p in [nc(), profile("windsor-ct")] {
        let mut c = facts(Some("sewage"), Some(residential(&p)), vec![]);
        c.status_raw = Some("removed".into());
        c.removed_on = Some("2019-12-31".into());
        c.sampled_on = sampled_on.map(str::to_string);
        c.pollutants_found = pollutants;
        let got = evaluate(&p, &c);
        let what = format!("{sampled_on:?} {pollutants:?} in {}", p.id);
        assert_eq!(got.result, want, "{what}: {}", reasons(&got));
        assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
        check_shape(&p, &got, &what);
    }
}

fn record_with(by: Option<&str>, plan: &str) -> RecordFacts {
    RecordFacts {
        record_id: "R-1".into(),
        approved: by.map(|_| true),
        approved_by: by.map(str::to_string),
        approved_on: by.map(|_| "2024-12-31".to_string()),
        plan_ref: Some(plan.into()),
        matched_by: "names the connection".into(),
        ..RecordFacts::default()
    }
}

/// § 267-12A(2): "Discharges approved in writing by the SMO to protect life or property
/// from imminent harm or damage, ... such discharges may be permitted for a specified time
/// period"; Sec. 3-169(a)(2): "Discharges specified in writing by the Town Engineer as
/// being necessary to protect health and safety." § 267-12A(4) / Sec. 3-169(a)(4): a
/// discharge "permitted under an SPDES [NPDES] permit ... provided that written approval
/// has been granted". Process wastewater from a residence by its record: at most review
/// when a record shows a route, and never "none is on record" then.
#[rstest]
#[case::nc_approved_by_the_smo(
    "north-castle-ny",
    Some("SMO"),
    "SP-1",
    NeedsReview,
    "to protect life or property from imminent harm or damage"
)]
#[case::nc_approved_by_the_stormwater_management_officer(
    "north-castle-ny",
    Some("Stormwater Management Officer"),
    "SP-1",
    NeedsReview,
    "for a specified time period"
)]
#[case::windsor_specified_by_the_town_engineer(
    "windsor-ct",
    Some("Town Engineer"),
    "SP-1",
    NeedsReview,
    "Sec. 3-169(a)(2)"
)]
// Counter-case: an approval by another office does not clear clause (1) (AMB-31).
#[case::nc_approved_by_the_planning_board(
    "north-castle-ny",
    Some("Planning Board"),
    "SP-1",
    Illicit,
    "does not clear clause (1)"
)]
#[case::nc_free_text_names_an_spdes_permit(
    "north-castle-ny",
    None,
    "SPDES permit NY0001234",
    NeedsReview,
    "plan_ref \"SPDES permit NY0001234\" names an SPDES/NPDES permit"
)]
#[case::windsor_free_text_names_an_npdes_permit(
    "windsor-ct",
    None,
    "NPDES CT0001234",
    NeedsReview,
    "Sec. 3-169(a)(4)"
)]
#[case::nc_free_text_names_a_written_approval(
    "north-castle-ny",
    None,
    "Letter of approval, 2024-12-31",
    NeedsReview,
    "names a written approval"
)]
// Counter-case: a plan that names neither: illicit, and no route is on record.
#[case::nc_a_site_plan_names_neither(
    "north-castle-ny",
    None,
    "SP-2015-12",
    Illicit,
    "none is on record"
)]
fn item_15_every_route_out_of_the_prohibition_is_weighed(
    #[case] id: &str,
    #[case] by: Option<&str>,
    #[case] plan: &str,
    #[case] want: IllicitStatus,
    #[case] phrase: &str,
) {
    let p = profile(id);
    let c = facts(
        Some("process wastewater"),
        Some(residential(&p)),
        vec![record_with(by, plan)],
    );
    let got = evaluate(&p, &c);
    let what = format!("{by:?} {plan:?} in {id}");
    assert_eq!(got.result, want, "{what}: {}", reasons(&got));
    assert!(reasons(&got).contains(phrase), "{what}: {}", reasons(&got));
    if want == NeedsReview {
        assert!(
            !reasons(&got).contains("none is on record"),
            "{what}: {}",
            reasons(&got)
        );
        assert!(reasons(&got).contains("what would decide"), "{what}");
    }
    check_shape(&p, &got, &what);
}

/// A permit kind recorded without its number is still a permit on record: review, naming
/// the missing number.
#[test]
fn item_15_a_permit_without_a_number() {
    let p = nc();
    let mut r = record_with(None, "SP-1");
    r.permit = Some(PermitFacts {
        kind: Some("SPDES".into()),
        ..PermitFacts::default()
    });
    let got = evaluate(&p, &facts(Some("process wastewater"), Some("210"), vec![r]));
    assert_eq!(got.result, NeedsReview, "{}", reasons(&got));
    assert!(reasons(&got).contains("no number recorded (permit_number)"));
    assert!(!reasons(&got).contains("none is on record"));
}
