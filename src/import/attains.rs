//! EPA ATTAINS records, as saved answers of its web service (JSON), onto the registry's
//! receiving waters, impairments and TMDL areas.
//!
//! ATTAINS describes waters by assessment unit and TMDLs by action, without geometry.
//! The receiving waters and TMDL areas of a registry are drawn features, so the loader
//! never makes one: it updates the attributes of the features that already carry the
//! assessment unit's or the action's id (their own id, or a field named with `--join`,
//! `--tmdl-join`), and lists every record that matches none, with why. Impairments are a
//! table without geometry, and are written as rows.
//!
//! What is read, and how (see `README.md`, "EPA ATTAINS and WBD HUC-12"):
//!
//! - an assessment unit record (`assessmentUnits`): its name (filling a water's empty
//!   `name` only), water type and state use class (its classification: NY's AA, A, B, C,
//!   D, SA, SB...), kept as extra attributes;
//! - an assessment (`assessments`, one reporting cycle): the EPA IR category read as
//!   `listed_303d` ([`listed_from_category`]), the cycle, and, for a listed water, each
//!   cause not linked to an action as an impairment (pollutant, cycle, its probable
//!   sources);
//! - a TMDL action (`actions`, or a HUC's `plans`): its pollutants, date and waters, and
//!   the waste-load allocation of the MS4's permit (`--permit`) where the action lists it.
//!
//! The write is one transaction through the store's update path: each row is locked and
//! read as stored, the record's attributes are set on it, and it is written with its
//! audit as any upsert; a second run of the same files changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::NaiveDate;
use serde::Serialize;
use serde_json::Value as Json;

use super::error::{ImportError, Result};
use crate::domain::{Feature, Layer, Value};
use crate::store::update::{Edit, Other};
use crate::store::{Store, StoreError, WriteMode, WriteRequest, WriteSummary};

/// What the loader keeps as the source of the values it sets (an extra attribute).
const SOURCE_WORDS: &str = "EPA ATTAINS";

/// What to load and how.
#[derive(Debug, Clone)]
pub struct AttainsOptions {
    /// The saved JSON answers.
    pub paths: Vec<PathBuf>,
    /// The receiving waters' field (canonical or extra) holding the assessment unit id;
    /// `None` for their own id (`water_id`).
    pub join: Option<String>,
    /// The TMDL areas' field holding the ATTAINS action id; `None` for `tmdl_id`.
    pub tmdl_join: Option<String>,
    /// The MS4's NPDES / SPDES permit ids, whose waste-load allocations are read.
    pub permits: Vec<String>,
    /// Report only; write nothing.
    pub dry_run: bool,
    /// Who loads (for the audit log).
    pub actor: String,
}

/// How an EPA IR category reads as a 303(d) listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    /// Category 5 or one of its variants: on the 303(d) list.
    Yes,
    /// Categories 1 to 4C: assessed, not on the list.
    No,
    /// No category, or one not read here: not a "yes", for review.
    Unknown,
}

/// Reads an EPA IR category. Category 5 is the 303(d) list; its variants stay on it: 5A
/// (ATTAINS's code for "5-alt", an alternative restoration approach), 5R (restoration
/// plan pending) and 5M (mercury, under a statewide reduction programme). Categories 1,
/// 2, 3, 4A, 4B and 4C are off it (4A has a TMDL, 4B other controls, 4C no pollutant).
/// Anything else, a bare "4" included, is not guessed at.
pub fn listed_from_category(category: Option<&str>) -> Listed {
    let Some(c) = category else {
        return Listed::Unknown;
    };
    let c: String = c
        .chars()
        .filter(|ch| !ch.is_whitespace() && *ch != '-')
        .collect::<String>()
        .to_ascii_uppercase();
    match c.as_str() {
        "5" | "5A" | "5ALT" | "5R" | "5M" => Listed::Yes,
        "1" | "2" | "3" | "4A" | "4B" | "4C" => Listed::No,
        _ => Listed::Unknown,
    }
}

/// An assessment unit's description.
#[derive(Debug, Clone, Default)]
struct Unit {
    name: Option<String>,
    water_type: Option<String>,
    classification: Option<String>,
}

/// A cause of impairment in an assessment.
#[derive(Debug, Clone)]
struct Cause {
    pollutant: String,
    sources: Vec<String>,
    actions: Vec<String>,
    first_listed: Option<String>,
}

/// One assessment of a unit in one reporting cycle.
#[derive(Debug, Clone)]
struct Assessment {
    cycle: Option<i64>,
    category: Option<String>,
    causes: Vec<Cause>,
}

/// A water an action names, with its pollutants and the MS4's allocations.
#[derive(Debug, Clone, Default)]
struct ActionWater {
    unit: String,
    pollutants: Vec<String>,
    /// (permit, allocation in words) for the MS4's permits.
    allocations: Vec<(String, String)>,
    /// Every permit the water's allocations name.
    permits: Vec<String>,
}

/// An action (a TMDL, or another kind, which is not loaded).
#[derive(Debug, Clone)]
struct Action {
    id: String,
    name: Option<String>,
    kind: Option<String>,
    date: Option<NaiveDate>,
    waters: Vec<ActionWater>,
}

/// Everything read from the files.
#[derive(Debug, Default)]
struct Records {
    units: BTreeMap<String, Unit>,
    assessments: BTreeMap<String, Assessment>,
    actions: BTreeMap<String, Action>,
}

/// A record the loader could not place, or a reading to review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// `assessment unit`, `TMDL action`, `action` or `cause`.
    pub record: String,
    /// The record's ATTAINS id.
    pub id: String,
    /// Why, in words.
    pub reason: String,
}

/// What happened (or would happen) to one layer.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LayerOutcome {
    /// The layer.
    pub layer: String,
    /// Features matched (or rows made) from the records.
    pub touched: u64,
    /// Of those, features new to the layer.
    pub new: u64,
    /// Of those, features whose values the records change.
    pub changed: u64,
    /// What the write did (absent for a dry run, or when nothing was written).
    pub written: Option<WriteSummary>,
}

/// Counts of the records read.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RecordCounts {
    /// Assessment unit descriptions.
    pub assessment_units: u64,
    /// Assessments (one per unit, the latest cycle kept).
    pub assessments: u64,
    /// Actions.
    pub actions: u64,
}

/// The load's report.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AttainsReport {
    /// The files read.
    pub sources: Vec<String>,
    /// The records read.
    pub records: RecordCounts,
    /// Per layer: receiving waters, impairments, TMDL areas.
    pub layers: Vec<LayerOutcome>,
    /// Records no feature carries, with why; nothing is made for them.
    pub unmatched: Vec<Note>,
    /// Readings to review: unknown IR categories, causes set aside, actions not loaded.
    pub review: Vec<Note>,
    /// True when nothing was written.
    pub dry_run: bool,
}

/// Loads ATTAINS records into a registry and returns the report; a dry run writes no
/// feature and is recorded in the import log.
pub async fn import_attains(store: Arc<dyn Store>, opts: AttainsOptions) -> Result<AttainsReport> {
    let mut records = Records::default();
    let mut report = AttainsReport {
        dry_run: opts.dry_run,
        ..Default::default()
    };
    for p in &opts.paths {
        read_file(p, &mut records)?;
        report.sources.push(file_name(p));
    }
    report.records = RecordCounts {
        assessment_units: records.units.len() as u64,
        assessments: records.assessments.len() as u64,
        actions: records.actions.len() as u64,
    };
    let stored = Stored::load(store.as_ref(), &opts).await?;
    let changes = decide(&records, &stored, &opts, &mut report);
    explain(&changes, &stored, &mut report);
    let source = report.sources.join(", ");
    if opts.dry_run || changes.is_empty() {
        let req = WriteRequest {
            layer: Layer::ReceivingWaters,
            mode: WriteMode::Upsert,
            actor: opts.actor.clone(),
            source: if opts.dry_run {
                format!("{source} (dry run)")
            } else {
                source
            },
        };
        let json = serde_json::to_value(&report).unwrap_or_default();
        crate::store::write_all(store.as_ref(), req, Vec::new(), json).await?;
        return Ok(report);
    }
    let written = write(
        store.as_ref(),
        changes,
        &stored,
        &opts.actor,
        source,
        &report,
    )
    .await?;
    for (layer, summary) in written {
        if let Some(o) = report.layers.iter_mut().find(|o| o.layer == layer.name()) {
            o.written = Some(summary);
        }
    }
    Ok(report)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

// ---------------------------------------------------------------- reading the files

/// Reads one saved answer, by its shape: `items[].assessmentUnits`, `items[].assessments`
/// (with the item's `reportingCycleText`), `items[].actions`, or `items[]` that are
/// actions themselves (a HUC's `plans`).
fn read_file(path: &Path, into: &mut Records) -> Result<()> {
    let shown = path.display().to_string();
    let open = |message: String| ImportError::Refused(format!("{shown}: {message}"));
    let text = std::fs::read_to_string(path).map_err(|e| open(format!("cannot be read: {e}")))?;
    let json: Json = serde_json::from_str(&text).map_err(|e| {
        open(format!(
            "is not JSON as the ATTAINS web service writes it: {e}"
        ))
    })?;
    let refuse = |what: &str| {
        ImportError::Refused(format!(
            "{shown}: {what}: give saved answers of ATTAINS's assessmentUnits, assessments, actions or plans service"
        ))
    };
    let items = json
        .get("items")
        .and_then(Json::as_array)
        .ok_or_else(|| refuse("holds no `items` list"))?;
    let before = (into.units.len(), into.assessments.len(), into.actions.len());
    let mut summaries = 0;
    for item in items {
        if let Some(units) = item.get("assessmentUnits").and_then(Json::as_array) {
            for u in units {
                read_unit(u, into);
            }
        }
        if let Some(list) = item.get("assessments").and_then(Json::as_array) {
            let cycle = text_of(item, "reportingCycleText").and_then(|c| c.parse().ok());
            for a in list {
                read_assessment(a, cycle, into);
            }
        }
        if let Some(list) = item.get("actions").and_then(Json::as_array) {
            for a in list {
                read_action(a, into);
            }
        }
        if item.get("actionIdentifier").is_some() {
            read_action(item, into);
        }
        if item.get("huc12").is_some() || item.get("summaryByIRCategory").is_some() {
            summaries += 1;
        }
    }
    let after = (into.units.len(), into.assessments.len(), into.actions.len());
    if after == before && !items.is_empty() {
        let what = if summaries > 0 {
            "a summary (counts and areas by HUC or state), which describes no single water"
        } else {
            "no assessment unit, assessment or action record"
        };
        return Err(refuse(&format!("holds {what}")));
    }
    Ok(())
}

/// A text member, trimmed; blank is none.
fn text_of(v: &Json, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Json::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The objects of an array member (none when absent).
fn list<'a>(v: &'a Json, key: &str) -> impl Iterator<Item = &'a Json> {
    v.get(key)
        .and_then(Json::as_array)
        .map(|a| a.iter())
        .into_iter()
        .flatten()
}

fn read_unit(u: &Json, into: &mut Records) {
    let Some(id) = text_of(u, "assessmentUnitIdentifier") else {
        return;
    };
    let water_types: Vec<String> = list(u, "waterTypes")
        .filter_map(|w| text_of(w, "waterTypeCode"))
        .collect();
    let class = u
        .get("useClass")
        .and_then(|c| text_of(c, "useClassName").or_else(|| text_of(c, "useClassCode")));
    into.units.insert(
        id,
        Unit {
            name: text_of(u, "assessmentUnitName"),
            water_type: (!water_types.is_empty()).then(|| water_types.join(", ")),
            classification: class,
        },
    );
}

fn read_assessment(a: &Json, cycle: Option<i64>, into: &mut Records) {
    let Some(id) = text_of(a, "assessmentUnitIdentifier") else {
        return;
    };
    let sources: Vec<(String, Vec<String>)> = list(a, "probableSources")
        .filter_map(|s| {
            let name = text_of(s, "sourceName")?;
            let causes = list(s, "associatedCauseNames")
                .filter_map(|c| text_of(c, "causeName"))
                .collect();
            Some((name, causes))
        })
        .collect();
    let causes = list(a, "parameters")
        .filter(|p| text_of(p, "parameterStatusName").as_deref() == Some("Cause"))
        .filter_map(|p| {
            let pollutant = text_of(p, "parameterName")?;
            let mut of_it: Vec<String> = sources
                .iter()
                .filter(|(_, c)| c.contains(&pollutant))
                .map(|(s, _)| s.clone())
                .collect();
            of_it.sort();
            Some(Cause {
                actions: list(p, "associatedActions")
                    .filter_map(|x| text_of(x, "associatedActionIdentifier"))
                    .collect(),
                first_listed: p
                    .get("impairedWatersInformation")
                    .and_then(|i| i.get("listingInformation"))
                    .and_then(|l| text_of(l, "cycleFirstListedText")),
                sources: of_it,
                pollutant,
            })
        })
        .collect();
    let next = Assessment {
        cycle,
        category: text_of(a, "epaIRCategory"),
        causes,
    };
    // Several cycles of one unit: the latest is the unit's standing.
    match into.assessments.get(&id) {
        Some(had) if had.cycle >= next.cycle => {}
        _ => {
            into.assessments.insert(id, next);
        }
    }
}

fn read_action(a: &Json, into: &mut Records) {
    let Some(id) = text_of(a, "actionIdentifier") else {
        return;
    };
    let date = a
        .get("TMDLReportDetails")
        .and_then(|d| text_of(d, "TMDLDate"))
        .or_else(|| text_of(a, "completionDate"))
        .and_then(|d| crate::domain::feature::parse_date(&d));
    let waters = a
        .get("associatedWaters")
        .map(|w| {
            list(w, "specificWaters")
                .filter_map(|w| {
                    let unit = text_of(w, "assessmentUnitIdentifier")?;
                    let mut out = ActionWater {
                        unit,
                        ..Default::default()
                    };
                    for p in list(w, "associatedPollutants") {
                        if let Some(name) = text_of(p, "pollutantName") {
                            out.pollutants.push(name);
                        }
                        for permit in list(p, "permits") {
                            let Some(pid) = text_of(permit, "NPDESIdentifier") else {
                                continue;
                            };
                            for d in list(permit, "details") {
                                out.allocations.push((pid.clone(), allocation_words(d)));
                            }
                            out.permits.push(pid);
                        }
                    }
                    Some(out)
                })
                .collect()
        })
        .unwrap_or_default();
    into.actions.insert(
        id.clone(),
        Action {
            id,
            name: text_of(a, "actionName"),
            kind: text_of(a, "actionTypeCode"),
            date,
            waters,
        },
    );
}

/// A waste-load allocation in words: `7.04E10 MPN/100ML`, with its season when given.
fn allocation_words(d: &Json) -> String {
    let value = match d.get("wasteLoadAllocationNumeric") {
        Some(Json::Number(n)) => n.to_string(),
        Some(Json::String(s)) => s.trim().to_string(),
        _ => "no value".to_string(),
    };
    let unit = text_of(d, "wasteLoadAllocationUnitsText").unwrap_or_default();
    let season = match (text_of(d, "seasonStartText"), text_of(d, "seasonEndText")) {
        (Some(a), Some(b)) => format!(" ({a} to {b})"),
        _ => String::new(),
    };
    format!("{value} {unit}{season}").trim().to_string()
}

// ---------------------------------------------------------------- the registry as it is

/// The registry's features the records may land on.
struct Stored {
    waters: BTreeMap<String, Feature>,
    tmdls: BTreeMap<String, Feature>,
    impairments: BTreeMap<String, Feature>,
    /// Assessment unit id → the water ids carrying it.
    water_by_unit: BTreeMap<String, Vec<String>>,
    /// Action id → the TMDL ids carrying it.
    tmdl_by_action: BTreeMap<String, Vec<String>>,
}

impl Stored {
    async fn load(store: &dyn Store, opts: &AttainsOptions) -> Result<Self> {
        let by_id = |v: Vec<Feature>| -> BTreeMap<String, Feature> {
            v.into_iter().map(|f| (f.id.clone(), f)).collect()
        };
        let waters = by_id(store.features(Layer::ReceivingWaters).await?);
        let tmdls = by_id(store.features(Layer::TmdlAreas).await?);
        let impairments = by_id(store.features(Layer::Impairments).await?);
        let water_by_unit = keyed(&waters, Layer::ReceivingWaters, opts.join.as_deref());
        let tmdl_by_action = keyed(&tmdls, Layer::TmdlAreas, opts.tmdl_join.as_deref());
        Ok(Stored {
            waters,
            tmdls,
            impairments,
            water_by_unit,
            tmdl_by_action,
        })
    }

    fn layer(&self, layer: Layer) -> &BTreeMap<String, Feature> {
        match layer {
            Layer::ReceivingWaters => &self.waters,
            Layer::TmdlAreas => &self.tmdls,
            _ => &self.impairments,
        }
    }
}

/// The features by the value of `field` (their id when `None` or the id field's name),
/// a canonical field or an extra attribute.
fn keyed(
    features: &BTreeMap<String, Feature>,
    layer: Layer,
    field: Option<&str>,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for f in features.values() {
        let key = match field {
            None => Some(f.id.clone()),
            Some(n) if n == layer.id_field() => Some(f.id.clone()),
            Some(n) => match f.properties(layer).get(n) {
                Some(Json::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
                // A numeric column (a shapefile's action ids) reads 64089, not 64089.0.
                Some(Json::Number(x)) => Some(match x.as_f64() {
                    Some(r) if x.is_f64() && r.fract() == 0.0 && r.abs() < 9e15 => {
                        (r as i64).to_string()
                    }
                    _ => x.to_string(),
                }),
                _ => None,
            },
        };
        if let Some(k) = key {
            out.entry(k).or_default().push(f.id.clone());
        }
    }
    out
}

// ---------------------------------------------------------------- deciding

/// What to set on one row.
#[derive(Debug, Clone)]
struct Change {
    layer: Layer,
    id: String,
    /// Canonical values to set.
    set: Vec<(&'static str, Value)>,
    /// Canonical values to set only where the row has none.
    fill: Vec<(&'static str, Value)>,
    /// Extra attributes to set.
    extra: Vec<(String, Json)>,
}

impl Change {
    fn new(layer: Layer, id: &str) -> Self {
        Change {
            layer,
            id: id.to_string(),
            set: Vec::new(),
            fill: Vec::new(),
            extra: Vec::new(),
        }
    }

    /// The row with the record's attributes set on it; a row that is gone is made only
    /// for a table without geometry (an impairment), never for a drawn feature.
    fn apply(&self, stored: Option<Feature>) -> std::result::Result<Feature, StoreError> {
        let mut f = match stored {
            Some(f) => f,
            None if self.layer.geom_kind() == crate::domain::GeomKind::None => {
                Feature::new(self.layer, self.id.clone())
            }
            None => {
                return Err(StoreError::NotFound {
                    layer: self.layer,
                    id: self.id.clone(),
                })
            }
        };
        for (name, v) in &self.set {
            f.set(self.layer, name, v.clone());
        }
        for (name, v) in &self.fill {
            if f.get(self.layer, name).is_null() {
                f.set(self.layer, name, v.clone());
            }
        }
        for (k, v) in &self.extra {
            f.extra.insert(k.clone(), v.clone());
        }
        Ok(f)
    }
}

fn text(s: &str) -> Value {
    Value::Text(s.to_string())
}

/// Every change the records make, keyed by layer and id (one per row).
fn decide(
    records: &Records,
    stored: &Stored,
    opts: &AttainsOptions,
    report: &mut AttainsReport,
) -> BTreeMap<(Layer, String), Change> {
    let mut changes: BTreeMap<(Layer, String), Change> = BTreeMap::new();
    let join_words = opts.join.as_deref().unwrap_or("water_id");
    let units: BTreeSet<&String> = records
        .units
        .keys()
        .chain(records.assessments.keys())
        .collect();
    for unit in units {
        let waters = stored.water_by_unit.get(unit.as_str());
        let description = records.units.get(unit.as_str());
        let assessment = records.assessments.get(unit.as_str());
        let listed = assessment.map(|a| listed_from_category(a.category.as_deref()));
        if waters.is_none() {
            let causes: Vec<&str> = match (assessment, &listed) {
                (Some(a), Some(Listed::Yes)) => {
                    a.causes.iter().map(|c| c.pollutant.as_str()).collect()
                }
                _ => Vec::new(),
            };
            report.unmatched.push(Note {
                record: "assessment unit".into(),
                id: unit.clone(),
                reason: format!(
                    "no receiving water has {join_words} = {unit}; ATTAINS records carry no geometry, so none is made: draw or import the water with this id (or give --join the field that holds it), then run again{}",
                    if causes.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (it is 303(d)-listed; its causes {} are not written as impairments either)",
                            causes.join(", ")
                        )
                    }
                ),
            });
        }
        if let (Some(a), Some(Listed::Unknown)) = (assessment, &listed) {
            report.review.push(Note {
                record: "assessment unit".into(),
                id: unit.clone(),
                reason: format!(
                    "EPA IR category {} is not one read here (1, 2, 3, 4A, 4B, 4C; 5, 5A, 5R, 5M): listed_303d is left as it is, for review",
                    a.category.as_deref().map_or("(none)".to_string(), |c| format!("{c:?}"))
                ),
            });
        }
        for water in waters.into_iter().flatten() {
            let c = changes
                .entry((Layer::ReceivingWaters, water.clone()))
                .or_insert_with(|| Change::new(Layer::ReceivingWaters, water));
            c.extra
                .push(("assessment_unit_id".into(), unit.clone().into()));
            c.extra.push(("listing_source".into(), SOURCE_WORDS.into()));
            if let Some(d) = description {
                if let Some(n) = &d.name {
                    c.fill.push(("name", text(n)));
                    c.extra
                        .push(("assessment_unit_name".into(), n.clone().into()));
                }
                if let Some(t) = &d.water_type {
                    c.extra.push(("water_type".into(), t.clone().into()));
                }
                if let Some(k) = &d.classification {
                    c.extra.push(("classification".into(), k.clone().into()));
                }
            }
            if let Some(a) = assessment {
                match listed {
                    Some(Listed::Yes) => c.set.push(("listed_303d", Value::Bool(true))),
                    Some(Listed::No) => c.set.push(("listed_303d", Value::Bool(false))),
                    _ => {}
                }
                if let Some(k) = &a.category {
                    c.extra.push(("ir_category".into(), k.clone().into()));
                }
                if let Some(y) = a.cycle {
                    c.extra.push(("cycle".into(), y.into()));
                }
            }
        }
        if let (Some(a), Some(Listed::Yes), Some(w)) = (assessment, &listed, waters) {
            impairments(unit, a, w, &mut changes, report);
        }
    }
    tmdls(records, stored, opts, &mut changes, report);
    changes
}

/// The causes of a listed unit's assessment as impairment rows of each water carrying
/// it (a unit no water carries is reported, not written: a statewide file would
/// otherwise fill the table with other towns' waters). A cause linked to an action is
/// set aside: the action (a TMDL, or another restoration plan) addresses it.
fn impairments(
    unit: &str,
    a: &Assessment,
    waters: &[String],
    changes: &mut BTreeMap<(Layer, String), Change>,
    report: &mut AttainsReport,
) {
    for cause in &a.causes {
        if !cause.actions.is_empty() {
            report.review.push(Note {
                record: "cause".into(),
                id: format!("{unit}: {}", cause.pollutant),
                reason: format!(
                    "linked to action(s) {}: not written as a 303(d) listing (a TMDL or another restoration plan addresses it)",
                    cause.actions.join(", ")
                ),
            });
            continue;
        }
        for water in waters {
            let cycle = a.cycle.map(|c| c.to_string()).unwrap_or_default();
            // The id the importer derives for a row without one (water:pollutant:cycle).
            let id = format!("{water}:{}:{cycle}", cause.pollutant);
            let mut c = Change::new(Layer::Impairments, &id);
            c.set.push(("water_id", text(water)));
            c.set.push(("pollutant", text(&cause.pollutant)));
            c.set.push((
                "sources",
                if cause.sources.is_empty() {
                    Value::Null
                } else {
                    text(&cause.sources.join("; "))
                },
            ));
            c.set
                .push(("cycle", a.cycle.map(Value::Int).unwrap_or(Value::Null)));
            c.extra
                .push(("assessment_unit_id".into(), unit.to_string().into()));
            if let Some(f) = &cause.first_listed {
                c.extra
                    .push(("cycle_first_listed".into(), f.clone().into()));
            }
            c.extra.push(("listing_source".into(), SOURCE_WORDS.into()));
            changes.insert((Layer::Impairments, id), c);
        }
    }
}

/// The TMDL actions onto the TMDL areas carrying their ids.
fn tmdls(
    records: &Records,
    stored: &Stored,
    opts: &AttainsOptions,
    changes: &mut BTreeMap<(Layer, String), Change>,
    report: &mut AttainsReport,
) {
    let join_words = opts.tmdl_join.as_deref().unwrap_or("tmdl_id");
    for action in records.actions.values() {
        if action.kind.as_deref() != Some("TMDL") {
            report.review.push(Note {
                record: "action".into(),
                id: action.id.clone(),
                reason: format!(
                    "a {} action, not a TMDL: not loaded",
                    action.kind.as_deref().unwrap_or("(kind not given)")
                ),
            });
            continue;
        }
        let Some(areas) = stored.tmdl_by_action.get(&action.id) else {
            report.unmatched.push(Note {
                record: "TMDL action".into(),
                id: action.id.clone(),
                reason: format!(
                    "no TMDL area has {join_words} = {}; ATTAINS records carry no geometry, so none is made: draw or import the area with this id (or give --tmdl-join the field that holds it), then run again",
                    action.id
                ),
            });
            continue;
        };
        let mut pollutants: Vec<&str> = action
            .waters
            .iter()
            .flat_map(|w| w.pollutants.iter().map(String::as_str))
            .collect();
        pollutants.sort();
        pollutants.dedup();
        let mut waters: Vec<String> = action
            .waters
            .iter()
            .flat_map(|w| {
                stored
                    .water_by_unit
                    .get(&w.unit)
                    .cloned()
                    .unwrap_or_else(|| vec![w.unit.clone()])
            })
            .collect();
        waters.sort();
        waters.dedup();
        let ours: Vec<String> = action
            .waters
            .iter()
            .flat_map(|w| {
                w.allocations
                    .iter()
                    .filter(|(p, _)| opts.permits.iter().any(|m| m.eq_ignore_ascii_case(p)))
                    .map(move |(p, a)| format!("{}: {a} (permit {p})", w.unit))
            })
            .collect();
        let listed_here = action.waters.iter().any(|w| {
            w.permits
                .iter()
                .any(|p| opts.permits.iter().any(|m| m.eq_ignore_ascii_case(p)))
        });
        if !opts.permits.is_empty() && !listed_here {
            report.review.push(Note {
                record: "TMDL action".into(),
                id: action.id.clone(),
                reason: format!(
                    "lists no waste-load allocation for permit {}: the MS4's share is not recorded here",
                    opts.permits.join(", ")
                ),
            });
        }
        for area in areas {
            let mut c = Change::new(Layer::TmdlAreas, area);
            if !pollutants.is_empty() {
                c.set.push(("pollutant", text(&pollutants.join("; "))));
            }
            if let Some(d) = action.date {
                c.set.push(("approved_on", Value::Date(d)));
            }
            if !waters.is_empty() {
                c.set.push(("waters", text(&waters.join(", "))));
            }
            if listed_here {
                c.set.push(("stormwater_source", Value::Bool(true)));
            }
            c.extra
                .push(("attains_action_id".into(), action.id.clone().into()));
            if let Some(n) = &action.name {
                c.extra.push(("action_name".into(), n.clone().into()));
            }
            if !ours.is_empty() {
                c.extra
                    .push(("ms4_wasteload_allocation".into(), ours.join("; ").into()));
            }
            c.extra.push(("listing_source".into(), SOURCE_WORDS.into()));
            changes.insert((Layer::TmdlAreas, area.clone()), c);
        }
    }
}

/// Counts, per layer, the rows touched, new and changed, against the rows as read.
fn explain(
    changes: &BTreeMap<(Layer, String), Change>,
    stored: &Stored,
    report: &mut AttainsReport,
) {
    for layer in [Layer::ReceivingWaters, Layer::Impairments, Layer::TmdlAreas] {
        let mut o = LayerOutcome {
            layer: layer.name().into(),
            ..Default::default()
        };
        for c in changes.values().filter(|c| c.layer == layer) {
            o.touched += 1;
            let before = stored.layer(layer).get(&c.id).cloned();
            match c.apply(before.clone()) {
                Ok(_) if before.is_none() => o.new += 1,
                Ok(after) if Some(&after) != before.as_ref() => o.changed += 1,
                _ => {}
            }
        }
        report.layers.push(o);
    }
}

// ---------------------------------------------------------------- writing

/// Writes every change in one transaction: a row that exists is the update's own row,
/// the others follow it, each locked and read as stored before its attributes are set.
async fn write(
    store: &dyn Store,
    changes: BTreeMap<(Layer, String), Change>,
    stored: &Stored,
    actor: &str,
    source: String,
    report: &AttainsReport,
) -> Result<Vec<(Layer, WriteSummary)>> {
    let json = serde_json::to_value(report).unwrap_or_default();
    let mut changes: Vec<Change> = changes.into_values().collect();
    let first = changes
        .iter()
        .position(|c| stored.layer(c.layer).contains_key(&c.id));
    let Some(first) = first else {
        // Only new impairment rows: a plain write of them.
        let features = changes
            .iter()
            .map(|c| c.apply(None))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let req = WriteRequest {
            layer: Layer::Impairments,
            mode: WriteMode::Upsert,
            actor: actor.to_string(),
            source,
        };
        let s = crate::store::write_all(store, req, features, json).await?;
        return Ok(vec![(Layer::Impairments, s)]);
    };
    let main = changes.remove(first);
    let others: Vec<Other> = changes
        .into_iter()
        .map(|c| Other {
            layer: c.layer,
            id: c.id.clone(),
            apply: Box::new(move |f| c.apply(f)),
        })
        .collect();
    let req = WriteRequest {
        layer: main.layer,
        mode: WriteMode::Upsert,
        actor: actor.to_string(),
        source,
    };
    let id = main.id.clone();
    let written = store
        .update_feature(
            req,
            json,
            id,
            Box::new(move |f| {
                Ok(Edit {
                    feature: main.apply(Some(f))?,
                    others,
                })
            }),
        )
        .await?;
    Ok(written.into_iter().map(|w| (w.layer, w.summary)).collect())
}

// ---------------------------------------------------------------- the report in words

impl fmt::Display for AttainsReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "import EPA ATTAINS <- {}", self.sources.join(", "))?;
        writeln!(
            f,
            "  records    {} assessment units, {} assessments, {} actions",
            self.records.assessment_units, self.records.assessments, self.records.actions
        )?;
        for o in &self.layers {
            write!(
                f,
                "  {:<17} {} matched or made: {} new, {} changed{}",
                o.layer,
                o.touched,
                o.new,
                o.changed,
                if self.dry_run {
                    " (dry run: nothing written)"
                } else {
                    ""
                }
            )?;
            if let Some(w) = &o.written {
                write!(
                    f,
                    "; written {} inserted, {} updated, {} unchanged (import #{})",
                    w.inserted, w.updated, w.unchanged, w.import_id
                )?;
            }
            writeln!(f)?;
        }
        const SHOW: usize = 50;
        for (title, notes) in [("unmatched", &self.unmatched), ("review", &self.review)] {
            for n in notes.iter().take(SHOW) {
                writeln!(f, "  {title}: {} {}: {}", n.record, n.id, n.reason)?;
            }
            if notes.len() > SHOW {
                writeln!(
                    f,
                    "  ... and {} more {title} (use --format json for all)",
                    notes.len() - SHOW
                )?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[rstest]
    #[case(Some("5"), Listed::Yes)]
    #[case(Some("5A"), Listed::Yes)]
    #[case(Some("5-alt"), Listed::Yes)]
    #[case(Some("5R"), Listed::Yes)]
    #[case(Some("5m"), Listed::Yes)]
    #[case(Some("4A"), Listed::No)]
    #[case(Some("4C"), Listed::No)]
    #[case(Some("1"), Listed::No)]
    #[case(Some("3"), Listed::No)]
    #[case(Some("4"), Listed::Unknown)]
    #[case(Some("X"), Listed::Unknown)]
    #[case(None, Listed::Unknown)]
    fn ir_categories_read_as_listings(#[case] category: Option<&str>, #[case] want: Listed) {
        assert_eq!(listed_from_category(category), want);
    }

    #[test]
    fn allocations_read_with_their_unit() {
        let d: Json = serde_json::json!({"wasteLoadAllocationNumeric": 7.04E10, "wasteLoadAllocationUnitsText": "MPN/100ML", "seasonStartText": null, "seasonEndText": null});
        assert_eq!(allocation_words(&d), "70400000000.0 MPN/100ML");
    }
}
