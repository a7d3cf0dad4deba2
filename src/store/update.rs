//! Read-modify-writes of one stored feature (an action logged on a case, a case closed):
//! inside one transaction the row is locked and read as stored, a rule makes the new
//! feature from it, and the write engine writes that with its audit rows, content hash
//! and change number, as any upsert. Two processes updating the same row at once (a
//! server and `ms4 case action`, or two servers) take it in turn, so the second's rule
//! sees the first's result: neither is lost. A rule that refuses rolls the whole
//! transaction back.
//!
//! The rule may name further rows to change in the same transaction (the connection a
//! case closed as eliminated removes), each locked and read as stored in its turn.

use tokio::sync::mpsc;

use super::write::WriteTx;
use super::{Result, StoreError, WriteMode, WriteMsg, WriteRequest, WriteSummary};
use crate::domain::{Feature, Layer};

/// Makes the new feature from the row as stored, or refuses with
/// [`StoreError::Refused`] (a field of the request at fault) or [`StoreError::Changed`]
/// (the row is not the version the request was made from).
pub type Apply = Box<dyn FnOnce(Feature) -> Result<Edit> + Send>;

/// Makes a further row's new feature from the row as stored (`None`: there is none).
pub type ApplyOther = Box<dyn FnOnce(Option<Feature>) -> Result<Feature> + Send>;

/// What a rule makes of the row it was given.
pub struct Edit {
    /// The row's new feature (same layer, same id).
    pub feature: Feature,
    /// Further rows to change in the same transaction, in this order; each of another
    /// layer or id than the row and than each other.
    pub others: Vec<Other>,
}

/// A further row an update changes.
pub struct Other {
    /// Its layer.
    pub layer: Layer,
    /// Its id.
    pub id: String,
    /// Its rule.
    pub apply: ApplyOther,
}

/// What an update wrote to one layer.
#[derive(Debug, Clone)]
pub struct Written {
    /// The layer.
    pub layer: Layer,
    /// The write's summary, with the layer's change number around it.
    pub summary: WriteSummary,
    /// The features written, as written.
    pub features: Vec<Feature>,
}

/// The version of a stored feature a client sees (an HTTP `ETag`): its content hash
/// (`store::hash`, the `ms4_hash` both stores keep), so any change to what the row
/// holds, by ms4 or by another program, gives another version.
pub fn version(f: &Feature) -> String {
    format!("{:016x}", super::hash::content_hash(f) as u64)
}

/// Refuses, as [`StoreError::Changed`], a row that is none of the versions `expected`
/// (none expected: any version).
pub fn check_version(layer: Layer, stored: &Feature, expected: Option<&[String]>) -> Result<()> {
    let Some(expected) = expected else {
        return Ok(());
    };
    let now = version(stored);
    if expected.contains(&now) {
        return Ok(());
    }
    Err(StoreError::Changed {
        layer,
        id: stored.id.clone(),
        expected: expected.join(", "),
        stored: now,
    })
}

/// Runs an update on an open transaction marked as ms4's: `req.layer` is the row's
/// layer; the further rows are written under the same actor and source.
pub(crate) async fn run(
    mut tx: Box<dyn WriteTx>,
    req: WriteRequest,
    report: serde_json::Value,
    id: String,
    apply: Apply,
) -> Result<Vec<Written>> {
    let stored = read_locked(tx.as_mut(), req.layer, &id)
        .await?
        .ok_or_else(|| StoreError::NotFound {
            layer: req.layer,
            id: id.clone(),
        })?;
    let edit = apply(stored)?;
    let mut writes: Vec<(Layer, Vec<Feature>)> = vec![(req.layer, vec![edit.feature])];
    for other in edit.others {
        let stored = read_locked(tx.as_mut(), other.layer, &other.id).await?;
        let f = (other.apply)(stored)?;
        match writes.iter_mut().find(|(l, _)| *l == other.layer) {
            Some((_, features)) => features.push(f),
            None => writes.push((other.layer, vec![f])),
        }
    }
    let mut streams = Vec::with_capacity(writes.len());
    for (layer, features) in &writes {
        // Room for both messages, so they are queued before the engine reads them.
        let (send, rx) = mpsc::channel(2);
        let queued = send.try_send(WriteMsg::Features(features.clone())).is_ok()
            && send
                .try_send(WriteMsg::Commit {
                    report: report.clone(),
                })
                .is_ok();
        debug_assert!(queued, "a channel of two takes two messages");
        let layer_req = WriteRequest {
            layer: *layer,
            mode: WriteMode::Upsert,
            actor: req.actor.clone(),
            source: req.source.clone(),
        };
        streams.push((layer_req, rx));
    }
    let summaries = super::write::run_many(tx, streams).await?;
    Ok(writes
        .into_iter()
        .zip(summaries)
        .map(|((layer, features), summary)| Written {
            layer,
            summary,
            features,
        })
        .collect())
}

/// The row with this id as stored, after locking it until the transaction ends; an
/// unreadable row is an error (an update cannot be made from it).
async fn read_locked(tx: &mut dyn WriteTx, layer: Layer, id: &str) -> Result<Option<Feature>> {
    let ids = [id.to_string()];
    tx.lock(layer, &ids).await?;
    let rows = tx.existing(layer, &ids).await?;
    if let Some(u) = rows.unreadable.into_iter().next() {
        return Err(StoreError::Unreadable(u));
    }
    Ok(rows.features.into_iter().next())
}
