//! A write's audit rows in PostGIS: a few as plain statements, many gathered and copied
//! at the end, and a load into an empty layer's new features as one row of ids.

use super::{PgTx, FEW};
use crate::store::postgis::copy::copy_text;
use crate::store::write::AuditRow;
use crate::store::{Result, WriteRequest};

impl PgTx {
    /// Records a write's audit rows (see [`crate::store::write::WriteTx::audit`]).
    pub(super) async fn record_audit(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        at: &str,
        rows: Vec<AuditRow>,
    ) -> Result<()> {
        if rows.is_empty() {
            return Ok(());
        }
        let bulk_load = self.keys_dropped.as_ref().is_some_and(|k| !k.is_empty());
        if bulk_load
            && rows
                .iter()
                .all(|r| r.action == "insert" && r.feature_id.is_some() && r.after.is_none())
        {
            // A load into an empty layer: its new features are recorded in one `insert`
            // row listing their ids (`feature_ids`), written at the end. A row per
            // feature, with its key and index entries, cost a million-parcel load 2.6 s
            // of the server's time, more than the rest of its work beyond `ogr2ogr`'s;
            // `ms4_audit_entries` and `Store::audit` still give one entry per feature.
            self.bulk_inserts
                .extend(rows.into_iter().filter_map(|r| r.feature_id));
            return Ok(());
        }
        if rows.len() <= FEW && self.audit_buf.is_empty() && self.bulk_inserts.is_empty() {
            // A few rows (an inspection's, the summary row): plain INSERTs, which go in
            // one message each and so wait for no Nagle timer, as a COPY's end would.
            // Not while rows are gathered: they are copied at the end, and audit ids
            // must keep the order the rows were written in (the summary row last).
            self.end_stream().await?;
            for r in rows {
                sqlx::query(
                    "INSERT INTO ms4_audit (at, actor, action, layer, feature_id, import_id, before, after) \
                     VALUES ($1::timestamptz, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb)",
                )
                .bind(at)
                .bind(&req.actor)
                .bind(r.action)
                .bind(req.layer.name())
                .bind(r.feature_id)
                .bind(import_id)
                .bind(r.before.map(|v| v.to_string()))
                .bind(r.after.map(|v| v.to_string()))
                .execute(&mut **self.tx())
                .await?;
            }
            return Ok(());
        }
        // Gathered and copied once at the end (see `PgTx`): a million-row load writes a
        // million audit rows.
        let mut prefix = String::new();
        copy_text(&mut prefix, at);
        prefix.push('\t');
        copy_text(&mut prefix, &req.actor);
        prefix.push('\t');
        let layer = req.layer.name();
        let import_id = import_id.to_string();
        let mut buf = String::with_capacity(rows.len() * 64);
        for r in rows {
            buf.push_str(&prefix);
            buf.push_str(r.action);
            buf.push('\t');
            buf.push_str(layer);
            buf.push('\t');
            match &r.feature_id {
                Some(id) => copy_text(&mut buf, id),
                None => buf.push_str("\\N"),
            }
            buf.push('\t');
            buf.push_str(&import_id);
            for j in [&r.before, &r.after] {
                buf.push('\t');
                match j {
                    Some(v) => copy_text(&mut buf, &v.to_string()),
                    None => buf.push_str("\\N"),
                }
            }
            buf.push('\n');
        }
        self.audit_buf.push_str(&buf);
        Ok(())
    }

    /// Writes what [`PgTx::record_audit`] gathered: a bulk load's one `insert` row, then
    /// the rows copied at the end, in the order they were recorded.
    pub(super) async fn write_gathered_audit(
        &mut self,
        req: &WriteRequest,
        import_id: i64,
        at: &str,
    ) -> Result<()> {
        if !self.bulk_inserts.is_empty() {
            // Before the rows gathered after it (the write's summary row, last).
            let ids = std::mem::take(&mut self.bulk_inserts);
            sqlx::query(
                "INSERT INTO ms4_audit (at, actor, action, layer, import_id, feature_ids) \
                 VALUES ($1::timestamptz, $2, 'insert', $3, $4, $5)",
            )
            .bind(at)
            .bind(&req.actor)
            .bind(req.layer.name())
            .bind(import_id)
            .bind(ids)
            .execute(&mut **self.tx())
            .await?;
        }
        if !self.audit_buf.is_empty() {
            let buf = std::mem::take(&mut self.audit_buf);
            let mut copy = self
                .tx()
                .copy_in_raw("COPY ms4_audit (at, actor, action, layer, feature_id, import_id, before, after) FROM STDIN")
                .await?;
            copy.send(buf.into_bytes()).await?;
            copy.finish().await?;
        }
        Ok(())
    }
}
