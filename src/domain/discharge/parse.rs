//! The forgiving parser for discharge kinds found in real data, and its error.

use std::fmt;
use std::str::FromStr;

use super::synonyms::{AMBIGUOUS, SYNONYMS};
use super::DischargeKind::{self, *};

impl DischargeKind {
    /// Forgiving parse of a value found in real data: case, spaces, hyphens, underscores,
    /// slashes, plurals and common synonyms ("A/C condensate", "floor drain", "sanitary") are
    /// accepted. Anything else is an error that names the input and says why; turn it into
    /// `Unknown` with [`ParseDischargeKindError::reason`] or [`DischargeKind::parse_or_unknown`].
    pub fn parse(raw: &str) -> Result<DischargeKind, ParseDischargeKindError> {
        // A kind's own name, as most records hold it, needs no normalising.
        if let Some(kind) = Self::ALL.iter().copied().find(|k| k.as_str() == raw) {
            return Ok(kind);
        }
        let key = normalise(raw);
        if key.is_empty() {
            return Err(ParseDischargeKindError::new(raw, Problem::Empty));
        }
        if let Some((_, kind)) = normalised_names().iter().find(|(n, _)| *n == key) {
            return Ok(*kind);
        }
        if let Some((_, kind)) = SYNONYMS.iter().find(|(s, _)| *s == key) {
            return Ok(*kind);
        }
        if let Some((_, why)) = AMBIGUOUS.iter().find(|(s, _)| *s == key) {
            return Err(ParseDischargeKindError::new(raw, Problem::Ambiguous(why)));
        }
        Err(ParseDischargeKindError::new(raw, Problem::Unrecognised))
    }

    /// [`parse`](Self::parse), with an unrecognised value mapped to `Unknown` and the reason.
    pub fn parse_or_unknown(raw: &str) -> (DischargeKind, Option<String>) {
        match Self::parse(raw) {
            Ok(kind) => (kind, None),
            Err(e) => (Unknown, Some(e.reason())),
        }
    }
}

impl FromStr for DischargeKind {
    type Err = ParseDischargeKindError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        DischargeKind::parse(s)
    }
}

/// Why a raw value is not a discharge kind.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    Empty,
    Ambiguous(&'static str),
    Unrecognised,
}

/// A raw value [`DischargeKind::parse`] could not map to a kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseDischargeKindError {
    input: String,
    problem: Problem,
}

impl ParseDischargeKindError {
    fn new(input: &str, problem: Problem) -> Self {
        ParseDischargeKindError {
            input: input.to_string(),
            problem,
        }
    }

    /// The value as it was found.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// True when the value was empty or blank (a missing attribute, not a wrong one).
    pub fn is_empty_input(&self) -> bool {
        self.problem == Problem::Empty
    }

    /// A sentence for the `Unknown` classification, e.g. for an import report.
    pub fn reason(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for ParseDischargeKindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.problem {
            Problem::Empty => f.write_str("discharge kind is empty"),
            Problem::Ambiguous(why) => {
                write!(f, "discharge kind {:?} is ambiguous: {why}", self.input)
            }
            Problem::Unrecognised => {
                write!(f, "discharge kind {:?} is not recognised", self.input)
            }
        }
    }
}

impl std::error::Error for ParseDischargeKindError {}

/// Every kind's name normalised, once (an illicit scan parses a kind for each of a
/// county's 100,000 connections, and normalised every name again for each).
fn normalised_names() -> &'static [(String, DischargeKind)] {
    static NAMES: std::sync::OnceLock<Vec<(String, DischargeKind)>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        DischargeKind::ALL
            .iter()
            .map(|k| (normalise(k.as_str()), *k))
            .collect()
    })
}

/// Lower case; punctuation to spaces; a few compounds joined; plurals made singular per word.
pub(super) fn normalise(raw: &str) -> String {
    let spaced: String = raw
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    let mut text = format!(
        " {} ",
        spaced.split_whitespace().collect::<Vec<_>>().join(" ")
    );
    for (from, to) in [
        (" a c ", " ac "),
        (" ground water", " groundwater"),
        (" storm water", " stormwater"),
        (" water line", " waterline"),
        (" water main", " waterline"),
        (" fire fighting", " firefighting"),
        (" crawlspace", " crawl space"),
        (" air conditioning", " ac"),
        (" air conditioner", " ac"),
        (" airconditioning", " ac"),
        (" waste water", " wastewater"),
        (" wash water", " washwater"),
        (" non commercial", " noncommercial"),
    ] {
        text = text.replace(from, to);
    }
    text.split_whitespace()
        .map(singular)
        .collect::<Vec<_>>()
        .join(" ")
}

/// "drains" -> "drain", "activities" -> "activity"; "process", "gas" and "basis" stay.
fn singular(word: &str) -> String {
    if word.len() > 4 && word.ends_with("ies") {
        format!("{}y", &word[..word.len() - 3])
    } else if word.len() > 3
        && word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    }
}
