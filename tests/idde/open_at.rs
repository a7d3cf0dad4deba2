//! A case opened at a facility takes a point there, whatever the facility's shape: an SMP
//! drawn as a pond (a polygon) gives a point inside it. The cases layer holds points, so
//! PostGIS refused the pond's polygon (a 500 to `POST /api/cases`, found by the API's
//! schema-driven fuzzing), and SQLite stored a shape the layer does not have.

use geo::Contains;
use ms4::domain::Layer;
use ms4::idde::case_update::Recorder;
use ms4::idde::commands::{self, CaseAnswer, CaseCommand};
use rstest::rstest;

use crate::common::*;

#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test(flavor = "multi_thread")]
async fn a_case_at_a_pond_is_a_point_inside_it(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = demo_registry(kind, "north-castle-ny").await;
    let profile = ms4::cli::profile::load(reg.store.as_ref()).await.unwrap();
    let snap = ms4::spatial::Snapshot::load(reg.store.as_ref())
        .await
        .unwrap();
    let pond = snap
        .layer(Layer::Smps)
        .features
        .iter()
        .find(|f| {
            matches!(
                f.geom,
                Some(geo_types::Geometry::Polygon(_) | geo_types::Geometry::MultiPolygon(_))
            )
        })
        .expect("the demo has an SMP drawn as an area")
        .clone();
    let today = chrono::NaiveDate::from_ymd_opt(2027, 1, 4).unwrap();
    let by = Recorder {
        name: "Ann Field".into(),
        source: "cli".into(),
        what: "test".into(),
        law: profile.idde.clone(),
        today,
    };
    let req = serde_json::from_value(serde_json::json!(
        {"opened_on": "2026-12-01", "origin": "staff", "asset_id": pond.id}
    ))
    .unwrap();
    let r = commands::Registry {
        store: reg.store.as_ref(),
        profile: &profile,
        snap,
    };
    let answer = commands::run(
        r,
        &by,
        today.and_hms_opt(12, 0, 0).unwrap(),
        CaseCommand::Open(req),
    )
    .await
    .unwrap_or_else(|e| panic!("{kind}: {e:?}"));
    let CaseAnswer::Case(v) = answer else {
        panic!("not a case")
    };
    let stored = reg.store.features(Layer::Cases).await.unwrap();
    let case = stored.iter().find(|f| f.id == v.case.case_id).unwrap();
    let Some(geo_types::Geometry::Point(p)) = case.geom else {
        panic!("{kind}: not a point: {:?}", case.geom)
    };
    assert!(pond.geom.as_ref().unwrap().contains(&p), "{kind}: {p:?}");
}
