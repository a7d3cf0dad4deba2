//! A case's notices carry every content the town's law requires and none it does not,
//! in the town's own words and citations from its profile (never another town's): the
//! notice of violation's chosen orders with the law's list as options, the abatement
//! deadline and its advice, the right to appeal; Windsor's written notice (b)(1) and its
//! citation (b)(3), (c)(1), (d)(1). A period is stated as its rule until the document is
//! served and as the case's counted dates once it is. Cases on the three towns and on
//! towns added as data (a built-in profile copied under another name and rule prefix),
//! and through the command layer on both stores.

use std::collections::HashMap;

use chrono::NaiveDate;
use ms4::idde::deadlines::case_deadlines;
use ms4::idde::notice::{render, NoticeDocument, NoticeError, NoticeFacts};
use ms4::idde::Case;
use ms4::rules::{NoticeOrder, Profile};
use ms4::spatial::Snapshot;
use rstest::rstest;
use serde_json::json;

use crate::common;

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// A built-in profile, or one added as data: `hartland-ct` is Windsor's profile copied
/// under another name and rule prefix, `millbrook-ny` North Castle's.
fn town(id: &str) -> Profile {
    let copy = |from: &str, pairs: &[(&str, &str)]| {
        let path = format!(
            "{}/data/jurisdictions/{from}.toml",
            env!("CARGO_MANIFEST_DIR")
        );
        let mut text = std::fs::read_to_string(path).unwrap();
        for (a, b) in pairs {
            text = text.replace(a, b);
        }
        Profile::from_toml_str(&text, &format!("{id}.toml")).unwrap()
    };
    match id {
        "hartland-ct" => copy(
            "windsor-ct",
            &[("windsor", "hartland"), ("Windsor", "Hartland")],
        ),
        "millbrook-ny" => copy(
            "north-castle-ny",
            &[
                ("northcastle", "millbrook"),
                ("north-castle", "millbrook"),
                ("North Castle", "Millbrook"),
            ],
        ),
        _ => Profile::builtin(id).unwrap(),
    }
}

/// The other towns' names and rule prefixes, none of which a town's notice may show.
fn others(id: &str) -> Vec<&'static str> {
    [
        ("windsor-ct", ["Windsor", "windsor."]),
        ("north-castle-ny", ["North Castle", "northcastle."]),
        ("carmel-ny", ["Carmel", "carmel."]),
        ("hartland-ct", ["Hartland", "hartland."]),
        ("millbrook-ny", ["Millbrook", "millbrook."]),
    ]
    .into_iter()
    .filter(|(t, _)| *t != id)
    .flat_map(|(_, w)| w)
    .collect()
}

fn case(actions: serde_json::Value) -> Case {
    serde_json::from_value(json!({
        "case_id": "CASE-2026-0007", "opened_on": "2026-12-01", "origin": "staff",
        "status": "open", "candidates": [],
        "description": "Wash water from a floor drain discharging to catch basin CB-4",
        "actions": actions,
    }))
    .unwrap()
}

fn empty_snapshot() -> Snapshot {
    let meta = ms4::import::crs::registry_meta("windsor-ct", 2234).unwrap();
    Snapshot::from_features(meta, HashMap::new())
}

fn facts(document: NoticeDocument, orders: &[NoticeOrder], deadline: Option<&str>) -> NoticeFacts {
    NoticeFacts {
        document,
        orders: orders.to_vec(),
        deadline: deadline.map(d),
    }
}

const AS_OF: &str = "2027-01-15";

fn print(id: &str, c: &Case, f: &NoticeFacts) -> Result<ms4::idde::notice::Notice, NoticeError> {
    let p = town(id);
    let as_of = d(AS_OF).and_hms_opt(12, 0, 0).unwrap();
    render(
        &empty_snapshot(),
        &p,
        c,
        f,
        &case_deadlines(c, &p.idde, as_of),
    )
}

fn section(html: &str, class: &str) -> String {
    let at = html
        .find(&format!("class=\"{class}\""))
        .unwrap_or_else(|| panic!("no {class} in {html}"));
    let rest = &html[at..];
    rest[..rest.find("</").unwrap()].to_string()
}

fn chosen(html: &str) -> Vec<String> {
    match html.find("<ol class=\"orders\">") {
        None => Vec::new(),
        Some(at) => html[at..html[at..].find("</ol>").unwrap() + at]
            .split("data-order=\"")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].to_string())
            .collect(),
    }
}

fn options(html: &str) -> Vec<String> {
    html.split("data-option=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

/// The notice of violation "may require without limitation" the law's orders (Windsor
/// (a)(1)-(5); North Castle A(1)(a)-(f)): the notice prints those the officer chose as
/// required, and the whole list as the options; "Payment of a fine" is North Castle's
/// (e), one of the orders, never required of a violator the officer did not fine.
#[rstest]
#[case::windsor_elimination("windsor-ct", &[NoticeOrder::Elimination], "The elimination of illicit discharges or connections", 5)]
#[case::north_castle_no_fine_unless_chosen("north-castle-ny", &[NoticeOrder::Elimination, NoticeOrder::CeaseAndDesist], "The elimination of illicit connections or discharges", 6)]
#[case::north_castle_a_fine_chosen("north-castle-ny", &[NoticeOrder::Fine], "Payment of a fine", 6)]
#[case::hartland_added_as_data("hartland-ct", &[NoticeOrder::Monitoring], "The performance of monitoring, analyses, and reporting", 5)]
#[case::millbrook_added_as_data("millbrook-ny", &[NoticeOrder::Bmps], "The implementation of source control or treatment BMPs", 6)]
fn the_notice_prints_the_orders_chosen_and_the_law_s_list_as_options(
    #[case] id: &str,
    #[case] orders: &[NoticeOrder],
    #[case] words: &str,
    #[case] listed: usize,
) {
    let n = print(
        id,
        &case(json!([])),
        &facts(NoticeDocument::NoticeOfViolation, orders, None),
    )
    .unwrap();
    let want: Vec<String> = orders.iter().map(|o| o.to_string()).collect();
    assert_eq!(chosen(&n.html), want, "{}", n.html);
    assert!(n.html.contains(words), "{}", n.html);
    assert_eq!(options(&n.html).len(), listed, "{}", n.html);
    // Counter-case: a fine is among the options where the law lists one, and is printed
    // as required only when chosen.
    let fine_required = chosen(&n.html).contains(&"fine".to_string());
    assert_eq!(fine_required, orders.contains(&NoticeOrder::Fine));
    assert_eq!(
        options(&n.html).contains(&"fine".to_string()),
        id.contains("-ny"),
        "{id}"
    );
    // The town's own rule id and citation; no other town's name or rule.
    let p = town(id);
    let rule = p.role_id(ms4::rules::Role::NoticeOfViolation).unwrap();
    assert!(n.html.contains(rule), "{}", n.html);
    assert!(n.html.contains(&format!(
        "{} ({rule})",
        p.citation(rule).unwrap().replace('&', "&amp;")
    )));
    for w in others(id) {
        assert!(!n.html.contains(w), "{id}'s notice shows {w:?}: {}", n.html);
    }
}

/// "If abatement of a violation and/or restoration of affected property are required,
/// the notice shall set forth a deadline within which such remediation or restoration
/// must be completed. Said notice shall further advise that, should the violator fail to
/// remediate or restore within the established deadline, the work will be done by a
/// designated governmental agency or a contractor and the expense thereof shall be
/// charged to the violator." (Windsor (a); North Castle A(2)). The deadline is the one
/// given, else the notice action's `deadline`; without either it is an open fact.
#[rstest]
#[case::windsor_given("windsor-ct", &[NoticeOrder::Abatement], Some("2027-01-04"), json!([]), Some("2027-01-04"))]
#[case::north_castle_from_the_notice_action("north-castle-ny", &[NoticeOrder::Abatement, NoticeOrder::Elimination], None,
    json!([{"kind": "notice_of_violation", "on": "2026-12-24", "method": "hand", "by": "Stormwater Management Officer", "deadline": "2027-01-08"}]),
    Some("2027-01-08"))]
#[case::hartland_missing_is_open("hartland-ct", &[NoticeOrder::Abatement], None, json!([]), None)]
#[case::millbrook_missing_is_open("millbrook-ny", &[NoticeOrder::Abatement], None, json!([]), None)]
fn abatement_sets_a_deadline_and_advises_of_the_work_at_the_violators_expense(
    #[case] id: &str,
    #[case] orders: &[NoticeOrder],
    #[case] given: Option<&str>,
    #[case] actions: serde_json::Value,
    #[case] printed: Option<&str>,
) {
    let n = print(
        id,
        &case(actions),
        &facts(NoticeDocument::NoticeOfViolation, orders, given),
    )
    .unwrap();
    let line = section(&n.html, "abatement");
    let missing = n.open_facts.iter().any(|f| {
        f.contains("the deadline within which the remediation or restoration must be completed")
    });
    match printed {
        Some(day) => {
            assert!(line.contains(&format!("completed by: {day}")), "{line}");
            assert!(!missing, "{:?}", n.open_facts);
        }
        None => {
            assert!(line.contains("blank"), "{line}");
            assert!(missing, "{:?}", n.open_facts);
        }
    }
    let advice = section(&n.html, "advice");
    assert!(advice.contains("should the violator fail to remediate or restore within the established deadline, the work will be done by a designated governmental agency or a contractor and the expense thereof shall be charged to the violator"), "{advice}");
    // Counter-case: without abatement ordered, no deadline and no advice are printed
    // (and no date the law does not ask for), even with a deadline given.
    let n = print(
        id,
        &case(json!([])),
        &facts(
            NoticeDocument::NoticeOfViolation,
            &[NoticeOrder::Monitoring],
            given,
        ),
    )
    .unwrap();
    assert!(
        !n.html.contains("class=\"abatement\"") && !n.html.contains("class=\"advice\""),
        "{}",
        n.html
    );
    assert!(
        !n.open_facts.iter().any(|f| f.contains("deadline")),
        "{:?}",
        n.open_facts
    );
}

/// Windsor: "Any person or entity aggrieved by a finding, determination, notice order or
/// action taken under the provisions of this article may appeal and shall be advised of
/// his right to appeal in accordance with the provisions set forth in Chapter 2, Article
/// VI of this Code": every notice advises of it. North Castle: "may appeal the
/// determination of the SMO to the Town Board within 15 days of its issuance": stated as
/// a rule before the notice is issued, as the last day once it is (Thursday 24 December
/// 2026 + 15 = Friday 8 January 2027; the 15 days cross Christmas and the year's end).
#[rstest]
#[case::windsor_notice("windsor-ct", NoticeDocument::NoticeOfViolation, json!([]), "Chapter 2, Article VI", None)]
#[case::windsor_written_notice("windsor-ct", NoticeDocument::WrittenNotice, json!([]), "Chapter 2, Article VI", None)]
#[case::windsor_citation("windsor-ct", NoticeDocument::Citation, json!([]), "Chapter 2, Article VI", None)]
#[case::hartland_citation("hartland-ct", NoticeDocument::Citation, json!([]), "Chapter 2, Article VI", None)]
#[case::north_castle_before_issue("north-castle-ny", NoticeDocument::NoticeOfViolation, json!([]), "to the Town Board within 15 days of its issuance",
    Some("Not yet issued: the 15 days are counted from the day it is issued, running to the next business day"))]
#[case::north_castle_issued("north-castle-ny", NoticeDocument::NoticeOfViolation,
    json!([{"kind": "notice_of_violation", "on": "2026-12-24", "method": "hand", "by": "Stormwater Management Officer"}]),
    "to the Town Board within 15 days of its issuance", Some("Issued on 2026-12-24: the appeal is to be filed by 2027-01-08."))]
#[case::millbrook_issued_on_a_friday_rolls_to_monday("millbrook-ny", NoticeDocument::NoticeOfViolation,
    json!([{"kind": "notice_of_violation", "on": "2026-06-05", "method": "hand", "by": "Stormwater Management Officer"}]),
    "to the Town Board within 15 days of its issuance", Some("Issued on 2026-06-05: the appeal is to be filed by 2026-06-22."))]
fn every_notice_advises_of_the_right_to_appeal(
    #[case] id: &str,
    #[case] document: NoticeDocument,
    #[case] actions: serde_json::Value,
    #[case] words: &str,
    #[case] when: Option<&str>,
) {
    let n = print(id, &case(actions), &facts(document, &[], None)).unwrap();
    let appeal = section(&n.html, "appeal");
    assert!(appeal.contains(words), "{appeal}");
    match when {
        Some(w) => assert!(appeal.contains(w), "{appeal}"),
        // Counter-case: a law that counts no days to appeal gets none made up.
        None => assert!(
            !appeal.contains("days") && !appeal.contains("filed by"),
            "{appeal}"
        ),
    }
    let p = town(id);
    let rule = p.role_id(ms4::rules::Role::NoticeAppeal).unwrap();
    assert!(n.html.contains(&format!("({rule})")), "{}", n.html);
}

/// (b)(1): the written notice "shall explain the nature of the violation and the steps
/// required for compliance, and shall allow a seventy-two-hour period within which to
/// correct the violation or within which a written plan for correction shall be submitted
/// to the Town Manager, setting forth a reasonable time period for correction of the
/// violation as agreed upon by the Town Manager"; served "a. By hand delivery, at which
/// time the seventy-two-hour period shall begin; or b. By certified mail return receipt
/// requested and by regular first class mail. Three business days shall be allowed for
/// mail delivery of the notice prior to the commencement of the seventy-two-hour period."
/// Before it is served, the period is the rule; once served, the case's counted dates
/// (mailed Wednesday 23 December 2026: Christmas, a weekend and the year's end follow).
#[rstest]
#[case::windsor_unserved("windsor-ct", json!([]))]
#[case::windsor_mailed("windsor-ct", json!([{"kind": "written_notice", "on": "2026-12-23", "at": "10:00", "method": "mail", "by": "Town Manager"}]))]
#[case::windsor_by_hand("windsor-ct", json!([{"kind": "written_notice", "on": "2026-12-31", "at": "15:30", "method": "hand", "by": "Town Manager"}]))]
#[case::hartland_mailed("hartland-ct", json!([{"kind": "written_notice", "on": "2026-12-23", "at": "10:00", "method": "mail", "by": "Town Manager"}]))]
fn the_written_notice_states_the_72_hours_the_plan_and_how_service_starts_them(
    #[case] id: &str,
    #[case] actions: serde_json::Value,
) {
    let c = case(actions);
    let orders = [NoticeOrder::Elimination];
    let n = print(id, &c, &facts(NoticeDocument::WrittenNotice, &orders, None)).unwrap();
    let h = &n.html;
    assert!(
        h.contains("Wash water from a floor drain"),
        "the nature of the violation: {h}"
    );
    assert_eq!(
        chosen(h),
        ["elimination"],
        "the steps required for compliance: {h}"
    );
    assert!(section(h, "period").contains("This notice allows a 72-hour period within which to correct the violation or within which a written plan for correction shall be submitted to the Town Manager, setting forth a reasonable time period for correction of the violation as agreed upon by the Town Manager."), "{h}");
    let service = section(h, "service");
    assert!(
        service.contains("Served by hand delivery, the 72-hour period begins at delivery."),
        "{service}"
    );
    assert!(service.contains("3 business days are allowed for mail delivery of the notice before the 72-hour period commences"), "{service}");
    let when = section(h, "when");
    let p = town(id);
    let as_of = d(AS_OF).and_hms_opt(12, 0, 0).unwrap();
    let rule = p.role_id(ms4::rules::Role::WrittenNotice).unwrap();
    match c.actions.first() {
        None => {
            assert_eq!(when, "class=\"when\">Not yet served: the period runs 72 hours from hand delivery, or from the start of the day after the 3rd business day after mailing.", "{h}");
            // Counter-case: no date is printed for a period that has not started.
            assert!(!h.contains("the period runs from"), "{h}");
        }
        Some(a) => {
            let cd = case_deadlines(&c, &p.idde, as_of);
            let dl = cd.deadlines.iter().find(|x| x.rule == rule).unwrap();
            let want = format!(
                "the period runs from {} to {}",
                dl.starts.unwrap().format("%Y-%m-%d %H:%M"),
                dl.due_at.unwrap().format("%Y-%m-%d %H:%M")
            );
            assert!(when.contains(&want), "{when} / {want}");
            assert!(when.contains(&format!("on {}", a.on)), "{when}");
            assert!(!when.contains("Not yet served"), "{when}");
        }
    }
    assert!(h.contains(&format!("({rule})")), "{h}");
    for w in others(id) {
        assert!(!h.contains(w), "{id}'s written notice shows {w:?}");
    }
}

/// (b)(3): "All citations issued pursuant to this section shall state the violation for
/// which the citation is being issued, the fine imposed for the violation, the time
/// period within which the fine must be paid, and an address for remittance of the
/// fine"; (c)(1): "The citation shall include a notice to the alleged violator that each
/// twenty-four-hour period of noncompliance after the time period specified in subsection
/// (b) shall constitute a new violation and a new fine of $250"; (d)(1): fines "which are
/// uncontested shall be made payable to the Town of Windsor and shall be received by the
/// Town Manager within 10 business days from receipt of the citation". The citation is a
/// document of its own; the law gives no address, so without the Town's setting it is
/// printed as missing, never invented.
#[rstest]
#[case::windsor_two_violations_no_address(
    "windsor-ct",
    Some(2),
    None,
    "$250 for each violation: 2 violations, $500."
)]
#[case::windsor_address_set(
    "windsor-ct",
    Some(1),
    Some("Town Manager, 1 Town Hall Sq, Windsor"),
    "$250 for each violation: 1 violation, $250."
)]
#[case::windsor_not_yet_issued("windsor-ct", None, None, "$250 for each violation: ")]
#[case::hartland_added_as_data(
    "hartland-ct",
    Some(3),
    Some("Hartland Town Hall"),
    "$250 for each violation: 3 violations, $750."
)]
fn the_citation_states_what_the_law_requires_and_is_printable_on_its_own(
    #[case] id: &str,
    #[case] violations: Option<u32>,
    #[case] address: Option<&str>,
    #[case] fine: &str,
) {
    let actions = match violations {
        Some(v) => {
            json!([{"kind": "citation_issued", "on": "2026-12-30", "at": "09:00", "method": "hand", "by": "Town Manager", "violations": v}])
        }
        None => json!([]),
    };
    let mut p = town(id);
    p.wording.notice.remittance_address = address.map(str::to_string);
    let c = case(actions);
    let as_of = d(AS_OF).and_hms_opt(12, 0, 0).unwrap();
    let f = facts(NoticeDocument::Citation, &[], None);
    let n = render(
        &empty_snapshot(),
        &p,
        &c,
        &f,
        &case_deadlines(&c, &p.idde, as_of),
    )
    .unwrap();
    let h = &n.html;
    assert!(
        h.starts_with("<!DOCTYPE html>")
            && h.contains("<h2 data-document=\"citation\">Citation</h2>"),
        "{h}"
    );
    assert!(
        h.contains("Wash water from a floor drain"),
        "the violation: {h}"
    );
    assert!(section(h, "fine").contains(fine), "{h}");
    let town_name = if id == "hartland-ct" {
        "Hartland"
    } else {
        "Windsor"
    };
    let pay = section(h, "payment");
    assert!(pay.contains(&format!("Uncontested fines shall be made payable to the Town of {town_name} and shall be received by the Town Manager within 10 business days from receipt of the citation.")), "{pay}");
    assert!(section(h, "continuing").contains("Each 24-hour period of noncompliance after the time period specified in subsection (b) shall constitute a new violation and a new fine of $250."), "{h}");
    let remit = section(h, "remittance");
    let open_address = n
        .open_facts
        .iter()
        .any(|f| f.contains("address for remittance"));
    match address {
        Some(a) => {
            assert!(
                remit.contains(a) && !open_address,
                "{remit} {:?}",
                n.open_facts
            );
        }
        None => {
            assert!(
                remit.contains("Missing") && open_address,
                "{remit} {:?}",
                n.open_facts
            );
        }
    }
    // Issued, the day to pay comes from the case's deadlines; not yet, the number of
    // violations is open and no day is printed.
    let rule = p.role_id(ms4::rules::Role::FinePayment).unwrap();
    match violations {
        Some(_) => {
            let cd = case_deadlines(&c, &p.idde, as_of);
            match cd.deadlines.iter().find(|x| x.rule == rule) {
                Some(dl) => assert!(
                    pay.contains(&format!("To be received by {}.", dl.by())),
                    "{pay}"
                ),
                None => assert!(
                    n.open_facts
                        .iter()
                        .any(|f| f.contains("the day the citation was received")),
                    "{:?}",
                    n.open_facts
                ),
            }
        }
        None => {
            assert!(!pay.contains("To be received by"), "{pay}");
            assert!(n
                .open_facts
                .iter()
                .any(|f| f.contains("the number of violations cited")));
        }
    }
    // Printable on its own: not the notice of violation's orders.
    assert!(!h.contains("data-option="), "{h}");
    for w in others(id) {
        assert!(!h.contains(w), "{id}'s citation shows {w:?}");
    }
}

/// A notice the town's law does not prescribe is refused saying so, never another
/// town's: Carmel's law has no illicit discharge article (its land development notice is
/// another document); North Castle's has no written notice or citation procedure. An
/// order the town's law does not list is refused naming it.
#[rstest]
#[case::carmel_has_no_illicit_notice("carmel-ny", NoticeDocument::NoticeOfViolation, &[], "Town of Carmel has no illicit discharge notice of violation")]
#[case::north_castle_has_no_written_notice("north-castle-ny", NoticeDocument::WrittenNotice, &[], "has no illicit discharge written notice")]
#[case::millbrook_has_no_citation("millbrook-ny", NoticeDocument::Citation, &[], "Town of Millbrook has no illicit discharge citation")]
#[case::windsor_lists_no_fine_order("windsor-ct", NoticeDocument::NoticeOfViolation, &[NoticeOrder::Fine], "orders[0]: fine is not an order Town of Windsor's law lets a notice make")]
fn a_notice_the_law_does_not_prescribe_is_refused(
    #[case] id: &str,
    #[case] document: NoticeDocument,
    #[case] orders: &[NoticeOrder],
    #[case] why: &str,
) {
    let e = print(id, &case(json!([])), &facts(document, orders, None)).unwrap_err();
    assert!(e.to_string().contains(why), "{e}");
}

// Through the command layer on a store ------------------------------------------------

/// The notice is addressed to the case's respondent as recorded (given, or the parcel's
/// owner), not left blank for a case with no parcel; with none on record it is an open
/// fact, never a guess.
#[rstest]
#[case::given(Some("Quick Lube LLC"), "<b>To:</b> Quick Lube LLC", false)]
#[case::none_on_record(None, "<b>To:</b> ", true)]
fn the_notice_is_addressed_to_the_respondent(
    #[case] name: Option<&str>,
    #[case] to: &str,
    #[case] open: bool,
) {
    let mut c = case(
        json!([{"kind": "notice_of_violation", "on": "2026-12-01", "method": "hand", "by": "Town Engineer"}]),
    );
    c.respondent.name = name.map(str::to_string);
    let n = print(
        "windsor-ct",
        &c,
        &facts(NoticeDocument::NoticeOfViolation, &[], Some("2026-12-31")),
    )
    .unwrap();
    assert!(n.html.contains(to), "{}", n.html);
    assert_eq!(
        n.open_facts
            .iter()
            .any(|f| f.contains("the person responsible")),
        open,
        "{:?}",
        n.open_facts
    );
}

async fn windsor_store(kind: &str) -> common::Registry {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => common::fresh_pg_url("notice").expect("postgis requested"),
    };
    let meta = ms4::import::crs::registry_meta("windsor-ct", 2234).unwrap();
    let store = ms4::store::create(&url, &meta).await.unwrap();
    import_parcel(&url, dir.path(), 1_010_000.0, 870_000.0);
    common::Registry { url, store, dir }
}

/// One parcel, P-SHOP, with its owner and address on record.
fn import_parcel(url: &str, dir: &std::path::Path, x: f64, y: f64) {
    let parcels = common::fc(&[common::feature(
        r#""parcel_id":"P-SHOP","land_use":"commercial","owner":"Quick Lube LLC","address":"5 Main St""#,
        &common::rect(x, y, 200.0, 200.0),
    )]);
    let path = dir.join("parcels.geojson");
    std::fs::write(&path, parcels).unwrap();
    common::run_ok(url, &["import", "parcels", path.to_str().unwrap()]);
}

async fn command(
    reg: &common::Registry,
    profile: &Profile,
    cmd: ms4::idde::commands::CaseCommand,
) -> Result<ms4::idde::commands::CaseAnswer, ms4::idde::commands::CaseError> {
    let by = ms4::idde::case_update::Recorder {
        name: "notice test".into(),
        source: "cli".into(),
        what: "notice test".into(),
        law: profile.idde.clone(),
        today: d("2027-12-31"),
    };
    let r = ms4::idde::commands::Registry {
        store: &*reg.store,
        profile,
        snap: Snapshot::load(&*reg.store).await.unwrap(),
    };
    let now = d(AS_OF).and_hms_opt(12, 0, 0).unwrap();
    ms4::idde::commands::run(r, &by, now, cmd).await
}

/// Windsor on each store: a case opened and its written notice mailed through the
/// command layer, then its three documents printed by the notice command: the written
/// notice with the dates the case's deadlines count, the notice of violation with its
/// abatement deadline, the citation with its missing address as an open fact.
async fn notices_through_the_command_layer(kind: &str) {
    use ms4::idde::commands::{CaseAnswer, CaseCommand};
    let reg = windsor_store(kind).await;
    let p = Profile::builtin("windsor-ct").unwrap();
    let open = serde_json::from_value(
        json!({"origin": "staff", "opened_on": "2026-12-21", "parcel_id": "P-SHOP",
        "description": "Wash water from a floor drain discharging to catch basin CB-4"}),
    )
    .unwrap();
    let CaseAnswer::Case(c) = command(&reg, &p, CaseCommand::Open(open)).await.unwrap() else {
        panic!("not a case")
    };
    let id = c.case.case_id.clone();
    for a in [
        json!({"kind": "notice_of_violation", "on": "2026-12-22", "method": "hand", "by": "Town Engineer", "deadline": "2027-01-11"}),
        json!({"kind": "written_notice", "on": "2026-12-23", "at": "10:00", "method": "mail", "by": "Town Manager"}),
    ] {
        let action = serde_json::from_value(a).unwrap();
        command(
            &reg,
            &p,
            CaseCommand::Action {
                id: id.clone(),
                action,
            },
        )
        .await
        .unwrap();
    }
    let print = |document, orders: Vec<NoticeOrder>| CaseCommand::Notice {
        id: id.clone(),
        as_of: d(AS_OF).and_hms_opt(12, 0, 0).unwrap(),
        facts: NoticeFacts {
            document,
            orders,
            deadline: None,
        },
    };
    let CaseAnswer::Notice { html, open_facts } = command(
        &reg,
        &p,
        print(
            NoticeDocument::NoticeOfViolation,
            vec![NoticeOrder::Elimination, NoticeOrder::Abatement],
        ),
    )
    .await
    .unwrap() else {
        panic!("not a notice")
    };
    assert!(html.contains("completed by: 2027-01-11"), "{html}");
    assert!(
        html.contains("<b>To:</b> Quick Lube LLC<br><b>Property:</b> 5 Main St (parcel P-SHOP)"),
        "{html}"
    );
    assert_eq!(chosen(&html), ["elimination", "abatement"]);
    assert!(
        open_facts.iter().all(|f| !f.contains("deadline")),
        "{open_facts:?}"
    );
    let CaseAnswer::Notice { html, .. } = command(
        &reg,
        &p,
        print(
            NoticeDocument::WrittenNotice,
            vec![NoticeOrder::Elimination],
        ),
    )
    .await
    .unwrap() else {
        panic!("not a notice")
    };
    let stored = match command(
        &reg,
        &p,
        CaseCommand::Show {
            id: id.clone(),
            as_of: d(AS_OF).and_hms_opt(12, 0, 0).unwrap(),
        },
    )
    .await
    .unwrap()
    {
        CaseAnswer::Case(v) => v.deadlines,
        _ => panic!("not a case"),
    };
    let w = stored
        .deadlines
        .iter()
        .find(|x| x.rule == "windsor.citation.written_notice_72h")
        .unwrap();
    assert!(
        html.contains(&format!(
            "Served by mail on 2026-12-23: the period runs from {} to {}",
            w.starts.unwrap().format("%Y-%m-%d %H:%M"),
            w.due_at.unwrap().format("%Y-%m-%d %H:%M")
        )),
        "{html}"
    );
    let CaseAnswer::Notice { html, open_facts } =
        command(&reg, &p, print(NoticeDocument::Citation, vec![]))
            .await
            .unwrap()
    else {
        panic!("not a notice")
    };
    assert!(html.contains("<h2 data-document=\"citation\">"), "{html}");
    assert!(
        open_facts
            .iter()
            .any(|f| f.contains("address for remittance")),
        "{open_facts:?}"
    );
    // A document the law does not have, or an order it does not list, is refused.
    let e = command(
        &reg,
        &p,
        print(NoticeDocument::NoticeOfViolation, vec![NoticeOrder::Fine]),
    )
    .await
    .unwrap_err();
    assert!(e.to_string().contains("orders[0]"), "{e}");
}

#[tokio::test(flavor = "multi_thread")]
async fn notices_through_the_command_layer_on_a_geopackage() {
    notices_through_the_command_layer("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn notices_through_the_command_layer_on_postgis() {
    if common::pg_base().is_some() {
        notices_through_the_command_layer("postgis").await;
    }
}

/// North Castle over HTTP on a GeoPackage: the notice's query names the orders, and a
/// bad one is a 400 naming its field; Carmel's case has no illicit discharge notice (400).
#[tokio::test(flavor = "multi_thread")]
async fn the_notice_endpoint_takes_the_orders_and_refuses_what_the_law_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("registry.gpkg").display());
    common::run_ok(
        &url,
        &[
            "init",
            "--jurisdiction",
            "north-castle-ny",
            "--crs",
            "EPSG:2260",
        ],
    );
    import_parcel(&url, dir.path(), 670_000.0, 870_000.0);
    let t = common::token(&url, "officer", "Sam Officer", &[]);
    let http = common::App::new(&ms4::store::open(&url).await.unwrap()).await;
    let base = &http.base;
    let c: serde_json::Value = http
        .post(format!("{base}/api/cases"))
        .bearer_auth(&t)
        .json(&json!({"origin": "staff", "opened_on": "2026-11-20", "parcel_id": "P-SHOP", "description": "Sewage in the outfall"}))
        .send()
        .await
        .json();
    let id = c["case_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{c}"))
        .to_string();
    let r = http
        .get(format!("{base}/api/cases/{id}/notice?orders=elimination,abatement&deadline=2027-01-08&as_of=2027-01-02"))
        .bearer_auth(&t)
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 200);
    let html = r.text();
    assert_eq!(chosen(&html), ["elimination", "abatement"], "{html}");
    assert!(html.contains("completed by: 2027-01-08"), "{html}");
    assert!(html.contains("Not yet issued: the 15 days"), "{html}");
    let r = http
        .get(format!(
            "{base}/api/cases/{id}/notice?orders=elimination,fines"
        ))
        .bearer_auth(&t)
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 400);
    let v: serde_json::Value = r.json();
    assert!(v.to_string().contains("orders[1]"), "{v}");
    let r = http
        .get(format!("{base}/api/cases/{id}/notice?document=citation"))
        .bearer_auth(&t)
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 400);
}
