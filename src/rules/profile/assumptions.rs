//! Readings chosen where the law is silent or ambiguous, keyed by the catalogue's AMB ids.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The reading a profile chose for one ambiguity of the law.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Assumption {
    /// The value the code reads (a word, a number, a list or a small table).
    pub setting: AssumptionValue,
    /// One line an answer shows beside its result as the `assumption`.
    pub text: String,
}

/// A setting value as written in TOML. Dates are written as strings ("2007-12-19").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AssumptionValue {
    /// `true` / `false`.
    Bool(bool),
    /// A whole number.
    Integer(i64),
    /// A number with a fraction.
    Float(f64),
    /// A word or phrase, usually snake_case.
    Text(String),
    /// A list of values.
    List(Vec<AssumptionValue>),
    /// Named values.
    Table(BTreeMap<String, AssumptionValue>),
}

impl AssumptionValue {
    /// The text, when the value is a string.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            AssumptionValue::Text(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, when the value is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            AssumptionValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, when the value is an integer or a float.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            AssumptionValue::Integer(i) => Some(*i as f64),
            AssumptionValue::Float(f) => Some(*f),
            _ => None,
        }
    }

    /// The items, when the value is a list.
    pub fn as_list(&self) -> Option<&[AssumptionValue]> {
        match self {
            AssumptionValue::List(items) => Some(items),
            _ => None,
        }
    }

    /// The named value `key`, when the value is a table.
    pub fn get(&self, key: &str) -> Option<&AssumptionValue> {
        match self {
            AssumptionValue::Table(map) => map.get(key),
            _ => None,
        }
    }

    /// True for an empty string, list or table: a setting that says nothing.
    pub fn is_blank(&self) -> bool {
        match self {
            AssumptionValue::Text(s) => s.trim().is_empty(),
            AssumptionValue::List(items) => items.is_empty(),
            AssumptionValue::Table(map) => map.is_empty(),
            AssumptionValue::Bool(_) | AssumptionValue::Integer(_) | AssumptionValue::Float(_) => {
                false
            }
        }
    }
}
