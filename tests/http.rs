//! The HTTP service end to end, on both stores: the real `ms4 serve` on 127.0.0.1:0,
//! driven over HTTP. Roles (every write route with no token, a revoked token, an expired
//! one and each role), OGC API Features paging, bbox and CRS, inspections feeding the
//! answers, uploads in one transaction, limits and errors, the API definition.

mod common;

use common::*;
use ms4::domain::Layer;
use serde_json::{json, Value};

async fn send(req: reqwest::RequestBuilder) -> (u16, Value) {
    let r = req.send().await.unwrap();
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    let v = serde_json::from_str(&text).unwrap_or_else(|_| panic!("{status}: not JSON: {text}"));
    (status, v)
}

fn bearer(req: reqwest::RequestBuilder, token: Option<&str>) -> reqwest::RequestBuilder {
    match token {
        Some(t) => req.bearer_auth(t),
        None => req,
    }
}

/// Three new catch basins inside the demo town, as RFC 7946 GeoJSON.
fn new_catch_basins() -> String {
    json!({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"asset_id": "CB-UP-1", "status": "active"},
         "geometry": {"type": "Point", "coordinates": [-73.8530, 41.2200]}},
        {"type": "Feature", "properties": {"asset_id": "CB-UP-2", "status": "active"},
         "geometry": {"type": "Point", "coordinates": [-73.8531, 41.2201]}},
        {"type": "Feature", "properties": {"asset_id": "CB-UP-3", "status": "abandoned"},
         "geometry": {"type": "Point", "coordinates": [-73.8532, 41.2202]}},
    ]})
    .to_string()
}

fn upload_form(name: &str, bytes: Vec<u8>, extra: &[(&str, &str)]) -> reqwest::multipart::Form {
    let mut form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
    );
    for (k, v) in extra {
        form = form.text(k.to_string(), v.to_string());
    }
    form
}

/// Every write route answers 401 without a token or with a revoked or expired one, 403 to
/// the wrong role, and works for the right role and for admin; reads need a token.
#[tokio::test]
async fn the_role_matrix_holds_for_every_write_route() {
    for kind in kinds() {
        let reg = demo_registry(kind, "north-castle-ny").await;
        let roles = ["analyst", "inspector", "planner", "admin"];
        let tokens: Vec<(&str, String)> = roles
            .iter()
            .map(|r| (*r, token(&reg.url, r, &format!("{r} person"), &[])))
            .collect();
        let revoked = token(&reg.url, "admin", "gone", &["--format", "json"]);
        let revoked: Value = serde_json::from_str(&revoked).unwrap();
        run_ok(
            &reg.url,
            &["token", "revoke", &revoked["token_id"].to_string()],
        );
        let revoked = revoked["token"].as_str().unwrap().to_string();
        let expired = token(&reg.url, "admin", "late", &["--expires", "1h"]);
        // Expire it by hand: the CLI refuses an expiry in the past.
        let h = ms4::auth::hash(&expired);
        match kind {
            "sqlite" => {
                let pool = sqlx::SqlitePool::connect(&reg.url).await.unwrap();
                sqlx::query(
                    "UPDATE ms4_tokens SET expires_at = '2020-01-01T00:00:00+00:00' WHERE hash = ?",
                )
                .bind(&h)
                .execute(&pool)
                .await
                .unwrap();
            }
            _ => {
                let pool = sqlx::PgPool::connect(&reg.url).await.unwrap();
                sqlx::query("UPDATE ms4_tokens SET expires_at = '2020-01-01' WHERE hash = $1")
                    .bind(&h)
                    .execute(&pool)
                    .await
                    .unwrap();
            }
        }
        let server = serve(&reg.url, &[]);
        let c = reqwest::Client::new();
        let b = &server.base;

        // Reads: any valid token, none is 401.
        let (s, e) = send(c.get(format!("{b}/collections"))).await;
        assert_eq!(s, 401, "{e}");
        assert!(e["error"].as_str().unwrap().contains("token"), "{e}");
        for (role, t) in &tokens {
            let (s, _) = send(c.get(format!("{b}/collections")).bearer_auth(t)).await;
            assert_eq!(s, 200, "{role} reads");
        }
        let (s, _) = send(c.get(format!("{b}/collections")).bearer_auth(&revoked)).await;
        assert_eq!(s, 401, "a revoked token does not read");

        // Each write route, the role it needs, and a request that succeeds for it.
        type Make = Box<dyn Fn(&reqwest::Client, &str, usize) -> reqwest::RequestBuilder>;
        let routes: Vec<(&str, &str, Make)> = vec![
            (
                "POST /api/inspections",
                "inspector",
                Box::new(|c, b, n| {
                    c.post(format!("{b}/api/inspections")).json(&json!({
                    "asset_id": "OF-000001", "inspected_on": format!("2026-01-{:02}", n + 1),
                    "kind": "dry_weather_screening", "result": "pass"}))
                }),
            ),
            (
                "POST /api/layers/catch_basins/import",
                "analyst",
                Box::new(|c, b, _| {
                    c.post(format!("{b}/api/layers/catch_basins/import"))
                        .multipart(upload_form(
                            "new.geojson",
                            new_catch_basins().into_bytes(),
                            &[("dry_run", "true")],
                        ))
                }),
            ),
            (
                "POST /api/tokens",
                "admin",
                Box::new(|c, b, n| {
                    c.post(format!("{b}/api/tokens"))
                        .json(&json!({"role": "planner", "subject": format!("made {n}")}))
                }),
            ),
        ];
        for (name, needed, make) in &routes {
            let (s, e) = send(make(&c, b, 0)).await;
            assert_eq!(s, 401, "{name} without a token: {e}");
            let (s, e) = send(bearer(make(&c, b, 0), Some(&revoked))).await;
            assert_eq!(s, 401, "{name} with a revoked token: {e}");
            assert!(e["error"].as_str().unwrap().contains("revoked"), "{e}");
            let (s, e) = send(bearer(make(&c, b, 0), Some(&expired))).await;
            assert_eq!(s, 401, "{name} with an expired token: {e}");
            assert!(e["error"].as_str().unwrap().contains("expired"), "{e}");
            for (i, (role, t)) in tokens.iter().enumerate() {
                let (s, e) = send(bearer(make(&c, b, i), Some(t))).await;
                if role == needed || *role == "admin" {
                    assert!(s == 200 || s == 201, "{name} as {role}: {s} {e}");
                } else {
                    assert_eq!(s, 403, "{name} as {role}: {e}");
                    assert!(e["error"].as_str().unwrap().contains(needed), "{e}");
                }
            }
        }
        // Revoking over HTTP: admin only, and the revoked token stops writing at once.
        let list = &tokens[0].1; // an analyst's token
        let (_, made) = send(
            c.post(format!("{b}/api/tokens"))
                .bearer_auth(&tokens[3].1)
                .json(&json!({"role": "inspector", "subject": "short lived"})),
        )
        .await;
        let id = made["token_id"].as_i64().unwrap();
        let fresh = made["token"].as_str().unwrap().to_string();
        let (s, _) = send(c.delete(format!("{b}/api/tokens/{id}")).bearer_auth(list)).await;
        assert_eq!(s, 403);
        let (s, _) = send(c.delete(format!("{b}/api/tokens/{id}"))).await;
        assert_eq!(s, 401);
        let (s, e) = send(
            c.delete(format!("{b}/api/tokens/{id}"))
                .bearer_auth(&tokens[3].1),
        )
        .await;
        assert_eq!(s, 200, "{e}");
        let (s, _) = send(routes[0].2(&c, b, 20).bearer_auth(&fresh)).await;
        assert_eq!(s, 401, "a token revoked over HTTP stops writing at once");

        // Every write is audited under its token's subject.
        let audit = reg.store.audit(Some(Layer::Inspections), 50).await.unwrap();
        assert!(
            audit.iter().any(|a| a.actor == "inspector person"),
            "{audit:?}"
        );
        assert!(audit.iter().any(|a| a.actor == "admin person"), "{audit:?}");
        let all = reg.store.audit(None, 100).await.unwrap();
        assert!(
            all.iter()
                .any(|a| a.action == "token_create" && a.actor == "admin person"),
            "token creation over HTTP is audited under the admin's subject"
        );
        assert!(all
            .iter()
            .any(|a| a.action == "token_revoke" && a.actor == "admin person"));
    }
}

/// OGC API Features: paging by next links covers the layer exactly once; bbox in CRS84
/// and in the registry CRS; crs of the answer; property filters; single items; errors.
#[tokio::test]
async fn features_page_filter_and_reproject() {
    for kind in kinds() {
        let reg = demo_registry(kind, "north-castle-ny").await;
        let stored = reg.store.features(Layer::CatchBasins).await.unwrap();
        let server = serve(&reg.url, &["--public-read"]);
        let c = reqwest::Client::new();
        let b = &server.base;

        let (s, land) = send(c.get(format!("{b}/"))).await;
        assert_eq!(s, 200);
        assert!(land["links"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["rel"] == "service-desc"));
        let (_, conf) = send(c.get(format!("{b}/conformance"))).await;
        assert!(conf["conformsTo"]
            .to_string()
            .contains("ogcapi-features-2/1.0/conf/crs"));
        let (_, cols) = send(c.get(format!("{b}/collections"))).await;
        let cb = cols["collections"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "catch_basins")
            .unwrap()
            .clone();
        assert_eq!(
            cb["storageCrs"],
            "http://www.opengis.net/def/crs/EPSG/0/2260"
        );
        let bbox = &cb["extent"]["spatial"]["bbox"][0];
        assert!(
            bbox[0].as_f64().unwrap() < -73.8 && bbox[1].as_f64().unwrap() > 41.0,
            "{bbox}"
        );

        // Paging: follow next links with a small limit.
        let mut url = format!("{b}/collections/catch_basins/items?limit=7");
        let mut ids = Vec::new();
        loop {
            let (s, page) = send(c.get(&url)).await;
            assert_eq!(s, 200, "{page}");
            assert_eq!(
                page["numberMatched"].as_u64().unwrap() as usize,
                stored.len()
            );
            for f in page["features"].as_array().unwrap() {
                ids.push(f["id"].as_str().unwrap().to_string());
            }
            match page["links"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["rel"] == "next")
            {
                Some(l) => url = l["href"].as_str().unwrap().to_string(),
                None => break,
            }
        }
        let mut want: Vec<String> = stored.iter().map(|f| f.id.clone()).collect();
        want.sort();
        assert_eq!(ids, want, "paging covers every feature once, in id order");

        // A bbox in the registry CRS: exactly the stored points inside it.
        let pts: Vec<(String, f64, f64)> = stored
            .iter()
            .filter_map(|f| match &f.geom {
                Some(geo_types::Geometry::Point(p)) => Some((f.id.clone(), p.x(), p.y())),
                _ => None,
            })
            .collect();
        let (mut xs, mut ys): (Vec<f64>, Vec<f64>) = pts.iter().map(|p| (p.1, p.2)).unzip();
        xs.sort_by(f64::total_cmp);
        ys.sort_by(f64::total_cmp);
        let q = [
            xs[xs.len() / 4],
            ys[ys.len() / 4],
            xs[xs.len() * 3 / 4],
            ys[ys.len() * 3 / 4],
        ];
        let mut inside: Vec<String> = pts
            .iter()
            .filter(|(_, x, y)| *x >= q[0] && *x <= q[2] && *y >= q[1] && *y <= q[3])
            .map(|p| p.0.clone())
            .collect();
        inside.sort();
        assert!(inside.len() > 3 && inside.len() < pts.len());
        let bbox = format!("{},{},{},{}", q[0], q[1], q[2], q[3]);
        let (s, page) = send(
            c.get(format!("{b}/collections/catch_basins/items"))
                .query(&[
                    ("bbox", bbox.as_str()),
                    ("bbox-crs", "http://www.opengis.net/def/crs/EPSG/0/2260"),
                    ("crs", "http://www.opengis.net/def/crs/EPSG/0/2260"),
                    ("limit", "10000"),
                ]),
        )
        .await;
        assert_eq!(s, 200, "{page}");
        let got: Vec<String> = page["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, inside);
        // In the registry CRS, the coordinates are the stored ones.
        let first = &page["features"][0];
        let p = pts.iter().find(|p| p.0 == first["id"]).unwrap();
        assert!((first["geometry"]["coordinates"][0].as_f64().unwrap() - p.1).abs() < 1e-6);
        assert!((first["geometry"]["coordinates"][1].as_f64().unwrap() - p.2).abs() < 1e-6);

        // The same box in CRS84 (its corners reprojected, slightly larger) holds them all.
        let rp = ms4::import::crs::Reprojector::new(2260, 4326).unwrap();
        // Every corner counts: the grid is rotated against the meridians.
        let corners: Vec<(f64, f64)> = [
            (q[0] - 1.0, q[1] - 1.0),
            (q[2] + 1.0, q[1] - 1.0),
            (q[2] + 1.0, q[3] + 1.0),
            (q[0] - 1.0, q[3] + 1.0),
        ]
        .iter()
        .map(|(x, y)| rp.point(*x, *y).unwrap())
        .collect();
        let lon0 = corners.iter().map(|c| c.0).fold(f64::INFINITY, f64::min);
        let lat0 = corners.iter().map(|c| c.1).fold(f64::INFINITY, f64::min);
        let lon1 = corners
            .iter()
            .map(|c| c.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let lat1 = corners
            .iter()
            .map(|c| c.1)
            .fold(f64::NEG_INFINITY, f64::max);
        let bbox84 = format!("{lon0},{lat0},{lon1},{lat1}");
        let r = c
            .get(format!("{b}/collections/catch_basins/items"))
            .query(&[("bbox", bbox84.as_str()), ("limit", "10000")])
            .send()
            .await
            .unwrap();
        assert_eq!(
            r.headers()["content-crs"],
            "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>"
        );
        assert_eq!(r.headers()["content-type"], "application/geo+json");
        let page: Value = r.json().await.unwrap();
        let got84: Vec<&str> = page["features"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["id"].as_str().unwrap())
            .collect();
        for id in &inside {
            assert!(got84.contains(&id.as_str()), "{id} is in the CRS84 box too");
        }
        let lon = page["features"][0]["geometry"]["coordinates"][0]
            .as_f64()
            .unwrap();
        assert!(
            (-74.0..-73.0).contains(&lon),
            "CRS84 is longitude first: {lon}"
        );

        // A property filter, checked against the stored values.
        let abandoned = stored
            .iter()
            .filter(|f| f.get(Layer::CatchBasins, "status").as_str() == Some("active"))
            .count();
        let (_, page) = send(c.get(format!(
            "{b}/collections/catch_basins/items?status=active&limit=10000"
        )))
        .await;
        assert_eq!(page["numberMatched"].as_u64().unwrap() as usize, abandoned);

        // One item, and the errors, each naming what was wrong.
        let (s, one) = send(c.get(format!("{b}/collections/catch_basins/items/{}", want[0]))).await;
        assert_eq!(s, 200);
        assert_eq!(one["id"], want[0].as_str());
        for (path, status, names) in [
            ("/collections/catch_basins/items/NOPE", 404, "NOPE"),
            ("/collections/sewers/items", 404, "sewers"),
            ("/collections/catch_basins/items?bbox=1,2,3", 400, "bbox"),
            ("/collections/catch_basins/items?limit=0", 400, "limit"),
            ("/collections/catch_basins/items?crs=EPSG:3857", 400, "crs"),
            (
                "/collections/catch_basins/items?bbox=0,0,1,1&bbox-crs=EPSG:4269",
                400,
                "bbox-crs",
            ),
            ("/collections/catch_basins/items?colour=red", 400, "colour"),
            ("/no/such/route", 404, "/no/such/route"),
        ] {
            let (s, e) = send(c.get(format!("{b}{path}"))).await;
            assert_eq!(s, status, "{path}: {e}");
            assert!(e["error"].as_str().unwrap().contains(names), "{path}: {e}");
        }
    }
}

/// An inspection recorded over HTTP shows as the asset's last inspection in the nearby
/// answer and in the lists; bad inspections are 400s naming the field.
#[tokio::test]
async fn inspections_feed_the_answers() {
    for kind in kinds() {
        let reg = demo_registry(kind, "north-castle-ny").await;
        let t = token(&reg.url, "inspector", "Ann Field", &[]);
        let server = serve(&reg.url, &[]);
        let c = reqwest::Client::new();
        let b = &server.base;
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
        // The same inspection again updates it rather than adding one.
        let (s, again) = send(
            c.post(format!("{b}/api/inspections"))
                .bearer_auth(&t)
                .json(&body),
        )
        .await;
        assert_eq!(s, 200, "{again}");

        let (s, list) = send(
            c.get(format!("{b}/api/assets/{}/inspections", of.id))
                .bearer_auth(&t),
        )
        .await;
        assert_eq!(s, 200);
        assert_eq!(list["inspections"].as_array().unwrap().len(), 1);
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
        assert_eq!(n, 1, "bad inspections wrote nothing");
    }
}

/// Uploads: GeoJSON and a zipped shapefile; a dry run writes nothing; a bad file is a
/// 422 naming the file and writes nothing; the body limit answers 413.
#[tokio::test]
async fn uploads_report_and_commit_in_one_transaction() {
    for kind in kinds() {
        let reg = demo_registry(kind, "north-castle-ny").await;
        let t = token(&reg.url, "analyst", "Gis Analyst", &[]);
        let server = serve(&reg.url, &["--body-limit", "64KB"]);
        let c = reqwest::Client::new();
        let b = &server.base;
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
            (
                reqwest::multipart::Form::new().text("dry_run", "true"),
                "file",
            ),
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
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 413);
        assert_eq!(
            reg.store.count(Layer::CatchBasins).await.unwrap(),
            before + 3
        );
    }
}

/// The API definition is served and lists the routes with their security.
#[tokio::test]
async fn the_api_definition_is_served() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let server = serve(&reg.url, &[]);
    let (s, doc) =
        send(reqwest::Client::new().get(format!("{}/api/openapi.json", server.base))).await;
    assert_eq!(s, 200);
    assert_eq!(doc["openapi"], "3.0.3");
    assert!(doc["paths"]["/api/inspections"]["post"]["responses"]["403"].is_object());
    let (s, e) =
        send(reqwest::Client::new().delete(format!("{}/api/openapi.json", server.base))).await;
    assert_eq!(s, 405, "{e}");
    assert!(e["error"].as_str().unwrap().contains("DELETE"), "{e}");
    assert!(
        doc["paths"]["/collections/{layer}/items"]["get"]["parameters"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "bbox-crs")
    );
}

/// SIGTERM lets the server finish and exit cleanly.
#[tokio::test]
async fn the_server_shuts_down_gracefully() {
    let reg = demo_registry("sqlite", "north-castle-ny").await;
    let mut server = serve(&reg.url, &["--public-read"]);
    let (s, _) = send(reqwest::Client::new().get(format!("{}/health", server.base))).await;
    assert_eq!(s, 200);
    let pid = server.child.id().to_string();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let t = std::time::Instant::now();
    loop {
        if let Some(st) = server.child.try_wait().unwrap() {
            assert!(st.success(), "exit status {st:?}");
            break;
        }
        assert!(
            t.elapsed().as_secs() < 10,
            "still running 10 s after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
