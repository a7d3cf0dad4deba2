//! Logging an action on a stored case and closing it: one command for the command line
//! and the server alike. Each is a read-modify-write of the case's stored row inside
//! one store transaction ([`crate::store::update`]): the rule of [`super::case`] is
//! applied to the case as stored once the transaction holds its row, so an action
//! `ms4 case action` logs a moment before a server's `POST /api/cases/{id}/actions` is
//! in the log the server appends to, never overwritten from a snapshot read earlier.
//! Closing writes the case and, for an elimination, its connection's new status (made
//! from the connection's stored row) in the same transaction.

use chrono::NaiveDate;

use super::case::{close, connection_removed, new_action};
use super::respondent::{set_respondent, RespondentRequest};
use super::{Action, Case, Closing, FieldError};
use crate::domain::{Feature, Layer};
use crate::rules::profile::IddeSettings;
use crate::spatial::{Snapshot, SnapshotHandle};
use crate::store::update::{check_version, version, Apply, Edit, Other, Written};
use crate::store::{Store, StoreError, WriteMode, WriteRequest};

/// Who records a change to a case, from where, under which law.
#[derive(Debug, Clone)]
pub struct Recorder {
    /// The token's subject or the user at the command line: the audit's actor and each
    /// action's `recorded_by`.
    pub name: String,
    /// `api` or `cli`, as the audit log records it.
    pub source: String,
    /// The request or command (`POST /api/cases/{id}/actions`), kept with the write.
    pub what: String,
    /// The town's law of enforcement (the profile's `[idde]`): its offices, the acts it
    /// gives them, the actions it bars against some respondents.
    pub law: IddeSettings,
    /// Today, for the rules that refuse a day in the future.
    pub today: NaiveDate,
}

/// A change to a stored case, made from its row as stored when it runs.
pub struct CaseUpdate {
    req: WriteRequest,
    report: serde_json::Value,
    id: String,
    apply: Apply,
}

/// A case as a change to it wrote it, with its new version (see [`case_version`]).
#[derive(Debug, Clone)]
pub struct Updated {
    /// The case as stored now.
    pub case: Case,
    /// Its version.
    pub version: String,
}

/// The version of a case's stored row (its `ETag`): it changes with every change to
/// the case, whoever makes it.
pub fn case_version(f: &Feature) -> String {
    version(f)
}

impl CaseUpdate {
    /// Runs the change on the store (the command line).
    pub async fn run(self, store: &dyn Store) -> crate::store::Result<Updated> {
        let written = store
            .update_feature(self.req, self.report, self.id, self.apply)
            .await?;
        updated(&written)
    }

    /// Runs the change on the store and brings the server's snapshot up to what was
    /// written.
    pub async fn run_through(
        self,
        store: &dyn Store,
        snapshot: &SnapshotHandle,
    ) -> crate::store::Result<Updated> {
        let written = snapshot
            .update(store, self.req, self.report, self.id, self.apply)
            .await?;
        updated(&written)
    }
}

fn updated(written: &[Written]) -> crate::store::Result<Updated> {
    let f = written
        .iter()
        .find(|w| w.layer == Layer::Cases)
        .and_then(|w| w.features.first())
        .ok_or_else(|| StoreError::Aborted("the update wrote no case".into()))?;
    Ok(Updated {
        case: read(f)?,
        version: case_version(f),
    })
}

fn read(f: &Feature) -> crate::store::Result<Case> {
    Case::from_feature(f).map_err(|reason| {
        StoreError::Unreadable(crate::store::UnreadableRow {
            layer: Layer::Cases,
            id: Some(f.id.clone()),
            reason,
        })
    })
}

fn refused(e: FieldError) -> StoreError {
    StoreError::Refused {
        field: e.field,
        message: e.message,
    }
}

fn request(id: &str, by: &Recorder) -> (WriteRequest, serde_json::Value, String) {
    let req = WriteRequest {
        layer: Layer::Cases,
        mode: WriteMode::Upsert,
        actor: by.name.clone(),
        source: by.source.clone(),
    };
    (
        req,
        serde_json::json!({ "source": by.what }),
        id.to_string(),
    )
}

/// Refuses an action naming a connection the registry does not hold. Checked against
/// the snapshot: the action only names the connection, it writes nothing of it.
pub fn check_connection(snap: &Snapshot, a: &Action) -> Result<(), FieldError> {
    match &a.connection_id {
        Some(c) if snap.layer(Layer::Connections).get(c).is_none() => Err(FieldError {
            field: "connection_id".into(),
            message: format!("no connection has id {c:?}"),
        }),
        _ => Ok(()),
    }
}

/// Appends an action to the case's log as stored ([`new_action`] checks it against
/// that case). An action needs no version: it appends, whatever came before.
pub fn log_action(id: &str, action: Action, by: &Recorder) -> CaseUpdate {
    let (req, report, id) = request(id, by);
    let by = by.clone();
    let apply: Apply = Box::new(move |stored| {
        let mut case = read(&stored)?;
        let a = new_action(&case, action, &by.law, &by.name, by.today).map_err(refused)?;
        case.actions.push(a);
        Ok(Edit {
            feature: case.to_feature(),
            others: Vec::new(),
        })
    });
    CaseUpdate {
        req,
        report,
        id,
        apply,
    }
}

/// Closes the case as stored ([`close`]); for an elimination its connection's stored
/// row is marked removed in the same transaction. With `if_version`, a case whose
/// stored row is none of those versions is refused ([`StoreError::Changed`]): the closing was
/// decided on a case that has changed since.
pub fn close_case(
    id: &str,
    closing: Closing,
    by: &Recorder,
    if_version: Option<Vec<String>>,
) -> CaseUpdate {
    let (req, report, id) = request(id, by);
    let by = by.clone();
    let apply: Apply = Box::new(move |stored| {
        check_version(Layer::Cases, &stored, if_version.as_deref())?;
        let case = read(&stored)?;
        let (closed, connection) =
            close(&case, &closing, &by.law, &by.name, by.today).map_err(refused)?;
        let on = closing.on;
        let others = connection
            .map(|cid| Other {
                layer: Layer::Connections,
                id: cid.clone(),
                apply: Box::new(move |stored| {
                    connection_removed(&cid, stored, on).map_err(refused)
                }),
            })
            .into_iter()
            .collect();
        Ok(Edit {
            feature: closed.to_feature(),
            others,
        })
    });
    CaseUpdate {
        req,
        report,
        id,
        apply,
    }
}

/// Sets (or corrects) the respondent of the case as stored ([`set_respondent`]): an
/// open case only, audited with before and after like every change to a case.
pub fn set_case_respondent(id: &str, req: RespondentRequest, by: &Recorder) -> CaseUpdate {
    let (req_w, report, id) = request(id, by);
    let apply: Apply = Box::new(move |stored| {
        let case = read(&stored)?;
        let next = set_respondent(&case, &req).map_err(refused)?;
        Ok(Edit {
            feature: next.to_feature(),
            others: Vec::new(),
        })
    });
    CaseUpdate {
        req: req_w,
        report,
        id,
        apply,
    }
}
