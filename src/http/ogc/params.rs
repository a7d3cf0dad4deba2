//! The query parameters of the items and the single item, read by hand: OGC parameter
//! names have hyphens (`bbox-crs`), any other name on items is a property filter, and each
//! error must name its parameter. Their `JsonSchema` derives are the API document's lists
//! of these parameters, so a name, type or limit is stated once, here.

use schemars::JsonSchema;

use crate::domain::Layer;
use crate::http::HttpError;

/// Features per page unless `limit` says otherwise, and the most one page may hold.
const DEFAULT_LIMIT: usize = 100;
const MAX_LIMIT: usize = 10_000;

fn default_limit() -> usize {
    DEFAULT_LIMIT
}

/// The query of `GET /collections/{layer}/items`. Besides these, any property of the layer
/// filters by equality (`status=active`), and `f` and `datetime` are accepted and ignored
/// (always GeoJSON; the registry's features carry no single valid time).
#[derive(Debug, JsonSchema)]
pub(in crate::http) struct ItemsParams {
    /// Features per page.
    #[schemars(default = "default_limit", range(min = 1, max = "MAX_LIMIT"))]
    pub(super) limit: usize,
    /// Features to skip (the next link sets it).
    #[schemars(default)]
    pub(super) offset: usize,
    /// minx,miny,maxx,maxy in bbox-crs; six numbers carry heights, which are ignored.
    #[schemars(with = "Option<Vec<f64>>", length(min = 4, max = 6))]
    pub(super) bbox: Option<[f64; 4]>,
    /// The CRS of bbox: CRS84 (default) or the registry's CRS URI.
    #[schemars(rename = "bbox-crs")]
    pub(super) bbox_crs: Option<String>,
    /// The CRS of the answer: CRS84 (default) or the registry's CRS URI.
    pub(super) crs: Option<String>,
    /// Property filters, (name, text): a feature matches when each property equals its text.
    #[schemars(skip)]
    pub(super) filters: Vec<(String, String)>,
    /// Filters on attributes kept from the source (not the layer's own fields): known
    /// only from the features, so a name no feature carries is refused when answering.
    #[schemars(skip)]
    pub(super) extra_filters: Vec<(String, String)>,
}

/// The query of `GET /collections/{layer}/items/{id}`; `f` is accepted and ignored.
#[derive(Debug, Default, JsonSchema)]
pub(in crate::http) struct ItemParams {
    /// The CRS of the answer: CRS84 (default) or the registry's CRS URI.
    pub(super) crs: Option<String>,
}

/// Reads the items query of `layer`, naming the parameter at fault.
pub(super) fn parse_items_query(raw: Option<&str>, layer: Layer) -> Result<ItemsParams, HttpError> {
    let mut q = ItemsParams {
        limit: DEFAULT_LIMIT,
        offset: 0,
        bbox: None,
        bbox_crs: None,
        crs: None,
        filters: Vec::new(),
        extra_filters: Vec::new(),
    };
    let bad = |p: &str, m: String| HttpError::field(p, m);
    for (k, v) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        match k.as_ref() {
            "limit" => {
                q.limit = v
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_LIMIT).contains(n))
                    .ok_or_else(|| {
                        bad(
                            "limit",
                            format!("{v:?} is not a whole number from 1 to {MAX_LIMIT}"),
                        )
                    })?;
            }
            "offset" => {
                q.offset = v
                    .parse()
                    .map_err(|_| bad("offset", format!("{v:?} is not a whole number")))?;
            }
            "bbox" => {
                let n: Vec<f64> = v
                    .split(',')
                    .map(|s| s.trim().parse::<f64>())
                    .collect::<Result<_, _>>()
                    .map_err(|_| bad("bbox", format!("{v:?} is not a list of numbers")))?;
                let b = match n.as_slice() {
                    [a, b, c, d] => [*a, *b, *c, *d],
                    // Six numbers carry heights, which the registry does not hold.
                    [a, b, _, d, e, _] => [*a, *b, *d, *e],
                    _ => {
                        return Err(bad(
                            "bbox",
                            format!("{v:?}: expected 4 (or 6) numbers, minx,miny,maxx,maxy"),
                        ))
                    }
                };
                if !b.iter().all(|x| x.is_finite()) || b[0] > b[2] || b[1] > b[3] {
                    return Err(bad(
                        "bbox",
                        format!("{v:?}: the minimum must not exceed the maximum"),
                    ));
                }
                q.bbox = Some(b);
            }
            "bbox-crs" => q.bbox_crs = Some(v.into_owned()),
            "crs" => q.crs = Some(v.into_owned()),
            // Accepted and ignored: the format (always GeoJSON) and time (the registry's
            // features carry no single valid time).
            "f" | "datetime" => {}
            name => {
                let known =
                    name == layer.id_field() || layer.fields().iter().any(|f| f.name == name);
                if known {
                    q.filters.push((name.to_string(), v.into_owned()));
                } else if name.is_empty() {
                    return Err(bad(name, "a filter needs a property name".into()));
                } else {
                    // An attribute kept from the source (`INLET_SHAP`): checked against
                    // the features when answering.
                    q.extra_filters.push((name.to_string(), v.into_owned()));
                }
            }
        }
    }
    Ok(q)
}

/// Reads the single item's query, naming a parameter it does not take.
pub(super) fn parse_item_query(raw: Option<&str>) -> Result<ItemParams, HttpError> {
    let mut q = ItemParams::default();
    for (k, v) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        match k.as_ref() {
            "crs" => q.crs = Some(v.into_owned()),
            "f" => {}
            other => {
                return Err(HttpError::BadRequest(format!(
                    "{other}: not a parameter of a single item (crs, f)"
                )))
            }
        }
    }
    Ok(q)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_queries_name_the_parameter_at_fault() {
        let err = |q: &str| {
            parse_items_query(Some(q), Layer::Outfalls)
                .unwrap_err()
                .to_string()
        };
        assert!(err("limit=0").starts_with("limit:"));
        assert!(err("bbox=1,2,3").starts_with("bbox:"));
        assert!(err("bbox=3,2,1,4").starts_with("bbox:"));
        // A name that is not the layer's may be an attribute kept from the source: it
        // passes here, as a filter on those, and is refused when no feature carries it.
        let q = parse_items_query(Some("colour=red"), Layer::Outfalls).unwrap();
        assert!(q.filters.is_empty());
        assert_eq!(
            q.extra_filters,
            vec![("colour".to_string(), "red".to_string())]
        );
        let q =
            parse_items_query(Some("status=active&limit=5&bbox=1,2,3,4"), Layer::Outfalls).unwrap();
        assert_eq!(q.limit, 5);
        assert_eq!(q.bbox, Some([1.0, 2.0, 3.0, 4.0]));
        assert_eq!(
            q.filters,
            vec![("status".to_string(), "active".to_string())]
        );
    }
}
