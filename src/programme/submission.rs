//! One deliverable submitted: which occurrence of a `[calendar]` item it answers (the item
//! and the day that occurrence fell due), when it was submitted, by whom, under what
//! reference. Checked as data against the profile's calendar before anything is stored:
//! a request at fault is refused naming its field.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::answer::calendar::{describe, is_due_day, nearest_due_days};
use crate::domain::{text, Feature, Layer, Value};
use crate::idde::FieldError;
use crate::rules::profile::{CalendarItem, DueRule};
use crate::rules::Profile;
use crate::spatial::Snapshot;

const L: Layer = Layer::ProgrammeSubmissions;

/// `POST /api/calendar/records` and `ms4 calendar record`: a deliverable submitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmissionRequest {
    /// The calendar item's id, as the profile's `[calendar]` names it (`annual_report`).
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(min = 1, max = 1024))]
    pub item_id: String,
    /// The day the occurrence it answers fell due, YYYY-MM-DD (one of the item's days).
    pub for_due_on: NaiveDate,
    /// The day it was submitted, YYYY-MM-DD (not in the future).
    pub submitted_on: NaiveDate,
    /// Who submitted it: a name or an office.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(min = 1, max = 1024))]
    pub submitted_by: String,
    /// The agency's confirmation number, or the file submitted.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub reference: Option<String>,
    /// A note.
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub note: Option<String>,
}

/// A submission as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Submission {
    /// Its id: the item and the due day, `annual_report:2026-04-01` (one per occurrence).
    pub submission_id: String,
    /// The calendar item.
    pub item_id: String,
    /// The day the occurrence it answers fell due.
    pub for_due_on: NaiveDate,
    /// The day it was submitted.
    pub submitted_on: NaiveDate,
    /// Who submitted it.
    pub submitted_by: String,
    /// The agency's confirmation number, or the file submitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<String>,
    /// A note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The id of the submission of an occurrence: item and due day joined as `ms4 import
/// programme_submissions` derives it, so the store's unique id holds one per occurrence.
pub fn submission_id(item_id: &str, for_due_on: NaiveDate) -> String {
    format!("{item_id}:{for_due_on}")
}

fn err(field: &str, message: String) -> FieldError {
    FieldError {
        field: field.into(),
        message,
    }
}

/// Checks a request against the profile's calendar on `today`, naming the first field at
/// fault: an item the calendar has and a submission shows done (a per-case item is shown
/// done by its cases' actions), a day one of its occurrences falls due, a submission day
/// not in the future nor on or before the previous occurrence's day (it would answer
/// that one), who submitted it. Returns the item.
pub fn check<'p>(
    profile: &'p Profile,
    r: &SubmissionRequest,
    today: NaiveDate,
) -> Result<&'p CalendarItem, FieldError> {
    let items = &profile.calendar.items;
    if let Some(why) = text::line_problem(&r.item_id) {
        return Err(err("item_id", why));
    }
    if r.item_id.trim().is_empty() {
        return Err(err(
            "item_id",
            "name the calendar item (`annual_report`)".into(),
        ));
    }
    let Some(item) = items.iter().find(|i| i.id == r.item_id) else {
        let known: Vec<&str> = items
            .iter()
            .filter(|i| i.rule != DueRule::PerCase)
            .map(|i| i.id.as_str())
            .collect();
        let message = if items.is_empty() {
            format!(
                "no calendar item {:?}: the profile of {} has no [calendar]",
                r.item_id, profile.name
            )
        } else {
            format!(
                "no calendar item {:?}; a submission is recorded for one of: {}",
                r.item_id,
                known.join(", ")
            )
        };
        return Err(err("item_id", message));
    };
    if item.rule == DueRule::PerCase {
        return Err(err(
            "item_id",
            format!(
                "{} ({}) is due per case and shown done by an action logged on the case (`ms4 case action`, POST /api/cases/{{id}}/actions), not by a submission",
                item.title, item.id
            ),
        ));
    }
    let start = &profile.idde.reporting_year_start;
    if !is_due_day(item, start, r.for_due_on) {
        let (before, after) = nearest_due_days(item, start, r.for_due_on);
        let near: Vec<String> = before
            .into_iter()
            .chain(after)
            .map(|d| d.to_string())
            .collect();
        let near = if near.is_empty() {
            String::new()
        } else {
            format!("; the nearest are {}", near.join(" and "))
        };
        return Err(err(
            "for_due_on",
            format!(
                "{} is not a day {} falls due ({}){near}",
                r.for_due_on,
                item.id,
                describe(item)
            ),
        ));
    }
    if let Some(why) = text::past_day_problem(r.submitted_on, today) {
        return Err(err("submitted_on", why));
    }
    if let (Some(previous), _) = nearest_due_days(item, start, r.for_due_on) {
        if r.submitted_on <= previous {
            return Err(err(
                "submitted_on",
                format!(
                    "{} is on or before {previous}, the day {}'s previous occurrence fell due: a submission then answers that occurrence, not {}",
                    r.submitted_on, item.id, r.for_due_on
                ),
            ));
        }
    }
    if let Some(why) = text::line_problem(&r.submitted_by) {
        return Err(err("submitted_by", why));
    }
    if r.submitted_by.trim().is_empty() {
        return Err(err(
            "submitted_by",
            "name who submitted it: a name or an office".into(),
        ));
    }
    if let Some(why) = r.reference.as_deref().and_then(text::line_problem) {
        return Err(err("reference", why));
    }
    if let Some(why) = r.note.as_deref().and_then(text::note_problem) {
        return Err(err("note", why));
    }
    Ok(item)
}

impl SubmissionRequest {
    /// The request a row of the layer makes (a row of `ms4 import programme_submissions`),
    /// to be held to [`check`] as a request is: the field a row lacks, or whose day is
    /// not a day, is named. Text is taken as the row has it.
    pub fn from_feature(f: &Feature) -> Result<SubmissionRequest, FieldError> {
        let text = |name: &str| match f.get(L, name) {
            Value::Null => None,
            Value::Text(s) => Some(s.clone()),
            other => Some(other.to_string()),
        };
        let required = |name: &str, what: &str| {
            text(name).ok_or_else(|| err(name, format!("missing: {what}")))
        };
        let day = |name: &str, what: &str| match f.get(L, name) {
            Value::Null => Err(err(name, format!("missing: {what}, YYYY-MM-DD"))),
            v => v
                .as_date()
                .ok_or_else(|| err(name, format!("{v} is not a date, YYYY-MM-DD"))),
        };
        Ok(SubmissionRequest {
            item_id: required("item_id", "the calendar item (`annual_report`)")?,
            for_due_on: day("for_due_on", "the day the occurrence fell due")?,
            submitted_on: day("submitted_on", "the day it was submitted")?,
            submitted_by: required("submitted_by", "who submitted it, a name or an office")?,
            reference: text("reference"),
            note: text("note"),
        })
    }
}

impl Submission {
    /// The record a checked request makes (text trimmed; blank optional text is none).
    pub fn from_request(r: &SubmissionRequest) -> Submission {
        let opt = |s: &Option<String>| {
            s.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        let item_id = r.item_id.trim().to_string();
        Submission {
            submission_id: submission_id(&item_id, r.for_due_on),
            item_id,
            for_due_on: r.for_due_on,
            submitted_on: r.submitted_on,
            submitted_by: r.submitted_by.trim().to_string(),
            reference: opt(&r.reference),
            note: opt(&r.note),
        }
    }

    /// What it is, in words: `annual report submitted by Town Engineer, reference
    /// NOI-2026-118`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{} submitted by {}",
            self.item_id.replace('_', " "),
            self.submitted_by
        );
        if let Some(r) = &self.reference {
            s.push_str(", reference ");
            s.push_str(r);
        }
        s
    }

    /// Days after the occurrence's day it was submitted, when after it.
    pub fn late_by_days(&self) -> Option<i64> {
        let n = (self.submitted_on - self.for_due_on).num_days();
        (n > 0).then_some(n)
    }

    /// The record as a feature of the layer, `source` the request or command that made it.
    pub fn to_feature(&self, source: Option<&str>) -> Feature {
        let mut f = Feature::new(L, self.submission_id.clone());
        f.set(L, "item_id", Value::Text(self.item_id.clone()));
        f.set(L, "for_due_on", Value::Date(self.for_due_on));
        f.set(L, "submitted_on", Value::Date(self.submitted_on));
        f.set(L, "submitted_by", Value::Text(self.submitted_by.clone()));
        if let Some(r) = &self.reference {
            f.set(L, "reference", Value::Text(r.clone()));
        }
        if let Some(n) = &self.note {
            f.set(L, "note", Value::Text(n.clone()));
        }
        if let Some(s) = source {
            f.set(L, "source", Value::Text(s.into()));
        }
        f
    }

    /// Reads a record from its feature: `None` when it lacks the item, either day or who
    /// (a row written by another program), so it shows nothing done.
    pub fn from_feature(f: &Feature) -> Option<Submission> {
        let day = |name: &str| match f.get(L, name) {
            Value::Date(d) => Some(*d),
            Value::Text(s) => crate::domain::feature::parse_date(s),
            _ => None,
        };
        let text = |name: &str| {
            f.get(L, name)
                .as_str()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        };
        Some(Submission {
            submission_id: f.id.clone(),
            item_id: text("item_id")?,
            for_due_on: day("for_due_on")?,
            submitted_on: day("submitted_on")?,
            submitted_by: text("submitted_by")?,
            reference: text("reference"),
            note: text("note"),
        })
    }
}

/// The fields that make a submission's record: the occurrence it answers (item and due
/// day), the day it was submitted, who submitted it, the reference and the note. Two rows
/// of one occurrence record the same submission when they agree in each, read as a
/// record reads them (text trimmed, blank text none, a day as a day); the note counts,
/// for someone wrote it. Not compared: the door that recorded it (`source`) and a
/// request's idempotency key, which say how the record came, not what was submitted.
pub const RECORD_FIELDS: [&str; 6] = [
    "item_id",
    "for_due_on",
    "submitted_on",
    "submitted_by",
    "reference",
    "note",
];

/// A field of [`RECORD_FIELDS`] as it is compared.
fn record_value(f: &Feature, name: &str) -> Option<String> {
    let day = matches!(name, "for_due_on" | "submitted_on");
    match f.get(L, name) {
        Value::Null => None,
        Value::Date(d) => Some(d.to_string()),
        Value::Text(s) => {
            let s = s.trim();
            let as_day = day.then(|| crate::domain::feature::parse_date(s)).flatten();
            match as_day {
                Some(d) => Some(d.to_string()),
                None => (!s.is_empty()).then(|| s.to_string()),
            }
        }
        other => Some(other.to_string()),
    }
}

/// Holds a row of an import to the row recorded under its occurrence's id: the same
/// submission ([`RECORD_FIELDS`]) passes; another is refused, naming the fields that
/// differ (`field`, separated by commas) and each one's two values. An occurrence is
/// recorded once, as `ms4 calendar record` refuses to record it twice: a file never
/// overwrites a submission a town recorded and acted on.
pub fn same_as_recorded(recorded: &Feature, row: &Feature) -> Result<(), FieldError> {
    let differ: Vec<(&str, Option<String>, Option<String>)> = RECORD_FIELDS
        .iter()
        .filter_map(|&name| {
            let (was, now) = (record_value(recorded, name), record_value(row, name));
            (was != now).then_some((name, was, now))
        })
        .collect();
    if differ.is_empty() {
        return Ok(());
    }
    let shown = |v: &Option<String>| v.as_deref().map_or("none".into(), |v| format!("{v:?}"));
    let each: Vec<String> = differ
        .iter()
        .map(|(name, was, now)| format!("{name} {} here, {} recorded", shown(now), shown(was)))
        .collect();
    let what = Submission::from_feature(recorded)
        .map(|s| format!(" ({}, on {})", s.describe(), s.submitted_on))
        .unwrap_or_default();
    Err(FieldError {
        field: differ
            .iter()
            .map(|(name, ..)| *name)
            .collect::<Vec<_>>()
            .join(", "),
        message: format!(
            "the occurrence is recorded already as another submission{what}: {}; an import does not overwrite a recorded submission",
            each.join("; ")
        ),
    })
}

/// Every readable submission of a snapshot.
pub fn all_submissions(snap: &Snapshot) -> Vec<Submission> {
    snap.layer(L)
        .features
        .iter()
        .filter_map(Submission::from_feature)
        .collect()
}

#[cfg(test)]
mod tests {
    use rstest::rstest;

    use super::*;

    fn recorded() -> Feature {
        let r = SubmissionRequest {
            item_id: "annual_report".into(),
            for_due_on: "2026-04-01".parse().unwrap(),
            submitted_on: "2026-03-30".parse().unwrap(),
            submitted_by: "Town Engineer".into(),
            reference: Some("NOI 118".into()),
            note: None,
        };
        Submission::from_request(&r).to_feature(Some("POST /api/calendar/records"))
    }

    fn text(f: &mut Feature, name: &str, v: &str) {
        f.set(L, name, Value::Text(v.into()));
    }

    #[rstest]
    #[case::from_another_door_without_a_key(|f: &mut Feature| text(f, "source", "submitted.csv"), None)]
    #[case::text_as_the_file_spaces_it(|f: &mut Feature| text(f, "submitted_by", " Town Engineer "), None)]
    #[case::a_day_as_text(|f: &mut Feature| text(f, "submitted_on", "2026-03-30"), None)]
    #[case::a_blank_note(|f: &mut Feature| text(f, "note", "  "), None)]
    #[case::another_day(|f: &mut Feature| text(f, "submitted_on", "2026-03-31"), Some("submitted_on"))]
    #[case::another_person(|f: &mut Feature| text(f, "submitted_by", "SMO"), Some("submitted_by"))]
    #[case::no_reference(|f: &mut Feature| text(f, "reference", " "), Some("reference"))]
    #[case::a_note(|f: &mut Feature| text(f, "note", "resent"), Some("note"))]
    #[case::two_fields(|f: &mut Feature| {
        text(f, "submitted_by", "SMO");
        text(f, "reference", "NOI 119");
    }, Some("submitted_by, reference"))]
    fn a_row_is_the_recorded_submission_or_names_what_differs(
        #[case] change: fn(&mut Feature),
        #[case] differs: Option<&str>,
    ) {
        let mut stored = recorded();
        stored
            .extra
            .insert("idempotency_key".into(), "report-2026".into());
        let mut row = recorded();
        change(&mut row);
        match (same_as_recorded(&stored, &row), differs) {
            (Ok(()), None) => {}
            (Err(e), Some(fields)) => {
                assert_eq!(e.field, fields, "{e}");
                assert!(e.message.contains("recorded already"), "{e}");
            }
            (got, want) => panic!("{got:?}, expected {want:?}"),
        }
    }

    #[test]
    fn a_refusal_shows_both_values_and_the_record() {
        let mut row = recorded();
        text(&mut row, "submitted_by", "SMO");
        row.set(L, "reference", Value::Null);
        let e = same_as_recorded(&recorded(), &row).unwrap_err();
        assert_eq!(
            e.message,
            "the occurrence is recorded already as another submission (annual report \
             submitted by Town Engineer, reference NOI 118, on 2026-03-30): submitted_by \
             \"SMO\" here, \"Town Engineer\" recorded; reference none here, \"NOI 118\" \
             recorded; an import does not overwrite a recorded submission"
        );
    }
}
