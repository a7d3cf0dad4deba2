//! Writes whose ids are chosen inside their own transaction (a new case's
//! `CASE-2026-0007`): the store takes its write lock first, then the ids the layer holds
//! are read and the features made from them, then written, then committed. Two processes
//! allocating at once (a running server and `ms4 case open`, or two commands) take the
//! lock in turn, so the second sees the first's row and cannot take its id.
//!
//! The same lock makes a write that must not replace a row (a deliverable recorded once
//! per occurrence) safe: `make` sees the id stored and refuses ([`StoreError::Exists`])
//! before anything, the import's own row included, is written.

use tokio::sync::mpsc;

use super::write::WriteTx;
#[cfg(doc)]
use super::StoreError;
use super::{Result, WriteMsg, WriteRequest, WriteSummary};
use crate::domain::Feature;

/// Makes the features to write from the ids the layer holds under the write lock, or
/// refuses; a refusal rolls the transaction back with nothing written.
pub type Allocate = Box<dyn FnOnce(&[String]) -> Result<Vec<Feature>> + Send>;

/// Runs an allocating write on an open transaction that holds the layer's write lock.
pub(crate) async fn run(
    mut tx: Box<dyn WriteTx>,
    req: WriteRequest,
    report: serde_json::Value,
    make: Allocate,
) -> Result<(WriteSummary, Vec<Feature>)> {
    // The layer's ids (read with their content hashes, which are not needed here).
    let stored = tx.hashes(req.layer).await?;
    let ids: Vec<String> = stored.ids().map(str::to_string).collect();
    let features = make(&ids)?;
    // Room for both messages, so they are queued before the engine reads them.
    let (send, rx) = mpsc::channel(2);
    let queued = send.try_send(WriteMsg::Features(features.clone())).is_ok()
        && send.try_send(WriteMsg::Commit { report }).is_ok();
    debug_assert!(queued, "a channel of two takes two messages");
    drop(send);
    let summary = super::write::run(tx, req, rx).await?;
    Ok((summary, features))
}
