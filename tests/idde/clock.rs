//! A legal clock rolls where the law of the place says so: a period of days that ends on
//! a Saturday, Sunday or public holiday runs to the next business day in New York (N.Y.
//! General Construction Law § 25-a, the NY profiles' AMB-17), and New York keeps a
//! Saturday holiday on the Saturday (§ 24 moves only a Sunday's, to the Monday). Cases at
//! the law's words, each with a counter-case, and every day of five years.

use chrono::{Datelike, NaiveDate};
use ms4::idde::calendar::Calendar;
use ms4::idde::deadlines::case_deadlines;
use ms4::idde::ld_notice::appeal_by;
use ms4::idde::Case;
use ms4::rules::Profile;
use rstest::rstest;

/// A built-in profile, or the fourth town's, which is added as data (a test fixture).
fn profile(town: &str) -> Profile {
    Profile::builtin(town)
        .or_else(|_| Profile::load(town, crate::common::fixture("quarry-hollow")))
        .unwrap()
}

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

/// "within 15 days of service": the last day to appeal a land development notice.
#[rstest]
#[case::ends_on_a_saturday_rolls_to_monday("north-castle-ny", "2026-06-05", "2026-06-22")]
#[case::ends_on_juneteenth_a_friday_rolls_to_monday("north-castle-ny", "2026-06-04", "2026-06-22")]
#[case::ends_on_a_tuesday_stays("north-castle-ny", "2026-06-01", "2026-06-16")]
#[case::july_3rd_is_a_business_day_in_new_york("north-castle-ny", "2026-06-18", "2026-07-03")]
#[case::ends_on_independence_day_a_saturday_rolls_to_monday(
    "north-castle-ny",
    "2026-06-19",
    "2026-07-06"
)]
#[case::carmel_ends_on_christmas_rolls_to_monday("carmel-ny", "2026-12-10", "2026-12-28")]
#[case::carmel_ends_on_new_years_day_rolls_into_january("carmel-ny", "2026-12-17", "2027-01-04")]
#[case::carmel_ends_on_a_wednesday_stays("carmel-ny", "2026-12-01", "2026-12-16")]
// The fourth town, added as data, keeps New York's calendar: Thanksgiving (Thu 26
// November 2026) rolls to Friday.
#[case::a_town_added_as_data_rolls_off_thanksgiving("quarry-hollow-ny", "2026-11-11", "2026-11-27")]
// Windsor's profile reads no roll: a period of days ends where it is counted.
#[case::windsor_reads_no_roll("windsor-ct", "2026-06-05", "2026-06-20")]
fn fifteen_days_from_service(#[case] town: &str, #[case] served: &str, #[case] by: &str) {
    let p = profile(town);
    assert_eq!(
        appeal_by(&p.idde, d(served), 15).unwrap(),
        d(by),
        "{town}: served {served}"
    );
}

/// New York keeps a Saturday holiday on the Saturday (§ 24); Connecticut's, as the Windsor
/// profile reads § 1-4, on the Friday before. Both keep a Sunday's on the Monday after.
#[rstest]
#[case::ny_saturday_independence_day("north-castle-ny", "2026-07-04", Some("Independence Day"))]
#[case::ny_the_friday_before_is_no_holiday("north-castle-ny", "2026-07-03", None)]
#[case::ny_sunday_christmas_on_monday("north-castle-ny", "2022-12-26", Some("Christmas Day"))]
#[case::carmel_keeps_new_yorks_calendar("carmel-ny", "2026-11-03", Some("Election Day"))]
#[case::ct_saturday_holiday_on_the_friday("windsor-ct", "2026-07-03", Some("Independence Day"))]
fn where_a_weekend_holiday_is_kept(
    #[case] town: &str,
    #[case] day: &str,
    #[case] holiday: Option<&str>,
) {
    let p = Profile::builtin(town).unwrap();
    assert_eq!(
        Calendar::new(&p.idde.holidays).holiday(d(day)),
        holiday,
        "{town} {day}"
    );
}

/// The deadline engine rolls the same way: North Castle's 15 days to appeal the SMO's
/// notice, served on a Friday, end on the Monday, and the answer says why.
#[test]
fn a_case_deadline_of_days_rolls_and_says_so() {
    let p = Profile::builtin("north-castle-ny").unwrap();
    let case: Case = serde_json::from_value(serde_json::json!({
        "case_id": "CASE-2026-0001", "opened_on": "2026-06-01", "origin": "staff",
        "status": "open", "candidates": [],
        "actions": [{"kind": "notice_of_violation", "on": "2026-06-05", "method": "hand",
            "by": "Stormwater Management Officer"}],
    }))
    .unwrap();
    let now = d("2026-06-06").and_hms_opt(12, 0, 0).unwrap();
    let ds = case_deadlines(&case, &p.idde, now);
    let appeal = ds
        .deadlines
        .iter()
        .find(|x| x.rule == "northcastle.illicit.appeal")
        .expect("the appeal window is counted");
    assert_eq!(appeal.due_on, Some(d("2026-06-22")));
    assert!(
        appeal
            .counted
            .contains("2026-06-20 is not a business day: the period runs to the next, 2026-06-22"),
        "{}",
        appeal.counted
    );
    assert_eq!(
        appeal.skipped,
        ["2026-06-20 (Saturday)", "2026-06-21 (Sunday)"]
    );
}

/// For every day of five years, a period of days served that day ends on a business day
/// where the profile says periods roll, and on the first one on or after the day counted.
#[rstest]
#[case::north_castle("north-castle-ny")]
#[case::carmel("carmel-ny")]
#[case::a_town_added_as_data("quarry-hollow-ny")]
fn every_day_of_five_years_ends_on_a_business_day(#[case] town: &str) {
    let p = profile(town);
    assert!(p.idde.periods_roll_to_business_day);
    let cal = Calendar::new(&p.idde.holidays);
    let mut day = d("2026-01-01");
    while day.year() < 2031 {
        let by = appeal_by(&p.idde, day, 15).unwrap();
        let counted = day + chrono::Days::new(15);
        assert!(cal.is_business_day(by), "{town}: served {day}, due {by}");
        assert!(by >= counted, "{town}: served {day}, due {by}");
        let mut between = counted;
        while between < by {
            assert!(
                !cal.is_business_day(between),
                "{town}: {between} was a business day"
            );
            between = between.succ_opt().unwrap();
        }
        day = day.succ_opt().unwrap();
    }
}

/// The same property through the deadline engine: for every day of five years, North
/// Castle's chain of periods started that day (the SMO's notice, an appeal filed and a
/// decision upholding it) is counted by `case_deadlines`, and every last day it gives is a
/// business day: the 15 days to appeal, the Board's 30 days to hear and 5 to file (§ 25-a
/// rolls them), and the 5 business days to correct after the decision. Counter-check:
/// the same periods in Windsor's reading (no roll) end on a closed day somewhere in the
/// five years, so the property is not true by accident of the count.
#[rstest]
#[case::north_castle_rolls("north-castle-ny", true)]
#[case::the_same_steps_unrolled("north-castle-ny", false)]
fn every_day_of_five_years_the_engine_ends_on_a_business_day(
    #[case] town: &str,
    #[case] rolls: bool,
) {
    use ms4::idde::deadlines::case_deadlines_on;
    let mut p = profile(town);
    p.idde.periods_roll_to_business_day = rolls;
    let cal = Calendar::new(&p.idde.holidays);
    let smo = "Stormwater Management Officer";
    let mut closed_days = 0;
    let mut day = d("2026-01-01");
    while day.year() < 2031 {
        let on = day.to_string();
        let case: Case = serde_json::from_value(serde_json::json!({
            "case_id": "CASE-2026-0001", "opened_on": on, "origin": "staff",
            "status": "open", "candidates": [],
            "actions": [
                {"kind": "notice_of_violation", "on": on, "at": "09:00", "method": "hand", "by": smo},
                {"kind": "appeal_filed", "on": on, "at": "10:00", "by": "respondent"},
                {"kind": "appeal_decided", "on": on, "at": "11:00", "outcome": "upheld", "by": "Town Board"},
            ],
        }))
        .unwrap();
        let ds = case_deadlines_on(&case, &p.idde, &cal, day.and_hms_opt(12, 0, 0).unwrap());
        assert!(ds.uncounted.is_empty(), "{town} {day}: {:?}", ds.uncounted);
        let due: Vec<_> = ds.deadlines.iter().filter_map(|x| x.due_on).collect();
        // The appeal window, the hearing, the decision filed, the correction after it.
        assert_eq!(due.len(), 4, "{town} {day}: {:?}", ds.deadlines);
        for x in &ds.deadlines {
            let Some(by) = x.due_on else { continue };
            if !cal.is_business_day(by) {
                assert!(
                    !rolls,
                    "{town}: served {day}, {} due {by}: {}",
                    x.what, x.counted
                );
                closed_days += 1;
            }
        }
        day = day.succ_opt().unwrap();
    }
    assert_eq!(
        closed_days == 0,
        rolls,
        "{town}: {closed_days} closed last days"
    );
}
