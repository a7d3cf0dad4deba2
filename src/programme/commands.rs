//! The calendar's record commands, each one typed request run against the registry by
//! [`run`]: what `ms4 calendar record` and `ms4 calendar records` do, and what `POST` and
//! `GET /api/calendar/records` do, from one definition. The command line and the handlers
//! only parse into a [`CalendarCommand`] and render the [`CalendarRecordAnswer`].
//!
//! An occurrence is recorded once: the check against the snapshot names the submission
//! stored, and the write looks again under the store's write lock (another process may
//! record the same occurrence at the same moment), refusing before anything is written.
//! A request sent again with its idempotency key is answered as stored and writes nothing;
//! another request under the same key is refused.

use chrono::NaiveDate;
use serde::Serialize;

use super::submission::{all_submissions, check, submission_id, Submission, SubmissionRequest};
use crate::domain::Layer;
use crate::idde::FieldError;
use crate::sites::commands::Registry;
use crate::sites::SiteRecorder;
use crate::store::{StoreError, WriteMode, WriteRequest};

const L: Layer = Layer::ProgrammeSubmissions;

/// One calendar record command.
#[derive(Debug)]
pub enum CalendarCommand {
    /// Record a submission; with a client's key, the same request sent again under it is
    /// stored once and another under it is refused.
    Record {
        /// The submission.
        request: SubmissionRequest,
        /// The client's key for this request.
        idempotency_key: Option<String>,
    },
    /// The submissions recorded, of an item (or every item), by the days they answer.
    List {
        /// Only this item's.
        item_id: Option<String>,
        /// Answering an occurrence due on or after this day.
        from: Option<NaiveDate>,
        /// Answering an occurrence due on or before this day.
        to: Option<NaiveDate>,
    },
}

/// A submission recorded, as `POST /api/calendar/records` and `ms4 calendar record
/// --format json` answer it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Recorded {
    /// The submission as stored.
    #[serde(flatten)]
    pub record: Submission,
    /// Days after the occurrence's day it was submitted, when it was late.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_by_days: Option<i64>,
    /// The request was stored before under its idempotency key: nothing was written.
    pub again: bool,
}

/// The submissions asked for, as `GET /api/calendar/records` answers them.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RecordList {
    /// How many.
    pub count: usize,
    /// By the day the occurrence fell due, then the item.
    pub records: Vec<Submission>,
}

/// What a calendar record command answers.
#[derive(Debug)]
pub enum CalendarRecordAnswer {
    /// A submission recorded (or found recorded under its key).
    Recorded(Recorded),
    /// Submissions asked for.
    Records(RecordList),
}

/// Why a calendar record command did nothing.
#[derive(Debug, thiserror::Error)]
pub enum SubmissionError {
    /// A field of the request is wrong.
    #[error("{0}")]
    Invalid(FieldError),
    /// The occurrence is recorded already: the message names the submission stored.
    #[error("{0}")]
    Conflict(String),
    /// The store failed.
    #[error(transparent)]
    Store(StoreError),
}

impl From<StoreError> for SubmissionError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Exists { message, .. } => SubmissionError::Conflict(message),
            e => SubmissionError::Store(e),
        }
    }
}

/// Runs one calendar record command as `by` (whose `today` bounds a submission's day).
pub async fn run(
    reg: Registry<'_>,
    by: &SiteRecorder,
    cmd: CalendarCommand,
) -> Result<CalendarRecordAnswer, SubmissionError> {
    match cmd {
        CalendarCommand::Record {
            request,
            idempotency_key,
        } => record(&reg, by, request, idempotency_key)
            .await
            .map(CalendarRecordAnswer::Recorded),
        CalendarCommand::List { item_id, from, to } => {
            let mut records: Vec<Submission> = all_submissions(reg.snap)
                .into_iter()
                .filter(|s| item_id.as_deref().is_none_or(|i| s.item_id == i))
                .filter(|s| from.is_none_or(|f| s.for_due_on >= f))
                .filter(|s| to.is_none_or(|t| s.for_due_on <= t))
                .collect();
            records.sort_by(|a, b| {
                (a.for_due_on, &a.item_id, &a.submission_id).cmp(&(
                    b.for_due_on,
                    &b.item_id,
                    &b.submission_id,
                ))
            });
            Ok(CalendarRecordAnswer::Records(RecordList {
                count: records.len(),
                records,
            }))
        }
    }
}

/// The request's digest, kept with the record its key stored.
fn digest(r: &SubmissionRequest) -> String {
    serde_json::to_string(r)
        .map(|t| crate::store::profile::sha256_hex(&t))
        .unwrap_or_default()
}

/// What a request stored under `key` before answers, when one was: the same request is
/// the stored record again; another is refused. `None`: the key is new.
fn stored_under_key(
    snap: &crate::spatial::Snapshot,
    key: &str,
    digest: &str,
) -> Option<Result<Recorded, SubmissionError>> {
    let f = snap
        .layer(L)
        .features
        .iter()
        .find(|f| f.extra.get("idempotency_key").and_then(|v| v.as_str()) == Some(key))?;
    if f.extra.get("request_sha256").and_then(|v| v.as_str()) != Some(digest) {
        return Some(Err(SubmissionError::Invalid(FieldError {
            field: "idempotency_key".into(),
            message: format!(
                "{key:?} was used for another submission ({}); nothing was written (send a new key for a new request)",
                f.id
            ),
        })));
    }
    let record = Submission::from_feature(f)?;
    Some(Ok(Recorded {
        late_by_days: record.late_by_days(),
        record,
        again: true,
    }))
}

/// The conflict of recording an occurrence stored already, naming the stored submission.
fn recorded_already(s: &Submission) -> SubmissionError {
    SubmissionError::Conflict(format!(
        "{} due {} is recorded already: submission {} ({}, on {}); nothing was written",
        s.item_id,
        s.for_due_on,
        s.submission_id,
        s.describe(),
        s.submitted_on
    ))
}

async fn record(
    reg: &Registry<'_>,
    by: &SiteRecorder,
    request: SubmissionRequest,
    key: Option<String>,
) -> Result<Recorded, SubmissionError> {
    let digest = digest(&request);
    // A request sent again is answered before it is judged again: it was valid when
    // stored, whatever day it is now.
    if let Some(k) = &key {
        if let Some(answer) = stored_under_key(reg.snap, k, &digest) {
            return answer;
        }
    }
    check(reg.profile, &request, by.today).map_err(SubmissionError::Invalid)?;
    let record = Submission::from_request(&request);
    let id = submission_id(&record.item_id, record.for_due_on);
    if let Some(stored) = all_submissions(reg.snap)
        .into_iter()
        .find(|s| s.submission_id == id)
    {
        return Err(recorded_already(&stored));
    }
    let mut feature = record.to_feature(Some(&by.what));
    if let Some(k) = &key {
        feature
            .extra
            .insert("idempotency_key".into(), k.clone().into());
        feature
            .extra
            .insert("request_sha256".into(), digest.clone().into());
    }
    let (item, due) = (record.item_id.clone(), record.for_due_on);
    let make: crate::store::allocate::Allocate = Box::new(move |ids: &[String]| {
        if ids.contains(&feature.id) {
            return Err(StoreError::Exists {
                layer: L,
                id: feature.id.clone(),
                message: format!(
                    "{item} due {due} is recorded already: submission {}; nothing was written",
                    feature.id
                ),
            });
        }
        Ok(vec![feature])
    });
    let req = WriteRequest {
        layer: L,
        mode: WriteMode::Upsert,
        actor: by.name.clone(),
        source: by.source.clone(),
    };
    match reg
        .store
        .write_allocating(req, serde_json::json!({ "source": by.what }), make)
        .await
    {
        Ok(_) => {}
        // Stored by another process a moment ago: that may be this very request sent
        // again under its key, which is answered as stored.
        Err(StoreError::Exists { message, .. }) => {
            if let Some(k) = &key {
                let snap = crate::spatial::Snapshot::load(reg.store).await?;
                if let Some(answer) = stored_under_key(&snap, k, &digest) {
                    return answer;
                }
            }
            return Err(SubmissionError::Conflict(message));
        }
        Err(e) => return Err(e.into()),
    }
    Ok(Recorded {
        late_by_days: record.late_by_days(),
        record,
        again: false,
    })
}
