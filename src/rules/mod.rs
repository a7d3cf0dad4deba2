//! The law, as data and pure code.
//!
//! A jurisdiction profile ([`Profile`], from `data/jurisdictions/<id>.toml`) holds what one
//! town's law says in numbers and lists: thresholds, exempt discharges, which land uses count
//! as commercial or industrial, tolerances, inspection intervals, the citation of every rule
//! and the reading chosen where the text is ambiguous. Rule evaluation lives beside it and
//! takes a profile plus plain inputs; nothing in this module does I/O except loading a
//! profile file.

pub mod determine;
pub mod easement;
pub mod finding;
pub mod illicit;
pub mod monitoring;
pub mod profile;
pub mod quantity;
pub mod schedule;

pub use finding::{AssumptionTaken, Citation, Evidence, Finding};
pub use profile::*;
