//! Issue 25, items 6 and 7: who the respondent is, and who acts, through the command
//! layer (`ms4::idde::commands::run`) on both stores, and one case over HTTP.
//!
//! Windsor (b)(1): "No written notice may be issued against the state or any state
//! official or employee acting within the scope of his employment"; (b)(3): "No such
//! fine shall be levied against the state or any state official or state employee acting
//! within the scope of his employment". The respondent is a recorded fact of the case: as
//! given, or the parcel's owner, its kind read only where the name's words say it.
//!
//! Who acts: "The Town Manager shall issue a written notice" ((b)(1)), "the Town Engineer
//! shall re-inspect" ((b)(2)), "The Town Manager shall re-inspect to confirm compliance"
//! ((c)(2)), "Whenever the Town Engineer finds ... he shall order compliance by written
//! notice of violation" ((a)); North Castle: the Town Board "shall hear the appeal ... and
//! ... file its decision in the office of the Town Clerk"; Carmel § 156-88A: "the Town of
//! Carmel ... may issue a written notice of violation".

use chrono::NaiveDate;
use geo_types::{polygon, Geometry};
use ms4::domain::{Feature, Layer, Value};
use ms4::idde::case_update::Recorder;
use ms4::idde::commands::{self, CaseAnswer, CaseCommand, CaseError, CaseView};
use ms4::idde::respondent::{fines_barred, Standing};
use ms4::idde::Action;
use ms4::rules::Profile;
use ms4::store::{write_all, WriteMode, WriteRequest};
use rstest::rstest;
use serde_json::{json, Value as Json};

use crate::common::*;

/// The token subject (or user) who records every change: never who acted.
const RECORDER: &str = "Ann Field";

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// A registry of `kind` for a town, holding four parcels: the State's, a business's, a
/// person's (by a name that does not say so) and one with no owner on record.
pub(super) async fn town(kind: &str, jurisdiction: &str) -> Registry {
    let dir = tempfile::tempdir().unwrap();
    let url = match kind {
        "sqlite" => format!("sqlite://{}", dir.path().join("registry.gpkg").display()),
        _ => fresh_pg_url("who").expect("postgis requested"),
    };
    let meta = ms4::import::crs::registry_meta(jurisdiction, 2234).unwrap();
    let store = ms4::store::create(&url, &meta).await.unwrap();
    let parcels = [
        ("P-STATE", Some("State of Connecticut")),
        ("P-LLC", Some("Quick Lube LLC")),
        ("P-HOME", Some("R. Homeowner")),
        ("P-NONE", None),
    ]
    .iter()
    .enumerate()
    .map(|(i, (id, owner))| {
        let mut f = Feature::new(Layer::Parcels, *id);
        f.set(Layer::Parcels, "land_use", Value::Text("residential".into()));
        if let Some(o) = owner {
            f.set(Layer::Parcels, "owner", Value::Text((*o).into()));
        }
        let x = 1_010_000.0 + 300.0 * i as f64;
        let y = 870_000.0;
        f.geom = Some(Geometry::MultiPolygon(geo_types::MultiPolygon(vec![polygon![
            (x: x, y: y), (x: x + 200.0, y: y), (x: x + 200.0, y: y + 200.0), (x: x, y: y + 200.0), (x: x, y: y)
        ]])));
        f
    })
    .collect();
    let req = WriteRequest {
        layer: Layer::Parcels,
        mode: WriteMode::Upsert,
        actor: "test".into(),
        source: "test".into(),
    };
    write_all(store.as_ref(), req, parcels, json!({}))
        .await
        .unwrap();
    Registry { url, store, dir }
}

/// Runs one case command against the registry under a town's law, as [`RECORDER`].
async fn run(reg: &Registry, profile: &Profile, cmd: CaseCommand) -> Result<CaseView, CaseError> {
    let snap = ms4::spatial::Snapshot::load(reg.store.as_ref())
        .await
        .unwrap();
    let r = commands::Registry {
        store: reg.store.as_ref(),
        profile,
        snap,
    };
    let by = Recorder {
        name: RECORDER.into(),
        source: "cli".into(),
        what: "test".into(),
        law: profile.idde.clone(),
        today: d("2027-01-04"),
    };
    let now = d("2027-01-04").and_hms_opt(12, 0, 0).unwrap();
    match commands::run(r, &by, now, cmd).await? {
        CaseAnswer::Case(v) => Ok(*v),
        other => panic!("not a case: {other:?}"),
    }
}

/// Opens a case on a parcel, with the respondent given or not.
pub(super) async fn open(
    reg: &Registry,
    profile: &Profile,
    parcel: &str,
    respondent: Option<Json>,
) -> CaseView {
    let mut body = json!({"origin": "staff", "opened_on": "2026-12-28", "parcel_id": parcel});
    if let Some(r) = respondent {
        body["respondent"] = r;
    }
    let req = serde_json::from_value(body).unwrap();
    run(reg, profile, CaseCommand::Open(req)).await.unwrap()
}

pub(super) async fn act(
    reg: &Registry,
    profile: &Profile,
    id: &str,
    action: Json,
) -> Result<CaseView, CaseError> {
    let action: Action = serde_json::from_value(action).unwrap();
    run(
        reg,
        profile,
        CaseCommand::Action {
            id: id.into(),
            action,
        },
    )
    .await
}

/// Closes a case (`closing` as the API's body: closure, on, by, notes).
pub(super) async fn close(
    reg: &Registry,
    profile: &Profile,
    id: &str,
    closing: Json,
) -> Result<CaseView, CaseError> {
    let closing = serde_json::from_value(closing).unwrap();
    run(
        reg,
        profile,
        CaseCommand::Close {
            id: id.into(),
            closing,
        },
    )
    .await
}

fn invalid(e: CaseError) -> (String, String) {
    match e {
        CaseError::Invalid(f) => (f.field, f.message),
        other => panic!("not a field's refusal: {other:?}"),
    }
}

pub(super) fn skip(kind: &str) -> bool {
    kind == "postgis" && pg_base().is_none()
}

/// The respondent is the parcel's owner unless given, its kind read only from the
/// listed words of the name, the reading and its reason recorded; a name they do not
/// decide is `unknown`, never a guess.
#[rstest]
#[case::the_states_parcel("P-STATE", None, "state", "parcel_owner", Some("begins \"state of\""))]
#[case::a_businesss_parcel("P-LLC", None, "business", "parcel_owner", Some("\"llc\""))]
#[case::a_name_that_does_not_say("P-HOME", None, "unknown", "parcel_owner", Some("does not say"))]
#[case::no_owner_on_record("P-NONE", None, "unknown", "not_recorded", Some("no owner on record"))]
#[case::given_wins_over_the_owner(
    "P-HOME",
    Some(json!({"name": "Department of Energy and Environmental Protection", "kind": "state", "basis": "the deed"})),
    "state",
    "given",
    None
)]
#[tokio::test(flavor = "multi_thread")]
async fn the_respondent_is_the_parcels_owner_unless_given(
    #[values("sqlite", "postgis")] store: &str,
    #[case] parcel: &str,
    #[case] given: Option<Json>,
    #[case] kind: &str,
    #[case] source: &str,
    #[case] reading: Option<&str>,
) {
    if skip(store) {
        return;
    }
    let reg = town(store, "windsor-ct").await;
    let p = Profile::builtin("windsor-ct").unwrap();
    let v = open(&reg, &p, parcel, given).await;
    let r = &v.case.respondent;
    assert_eq!(r.kind.as_str(), kind, "{store}: {r:?}");
    assert_eq!(r.source.as_str(), source, "{store}: {r:?}");
    match reading {
        Some(w) => assert!(r.reading.as_deref().unwrap_or("").contains(w), "{r:?}"),
        None => assert_eq!(r.reading, None),
    }
    // As stored: read back by another command.
    let shown = run(
        &reg,
        &p,
        CaseCommand::Show {
            id: v.case.case_id.clone(),
            as_of: d("2027-01-04").and_hms_opt(0, 0, 0).unwrap(),
        },
    )
    .await
    .unwrap();
    assert_eq!(shown.case.respondent, *r, "{store}");
}

/// What Windsor's law does with each action against each respondent.
#[derive(Debug, Clone, Copy)]
enum Then {
    /// Refused, naming the clause.
    Refused(&'static str),
    /// Logged, and flagged as one the clause may bar until the respondent is confirmed.
    Flagged(&'static str),
    /// Logged, no flag.
    Logged,
}

#[rstest]
#[case::a_written_notice_against_the_state(Some(json!({"name": "State of Connecticut", "kind": "state"})), "written_notice", Then::Refused("(b)(1)"))]
#[case::a_citation_against_the_state(Some(json!({"name": "State of Connecticut", "kind": "state"})), "citation_issued", Then::Refused("(b)(3)"))]
#[case::a_written_notice_against_a_state_employee_in_scope(
    Some(json!({"name": "J. Trooper", "kind": "individual", "acting_for_state": "yes"})),
    "written_notice",
    Then::Refused("(b)(1)")
)]
// Counter-cases: the Town Engineer's notice of violation ((a)) and a referral stay
// possible against the State; the bars do not reach a business or a person not acting
// for the State.
#[case::the_engineers_notice_against_the_state(Some(json!({"name": "State of Connecticut", "kind": "state"})), "notice_of_violation", Then::Logged)]
#[case::a_referral_against_the_state(Some(json!({"name": "State of Connecticut", "kind": "state"})), "referral", Then::Logged)]
#[case::a_written_notice_against_a_business(Some(json!({"name": "Quick Lube LLC", "kind": "business"})), "written_notice", Then::Logged)]
#[case::a_citation_against_a_person_not_for_the_state(
    Some(json!({"name": "R. Homeowner", "kind": "individual", "acting_for_state": "no"})),
    "citation_issued",
    Then::Logged
)]
// Not known: allowed, and the answer flags the clause until the respondent is confirmed.
#[case::a_written_notice_against_an_unknown_owner(None, "written_notice", Then::Flagged("(b)(1)"))]
#[case::a_citation_against_a_person_who_may_act_for_the_state(
    Some(json!({"name": "R. Homeowner", "kind": "individual"})),
    "citation_issued",
    Then::Flagged("(b)(3)")
)]
#[tokio::test(flavor = "multi_thread")]
async fn windsor_bars_a_written_notice_and_a_citation_against_the_state(
    #[values("sqlite", "postgis")] store: &str,
    #[case] respondent: Option<Json>,
    #[case] kind: &str,
    #[case] then: Then,
) {
    if skip(store) {
        return;
    }
    let reg = town(store, "windsor-ct").await;
    let p = Profile::builtin("windsor-ct").unwrap();
    let id = open(&reg, &p, "P-HOME", respondent).await.case.case_id;
    // The last business day of the year, served by hand.
    let mut a = json!({"kind": kind, "on": "2026-12-31", "method": "hand"});
    if kind == "citation_issued" {
        a["violations"] = json!(1);
    }
    let got = act(&reg, &p, &id, a).await;
    match then {
        Then::Refused(clause) => {
            let (field, message) = invalid(got.unwrap_err());
            assert_eq!(field, "kind", "{message}");
            assert!(message.contains(clause), "{message}");
            assert!(
                message.contains("a notice_of_violation and a referral stay possible"),
                "{message}"
            );
        }
        Then::Flagged(clause) => {
            let v = got.unwrap();
            assert_eq!(v.case.actions.len(), 1);
            assert_eq!(v.respondent_flags.len(), 1, "{:?}", v.respondent_flags);
            let f = &v.respondent_flags[0];
            assert_eq!(f.standing, Standing::MayBeBarred);
            assert!(f.citation.contains(clause), "{f:?}");
            assert!(
                f.message.contains("confirm") || f.message.contains("acting_for_state"),
                "{f:?}"
            );
            // Not known is not a bar: the fines are not taken away by a guess.
            assert_eq!(fines_barred(&v.case, &p.idde), None);
        }
        Then::Logged => {
            let v = got.unwrap();
            assert_eq!(v.case.actions.len(), 1);
            assert!(v.respondent_flags.is_empty(), "{:?}", v.respondent_flags);
        }
    }
}

/// Correcting the respondent is a change of the case like any other: audited with who
/// made it, refused once the case is closed; an action logged before the correction
/// that the clause bars is flagged as barred, and no fine accrues ((b)(3)).
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn the_respondent_is_corrected_through_the_command_layer_and_audited(#[case] store: &str) {
    if skip(store) {
        return;
    }
    let reg = town(store, "windsor-ct").await;
    let p = Profile::builtin("windsor-ct").unwrap();
    let id = open(&reg, &p, "P-HOME", None).await.case.case_id;
    let v = act(
        &reg,
        &p,
        &id,
        json!({"kind": "citation_issued", "on": "2026-12-31", "method": "hand", "violations": 1}),
    )
    .await
    .unwrap();
    assert_eq!(v.respondent_flags[0].standing, Standing::MayBeBarred);
    let set = |r: Json| CaseCommand::Respondent {
        id: id.clone(),
        respondent: serde_json::from_value(r).unwrap(),
    };
    let v = run(
        &reg,
        &p,
        set(json!({"name": "State of Connecticut", "kind": "state", "basis": "deed"})),
    )
    .await
    .unwrap();
    assert_eq!(v.case.respondent.source.as_str(), "given");
    assert_eq!(v.respondent_flags.len(), 1);
    assert_eq!(v.respondent_flags[0].standing, Standing::Barred);
    assert!(
        v.respondent_flags[0].message.contains("no fine accrues"),
        "{:?}",
        v.respondent_flags
    );
    let clause = fines_barred(&v.case, &p.idde).expect("no fine against the State");
    assert!(clause.contains("No such fine shall be levied"), "{clause}");
    // And the fine engine levies none: each stream kept at $0, naming the clause.
    let at = NaiveDate::from_ymd_opt(2027, 1, 3)
        .unwrap()
        .and_hms_opt(12, 0, 0)
        .unwrap();
    let d = ms4::idde::deadlines::case_deadlines(&v.case, &p.idde, at);
    assert_eq!(d.accrued, 0.0, "{:?}", d.fines);
    assert!(!d.fines.is_empty());
    assert!(d
        .fines
        .iter()
        .all(|f| f.voided_by.as_deref().is_some_and(|x| x.contains("(b)(3)"))));
    // The change is audited: who, and the respondent before and after.
    let audit = reg.store.audit(Some(Layer::Cases), 10).await.unwrap();
    let last = audit
        .iter()
        .find(|e| e.action == "update")
        .expect("an update");
    assert_eq!(last.actor, RECORDER);
    let before = last.before.as_ref().unwrap()["properties"]["respondent"]
        .as_str()
        .unwrap()
        .to_string();
    let after = last.after.as_ref().unwrap()["properties"]["respondent"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(before.contains("R. Homeowner"), "{before}");
    assert!(after.contains("State of Connecticut"), "{after}");
    // A person who is not the respondent's kind cannot act for the State.
    let (field, _) = invalid(
        run(
            &reg,
            &p,
            set(json!({"name": "Acme LLC", "kind": "business", "acting_for_state": "yes"})),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(field, "acting_for_state");
    // Closed, the respondent is kept as it was.
    let closing = serde_json::from_value(
        json!({"closure": "unfounded", "on": "2027-01-04", "notes": "no discharge"}),
    )
    .unwrap();
    run(
        &reg,
        &p,
        CaseCommand::Close {
            id: id.clone(),
            closing,
        },
    )
    .await
    .unwrap();
    let (field, message) = invalid(
        run(
            &reg,
            &p,
            set(json!({"name": "R. Homeowner", "kind": "individual"})),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(field, "case", "{message}");
}

/// Each act the law gives to an office is by that office: left out, the first the law
/// gives it; another office is refused naming the offices and the clause. Who recorded
/// it is the recorder, never who acted.
#[rstest]
#[case::windsor_written_notice_is_the_town_managers(
    "windsor-ct",
    "written_notice",
    None,
    Ok("Town Manager")
)]
#[case::windsor_not_the_engineers_written_notice(
    "windsor-ct",
    "written_notice",
    Some("Town Engineer"),
    Err("Town Manager (Windsor [Enforcement section] (b)(1)")
)]
#[case::windsor_citation_is_the_town_managers(
    "windsor-ct",
    "citation_issued",
    Some("town  manager"),
    Ok("Town Manager")
)]
#[case::windsor_reinspection_is_the_engineers(
    "windsor-ct",
    "reinspection",
    None,
    Ok("Town Engineer")
)]
#[case::windsor_the_manager_reinspects_to_confirm(
    "windsor-ct",
    "reinspection",
    Some("Town Manager"),
    Ok("Town Manager")
)]
#[case::windsor_not_the_finance_directors_reinspection(
    "windsor-ct",
    "reinspection",
    Some("Town Finance Director"),
    Err("(c)(2)")
)]
#[case::windsor_notice_of_violation_is_the_engineers(
    "windsor-ct",
    "notice_of_violation",
    None,
    Ok("Town Engineer")
)]
#[case::windsor_not_the_managers_notice_of_violation(
    "windsor-ct",
    "notice_of_violation",
    Some("Town Manager"),
    Err("Town Engineer (Windsor [Enforcement section] (a)")
)]
#[case::north_castle_the_board_decides_the_appeal(
    "north-castle-ny",
    "appeal_decided",
    None,
    Ok("Town Board")
)]
#[case::north_castle_not_the_smo_deciding_the_appeal(
    "north-castle-ny",
    "appeal_decided",
    Some("Stormwater Management Officer"),
    Err("Town Board (Ch. 267")
)]
#[case::north_castle_the_board_files_its_decision(
    "north-castle-ny",
    "decision_filed",
    None,
    Ok("Town Board")
)]
#[case::north_castle_the_smos_notice(
    "north-castle-ny",
    "notice_of_violation",
    None,
    Ok("Stormwater Management Officer")
)]
#[case::north_castle_the_towns_land_development_notice(
    "north-castle-ny",
    "notice_of_violation",
    Some("Town of North Castle"),
    Ok("Town of North Castle")
)]
#[case::north_castle_not_the_boards_notice(
    "north-castle-ny",
    "notice_of_violation",
    Some("Town Board"),
    Err("Part 1")
)]
#[case::carmel_the_towns_notice("carmel-ny", "notice_of_violation", None, Ok("Town of Carmel"))]
#[case::carmel_not_the_planning_boards_notice(
    "carmel-ny",
    "notice_of_violation",
    Some("Planning Board"),
    Err("§ 156-88A")
)]
// Counter-case: a kind the law gives no office takes any office of the town's law.
#[case::windsor_a_site_visit_by_any_office(
    "windsor-ct",
    "site_visit",
    Some("Town Engineer"),
    Ok("Town Engineer")
)]
#[tokio::test(flavor = "multi_thread")]
async fn an_act_is_by_the_office_the_law_gives_it(
    #[values("sqlite", "postgis")] store: &str,
    #[case] town_id: &str,
    #[case] kind: &str,
    #[case] by: Option<&str>,
    #[case] then: Result<&str, &str>,
) {
    if skip(store) {
        return;
    }
    let reg = town(store, town_id).await;
    let p = Profile::builtin(town_id).unwrap();
    // A business respondent: no bar of the law's stands in the way.
    let id = open(&reg, &p, "P-LLC", None).await.case.case_id;
    let mut a = json!({"kind": kind, "on": "2026-12-31"});
    match kind {
        "written_notice" | "notice_of_violation" => a["method"] = json!("hand"),
        "citation_issued" => {
            a["method"] = json!("hand");
            a["violations"] = json!(1);
        }
        "reinspection" => a["outcome"] = json!("not_corrected"),
        "appeal_decided" => a["outcome"] = json!("upheld"),
        _ => {}
    }
    if let Some(b) = by {
        a["by"] = json!(b);
    }
    match (act(&reg, &p, &id, a).await, then) {
        (Ok(v), Ok(office)) => {
            let last = v.case.actions.last().unwrap();
            assert_eq!(last.by, office);
            assert_eq!(last.recorded_by.as_deref(), Some(RECORDER));
        }
        (Err(e), Err(names)) => {
            let (field, message) = invalid(e);
            assert_eq!(field, "by", "{message}");
            assert!(message.contains(names), "{message}");
            assert!(message.contains("not to"), "{message}");
        }
        (got, want) => panic!("{town_id} {kind} by {by:?}: got {got:?}, want {want:?}"),
    }
}

/// The fourth town's profile names no offices: `by` must be given, and the recorder's
/// name is never taken for it.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_town_whose_profile_names_no_offices_asks_who_acted(#[case] store: &str) {
    if skip(store) {
        return;
    }
    let text = std::fs::read_to_string(fixture("quarry-hollow/quarry-hollow-ny.toml")).unwrap();
    let p = Profile::with_id("quarry-hollow-ny", &text, "quarry-hollow-ny.toml").unwrap();
    assert!(p.idde.offices.is_empty());
    let reg = town(store, "windsor-ct").await;
    let id = open(&reg, &p, "P-LLC", None).await.case.case_id;
    let (field, message) = invalid(
        act(
            &reg,
            &p,
            &id,
            json!({"kind": "site_visit", "on": "2026-12-31"}),
        )
        .await
        .unwrap_err(),
    );
    assert_eq!(field, "by");
    assert!(message.contains("[idde] offices"), "{message}");
    let v = act(
        &reg,
        &p,
        &id,
        json!({"kind": "site_visit", "on": "2026-12-31", "by": "Code Enforcement Officer"}),
    )
    .await
    .unwrap();
    let last = v.case.actions.last().unwrap();
    assert_eq!(last.by, "Code Enforcement Officer");
    assert_eq!(last.recorded_by.as_deref(), Some(RECORDER));
}

/// Over HTTP: setting the respondent needs a token (401), a bad field is a 400 naming
/// it, and a written notice against the State is a 400 naming `kind` and the clause.
/// The server counts "today" by the clock, so the days are in the past.
#[tokio::test(flavor = "multi_thread")]
async fn the_respondent_over_http_names_the_field_at_fault() {
    let reg = town("sqlite", "windsor-ct").await;
    let t = token(&reg.url, "officer", "officer person", &[]);
    let anon = App::new(&reg.store).await;
    let app = anon.clone().with_bearer(&t);
    let c: Json = app
        .post("/api/cases")
        .json(&json!({"origin": "staff", "opened_on": "2026-11-25", "parcel_id": "P-STATE"}))
        .send()
        .await
        .json();
    assert_eq!(c["respondent"]["kind"], "state", "{c}");
    assert_eq!(c["respondent_flags"], json!([]), "{c}");
    let id = c["case_id"].as_str().unwrap();
    let path = format!("/api/cases/{id}/respondent");
    let body = json!({"name": "Quick Lube LLC", "kind": "business"});
    assert_eq!(anon.put(&path).json(&body).send().await.status(), 401);
    let r = app
        .put(&path)
        .json(&json!({"kind": "business"}))
        .send()
        .await;
    assert_eq!(r.status(), 400, "{}", r.text());
    assert_eq!(r.json::<Json>()["field"], "name", "{}", r.text());
    let r = app
        .put(&path)
        .json(&json!({"name": "Quick Lube LLC", "kind": "shop"}))
        .send()
        .await;
    assert_eq!(r.status(), 400, "{}", r.text());
    assert_eq!(r.json::<Json>()["field"], "kind", "{}", r.text());
    let r = app
        .post(format!("/api/cases/{id}/actions"))
        .json(&json!({"kind": "written_notice", "on": "2026-11-30", "method": "hand"}))
        .send()
        .await;
    assert_eq!(r.status(), 400, "{}", r.text());
    let e: Json = r.json();
    assert_eq!(e["field"], "kind", "{e}");
    assert!(e["error"].as_str().unwrap().contains("(b)(1)"), "{e}");
    // Corrected, the notice is the Town Manager's to issue.
    let r = app.put(&path).json(&body).send().await;
    assert_eq!(r.status(), 200, "{}", r.text());
    assert_eq!(r.json::<Json>()["respondent"]["source"], "given");
    let r = app
        .post(format!("/api/cases/{id}/actions"))
        .json(&json!({"kind": "written_notice", "on": "2026-11-30", "method": "hand"}))
        .send()
        .await;
    assert_eq!(r.status(), 201, "{}", r.text());
    assert_eq!(r.json::<Json>()["actions"][0]["by"], "Town Manager");
}

/// The command line sets the respondent through the same command: `ms4 case respondent`,
/// and shows it with the case.
#[test]
fn the_command_line_sets_the_respondent() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let reg = rt.block_on(town("sqlite", "windsor-ct"));
    let opened: Json = serde_json::from_str(&run_ok(
        &reg.url,
        &[
            "case",
            "--format",
            "json",
            "open",
            &json!({"origin": "staff", "opened_on": "2026-11-25", "parcel_id": "P-HOME"})
                .to_string(),
        ],
    ))
    .unwrap();
    assert_eq!(opened["respondent"]["kind"], "unknown", "{opened}");
    let id = opened["case_id"].as_str().unwrap();
    let set: Json = serde_json::from_str(&run_ok(
        &reg.url,
        &[
            "case",
            "--format",
            "json",
            "respondent",
            id,
            &json!({"name": "R. Homeowner", "kind": "individual", "acting_for_state": "no"})
                .to_string(),
        ],
    ))
    .unwrap();
    assert_eq!(set["respondent"]["source"], "given", "{set}");
    let table = run_ok(&reg.url, &["case", "show", id]);
    assert!(
        table.contains("\"R. Homeowner\" (individual, given)"),
        "{table}"
    );
    let out = crate::common::run(
        &reg.url,
        &["case", "respondent", id, r#"{"name": "X", "kind": "shop"}"#],
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("kind"));
}

/// A registry made before the respondent was recorded keeps opening: its migration adds
/// the column, and a case stored before it reads as no respondent on record, of unknown
/// kind, so a written notice on it is logged and flagged, never refused or passed on a
/// guess.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_registry_from_before_respondents_keeps_opening(#[case] store: &str) {
    if skip(store) {
        return;
    }
    let mut reg = town(store, "windsor-ct").await;
    let p = Profile::builtin("windsor-ct").unwrap();
    let id = open(&reg, &p, "P-STATE", None).await.case.case_id;
    // The registry as it was before migration 0012: no respondent column, the migration
    // not yet applied (and, on SQLite, the outside-edit triggers that name the column
    // dropped with it, as they were before).
    let old = match store {
        "sqlite" => "DROP TRIGGER ms4_outside_cases_insert; DROP TRIGGER ms4_outside_cases_update; \
             DROP TRIGGER ms4_outside_cases_delete; DELETE FROM ms4_meta WHERE key = 'outside_triggers'; \
             ALTER TABLE cases DROP COLUMN respondent; DELETE FROM _sqlx_migrations WHERE version = 12;",
        _ => "ALTER TABLE cases DROP COLUMN respondent; DELETE FROM _sqlx_migrations WHERE version = 12;",
    };
    shell_sql(store, reg.dir.path(), &reg.url, old);
    reg.store = ms4::store::open(&reg.url).await.unwrap();
    let v = act(
        &reg,
        &p,
        &id,
        json!({"kind": "written_notice", "on": "2026-12-31", "method": "hand"}),
    )
    .await
    .unwrap();
    assert_eq!(v.case.respondent.source.as_str(), "not_recorded", "{store}");
    assert_eq!(v.case.respondent.kind.as_str(), "unknown");
    assert_eq!(v.respondent_flags.len(), 1, "{:?}", v.respondent_flags);
    assert_eq!(v.respondent_flags[0].standing, Standing::MayBeBarred);
}
