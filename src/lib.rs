//! `ms4`: a GIS-backed registry of a municipality's separate storm sewer system (MS4).
//!
//! It stores catch basins, manholes, pipes, outfalls, stormwater management practices,
//! easements and parcels with the receiving waters, 303(d) listings, watersheds and TMDL
//! areas around them, and answers the questions the local laws make a town answer.
//!
//! # Layout
//! - [`domain`]: layers and their canonical fields, features, units, WKB; no I/O.
//! - [`rules`]: jurisdiction profiles (data in `data/jurisdictions/`) and pure rule
//!   evaluation with citations: determinations, illicit connections, easements.
//! - [`spatial`]: the in-memory snapshot with one R-tree per layer; nearby facilities,
//!   receiving waters, the drainage network and traces, a watershed's facilities ranked
//!   for inspection.
//! - [`store`]: the [`store::Store`] trait; a GeoPackage file and PostGIS behind it.
//! - [`import`]: GDAL import (read, reproject, validate, report) and export.
//! - [`synth`]: deterministic synthetic towns and counties for demos and benchmarks.
//! - [`tiles`]: vector tiles (MVT, Web Mercator) rendered from the snapshot.
//! - [`idde`]: the illicit discharge programme: screenings, cases, deadlines, the report.
//! - [`sites`]: the construction programme: sites, their logs, rainfall and the schedule.
//! - [`programme`]: the deliverables submitted (annual report, certifications, mapping
//!   phases), which show the permit calendar's items done.
//! - [`http`]: the axum service.
//! - [`serve`]: starting the HTTP service, where the command line meets it.
//! - [`cli`]: the command-line verbs.

#![warn(missing_docs)]

pub mod answer;
pub mod auth;
pub mod cli;
pub mod domain;
pub mod http;
pub mod idde;
pub mod import;
pub mod programme;
pub mod rules;
pub mod serve;
pub mod sites;
pub mod spatial;
pub mod store;
pub mod synth;
pub mod tiles;
