//! The receiving waters of a parcel or a project footprint, found two ways and both
//! reported: by the watersheds it overlaps (by area, not by touching), and by tracing its
//! connections and the inlets on it down the drainage network to outfalls and their
//! waters. Then the 303(d) listings of those waters and the TMDL areas it overlaps.

use std::collections::BTreeMap;

use geo::{Area, BooleanOps, Intersects};
use geo_types::{Geometry, MultiPolygon, Point};
use serde::Serialize;

use super::connections::{ms4_end, upstream_end};
use super::envelope::rect_position;
use super::network::{Direction, Network};
use super::query::nearest_in;
use super::snapshot::Snapshot;
use crate::domain::{wkb, AreaUnit, Feature, Layer, Value};

/// A watershed the footprint overlaps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WatershedShare {
    /// The watershed's id.
    pub watershed_id: String,
    /// Its name.
    pub name: Option<String>,
    /// The water it drains to.
    pub drains_to: Option<String>,
    /// The area of the footprint inside it, in `area_unit`.
    pub overlap: f64,
    /// That area as a share of the footprint (0 to 1).
    pub share: f64,
}

/// Where one of the footprint's connections or inlets drains, through the network.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NetworkReach {
    /// The connection or catch basin traced from.
    pub from: String,
    /// The outfall reached.
    pub outfall: String,
    /// Structure and pipe ids in flow order.
    pub path: Vec<String>,
    /// The receiving water, if one was found.
    pub water_id: Option<String>,
    /// How the water was found: the outfall's own record, or the nearest water.
    pub water_found_by: String,
}

/// A 303(d)-listed water the footprint drains to.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Listing {
    /// The water's id.
    pub water_id: String,
    /// Its name.
    pub name: Option<String>,
    /// The pollutants it is listed for.
    pub pollutants: Vec<String>,
    /// How the footprint reaches it (one line per way).
    pub reached_by: Vec<String>,
}

/// A TMDL area the footprint overlaps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TmdlHit {
    /// The TMDL's id.
    pub tmdl_id: String,
    /// Its pollutant.
    pub pollutant: Option<String>,
    /// Whether pollutants in stormwater are a source, when recorded.
    pub stormwater_source: Option<bool>,
    /// The area of the footprint inside it, in `area_unit`.
    pub overlap: f64,
}

/// Both answers for one footprint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReceivingWaters {
    /// The footprint's area, in `area_unit`.
    pub area: f64,
    /// The unit of every area here (the square of the registry CRS's unit).
    pub area_unit: AreaUnit,
    /// Watersheds overlapped by area, largest share first.
    pub by_watershed: Vec<WatershedShare>,
    /// Network traces from the footprint's connections and inlets.
    pub by_network: Vec<NetworkReach>,
    /// Connections and inlets whose trace reached no outfall.
    pub unresolved: Vec<String>,
    /// The 303(d)-listed waters reached either way.
    pub listed: Vec<Listing>,
    /// TMDL areas overlapped by area.
    pub tmdl_areas: Vec<TmdlHit>,
}

/// A footprint as a MultiPolygon, or `None` when it is not areal.
pub fn as_multipolygon(g: &Geometry<f64>) -> Option<MultiPolygon<f64>> {
    match g {
        Geometry::Polygon(p) => Some(MultiPolygon(vec![p.clone()])),
        Geometry::MultiPolygon(m) => Some(m.clone()),
        _ => None,
    }
}

/// A text field's value, owned.
pub(crate) fn text(f: &Feature, layer: Layer, field: &str) -> Option<String> {
    f.get(layer, field).as_str().map(str::to_string)
}

/// Features of a polygon layer overlapping a footprint by a positive area, with that area.
fn overlaps<'a>(
    snap: &'a Snapshot,
    layer: Layer,
    fp: &MultiPolygon<f64>,
) -> Vec<(&'a Feature, f64)> {
    use geo::BoundingRect;
    let Some(r) = fp.bounding_rect() else {
        return Vec::new();
    };
    let fp_area = fp.unsigned_area();
    let mut out: Vec<(&Feature, f64)> = snap
        .layer(layer)
        .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
        .filter_map(|f| {
            let g = f.geom.as_ref()?;
            let a = match rect_position(g, &r) {
                // A footprint wholly inside (the common case: a parcel in its
                // watershed) overlaps by its whole area; no polygon clipping needed.
                Some(true) => fp_area,
                // Envelopes meet but the shapes do not: no clipping either.
                Some(false) => return None,
                // On an edge: clip. A shared boundary alone has no area and so does
                // not count.
                None => match g {
                    Geometry::Polygon(p) => p.intersection(fp).unsigned_area(),
                    Geometry::MultiPolygon(m) => m.intersection(fp).unsigned_area(),
                    _ => return None,
                },
            };
            (a > 0.0).then_some((f, a))
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.id.cmp(&b.0.id)));
    out
}

/// Finds the receiving waters of a footprint. `parcel_id` names the parcel whose
/// connections count (connections without one count when their upstream end lies on the
/// footprint); `tolerance` (CRS units) is how far an outfall may lie from the nearest water
/// when it names none, and how far a connection's MS4 end may lie from the structure or
/// pipe it joins.
pub fn receiving_waters(
    snap: &Snapshot,
    network: Option<&Network>,
    footprint: &MultiPolygon<f64>,
    parcel_id: Option<&str>,
    water_tolerance: f64,
    snap_tolerance: f64,
) -> ReceivingWaters {
    let area = footprint.unsigned_area();
    let by_watershed: Vec<WatershedShare> = overlaps(snap, Layer::Watersheds, footprint)
        .into_iter()
        .map(|(w, a)| WatershedShare {
            watershed_id: w.id.clone(),
            name: text(w, Layer::Watersheds, "name"),
            drains_to: text(w, Layer::Watersheds, "drains_to"),
            overlap: a,
            share: if area > 0.0 { a / area } else { 0.0 },
        })
        .collect();
    let tmdl_areas = overlaps(snap, Layer::TmdlAreas, footprint)
        .into_iter()
        .map(|(t, a)| TmdlHit {
            tmdl_id: t.id.clone(),
            pollutant: text(t, Layer::TmdlAreas, "pollutant"),
            stormwater_source: t.get(Layer::TmdlAreas, "stormwater_source").as_bool(),
            overlap: a,
        })
        .collect();

    let mut by_network = Vec::new();
    let mut unresolved = Vec::new();
    if let Some(net) = network {
        for (from, start) in trace_starts(snap, footprint, parcel_id, snap_tolerance) {
            let Some(start) = start else {
                unresolved.push(from);
                continue;
            };
            match net.trace(&start, Direction::Downstream) {
                Some(t) if !t.outfalls.is_empty() => {
                    for o in t.outfalls {
                        let (water_id, water_found_by) =
                            outfall_water(snap, &o.outfall, water_tolerance);
                        let mut path = vec![from.clone()];
                        path.extend(o.path.into_iter().filter(|p| *p != from));
                        by_network.push(NetworkReach {
                            from: from.clone(),
                            outfall: o.outfall,
                            path,
                            water_id,
                            water_found_by,
                        });
                    }
                }
                _ => unresolved.push(from),
            }
        }
    }

    // The listed waters, reached either way.
    let mut listed: BTreeMap<String, Listing> = BTreeMap::new();
    let unit = snap.meta.linear_unit.squared();
    let mut reach = |water: &str, how: String| {
        let Some(l) = listing(snap, water) else {
            return;
        };
        let e = listed.entry(water.to_string()).or_insert(l);
        if !e.reached_by.contains(&how) {
            e.reached_by.push(how);
        }
    };
    for w in &by_watershed {
        if let Some(d) = &w.drains_to {
            reach(
                d,
                format!(
                    "watershed {} ({:.1}% of the footprint) drains to it",
                    w.watershed_id,
                    w.share * 100.0
                ),
            );
        }
    }
    for r in &by_network {
        if let Some(w) = &r.water_id {
            reach(w, format!("trace {}", r.path.join(" → ")));
        }
    }
    ReceivingWaters {
        area,
        area_unit: unit,
        by_watershed,
        by_network,
        unresolved,
        listed: listed.into_values().collect(),
        tmdl_areas,
    }
}

/// What to trace from: the footprint's connections (joined to the network at their MS4
/// end) and the catch basins on it. Each with the structure or pipe id to start from, or
/// `None` when a connection's MS4 end meets nothing within the tolerance.
fn trace_starts(
    snap: &Snapshot,
    fp: &MultiPolygon<f64>,
    parcel_id: Option<&str>,
    tol: f64,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let fp_geom = Geometry::MultiPolygon(fp.clone());
    let Some(r) = wkb::bounding_rect(&fp_geom) else {
        return out;
    };
    for c in &snap.layer(Layer::Connections).features {
        let Some(g) = &c.geom else { continue };
        let on_parcel = match (parcel_id, c.get(Layer::Connections, "parcel_id")) {
            (Some(p), Value::Text(cp)) => cp == p,
            (_, _) => upstream_end(g).is_some_and(|p| fp.intersects(&p)),
        };
        if !on_parcel {
            continue;
        }
        let start = ms4_end(g).and_then(|p| joined_at(snap, &p, tol));
        out.push((c.id.clone(), start));
    }
    let mut inlets: Vec<&Feature> = snap
        .layer(Layer::CatchBasins)
        .in_envelope([r.min().x, r.min().y, r.max().x, r.max().y])
        .filter(|f| f.geom.as_ref().is_some_and(|g| g.intersects(fp)))
        .collect();
    inlets.sort_by(|a, b| a.id.cmp(&b.id));
    out.extend(
        inlets
            .into_iter()
            .map(|f| (f.id.clone(), Some(f.id.clone()))),
    );
    out
}

/// The structure (or else the pipe) a connection's MS4 end joins, within the tolerance.
fn joined_at(snap: &Snapshot, p: &Point<f64>, tol: f64) -> Option<String> {
    let mut best: Option<(f64, String)> = None;
    for layer in [Layer::CatchBasins, Layer::Manholes, Layer::Outfalls] {
        if let Some(&(i, d)) = nearest_in(snap.layer(layer), p, Some(tol), Some(1)).first() {
            if best.as_ref().is_none_or(|(bd, _)| d < *bd) {
                best = Some((d, snap.layer(layer).features[i].id.clone()));
            }
        }
    }
    best.map(|(_, id)| id).or_else(|| {
        nearest_in(snap.layer(Layer::Pipes), p, Some(tol), Some(1))
            .first()
            .map(|(i, _)| snap.layer(Layer::Pipes).features[*i].id.clone())
    })
}

/// The water an outfall discharges to: its own `receiving_water_id`, else the nearest
/// receiving water within the tolerance (CRS units); with how it was found.
pub fn outfall_water(snap: &Snapshot, outfall: &str, tol: f64) -> (Option<String>, String) {
    let Some(o) = snap.layer(Layer::Outfalls).get(outfall) else {
        return (None, "the outfall is not in the registry".into());
    };
    if let Some(w) = text(o, Layer::Outfalls, "receiving_water_id") {
        return (Some(w), "the outfall's receiving_water_id".into());
    }
    let Some(Geometry::Point(p)) = &o.geom else {
        return (None, "the outfall has no location".into());
    };
    let waters = snap.layer(Layer::ReceivingWaters);
    match nearest_in(waters, p, Some(tol), Some(1)).first() {
        Some(&(i, d)) => (
            Some(waters.features[i].id.clone()),
            format!(
                "nearest water, {d:.1} {} from the outfall",
                snap.meta.linear_unit.symbol()
            ),
        ),
        None => (
            None,
            format!(
                "no water within {tol} {} of the outfall",
                snap.meta.linear_unit.symbol()
            ),
        ),
    }
}

/// A water's 303(d) listing: its impairments, or its `listed_303d` flag; `None` when it is
/// not listed.
fn listing(snap: &Snapshot, water_id: &str) -> Option<Listing> {
    let pollutants = snap.pollutants(water_id).to_vec();
    let water = snap.layer(Layer::ReceivingWaters).get(water_id);
    let flagged =
        water.and_then(|w| w.get(Layer::ReceivingWaters, "listed_303d").as_bool()) == Some(true);
    if pollutants.is_empty() && !flagged {
        return None;
    }
    Some(Listing {
        water_id: water_id.to_string(),
        name: water.and_then(|w| text(w, Layer::ReceivingWaters, "name")),
        pollutants,
        reached_by: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LengthUnit;
    use crate::spatial::network::NetworkOptions;
    use crate::store::RegistryMeta;
    use geo_types::wkt;
    use std::collections::HashMap;

    fn f(layer: Layer, id: &str, g: Option<Geometry<f64>>, fields: &[(&str, Value)]) -> Feature {
        let mut x = Feature::new(layer, id);
        x.geom = g;
        for (k, v) in fields {
            assert!(x.set(layer, k, v.clone()), "{k}");
        }
        x
    }

    fn t(s: &str) -> Value {
        Value::Text(s.into())
    }

    /// Two watersheds side by side (x < 100 and x > 100); a parcel straddling them 75/25;
    /// a connection from the parcel to CB-1, piped to OF-1 which names no water but lies
    /// near stream S-2; a phosphorus TMDL over the east watershed.
    fn town() -> Snapshot {
        let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
        l.insert(
            Layer::Watersheds,
            vec![
                f(
                    Layer::Watersheds,
                    "WS-W",
                    Some(wkt!(POLYGON((0. 0.,100. 0.,100. 100.,0. 100.,0. 0.))).into()),
                    &[("drains_to", t("S-1"))],
                ),
                f(
                    Layer::Watersheds,
                    "WS-E",
                    Some(wkt!(POLYGON((100. 0.,200. 0.,200. 100.,100. 100.,100. 0.))).into()),
                    &[("drains_to", t("S-2"))],
                ),
            ],
        );
        l.insert(
            Layer::TmdlAreas,
            vec![f(
                Layer::TmdlAreas,
                "T-P",
                Some(wkt!(POLYGON((100. 0.,200. 0.,200. 100.,100. 100.,100. 0.))).into()),
                &[
                    ("pollutant", t("phosphorus")),
                    ("stormwater_source", Value::Bool(true)),
                ],
            )],
        );
        l.insert(
            Layer::ReceivingWaters,
            vec![
                f(
                    Layer::ReceivingWaters,
                    "S-1",
                    Some(wkt!(LINESTRING(0. 150.,100. 150.)).into()),
                    &[("listed_303d", Value::Bool(false))],
                ),
                f(
                    Layer::ReceivingWaters,
                    "S-2",
                    Some(wkt!(LINESTRING(150. 150.,300. 150.)).into()),
                    &[("name", t("Byram River"))],
                ),
            ],
        );
        l.insert(
            Layer::Impairments,
            vec![f(
                Layer::Impairments,
                "S-2:Phosphorus:2022",
                None,
                &[("water_id", t("S-2")), ("pollutant", t("Phosphorus"))],
            )],
        );
        l.insert(
            Layer::CatchBasins,
            vec![f(
                Layer::CatchBasins,
                "CB-1",
                Some(wkt!(POINT(60. 110.)).into()),
                &[],
            )],
        );
        l.insert(
            Layer::Outfalls,
            vec![f(
                Layer::Outfalls,
                "OF-1",
                Some(wkt!(POINT(160. 140.)).into()),
                &[],
            )],
        );
        l.insert(
            Layer::Pipes,
            vec![f(
                Layer::Pipes,
                "P-1",
                Some(wkt!(MULTILINESTRING((60. 110.,160. 140.))).into()),
                &[("from_id", t("CB-1")), ("to_id", t("OF-1"))],
            )],
        );
        l.insert(
            Layer::Connections,
            vec![f(
                Layer::Connections,
                "C-1",
                Some(wkt!(LINESTRING(60. 50.,60. 109.5)).into()),
                &[("parcel_id", t("PA")), ("discharge_kind", t("stormwater"))],
            )],
        );
        let meta = RegistryMeta {
            jurisdiction: "carmel-ny".into(),
            srid: 2260,
            crs_name: String::new(),
            crs_wkt: String::new(),
            linear_unit: LengthUnit::UsSurveyFoot,
        };
        Snapshot::from_features(meta, l)
    }

    #[test]
    fn both_methods_find_the_listed_water_and_the_tmdl_area() {
        let s = town();
        let net = Network::from_snapshot(&s, NetworkOptions::new(1.0));
        let parcel =
            as_multipolygon(&wkt!(POLYGON((25. 25.,125. 25.,125. 75.,25. 75.,25. 25.))).into())
                .unwrap();
        let rw = receiving_waters(&s, Some(&net), &parcel, Some("PA"), 25.0, 1.0);
        assert_eq!(rw.area, 5000.0);
        let shares: Vec<(&str, f64)> = rw
            .by_watershed
            .iter()
            .map(|w| (w.watershed_id.as_str(), w.share))
            .collect();
        assert_eq!(shares, [("WS-W", 0.75), ("WS-E", 0.25)]);
        assert_eq!(rw.by_network.len(), 1);
        let r = &rw.by_network[0];
        assert_eq!(
            (r.from.as_str(), r.outfall.as_str(), r.water_id.as_deref()),
            ("C-1", "OF-1", Some("S-2"))
        );
        assert!(
            r.water_found_by.starts_with("nearest water, 10.0 ftUS"),
            "{}",
            r.water_found_by
        );
        assert_eq!(rw.listed.len(), 1, "S-1 is not listed; S-2 is");
        assert_eq!(rw.listed[0].pollutants, ["Phosphorus"]);
        assert_eq!(
            rw.listed[0].reached_by.len(),
            2,
            "{:?}",
            rw.listed[0].reached_by
        );
        assert_eq!(rw.tmdl_areas.len(), 1);
        assert_eq!(rw.tmdl_areas[0].overlap, 1250.0);
    }

    #[test]
    fn a_shared_boundary_alone_is_not_an_overlap() {
        let s = town();
        let west_only =
            as_multipolygon(&wkt!(POLYGON((50. 10.,100. 10.,100. 60.,50. 60.,50. 10.))).into())
                .unwrap();
        let rw = receiving_waters(&s, None, &west_only, None, 25.0, 1.0);
        let ids: Vec<&str> = rw
            .by_watershed
            .iter()
            .map(|w| w.watershed_id.as_str())
            .collect();
        assert_eq!(ids, ["WS-W"], "touching WS-E along x = 100 does not count");
        assert!(rw.tmdl_areas.is_empty());
        assert!(rw.listed.is_empty());
    }
}
