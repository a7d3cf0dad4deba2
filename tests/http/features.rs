//! OGC API Features: paging, bbox in both CRSs, the answer's CRS, filters, errors.

use super::*;

/// OGC API Features: paging by next links covers the layer exactly once; bbox in CRS84
/// and in the registry CRS; crs of the answer; property filters; single items; errors.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn features_page_filter_and_reproject(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let stored = reg.store.features(Layer::CatchBasins).await.unwrap();
    let app = App::public(&reg.store).await;
    let c = &app;
    let b = &app.base;

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
        .await;
    assert_eq!(
        r.headers()["content-crs"],
        "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>"
    );
    assert_eq!(r.headers()["content-type"], "application/geo+json");
    let page: Value = r.json();
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

/// Issue 27 item 6: a filter takes every property an item shows, the attributes kept from
/// the source too (`SUBBASIN` on Tacoma's discharge points); `queryables` lists them all,
/// typed; a name no feature carries is still refused, naming it.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn kept_attributes_are_queryable(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2927).await;
    let mut opts = ms4::import::ImportOptions::new(
        Layer::Outfalls,
        fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson"),
    );
    opts.maps = vec![("asset_id".into(), "ALTID".into())];
    ms4::import::import(reg.store.clone(), opts).await.unwrap();
    let stored = reg.store.features(Layer::Outfalls).await.unwrap();
    let value = stored
        .iter()
        .find_map(|f| f.extra.get("SUBBASIN").and_then(|v| v.as_str()))
        .filter(|s| !s.trim().is_empty())
        .expect("a SUBBASIN")
        .to_string();
    let want = stored
        .iter()
        .filter(|f| f.extra.get("SUBBASIN").and_then(|v| v.as_str()) == Some(value.as_str()))
        .count();
    assert!(want > 0 && want < stored.len());
    let app = App::public(&reg.store).await;
    let (c, b) = (&app, &app.base);
    let q: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let (s, page) = send(c.get(format!(
        "{b}/collections/outfalls/items?SUBBASIN={q}&limit=10000"
    )))
    .await;
    assert_eq!(s, 200, "{page}");
    assert_eq!(page["numberMatched"].as_u64().unwrap() as usize, want);
    assert!(page["features"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["properties"]["SUBBASIN"] == value.as_str()));
    // A kept attribute and a field of the layer together.
    let (_, both) = send(c.get(format!(
        "{b}/collections/outfalls/items?SUBBASIN={q}&asset_id=NO-SUCH"
    )))
    .await;
    assert_eq!(both["numberMatched"], 0);
    // Counter-case: a name no feature carries is refused, naming it.
    let (s, e) = send(c.get(format!("{b}/collections/outfalls/items?SUBBASN=1"))).await;
    assert_eq!(s, 400, "{e}");
    assert!(e["error"].as_str().unwrap().contains("SUBBASN"), "{e}");
    assert!(e["error"].as_str().unwrap().contains("queryables"), "{e}");

    let (s, qs) = send(c.get(format!("{b}/collections/outfalls/queryables"))).await;
    assert_eq!(s, 200, "{qs}");
    let props = qs["properties"].as_object().unwrap();
    assert_eq!(props["SUBBASIN"]["type"], "string", "{qs}");
    assert_eq!(props["OBJECTID"]["type"], "integer", "{qs}");
    assert_eq!(props["asset_id"]["type"], "string");
    for f in Layer::Outfalls.fields() {
        assert!(props.contains_key(f.name), "{}", f.name);
    }
    // Every key of every stored feature's kept attributes is listed.
    for f in &stored {
        for k in f.extra.keys() {
            assert!(props.contains_key(k), "{k}");
        }
    }
    let (s, _) = send(c.get(format!("{b}/collections/sewers/queryables"))).await;
    assert_eq!(s, 404);
}
