//! The range of every number a profile holds: what a town's law could mean, and no more.
//!
//! A profile is data a town writes, and the clock, the fines and the spatial code run on
//! its numbers. `business_days = 100000000` is a typo, not a law: counting it took the
//! clock half a minute per deadline and then overflowed the calendar. So each number has
//! a range, wide enough for any law's wording (ten years for a period, a million dollars
//! for a fine) and refused at load beyond it — by `ms4 profile update`, `ms4 init` and
//! every command that reads the stored profile — naming the key and its line. The clock
//! holds the same bounds itself (`crate::idde::calendar`), whatever profile it is given.

use super::issue::Issue;
use super::{Profile, ReceivingWaterReading, TableReading, ThresholdUnit, TimeUnit};

/// The longest period in calendar days: ten years.
pub const MAX_DAYS: u32 = 3_650;
/// The longest period in business days: ten years of weekdays.
pub const MAX_BUSINESS_DAYS: u32 = 2_610;
/// The longest period in hours: ten years.
pub const MAX_HOURS: u32 = 87_600;
/// The most business days allowed for a mailed notice's delivery.
pub const MAX_MAIL_BUSINESS_DAYS: u32 = 30;
/// The most hours without rain a dry-weather screening may ask for: thirty days.
pub const MAX_DRY_WEATHER_HOURS: f64 = 720.0;
/// The largest fine or penalty, dollars per violation per period.
pub const MAX_DOLLARS: f64 = 1_000_000.0;
/// The longest look-back of a penalty's tiers, years.
pub const MAX_WINDOW_YEARS: u32 = 50;
/// The largest area threshold: one hundred square miles, in square feet.
pub const MAX_AREA_SQFT: f64 = 100.0 * 5_280.0 * 5_280.0;
/// The largest distance tolerance: one mile, in metres.
pub const MAX_TOLERANCE_M: f64 = 1_609.344;
/// The most rainfall a storm trigger may ask for, inches (more than any day on record).
pub const MAX_RAINFALL_INCHES: f64 = 50.0;
/// The most `flows_to` steps followed downstream (AMB-07).
pub const MAX_DOWNSTREAM_STEPS: u32 = 1_000;
/// The most holidays a calendar may list.
pub const MAX_HOLIDAYS: usize = 100;
/// The largest EPSG code.
pub const MAX_EPSG: u32 = 999_999;

type Check = Result<(), Issue>;

fn out_of_range(key: impl Into<String>, value: impl std::fmt::Display, range: &str) -> Check {
    Err(Issue {
        key: key.into(),
        message: format!("{value} is out of range: {range}"),
    })
}

fn whole(key: &str, value: u32, min: u32, max: u32, what: &str) -> Check {
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        out_of_range(key, value, &format!("give {min} to {max} {what}"))
    }
}

fn number(key: &str, value: f64, max: f64, what: &str) -> Check {
    if value.is_finite() && value <= max {
        Ok(())
    } else {
        out_of_range(key, value, &format!("at most {max} {what}"))
    }
}

/// Every number of `p` in its range; the first that is not, with its key.
pub(super) fn profile(p: &Profile) -> Check {
    whole(
        "crs_hint.epsg",
        p.crs_hint.epsg,
        1,
        MAX_EPSG,
        "(an EPSG code)",
    )?;
    for (name, t) in p.thresholds.iter() {
        let max = match t.unit {
            ThresholdUnit::Sqft => MAX_AREA_SQFT,
            ThresholdUnit::Acre => MAX_AREA_SQFT / super::SQFT_PER_ACRE,
        };
        let unit = t.unit.as_str();
        number(
            &format!("thresholds.{name}.value"),
            t.value,
            max,
            &format!("{unit} (one hundred square miles)"),
        )?;
    }
    for (name, t) in p.tolerances.iter() {
        if !t.metres().is_finite() || t.metres() > MAX_TOLERANCE_M {
            out_of_range(
                format!("tolerances.{name}.value"),
                t.value,
                "a tolerance is at most one mile (1609.344 m)",
            )?;
        }
    }
    for (name, i) in &p.inspections {
        let key = format!("inspections.{}", super::locate::key_segment(name));
        let (max, what) = match i.unit {
            TimeUnit::Hours => (MAX_HOURS, "hours"),
            TimeUnit::CalendarDays => (MAX_DAYS, "days"),
            TimeUnit::BusinessDays => (MAX_BUSINESS_DAYS, "business days"),
        };
        for (field, n) in [("every", i.every), ("within", i.within)] {
            if let Some(n) = n {
                whole(&format!("{key}.{field}"), n, 0, max, what)?;
            }
        }
        if let Some(inches) = i.min_rainfall_inches {
            number(
                &format!("{key}.min_rainfall_inches"),
                inches,
                MAX_RAINFALL_INCHES,
                "inches",
            )?;
        }
    }
    if let Some(r) = p.table_reading::<ReceivingWaterReading>() {
        let key = format!("assumptions.{}.setting", ReceivingWaterReading::AMB);
        whole(
            &format!("{key}.downstream_steps"),
            r.downstream_steps,
            0,
            MAX_DOWNSTREAM_STEPS,
            "steps",
        )?;
        number(
            &format!("{key}.min_watershed_overlap_sqft"),
            r.min_watershed_overlap_sqft,
            MAX_AREA_SQFT,
            "square feet (one hundred square miles)",
        )?;
    }
    idde(&p.idde)
}

fn idde(s: &super::IddeSettings) -> Check {
    let hours = s.dry_weather_hours;
    if !(0.0..=MAX_DRY_WEATHER_HOURS).contains(&hours) {
        out_of_range(
            "idde.dry_weather_hours",
            hours,
            &format!("give 0 to {MAX_DRY_WEATHER_HOURS} hours"),
        )?;
    }
    if s.holidays.len() > MAX_HOLIDAYS {
        out_of_range(
            format!("idde.holidays[{MAX_HOLIDAYS}]"),
            format!("{} holidays", s.holidays.len()),
            &format!("a calendar lists at most {MAX_HOLIDAYS}"),
        )?;
    }
    for (i, d) in s.deadlines.iter().enumerate() {
        let key = format!("idde.deadlines[{i}]");
        for (field, n, max, what) in [
            ("hours", d.hours, MAX_HOURS, "hours"),
            ("days", d.days, MAX_DAYS, "days"),
            (
                "business_days",
                d.business_days,
                MAX_BUSINESS_DAYS,
                "business days",
            ),
            (
                "mail_business_days",
                d.mail_business_days,
                MAX_MAIL_BUSINESS_DAYS,
                "business days",
            ),
        ] {
            if let Some(n) = n {
                whole(&format!("{key}.{field}"), n, 0, max, what)?;
            }
        }
    }
    for (i, f) in s.fines.iter().enumerate() {
        let key = format!("idde.fines[{i}]");
        number(&format!("{key}.amount"), f.amount, MAX_DOLLARS, "dollars")?;
        if let Some(h) = f.per_hours {
            whole(&format!("{key}.per_hours"), h, 1, MAX_HOURS, "hours")?;
        }
        if let Some(d) = f.per_days {
            whole(&format!("{key}.per_days"), d, 1, MAX_DAYS, "days")?;
        }
    }
    for (i, p) in s.penalty_tiers.iter().enumerate() {
        let key = format!("idde.penalty_tiers[{i}]");
        whole(
            &format!("{key}.window_years"),
            p.window_years,
            1,
            MAX_WINDOW_YEARS,
            "years",
        )?;
        whole(
            &format!("{key}.continued_per_days"),
            p.continued_per_days,
            1,
            MAX_DAYS,
            "days",
        )?;
        for (j, t) in p.tiers.iter().enumerate() {
            number(
                &format!("{key}.tiers[{j}].max"),
                t.max,
                MAX_DOLLARS,
                "dollars",
            )?;
        }
    }
    if let Some(n) = &s.land_development_notice {
        whole(
            "idde.land_development_notice.appeal_days",
            n.appeal_days,
            1,
            MAX_DAYS,
            "days",
        )?;
    }
    Ok(())
}
