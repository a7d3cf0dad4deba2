//! Units on `--map` (and an upload's `map` parts): values converted into the field's own
//! unit and said in the report, unknown units and non-numbers refused by name, diameters
//! that look like feet warned of; a dry run's counts of what the write would do; the ids
//! and extent of the features a write changed.

use super::*;

/// Pipes in WGS 84 inside North Castle: (asset_id, SPAN), SPAN as given (a number or
/// text); each a short line a little east of the last.
fn pipes(rows: &[(&str, serde_json::Value)]) -> String {
    let features: Vec<serde_json::Value> = rows
        .iter()
        .enumerate()
        .map(|(i, (id, span))| {
            let x = -73.853 + i as f64 * 1e-3;
            serde_json::json!({"type": "Feature",
                "properties": {"asset_id": id, "SPAN": span, "MAT": "RCP"},
                "geometry": {"type": "LineString", "coordinates": [[x, 41.22], [x + 5e-4, 41.2205]]}})
        })
        .collect();
    serde_json::json!({"type": "FeatureCollection", "features": features}).to_string()
}

fn write_file(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// A stored pipe's value of a field.
async fn stored(store: &str, layer: Layer, id: &str, field: &str) -> Value {
    let s = ms4::store::open(store).await.unwrap();
    let f = s
        .features(layer)
        .await
        .unwrap()
        .into_iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("{id} stored"));
    f.values[layer.field_index(field).unwrap()].clone()
}

#[rstest]
#[case::feet_to_inches("diameter_in", "ft", 2.0, 24.0)]
#[case::inches_stay_inches("diameter_in", "in", 18.0, 18.0)]
#[case::metres_to_inches("diameter_in", "m", 0.3, 11.811_023_622)]
#[case::millimetres_to_inches("diameter_in", "mm", 300.0, 11.811_023_622)]
#[case::centimetres_to_inches("diameter_in", "cm", 30.48, 12.0)]
#[case::inches_to_the_registrys_us_feet("from_invert", "in", 120.0, 9.999_98)]
#[case::feet_to_the_registrys_us_feet("from_invert", "feet", 100.0, 99.999_8)]
#[tokio::test]
async fn a_mapped_unit_is_converted_into_the_fields_own_and_said(
    #[case] field: &str,
    #[case] unit: &str,
    #[case] value: f64,
    #[case] expected: f64,
) {
    let (dir, store) = cli_registry();
    let file = write_file(
        dir.path(),
        "pipes.geojson",
        &pipes(&[("P-1", value.into()), ("P-2", value.into())]),
    );
    let map = format!("{field}=SPAN:{unit}");
    let out = run_ok(
        &store,
        &["import", "pipes", &file, "--map", &map, "--format", "json"],
    );
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let to = if field == "diameter_in" { "in" } else { "ftUS" };
    let from = ms4::import::map_unit::SourceUnit::parse(unit)
        .unwrap()
        .symbol;
    assert_eq!(
        report["units"],
        serde_json::json!([{"field": field, "source_field": "SPAN", "from": from, "to": to, "values": 2}]),
        "{out}"
    );
    assert_eq!(
        stored(&store, Layer::Pipes, "P-1", field).await,
        Value::Real(expected)
    );
    // The table says it too.
    let (dir2, store2) = cli_registry();
    let file2 = write_file(
        dir2.path(),
        "pipes.geojson",
        &pipes(&[("P-1", value.into())]),
    );
    let table = run_ok(&store2, &["import", "pipes", &file2, "--map", &map]);
    assert!(
        table.contains(&format!(
            "unit       {field} <- SPAN: 1 values from {from} to {to}"
        )),
        "{table}"
    );
}

#[rstest]
#[case::unknown_unit("diameter_in=SPAN:yards", "--map diameter_in=SPAN:yards: \"yards\" is not a unit ms4 converts; give one of in, ft, ftUS, m, cm, mm")]
#[case::not_a_length("material=MAT:ft", "--map material=MAT:ft: pipes.material is not a length, so it takes no unit; the lengths of pipes are: diameter_in, from_invert, to_invert")]
#[tokio::test]
async fn a_wrong_unit_is_refused_naming_the_mapping_and_nothing_is_written(
    #[case] map: &str,
    #[case] says: &str,
) {
    let (dir, store) = cli_registry();
    let file = write_file(dir.path(), "pipes.geojson", &pipes(&[("P-1", 2.into())]));
    let err = run_err(&store, &["import", "pipes", &file, "--map", map]);
    assert!(err.contains(says), "{err}");
    let s = ms4::store::open(&store).await.unwrap();
    assert_eq!(s.count(Layer::Pipes).await.unwrap(), 0);
}

#[test]
fn a_value_that_is_no_number_is_a_rejected_feature_naming_field_and_value() {
    let (dir, store) = cli_registry();
    let file = write_file(
        dir.path(),
        "pipes.geojson",
        &pipes(&[("P-1", 2.into()), ("P-2", "two".into())]),
    );
    let out = run_ok(
        &store,
        &[
            "import",
            "pipes",
            &file,
            "--map",
            "diameter_in=SPAN:ft",
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (r["imported"].as_u64(), r["rejected"].as_u64()),
        (Some(1), Some(1))
    );
    let note = &r["rejections"][0];
    assert_eq!(note["id"], "P-2");
    assert_eq!(note["field"], "diameter_in");
    assert_eq!(
        note["reason"],
        "field diameter_in: \"two\" is not a number, so it cannot be converted from ft to in"
    );
}

#[rstest]
#[case::feet(&[1.0, 1.5, 2.0, 2.5], Some("ft"))]
#[case::millimetres(&[300.0, 450.0, 600.0, 375.0], Some("mm"))]
#[case::inches(&[12.0, 15.0, 18.0, 24.0], None)]
fn diameters_that_look_like_another_unit_are_a_warning_not_a_refusal(
    #[case] spans: &[f64],
    #[case] suggested: Option<&str>,
) {
    let (dir, store) = cli_registry();
    let rows: Vec<(String, serde_json::Value)> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (format!("P-{i}"), (*s).into()))
        .collect();
    let rows: Vec<(&str, serde_json::Value)> =
        rows.iter().map(|(i, s)| (i.as_str(), s.clone())).collect();
    let file = write_file(dir.path(), "pipes.geojson", &pipes(&rows));
    let out = run_ok(
        &store,
        &[
            "import",
            "pipes",
            &file,
            "--map",
            "diameter_in=SPAN",
            "--format",
            "json",
        ],
    );
    let r: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(r["imported"].as_u64(), Some(spans.len() as u64), "{out}");
    match suggested {
        None => assert!(r.get("unit_warnings").is_none(), "{out}"),
        Some(unit) => {
            let w = &r["unit_warnings"][0];
            assert_eq!(w["layer"], "pipes");
            assert_eq!(w["field"], "diameter_in");
            assert_eq!(w["unit"], "in");
            assert_eq!(w["values"], 4);
            assert_eq!(w["share"], 1.0);
            assert_eq!(w["suggested_unit"], unit);
            let says = format!("--map diameter_in=SPAN:{unit}");
            assert!(w["message"].as_str().unwrap().contains(&says), "{w}");
            let warnings = r["warnings"].to_string();
            assert!(warnings.contains(&says), "{warnings}");
        }
    }
}

/// A layer of three pipes (P-1, P-2, P-3), then a file that keeps P-1, changes P-2,
/// drops P-3 and brings P-4: what a dry run says the replace would do is what the
/// replace then does, and the changed features are named and framed.
#[test]
fn a_dry_run_counts_what_the_write_would_do_as_the_write_then_does() {
    let (dir, store) = cli_registry();
    let first = write_file(
        dir.path(),
        "first.geojson",
        &pipes(&[("P-1", 12.into()), ("P-2", 15.into()), ("P-3", 18.into())]),
    );
    run_ok(&store, &["import", "pipes", &first]);
    let second = write_file(
        dir.path(),
        "second.geojson",
        &pipes(&[("P-1", 12.into()), ("P-2", 24.into()), ("P-4", 30.into())]),
    );
    let import = |extra: &[&str]| {
        let mut args = vec![
            "import",
            "pipes",
            second.as_str(),
            "--replace",
            "--allow-mass-delete",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let out = run_ok(&store, &args);
        serde_json::from_str::<serde_json::Value>(&out).unwrap()
    };
    let dry = import(&["--dry-run"]);
    let counts = serde_json::json!({"inserted": 1, "updated": 1, "unchanged": 1, "deleted": 1});
    assert_eq!(dry["would_write"], counts, "{dry}");
    assert!(dry["written"].is_null());
    // P-4 is the last line, P-2 the second: the box holds both, in degrees.
    assert_eq!(dry["changed"]["ids"], serde_json::json!(["P-2", "P-4"]));
    assert_eq!(dry["changed"]["more"], 0);
    let e = dry["changed"]["extent"].as_array().unwrap();
    let e: Vec<f64> = e.iter().map(|v| v.as_f64().unwrap()).collect();
    // The registry's box of them, in degrees: it holds them, and little more (the
    // State Plane grid is turned a little from the meridians).
    let truth = [-73.852, 41.22, -73.8505, 41.2205];
    assert!(e[0] <= truth[0] && e[1] <= truth[1], "{e:?}");
    assert!(e[2] >= truth[2] && e[3] >= truth[3], "{e:?}");
    assert!(
        e.iter().zip(truth).all(|(a, b)| (a - b).abs() < 1e-4),
        "{e:?}"
    );
    let table = run_ok(
        &store,
        &[
            "import",
            "pipes",
            &second,
            "--replace",
            "--allow-mass-delete",
            "--dry-run",
        ],
    );
    assert!(
        table.contains("would write 1 inserted, 1 updated, 1 unchanged, 1 deleted (dry run)"),
        "{table}"
    );

    let done = import(&[]);
    let w = &done["written"];
    assert_eq!(
        serde_json::json!({"inserted": w["inserted"], "updated": w["updated"],
            "unchanged": w["unchanged"], "deleted": w["deleted"]}),
        counts,
        "{done}"
    );
    assert!(done.get("would_write").is_none());
    // The write takes a chunk's new features before its changed ones: the same ids.
    let mut ids: Vec<String> = serde_json::from_value(done["changed"]["ids"].clone()).unwrap();
    ids.sort();
    assert_eq!(ids, ["P-2", "P-4"]);
    assert_eq!(done["changed"]["extent"], dry["changed"]["extent"]);
    // Again: nothing would change, and nothing is framed.
    let again = import(&["--dry-run"]);
    assert_eq!(
        again["would_write"],
        serde_json::json!({"inserted": 0, "updated": 0, "unchanged": 3, "deleted": 0})
    );
    assert_eq!(again["changed"], serde_json::json!({"ids": [], "more": 0}));
}

/// The upload takes the same mapping syntax (one parser), and answers the same report:
/// the conversion, the dry run's counts (those the write then makes), the changed
/// features' ids and extent; on both stores.
#[rstest]
#[case::geopackage("sqlite")]
#[case::postgis("postgis")]
#[tokio::test]
async fn an_upload_converts_a_mapped_unit_and_counts_as_the_command_line(#[case] kind: &str) {
    if kind == "postgis" && pg_base().is_none() {
        return;
    }
    let reg = registry(kind, 2260).await;
    let t = token(&reg.url, "analyst", "Analyst", &[]);
    let app = App::new(&reg.store).await;
    let ft = ("map", "diameter_in=SPAN:ft");
    let first = pipes(&[("P-1", 2.into()), ("P-2", 1.5.into()), ("P-3", 1.into())]);
    let send = |file: &str, extra: &[(&'static str, &'static str)]| {
        let mut parts = vec![ft];
        parts.extend_from_slice(extra);
        let (app, t, bytes) = (app.clone(), t.clone(), file.as_bytes().to_vec());
        async move { upload(&app, &t, "pipes", "pipes.geojson", bytes, &parts).await }
    };

    let (s, body) = send(&first, &[("dry_run", "true")]).await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(
        body["would_write"],
        serde_json::json!({"inserted": 3, "updated": 0, "unchanged": 0, "deleted": 0})
    );
    assert_eq!(
        body["changed"]["ids"],
        serde_json::json!(["P-1", "P-2", "P-3"])
    );
    assert_eq!(reg.store.count(Layer::Pipes).await.unwrap(), 0);

    let (s, body) = send(&first, &[]).await;
    assert_eq!(s, 201, "{body}");
    assert_eq!(
        body["units"],
        serde_json::json!([{"field": "diameter_in", "source_field": "SPAN", "from": "ft", "to": "in", "values": 3}])
    );
    assert_eq!(body["written"]["inserted"], 3);
    assert_eq!(
        body["changed"]["ids"],
        serde_json::json!(["P-1", "P-2", "P-3"])
    );
    assert_eq!(body["changed"]["extent"].as_array().map(Vec::len), Some(4));
    assert_eq!(
        stored(&reg.url, Layer::Pipes, "P-2", "diameter_in").await,
        Value::Real(18.0)
    );

    // P-1 the same, P-2 wider, P-3 gone, P-4 new.
    let second = pipes(&[("P-1", 2.into()), ("P-2", 2.5.into()), ("P-4", 3.into())]);
    let replace = [("replace", "true"), ("allow_mass_delete", "true")];
    let (s, dry) = send(&second, &[replace[0], replace[1], ("dry_run", "true")]).await;
    assert_eq!(s, 200, "{dry}");
    let counts = serde_json::json!({"inserted": 1, "updated": 1, "unchanged": 1, "deleted": 1});
    assert_eq!(dry["would_write"], counts, "{dry}");
    let (s, done) = send(&second, &replace).await;
    assert_eq!(s, 201, "{done}");
    let w = &done["written"];
    assert_eq!(
        serde_json::json!({"inserted": w["inserted"], "updated": w["updated"],
            "unchanged": w["unchanged"], "deleted": w["deleted"]}),
        counts,
        "{done}"
    );
    assert_eq!(done["changed"]["extent"], dry["changed"]["extent"]);

    let (s, body) = upload(
        &app,
        &t,
        "pipes",
        "pipes.geojson",
        pipes(&[("P-1", 2.into())]).into_bytes(),
        &[("map", "diameter_in=SPAN:yards")],
    )
    .await;
    assert_eq!(s, 400, "{body}");
    assert_eq!(body["field"], "map");
    assert!(
        body["error"]
            .as_str()
            .unwrap()
            .contains("diameter_in=SPAN:yards"),
        "{body}"
    );
}

/// The profile's record tolerance (25 ft) is answered in the registry's unit without a
/// conversion's float noise: 24.99995 ftUS, not 24.999950000000002.
#[test]
fn a_tolerance_in_feet_is_answered_in_us_feet_without_float_noise() {
    let (_dir, store) = cli_registry();
    let out = run_ok(&store, &["illicit", "--format", "json"]);
    let a: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        a["record_tolerance"],
        serde_json::json!({"value": 24.99995, "unit": "ftUS"}),
        "{out}"
    );
}
