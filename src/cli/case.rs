//! `ms4 inspect` and `ms4 case`: record an inspection and run an illicit discharge case
//! from the command line, with the same JSON bodies and the same checks as
//! `POST /api/inspections` and `/api/cases` (a body is given inline or as `@FILE`).

use anyhow::{anyhow, bail, Context};
use chrono::{NaiveDate, Utc};
use clap::{Args, Subcommand};

use super::report::ReportFormat;
use crate::domain::{CaseStatus, Feature, Layer};
use crate::idde::case::all_cases;
use crate::idde::case_update::Recorder;
use crate::idde::commands::{self, CaseAnswer, CaseCommand};
use crate::idde::inspection::{to_feature, NewInspection};
use crate::idde::open::{case_for_screening, screening_case_json, ScreeningCase};
use crate::idde::Case;
use crate::import::default_actor;
use crate::spatial::Snapshot;
use crate::store::{write_all, Store, WriteMode, WriteRequest};

/// Arguments of `ms4 inspect`: an inspection to record, or `photo ...`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct InspectArgs {
    /// The inspection as `POST /api/inspections` takes it: JSON, or `@FILE`.
    pub body: Option<String>,
    /// An inspection's photos.
    #[command(subcommand)]
    pub photo: Option<InspectAction>,
}

/// What `ms4 inspect` does besides recording an inspection.
#[derive(Debug, clap::Subcommand)]
pub enum InspectAction {
    /// An inspection's photos: add, list, get.
    #[command(subcommand)]
    Photo(super::photo::PhotoAction),
}

/// Arguments of `ms4 case`.
#[derive(Debug, Args)]
pub struct CaseArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CaseAction,
    /// How to print a case or the list: table, json (the API's JSON) or csv. Notices
    /// print HTML whatever this says.
    #[arg(long, global = true, value_enum, default_value_t = super::report::ReportFormat::Table)]
    pub format: super::report::ReportFormat,
}

/// Case commands.
#[derive(Debug, Subcommand)]
pub enum CaseAction {
    /// Open a case: the body of `POST /api/cases` (JSON or @FILE).
    Open {
        /// The request.
        body: String,
    },
    /// Open a case for each connection found illicit or needing review that no case names.
    FromConnections {
        /// The day they are opened (YYYY-MM-DD; default today).
        #[arg(long)]
        on: Option<NaiveDate>,
    },
    /// Log an action: the body of `POST /api/cases/{id}/actions`.
    Action {
        /// The case.
        id: String,
        /// The action.
        body: String,
    },
    /// Set or correct who a case is against: the body of `PUT /api/cases/{id}/respondent`
    /// (`{name, kind, acting_for_state?, basis?}`).
    Respondent {
        /// The case.
        id: String,
        /// The respondent.
        body: String,
    },
    /// Close a case: the body of `POST /api/cases/{id}/close`.
    Close {
        /// The case.
        id: String,
        /// How it closes.
        body: String,
    },
    /// List the cases (JSON).
    List {
        /// open or closed.
        #[arg(long)]
        status: Option<CaseStatus>,
    },
    /// One case with its deadlines as of a time (JSON).
    Show {
        /// The case.
        id: String,
        /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now).
        #[arg(long)]
        as_of: Option<String>,
    },
    /// The land development notice of violation (North Castle ch. 267 Part 1 C(1),
    /// Carmel § 156-88A) as printable HTML: the body of `POST
    /// /api/notices/land-development` (JSON or @FILE, optional) and the options, which
    /// win over it. What the record lacks is listed on the page as an open fact (and
    /// counted on stderr); a town without such a notice is an error saying so.
    LdNotice(LdNoticeArgs),
    /// The case's notice as printable HTML: the notice of violation, or the written
    /// notice or citation where the town's law has them. What the record lacks is listed
    /// on the page as an open fact (and counted on stderr).
    Notice {
        /// The case.
        id: String,
        /// YYYY-MM-DD or YYYY-MM-DDTHH:MM (default now).
        #[arg(long)]
        as_of: Option<String>,
        /// notice_of_violation (default), written_notice or citation.
        #[arg(long)]
        document: Option<String>,
        /// An order the notice makes, from the town's list (monitoring, elimination,
        /// cease_and_desist, abatement, fine, bmps); repeat.
        #[arg(long = "order")]
        orders: Vec<String>,
        /// The deadline for abatement or restoration (YYYY-MM-DD; else the notice
        /// action's).
        #[arg(long)]
        deadline: Option<NaiveDate>,
    },
}

/// Arguments of `ms4 case ld-notice`.
#[derive(Debug, Args)]
pub struct LdNoticeArgs {
    /// The facts as JSON or @FILE (the options below win over it).
    pub body: Option<String>,
    /// A case to fill from (its parcel, description and notice of violation served).
    #[arg(long = "case")]
    pub case_id: Option<String>,
    /// The parcel of the site.
    #[arg(long)]
    pub parcel: Option<String>,
    /// The landowner, developer or applicant.
    #[arg(long)]
    pub owner: Option<String>,
    /// Their mailing address.
    #[arg(long)]
    pub owner_address: Option<String>,
    /// The site's address or a description of the building, structure or land.
    #[arg(long)]
    pub site: Option<String>,
    /// The nature of the violation.
    #[arg(long)]
    pub violation: Option<String>,
    /// A remedial measure, `MEASURE` or `MEASURE@YYYY-MM-DD` (completed by); repeat.
    #[arg(long = "remedy")]
    pub remedies: Vec<String>,
    /// The day the notice is served (YYYY-MM-DD): the appeal period runs from it.
    #[arg(long)]
    pub served_on: Option<NaiveDate>,
    /// The day of an earlier offence within the window (YYYY-MM-DD); repeat.
    #[arg(long = "earlier-offence")]
    pub earlier_offences: Vec<NaiveDate>,
}

fn ld_facts(a: LdNoticeArgs) -> anyhow::Result<crate::idde::ld_notice::LdFacts> {
    let mut f: crate::idde::ld_notice::LdFacts = match &a.body {
        Some(b) => parse(b)?,
        None => Default::default(),
    };
    let set = |slot: &mut Option<String>, v: Option<String>| {
        if v.is_some() {
            *slot = v;
        }
    };
    set(&mut f.case_id, a.case_id);
    set(&mut f.parcel_id, a.parcel);
    set(&mut f.owner, a.owner);
    set(&mut f.owner_address, a.owner_address);
    set(&mut f.site, a.site);
    set(&mut f.violation, a.violation);
    for r in a.remedies {
        let (measure, by) = match r.rsplit_once('@') {
            Some((m, d)) => {
                let day = NaiveDate::parse_from_str(d.trim(), "%Y-%m-%d")
                    .map_err(|_| anyhow!("--remedy {r:?}: {d:?} is not a day, YYYY-MM-DD"))?;
                (m.to_string(), Some(day))
            }
            None => (r, None),
        };
        f.remedial_measures.push(crate::idde::ld_notice::Remedy {
            measure,
            complete_by: by,
        });
    }
    if a.served_on.is_some() {
        f.served_on = a.served_on;
    }
    f.earlier_offences.extend(a.earlier_offences);
    Ok(f)
}

fn rows_as(format: ReportFormat, header: &[&str], rows: &[Vec<String>]) -> String {
    match format {
        ReportFormat::Csv => super::output::csv(header, rows),
        _ => super::output::table(header, rows),
    }
}

/// A case as field and value rows: its record, each action, each deadline and fine, and
/// what the law bars or may bar against its respondent.
fn case_rows(v: &commands::CaseView) -> Vec<Vec<String>> {
    let (c, d) = (&v.case, &v.deadlines);
    let mut rows = Vec::new();
    let mut put = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            rows.push(vec![k.to_string(), v]);
        }
    };
    put("case", Some(c.case_id.clone()));
    put("status", Some(c.status.to_string()));
    put("opened_on", Some(c.opened_on.to_string()));
    put("origin", Some(c.origin.to_string()));
    put("reported_by", c.reported_by.clone());
    put("description", c.description.clone());
    put("asset", c.asset_id.clone());
    put("parcel", c.parcel_id.clone());
    put("connection", c.connection_id.clone());
    put("inspection", c.inspection_id.clone());
    put("closed_on", c.closed_on.map(|x| x.to_string()));
    put("closure", c.closure.map(|c| c.to_string()));
    put("referred_to", c.referred_to.clone());
    put(
        "respondent",
        Some(crate::idde::respondent::describe(&c.respondent)),
    );
    put("respondent reading", c.respondent.reading.clone());
    for (i, k) in c.candidates.iter().enumerate() {
        put(
            &format!("candidate {}", i + 1),
            Some(serde_json::to_string(k).unwrap_or_default()),
        );
    }
    for (i, a) in c.actions.iter().enumerate() {
        let extra = [a.method.as_deref(), a.outcome.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", ");
        put(
            &format!("action {}", i + 1),
            Some(format!(
                "{} on {}{} by {}{}",
                a.kind,
                a.on,
                a.at.as_deref().map(|t| format!(" {t}")).unwrap_or_default(),
                a.by,
                if extra.is_empty() {
                    String::new()
                } else {
                    format!(" ({extra})")
                }
            )),
        );
    }
    for x in &d.deadlines {
        let by = x.by();
        put(
            &format!("deadline {}", x.rule),
            Some(format!("{}: {} by {by} ({})", x.status, x.what, x.citation)),
        );
    }
    // A step the clock could not count is said, never left out in silence.
    for (i, why) in d.uncounted.iter().enumerate() {
        put(&format!("uncounted {}", i + 1), Some(why.clone()));
    }
    for f in &v.respondent_flags {
        let standing = match f.standing {
            crate::idde::respondent::Standing::Barred => "barred",
            crate::idde::respondent::Standing::MayBeBarred => "may be barred",
        };
        put(
            &format!("respondent flag {}", f.rule),
            Some(format!(
                "action {} ({} on {}) {standing} ({}): {}",
                f.action, f.kind, f.on, f.citation, f.message
            )),
        );
    }
    for f in &d.fines {
        put(
            &format!("fine {}", f.rule),
            Some(format!(
                "{}${:.2}: {} violation(s) x {} period(s) x ${:.2} ({})",
                if f.maximum { "up to " } else { "" },
                f.accrued,
                f.violations,
                f.periods,
                f.amount,
                f.citation
            )),
        );
    }
    rows
}

fn body(s: &str) -> anyhow::Result<String> {
    match s.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path).with_context(|| format!("reading {path}")),
        None => Ok(s.to_string()),
    }
}

/// Reads a request body as the API does, naming the field at fault by its path
/// (`kind: "x" is not an action; ...`), as `POST /api/...` says it in `field`.
fn parse<T: serde::de::DeserializeOwned>(s: &str) -> anyhow::Result<T> {
    let text = body(s)?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            anyhow!("body: {}", e.inner())
        } else {
            anyhow!("body: {path}: {}", e.inner())
        }
    })
}

async fn write(store: &dyn Store, layer: Layer, f: Feature, what: &str) -> anyhow::Result<()> {
    write_all(
        store,
        WriteRequest {
            layer,
            mode: WriteMode::Upsert,
            actor: default_actor(),
            source: "cli".into(),
        },
        vec![f],
        serde_json::json!({ "source": what }),
    )
    .await?;
    Ok(())
}

fn today() -> NaiveDate {
    Utc::now().date_naive()
}

fn recorder(profile: &crate::rules::Profile, what: &str) -> Recorder {
    Recorder {
        name: default_actor(),
        source: "cli".into(),
        what: what.into(),
        law: profile.idde.clone(),
        today: today(),
    }
}

/// `ms4 inspect`.
pub(super) async fn run_inspect(store_url: &str, a: InspectArgs) -> anyhow::Result<()> {
    let body = match (a.body, a.photo) {
        (_, Some(InspectAction::Photo(p))) => return super::photo::run(store_url, p).await,
        (Some(b), None) => b,
        (None, None) => bail!("give the inspection as JSON (or @FILE), or `photo add|list|get`"),
    };
    let store = crate::store::open(store_url).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let n: NewInspection = parse(&body)?;
    if n.inspection_id.is_some() {
        // Over HTTP a rewrite needs If-Match, the version read; here there is none, so
        // the command records new inspections only and never writes over one.
        bail!("inspection_id: names an inspection to write over; `ms4 inspect` records a new inspection (rewrite one with POST /api/inspections and If-Match)");
    }
    let f = to_feature(
        &snap,
        n,
        &default_actor(),
        today(),
        profile.idde.dry_weather_hours,
    )
    .map_err(|e| anyhow!("{e}"))?;
    let json = serde_json::Value::Object(f.properties(Layer::Inspections));
    write(store.as_ref(), Layer::Inspections, f, "ms4 inspect").await?;
    let mut out = serde_json::json!({ "inspection": json });
    // The snapshot as it is now, the inspection included: another process may have
    // opened a case at this outfall since.
    let snap = Snapshot::load(store.as_ref()).await?;
    let (cases, _) = all_cases(&snap);
    match case_for_screening(&json, &cases, today()) {
        ScreeningCase::None => {}
        ScreeningCase::AlreadyOpen(id) => out["case"] = screening_case_json(&id, None),
        ScreeningCase::Open(req) => {
            let reg = commands::Registry {
                store: store.as_ref(),
                profile: &profile,
                snap,
            };
            let case = commands::open_one(&reg, &recorder(&profile, "ms4 inspect"), &req).await?;
            out["case"] = screening_case_json(&case.case_id, Some(&case));
        }
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// `ms4 case`: the arguments parsed into one command, run by [`commands::run`], and its
/// answer printed.
pub(super) async fn run(store_url: &str, a: CaseArgs) -> anyhow::Result<()> {
    let (cmd, what) = command(a.action)?;
    let store = crate::store::open(store_url).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let reg = commands::Registry {
        store: store.as_ref(),
        profile: &profile,
        snap,
    };
    let by = recorder(&profile, what);
    let answer = commands::run(reg, &by, Utc::now().naive_utc(), cmd).await?;
    render(a.format, answer)
}

/// The command the arguments ask for, and its name for the audit log.
fn command(action: CaseAction) -> anyhow::Result<(CaseCommand, &'static str)> {
    let as_of = |t: Option<String>| {
        crate::idde::deadlines::parse_as_of(t.as_deref()).map_err(|e| anyhow!(e))
    };
    Ok(match action {
        CaseAction::Open { body } => (CaseCommand::Open(parse(&body)?), "ms4 case open"),
        CaseAction::FromConnections { on } => (
            CaseCommand::FromConnections {
                on: on.unwrap_or_else(today),
            },
            "ms4 case from-connections",
        ),
        CaseAction::Action { id, body } => (
            CaseCommand::Action {
                id,
                action: parse(&body)?,
            },
            "ms4 case action",
        ),
        CaseAction::Respondent { id, body } => (
            CaseCommand::Respondent {
                id,
                respondent: parse(&body)?,
            },
            "ms4 case respondent",
        ),
        CaseAction::Close { id, body } => (
            CaseCommand::Close {
                id,
                closing: parse(&body)?,
            },
            "ms4 case close",
        ),
        CaseAction::List { status } => (CaseCommand::List { status }, "ms4 case list"),
        CaseAction::Show { id, as_of: t } => (
            CaseCommand::Show {
                id,
                as_of: as_of(t)?,
            },
            "ms4 case show",
        ),
        CaseAction::Notice {
            id,
            as_of: t,
            document,
            orders,
            deadline,
        } => (
            CaseCommand::Notice {
                id,
                as_of: as_of(t)?,
                facts: crate::idde::notice::NoticeFacts::from_words(
                    document.as_deref(),
                    &orders,
                    deadline,
                )
                .map_err(|e| anyhow!("{e}"))?,
            },
            "ms4 case notice",
        ),
        CaseAction::LdNotice(args) => {
            (CaseCommand::LdNotice(ld_facts(args)?), "ms4 case ld-notice")
        }
    })
}

/// Prints a case command's answer in the format asked for (a notice is HTML whatever it
/// says, its open facts counted on stderr).
fn render(format: ReportFormat, answer: CaseAnswer) -> anyhow::Result<()> {
    match answer {
        CaseAnswer::Case(v) => {
            if format == ReportFormat::Json {
                println!("{}", serde_json::to_string_pretty(&v)?);
            } else {
                print!("{}", rows_as(format, &["field", "value"], &case_rows(&v)));
            }
        }
        CaseAnswer::Opened(opened) => println!("{}", serde_json::json!({ "opened": opened })),
        CaseAnswer::List { cases, unreadable } => list(format, &cases, &unreadable)?,
        CaseAnswer::Notice { html, open_facts } => {
            print!("{html}");
            if !open_facts.is_empty() {
                eprintln!(
                    "{} open fact(s), listed on the notice: {}",
                    open_facts.len(),
                    open_facts.join("; ")
                );
            }
        }
    }
    Ok(())
}

/// `ms4 case list`'s table, CSV or JSON.
fn list(format: ReportFormat, shown: &[Case], unreadable: &[String]) -> anyhow::Result<()> {
    if format == ReportFormat::Json {
        let all =
            serde_json::json!({"count": shown.len(), "cases": shown, "unreadable": unreadable});
        println!("{}", serde_json::to_string_pretty(&all)?);
        return Ok(());
    }
    let header = [
        "case",
        "status",
        "opened_on",
        "origin",
        "asset",
        "parcel",
        "connection",
        "actions",
        "closure",
    ];
    let rows: Vec<Vec<String>> = shown
        .iter()
        .map(|c| {
            let o = |v: &Option<String>| v.clone().unwrap_or_default();
            vec![
                c.case_id.clone(),
                c.status.to_string(),
                c.opened_on.to_string(),
                c.origin.to_string(),
                o(&c.asset_id),
                o(&c.parcel_id),
                o(&c.connection_id),
                c.actions.len().to_string(),
                c.closure.map(|c| c.to_string()).unwrap_or_default(),
            ]
        })
        .collect();
    print!("{}", rows_as(format, &header, &rows));
    for u in unreadable {
        eprintln!("unreadable: {u}");
    }
    Ok(())
}
