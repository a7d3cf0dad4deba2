//! The site commands, each one typed request run against the registry by [`run`]: what
//! `ms4 site`, `ms4 sites due` and `ms4 rainfall import` do, and what the `/api/sites`
//! routes do, from one definition. The command line and the handlers only parse into a
//! [`SiteCommand`] and render the [`SiteAnswer`].
//!
//! No write is lost or doubled: a new site's id is allocated inside its write's
//! transaction under the store's write lock; an action is appended to the site's log as
//! stored, inside the transaction that holds its row ([`crate::store::update`]), so an
//! action the command line logs a moment before the server's is in the log the server
//! appends to; an action sent again with its idempotency key is stored once; and with
//! versions (`If-Match`) an action decided on a site that has changed since is refused.

use chrono::{Datelike, NaiveDate, NaiveDateTime};
use serde::Serialize;

use super::action::{new_action, Appended};
use super::open::{open_site, priority, OpenSite};
use super::rainfall::{all_rain, check_entries, rain_between, RainDay};
use super::schedule::{site_schedule, SiteSchedule};
use super::site::{next_site_id_among, Guarantee, Site, SiteAction};
use crate::domain::{Layer, SiteStatus};
use crate::idde::FieldError;
use crate::store::update::{check_version, version, Apply, Edit, Other};
use crate::store::{StoreError, WriteMode, WriteRequest};

/// What the commands run against: the store, its profile and a snapshot of it.
pub struct Registry<'a> {
    /// The store.
    pub store: &'a dyn crate::store::Store,
    /// The registry's profile.
    pub profile: &'a crate::rules::Profile,
    /// The registry as read before the command.
    pub snap: &'a crate::spatial::Snapshot,
}

/// Who records a change, from where: the audit's actor and source, and the request or
/// command kept with the write.
#[derive(Debug, Clone)]
pub struct SiteRecorder {
    /// The token's subject or the user at the command line.
    pub name: String,
    /// `api` or `cli`.
    pub source: String,
    /// The request or command (`POST /api/sites/{id}/actions`).
    pub what: String,
    /// Today, for the rules that refuse a day in the future.
    pub today: NaiveDate,
}

/// One site command.
#[derive(Debug)]
pub enum SiteCommand {
    /// Open a site.
    Open(Box<OpenSite>),
    /// Log an action on a site; with versions, only on a site still of one of them.
    Log {
        /// The site.
        id: String,
        /// The action.
        action: Box<SiteAction>,
        /// The versions (`If-Match`) the action was decided on.
        if_version: Option<Vec<String>>,
    },
    /// One site with its schedule as of a time.
    Show {
        /// The site.
        id: String,
        /// When.
        as_of: NaiveDateTime,
    },
    /// Every site.
    List {
        /// Only these.
        status: Option<SiteStatus>,
    },
    /// What is due and overdue, by site.
    Due {
        /// When.
        as_of: NaiveDateTime,
    },
    /// Store rainfall records (a day at a gauge recorded again is replaced); with a
    /// client's key, the same records sent again under it are stored once and other
    /// records under it are refused.
    Rainfall {
        /// The records.
        days: Vec<RainDay>,
        /// The client's key for this request.
        idempotency_key: Option<String>,
    },
    /// The rainfall recorded, of a gauge (or every gauge) over a span of days.
    RainfallList {
        /// Only this gauge.
        gauge: Option<String>,
        /// From this day.
        from: Option<NaiveDate>,
        /// To this day.
        to: Option<NaiveDate>,
    },
}

/// A site as `ms4 site show` and `GET /api/sites/{id}` answer it: the site as stored,
/// its version, its priority's reason, its schedule, its stop-work orders in effect and
/// guarantees held.
#[derive(Debug, Clone, Serialize)]
pub struct SiteView {
    /// The site.
    #[serde(flatten)]
    pub site: Site,
    /// Its version (the `ETag`).
    pub version: String,
    /// Why it has its priority.
    pub priority_reason: String,
    /// Its schedule.
    pub schedule: SiteSchedule,
    /// The guarantees still held.
    pub guarantees_held: Vec<Guarantee>,
}

/// What is due and overdue, by site.
#[derive(Debug, Clone, Serialize)]
pub struct DueAnswer {
    /// Counted to.
    pub as_of: NaiveDateTime,
    /// Duties due.
    pub due: usize,
    /// Duties overdue.
    pub overdue: usize,
    /// Stop-work orders in effect.
    pub stop_work_in_effect: usize,
    /// Each site not closed, with its schedule.
    pub sites: Vec<SiteSchedule>,
    /// Sites that could not be read, and why.
    pub unreadable: Vec<String>,
}

/// What a site command answers.
#[derive(Debug)]
pub enum SiteAnswer {
    /// One site.
    Site(Box<SiteView>),
    /// The sites asked for, and why the others could not be read.
    List {
        /// The sites.
        sites: Vec<Site>,
        /// The unreadable ones' reasons.
        unreadable: Vec<String>,
    },
    /// What is due.
    Due(DueAnswer),
    /// Rainfall records stored.
    Rainfall {
        /// Written (new or changed).
        written: u64,
        /// Already stored as given.
        unchanged: u64,
        /// The request was stored before under its idempotency key: nothing written.
        again: bool,
    },
    /// Rainfall records asked for.
    RainDays(Vec<RainDay>),
}

/// Why a site command did nothing.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// A field of the request is wrong.
    #[error("{0}")]
    Invalid(FieldError),
    /// The site named is not in the registry, or cannot be read.
    #[error("{0}")]
    NotFound(String),
    /// The site changed since the version the request was decided on.
    #[error("{0}")]
    Changed(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Every site of a snapshot, readable ones only, with the unreadable ones' reasons.
pub fn all_sites(snap: &crate::spatial::Snapshot) -> (Vec<Site>, Vec<String>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for f in &snap.layer(Layer::Sites).features {
        match Site::from_feature(f) {
            Ok(s) => ok.push(s),
            Err(e) => bad.push(e),
        }
    }
    (ok, bad)
}

fn view(reg: &Registry<'_>, site: Site, version: String, as_of: NaiveDateTime) -> SiteView {
    let rain = all_rain(reg.snap);
    SiteView {
        schedule: site_schedule(&site, reg.profile, &rain, as_of),
        priority_reason: priority(&site).1,
        guarantees_held: site.guarantees_held().into_iter().cloned().collect(),
        version,
        site,
    }
}

fn request(layer: Layer, by: &SiteRecorder) -> WriteRequest {
    WriteRequest {
        layer,
        mode: WriteMode::Upsert,
        actor: by.name.clone(),
        source: by.source.clone(),
    }
}

/// Runs one site command as `by`, counting schedules in its answer to `now`.
pub async fn run(
    reg: Registry<'_>,
    by: &SiteRecorder,
    now: NaiveDateTime,
    cmd: SiteCommand,
) -> Result<SiteAnswer, SiteError> {
    let (f, as_of) = match cmd {
        SiteCommand::Open(req) => (open_one(&reg, by, &req).await?, now),
        SiteCommand::Log {
            id,
            action,
            if_version,
        } => (log_one(&reg, by, &id, *action, if_version).await?, now),
        SiteCommand::Show { id, as_of } => {
            let f = reg
                .snap
                .layer(Layer::Sites)
                .get(&id)
                .ok_or_else(|| no_such(&id))?;
            (f.clone(), as_of)
        }
        SiteCommand::List { status } => {
            let (sites, unreadable) = all_sites(reg.snap);
            let sites = sites
                .into_iter()
                .filter(|s| status.is_none_or(|st| s.status == st))
                .collect();
            return Ok(SiteAnswer::List { sites, unreadable });
        }
        SiteCommand::Due { as_of } => return Ok(SiteAnswer::Due(due(&reg, as_of))),
        SiteCommand::Rainfall {
            days,
            idempotency_key,
        } => return store_rain(&reg, by, days, idempotency_key).await,
        SiteCommand::RainfallList { gauge, from, to } => {
            let rain = all_rain(reg.snap);
            return Ok(SiteAnswer::RainDays(rain_between(
                &rain,
                gauge.as_deref(),
                from,
                to,
            )));
        }
    };
    let site = Site::from_feature(&f).map_err(SiteError::NotFound)?;
    Ok(SiteAnswer::Site(Box::new(view(
        &reg,
        site,
        version(&f),
        as_of,
    ))))
}

/// Stores rainfall records under a client's key: a key whose records are stored already
/// with the same request answers what is stored and writes nothing; a key used for other
/// records is refused. The key and the request's digest are kept on each record written.
async fn store_rain(
    reg: &Registry<'_>,
    by: &SiteRecorder,
    days: Vec<RainDay>,
    key: Option<String>,
) -> Result<SiteAnswer, SiteError> {
    check_entries(&days).map_err(SiteError::Invalid)?;
    let digest = serde_json::to_string(&days)
        .map(|t| crate::store::profile::sha256_hex(&t))
        .unwrap_or_default();
    if let Some(k) = &key {
        let under_key =
            reg.snap.layer(Layer::Rainfall).features.iter().find(|f| {
                f.extra.get("idempotency_key").and_then(|v| v.as_str()) == Some(k.as_str())
            });
        if let Some(f) = under_key {
            if f.extra.get("request_sha256").and_then(|v| v.as_str()) == Some(digest.as_str()) {
                return Ok(SiteAnswer::Rainfall {
                    written: 0,
                    unchanged: days.len() as u64,
                    again: true,
                });
            }
            return Err(SiteError::Invalid(FieldError {
                field: "idempotency_key".into(),
                message: format!("{k:?} was used for other rainfall records; nothing was written (send a new key for a new request)"),
            }));
        }
    }
    let features = days
        .iter()
        .map(|d| {
            let mut f = d.to_feature(Some(&by.what));
            if let Some(k) = &key {
                f.extra.insert("idempotency_key".into(), k.clone().into());
                f.extra
                    .insert("request_sha256".into(), digest.clone().into());
            }
            f
        })
        .collect();
    let s = crate::store::write_all(
        reg.store,
        request(Layer::Rainfall, by),
        features,
        serde_json::json!({ "source": by.what }),
    )
    .await?;
    Ok(SiteAnswer::Rainfall {
        written: s.inserted + s.updated,
        unchanged: s.unchanged,
        again: false,
    })
}

/// Opens a site: checked and made from the snapshot, stored with its id allocated
/// inside the write's transaction (another process may open a site at the same time).
/// Returns the site's row as stored.
async fn open_one(
    reg: &Registry<'_>,
    by: &SiteRecorder,
    req: &OpenSite,
) -> Result<crate::domain::Feature, SiteError> {
    let (ids, _) = all_sites(reg.snap);
    let year = req.opened_on.unwrap_or(by.today).year();
    let preview = next_site_id_among(ids.iter().map(|s| s.site_id.as_str()), year);
    let site = open_site(reg.snap, req, preview, by.today).map_err(SiteError::Invalid)?;
    let make: crate::store::allocate::Allocate = Box::new(move |ids: &[String]| {
        let mut s = site;
        s.site_id = next_site_id_among(ids.iter().map(String::as_str), year);
        Ok(vec![s.to_feature()])
    });
    let (_, written) = reg
        .store
        .write_allocating(
            request(Layer::Sites, by),
            serde_json::json!({ "source": by.what }),
            make,
        )
        .await?;
    Ok(written
        .into_iter()
        .next()
        .ok_or_else(|| StoreError::Aborted("the write stored no site".into()))?)
}

/// Appends an action to the site's log as stored, inside the transaction that holds
/// its row ([`new_action`] checks it against that site). Returns the row as stored
/// after.
async fn log_one(
    reg: &Registry<'_>,
    by: &SiteRecorder,
    id: &str,
    action: SiteAction,
    if_version: Option<Vec<String>>,
) -> Result<crate::domain::Feature, SiteError> {
    if let Some(c) = &action.case_id {
        if reg.snap.layer(Layer::Cases).get(c).is_none() {
            return Err(SiteError::Invalid(FieldError {
                field: "case_id".into(),
                message: format!("no case has id {c:?}"),
            }));
        }
    }
    let smps = handed_over(reg, id, &action)?;
    let (recorded_by, today) = (by.name.clone(), by.today);
    let apply: Apply = Box::new(move |stored| {
        check_version(Layer::Sites, &stored, if_version.as_deref())?;
        let site = Site::from_feature(&stored).map_err(|reason| {
            StoreError::Unreadable(crate::store::UnreadableRow {
                layer: Layer::Sites,
                id: Some(stored.id.clone()),
                reason,
            })
        })?;
        let feature = match new_action(&site, action, &recorded_by, today) {
            Ok(Appended::Site(next)) => next.to_feature(),
            // Sent again with its key: the stored row as it is, which writes nothing.
            Ok(Appended::Again) => stored,
            Err(e) => {
                return Err(StoreError::Refused {
                    field: e.field,
                    message: e.message,
                })
            }
        };
        Ok(Edit {
            feature,
            others: smps
                .into_iter()
                .map(|f| Other {
                    layer: Layer::Smps,
                    id: f.id.clone(),
                    apply: Box::new(move |stored| match stored {
                        Some(_) => Err(StoreError::Refused {
                            field: "smps.asset_id".into(),
                            message: format!("an SMP {:?} is already in the registry", f.id),
                        }),
                        None => Ok(f),
                    }),
                })
                .collect(),
        })
    });
    let written = reg
        .store
        .update_feature(
            request(Layer::Sites, by),
            serde_json::json!({ "source": by.what }),
            id.to_string(),
            apply,
        )
        .await
        .map_err(|e| update_error(id, e))?;
    let f = written
        .into_iter()
        .find(|w| w.layer == Layer::Sites)
        .and_then(|w| w.features.into_iter().next());
    match f {
        Some(f) => Ok(f),
        // An action sent again wrote nothing: the site is as stored.
        None => crate::spatial::Snapshot::load(reg.store)
            .await?
            .layer(Layer::Sites)
            .get(id)
            .cloned()
            .ok_or_else(|| no_such(id)),
    }
}

/// The `smps` features a closing hands over, each placed by its footprint or at a point
/// inside the site's; an id the registry holds already is refused here and again inside
/// the write's transaction.
fn handed_over(
    reg: &Registry<'_>,
    site_id: &str,
    action: &SiteAction,
) -> Result<Vec<crate::domain::Feature>, SiteError> {
    use crate::domain::{Feature, Value};
    let l = Layer::Smps;
    let site_geom = reg
        .snap
        .layer(Layer::Sites)
        .get(site_id)
        .and_then(|f| f.geom.clone());
    let invalid =
        |field: String, message: String| SiteError::Invalid(FieldError { field, message });
    let mut out = Vec::new();
    for (i, m) in action.smps.iter().enumerate() {
        if reg.snap.layer(l).get(&m.asset_id).is_some() {
            return Err(invalid(
                format!("smps[{i}].asset_id"),
                format!("an SMP {:?} is already in the registry", m.asset_id),
            ));
        }
        let geom = match &m.footprint {
            Some(v) => {
                crate::answer::place::footprint_from_value(v, reg.snap.meta.srid, "footprint")
                    .map(geo_types::Geometry::MultiPolygon)
                    .map_err(|e| invalid(format!("smps[{i}].footprint"), e.to_string()))?
            }
            None => site_geom
                .as_ref()
                .and_then(geo::InteriorPoint::interior_point)
                .map(geo_types::Geometry::Point)
                .ok_or_else(|| {
                    invalid(
                        format!("smps[{i}].footprint"),
                        "the site has no footprint: give the SMP's".into(),
                    )
                })?,
        };
        let mut f = Feature::new(l, m.asset_id.clone());
        f.set(l, "practice_type", Value::Text(m.practice_type.clone()));
        f.set(l, "structural", Value::Bool(m.structural));
        f.set(l, "status", Value::Text("active".into()));
        f.geom = Some(geom);
        f.extra.insert("from_site".into(), site_id.into());
        if let Some(o) = &m.owner {
            f.extra.insert("owner".into(), o.clone().into());
        }
        if let Some(r) = &m.responsible_party {
            f.extra.insert("responsible_party".into(), r.clone().into());
        }
        out.push(f);
    }
    Ok(out)
}

/// What is due and overdue at every site not closed.
pub fn due(reg: &Registry<'_>, as_of: NaiveDateTime) -> DueAnswer {
    let (sites, unreadable) = all_sites(reg.snap);
    let rain = all_rain(reg.snap);
    let schedules: Vec<SiteSchedule> = sites
        .iter()
        .filter(|s| s.status != SiteStatus::Closed)
        .map(|s| site_schedule(s, reg.profile, &rain, as_of))
        .collect();
    DueAnswer {
        as_of,
        due: schedules.iter().map(|s| s.count("due")).sum(),
        overdue: schedules.iter().map(|s| s.count("overdue")).sum(),
        stop_work_in_effect: sites
            .iter()
            .filter(|s| s.status != SiteStatus::Closed)
            .map(|s| s.stop_work_in_effect().len())
            .sum(),
        sites: schedules,
        unreadable,
    }
}

fn no_such(id: &str) -> SiteError {
    SiteError::NotFound(format!("site {id:?}: no such site"))
}

/// A site update's error in the words the site commands use.
fn update_error(id: &str, e: StoreError) -> SiteError {
    match e {
        StoreError::NotFound { .. } => no_such(id),
        StoreError::Refused { field, message } => SiteError::Invalid(FieldError { field, message }),
        StoreError::Changed { .. } => SiteError::Changed(format!(
            "site {id:?} has changed since the version the request was made from: nothing was written; read it again"
        )),
        e => e.into(),
    }
}
