//! Spatial answers on real data, checked against PostGIS computing the same thing.

mod common;

use std::collections::HashMap;

use common::*;
use geo_types::{Geometry, Point};
use ms4::domain::Layer;
use ms4::import::{import, ImportOptions};
use ms4::spatial::query::{self, NearbyQuery};
use ms4::spatial::Snapshot;

async fn tacoma_in_postgis() -> Option<(Registry, sqlx::PgPool)> {
    pg_base()?;
    let reg = registry("postgis", 2927).await;
    let mut o = ImportOptions::new(
        Layer::Outfalls,
        fixture("tacoma/ActiveSurfacewaterDischargePoint.geojson"),
    );
    o.maps = vec![("asset_id".into(), "ALTID".into())];
    import(reg.store.clone(), o).await.unwrap();
    let mut w = ImportOptions::new(
        Layer::Watersheds,
        fixture("tacoma/SurfacewaterSubbasinOutline.geojson"),
    );
    w.maps = vec![("watershed_id".into(), "SUBBASIN".into())];
    import(reg.store.clone(), w).await.unwrap();
    let pool = sqlx::PgPool::connect(&reg.url).await.unwrap();
    Some((reg, pool))
}

fn point_of(g: &Option<Geometry<f64>>) -> Point<f64> {
    match g {
        Some(Geometry::Point(p)) => *p,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn tacoma_subbasin_join_equals_postgis_and_the_city_but_for_swdp_100586() {
    let Some((reg, pool)) = tacoma_in_postgis().await else {
        return;
    };
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let sql: Vec<(String, String)> = sqlx::query_as(
        "SELECT o.asset_id, w.watershed_id FROM outfalls o JOIN watersheds w ON ST_Intersects(o.geom, w.geom)",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let mut postgis: HashMap<String, Vec<String>> = HashMap::new();
    for (o, w) in sql {
        postgis.entry(o).or_default().push(w);
    }
    let (mut agree, mut disagree, mut no_city_value, mut in_none) = (0, Vec::new(), 0, 0);
    for f in &snap.layer(Layer::Outfalls).features {
        let ours: Vec<String> =
            query::containing(snap.layer(Layer::Watersheds), &point_of(&f.geom))
                .into_iter()
                .map(|w| w.id.clone())
                .collect();
        let mut theirs = postgis.remove(&f.id).unwrap_or_default();
        theirs.sort();
        assert_eq!(ours, theirs, "{}: our join and ST_Intersects differ", f.id);
        let city = f
            .extra
            .get("SUBBASIN")
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty());
        match (ours.first(), city) {
            (None, _) => in_none += 1,
            (Some(_), None) => no_city_value += 1,
            (Some(w), Some(c)) if w == c => agree += 1,
            (Some(_), Some(_)) => disagree.push(f.id.clone()),
        }
    }
    assert_eq!(disagree, ["SWDP-100586"]);
    assert_eq!((agree, no_city_value, in_none), (801, 91, 66));
}

#[tokio::test]
async fn nearby_distances_equal_st_distance() {
    let Some((reg, pool)) = tacoma_in_postgis().await else {
        return;
    };
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let outfalls = &snap.layer(Layer::Outfalls).features;
    let mut checked = 0;
    for f in outfalls.iter().step_by(37) {
        let p = point_of(&f.geom);
        let at = Point::new(p.x() + 137.5, p.y() - 52.25);
        let q = NearbyQuery {
            at,
            radius: Some(500.0),
            k: Some(10),
            layers: vec![Layer::Outfalls],
        };
        let ours = query::nearby(&snap, &q);
        let theirs: Vec<(String, f64)> = sqlx::query_as(
            "SELECT asset_id, ST_Distance(geom, ST_SetSRID(ST_MakePoint($1, $2), 2927)) AS d FROM outfalls
             WHERE ST_DWithin(geom, ST_SetSRID(ST_MakePoint($1, $2), 2927), 500) ORDER BY d, asset_id LIMIT 10",
        )
        .bind(at.x())
        .bind(at.y())
        .fetch_all(&pool)
        .await
        .unwrap();
        assert_eq!(ours.len(), theirs.len(), "near {}", f.id);
        for (a, (id, d)) in ours.iter().zip(&theirs) {
            assert!(
                (a.distance - d).abs() < 0.01,
                "{}: {} vs {d}",
                a.id,
                a.distance
            );
            if a.id != *id {
                // Only a tie may order differently.
                assert!(
                    theirs
                        .iter()
                        .any(|(i, dd)| *i == a.id && (dd - a.distance).abs() < 1e-6),
                    "{} not in {theirs:?}",
                    a.id
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 25);
}

/// The demo town's network in PostGIS, with its edges resolved in SQL by the same rules:
/// from/to ids where they name a structure, else the nearest structure within the snap
/// tolerance of the pipe's end; direction from the ids, else the inverts, else as drawn.
const EDGES_SQL: &str = "
CREATE TEMP TABLE s AS
  SELECT asset_id AS id, geom FROM catch_basins UNION ALL
  SELECT asset_id, geom FROM manholes UNION ALL
  SELECT asset_id, geom FROM outfalls;
CREATE INDEX ON s USING gist (geom);
CREATE INDEX ON s (id);
CREATE TEMP TABLE e AS
WITH ends AS (
  SELECT p.asset_id, p.from_id, p.to_id, p.from_invert, p.to_invert,
    COALESCE((SELECT id FROM s WHERE id = p.from_id),
      (SELECT id FROM s WHERE ST_DWithin(s.geom, ST_StartPoint(ST_GeometryN(p.geom, 1)), 0.999998)
       ORDER BY s.geom <-> ST_StartPoint(ST_GeometryN(p.geom, 1)) LIMIT 1)) AS a,
    COALESCE((SELECT id FROM s WHERE id = p.to_id),
      (SELECT id FROM s WHERE ST_DWithin(s.geom, ST_EndPoint(ST_GeometryN(p.geom, ST_NumGeometries(p.geom))), 0.999998)
       ORDER BY s.geom <-> ST_EndPoint(ST_GeometryN(p.geom, ST_NumGeometries(p.geom))) LIMIT 1)) AS b
  FROM pipes p)
SELECT asset_id,
  CASE WHEN from_id IS NULL AND to_id IS NULL AND from_invert < to_invert THEN b ELSE a END AS up_node,
  CASE WHEN from_id IS NULL AND to_id IS NULL AND from_invert < to_invert THEN a ELSE b END AS down_node
FROM ends;";

#[tokio::test]
async fn upstream_trace_equals_a_recursive_sql_walk() {
    let Some(_) = pg_base() else { return };
    let reg = registry("postgis", 2260).await;
    for layer in [
        Layer::CatchBasins,
        Layer::Manholes,
        Layer::Outfalls,
        Layer::Pipes,
    ] {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/demo")
            .join(format!("{layer}.gpkg"));
        import(reg.store.clone(), ImportOptions::new(layer, file))
            .await
            .unwrap();
    }
    let snap = Snapshot::load(reg.store.as_ref()).await.unwrap();
    let net = ms4::spatial::network::Network::from_snapshot(
        &snap,
        ms4::spatial::network::NetworkOptions::new(0.999998),
    );
    let pool = sqlx::PgPool::connect(&reg.url).await.unwrap();
    let mut conn = pool.acquire().await.unwrap();
    sqlx::raw_sql(EDGES_SQL).execute(&mut *conn).await.unwrap();
    let mut compared = 0;
    for o in snap.layer(Layer::Outfalls).features.iter().take(25) {
        let t = net
            .trace(&o.id, ms4::spatial::network::Direction::Upstream)
            .unwrap();
        let sql: Vec<(String,)> = sqlx::query_as(
            "WITH RECURSIVE up(node) AS (SELECT $1::text UNION SELECT e.up_node FROM e JOIN up ON e.down_node = up.node WHERE e.up_node IS NOT NULL)
             SELECT node FROM up",
        )
        .bind(&o.id)
        .fetch_all(&mut *conn)
        .await
        .unwrap();
        let mut theirs: Vec<String> = sql.into_iter().map(|(n,)| n).collect();
        theirs.sort();
        let mut ours = t.structures.clone();
        ours.sort();
        assert_eq!(ours, theirs, "upstream of {}", o.id);
        compared += ours.len();
    }
    assert!(compared > 100, "{compared}");
}
