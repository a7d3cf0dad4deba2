//! A layer's features as GeoJSON (WGS 84, per RFC 7946).

use axum::extract::{Path, Query, State};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use super::{AppState, HttpError};
use crate::domain::Layer;
use crate::import::crs::Reprojector;

/// Paging for a layer's items.
#[derive(Debug, Deserialize)]
pub struct ItemsQuery {
    /// At most this many features (default 100, at most 10,000).
    pub limit: Option<usize>,
    /// Skip this many features first.
    pub offset: Option<usize>,
}

const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 10_000;

pub(super) fn router() -> Router<AppState> {
    Router::new().route("/collections/{layer}/items", get(items))
}

async fn items(
    State(state): State<AppState>,
    Path(layer): Path<String>,
    Query(q): Query<ItemsQuery>,
) -> Result<Json<serde_json::Value>, HttpError> {
    let layer: Layer = layer
        .parse()
        .map_err(|e: crate::domain::layer::UnknownLayer| HttpError::NotFound(e.to_string()))?;
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(HttpError::BadRequest(format!(
            "limit: must be between 1 and {MAX_LIMIT}, got {limit}"
        )));
    }
    let offset = q.offset.unwrap_or(0);
    let snap = state.snapshot.current();
    let idx = snap.layer(layer);
    let page: Vec<_> = idx.features.iter().skip(offset).take(limit).collect();
    let srid = snap.meta.srid;
    let features = tokio::task::spawn_blocking({
        let page: Vec<_> = page.into_iter().cloned().collect();
        move || -> Result<Vec<serde_json::Value>, String> {
            let rp = Reprojector::new(srid, 4326).map_err(|e| e.to_string())?;
            page.iter()
                .map(|f| {
                    let geometry = match &f.geom {
                        Some(g) => serde_json::to_value(geojson::Geometry::new(geojson::GeometryValue::from(&rp.apply(g).map_err(|e| e.to_string())?)))
                            .map_err(|e| e.to_string())?,
                        None => serde_json::Value::Null,
                    };
                    Ok(serde_json::json!({"type": "Feature", "id": f.id, "properties": f.properties(layer), "geometry": geometry}))
                })
                .collect()
        }
    })
    .await
    .map_err(|e| HttpError::Internal(e.to_string()))?
    .map_err(HttpError::Internal)?;
    Ok(Json(serde_json::json!({
        "type": "FeatureCollection",
        "numberMatched": idx.features.len(),
        "numberReturned": features.len(),
        "features": features,
    })))
}
