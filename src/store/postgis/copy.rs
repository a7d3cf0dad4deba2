//! COPY text format: encoding rows, and a COPY that streams a whole write.

use sqlx::{Postgres, Transaction};
use tokio::sync::mpsc;

use crate::domain::{wkb, Feature, FieldType, GeomKind, Layer, Value};
use crate::store::{Result, StoreError};

/// Appends a value to a COPY text-format line, escaped.
pub(super) fn copy_text(out: &mut String, s: &str) {
    // Most values need no escaping: copy them whole.
    if !s
        .bytes()
        .any(|b| matches!(b, b'\\' | b'\t' | b'\n' | b'\r'))
    {
        out.push_str(s);
        return;
    }
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

fn copy_value(out: &mut String, v: &Value) {
    use std::fmt::Write;
    match v {
        Value::Null => out.push_str("\\N"),
        Value::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        Value::Int(i) => {
            let _ = write!(out, "{i}");
        }
        // `{:?}` prints the shortest text that reads back as the same f64.
        Value::Real(r) => {
            let _ = write!(out, "{r:?}");
        }
        Value::Date(d) => {
            let _ = write!(out, "{}", d.format("%Y-%m-%d"));
        }
        Value::Text(s) => copy_text(out, s),
    }
}

fn hex(out: &mut String, bytes: &[u8]) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    let mut v = Vec::with_capacity(bytes.len() * 2);
    for b in bytes {
        v.push(HEX[(b >> 4) as usize]);
        v.push(HEX[(b & 15) as usize]);
    }
    // Hex digits are ASCII.
    out.push_str(std::str::from_utf8(&v).expect("hex digits are ASCII"));
}

/// The SQL type a value sent as text is cast to, by its field's type.
pub(super) fn cast(ty: FieldType) -> &'static str {
    match ty {
        FieldType::Text => "text",
        FieldType::Integer => "bigint",
        FieldType::Real | FieldType::Length(_) | FieldType::Elevation => "double precision",
        FieldType::Bool => "boolean",
        FieldType::Date => "date",
    }
}

/// A chunk of features as COPY text-format rows, each with its source hash
/// (`sources[i]` for `features[i]`; none when `sources` is shorter).
pub(super) fn encode_copy(
    layer: Layer,
    features: &[Feature],
    sources: &[Option<i64>],
    srid: i32,
    import_id: i64,
) -> String {
    use std::fmt::Write;
    let mut buf = String::with_capacity(features.len() * 256);
    let spatial = layer.geom_kind() != GeomKind::None;
    let import_id = import_id.to_string();
    for (i, f) in features.iter().enumerate() {
        if spatial {
            match &f.geom {
                Some(g) => hex(&mut buf, &wkb::to_ewkb(g, srid)),
                None => buf.push_str("\\N"),
            }
            buf.push('\t');
        }
        copy_text(&mut buf, &f.id);
        for v in &f.values {
            buf.push('\t');
            copy_value(&mut buf, v);
        }
        buf.push('\t');
        if f.extra.is_empty() {
            buf.push_str("\\N");
        } else {
            copy_text(
                &mut buf,
                &serde_json::Value::Object(f.extra.clone()).to_string(),
            );
        }
        buf.push('\t');
        buf.push_str(&import_id);
        buf.push('\t');
        let h = crate::store::hash::content_hash(f);
        let _ = write!(buf, "{h}");
        buf.push('\t');
        match sources.get(i).copied().flatten() {
            Some(s) => {
                let _ = write!(buf, "{}", crate::store::hash::bind_source(s, h));
            }
            None => buf.push_str("\\N"),
        }
        buf.push('\n');
    }
    buf
}

pub(super) type Tx = Transaction<'static, Postgres>;

/// A COPY running on its own task, which owns the transaction until the COPY ends.
pub(super) struct CopyStream {
    pub(super) chunks: mpsc::Sender<tokio::task::JoinHandle<String>>,
    pub(super) task: tokio::task::JoinHandle<(Tx, Result<()>)>,
}

impl CopyStream {
    pub(super) fn start(mut tx: Tx, layer: Layer) -> Self {
        let (chunks, mut rx) = mpsc::channel::<tokio::task::JoinHandle<String>>(8);
        let task = tokio::spawn(async move {
            let result = async {
                let stmt = format!(
                    "COPY {} ({}) FROM STDIN",
                    layer.name(),
                    crate::store::row::write_columns(layer).join(",")
                );
                let mut copy = tx.copy_in_raw(&stmt).await?;
                while let Some(encoded) = rx.recv().await {
                    match encoded.await {
                        Ok(buf) => {
                            copy.send(buf.into_bytes()).await?;
                        }
                        Err(e) => {
                            let why = format!("encoding rows failed: {e}");
                            copy.abort(why.clone()).await?;
                            return Err(StoreError::Aborted(why));
                        }
                    }
                }
                copy.finish().await?;
                Ok(())
            }
            .await;
            (tx, result)
        });
        CopyStream { chunks, task }
    }
}
