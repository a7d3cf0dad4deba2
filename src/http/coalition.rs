//! One service for a coalition: each member's registry under `/r/{name}/…` with its whole
//! API (its own router, built by [`super::app`], nested under the prefix), the list of
//! members at `/registries`, and the coalition's joint answers under `/coalition/…`.
//!
//! Each member keeps its own tokens: a member's token is checked against that member's
//! store only, so it opens no other member. A coalition token (`--coalition-token-file`)
//! is accepted by every member for reads and by none for writes (see
//! [`super::caller::Auth::with_coalition`]).
//!
//! A joint answer asks each member's own router the member's own question with the
//! caller's `Authorization`, in process: every member applies its own access rule (a
//! public-read member answers anyone, the others want the coalition token), and the joint
//! answer is exactly the members' answers put side by side. A member that refuses makes
//! the joint answer fail with that member's status and message, naming the member:
//! totals over the members the caller happened to be let into would not be the
//! coalition's.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{links, AppState, HttpError, ServeConfig};

/// The longest member name accepted (it is a path segment and a log field).
pub const MAX_NAME_CHARS: usize = 63;

/// The largest member answer read into a joint answer.
const MEMBER_ANSWER_LIMIT: usize = 256 << 20;

/// A member of the coalition: its name (the path segment after `/r/`) and its state.
#[derive(Clone)]
pub struct Member {
    /// `north-castle`.
    pub name: String,
    /// Its registry's state, with `path_prefix` `/r/{name}`.
    pub state: AppState,
}

/// Checks a member's name: lower-case letters, digits and `-`, starting with a letter or
/// digit, as it stands in URLs.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a registry name: use lower-case letters, digits and - (north-castle), at most {MAX_NAME_CHARS}"
        ))
    }
}

/// Reads one `--registry NAME=URL`.
pub fn parse_registry(s: &str) -> Result<(String, String), String> {
    let (name, url) = s
        .split_once('=')
        .ok_or_else(|| format!("{s:?} is not NAME=URL (north-castle=postgres://…)"))?;
    let name = name.trim().trim_matches('"').to_string();
    let url = url.trim().trim_matches('"').to_string();
    check_name(&name)?;
    if url.is_empty() {
        return Err(format!("{name}: the URL is empty"));
    }
    Ok((name, url))
}

/// Reads a `--registries` file: one `NAME=URL` (or TOML's `name = "url"`) a line; blank
/// lines, `#` comments and `[section]` headers are skipped. Errors name the line.
pub fn parse_list(text: &str) -> Result<Vec<(String, String)>, String> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#') && !l.starts_with('['))
        .map(|(n, l)| parse_registry(l).map_err(|e| format!("line {n}: {e}")))
        .collect()
}

/// Checks a coalition's member list: at least one, and no name twice.
pub fn check_members(list: &[(String, String)]) -> Result<(), String> {
    if list.is_empty() {
        return Err("no registry to serve: give --registry NAME=URL or --registries FILE".into());
    }
    let mut seen = std::collections::HashSet::new();
    for (name, _) in list {
        if !seen.insert(name.as_str()) {
            return Err(format!("{name}: named twice"));
        }
    }
    Ok(())
}

/// Reads a coalition token file: one token a line (blank lines and `#` comments
/// skipped), kept as hashes only.
pub fn token_hashes(text: &str) -> std::collections::HashSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(crate::auth::hash)
        .collect()
}

/// What the coalition's own routes reach.
#[derive(Clone)]
struct Coalition {
    members: Arc<Vec<(Member, Router)>>,
    config: Arc<ServeConfig>,
}

/// The coalition's service: each member under `/r/{name}`, `/registries`, `/health` and
/// the joint answers under `/coalition`.
pub fn app(members: Vec<Member>, config: ServeConfig) -> Router {
    let routers: Vec<(Member, Router)> = members
        .into_iter()
        .map(|m| {
            let r = super::app(m.state.clone());
            (m, r)
        })
        .collect();
    let timeout = config.request_timeout;
    // The members' routers bring their own; the coalition's routes get the same headers.
    let policies = super::security::Policies::new(&config);
    let c = Coalition {
        members: Arc::new(routers.clone()),
        config: Arc::new(config),
    };
    let mut router = Router::new()
        .route("/registries", get(registries))
        .route("/health", get(health))
        .route(
            "/api/openapi.json",
            get(super::openapi::coalition::document),
        )
        .route("/coalition/report", get(report))
        .route("/coalition/monitoring-locations", get(monitoring_locations))
        .route("/coalition/inspections/due", get(inspections_due))
        .route(
            "/coalition/watersheds/{id}/facilities",
            get(watershed_facilities),
        )
        .with_state(c)
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            timeout,
        ))
        .layer(axum::middleware::from_fn(super::error::json_bodies))
        .layer(axum::middleware::map_response_with_state(
            policies,
            super::security::baseline,
        ));
    for (m, r) in routers {
        // A nested router answers `/r/NAME` for its `/`; `/r/NAME/` (the address a page
        // and `/registries` give) is its `/` too.
        let root = r.clone();
        router = router
            .route(
                &format!("/r/{}/", m.name),
                axum::routing::any(move |req: Request<Body>| at_root(root.clone(), req)),
            )
            .nest(&format!("/r/{}", m.name), r);
    }
    router
        .fallback(not_found)
        .layer(tower_http::trace::TraceLayer::new_for_http())
}

/// A request for `/r/NAME/` answered by the member's router as its `/`.
async fn at_root(router: Router, req: Request<Body>) -> Response {
    let (mut parts, body) = req.into_parts();
    let target = match parts.uri.query() {
        Some(q) => format!("/?{q}"),
        None => "/".to_string(),
    };
    match target.parse() {
        Ok(uri) => parts.uri = uri,
        Err(e) => return HttpError::internal("serving a member's root", e).into_response(),
    }
    call(&router, Request::from_parts(parts, body))
        .await
        .unwrap_or_else(|e| e)
}

/// A request through a member's router, in process, the way the server hands it one.
async fn call(router: &Router, req: Request<Body>) -> Result<Response, Response> {
    // A router is always ready, and its error type is `Infallible`.
    let service = hyper_util::service::TowerToHyperService::new(router.clone());
    hyper::service::Service::call(&service, req)
        .await
        .map_err(|e| HttpError::internal("asking a member", e).into_response())
}

async fn not_found(uri: axum::http::Uri) -> Response {
    HttpError::NotFound(format!(
        "{}: no such route; /registries lists the registries served, each under /r/NAME/",
        uri.path()
    ))
    .into_response()
}

/// The members, each with its jurisdiction and where it is served.
async fn registries(State(c): State<Coalition>, headers: HeaderMap) -> Json<Value> {
    let base = links::base(&c.config, &headers);
    let list: Vec<Value> = c
        .members
        .iter()
        .map(|(m, _)| {
            let snap = m.state.snapshot.current();
            json!({
                "name": m.name,
                "jurisdiction": snap.meta.jurisdiction,
                "title": m.state.profile.current().name,
                "href": format!("{base}/r/{}/", m.name),
            })
        })
        .collect();
    Json(json!({ "registries": list }))
}

/// Up while any member is; each member's own `/health` says more.
async fn health(State(c): State<Coalition>) -> Json<Value> {
    Json(json!({
        "status": "ok",
        "registries": c.members.iter().map(|(m, _)| m.name.clone()).collect::<Vec<_>>(),
    }))
}

/// A member's answer to a GET, or the response to send instead (its refusal, named).
async fn ask(
    member: &(Member, Router),
    path_and_query: &str,
    headers: &HeaderMap,
) -> Result<Value, Response> {
    let (m, router) = member;
    // The member's router sees the path it is served at without the prefix.
    let mut req = Request::get(path_and_query).header(header::ACCEPT, "application/json");
    if let Some(a) = headers.get(header::AUTHORIZATION) {
        req = req.header(header::AUTHORIZATION, a);
    }
    let req = req
        .body(Body::empty())
        .map_err(|e| HttpError::internal("asking a member", e).into_response())?;
    let res = call(router, req).await?;
    let status = res.status();
    let bytes = axum::body::to_bytes(res.into_body(), MEMBER_ANSWER_LIMIT)
        .await
        .map_err(|e| HttpError::internal("reading a member's answer", e).into_response())?;
    let body: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if status.is_success() {
        return Ok(body);
    }
    let why = body
        .get("error")
        .and_then(Value::as_str)
        .unwrap_or("refused")
        .to_string();
    Err((
        status,
        Json(json!({
            "error": format!("{}: {why}", m.name),
            "status": status.as_u16(),
            "member": m.name,
        })),
    )
        .into_response())
}

/// `/coalition/report`'s query.
#[derive(Debug, Deserialize)]
struct ReportQuery {
    year: Option<i32>,
    as_of: Option<String>,
}

/// The joint annual report: each member's report (its counts with their records) for
/// the reporting year, and the coalition's totals by measure with each member's share.
async fn report(
    State(c): State<Coalition>,
    headers: HeaderMap,
    Query(q): Query<ReportQuery>,
) -> Response {
    let Some(year) = q.year else {
        return HttpError::field("year", "give the reporting year, e.g. year=2026").into_response();
    };
    let mut path = format!("/api/report?year={year}");
    if let Some(a) = &q.as_of {
        path.push_str("&as_of=");
        path.extend(url::form_urlencoded::byte_serialize(a.as_bytes()));
    }
    let mut reports = Vec::new();
    for m in c.members.iter() {
        match ask(m, &path, &headers).await {
            Ok(r) => reports.push((m.0.name.clone(), r)),
            Err(refused) => return refused,
        }
    }
    Json(joint_report(year, &reports)).into_response()
}

/// The coalition's report from its members' (name, report) pairs: totals in the order
/// the measures first appear, each with every member's count (0 where a member's report
/// has no such count) and, for shares, the summed denominator.
pub fn joint_report(year: i32, reports: &[(String, Value)]) -> Value {
    let mut totals: Vec<(String, Map<String, Value>)> = Vec::new();
    for (name, r) in reports {
        for count in r["counts"].as_array().into_iter().flatten() {
            let Some(measure) = count["measure"].as_str() else {
                continue;
            };
            let at = match totals.iter().position(|(m, _)| m == measure) {
                Some(i) => i,
                None => {
                    let mut t = Map::new();
                    t.insert("measure".into(), measure.into());
                    t.insert("label".into(), count["label"].clone());
                    t.insert("count".into(), 0.into());
                    t.insert("by_member".into(), Value::Object(Map::new()));
                    totals.push((measure.to_string(), t));
                    totals.len() - 1
                }
            };
            let t = &mut totals[at].1;
            let n = count["count"].as_u64().unwrap_or(0);
            let sum = t["count"].as_u64().unwrap_or(0) + n;
            t.insert("count".into(), sum.into());
            if let Some(by) = t.get_mut("by_member").and_then(Value::as_object_mut) {
                let before = by.get(name).and_then(Value::as_u64).unwrap_or(0);
                by.insert(name.clone(), (before + n).into());
            }
            if let Some(d) = count["denominator"].as_array() {
                let of = d.get(1).and_then(Value::as_u64).unwrap_or(0);
                let before = t
                    .get("denominator")
                    .and_then(|v| v[1].as_u64())
                    .unwrap_or(0);
                t.insert(
                    "denominator".into(),
                    json!([d.first().cloned().unwrap_or(Value::Null), before + of]),
                );
            }
            if let Some(usd) = count["dollars"].as_f64() {
                let before = t.get("dollars").and_then(Value::as_f64).unwrap_or(0.0);
                t.insert("dollars".into(), json!(before + usd));
            }
        }
    }
    // A member with no count of a measure counted none: say 0 rather than leave it out.
    for (_, t) in &mut totals {
        if let Some(by) = t.get_mut("by_member").and_then(Value::as_object_mut) {
            for (name, _) in reports {
                by.entry(name.clone()).or_insert(0.into());
            }
        }
    }
    json!({
        "year": year,
        "members": reports.iter().map(|(name, r)| json!({ "name": name, "report": r })).collect::<Vec<_>>(),
        "totals": totals.into_iter().map(|(_, t)| Value::Object(t)).collect::<Vec<_>>(),
    })
}

/// Every member's monitoring locations on one map: one GeoJSON collection whose
/// features say which member they are of (`member`), with each member's summary.
async fn monitoring_locations(
    State(c): State<Coalition>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Response {
    on_one_map(&c, &headers, &uri, "/api/monitoring-locations").await
}

/// Every member's assets due or overdue for inspection (each by its own profile's
/// schedule) on one map, tagged with the member like the monitoring locations.
async fn inspections_due(
    State(c): State<Coalition>,
    headers: HeaderMap,
    uri: axum::http::Uri,
) -> Response {
    on_one_map(&c, &headers, &uri, "/api/inspections/due").await
}

/// One member route's GeoJSON answer from every member, as one collection whose features
/// say which member they are of (`member`), with each member's count.
async fn on_one_map(
    c: &Coalition,
    headers: &HeaderMap,
    uri: &axum::http::Uri,
    path: &str,
) -> Response {
    let query = member_query(uri.query(), "geojson");
    let mut features = Vec::new();
    let mut members = Vec::new();
    for m in c.members.iter() {
        let answer = match ask(m, &format!("{path}?{query}"), headers).await {
            Ok(a) => a,
            Err(refused) => return refused,
        };
        let name = &m.0.name;
        let mine = tagged(&answer, name);
        members.push(json!({ "name": name, "features": mine.len() }));
        features.extend(mine);
    }
    Json(json!({
        "type": "FeatureCollection",
        "features": features,
        "members": members,
    }))
    .into_response()
}

/// A watershed's facilities across the members it crosses: each member's ranked
/// facilities in the watershed, tagged with the member; a member the watershed does not
/// reach (its answer is a 404) is listed as such, not an error.
async fn watershed_facilities(
    State(c): State<Coalition>,
    headers: HeaderMap,
    Path(id): Path<String>,
    uri: axum::http::Uri,
) -> Response {
    let query = member_query(uri.query(), "geojson");
    let id_seg: String = url::form_urlencoded::byte_serialize(id.as_bytes()).collect();
    let mut features = Vec::new();
    let mut members = Vec::new();
    for m in c.members.iter() {
        let path = format!("/api/watersheds/{id_seg}/facilities?{query}");
        match ask(m, &path, &headers).await {
            Ok(answer) => {
                let mine = tagged(&answer, &m.0.name);
                members.push(json!({ "name": m.0.name, "features": mine.len() }));
                features.extend(mine);
            }
            Err(refused) if refused.status() == StatusCode::NOT_FOUND => {
                members.push(
                    json!({ "name": m.0.name, "features": 0, "watershed": "not in this registry" }),
                );
            }
            Err(refused) => return refused,
        }
    }
    Json(json!({
        "type": "FeatureCollection",
        "watershed_id": id,
        "features": features,
        "members": members,
    }))
    .into_response()
}

/// The caller's query for a member, with `f` set to the format the joint answer needs.
fn member_query(query: Option<&str>, f: &str) -> String {
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in url::form_urlencoded::parse(query.unwrap_or("").as_bytes()) {
        if k != "f" {
            out.append_pair(&k, &v);
        }
    }
    out.append_pair("f", f);
    out.finish()
}

/// A member's GeoJSON features, each with `member` among its properties.
fn tagged(answer: &Value, member: &str) -> Vec<Value> {
    answer["features"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            let mut f = f.clone();
            if let Some(p) = f.get_mut("properties").and_then(Value::as_object_mut) {
                p.insert("member".into(), member.into());
            } else if let Some(o) = f.as_object_mut() {
                o.insert("properties".into(), json!({ "member": member }));
            }
            f
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case("north-castle=postgres://h/db?schema=north_castle", Ok(("north-castle", "postgres://h/db?schema=north_castle")))]
    #[case("carmel = \"postgres://h/db?schema=carmel\"", Ok(("carmel", "postgres://h/db?schema=carmel")))]
    #[case("North-Castle=postgres://h/db", Err("not a registry name"))]
    #[case("a/b=postgres://h/db", Err("not a registry name"))]
    #[case("carmel", Err("is not NAME=URL"))]
    #[case("carmel=", Err("the URL is empty"))]
    fn a_registry_is_a_name_and_a_url(#[case] arg: &str, #[case] want: Result<(&str, &str), &str>) {
        match (parse_registry(arg), want) {
            (Ok((n, u)), Ok((wn, wu))) => assert_eq!((n.as_str(), u.as_str()), (wn, wu)),
            (Err(e), Err(w)) => assert!(e.contains(w), "{e}"),
            (got, want) => panic!("{arg}: {got:?}, wanted {want:?}"),
        }
    }

    #[test]
    fn a_list_skips_comments_and_names_the_bad_line() {
        let list = "# the coalition\n[registries]\nnorth-castle = \"postgres://h/db?schema=north_castle\"\n\ncarmel=postgres://h/db?schema=carmel\n";
        let got = parse_list(list).unwrap();
        assert_eq!(got.len(), 2);
        assert_eq!(got[1].0, "carmel");
        let e = parse_list("a=postgres://h/a\nB=postgres://h/b").unwrap_err();
        assert!(e.starts_with("line 2: "), "{e}");
        let twice = parse_list("a=x\na=y").unwrap();
        assert_eq!(check_members(&twice).unwrap_err(), "a: named twice");
        assert!(check_members(&[]).is_err());
    }

    #[test]
    fn the_joint_report_sums_each_measure_and_keeps_each_members_share() {
        let a = json!({"counts": [
            {"measure": "outfalls", "label": "Outfalls", "count": 3, "denominator": null},
            {"measure": "screened", "label": "Screened", "count": 2, "denominator": ["outfalls", 3]},
        ]});
        let b = json!({"counts": [
            {"measure": "outfalls", "label": "Outfalls", "count": 5},
            {"measure": "fines", "label": "Fines", "count": 1, "dollars": 250.0},
        ]});
        let r = joint_report(2026, &[("a".into(), a), ("b".into(), b)]);
        let totals = r["totals"].as_array().unwrap();
        assert_eq!(totals[0]["measure"], "outfalls");
        assert_eq!(totals[0]["count"], 8);
        assert_eq!(totals[0]["by_member"], json!({"a": 3, "b": 5}));
        assert_eq!(totals[1]["count"], 2);
        assert_eq!(totals[1]["by_member"], json!({"a": 2, "b": 0}));
        assert_eq!(totals[1]["denominator"], json!(["outfalls", 3]));
        assert_eq!(totals[2]["dollars"], 250.0);
        assert_eq!(r["members"][1]["name"], "b");
    }

    #[test]
    fn a_members_query_keeps_the_callers_but_its_format() {
        assert_eq!(
            member_query(Some("priority=high&f=json"), "geojson"),
            "priority=high&f=geojson"
        );
        assert_eq!(member_query(None, "geojson"), "f=geojson");
    }
}
