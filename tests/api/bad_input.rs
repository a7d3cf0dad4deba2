//! Wrong parameters are a 400 whose message starts with the parameter's name, unknown
//! ids a 404, and nothing is a 500.

use super::*;

/// A 400 whose error starts with the parameter's name.
fn bad(what: &str, got: (u16, Value), param: &str) {
    assert_eq!(got.0, 400, "{what}: {}", got.1);
    let e = got.1["error"].as_str().unwrap_or_default();
    assert!(
        e.starts_with(&format!("{param}:")),
        "{what}: the error should name {param}: {e}"
    );
}

fn missing(what: &str, got: (u16, Value)) {
    assert_eq!(got.0, 404, "{what}: {}", got.1);
    assert!(got.1["error"].is_string(), "{what}: {}", got.1);
}

pub(crate) async fn refuses_bad_input(s: &Api, pk: &Picks) {
    let n = "/api/nearby";
    bad("no point", s.get(n, &[]).await, "lon/lat");
    bad("lon alone", s.get(n, &[("lon", "-73.8")]).await, "lon/lat");
    bad("x alone", s.get(n, &[("x", "1")]).await, "x/y");
    bad(
        "lon out of range",
        s.get(n, &[("lon", "500"), ("lat", "41")]).await,
        "lon/lat",
    );
    bad(
        "lon not a number",
        s.get(n, &[("lon", "west"), ("lat", "41")]).await,
        "lon",
    );
    let at = [("x", "670000"), ("y", "870000")];
    let with = |extra: (&'static str, &'static str)| {
        let mut q = at.to_vec();
        q.push(extra);
        q
    };
    bad(
        "radius",
        s.get(n, &with(("radius", "5 parsecs"))).await,
        "radius",
    );
    bad("k garbage", s.get(n, &with(("k", "abc"))).await, "k");
    bad("k zero", s.get(n, &with(("k", "0"))).await, "k");
    bad("k negative", s.get(n, &with(("k", "-3"))).await, "k");
    bad(
        "kinds",
        s.get(n, &with(("kinds", "hydrant"))).await,
        "kinds",
    );
    bad(
        "unknown parameter",
        s.get(n, &with(("kind", "outfall"))).await,
        "kind",
    );

    let w = format!("/api/watersheds/{}/facilities", pk.watershed);
    missing(
        "unknown watershed",
        s.get("/api/watersheds/WS-NOPE/facilities", &[]).await,
    );
    bad(
        "hot spot distance",
        s.get(&w, &[("hot_spot_distance", "near")]).await,
        "hot_spot_distance",
    );
    bad(
        "overdue days",
        s.get(&w, &[("overdue_after_days", "soon")]).await,
        "overdue_after_days",
    );
    bad(
        "polygon not a polygon",
        s.post(
            &w,
            &[],
            r#"{"type":"Point","coordinates":[-73.8,41.2]}"#.into(),
        )
        .await,
        "polygon",
    );
    bad(
        "polygon not JSON",
        s.post(&w, &[], "{ nope".into()).await,
        "body",
    );

    missing(
        "unknown asset",
        s.get("/api/trace/NOPE", &[("direction", "upstream")]).await,
    );
    let t = format!("/api/trace/{}", pk.catch_basin);
    bad("no direction", s.get(&t, &[]).await, "direction");
    bad(
        "bad direction",
        s.get(&t, &[("direction", "sideways")]).await,
        "direction",
    );
    bad(
        "both directions",
        s.get(&t, &[("upstream", "true"), ("downstream", "true")])
            .await,
        "direction",
    );

    bad(
        "status",
        s.get("/api/illicit", &[("status", "evil")]).await,
        "status",
    );
    bad(
        "all",
        s.get("/api/smps-without-easement", &[("all", "maybe")])
            .await,
        "all",
    );
    bad(
        "network-check takes nothing",
        s.get("/api/network-check", &[("x", "1")]).await,
        "x",
    );

    let r = "/api/receiving-waters";
    bad("no place", s.get(r, &[]).await, "parcel/footprint");
    missing("unknown parcel", s.get(r, &[("parcel", "P-NOPE")]).await);
    bad(
        "footprint not GeoJSON",
        s.get(r, &[("footprint", "a square")]).await,
        "footprint",
    );
    bad(
        "parcel and footprint",
        s.post(
            r,
            &[],
            format!(
                r#"{{"parcel": "{}", "footprint": {}}}"#,
                pk.parcel, pk.parcel_footprint
            ),
        )
        .await,
        "parcel/footprint",
    );

    let d = "/api/determinations";
    bad("empty body", s.post(d, &[], String::new()).await, "body");
    bad(
        "not JSON",
        s.post(d, &[], "disturbed=1acre".into()).await,
        "body",
    );
    bad(
        "no disturbed",
        s.post(d, &[], format!(r#"{{"parcel": "{}"}}"#, pk.parcel))
            .await,
        "disturbed",
    );
    bad(
        "disturbed garbage",
        s.post(
            d,
            &[],
            format!(r#"{{"parcel": "{}", "disturbed": "lots"}}"#, pk.parcel),
        )
        .await,
        "disturbed",
    );
    bad(
        "a misspelt fact",
        s.post(
            d,
            &[],
            format!(
                r#"{{"parcel": "{}", "disturbed": "1acre", "single_famly": true}}"#,
                pk.parcel
            ),
        )
        .await,
        "single_famly",
    );
    bad(
        "a fact not a boolean",
        s.post(
            d,
            &[],
            format!(
                r#"{{"parcel": "{}", "disturbed": "1acre", "agricultural": 7}}"#,
                pk.parcel
            ),
        )
        .await,
        "agricultural",
    );
    bad(
        "footprint a point",
        s.post(
            d,
            &[],
            r#"{"footprint": {"type":"Point","coordinates":[-73.8,41.2]}, "disturbed": "1acre"}"#
                .into(),
        )
        .await,
        "footprint",
    );
    bad(
        "footprint with an unknown crs",
        s.post(
            d,
            &[],
            format!(
                r#"{{"footprint": {{"type":"Feature","crs":{{"type":"name","properties":{{"name":"local grid"}}}},"properties":{{}},"geometry":{}}}, "disturbed": "1acre"}}"#,
                pk.parcel_footprint
            ),
        )
        .await,
        "footprint",
    );
    missing(
        "determination of an unknown parcel",
        s.post(
            d,
            &[],
            r#"{"parcel": "P-NOPE", "disturbed": "1acre"}"#.into(),
        )
        .await,
    );

    places_outside_the_crs_area_are_refused(s).await;

    bad(
        "screen without disturbed",
        s.get("/api/screen", &[]).await,
        "disturbed",
    );
    bad(
        "screen disturbed garbage",
        s.get("/api/screen", &[("disturbed", "big")]).await,
        "disturbed",
    );
}

/// Points and footprints the registry's CRS cannot place (outside its area of use, empty,
/// a single point, the whole world, in a geocentric CRS) are 400s naming the parameter.
async fn places_outside_the_crs_area_are_refused(s: &Api) {
    let n = "/api/nearby";
    bad(
        "lon/lat 0,0 (the Gulf of Guinea)",
        s.get(n, &[("lon", "0"), ("lat", "0")]).await,
        "lon/lat",
    );
    bad("x/y 0,0", s.get(n, &[("x", "0"), ("y", "0")]).await, "x/y");
    bad(
        "x/y 1e308",
        s.get(n, &[("x", "1e308"), ("y", "1e308")]).await,
        "x/y",
    );
    let d = "/api/determinations";
    let det = |footprint: &str| format!(r#"{{"footprint": {footprint}, "disturbed": "1acre"}}"#);
    let cases = [
        ("an empty polygon", r#"{"type":"Polygon","coordinates":[]}"#),
        (
            "a one-point polygon",
            r#"{"type":"Polygon","coordinates":[[[-73.85,41.22],[-73.85,41.22],[-73.85,41.22],[-73.85,41.22]]]}"#,
        ),
        (
            "the whole world",
            r#"{"type":"Polygon","coordinates":[[[-180,-90],[180,-90],[180,90],[-180,90],[-180,-90]]]}"#,
        ),
        (
            "a geocentric (EPSG:4978) footprint",
            r#"{"type":"Feature","crs":{"type":"name","properties":{"name":"urn:ogc:def:crs:EPSG::4978"}},"properties":{},"geometry":{"type":"Polygon","coordinates":[[[1330000,-4650000],[1331000,-4650000],[1331000,-4651000],[1330000,-4651000],[1330000,-4650000]]]}}"#,
        ),
    ];
    for (what, fp) in cases {
        bad(what, s.post(d, &[], det(fp)).await, "footprint");
        bad(
            what,
            s.post(
                "/api/receiving-waters",
                &[],
                format!(r#"{{"footprint": {fp}}}"#),
            )
            .await,
            "footprint",
        );
    }
}
