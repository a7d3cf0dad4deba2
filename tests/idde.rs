//! Issue 12: the illicit discharge programme, a scripted year in a hand-made Windsor
//! town, on both stores, through the CLI and through the API: screenings (one too soon
//! after rain), a suspect screening opening a case with its candidates from the trace,
//! a dye test, the Town Manager's written notice served by mail, the deadlines counted
//! across a weekend and Memorial Day, the re-inspection, a citation and the fines the
//! continuing violation accrues, the elimination (the connection's status updated), and
//! the annual report's counts with their records. Expectations are computed by hand in
//! the comments.

// A scenario reads top to bottom as the script its user follows: the line limit is
// for the library's functions, not for these.
#![allow(clippy::too_many_lines)]

mod common;
#[path = "idde/script.rs"]
mod script;
#[path = "idde/town.rs"]
mod town;

use script::{scripted_year, Via};

#[tokio::test(flavor = "multi_thread")]
async fn scripted_year_through_the_cli_on_a_geopackage() {
    scripted_year("sqlite", Via::Cli).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn scripted_year_through_the_api_on_a_geopackage() {
    scripted_year("sqlite", Via::Api).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn scripted_year_through_the_api_on_postgis() {
    if common::pg_base().is_some() {
        scripted_year("postgis", Via::Api).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn scripted_year_through_the_cli_on_postgis() {
    if common::pg_base().is_some() {
        scripted_year("postgis", Via::Cli).await;
    }
}

#[path = "idde/ld_notice.rs"]
mod ld_notice;

#[path = "idde/notice.rs"]
mod notice;

#[path = "idde/clock.rs"]
mod clock;

#[path = "idde/fines.rs"]
mod fines;

#[path = "idde/ids.rs"]
mod ids;

#[tokio::test(flavor = "multi_thread")]
async fn case_ids_are_distinct_across_processes_on_a_geopackage() {
    ids::concurrent_opens("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn case_ids_are_distinct_across_processes_on_postgis() {
    if common::pg_base().is_some() {
        ids::concurrent_opens("postgis").await;
    }
}

#[path = "idde/cli_formats.rs"]
mod cli_formats;

#[path = "idde/race.rs"]
mod race;

#[tokio::test(flavor = "multi_thread")]
async fn no_action_is_lost_between_a_command_and_the_server_on_a_geopackage() {
    race::concurrent_actions("sqlite").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn no_action_is_lost_between_a_command_and_the_server_on_postgis() {
    if common::pg_base().is_some() {
        race::concurrent_actions("postgis").await;
    }
}

#[path = "idde/report_counts.rs"]
mod report_counts;

#[path = "idde/who.rs"]
mod who;

#[path = "idde/clocks_through_commands.rs"]
mod clocks_through_commands;

#[path = "idde/open_at.rs"]
mod open_at;
