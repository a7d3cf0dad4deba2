//! The inspections layer's own rule at import: a dry-weather screening read from a file
//! is held to the registry profile's dry-weather rule by the function that records one
//! through the API ([`crate::idde::inspection::screening_rule`]), so the two doors
//! cannot drift. A row the rule refuses (a screening of anything but an outfall, a
//! `dry_weather` column the hours since rain contradict) is rejected in the quality
//! report, naming the feature and the field; the rest of the file is imported.
//!
//! The outfalls are the registry's as the import starts: a screening of an outfall that
//! the same batch imports is refused until the outfalls are in.

use rustc_hash::FxHashSet;

use super::error::{ImportError, Result};
use crate::domain::{Feature, Layer};
use crate::idde::FieldError;
use crate::store::Store;

/// What the rule needs: the profile's dry-weather hours and the outfalls' ids.
pub(super) struct InspectionRules {
    dry_weather_hours: f64,
    outfalls: FxHashSet<String>,
}

impl InspectionRules {
    /// The rule of the registry's profile, and its outfalls.
    pub(super) async fn load(store: &dyn Store) -> Result<Self> {
        let loaded = crate::answer::profile::load_stored(store, false)
            .await
            .map_err(|e| {
                ImportError::Refused(format!(
                    "inspections are held to the dry-weather rule of the registry's profile, \
                     which does not load: {e:#}"
                ))
            })?;
        let outfalls = store
            .features(Layer::Outfalls)
            .await?
            .into_iter()
            .map(|f| f.id)
            .collect();
        Ok(InspectionRules {
            dry_weather_hours: loaded.profile.idde.dry_weather_hours,
            outfalls,
        })
    }

    /// Applies the rule to one converted row (sets its `dry_weather`), or says why not.
    pub(super) fn apply(&self, f: &mut Feature) -> std::result::Result<(), FieldError> {
        crate::idde::inspection::screening_rule(f, self.dry_weather_hours, &|a| {
            self.outfalls.contains(a)
        })
    }

    /// What the rule adds to the import's recipe: a row converted under another
    /// dry-weather rule is converted again, not taken as unchanged.
    pub(super) fn recipe_text(&self) -> String {
        format!("dry_weather_hours {}", self.dry_weather_hours)
    }
}
