//! The scripted year's end: the annual report, the notice, and the cases as a layer.

use std::path::Path;

use serde_json::Value;

use super::{count, records, Town, Via};
use crate::common::*;

/// Checks the year's annual report (JSON and CSV), the notice of `case`, and the cases
/// served as features (API) or exported into `dir` (CLI).
pub(super) async fn the_year_in_the_report(t: &Town, case: &str, dir: &Path) {
    // The annual report for 2026, by hand: OF-1, OF-2, OF-3 in the inventory, all mapped;
    // OF-1 (14 May) and OF-2 (4 May) screened in dry weather, 2 of 3; the 12 May
    // screening not counted; two cases opened and closed; one illicit discharge found
    // and eliminated (C-SEW); one notice (action 2 of case 1), one citation (action 4),
    // $750 in fines.
    let rep: Value = serde_json::from_str(
        &t.get(
            "/api/report",
            &[("year", "2026")],
            &["report", "--year", "2026", "--format", "json"],
        )
        .await,
    )
    .unwrap();
    assert_eq!(rep["period"]["from"], "2026-01-01");
    assert_eq!(rep["period"]["to"], "2026-12-31");
    assert_eq!(
        records(&rep, "outfalls_in_inventory"),
        ["OF-1", "OF-2", "OF-3"]
    );
    assert_eq!(records(&rep, "outfalls_mapped").len(), 3);
    assert_eq!(records(&rep, "outfalls_screened"), ["OF-1", "OF-2"]);
    assert_eq!(count(&rep, "outfalls_screened")["denominator"][1], 3);
    assert_eq!(
        count(&rep, "outfalls_screened")["period"]["from"],
        "2026-01-01"
    );
    assert!(count(&rep, "outfalls_screened_cumulative")["period"]["from"].is_null());
    // A recorded inspection's id is its asset, day and kind, then a part of its own.
    let recorded = |measure: &str| -> Vec<String> {
        records(&rep, measure)
            .iter()
            .map(|r| {
                r.rsplit_once(':')
                    .map_or(r.as_str(), |(head, _)| head)
                    .to_string()
            })
            .collect()
    };
    assert_eq!(
        recorded("dry_weather_screenings"),
        [
            "OF-1:2026-05-14:dry_weather_screening",
            "OF-2:2026-05-04:dry_weather_screening"
        ]
    );
    assert_eq!(
        recorded("screenings_not_dry_weather"),
        ["OF-1:2026-05-12:dry_weather_screening"]
    );
    assert_eq!(
        records(&rep, "cases_opened"),
        ["CASE-2026-0001", "CASE-2026-0002"]
    );
    assert_eq!(
        records(&rep, "cases_closed"),
        ["CASE-2026-0001", "CASE-2026-0002"]
    );
    assert_eq!(
        records(&rep, "illicit_discharges_found"),
        ["CASE-2026-0001"]
    );
    assert_eq!(
        records(&rep, "illicit_discharges_eliminated"),
        ["CASE-2026-0001"]
    );
    assert_eq!(records(&rep, "illicit_connections_eliminated"), ["C-SEW"]);
    assert_eq!(records(&rep, "notices"), ["CASE-2026-0001#2"]);
    assert_eq!(records(&rep, "citations"), ["CASE-2026-0001#4"]);
    assert_eq!(count(&rep, "fines_accrued")["dollars"], 750.0);
    assert!(records(&rep, "outfalls_not_found").is_empty());
    // The same as CSV: one row per count, the records joined.
    let csv = t
        .get(
            "/api/report",
            &[("year", "2026"), ("format", "csv")],
            &["report", "--year", "2026", "--format", "csv"],
        )
        .await;
    assert!(
        csv.lines().any(|l| l.starts_with("outfalls_screened,")
            && l.contains(",2,")
            && l.ends_with("OF-1;OF-2")),
        "{csv}"
    );
    // The notice prints the owner and address from the parcel when the case names one.
    let notice = t
        .get(
            &format!("/api/cases/{case}/notice"),
            &[],
            &["case", "notice", case],
        )
        .await;
    assert!(
        notice.contains("<!DOCTYPE html>")
            && notice.contains("The elimination of illicit discharges or connections"),
        "{notice}"
    );

    // Cases are a layer like the others: served as OGC features and exported.
    match t.via {
        Via::Api => {
            let base = &t.server.as_ref().unwrap().base;
            let items: Value = t
                .server
                .as_ref()
                .unwrap()
                .get(format!("{base}/collections/cases/items"))
                .bearer_auth(&t.token)
                .send()
                .await
                .json();
            let ids: Vec<&str> = items["features"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["properties"]["case_id"].as_str().unwrap())
                .collect();
            assert_eq!(ids, ["CASE-2026-0001", "CASE-2026-0002"], "{items}");
            assert_eq!(items["features"][0]["geometry"]["type"], "Point");
        }
        Via::Cli => {
            let out = dir.join("cases.geojson");
            run_ok(&t.url, &["export", "cases", out.to_str().unwrap()]);
            let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
            assert_eq!(v["features"].as_array().unwrap().len(), 2, "{v}");
        }
    }
}
