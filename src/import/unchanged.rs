//! Source features that have not changed since the import that made their stored rows,
//! recognised before they are converted, so re-importing a file costs reading it, not
//! reprojecting and validating it all again.
//!
//! Each row an import writes carries, beside its content hash (`store::hash`), a *source
//! hash*: SHA-256 (cut to 64 bits) of the feature as the file gave it — its values, bit
//! for bit, and its geometry's WKB before reprojection — and of the *recipe* that turned
//! it into the row: the layer, the field plan (which source field fills which canonical
//! field, the extras, how ids are made), the source and target CRS, the policy for
//! invalid geometry, the areas a feature must lie in and the boundary's own geometry, and
//! [`RECIPE_VERSION`]. Conversion is a function of exactly these, so a feature whose
//! source hash equals its stored row's would convert to that row again: it is counted
//! unchanged without being converted.
//!
//! Only rows whose conversion said nothing are given one: a feature whose values changed
//! representation, whose geometry was repaired or which lies outside the boundary is
//! converted every time, so the import report still counts and lists it. The outside-edit
//! triggers clear the source hash with the content hash, so a row another program
//! changed is always compared in full again; and the source hash is stored bound to the
//! content hash written with it (`store::hash::bind_source`), so a writer that changes a
//! row and its content hash without knowing of source hashes (an older ms4) cannot leave
//! a source hash that still matches.

use geo_types::MultiPolygon;
use sha2::{Digest, Sha256};

use super::collect::Bounds;
use super::convert::InvalidPolicy;
use super::source::FieldPlan;
use crate::domain::{Layer, Value};

/// Raised whenever the conversion of attributes or geometry changes what it makes of a
/// source feature, so rows converted by an older ms4 are converted again.
pub(super) const RECIPE_VERSION: u32 = 1;

/// How an import converts features, as the start of every source hash.
#[derive(Clone)]
pub(super) struct Recipe {
    state: Sha256,
}

/// What goes into a [`Recipe`].
pub(super) struct RecipeParts<'a> {
    pub layer: Layer,
    pub source_fields: &'a [String],
    pub plan: &'a FieldPlan,
    pub source_wkt: Option<&'a str>,
    pub target_srid: i32,
    pub invalid: InvalidPolicy,
    pub bounds: Bounds,
    pub boundary: &'a [MultiPolygon<f64>],
    /// A layer's own rules the conversion applies (the inspections' dry-weather rule),
    /// as text; empty for none.
    pub rules: String,
}

impl Recipe {
    /// The recipe of one import.
    pub fn new(p: &RecipeParts<'_>) -> Self {
        let mut h = Sha256::new();
        let mut text = |s: &str| {
            h.update((s.len() as u64).to_le_bytes());
            h.update(s.as_bytes());
        };
        text(&format!(
            "ms4 {} recipe {RECIPE_VERSION}",
            env!("CARGO_PKG_VERSION")
        ));
        text(p.layer.name());
        text(&format!("{:?}", p.source_fields));
        text(&format!("{:?}", p.plan));
        text(p.source_wkt.unwrap_or(""));
        text(&p.target_srid.to_string());
        text(&format!("{:?}", p.invalid));
        text(&format!("{:?}", p.bounds));
        // Only where there are rules, so other layers' stored hashes still match.
        if !p.rules.is_empty() {
            text(&p.rules);
        }
        for b in p.boundary {
            let wkb = crate::domain::wkb::to_wkb(&geo_types::Geometry::MultiPolygon(b.clone()));
            h.update((wkb.len() as u64).to_le_bytes());
            h.update(&wkb);
        }
        Recipe { state: h }
    }

    /// The source hash of one feature as read: its values (the made id among them) and
    /// its geometry's WKB, or the reason GDAL could not give one.
    pub fn source_hash(
        &self,
        values: &[Value],
        wkb: &std::result::Result<Option<Vec<u8>>, String>,
    ) -> i64 {
        let mut h = self.state.clone();
        h.update((values.len() as u64).to_le_bytes());
        for v in values {
            crate::store::hash::value_with(&mut h, v, exact_real);
        }
        match wkb {
            Ok(None) => h.update([0]),
            Ok(Some(b)) => {
                h.update([1]);
                h.update((b.len() as u64).to_le_bytes());
                h.update(b);
            }
            Err(e) => {
                h.update([2]);
                h.update(e.as_bytes());
            }
        }
        let d = h.finalize();
        i64::from_le_bytes(d[..8].try_into().expect("a SHA-256 has 32 bytes"))
    }
}

/// A number as read, bit for bit: unlike the content hash, no rounding, since the
/// conversion sees every bit.
fn exact_real(h: &mut Sha256, x: f64) {
    h.update([3]);
    h.update(x.to_bits().to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts<'a>(plan: &'a FieldPlan, fields: &'a [String]) -> RecipeParts<'a> {
        RecipeParts {
            layer: Layer::Parcels,
            source_fields: fields,
            plan,
            source_wkt: Some("PROJCS[\"x\"]"),
            target_srid: 2260,
            invalid: InvalidPolicy::Repair,
            bounds: Bounds::default(),
            boundary: &[],
            rules: String::new(),
        }
    }

    #[test]
    fn a_source_hash_changes_with_any_bit_of_the_feature_or_the_recipe() {
        let plan = FieldPlan::empty(Layer::Parcels);
        let fields = vec!["PIN".to_string()];
        let base = Recipe::new(&parts(&plan, &fields));
        let values = vec![Value::Text("P1".into()), Value::Real(0.1)];
        let wkb = Ok(Some(vec![1, 2, 3]));
        let h = base.source_hash(&values, &wkb);
        assert_eq!(
            h,
            base.source_hash(&values, &wkb),
            "the same feature, the same hash"
        );
        let nudged = vec![
            Value::Text("P1".into()),
            Value::Real(0.1 + 1e-17 + f64::EPSILON),
        ];
        assert_ne!(h, base.source_hash(&nudged, &wkb), "one bit of a number");
        assert_ne!(h, base.source_hash(&values, &Ok(Some(vec![1, 2, 4]))));
        assert_ne!(h, base.source_hash(&values, &Ok(None)));
        let other_crs = Recipe::new(&RecipeParts {
            source_wkt: Some("PROJCS[\"y\"]"),
            ..parts(&plan, &fields)
        });
        assert_ne!(
            h,
            other_crs.source_hash(&values, &wkb),
            "another source CRS"
        );
        let reject = Recipe::new(&RecipeParts {
            invalid: InvalidPolicy::Reject,
            ..parts(&plan, &fields)
        });
        assert_ne!(
            h,
            reject.source_hash(&values, &wkb),
            "another repair policy"
        );
        let square = geo::wkt!(MULTIPOLYGON(((0. 0.,1. 0.,1. 1.,0. 0.))));
        let bounded = Recipe::new(&RecipeParts {
            boundary: std::slice::from_ref(&square),
            ..parts(&plan, &fields)
        });
        assert_ne!(h, bounded.source_hash(&values, &wkb), "another boundary");
        let ruled = Recipe::new(&RecipeParts {
            rules: "dry_weather_hours 72".into(),
            ..parts(&plan, &fields)
        });
        assert_ne!(h, ruled.source_hash(&values, &wkb), "another layer rule");
        let mut mapped = plan.clone();
        mapped.id = Some(0);
        assert_ne!(
            h,
            Recipe::new(&parts(&mapped, &fields)).source_hash(&values, &wkb),
            "another field map"
        );
    }
}
