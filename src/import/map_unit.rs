//! Units on a field mapping: `--map diameter_in=SPAN:ft` reads the source field `SPAN`
//! as feet and stores it in the canonical field's unit (inches), and the quality report
//! says so. Without a unit a value is taken in the field's own unit, as it always was:
//! a diameter in feet would be stored as that many inches without a word, which is why
//! the report also warns when a diameter field's values look like another unit.
//!
//! Only length fields take a unit: a `Length` field (`diameter_in`, in inches) and an
//! elevation (`rim_elev`, the inverts: in the registry CRS's unit). The units are the
//! project's own ([`LengthUnit`]), with millimetres and centimetres as fractions of the
//! metre, since metric pipe data gives diameters in millimetres. A unit word the import
//! does not know, or a unit on a field that is no length, is refused naming the mapping.
//!
//! Conversion multiplies by the ratio of the two units in metres ([`Length::to`]) and
//! rounds to twelve significant digits, the precision the store compares numbers at:
//! 2 ft is stored as 24 in, not 24.000000000000004.

use crate::domain::{FieldType, Layer, Length, LengthUnit, Value};

/// A unit a mapping may give its source field: one of the project's units, or a
/// decimal fraction of one (millimetres, centimetres).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SourceUnit {
    /// The unit's symbol, as reports say it (`ft`, `mm`).
    pub symbol: &'static str,
    /// The project's unit it is counted in.
    base: LengthUnit,
    /// How many of this unit make one `base` (1000 for millimetres of the metre).
    per_base: f64,
}

impl std::fmt::Display for SourceUnit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.symbol)
    }
}

/// The unit words a mapping takes (in any case), and what they name: symbol, the
/// project's unit, and how many of the word's unit make one of it.
const WORDS: &[(&[&str], &str, LengthUnit, f64)] = &[
    (&["in", "inch", "inches"], "in", LengthUnit::Inch, 1.0),
    (&["ft", "foot", "feet"], "ft", LengthUnit::Foot, 1.0),
    (
        &["ftus", "us_survey_foot", "us_survey_feet", "usft"],
        "ftUS",
        LengthUnit::UsSurveyFoot,
        1.0,
    ),
    (
        &["m", "metre", "metres", "meter", "meters"],
        "m",
        LengthUnit::Metre,
        1.0,
    ),
    (
        &[
            "cm",
            "centimetre",
            "centimetres",
            "centimeter",
            "centimeters",
        ],
        "cm",
        LengthUnit::Metre,
        100.0,
    ),
    (
        &[
            "mm",
            "millimetre",
            "millimetres",
            "millimeter",
            "millimeters",
        ],
        "mm",
        LengthUnit::Metre,
        1000.0,
    ),
];

/// The units a mapping takes, as messages list them.
pub const UNIT_WORDS: &str = "in, ft, ftUS, m, cm, mm";

impl SourceUnit {
    /// The unit a word names (`ft`, `feet`, `mm`...), if it names one.
    pub fn parse(word: &str) -> Option<SourceUnit> {
        let w = word.trim().to_ascii_lowercase();
        WORDS
            .iter()
            .find(|(words, ..)| words.contains(&w.as_str()))
            .map(|&(_, symbol, base, per_base)| SourceUnit {
                symbol,
                base,
                per_base,
            })
    }

    /// `v` of this unit in `to`, to twelve significant digits (see the module docs).
    pub fn convert(self, v: f64, to: LengthUnit) -> f64 {
        if self.per_base == 1.0 && self.base == to {
            return v;
        }
        significant(Length::new(v / self.per_base, self.base).to(to).value, 12)
    }
}

/// `v` rounded to `digits` significant digits (unchanged when it is 0 or not finite).
fn significant(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let scale = 10f64.powi(digits - (v.abs().log10().floor() as i32 + 1));
    let r = (v * scale).round() / scale;
    if r.is_finite() {
        r
    } else {
        v
    }
}

/// A mapping's source field and unit: `SPAN:ft` is `SPAN` in feet. A source without a
/// `:` has no unit. Errors are the message for the mapping's refusal.
pub fn split_source(source: &str) -> Result<(&str, Option<SourceUnit>), String> {
    let Some((field, word)) = source.rsplit_once(':') else {
        return Ok((source, None));
    };
    let unit = SourceUnit::parse(word).ok_or_else(|| {
        format!(
            "{:?} is not a unit ms4 converts; give one of {UNIT_WORDS}",
            word.trim()
        )
    })?;
    if field.trim().is_empty() {
        return Err("no source field before the unit".into());
    }
    Ok((field.trim(), Some(unit)))
}

/// The unit a canonical field's values are stored in: a length's own, an elevation's
/// the registry's; `None` for a field that is no length.
pub fn stored_unit(ty: FieldType, registry: LengthUnit) -> Option<LengthUnit> {
    match ty {
        FieldType::Length(u) => Some(u),
        FieldType::Elevation => Some(registry),
        _ => None,
    }
}

/// One field's conversion, as the field plan carries it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldUnit {
    /// The unit the source gives.
    pub from: SourceUnit,
    /// The unit the field is stored in.
    pub to: LengthUnit,
}

impl FieldUnit {
    /// A coerced value converted (a number), or why it cannot be (anything else but no
    /// value): the message names the field, the value and the units.
    pub fn apply(self, field: &str, v: Value) -> Result<Value, String> {
        match v {
            Value::Real(r) => Ok(Value::Real(self.from.convert(r, self.to))),
            Value::Int(i) => Ok(Value::Real(self.from.convert(i as f64, self.to))),
            Value::Null => Ok(Value::Null),
            other => {
                let said = match &other {
                    Value::Text(t) => format!("{t:?}"),
                    v => v.to_string(),
                };
                Err(format!(
                    "field {field}: {said} is not a number, so it cannot be converted from {} to {}",
                    self.from, self.to
                ))
            }
        }
    }
}

/// The conversions of a layer's canonical fields (in [`Layer::fields`] order) from the
/// mappings' units (canonical name → unit); each unit on a field that is no length is
/// refused, naming the mapping.
pub fn plan_units(
    layer: Layer,
    units: &[(String, SourceUnit)],
    registry: LengthUnit,
) -> Result<Vec<Option<FieldUnit>>, (String, String)> {
    let fields = layer.fields();
    let mut out = vec![None; fields.len()];
    for (canonical, from) in units {
        let to = fields
            .iter()
            .position(|f| f.name == canonical.as_str())
            .and_then(|i| Some((i, stored_unit(fields[i].ty, registry)?)));
        let Some((i, to)) = to else {
            let lengths: Vec<&str> = fields
                .iter()
                .filter(|f| stored_unit(f.ty, registry).is_some())
                .map(|f| f.name)
                .collect();
            let which = if lengths.is_empty() {
                format!("{layer} has no length field")
            } else {
                format!("the lengths of {layer} are: {}", lengths.join(", "))
            };
            return Err((
                canonical.clone(),
                format!("{layer}.{canonical} is not a length, so it takes no unit; {which}"),
            ));
        };
        out[i] = Some(FieldUnit { from: *from, to });
    }
    Ok(out)
}

/// Under this many values a field's unit is not judged.
const MIN_VALUES: u64 = 3;
/// A diameter under this many inches is a small service pipe at most: most of a
/// layer's under it are feet (or metres) read as inches.
const SMALL_IN: f64 = 5.0;
/// A diameter of this many inches or more is a large culvert: most of a layer's over it
/// are millimetres read as inches.
const LARGE_IN: f64 = 150.0;

/// The values of one diameter field (a length stored in inches), counted to tell
/// whether they look like another unit.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiameterTally {
    values: u64,
    small: u64,
    under_one: u64,
    large: u64,
}

impl DiameterTally {
    /// Counts one stored value (in inches). A 0 (or less) is not counted: many files
    /// write 0 for a diameter nobody measured.
    pub fn add(&mut self, inches: f64) {
        if inches <= 0.0 {
            return;
        }
        self.values += 1;
        if inches < SMALL_IN {
            self.small += 1;
            if inches < 1.0 {
                self.under_one += 1;
            }
        }
        if inches >= LARGE_IN {
            self.large += 1;
        }
    }

    /// When most values look like another unit: the share of them that do, and that
    /// unit (`ft`, `m` or `mm`).
    pub fn looks_like(&self) -> Option<(f64, &'static str, String)> {
        if self.values < MIN_VALUES {
            return None;
        }
        let n = self.values as f64;
        if self.small as f64 / n > 0.5 {
            // Feet come as 1, 1.5, 2; metres as 0.3, 0.45, 0.6.
            let unit = if self.under_one * 2 > self.small {
                "m"
            } else {
                "ft"
            };
            return Some((self.small as f64 / n, unit, format!("under {SMALL_IN} in")));
        }
        if self.large as f64 / n > 0.5 {
            return Some((
                self.large as f64 / n,
                "mm",
                format!("{LARGE_IN} in or more"),
            ));
        }
        None
    }
}

/// One canonical field whose values an import counts: one a mapping gave a unit, or a
/// diameter whose unit is judged.
#[derive(Debug, Clone)]
struct Tracked {
    /// Its index in [`Layer::fields`].
    index: usize,
    /// The conversion its mapping asked for.
    unit: Option<FieldUnit>,
    /// Values converted.
    converted: u64,
    /// For a diameter without a stated unit, its values counted.
    diameter: Option<DiameterTally>,
}

/// The values of the fields whose unit matters, counted as features are accepted, for
/// the report's `units` and `unit_warnings`.
#[derive(Debug, Clone, Default)]
pub(super) struct UnitTally {
    fields: Vec<Tracked>,
}

impl UnitTally {
    /// The fields of `layer` to count: those `units` converts, and its diameters (lengths
    /// in inches) without a stated unit.
    pub fn new(layer: Layer, units: &[Option<FieldUnit>]) -> Self {
        let fields = layer
            .fields()
            .iter()
            .enumerate()
            .filter_map(|(index, spec)| {
                let unit = units.get(index).copied().flatten();
                let diameter = (unit.is_none() && spec.ty == FieldType::Length(LengthUnit::Inch))
                    .then(DiameterTally::default);
                (unit.is_some() || diameter.is_some()).then_some(Tracked {
                    index,
                    unit,
                    converted: 0,
                    diameter,
                })
            })
            .collect();
        UnitTally { fields }
    }

    /// Counts an accepted feature's values (as stored, in the fields' own units).
    pub fn add(&mut self, values: &[Value]) {
        for t in &mut self.fields {
            let Some(Value::Real(v)) = values.get(t.index) else {
                continue;
            };
            if t.unit.is_some() {
                t.converted += 1;
            }
            if let Some(d) = &mut t.diameter {
                d.add(*v);
            }
        }
    }

    /// The conversions made and the units that look wrong, into the report (the source
    /// field of each as the field map names it).
    pub fn report(&self, layer: Layer, report: &mut super::ImportReport) {
        for t in &self.fields {
            let field = layer.fields()[t.index].name;
            let source = report.field_map.get(field).cloned().unwrap_or_default();
            if let Some(u) = t.unit {
                report.units.push(super::report::UnitConversion {
                    field: field.into(),
                    source_field: source.clone(),
                    from: u.from.symbol.into(),
                    to: u.to.symbol().into(),
                    values: t.converted,
                });
            }
            let Some((share, unit, looks)) = t.diameter.and_then(|d| d.looks_like()) else {
                continue;
            };
            let values = t.diameter.map(|d| d.values).unwrap_or_default();
            let source = if source.is_empty() {
                "FIELD".into()
            } else {
                source
            };
            let message = format!(
                "{layer}.{field}: {:.0}% of its {values} values are {looks}, unlikely for a diameter in inches: if they are in {unit}, import with --map {field}={source}:{unit} (a map part {field}={source}:{unit} in an upload)",
                share * 100.0
            );
            report.warnings.push(message.clone());
            report.unit_warnings.push(super::report::UnitWarning {
                layer: layer.name().into(),
                field: field.into(),
                unit: LengthUnit::Inch.symbol().into(),
                values,
                share: (share * 1000.0).round() / 1000.0,
                looks,
                suggested_unit: unit.into(),
                message,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case::feet_to_inches(2.0, "ft", LengthUnit::Inch, 24.0)]
    #[case::inches_to_feet(18.0, "in", LengthUnit::Foot, 1.5)]
    #[case::metres_to_inches(0.3, "m", LengthUnit::Inch, 11.811_023_622_0)]
    #[case::millimetres_to_inches(300.0, "mm", LengthUnit::Inch, 11.811_023_622_0)]
    #[case::centimetres_to_inches(30.48, "cm", LengthUnit::Inch, 12.0)]
    #[case::inches_to_millimetre_base(1.0, "inch", LengthUnit::Metre, 0.0254)]
    #[case::metres_to_us_feet(1200.0, "metres", LengthUnit::UsSurveyFoot, 3937.0)]
    #[case::us_feet_to_feet(100.0, "ftUS", LengthUnit::Foot, 100.000_200_000)]
    #[case::same_unit(7.25, "in", LengthUnit::Inch, 7.25)]
    fn a_mapped_unit_converts_without_float_noise(
        #[case] v: f64,
        #[case] word: &str,
        #[case] to: LengthUnit,
        #[case] expected: f64,
    ) {
        let from = SourceUnit::parse(word).unwrap();
        assert_eq!(from.convert(v, to), expected, "{v} {word} in {to}");
    }

    #[rstest]
    #[case("SPAN:ft", Ok(("SPAN", Some("ft"))))]
    #[case("SPAN:Feet", Ok(("SPAN", Some("ft"))))]
    #[case("DIAM_MM:mm", Ok(("DIAM_MM", Some("mm"))))]
    #[case("SPAN", Ok(("SPAN", None)))]
    #[case(
        "SPAN:yards",
        Err("\"yards\" is not a unit ms4 converts; give one of in, ft, ftUS, m, cm, mm")
    )]
    #[case(":ft", Err("no source field before the unit"))]
    fn a_source_is_split_from_its_unit(
        #[case] source: &str,
        #[case] expected: Result<(&str, Option<&str>), &str>,
    ) {
        let got = split_source(source).map(|(f, u)| (f, u.map(|u| u.symbol)));
        assert_eq!(got, expected.map_err(str::to_string));
    }

    #[test]
    fn a_unit_on_a_field_that_is_no_length_is_refused_naming_the_lengths() {
        let ft = SourceUnit::parse("ft").unwrap();
        let (field, why) = plan_units(
            Layer::Pipes,
            &[("material".into(), ft)],
            LengthUnit::UsSurveyFoot,
        )
        .unwrap_err();
        assert_eq!(field, "material");
        assert!(why.contains("diameter_in, from_invert, to_invert"), "{why}");
        let plan = plan_units(
            Layer::Pipes,
            &[("from_invert".into(), SourceUnit::parse("m").unwrap())],
            LengthUnit::UsSurveyFoot,
        )
        .unwrap();
        let i = Layer::Pipes.field_index("from_invert").unwrap();
        assert_eq!(plan[i].unwrap().to, LengthUnit::UsSurveyFoot);
    }

    #[test]
    fn a_non_number_is_refused_naming_field_value_and_units() {
        let u = FieldUnit {
            from: SourceUnit::parse("ft").unwrap(),
            to: LengthUnit::Inch,
        };
        let e = u
            .apply("diameter_in", Value::Text("two".into()))
            .unwrap_err();
        assert_eq!(
            e,
            "field diameter_in: \"two\" is not a number, so it cannot be converted from ft to in"
        );
    }

    #[rstest]
    #[case::feet(&[1.0, 1.5, 2.0, 24.0], Some("ft"))]
    #[case::metres(&[0.3, 0.45, 0.6, 1.2], Some("m"))]
    #[case::millimetres(&[300.0, 450.0, 600.0, 12.0], Some("mm"))]
    #[case::inches(&[12.0, 15.0, 18.0, 4.0], None)]
    #[case::too_few(&[1.0, 2.0], None)]
    #[case::zeros_are_no_measure(&[0.0, 0.0, 0.0, 12.0, 15.0, 18.0], None)]
    fn diameters_that_look_like_another_unit_are_named(
        #[case] values: &[f64],
        #[case] unit: Option<&str>,
    ) {
        let mut t = DiameterTally::default();
        values.iter().for_each(|v| t.add(*v));
        assert_eq!(t.looks_like().map(|(_, u, _)| u), unit);
    }
}
