//! Who a case is against: its respondent, a recorded fact of the case, and the actions a
//! town's law bars against some respondents (Windsor (b)(1): "No written notice may be
//! issued against the state or any state official or employee acting within the scope of
//! his employment"; (b)(3): "No such fine shall be levied against the state ...").
//!
//! The respondent is given in a request, or is the owner of the case's parcel as the
//! parcels layer records it; it is never guessed in silence. An owner's name is read for
//! its kind only by the words listed here (`LLC`, `State of`, `Town of`), and the reading
//! and its reason are recorded with it; a name those words do not decide is of kind
//! `unknown`. The bars are the profile's data (`[idde] immunities`): against a respondent
//! they cover, an action they bar is refused naming the clause; against an unknown one
//! (or a person not known to act, or not, for the State) the action is allowed and the
//! case's answer flags it ([`flags`]) until the respondent is confirmed.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::case::Case;
use super::screening::FieldError;
use crate::domain::enforcement::{RespondentKind, RespondentSource, StateCapacity};
use crate::domain::{text, ActionKind};
use crate::rules::profile::{IddeSettings, Immunity};

/// A case's respondent as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Respondent {
    /// The name, as given or as the parcel's owner is recorded; none when not recorded.
    #[serde(default)]
    pub name: Option<String>,
    /// What kind of person it is.
    pub kind: RespondentKind,
    /// For a person: whether a State official or employee acting within the scope of
    /// employment.
    pub acting_for_state: StateCapacity,
    /// Where the record came from.
    pub source: RespondentSource,
    /// How the kind was read from the owner's name, and why (or why it was not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// The parcel whose owner it is, for a respondent read from a parcel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parcel_id: Option<String>,
    /// What confirmed it (a deed, a register of businesses), as given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basis: Option<String>,
}

impl Default for Respondent {
    /// No respondent on record (a case opened before respondents were recorded, or with
    /// neither a respondent given nor a parcel owner): of unknown kind.
    fn default() -> Self {
        Respondent {
            name: None,
            kind: RespondentKind::Unknown,
            acting_for_state: StateCapacity::Unknown,
            source: RespondentSource::NotRecorded,
            reading: None,
            parcel_id: None,
            basis: None,
        }
    }
}

/// A respondent as a request gives it (`respondent` of `POST /api/cases`, the body of
/// `PUT /api/cases/{id}/respondent`, `ms4 case respondent`).
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RespondentRequest {
    /// The name, as a notice is to name them.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub name: String,
    /// What kind of person it is.
    pub kind: RespondentKind,
    /// For an individual: whether a State official or employee acting within the scope
    /// of employment (default `unknown`).
    #[serde(default)]
    pub acting_for_state: Option<StateCapacity>,
    /// What confirmed it (a deed, a register of businesses).
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub basis: Option<String>,
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// The respondent a request gives, checked: a name, and `acting_for_state` only for an
/// individual (an official or employee is a person). Fields are named under `prefix`
/// (`respondent.` when it is a member of a larger request).
pub fn given(req: &RespondentRequest, prefix: &str) -> Result<Respondent, FieldError> {
    let name = req.name.split_whitespace().collect::<Vec<_>>().join(" ");
    if name.is_empty() {
        return Err(err(&format!("{prefix}name"), "name the respondent"));
    }
    if let Some(why) = text::line_problem(&name) {
        return Err(err(&format!("{prefix}name"), why));
    }
    let capacity = match (req.kind, req.acting_for_state) {
        (RespondentKind::Individual | RespondentKind::Unknown, c) => {
            c.unwrap_or(StateCapacity::Unknown)
        }
        (k, Some(StateCapacity::Yes)) => {
            return Err(err(
                &format!("{prefix}acting_for_state"),
                format!("a respondent of kind {k} is not a person acting for the State: give kind individual (or state)"),
            ))
        }
        _ => StateCapacity::No,
    };
    Ok(Respondent {
        name: Some(name),
        kind: req.kind,
        acting_for_state: capacity,
        source: RespondentSource::Given,
        reading: None,
        parcel_id: None,
        basis: req.basis.clone().filter(|b| !b.trim().is_empty()),
    })
}

/// The owner of a parcel as the respondent, its kind read from the name
/// ([`read_owner`]); a parcel without an owner on record is no respondent.
pub fn from_parcel_owner(parcel_id: &str, owner: Option<&str>) -> Respondent {
    let Some(owner) = owner.map(str::trim).filter(|o| !o.is_empty()) else {
        return Respondent {
            reading: Some(format!(
                "parcel {parcel_id} has no owner on record: give the respondent"
            )),
            ..Respondent::default()
        };
    };
    let (kind, reading) = read_owner(owner);
    Respondent {
        name: Some(owner.to_string()),
        kind,
        acting_for_state: if kind == RespondentKind::Unknown {
            StateCapacity::Unknown
        } else {
            StateCapacity::No
        },
        source: RespondentSource::ParcelOwner,
        reading: Some(reading),
        parcel_id: Some(parcel_id.to_string()),
        basis: None,
    }
}

/// Words of a business's name (a word of the name, its trailing dot dropped).
const BUSINESS_WORDS: &[&str] = &[
    "llc",
    "l.l.c",
    "inc",
    "incorporated",
    "corp",
    "corporation",
    "co",
    "company",
    "lp",
    "l.p",
    "llp",
    "l.l.p",
    "ltd",
    "limited",
    "pllc",
    "plc",
];

/// How the name of the State begins.
const STATE_PREFIXES: &[&str] = &["state of ", "commonwealth of ", "people of the state of "];

/// How a municipality's name begins: a public body, not the State.
const MUNICIPAL_PREFIXES: &[&str] = &[
    "town of ",
    "city of ",
    "village of ",
    "county of ",
    "borough of ",
];

/// Words of a public body's name that do not say whether it is the State's (a
/// department, an authority): such a name is left unknown.
const PUBLIC_WORDS: &[&str] = &[
    "department",
    "dept",
    "authority",
    "commission",
    "agency",
    "board",
    "district",
    "dot",
    "federal",
    "government",
    "united states",
];

/// The kind an owner's name says, with the reading's reason. Only the listed words
/// decide; any other name is `unknown`, and the reason says what would decide it.
pub fn read_owner(owner: &str) -> (RespondentKind, String) {
    let lower = owner.to_lowercase();
    let words: Vec<String> = lower
        .split(|c: char| c.is_whitespace() || c == ',')
        .map(|w| w.trim_end_matches('.').to_string())
        .filter(|w| !w.is_empty())
        .collect();
    if let Some(p) = STATE_PREFIXES.iter().find(|p| lower.starts_with(*p)) {
        return (
            RespondentKind::State,
            format!(
                "read as the State: the owner's name {owner:?} begins {:?}",
                p.trim()
            ),
        );
    }
    if let Some(w) = words.iter().find(|w| BUSINESS_WORDS.contains(&w.as_str())) {
        return (
            RespondentKind::Business,
            format!("read as a business: the owner's name {owner:?} has the word {w:?}"),
        );
    }
    if let Some(p) = MUNICIPAL_PREFIXES.iter().find(|p| lower.starts_with(*p)) {
        return (
            RespondentKind::PublicBody,
            format!(
                "read as a public body other than the State: the owner's name {owner:?} begins {:?}",
                p.trim()
            ),
        );
    }
    let public = PUBLIC_WORDS.iter().find(|p| {
        if p.contains(' ') {
            lower.contains(*p)
        } else {
            words.iter().any(|w| w == *p)
        }
    });
    let reason = match public {
        Some(p) => format!(
            "not read: the owner's name {owner:?} has the word {p:?} of a public body, but not whether it is the State's; confirm the respondent"
        ),
        None => format!(
            "not read: the owner's name {owner:?} does not say what kind of person it is; confirm the respondent"
        ),
    };
    (RespondentKind::Unknown, reason)
}

/// Whether a law's bar holds against a respondent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// It holds: the respondent is of a kind it covers.
    Barred,
    /// It could hold: the respondent's kind (or whether they act for the State) is not
    /// known.
    MayBeBarred,
}

/// Whether an immunity covers a respondent: barred, may be barred, or not (none).
pub fn covers(r: &Respondent, m: &Immunity) -> Option<Standing> {
    if m.kinds.contains(&r.kind) || (m.acting_for_state && r.acting_for_state == StateCapacity::Yes)
    {
        return Some(Standing::Barred);
    }
    let person_unknown = m.acting_for_state
        && r.kind == RespondentKind::Individual
        && r.acting_for_state == StateCapacity::Unknown;
    (r.kind == RespondentKind::Unknown || person_unknown).then_some(Standing::MayBeBarred)
}

/// The respondent in words: `"State of Connecticut" (state, given)`.
pub fn describe(r: &Respondent) -> String {
    let name = r
        .name
        .as_deref()
        .map_or("no name on record".to_string(), |n| format!("{n:?}"));
    let capacity = match (r.kind, r.acting_for_state) {
        (_, StateCapacity::Yes) => ", acting for the State",
        (RespondentKind::Individual, StateCapacity::Unknown) => {
            ", not known whether acting for the State"
        }
        _ => "",
    };
    format!("{name} ({}{capacity}, {})", r.kind, r.source)
}

/// What a bar's message adds on what decides an undetermined one.
fn to_decide(r: &Respondent) -> &'static str {
    if r.kind == RespondentKind::Unknown {
        "the respondent's kind is unknown: confirm it (ms4 case respondent, PUT /api/cases/{id}/respondent)"
    } else {
        "whether the respondent is a State official or employee acting within the scope of employment is not known: set acting_for_state (ms4 case respondent, PUT /api/cases/{id}/respondent)"
    }
}

/// Refuses an action of `kind` that an immunity of the profile bars against the case's
/// respondent, naming the clause and what stays possible; an action it only may bar (the
/// respondent unknown) is allowed, and [`flags`] names it.
pub fn check_immunity(case: &Case, kind: ActionKind, s: &IddeSettings) -> Result<(), FieldError> {
    let r = &case.respondent;
    let Some(m) = s
        .immunities
        .iter()
        .find(|m| m.refuses.contains(&kind) && covers(r, m) == Some(Standing::Barred))
    else {
        return Ok(());
    };
    let still: Vec<String> = ActionKind::ALL
        .iter()
        .filter(|k| k.is_served() || **k == ActionKind::Referral)
        .filter(|k| {
            !s.immunities
                .iter()
                .any(|m| m.refuses.contains(k) && covers(r, m) == Some(Standing::Barred))
        })
        .map(|k| format!("a {k}"))
        .collect();
    Err(err(
        "kind",
        format!(
            "{} ({}): {:?}. The case's respondent is {}: a {kind} is refused; {} stay possible. If the respondent is recorded wrong, correct it first.",
            m.rule,
            m.citation,
            m.text,
            describe(r),
            if still.is_empty() { "no notice".to_string() } else { still.join(" and ") },
        ),
    ))
}

/// One logged action a law bars, or may bar, against the case's respondent.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RespondentFlag {
    /// The action's place in the log (1 is the first).
    pub action: usize,
    /// Its kind.
    pub kind: ActionKind,
    /// Its day.
    pub on: NaiveDate,
    /// Whether the bar holds or could hold.
    pub standing: Standing,
    /// The rule id.
    pub rule: String,
    /// The clause.
    pub citation: String,
    /// What it says and what decides it.
    pub message: String,
}

/// The logged actions the profile's immunities bar (the respondent corrected since they
/// were logged) or may bar (the respondent not known) against the case's respondent: how
/// a case's answer says an action was allowed but could be barred.
pub fn flags(case: &Case, s: &IddeSettings) -> Vec<RespondentFlag> {
    let r = &case.respondent;
    let mut out = Vec::new();
    for (i, a) in case.actions.iter().enumerate() {
        for m in s.immunities.iter().filter(|m| m.refuses.contains(&a.kind)) {
            let Some(standing) = covers(r, m) else {
                continue;
            };
            let fines = if m.fines_accrue {
                ""
            } else {
                " and no fine accrues against them"
            };
            let message = match standing {
                Standing::Barred => format!(
                    "{:?}: the respondent is now recorded as {}; this {} is one the clause bars{fines}",
                    m.text,
                    describe(r),
                    a.kind
                ),
                Standing::MayBeBarred => format!(
                    "{:?}: allowed, but the clause bars it if the respondent is {}; {}",
                    m.text,
                    covered_words(m),
                    to_decide(r)
                ),
            };
            out.push(RespondentFlag {
                action: i + 1,
                kind: a.kind,
                on: a.on,
                standing,
                rule: m.rule.clone(),
                citation: m.citation.clone(),
                message,
            });
        }
    }
    out
}

/// Whom an immunity covers, in words.
fn covered_words(m: &Immunity) -> String {
    let mut who: Vec<String> = m
        .kinds
        .iter()
        .map(|k| match k {
            RespondentKind::State => "the State".to_string(),
            k => format!("a {k}"),
        })
        .collect();
    if m.acting_for_state {
        who.push("a State official or employee acting within the scope of employment".into());
    }
    who.join(" or ")
}

/// The clause under which no fine accrues against the case's respondent, when the
/// profile says so (an immunity with `fines_accrue = false` that holds against them);
/// none when fines accrue or the respondent is not known (then [`flags`] names the
/// citation as one the clause may bar).
pub fn fines_barred(case: &Case, s: &IddeSettings) -> Option<String> {
    s.immunities
        .iter()
        .find(|m| !m.fines_accrue && covers(&case.respondent, m) == Some(Standing::Barred))
        .map(|m| format!("{} ({}): {:?}", m.rule, m.citation, m.text))
}

/// The case with its respondent set as a request gives it: open cases only.
pub fn set_respondent(case: &Case, req: &RespondentRequest) -> Result<Case, FieldError> {
    if !case.is_open() {
        return Err(err(
            "case",
            format!(
                "case {} is closed: its respondent is kept as it was",
                case.case_id
            ),
        ));
    }
    let mut next = case.clone();
    next.respondent = given(req, "")?;
    Ok(next)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Profile;
    use rstest::rstest;

    fn case_against(r: Respondent) -> Case {
        let mut c: Case = serde_json::from_value(serde_json::json!({
            "case_id": "CASE-2026-0001", "opened_on": "2026-05-01", "origin": "staff",
            "status": "open", "candidates": [], "actions": [],
        }))
        .unwrap();
        c.respondent = r;
        c
    }

    fn person(kind: RespondentKind, capacity: StateCapacity) -> Respondent {
        Respondent {
            name: Some("A".into()),
            kind,
            acting_for_state: capacity,
            source: RespondentSource::Given,
            ..Respondent::default()
        }
    }

    /// Windsor (b)(3): "No such fine shall be levied against the state or any state
    /// official or state employee acting within the scope of his employment".
    #[rstest]
    #[case::the_state(RespondentKind::State, StateCapacity::No, true)]
    #[case::a_state_employee_in_scope(RespondentKind::Individual, StateCapacity::Yes, true)]
    #[case::counter_a_business(RespondentKind::Business, StateCapacity::No, false)]
    #[case::counter_a_person_not_for_the_state(
        RespondentKind::Individual,
        StateCapacity::No,
        false
    )]
    #[case::counter_a_town(RespondentKind::PublicBody, StateCapacity::No, false)]
    // Not known: fines are not barred by a guess; the citation is flagged instead.
    #[case::unknown_is_not_a_bar(RespondentKind::Unknown, StateCapacity::Unknown, false)]
    fn no_fine_is_levied_against_the_state(
        #[case] kind: RespondentKind,
        #[case] capacity: StateCapacity,
        #[case] barred: bool,
    ) {
        let p = Profile::builtin("windsor-ct").unwrap();
        let c = case_against(person(kind, capacity));
        let got = fines_barred(&c, &p.idde);
        assert_eq!(got.is_some(), barred, "{got:?}");
        if let Some(clause) = got {
            assert!(clause.contains("(b)(3)"), "{clause}");
            assert!(clause.contains("No such fine shall be levied"), "{clause}");
        }
        // A town whose law has no such clause bars nothing.
        let nc = Profile::builtin("north-castle-ny").unwrap();
        assert_eq!(fines_barred(&c, &nc.idde), None);
    }

    #[rstest]
    #[case::llc("Quick Lube LLC", RespondentKind::Business, "\"llc\"")]
    #[case::inc_with_a_comma("Acme Widgets, Inc.", RespondentKind::Business, "\"inc\"")]
    #[case::the_state("State of Connecticut", RespondentKind::State, "begins \"state of\"")]
    #[case::a_town("Town of Windsor", RespondentKind::PublicBody, "begins \"town of\"")]
    // A department does not say whose: it could be the State's.
    #[case::a_department(
        "Connecticut Department of Transportation",
        RespondentKind::Unknown,
        "\"department\""
    )]
    #[case::a_person("R. Homeowner", RespondentKind::Unknown, "does not say")]
    // "Cooper" holds "co" but not as a word.
    #[case::a_word_inside_a_name("Jane Cooper", RespondentKind::Unknown, "does not say")]
    fn an_owners_name_is_read_only_by_its_listed_words(
        #[case] owner: &str,
        #[case] kind: RespondentKind,
        #[case] why: &str,
    ) {
        let r = from_parcel_owner("P-1", Some(owner));
        assert_eq!(r.kind, kind, "{owner}");
        assert_eq!(r.source, RespondentSource::ParcelOwner);
        assert!(
            r.reading.as_deref().unwrap().contains(why),
            "{:?}",
            r.reading
        );
    }

    #[test]
    fn a_parcel_without_an_owner_gives_no_respondent() {
        let r = from_parcel_owner("P-1", Some("  "));
        assert_eq!(r.kind, RespondentKind::Unknown);
        assert_eq!(r.source, RespondentSource::NotRecorded);
        assert!(r.reading.unwrap().contains("no owner on record"));
    }

    /// A profile whose act names an office it does not list, or whose immunity covers
    /// `unknown` (a guess), is refused at load naming the key.
    #[test]
    fn a_profile_naming_an_unlisted_office_or_an_unknown_bar_is_refused() {
        let p = Profile::builtin("windsor-ct").unwrap();
        assert!(p.validate("windsor-ct.toml").is_ok());
        let mut bad = p.clone();
        bad.idde.acts[0].offices = vec!["Town Manger".into()];
        let e = bad.validate("windsor-ct.toml").unwrap_err().to_string();
        assert!(e.contains("idde.acts[0].offices[0]"), "{e}");
        assert!(e.contains("Town Manger"), "{e}");
        let mut bad = p.clone();
        bad.idde.immunities[0].kinds.push(RespondentKind::Unknown);
        let e = bad.validate("windsor-ct.toml").unwrap_err().to_string();
        assert!(e.contains("idde.immunities[0].kinds"), "{e}");
        let mut bad = p.clone();
        bad.idde.acts[0].kind = ActionKind::FinePaid;
        let e = bad.validate("windsor-ct.toml").unwrap_err().to_string();
        assert!(e.contains("idde.acts[0].kind"), "{e}");
    }

    #[test]
    fn only_a_person_acts_for_the_state() {
        let req = RespondentRequest {
            name: "Acme LLC".into(),
            kind: RespondentKind::Business,
            acting_for_state: Some(StateCapacity::Yes),
            basis: None,
        };
        assert_eq!(
            given(&req, "respondent.").unwrap_err().field,
            "respondent.acting_for_state"
        );
        let req = RespondentRequest {
            name: "  ".into(),
            ..req
        };
        assert_eq!(given(&req, "").unwrap_err().field, "name");
    }
}
