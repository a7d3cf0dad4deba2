//! Which parcel land uses count as commercial or industrial.
//!
//! None of the laws defines "commercial or industrial land use" (catalogue AMB-03), so a
//! profile maps the assessor's codes and words to classes. A raw value is classified by its
//! leading number first: the most specific matching code or range of any list wins. Only
//! when no code matches are words tried, as whole words, in the order review, industrial,
//! commercial, other. Codes and words on the `review` list are classes the catalogue leaves
//! to the town; they classify as [`LandUseClass::Unknown`] so that an answer asks for review.

use serde::{Deserialize, Serialize};

str_enum! {
    /// The land-use class the rules need.
    pub enum LandUseClass("land-use class") {
        /// Commercial land use.
        Commercial = "commercial",
        /// Industrial land use.
        Industrial = "industrial",
        /// Known, and neither commercial nor industrial.
        Other = "other",
        /// No value, no match, or a class the profile leaves for review.
        Unknown = "unknown",
    }
}

impl LandUseClass {
    /// True for commercial and industrial.
    pub fn is_commercial_or_industrial(self) -> bool {
        matches!(self, LandUseClass::Commercial | LandUseClass::Industrial)
    }
}

/// A classification with the evidence for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LandUseMatch {
    /// The class.
    pub class: LandUseClass,
    /// Why, e.g. `code 410 matches commercial code 400-499`.
    pub basis: String,
}

/// Codes and words of one class.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LandUseList {
    /// Codes ("410") or inclusive ranges ("400-499").
    #[serde(default)]
    pub codes: Vec<String>,
    /// Words or phrases matched as whole words, case-insensitive.
    #[serde(default)]
    pub words: Vec<String>,
}

/// The profile's mapping from land-use codes and words to classes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LandUseConfig {
    /// Catalogue id of the rule that needs the classification.
    pub rule: String,
    /// Where the law uses the phrase.
    pub citation: String,
    /// What the codes are (e.g. the state's assessment property class codes).
    pub basis: String,
    /// Significant digits compared: leading zeros are dropped and longer codes cut to this
    /// many digits ("1010" reads as 101 with 3). All digits when omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_digits: Option<u8>,
    /// Commercial codes and words.
    pub commercial: LandUseList,
    /// Industrial codes and words.
    pub industrial: LandUseList,
    /// Codes and words the town has to decide (AMB-03): classified `Unknown`.
    #[serde(default)]
    pub review: LandUseList,
    /// Known uses that are neither commercial nor industrial.
    #[serde(default)]
    pub other: LandUseList,
}

/// An inclusive code range; a single code has `lo == hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct CodeRange {
    pub lo: u32,
    pub hi: u32,
}

impl CodeRange {
    /// "410" or "400-499" (spaces allowed around the hyphen).
    pub fn parse(pattern: &str) -> Option<CodeRange> {
        let number = |s: &str| {
            let s = s.trim();
            (!s.is_empty() && s.len() <= 9 && s.bytes().all(|b| b.is_ascii_digit()))
                .then(|| s.parse::<u32>().ok())
                .flatten()
        };
        let range = match pattern.split_once('-') {
            Some((lo, hi)) => CodeRange {
                lo: number(lo)?,
                hi: number(hi)?,
            },
            None => {
                let code = number(pattern)?;
                CodeRange { lo: code, hi: code }
            }
        };
        (range.lo <= range.hi).then_some(range)
    }

    pub fn contains(self, code: u32) -> bool {
        self.lo <= code && code <= self.hi
    }

    pub fn width(self) -> u32 {
        self.hi - self.lo
    }

    pub fn overlaps(self, other: CodeRange) -> bool {
        self.lo <= other.hi && other.lo <= self.hi
    }
}

impl LandUseConfig {
    /// The lists with their TOML key and class, in the order words are tried.
    pub(super) fn lists(&self) -> [(&'static str, &LandUseList, LandUseClass); 4] {
        [
            ("review", &self.review, LandUseClass::Unknown),
            ("industrial", &self.industrial, LandUseClass::Industrial),
            ("commercial", &self.commercial, LandUseClass::Commercial),
            ("other", &self.other, LandUseClass::Other),
        ]
    }

    /// The class of a raw land-use value (a code such as "410" or "0325", or text such as
    /// "Commercial"), with the evidence.
    pub fn classify(&self, raw: &str) -> LandUseMatch {
        let raw = raw.trim();
        if raw.is_empty() {
            return LandUseMatch {
                class: LandUseClass::Unknown,
                basis: "no land-use value".to_string(),
            };
        }
        let code = self.code_of(raw);
        if let Some(code) = code {
            if let Some(found) = self.match_code(code) {
                return found;
            }
        }
        let text = normalise_words(raw);
        for (name, list, class) in self.lists() {
            for word in &list.words {
                let word_norm = normalise_words(word);
                if !word_norm.is_empty() && contains_words(&text, &word_norm) {
                    return LandUseMatch {
                        class,
                        basis: format!("word {word:?} of the {name} words"),
                    };
                }
            }
        }
        let basis = match code {
            Some(code) => format!("code {code} is in no land-use list and no word matches"),
            None => "no land-use code or word matches".to_string(),
        };
        LandUseMatch {
            class: LandUseClass::Unknown,
            basis,
        }
    }

    /// The leading number of a raw value, reduced to `code_digits` significant digits.
    fn code_of(&self, raw: &str) -> Option<u32> {
        let digits: String = raw.chars().take_while(|c| c.is_ascii_digit()).collect();
        if digits.is_empty() {
            return None;
        }
        let significant = digits.trim_start_matches('0');
        let significant = if significant.is_empty() {
            "0"
        } else {
            significant
        };
        let kept = match self.code_digits {
            Some(n) if significant.len() > usize::from(n) => &significant[..usize::from(n)],
            _ => significant,
        };
        if kept.len() > 9 {
            return None;
        }
        kept.parse().ok()
    }

    /// The most specific code or range of any list that contains `code`.
    fn match_code(&self, code: u32) -> Option<LandUseMatch> {
        let mut best: Option<(CodeRange, &str, &str, LandUseClass)> = None;
        for (name, list, class) in self.lists() {
            for pattern in &list.codes {
                let Some(range) = CodeRange::parse(pattern) else {
                    continue;
                };
                if range.contains(code) && best.is_none_or(|(b, ..)| range.width() < b.width()) {
                    best = Some((range, name, pattern.as_str(), class));
                }
            }
        }
        best.map(|(_, name, pattern, class)| LandUseMatch {
            class,
            basis: format!("code {code} matches {name} code {}", pattern.trim()),
        })
    }
}

/// Lower case, anything but letters and digits to single spaces.
pub(crate) fn normalise_words(text: &str) -> String {
    let spaced: String = text
        .to_lowercase()
        .chars()
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    spaced.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `words` occurs in `text` on word boundaries (both normalised).
fn contains_words(text: &str, words: &str) -> bool {
    format!(" {text} ").contains(&format!(" {words} "))
}
