//! The programme submissions layer's own rule at import: each row read from a file is
//! held to the permit calendar of the registry's profile, on today's day, by the function
//! `ms4 calendar record` and `POST /api/calendar/records` check a request with
//! ([`crate::programme::submission::check`]), so the doors cannot drift; and its id must
//! be its occurrence's (`annual_report:2026-04-01`, which the import makes when the file
//! has no id), so one occurrence is never recorded twice under two ids.
//!
//! An occurrence is recorded once, by whichever door: a row whose occurrence has a
//! submission recorded (by `ms4 calendar record`, the API or an earlier import) must be
//! that very submission ([`same_as_recorded`] says which fields make it), and then the
//! stored row is kept as it is; another is at fault, naming the fields that differ. The
//! row it is held to is read, locked, inside the write's own transaction, which writes
//! the file after it ([`crate::store::WriteMsg::Rows`]), so no record made meanwhile is
//! overwritten: an import of the same file again changes nothing.
//!
//! Nor does `--replace` remove one: a replace that would delete a recorded submission
//! the file leaves out refuses the file, naming the ones it would remove, and nothing is
//! written ([`replace_keeps_recorded`]); a file carrying each recorded submission (the
//! same) and new ones replaces as any layer's file does. The stored rows it would
//! remove are asked of the writer inside its transaction after the file's last row
//! ([`crate::store::WriteMsg::WouldDelete`]): exactly what the write would delete.
//!
//! A submission shows an occurrence of the permit done, so the layer is imported whole or
//! not at all: the first row at fault (by these rules, or refused as any layer's row is: a
//! missing field, a value that is no date, an id twice) refuses the file, naming the
//! feature and the field, and nothing is written (see [`super::ImportError::FeatureRefused`]).

use chrono::NaiveDate;

use super::error::{ImportError, Result};
use crate::domain::{Feature, Layer};
use crate::idde::FieldError;
use crate::programme::submission::{check, same_as_recorded, submission_id};
use crate::programme::SubmissionRequest;
use crate::rules::Profile;
use crate::store::{LayerRows, Store};

/// What the rule needs: the registry's profile and the day it judges on.
pub(super) struct SubmissionRules {
    profile: Profile,
    today: NaiveDate,
}

impl SubmissionRules {
    /// The rule of the registry's profile on today's (local) day, the day `ms4 calendar
    /// record` judges on.
    pub(super) async fn load(store: &dyn Store) -> Result<Self> {
        let loaded = crate::answer::profile::load_stored(store, false)
            .await
            .map_err(|e| {
                ImportError::Refused(format!(
                    "programme submissions are checked against the calendar of the \
                     registry's profile, which does not load: {e:#}"
                ))
            })?;
        Ok(SubmissionRules {
            profile: loaded.profile,
            today: chrono::Local::now().date_naive(),
        })
    }

    /// Checks one converted row as a request is checked, and its id, naming the field at
    /// fault.
    pub(super) fn check(&self, f: &Feature) -> std::result::Result<(), FieldError> {
        let request = SubmissionRequest::from_feature(f)?;
        check(&self.profile, &request, self.today)?;
        let id = submission_id(request.item_id.trim(), request.for_due_on);
        if f.id != id {
            return Err(FieldError {
                field: "submission_id".into(),
                message: format!(
                    "{:?} is not the id of the occurrence it answers: a submission's id is its \
                     item and due day, {id} (leave the column out and the import makes it)",
                    f.id
                ),
            });
        }
        Ok(())
    }

    /// What the rule adds to the import's recipe: a row stored before the rule, or under
    /// another calendar, is converted and checked again, not taken as unchanged.
    pub(super) fn recipe_text(&self) -> String {
        format!(
            "programme submissions checked against {:?} from {}",
            self.profile.calendar.items, self.profile.idde.reporting_year_start
        )
    }
}

/// A checked row held to what is stored under its id (`stored`: read in the write's
/// transaction, or for a dry run as the layer stands). `None`: nothing is stored, the row
/// is written. The stored row: it records the same submission, and is written as it is,
/// so the write leaves it unchanged with the door and the key that recorded it. A row
/// recording another submission, or a stored row that cannot be read, is refused.
pub(super) fn against_stored(
    row: &Feature,
    stored: LayerRows,
) -> std::result::Result<Option<Feature>, FieldError> {
    if let Some(u) = stored
        .unreadable
        .into_iter()
        .find(|u| u.id.as_ref() == Some(&row.id))
    {
        return Err(FieldError {
            field: Layer::ProgrammeSubmissions.id_field().into(),
            message: format!(
                "a submission is stored under this id that cannot be read ({}): an import does not overwrite a recorded submission",
                u.reason
            ),
        });
    }
    let Some(recorded) = stored.features.into_iter().find(|f| f.id == row.id) else {
        return Ok(None);
    };
    same_as_recorded(&recorded, row)?;
    Ok(Some(recorded))
}

/// How many ids a refusal of a replace names; it counts the rest.
const SHOWN: usize = 5;

/// Refuses a replace whose write would remove recorded submissions: `removed`, the ids
/// of the stored rows the file does not carry (in any order). The refusal names the
/// first few in order and counts them all.
pub(super) fn replace_keeps_recorded(path: &str, mut removed: Vec<String>) -> Result<()> {
    if removed.is_empty() {
        return Ok(());
    }
    removed.sort_unstable();
    let count = removed.len();
    removed.truncate(SHOWN);
    Err(ImportError::RecordedNotCarried {
        path: path.to_string(),
        layer: Layer::ProgrammeSubmissions.name(),
        ids: removed,
        count,
    })
}

/// Why one row at fault refuses the whole file.
pub(super) const WHY: &str = "each row is checked as `ms4 calendar record` checks a \
    submission, and one row at fault refuses the file; correct it and import the file again";

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (1..=n)
            .rev()
            .map(|m| format!("interim_progress_certification:2026-0{m}-03"))
            .collect()
    }

    #[rstest]
    #[case::none_removed(0, None)]
    #[case::one(1, Some("1 recorded submission from programme_submissions that the file does not carry (interim_progress_certification:2026-01-03);"))]
    #[case::the_first_five_in_order_and_a_count(7, Some("7 recorded submissions from programme_submissions that the file does not carry (interim_progress_certification:2026-01-03, interim_progress_certification:2026-02-03, interim_progress_certification:2026-03-03, interim_progress_certification:2026-04-03, interim_progress_certification:2026-05-03 and 2 more);"))]
    fn a_replace_removing_recorded_submissions_is_refused_naming_them(
        #[case] removed: usize,
        #[case] said: Option<&str>,
    ) {
        match (replace_keeps_recorded("submitted.csv", ids(removed)), said) {
            (Ok(()), None) => {}
            (Err(e @ ImportError::RecordedNotCarried { .. }), Some(said)) => {
                let ImportError::RecordedNotCarried { ids, count, .. } = &e else {
                    unreachable!()
                };
                assert_eq!((ids.len(), *count), (removed.min(SHOWN), removed));
                let text = e.to_string();
                assert!(
                    text.starts_with(&format!("submitted.csv: --replace would remove {said}")),
                    "{text}"
                );
                assert!(text.contains("nothing was imported"), "{text}");
            }
            (got, want) => panic!("{got:?}, expected {want:?}"),
        }
    }
}
