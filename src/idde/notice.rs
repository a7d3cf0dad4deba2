//! A case's notices as printable HTML documents, written once for the model illicit
//! discharge ordinance and filled with the town's own words, rule ids and citations from
//! its profile: `[roles]` names the rules (`notice_of_violation`, `notice_appeal`, and for a
//! town whose law has a citation procedure `written_notice`, `citation`,
//! `continuing_violation`, `fine_payment`), `[wording.notice]` the law's words, and
//! `[idde]`'s steps of those rules the periods and amounts. No code here knows a town.
//!
//! Every document states what its law requires and nothing it does not: the notice of
//! violation prints the orders the officer chose, with the law's list as the options it
//! may choose from (a fine is one of them, not a requirement); where abatement or
//! restoration is ordered, the deadline (the notice action's `deadline`, or the one given)
//! and the advice that the work will otherwise be done at the violator's expense. Each
//! document advises of the right to appeal. A period is printed as its rule until the
//! document is served (no date exists yet), and as dates from the case's deadlines once
//! the serving action is logged. What the record lacks is printed as a blank and listed
//! under "Open facts", never guessed.

use chrono::NaiveDate;
use serde::Deserialize;

use super::case::{Action, Case};
use super::deadlines::{case_deadlines, CaseDeadlines, Deadline};
use super::ld_notice::money;
use crate::domain::Layer;
use crate::rules::{DeadlineStep, FineStep, NoticeOrder, NoticeWording, Profile, Role};
use crate::spatial::Snapshot;

/// Which notice of a case to print.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NoticeDocument {
    /// The notice of violation ordering compliance.
    #[default]
    NoticeOfViolation,
    /// The written notice giving a period to correct (a citation procedure's first step).
    WrittenNotice,
    /// The citation and its fine, printable on its own.
    Citation,
}

impl NoticeDocument {
    /// Its name in requests.
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeDocument::NoticeOfViolation => "notice_of_violation",
            NoticeDocument::WrittenNotice => "written_notice",
            NoticeDocument::Citation => "citation",
        }
    }

    /// The kind of action that serves it.
    fn served_by(self) -> &'static str {
        match self {
            NoticeDocument::NoticeOfViolation => "notice_of_violation",
            NoticeDocument::WrittenNotice => "written_notice",
            NoticeDocument::Citation => "citation_issued",
        }
    }

    fn title(self) -> &'static str {
        match self {
            NoticeDocument::NoticeOfViolation => "Notice of violation",
            NoticeDocument::WrittenNotice => "Written notice of violation",
            NoticeDocument::Citation => "Citation",
        }
    }
}

impl std::str::FromStr for NoticeDocument {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        [
            NoticeDocument::NoticeOfViolation,
            NoticeDocument::WrittenNotice,
            NoticeDocument::Citation,
        ]
        .into_iter()
        .find(|d| d.as_str() == s.trim())
        .ok_or_else(|| {
            format!("{s:?} is not a notice: notice_of_violation, written_notice or citation")
        })
    }
}

/// What a notice is printed with besides the case: which document, the orders the officer
/// chose, and the abatement deadline (each given wins over the serving action's record).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NoticeFacts {
    /// The document (the notice of violation when not given).
    pub document: NoticeDocument,
    /// The orders the notice makes, from the town's list.
    pub orders: Vec<NoticeOrder>,
    /// The deadline for abatement or restoration (else the notice action's `deadline`).
    pub deadline: Option<NaiveDate>,
}

impl NoticeFacts {
    /// The facts as the command line and a query string give them: a document's name,
    /// order names, a deadline. A word that is not one is refused naming its field.
    pub fn from_words<S: AsRef<str>>(
        document: Option<&str>,
        orders: &[S],
        deadline: Option<NaiveDate>,
    ) -> Result<NoticeFacts, NoticeError> {
        let document = match document.map(str::trim).filter(|s| !s.is_empty()) {
            Some(d) => d
                .parse()
                .map_err(|e| NoticeError::Bad("document".into(), e))?,
            None => NoticeDocument::default(),
        };
        let orders = orders
            .iter()
            .map(|o| o.as_ref().trim())
            .filter(|o| !o.is_empty())
            .enumerate()
            .map(|(i, o)| {
                NoticeOrder::from_name(o).ok_or_else(|| {
                    let names: Vec<&str> = NoticeOrder::ALL.iter().map(|v| v.as_str()).collect();
                    NoticeError::Bad(
                        format!("orders[{i}]"),
                        format!("{o:?} is not an order: {}", names.join(", ")),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(NoticeFacts {
            document,
            orders,
            deadline,
        })
    }
}

/// A printed notice and the facts it had to leave open.
#[derive(Debug, Clone)]
pub struct Notice {
    /// The whole HTML document.
    pub html: String,
    /// Each fact the record lacks, in words.
    pub open_facts: Vec<String>,
}

/// Why a notice cannot be printed.
#[derive(Debug, Clone, PartialEq)]
pub enum NoticeError {
    /// The town's law has no such notice.
    NoSuchNotice(String),
    /// A fact given is wrong (field, message).
    Bad(String, String),
}

impl std::fmt::Display for NoticeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoticeError::NoSuchNotice(m) => f.write_str(m),
            NoticeError::Bad(field, m) => write!(f, "{field}: {m}"),
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

/// The notice of a case with its deadlines counted to `as_of`.
pub fn for_case(
    snap: &Snapshot,
    profile: &Profile,
    case: &Case,
    facts: &NoticeFacts,
    as_of: chrono::NaiveDateTime,
) -> Result<Notice, NoticeError> {
    let d = case_deadlines(case, &profile.idde, as_of);
    render(snap, profile, case, facts, &d)
}

/// One rule the notice cites: its id and its citation in the profile.
struct Cited<'a> {
    id: &'a str,
    citation: &'a str,
}

impl Cited<'_> {
    fn small(&self) -> String {
        format!(
            "<p><small>{} ({})</small></p>\n",
            esc(self.citation),
            esc(self.id)
        )
    }
}

/// What a document is filled from.
struct Ctx<'a> {
    profile: &'a Profile,
    case: &'a Case,
    facts: &'a NoticeFacts,
    deadlines: &'a CaseDeadlines,
    words: &'a NoticeWording,
    /// The action that served this document, if logged.
    served: Option<&'a Action>,
    open: Vec<String>,
}

impl<'a> Ctx<'a> {
    fn cite(&self, role: Role) -> Option<Cited<'a>> {
        let id = self.profile.role_id(role)?;
        Some(Cited {
            id,
            citation: self.profile.citation(id).unwrap_or(""),
        })
    }

    fn lacking(&mut self, what: impl Into<String>) -> String {
        self.open.push(what.into());
        BLANK.to_string()
    }

    /// The profile's deadline step of a role's rule (`window` picks a window or a duty).
    fn step(&self, role: Role, window: Option<bool>) -> Option<&'a DeadlineStep> {
        let id = self.profile.role_id(role)?;
        self.profile
            .idde
            .deadlines
            .iter()
            .find(|s| s.rule == id && window.is_none_or(|w| s.window == w))
    }

    fn fine(&self, role: Role) -> Option<&'a FineStep> {
        let id = self.profile.role_id(role)?;
        self.profile.idde.fines.iter().find(|f| f.rule == id)
    }

    /// The case's counted deadline of a step.
    fn counted(&self, step: &DeadlineStep) -> Option<&'a Deadline> {
        self.deadlines
            .deadlines
            .iter()
            // A deadline the record cannot count yet (an open fact) is not printed as a
            // date: the notice lists what it lacks instead.
            .find(|d| d.rule == step.rule && d.what == step.what && d.due_on.is_some())
    }
}

/// The notice of a case, as a whole HTML document.
pub fn render(
    snap: &Snapshot,
    profile: &Profile,
    case: &Case,
    facts: &NoticeFacts,
    deadlines: &CaseDeadlines,
) -> Result<Notice, NoticeError> {
    check(profile, facts)?;
    let served = case
        .actions
        .iter()
        .filter(|a| a.kind == facts.document.served_by())
        .max_by_key(|a| a.datetime());
    let mut cx = Ctx {
        profile,
        case,
        facts,
        deadlines,
        words: &profile.wording.notice,
        served,
        open: Vec::new(),
    };
    let mut body = parties(snap, &mut cx);
    body.push_str(&match facts.document {
        NoticeDocument::NoticeOfViolation => notice_of_violation(&mut cx),
        NoticeDocument::WrittenNotice => written_notice(&mut cx),
        NoticeDocument::Citation => citation(&mut cx),
    });
    body.push_str(&appeal(&mut cx));
    let html = page(profile, case, facts.document, &body, &cx.open);
    Ok(Notice {
        html,
        open_facts: cx.open,
    })
}

/// The document is one the town's law has, and the orders are from its list.
fn check(profile: &Profile, facts: &NoticeFacts) -> Result<(), NoticeError> {
    let role = match facts.document {
        NoticeDocument::NoticeOfViolation => Role::NoticeOfViolation,
        NoticeDocument::WrittenNotice => Role::WrittenNotice,
        NoticeDocument::Citation => Role::Citation,
    };
    if profile.role_id(role).is_none() {
        return Err(NoticeError::NoSuchNotice(format!(
            "{} has no illicit discharge {}: its profile names no rule prescribing one \
             (`{role}` in [roles]); its law has none, or the profile does not give it yet",
            profile.name,
            facts.document.title().to_lowercase()
        )));
    }
    let words = &profile.wording.notice;
    for (i, o) in facts.orders.iter().enumerate() {
        if words.order(*o).is_none() {
            let listed: Vec<&str> = words.orders.iter().map(|o| o.key.as_str()).collect();
            return Err(NoticeError::Bad(
                format!("orders[{i}]"),
                format!(
                    "{o} is not an order {}'s law lets a notice make: {}",
                    profile.name,
                    listed.join(", ")
                ),
            ));
        }
        if facts.orders[..i].contains(o) {
            return Err(NoticeError::Bad(
                format!("orders[{i}]"),
                format!("{o} is given twice"),
            ));
        }
    }
    Ok(())
}

/// Who, where and what: the parcel's owner and address, the violation and where it was
/// seen.
fn parties(snap: &Snapshot, cx: &mut Ctx<'_>) -> String {
    let parcel = cx
        .case
        .parcel_id
        .as_deref()
        .and_then(|p| snap.layer(Layer::Parcels).get(p));
    let field = |name: &str| {
        parcel
            .and_then(|p| p.get(Layer::Parcels, name).as_str())
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(esc)
    };
    // The case's respondent (given, or read from the parcel's owner when it was opened);
    // a case from before respondents were recorded falls back to the parcel's owner.
    let respondent = cx
        .case
        .respondent
        .name
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(esc);
    let owner = respondent.or_else(|| field("owner")).unwrap_or_else(|| {
        cx.lacking("the person responsible (no respondent or parcel owner on record)")
    });
    let address =
        field("address").unwrap_or_else(|| cx.lacking("the address (no parcel address on record)"));
    let mut h = format!("<p><b>To:</b> {owner}<br><b>Property:</b> {address}");
    if let Some(p) = &cx.case.parcel_id {
        h.push_str(&format!(" (parcel {})", esc(p)));
    }
    h.push_str("</p>\n<h3>The violation</h3>\n<p>");
    let violation = cx
        .served
        .and_then(|a| a.violation.clone())
        .or_else(|| cx.case.description.clone());
    match violation {
        Some(v) => h.push_str(&esc(&v)),
        None => {
            let b = cx.lacking("the nature of the violation (no description on the case)");
            h.push_str(&b);
        }
    }
    if let Some(a) = &cx.case.asset_id {
        h.push_str(&format!(", observed at {}", esc(a)));
    }
    if let Some(c) = &cx.case.connection_id {
        h.push_str(&format!(", from connection {}", esc(c)));
    }
    h.push_str(".</p>\n");
    h
}

/// The orders chosen, as a list, or a blank and an open fact when none is given.
fn chosen_orders(cx: &mut Ctx<'_>, heading: &str, lacking: &str) -> String {
    let mut h = format!("<h3>{heading}</h3>\n");
    if cx.facts.orders.is_empty() {
        let b = cx.lacking(lacking);
        h.push_str(&format!("<p>{b}</p>\n"));
        return h;
    }
    h.push_str("<ol class=\"orders\">\n");
    for o in &cx.facts.orders {
        if let Some(t) = cx.words.order(*o) {
            h.push_str(&format!(
                "<li data-order=\"{}\">{} <small>({})</small></li>\n",
                o,
                esc(&t.text),
                esc(&t.clause)
            ));
        }
    }
    h.push_str("</ol>\n");
    h
}

/// The notice of violation: the orders chosen, the law's list as options, and the
/// abatement deadline with its advice where abatement or restoration is ordered.
fn notice_of_violation(cx: &mut Ctx<'_>) -> String {
    let issuer = esc(&cx.words.issuer);
    let mut h =
        format!("<p>The {issuer} orders compliance by this written notice of violation.</p>\n");
    h.push_str(&chosen_orders(
        cx,
        "You are required to",
        "the orders this notice makes (choose from the list the law allows)",
    ));
    if cx.facts.orders.contains(&NoticeOrder::Abatement) {
        h.push_str(&abatement(cx));
    }
    h.push_str(
        "<h3>Orders the law allows</h3>\n<p>The notice may require, without limitation:</p>\n<ul class=\"options\">\n",
    );
    for o in &cx.words.orders {
        h.push_str(&format!(
            "<li data-option=\"{}\">{} <small>({})</small></li>\n",
            o.key,
            esc(&o.text),
            esc(&o.clause)
        ));
    }
    h.push_str("</ul>\n");
    if let Some(c) = cx.cite(Role::NoticeOfViolation) {
        h.push_str(&c.small());
    }
    h
}

/// Where abatement or restoration is required: the deadline and the advice.
fn abatement(cx: &mut Ctx<'_>) -> String {
    let deadline = cx.facts.deadline.or(cx.served.and_then(|a| a.deadline));
    let by = match deadline {
        Some(d) => d.to_string(),
        None => cx.lacking(
            "the deadline within which the remediation or restoration must be completed (none \
             given, none on the notice action)",
        ),
    };
    format!(
        "<h3>Deadline for abatement and restoration</h3>\n<p class=\"abatement\">The \
         remediation or restoration must be completed by: {by}.</p>\n<p class=\"advice\">Be \
         advised that, should the violator fail to remediate or restore within the established deadline, the work \
         will be done by a designated governmental agency or a contractor and the expense \
         thereof shall be charged to the violator. <small>({})</small></p>\n",
        esc(&cx.words.abatement_clause)
    )
}

/// The written notice: the nature of the violation (above), the steps required, the
/// period to correct or to submit a plan, and how service starts it.
fn written_notice(cx: &mut Ctx<'_>) -> String {
    let manager = esc(&cx.words.manager);
    let mut h = format!("<p>The {manager} issues this written notice.</p>\n");
    h.push_str(&chosen_orders(
        cx,
        "Steps required for compliance",
        "the steps required for compliance (none given)",
    ));
    let Some(step) = cx.step(Role::WrittenNotice, None) else {
        let b = cx.lacking("the period to correct (the profile's [idde] has no step of this rule)");
        h.push_str(&format!("<p>{b}</p>\n"));
        return h;
    };
    let period = period_words(step);
    h.push_str(&format!(
        "<h3>Period for correction</h3>\n<p class=\"period\">This notice allows a {period} \
         period within which to correct the violation or within which a written plan for \
         correction shall be submitted to the {manager}, setting forth a reasonable time period \
         for correction of the violation as agreed upon by the {manager}.</p>\n"
    ));
    h.push_str(&service_words(step, &period));
    h.push_str(&served_period(cx, step, &period));
    if let Some(c) = cx.cite(Role::WrittenNotice) {
        h.push_str(&c.small());
    }
    h
}

/// "72-hour", "10-business-day", "15-day".
fn period_words(step: &DeadlineStep) -> String {
    match (step.hours, step.days, step.business_days) {
        (Some(h), _, _) => format!("{h}-hour"),
        (_, Some(d), _) => format!("{d}-day"),
        (_, _, Some(b)) => format!("{b}-business-day"),
        _ => "period".into(),
    }
}

/// How each manner of service starts the period.
fn service_words(step: &DeadlineStep, period: &str) -> String {
    let mut h = format!(
        "<p class=\"service\">Served by hand delivery, the {period} period begins at delivery."
    );
    if let Some(m) = step.mail_business_days {
        h.push_str(&format!(
            " Served by certified mail return receipt requested and by regular first class \
             mail, {m} business days are allowed for mail delivery of the notice before the \
             {period} period commences."
        ));
    }
    h.push_str("</p>\n");
    h
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The period as a rule before the notice is served, as dates from the case's deadlines
/// once it is.
fn served_period(cx: &mut Ctx<'_>, step: &DeadlineStep, period: &str) -> String {
    let hours = step
        .hours
        .map_or_else(|| period.to_string(), |h| format!("{h} hours"));
    let Some(a) = cx.served else {
        let mail = step.mail_business_days.map_or(String::new(), |m| {
            format!(
                ", or from the start of the day after the {} business day after mailing",
                ordinal(m)
            )
        });
        return format!(
            "<p class=\"when\">Not yet served: the period runs {hours} from hand delivery{mail}.</p>\n"
        );
    };
    let how = match a.method.as_deref() {
        Some("mail") => "by mail",
        Some("hand") => "by hand",
        _ => "",
    };
    let counted = cx
        .counted(step)
        .and_then(|d| Some((d.starts?, d.due_on?, d)));
    match counted {
        Some((starts, _, d)) => format!(
            "<p class=\"when\">Served {how} on {}: the period runs from {} to {}.</p>\n\
             <p><small>Counted: {}</small></p>\n",
            a.on,
            starts.format("%Y-%m-%d %H:%M"),
            d.by(),
            esc(&d.counted)
        ),
        None => {
            let why = cx
                .counted(step)
                .and_then(|d| d.open_fact.clone())
                .unwrap_or_else(|| format!("{}: the deadlines could not count it", step.rule));
            let b = cx.lacking(format!("the end of the period for correction ({why})"));
            format!(
                "<p class=\"when\">Served {how} on {}: the period ends {b}.</p>\n",
                a.on
            )
        }
    }
}

/// The citation: the violation (above), the fine imposed, the time to pay, the address
/// for remittance, and the notice of continuing violations.
fn citation(cx: &mut Ctx<'_>) -> String {
    let manager = esc(&cx.words.manager);
    let mut h = format!("<p>The {manager} issues this citation.</p>\n");
    h.push_str(&fine_imposed(cx));
    h.push_str(&payment(cx));
    h.push_str(&remittance(cx));
    if let Some(f) = cx.fine(Role::ContinuingViolation) {
        let per = match (f.per_hours, f.per_days) {
            (Some(h), _) => format!("{h}-hour"),
            (_, Some(d)) => format!("{d}-day"),
            _ => "further".into(),
        };
        h.push_str(&format!(
            "<h3>Continuing violation</h3>\n<p class=\"continuing\">Each {per} period of \
             noncompliance after {} shall constitute a new violation and a new fine of {}.</p>\n",
            esc(&cx.words.continuing_after),
            money(f.amount)
        ));
        if let Some(c) = cx.cite(Role::ContinuingViolation) {
            h.push_str(&c.small());
        }
    }
    if let Some(c) = cx.cite(Role::Citation) {
        h.push_str(&c.small());
    }
    h
}

fn fine_imposed(cx: &mut Ctx<'_>) -> String {
    let Some(f) = cx.fine(Role::Citation) else {
        let b = cx.lacking("the fine (the profile's [idde] has no fine of this rule)");
        return format!("<h3>Fine imposed</h3>\n<p>{b}</p>\n");
    };
    let each = money(f.amount);
    match cx.served.and_then(|a| a.violations) {
        Some(n) => format!(
            "<h3>Fine imposed</h3>\n<p class=\"fine\">{each} for each violation: {n} \
             violation{}, {}.</p>\n",
            if n == 1 { "" } else { "s" },
            money(f.amount * f64::from(n))
        ),
        None => {
            let b = cx.lacking("the number of violations cited (no citation with it logged)");
            format!(
                "<h3>Fine imposed</h3>\n<p class=\"fine\">{each} for each violation: {b} \
                 violation(s).</p>\n"
            )
        }
    }
}

fn payment(cx: &mut Ctx<'_>) -> String {
    let Some(step) = cx.step(Role::FinePayment, None) else {
        let b = cx.lacking("the time period within which the fine must be paid");
        return format!("<h3>Time to pay</h3>\n<p>{b}</p>\n");
    };
    let period = match (step.hours, step.days, step.business_days) {
        (Some(h), _, _) => format!("{h} hours"),
        (_, Some(d), _) => format!("{d} days"),
        (_, _, Some(b)) => format!("{b} business days"),
        _ => String::new(),
    };
    let mut h = format!(
        "<h3>Time to pay</h3>\n<p class=\"payment\">Uncontested fines shall be {} within \
         {period} from receipt of the citation.",
        esc(&cx.words.payment)
    );
    if cx.served.is_some() {
        match cx.counted(step) {
            Some(d) if d.due_on.is_some() => {
                h.push_str(&format!(" To be received by {}.", d.by()));
            }
            Some(d) if d.status == "suspended" => {
                h.push_str(" The time to pay is suspended while the fine is contested.");
            }
            d => {
                let why = d.and_then(|d| d.open_fact.clone()).unwrap_or_else(|| {
                    "the day the citation was received, from which the time to pay runs".into()
                });
                let b = cx.lacking(why);
                h.push_str(&format!(" To be received by: {b}."));
            }
        }
    }
    h.push_str("</p>\n");
    if let Some(c) = cx.cite(Role::FinePayment) {
        h.push_str(&c.small());
    }
    h
}

fn remittance(cx: &mut Ctx<'_>) -> String {
    let address = cx
        .words
        .remittance_address
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty());
    match address {
        Some(a) => format!(
            "<h3>Address for remittance</h3>\n<p class=\"remittance\">{}</p>\n",
            esc(a)
        ),
        None => {
            let b = cx.lacking(
                "the address for remittance of the fine: missing (the profile holds no \
                 remittance address; give it as [wording.notice] remittance_address)",
            );
            format!("<h3>Address for remittance</h3>\n<p class=\"remittance\">Missing: {b}</p>\n")
        }
    }
}

/// The right to appeal in the law's words, with its last day once the notice is served
/// where the law counts one.
fn appeal(cx: &mut Ctx<'_>) -> String {
    let mut h = format!(
        "<h3>Your right to appeal</h3>\n<p class=\"appeal\">{}",
        esc(&cx.words.appeal)
    );
    let window = (cx.facts.document == NoticeDocument::NoticeOfViolation)
        .then(|| cx.step(Role::NoticeAppeal, Some(true)))
        .flatten()
        .filter(|s| s.trigger.as_deref() == Some(cx.facts.document.served_by()));
    if let Some(step) = window {
        match (cx.served, cx.counted(step).and_then(|d| d.due_on)) {
            (Some(a), Some(by)) => h.push_str(&format!(
                " Issued on {}: the appeal is to be filed by {by}.",
                a.on
            )),
            _ => {
                let days = step.days.or(step.business_days).unwrap_or(0);
                let roll = if cx.profile.idde.periods_roll_to_business_day {
                    ", running to the next business day when the last falls on a Saturday, Sunday or holiday"
                } else {
                    ""
                };
                h.push_str(&format!(
                    " Not yet issued: the {days} days are counted from the day it is issued{roll}."
                ));
            }
        }
    }
    h.push_str("</p>\n");
    if let Some(c) = cx.cite(Role::NoticeAppeal) {
        h.push_str(&c.small());
    }
    h
}

/// The page around a document's body.
fn page(
    profile: &Profile,
    case: &Case,
    document: NoticeDocument,
    body: &str,
    open: &[String],
) -> String {
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str(&format!(
        "<title>{}, case {}</title>",
        document.title(),
        esc(&case.case_id)
    ));
    h.push_str(
        "<style>body{font-family:serif;max-width:40em;margin:2em auto}td,th{text-align:left;padding:.2em .5em}\
         .blank{letter-spacing:-1px}@media print{.open-facts{display:none}}</style></head><body>\n",
    );
    h.push_str(&format!(
        "<h1>{}</h1>\n<h2 data-document=\"{}\">{}</h2>\n<p>Case {} · opened {}</p>\n",
        esc(&profile.name),
        document.as_str(),
        document.title(),
        esc(&case.case_id),
        case.opened_on
    ));
    h.push_str(body);
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
