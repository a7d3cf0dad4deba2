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
    /// # Date
    /// When, `YYYY-MM-DD`: the day the inspector was there (a screening recorded after
    /// the fact gives its own day).
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub inspected_on: String,
    /// What kind of inspection (each of one kind of asset).
    pub kind: InspectionKind,
    /// # Inspector
    /// Who inspected (defaults to the token's subject).
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub inspector: Option<String>,
    /// # Result
    /// pass, fail, needs_follow_up or the program's own word.
    #[serde(deserialize_with = "text::line")]
    #[schemars(schema_with = "result_schema")]
    pub result: String,
    /// # Notes
    /// Free text.
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub notes: Option<String>,
    /// # Screening
    /// Dry-weather screening observations (a `dry_weather_screening` only).
    pub screening: Option<Screening>,
    /// # Catch basin
    /// What a catch basin cleaning found (a `catch_basin_cleaning` only).
    pub catch_basin: Option<CatchBasinCleaning>,
    /// # SMP
    /// What an SMP maintenance inspection found (an `smp_maintenance` only).
    pub smp: Option<SmpMaintenance>,
    /// Where the inspector stood (WGS 84), kept with the inspection.
    pub position: Option<Position>,
    /// # Time
    /// When it was observed (RFC 3339), as the device's clock said.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub observed_at: Option<String>,
    /// The inspection an `If-Match` rewrite writes over (its id). A new inspection gets
    /// an id of its own, so two of one facility, kind and day are two records.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub inspection_id: Option<String>,
}

/// The results the forms offer (`x-words`; a program may use its own word).
pub const RESULTS: [&str; 3] = ["pass", "fail", "needs_follow_up"];

fn result_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, SchemaObject, StringValidation};
    let mut s = SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        string: Some(Box::new(StringValidation {
            max_length: Some(1024),
            ..Default::default()
        })),
        ..Default::default()
    };
    s.extensions.insert("x-words".into(), RESULTS.into());
    s.into()
}

/// What a catch basin cleaning found and did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatchBasinCleaning {
    /// # Debris depth in the sump (in)
    /// How deep the debris stood in the sump before cleaning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 240))]
    pub sump_debris_depth_in: Option<f64>,
    /// # Cleaned
    /// The sump was cleaned out.
    #[serde(default)]
    pub cleaned: bool,
    /// # Grate damaged
    /// The grate or frame is damaged.
    #[serde(default)]
    pub grate_damaged: bool,
    /// # Oil or odour
    /// Oil, a sheen or an odour in the basin.
    #[serde(default)]
    pub oil_or_odour: bool,
}

impl CatchBasinCleaning {
    fn check(&self) -> Result<(), FieldError> {
        if let Some(d) = self.sump_debris_depth_in {
            if !d.is_finite() || !(0.0..=240.0).contains(&d) {
                return Err(bad(
                    "catch_basin.sump_debris_depth_in",
                    format!("{d} is outside 0 to 240 in"),
                ));
            }
        }
        Ok(())
    }
}

/// What an SMP maintenance inspection found and did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SmpMaintenance {
    /// # Sediment removed
    /// Sediment was removed.
    #[serde(default)]
    pub sediment_removed: bool,
    /// # Vegetation maintained
    /// The vegetation was cut or replanted.
    #[serde(default)]
    pub vegetation_maintained: bool,
    /// # Inlet and outlet clear
    /// The inlet and the outlet are clear.
    #[serde(default)]
    pub inlet_outlet_clear: bool,
    /// # Erosion seen
    /// Erosion was seen.
    #[serde(default)]
    pub erosion_seen: bool,
}

/// A new inspection's id: the facility, day and kind it records, and a random part, so a
/// second inspection of the same facility on the same day is a record of its own.
fn new_id(asset: &str, date: NaiveDate, kind: InspectionKind) -> String {
    use rand::RngCore;
    let mut b = [0u8; 6];
    rand::rngs::OsRng.fill_bytes(&mut b);
    let tail: String = b.iter().map(|x| format!("{x:02x}")).collect();
    format!("{asset}:{date}:{kind}:{tail}")
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

/// The part of the request only its kind has (a screening, a catch basin's or an SMP's
/// checklist), checked, as the `findings` JSON; and the screening itself, for its row.
fn findings(
    kind: InspectionKind,
    screening: Option<Screening>,
    catch_basin: Option<CatchBasinCleaning>,
    smp: Option<SmpMaintenance>,
) -> Result<(Option<String>, Option<Screening>), FieldError> {
    let only = |field: &str, of: InspectionKind| {
        Err(bad(field, format!("only a {of} has one, not a {kind}")))
    };
    match (screening, catch_basin, smp) {
        (Some(_), ..) if kind != InspectionKind::DryWeatherScreening => {
            only("screening", InspectionKind::DryWeatherScreening)
        }
        (_, Some(_), _) if kind != InspectionKind::CatchBasinCleaning => {
            only("catch_basin", InspectionKind::CatchBasinCleaning)
        }
        (.., Some(_)) if kind != InspectionKind::SmpMaintenance => {
            only("smp", InspectionKind::SmpMaintenance)
        }
        (Some(s), ..) => {
            s.check()?;
            Ok((to_json(&s), Some(s)))
        }
        (_, Some(c), _) => {
            c.check()?;
            Ok((to_json(&c), None))
        }
        (.., Some(m)) => Ok((to_json(&m), None)),
        (None, None, None) => Ok((None, None)),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Option<String> {
    Some(serde_json::to_string(v).unwrap_or_default())
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
    let (findings, screening_fields) = findings(kind, n.screening, n.catch_basin, n.smp)?;
    let inspector = n
        .inspector
        .filter(|i| !i.trim().is_empty())
        .unwrap_or_else(|| recorder.to_string());
    let inspector = crate::auth::check_name(&inspector)
        .map_err(|m| bad("inspector", m))?
        .to_string();
    let l = Layer::Inspections;
    // A rewrite names the inspection it writes over; anything else is a new record (a
    // retry of the same one is told by its idempotency key, not by its id).
    let id = match n.inspection_id.filter(|i| !i.trim().is_empty()) {
        Some(i) => i,
        None => new_id(&n.asset_id, date, kind),
    };
    let mut f = Feature::new(l, id);
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
