//! The monitoring-location priority rule: which facts about a monitoring location (an
//! outfall, or a point where the town's system passes to or from another owner's) make it
//! a higher priority, as profile data (`[monitoring]`).
//!
//! New York's MS4 general permit (GP-0-24-001) asks for monitoring locations with a
//! designated priority in its first mapping phase. The permit's own words on how a
//! priority is decided were not at hand when this was written: what the public summaries
//! of the permit (DEC's MS4 pages and toolbox, consultants' summaries) describe as its
//! focus areas is what the default rule reads, and every answer built on it says it is
//! the profile's reading, with [`MonitoringSettings::source`], never a quotation. A town
//! that has the permit's text writes its own `[monitoring]` over the default.
//!
//! The rule is pure: it takes the facts found about one location and returns the
//! priority with one reason per criterion met. Finding the facts is the spatial code's
//! job (`crate::spatial::monitoring`).

use serde::{Deserialize, Serialize};

/// Where the default reading comes from, said in every answer that uses it.
pub const DEFAULT_SOURCE: &str = "the profile's reading, source: the Mapping Phase I focus areas of New York's MS4 general permit GP-0-24-001 (discharges to impaired waters, to TMDL watersheds, to waters of the higher classes AA-S, A-S, AA, A, B, SA, SB; illicit discharge history; land use) as DEC's public MS4 pages and consultants' summaries describe them; the permit's own words on priority were not at hand, so each level here is the registry's reading, not the permit's";

/// The state classes the default reading counts as higher (NY 6 NYCRR Part 701 best-use
/// classes, as the permit summaries list its focus waters).
pub const DEFAULT_HIGHER_CLASSES: [&str; 7] = ["AA-S", "A-S", "AA", "A", "B", "SA", "SB"];

/// Words of a recorded owner that make it another public body's system (a State
/// department, a county, a neighbouring city, town or village): the default reading of
/// whose conveyances count as another MS4's.
pub const DEFAULT_PUBLIC_OWNER_WORDS: [&str; 14] = [
    "state",
    "nys",
    "nysdot",
    "dot",
    "department of transportation",
    "county",
    "city",
    "village",
    "town",
    "thruway",
    "authority",
    "district",
    "federal",
    "parkway",
];

/// A location's priority, lowest first (so the highest criterion met wins by `max`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// No criterion met.
    #[default]
    Low,
    /// A criterion of the middle rank met.
    Medium,
    /// A criterion of the top rank met.
    High,
}

impl Priority {
    /// The word written in answers and files.
    pub fn as_str(self) -> &'static str {
        match self {
            Priority::Low => "low",
            Priority::Medium => "medium",
            Priority::High => "high",
        }
    }
}

/// A fact about a monitoring location the rule may rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Criterion {
    /// It discharges to a 303(d)-listed (impaired) water, in the profile's list cycle.
    ImpairedWater,
    /// It discharges to a water a TMDL covers, or lies in a TMDL area.
    TmdlWater,
    /// It discharges to a water of one of [`MonitoringSettings::higher_classes`].
    HigherClass,
    /// An illicit discharge case is open at it, or a dry-weather screening there found
    /// sewage indicators or was characterised suspect or obvious.
    IddeHistory,
    /// A commercial or industrial parcel drains to it (by a connection joined to its
    /// upstream network).
    CommercialIndustrialUpstream,
    /// It is an interconnection with another owner's system.
    Interconnection,
}

impl Criterion {
    /// The word written in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            Criterion::ImpairedWater => "impaired_water",
            Criterion::TmdlWater => "tmdl_water",
            Criterion::HigherClass => "higher_class",
            Criterion::IddeHistory => "idde_history",
            Criterion::CommercialIndustrialUpstream => "commercial_industrial_upstream",
            Criterion::Interconnection => "interconnection",
        }
    }
}

/// One line of the rule: a criterion and the priority it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PriorityCriterion {
    /// The fact.
    #[schemars(with = "String")]
    pub when: Criterion,
    /// The priority it gives.
    #[schemars(with = "String")]
    pub priority: Priority,
}

/// `[monitoring]`: whose conveyances are the town's for the map, and the priority rule.
/// Every key may be left out; what is left out takes the default reading.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MonitoringSettings {
    /// Where the rule comes from (a permit section, a guidance document); the default
    /// reading's [`DEFAULT_SOURCE`] when left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Recorded owners that are the town's own system (whole values, case and punctuation
    /// ignored); `[ms4] owners` when left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub town_owners: Vec<String>,
    /// Words that make a recorded owner another public body's system (an interconnection
    /// where it meets the town's); [`DEFAULT_PUBLIC_OWNER_WORDS`] when left out. An owner
    /// with none of them (a private owner) meets the town's system at a connection, not
    /// an interconnection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub public_owner_words: Vec<String>,
    /// The classes counted as higher; [`DEFAULT_HIGHER_CLASSES`] when left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub higher_classes: Vec<String>,
    /// The criteria and the priority each gives; [`default_criteria`] when left out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria: Vec<PriorityCriterion>,
}

/// The default reading's criteria: impaired and TMDL waters and an illicit discharge
/// history are high; the higher classes, commercial or industrial land upstream and an
/// interconnection are medium.
pub fn default_criteria() -> Vec<PriorityCriterion> {
    use Criterion::*;
    [
        (ImpairedWater, Priority::High),
        (TmdlWater, Priority::High),
        (IddeHistory, Priority::High),
        (HigherClass, Priority::Medium),
        (CommercialIndustrialUpstream, Priority::Medium),
        (Interconnection, Priority::Medium),
    ]
    .into_iter()
    .map(|(when, priority)| PriorityCriterion { when, priority })
    .collect()
}

/// The rule as applied: the settings with every default filled in, and whether each part
/// is the default reading.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PriorityRule {
    /// Where the rule comes from, as the answer states it.
    pub source: String,
    /// Whether the rule is the default reading (the profile has no `[monitoring]`
    /// criteria of its own).
    pub default_reading: bool,
    /// The criteria, each with the priority it gives.
    pub criteria: Vec<PriorityCriterion>,
    /// The classes counted as higher.
    pub higher_classes: Vec<String>,
    /// The priority of a location that meets no criterion.
    #[schemars(with = "String")]
    pub otherwise: Priority,
}

impl MonitoringSettings {
    /// Whether nothing is set (the profile has no `[monitoring]`): not written back.
    pub fn is_unset(&self) -> bool {
        *self == MonitoringSettings::default()
    }

    /// The rule with defaults filled in.
    pub fn rule(&self) -> PriorityRule {
        let own = !self.criteria.is_empty();
        PriorityRule {
            source: match (&self.source, own) {
                (Some(s), _) => format!("the profile's reading, source: {s}"),
                (None, true) => "the profile's reading, source: the profile's [monitoring] criteria (no source given)".into(),
                (None, false) => DEFAULT_SOURCE.into(),
            },
            default_reading: !own,
            criteria: if own {
                self.criteria.clone()
            } else {
                default_criteria()
            },
            higher_classes: if self.higher_classes.is_empty() {
                DEFAULT_HIGHER_CLASSES.iter().map(|s| s.to_string()).collect()
            } else {
                self.higher_classes.clone()
            },
            otherwise: Priority::Low,
        }
    }

    /// The words that make an owner another public body's.
    pub fn public_words(&self) -> Vec<String> {
        if self.public_owner_words.is_empty() {
            DEFAULT_PUBLIC_OWNER_WORDS
                .iter()
                .map(|s| s.to_string())
                .collect()
        } else {
            self.public_owner_words.clone()
        }
    }
}

/// Whose system a recorded owner's asset is part of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "owner")]
pub enum OwnerClass {
    /// The town's own.
    Town,
    /// Another public body's (a State department, a county, a neighbouring MS4): named.
    OtherPublic(String),
    /// A private owner's, or one the words do not place: named.
    Private(String),
    /// No owner recorded, and the profile does not read that as the town's.
    Unknown,
}

/// Places a recorded owner: the town's (its whole name among `town_owners`), another
/// public body's (one of `public_words` in it, on word boundaries), or private; a missing
/// owner is the town's when `missing_is_town`.
pub fn owner_class(
    owner: Option<&str>,
    town_owners: &[String],
    public_words: &[String],
    missing_is_town: bool,
) -> OwnerClass {
    OwnerWords::new(town_owners, public_words, missing_is_town).class(owner)
}

/// The names and words [`owner_class`] places an owner by, normalised once: a county's
/// 485,000 structures are each placed by their owner.
#[derive(Debug, Clone)]
pub struct OwnerWords {
    town: Vec<String>,
    /// Each public word normalised, between spaces.
    public: Vec<String>,
    missing_is_town: bool,
}

impl OwnerWords {
    /// The town's names, the public words and how a missing owner reads.
    pub fn new(town_owners: &[String], public_words: &[String], missing_is_town: bool) -> Self {
        let norm = super::profile::normalise_words;
        OwnerWords {
            town: town_owners.iter().map(|t| norm(t)).collect(),
            public: public_words
                .iter()
                .map(|w| norm(w))
                .filter(|w| !w.is_empty())
                .map(|w| format!(" {w} "))
                .collect(),
            missing_is_town,
        }
    }

    /// The class of an owner as recorded (see [`owner_class`]).
    pub fn class(&self, owner: Option<&str>) -> OwnerClass {
        let Some(o) = owner.map(str::trim).filter(|o| !o.is_empty()) else {
            return if self.missing_is_town {
                OwnerClass::Town
            } else {
                OwnerClass::Unknown
            };
        };
        let n = super::profile::normalise_words(o);
        if self.town.contains(&n) {
            return OwnerClass::Town;
        }
        let spaced = format!(" {n} ");
        if self.public.iter().any(|w| spaced.contains(w.as_str())) {
            OwnerClass::OtherPublic(o.to_string())
        } else {
            OwnerClass::Private(o.to_string())
        }
    }
}

/// A recorded class in the form the list is written in: upper case, no spaces, a trout
/// suffix (`(T)`, `(TS)`) dropped, so `B(T)` counts as `B` and `aa-s` as `AA-S`.
pub fn normalise_class(class: &str) -> String {
    let c: String = class
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_uppercase();
    match c.find('(') {
        Some(i) => c[..i].to_string(),
        None => c,
    }
}

/// One criterion met, with the sentence that says why.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Reason {
    /// The criterion.
    #[schemars(with = "String")]
    pub criterion: Criterion,
    /// The priority it gives under the rule.
    #[schemars(with = "String")]
    pub priority: Priority,
    /// The facts, in a sentence.
    pub because: String,
}

/// The priority the rule gives a location meeting `met` (each criterion with the sentence
/// of its facts), and the reasons, highest first; a criterion the rule does not rank is
/// left out.
pub fn decide(rule: &PriorityRule, met: Vec<(Criterion, String)>) -> (Priority, Vec<Reason>) {
    let mut reasons: Vec<Reason> = met
        .into_iter()
        .filter_map(|(criterion, because)| {
            let c = rule.criteria.iter().find(|c| c.when == criterion)?;
            Some(Reason {
                criterion,
                priority: c.priority,
                because,
            })
        })
        .collect();
    reasons.sort_by_key(|r| std::cmp::Reverse(r.priority));
    let priority = reasons
        .iter()
        .map(|r| r.priority)
        .max()
        .unwrap_or(rule.otherwise);
    (priority, reasons)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[rstest]
    #[case::town_by_whole_name(Some("Town of North Castle"), OwnerClass::Town)]
    #[case::state_department(Some("NYSDOT"), OwnerClass::OtherPublic("NYSDOT".into()))]
    #[case::county(Some("Westchester County"), OwnerClass::OtherPublic("Westchester County".into()))]
    #[case::neighbouring_town(Some("Town of Bedford"), OwnerClass::OtherPublic("Town of Bedford".into()))]
    #[case::private(Some("Private"), OwnerClass::Private("Private".into()))]
    #[case::missing_read_as_town(None, OwnerClass::Town)]
    fn owners_are_placed_by_whole_name_then_by_public_words(
        #[case] owner: Option<&str>,
        #[case] want: OwnerClass,
    ) {
        let town = s(&["Town of North Castle", "Town"]);
        let words = MonitoringSettings::default().public_words();
        assert_eq!(owner_class(owner, &town, &words, true), want);
    }

    #[test]
    fn a_missing_owner_is_unknown_unless_the_profile_reads_it_as_the_towns() {
        assert_eq!(
            owner_class(Some("  "), &[], &[], false),
            OwnerClass::Unknown
        );
    }

    #[rstest]
    #[case("B(T)", "B")]
    #[case("aa-s", "AA-S")]
    #[case(" C (TS) ", "C")]
    fn classes_are_read_without_their_trout_suffix(#[case] raw: &str, #[case] want: &str) {
        assert_eq!(normalise_class(raw), want);
    }

    #[test]
    fn the_highest_criterion_met_decides_and_every_reason_is_kept() {
        let rule = MonitoringSettings::default().rule();
        assert!(rule.default_reading && rule.source.starts_with("the profile's reading"));
        let (p, reasons) = decide(
            &rule,
            vec![
                (Criterion::HigherClass, "class A".into()),
                (Criterion::ImpairedWater, "listed".into()),
            ],
        );
        assert_eq!(p, Priority::High);
        assert_eq!(reasons.len(), 2);
        assert_eq!(reasons[0].criterion, Criterion::ImpairedWater);
        assert_eq!(decide(&rule, Vec::new()).0, Priority::Low);
    }

    #[test]
    fn a_profiles_own_criteria_replace_the_default_and_say_their_source() {
        let m: MonitoringSettings = toml::from_str(
            "source = \"GP-0-24-001 Part IV\"\n[[criteria]]\nwhen = \"higher_class\"\npriority = \"high\"\n",
        )
        .unwrap();
        let rule = m.rule();
        assert!(!rule.default_reading);
        assert_eq!(
            rule.source,
            "the profile's reading, source: GP-0-24-001 Part IV"
        );
        let (p, _) = decide(&rule, vec![(Criterion::ImpairedWater, "listed".into())]);
        assert_eq!(
            p,
            Priority::Low,
            "a criterion the rule does not rank counts for nothing"
        );
        assert!(toml::from_str::<MonitoringSettings>(
            "[[criteria]]\nwhen = \"x\"\npriority = \"high\""
        )
        .is_err());
    }
}
