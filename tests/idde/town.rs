//! The hand-made town: three Town outfalls (OF-3 never screened), two catch basins, and
//! three connections to CB-1 upstream of OF-1 — a sewage line from a house (illicit),
//! an undocumented drain from a shop (illicit: commercial, not approved) and a house's
//! roof drain (ok) — in Windsor's State Plane (EPSG:2234, US feet).

use std::path::Path;

use crate::common::*;

const X0: f64 = 1_010_000.0;
const Y0: f64 = 870_000.0;

/// Writes the town's files into `dir` and imports them into a new Windsor registry.
pub fn build(dir: &Path, url: &str) {
    run_ok(
        url,
        &["init", "--jurisdiction", "windsor-ct", "--crs", "EPSG:2234"],
    );
    let p = |x: f64, y: f64| (X0 + x, Y0 + y);
    let layers = [
        (
            "parcels",
            fc(&[
                feature(
                    r#""parcel_id":"P-RES","land_use":"residential","owner":"R. Homeowner","address":"1 Elm St""#,
                    &rect(X0, Y0, 200.0, 200.0),
                ),
                feature(
                    r#""parcel_id":"P-COM","land_use":"commercial","owner":"Quick Lube LLC","address":"5 Main St""#,
                    &rect(X0 + 250.0, Y0, 200.0, 200.0),
                ),
            ]),
        ),
        (
            "catch_basins",
            fc(&[
                feature(r#""asset_id":"CB-1","owner":"Town""#, &{
                    let (x, y) = p(100.0, 400.0);
                    point(x, y)
                }),
                feature(r#""asset_id":"CB-2","owner":"Town""#, &{
                    let (x, y) = p(600.0, 400.0);
                    point(x, y)
                }),
            ]),
        ),
        (
            "outfalls",
            fc(&[
                feature(r#""asset_id":"OF-1","owner":"Town""#, &{
                    let (x, y) = p(100.0, 700.0);
                    point(x, y)
                }),
                feature(r#""asset_id":"OF-2","owner":"Town""#, &{
                    let (x, y) = p(600.0, 700.0);
                    point(x, y)
                }),
                feature(r#""asset_id":"OF-3","owner":"Town""#, &{
                    let (x, y) = p(900.0, 700.0);
                    point(x, y)
                }),
            ]),
        ),
        (
            "pipes",
            fc(&[
                feature(
                    r#""asset_id":"PI-1","from_id":"CB-1","to_id":"OF-1","owner":"Town""#,
                    &line(&[p(100.0, 400.0), p(100.0, 700.0)]),
                ),
                feature(
                    r#""asset_id":"PI-2","from_id":"CB-2","to_id":"OF-2","owner":"Town""#,
                    &line(&[p(600.0, 400.0), p(600.0, 700.0)]),
                ),
            ]),
        ),
        (
            "connections",
            fc(&[
                feature(
                    r#""connection_id":"C-ROOF","discharge_kind":"stormwater","parcel_id":"P-RES","status":"active""#,
                    &line(&[p(50.0, 100.0), p(100.0, 400.0)]),
                ),
                feature(
                    r#""connection_id":"C-SHOP","discharge_kind":"stormwater","parcel_id":"P-COM","status":"active""#,
                    &line(&[p(300.0, 100.0), p(100.0, 400.0)]),
                ),
                feature(
                    r#""connection_id":"C-SEW","discharge_kind":"sewage","parcel_id":"P-RES","status":"active""#,
                    &line(&[p(150.0, 100.0), p(100.0, 400.0)]),
                ),
            ]),
        ),
    ];
    for (layer, text) in layers {
        let path = dir.join(format!("{layer}.geojson"));
        std::fs::write(&path, text).unwrap();
        let json = run_ok(
            url,
            &[
                "import",
                layer,
                path.to_str().unwrap(),
                "--s-srs",
                "EPSG:2234",
                "--format",
                "json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["rejected"], 0, "{layer}: {json}");
    }
}
