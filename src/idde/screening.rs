//! An outfall's dry-weather screening as the Outfall Reconnaissance Inventory field form
//! has it (Brown, Caraco and Pitt, *Illicit Discharge Detection and Elimination*, EPA
//! 833-B-04-002, 2004, ch. 11 and appendix D): the background, the outfall as found, the
//! flow and its physical indicators, the field tests with their units, and the overall
//! characterisation.
//!
//! [`Screening::check`] refuses values the form cannot hold (a pH of 15, a severity of 4,
//! a flow that is not one of the four words), naming the field as the request spells it,
//! so the inspector's page can put the message beside it.

use serde::{Deserialize, Serialize};

use crate::domain::Characterisation;

/// A field and what is wrong with it (`screening.field_tests.ph`, "15 is outside 0 to 14").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field, as the request names it.
    pub field: String,
    /// What is wrong, with the accepted values.
    pub message: String,
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

fn bad(field: impl Into<String>, message: impl Into<String>) -> Result<(), FieldError> {
    Err(FieldError {
        field: field.into(),
        message: message.into(),
    })
}

/// A physical indicator: a word (`"sewage"`, `"none"`), or the word with the form's
/// severity, 1 (faint) to 3 (clearly).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Indicator {
    /// What was seen, without a severity.
    Word(String),
    /// What was seen and how strongly.
    Rated {
        /// What was seen.
        #[schemars(length(max = 1024))]
        kind: String,
        /// 1 (faint) to 3 (clearly).
        #[schemars(range(min = 1, max = 3))]
        severity: i64,
    },
}

impl Indicator {
    /// Whether anything was seen (not `none`, not empty).
    pub fn present(&self) -> bool {
        let k = match self {
            Indicator::Word(w) => w,
            Indicator::Rated { kind, .. } => kind,
        };
        !matches!(
            k.trim().to_ascii_lowercase().as_str(),
            "" | "none" | "clear" | "no"
        )
    }
}

/// A laboratory sample taken at the screening.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LabSample {
    /// # Sample id
    /// The laboratory's or the programme's sample id.
    #[schemars(length(max = 1024))]
    pub sample_id: String,
    /// # Laboratory
    /// The laboratory, if known.
    #[serde(default)]
    #[schemars(length(max = 1024))]
    pub laboratory: Option<String>,
}

/// The field tests the form names, with the unit each is read in, and the range a
/// reading can have. A test by another name is `{"value": .., "unit": ".."}`.
pub const FIELD_TESTS: [(&str, &str, f64, f64); 9] = [
    ("ph", "pH units", 0.0, 14.0),
    ("temperature_f", "°F", -40.0, 140.0),
    ("ammonia_mg_l", "mg/L as N", 0.0, 1.0e4),
    ("conductivity_us_cm", "µS/cm", 0.0, 2.0e5),
    ("chlorine_mg_l", "mg/L", 0.0, 1.0e4),
    ("detergents_mg_l", "mg/L as MBAS", 0.0, 1.0e4),
    ("fluoride_mg_l", "mg/L", 0.0, 1.0e4),
    ("e_coli_cfu_100ml", "CFU/100 mL", 0.0, 1.0e9),
    ("turbidity_ntu", "NTU", 0.0, 1.0e5),
];

/// What each field test measures, for the form's label (the same order as
/// [`FIELD_TESTS`]).
const FIELD_TEST_NAMES: [&str; 9] = [
    "pH",
    "Water temperature",
    "Ammonia",
    "Conductivity",
    "Chlorine",
    "Detergents",
    "Fluoride",
    "E. coli",
    "Turbidity",
];

/// The conveyances the form names.
pub const CONVEYANCES: [&str; 2] = ["closed_pipe", "open_channel"];
/// How far an outfall is submerged.
pub const SUBMERGED: [&str; 3] = ["none", "partly", "fully"];
/// The flows the form names.
pub const FLOWS: [&str; 4] = ["none", "trickle", "moderate", "substantial"];

/// The API definition of a field the form fills from a closed list of words, so a client
/// builds its choice from the server's list.
fn words_schema(words: &[&str]) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, SchemaObject};
    SchemaObject {
        instance_type: Some(InstanceType::String.into()),
        enum_values: Some(words.iter().map(|w| (*w).into()).collect()),
        ..Default::default()
    }
    .into()
}

fn conveyance_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    words_schema(&CONVEYANCES)
}

fn submerged_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    words_schema(&SUBMERGED)
}

fn flow_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    words_schema(&FLOWS)
}

/// The field tests as the API definition gives them: each named test a number with its
/// unit in the title and its range, any other a value with its unit.
fn field_tests_schema(_: &mut schemars::gen::SchemaGenerator) -> schemars::schema::Schema {
    use schemars::schema::{InstanceType, NumberValidation, ObjectValidation, SchemaObject};
    let number = |title: String, lo: f64, hi: f64| -> schemars::schema::Schema {
        let mut s = SchemaObject {
            instance_type: Some(InstanceType::Number.into()),
            number: Some(Box::new(NumberValidation {
                minimum: Some(lo),
                maximum: Some(hi),
                ..Default::default()
            })),
            ..Default::default()
        };
        s.metadata().title = Some(title);
        s.into()
    };
    let other = SchemaObject {
        instance_type: Some(InstanceType::Object.into()),
        object: Some(Box::new(ObjectValidation {
            properties: [
                (
                    "value".to_string(),
                    SchemaObject {
                        instance_type: Some(InstanceType::Number.into()),
                        ..Default::default()
                    }
                    .into(),
                ),
                (
                    "unit".to_string(),
                    SchemaObject {
                        instance_type: Some(InstanceType::String.into()),
                        ..Default::default()
                    }
                    .into(),
                ),
            ]
            .into_iter()
            .collect(),
            required: ["value".to_string(), "unit".to_string()]
                .into_iter()
                .collect(),
            ..Default::default()
        })),
        ..Default::default()
    };
    SchemaObject {
        instance_type: Some(InstanceType::Object.into()),
        object: Some(Box::new(ObjectValidation {
            properties: FIELD_TESTS
                .iter()
                .zip(FIELD_TEST_NAMES)
                .map(|((name, unit, lo, hi), label)| {
                    (
                        name.to_string(),
                        number(format!("{label} ({unit})"), *lo, *hi),
                    )
                })
                .collect(),
            additional_properties: Some(Box::new(other.into())),
            ..Default::default()
        })),
        ..Default::default()
    }
    .into()
}

/// What a dry-weather screening observed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Screening {
    /// # Hours since rain (h)
    /// Hours since the last rain of at least 0.1 inch: the dry-weather rule is held to
    /// them, and a screening without them is not counted as a dry-weather screening.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub hours_since_rain: Option<f64>,
    /// # Air temperature (°F)
    /// The air temperature at the outfall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = -60, max = 130))]
    pub air_temperature_f: Option<f64>,
    /// # Conveyance
    /// `closed_pipe` or `open_channel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "conveyance_schema")]
    pub conveyance: Option<String>,
    /// # Material
    /// Pipe or channel material (RCP, CMP, PVC, earthen, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub material: Option<String>,
    /// # Shape
    /// circular, elliptical, box, trapezoid, parabolic, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub shape: Option<String>,
    /// # Diameter or width (in)
    /// The pipe's diameter or the channel's width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub width_in: Option<f64>,
    /// # Height or depth (in)
    /// A non-circular pipe's height or a channel's depth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub height_in: Option<f64>,
    /// # Submerged
    /// `none`, `partly` or `fully`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "submerged_schema")]
    pub submerged: Option<String>,
    /// # Not found
    /// The outfall could not be found.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_found: bool,
    /// # Not accessible
    /// The outfall could not be reached.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_accessible: bool,
    /// # Flow
    /// `none`, `trickle`, `moderate` or `substantial`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "flow_schema")]
    pub flow: Option<String>,
    /// # Flow rate (gal/min)
    /// The estimated flow rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub flow_rate_gpm: Option<f64>,
    /// # Odour
    /// Odour (flowing outfalls): sewage, sulfide, rancid/sour, petroleum/gas, other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub odour: Option<Indicator>,
    /// # Colour
    /// Colour (flowing outfalls): clear, brown, grey, yellow, green, orange, red, other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<Indicator>,
    /// # Turbidity
    /// Turbidity (flowing outfalls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turbidity: Option<Indicator>,
    /// # Floatables
    /// Floatables (flowing outfalls): sewage, suds, petroleum sheen, other.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floatables: Option<Indicator>,
    /// # Deposits and stains
    /// Deposits and stains (all outfalls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deposits: Option<Indicator>,
    /// # Abnormal vegetation
    /// Abnormal vegetation (all outfalls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub abnormal_vegetation: Option<Indicator>,
    /// # Poor pool quality
    /// Poor pool quality (all outfalls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub poor_pool_quality: Option<Indicator>,
    /// # Benthic growth
    /// Pipe benthic growth (all outfalls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub benthic_growth: Option<Indicator>,
    /// # Damage
    /// Damage to the outfall structure (all outfalls).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damage: Option<Indicator>,
    /// # Field tests
    /// Field tests by name ([`FIELD_TESTS`] as numbers; others as `{value, unit}`).
    #[serde(default)]
    #[schemars(schema_with = "field_tests_schema")]
    pub field_tests: serde_json::Map<String, serde_json::Value>,
    /// # Lab sample
    /// A sample sent to a laboratory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab_sample: Option<LabSample>,
    /// # Characterisation
    /// What the screening made of the discharge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub characterisation: Option<Characterisation>,
}

impl Screening {
    /// Every word of the form is a bounded line of printable text, and the field tests
    /// a bounded value ([`crate::domain::text`]), named by their path in the request
    /// (`screening.odour.kind`), before any other check quotes them back.
    fn check_text(&self) -> Result<(), FieldError> {
        use crate::domain::text;
        if let Some(why) = text::json_problem(&serde_json::Value::Object(self.field_tests.clone()))
        {
            return bad("screening.field_tests", why);
        }
        fn walk(path: &str, v: &serde_json::Value) -> Result<(), FieldError> {
            match v {
                serde_json::Value::String(s) => match text::line_problem(s) {
                    Some(why) => bad(path, why),
                    None => Ok(()),
                },
                serde_json::Value::Object(o) => o
                    .iter()
                    .try_for_each(|(k, v)| walk(&format!("{path}.{k}"), v)),
                _ => Ok(()),
            }
        }
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.remove("field_tests");
        }
        walk("screening", &v)
    }
}

fn one_of(field: &str, v: &Option<String>, allowed: &[&str]) -> Result<(), FieldError> {
    match v {
        Some(s) if !allowed.contains(&s.as_str()) => bad(
            format!("screening.{field}"),
            format!("{s:?} is not one of {}", allowed.join(", ")),
        ),
        _ => Ok(()),
    }
}

fn non_negative(field: &str, v: Option<f64>) -> Result<(), FieldError> {
    match v {
        Some(x) if !x.is_finite() || x < 0.0 => bad(
            format!("screening.{field}"),
            format!("{x} is not zero or more"),
        ),
        _ => Ok(()),
    }
}

impl Screening {
    /// Checks every field against the form; the first wrong one is named.
    pub fn check(&self) -> Result<(), FieldError> {
        self.check_text()?;
        non_negative("hours_since_rain", self.hours_since_rain)?;
        if let Some(t) = self.air_temperature_f {
            if !(-60.0..=130.0).contains(&t) {
                bad(
                    "screening.air_temperature_f",
                    format!("{t} °F is outside -60 to 130"),
                )?;
            }
        }
        one_of("conveyance", &self.conveyance, &CONVEYANCES)?;
        one_of("submerged", &self.submerged, &SUBMERGED)?;
        one_of("flow", &self.flow, &FLOWS)?;
        non_negative("width_in", self.width_in)?;
        non_negative("height_in", self.height_in)?;
        non_negative("flow_rate_gpm", self.flow_rate_gpm)?;
        self.check_indicators()?;
        if (self.not_found || self.not_accessible) && self.flow.is_some() {
            bad(
                "screening.flow",
                "an outfall not found or not reached has no flow observed",
            )?;
        }
        self.check_field_tests()?;
        if let Some(s) = &self.lab_sample {
            if s.sample_id.trim().is_empty() {
                bad("screening.lab_sample.sample_id", "give the sample's id")?;
            }
        }
        Ok(())
    }

    /// The indicators' severities, and the flow indicators only where something flows.
    fn check_indicators(&self) -> Result<(), FieldError> {
        let indicators = [
            ("odour", &self.odour),
            ("colour", &self.colour),
            ("turbidity", &self.turbidity),
            ("floatables", &self.floatables),
            ("deposits", &self.deposits),
            ("abnormal_vegetation", &self.abnormal_vegetation),
            ("poor_pool_quality", &self.poor_pool_quality),
            ("benthic_growth", &self.benthic_growth),
            ("damage", &self.damage),
        ];
        for (name, ind) in indicators {
            if let Some(Indicator::Rated { severity, .. }) = ind {
                if !(1..=3).contains(severity) {
                    bad(
                        format!("screening.{name}.severity"),
                        format!("{severity} is not a severity: 1 (faint), 2 or 3 (clearly)"),
                    )?;
                }
            }
        }
        // The form rates the flow indicators only where something flows.
        if self.flow.as_deref() == Some("none") {
            for (name, ind) in &indicators[..4] {
                if ind.as_ref().is_some_and(Indicator::present) {
                    bad(
                        format!("screening.{name}"),
                        "is observed only in flowing outfalls, and flow is none",
                    )?;
                }
            }
        }
        Ok(())
    }

    /// Each field test: a number the form names, within its range, or a value with its
    /// unit.
    fn check_field_tests(&self) -> Result<(), FieldError> {
        for (name, v) in &self.field_tests {
            let field = format!("screening.field_tests.{name}");
            let known = FIELD_TESTS.iter().find(|(n, ..)| n == name);
            let x = match (v, known) {
                (serde_json::Value::Number(n), Some(_)) => n.as_f64(),
                (serde_json::Value::Number(_), None) => {
                    return bad(
                        &field,
                        "a test the form does not name needs its unit: {\"value\": number, \"unit\": text}",
                    )
                }
                (serde_json::Value::Object(o), None) => {
                    if !o.keys().all(|k| k == "value" || k == "unit") {
                        bad(&field, "give {\"value\": number, \"unit\": text} only")?;
                    }
                    if o.get("unit").and_then(|u| u.as_str()).is_none_or(|u| u.trim().is_empty()) {
                        bad(&field, "a test the form does not name needs its unit")?;
                    }
                    o.get("value").and_then(|v| v.as_f64())
                }
                _ => None,
            };
            let Some(x) = x else {
                return bad(&field, format!("{v} is not a number"));
            };
            let (lo, hi) = known.map_or((0.0, f64::MAX), |(_, _, lo, hi)| (*lo, *hi));
            if !(lo..=hi).contains(&x) {
                let unit = known.map_or("", |(_, u, ..)| u);
                return bad(
                    &field,
                    format!("{x} is outside {lo} to {hi} {unit}")
                        .trim_end()
                        .to_string(),
                );
            }
        }
        Ok(())
    }

    /// Whether the screening found sewage: a sewage odour or floatables, or the
    /// characterisation suspect or obvious.
    pub fn sewage_indicators(&self) -> bool {
        let says = |i: &Option<Indicator>| match i {
            Some(Indicator::Word(w) | Indicator::Rated { kind: w, .. }) => {
                w.to_ascii_lowercase().contains("sewage")
            }
            None => false,
        };
        says(&self.odour) || says(&self.floatables)
    }

    /// Whether it opens a case: a suspect or obvious characterisation.
    pub fn opens_case(&self) -> bool {
        self.characterisation
            .is_some_and(Characterisation::opens_case)
    }
}

/// Whether a screening meets the dry-weather rule: `None` when the hours since rain were
/// not recorded (the rule cannot be checked, and the screening is not counted).
pub fn is_dry_weather(hours_since_rain: Option<f64>, rule_hours: f64) -> Option<bool> {
    hours_since_rain.map(|h| h >= rule_hours)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field_of(v: serde_json::Value) -> String {
        let s: Screening = serde_json::from_value(v).unwrap();
        s.check().unwrap_err().field
    }

    #[test]
    fn out_of_range_values_name_their_field() {
        assert_eq!(
            field_of(json!({"field_tests": {"ph": 15}})),
            "screening.field_tests.ph"
        );
        assert_eq!(
            field_of(json!({"flow": "trickle", "odour": {"kind": "sewage", "severity": 4}})),
            "screening.odour.severity"
        );
        assert_eq!(field_of(json!({"flow": "lots"})), "screening.flow");
        // A characterisation is a closed vocabulary: any other word is refused as the
        // request is read, with the four words.
        let e = serde_json::from_value::<Screening>(json!({"characterisation": "bad"}))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("\"bad\" is not a characterisation; expected one of unlikely, potential, suspect, obvious"),
            "{e}"
        );
        assert_eq!(
            field_of(json!({"field_tests": {"boron": 3}})),
            "screening.field_tests.boron",
            "a test the form does not name needs its unit"
        );
        assert_eq!(
            field_of(json!({"flow": "none", "colour": "grey"})),
            "screening.colour"
        );
    }

    #[test]
    fn a_full_form_passes_and_keeps_its_words() {
        let s: Screening = serde_json::from_value(json!({
            "hours_since_rain": 72, "air_temperature_f": 61, "conveyance": "closed_pipe",
            "material": "RCP", "shape": "circular", "width_in": 24, "submerged": "partly",
            "flow": "trickle", "flow_rate_gpm": 0.5,
            "odour": {"kind": "sewage", "severity": 2}, "colour": "grey",
            "deposits": "staining", "benthic_growth": {"kind": "brown", "severity": 1},
            "field_tests": {"ph": 6.8, "ammonia_mg_l": 1.4, "boron": {"value": 0.3, "unit": "mg/L"}},
            "lab_sample": {"sample_id": "LAB-1"}, "characterisation": "suspect"}))
        .unwrap();
        s.check().unwrap();
        assert!(s.opens_case() && s.sewage_indicators());
        assert_eq!(is_dry_weather(s.hours_since_rain, 48.0), Some(true));
        assert_eq!(is_dry_weather(Some(30.0), 48.0), Some(false));
        assert_eq!(is_dry_weather(None, 48.0), None);
    }
}
