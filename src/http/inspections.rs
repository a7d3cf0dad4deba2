//! Inspections: an inspector records one (`POST /api/inspections`); anyone who may read
//! lists them per asset or per watershed. They feed "last inspection" and "overdue" in
//! every answer, because a write here is applied to the snapshot as it commits.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use chrono::NaiveDate;
use geo::Intersects;
use serde::Deserialize;

use super::extract::Body;
use super::{AppState, Caller, HttpError};
use crate::domain::{text, Feature, Layer, Value};
use crate::spatial::query::FACILITY_LAYERS;
use crate::spatial::snapshot::IDEMPOTENCY_KEY;
use crate::store::{WriteMode, WriteRequest};

pub(super) fn read_router() -> Router<AppState> {
    Router::new()
        .route("/assets/{id}/inspections", get(of_asset))
        .route("/watersheds/{id}/inspections", get(of_watershed))
}

pub(super) fn write_router() -> Router<AppState> {
    Router::new().route("/inspections", post(create))
}

/// The kinds of inspection, each of one kind of asset.
pub const KINDS: [(&str, Layer); 3] = [
    ("dry_weather_screening", Layer::Outfalls),
    ("smp_maintenance", Layer::Smps),
    ("catch_basin_cleaning", Layer::CatchBasins),
];

/// What an outfall's dry-weather screening observed: the field form's fields
/// ([`crate::idde::screening`]).
pub use crate::idde::Screening;

/// `POST /api/inspections`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewInspection {
    /// The asset inspected.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub asset_id: String,
    /// When, `YYYY-MM-DD`.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub inspected_on: String,
    /// dry_weather_screening, smp_maintenance or catch_basin_cleaning.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub kind: String,
    /// Who inspected (defaults to the token's subject).
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub inspector: Option<String>,
    /// pass, fail, needs_follow_up or the program's own word.
    #[serde(deserialize_with = "text::line")]
    #[schemars(length(max = 1024))]
    pub result: String,
    /// Free text.
    #[serde(default, deserialize_with = "text::note_opt")]
    #[schemars(length(max = 65536))]
    pub notes: Option<String>,
    /// Dry-weather screening observations (outfalls only).
    pub screening: Option<Screening>,
    /// Where the inspector stood (WGS 84), kept with the inspection.
    pub position: Option<Position>,
    /// When it was observed (RFC 3339), as the device's clock said.
    #[serde(default, deserialize_with = "text::line_opt")]
    #[schemars(length(max = 1024))]
    pub observed_at: Option<String>,
}

/// A WGS 84 position.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// Longitude, degrees.
    pub lon: f64,
    /// Latitude, degrees.
    pub lat: f64,
}

fn bad(field: &str, msg: impl std::fmt::Display) -> HttpError {
    HttpError::field(field, msg.to_string())
}

/// Checks an inspection and makes it a feature of the inspections layer (the command
/// line's `ms4 inspect` too); `dry_weather_hours` is the profile's dry-weather rule.
pub fn to_feature(
    snap: &crate::spatial::Snapshot,
    n: NewInspection,
    caller: &Caller,
    today: NaiveDate,
    dry_weather_hours: f64,
) -> Result<Feature, HttpError> {
    let (kind, layer) = KINDS
        .iter()
        .find(|(k, _)| *k == n.kind)
        .copied()
        .ok_or_else(|| {
            bad(
                "kind",
                format!(
                    "{:?} is not one of {}",
                    n.kind,
                    KINDS.map(|(k, _)| k).join(", ")
                ),
            )
        })?;
    if snap.layer(layer).get(&n.asset_id).is_none() {
        return Err(bad(
            "asset_id",
            format!(
                "no {} has id {:?} (a {kind} inspects {})",
                layer.name(),
                n.asset_id,
                layer.name()
            ),
        ));
    }
    let date = NaiveDate::parse_from_str(n.inspected_on.trim(), "%Y-%m-%d").map_err(|_| {
        bad(
            "inspected_on",
            format!("{:?} is not a date (YYYY-MM-DD)", n.inspected_on),
        )
    })?;
    super::extract::plausible_date("inspected_on", date, today)?;
    if n.result.trim().is_empty() {
        return Err(bad(
            "result",
            "must say what the inspection found (pass, fail, needs_follow_up, ...)",
        ));
    }
    let mut screening_fields = None;
    let findings = match n.screening {
        Some(_) if kind != "dry_weather_screening" => {
            return Err(bad(
                "screening",
                format!("only a dry_weather_screening has one, not a {kind}"),
            ))
        }
        Some(s) => {
            s.check().map_err(HttpError::from)?;
            let json = serde_json::to_string(&s).unwrap_or_default();
            screening_fields = Some(s);
            Some(json)
        }
        None => None,
    };
    let inspector = n
        .inspector
        .filter(|i| !i.trim().is_empty())
        .unwrap_or_else(|| caller.subject.clone());
    let inspector = crate::auth::check_name(&inspector)
        .map_err(|m| bad("inspector", m))?
        .to_string();
    let l = Layer::Inspections;
    // The same id an imported inspection gets (asset, date, kind): recording the same
    // inspection twice updates it rather than counting it twice.
    let mut f = Feature::new(l, format!("{}:{date}:{kind}", n.asset_id));
    let mut set = |name: &str, v: Value| {
        if let Some(i) = l.field_index(name) {
            f.values[i] = v;
        }
    };
    set("asset_id", Value::Text(n.asset_id.clone()));
    set("inspected_on", Value::Date(date));
    set("kind", Value::Text(kind.to_string()));
    set("inspector", Value::Text(inspector));
    set("result", Value::Text(n.result.trim().to_string()));
    if let Some(fd) = findings {
        set("findings", Value::Text(fd));
    }
    if let Some(notes) = n.notes.filter(|s| !s.trim().is_empty()) {
        set("notes", Value::Text(notes));
    }
    if kind == "dry_weather_screening" {
        // The dry-weather rule is the profile's: a screening too soon after rain (or
        // without the hours) is kept, marked, and not counted as a dry-weather screening.
        let s = screening_fields.unwrap_or_default();
        let dry = crate::idde::screening::is_dry_weather(s.hours_since_rain, dry_weather_hours);
        set("dry_weather", dry.map(Value::Bool).unwrap_or(Value::Null));
        if let Some(h) = s.hours_since_rain {
            set("hours_since_rain", Value::Real(h));
        }
        if let Some(c) = &s.characterisation {
            set("characterisation", Value::Text(c.clone()));
        }
        set("sewage_indicators", Value::Bool(s.sewage_indicators()));
    }
    if let Some(p) = n.position {
        if !(-180.0..=180.0).contains(&p.lon) || !(-90.0..=90.0).contains(&p.lat) {
            return Err(bad(
                "position",
                format!("{}, {} is not a WGS 84 longitude, latitude", p.lon, p.lat),
            ));
        }
        f.extra
            .insert("position".into(), serde_json::json!([p.lon, p.lat]));
    }
    if let Some(t) = n.observed_at.filter(|s| !s.trim().is_empty()) {
        let at = chrono::DateTime::parse_from_rfc3339(t.trim())
            .map_err(|_| bad("observed_at", format!("{t:?} is not an RFC 3339 time")))?;
        // A device's clock may run ahead of the server's by a little, not by a day.
        super::extract::plausible_date("observed_at", at.date_naive(), today.succ_opt().unwrap_or(today))?;
        f.extra.insert("observed_at".into(), at.to_rfc3339().into());
    }
    Ok(f)
}

/// The `Idempotency-Key` header: a device's key for one inspection, so one sent again
/// (the network dropped before the answer came) is answered, not written twice.
fn idempotency_key(headers: &axum::http::HeaderMap) -> Result<Option<String>, HttpError> {
    let Some(v) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let k = v.to_str().unwrap_or("").trim();
    if k.is_empty() || k.len() > 200 || !k.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad(
            "Idempotency-Key",
            "must be 1 to 200 visible ASCII characters",
        ));
    }
    Ok(Some(k.to_string()))
}

async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: axum::http::HeaderMap,
    Body(n): Body<NewInspection>,
) -> Result<(StatusCode, Json<serde_json::Value>), HttpError> {
    let key = idempotency_key(&headers)?;
    let snap = state.snapshot.current();
    let mut f = to_feature(
        &snap,
        n,
        &caller,
        chrono::Utc::now().date_naive(),
        state.profile.current().idde.dry_weather_hours,
    )?;
    if let Some(k) = &key {
        if let Some(first) = snap.inspection_with_key(k) {
            if first.id != f.id {
                return Err(HttpError::Unprocessable(format!(
                    "Idempotency-Key: {k:?} was used for inspection {:?}, not this one",
                    first.id
                )));
            }
            // The same key with another body is a client's mistake, not a retry: the
            // stored inspection stands and the new body is refused, never dropped in
            // silence (the IETF Idempotency-Key draft's 422).
            if !same_record(first, &f) {
                return Err(HttpError::Unprocessable(format!(
                    "Idempotency-Key: {k:?} was used for inspection {:?} with another body; nothing was written (send a new key for a new request)",
                    first.id
                )));
            }
            // The same request again: the first answer, nothing written.
            return Ok((
                StatusCode::CREATED,
                Json(serde_json::json!({"inspection": inspection_json(first), "replayed": true})),
            ));
        }
        f.extra.insert(IDEMPOTENCY_KEY.into(), k.clone().into());
    }
    let json = inspection_json(&f);
    // Written and applied to the snapshot in one step: one row compared, one feature
    // added to the snapshot, however many inspections the registry holds.
    let summary = state
        .snapshot
        .write(
            state.store.as_ref(),
            WriteRequest {
                layer: Layer::Inspections,
                mode: WriteMode::Upsert,
                actor: caller.subject.clone(),
                source: "api".into(),
            },
            vec![f],
            serde_json::json!({"source": "POST /api/inspections"}),
        )
        .await?;
    let status = if summary.inserted == 1 {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    // A suspect or obvious screening opens a case (or names the one already open).
    let case = super::cases::open_from_screening(&state, &caller, &json).await?;
    Ok((
        status,
        Json(serde_json::json!({"inspection": json, "write": summary, "case": case})),
    ))
}

/// Whether two inspections record the same thing: the same values, place and
/// attributes, whatever idempotency key each carries.
fn same_record(a: &Feature, b: &Feature) -> bool {
    let without_key = |f: &Feature| {
        let mut m = f.extra.clone();
        m.remove(IDEMPOTENCY_KEY);
        m
    };
    a.id == b.id && a.values == b.values && a.geom == b.geom && without_key(a) == without_key(b)
}

/// An inspection as JSON: its fields, with the screening findings as an object.
fn inspection_json(f: &Feature) -> serde_json::Value {
    let mut m = f.properties(Layer::Inspections);
    if let Some(serde_json::Value::String(s)) = m.get("findings") {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(s) {
            m.insert("findings".into(), v);
        }
    }
    serde_json::Value::Object(m)
}

/// Inspections of these assets, newest first.
fn listed(snap: &crate::spatial::Snapshot, assets: &[&str]) -> Vec<serde_json::Value> {
    let mut v: Vec<&Feature> = assets.iter().flat_map(|a| snap.inspections_of(a)).collect();
    // An asset named twice lists its inspections once.
    v.sort_by(|a, b| a.id.cmp(&b.id));
    v.dedup_by(|a, b| a.id == b.id);
    let date = |f: &Feature| match f.get(Layer::Inspections, "inspected_on") {
        Value::Date(d) => Some(*d),
        _ => None,
    };
    v.sort_by(|a, b| date(b).cmp(&date(a)).then_with(|| a.id.cmp(&b.id)));
    v.into_iter().map(inspection_json).collect()
}

async fn of_asset(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let snap = state.snapshot.current();
    let Some(layer) = FACILITY_LAYERS
        .iter()
        .copied()
        .find(|l| snap.layer(*l).get(&id).is_some())
    else {
        return Err(HttpError::NotFound(format!(
            "asset {id:?}: no catch basin, manhole, outfall or SMP has this id"
        )));
    };
    Ok(Json(serde_json::json!({
        "asset_id": id,
        "layer": layer,
        "last_inspection": snap.last_inspection(&id),
        "inspections": listed(&snap, &[id.as_str()]),
    })))
}

async fn of_watershed(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let snap = state.snapshot.current();
    let w = snap
        .layer(Layer::Watersheds)
        .get(&id)
        .and_then(|w| w.geom.as_ref())
        .ok_or_else(|| HttpError::NotFound(format!("watershed {id:?}: no such watershed")))?;
    let Some(r) = crate::domain::wkb::bounding_rect(w) else {
        return Err(HttpError::NotFound(format!(
            "watershed {id:?}: has an empty geometry"
        )));
    };
    let mut assets: Vec<&str> = Vec::new();
    for l in FACILITY_LAYERS {
        assets.extend(
            snap.layer(l)
                .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
                .filter(|f| f.geom.as_ref().is_some_and(|g| g.intersects(w)))
                .map(|f| f.id.as_str()),
        );
    }
    let inspections = listed(&snap, &assets);
    Ok(Json(serde_json::json!({
        "watershed_id": id,
        "facilities": assets.len(),
        "inspections": inspections,
    })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_inspects_a_facility_layer() {
        for (_, l) in KINDS {
            assert!(FACILITY_LAYERS.contains(&l));
        }
    }
}
