//! Every reading the code reads is typed: the built-in text reads as its variant, and a
//! misspelt word, an unknown key, a missing key or a missing reading is refused at load with
//! the file, the key and the line.

use super::super::builtin::BUILTIN;
use super::*;

/// North Castle's text (both families that read AMB-05/06/07).
fn north_castle() -> &'static str {
    BUILTIN[0].1
}

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line {needle:?}"))
        + 1
}

/// Loads North Castle with `from` replaced by `to`; returns the load error's words.
fn refused(from: &str, to: &str) -> String {
    let text = north_castle();
    assert!(text.contains(from), "fixture text not found: {from:?}");
    let text = text.replacen(from, to, 1);
    match Profile::from_toml_str(&text, "north-castle-ny.toml") {
        Ok(_) => panic!("loaded with {to:?}"),
        Err(e) => e.to_string(),
    }
}

/// Asserts an error names the file, the setting of `amb`, every word of `words` and the
/// line of `at` in North Castle's text.
fn names(err: &str, amb: &str, words: &[&str], at: &str) {
    let line = format!("line {}", line_of(north_castle(), at));
    assert!(err.contains("north-castle-ny.toml"), "{err}");
    assert!(err.contains(&format!("assumptions.{amb}")), "{err}");
    assert!(err.contains(&line), "want {line}: {err}");
    for w in words {
        assert!(err.contains(w), "want {w:?}: {err}");
    }
}

const AMB05: &str = "setting = { reading = \"chapeau\", floor_drains_are_indoor_drains = true, basement_sump_pump = \"exempt\" }";
const AMB06: &str = "setting = { pollutant_reduction_plan = \"separate_duty\", existing_diversion_baseline = \"chapter_effective_date\", catch_all_requires_sampling = true }";
const AMB07: &str = "setting = { method = \"trace_and_watershed\", min_watershed_share = 0.01, min_watershed_overlap_sqft = 100, downstream_steps = 10 }";

#[test]
fn amb05_reads_as_its_variants() {
    let nc = Profile::builtin("north-castle-ny").unwrap();
    let r = nc.table_reading::<ExemptConveyance>().expect("AMB-05 set");
    assert_eq!(r.reading, ConveyanceReading::Chapeau);
    assert_eq!(r.basement_sump_pump, SumpPumpReading::Exempt);
    let windsor = Profile::builtin("windsor-ct").unwrap();
    let r = windsor
        .table_reading::<ExemptConveyance>()
        .expect("AMB-05 set");
    assert_eq!(r.basement_sump_pump, SumpPumpReading::Review);
}

#[test]
fn amb05_misspelt_unknown_or_missing_is_refused() {
    let err = refused(
        "basement_sump_pump = \"exempt\"",
        "basement_sump_pump = \"exmept\"",
    );
    names(
        &err,
        "AMB-05.setting",
        &["exmept", "exempt", "review"],
        AMB05,
    );
    let err = refused("reading = \"chapeau\"", "reading = \"chapo\"");
    names(&err, "AMB-05.setting", &["chapo", "chapeau"], AMB05);
    let err = refused(", basement_sump_pump = \"exempt\" }", " }");
    names(&err, "AMB-05.setting", &["basement_sump_pump"], AMB05);
    let err = refused("reading = \"chapeau\",", "reading = \"chapeau\", sump = 1,");
    names(&err, "AMB-05.setting", &["sump"], AMB05);
    let err = refused(
        "floor_drains_are_indoor_drains = true",
        "floor_drains_are_indoor_drains = false",
    );
    names(
        &err,
        "AMB-05.setting",
        &["floor_drains_are_indoor_drains"],
        AMB05,
    );
    // The illicit-discharge family reads it: a profile of that family must give it.
    let err = refused("[assumptions.AMB-05]\n", "[assumptions.AMB-99]\n");
    assert!(
        err.contains("assumptions.AMB-05") && err.contains("give its setting"),
        "{err}"
    );
}

#[test]
fn amb06_reads_as_its_variants() {
    let nc = Profile::builtin("north-castle-ny").unwrap();
    let r = nc
        .table_reading::<ExemptionConditions>()
        .expect("AMB-06 set");
    assert_eq!(r.pollutant_reduction_plan, Some(PlanDuty::SeparateDuty));
    assert_eq!(
        r.existing_diversion_baseline,
        Some(DiversionBaseline::ChapterEffectiveDate)
    );
    assert_eq!(r.catch_all_requires_sampling, Some(true));
    let windsor = Profile::builtin("windsor-ct").unwrap();
    let r = windsor
        .table_reading::<ExemptionConditions>()
        .expect("AMB-06 set");
    assert_eq!(r.conditions, Some(ExemptionConditionsReading::None));
    assert_eq!(r.irrigation, Some(IrrigationScope::LandscapeOnly));
}

#[test]
fn amb06_misspelt_unknown_or_missing_is_refused() {
    let err = refused(
        "pollutant_reduction_plan = \"separate_duty\"",
        "pollutant_reduction_plan = \"seperate_duty\"",
    );
    names(
        &err,
        "AMB-06.setting",
        &["seperate_duty", "separate_duty"],
        AMB06,
    );
    let err = refused(
        "catch_all_requires_sampling = true",
        "catch_all_requires_sampling = \"yes\"",
    );
    names(&err, "AMB-06.setting", &["yes"], AMB06);
    // North Castle's exempt list has a plan condition: the plan key cannot be left out.
    let err = refused("pollutant_reduction_plan = \"separate_duty\", ", "");
    names(
        &err,
        "AMB-06.setting",
        &["pollutant_reduction_plan is missing"],
        AMB06,
    );
    let err = refused(", catch_all_requires_sampling = true }", " }");
    names(
        &err,
        "AMB-06.setting",
        &["catch_all_requires_sampling is missing"],
        AMB06,
    );
    // "No general condition" contradicts an exempt list with the plan condition.
    let err = refused(AMB06, "setting = { conditions = \"none\" }");
    names(&err, "AMB-06.setting", &["no general condition"], AMB06);
}

#[test]
fn amb07_reads_as_its_values() {
    let nc = Profile::builtin("north-castle-ny").unwrap();
    let r = nc
        .table_reading::<ReceivingWaterReading>()
        .expect("AMB-07 set");
    assert_eq!(r.method, WaterMethod::TraceAndWatershed);
    assert_eq!(r.min_watershed_share, 0.01);
    assert_eq!(r.min_watershed_overlap_sqft, 100.0);
    assert_eq!(r.downstream_steps, 10);
}

#[test]
fn amb07_misspelt_unknown_or_missing_is_refused() {
    let err = refused(
        "method = \"trace_and_watershed\"",
        "method = \"trace_or_watershed\"",
    );
    names(
        &err,
        "AMB-07.setting",
        &["trace_or_watershed", "trace_and_watershed"],
        AMB07,
    );
    let err = refused("downstream_steps = 10", "downstream_steps = \"ten\"");
    names(&err, "AMB-07.setting", &["ten"], AMB07);
    let err = refused("downstream_steps = 10", "downstream_step = 10");
    names(&err, "AMB-07.setting", &["downstream_step"], AMB07);
    let err = refused("min_watershed_share = 0.01, ", "");
    names(&err, "AMB-07.setting", &["min_watershed_share"], AMB07);
    let err = refused("min_watershed_share = 0.01", "min_watershed_share = 1.5");
    names(&err, "AMB-07.setting", &["min_watershed_share 1.5"], AMB07);
    let err = refused("[assumptions.AMB-07]\n", "[assumptions.AMB-99]\n");
    assert!(
        err.contains("assumptions.AMB-07") && err.contains("give its setting"),
        "{err}"
    );
}

#[test]
fn word_readings_misspelt_or_missing_are_refused() {
    // AMB-08, AMB-09 and AMB-12 are words; Carmel (ny-conditions) reads all three.
    let carmel = BUILTIN[1].1;
    for amb in ["AMB-08", "AMB-09", "AMB-12"] {
        let head = format!("[assumptions.{amb}]\nsetting = \"");
        let at = carmel.find(&head).unwrap_or_else(|| panic!("{amb}")) + head.len();
        let mut text = carmel.to_string();
        text.insert_str(at, "x");
        let err = Profile::from_toml_str(&text, "carmel-ny.toml")
            .unwrap_err()
            .to_string();
        let line = format!(
            "line {}",
            line_of(carmel, &head[..head.find('\n').unwrap()]) + 1
        );
        assert!(
            err.contains("carmel-ny.toml")
                && err.contains(&format!("assumptions.{amb}.setting"))
                && err.contains("unknown reading")
                && err.contains(&line),
            "{amb}: {err}"
        );
        let text = carmel.replacen(
            &format!("[assumptions.{amb}]\n"),
            &format!("[assumptions.AMB-99]\n"),
            1,
        );
        let err = Profile::from_toml_str(&text, "carmel-ny.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("assumptions.{amb}")) && err.contains("give its setting"),
            "{amb}: {err}"
        );
    }
    for amb in ["AMB-14", "AMB-30"] {
        let text = carmel.replacen(
            &format!("[assumptions.{amb}]\n"),
            &format!("[assumptions.AMB-99]\n"),
            1,
        );
        let err = Profile::from_toml_str(&text, "carmel-ny.toml")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("assumptions.{amb}")) && err.contains("give its setting"),
            "{amb}: {err}"
        );
    }
}
