//! A coalition in one PostgreSQL database and one service: three registries in three
//! schemas, served under `/r/{name}/` by one router in process. Each member's rows,
//! profile, migrations, tokens and change channel stay its own; the joint report adds
//! the members' counts up.
//!
//! PostGIS only (a schema is PostgreSQL's); without `MS4_TEST_PG` the tests say they are
//! skipped, and under CI they fail instead (see `common::pg_base`).

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::*;
use ms4::auth::{NewToken, Role};
use ms4::domain::Layer;
use ms4::import::crs;
use ms4::store::{self, Store, StoreError};
use serde_json::{json, Value};

/// The members: their name in URLs, their schema and their jurisdiction.
const MEMBERS: [(&str, &str, &str); 3] = [
    ("north-castle", "north_castle", "north-castle-ny"),
    ("carmel", "carmel", "carmel-ny"),
    ("windsor", "windsor", "windsor-ct"),
];

/// A fresh database on the test server (dropped at exit), and the URL of a schema in it.
fn schema_url(db: &str, schema: &str) -> String {
    format!("{db}?schema={schema}")
}

/// Imports some of the demo town's layers into a registry (boundary first).
async fn load_demo(store: &Arc<dyn Store>, layers: &[Layer]) {
    for l in layers {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/demo")
            .join(format!("{}.gpkg", l.name()));
        let r = ms4::import::import(store.clone(), ms4::import::ImportOptions::new(*l, file))
            .await
            .unwrap_or_else(|e| panic!("{l}: {e}"));
        assert_eq!(r.rejected, 0, "{l}");
    }
}

/// A token of a role stored in a registry; the token itself.
async fn token(store: &Arc<dyn Store>, role: Role, subject: &str) -> String {
    let plain = ms4::auth::generate();
    store
        .create_token(
            &NewToken {
                hash: ms4::auth::hash(&plain),
                role,
                subject: subject.into(),
                expires_at: None,
            },
            "test",
        )
        .await
        .unwrap();
    plain
}

/// The coalition's router and, per member, its store and an inspector's token.
struct Coalition {
    router: axum::Router,
    stores: Vec<Arc<dyn Store>>,
    tokens: Vec<String>,
    coalition_token: String,
}

/// Three registries in three schemas of one database: north-castle with the demo's
/// outfalls and network, carmel with its boundary and waters only, windsor with the demo
/// again (under its own jurisdiction), served by one router with one coalition token.
async fn coalition() -> Option<Coalition> {
    let db = fresh_pg_url("coalition")?;
    let coalition_token = ms4::auth::generate();
    let hashes = Arc::new(ms4::http::coalition::token_hashes(&format!(
        "# the coalition's reader\n{coalition_token}\n"
    )));
    let config = ms4::http::ServeConfig {
        listen_addr: Some(APP_ADDR.parse().unwrap()),
        ..Default::default()
    };
    let full = [
        Layer::Boundary,
        Layer::Watersheds,
        Layer::ReceivingWaters,
        Layer::Outfalls,
        Layer::Pipes,
        Layer::Manholes,
    ];
    let mut members = Vec::new();
    let mut stores = Vec::new();
    let mut tokens = Vec::new();
    for (i, (name, schema, jurisdiction)) in MEMBERS.iter().enumerate() {
        let url = schema_url(&db, schema);
        let meta = crs::registry_meta(jurisdiction, 2260).unwrap();
        let store = store::create(&url, &meta)
            .await
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let layers: &[Layer] = if i == 1 { &full[..3] } else { &full };
        load_demo(&store, layers).await;
        tokens.push(token(&store, Role::Inspector, &format!("inspector of {name}")).await);
        let m = ms4::serve::member_state(name, store.clone(), &config, 3, hashes.clone())
            .await
            .unwrap();
        members.push(m);
        stores.push(store);
    }
    Some(Coalition {
        router: ms4::http::coalition::app(members, config),
        stores,
        tokens,
        coalition_token,
    })
}

impl Coalition {
    async fn send(
        &self,
        method: &str,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (StatusCode, Value) {
        use tower::ServiceExt;
        let mut req = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("host", APP_ADDR)
            .header("accept", "application/json");
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let body = match body {
            Some(b) => {
                req = req.header("content-type", "application/json");
                axum::body::Body::from(b.to_string())
            }
            None => axum::body::Body::empty(),
        };
        let res = self
            .router
            .clone()
            .oneshot(req.body(body).unwrap())
            .await
            .unwrap();
        let status = res.status();
        let bytes = axum::body::to_bytes(res.into_body(), usize::MAX)
            .await
            .unwrap();
        (
            status,
            serde_json::from_slice(&bytes)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into_owned())),
        )
    }

    async fn get(&self, path: &str, token: Option<&str>) -> (StatusCode, Value) {
        self.send("GET", path, token, None).await
    }
}

/// The features of a collection a member serves.
async fn items(c: &Coalition, member: &str, layer: &str, token: &str) -> Vec<Value> {
    let (s, body) = c
        .get(
            &format!("/r/{member}/collections/{layer}/items?limit=1000"),
            Some(token),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{member} {layer}: {body}");
    body["features"].as_array().cloned().unwrap_or_default()
}

#[tokio::test]
async fn each_members_token_opens_only_its_own_registry() {
    let Some(c) = coalition().await else { return };
    let (nc, carmel) = (&c.tokens[0], &c.tokens[1]);
    let (s, _) = c.get("/r/north-castle/collections", Some(nc)).await;
    assert_eq!(s, StatusCode::OK);
    for path in ["/r/carmel/collections", "/r/windsor/api/report?year=2026"] {
        let (s, body) = c.get(path, Some(nc)).await;
        assert_eq!(s, StatusCode::UNAUTHORIZED, "{path}: {body}");
        assert!(
            body["error"].as_str().unwrap().contains("unknown token"),
            "{body}"
        );
    }
    // Carmel's token is no better in North Castle, and no token is none.
    let (s, _) = c.get("/r/north-castle/collections", Some(carmel)).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
    let (s, _) = c.get("/r/north-castle/collections", None).await;
    assert_eq!(s, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn an_id_in_one_member_is_not_found_in_another() {
    let Some(c) = coalition().await else { return };
    let outfalls = items(&c, "north-castle", "outfalls", &c.tokens[0]).await;
    let id = outfalls[0]["id"].as_str().unwrap().to_string();
    let (s, body) = c
        .get(
            &format!("/r/north-castle/collections/outfalls/items/{id}"),
            Some(&c.tokens[0]),
        )
        .await;
    assert_eq!(s, StatusCode::OK, "{body}");
    let (s, body) = c
        .get(
            &format!("/r/carmel/collections/outfalls/items/{id}"),
            Some(&c.tokens[1]),
        )
        .await;
    assert_eq!(s, StatusCode::NOT_FOUND, "{body}");
    assert!(items(&c, "carmel", "outfalls", &c.tokens[1])
        .await
        .is_empty());
}

#[tokio::test]
async fn a_write_to_one_member_is_seen_there_and_nowhere_else() {
    let Some(c) = coalition().await else { return };
    let outfalls = items(&c, "north-castle", "outfalls", &c.tokens[0]).await;
    let asset = outfalls[0]["id"].as_str().unwrap();
    let inspection = json!({"asset_id": asset, "inspected_on": "2026-05-04",
                            "kind": "dry_weather_screening", "result": "pass"});
    // Windsor holds the same demo outfall ids; North Castle's inspector cannot write there.
    let (s, body) = c
        .send(
            "POST",
            "/r/windsor/api/inspections",
            Some(&c.tokens[0]),
            Some(inspection.clone()),
        )
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");
    let (s, body) = c
        .send(
            "POST",
            "/r/north-castle/api/inspections",
            Some(&c.tokens[0]),
            Some(inspection),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{body}");
    assert_eq!(c.stores[0].count(Layer::Inspections).await.unwrap(), 1);
    assert_eq!(c.stores[2].count(Layer::Inspections).await.unwrap(), 0);
    assert_eq!(
        items(&c, "north-castle", "inspections", &c.tokens[0])
            .await
            .len(),
        1
    );
    assert!(items(&c, "windsor", "inspections", &c.tokens[2])
        .await
        .is_empty());
}

#[tokio::test]
async fn every_prefix_answers_its_api_and_collections_with_links_under_it() {
    let Some(c) = coalition().await else { return };
    for (i, (name, _, jurisdiction)) in MEMBERS.iter().enumerate() {
        let t = Some(c.tokens[i].as_str());
        let (s, health) = c.get(&format!("/r/{name}/health"), None).await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(health["jurisdiction"], *jurisdiction);
        let (s, cols) = c.get(&format!("/r/{name}/collections"), t).await;
        assert_eq!(s, StatusCode::OK, "{name}: {cols}");
        let links: Vec<&str> = cols["links"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|l| l["href"].as_str())
            .collect();
        assert!(!links.is_empty());
        for l in links {
            assert!(
                l.starts_with(&format!("http://{APP_ADDR}/r/{name}/")),
                "{name}: {l}"
            );
        }
        let (s, _) = c.get(&format!("/r/{name}/api/openapi.json"), None).await;
        assert_eq!(s, StatusCode::OK);
        let (s, body) = c.get(&format!("/r/{name}/api/report?year=2026"), t).await;
        assert_eq!(s, StatusCode::OK, "{name}: {body}");
        assert_eq!(body["jurisdiction"], *jurisdiction);
    }
    let (s, list) = c.get("/registries", None).await;
    assert_eq!(s, StatusCode::OK);
    let names: Vec<&str> = list["registries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["north-castle", "carmel", "windsor"]);
    assert_eq!(
        list["registries"][1]["href"],
        format!("http://{APP_ADDR}/r/carmel/")
    );
    let (s, _) = c.get("/r/nowhere/collections", Some(&c.tokens[0])).await;
    assert_eq!(s, StatusCode::NOT_FOUND);
    // The landing page, at the prefix with its slash and without.
    for path in ["/r/carmel/?f=json", "/r/carmel?f=json"] {
        let (s, landing) = c.get(path, Some(&c.tokens[1])).await;
        assert_eq!(s, StatusCode::OK, "{path}: {landing}");
        assert!(landing["links"][0]["href"]
            .as_str()
            .unwrap()
            .starts_with(&format!("http://{APP_ADDR}/r/carmel/")));
    }
}

#[tokio::test]
async fn the_coalition_token_reads_every_member_and_writes_none() {
    let Some(c) = coalition().await else { return };
    let t = Some(c.coalition_token.as_str());
    for (name, _, _) in MEMBERS {
        let (s, body) = c.get(&format!("/r/{name}/collections"), t).await;
        assert_eq!(s, StatusCode::OK, "{name}: {body}");
    }
    let (s, body) = c
        .send(
            "POST",
            "/r/north-castle/api/inspections",
            t,
            Some(json!({"asset_id": "x", "inspected_on": "2026-05-04",
                        "kind": "dry_weather_screening", "result": "pass"})),
        )
        .await;
    assert_eq!(s, StatusCode::FORBIDDEN, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("writes none"),
        "{body}"
    );
}

#[tokio::test]
async fn the_joint_report_totals_are_the_sums_of_the_members_counts() {
    let Some(c) = coalition().await else { return };
    let t = Some(c.coalition_token.as_str());
    let (s, joint) = c.get("/coalition/report?year=2026", t).await;
    assert_eq!(s, StatusCode::OK, "{joint}");
    let mut own = Vec::new();
    for (i, (name, _, _)) in MEMBERS.iter().enumerate() {
        let (s, r) = c
            .get(
                &format!("/r/{name}/api/report?year=2026"),
                Some(&c.tokens[i]),
            )
            .await;
        assert_eq!(s, StatusCode::OK);
        assert_eq!(joint["members"][i]["name"], *name);
        assert_eq!(joint["members"][i]["report"], r, "{name}");
        own.push(r);
    }
    let totals = joint["totals"].as_array().unwrap();
    assert!(!totals.is_empty());
    let mut some_nonzero = false;
    for t in totals {
        let measure = t["measure"].as_str().unwrap();
        let sum: u64 = own
            .iter()
            .flat_map(|r| r["counts"].as_array().unwrap())
            .filter(|c| c["measure"] == measure)
            .map(|c| c["count"].as_u64().unwrap())
            .sum();
        assert_eq!(t["count"].as_u64().unwrap(), sum, "{measure}");
        some_nonzero |= sum > 0;
    }
    assert!(some_nonzero, "the demo's outfalls are counted: {joint}");
    // A member's own token does not open the others, so it gets no joint report.
    let (s, body) = c
        .get("/coalition/report?year=2026", Some(&c.tokens[0]))
        .await;
    assert_eq!(s, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["member"], "carmel");
}

#[tokio::test]
async fn the_coalitions_monitoring_locations_are_each_members_tagged() {
    let Some(c) = coalition().await else { return };
    let t = Some(c.coalition_token.as_str());
    let (s, all) = c.get("/coalition/monitoring-locations", t).await;
    assert_eq!(s, StatusCode::OK, "{all}");
    let features = all["features"].as_array().unwrap();
    for (i, (name, _, _)) in MEMBERS.iter().enumerate() {
        let (s, own) = c
            .get(
                &format!("/r/{name}/api/monitoring-locations?f=geojson"),
                Some(&c.tokens[i]),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{name}: {own}");
        let n = own["features"].as_array().unwrap().len();
        let tagged = features
            .iter()
            .filter(|f| f["properties"]["member"] == *name)
            .count();
        assert_eq!(tagged, n, "{name}");
    }
    // Carmel has no outfalls; the other two have the demo's.
    assert_eq!(all["members"][1]["features"], 0);
    assert!(all["members"][0]["features"].as_u64().unwrap() > 0);
}

/// Issue 30 item 3: the members' due inspections on one map, each by its own profile's
/// schedule, tagged with its member; the counts are each member's own answer's.
#[tokio::test]
async fn the_members_due_inspections_are_on_one_map() {
    let Some(c) = coalition().await else { return };
    let t = Some(c.coalition_token.as_str());
    let (s, all) = c.get("/coalition/inspections/due?all=true", t).await;
    assert_eq!(s, StatusCode::OK, "{all}");
    let features = all["features"].as_array().unwrap();
    let mut total = 0;
    for (i, (name, _, _)) in MEMBERS.iter().enumerate() {
        let (s, own) = c
            .get(
                &format!("/r/{name}/api/inspections/due?all=true&f=geojson"),
                Some(&c.tokens[i]),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{name}: {own}");
        let n = own["features"].as_array().unwrap().len();
        let tagged = features
            .iter()
            .filter(|f| f["properties"]["member"] == *name)
            .count();
        assert_eq!(tagged, n, "{name}");
        assert_eq!(all["members"][i]["features"], n, "{name}");
        total += n;
    }
    assert_eq!(features.len(), total);
    assert!(
        total > 0,
        "the demo's never-inspected assets are due: {all}"
    );
}

// ------------------------------------------------------------------ the store alone

/// A store's connection to its database, with a schema of its own or not.
async fn pool(db: &str) -> sqlx::PgPool {
    sqlx::PgPool::connect(db).await.unwrap()
}

#[tokio::test]
async fn two_schemas_of_one_database_hold_separate_registries() {
    let Some(db) = fresh_pg_url("schemas") else {
        return;
    };
    let a_url = schema_url(&db, "north_castle");
    let b_url = schema_url(&db, "carmel");
    let a = store::create(
        &a_url,
        &crs::registry_meta("north-castle-ny", 2260).unwrap(),
    )
    .await
    .unwrap();
    let b = store::create(&b_url, &crs::registry_meta("carmel-ny", 2263).unwrap())
        .await
        .unwrap();
    load_demo(&a, &[Layer::Boundary, Layer::Outfalls]).await;
    assert!(a.count(Layer::Outfalls).await.unwrap() > 0);
    assert_eq!(b.count(Layer::Outfalls).await.unwrap(), 0);
    assert_eq!(a.meta().await.unwrap().jurisdiction, "north-castle-ny");
    let bm = b.meta().await.unwrap();
    assert_eq!((bm.jurisdiction.as_str(), bm.srid), ("carmel-ny", 2263));
    token(&a, Role::Admin, "admin of north castle").await;
    assert_eq!(a.tokens().await.unwrap().len(), 1);
    assert!(b.tokens().await.unwrap().is_empty());
    // Each schema has its own migrations and tables; public has none of ms4's.
    let p = pool(&db).await;
    for s in ["north_castle", "carmel"] {
        let (n,): (i64,) = sqlx::query_as(
            "SELECT count(*) FROM pg_tables WHERE schemaname = $1 AND tablename IN ('_sqlx_migrations', 'ms4_meta', 'outfalls', 'ms4_tokens')",
        )
        .bind(s)
        .fetch_one(&p)
        .await
        .unwrap();
        assert_eq!(n, 4, "{s}");
    }
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'ms4%'",
    )
    .fetch_one(&p)
    .await
    .unwrap();
    assert_eq!(n, 0);
    let (srid,): (i32,) = sqlx::query_as("SELECT Find_SRID('carmel', 'outfalls', 'geom')")
        .fetch_one(&p)
        .await
        .unwrap();
    assert_eq!(srid, 2263);
    // Another program's edit (psql, QGIS: the default search path) is audited and counted
    // in the schema's own registry: its triggers' functions carry the schema's path.
    let (before, b_before) = (a.generation().await.unwrap(), b.generation().await.unwrap());
    sqlx::query("UPDATE north_castle.outfalls SET geom = geom WHERE asset_id = (SELECT min(asset_id) FROM north_castle.outfalls)")
        .execute(&p)
        .await
        .unwrap();
    assert!(a.generation().await.unwrap() > before);
    assert_eq!(b.generation().await.unwrap(), b_before);
    let outside = a.audit(Some(Layer::Outfalls), 10).await.unwrap();
    assert_eq!(outside[0].action, "update", "{outside:?}");
    assert!(b.audit(None, 10).await.unwrap().is_empty());
    // Reopened, each is itself; a second init of a schema is refused, naming its town.
    assert_eq!(
        store::open(&b_url)
            .await
            .unwrap()
            .meta()
            .await
            .unwrap()
            .jurisdiction,
        "carmel-ny"
    );
    match store::create(&a_url, &crs::registry_meta("carmel-ny", 2260).unwrap()).await {
        Err(StoreError::AlreadyInitialised(_, j)) => assert_eq!(j, "north-castle-ny"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("a second init in one schema"),
    }
}

#[tokio::test]
async fn a_schema_without_a_registry_does_not_open_the_one_in_public() {
    let Some(db) = fresh_pg_url("public") else {
        return;
    };
    store::create(&db, &crs::registry_meta("north-castle-ny", 2260).unwrap())
        .await
        .unwrap();
    match store::open(&schema_url(&db, "carmel")).await {
        Err(StoreError::NotInitialised(u)) => assert!(u.contains("schema=carmel"), "{u}"),
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("carmel opened north castle's registry in public"),
    }
    // The one in public can still sit beside a schema's.
    let c = store::create(
        &schema_url(&db, "carmel"),
        &crs::registry_meta("carmel-ny", 2260).unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(c.meta().await.unwrap().jurisdiction, "carmel-ny");
    assert_eq!(
        store::open(&db)
            .await
            .unwrap()
            .meta()
            .await
            .unwrap()
            .jurisdiction,
        "north-castle-ny"
    );
}

#[tokio::test]
async fn a_schema_name_that_is_not_an_identifier_is_refused_and_the_password_kept_out() {
    let Some(db) = fresh_pg_url("badname") else {
        return;
    };
    let mut u = url::Url::parse(&db).unwrap();
    u.set_password(Some("s3cret")).unwrap();
    let url = format!("{u}?schema=north-castle");
    let e = match store::open(&url).await {
        Err(e) => e.to_string(),
        Ok(_) => panic!("opened {url}"),
    };
    assert!(
        e.contains("schema: \"north-castle\" is not a plain identifier"),
        "{e}"
    );
    assert!(!e.contains("s3cret"), "{e}");
}

#[tokio::test]
async fn a_write_notifies_its_own_schemas_channel_only() {
    let Some(db) = fresh_pg_url("notify") else {
        return;
    };
    let a = store::create(
        &schema_url(&db, "north_castle"),
        &crs::registry_meta("north-castle-ny", 2260).unwrap(),
    )
    .await
    .unwrap();
    store::create(
        &schema_url(&db, "carmel"),
        &crs::registry_meta("carmel-ny", 2260).unwrap(),
    )
    .await
    .unwrap();
    let mut listener = sqlx::postgres::PgListener::connect(&db).await.unwrap();
    listener
        .listen_all([
            "ms4_changes.north_castle",
            "ms4_changes.carmel",
            "ms4_changes",
        ])
        .await
        .unwrap();
    load_demo(&a, &[Layer::Boundary]).await;
    let n = tokio::time::timeout(std::time::Duration::from_secs(5), listener.recv())
        .await
        .expect("a notification within 5 s")
        .unwrap();
    assert_eq!(n.channel(), "ms4_changes.north_castle");
    assert_eq!(n.payload(), "boundary");
    // Nothing else arrives: not on carmel's channel, nor on the database-wide one.
    let more = tokio::time::timeout(std::time::Duration::from_millis(500), listener.recv()).await;
    if let Ok(Ok(m)) = more {
        assert_eq!(m.channel(), "ms4_changes.north_castle", "{}", m.payload());
    }
}

#[tokio::test]
async fn a_watersheds_facilities_are_gathered_from_every_member_it_reaches() {
    let Some(c) = coalition().await else { return };
    let t = Some(c.coalition_token.as_str());
    let sheds = items(&c, "north-castle", "watersheds", &c.tokens[0]).await;
    let id = sheds[0]["id"].as_str().unwrap();
    let (s, all) = c
        .get(&format!("/coalition/watersheds/{id}/facilities"), t)
        .await;
    assert_eq!(s, StatusCode::OK, "{all}");
    for (i, (name, _, _)) in MEMBERS.iter().enumerate() {
        let (s, own) = c
            .get(
                &format!("/r/{name}/api/watersheds/{id}/facilities?f=geojson"),
                Some(&c.tokens[i]),
            )
            .await;
        assert_eq!(s, StatusCode::OK, "{name}: {own}");
        let n = own["features"].as_array().unwrap().len();
        assert_eq!(all["members"][i]["features"], n, "{name}");
        let tagged = all["features"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["properties"]["member"] == *name)
            .count();
        assert_eq!(tagged, n, "{name}");
    }
    // North Castle and Windsor hold the demo's facilities; Carmel only the watershed.
    let count = |i: usize| all["members"][i]["features"].as_u64().unwrap();
    assert!(count(0) > count(1), "{}", all["members"]);
    assert_eq!(count(0), count(2));
    let (s, none) = c
        .get("/coalition/watersheds/no-such-shed/facilities", t)
        .await;
    assert_eq!(s, StatusCode::OK, "{none}");
    assert_eq!(none["members"][2]["watershed"], "not in this registry");
}

#[test]
fn serve_refuses_a_bad_member_name_or_a_name_given_twice() {
    let bad = ms4()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(["--registry", "North-Castle=postgres://127.0.0.1/c?schema=a"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let e = String::from_utf8_lossy(&bad.stderr);
    assert!(
        e.contains("--registry: \"North-Castle\" is not a registry name"),
        "{e}"
    );
    let list = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(list.path(), "a=postgres://127.0.0.1/c?schema=a\n").unwrap();
    let twice = ms4()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .args(["--registry", "a=postgres://127.0.0.1/c?schema=b"])
        .arg("--registries")
        .arg(list.path())
        .output()
        .unwrap();
    assert!(!twice.status.success());
    let e = String::from_utf8_lossy(&twice.stderr);
    assert!(e.contains("a: named twice"), "{e}");
}
