//! The registry's import settings: kept in the registry itself (so every command and a
//! running server apply the same ones), changed with `ms4 profile set`, audited.

use crate::store::Store;

use super::error::{ImportError, Result};

/// The key of the share of a layer one `--replace` may delete without
/// `--allow-mass-delete`.
pub const MAX_DELETE_SHARE: &str = "max_delete_share";

/// The share of a layer one `--replace` may delete without `--allow-mass-delete`: the
/// registry's setting, else [`super::DEFAULT_MAX_DELETE_SHARE`].
pub async fn max_delete_share(store: &dyn Store) -> Result<f64> {
    match store.setting(MAX_DELETE_SHARE).await? {
        None => Ok(super::DEFAULT_MAX_DELETE_SHARE),
        Some(v) => parse_share(&v).map_err(|why| {
            ImportError::Refused(format!(
                "the registry's {MAX_DELETE_SHARE} setting {v:?} is unreadable ({why}); set it again with ms4 profile set {MAX_DELETE_SHARE} 0.5"
            ))
        }),
    }
}

/// Reads a share as a fraction (`0.25`) or a percentage (`25%`), from 0 to 1.
pub fn parse_share(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let (num, scale) = match t.strip_suffix('%') {
        Some(n) => (n.trim(), 100.0),
        None => (t, 1.0),
    };
    num.parse::<f64>()
        .ok()
        .map(|n| n / scale)
        .filter(|n| n.is_finite() && (0.0..=1.0).contains(n))
        .ok_or_else(|| {
            format!(
                "{text:?} is not a share: give a fraction from 0 to 1 (0.25) or a percentage (25%)"
            )
        })
}

/// Stores the share of a layer one `--replace` may delete, checked and audited; returns
/// the share stored.
pub async fn set_max_delete_share(store: &dyn Store, text: &str, actor: &str) -> Result<f64> {
    let share = parse_share(text).map_err(ImportError::Refused)?;
    store
        .set_setting(MAX_DELETE_SHARE, &share.to_string(), actor)
        .await?;
    Ok(share)
}

#[cfg(test)]
mod tests {
    use super::parse_share;

    #[test]
    fn a_share_is_a_fraction_or_a_percentage_from_zero_to_one() {
        assert_eq!(parse_share("0.25"), Ok(0.25));
        assert_eq!(parse_share(" 30% "), Ok(0.3));
        assert_eq!(parse_share("1"), Ok(1.0));
        for bad in ["1.5", "-0.1", "150%", "half", "", "NaN"] {
            let e = parse_share(bad).unwrap_err();
            assert!(e.contains("not a share"), "{bad}: {e}");
        }
    }
}
