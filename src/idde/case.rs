//! An investigation of a suspected illicit discharge: how it was opened, its candidate
//! sources, its log of actions, and how it closed. A case is a feature of the `cases`
//! layer (stored, audited, exported and served like every layer); its candidates and
//! actions are JSON text in it, so each action is one audited update of the case.
//!
//! The operations here are pure: they check a request against the case as stored and
//! return what to write ([`super::case_update`] applies them to the stored row inside
//! the write's transaction). A closed case takes no more actions and
//! cannot be closed again; an action of a kind not in [`ActionKind`] is refused.

use chrono::NaiveDate;
use geo_types::Geometry;
use serde::{Deserialize, Serialize};

use super::candidates::Candidate;
use super::respondent::Respondent;
use super::screening::FieldError;
use crate::domain::{text, ActionKind, CaseStatus, Closure, Feature, Layer, Origin, Value};
use crate::rules::profile::{ActOffices, IddeSettings};
use crate::spatial::Snapshot;

/// One entry of a case's action log.
///
/// Its text is bounded and printable ([`crate::domain::text`]): [`Action::text_problem`]
/// refuses an over-long note or a control character, naming the field, before a new
/// action is logged. A log read back from the store is read as it was written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// What was done.
    pub kind: ActionKind,
    /// The day it was done.
    pub on: NaiveDate,
    /// The time of day, `HH:MM`, where a deadline counts hours from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub at: Option<String>,
    /// The office that acted, as the profile names it (`Town Manager`), or `respondent`
    /// for what the person answering the case did (a plan, a report, a payment, an
    /// appeal); left out, the profile's enforcement office (or `respondent`).
    #[serde(default)]
    #[schemars(length(max = 1024))]
    pub by: String,
    /// Who recorded it: the subject of the token (or the user at the command line).
    /// Set by the registry, never taken from a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(skip)]
    pub recorded_by: Option<String>,
    /// For a notice: `hand` or `mail` (certified and first-class).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub method: Option<String>,
    /// What it found or decided (`corrected`, `not_corrected`, `upheld`, `positive`...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub outcome: Option<String>,
    /// For a citation: the number of violations cited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100000))]
    pub violations: Option<u32>,
    /// Readings or results (a sample's, a dye test's), as given: at most 64 KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<serde_json::Value>,
    /// The connection it concerns, when one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub connection_id: Option<String>,
    /// For a notice or citation served by mail: the day the respondent received it (the
    /// return receipt), where a period runs "from receipt".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub received_on: Option<NaiveDate>,
    /// The day this action sets: a notice's deadline for abatement or restoration, or
    /// the end of the period for correction a written plan agreed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<NaiveDate>,
    /// For a citation: the violation it cites, where a case has more than one; citations
    /// naming the same violation (or none) share one stream of continuing fines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 1024))]
    pub violation: Option<String>,
    /// Free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 65536))]
    pub notes: Option<String>,
}

impl Action {
    /// The first field whose text is over its limit or holds a character a record may
    /// not ([`crate::domain::text`]), with why.
    pub fn text_problem(&self) -> Option<FieldError> {
        let lines = [
            ("at", self.at.as_ref()),
            ("by", Some(&self.by)),
            ("method", self.method.as_ref()),
            ("outcome", self.outcome.as_ref()),
            ("connection_id", self.connection_id.as_ref()),
            ("violation", self.violation.as_ref()),
        ];
        for (field, v) in lines {
            if let Some(why) = v.and_then(|v| text::line_problem(v)) {
                return Some(err(field, why));
            }
        }
        if let Some(why) = self.notes.as_deref().and_then(text::note_problem) {
            return Some(err("notes", why));
        }
        if let Some(why) = self.results.as_ref().and_then(text::json_problem) {
            return Some(err("results", why));
        }
        None
    }

    /// When it was done, to the minute (the start of its day without a time).
    pub fn datetime(&self) -> chrono::NaiveDateTime {
        super::calendar::at_time(self.on, self.at.as_deref())
    }

    /// Whether it is of kind `k`, or of `kind:outcome` when `k` names an outcome.
    pub fn is(&self, k: &str) -> bool {
        match k.split_once(':') {
            Some((kind, outcome)) => self.kind == kind && self.outcome.as_deref() == Some(outcome),
            None => self.kind == k,
        }
    }
}

/// A case as the code works with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Case {
    /// Its id (`CASE-2026-0001`).
    pub case_id: String,
    /// The day it was opened.
    pub opened_on: NaiveDate,
    /// How it came to be opened.
    pub origin: Origin,
    /// Open or closed.
    pub status: CaseStatus,
    /// Who reported it (a complaint or hotline call).
    pub reported_by: Option<String>,
    /// Who opened it.
    pub opened_by: Option<String>,
    /// What was reported or found.
    pub description: Option<String>,
    /// The outfall (or other asset) it is about.
    pub asset_id: Option<String>,
    /// The screening that opened it.
    pub inspection_id: Option<String>,
    /// The connection it is about.
    pub connection_id: Option<String>,
    /// The parcel it is about.
    pub parcel_id: Option<String>,
    /// The day it closed.
    pub closed_on: Option<NaiveDate>,
    /// How it closed.
    pub closure: Option<Closure>,
    /// How it was eliminated, or why unfounded.
    pub closure_notes: Option<String>,
    /// The agency it was referred to.
    pub referred_to: Option<String>,
    /// The candidate sources, ranked.
    pub candidates: Vec<Candidate>,
    /// The action log, in order.
    pub actions: Vec<Action>,
    /// Who the case is against ([`super::respondent`]); a case stored before respondents
    /// were recorded reads as none on record, of unknown kind.
    #[serde(default)]
    pub respondent: Respondent,
    /// Where: the outfall's or the connection's point.
    #[serde(skip)]
    pub geom: Option<Geometry<f64>>,
}

const L: Layer = Layer::Cases;

fn text(f: &Feature, name: &str) -> Option<String> {
    f.get(L, name).as_str().map(str::to_string)
}

/// A field holding a word of a closed vocabulary; a word not in it (an outside edit) makes
/// the case unreadable, named, rather than read as another.
fn word<T: std::str::FromStr<Err = String>>(f: &Feature, name: &str) -> Result<Option<T>, String> {
    text(f, name)
        .map(|s| s.parse().map_err(|e| format!("case {}: {name}: {e}", f.id)))
        .transpose()
}

fn date(f: &Feature, name: &str) -> Option<NaiveDate> {
    f.get(L, name).as_date()
}

impl Case {
    /// Reads a case from its feature; a log that is not valid JSON (an outside edit) is
    /// read as empty and named in the error.
    pub fn from_feature(f: &Feature) -> Result<Case, String> {
        let json = |name: &str| -> Result<serde_json::Value, String> {
            match text(f, name) {
                None => Ok(serde_json::Value::Array(Vec::new())),
                Some(s) => serde_json::from_str(&s)
                    .map_err(|e| format!("case {}: {name} is not JSON: {e}", f.id)),
            }
        };
        let candidates = serde_json::from_value(json("candidates")?)
            .map_err(|e| format!("case {}: candidates: {e}", f.id))?;
        let actions = serde_json::from_value(json("actions")?)
            .map_err(|e| format!("case {}: actions: {e}", f.id))?;
        let respondent = match text(f, "respondent") {
            None => Respondent::default(),
            Some(s) => {
                serde_json::from_str(&s).map_err(|e| format!("case {}: respondent: {e}", f.id))?
            }
        };
        Ok(Case {
            case_id: f.id.clone(),
            opened_on: date(f, "opened_on")
                .ok_or_else(|| format!("case {}: no opened_on", f.id))?,
            origin: word(f, "origin")?.ok_or_else(|| format!("case {}: no origin", f.id))?,
            status: word(f, "status")?.unwrap_or(CaseStatus::Open),
            reported_by: text(f, "reported_by"),
            opened_by: text(f, "opened_by"),
            description: text(f, "description"),
            asset_id: text(f, "asset_id"),
            inspection_id: text(f, "inspection_id"),
            connection_id: text(f, "connection_id"),
            parcel_id: text(f, "parcel_id"),
            closed_on: date(f, "closed_on"),
            closure: word(f, "closure")?,
            closure_notes: text(f, "closure_notes"),
            referred_to: text(f, "referred_to"),
            candidates,
            actions,
            respondent,
            geom: f.geom.clone(),
        })
    }

    /// The case as a feature of the cases layer.
    pub fn to_feature(&self) -> Feature {
        let mut f = Feature::new(L, self.case_id.clone());
        let t = |s: &Option<String>| s.clone().map(Value::Text).unwrap_or(Value::Null);
        f.set(L, "opened_on", Value::Date(self.opened_on));
        f.set(L, "origin", Value::Text(self.origin.as_str().into()));
        f.set(L, "status", Value::Text(self.status.as_str().into()));
        f.set(L, "reported_by", t(&self.reported_by));
        f.set(L, "opened_by", t(&self.opened_by));
        f.set(L, "description", t(&self.description));
        f.set(L, "asset_id", t(&self.asset_id));
        f.set(L, "inspection_id", t(&self.inspection_id));
        f.set(L, "connection_id", t(&self.connection_id));
        f.set(L, "parcel_id", t(&self.parcel_id));
        f.set(
            L,
            "closed_on",
            self.closed_on.map(Value::Date).unwrap_or(Value::Null),
        );
        f.set(
            L,
            "closure",
            self.closure
                .map_or(Value::Null, |c| Value::Text(c.as_str().into())),
        );
        f.set(L, "closure_notes", t(&self.closure_notes));
        f.set(L, "referred_to", t(&self.referred_to));
        f.set(
            L,
            "candidates",
            Value::Text(serde_json::to_string(&self.candidates).unwrap_or_else(|_| "[]".into())),
        );
        f.set(
            L,
            "actions",
            Value::Text(serde_json::to_string(&self.actions).unwrap_or_else(|_| "[]".into())),
        );
        f.set(
            L,
            "respondent",
            serde_json::to_string(&self.respondent).map_or(Value::Null, Value::Text),
        );
        f.geom = self.geom.clone();
        f
    }

    /// Whether it is still open.
    pub fn is_open(&self) -> bool {
        self.status == CaseStatus::Open
    }
}

/// Every case of a snapshot, readable ones only, with the unreadable ones' reasons.
pub fn all_cases(snap: &Snapshot) -> (Vec<Case>, Vec<String>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for f in &snap.layer(L).features {
        match Case::from_feature(f) {
            Ok(c) => ok.push(c),
            Err(e) => bad.push(e),
        }
    }
    (ok, bad)
}

/// The id for the next case opened in `year`: one more than the highest number of that
/// year's ids in the snapshot. The id a case is stored with is allocated again inside
/// its write's transaction ([`super::open::store_new_case`]); this one is a preview.
pub fn next_case_id(snap: &Snapshot, year: i32) -> String {
    next_case_id_among(snap.layer(L).features.iter().map(|f| f.id.as_str()), year)
}

/// The id for the next case opened in `year` among these ids.
pub fn next_case_id_among<'a>(ids: impl IntoIterator<Item = &'a str>, year: i32) -> String {
    let prefix = format!("CASE-{year}-");
    let n = ids
        .into_iter()
        .filter_map(|id| id.strip_prefix(&prefix)?.parse::<u32>().ok())
        .max()
        .unwrap_or(0);
    format!("{prefix}{:04}", n + 1)
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

/// Who a respondent's action is by.
pub const RESPONDENT: &str = "respondent";

/// The most violations one citation may cite: the fine is counted per violation, and
/// no citation of the three laws reaches this.
pub const MAX_VIOLATIONS: u32 = 10_000;

/// Who did an action of `kind` (none: who closed the case), as the log records it:
/// - a respondent's kind ([`ActionKind::is_respondents`]) is by [`RESPONDENT`];
/// - a kind the profile gives to offices (`[idde] acts`) is by one of them, as the profile
///   spells it (any case and spacing accepted); left out, the first; any other name is
///   refused naming the offices and the clauses;
/// - any other kind is by one of `[idde] offices`, the first when left out;
/// - a profile that lists no offices takes any printable name, and refuses none: who
///   acted is never taken from who records it (the recorder is `recorded_by`).
pub fn resolve_by(
    kind: Option<ActionKind>,
    by: &str,
    law: &IddeSettings,
) -> Result<String, FieldError> {
    let given = by.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(kind) = kind.filter(|k| k.is_respondents()) {
        if given.is_empty() || given.eq_ignore_ascii_case(RESPONDENT) {
            return Ok(RESPONDENT.into());
        }
        return Err(err(
            "by",
            format!(
                "a {kind} is the respondent's: by is {RESPONDENT:?} (or left out), not {given:?}"
            ),
        ));
    }
    let offices = &law.offices;
    if offices.is_empty() {
        if let Some(why) = text::line_problem(&given) {
            return Err(err("by", why));
        }
        if given.is_empty() {
            return Err(err(
                "by",
                "this town's profile names no offices ([idde] offices): say which office acted, by",
            ));
        }
        return Ok(given);
    }
    let rows: Vec<&ActOffices> = match kind {
        Some(k) => law.acts.iter().filter(|a| a.kind == k).collect(),
        None => Vec::new(),
    };
    if let Some(kind) = kind.filter(|_| !rows.is_empty()) {
        let mut allowed: Vec<&String> = rows.iter().flat_map(|a| &a.offices).collect();
        allowed.dedup();
        if given.is_empty() {
            return Ok(allowed[0].clone());
        }
        return allowed
            .iter()
            .find(|o| o.eq_ignore_ascii_case(&given))
            .map(|o| (*o).clone())
            .ok_or_else(|| {
                let whose = rows
                    .iter()
                    .map(|a| format!("{} ({})", a.offices.join(" or "), a.citation))
                    .collect::<Vec<_>>()
                    .join("; ");
                err(
                    "by",
                    format!("the law gives a {kind} to {whose}, not to {given:?}"),
                )
            });
    }
    if given.is_empty() {
        return Ok(offices[0].clone());
    }
    offices
        .iter()
        .find(|o| o.eq_ignore_ascii_case(&given))
        .cloned()
        .ok_or_else(|| {
            err(
                "by",
                format!(
                    "{given:?} is not an office of this town's law; name one of {} (the profile's [idde] offices)",
                    offices.join(", ")
                ),
            )
        })
}

/// A new action as the log will record it: checked against the case
/// ([`check_action`]) and the respondent's immunities
/// ([`super::respondent::check_immunity`]), its `by` resolved ([`resolve_by`]), who
/// recorded it set to `recorder` (whatever the request said).
pub fn new_action(
    case: &Case,
    mut a: Action,
    law: &IddeSettings,
    recorder: &str,
    today: NaiveDate,
) -> Result<Action, FieldError> {
    if let Some(e) = a.text_problem() {
        return Err(e);
    }
    // The case's state and the action's kind first: their refusals say more than a
    // name's.
    check_action(case, &a, today)?;
    super::respondent::check_immunity(case, a.kind, law)?;
    a.by = resolve_by(Some(a.kind), &a.by, law)?;
    a.recorded_by = Some(recorder.to_string());
    Ok(a)
}

/// Checks a new action against the case: open, a known kind, a date on or after the
/// opening and not in the future, and the fields its kind needs (who did it is
/// [`resolve_by`]'s).
pub fn check_action(case: &Case, a: &Action, today: NaiveDate) -> Result<(), FieldError> {
    if !case.is_open() {
        return Err(err(
            "case",
            format!(
                "case {} closed on {} as {}: it takes no more actions",
                case.case_id,
                case.closed_on.map(|d| d.to_string()).unwrap_or_default(),
                case.closure.map(Closure::as_str).unwrap_or_default()
            ),
        ));
    }
    if a.kind == ActionKind::Eliminated {
        return Err(err(
            "kind",
            "an elimination is logged when the case closes: close the case as eliminated",
        ));
    }
    if a.on < case.opened_on {
        return Err(err(
            "on",
            format!("{} is before the case opened ({})", a.on, case.opened_on),
        ));
    }
    if a.on > today {
        return Err(err("on", format!("{} is in the future", a.on)));
    }
    if let Some(t) = &a.at {
        if super::calendar::time_of_day(t).is_none() {
            return Err(err("at", format!("{t:?} is not a time of day, HH:MM")));
        }
    }
    let needs = |field: &str, v: &Option<String>, allowed: &[&str]| match v.as_deref() {
        Some(x) if allowed.contains(&x) => Ok(()),
        other => Err(err(
            field,
            format!(
                "a {} needs {field} {}{}",
                a.kind,
                allowed.join(" or "),
                other.map(|o| format!(", not {o:?}")).unwrap_or_default()
            ),
        )),
    };
    match a.kind {
        k if k.is_served() => needs("method", &a.method, &["hand", "mail"])?,
        ActionKind::Reinspection => {
            needs("outcome", &a.outcome, &["corrected", "not_corrected"])?;
        }
        ActionKind::AppealDecided | ActionKind::HearingDecided => {
            needs("outcome", &a.outcome, &["upheld", "reversed"])?;
        }
        _ => {}
    }
    if a.kind == ActionKind::CitationIssued && a.violations == Some(0) {
        return Err(err("violations", "a citation cites one violation or more"));
    }
    if let Some(n) = a.violations.filter(|n| *n > MAX_VIOLATIONS) {
        return Err(err(
            "violations",
            format!("{n} is over the {MAX_VIOLATIONS} violations one citation may cite"),
        ));
    }
    check_clock_fields(a, today)
}

/// The fields the law's clocks read: a receipt only where something was served (a hand
/// delivery is received the day it is delivered), a deadline only where a notice or a
/// written plan sets one and not before the day it was set, and a violation's label
/// with words in it (a blank one would start a stream of its own).
fn check_clock_fields(a: &Action, today: NaiveDate) -> Result<(), FieldError> {
    if let Some(r) = a.received_on {
        if !a.kind.is_served() {
            return Err(err(
                "received_on",
                format!(
                    "a {} is not served: received_on is a served notice's or citation's",
                    a.kind
                ),
            ));
        }
        if a.method.as_deref() == Some("hand") && r != a.on {
            return Err(err(
                "received_on",
                format!(
                    "delivered by hand, it was received the day it was delivered ({}), not {r}",
                    a.on
                ),
            ));
        }
        if r < a.on {
            return Err(err(
                "received_on",
                format!("{r} is before it was mailed ({})", a.on),
            ));
        }
        if r > today {
            return Err(err("received_on", format!("{r} is in the future")));
        }
    }
    if let Some(d) = a.deadline {
        let sets_one = matches!(
            a.kind,
            ActionKind::NoticeOfViolation | ActionKind::WrittenNotice | ActionKind::CorrectionPlan
        );
        if !sets_one {
            return Err(err(
                "deadline",
                format!(
                    "a {} sets no deadline: it is a notice's deadline for abatement or the end of the period a written plan agreed",
                    a.kind
                ),
            ));
        }
        if d < a.on {
            return Err(err(
                "deadline",
                format!("{d} is before the {} it is set by ({})", a.kind, a.on),
            ));
        }
    }
    if a.violation.as_deref().is_some_and(|v| v.trim().is_empty()) {
        return Err(err(
            "violation",
            "is blank: name the violation, or leave it out for the case's one violation",
        ));
    }
    Ok(())
}

/// How a case is to close.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Closing {
    /// How it closes.
    pub closure: Closure,
    /// The day.
    pub on: NaiveDate,
    /// The office that closed it, as the profile names it; left out, the profile's
    /// enforcement office.
    #[serde(default, deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub by: String,
    /// How it was eliminated, or why it was unfounded.
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub notes: Option<String>,
    /// The agency it was referred to.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub referred_to: Option<String>,
    /// The connection eliminated (else the case's own).
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub connection_id: Option<String>,
}

/// Closes a case: the case as closed, and for an elimination the id of the connection
/// whose record is to say `removed` ([`connection_removed`], applied to the connection's
/// stored row in the same transaction, audited with before and after).
pub fn close(
    case: &Case,
    c: &Closing,
    law: &IddeSettings,
    recorder: &str,
    today: NaiveDate,
) -> Result<(Case, Option<String>), FieldError> {
    if !case.is_open() {
        return Err(err(
            "case",
            format!(
                "case {} is already closed (on {} as {})",
                case.case_id,
                case.closed_on.map(|d| d.to_string()).unwrap_or_default(),
                case.closure.map(Closure::as_str).unwrap_or_default()
            ),
        ));
    }
    if c.on < case.opened_on || c.on > today {
        return Err(err(
            "on",
            format!(
                "{} is before the case opened ({}) or in the future",
                c.on, case.opened_on
            ),
        ));
    }
    let by = resolve_by(None, &c.by, law)?;
    let mut next = case.clone();
    next.status = CaseStatus::Closed;
    next.closed_on = Some(c.on);
    next.closure = Some(c.closure);
    next.closure_notes = c.notes.clone().filter(|s| !s.trim().is_empty());
    let mut connection = None;
    match c.closure {
        Closure::Referred => {
            let to = c
                .referred_to
                .clone()
                .filter(|s| !s.trim().is_empty())
                .ok_or_else(|| err("referred_to", "a referred case names the agency it went to"))?;
            next.referred_to = Some(to);
        }
        Closure::Eliminated => {
            if next.closure_notes.is_none() {
                return Err(err("notes", "say how the discharge was eliminated"));
            }
            let cid = c
                .connection_id
                .clone()
                .or_else(|| case.connection_id.clone());
            if let Some(cid) = cid {
                next.connection_id = Some(cid.clone());
                connection = Some(cid);
            }
            next.actions.push(Action {
                kind: ActionKind::Eliminated,
                on: c.on,
                at: None,
                by: by.clone(),
                recorded_by: Some(recorder.to_string()),
                method: None,
                outcome: None,
                violations: None,
                results: None,
                connection_id: next.connection_id.clone(),
                received_on: None,
                deadline: None,
                violation: None,
                notes: next.closure_notes.clone(),
            });
        }
        Closure::Unfounded => {
            if next.closure_notes.is_none() {
                return Err(err("notes", "say why the report was unfounded"));
            }
        }
    }
    Ok((next, connection))
}

/// The connection a case closed as eliminated names, as its record is to say: `removed`,
/// with `removed_on` the day; `stored` is its row as stored (none: there is no such
/// connection, which refuses the closing).
pub fn connection_removed(
    id: &str,
    stored: Option<Feature>,
    on: NaiveDate,
) -> Result<Feature, FieldError> {
    let layer = Layer::Connections;
    let mut f =
        stored.ok_or_else(|| err("connection_id", format!("no connection has id {id:?}")))?;
    f.set(layer, "status", Value::Text("removed".into()));
    f.set(layer, "removed_on", Value::Date(on));
    Ok(f)
}
