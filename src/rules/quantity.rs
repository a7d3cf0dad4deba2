//! Areas and lengths as people type them: `2.5 acres`, `8,000 sq ft`, `0.2ha`, `150 m`.
//!
//! A planner types the disturbed area of a project and a distance to search; the rules
//! compare them with thresholds stated in square feet and acres. Parsing keeps the unit the
//! user wrote where the crate has one (`acre`, `sqft`, `m2`, `ft`, `m`) and converts the
//! rest exactly (hectares to square metres, kilometres to metres, miles to feet), so a
//! typed `1 acre` meets a one-acre threshold exactly instead of by way of a rounded
//! square-metre value.
//!
//! A number is digits with an optional decimal point and optional thousands separators
//! (`8,000`, `1,234,567.5`); a comma that does not separate groups of three digits is
//! refused rather than guessed at, because `1,5` means 1.5 in much of the world. A bare
//! number without a unit is refused too: `5000` could be square feet or square metres.

use thiserror::Error;

use crate::domain::{Area, AreaUnit, Length, LengthUnit};
use crate::rules::profile::SQFT_PER_ACRE;

/// The forms [`parse_area`] accepts, for error messages.
pub const AREA_FORMS: &str = "write a number and a unit: acres (2.5 acres, 1 acre, 2.5ac), \
square feet (8,000 sq ft, 8000sqft, 5000 ft2, 5000 sf), hectares (0.2 ha) or square metres \
(500 m2, 500 sq m)";

/// The forms [`parse_length`] accepts, for error messages.
pub const LENGTH_FORMS: &str = "write a number and a unit: feet (500 ft, 500 feet), US survey \
feet (500 ftUS), metres (150 m), kilometres (1.5 km), miles (0.5 mi) or inches (12 in)";

/// Why a typed quantity was refused. Every message quotes the input and lists the accepted
/// forms, so it can be shown to the user as it is.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QuantityError {
    /// Nothing that starts with a number (`acres`, `about 2 acres`, ``).
    #[error("{input:?} is not {what}: it does not start with a number; {forms}")]
    NoNumber {
        /// The text as given.
        input: String,
        /// "an area" or "a length".
        what: &'static str,
        /// The accepted forms.
        forms: &'static str,
    },
    /// A number that is malformed, signed or too large.
    #[error("{input:?} is not {what}: {number:?} {problem}; {forms}")]
    BadNumber {
        /// The text as given.
        input: String,
        /// The number part.
        number: String,
        /// What is wrong with it.
        problem: &'static str,
        /// "an area" or "a length".
        what: &'static str,
        /// The accepted forms.
        forms: &'static str,
    },
    /// A number without a unit (`5000`).
    #[error("{input:?} is not {what}: the unit is missing; {forms}")]
    NoUnit {
        /// The text as given.
        input: String,
        /// "an area" or "a length".
        what: &'static str,
        /// The accepted forms.
        forms: &'static str,
    },
    /// A unit that is not one of the accepted ones (`500 sqyd`, or a length unit for an area).
    #[error("{input:?} is not {what}: unknown unit {unit:?}; {forms}")]
    UnknownUnit {
        /// The text as given.
        input: String,
        /// The unit part as given.
        unit: String,
        /// "an area" or "a length".
        what: &'static str,
        /// The accepted forms.
        forms: &'static str,
    },
}

/// Spellings of an area unit (lower case, spaces and dots removed), the unit the result
/// keeps, and how many of that unit one typed unit is.
const AREA_UNITS: &[(&[&str], AreaUnit, f64)] = &[
    (&["acre", "acres", "ac"], AreaUnit::Acre, 1.0),
    (
        &[
            "sqft",
            "ft2",
            "ft²",
            "ft^2",
            "sf",
            "squarefeet",
            "squarefoot",
            "squareft",
        ],
        AreaUnit::Square(LengthUnit::Foot),
        1.0,
    ),
    (
        &[
            "m2",
            "m²",
            "m^2",
            "sqm",
            "squaremetre",
            "squaremetres",
            "squaremeter",
            "squaremeters",
        ],
        AreaUnit::Square(LengthUnit::Metre),
        1.0,
    ),
    // A hectare is exactly 10,000 m²; the crate has no hectare unit.
    (
        &["ha", "hectare", "hectares"],
        AreaUnit::Square(LengthUnit::Metre),
        10_000.0,
    ),
];

/// Spellings of a length unit, the unit the result keeps, and the factor.
const LENGTH_UNITS: &[(&[&str], LengthUnit, f64)] = &[
    (&["ft", "feet", "foot"], LengthUnit::Foot, 1.0),
    (
        &["ftus", "usft", "ussurveyfeet", "ussurveyfoot"],
        LengthUnit::UsSurveyFoot,
        1.0,
    ),
    (
        &["m", "metre", "metres", "meter", "meters"],
        LengthUnit::Metre,
        1.0,
    ),
    (
        &["km", "kilometre", "kilometres", "kilometer", "kilometers"],
        LengthUnit::Metre,
        1_000.0,
    ),
    // The international mile is exactly 5,280 international feet.
    (&["mi", "mile", "miles"], LengthUnit::Foot, 5_280.0),
    (&["in", "inch", "inches"], LengthUnit::Inch, 1.0),
];

/// Reads an area as typed: `2.5acres`, `2.5 acres`, `1 acre`, `8000sqft`, `8,000 sq ft`,
/// `5000 ft2`, `0.2ha`, `500m2`. Acres and square feet keep their unit; hectares become
/// square metres (× 10,000).
pub fn parse_area(input: &str) -> Result<Area, QuantityError> {
    let (value, unit) = parse(input, "an area", AREA_FORMS, AREA_UNITS)?;
    Ok(Area::new(value, unit))
}

/// Reads a length as typed: `500ft`, `150m`, `150 m`, `0.5mi`, `1.5 km`, `500 ftUS`,
/// `12 in`. Miles become feet (× 5,280), kilometres metres (× 1,000).
pub fn parse_length(input: &str) -> Result<Length, QuantityError> {
    let (value, unit) = parse(input, "a length", LENGTH_FORMS, LENGTH_UNITS)?;
    Ok(Length::new(value, unit))
}

/// An area in square feet. Exact for acres (× 43,560) and square feet, so that an area
/// typed as `1 acre` or `5 acres` meets a threshold of exactly one or five acres; a
/// conversion through square metres could land a hair below it.
pub fn square_feet(area: Area) -> f64 {
    match area.unit {
        AreaUnit::Acre => area.value * SQFT_PER_ACRE,
        AreaUnit::Square(LengthUnit::Foot) => area.value,
        AreaUnit::Square(_) => area.to(AreaUnit::Square(LengthUnit::Foot)).value,
    }
}

fn parse<U: Copy>(
    input: &str,
    what: &'static str,
    forms: &'static str,
    units: &[(&[&str], U, f64)],
) -> Result<(f64, U), QuantityError> {
    let text = input.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | ',' | '+' | '-')))
        .unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim());
    if number.is_empty() {
        return Err(QuantityError::NoNumber {
            input: input.to_string(),
            what,
            forms,
        });
    }
    let value = parse_number(number).map_err(|problem| QuantityError::BadNumber {
        input: input.to_string(),
        number: number.to_string(),
        problem,
        what,
        forms,
    })?;
    if unit.is_empty() {
        return Err(QuantityError::NoUnit {
            input: input.to_string(),
            what,
            forms,
        });
    }
    let key: String = unit
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '.')
        .flat_map(char::to_lowercase)
        .collect();
    units
        .iter()
        .find(|(names, _, _)| names.contains(&key.as_str()))
        .map(|&(_, unit, factor)| (value * factor, unit))
        .ok_or_else(|| QuantityError::UnknownUnit {
            input: input.to_string(),
            unit: unit.to_string(),
            what,
            forms,
        })
}

/// A non-negative decimal number with optional thousands separators; the error says what
/// is wrong in words that follow the quoted number.
fn parse_number(number: &str) -> Result<f64, &'static str> {
    if number.contains(['+', '-']) {
        return Err("has a sign: areas and lengths are written without one");
    }
    let (whole, fraction) = match number.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (number, None),
    };
    if fraction.is_some_and(|f| f.contains('.')) {
        return Err("has more than one decimal point");
    }
    if fraction.is_some_and(|f| f.contains(',')) {
        return Err("has a comma after the decimal point");
    }
    if whole.contains(',') {
        let mut groups = whole.split(',');
        let first = groups.next().unwrap_or("");
        let first_ok = (1..=3).contains(&first.len());
        if !first_ok || groups.any(|g| g.len() != 3) {
            return Err(
                "uses a comma that does not separate thousands (write 8,000 or 8000; decimals take a point)",
            );
        }
    }
    let digits: String = number.chars().filter(|c| *c != ',').collect();
    if !digits.chars().any(|c| c.is_ascii_digit()) {
        return Err("has no digits");
    }
    let value: f64 = digits.parse().map_err(|_| "is not a number")?;
    if !value.is_finite() {
        return Err("is too large");
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    const SQFT: AreaUnit = AreaUnit::Square(LengthUnit::Foot);
    const M2: AreaUnit = AreaUnit::Square(LengthUnit::Metre);

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// An area as typed: the value and the unit it keeps.
    #[rstest]
    #[case::acres_without_a_space("2.5acres", 2.5, AreaUnit::Acre)]
    #[case::acres_with_a_space("2.5 acres", 2.5, AreaUnit::Acre)]
    #[case::one_acre_singular("1 acre", 1.0, AreaUnit::Acre)]
    #[case::capitalised_and_padded("  1 Acre  ", 1.0, AreaUnit::Acre)]
    #[case::ac_abbreviation("2.5ac", 2.5, AreaUnit::Acre)]
    #[case::leading_decimal_point(".5 acre", 0.5, AreaUnit::Acre)]
    #[case::sqft_without_a_space("8000sqft", 8000.0, SQFT)]
    #[case::thousands_separator_and_sq_ft("8,000 sq ft", 8000.0, SQFT)]
    #[case::sq_ft_with_dots("8,000 sq. ft.", 8000.0, SQFT)]
    #[case::millions_with_decimals_in_sf("1,234,567.5 SF", 1_234_567.5, SQFT)]
    #[case::ft2("5000 ft2", 5000.0, SQFT)]
    #[case::ft_squared_sign("5000 ft²", 5000.0, SQFT)]
    #[case::square_feet_in_words("4,999 square feet", 4999.0, SQFT)]
    #[case::zero_square_feet("0 sqft", 0.0, SQFT)]
    #[case::hectares_become_square_metres("0.2ha", 2000.0, M2)]
    #[case::hectares_in_words("1.5 hectares", 15_000.0, M2)]
    #[case::m2("500m2", 500.0, M2)]
    #[case::sq_m("500 sq m", 500.0, M2)]
    #[case::square_metres_in_words("500 square metres", 500.0, M2)]
    fn areas_are_read_as_typed(#[case] input: &str, #[case] value: f64, #[case] unit: AreaUnit) {
        let area = parse_area(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(area.unit, unit, "{input}");
        assert!(close(area.value, value), "{input}: {}", area.value);
    }

    /// A length as typed: the value and the unit it keeps.
    #[rstest]
    #[case::ft_without_a_space("500ft", 500.0, LengthUnit::Foot)]
    #[case::feet_in_words("500 feet", 500.0, LengthUnit::Foot)]
    #[case::feet_with_a_thousands_separator("1,320 ft", 1320.0, LengthUnit::Foot)]
    #[case::m_without_a_space("150m", 150.0, LengthUnit::Metre)]
    #[case::m_with_a_space("150 m", 150.0, LengthUnit::Metre)]
    #[case::metres_in_words("150 metres", 150.0, LengthUnit::Metre)]
    #[case::kilometres_become_metres("1.5 km", 1500.0, LengthUnit::Metre)]
    #[case::miles_become_feet("0.5mi", 2640.0, LengthUnit::Foot)]
    #[case::miles_in_words("0.25 miles", 1320.0, LengthUnit::Foot)]
    #[case::us_survey_feet("500 ftUS", 500.0, LengthUnit::UsSurveyFoot)]
    #[case::inches("12 in", 12.0, LengthUnit::Inch)]
    fn lengths_are_read_as_typed(
        #[case] input: &str,
        #[case] value: f64,
        #[case] unit: LengthUnit,
    ) {
        let length = parse_length(input).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(length.unit, unit, "{input}");
        assert!(close(length.value, value), "{input}: {}", length.value);
    }

    /// Refused input: parsed as an area (or a length), the variant, and words the message
    /// must contain besides the input and the accepted forms.
    #[rstest]
    #[case::empty("", true, "NoNumber", "does not start with a number")]
    #[case::a_unit_alone("acres", true, "NoNumber", "does not start with a number")]
    #[case::words_before_the_number(
        "about 2 acres",
        true,
        "NoNumber",
        "does not start with a number"
    )]
    #[case::an_area_without_a_unit("5000", true, "NoUnit", "unit is missing")]
    #[case::a_length_without_a_unit("5000", false, "NoUnit", "unit is missing")]
    #[case::a_minus_sign("-2 acres", true, "BadNumber", "sign")]
    #[case::a_plus_sign("+2 acres", true, "BadNumber", "sign")]
    #[case::a_decimal_comma("1,5 ha", true, "BadNumber", "thousands")]
    #[case::a_comma_not_between_thousands("80,00 sqft", true, "BadNumber", "thousands")]
    #[case::a_leading_comma(",500 sqft", true, "BadNumber", "thousands")]
    #[case::two_decimal_points("1.2.3 acres", true, "BadNumber", "decimal point")]
    #[case::a_comma_after_the_decimal_point(
        "1.000,5 sqft",
        true,
        "BadNumber",
        "comma after the decimal point"
    )]
    #[case::a_point_without_digits(". acres", true, "BadNumber", "no digits")]
    #[case::square_yards_are_not_offered("500 sqyd", true, "UnknownUnit", "\"sqyd\"")]
    #[case::a_length_unit_for_an_area("500 ft", true, "UnknownUnit", "\"ft\"")]
    #[case::an_area_unit_for_a_length("2 acres", false, "UnknownUnit", "\"acres\"")]
    #[case::words_after_the_unit("2 acres of land", true, "UnknownUnit", "\"acres of land\"")]
    #[case::an_unknown_length_unit("150 parsecs", false, "UnknownUnit", "\"parsecs\"")]
    fn bad_input_is_refused_with_the_input_and_the_accepted_forms(
        #[case] input: &str,
        #[case] area: bool,
        #[case] variant: &str,
        #[case] words: &str,
    ) {
        let err = if area {
            parse_area(input).map(|_| ()).unwrap_err()
        } else {
            parse_length(input).map(|_| ()).unwrap_err()
        };
        let name = match &err {
            QuantityError::NoNumber { .. } => "NoNumber",
            QuantityError::BadNumber { .. } => "BadNumber",
            QuantityError::NoUnit { .. } => "NoUnit",
            QuantityError::UnknownUnit { .. } => "UnknownUnit",
        };
        assert_eq!(name, variant, "{input:?}: {err}");
        let message = err.to_string();
        assert!(message.contains(words), "{input:?}: {message}");
        assert!(message.contains(&format!("{input:?}")), "{message}");
        let forms = if area { "0.2 ha" } else { "0.5 mi" };
        assert!(message.contains(forms), "{message}");
    }

    #[rstest]
    #[case::one_acre(Area::new(1.0, AreaUnit::Acre), 43_560.0)]
    #[case::five_acres(Area::new(5.0, AreaUnit::Acre), 217_800.0)]
    #[case::half_an_acre(Area::new(0.5, AreaUnit::Acre), 21_780.0)]
    #[case::square_feet_as_they_are(Area::new(4_999.0, SQFT), 4_999.0)]
    fn square_feet_are_exact_for_acres(#[case] area: Area, #[case] sqft: f64) {
        assert_eq!(square_feet(area), sqft, "{area:?}");
    }

    #[test]
    fn square_metres_and_hectares_convert_to_square_feet() {
        let m2 = square_feet(Area::new(1.0, M2));
        assert!(close(m2, 1.0 / (0.3048 * 0.3048)), "{m2}");
        let ha = square_feet(parse_area("0.2 ha").unwrap());
        assert!(close(ha, 2000.0 / (0.3048 * 0.3048)), "{ha}");
    }
}
