//! Inspections feeding the answers, and uploads in one transaction.

use super::*;

/// An inspection recorded over HTTP shows as the asset's last inspection in the nearby
/// answer and in the lists; bad inspections are 400s naming the field.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn inspections_feed_the_answers(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let t = token(&reg.url, "inspector", "Ann Field", &[]);
    let app = App::new(&reg.store).await;
    let c = &app;
    let b = &app.base;
    let of = reg.store.features(Layer::Outfalls).await.unwrap()[0].clone();
    let Some(geo_types::Geometry::Point(p)) = of.geom else {
        panic!()
    };

    let body = json!({
        "asset_id": of.id, "inspected_on": "2026-10-15", "kind": "dry_weather_screening",
        "result": "needs_follow_up", "notes": "grey flow in dry weather",
        "screening": {"flow": "trickle", "odour": "sewage", "colour": "grey",
                      "field_tests": {"ph": 6.8, "ammonia_mg_l": 1.4}}});
    let (s, made) = send(
        c.post(format!("{b}/api/inspections"))
            .bearer_auth(&t)
            .json(&body),
    )
    .await;
    assert_eq!(s, 201, "{made}");
    assert_eq!(
        made["inspection"]["inspector"], "Ann Field",
        "defaults to the token's subject"
    );
    assert_eq!(
        made["inspection"]["findings"]["field_tests"]["ammonia_mg_l"],
        1.4
    );
    // A second visit the same day is a record of its own (a retry of the same one is
    // told by its Idempotency-Key, not by its asset, day and kind).
    let (s, again) = send(
        c.post(format!("{b}/api/inspections"))
            .bearer_auth(&t)
            .json(&body),
    )
    .await;
    assert_eq!(s, 201, "{again}");
    assert_ne!(
        again["inspection"]["inspection_id"],
        made["inspection"]["inspection_id"]
    );

    let (s, list) = send(
        c.get(format!("{b}/api/assets/{}/inspections", of.id))
            .bearer_auth(&t),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(list["inspections"].as_array().unwrap().len(), 2);
    assert_eq!(list["last_inspection"], "2026-10-15");

    // The nearby answer at the outfall carries the new date.
    let (s, near) = send(c.get(format!("{b}/api/nearby")).bearer_auth(&t).query(&[
        ("x", p.x().to_string()),
        ("y", p.y().to_string()),
        ("k", "1".into()),
        ("kinds", "outfall".into()),
    ]))
    .await;
    assert_eq!(s, 200, "{near}");
    assert_eq!(near["facilities"][0]["id"], of.id.as_str());
    assert_eq!(near["facilities"][0]["last_inspection"], "2026-10-15");

    // Per watershed: the watershed holding the outfall lists it.
    let ws = reg.store.features(Layer::Watersheds).await.unwrap();
    let holding = ws
        .iter()
        .find(|w| {
            use geo::Intersects;
            w.geom.as_ref().unwrap().intersects(&p)
        })
        .unwrap();
    let (s, wl) = send(
        c.get(format!("{b}/api/watersheds/{}/inspections", holding.id))
            .bearer_auth(&t),
    )
    .await;
    assert_eq!(s, 200, "{wl}");
    assert!(wl["inspections"]
        .as_array()
        .unwrap()
        .iter()
        .any(|i| i["asset_id"] == of.id.as_str()));

    for (bad, field) in [
        (
            json!({"asset_id": "NOPE", "inspected_on": "2026-10-15", "kind": "dry_weather_screening", "result": "pass"}),
            "asset_id",
        ),
        (
            json!({"asset_id": of.id, "inspected_on": "15/10/2026", "kind": "dry_weather_screening", "result": "pass"}),
            "inspected_on",
        ),
        (
            json!({"asset_id": of.id, "inspected_on": "2099-01-01", "kind": "dry_weather_screening", "result": "pass"}),
            "inspected_on",
        ),
        (
            json!({"asset_id": of.id, "inspected_on": "2026-10-15", "kind": "smp_maintenance", "result": "pass"}),
            "asset_id",
        ),
        (
            json!({"asset_id": of.id, "inspected_on": "2026-10-15", "kind": "looked at it", "result": "pass"}),
            "kind",
        ),
        (
            json!({"asset_id": of.id, "inspected_on": "2026-10-15", "kind": "dry_weather_screening", "result": "pass", "screening": {"field_tests": {"ph": 15}}}),
            "screening.field_tests.ph",
        ),
        (
            json!({"asset_id": of.id, "inspected_on": "2026-10-15", "kind": "dry_weather_screening", "result": "pass", "weather": "dry"}),
            "weather",
        ),
    ] {
        let (s, e) = send(
            c.post(format!("{b}/api/inspections"))
                .bearer_auth(&t)
                .json(&bad),
        )
        .await;
        assert_eq!(s, 400, "{bad}: {e}");
        assert!(e["error"].as_str().unwrap().contains(field), "{bad}: {e}");
    }
    let n = reg.store.count(Layer::Inspections).await.unwrap();
    assert_eq!(n, 2, "bad inspections wrote nothing (the two visits stand)");
}

/// Uploads: GeoJSON and a zipped shapefile; a dry run writes nothing; a bad file is a
/// 422 naming the file and writes nothing; the body limit answers 413.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn uploads_report_and_commit_in_one_transaction(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let t = token(&reg.url, "analyst", "Gis Analyst", &[]);
    let app = App::with_config(
        &reg.store,
        ms4::http::ServeConfig {
            body_limit: 64 * 1024,
            ..Default::default()
        },
    )
    .await;
    let c = &app;
    let b = &app.base;
    let before = reg.store.count(Layer::CatchBasins).await.unwrap();
    let url = format!("{b}/api/layers/catch_basins/import");

    let (s, rep) = send(c.post(&url).bearer_auth(&t).multipart(upload_form(
        "new.geojson",
        new_catch_basins().into_bytes(),
        &[("dry_run", "true")],
    )))
    .await;
    assert_eq!(s, 200, "{rep}");
    assert_eq!(rep["imported"], 3, "{rep}");
    assert_eq!(
        reg.store.count(Layer::CatchBasins).await.unwrap(),
        before,
        "a dry run writes nothing"
    );

    // A zipped shapefile made by GDAL from the same features.
    let dir = tempfile::tempdir().unwrap();
    let gj = dir.path().join("new.geojson");
    std::fs::write(&gj, new_catch_basins()).unwrap();
    let zip = dir.path().join("basins.shp.zip");
    let out = std::process::Command::new("ogr2ogr")
        .args([
            "-f",
            "ESRI Shapefile",
            zip.to_str().unwrap(),
            gj.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (s, rep) = send(c.post(&url).bearer_auth(&t).multipart(upload_form(
        "basins.shp.zip",
        std::fs::read(&zip).unwrap(),
        &[],
    )))
    .await;
    assert_eq!(s, 201, "{rep}");
    assert_eq!(rep["imported"], 3, "{rep}");
    assert_eq!(
        rep["source"], "basins.shp.zip",
        "the report names the uploaded file"
    );
    assert_eq!(
        reg.store.count(Layer::CatchBasins).await.unwrap(),
        before + 3
    );
    let audit = reg.store.audit(Some(Layer::CatchBasins), 4).await.unwrap();
    assert!(audit.iter().all(|a| a.actor == "Gis Analyst"), "{audit:?}");
    assert_eq!(audit[0].after.as_ref().unwrap()["source"], "basins.shp.zip");
    // The served layer has them at once.
    let (s, f) = send(
        c.get(format!("{b}/collections/catch_basins/items/CB-UP-2"))
            .bearer_auth(&t),
    )
    .await;
    assert_eq!(s, 200, "{f}");

    // A broken file: 422 naming the file, nothing written.
    let (s, e) = send(c.post(&url).bearer_auth(&t).multipart(upload_form(
        "broken.geojson",
        b"{\"type\": \"FeatureCollection\", \"features\": [".to_vec(),
        &[],
    )))
    .await;
    assert_eq!(s, 422, "{e}");
    assert!(
        e["error"].as_str().unwrap().contains("broken.geojson"),
        "{e}"
    );
    // A mapping to a field the file lacks: 422 naming the field.
    let (s, e) = send(c.post(&url).bearer_auth(&t).multipart(upload_form(
        "new.geojson",
        new_catch_basins().into_bytes(),
        &[("map", "asset_id=FACILITYID")],
    )))
    .await;
    assert!(s == 400 || s == 422, "{s} {e}");
    assert!(e["error"].as_str().unwrap().contains("FACILITYID"), "{e}");
    for (form, names) in [
        (upload_form("x.exe", vec![1, 2, 3], &[]), "file"),
        (Form::new().text("dry_run", "true"), "file"),
        (
            upload_form(
                "new.geojson",
                new_catch_basins().into_bytes(),
                &[("dry_run", "maybe")],
            ),
            "dry_run",
        ),
        (
            upload_form(
                "new.geojson",
                new_catch_basins().into_bytes(),
                &[("s_srs", "EPSG:nope")],
            ),
            "s_srs",
        ),
    ] {
        let (s, e) = send(c.post(&url).bearer_auth(&t).multipart(form)).await;
        assert_eq!(s, 400, "{e}");
        assert!(e["error"].as_str().unwrap().contains(names), "{e}");
    }
    // Over the body limit: 413, nothing written.
    let big = vec![b' '; 100 * 1024];
    let r = c
        .post(&url)
        .bearer_auth(&t)
        .multipart(upload_form("big.geojson", big, &[]))
        .send()
        .await;
    assert_eq!(r.status().as_u16(), 413);
    assert_eq!(
        reg.store.count(Layer::CatchBasins).await.unwrap(),
        before + 3
    );
}
