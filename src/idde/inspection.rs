//! Recording an inspection: the request as the inspector's page and `ms4 inspect` send
//! it, checked against the registry and made into a feature of the inspections layer.
//! One command for both doors, so the two cannot drift.

use chrono::NaiveDate;
use serde::Deserialize;

use super::{FieldError, Screening};
use crate::domain::{text, Feature, InspectionKind, Layer, Value};

/// `POST /api/inspections`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewInspection {
    /// The asset inspected.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub asset_id: String,
    /// When, `YYYY-MM-DD`.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub inspected_on: String,
    /// What kind of inspection (each of one kind of asset).
    pub kind: InspectionKind,
    /// Who inspected (defaults to the token's subject).
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub inspector: Option<String>,
    /// pass, fail, needs_follow_up or the program's own word.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub result: String,
    /// Free text.
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub notes: Option<String>,
    /// Dry-weather screening observations (outfalls only).
    pub screening: Option<Screening>,
    /// Where the inspector stood (WGS 84), kept with the inspection.
    pub position: Option<Position>,
    /// When it was observed (RFC 3339), as the device's clock said.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub observed_at: Option<String>,
}

/// A WGS 84 position.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// Longitude, degrees.
    pub lon: f64,
    /// Latitude, degrees.
    pub lat: f64,
}

fn bad(field: &str, msg: impl std::fmt::Display) -> FieldError {
    FieldError {
        field: field.to_string(),
        message: msg.to_string(),
    }
}

/// A day a record cannot carry (see [`text::past_day_problem`]), named by its field.
fn plausible_date(field: &str, day: NaiveDate, today: NaiveDate) -> Result<(), FieldError> {
    match text::past_day_problem(day, today) {
        Some(why) => Err(bad(field, why)),
        None => Ok(()),
    }
}

/// Checks an inspection and makes it a feature of the inspections layer, for
/// `POST /api/inspections` and `ms4 inspect` alike; `recorder` (the token's subject, the
/// user at the command line) is the inspector when the request names none, and
/// `dry_weather_hours` is the profile's dry-weather rule.
pub fn to_feature(
    snap: &crate::spatial::Snapshot,
    n: NewInspection,
    recorder: &str,
    today: NaiveDate,
    dry_weather_hours: f64,
) -> Result<Feature, FieldError> {
    let kind = n.kind;
    let layer = kind.layer();
    if snap.layer(layer).get(&n.asset_id).is_none() {
        return Err(bad(
            "asset_id",
            format!(
                "no {} has id {:?} (a {kind} inspects {})",
                layer.name(),
                n.asset_id,
                layer.name()
            ),
        ));
    }
    let date = NaiveDate::parse_from_str(n.inspected_on.trim(), "%Y-%m-%d").map_err(|_| {
        bad(
            "inspected_on",
            format!("{:?} is not a date (YYYY-MM-DD)", n.inspected_on),
        )
    })?;
    plausible_date("inspected_on", date, today)?;
    if n.result.trim().is_empty() {
        return Err(bad(
            "result",
            "must say what the inspection found (pass, fail, needs_follow_up, ...)",
        ));
    }
    let mut screening_fields = None;
    let findings = match n.screening {
        Some(_) if kind != InspectionKind::DryWeatherScreening => {
            return Err(bad(
                "screening",
                format!("only a dry_weather_screening has one, not a {kind}"),
            ))
        }
        Some(s) => {
            s.check()?;
            let json = serde_json::to_string(&s).unwrap_or_default();
            screening_fields = Some(s);
            Some(json)
        }
        None => None,
    };
    let inspector = n
        .inspector
        .filter(|i| !i.trim().is_empty())
        .unwrap_or_else(|| recorder.to_string());
    let inspector = crate::auth::check_name(&inspector)
        .map_err(|m| bad("inspector", m))?
        .to_string();
    let l = Layer::Inspections;
    // The same id an imported inspection gets (asset, date, kind): recording the same
    // inspection twice updates it rather than counting it twice.
    let mut f = Feature::new(l, format!("{}:{date}:{kind}", n.asset_id));
    let mut set = |name: &str, v: Value| {
        if let Some(i) = l.field_index(name) {
            f.values[i] = v;
        }
    };
    set("asset_id", Value::Text(n.asset_id.clone()));
    set("inspected_on", Value::Date(date));
    set("kind", Value::Text(kind.as_str().into()));
    set("inspector", Value::Text(inspector));
    set("result", Value::Text(n.result.trim().to_string()));
    if let Some(fd) = findings {
        set("findings", Value::Text(fd));
    }
    if let Some(notes) = n.notes.filter(|s| !s.trim().is_empty()) {
        set("notes", Value::Text(notes));
    }
    if kind == InspectionKind::DryWeatherScreening {
        screening_row(
            snap,
            &mut f,
            &screening_fields.unwrap_or_default(),
            dry_weather_hours,
        )?;
    }
    if let Some(p) = n.position {
        if !(-180.0..=180.0).contains(&p.lon) || !(-90.0..=90.0).contains(&p.lat) {
            return Err(bad(
                "position",
                format!("{}, {} is not a WGS 84 longitude, latitude", p.lon, p.lat),
            ));
        }
        f.extra
            .insert("position".into(), serde_json::json!([p.lon, p.lat]));
    }
    if let Some(t) = n.observed_at.filter(|s| !s.trim().is_empty()) {
        let at = chrono::DateTime::parse_from_rfc3339(t.trim())
            .map_err(|_| bad("observed_at", format!("{t:?} is not an RFC 3339 time")))?;
        // A device's clock may run ahead of the server's by a little, not by a day.
        plausible_date(
            "observed_at",
            at.date_naive(),
            today.succ_opt().unwrap_or(today),
        )?;
        f.extra.insert("observed_at".into(), at.to_rfc3339().into());
    }
    Ok(f)
}

/// Writes a screening's background and finding into its row, and holds the row to the
/// profile's dry-weather rule by the function an import applies it with: a screening too
/// soon after rain (or without the hours) is kept, marked, and not counted as a
/// dry-weather screening.
fn screening_row(
    snap: &crate::spatial::Snapshot,
    f: &mut Feature,
    s: &Screening,
    dry_weather_hours: f64,
) -> Result<(), FieldError> {
    let l = Layer::Inspections;
    if let Some(h) = s.hours_since_rain {
        f.set(l, "hours_since_rain", Value::Real(h));
    }
    if let Some(c) = s.characterisation {
        f.set(l, "characterisation", Value::Text(c.as_str().into()));
    }
    f.set(l, "sewage_indicators", Value::Bool(s.sewage_indicators()));
    let outfalls = snap.layer(Layer::Outfalls);
    screening_rule(f, dry_weather_hours, &|a| outfalls.get(a).is_some()).map_err(
        // The request names the screening's fields under `screening`.
        |e| match e.field.as_str() {
            "asset_id" => e,
            _ => FieldError {
                field: format!("screening.{}", e.field),
                message: e.message,
            },
        },
    )
}

/// Holds one inspection row to the dry-weather rule, the same for a screening recorded
/// through `POST /api/inspections` or `ms4 inspect` as for one read from a file by an
/// import: a `dry_weather_screening` screens an outfall (`is_outfall` says which ids are
/// one), its hours since rain are zero or more, and its `dry_weather` is what
/// [`super::screening::is_dry_weather`] makes of them under the profile's `rule_hours`
/// (null without the hours: the rule cannot be checked). A `dry_weather` the row
/// already holds that says otherwise is refused, naming the field, not overridden: the
/// registry cannot tell whether the hours or the column are wrong, and the town's file
/// should say what the registry keeps. Hours in the `findings` JSON (a screening form, as
/// an export writes it) stand in for an empty `hours_since_rain` and must agree with a
/// full one. Other kinds of inspection are left as they are.
pub fn screening_rule(
    f: &mut Feature,
    rule_hours: f64,
    is_outfall: &dyn Fn(&str) -> bool,
) -> Result<(), FieldError> {
    let l = Layer::Inspections;
    if f.get(l, "kind").as_str() != Some(InspectionKind::DryWeatherScreening.as_str()) {
        return Ok(());
    }
    let asset = f.get(l, "asset_id").as_str().unwrap_or_default();
    if !is_outfall(asset) {
        return Err(bad(
            "asset_id",
            format!("a dry_weather_screening screens an outfall, and no outfall has id {asset:?}"),
        ));
    }
    let hours = screening_hours(f)?;
    let dry = super::screening::is_dry_weather(hours, rule_hours);
    let stated = match f.get(l, "dry_weather") {
        Value::Null => None,
        v => v.as_bool(),
    };
    if let Some(said) = stated.filter(|s| Some(*s) != dry) {
        return Err(bad(
            "dry_weather",
            match hours {
                Some(h) => format!(
                    "says {said}, but {h} hours since rain is {} the profile's dry-weather \
                     rule of {rule_hours} hours: the rule is computed from hours_since_rain \
                     (correct the hours or the column, or leave dry_weather empty)",
                    if h >= rule_hours {
                        "at least"
                    } else {
                        "less than"
                    }
                ),
                None => format!(
                    "says {said}, but hours_since_rain is empty: the dry-weather rule is \
                     computed from the hours since rain (give them, or leave dry_weather \
                     empty)"
                ),
            },
        ));
    }
    f.set(l, "dry_weather", dry.map_or(Value::Null, Value::Bool));
    Ok(())
}

/// A screening row's hours since rain: its `hours_since_rain`, else those of its
/// `findings` form (then written into the column); zero or more, and the two agreeing.
fn screening_hours(f: &mut Feature) -> Result<Option<f64>, FieldError> {
    let l = Layer::Inspections;
    let column = match f.get(l, "hours_since_rain") {
        Value::Null => None,
        v => Some(v.as_f64().ok_or_else(|| {
            bad(
                "hours_since_rain",
                format!("{v:?} is not a number of hours"),
            )
        })?),
    };
    let form = f
        .get(l, "findings")
        .as_str()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(t).ok())
        .and_then(|v| {
            v.get("hours_since_rain")
                .and_then(serde_json::Value::as_f64)
        });
    let hours = match (column, form) {
        (Some(c), Some(g)) if c != g => {
            return Err(bad(
                "hours_since_rain",
                format!("is {c}, but the findings' screening form says {g}"),
            ))
        }
        (Some(c), _) => Some(c),
        (None, g) => g,
    };
    if let Some(h) = hours {
        if !h.is_finite() || h < 0.0 {
            return Err(bad("hours_since_rain", format!("{h} is not zero or more")));
        }
        f.set(l, "hours_since_rain", Value::Real(h));
    }
    Ok(hours)
}
