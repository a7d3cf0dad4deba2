//! Every number of a profile has a range: a value out of it is refused at load, naming the
//! file, the key and the line it is written on; every profile in `data/jurisdictions`
//! is within them.

use rstest::rstest;

use super::super::builtin::BUILTIN;
use super::*;

/// The 1-based line of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line {needle:?}"))
        + 1
}

/// Built-in profile `town` (0 North Castle, 1 Carmel, 2 Windsor) with `from` replaced by
/// `to` is refused naming `key`, the line `to` is written on and the range.
#[rstest]
#[case::business_days(
    2,
    "business_days = 10",
    "business_days = 100000000",
    "idde.deadlines[3].business_days"
)]
#[case::hours(2, "hours = 72", "hours = 4294967295", "idde.deadlines[0].hours")]
#[case::mail_allowance(
    2,
    "mail_business_days = 3",
    "mail_business_days = 365",
    "idde.deadlines[0].mail_business_days"
)]
#[case::calendar_days(0, "days = 30", "days = 36500", "idde.deadlines[1].days")]
#[case::fine_per_zero_hours(2, "per_hours = 24", "per_hours = 0", "idde.fines[1].per_hours")]
#[case::fine_amount(
    2,
    "amount = 250\nper_hours",
    "amount = 1e12\nper_hours",
    "idde.fines[1].amount"
)]
#[case::fine_per_zero_days(0, "per_days = 1", "per_days = 0", "idde.fines[0].per_days")]
#[case::penalty_window(
    0,
    "window_years = 5",
    "window_years = 5000",
    "idde.penalty_tiers[0].window_years"
)]
#[case::continued_violation(
    0,
    "continued_per_days = 7",
    "continued_per_days = 99999",
    "idde.penalty_tiers[0].continued_per_days"
)]
#[case::penalty_tier(
    0,
    "{ min = 700, max = 1000 }",
    "{ min = 700, max = 1e15 }",
    "idde.penalty_tiers[0].tiers[2].max"
)]
#[case::appeal_days(
    1,
    "appeal_days = 15",
    "appeal_days = 0",
    "idde.land_development_notice.appeal_days"
)]
#[case::dry_weather(
    0,
    "dry_weather_hours = 48",
    "dry_weather_hours = 100000",
    "idde.dry_weather_hours"
)]
#[case::inspection_every(
    0,
    "every = 7",
    "every = 100000",
    "inspections.construction_routine.every"
)]
#[case::inspection_within_hours(
    1,
    "within = 24",
    "within = 1000000",
    "inspections.construction_storm.within"
)]
#[case::rainfall(
    1,
    "min_rainfall_inches = 0.5",
    "min_rainfall_inches = 500",
    "inspections.construction_storm.min_rainfall_inches"
)]
#[case::tolerance(
    0,
    "snap_tolerance = { value = 1.0,",
    "snap_tolerance = { value = 100000.0,",
    "tolerances.snap_tolerance.value"
)]
#[case::threshold(
    1,
    "value = 5000\nunit = \"sqft\"",
    "value = 1e12\nunit = \"sqft\"",
    "thresholds.land_development_activity.value"
)]
#[case::epsg(0, "epsg = 2260", "epsg = 4000000000", "crs_hint.epsg")]
#[case::downstream_steps(
    0,
    "downstream_steps = 10",
    "downstream_steps = 1000000",
    "assumptions.AMB-07.setting.downstream_steps"
)]
fn a_number_out_of_its_range_is_refused_naming_key_and_line(
    #[case] town: usize,
    #[case] from: &str,
    #[case] to: &str,
    #[case] key: &str,
) {
    let (id, text) = BUILTIN[town];
    assert!(text.contains(from), "fixture text not found: {from:?}");
    let text = text.replacen(from, to, 1);
    let name = format!("{id}.toml");
    let err = Profile::from_toml_str(&text, &name).unwrap_err();
    let msg = err.to_string();
    let want_line = line_of(&text, to.lines().next().unwrap());
    match &err {
        ProfileError::Invalid { key: k, line, .. } => {
            assert_eq!(k, key, "{msg}");
            assert_eq!(*line, Some(want_line), "{msg}");
        }
        other => panic!("expected a checked key, got {other}"),
    }
    assert!(msg.starts_with(&format!("{name}: {key}: ")), "{msg}");
    assert!(msg.contains(&format!("(line {want_line})")), "{msg}");
    // A number the deserializer took says its range; one it could not (4294967295 is a
    // u32, 4000000000 too) is named the same way.
    assert!(
        msg.contains("out of range") || msg.contains("must be"),
        "{msg}"
    );
}

#[test]
fn a_calendar_of_more_holidays_than_any_town_keeps_is_refused_at_the_first_too_many() {
    let (_, text) = BUILTIN[2];
    let mut text = text.to_string();
    for i in 0..120 {
        text.push_str(&format!(
            "\n[[idde.holidays]]\nname = \"Day {i}\"\nmonth = 1\nday = 2\n"
        ));
    }
    let err = Profile::from_toml_str(&text, "windsor-ct.toml").unwrap_err();
    assert_eq!(
        err.key(),
        Some(format!("idde.holidays[{}]", super::super::bounds::MAX_HOLIDAYS).as_str())
    );
    // Windsor lists 13 of its own: the 101st is the 88th appended.
    assert_eq!(
        match err {
            ProfileError::Invalid { line, .. } => line,
            _ => None,
        },
        Some(line_of(&text, "name = \"Day 87\"") - 1),
    );
}

#[test]
fn every_profile_in_the_data_folder_is_within_the_bounds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/jurisdictions");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        let id = path.file_stem().unwrap().to_str().unwrap();
        Profile::load(id, &dir).unwrap_or_else(|e| panic!("{e}"));
        n += 1;
    }
    assert!(n >= 3, "{n} profiles");
}
