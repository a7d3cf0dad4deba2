//! The programme's deliverables as submitted: the annual report, the interim progress
//! certifications and the mapping phases of the profile's `[calendar]`, each recorded as
//! a submission of one occurrence (the `programme_submissions` layer), which the permit
//! calendar ([`crate::answer::calendar`]) reads to show the occurrence done. Pure code but
//! for [`commands`], which the HTTP and command-line edges call.

pub mod commands;
pub mod submission;

pub use commands::{run, CalendarCommand, CalendarRecordAnswer, SubmissionError};
pub use submission::{Submission, SubmissionRequest};
