//! An inspection written back whole: `GET /collections/inspections/items/{id}` gives its
//! version as an `ETag`, and `POST /api/inspections` sent with `If-Match` writes only over
//! that version. Two devices that read the same inspection and send it back edited: the
//! first lands, the second is a 412 and writes nothing (without `If-Match` the last
//! write wins, as before).

use super::*;

fn screening(notes: &str) -> Value {
    json!({"asset_id": "OF-000001", "inspected_on": "2026-04-01",
        "kind": "dry_weather_screening", "result": "needs_follow_up", "notes": notes,
        "screening": {"flow": "trickle", "hours_since_rain": 72}})
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn an_inspection_sent_back_over_a_stale_version_is_412_and_changes_nothing(
    #[case] kind: &str,
) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "windsor-ct").await;
    let tok = token(&reg.url, "inspector", "Ines Inspector", &[]);
    let app = App::new(&reg.store).await.with_bearer(&tok);
    let first = app
        .post("/api/inspections")
        .json(&screening("first"))
        .send()
        .await;
    assert_eq!(first.status(), 201, "{}", first.text());
    let id = first.json::<Value>()["inspection"]["inspection_id"]
        .as_str()
        .unwrap()
        .to_string();
    let item = format!("/collections/inspections/items/{id}");
    let read = app.get(&item).send().await;
    assert_eq!(read.status(), 200, "{}", read.text());
    let tag = read.headers()["etag"].to_str().unwrap().to_string();
    assert!(
        tag.starts_with('"') && tag.ends_with('"'),
        "a strong tag: {tag}"
    );

    // Device A sends its edit with the version it read, naming the inspection: it
    // lands, with the new version.
    let edit = |notes: &str| {
        let mut e = screening(notes);
        e["inspection_id"] = json!(id);
        e
    };
    let a = app
        .post("/api/inspections")
        .header("if-match", &tag)
        .json(&edit("edited on device A"))
        .send()
        .await;
    assert_eq!(a.status(), 200, "{}", a.text());
    let new_tag = a.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(new_tag, tag);
    assert_eq!(
        app.get(&item).send().await.headers()["etag"]
            .to_str()
            .unwrap(),
        new_tag,
        "the version answered is the one a read gives"
    );

    // Device B read the same first version: its edit is refused, nothing written.
    let b = app
        .post("/api/inspections")
        .header("if-match", &tag)
        .json(&edit("edited on device B"))
        .send()
        .await;
    assert_eq!(b.status(), 412, "{}", b.text());
    let now = app.get(&item).send().await;
    assert_eq!(
        now.json::<Value>()["properties"]["notes"],
        "edited on device A"
    );
    let audit = reg
        .store
        .audit(Some(Layer::Inspections), 100)
        .await
        .unwrap();
    assert_eq!(
        audit.iter().filter(|e| e.action == "update").count(),
        1,
        "one update, device A's"
    );

    // If-Match on an inspection never stored matches no version of it.
    let mut other = screening("never stored");
    other["inspected_on"] = json!("2026-04-02");
    let c = app
        .post("/api/inspections")
        .header("if-match", &new_tag)
        .json(&other)
        .send()
        .await;
    assert_eq!(c.status(), 412, "{}", c.text());
    // A tag that is no entity tag names where to get one.
    let d = app
        .post("/api/inspections")
        .header("if-match", "abc")
        .json(&screening("x"))
        .send()
        .await;
    assert_eq!(d.status(), 400, "{}", d.text());
    assert!(
        d.text().contains("/collections/inspections/items/{id}"),
        "{}",
        d.text()
    );
}

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn two_inspections_of_one_facility_kind_and_day_are_two_records(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "windsor-ct").await;
    let tok = token(&reg.url, "inspector", "Ines Inspector", &[]);
    let app = App::new(&reg.store).await.with_bearer(&tok);
    let mut ids = Vec::new();
    for notes in ["morning", "afternoon"] {
        let r = app
            .post("/api/inspections")
            .json(&screening(notes))
            .send()
            .await;
        assert_eq!(r.status(), 201, "{}", r.text());
        ids.push(r.json::<Value>()["inspection"]["inspection_id"].clone());
    }
    assert_ne!(ids[0], ids[1], "each its own id");
    let list: Value = app
        .get("/api/assets/OF-000001/inspections")
        .send()
        .await
        .json();
    let mut notes: Vec<&str> = list["inspections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["inspected_on"] == "2026-04-01")
        .map(|i| i["notes"].as_str().unwrap())
        .collect();
    notes.sort();
    assert_eq!(notes, ["afternoon", "morning"], "{list}");

    // A retry with the same key is still the first answer, not a third record.
    let keyed = || {
        app.post("/api/inspections")
            .header("idempotency-key", "phone-1-0001")
            .json(&screening("keyed"))
    };
    let first = keyed().send().await;
    assert_eq!(first.status(), 201, "{}", first.text());
    let again = keyed().send().await;
    assert_eq!(again.status(), 201, "{}", again.text());
    let (first, again): (Value, Value) = (first.json(), again.json());
    assert_eq!(again["replayed"], true, "{again}");
    assert_eq!(
        again["inspection"]["inspection_id"],
        first["inspection"]["inspection_id"]
    );
    let list: Value = app
        .get("/api/assets/OF-000001/inspections")
        .send()
        .await
        .json();
    let on_the_day = list["inspections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["inspected_on"] == "2026-04-01")
        .count();
    assert_eq!(on_the_day, 3, "{list}");

    // Naming an inspection without If-Match writes nothing over it.
    let mut over = screening("over");
    over["inspection_id"] = ids[0].clone();
    let r = app.post("/api/inspections").json(&over).send().await;
    assert_eq!(r.status(), 400, "{}", r.text());
    assert_eq!(r.json::<Value>()["field"], "inspection_id");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_catch_basin_checklist_is_typed_and_a_negative_depth_refused() {
    let reg = demo_registry("sqlite", "windsor-ct").await;
    let tok = token(&reg.url, "inspector", "Ines Inspector", &[]);
    let app = App::new(&reg.store).await.with_bearer(&tok);
    let cb = reg
        .store
        .features(Layer::CatchBasins)
        .await
        .unwrap()
        .into_iter()
        .next()
        .unwrap()
        .id;
    let body = |depth: f64| {
        json!({"asset_id": cb, "inspected_on": "2026-04-01", "kind": "catch_basin_cleaning",
            "result": "pass", "catch_basin": {"sump_debris_depth_in": depth, "cleaned": true}})
    };
    let r = app.post("/api/inspections").json(&body(-3.0)).send().await;
    assert_eq!(r.status(), 400, "{}", r.text());
    assert_eq!(
        r.json::<Value>()["field"],
        "catch_basin.sump_debris_depth_in"
    );
    let r = app.post("/api/inspections").json(&body(6.0)).send().await;
    assert_eq!(r.status(), 201, "{}", r.text());
    let v: Value = r.json();
    assert_eq!(
        v["inspection"]["findings"],
        json!({"sump_debris_depth_in": 6.0, "cleaned": true, "grate_damaged": false, "oil_or_odour": false}),
        "{v}"
    );
    // The checklist is the catch basin's: a screening has none.
    let mut wrong = body(6.0);
    wrong["kind"] = json!("dry_weather_screening");
    let r = app.post("/api/inspections").json(&wrong).send().await;
    assert_eq!(r.status(), 400, "{}", r.text());
}
