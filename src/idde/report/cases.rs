//! The case counts: cases opened and closed, and what the cases opened in the year came
//! to. Those four counts part the cases opened in the year between them: an illicit
//! discharge found (eliminated, or a notice of violation, written notice or citation
//! served on it: the Town acted on a violation), unfounded, about a connection recorded
//! as proposed (a plan, not built: nothing discharges from it), and not yet determined
//! (open or referred, with no notice served). A case still open is never counted as a
//! discharge found on its opening alone.

use chrono::NaiveDate;

use super::standing::{standing, Standing};
use super::{count, Count, YearDays};
use crate::domain::{Closure, Layer};
use crate::idde::case::Case;
use crate::spatial::Snapshot;

/// The actions by which the Town acts on a violation it has found.
const ACTED_ON: [&str; 3] = ["notice_of_violation", "written_notice", "citation_issued"];

/// What a case opened in the year came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    Found,
    Unfounded,
    ProposedConnection,
    Undetermined,
}

fn outcome(snap: &Snapshot, c: &Case) -> Outcome {
    let conn = c
        .connection_id
        .as_deref()
        .and_then(|id| snap.layer(Layer::Connections).get(id));
    if conn.is_some_and(|f| {
        standing(f.get(Layer::Connections, "status").as_str()) == Standing::Proposed
    }) {
        return Outcome::ProposedConnection;
    }
    match c.closure {
        Some(Closure::Unfounded) => Outcome::Unfounded,
        Some(Closure::Eliminated) => Outcome::Found,
        _ if c
            .actions
            .iter()
            .any(|a| ACTED_ON.contains(&a.kind.as_str())) =>
        {
            Outcome::Found
        }
        _ => Outcome::Undetermined,
    }
}

/// The cases opened and closed, what the cases of the year came to, the illicit
/// discharges eliminated and the connections removed.
pub(super) fn case_counts(snap: &Snapshot, cases: &[Case], year: YearDays) -> Vec<Count> {
    let yr = year.period();
    let in_year = |d: NaiveDate| year.has(d);
    let case_ids = |pred: &dyn Fn(&Case) -> bool| -> Vec<String> {
        let mut v: Vec<String> = cases
            .iter()
            .filter(|c| pred(c))
            .map(|c| c.case_id.clone())
            .collect();
        v.sort();
        v
    };
    let opened = case_ids(&|c| in_year(c.opened_on));
    let of_year = || Some(("cases opened in the year".to_string(), opened.len()));
    let came_to = |o: Outcome| case_ids(&|c| in_year(c.opened_on) && outcome(snap, c) == o);
    let mut counts = vec![
        count(
            "cases_closed",
            "Cases closed in the year",
            yr,
            None,
            Layer::Cases,
            case_ids(&|c| c.closed_on.is_some_and(in_year)),
            None,
        ),
        count(
            "illicit_discharges_found",
            "Illicit discharges found: cases opened in the year that were eliminated or on which a notice of violation, written notice or citation was served",
            yr,
            of_year(),
            Layer::Cases,
            came_to(Outcome::Found),
            Some("a case not about a connection recorded as proposed; an open case counts once the Town has served a notice on it".into()),
        ),
        count(
            "cases_unfounded",
            "Cases opened in the year and closed unfounded",
            yr,
            of_year(),
            Layer::Cases,
            came_to(Outcome::Unfounded),
            None,
        ),
        count(
            "cases_about_proposed_connections",
            "Cases opened in the year about a connection recorded as proposed (not built): not illicit discharges found",
            yr,
            of_year(),
            Layer::Cases,
            came_to(Outcome::ProposedConnection),
            Some("the connection's status as the registry records it now".into()),
        ),
        count(
            "cases_undetermined",
            "Cases opened in the year not yet shown to be an illicit discharge or unfounded (open, or referred, with no notice or citation served)",
            yr,
            of_year(),
            Layer::Cases,
            came_to(Outcome::Undetermined),
            Some("the investigation's finding decides each: its closure, or a notice served".into()),
        ),
        count(
            "illicit_discharges_eliminated",
            "Illicit discharges eliminated in the year",
            yr,
            None,
            Layer::Cases,
            case_ids(&|c| {
                c.closure == Some(Closure::Eliminated) && c.closed_on.is_some_and(in_year)
            }),
            None,
        ),
    ];
    counts.insert(
        0,
        count(
            "cases_opened",
            "Cases opened in the year",
            yr,
            None,
            Layer::Cases,
            opened,
            None,
        ),
    );
    counts.push(connections_eliminated(cases, year));
    counts
}

/// The connections of the cases closed eliminated in the year.
fn connections_eliminated(cases: &[Case], year: YearDays) -> Count {
    let mut conns: Vec<String> = cases
        .iter()
        .filter(|c| {
            c.closure == Some(Closure::Eliminated) && c.closed_on.is_some_and(|d| year.has(d))
        })
        .filter_map(|c| c.connection_id.clone())
        .collect();
    conns.sort();
    conns.dedup();
    count(
        "illicit_connections_eliminated",
        "Illicit connections eliminated in the year (status set to removed)",
        year.period(),
        None,
        Layer::Connections,
        conns,
        None,
    )
}
