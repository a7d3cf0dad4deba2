//! Daily rainfall at a gauge, entered or imported from a CSV (`gauge_id,day,inches`),
//! and the storms read from it: what Carmel's storm-triggered inspections are counted
//! from (§ 156-83B: "within 24 hours of any storm event producing 0.5 inch of
//! precipitation or more").
//!
//! A day without a record is not a dry day: [`storms`] says which days are missing so
//! an answer lists them as an open fact, never assuming no storm.

use chrono::NaiveDate;

use crate::domain::{Feature, Layer, Value};
use crate::idde::FieldError;
use crate::spatial::Snapshot;

const L: Layer = Layer::Rainfall;

/// One gauge's rainfall on one day.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RainDay {
    /// The gauge or station.
    #[schemars(length(min = 1, max = 1024))]
    pub gauge_id: String,
    /// The day.
    pub day: NaiveDate,
    /// Inches of precipitation.
    #[schemars(range(min = 0, max = 100))]
    pub inches: f64,
}

/// `POST /api/rainfall`: daily totals entered by hand (a day at a gauge recorded again
/// is replaced).
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RainfallRequest {
    /// The days, one per gauge and day.
    pub entries: Vec<RainDay>,
}

/// Why an amount is not a day's rainfall in inches, if it is not.
fn inches_problem(x: f64) -> Option<String> {
    (!(x.is_finite() && (0.0..100.0).contains(&x)))
        .then(|| format!("{x} is not a rainfall in inches (0 to 100)"))
}

/// Checks entries sent as JSON as [`parse_csv`] checks a file's lines: a gauge named, an
/// amount in inches, each gauge and day once. The first fault is named by its path.
pub fn check_entries(days: &[RainDay]) -> Result<(), FieldError> {
    let err = |field: String, message: String| FieldError { field, message };
    if days.is_empty() {
        return Err(err(
            "entries".into(),
            "no rainfall entries: send at least one {gauge_id, day, inches}".into(),
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    for (i, d) in days.iter().enumerate() {
        if let Some(why) = crate::domain::text::line_problem(&d.gauge_id).or_else(|| {
            d.gauge_id
                .trim()
                .is_empty()
                .then(|| "name the gauge".to_string())
        }) {
            return Err(err(format!("entries[{i}].gauge_id"), why));
        }
        if let Some(why) = inches_problem(d.inches) {
            return Err(err(format!("entries[{i}].inches"), why));
        }
        if !seen.insert((d.gauge_id.as_str(), d.day)) {
            return Err(err(
                format!("entries[{i}].day"),
                format!("gauge {} on {} is given twice", d.gauge_id, d.day),
            ));
        }
    }
    Ok(())
}

/// The records of a gauge (or every gauge) over a span of days, by gauge then day.
pub fn rain_between(
    rain: &[RainDay],
    gauge: Option<&str>,
    from: Option<NaiveDate>,
    to: Option<NaiveDate>,
) -> Vec<RainDay> {
    let mut out: Vec<RainDay> = rain
        .iter()
        .filter(|r| gauge.is_none_or(|g| r.gauge_id == g))
        .filter(|r| from.is_none_or(|f| r.day >= f) && to.is_none_or(|t| r.day <= t))
        .cloned()
        .collect();
    out.sort_by(|a, b| (&a.gauge_id, a.day).cmp(&(&b.gauge_id, b.day)));
    out
}

impl RainDay {
    /// The record as a feature of the rainfall layer. Its id is gauge and day joined as
    /// `ms4 import rainfall` derives it (`GAUGE:YYYY-MM-DD`), so a day recorded again by
    /// either door replaces the one stored.
    pub fn to_feature(&self, source: Option<&str>) -> Feature {
        let mut f = Feature::new(L, format!("{}:{}", self.gauge_id, self.day));
        f.set(L, "gauge_id", Value::Text(self.gauge_id.clone()));
        f.set(L, "day", Value::Date(self.day));
        f.set(L, "inches", Value::Real(self.inches));
        if let Some(s) = source {
            f.set(L, "source", Value::Text(s.into()));
        }
        f
    }

    /// Reads a record from its feature.
    pub fn from_feature(f: &Feature) -> Option<RainDay> {
        let day = match f.get(L, "day") {
            Value::Date(d) => *d,
            Value::Text(s) => crate::domain::feature::parse_date(s)?,
            _ => return None,
        };
        Some(RainDay {
            gauge_id: f.get(L, "gauge_id").as_str()?.to_string(),
            day,
            inches: f.get(L, "inches").as_f64()?,
        })
    }
}

/// Every readable rainfall record of a snapshot.
pub fn all_rain(snap: &Snapshot) -> Vec<RainDay> {
    snap.layer(L)
        .features
        .iter()
        .filter_map(RainDay::from_feature)
        .collect()
}

/// Reads a rainfall CSV: a header naming `gauge_id` (or `station`), `day` (or `date`)
/// and `inches` (or `precipitation_in`), then one line per gauge and day. A bad line is
/// refused naming its line and column: nothing of the file is taken then.
pub fn parse_csv(text: &str) -> Result<Vec<RainDay>, String> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let (_, header) = lines.next().ok_or("the file is empty: no header")?;
    let cols: Vec<String> = header
        .split(',')
        .map(|c| c.trim().trim_matches('"').to_ascii_lowercase())
        .collect();
    let find = |names: &[&str]| {
        cols.iter()
            .position(|c| names.contains(&c.as_str()))
            .ok_or_else(|| format!("line 1: no {} column (the header is {header:?})", names[0]))
    };
    let g = find(&["gauge_id", "gauge", "station", "station_id"])?;
    let d = find(&["day", "date"])?;
    let i = find(&["inches", "precipitation_in", "prcp_in", "rain_in"])?;
    let mut out = Vec::new();
    for (n, line) in lines {
        let cells: Vec<&str> = line
            .split(',')
            .map(|c| c.trim().trim_matches('"'))
            .collect();
        let cell = |k: usize, name: &str| {
            cells
                .get(k)
                .copied()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| format!("line {}: no {name}", n + 1))
        };
        let gauge = cell(g, "gauge_id")?;
        let day = crate::domain::feature::parse_date(cell(d, "day")?)
            .ok_or_else(|| format!("line {}: day {:?} is not a date", n + 1, cells[d]))?;
        let raw = cell(i, "inches")?;
        let inches: f64 = raw
            .parse()
            .ok()
            .filter(|x: &f64| inches_problem(*x).is_none())
            .ok_or_else(|| {
                format!(
                    "line {}: inches {raw:?} is not a rainfall in inches (0 to 100)",
                    n + 1
                )
            })?;
        out.push(RainDay {
            gauge_id: gauge.to_string(),
            day,
            inches,
        });
    }
    Ok(out)
}

/// A storm read from a gauge's daily totals: a run of consecutive days with measurable
/// rain, its total, and the day it ended.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Storm {
    /// The first wet day.
    pub from: NaiveDate,
    /// The last wet day: the storm is taken to end at its end.
    pub to: NaiveDate,
    /// Inches over the run.
    pub inches: f64,
}

/// What a gauge's records say of the days `from..=to`: the storms of at least
/// `min_inches`, and the days with no record.
///
/// Daily totals give no hours, so the storm event of AMB-15 (rain until six dry hours)
/// is read conservatively: consecutive days each with measurable rain are one storm,
/// their inches summed, ending at the end of the last of them. A day without a record
/// ends a run, and is listed as missing.
pub fn storms(
    rain: &[RainDay],
    gauge: &str,
    from: NaiveDate,
    to: NaiveDate,
    min_inches: f64,
) -> (Vec<Storm>, Vec<NaiveDate>) {
    let mut by_day: std::collections::BTreeMap<NaiveDate, f64> = Default::default();
    for r in rain.iter().filter(|r| r.gauge_id == gauge) {
        by_day.insert(r.day, r.inches);
    }
    let mut out = Vec::new();
    let mut missing = Vec::new();
    let mut run: Option<Storm> = None;
    let close = |run: &mut Option<Storm>, out: &mut Vec<Storm>| {
        if let Some(s) = run.take() {
            if s.inches + 1e-9 >= min_inches {
                out.push(s);
            }
        }
    };
    let days = std::iter::successors(Some(from), |d| d.succ_opt()).take_while(|d| *d <= to);
    for d in days.take(crate::idde::calendar::MAX_WALK_DAYS as usize) {
        match by_day.get(&d) {
            None => {
                missing.push(d);
                close(&mut run, &mut out);
            }
            Some(x) if *x > 0.0 => match &mut run {
                Some(s) => {
                    s.to = d;
                    s.inches += x;
                }
                None => {
                    run = Some(Storm {
                        from: d,
                        to: d,
                        inches: *x,
                    });
                }
            },
            Some(_) => close(&mut run, &mut out),
        }
    }
    close(&mut run, &mut out);
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn consecutive_wet_days_are_one_storm_and_a_missing_day_is_said() {
        let rain = parse_csv(
            "gauge_id,day,inches\nG,2026-05-04,0.3\nG,2026-05-05,0.25\nG,2026-05-06,0\nG,2026-05-08,0.6\n",
        )
        .unwrap();
        let (s, missing) = storms(&rain, "G", d("2026-05-04"), d("2026-05-08"), 0.5);
        assert_eq!(s.len(), 2, "{s:?}");
        assert_eq!((s[0].from, s[0].to), (d("2026-05-04"), d("2026-05-05")));
        assert!((s[0].inches - 0.55).abs() < 1e-9);
        assert_eq!(s[1].to, d("2026-05-08"));
        assert_eq!(missing, vec![d("2026-05-07")]);
    }

    #[test]
    fn a_bad_line_is_refused_naming_it() {
        let e = parse_csv("station,date,inches\nG,2026-05-04,lots\n").unwrap_err();
        assert!(e.starts_with("line 2: inches \"lots\""), "{e}");
        let e = parse_csv("gauge,when,inches\n").unwrap_err();
        assert!(e.contains("no day column"), "{e}");
    }
}
