//! The facilities of a watershed (or a drawn polygon), ranked for the inspection
//! program so the ones that matter come first — in a TMDL area where stormwater is a
//! source, near commercial or industrial land (hot spots), never inspected or overdue.
//!
//! The answer of `ms4 watershed-facilities` and `GET /api/watersheds/{id}/facilities`.
//! Recorded inspections (`POST /api/inspections`) are another thing: this module only
//! reads each facility's latest one from the snapshot.

use chrono::NaiveDate;
use geo::{Distance, Euclidean, Intersects};
use geo_types::{Geometry, MultiPolygon};
use serde::Serialize;

use super::snapshot::Snapshot;
use crate::domain::{wkb, Layer};
use crate::rules::{LandUseClass, Profile};

/// How to rank.
#[derive(Debug, Clone)]
pub struct RankOptions {
    /// Facilities within this distance (CRS units) of a commercial or industrial parcel
    /// are hot spots.
    pub hot_spot_distance: f64,
    /// The date the list is made for.
    pub today: NaiveDate,
}

/// Whether a facility is due for inspection (never inspected, or overdue), with why:
/// the inspection schedule's one definition (`crate::answer::schedule`), handed in so
/// the ranking stays free of the profile's schedule.
pub type DueCheck<'a> = &'a dyn Fn(Layer, &crate::domain::Feature) -> Option<String>;

/// One facility of the ranking.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankedFacility {
    /// Its layer.
    pub layer: Layer,
    /// Its id.
    pub id: String,
    /// Rank score: 4 for a stormwater TMDL area, 2 for a hot spot, 1 for never inspected or
    /// overdue; higher first.
    pub score: u8,
    /// The TMDL areas (with stormwater as a source) it lies in.
    pub tmdl_areas: Vec<String>,
    /// The commercial or industrial parcel that makes it a hot spot, with the distance.
    pub hot_spot: Option<HotSpot>,
    /// Its last inspection.
    pub last_inspection: Option<NaiveDate>,
    /// Never inspected, or last inspected too long ago.
    pub due: bool,
    /// Why it ranks where it does.
    pub reasons: Vec<String>,
}

/// The nearby commercial or industrial parcel that makes a facility a hot spot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotSpot {
    /// The parcel.
    pub parcel_id: String,
    /// Commercial or industrial.
    pub class: LandUseClass,
    /// Distance from the facility, in CRS units.
    pub distance: f64,
}

/// The facilities of one area, ranked, with the area's 303(d) and TMDL standing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WatershedFacilities {
    /// The watershed, when the area is one.
    pub watershed_id: Option<String>,
    /// The water it drains to.
    pub drains_to: Option<String>,
    /// Whether that water is 303(d)-listed (impairments recorded, or flagged).
    pub drains_to_303d: bool,
    /// TMDL areas with stormwater as a source that meet the area.
    pub tmdl_areas: Vec<String>,
    /// The area comes first in a program: it drains to a 303(d) water or lies in a TMDL
    /// area with stormwater as a source.
    pub priority_area: bool,
    /// The facilities, ranked.
    pub facilities: Vec<RankedFacility>,
}

fn listed_303d(snap: &Snapshot, water: &str) -> bool {
    !snap.pollutants(water).is_empty()
        || snap
            .layer(Layer::ReceivingWaters)
            .get(water)
            .and_then(|w| w.get(Layer::ReceivingWaters, "listed_303d").as_bool())
            == Some(true)
}

/// The nearest commercial or industrial parcel within `d` of a facility: a hot spot.
fn nearest_hot_spot(
    snap: &Snapshot,
    profile: &Profile,
    g: &Geometry<f64>,
    d: f64,
) -> Option<HotSpot> {
    g.bounding_rect_env().and_then(|[x0, y0, x1, y1]| {
        snap.layer(Layer::Parcels)
            .in_envelope([x0 - d, y0 - d, x1 + d, y1 + d])
            .filter_map(|p| {
                let class = profile.land_use_class(p.get(Layer::Parcels, "land_use").as_str()?);
                if !matches!(class, LandUseClass::Commercial | LandUseClass::Industrial) {
                    return None;
                }
                let dist = Euclidean.distance(g, p.geom.as_ref()?);
                (dist <= d).then(|| HotSpot {
                    parcel_id: p.id.clone(),
                    class,
                    distance: dist,
                })
            })
            .min_by(|a, b| {
                a.distance
                    .total_cmp(&b.distance)
                    .then_with(|| a.parcel_id.cmp(&b.parcel_id))
            })
    })
}

/// Ranks the facilities of `layers` inside `area`.
pub fn rank_facilities(
    snap: &Snapshot,
    profile: &Profile,
    area: &MultiPolygon<f64>,
    watershed_id: Option<&str>,
    layers: &[Layer],
    opts: &RankOptions,
    due_check: DueCheck<'_>,
) -> WatershedFacilities {
    let area_geom = Geometry::MultiPolygon(area.clone());
    let Some(r) = wkb::bounding_rect(&area_geom) else {
        return WatershedFacilities {
            watershed_id: watershed_id.map(str::to_string),
            drains_to: None,
            drains_to_303d: false,
            tmdl_areas: Vec::new(),
            priority_area: false,
            facilities: Vec::new(),
        };
    };
    let env = [r.min().x, r.min().y, r.max().x, r.max().y];
    let stormwater_tmdls: Vec<(&str, &Geometry<f64>)> = snap
        .layer(Layer::TmdlAreas)
        .in_envelope(env)
        .filter(|t| t.get(Layer::TmdlAreas, "stormwater_source").as_bool() == Some(true))
        .filter_map(|t| Some((t.id.as_str(), t.geom.as_ref()?)))
        .filter(|(_, g)| g.intersects(area))
        .collect();
    let drains_to = watershed_id
        .and_then(|w| snap.layer(Layer::Watersheds).get(w))
        .and_then(|w| {
            w.get(Layer::Watersheds, "drains_to")
                .as_str()
                .map(str::to_string)
        });
    let drains_to_303d = drains_to.as_deref().is_some_and(|w| listed_303d(snap, w));
    let mut tmdl_ids: Vec<String> = stormwater_tmdls
        .iter()
        .map(|(id, _)| id.to_string())
        .collect();
    tmdl_ids.sort();

    let d = opts.hot_spot_distance;
    let unit = snap.meta.linear_unit.symbol();
    let mut facilities = Vec::new();
    for &layer in layers {
        for f in snap.layer(layer).in_envelope(env) {
            let Some(g) = f.geom.as_ref() else { continue };
            if !g.intersects(area) {
                continue;
            }
            let mut reasons = Vec::new();
            let mut tmdls: Vec<String> = stormwater_tmdls
                .iter()
                .filter(|(_, tg)| tg.intersects(g))
                .map(|(id, _)| id.to_string())
                .collect();
            tmdls.sort();
            if !tmdls.is_empty() {
                reasons.push(format!(
                    "in TMDL area {} (stormwater a source)",
                    tmdls.join(", ")
                ));
            }
            let hot_spot = nearest_hot_spot(snap, profile, g, d);
            if let Some(h) = &hot_spot {
                reasons.push(format!(
                    "hot spot: {:.1} {unit} from {:?} parcel {}",
                    h.distance, h.class, h.parcel_id
                ));
            }
            let last = snap.last_inspection(&f.id);
            let due = match due_check(layer, f) {
                Some(why) => {
                    reasons.push(why);
                    true
                }
                None => false,
            };
            let score =
                4 * u8::from(!tmdls.is_empty()) + 2 * u8::from(hot_spot.is_some()) + u8::from(due);
            facilities.push(RankedFacility {
                layer,
                id: f.id.clone(),
                score,
                tmdl_areas: tmdls,
                hot_spot,
                last_inspection: last,
                due,
                reasons,
            });
        }
    }
    // Highest score first; among equals, the longest since inspection (never first).
    facilities.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.last_inspection.cmp(&b.last_inspection))
            .then_with(|| a.layer.cmp(&b.layer))
            .then_with(|| a.id.cmp(&b.id))
    });
    WatershedFacilities {
        watershed_id: watershed_id.map(str::to_string),
        drains_to,
        drains_to_303d,
        priority_area: drains_to_303d || !tmdl_ids.is_empty(),
        tmdl_areas: tmdl_ids,
        facilities,
    }
}

trait EnvRect {
    fn bounding_rect_env(&self) -> Option<[f64; 4]>;
}

impl EnvRect for Geometry<f64> {
    fn bounding_rect_env(&self) -> Option<[f64; 4]> {
        wkb::bounding_rect(self).map(|r| [r.min().x, r.min().y, r.max().x, r.max().y])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Feature, LengthUnit, Value};
    use crate::store::RegistryMeta;
    use geo_types::wkt;
    use std::collections::HashMap;

    fn f(layer: Layer, id: &str, g: Geometry<f64>, fields: &[(&str, Value)]) -> Feature {
        let mut x = Feature::new(layer, id);
        x.geom = Some(g);
        for (k, v) in fields {
            assert!(x.set(layer, k, v.clone()));
        }
        x
    }

    #[test]
    fn tmdl_then_hot_spots_then_due_ranks_first() {
        let mut l: HashMap<Layer, Vec<Feature>> = HashMap::new();
        l.insert(
            Layer::CatchBasins,
            vec![
                f(Layer::CatchBasins, "CB-A", wkt!(POINT(10. 10.)).into(), &[]),
                f(
                    Layer::CatchBasins,
                    "CB-B",
                    wkt!(POINT(150. 10.)).into(),
                    &[],
                ),
                f(
                    Layer::CatchBasins,
                    "CB-C",
                    wkt!(POINT(190. 190.)).into(),
                    &[],
                ),
                f(
                    Layer::CatchBasins,
                    "CB-OUT",
                    wkt!(POINT(500. 500.)).into(),
                    &[],
                ),
            ],
        );
        l.insert(
            Layer::Parcels,
            vec![f(
                Layer::Parcels,
                "P-IND",
                wkt!(POLYGON((160. 0.,200. 0.,200. 40.,160. 40.,160. 0.))).into(),
                &[("land_use", Value::Text("710".into()))],
            )],
        );
        l.insert(
            Layer::TmdlAreas,
            vec![f(
                Layer::TmdlAreas,
                "T-1",
                wkt!(POLYGON((0. 0.,50. 0.,50. 50.,0. 50.,0. 0.))).into(),
                &[
                    ("pollutant", Value::Text("phosphorus".into())),
                    ("stormwater_source", Value::Bool(true)),
                ],
            )],
        );
        let mut insp = Feature::new(Layer::Inspections, "i");
        insp.set(Layer::Inspections, "asset_id", Value::Text("CB-C".into()));
        insp.set(
            Layer::Inspections,
            "inspected_on",
            Value::Date(NaiveDate::from_ymd_opt(2026, 6, 1).unwrap()),
        );
        l.insert(Layer::Inspections, vec![insp]);
        let meta = RegistryMeta {
            jurisdiction: "north-castle-ny".into(),
            srid: 2260,
            crs_name: String::new(),
            crs_wkt: String::new(),
            linear_unit: LengthUnit::UsSurveyFoot,
        };
        let snap = Snapshot::from_features(meta, l);
        let profile = Profile::builtin("north-castle-ny").unwrap();
        let area = MultiPolygon(vec![wkt!(POLYGON((0. 0.,200. 0.,200. 200.,0. 200.,0. 0.)))]);
        let rank = |day: (i32, u32, u32)| {
            let today = NaiveDate::from_ymd_opt(day.0, day.1, day.2).unwrap();
            let opts = RankOptions {
                hot_spot_distance: 100.0,
                today,
            };
            let schedule =
                crate::answer::schedule::Schedule::with_priorities(&snap, &profile, None);
            let due = |l: Layer, f: &Feature| schedule.overdue(l, f, today).then(|| "due".into());
            let layers = [Layer::CatchBasins];
            rank_facilities(&snap, &profile, &area, None, &layers, &opts, &due)
        };
        let list = rank((2026, 11, 30));
        let order: Vec<(&str, u8)> = list
            .facilities
            .iter()
            .map(|f| (f.id.as_str(), f.score))
            .collect();
        assert_eq!(
            order,
            [("CB-A", 5), ("CB-B", 3), ("CB-C", 0)],
            "CB-OUT lies outside"
        );
        assert_eq!(
            list.facilities[1].hot_spot.as_ref().unwrap().parcel_id,
            "P-IND"
        );
        assert!(list.priority_area);
        assert_eq!(list.tmdl_areas, ["T-1"]);
        let list = rank((2027, 6, 2));
        assert!(
            list.facilities.iter().find(|f| f.id == "CB-C").unwrap().due,
            "a year and a day later it is overdue"
        );
    }
}
