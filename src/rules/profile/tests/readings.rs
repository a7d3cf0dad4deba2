//! Every reading the code reads is typed: the built-in text reads as its variant, and a
//! misspelt word, an unknown key, a missing key or a missing reading is refused at load with
//! the file, the key and the line.

use rstest::rstest;

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

/// North Castle's AMB-05 with one edit (from, to): refused, naming the file, the setting,
/// its line and these words.
#[rstest]
#[case::sump_pump_reading_misspelt(
    "basement_sump_pump = \"exempt\"",
    "basement_sump_pump = \"exmept\"",
    &["exmept", "exempt", "review"]
)]
#[case::conveyance_reading_misspelt(
    "reading = \"chapeau\"",
    "reading = \"chapo\"",
    &["chapo", "chapeau"]
)]
#[case::sump_pump_reading_missing(
    ", basement_sump_pump = \"exempt\" }",
    " }",
    &["basement_sump_pump"]
)]
#[case::an_unknown_key(
    "reading = \"chapeau\",",
    "reading = \"chapeau\", sump = 1,",
    &["sump"]
)]
#[case::floor_drains_not_indoor_drains(
    "floor_drains_are_indoor_drains = true",
    "floor_drains_are_indoor_drains = false",
    &["floor_drains_are_indoor_drains"]
)]
fn amb05_misspelt_unknown_or_missing_is_refused(
    #[case] from: &str,
    #[case] to: &str,
    #[case] words: &[&str],
) {
    names(&refused(from, to), "AMB-05.setting", words, AMB05);
}

/// A family that reads a table setting needs it: a profile of that family without it is
/// refused, naming the assumption.
#[rstest]
// The illicit-discharge family reads AMB-05.
#[case::amb05("AMB-05")]
#[case::amb07("AMB-07")]
fn a_table_reading_left_out_is_refused(#[case] amb: &str) {
    let err = refused(&format!("[assumptions.{amb}]\n"), "[assumptions.AMB-99]\n");
    assert!(
        err.contains(&format!("assumptions.{amb}")) && err.contains("give its setting"),
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

/// North Castle's AMB-06 with one edit (from, to): refused, naming the file, the setting,
/// its line and these words.
#[rstest]
#[case::plan_duty_misspelt(
    "pollutant_reduction_plan = \"separate_duty\"",
    "pollutant_reduction_plan = \"seperate_duty\"",
    &["seperate_duty", "separate_duty"]
)]
#[case::sampling_not_a_boolean(
    "catch_all_requires_sampling = true",
    "catch_all_requires_sampling = \"yes\"",
    &["yes"]
)]
// North Castle's exempt list has a plan condition: the plan key cannot be left out.
#[case::plan_duty_missing(
    "pollutant_reduction_plan = \"separate_duty\", ",
    "",
    &["pollutant_reduction_plan is missing"]
)]
#[case::sampling_missing(
    ", catch_all_requires_sampling = true }",
    " }",
    &["catch_all_requires_sampling is missing"]
)]
// "No general condition" contradicts an exempt list with the plan condition.
#[case::no_general_condition_beside_a_plan_condition(
    AMB06,
    "setting = { conditions = \"none\" }",
    &["no general condition"]
)]
fn amb06_misspelt_unknown_or_missing_is_refused(
    #[case] from: &str,
    #[case] to: &str,
    #[case] words: &[&str],
) {
    names(&refused(from, to), "AMB-06.setting", words, AMB06);
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

/// North Castle's AMB-07 with one edit (from, to): refused, naming the file, the setting,
/// its line and these words.
#[rstest]
#[case::method_misspelt(
    "method = \"trace_and_watershed\"",
    "method = \"trace_or_watershed\"",
    &["trace_or_watershed", "trace_and_watershed"]
)]
#[case::steps_not_a_number("downstream_steps = 10", "downstream_steps = \"ten\"", &["ten"])]
#[case::an_unknown_key(
    "downstream_steps = 10",
    "downstream_step = 10",
    &["downstream_step"]
)]
#[case::share_missing("min_watershed_share = 0.01, ", "", &["min_watershed_share"])]
#[case::share_over_one(
    "min_watershed_share = 0.01",
    "min_watershed_share = 1.5",
    &["min_watershed_share 1.5"]
)]
fn amb07_misspelt_unknown_or_missing_is_refused(
    #[case] from: &str,
    #[case] to: &str,
    #[case] words: &[&str],
) {
    names(&refused(from, to), "AMB-07.setting", words, AMB07);
}

/// Carmel's text (ny-conditions), which reads AMB-08, AMB-09, AMB-12, AMB-14 and AMB-30.
fn carmel() -> &'static str {
    BUILTIN[1].1
}

/// A word reading misspelt is refused with the file, the setting and its line.
#[rstest]
#[case::amb08("AMB-08")]
#[case::amb09("AMB-09")]
#[case::amb12("AMB-12")]
fn a_word_reading_misspelt_is_refused(#[case] amb: &str) {
    let carmel = carmel();
    let head = format!("[assumptions.{amb}]\nsetting = \"");
    let at = carmel.find(&head).unwrap_or_else(|| panic!("{amb}")) + head.len();
    let mut text = carmel.to_string();
    text.insert(at, 'x');
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
}

/// A word reading the family reads, left out, is refused naming the assumption.
#[rstest]
#[case::amb08("AMB-08")]
#[case::amb09("AMB-09")]
#[case::amb12("AMB-12")]
#[case::amb14("AMB-14")]
#[case::amb30("AMB-30")]
fn a_word_reading_left_out_is_refused(#[case] amb: &str) {
    let text = carmel().replacen(
        &format!("[assumptions.{amb}]\n"),
        "[assumptions.AMB-99]\n",
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
