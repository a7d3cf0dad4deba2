//! Opening a case: by hand (a complaint or hotline report, with who reported it), from a
//! suspect or obvious screening, or from a connection `/api/illicit` finds illicit or
//! needing review. A case at an outfall lists its candidate sources, ranked.

use chrono::NaiveDate;
use serde::Deserialize;

use super::candidates::upstream_candidates;
use super::case::Case;
use super::respondent::{from_parcel_owner, given, Respondent, RespondentRequest};
use super::screening::FieldError;
use crate::answer::illicit::{illicit, IllicitParams};
use crate::answer::Ask;
use crate::domain::{text, Characterisation, InspectionKind, Layer, Origin};
use crate::spatial::connections::ms4_end;
use crate::spatial::query::FACILITY_LAYERS;

/// `POST /api/cases` and `ms4 case open`.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OpenCase {
    /// How it came to be opened.
    pub origin: Origin,
    /// The day (`YYYY-MM-DD`).
    pub opened_on: NaiveDate,
    /// Who reported it (required for a complaint or hotline report).
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub reported_by: Option<String>,
    /// What was reported.
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub description: Option<String>,
    /// The outfall or other asset.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub asset_id: Option<String>,
    /// The connection.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub connection_id: Option<String>,
    /// The parcel.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub parcel_id: Option<String>,
    /// The screening.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub inspection_id: Option<String>,
    /// Who the case is against; left out, the owner of its parcel as the parcels layer
    /// records it (the kind read from the name only where its words say it, else
    /// `unknown`).
    #[serde(default)]
    pub respondent: Option<RespondentRequest>,
}

impl OpenCase {
    /// A request to open a case of `origin` on a day, naming nothing yet.
    pub fn new(origin: Origin, opened_on: NaiveDate) -> Self {
        OpenCase {
            origin,
            opened_on,
            reported_by: None,
            description: None,
            asset_id: None,
            connection_id: None,
            parcel_id: None,
            inspection_id: None,
            respondent: None,
        }
    }
}

/// What a recorded inspection calls for.
#[derive(Debug, Clone)]
pub enum ScreeningCase {
    /// Nothing: not a dry-weather screening characterised suspect or obvious.
    None,
    /// A case is already open at its outfall: that one is named, no second opened.
    AlreadyOpen(String),
    /// A case to open at its outfall.
    Open(OpenCase),
}

/// Decides what an inspection just recorded (its properties as stored) calls for: a
/// suspect or obvious dry-weather screening opens a case at its outfall, unless one of
/// `cases` is open there already. One rule for `POST /api/inspections` and
/// `ms4 inspect`.
pub fn case_for_screening(
    inspection: &serde_json::Value,
    cases: &[Case],
    today: NaiveDate,
) -> ScreeningCase {
    let word = |name: &str| inspection[name].as_str().unwrap_or_default();
    let screening = word("kind").parse() == Ok(InspectionKind::DryWeatherScreening);
    let opens = word("characterisation")
        .parse::<Characterisation>()
        .is_ok_and(Characterisation::opens_case);
    if !(screening && opens) {
        return ScreeningCase::None;
    }
    let asset = word("asset_id");
    if let Some(c) = cases
        .iter()
        .find(|c| c.is_open() && c.asset_id.as_deref() == Some(asset))
    {
        return ScreeningCase::AlreadyOpen(c.case_id.clone());
    }
    let on = crate::domain::feature::parse_date(word("inspected_on")).unwrap_or(today);
    let mut req = OpenCase::new(Origin::Screening, on);
    req.description = Some(format!(
        "dry-weather screening characterised {}",
        word("characterisation")
    ));
    req.asset_id = Some(asset.to_string());
    req.inspection_id = inspection["inspection_id"].as_str().map(str::to_string);
    ScreeningCase::Open(req)
}

/// The `case` member of an inspection's answer: the case named (`opened: false`) or
/// opened (`opened: true`, with its candidates).
pub fn screening_case_json(case_id: &str, opened: Option<&Case>) -> serde_json::Value {
    match opened {
        None => serde_json::json!({"case_id": case_id, "opened": false}),
        Some(c) => {
            serde_json::json!({"case_id": c.case_id, "opened": true, "candidates": c.candidates})
        }
    }
}

fn err(field: &str, message: impl Into<String>) -> FieldError {
    FieldError {
        field: field.into(),
        message: message.into(),
    }
}

fn nonempty(s: &Option<String>) -> Option<String> {
    s.as_ref()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The respondent of a new case: as given, else the owner of its parcel (never guessed:
/// see [`super::respondent`]), else none on record.
fn respondent_of(
    snap: &crate::spatial::Snapshot,
    req: Option<&RespondentRequest>,
    parcel_id: Option<&str>,
) -> Result<Respondent, FieldError> {
    Ok(match (req, parcel_id) {
        (Some(r), _) => given(r, "respondent.")?,
        (None, Some(p)) => {
            let owner = snap
                .layer(Layer::Parcels)
                .get(p)
                .and_then(|f| f.get(Layer::Parcels, "owner").as_str().map(str::to_string));
            from_parcel_owner(p, owner.as_deref())
        }
        (None, None) => Respondent {
            reading: Some("no respondent given and no parcel named: give the respondent".into()),
            ..Respondent::default()
        },
    })
}

/// Checks a request and makes the case, with its candidates when it is at an asset of
/// the drainage network.
pub fn open_case(
    ask: &Ask<'_>,
    req: &OpenCase,
    case_id: String,
    by: &str,
    today: NaiveDate,
) -> Result<Case, FieldError> {
    let snap = ask.snap;
    if let Some(why) = text::past_day_problem(req.opened_on, today) {
        return Err(err("opened_on", why));
    }
    let reported_by = nonempty(&req.reported_by);
    if matches!(req.origin, Origin::Complaint | Origin::Hotline) && reported_by.is_none() {
        return Err(err(
            "reported_by",
            format!("a {} names who reported it (or \"anonymous\")", req.origin),
        ));
    }
    let asset_id = nonempty(&req.asset_id);
    let mut geom = None;
    if let Some(a) = &asset_id {
        let f = FACILITY_LAYERS
            .iter()
            .find_map(|l| snap.layer(*l).get(a))
            .ok_or_else(|| {
                err(
                    "asset_id",
                    format!("no catch basin, manhole, outfall, SMP or structure has id {a:?}"),
                )
            })?;
        // A case is a point (the layer's geometry): an SMP drawn as a pond is placed at a
        // point inside it.
        geom = f.geom.as_ref().and_then(|g| match g {
            geo_types::Geometry::Point(_) => Some(g.clone()),
            other => geo::InteriorPoint::interior_point(other).map(geo_types::Geometry::Point),
        });
    }
    let connection_id = nonempty(&req.connection_id);
    if let Some(c) = &connection_id {
        let f = snap
            .layer(Layer::Connections)
            .get(c)
            .ok_or_else(|| err("connection_id", format!("no connection has id {c:?}")))?;
        if geom.is_none() {
            geom = f
                .geom
                .as_ref()
                .and_then(ms4_end)
                .map(geo_types::Geometry::Point);
        }
    }
    let parcel_id = nonempty(&req.parcel_id).or_else(|| {
        connection_id
            .as_deref()
            .and_then(|c| snap.layer(Layer::Connections).get(c))
            .and_then(|f| f.get(Layer::Connections, "parcel_id").as_str())
            .map(str::to_string)
    });
    if let Some(p) = &parcel_id {
        if snap.layer(Layer::Parcels).get(p).is_none() {
            return Err(err("parcel_id", format!("no parcel has id {p:?}")));
        }
    }
    let inspection_id = nonempty(&req.inspection_id);
    if let Some(i) = &inspection_id {
        if snap.layer(Layer::Inspections).get(i).is_none() {
            return Err(err("inspection_id", format!("no inspection has id {i:?}")));
        }
    }
    if asset_id.is_none() && connection_id.is_none() && parcel_id.is_none() {
        return Err(err(
            "asset_id",
            "say where: an asset_id (the outfall), a connection_id or a parcel_id",
        ));
    }
    let candidates = match &asset_id {
        Some(a) => upstream_candidates(ask, a).map_err(|e| err("asset_id", e))?,
        None => Vec::new(),
    };
    let respondent = respondent_of(snap, req.respondent.as_ref(), parcel_id.as_deref())?;
    Ok(Case {
        case_id,
        opened_on: req.opened_on,
        origin: req.origin,
        status: crate::domain::CaseStatus::Open,
        reported_by,
        opened_by: Some(by.to_string()),
        description: nonempty(&req.description),
        asset_id,
        inspection_id,
        connection_id,
        parcel_id,
        closed_on: None,
        closure: None,
        closure_notes: None,
        referred_to: None,
        candidates,
        actions: Vec::new(),
        respondent,
        geom,
    })
}

/// The cases to open for connections found illicit or needing review that no case
/// names yet, as requests (opened `on`).
pub fn from_connections(
    ask: &Ask<'_>,
    cases: &[Case],
    on: NaiveDate,
) -> Result<Vec<OpenCase>, String> {
    let judged = illicit(ask, &IllicitParams::default()).map_err(|e| e.to_string())?;
    Ok(judged
        .connections
        .iter()
        .filter(|c| {
            !cases
                .iter()
                .any(|k| k.connection_id.as_deref() == Some(c.connection_id.as_str()))
        })
        .map(|c| {
            let mut req = OpenCase::new(Origin::Connection, on);
            req.description = Some(format!(
                "connection found {}: {}",
                c.finding.result.as_str(),
                c.finding.reasons.join("; ")
            ));
            req.connection_id = Some(c.connection_id.clone());
            req
        })
        .collect())
}

/// Stores a new case with its id allocated inside the write's transaction, under the
/// store's write lock (see [`crate::store::allocate`]): a server and a command, or two
/// commands, opening cases at once get distinct ids. Returns the case as stored.
pub async fn store_new_case(
    store: &dyn crate::store::Store,
    mut case: Case,
    actor: &str,
    source: &str,
    what: &str,
) -> crate::store::Result<Case> {
    let year = chrono::Datelike::year(&case.opened_on);
    let template = case.clone();
    let make: crate::store::allocate::Allocate = Box::new(move |ids: &[String]| {
        let mut c = template;
        c.case_id = super::case::next_case_id_among(ids.iter().map(String::as_str), year);
        Ok(vec![c.to_feature()])
    });
    let req = crate::store::WriteRequest {
        layer: Layer::Cases,
        mode: crate::store::WriteMode::Upsert,
        actor: actor.to_string(),
        source: source.to_string(),
    };
    let (_, written) = store
        .write_allocating(req, serde_json::json!({ "source": what }), make)
        .await?;
    if let Some(f) = written.first() {
        case.case_id = f.id.clone();
    }
    Ok(case)
}
