//! The clock and the fines at the law's words (Windsor's enforcement section, North
//! Castle's notice of violation and corrective measures), engine-level on the built-in
//! profiles, with dates crossing Thanksgiving, a weekend, Christmas and a year's end.

use chrono::{NaiveDate, NaiveDateTime};
use ms4::idde::deadlines::{case_deadlines, fines_accrued_in, CaseDeadlines};
use ms4::idde::Case;
use ms4::rules::Profile;
use rstest::rstest;
use serde_json::{json, Value};

fn t(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M").unwrap()
}

/// A business on record as the respondent: no immunity bears on these clocks.
fn business() -> Value {
    json!({"name": "Acme Plating LLC", "kind": "business", "acting_for_state": "no", "source": "given"})
}

fn run(town: &str, actions: Value, as_of: &str) -> CaseDeadlines {
    run_against(town, business(), actions, as_of)
}

fn run_against(town: &str, respondent: Value, actions: Value, as_of: &str) -> CaseDeadlines {
    let p = Profile::builtin(town).unwrap();
    let case: Case = serde_json::from_value(json!({
        "case_id": "CASE-2026-0001", "opened_on": "2026-01-02", "origin": "staff",
        "status": "open", "candidates": [], "actions": actions, "respondent": respondent,
    }))
    .unwrap();
    case_deadlines(&case, &p.idde, t(as_of))
}

fn step<'a>(d: &'a CaseDeadlines, rule: &str) -> &'a ms4::idde::deadlines::Deadline {
    d.deadlines.iter().find(|x| x.rule == rule).expect(rule)
}

/// Windsor (b)(1): "Three business days shall be allowed for mail delivery of the notice
/// prior to the commencement of the seventy-two-hour period"; "By hand delivery, at which
/// time the seventy-two-hour period shall begin".
#[rstest]
// Mailed Tue 24 Nov 2026: Wed 25, (Thanksgiving Thu 26), Fri 27, (weekend), Mon 30: the
// 72 hours commence at 00:00 on Tue 1 December, whatever the mailing hour.
#[case::mailed_across_thanksgiving(json!({"method": "mail", "at": "15:30"}), "2026-12-01T00:00", "2026-12-04T00:00")]
// Counter-case: by hand at 10:00, from that hour.
#[case::by_hand_at_an_hour(json!({"method": "hand", "at": "10:00"}), "2026-11-24T10:00", "2026-11-27T10:00")]
// By hand with no hour recorded: not midnight, the end of that day.
#[case::by_hand_without_an_hour(json!({"method": "hand"}), "2026-11-25T00:00", "2026-11-28T00:00")]
fn the_72_hours_start_as_the_law_says(#[case] how: Value, #[case] starts: &str, #[case] due: &str) {
    let mut a = json!({"kind": "written_notice", "on": "2026-11-24", "by": "Town Manager"});
    a.as_object_mut()
        .unwrap()
        .extend(how.as_object().unwrap().clone());
    let d = run("windsor-ct", json!([a]), "2026-11-25T12:00");
    let w = step(&d, "windsor.citation.written_notice_72h");
    assert_eq!(w.starts, Some(t(starts)), "{}", w.counted);
    assert_eq!(w.due_at, Some(t(due)), "{}", w.counted);
}

/// Windsor (d)(1): fines "received by the Town Manager within 10 business days from
/// receipt of the citation".
#[rstest]
// Received Thu 24 Dec 2026: Christmas (Fri 25), the weekend, New Year's Day (Fri 1 Jan)
// skipped: 28, 29, 30, 31 Dec, 4, 5, 6, 7, 8, 11 Jan.
#[case::mailed_and_received(json!({"method": "mail", "received_on": "2026-12-24"}), Some("2027-01-11"), "due")]
// Counter-case: mailed with no return receipt: an open fact, never counted from mailing.
#[case::mailed_receipt_unknown(json!({"method": "mail"}), None, "needs_fact")]
#[case::by_hand_that_day(json!({"method": "hand"}), Some("2027-01-08"), "due")]
fn payment_runs_from_receipt(#[case] how: Value, #[case] due: Option<&str>, #[case] status: &str) {
    let mut a = json!({"kind": "citation_issued", "on": "2026-12-23", "by": "Town Manager", "violations": 1});
    a.as_object_mut()
        .unwrap()
        .extend(how.as_object().unwrap().clone());
    let d = run("windsor-ct", json!([a]), "2026-12-31T12:00");
    let p = step(&d, "windsor.fine_payment");
    assert_eq!(
        p.due_on,
        due.map(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap())
    );
    assert_eq!(p.status, status, "{}", p.counted);
    if status == "needs_fact" {
        assert!(p.open_fact.as_deref().unwrap().contains("received"));
    }
}

/// Windsor (b)(2): re-inspection "within two business days after the period for
/// correction ... expires", the period a written plan agreed "as agreed upon by the Town
/// Manager" when one was logged.
#[rstest]
// The plan agreed correction by Thu 24 Dec: Christmas and the weekend skipped: Mon 28,
// Tue 29.
#[case::plan_with_its_end(json!({"kind": "correction_plan", "on": "2026-12-03", "by": "respondent", "deadline": "2026-12-24"}), Some("2026-12-29"), "due")]
// A plan with no agreed end: an open fact, not the 72 hours.
#[case::plan_without_its_end(json!({"kind": "correction_plan", "on": "2026-12-03", "by": "respondent"}), None, "needs_fact")]
// Counter-case: no plan: from the 72 hours (Tue 1 Dec 10:00 to Fri 4 Dec 10:00): Mon 7,
// Tue 8.
#[case::no_plan(json!({"kind": "site_visit", "on": "2026-12-02", "by": "Town Engineer"}), Some("2026-12-08"), "due")]
fn reinspection_after_the_agreed_period(
    #[case] plan: Value,
    #[case] due: Option<&str>,
    #[case] status: &str,
) {
    let d = run(
        "windsor-ct",
        json!([{"kind": "written_notice", "on": "2026-12-01", "at": "10:00", "method": "hand", "by": "Town Manager"}, plan]),
        "2026-12-05T12:00",
    );
    let r = step(&d, "windsor.citation.reinspection_2bd");
    assert_eq!(
        r.due_on,
        due.map(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()),
        "{}",
        r.counted
    );
    assert_eq!(r.status, status);
}

fn cite(on: &str, violation: Option<&str>) -> Value {
    let mut a = json!({"kind": "citation_issued", "on": on, "at": "10:00", "method": "hand", "by": "Town Manager", "violations": 1});
    if let Some(v) = violation {
        a["violation"] = json!(v);
    }
    a
}

/// Windsor (c)(1): "every twenty-four-hour period thereafter in which the violation is not
/// corrected shall constitute a new violation": one stream per violation.
#[rstest]
// A second citation of the same violation adds nothing: $250 + 4 × $250 to Sat 5 Dec.
#[case::same_violation_twice(None, 1250.0, 2)]
// Counter-case: a second violation named starts its own: + $250 + 2 × $250.
#[case::another_violation(Some("oil"), 2000.0, 4)]
fn one_stream_per_violation(#[case] second: Option<&str>, #[case] dollars: f64, #[case] n: usize) {
    let d = run(
        "windsor-ct",
        json!([cite("2026-12-01", None), cite("2026-12-03", second)]),
        "2026-12-05T10:00",
    );
    assert_eq!(d.accrued, dollars, "{:?}", d.fines);
    assert_eq!(d.fines.len(), n);
    if second.is_none() {
        assert!(d.fines.iter().all(|f| f.absorbed.len() == 1));
        assert!(d.fines[0].assumption.as_deref().unwrap().contains("One"));
    }
}

/// Issue 25 item 2 for the fines: a citation recorded without an hour is not served at
/// midnight. Windsor (c)(1)'s "every twenty-four-hour period" is counted from the end of
/// the citation's day, the latest it can have been served, and the hour is asked for;
/// the (b)(3) $250 is the citation day's whatever the hour. North Castle's fine for "each
/// day's continued violation" counts days, so the day is enough. Hand-delivered Tue 1 Dec;
/// as of Thu 3 Dec 12:00.
#[rstest]
// At 10:00: two full 24 hours (Wed 2, Thu 3 Dec at 10:00): $250 + 2 × $250.
#[case::windsor_at_an_hour("windsor-ct", Some("10:00"), 750.0, false)]
// No hour: from 00:00 Wed 2 Dec, one full 24 hours to Thu 3 Dec 12:00: $250 + $250.
#[case::windsor_without_an_hour("windsor-ct", None, 500.0, true)]
// Counter-case: days are counted by the day: Tue 1, Wed 2, Thu 3 Dec: 3 × up to $1,000.
#[case::north_castle_counts_days("north-castle-ny", None, 3000.0, false)]
fn a_citation_without_an_hour_is_not_served_at_midnight(
    #[case] town: &str,
    #[case] at: Option<&str>,
    #[case] accrued: f64,
    #[case] asks_the_hour: bool,
) {
    let by = match town {
        "windsor-ct" => "Town Manager",
        _ => "Stormwater Management Officer",
    };
    let mut a = json!({"kind": "citation_issued", "on": "2026-12-01", "method": "hand", "by": by, "violations": 1});
    if let Some(h) = at {
        a["at"] = json!(h);
    }
    let d = run(town, json!([a]), "2026-12-03T12:00");
    assert_eq!(d.accrued, accrued, "{town}: {:?}", d.fines);
    let asked: Vec<_> = d
        .fines
        .iter()
        .filter_map(|f| f.open_fact.as_deref())
        .filter(|o| o.contains("the hour the citation_issued of 2026-12-01 was served"))
        .collect();
    assert_eq!(
        asked.len(),
        usize::from(asks_the_hour),
        "{town}: {:?}",
        d.fines
    );
    if asks_the_hour {
        let c = d
            .fines
            .iter()
            .find(|f| f.rule == "windsor.citation.continuing_violation_24h")
            .unwrap();
        assert_eq!(c.from, t("2026-12-02T00:00"));
        assert!(asked[0].contains("2026-12-02 00:00"), "{}", asked[0]);
    }
}

/// Windsor (c)(2): "the person to whom the citation has been issued shall be responsible
/// for reporting subsequent compliance by way of written report ... The Town Manager
/// shall re-inspect to confirm compliance within one business day of receipt of such
/// report": accrual stops at the report a re-inspection confirms.
#[rstest]
// Reported Thu 3 Dec 10:00, confirmed Fri 4: $250 + 2 × $250.
#[case::confirmed(Some("corrected"), 750.0, None)]
// Counter-case: refuted: it runs on to Sat 5 Dec 10:00: $250 + 4 × $250.
#[case::refuted(Some("not_corrected"), 1250.0, None)]
// Not yet re-inspected: certain to the report, the rest open.
#[case::pending(None, 750.0, Some(1250.0))]
fn a_confirmed_report_stops_accrual(
    #[case] outcome: Option<&str>,
    #[case] accrued: f64,
    #[case] if_unconfirmed: Option<f64>,
) {
    let mut actions = vec![
        cite("2026-12-01", None),
        json!({"kind": "compliance_report", "on": "2026-12-03", "at": "10:00", "by": "respondent"}),
    ];
    if let Some(o) = outcome {
        actions.push(json!({"kind": "reinspection", "on": "2026-12-04", "at": "11:00", "by": "Town Engineer", "outcome": o}));
    }
    let d = run("windsor-ct", json!(actions), "2026-12-05T10:00");
    assert_eq!(d.accrued, accrued, "{:?}", d.fines);
    let c = d
        .fines
        .iter()
        .find(|f| f.rule == "windsor.citation.continuing_violation_24h")
        .unwrap();
    assert_eq!(c.accrued_if_unconfirmed, if_unconfirmed.map(|x| x - 250.0));
    assert_eq!(c.open_fact.is_some(), if_unconfirmed.is_some());
}

/// Windsor (d)(1): fines "which are uncontested": a hearing requested suspends payment;
/// a decision reversing voids the fines.
#[rstest]
#[case::contested_pending(None, "suspended", 750.0)]
#[case::upheld(Some("upheld"), "needs_fact", 750.0)]
#[case::reversed(Some("reversed"), "moot", 0.0)]
fn a_contested_fine_is_not_overdue(
    #[case] decided: Option<&str>,
    #[case] status: &str,
    #[case] accrued: f64,
) {
    let mut actions = vec![
        cite("2026-12-01", None),
        json!({"kind": "hearing_requested", "on": "2026-12-02", "by": "respondent"}),
        json!({"kind": "eliminated", "on": "2026-12-03", "at": "10:00", "by": "Town Engineer"}),
    ];
    if let Some(o) = decided {
        actions.push(json!({"kind": "hearing_decided", "on": "2026-12-10", "by": "Town Manager", "outcome": o}));
    }
    let d = run("windsor-ct", json!(actions), "2027-01-30T12:00");
    let p = step(&d, "windsor.fine_payment");
    assert_eq!(p.status, status, "{}", p.counted);
    assert_eq!(d.accrued, accrued);
    if status == "needs_fact" {
        assert!(p
            .open_fact
            .as_deref()
            .unwrap()
            .contains("Chapter 2, Article VI"));
    }
    if status == "moot" {
        assert!(d.fines.iter().all(|f| f.voided_by.is_some()));
    }
}

/// North Castle: "the notice shall set forth a deadline within which such remediation or
/// restoration must be completed"; "or, in the event of an appeal, within five business
/// days of the decision of the municipal authority upholding the decision of the SMO".
#[rstest]
#[case::the_notices_deadline(json!([]), Some("2026-12-24"), "overdue")]
// Upheld Wed 23 Dec: Thu 24, (Christmas, weekend), Mon 28, Tue 29, Wed 30, Thu 31.
#[case::upheld_on_appeal(json!([{"kind": "appeal_filed", "on": "2026-12-08", "by": "respondent"},
    {"kind": "appeal_decided", "on": "2026-12-23", "by": "Town Board", "outcome": "upheld"}]), Some("2026-12-31"), "due")]
#[case::appeal_pending(json!([{"kind": "appeal_filed", "on": "2026-12-08", "by": "respondent"}]), None, "suspended")]
#[case::reversed(json!([{"kind": "appeal_decided", "on": "2026-12-23", "by": "Town Board", "outcome": "reversed"}]), Some("2026-12-24"), "moot")]
fn north_castles_corrective_measures_follow_the_notice(
    #[case] more: Value,
    #[case] due: Option<&str>,
    #[case] status: &str,
) {
    let mut actions = vec![
        json!({"kind": "notice_of_violation", "on": "2026-12-01", "method": "hand", "by": "Stormwater Management Officer", "deadline": "2026-12-24"}),
    ];
    actions.extend(more.as_array().unwrap().iter().cloned());
    let d = run("north-castle-ny", json!(actions), "2026-12-29T12:00");
    let c = step(&d, "northcastle.illicit.corrective_measures");
    assert_eq!(
        c.due_on,
        due.map(|s| NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()),
        "{}",
        c.counted
    );
    assert_eq!(c.status, status, "{}", c.counted);
}

/// A notice that records no deadline: an open fact, in both towns.
#[rstest]
#[case::north_castle(
    "north-castle-ny",
    "northcastle.illicit.corrective_measures",
    "Stormwater Management Officer"
)]
#[case::windsor("windsor-ct", "windsor.notice_of_violation", "Town Engineer")]
fn a_notice_without_its_deadline_is_an_open_fact(
    #[case] town: &str,
    #[case] rule: &str,
    #[case] by: &str,
) {
    let d = run(
        town,
        json!([{"kind": "notice_of_violation", "on": "2026-12-01", "method": "hand", "by": by}]),
        "2026-12-29T12:00",
    );
    let c = step(&d, rule);
    assert_eq!((c.status.as_str(), c.due_on), ("needs_fact", None));
    assert!(c.open_fact.as_deref().unwrap().contains("no deadline"));
}

/// Reports count fines in the period they accrue: a December citation's fines after 31
/// December are next year's, and the years add up to the whole.
#[test]
fn no_dollar_falls_between_two_years() {
    let p = Profile::builtin("windsor-ct").unwrap();
    let case: Case = serde_json::from_value(json!({
        "case_id": "CASE-2026-0001", "opened_on": "2026-01-02", "origin": "staff",
        "status": "open", "candidates": [],
        "actions": [cite("2026-12-30", None),
            {"kind": "eliminated", "on": "2027-01-04", "at": "12:00", "by": "Town Engineer"}],
    }))
    .unwrap();
    let y26 = fines_accrued_in(&case, &p.idde, t("2026-01-01T00:00"), t("2027-01-01T00:00"));
    let y27 = fines_accrued_in(&case, &p.idde, t("2027-01-01T00:00"), t("2028-01-01T00:00"));
    // 30 Dec 10:00: $250; 31 Dec 10:00: $250 (one 24 hours). 1, 2, 3, 4 Jan 10:00: 4 × $250.
    assert_eq!((y26, y27), (500.0, 1000.0));
    let total = case_deadlines(&case, &p.idde, t("2028-01-01T00:00")).accrued;
    assert_eq!(y26 + y27, total);
}

/// Windsor (b)(3): "No such fine shall be levied against the state or any state official
/// or state employee acting within the scope of his employment": against the State no
/// stream accrues (each kept at $0, naming the clause); against a respondent whose kind
/// is not on record the dollars are counted and the fact that decides them stays open.
#[rstest]
#[case::the_state(json!({"name": "State of Connecticut", "kind": "state", "acting_for_state": "no", "source": "given"}), 0.0, "barred")]
#[case::a_state_employee_at_work(json!({"name": "J. Doe", "kind": "individual", "acting_for_state": "yes", "source": "given"}), 0.0, "barred")]
#[case::kind_not_on_record(json!({"kind": "unknown", "acting_for_state": "unknown", "source": "not_recorded"}), 1250.0, "open")]
// Counter-case: a business accrues as the law counts: $250 + 4 × $250 to Sat 5 Dec.
#[case::a_business(business(), 1250.0, "accrues")]
fn no_fine_is_levied_against_the_state(
    #[case] respondent: Value,
    #[case] accrued: f64,
    #[case] reading: &str,
) {
    let d = run_against(
        "windsor-ct",
        respondent,
        json!([cite("2026-12-01", None)]),
        "2026-12-05T10:00",
    );
    assert_eq!(d.accrued, accrued, "{:?}", d.fines);
    assert_eq!(d.fines.len(), 2);
    for f in &d.fines {
        match reading {
            "barred" => {
                let v = f.voided_by.as_deref().unwrap();
                assert!(v.contains("(b)(3)") && v.contains("No such fine"), "{v}");
                assert_eq!((f.periods, f.open_fact.as_deref()), (0, None));
            }
            "open" => {
                let o = f.open_fact.as_deref().unwrap();
                assert!(
                    o.contains("no fine is levied") && o.contains("(b)(3)"),
                    "{o}"
                );
            }
            _ => assert_eq!(
                (f.voided_by.as_deref(), f.open_fact.as_deref()),
                (None, None)
            ),
        }
    }
}

/// A profile whose clock options cannot be counted does not load: the error names the
/// key (the step or fine by its index) and says what is missing. The rule's words are the
/// built-in Windsor profile's; each case breaks one thing.
#[rstest]
#[case::two_starts(
    "mail_business_days = 3\n",
    "mail_business_days = 3\nfrom_receipt = true\n",
    "idde.deadlines[0].mail_business_days",
    "give one of due_on_trigger_deadline, from_receipt or mail_business_days"
)]
#[case::a_plan_with_no_period_to_replace(
    "after = \"windsor.citation.written_notice_72h\"\n",
    "trigger = \"written_notice\"\n",
    "idde.deadlines[1].plan",
    "needs after"
)]
#[case::resumed_from_nothing(
    "suspended_by = [\"hearing_requested\"]\n",
    "",
    "idde.deadlines[3].resumed_by",
    "needs suspended_by"
)]
#[case::resumed_two_ways(
    "resumed_by = [\"hearing_decided:upheld\"]\n",
    "resumed_by = [\"hearing_decided:upheld\"]\nresumed_business_days = 5\n",
    "idde.deadlines[3].resumed_by",
    "give one of resumed_business_days or resumed_open_fact"
)]
#[case::a_misspelt_contest(
    "suspended_by = [\"hearing_requested\"]",
    "suspended_by = [\"hearing_requestd\"]",
    "idde.deadlines[3].suspended_by[0]",
    "hearing_requestd"
)]
#[case::a_report_nothing_confirms(
    "report = \"compliance_report\"\nconfirmed_by = [\"reinspection:corrected\"]\n",
    "report = \"compliance_report\"\n",
    "idde.fines[0].confirmed_by",
    "needs confirmed_by"
)]
fn a_clock_the_engine_cannot_count_does_not_load(
    #[case] from: &str,
    #[case] to: &str,
    #[case] key: &str,
    #[case] says: &str,
) {
    let text = Profile::builtin_text("windsor-ct").unwrap();
    assert!(Profile::with_id("windsor-ct", text, "test").is_ok());
    assert!(text.contains(from), "{from}");
    let broken = text.replacen(from, to, 1);
    let e = format!(
        "{:#}",
        Profile::with_id("windsor-ct", &broken, "test").unwrap_err()
    );
    assert!(e.contains(key), "{e}");
    assert!(e.contains(says), "{e}");
}
