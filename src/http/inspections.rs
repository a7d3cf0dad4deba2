//! Inspections: an inspector records one (`POST /api/inspections`); anyone who may read
//! lists them per asset or per watershed. They feed "last inspection" and "overdue" in
//! every answer, because a write here is applied to the snapshot as it commits.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use geo::Intersects;

use super::extract::Body;
use super::versions::{etag, if_match};
use super::{AppState, Caller, HttpError};
use crate::domain::{Feature, Layer, Value};
use crate::spatial::query::FACILITY_LAYERS;
use crate::spatial::snapshot::IDEMPOTENCY_KEY;
use crate::store::{StoreError, WriteMode, WriteRequest};

pub use crate::idde::inspection::{to_feature, NewInspection, Position};

/// What an outfall's dry-weather screening observed: the field form's fields
/// ([`crate::idde::screening`]).
pub use crate::idde::Screening;

/// The `Idempotency-Key` header: a device's key for one inspection, so one sent again
/// (the network dropped before the answer came) is answered, not written twice.
fn idempotency_key(headers: &axum::http::HeaderMap) -> Result<Option<String>, HttpError> {
    let Some(v) = headers.get("idempotency-key") else {
        return Ok(None);
    };
    let k = v.to_str().unwrap_or("").trim();
    if k.is_empty() || k.len() > 200 || !k.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(HttpError::field(
            "Idempotency-Key",
            "must be 1 to 200 visible ASCII characters",
        ));
    }
    Ok(Some(k.to_string()))
}

/// An inspection sent back whole with the version it was read at (`If-Match`): written
/// only over that version, judged on the stored row inside the write's transaction. A
/// row changed since, or gone, is a 412 and nothing is written.
async fn rewrite(
    state: &AppState,
    caller: &Caller,
    f: Feature,
    versions: Vec<String>,
    json: serde_json::Value,
) -> Result<Response, HttpError> {
    let id = f.id.clone();
    let apply: crate::store::update::Apply = Box::new(move |stored: Feature| {
        let now = crate::store::update::version(&stored);
        if !versions.contains(&now) {
            return Err(StoreError::Changed {
                layer: Layer::Inspections,
                id: stored.id.clone(),
                expected: versions.join(", "),
                stored: now,
            });
        }
        Ok(crate::store::update::Edit {
            feature: f,
            others: Vec::new(),
        })
    });
    let req = WriteRequest {
        layer: Layer::Inspections,
        mode: WriteMode::Upsert,
        actor: caller.subject.clone(),
        source: "api".into(),
    };
    let report = serde_json::json!({"source": "POST /api/inspections (If-Match)"});
    let written = state
        .snapshot
        .update(state.store.as_ref(), req, report, id.clone(), apply)
        .await
        .map_err(|e| match e {
            StoreError::NotFound { .. } => HttpError::PreconditionFailed(format!(
                "If-Match: inspection {id:?} is not stored, so no version of it matches; nothing was written"
            )),
            e => e.into(),
        })?;
    let first = written.first();
    let version = first
        .and_then(|w| w.features.first())
        .map(crate::store::update::version)
        .unwrap_or_default();
    let summary = first.map(|w| w.summary.clone());
    let case = super::cases::open_from_screening(state, caller, &json).await?;
    Ok((
        StatusCode::OK,
        [etag(&version)],
        Json(serde_json::json!({"inspection": json, "write": summary, "case": case})),
    )
        .into_response())
}

pub(super) async fn create(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: axum::http::HeaderMap,
    Body(n): Body<NewInspection>,
) -> Result<Response, HttpError> {
    let key = idempotency_key(&headers)?;
    let versions = if_match(&headers, "/collections/inspections/items/{id}")?;
    if versions.is_none() && n.inspection_id.is_some() {
        return Err(HttpError::field(
            "inspection_id",
            "names an inspection to write over: send it with If-Match (the ETag of GET /collections/inspections/items/{id}); a new inspection gets its own id",
        ));
    }
    let snap = state.snapshot.current();
    let mut f = to_feature(
        &snap,
        n,
        &caller.subject,
        chrono::Utc::now().date_naive(),
        state.profile.current().idde.dry_weather_hours,
    )
    .map_err(HttpError::from)?;
    if let Some(k) = &key {
        if let Some(first) = snap.inspection_with_key(k) {
            // A new inspection's id is new each time: the retry is the first one's.
            if versions.is_none() {
                f.id = first.id.clone();
            }
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
            )
                .into_response());
        }
        f.extra.insert(IDEMPOTENCY_KEY.into(), k.clone().into());
    }
    let json = inspection_json(&f);
    if let Some(versions) = versions {
        return rewrite(&state, &caller, f, versions, json).await;
    }
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
    )
        .into_response())
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

pub(super) async fn of_asset(
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
            "asset {id:?}: no catch basin, manhole, outfall, SMP or structure has this id"
        )));
    };
    let last = snap.last_inspection(&id);
    let today = chrono::Local::now().date_naive();
    let profile = state.profile.current();
    // The schedule's one definition, answered here so no client restates it (without
    // the monitoring priorities, which need the whole network: `/api/inspections/due`
    // judges an item by priority).
    let schedule = crate::answer::schedule::Schedule::with_priorities(&snap, &profile, None);
    let items = snap
        .layer(layer)
        .get(&id)
        .map(|f| schedule.items(layer, f, today, 0))
        .unwrap_or_default();
    let due_by = items.iter().filter_map(|i| i.next_due).min();
    Ok(Json(serde_json::json!({
        "asset_id": id,
        "layer": layer,
        "last_inspection": last,
        "overdue": items.iter().any(|i| i.standing.is_overdue()),
        "due_by": due_by,
        "schedule": items,
        "inspections": listed(&snap, &[id.as_str()]),
    })))
}

pub(super) async fn of_watershed(
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
        for k in crate::domain::InspectionKind::ALL {
            assert!(FACILITY_LAYERS.contains(&k.layer()));
        }
    }
}
