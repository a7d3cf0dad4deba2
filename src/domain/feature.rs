//! Features: a town id, canonical attribute values, extra source attributes and a geometry.

use chrono::{Datelike, NaiveDate};
use geo_types::Geometry;
use serde::{Deserialize, Serialize};
use std::fmt;

use super::layer::{FieldType, Layer};

/// One attribute value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    /// No value.
    Null,
    /// True or false.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number.
    Real(f64),
    /// A calendar date.
    Date(NaiveDate),
    /// Text.
    Text(String),
}

impl Value {
    /// Whether this is [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    /// The value as text, if it is text.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a day: a date, or text that reads as one ([`parse_date`]; an outside
    /// edit may have written it as text).
    pub fn as_date(&self) -> Option<NaiveDate> {
        match self {
            Value::Date(d) => Some(*d),
            Value::Text(s) => parse_date(s),
            _ => None,
        }
    }

    /// The value as a number, if it is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// The value as a boolean, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value as JSON (dates as `YYYY-MM-DD`).
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            Value::Int(i) => (*i).into(),
            Value::Real(r) => serde_json::Number::from_f64(*r)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::Date(d) => d.format("%Y-%m-%d").to_string().into(),
            Value::Text(s) => s.clone().into(),
        }
    }

    /// Converts a raw source value to a field's type, or says why it cannot.
    ///
    /// This is where 0/1, Y/N and yes/no become booleans and the date spellings found in
    /// municipal exports (`2019-05-01`, `5/1/2019`, `2019/05/01`, with or without a time)
    /// become dates. The returned flag is true when the value changed representation, so
    /// the import report can count conversions.
    pub fn coerce(self, ty: FieldType) -> Result<(Value, bool), String> {
        use FieldType as T;
        let text = match &self {
            Value::Null => return Ok((Value::Null, false)),
            Value::Text(s) if s.trim().is_empty() => return Ok((Value::Null, true)),
            Value::Text(s) => Some(s.trim().to_string()),
            _ => None,
        };
        match (ty, self) {
            (T::Text, Value::Text(s)) => Ok((Value::Text(s), false)),
            (T::Text, Value::Int(i)) => Ok((Value::Text(i.to_string()), true)),
            (T::Text, Value::Real(r)) => Ok((Value::Text(format_real_id(r)), true)),
            (T::Text, Value::Bool(b)) => Ok((Value::Text(b.to_string()), true)),
            (T::Text, Value::Date(d)) => Ok((Value::Text(d.to_string()), true)),
            (T::Integer, Value::Int(i)) => Ok((Value::Int(i), false)),
            (T::Integer, Value::Real(r)) if r.fract() == 0.0 && r.abs() < 9e15 => {
                Ok((Value::Int(r as i64), true))
            }
            (T::Integer, Value::Text(_)) => {
                let t = text.unwrap_or_default();
                t.parse::<i64>()
                    .map(|i| (Value::Int(i), true))
                    .map_err(|_| format!("{t:?} is not a whole number"))
            }
            (T::Real | T::Length(_) | T::Elevation, Value::Real(r)) => Ok((Value::Real(r), false)),
            (T::Real | T::Length(_) | T::Elevation, Value::Int(i)) => {
                Ok((Value::Real(i as f64), true))
            }
            (T::Real | T::Length(_) | T::Elevation, Value::Text(_)) => {
                let t = text.unwrap_or_default();
                t.replace(',', "")
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .map(|v| (Value::Real(v), true))
                    .ok_or_else(|| format!("{t:?} is not a number"))
            }
            (T::Bool, Value::Bool(b)) => Ok((Value::Bool(b), false)),
            (T::Bool, Value::Int(i)) if i == 0 || i == 1 => Ok((Value::Bool(i == 1), true)),
            (T::Bool, Value::Real(r)) if r == 0.0 || r == 1.0 => Ok((Value::Bool(r == 1.0), true)),
            (T::Bool, Value::Text(_)) => {
                let t = text.unwrap_or_default();
                parse_bool(&t)
                    .map(|b| (Value::Bool(b), true))
                    .ok_or_else(|| {
                        format!(
                            "{t:?} is not a yes/no value (expected 0/1, Y/N, yes/no, true/false)"
                        )
                    })
            }
            (T::Date, Value::Date(d)) => Ok((Value::Date(d), false)),
            (T::Date, Value::Text(_)) => {
                let t = text.unwrap_or_default();
                parse_date(&t)
                    .map(|d| (Value::Date(d), true))
                    .ok_or_else(|| {
                        format!("{t:?} is not a date (expected YYYY-MM-DD or M/D/YYYY, the year in four digits)")
                    })
            }
            (ty, v) => Err(format!("{v} cannot be read as {ty:?}")),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Null => f.write_str(""),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::Real(r) => write!(f, "{r}"),
            Value::Date(d) => write!(f, "{}", d.format("%Y-%m-%d")),
            Value::Text(s) => f.write_str(s),
        }
    }
}

/// Ids read from numeric columns keep no trailing `.0`.
fn format_real_id(r: f64) -> String {
    if r.fract() == 0.0 && r.abs() < 9e15 {
        format!("{}", r as i64)
    } else {
        r.to_string()
    }
}

/// Parses the yes/no spellings found in municipal data.
pub fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "y" | "yes" | "t" | "true" => Some(true),
        "0" | "n" | "no" | "f" | "false" => Some(false),
        _ => None,
    }
}

/// Parses a date in the spellings found in municipal exports; a time part is ignored.
pub fn parse_date(s: &str) -> Option<NaiveDate> {
    let s = s.trim();
    let day = s.split(['T', ' ']).next().unwrap_or(s);
    ["%Y-%m-%d", "%Y/%m/%d", "%m/%d/%Y", "%m-%d-%Y", "%Y%m%d"]
        .iter()
        .find_map(|fmt| NaiveDate::parse_from_str(day, fmt).ok())
        // chrono's `%Y` takes "74" as the year 74: a year written in fewer than four
        // digits names no century, so it is no date rather than a wrong one.
        .filter(|d| d.year() >= 1000)
}

/// A feature of a layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature {
    /// The town's own id (the layer's id field).
    pub id: String,
    /// Canonical attribute values, in the order of [`Layer::fields`].
    pub values: Vec<Value>,
    /// Source attributes that have no canonical field, kept so nothing is lost.
    pub extra: serde_json::Map<String, serde_json::Value>,
    /// The geometry, in the registry's CRS.
    pub geom: Option<Geometry<f64>>,
}

impl Feature {
    /// A feature with every canonical value null.
    pub fn new(layer: Layer, id: impl Into<String>) -> Self {
        Feature {
            id: id.into(),
            values: vec![Value::Null; layer.fields().len()],
            extra: serde_json::Map::new(),
            geom: None,
        }
    }

    /// The value of a canonical field (null when the layer has no such field).
    pub fn get(&self, layer: Layer, name: &str) -> &Value {
        static NULL: Value = Value::Null;
        layer
            .field_index(name)
            .and_then(|i| self.values.get(i))
            .unwrap_or(&NULL)
    }

    /// Sets a canonical field; returns false when the layer has no such field.
    pub fn set(&mut self, layer: Layer, name: &str, v: Value) -> bool {
        match layer.field_index(name) {
            Some(i) => {
                self.values[i] = v;
                true
            }
            None => false,
        }
    }

    /// The attributes as a JSON object: id, canonical fields, then extras.
    pub fn properties(&self, layer: Layer) -> serde_json::Map<String, serde_json::Value> {
        let mut m = serde_json::Map::new();
        m.insert(layer.id_field().into(), self.id.clone().into());
        for (spec, v) in layer.fields().iter().zip(&self.values) {
            m.insert(spec.name.into(), v.to_json());
        }
        for (k, v) in &self.extra {
            m.entry(k.clone()).or_insert_with(|| v.clone());
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The spellings of a date a municipal export writes, at their words; a year written in
    /// two digits ("11/26/74", as Cambridge's catch basins carry) names no century, so it is
    /// no date rather than the year 74.
    #[rstest::rstest]
    #[case::iso("2001-05-04", Some((2001, 5, 4)))]
    #[case::slashes_year_first("2001/05/04", Some((2001, 5, 4)))]
    #[case::us_with_time("1/1/1753 12:00:00 AM", Some((1753, 1, 1)))]
    #[case::us_dashes("11-26-1974", Some((1974, 11, 26)))]
    #[case::compact("19741126", Some((1974, 11, 26)))]
    #[case::two_digit_year("11/26/74", None)]
    #[case::two_digit_year_with_time("3/27/09 0:00", None)]
    #[case::three_digit_year("11/26/974", None)]
    #[case::not_a_date("soon", None)]
    fn dates_are_read_only_with_their_century(
        #[case] text: &str,
        #[case] want: Option<(i32, u32, u32)>,
    ) {
        let got = parse_date(text).map(|d| (d.year(), d.month(), d.day()));
        assert_eq!(got, want, "{text}");
    }
    use crate::domain::units::LengthUnit;

    #[test]
    fn municipal_yes_no_spellings_become_booleans() {
        for (raw, want) in [
            ("Y", true),
            ("n", false),
            ("1", true),
            ("FALSE", false),
            ("yes", true),
        ] {
            let (v, converted) = Value::Text(raw.into()).coerce(FieldType::Bool).unwrap();
            assert_eq!(v, Value::Bool(want), "{raw}");
            assert!(converted);
        }
        assert_eq!(
            Value::Int(0).coerce(FieldType::Bool).unwrap().0,
            Value::Bool(false)
        );
        assert!(Value::Text("maybe".into()).coerce(FieldType::Bool).is_err());
        assert!(Value::Int(2).coerce(FieldType::Bool).is_err());
    }

    #[test]
    fn dates_in_us_and_iso_spellings_parse() {
        let d = NaiveDate::from_ymd_opt(2019, 5, 1).unwrap();
        for raw in [
            "2019-05-01",
            "5/1/2019",
            "2019/05/01",
            "2019-05-01T00:00:00",
            "2019/05/01 00:00:00+00",
        ] {
            assert_eq!(
                Value::Text(raw.into()).coerce(FieldType::Date).unwrap().0,
                Value::Date(d),
                "{raw}"
            );
        }
        let e = Value::Text("13/45/2019".into())
            .coerce(FieldType::Date)
            .unwrap_err();
        assert!(e.contains("13/45/2019"), "{e}");
    }

    #[test]
    fn numbers_from_text_and_blank_text_is_null() {
        let ty = FieldType::Length(LengthUnit::Inch);
        assert_eq!(
            Value::Text(" 1,200.5 ".into()).coerce(ty).unwrap().0,
            Value::Real(1200.5)
        );
        assert_eq!(Value::Text("  ".into()).coerce(ty).unwrap().0, Value::Null);
        assert!(Value::Text("12in".into()).coerce(ty).is_err());
        assert_eq!(
            Value::Real(42.0).coerce(FieldType::Text).unwrap().0,
            Value::Text("42".into())
        );
    }
}
