//! Inspection schedules by priority and practice type, and the permit calendar (issue 29
//! items 5 and 6): next-due days across a year boundary, a never-inspected asset, a
//! structural SMP's engineer's inspection as its own item, one set of overdue assets from
//! the list (what `ms4 inspections due` and `/api/inspections/due` answer), the map's
//! `overdue` and the watershed list, calendar items due, done with their record, and
//! overdue; a profile without the sections answering as before.

mod common;

use std::collections::HashMap;

use common::*;

use chrono::NaiveDate;
use geo_types::{wkt, Geometry};
use ms4::answer::calendar::{calendar, CalendarParams, EntryStatus};
use ms4::answer::schedule::{inspections_due, InspectionsDueParams, Schedule};
use ms4::answer::Ask;
use ms4::domain::{Feature, Layer, LengthUnit, Value};
use ms4::rules::monitoring::Priority;
use ms4::rules::profile::{Inspector, IntervalUnit, ScheduleItem, PROGRAM_SETTING};
use ms4::rules::schedule::{requirements, standing, AssetFacts, Standing, DEFAULT_READING};
use ms4::rules::Profile;
use ms4::spatial::Snapshot;
use ms4::store::RegistryMeta;
use rstest::rstest;

fn day(s: &str) -> NaiveDate {
    s.parse().unwrap()
}

fn item(asset: &str, priority: Option<Priority>, every: u32, unit: IntervalUnit) -> ScheduleItem {
    ScheduleItem {
        asset: asset.into(),
        priority,
        practice_type: None,
        structural: None,
        every,
        unit,
        by: Inspector::Anyone,
        citation: PROGRAM_SETTING.into(),
        quote: None,
    }
}

/// Windsor's profile (no `[schedules]`, no `[calendar]`) with outfalls by priority:
/// high every 6 months, medium every year, low every 2 years; catch basins every 90 days.
fn by_priority() -> Profile {
    let mut p = Profile::builtin("windsor-ct").unwrap();
    p.schedules.items = vec![
        item("outfall", Some(Priority::High), 6, IntervalUnit::Months),
        item("outfall", Some(Priority::Medium), 1, IntervalUnit::Years),
        item("outfall", Some(Priority::Low), 2, IntervalUnit::Years),
        item("catch_basin", None, 90, IntervalUnit::Days),
    ];
    p.validate("test").unwrap();
    p
}

#[rstest]
#[case::high_six_months(Priority::High, "2026-11-15", "2027-05-15")]
#[case::medium_a_year(Priority::Medium, "2026-11-15", "2027-11-15")]
#[case::low_two_years(Priority::Low, "2026-11-15", "2028-11-15")]
#[case::high_from_the_last_day_of_august(Priority::High, "2026-08-31", "2027-02-28")]
fn next_due_by_priority_crosses_the_year(
    #[case] priority: Priority,
    #[case] last: &str,
    #[case] due: &str,
) {
    let p = by_priority();
    let facts = AssetFacts {
        asset: "outfall",
        priority: Some(priority),
        ..AssetFacts::default()
    };
    let r = requirements(&p.schedules, &facts);
    assert_eq!(r.len(), 1, "one routine item, no engineer's");
    assert_eq!(r[0].next_due(day(last)), day(due));
    assert!(!r[0].default_reading);
    // The day after it falls due it is overdue; on the day, due.
    assert_eq!(
        standing(Some(day(last)), Some(day(due)), day(due), 0),
        Standing::Due
    );
    let after = day(due).succ_opt().unwrap();
    assert_eq!(
        standing(Some(day(last)), Some(day(due)), after, 0),
        Standing::Overdue
    );
}

#[test]
fn an_asset_no_item_covers_takes_the_default_reading() {
    let p = by_priority();
    let r = requirements(
        &p.schedules,
        &AssetFacts {
            asset: "manhole",
            ..AssetFacts::default()
        },
    );
    assert_eq!(r.len(), 1);
    assert!(r[0].default_reading);
    assert_eq!(r[0].citation, DEFAULT_READING);
    assert_eq!(r[0].next_due(day("2026-12-31")), day("2027-12-31"));
}

#[rstest]
#[case::unknown_asset("asset = \"hydrant\"", "schedules.items[0].asset", "unknown asset")]
#[case::zero("every = 0", "schedules.items[0].every", "must be positive")]
#[case::priority_of_a_catch_basin(
    "asset = \"catch_basin\"\npriority = \"high\"",
    "schedules.items[0].priority",
    "has no priority"
)]
#[case::no_citation("citation = \"\"", "schedules.items[0].citation", "program setting")]
fn a_bad_schedule_item_is_refused_at_its_key(
    #[case] change: &str,
    #[case] key: &str,
    #[case] says: &str,
) {
    let base = include_str!("../data/jurisdictions/windsor-ct.toml");
    let mut fields = vec![
        ("asset", "asset = \"outfall\""),
        ("every", "every = 1"),
        ("unit", "unit = \"years\""),
        (
            "citation",
            "citation = \"program setting, not from your law\"",
        ),
    ];
    for line in change.lines() {
        let k = line.split('=').next().unwrap().trim();
        match fields.iter_mut().find(|(n, _)| *n == k) {
            Some(f) => f.1 = line,
            None => fields.push((k, line)),
        }
    }
    let body: Vec<&str> = fields.iter().map(|(_, l)| *l).collect();
    let text = format!("{base}\n[[schedules.items]]\n{}\n", body.join("\n"));
    let err = Profile::from_toml_str(&text, "windsor-ct.toml").unwrap_err();
    assert_eq!(err.key(), Some(key), "{err}");
    let msg = err.to_string();
    assert!(msg.contains(says), "{msg}");
    assert!(msg.contains("(line "), "the line is named: {msg}");
}

fn meta(jurisdiction: &str) -> RegistryMeta {
    RegistryMeta {
        jurisdiction: jurisdiction.into(),
        srid: 2260,
        crs_name: String::new(),
        crs_wkt: String::new(),
        linear_unit: LengthUnit::UsSurveyFoot,
    }
}

fn feature(layer: Layer, id: &str, g: Geometry<f64>, fields: &[(&str, Value)]) -> Feature {
    let mut f = Feature::new(layer, id);
    f.geom = Some(g);
    for (k, v) in fields {
        assert!(f.set(layer, k, v.clone()), "{k}");
    }
    f
}

fn inspection(id: &str, asset: &str, on: &str, kind: &str, inspector: &str) -> Feature {
    let mut f = Feature::new(Layer::Inspections, id);
    f.set(Layer::Inspections, "asset_id", Value::Text(asset.into()));
    f.set(Layer::Inspections, "inspected_on", Value::Date(day(on)));
    f.set(Layer::Inspections, "kind", Value::Text(kind.into()));
    f.set(
        Layer::Inspections,
        "inspector",
        Value::Text(inspector.into()),
    );
    f
}

/// Two catch basins (one inspected 2026-09-01, one never), a structural wet pond
/// inspected on 2026-06-01 by the Town's inspector and never by an engineer, and a
/// non-structural rain garden inspected 2026-06-01.
fn town() -> Snapshot {
    let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
    l.insert(
        Layer::CatchBasins,
        vec![
            feature(Layer::CatchBasins, "CB-1", wkt!(POINT(10. 10.)).into(), &[]),
            feature(
                Layer::CatchBasins,
                "CB-NEVER",
                wkt!(POINT(20. 10.)).into(),
                &[],
            ),
        ],
    );
    l.insert(
        Layer::Smps,
        vec![
            feature(
                Layer::Smps,
                "SMP-POND",
                wkt!(POINT(30. 10.)).into(),
                &[
                    ("practice_type", Value::Text("wet pond".into())),
                    ("structural", Value::Bool(true)),
                ],
            ),
            feature(
                Layer::Smps,
                "SMP-GARDEN",
                wkt!(POINT(40. 10.)).into(),
                &[
                    ("practice_type", Value::Text("rain garden".into())),
                    ("structural", Value::Bool(false)),
                ],
            ),
        ],
    );
    l.insert(
        Layer::Inspections,
        vec![
            inspection(
                "i1",
                "CB-1",
                "2026-09-01",
                "catch_basin_cleaning",
                "DPW crew",
            ),
            inspection("i2", "SMP-POND", "2026-06-01", "smp_maintenance", "SMO"),
            inspection("i3", "SMP-GARDEN", "2026-06-01", "smp_maintenance", "SMO"),
        ],
    );
    Snapshot::from_features(meta("north-castle-ny"), l)
}

fn due_ids(ask: &Ask<'_>, as_of: &str) -> Vec<(String, String)> {
    let a = inspections_due(
        ask,
        &InspectionsDueParams {
            as_of: Some(as_of.into()),
            within_days: Some(0),
            ..Default::default()
        },
    )
    .unwrap();
    let mut v: Vec<(String, String)> = a
        .items
        .iter()
        .filter(|i| i.standing.is_overdue())
        .map(|i| (i.id.clone(), i.requirement.by.as_str().to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn a_structural_smp_owes_an_engineers_inspection_of_its_own() {
    let snap = town();
    let profile = Profile::builtin("north-castle-ny").unwrap();
    let ask = Ask::new(&snap, &profile);
    let a = inspections_due(
        &ask,
        &InspectionsDueParams {
            as_of: Some("2026-12-01".into()),
            kind: vec!["smp".into()],
            ..Default::default()
        },
    )
    .unwrap();
    let pe: Vec<_> = a
        .items
        .iter()
        .filter(|i| i.requirement.by == Inspector::ProfessionalEngineer)
        .collect();
    assert_eq!(pe.len(), 1, "{:#?}", a.items);
    assert_eq!(pe[0].id, "SMP-POND");
    assert_eq!(pe[0].standing, Standing::NeverInspected);
    assert!(pe[0].requirement.citation.contains("§ 267-7A(6)"));
    assert!(pe[0]
        .reason
        .starts_with("never inspected by a professional engineer: due now"));
    // The Town's routine inspection of the pond is not due (the default's year).
    let routine = a
        .items
        .iter()
        .find(|i| i.id == "SMP-POND" && i.requirement.by == Inspector::Anyone);
    assert!(routine.is_none(), "not due within 30 days: {routine:?}");
    // An engineer's inspection meets it.
    let snap = snap.with_upserts(
        Layer::Inspections,
        vec![inspection(
            "i4",
            "SMP-POND",
            "2026-11-20",
            "smp_maintenance",
            "A. Jones, P.E.",
        )],
    );
    let ask = Ask::new(&snap, &profile);
    assert!(!due_ids(&ask, "2026-12-01")
        .iter()
        .any(|(id, by)| id == "SMP-POND" && by == "professional_engineer"));
}

#[test]
fn never_inspected_is_due_now_and_said_so() {
    let snap = town();
    let profile = Profile::builtin("windsor-ct").unwrap();
    let ask = Ask::new(&snap, &profile);
    let a = inspections_due(
        &ask,
        &InspectionsDueParams {
            as_of: Some("2026-12-01".into()),
            ..Default::default()
        },
    )
    .unwrap();
    let never = a.items.iter().find(|i| i.id == "CB-NEVER").unwrap();
    assert_eq!(never.standing, Standing::NeverInspected);
    assert_eq!(never.next_due, None);
    assert!(never.reason.starts_with("never inspected: due now"));
    assert_eq!(a.schedule.default_reading, Some(DEFAULT_READING));
}

#[rstest]
#[case::default_profile("windsor-ct", false)]
#[case::north_castle("north-castle-ny", false)]
#[case::catch_basins_every_90_days("windsor-ct", true)]
fn the_list_the_map_and_the_watershed_list_agree(#[case] id: &str, #[case] ninety: bool) {
    let snap = town();
    let mut profile = Profile::builtin(id).unwrap();
    if ninety {
        profile.schedules.items = vec![item("catch_basin", None, 90, IntervalUnit::Days)];
    }
    let today = chrono::Local::now().date_naive();
    let ask = Ask::new(&snap, &profile);
    let listed: Vec<String> = {
        let mut v: Vec<String> = due_ids(&ask, &today.to_string())
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        v.dedup();
        v
    };
    // The map's `overdue`, property by property.
    let ctx = ms4::tiles::props::Context {
        snap: &snap,
        profile: &profile,
        derived: None,
        flows: None,
        today,
        land_use: Default::default(),
    };
    let mut mapped = Vec::new();
    for layer in [Layer::CatchBasins, Layer::Smps] {
        let src = ms4::tiles::props::Source::of(layer, "overdue");
        for f in &snap.layer(layer).features {
            if ms4::tiles::props::prop(src, f, &ctx) == Some(ms4::tiles::props::Prop::Bool(true)) {
                mapped.push(f.id.clone());
            }
        }
    }
    mapped.sort();
    assert_eq!(listed, mapped);
    // The watershed list of a polygon around them all.
    let area =
        geo_types::MultiPolygon(vec![wkt!(POLYGON((0. 0.,100. 0.,100. 100.,0. 100.,0. 0.)))]);
    let w = ms4::answer::watershed_facilities::watershed_facilities(
        &ask,
        &ms4::answer::watershed_facilities::WatershedFacilitiesParams {
            kinds: vec!["catch_basin".into(), "smp".into()],
            ..Default::default()
        },
        Some(area),
    )
    .unwrap();
    let mut ranked: Vec<String> = w
        .list
        .facilities
        .iter()
        .filter(|f| f.due)
        .map(|f| f.id.clone())
        .collect();
    ranked.sort();
    assert_eq!(listed, ranked);
    // 90 days puts CB-1 (inspected 2026-09-01) past its day by 2026-12-01, the default
    // does not.
    let on_dec_first = due_ids(&ask, "2026-12-01");
    assert_eq!(
        on_dec_first.iter().any(|(id, _)| id == "CB-1"),
        ninety,
        "{on_dec_first:?}"
    );
    let schedule = Schedule::with_priorities(&snap, &profile, None);
    let cb1 = snap.layer(Layer::CatchBasins).get("CB-1").unwrap();
    assert_eq!(
        schedule.overdue(Layer::CatchBasins, cb1, day("2026-12-01")),
        ninety
    );
}

fn case(id: &str, opened: &str, origin: &str, actions: serde_json::Value) -> Feature {
    let c: ms4::idde::case::Case = serde_json::from_value(serde_json::json!({
        "case_id": id,
        "opened_on": opened,
        "origin": origin,
        "status": "open",
        "reported_by": null, "opened_by": null, "description": null, "asset_id": null,
        "inspection_id": null, "connection_id": null, "parcel_id": null, "closed_on": null,
        "closure": null, "closure_notes": null, "referred_to": null,
        "candidates": [],
        "actions": actions,
    }))
    .unwrap();
    c.to_feature()
}

#[test]
fn calendar_items_are_due_done_with_their_record_or_overdue() {
    let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
    l.insert(
        Layer::Cases,
        vec![
            // Documented on day 9: done, with the action as evidence.
            case(
                "CASE-2026-0001",
                "2026-03-01",
                "complaint",
                serde_json::json!([{"kind": "site_visit", "on": "2026-03-10", "by": "Stormwater Management Officer"}]),
            ),
            // Nothing logged in 30 days: overdue.
            case("CASE-2026-0002", "2026-04-01", "hotline", serde_json::json!([])),
            // Opened five days before the day asked: due.
            case("CASE-2026-0003", "2026-05-27", "complaint", serde_json::json!([])),
            // A screening's case is not a report: not listed.
            case("CASE-2026-0004", "2026-04-01", "screening", serde_json::json!([])),
        ],
    );
    let snap = Snapshot::from_features(meta("north-castle-ny"), l);
    let profile = Profile::builtin("north-castle-ny").unwrap();
    let a = calendar(
        &Ask::new(&snap, &profile),
        &CalendarParams {
            as_of: Some("2026-06-01".into()),
            within_days: None,
        },
    )
    .unwrap();
    let of = |item: &str, case: Option<&str>| {
        a.entries
            .iter()
            .filter(|e| e.item == item && e.case_id.as_deref() == case)
            .collect::<Vec<_>>()
    };
    let doc = "illicit_discharge_report_documentation";
    let one = of(doc, Some("CASE-2026-0001"));
    assert_eq!(one[0].status, EntryStatus::Done);
    let ev = one[0].evidence.as_ref().unwrap();
    assert_eq!(
        (ev.on, ev.record.as_str()),
        (day("2026-03-10"), "site_visit logged on the case")
    );
    assert_eq!(
        of(doc, Some("CASE-2026-0002"))[0].status,
        EntryStatus::Overdue
    );
    assert_eq!(of(doc, Some("CASE-2026-0002"))[0].due_on, day("2026-05-01"));
    assert_eq!(of(doc, Some("CASE-2026-0003"))[0].status, EntryStatus::Due);
    assert!(of(doc, Some("CASE-2026-0004")).is_empty());
    // The annual report: 1 April 2026 past with no record the registry holds, 1 April
    // 2027 upcoming; the interim certification due 3 July 2026 (within 30 days? no).
    let report = of("annual_report", None);
    let days: Vec<(NaiveDate, EntryStatus)> = report.iter().map(|e| (e.due_on, e.status)).collect();
    assert_eq!(
        days,
        [
            (day("2026-04-01"), EntryStatus::NotRecorded),
            (day("2027-04-01"), EntryStatus::Upcoming)
        ]
    );
    let interim: Vec<NaiveDate> = of("interim_progress_certification", None)
        .iter()
        .map(|e| e.due_on)
        .collect();
    assert_eq!(interim, [day("2026-01-03"), day("2026-07-03")]);
    assert!(a
        .open_facts
        .iter()
        .any(|f| f.contains("mapping_phase_1") && f.contains("profile's reading")));
}

#[test]
fn a_profile_without_a_calendar_computes_none_and_says_so() {
    let snap = town();
    let profile = Profile::builtin("windsor-ct").unwrap();
    let a = calendar(&Ask::new(&snap, &profile), &CalendarParams::default()).unwrap();
    assert!(a.entries.is_empty());
    assert!(a.note.as_deref().unwrap().contains("has no [calendar]"));
}

/// The ids an inspections-due JSON answer lists as never inspected or overdue, with who
/// must inspect.
fn overdue_in(json: &serde_json::Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| matches!(i["standing"].as_str(), Some("never_inspected" | "overdue")))
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["requirement"]["by"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn the_cli_the_api_and_the_map_give_the_same_overdue_assets_on_the_demo() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let today = chrono::Local::now().date_naive().to_string();
    let cli: serde_json::Value = serde_json::from_str(&run_ok(
        &reg.url,
        &["inspections", "due", "--as-of", &today, "--format", "json"],
    ))
    .unwrap();
    let app = App::public(&reg.store).await;
    let r = app
        .get(format!("/api/inspections/due?as_of={today}"))
        .send()
        .await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let api: serde_json::Value = r.json();
    assert_eq!(api["items"], cli["items"]);
    assert_eq!(api["summary"], cli["summary"]);
    let listed = overdue_in(&cli);
    assert!(!listed.is_empty(), "the demo has assets never inspected");
    // The map's `overdue`: every facility layer's features, property by property.
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let profile = Profile::builtin("north-castle-ny").unwrap();
    let ctx = ms4::tiles::props::Context {
        snap: &snap,
        profile: &profile,
        derived: None,
        flows: None,
        today: today.parse().unwrap(),
        land_use: Default::default(),
    };
    let mut mapped = Vec::new();
    for layer in ms4::spatial::query::FACILITY_LAYERS {
        let src = ms4::tiles::props::Source::of(layer, "overdue");
        for f in &snap.layer(layer).features {
            if ms4::tiles::props::prop(src, f, &ctx) == Some(ms4::tiles::props::Prop::Bool(true)) {
                mapped.push(f.id.clone());
            }
        }
    }
    mapped.sort();
    let mut ids: Vec<String> = listed.iter().map(|(id, _)| id.clone()).collect();
    ids.dedup();
    assert_eq!(ids, mapped);
    // A bad day is the parameter's error on both doors.
    let r = app.get("/api/inspections/due?as_of=tomorrow").send().await;
    assert_eq!(r.status(), 400, "{}", r.text());
    assert!(r.text().contains("as_of"), "{}", r.text());
    let bad = run(&reg.url, &["inspections", "due", "--kind", "hydrant"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--kind"));
    // The calendar, both doors.
    let cli: serde_json::Value = serde_json::from_str(&run_ok(
        &reg.url,
        &["calendar", "--as-of", "2026-06-01", "--format", "json"],
    ))
    .unwrap();
    let r = app.get("/api/calendar?as_of=2026-06-01").send().await;
    assert_eq!(r.status(), 200, "{}", r.text());
    let api: serde_json::Value = r.json();
    assert_eq!(api["entries"], cli["entries"]);
    assert!(cli["entries"]
        .as_array()
        .unwrap()
        .iter()
        .any(|e| e["item"] == "mapping_phase_1" && e["due_on"] == "2027-01-03"));
    let table = run_ok(&reg.url, &["calendar", "--as-of", "2026-06-01"]);
    assert!(table.contains("open fact: "), "{table}");
}

#[tokio::test]
async fn outfalls_fall_due_by_their_priority_in_the_list_and_on_the_map() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let mut profile = Profile::builtin("north-castle-ny").unwrap();
    profile.schedules.items = vec![
        item("outfall", Some(Priority::High), 6, IntervalUnit::Months),
        item("outfall", Some(Priority::Medium), 1, IntervalUnit::Years),
        item("outfall", Some(Priority::Low), 2, IntervalUnit::Years),
    ];
    // Every outfall screened 200 days ago: past six months, within a year.
    let today = chrono::Local::now().date_naive();
    let then = (today - chrono::Days::new(200)).to_string();
    let screenings: Vec<Feature> = snap
        .layer(Layer::Outfalls)
        .features
        .iter()
        .map(|f| {
            inspection(
                &format!("T-{}", f.id),
                &f.id,
                &then,
                "dry_weather_screening",
                "SMO",
            )
        })
        .collect();
    let snap = snap.with_upserts(Layer::Inspections, screenings);
    let ask = Ask::new(&snap, &profile);
    let a = inspections_due(
        &ask,
        &InspectionsDueParams {
            as_of: Some(today.to_string()),
            kind: vec!["outfall".into()],
            within_days: Some(0),
            all: true,
        },
    )
    .unwrap();
    assert!(a.schedule.priority_rule.is_some());
    let mut high = Vec::new();
    for i in &a.items {
        let p = i.priority.expect("every outfall has a priority");
        assert!(!i.requirement.default_reading, "{i:?}");
        assert_eq!(i.standing.is_overdue(), p == Priority::High, "{i:?}");
        if p == Priority::High {
            high.push(i.id.clone());
        }
    }
    assert!(!high.is_empty(), "the demo has high-priority outfalls");
    assert!(high.len() < a.items.len(), "and others");
    high.sort();
    // The map reads the priorities from the facts derived once per snapshot.
    let spec = ms4::tiles::spec::TileLayer::by_name("outfalls").unwrap();
    assert!(spec.needs_derived(&profile));
    let net = || -> anyhow::Result<std::sync::Arc<ms4::spatial::network::Network>> {
        Ok(std::sync::Arc::new(ms4::answer::build_network(
            &snap, &profile,
        )))
    };
    let derived = ms4::tiles::props::Derived::of(&snap, &profile, &net).unwrap();
    let ctx = ms4::tiles::props::Context {
        snap: &snap,
        profile: &profile,
        derived: Some(&derived),
        flows: None,
        today,
        land_use: Default::default(),
    };
    let src = ms4::tiles::props::Source::of(Layer::Outfalls, "overdue");
    let mut mapped: Vec<String> = snap
        .layer(Layer::Outfalls)
        .features
        .iter()
        .filter(|f| {
            ms4::tiles::props::prop(src, f, &ctx) == Some(ms4::tiles::props::Prop::Bool(true))
        })
        .map(|f| f.id.clone())
        .collect();
    mapped.sort();
    assert_eq!(mapped, high);
}

/// A day judged in the past is judged without the inspections made after it: CB-1 was
/// cleaned on 1 September, so on 15 August it had never been inspected (and was overdue),
/// and a year on from its cleaning it is overdue again under the default reading.
#[rstest]
#[case::before_its_cleaning("2026-08-15", true, None)]
#[case::after_it("2026-12-01", false, Some("2026-09-01"))]
#[case::a_year_on("2027-09-02", true, Some("2026-09-01"))]
fn a_past_day_is_judged_on_the_inspections_made_by_then(
    #[case] on: &str,
    #[case] overdue: bool,
    #[case] last: Option<&str>,
) {
    let snap = town();
    let profile = Profile::builtin("windsor-ct").unwrap();
    let ask = Ask::new(&snap, &profile);
    let a = inspections_due(
        &ask,
        &InspectionsDueParams {
            as_of: Some(on.into()),
            kind: vec!["catch_basin".into()],
            within_days: Some(0),
            all: true,
        },
    )
    .unwrap();
    let cb1 = a.items.iter().find(|i| i.id == "CB-1").unwrap();
    assert_eq!(cb1.last_inspection, last.map(day), "{cb1:?}");
    assert_eq!(cb1.standing.is_overdue(), overdue, "{cb1:?}");
    let schedule = Schedule::with_priorities(&snap, &profile, None);
    let f = snap.layer(Layer::CatchBasins).get("CB-1").unwrap();
    assert_eq!(schedule.overdue(Layer::CatchBasins, f, day(on)), overdue);
}

/// The annual report counts the outfalls, SMPs and catch basins the schedule finds
/// overdue, as the list does: on the year's last day, or on the day asked for a year
/// not yet over; the API and the CLI alike.
#[tokio::test]
async fn the_annual_report_counts_the_assets_the_list_finds_overdue() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let app = App::public(&reg.store).await;
    // North Castle's year runs from 3 January to 2 January.
    for (year, as_of, judged_on) in [
        (2025, "2026-06-01", "2026-01-02"),
        (2026, "2026-06-01", "2026-06-01"),
    ] {
        let r = app
            .get(format!("/api/report?year={year}&as_of={as_of}"))
            .send()
            .await;
        assert_eq!(r.status(), 200, "{}", r.text());
        let report: serde_json::Value = r.json();
        let r = app
            .get(format!("/api/inspections/due?as_of={judged_on}&all=true"))
            .send()
            .await;
        assert_eq!(r.status(), 200, "{}", r.text());
        let due: serde_json::Value = r.json();
        let mut seen = 0;
        for (measure, asset) in [
            ("outfalls_overdue", "outfall"),
            ("smps_overdue", "smp"),
            ("catch_basins_overdue", "catch_basin"),
        ] {
            let c = report["counts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["measure"] == measure)
                .unwrap_or_else(|| panic!("{measure} is counted: {report}"));
            let mut listed: Vec<String> = due["items"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|i| i["asset"] == asset)
                .filter(|i| matches!(i["standing"].as_str(), Some("never_inspected" | "overdue")))
                .map(|i| i["id"].as_str().unwrap().to_string())
                .collect();
            listed.sort();
            listed.dedup();
            let counted: Vec<String> = serde_json::from_value(c["records"].clone()).unwrap();
            assert_eq!(counted, listed, "{measure} on {judged_on}");
            assert_eq!(c["count"], listed.len());
            assert_eq!(c["period"]["to"], judged_on, "{c}");
            seen += listed.len();
        }
        assert!(seen > 0, "the demo has assets overdue on {judged_on}");
    }
    let cli: serde_json::Value = serde_json::from_str(&run_ok(
        &reg.url,
        &[
            "report",
            "--year",
            "2025",
            "--as-of",
            "2026-06-01",
            "--format",
            "json",
        ],
    ))
    .unwrap();
    let api: serde_json::Value = app
        .get("/api/report?year=2025&as_of=2026-06-01")
        .send()
        .await
        .json();
    assert_eq!(cli["counts"], api["counts"]);
}

/// An asset recorded removed or proposed is held to no inspection, in the list and on
/// the map alike; a status not read is held (erring toward an inspection).
#[rstest]
#[case::abandoned("abandoned", false)]
#[case::proposed("Proposed", false)]
#[case::active("active", true)]
#[case::unread("out of reach", true)]
fn only_an_asset_that_stands_is_held_to_an_inspection(#[case] status: &str, #[case] held: bool) {
    let cb = feature(
        Layer::CatchBasins,
        "CB-X",
        wkt!(POINT(50. 10.)).into(),
        &[("status", Value::Text(status.into()))],
    );
    let snap = town().with_upserts(Layer::CatchBasins, vec![cb]);
    let profile = Profile::builtin("windsor-ct").unwrap();
    let listed = due_ids(&Ask::new(&snap, &profile), "2026-12-01");
    assert_eq!(
        listed.iter().any(|(id, _)| id == "CB-X"),
        held,
        "{listed:?}"
    );
    let schedule = Schedule::with_priorities(&snap, &profile, None);
    let f = snap.layer(Layer::CatchBasins).get("CB-X").unwrap();
    assert_eq!(
        schedule.overdue(Layer::CatchBasins, f, day("2026-12-01")),
        held
    );
}
