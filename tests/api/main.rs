//! The `/api` answers of the router (driven in process) equal the CLI's `--format json`
//! for the same question, on the demo town in both stores; wrong parameters are a 400 naming the parameter, unknown
//! ids a 404, and nothing is a 500.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod bad_input;
#[path = "../common/mod.rs"]
mod common;

use common::*;
use ms4::domain::Layer;
use ms4::import::crs::Reprojector;
use ms4::spatial::Snapshot;
use serde_json::Value;

/// The demo town in a Carmel registry: Carmel has Conditions One to Three, so
/// determinations and screening have something to say.
async fn carmel_demo(kind: &str) -> Registry {
    demo_registry(kind, "carmel-ny").await
}

/// The service, driven in process.
struct Api {
    app: App,
}

/// Reading is open to anyone here: these tests are about the answers, not tokens.
async fn start(reg: &Registry) -> Api {
    Api {
        app: App::public(&reg.store).await,
    }
}

impl Api {
    async fn get(&self, path: &str, query: &[(&str, &str)]) -> (u16, Value) {
        read(self.app.get(path).query(query).send().await)
    }

    async fn post(&self, path: &str, query: &[(&str, &str)], body: String) -> (u16, Value) {
        let r = self
            .app
            .post(path)
            .query(query)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await;
        read(r)
    }
}

fn read(r: Answer) -> (u16, Value) {
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    let text = r.text();
    assert!(ct.starts_with("application/json"), "{status} {ct}: {text}");
    (status, serde_json::from_str(&text).unwrap())
}

/// The CLI's flags for HTTP parameters: `hot_spot_distance=x` is `--hot-spot-distance=x`,
/// `all=true` is `--all`.
fn flags(params: &[(&str, &str)]) -> Vec<String> {
    params
        .iter()
        .filter(|(_, v)| *v != "false")
        .map(|(k, v)| {
            let f = format!("--{}", k.replace('_', "-"));
            if *v == "true" {
                f
            } else {
                format!("{f}={v}")
            }
        })
        .collect()
}

fn cli_json(store: &str, verb: &[&str], params: &[(&str, &str)]) -> Value {
    let mut args: Vec<String> = verb.iter().map(|s| s.to_string()).collect();
    args.extend(flags(params));
    args.extend(["--format".into(), "json".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    serde_json::from_str(&run_ok(store, &args)).unwrap()
}

/// Asserts the HTTP answer is a 200 equal to the CLI's, and returns it.
fn same(what: &str, http: (u16, Value), cli: Value) -> Value {
    assert_eq!(http.0, 200, "{what}: {}", http.1);
    assert!(
        http.1 == cli,
        "{what}: HTTP and CLI differ\nHTTP: {}\nCLI:  {}",
        http.1,
        cli
    );
    http.1
}

fn non_empty(what: &str, v: &Value) {
    let ok = match v {
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Null => false,
        _ => true,
    };
    assert!(ok, "{what} is empty, so the comparison says nothing");
}

/// GeoJSON text of a geometry in WGS 84.
fn wgs84_geojson(g: &geo_types::Geometry<f64>) -> String {
    let g = Reprojector::new(2260, 4326).unwrap().apply(g).unwrap();
    geojson::Geometry::new(geojson::GeometryValue::from(&g)).to_string()
}

/// The ids and places the questions are asked about, picked from the registry.
struct Picks {
    watershed: String,
    catch_basin: String,
    outfall: String,
    parcel: String,
    x: f64,
    y: f64,
    lon: f64,
    lat: f64,
    parcel_footprint: String,
    parcel_footprint_2260: String,
    watershed_polygon: String,
}

async fn picks(reg: &Registry) -> Picks {
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let first = |l: Layer| snap.layer(l).features[0].id.clone();
    // A parcel with a connection, so receiving waters come by the network too.
    let parcel = snap
        .layer(Layer::Connections)
        .features
        .iter()
        .filter_map(|c| c.get(Layer::Connections, "parcel_id").as_str())
        .find(|p| snap.layer(Layer::Parcels).get(p).is_some())
        .expect("a connection names a parcel")
        .to_string();
    let cb = &snap.layer(Layer::CatchBasins).features[0];
    let Some(geo_types::Geometry::Point(p)) = cb.geom else {
        panic!("catch basins are points")
    };
    let (lon, lat) = Reprojector::new(2260, 4326)
        .unwrap()
        .point(p.x(), p.y())
        .unwrap();
    let parcel_geom = snap.geometry(Layer::Parcels, &parcel).unwrap().clone();
    let watershed = first(Layer::Watersheds);
    let parcel_2260 = format!(
        r#"{{"type":"Feature","crs":{{"type":"name","properties":{{"name":"urn:ogc:def:crs:EPSG::2260"}}}},"properties":{{}},"geometry":{}}}"#,
        geojson::Geometry::new(geojson::GeometryValue::from(&parcel_geom))
    );
    Picks {
        watershed_polygon: wgs84_geojson(snap.geometry(Layer::Watersheds, &watershed).unwrap()),
        watershed,
        catch_basin: cb.id.clone(),
        outfall: first(Layer::Outfalls),
        parcel_footprint: wgs84_geojson(&parcel_geom),
        parcel_footprint_2260: parcel_2260,
        parcel,
        x: p.x() + 25.0,
        y: p.y() - 40.0,
        lon,
        lat,
    }
}

/// One registry asked the same questions over HTTP and through the CLI.
#[derive(Clone, Copy)]
struct Both<'a> {
    s: &'a Api,
    url: &'a str,
    kind: &'a str,
    pk: &'a Picks,
    files: &'a std::path::Path,
}

impl Both<'_> {
    /// A file for the CLI to read, holding what the HTTP request sends.
    fn file(&self, name: &str, text: &str) -> String {
        let p = self.files.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    }
}

async fn http_equals_cli(kind: &str) {
    let reg = carmel_demo(kind).await;
    let pk = picks(&reg).await;
    let s = start(&reg).await;
    let files = tempfile::tempdir().unwrap();
    let b = Both {
        s: &s,
        url: reg.url.as_str(),
        kind,
        pk: &pk,
        files: files.path(),
    };
    nearby_and_watersheds(&b).await;
    traces(&b).await;
    programme_lists(&b).await;
    waters_and_determinations(&b).await;
    screens(&b).await;
    bad_input::refuses_bad_input(&s, &pk).await;
}

async fn nearby_and_watersheds(b: &Both<'_>) {
    let Both {
        s, url, kind, pk, ..
    } = *b;
    let (x, y) = (pk.x.to_string(), pk.y.to_string());
    let (lon, lat) = (pk.lon.to_string(), pk.lat.to_string());

    // Nearby, by registry coordinates and by longitude/latitude.
    for q in [
        vec![
            ("x", x.as_str()),
            ("y", y.as_str()),
            ("k", "5"),
            ("kinds", "catch_basin,outfall"),
        ],
        vec![("x", x.as_str()), ("y", y.as_str())],
        vec![
            ("lon", lon.as_str()),
            ("lat", lat.as_str()),
            ("radius", "500ft"),
        ],
    ] {
        let v = same(
            &format!("{kind} nearby {q:?}"),
            s.get("/api/nearby", &q).await,
            cli_json(url, &["nearby"], &q),
        );
        non_empty("nearby facilities", &v["facilities"]);
    }

    // Watershed facilities, with default and given program settings, and in a polygon.
    let path = format!("/api/watersheds/{}/facilities", pk.watershed);
    for q in [
        vec![],
        vec![
            ("hot_spot_distance", "200ft"),
            ("overdue_after_days", "30"),
            ("kinds", "catch_basin"),
        ],
    ] {
        let v = same(
            &format!("{kind} watershed-facilities {q:?}"),
            s.get(&path, &q).await,
            cli_json(url, &["watershed-facilities", &pk.watershed], &q),
        );
        non_empty("watershed facilities", &v["list"]["facilities"]);
    }
    let polygon = b.file("watershed.geojson", &pk.watershed_polygon);
    let v = same(
        &format!("{kind} watershed-facilities in a polygon"),
        s.post(&path, &[], pk.watershed_polygon.clone()).await,
        cli_json(
            url,
            &["watershed-facilities", &pk.watershed, "--polygon", &polygon],
            &[],
        ),
    );
    non_empty("facilities in the polygon", &v["list"]["facilities"]);
}

async fn traces(b: &Both<'_>) {
    let Both {
        s, url, kind, pk, ..
    } = *b;
    // Traces both ways.
    let v = same(
        &format!("{kind} trace downstream"),
        s.get(
            &format!("/api/trace/{}", pk.catch_basin),
            &[("direction", "downstream")],
        )
        .await,
        cli_json(url, &["trace", &pk.catch_basin, "--downstream"], &[]),
    );
    non_empty("downstream structures", &v["trace"]["structures"]);
    let v = same(
        &format!("{kind} trace upstream"),
        s.get(
            &format!("/api/trace/{}", pk.outfall),
            &[("direction", "upstream")],
        )
        .await,
        cli_json(url, &["trace", &pk.outfall, "--upstream"], &[]),
    );
    non_empty("upstream structures", &v["trace"]["structures"]);
    same(
        &format!("{kind} trace upstream by flag"),
        s.get(
            &format!("/api/trace/{}", pk.outfall),
            &[("upstream", "true")],
        )
        .await,
        v,
    );
}

/// The programme's lists: illicit connections, SMPs without easement, the network check.
async fn programme_lists(b: &Both<'_>) {
    let Both { s, url, kind, .. } = *b;
    // Illicit connections: Carmel's Article X covers none, so they are all not_covered.
    same(
        &format!("{kind} illicit"),
        s.get("/api/illicit", &[]).await,
        cli_json(url, &["illicit"], &[]),
    );
    let q = [("status", "not_covered,illicit")];
    let v = same(
        &format!("{kind} illicit {q:?}"),
        s.get("/api/illicit", &q).await,
        cli_json(url, &["illicit"], &q),
    );
    non_empty("connections", &v["connections"]);

    // SMPs without easement.
    same(
        &format!("{kind} smps-without-easement"),
        s.get("/api/smps-without-easement", &[]).await,
        cli_json(url, &["smps-without-easement"], &[]),
    );
    let q = [("all", "true")];
    let v = same(
        &format!("{kind} smps-without-easement --all"),
        s.get("/api/smps-without-easement", &q).await,
        cli_json(url, &["smps-without-easement"], &q),
    );
    non_empty("smps", &v["smps"]);

    // The network check.
    let v = same(
        &format!("{kind} network-check"),
        s.get("/api/network-check", &[]).await,
        cli_json(url, &["network-check"], &[]),
    );
    non_empty("network summary", &v["summary"]);
}

async fn waters_and_determinations(b: &Both<'_>) {
    let Both {
        s, url, kind, pk, ..
    } = *b;
    // Receiving waters of a parcel and of footprints (WGS 84, and with a legacy crs).
    let q = [("parcel", pk.parcel.as_str())];
    let v = same(
        &format!("{kind} receiving-waters {q:?}"),
        s.get("/api/receiving-waters", &q).await,
        cli_json(url, &["receiving-waters"], &q),
    );
    non_empty("waters by watershed", &v["by_watershed"]);
    for (name, text) in [
        ("footprint.geojson", &pk.parcel_footprint),
        ("footprint-2260.geojson", &pk.parcel_footprint_2260),
    ] {
        let fp = b.file(name, text);
        let v = same(
            &format!("{kind} receiving-waters of {name}"),
            s.post(
                "/api/receiving-waters",
                &[],
                format!(r#"{{"footprint": {text}}}"#),
            )
            .await,
            cli_json(url, &["receiving-waters", "--footprint", &fp], &[]),
        );
        non_empty("waters by watershed", &v["by_watershed"]);
    }

    // Determinations by parcel and by footprint.
    let v = same(
        &format!("{kind} determination of a parcel"),
        s.post(
            "/api/determinations",
            &[],
            format!(
                r#"{{"parcel": "{}", "disturbed": "2.5acres", "larger_common_plan": true}}"#,
                pk.parcel
            ),
        )
        .await,
        cli_json(
            url,
            &["determine", "--parcel", &pk.parcel],
            &[("disturbed", "2.5acres"), ("larger_common_plan", "true")],
        ),
    );
    non_empty("determination", &v["determination"]);
    let fp = b.file("project.geojson", &pk.parcel_footprint);
    let v = same(
        &format!("{kind} determination of a footprint"),
        s.post(
            "/api/determinations",
            &[],
            format!(
                r#"{{"footprint": {}, "disturbed": "8000sqft", "single_family": true}}"#,
                pk.parcel_footprint
            ),
        )
        .await,
        cli_json(
            url,
            &["determine", "--footprint", &fp],
            &[("disturbed", "8000sqft"), ("single_family", "true")],
        ),
    );
    non_empty("determination", &v["determination"]);
}

async fn screens(b: &Both<'_>) {
    let Both { s, url, kind, .. } = *b;
    // Condition One on every parcel.
    for q in [
        vec![("disturbed", "1acre")],
        vec![("disturbed", "1acre"), ("all", "true")],
        vec![("disturbed", "1acre"), ("all", "true"), ("whole", "true")],
    ] {
        let v = same(
            &format!("{kind} screen {q:?}"),
            s.get("/api/screen", &q).await,
            cli_json(url, &["screen"], &q),
        );
        if q.len() >= 2 {
            non_empty("screened parcels", &v["results"]);
        }
        if q.len() == 3 {
            non_empty(
                "a parcel's whole determination",
                &v["results"][0]["determination"],
            );
        }
    }
}

#[tokio::test]
async fn api_answers_equal_the_cli_json_on_sqlite() {
    http_equals_cli("sqlite").await;
}

#[tokio::test]
async fn api_answers_equal_the_cli_json_on_postgis() {
    if pg_base().is_none() {
        return;
    }
    http_equals_cli("postgis").await;
}
