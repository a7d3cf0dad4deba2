//! The illicit discharge detection and elimination programme: inspections as the field
//! records them (a dry-weather screening as its form has it), cases with their candidates and action logs, the deadlines
//! and fines the town's law sets (computed from the profile's `[idde]` steps and a
//! holiday calendar, never typed), and the annual report with the records behind each
//! count. Pure code: the store and the HTTP and command-line edges call it.

pub mod calendar;
pub mod candidates;
pub mod case;
pub mod case_update;
pub mod cases_cache;
pub mod commands;
pub mod deadlines;
pub mod inspection;
pub mod ld_notice;
pub mod notice;
pub mod open;
pub mod penalties;
pub mod report;
pub mod respondent;
pub mod screening;

pub use case::{Action, Case, Closing};

/// The largest inspection photo accepted, bytes (the API and the command line alike).
pub const MAX_PHOTO_BYTES: usize = 16 * 1024 * 1024;
pub use screening::{FieldError, Screening};
