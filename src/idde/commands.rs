//! The case commands, each one typed request run against the registry by [`run`]: what
//! `ms4 case` does, from the same parts the API's case handlers call (opening with
//! [`open_case`] and [`store_new_case`], an action with [`log_action`], a closing with
//! [`close_case`], a case read as stored). The command line only parses into a
//! [`CaseCommand`] and renders the [`CaseAnswer`].

use chrono::{Datelike, NaiveDate, NaiveDateTime};

use super::case::{all_cases, next_case_id, Action, Case, Closing};
use super::case_update::{check_connection, close_case, log_action, set_case_respondent, Recorder};
use super::deadlines::{case_deadlines, CaseDeadlines};
use super::ld_notice::LdFacts;
use super::notice::{NoticeError, NoticeFacts};
use super::open::{from_connections, open_case, store_new_case, OpenCase};
use super::respondent::{flags, RespondentFlag, RespondentRequest};
use super::FieldError;
use crate::answer::Ask;
use crate::domain::{CaseStatus, Layer};
use crate::rules::Profile;
use crate::spatial::Snapshot;
use crate::store::{Store, StoreError};

/// One case command.
#[derive(Debug)]
pub enum CaseCommand {
    /// Open a case by hand.
    Open(OpenCase),
    /// Open a case for each connection found illicit or needing review that no case names.
    FromConnections {
        /// The day they are opened.
        on: NaiveDate,
    },
    /// Log an action on a case.
    Action {
        /// The case.
        id: String,
        /// The action.
        action: Action,
    },
    /// Set or correct who a case is against.
    Respondent {
        /// The case.
        id: String,
        /// The respondent.
        respondent: RespondentRequest,
    },
    /// Close a case.
    Close {
        /// The case.
        id: String,
        /// How.
        closing: Closing,
    },
    /// The cases, open or closed or both.
    List {
        /// Only these.
        status: Option<CaseStatus>,
    },
    /// One case with its deadlines.
    Show {
        /// The case.
        id: String,
        /// When the deadlines are counted to.
        as_of: NaiveDateTime,
    },
    /// A case's notice: the notice of violation, or a written notice or citation where
    /// the town's law has them.
    Notice {
        /// The case.
        id: String,
        /// When the deadlines it states are counted to.
        as_of: NaiveDateTime,
        /// Which document, the orders chosen and the abatement deadline.
        facts: NoticeFacts,
    },
    /// The land development notice of violation.
    LdNotice(LdFacts),
}

/// What a case command answers.
#[derive(Debug)]
pub enum CaseAnswer {
    /// One case as stored, with its deadlines and fines counted to a time.
    Case(Box<CaseView>),
    /// The ids of the cases opened.
    Opened(Vec<String>),
    /// The readable cases asked for, and why the others could not be read.
    List {
        /// The cases.
        cases: Vec<Case>,
        /// The unreadable ones' reasons.
        unreadable: Vec<String>,
    },
    /// A printable notice, with the facts it had to leave open.
    Notice {
        /// The page.
        html: String,
        /// What the record lacks, listed on the page.
        open_facts: Vec<String>,
    },
}

/// A case as the commands and `GET /api/cases/{id}` answer it: the case as stored, its
/// deadlines and fines counted to a time, and the logged actions its respondent's
/// immunities bar or may bar (`respondent_flags`: an action allowed while the respondent
/// is unknown is flagged there until the respondent is confirmed).
#[derive(Debug, Clone, serde::Serialize)]
pub struct CaseView {
    /// The case.
    #[serde(flatten)]
    pub case: Case,
    /// Its deadlines and fines.
    pub deadlines: CaseDeadlines,
    /// The logged actions the law bars, or may bar, against its respondent.
    pub respondent_flags: Vec<RespondentFlag>,
}

impl CaseView {
    /// The case with its deadlines counted to `as_of` under the town's law.
    pub fn new(
        case: Case,
        law: &crate::rules::profile::IddeSettings,
        as_of: NaiveDateTime,
    ) -> Self {
        CaseView {
            deadlines: case_deadlines(&case, law, as_of),
            respondent_flags: flags(&case, law),
            case,
        }
    }
}

/// Why a case command did nothing.
#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    /// A field of the request is wrong.
    #[error("{0}")]
    Invalid(FieldError),
    /// The case named is not in the registry, or cannot be read.
    #[error("{0}")]
    NotFound(String),
    /// Another refusal, in words.
    #[error("{0}")]
    Refused(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What the commands run against: the store, its profile and a snapshot of it.
pub struct Registry<'a> {
    /// The store.
    pub store: &'a dyn Store,
    /// The registry's profile.
    pub profile: &'a Profile,
    /// The registry as read before the command.
    pub snap: Snapshot,
}

/// Runs one case command as `by` (who, from which door, today), counting deadlines in
/// its answer to `now`.
pub async fn run(
    mut reg: Registry<'_>,
    by: &Recorder,
    now: NaiveDateTime,
    cmd: CaseCommand,
) -> Result<CaseAnswer, CaseError> {
    let answer_case = |reg: &Registry<'_>, c: Case, as_of| {
        CaseAnswer::Case(Box::new(CaseView::new(c, &reg.profile.idde, as_of)))
    };
    Ok(match cmd {
        CaseCommand::Open(req) => {
            let case = open_one(&reg, by, &req).await?;
            answer_case(&reg, case, now)
        }
        CaseCommand::FromConnections { on } => {
            let (cases, _) = all_cases(&reg.snap);
            let wanted = from_connections(&Ask::new(&reg.snap, reg.profile), &cases, on)
                .map_err(CaseError::Refused)?;
            let mut opened = Vec::new();
            for req in wanted {
                opened.push(open_one(&reg, by, &req).await?.case_id);
                // The next case's candidates and id see this one.
                reg.snap = Snapshot::load(reg.store).await?;
            }
            CaseAnswer::Opened(opened)
        }
        CaseCommand::Action { id, action } => {
            check_connection(&reg.snap, &action).map_err(CaseError::Invalid)?;
            // Appended to the log as stored, while the write holds the case's row.
            let u = log_action(&id, action, by)
                .run(reg.store)
                .await
                .map_err(|e| update_error(&id, e))?;
            answer_case(&reg, u.case, now)
        }
        CaseCommand::Respondent { id, respondent } => {
            // Set on the case as stored, audited with before and after.
            let u = set_case_respondent(&id, respondent, by)
                .run(reg.store)
                .await
                .map_err(|e| update_error(&id, e))?;
            answer_case(&reg, u.case, now)
        }
        CaseCommand::Close { id, closing } => {
            // The case as stored closed, with its connection's new status, in one
            // transaction.
            let u = close_case(&id, closing, by, None)
                .run(reg.store)
                .await
                .map_err(|e| update_error(&id, e))?;
            answer_case(&reg, u.case, now)
        }
        CaseCommand::List { status } => {
            let (cases, unreadable) = all_cases(&reg.snap);
            let cases = cases
                .into_iter()
                .filter(|c| status.is_none_or(|st| c.status == st))
                .collect();
            CaseAnswer::List { cases, unreadable }
        }
        CaseCommand::Show { id, as_of } => {
            let case = find(&reg.snap, &id)?;
            answer_case(&reg, case, as_of)
        }
        CaseCommand::Notice { id, as_of, facts } => {
            let case = find(&reg.snap, &id)?;
            let n = super::notice::for_case(&reg.snap, reg.profile, &case, &facts, as_of)
                .map_err(notice_error)?;
            CaseAnswer::Notice {
                html: n.html,
                open_facts: n.open_facts,
            }
        }
        CaseCommand::LdNotice(facts) => {
            let case = match &facts.case_id {
                Some(id) => Some(find(&reg.snap, id)?),
                None => None,
            };
            let n = super::ld_notice::render(&reg.snap, reg.profile, &facts, case.as_ref())
                .map_err(|e| CaseError::Refused(e.to_string()))?;
            CaseAnswer::Notice {
                html: n.html,
                open_facts: n.open_facts,
            }
        }
    })
}

/// Opens a case: checked and made from the snapshot, stored with its id allocated inside
/// the write's transaction (another process may open a case at the same time).
pub async fn open_one(
    reg: &Registry<'_>,
    by: &Recorder,
    req: &OpenCase,
) -> Result<Case, CaseError> {
    let ask = Ask::new(&reg.snap, reg.profile);
    let id = next_case_id(&reg.snap, req.opened_on.year());
    let case = open_case(&ask, req, id, &by.name, by.today).map_err(CaseError::Invalid)?;
    Ok(store_new_case(reg.store, case, &by.name, &by.source, &by.what).await?)
}

/// A case as the snapshot holds it.
fn find(snap: &Snapshot, id: &str) -> Result<Case, CaseError> {
    let f = snap
        .layer(Layer::Cases)
        .get(id)
        .ok_or_else(|| CaseError::NotFound(format!("case {id:?}: no such case")))?;
    Case::from_feature(f).map_err(CaseError::NotFound)
}

/// A notice's refusal: a bad fact names its field; a notice the law lacks is refused.
fn notice_error(e: NoticeError) -> CaseError {
    match e {
        NoticeError::Bad(field, message) => CaseError::Invalid(FieldError { field, message }),
        e @ NoticeError::NoSuchNotice(_) => CaseError::Refused(e.to_string()),
    }
}

/// A case update's error in the words the case commands use.
fn update_error(id: &str, e: StoreError) -> CaseError {
    match e {
        StoreError::NotFound { .. } => CaseError::NotFound(format!("case {id:?}: no such case")),
        // The rule of the case, judged on its stored row, refused a field of the request.
        StoreError::Refused { field, message } => CaseError::Invalid(FieldError { field, message }),
        e => e.into(),
    }
}
