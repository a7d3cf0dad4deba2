//! Lengths and areas that carry their unit.
//!
//! Registries work in one projected CRS whose linear unit may be the metre, the
//! international foot or the US survey foot; answers must say which. Keeping the unit
//! beside the number (instead of a bare `f64`) stops a US-foot distance being read as
//! metres, which is a 0.3048× error nobody notices on a map.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A linear unit. In JSON it is its symbol (`ftUS`), the name every answer's `unit`
/// uses; the long names of earlier versions (`us_survey_foot`) are still read, since
/// registries store their unit that way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LengthUnit {
    /// The SI metre.
    #[serde(rename = "m", alias = "metre")]
    Metre,
    /// The international foot, 0.3048 m exactly.
    #[serde(rename = "ft", alias = "foot")]
    Foot,
    /// The US survey foot, 1200/3937 m (State Plane systems such as EPSG:2927 and 2260).
    #[serde(rename = "ftUS", alias = "us_survey_foot")]
    UsSurveyFoot,
    /// The international inch, used for pipe diameters.
    #[serde(rename = "in", alias = "inch")]
    Inch,
}

impl LengthUnit {
    /// Metres in one of this unit.
    pub fn metres(self) -> f64 {
        match self {
            LengthUnit::Metre => 1.0,
            LengthUnit::Foot => 0.3048,
            LengthUnit::UsSurveyFoot => 1200.0 / 3937.0,
            LengthUnit::Inch => 0.0254,
        }
    }

    /// The short symbol used in answers and reports.
    pub fn symbol(self) -> &'static str {
        match self {
            LengthUnit::Metre => "m",
            LengthUnit::Foot => "ft",
            LengthUnit::UsSurveyFoot => "ftUS",
            LengthUnit::Inch => "in",
        }
    }

    /// Picks the unit from a CRS's linear-unit factor (metres per unit), as OSR reports it.
    pub fn from_metres_per_unit(factor: f64) -> Option<LengthUnit> {
        [
            LengthUnit::Metre,
            LengthUnit::Foot,
            LengthUnit::UsSurveyFoot,
        ]
        .into_iter()
        .find(|u| (u.metres() - factor).abs() < 1e-9)
    }

    /// The unit of area formed by squaring this unit.
    pub fn squared(self) -> AreaUnit {
        AreaUnit::Square(self)
    }
}

impl fmt::Display for LengthUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// A unit of area; in JSON its symbol (`sqftUS`, `acre`), as every answer says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AreaUnit {
    /// The square of a linear unit (square feet, square metres...).
    Square(LengthUnit),
    /// The international acre, 43,560 sq ft.
    Acre,
}

impl AreaUnit {
    /// Square metres in one of this unit.
    pub fn square_metres(self) -> f64 {
        match self {
            AreaUnit::Square(u) => u.metres() * u.metres(),
            AreaUnit::Acre => 43_560.0 * 0.3048 * 0.3048,
        }
    }

    /// The symbol used in answers.
    pub fn symbol(self) -> &'static str {
        match self {
            AreaUnit::Square(LengthUnit::Metre) => "m2",
            AreaUnit::Square(LengthUnit::Foot) => "sqft",
            AreaUnit::Square(LengthUnit::UsSurveyFoot) => "sqftUS",
            AreaUnit::Square(LengthUnit::Inch) => "sqin",
            AreaUnit::Acre => "acre",
        }
    }
}

impl AreaUnit {
    const ALL: [AreaUnit; 5] = [
        AreaUnit::Square(LengthUnit::Metre),
        AreaUnit::Square(LengthUnit::Foot),
        AreaUnit::Square(LengthUnit::UsSurveyFoot),
        AreaUnit::Square(LengthUnit::Inch),
        AreaUnit::Acre,
    ];
}

impl Serialize for AreaUnit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.symbol())
    }
}

impl<'de> Deserialize<'de> for AreaUnit {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        AreaUnit::ALL
            .into_iter()
            .find(|u| u.symbol() == s)
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "unknown area unit {s:?}; expected one of m2, sqft, sqftUS, sqin, acre"
                ))
            })
    }
}

impl fmt::Display for AreaUnit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

/// A length with its unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Length {
    /// The number, in `unit`.
    pub value: f64,
    /// The unit `value` is in.
    pub unit: LengthUnit,
}

impl Length {
    /// A length of `value` in `unit`.
    pub fn new(value: f64, unit: LengthUnit) -> Self {
        Length { value, unit }
    }

    /// The same length in another unit.
    pub fn to(self, unit: LengthUnit) -> Length {
        Length::new(self.value * self.unit.metres() / unit.metres(), unit)
    }
}

/// A number rounded for people: to 10 significant digits, which drops the noise of a
/// unit conversion (300 ft is 299.9994 ftUS, not 299.99940000000004) and keeps every
/// digit a survey records.
pub fn for_display(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let digits = 10 - (v.abs().log10().floor() as i32 + 1);
    let scale = 10f64.powi(digits.clamp(-300, 300));
    let r = (v * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        v
    }
}

impl fmt::Display for Length {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", for_display(self.value), self.unit)
    }
}

/// An area with its unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Area {
    /// The number, in `unit`.
    pub value: f64,
    /// The unit `value` is in.
    pub unit: AreaUnit,
}

impl Area {
    /// An area of `value` in `unit`.
    pub fn new(value: f64, unit: AreaUnit) -> Self {
        Area { value, unit }
    }

    /// The same area in another unit.
    pub fn to(self, unit: AreaUnit) -> Area {
        Area::new(
            self.value * self.unit.square_metres() / unit.square_metres(),
            unit,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn us_survey_foot_differs_from_international_foot() {
        let l = Length::new(1_000_000.0, LengthUnit::UsSurveyFoot).to(LengthUnit::Foot);
        assert_relative_eq!(l.value, 1_000_002.000_004, epsilon = 1e-3);
    }

    #[test]
    fn lengths_print_without_conversion_noise_and_units_by_one_name() {
        let l = Length::new(300.0, LengthUnit::Foot).to(LengthUnit::UsSurveyFoot);
        assert_eq!(l.to_string(), "299.9994 ftUS");
        assert_eq!(Length::new(300.0, LengthUnit::Foot).to_string(), "300 ft");
        assert_eq!(for_display(0.1 + 0.2), 0.3);
        assert_eq!(for_display(1_234_567.891_234), 1_234_567.891);
        assert_eq!(
            serde_json::to_value(LengthUnit::UsSurveyFoot).unwrap(),
            LengthUnit::UsSurveyFoot.symbol()
        );
        let old: LengthUnit = serde_json::from_str("\"us_survey_foot\"").unwrap();
        assert_eq!(old, LengthUnit::UsSurveyFoot);
    }

    #[test]
    fn one_acre_is_43560_square_feet() {
        let a = Area::new(1.0, AreaUnit::Acre).to(LengthUnit::Foot.squared());
        assert_relative_eq!(a.value, 43_560.0, epsilon = 1e-6);
    }

    #[test]
    fn unit_is_found_from_osr_factor() {
        assert_eq!(
            LengthUnit::from_metres_per_unit(0.304_800_609_601_219_2),
            Some(LengthUnit::UsSurveyFoot)
        );
        assert_eq!(
            LengthUnit::from_metres_per_unit(1.0),
            Some(LengthUnit::Metre)
        );
        assert_eq!(LengthUnit::from_metres_per_unit(0.5), None);
    }
}
