//! A content hash per stored row, so re-importing a full layer compares one integer per
//! feature instead of reading and decoding every stored row.
//!
//! The hash is written with the row by ms4 (the `ms4_hash` column both stores keep) and
//! cleared by the outside-edit triggers when another program changes the row, so a stored
//! hash always describes the row's content. It is a shortcut, never the judge: equal
//! hashes mean the feature is unchanged; a differing or missing hash sends the write to
//! the stored row itself, compared by [`super::write::same_feature`] with its float
//! tolerance. That is why numbers are hashed rounded to thirteen significant digits: two
//! numbers that round alike differ by less than [`super::write::FLOAT_RELATIVE_TOLERANCE`]
//! of their size, so equal hashes never hide a change the full comparison would see,
//! while the common case (a value read back a unit of the last place away) still hashes
//! alike. Values that straddle a rounding boundary merely take the slow path, as does a
//! geometry an import read back at its file's precision (`store::near` judges it there).
//!
//! SHA-256 (truncated to 64 bits): its collisions are out of reach of any file, unlike a
//! quick hash's, and the machine's SHA instructions make it cheap next to the write.

use sha2::{Digest, Sha256};

use crate::domain::{wkb, Feature, Value};

/// The name of the column that holds the hash in every layer table.
pub(crate) const COLUMN: &str = "ms4_hash";

/// The name of the column that holds, beside the content hash, the hash of the source
/// feature an import made the row from and of how it converted it (see
/// `import::unchanged`). The outside-edit triggers clear it with the content hash.
pub(crate) const SOURCE_COLUMN: &str = "ms4_source";

/// A source hash as stored: bound to the content hash written with it (by exclusive or,
/// so the same call unbinds it). A writer that changes a row and its content hash but
/// knows nothing of source hashes (an older ms4) leaves a stored source hash that no
/// longer unbinds to any source's, so the row is compared in full, never skipped.
pub(crate) fn bind_source(source: i64, content: i64) -> i64 {
    source ^ content
}

/// The content hash of a feature as ms4 would store it (see the module docs).
pub(crate) fn content_hash(f: &Feature) -> i64 {
    let mut h = Sha256::new();
    h.update((f.values.len() as u64).to_le_bytes());
    for v in &f.values {
        value(&mut h, v);
    }
    object(&mut h, &f.extra);
    match &f.geom {
        None => h.update([0]),
        Some(g) => {
            let b = wkb::to_wkb(g);
            h.update([1]);
            h.update((b.len() as u64).to_le_bytes());
            h.update(&b);
        }
    }
    let d = h.finalize();
    i64::from_le_bytes(d[..8].try_into().expect("a SHA-256 has 32 bytes"))
}

fn text(h: &mut Sha256, s: &str) {
    h.update((s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

/// A float as its text rounded to thirteen significant digits; zero (either sign) as 0.
fn real(h: &mut Sha256, x: f64) {
    h.update([3]);
    if x == 0.0 {
        text(h, "0");
    } else {
        text(h, &format!("{x:.12e}"));
    }
}

fn value(h: &mut Sha256, v: &Value) {
    value_with(h, v, real);
}

/// A value, its number written by `real` (the content hash rounds it; the source hash of
/// `import::unchanged` takes every bit).
pub(crate) fn value_with(h: &mut Sha256, v: &Value, real: fn(&mut Sha256, f64)) {
    match v {
        Value::Null => h.update([0]),
        Value::Bool(b) => h.update([1, *b as u8]),
        Value::Int(i) => {
            h.update([2]);
            h.update(i.to_le_bytes());
        }
        Value::Real(x) => real(h, *x),
        Value::Text(s) => {
            h.update([4]);
            text(h, s);
        }
        Value::Date(d) => {
            h.update([5]);
            text(h, &d.format("%Y-%m-%d").to_string());
        }
    }
}

/// An object with its keys in order (a map's order is not its content).
fn object(h: &mut Sha256, m: &serde_json::Map<String, serde_json::Value>) {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    h.update([6]);
    h.update((keys.len() as u64).to_le_bytes());
    for k in keys {
        text(h, k);
        json(h, &m[k]);
    }
}

/// JSON as `same_json` compares it: whole numbers exactly, other numbers rounded.
fn json(h: &mut Sha256, v: &serde_json::Value) {
    use serde_json::Value as J;
    match v {
        J::Null => h.update([0]),
        J::Bool(b) => h.update([1, *b as u8]),
        J::Number(n) => {
            if let Some(i) = n.as_i64() {
                h.update([2]);
                h.update(i.to_le_bytes());
            } else if let Some(u) = n.as_u64() {
                h.update([7]);
                h.update(u.to_le_bytes());
            } else {
                real(h, n.as_f64().unwrap_or(f64::NAN));
            }
        }
        J::String(s) => {
            h.update([4]);
            text(h, s);
        }
        J::Array(a) => {
            h.update([8]);
            h.update((a.len() as u64).to_le_bytes());
            for x in a {
                json(h, x);
            }
        }
        J::Object(m) => object(h, m),
    }
}

pub(crate) use super::stored::StoredHashes;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::write::same_feature;

    fn feature(values: Vec<Value>, extra: &str) -> Feature {
        Feature {
            id: "p1".into(),
            values,
            extra: serde_json::from_str(extra).unwrap(),
            geom: Some(geo_types::Geometry::Point(geo_types::Point::new(1.5, 2.25))),
        }
    }

    #[test]
    fn equal_hashes_only_for_features_the_full_comparison_calls_the_same() {
        let a = feature(
            vec![Value::Real(20.092298898533), Value::Text("x".into())],
            r#"{"b": 1, "a": [0.1]}"#,
        );
        // A float parser a unit of the last place away, and the keys in another order.
        let b = feature(
            vec![Value::Real(20.092298898533002), Value::Text("x".into())],
            r#"{"a": [0.10000000000000002], "b": 1}"#,
        );
        assert!(same_feature(&a, &b));
        assert_eq!(content_hash(&a), content_hash(&b));
        for changed in [
            feature(
                vec![Value::Real(20.0922988986), Value::Text("x".into())],
                r#"{"b": 1, "a": [0.1]}"#,
            ),
            feature(
                vec![Value::Real(20.092298898533), Value::Text("y".into())],
                r#"{"b": 1, "a": [0.1]}"#,
            ),
            feature(
                vec![Value::Real(20.092298898533), Value::Text("x".into())],
                r#"{"b": 2, "a": [0.1]}"#,
            ),
            feature(
                vec![Value::Real(20.092298898533), Value::Null],
                r#"{"b": 1, "a": [0.1]}"#,
            ),
        ] {
            assert!(!same_feature(&a, &changed));
            assert_ne!(content_hash(&a), content_hash(&changed), "{changed:?}");
        }
        let mut moved = a.clone();
        moved.geom = Some(geo_types::Geometry::Point(geo_types::Point::new(1.5, 2.5)));
        assert_ne!(content_hash(&a), content_hash(&moved));
        let mut no_geom = a.clone();
        no_geom.geom = None;
        assert_ne!(content_hash(&a), content_hash(&no_geom));
    }

    #[test]
    fn stored_hashes_find_ids_in_any_order_and_name_what_was_not_carried() {
        let mut s = StoredHashes::default();
        for (id, h) in [
            ("p3", Some(3)),
            ("p1", None),
            ("p20", Some(20)),
            ("p2", Some(2)),
        ] {
            s.push(id, h, h.map(|h| bind_source(h * 10, h)));
        }
        let mut s = s.sorted();
        let rows = s.rows();
        assert_eq!(rows.source_of("p20"), Some(200));
        assert_eq!(rows.source_of("p1"), None, "stored without a source hash");
        assert_eq!(rows.source_of("p4"), None, "not stored");
        assert!(!s.take_same("p2", 21), "another source is not the same");
        assert!(s.take_same("p2", 20));
        assert!(!s.take_same("p2", 20), "carried once");
        assert_eq!(s.take("p2"), None);
        assert_eq!(s.ids().collect::<Vec<_>>(), ["p1", "p2", "p20", "p3"]);
        assert_eq!(s.take("p20"), Some((Some(20), Some(200))));
        assert_eq!(s.take("p20"), None, "carried once");
        assert_eq!(s.take("p1"), Some((None, None)), "stored without a hash");
        assert_eq!(s.take("p4"), None, "not stored");
        assert_eq!(s.left(), 1);
        assert_eq!(s.not_carried(), ["p3"]);
    }

    #[test]
    fn a_source_hash_holds_only_beside_the_content_hash_it_was_stored_with() {
        let mut s = StoredHashes::default();
        // As ms4 stores it, and as an older writer leaves it after changing the row and
        // its content hash but not the source hash.
        s.push("kept", Some(7), Some(bind_source(70, 7)));
        s.push("changed", Some(8), Some(bind_source(70, 7)));
        s.push("no content hash", None, Some(bind_source(70, 7)));
        let rows = s.sorted().rows();
        assert_eq!(rows.source_of("kept"), Some(70));
        assert_ne!(rows.source_of("changed"), Some(70));
        assert_eq!(rows.source_of("no content hash"), None);
    }

    #[test]
    fn numbers_rounding_alike_are_within_the_tolerance() {
        // Thirteen significant digits round alike only within 1e-12 of the value.
        for (x, y) in [
            (1.0, 1.0 + 4e-13),
            (9.999999999999, 9.9999999999991),
            (1e300, 1.0000000000004e300),
        ] {
            let hx = content_hash(&feature(vec![Value::Real(x)], "{}"));
            let hy = content_hash(&feature(vec![Value::Real(y)], "{}"));
            if hx == hy {
                assert!(crate::store::write::same_number(x, y), "{x} {y}");
            }
        }
        let z = content_hash(&feature(vec![Value::Real(0.0)], "{}"));
        assert_eq!(z, content_hash(&feature(vec![Value::Real(-0.0)], "{}")));
        assert_ne!(z, content_hash(&feature(vec![Value::Real(1e-300)], "{}")));
    }
}
