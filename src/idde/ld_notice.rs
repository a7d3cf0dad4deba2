//! The land development notice of violation (North Castle ch. 267 Part 1 C(1), Carmel
//! § 156-88A): the six items the law says the notice "shall contain", as a document fit
//! to print, filled from the facts given and, when a case is named, from the case and
//! its parcel. An item the record lacks is printed as a blank to fill in and listed
//! under "Open facts", never invented; the answer says which items are complete.
//!
//! The items' words, citations, the appeal period and the penalty tiers are the
//! profile's (`[idde.land_development_notice]`); a town whose law has no such section
//! has none, and asking for the notice there is an error saying so.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::case::Case;
use super::penalties::tiered_penalty;
use crate::domain::Layer;
use crate::rules::{LandDevelopmentNotice, Profile};
use crate::spatial::Snapshot;

/// One remedial measure and the day it is to be completed by.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Remedy {
    /// What is to be done.
    pub measure: String,
    /// The day it is to be completed by (the schedule the law requires).
    #[serde(default)]
    pub complete_by: Option<NaiveDate>,
}

/// The facts a land development notice is filled from: the body of
/// `POST /api/notices/land-development` and the options of `ms4 case ld-notice`. Each
/// one given wins over what the case's record says.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LdFacts {
    /// A case to fill from: its parcel's owner and address, its description, the day
    /// its notice of violation was served.
    pub case_id: Option<String>,
    /// The parcel of the site (else the case's).
    pub parcel_id: Option<String>,
    /// The landowner, developer or applicant.
    pub owner: Option<String>,
    /// Their mailing address.
    pub owner_address: Option<String>,
    /// The site's address, or a description of the building, structure or land.
    pub site: Option<String>,
    /// The nature of the violation.
    pub violation: Option<String>,
    /// The remedial measures with their schedule.
    pub remedial_measures: Vec<Remedy>,
    /// The day the notice is (or was) served: the appeal period runs from it.
    pub served_on: Option<NaiveDate>,
    /// The days of the person's earlier offences within the window (the tier).
    pub earlier_offences: Vec<NaiveDate>,
    /// The day of this offence, for the tier (else the day of service, else unset).
    pub offence_on: Option<NaiveDate>,
}

/// The notice: its HTML and what it lacks.
#[derive(Debug, Clone, Serialize)]
pub struct LdNotice {
    /// The whole HTML document.
    pub html: String,
    /// Each fact the record lacks, in words.
    pub open_facts: Vec<String>,
}

/// Why a notice cannot be made.
#[derive(Debug, Clone, PartialEq)]
pub enum LdNoticeError {
    /// The town's law has no land development notice.
    NoSuchSection(String),
    /// A fact given is wrong (field, message).
    Bad(String, String),
}

impl std::fmt::Display for LdNoticeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LdNoticeError::NoSuchSection(m) => f.write_str(m),
            LdNoticeError::Bad(field, m) => write!(f, "{field}: {m}"),
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const BLANK: &str = "<span class=\"blank\">______________________</span>";

fn given(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// Dollars as printed on a notice: `$1,000`.
pub(super) fn money(x: f64) -> String {
    let n = x.round() as i64;
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("${out}")
}

/// The profile's land development notice, or the error a town without one gets.
pub fn settings(profile: &Profile) -> Result<&LandDevelopmentNotice, LdNoticeError> {
    profile
        .idde
        .land_development_notice
        .as_ref()
        .ok_or_else(|| {
            LdNoticeError::NoSuchSection(format!(
                "{} has no land development notice of violation: its law has no section \
             prescribing one (no [idde.land_development_notice] in its profile); its \
             illicit discharge notice is the case's notice",
                profile.name
            ))
        })
}

/// Makes the notice from the facts, the case they name (if any) and the snapshot.
pub fn render(
    snap: &Snapshot,
    profile: &Profile,
    facts: &LdFacts,
    case: Option<&Case>,
) -> Result<LdNotice, LdNoticeError> {
    let n = settings(profile)?;
    for (i, r) in facts.remedial_measures.iter().enumerate() {
        if r.measure.trim().is_empty() {
            return Err(LdNoticeError::Bad(
                format!("remedial_measures[{i}].measure"),
                "say what is to be done".into(),
            ));
        }
    }
    let parcel_id = given(&facts.parcel_id).or_else(|| case.and_then(|c| c.parcel_id.clone()));
    let parcel = match &parcel_id {
        Some(p) => Some(snap.layer(Layer::Parcels).get(p).ok_or_else(|| {
            LdNoticeError::Bad("parcel_id".into(), format!("no parcel has id {p:?}"))
        })?),
        None => None,
    };
    let served_on = facts.served_on.or_else(|| {
        case.and_then(|c| {
            c.actions
                .iter()
                .filter(|a| a.kind == "notice_of_violation")
                .map(|a| a.on)
                .max()
        })
    });
    let mut open: Vec<String> = Vec::new();
    let parties = Parties::fill(facts, case, parcel_id.as_deref(), parcel, &mut open);
    let remedies = remedies_html(facts, &mut open);
    let penalties = penalties_text(profile, n, facts, served_on);
    let appeal = appeal_text(n, &profile.idde, served_on, &mut open);
    let body = |key: &str| -> String {
        match key {
            "owner" => format!("<p>{}<br>{}</p>\n", parties.owner, parties.owner_address),
            "site" => format!("<p>{}</p>\n", parties.site),
            "violation" => format!("<p>{}</p>\n", parties.violation),
            "remedial_measures" => remedies.clone(),
            "penalties" => penalties.clone(),
            _ => format!("<p>{appeal}</p>\n"),
        }
    };
    let html = page(profile, n, case, body, &open);
    Ok(LdNotice {
        html,
        open_facts: open,
    })
}

/// Who and what the notice names, escaped for the page: each a blank, and an open fact,
/// when neither the facts nor the record give it.
struct Parties {
    owner: String,
    owner_address: String,
    site: String,
    violation: String,
}

impl Parties {
    fn fill(
        facts: &LdFacts,
        case: Option<&Case>,
        parcel_id: Option<&str>,
        parcel: Option<&crate::domain::Feature>,
        open: &mut Vec<String>,
    ) -> Parties {
        let from_parcel = |name: &str| {
            parcel
                .and_then(|p| p.get(Layer::Parcels, name).as_str())
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let mut fill = |v: Option<String>, lacking: &str| match v {
            Some(v) => esc(&v),
            None => {
                open.push(lacking.to_string());
                BLANK.to_string()
            }
        };
        let owner = fill(
            given(&facts.owner).or_else(|| from_parcel("owner")),
            "the name of the landowner, developer or applicant (none given, none on the parcel's record)",
        );
        // The parcel's address is the site's, not necessarily the owner's mailing address.
        let owner_address = fill(
            given(&facts.owner_address),
            "the address of the landowner, developer or applicant (none given; the parcel's address is the site's, not theirs)",
        );
        let site = fill(
            given(&facts.site)
                .or_else(|| from_parcel("address"))
                .map(|s| match parcel_id {
                    Some(p) if facts.site.is_none() => format!("{s} (parcel {p})"),
                    _ => s,
                }),
            "the address or a description of the building, structure or land (none given, none on the parcel's record)",
        );
        let violation = fill(
            given(&facts.violation).or_else(|| case.and_then(|c| c.description.clone())),
            "the nature of the violation (none given, none on the case)",
        );
        Parties {
            owner,
            owner_address,
            site,
            violation,
        }
    }
}

/// The remedial measures and their time schedule, as a table; what they lack is open.
fn remedies_html(facts: &LdFacts, open: &mut Vec<String>) -> String {
    let mut remedies = String::new();
    if facts.remedial_measures.is_empty() {
        open.push("the remedial measures and their time schedule (none given)".into());
        remedies.push_str(&format!("<p>{BLANK}</p>\n"));
        return remedies;
    }
    remedies.push_str("<table><tr><th>Remedial measure</th><th>To be completed by</th></tr>\n");
    for (i, r) in facts.remedial_measures.iter().enumerate() {
        let by = match r.complete_by {
            Some(d) => d.to_string(),
            None => {
                open.push(format!(
                    "the day remedial measure {} ('{}') is to be completed by",
                    i + 1,
                    r.measure.trim()
                ));
                BLANK.to_string()
            }
        };
        remedies.push_str(&format!(
            "<tr><td>{}</td><td>{by}</td></tr>\n",
            esc(r.measure.trim())
        ));
    }
    remedies.push_str("</table>\n");
    remedies
}

/// The right of appeal, with the day to file by when the day of service is known (else
/// that day is open).
/// The last day to appeal: `days` after service, run to the next business day when the
/// day counted to is not one and the profile's law says so (N.Y. Gen. Constr. Law § 25-a).
pub fn appeal_by(
    idde: &crate::rules::IddeSettings,
    served_on: NaiveDate,
    days: u32,
) -> Result<NaiveDate, super::calendar::ClockError> {
    let end = super::calendar::add_days(served_on, days)?;
    let cal = super::calendar::Calendar::new(&idde.holidays);
    super::deadlines::roll(
        &cal,
        idde.periods_roll_to_business_day,
        end,
        &mut Vec::new(),
        &mut Vec::new(),
    )
}

fn appeal_text(
    n: &LandDevelopmentNotice,
    idde: &crate::rules::IddeSettings,
    served_on: Option<NaiveDate>,
    open: &mut Vec<String>,
) -> String {
    match served_on {
        Some(d) => format!(
            "The determination of violation may be appealed to {} by filing a written notice \
             of appeal within {} days of service of this notice of violation: served on {d}, \
             the appeal is to be filed by {}.",
            esc(&n.issuer),
            n.appeal_days,
            appeal_by(idde, d, n.appeal_days)
                .map_or_else(|e| format!("(not counted: {e})"), |by| by.to_string())
        ),
        None => {
            open.push(
                "the day of service, from which the 15 days to appeal run (not given, no notice_of_violation logged on the case)"
                    .replace("15", &n.appeal_days.to_string()),
            );
            // Before service the period is stated as the rule it is, never as a date.
            let roll = if idde.periods_roll_to_business_day {
                ", running to the next business day when the last falls on a Saturday, \
                 Sunday or holiday"
            } else {
                ""
            };
            format!(
                "The determination of violation may be appealed to {} by filing a written \
                 notice of appeal within {} days of service of this notice of violation{roll}. \
                 Served on: {BLANK}",
                esc(&n.issuer),
                n.appeal_days
            )
        }
    }
}

/// Writes the notice's page: the law's items in its order, each with its `body`, then
/// the open facts.
fn page(
    profile: &Profile,
    n: &LandDevelopmentNotice,
    case: Option<&Case>,
    body: impl Fn(&str) -> String,
    open: &[String],
) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str(&format!(
        "<title>Notice of violation: land development{}</title>",
        case.map(|c| format!(", case {}", esc(&c.case_id)))
            .unwrap_or_default()
    ));
    h.push_str(
        "<style>body{font-family:serif;max-width:40em;margin:2em auto}td,th{text-align:left;padding:.2em .5em}\
         .blank{letter-spacing:-1px}@media print{.open-facts{display:none}}</style></head><body>\n",
    );
    h.push_str(&format!(
        "<h1>{}</h1>\n<h2>Notice of violation: land development activity</h2>\n",
        esc(&profile.name)
    ));
    if let Some(c) = case {
        h.push_str(&format!("<p>Case {}</p>\n", esc(&c.case_id)));
    }
    h.push_str(&format!(
        "<p>{} has determined that a land development activity is not being carried out in \
         accordance with the requirements of its law ({}).</p>\n",
        esc(&capitalised(&n.issuer)),
        esc(&n.citation)
    ));
    for (i, item) in n.items.iter().enumerate() {
        h.push_str(&format!(
            "<section class=\"item\" data-key=\"{}\"><h3>{}. {}</h3>\n<p><small>{} ({})</small></p>\n{}</section>\n",
            esc(&item.key),
            i + 1,
            esc(&item.text),
            esc(&item.citation),
            esc(&n.rule),
            body(&item.key)
        ));
    }
    h.push_str("<p>Issued by: ______________________ &nbsp; Date: ______________</p>\n");
    if !open.is_empty() {
        h.push_str("<section class=\"open-facts\"><h3>Open facts</h3>\n<p>The record lacks these; fill them in before the notice is served.</p>\n<ul>\n");
        for f in open {
            h.push_str(&format!("<li>{}</li>\n", esc(f)));
        }
        h.push_str("</ul></section>\n");
    }
    h.push_str("</body></html>\n");
    h
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The penalties item: every tier as the profile has it, and the tier this offence
/// falls in when the earlier offences are given.
fn penalties_text(
    profile: &Profile,
    n: &LandDevelopmentNotice,
    facts: &LdFacts,
    served_on: Option<NaiveDate>,
) -> String {
    let Some(t) = profile
        .idde
        .penalty_tiers
        .iter()
        .find(|p| p.rule == n.penalties_rule)
    else {
        // Load refuses a notice without its tiers; kept total for a profile built in code.
        return format!("<p>{BLANK}</p>\n");
    };
    let ordinal = [
        "first offence",
        "second offence",
        "third or subsequent offence",
    ];
    let mut h = String::from("<ul>\n");
    for (i, tier) in t.tiers.iter().enumerate() {
        let what = ordinal.get(i).copied().unwrap_or("further offence");
        let within = if i == 0 {
            String::new()
        } else {
            format!(", all committed within {} years", t.window_years)
        };
        let range = if tier.min > 0.0 {
            format!(
                "not less than {} nor more than {}",
                money(tier.min),
                money(tier.max)
            )
        } else {
            format!("not exceeding {}", money(tier.max))
        };
        h.push_str(&format!("<li>For a {what}{within}: a fine {range}</li>\n"));
    }
    h.push_str("</ul>\n");
    if let Some(also) = &n.penalties_also {
        h.push_str(&format!("<p>{}.</p>\n", esc(&capitalised(also))));
    }
    h.push_str(&format!(
        "<p><small>{} ({})</small></p>\n",
        esc(&t.citation),
        esc(&t.rule)
    ));
    if let Some(on) = facts.offence_on.or(served_on) {
        if !facts.earlier_offences.is_empty() || facts.offence_on.is_some() {
            let r = tiered_penalty(t, &facts.earlier_offences, on, on);
            h.push_str(&format!(
                "<p>On the earlier offences given ({}), this is offence {} within the window: \
                 a fine of {} to {} per violation, each week it continues a separate additional \
                 violation. {}.</p>\n",
                facts.earlier_offences.len(),
                r.offence,
                money(r.min),
                money(r.max),
                esc(&capitalised(&r.open_fact))
            ));
        }
    }
    h
}
