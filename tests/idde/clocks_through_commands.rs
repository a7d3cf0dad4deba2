//! Issue 25, items 1-5 and 10 through the command layer (`ms4::idde::commands::run`, the
//! one path `ms4 case action` and `POST /api/cases/{id}/actions` take) on both stores:
//! each action is written, the case read back as stored, and its clock counted under the
//! town's law as of Monday 4 January 2027, 12:00. The dates cross Christmas, New Year's
//! Day (a Friday) and a weekend. One case per rule at the law's words, one counter-case
//! each; the engine-level cases are in `fines.rs`.

use chrono::{NaiveDate, NaiveDateTime};
use ms4::rules::Profile;
use rstest::rstest;
use serde_json::{json, Value};

use super::who::{act, close, open, skip, town};

/// What the case's answer must show for one rule.
#[derive(Debug)]
enum Then {
    /// A deadline: its last day (or the minute it ends), its status.
    Due(&'static str, Option<&'static str>, &'static str),
    /// The period's start and end to the minute.
    Hours(&'static str, &'static str, &'static str),
    /// The dollars accrued, and how many fine streams.
    Accrued(f64, usize),
}

fn t(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M").unwrap()
}

const TM: &str = "Town Manager";
const TE: &str = "Town Engineer";
const SMO: &str = "Stormwater Management Officer";

#[rstest]
// Item 1, North Castle: "appeal the determination of the SMO to the Town Board within 15
// days of its issuance", rolled by N.Y. General Construction Law § 25-a: a notice served
// Sat 2 January 2027 counts to Sun 17 January; Mon 18 is Martin Luther King Jr. Day: the
// last day to appeal is Tue 19 January.
#[case::a_period_ending_on_a_weekend_and_a_holiday_rolls("north-castle-ny",
    json!([{"kind": "notice_of_violation", "on": "2027-01-02", "method": "hand", "deadline": "2027-01-29", "by": SMO}]),
    Then::Due("northcastle.illicit.appeal", Some("2027-01-19"), "due"))]
// Counter-case: served Mon 28 December, the 15 days end on a business day, Tue 12 January.
#[case::a_period_ending_on_a_business_day_stays("north-castle-ny",
    json!([{"kind": "notice_of_violation", "on": "2026-12-28", "method": "hand", "deadline": "2027-01-29", "by": SMO}]),
    Then::Due("northcastle.illicit.appeal", Some("2027-01-12"), "due"))]
// Item 2, Windsor (b)(1): "Three business days shall be allowed for mail delivery of the
// notice prior to the commencement of the seventy-two-hour period": mailed Tue 29 Dec at
// 15:30: Wed 30, Thu 31, (New Year's Day, the weekend), Mon 4: from 00:00 Tue 5 January.
#[case::mailed_notice_whole_days("windsor-ct",
    json!([{"kind": "written_notice", "on": "2026-12-29", "at": "15:30", "method": "mail", "by": TM}]),
    Then::Hours("windsor.citation.written_notice_72h", "2027-01-05T00:00", "2027-01-08T00:00"))]
// Counter-case: "By hand delivery, at which time the seventy-two-hour period shall begin".
#[case::hand_delivered_notice("windsor-ct",
    json!([{"kind": "written_notice", "on": "2026-12-29", "at": "15:30", "method": "hand", "by": TM}]),
    Then::Hours("windsor.citation.written_notice_72h", "2026-12-29T15:30", "2027-01-01T15:30"))]
// Item 2, Windsor (d)(1): "within 10 business days from receipt of the citation":
// received Thu 31 Dec: Mon 4 ... Fri 8, Mon 11 ... Fri 15 January.
#[case::from_receipt("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "method": "mail", "received_on": "2026-12-31", "violations": 1, "by": TM}]),
    Then::Due("windsor.fine_payment", Some("2027-01-15"), "due"))]
// Counter-case: mailed with no receipt on record: an open fact, never from the mailing.
#[case::receipt_not_on_record("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "method": "mail", "violations": 1, "by": TM}]),
    Then::Due("windsor.fine_payment", None, "needs_fact"))]
// Item 2 for the fines, Windsor (c)(1) "every twenty-four-hour period": a citation
// hand-delivered Tue 29 Dec with no hour is not served at midnight: the 24 hours count
// from 00:00 Wed 30 Dec, five full ones to Mon 4 January 12:00: $250 + 5 × $250.
#[case::a_citation_without_an_hour("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "method": "hand", "violations": 1, "by": TM}]),
    Then::Accrued(1500.0, 2))]
// Counter-case: served at 10:00, six full 24 hours: $250 + 6 × $250.
#[case::a_citation_at_an_hour("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM}]),
    Then::Accrued(1750.0, 2))]
// Item 3, Windsor (b)(2): re-inspection "within two business days after the period for
// correction ... expires", the period "as agreed upon by the Town Manager": agreed to Fri
// 8 January: Mon 11, Tue 12.
#[case::the_agreed_plan("windsor-ct",
    json!([{"kind": "written_notice", "on": "2026-12-28", "at": "10:00", "method": "hand", "by": TM},
           {"kind": "correction_plan", "on": "2026-12-29", "by": "respondent", "deadline": "2027-01-08"}]),
    Then::Due("windsor.citation.reinspection_2bd", Some("2027-01-12"), "due"))]
// Counter-case: no plan: after the 72 hours (Mon 28 Dec 10:00 to Thu 31 Dec 10:00):
// (New Year's Day, the weekend) Mon 4, Tue 5 January.
#[case::no_plan("windsor-ct",
    json!([{"kind": "written_notice", "on": "2026-12-28", "at": "10:00", "method": "hand", "by": TM}]),
    Then::Due("windsor.citation.reinspection_2bd", Some("2027-01-05"), "due"))]
// Item 4, Windsor (c)(1): a second citation of the same continuing violation adds
// nothing: $250 at the citation and six full 24 hours from Tue 29 Dec 10:00.
#[case::one_stream_per_violation("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"kind": "citation_issued", "on": "2026-12-31", "at": "10:00", "method": "hand", "violations": 1, "by": TM}]),
    Then::Accrued(1750.0, 2))]
// Counter-case: a second violation named is its own stream: + $250 + 4 × $250.
#[case::another_violation("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"kind": "citation_issued", "on": "2026-12-31", "at": "10:00", "method": "hand", "violations": 1, "violation": "oil", "by": TM}]),
    Then::Accrued(3000.0, 4))]
// Item 5, Windsor (c)(2): the compliance report of Thu 31 Dec 10:00, confirmed by the
// re-inspection of Mon 4 January: $250 + 2 × $250; the days to confirm are not billed.
#[case::a_confirmed_report("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"kind": "compliance_report", "on": "2026-12-31", "at": "10:00", "by": "respondent"},
           {"kind": "reinspection", "on": "2027-01-04", "at": "09:00", "outcome": "corrected", "by": TM}]),
    Then::Accrued(750.0, 2))]
// Counter-case: refuted: it runs on to the answer's hour: $250 + 6 × $250.
#[case::a_refuted_report("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"kind": "compliance_report", "on": "2026-12-31", "at": "10:00", "by": "respondent"},
           {"kind": "reinspection", "on": "2027-01-04", "at": "09:00", "outcome": "not_corrected", "by": TM}]),
    Then::Accrued(1750.0, 2))]
// Item 5, at elimination: the case closed as eliminated on Thu 31 Dec (a closing gives
// the day, no hour, so accrual stops as the day begins: what is certain): $250 at the
// citation + the 24 hours to Wed 30 Dec 10:00; nothing over New Year's Day and the
// weekend after.
#[case::eliminated("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"closure": "eliminated", "on": "2026-12-31", "notes": "lateral capped", "by": TE}]),
    Then::Accrued(500.0, 2))]
// Item 5, a decision reversing the citation: both streams void, kept at $0 (counter-case:
// `a_refuted_report`, and `an_uncontested_fine` below, run on).
#[case::a_hearing_reverses_the_citation("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"kind": "hearing_requested", "on": "2026-12-30", "by": "respondent"},
           {"kind": "hearing_decided", "on": "2027-01-04", "at": "09:00", "outcome": "reversed", "by": TM}]),
    Then::Accrued(0.0, 2))]
// Item 5, North Castle [Enforcement section] B: "a fine not exceeding $1,000 ... Each
// day's continued violation shall constitute a separate additional violation", counted
// from the citation (a ceiling a court sets): Tue 29 Dec 10:00 to Mon 4 January 12:00 is
// the first day and six more begun: 7 × $1,000.
#[case::north_castle_each_days_continued_violation("north-castle-ny",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": SMO}]),
    Then::Accrued(7000.0, 1))]
// Closed as eliminated on Thu 31 Dec: the first day and the one begun Wed 30 Dec 10:00:
// 2 × $1,000.
#[case::north_castle_eliminated("north-castle-ny",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": SMO},
           {"closure": "eliminated", "on": "2026-12-31", "notes": "lateral capped", "by": SMO}]),
    Then::Accrued(2000.0, 1))]
// The Town Board reverses the SMO on appeal ("appeal the determination of the SMO to the
// Town Board"): the fine is void, nothing accrued.
#[case::north_castle_the_board_reverses_the_smo("north-castle-ny",
    json!([{"kind": "notice_of_violation", "on": "2026-12-28", "method": "hand", "deadline": "2027-01-08", "by": SMO},
           {"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": SMO},
           {"kind": "appeal_filed", "on": "2026-12-30", "by": "respondent"},
           {"kind": "appeal_decided", "on": "2027-01-04", "at": "09:00", "outcome": "reversed", "by": "Town Board"}]),
    Then::Accrued(0.0, 1))]
// Counter-case: a decision upholding the SMO stops nothing: 7 × $1,000.
#[case::north_castle_the_board_upholds_the_smo("north-castle-ny",
    json!([{"kind": "notice_of_violation", "on": "2026-12-28", "method": "hand", "deadline": "2027-01-08", "by": SMO},
           {"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": SMO},
           {"kind": "appeal_filed", "on": "2026-12-30", "by": "respondent"},
           {"kind": "appeal_decided", "on": "2027-01-04", "at": "09:00", "outcome": "upheld", "by": "Town Board"}]),
    Then::Accrued(7000.0, 1))]
// Item 5, Windsor (d)(1): fines "which are uncontested": a hearing requested suspends
// the payment deadline.
#[case::a_contested_fine("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM},
           {"kind": "hearing_requested", "on": "2026-12-30", "by": "respondent"}]),
    Then::Due("windsor.fine_payment", None, "suspended"))]
// Counter-case: uncontested, ten business days from the hand delivery: Wed 30 Dec ...
// Wed 13 January.
#[case::an_uncontested_fine("windsor-ct",
    json!([{"kind": "citation_issued", "on": "2026-12-29", "at": "10:00", "method": "hand", "violations": 1, "by": TM}]),
    Then::Due("windsor.fine_payment", Some("2027-01-13"), "due"))]
// Item 10, North Castle: "the notice shall set forth a deadline within which such
// remediation or restoration must be completed": the notice's own date.
#[case::the_notices_deadline("north-castle-ny",
    json!([{"kind": "notice_of_violation", "on": "2026-12-29", "method": "hand", "deadline": "2027-01-08", "by": SMO}]),
    Then::Due("northcastle.illicit.corrective_measures", Some("2027-01-08"), "due"))]
// Counter-case: "or, in the event of an appeal, within five business days of the
// decision ... upholding": while the appeal is pending nothing is due.
#[case::an_appeal_pending("north-castle-ny",
    json!([{"kind": "notice_of_violation", "on": "2026-12-29", "method": "hand", "deadline": "2027-01-08", "by": SMO},
           {"kind": "appeal_filed", "on": "2026-12-31", "by": "respondent"}]),
    Then::Due("northcastle.illicit.corrective_measures", None, "suspended"))]
// Item 10, Windsor (a): the Town Engineer's notice sets its own deadline.
#[case::windsors_notice_deadline("windsor-ct",
    json!([{"kind": "notice_of_violation", "on": "2026-12-29", "method": "hand", "deadline": "2027-01-11", "by": TE}]),
    Then::Due("windsor.notice_of_violation", Some("2027-01-11"), "due"))]
#[tokio::test(flavor = "multi_thread")]
async fn the_clock_through_the_command_layer(
    #[values("sqlite", "postgis")] store: &str,
    #[case] jurisdiction: &str,
    #[case] actions: Value,
    #[case] then: Then,
) {
    if skip(store) {
        return;
    }
    let reg = town(store, jurisdiction).await;
    let p = Profile::builtin(jurisdiction).unwrap();
    // A business's parcel: no immunity bears on these clocks.
    let id = open(&reg, &p, "P-LLC", None).await.case.case_id;
    let mut view = None;
    for a in actions.as_array().unwrap() {
        // A closing (it carries `closure`) closes the case; anything else is an action.
        let done = if a.get("closure").is_some() {
            close(&reg, &p, &id, a.clone()).await
        } else {
            act(&reg, &p, &id, a.clone()).await
        };
        view = Some(done.unwrap_or_else(|e| {
            panic!("{store} {jurisdiction}: {a} refused: {e:?}");
        }));
    }
    let v = view.expect("an action");
    // Each action is logged, and an elimination's closing logs one too.
    assert_eq!(v.case.actions.len(), actions.as_array().unwrap().len());
    let d = &v.deadlines;
    let step = |rule: &str| {
        d.deadlines
            .iter()
            .find(|x| x.rule == rule)
            .unwrap_or_else(|| panic!("{rule}: {:?}", d.deadlines))
    };
    match then {
        Then::Due(rule, due, status) => {
            let s = step(rule);
            assert_eq!(
                s.due_on,
                due.map(|x| NaiveDate::parse_from_str(x, "%Y-%m-%d").unwrap()),
                "{store} {rule}: {}",
                s.counted
            );
            assert_eq!(s.status, status, "{store} {rule}: {}", s.counted);
            if status == "needs_fact" {
                assert!(s.open_fact.is_some(), "{s:?}");
            }
        }
        Then::Hours(rule, starts, ends) => {
            let s = step(rule);
            assert_eq!(s.starts, Some(t(starts)), "{store} {rule}: {}", s.counted);
            assert_eq!(s.due_at, Some(t(ends)), "{store} {rule}: {}", s.counted);
        }
        Then::Accrued(dollars, streams) => {
            assert_eq!(d.accrued, dollars, "{store}: {:?}", d.fines);
            assert_eq!(d.fines.len(), streams, "{store}: {:?}", d.fines);
            // Nothing accrued: every stream is kept, voided by the decision, naming it.
            if dollars == 0.0 {
                assert!(
                    d.fines.iter().all(|f| f
                        .voided_by
                        .as_deref()
                        .is_some_and(|v| v.contains("reversed"))),
                    "{store}: {:?}",
                    d.fines
                );
            }
        }
    }
}

/// The fields the clocks read are checked where they are written: a refusal names the
/// field, says why, and writes nothing.
#[rstest]
#[case::received_before_mailed(json!({"kind": "citation_issued", "on": "2026-12-30", "method": "mail", "received_on": "2026-12-29", "violations": 1, "by": TM}), "received_on", "before it was mailed")]
#[case::received_in_the_future(json!({"kind": "citation_issued", "on": "2026-12-30", "method": "mail", "received_on": "2027-01-06", "violations": 1, "by": TM}), "received_on", "in the future")]
#[case::by_hand_received_another_day(json!({"kind": "citation_issued", "on": "2026-12-30", "method": "hand", "received_on": "2026-12-31", "violations": 1, "by": TM}), "received_on", "by hand")]
#[case::received_what_is_not_served(json!({"kind": "site_visit", "on": "2026-12-30", "received_on": "2026-12-31", "by": TE}), "received_on", "not served")]
#[case::a_deadline_before_the_notice(json!({"kind": "notice_of_violation", "on": "2026-12-30", "method": "hand", "deadline": "2026-12-29", "by": TE}), "deadline", "before the notice_of_violation")]
#[case::a_deadline_on_what_sets_none(json!({"kind": "site_visit", "on": "2026-12-30", "deadline": "2027-01-08", "by": TE}), "deadline", "sets no deadline")]
#[case::a_blank_violation(json!({"kind": "citation_issued", "on": "2026-12-30", "method": "hand", "violation": "  ", "violations": 1, "by": TM}), "violation", "is blank")]
#[tokio::test(flavor = "multi_thread")]
async fn a_clock_field_the_law_cannot_read_is_refused(
    #[values("sqlite", "postgis")] store: &str,
    #[case] action: Value,
    #[case] field: &str,
    #[case] says: &str,
) {
    if skip(store) {
        return;
    }
    let reg = town(store, "windsor-ct").await;
    let p = Profile::builtin("windsor-ct").unwrap();
    let id = open(&reg, &p, "P-LLC", None).await.case.case_id;
    let e = act(&reg, &p, &id, action).await.unwrap_err();
    let ms4::idde::commands::CaseError::Invalid(f) = e else {
        panic!("{store}: not a field's refusal: {e:?}");
    };
    assert_eq!(f.field, field, "{store}: {}", f.message);
    assert!(f.message.contains(says), "{store}: {}", f.message);
    // Nothing written: the case as stored has no action.
    let ok = act(
        &reg,
        &p,
        &id,
        json!({"kind": "site_visit", "on": "2026-12-30", "by": TE}),
    )
    .await
    .unwrap();
    assert_eq!(ok.case.actions.len(), 1, "{store}");
}
