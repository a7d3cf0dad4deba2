//! The construction programme: a site from the determination it came from to final
//! stabilization (the `sites` layer, with its log of inspections, notices, stop-work
//! orders, milestone notices and guarantees), the daily rainfall its storm inspections
//! are computed from (the `rainfall` layer), and the schedule the town's law sets for
//! it, computed from the profile with the enforcement clock. Pure code but for
//! [`commands`], which the store and the HTTP and command-line edges call.

pub mod action;
pub mod close_out;
pub mod commands;
pub mod open;
pub mod rainfall;
pub mod schedule;
pub mod site;
pub mod stabilization;

pub use commands::{run, SiteAnswer, SiteCommand, SiteError, SiteRecorder};
pub use site::{Site, SiteAction};
