//! The properties of a tile feature, and the facts derived once per snapshot that some of
//! them need (each connection's illicit finding, each SMP's easement state, each asset's
//! latest inspection).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use chrono::NaiveDate;
use geozero::mvt::TileValue;

use super::RenderError;
use crate::answer::{self, Ask};
use crate::domain::{Feature, Layer, Value};
use crate::rules::Profile;
use crate::spatial::network::Network;
use crate::spatial::Snapshot;

/// Facts about features that only the whole snapshot decides.
#[derive(Debug, Default)]
pub struct Derived {
    /// Each connection's illicit finding (`illicit`, `needs_review`, `ok`, `not_covered`).
    pub findings: HashMap<String, &'static str>,
    /// Each SMP's easement state.
    pub easements: HashMap<String, &'static str>,
    /// Each monitoring location's priority, worked out only when the profile's
    /// `[schedules]` has an item by priority (the map's `overdue` then depends on it).
    pub priorities: Option<HashMap<String, crate::rules::monitoring::Priority>>,
}

impl Derived {
    /// Judges every connection and every SMP, as `/api/illicit` and
    /// `/api/smps-without-easement` do.
    pub fn of(
        snap: &Snapshot,
        profile: &Profile,
        network: &dyn Fn() -> anyhow::Result<Arc<Network>>,
    ) -> Result<Self, RenderError> {
        let ask = Ask::new(snap, profile).with_network(network);
        let all = answer::illicit::IllicitParams {
            status: ["illicit", "needs_review", "ok", "not_covered"]
                .map(String::from)
                .to_vec(),
        };
        let ill = answer::illicit::illicit(&ask, &all).map_err(RenderError::Findings)?;
        let smps =
            answer::smps::smps_without_easement(&ask, &answer::smps::SmpsParams { all: true })
                .map_err(RenderError::Findings)?;
        let priorities = if profile.schedules.by_priority("outfall") {
            Some(
                answer::schedule::priorities(&ask)
                    .map_err(RenderError::Findings)?
                    .0,
            )
        } else {
            None
        };
        Ok(Derived {
            findings: ill
                .connections
                .into_iter()
                .map(|c| (c.connection_id, c.finding.result.as_str()))
                .collect(),
            easements: smps
                .smps
                .into_iter()
                .map(|s| (s.smp_id, s.finding.result.as_str()))
                .collect(),
            priorities,
        })
    }
}

/// The derived facts, kept while what they are derived from is unchanged.
///
/// [`Derived::of`] reads every layer but the inspections in full, and of the inspections
/// only the screenings that found sewage indicators (the illicit rule's evidence), with
/// the profile. Most writes leave those alone — an inspection without sewage indicators,
/// above all, which is what a day in the field writes — and then the facts are kept for
/// the new snapshot instead of judging every connection again (seconds on a county).
#[derive(Clone, Default)]
pub struct DerivedCache {
    // The lock is held while deriving, so two first tiles derive once.
    inner: Arc<Mutex<Option<DerivedEntry>>>,
    /// How many times the facts were derived.
    derivations: Arc<std::sync::atomic::AtomicU64>,
}

struct DerivedEntry {
    /// The snapshot the facts were last given for.
    snap: Weak<Snapshot>,
    /// What they were derived from.
    inputs: DerivedInputs,
    derived: Arc<Derived>,
}

/// What [`Derived::of`] reads.
struct DerivedInputs {
    /// Every layer but the inspections, by identity: a layer a write left alone is the
    /// same shared index in the next snapshot. (A live `Weak` keeps its allocation, so an
    /// equal pointer is the same layer, never a new one at an old address.)
    layers: Vec<Weak<crate::spatial::LayerIndex>>,
    /// The screenings that found sewage indicators, as the illicit rule reads them.
    sewage: Vec<crate::rules::illicit::ScreeningFacts>,
    profile: Profile,
}

/// The layers whose every row the derived facts may read (all but the inspections).
fn read_in_full() -> impl Iterator<Item = crate::domain::Layer> {
    crate::domain::Layer::ALL
        .into_iter()
        .filter(|l| *l != crate::domain::Layer::Inspections)
}

impl DerivedInputs {
    fn of(snap: &Snapshot, profile: &Profile) -> Self {
        DerivedInputs {
            layers: read_in_full()
                .map(|l| Arc::downgrade(&snap.layer_shared(l)))
                .collect(),
            sewage: crate::spatial::connections::sewage_screenings(snap),
            profile: profile.clone(),
        }
    }

    /// Whether `snap` and `profile` give the same inputs.
    fn same(&self, snap: &Snapshot, profile: &Profile) -> bool {
        self.profile == *profile
            && self.layers.iter().zip(read_in_full()).all(|(w, l)| {
                w.strong_count() > 0 && std::ptr::eq(w.as_ptr(), Arc::as_ptr(&snap.layer_shared(l)))
            })
            && self.sewage == crate::spatial::connections::sewage_screenings(snap)
    }
}

impl DerivedCache {
    /// The facts for `snap` under `profile`, made with `make` unless the cache holds facts
    /// derived from the same inputs. Blocking.
    pub fn get(
        &self,
        snap: &Arc<Snapshot>,
        profile: &Profile,
        make: impl FnOnce() -> Result<Derived, RenderError>,
    ) -> Result<Arc<Derived>, RenderError> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = g.as_mut() {
            let same_snap = e.snap.upgrade().is_some_and(|s| Arc::ptr_eq(&s, snap));
            if same_snap && e.inputs.profile == *profile {
                return Ok(e.derived.clone());
            }
            if !same_snap && e.inputs.same(snap, profile) {
                e.snap = Arc::downgrade(snap);
                return Ok(e.derived.clone());
            }
        }
        let derived = Arc::new(make()?);
        self.derivations
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        *g = Some(DerivedEntry {
            snap: Arc::downgrade(snap),
            inputs: DerivedInputs::of(snap, profile),
            derived: derived.clone(),
        });
        Ok(derived)
    }

    /// How many times the facts were derived (a write that leaves their inputs alone
    /// must not count).
    pub fn derivations(&self) -> u64 {
        self.derivations.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// The pipes the network turned round by their inverts, against their digitised order
/// (the Mercator copy already runs a pipe from its `from_id` end to its `to_id` end, as
/// the network does; pipes with no usable id follow their inverts there, so the tile
/// turns these when it draws them).
#[derive(Debug, Default)]
pub struct Flows {
    /// Ids of the turned pipes.
    pub turned: rustc_hash::FxHashSet<String>,
}

impl Flows {
    /// Reads the turned pipes from the network.
    pub fn of(network: &Network) -> Self {
        Flows {
            turned: network.turned_by_inverts().map(str::to_string).collect(),
        }
    }
}

/// A value derived from one snapshot and a setting `K` of the profile (the pipes' flow
/// from the network, which the snap tolerance shapes), kept until either changes.
pub struct PerSnapshot<T, K = ()> {
    // The lock is held while deriving, so two first tiles derive once.
    inner: Arc<Mutex<Option<Derivation<T, K>>>>,
}

/// What a [`PerSnapshot`] holds: the snapshot and setting a value was derived from.
type Derivation<T, K> = (Weak<Snapshot>, K, Arc<T>);

impl<T, K> Clone for PerSnapshot<T, K> {
    fn clone(&self) -> Self {
        PerSnapshot {
            inner: self.inner.clone(),
        }
    }
}

impl<T, K> Default for PerSnapshot<T, K> {
    fn default() -> Self {
        PerSnapshot {
            inner: Arc::default(),
        }
    }
}

impl<T, K: PartialEq> PerSnapshot<T, K> {
    /// The value for `snap` and `setting`, made with `make` unless the cache holds it.
    /// Blocking.
    pub fn get(
        &self,
        snap: &Arc<Snapshot>,
        setting: K,
        make: impl FnOnce() -> Result<T, RenderError>,
    ) -> Result<Arc<T>, RenderError> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((w, k, d)) = g.as_ref() {
            if *k == setting && w.upgrade().is_some_and(|s| Arc::ptr_eq(&s, snap)) {
                return Ok(d.clone());
            }
        }
        let d = Arc::new(make()?);
        *g = Some((Arc::downgrade(snap), setting, d.clone()));
        Ok(d)
    }
}

/// An outfall's latest dry-weather screening: its date, result and sewage indicators.
///
/// Read from the snapshot's inspection index (the asset's own inspections, in the order
/// the layer holds them), so a new inspection costs nothing until its outfall is drawn,
/// and an asset's history is read, not the whole layer. On one day, the screening the
/// layer holds last wins.
pub fn latest_screening(snap: &Snapshot, asset_id: &str) -> Option<(NaiveDate, Value, Value)> {
    let mut best: Option<(NaiveDate, &Feature)> = None;
    for i in snap.inspections_of(asset_id) {
        let g = |n: &str| i.get(Layer::Inspections, n);
        let Value::Date(d) = g("inspected_on") else {
            continue;
        };
        if g("kind").as_str() != Some("dry_weather_screening") {
            continue;
        }
        if best.is_none_or(|(e, _)| *d >= e) {
            best = Some((*d, i));
        }
    }
    best.map(|(d, i)| {
        (
            d,
            i.get(Layer::Inspections, "result").clone(),
            i.get(Layer::Inspections, "sewage_indicators").clone(),
        )
    })
}

/// What a feature's properties are read with.
pub struct Context<'a> {
    /// The snapshot the tile is rendered from.
    pub snap: &'a Snapshot,
    /// The jurisdiction's profile (land-use classes).
    pub profile: &'a Profile,
    /// Findings and easement states, for the layers that show them.
    pub derived: Option<&'a Derived>,
    /// The pipes to draw against their digitised order, for the pipes layer.
    pub flows: Option<&'a Flows>,
    /// The day "overdue" is judged on.
    pub today: NaiveDate,
    /// Land-use classes already worked out for this tile, by raw value: classifying a
    /// value normalises every word of the profile's lists, and a tile's parcels share a
    /// few dozen values at most.
    pub land_use: std::cell::RefCell<rustc_hash::FxHashMap<String, &'static str>>,
}

impl Context<'_> {
    fn land_use_class(&self, raw: &str) -> &'static str {
        if let Some(c) = self.land_use.borrow().get(raw) {
            return c;
        }
        let c = self.profile.land_use_class(raw).as_str();
        self.land_use.borrow_mut().insert(raw.to_string(), c);
        c
    }
}

fn from_value(v: &Value) -> Option<TileValue> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => TileValue::Bool(*b),
        Value::Int(i) => TileValue::Sint(*i),
        Value::Real(r) => TileValue::Double(*r),
        Value::Date(d) => TileValue::Str(d.format("%Y-%m-%d").to_string()),
        Value::Text(s) => TileValue::Str(s.clone()),
    })
}

/// Where a tile property's value comes from, worked out once per layer of a tile rather
/// than by matching its name (and finding a recorded field by name) for every feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The feature's id.
    Id,
    /// The day of its latest inspection.
    LastInspection,
    /// Whether an inspection of the feature (of this layer) is overdue or never made,
    /// by the profile's schedule ([`crate::answer::schedule::Schedule::overdue`]).
    Overdue(Layer),
    /// The profile's class of the recorded land use (at this field position).
    LandUseClass(Option<usize>),
    /// The water's 303(d) flag (at this field position), else any impairment.
    Listed303d(Option<usize>),
    /// The connection's illicit finding.
    Finding,
    /// The SMP's easement state.
    Easement,
    /// The outfall's latest dry-weather screening result.
    LastScreening,
    /// Whether that screening found sewage indicators.
    SewageIndicators,
    /// A recorded field, at this position of the layer's fields.
    Field(usize),
    /// A name the layer does not record: never a value.
    Missing,
}

impl Source {
    /// The source of property `name` of `layer`.
    pub fn of(layer: Layer, name: &str) -> Source {
        match name {
            "id" => Source::Id,
            "last_inspection" => Source::LastInspection,
            "overdue" => Source::Overdue(layer),
            "land_use_class" => Source::LandUseClass(layer.field_index("land_use")),
            "listed_303d" => Source::Listed303d(layer.field_index("listed_303d")),
            "finding" => Source::Finding,
            "easement" => Source::Easement,
            "last_screening" => Source::LastScreening,
            "sewage_indicators" => Source::SewageIndicators,
            field => layer
                .field_index(field)
                .map_or(Source::Missing, Source::Field),
        }
    }
}

/// A property value as read, borrowed from the snapshot where it can be: a tile's value
/// table copies each distinct value once, not once per feature.
#[derive(Debug, Clone, PartialEq)]
pub enum Prop<'a> {
    /// Text.
    Str(&'a str),
    /// A day, written `YYYY-MM-DD`.
    Date(NaiveDate),
    /// True or false.
    Bool(bool),
    /// A whole number.
    Int(i64),
    /// A number.
    Real(f64),
    /// A value made for this feature (the rare derived ones).
    Owned(TileValue),
}

impl Prop<'_> {
    /// As an MVT value.
    pub fn to_tile_value(&self) -> TileValue {
        match self {
            Prop::Str(s) => TileValue::Str((*s).to_string()),
            Prop::Date(d) => TileValue::Str(d.format("%Y-%m-%d").to_string()),
            Prop::Bool(b) => TileValue::Bool(*b),
            Prop::Int(i) => TileValue::Sint(*i),
            Prop::Real(r) => TileValue::Double(*r),
            Prop::Owned(v) => v.clone(),
        }
    }
}

fn recorded(v: &Value) -> Option<Prop<'_>> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => Prop::Bool(*b),
        Value::Int(i) => Prop::Int(*i),
        Value::Real(r) => Prop::Real(*r),
        Value::Date(d) => Prop::Date(*d),
        Value::Text(s) => Prop::Str(s),
    })
}

/// The value of the property from `src` of feature `f` (none when it has no value).
pub fn prop<'a>(src: Source, f: &'a Feature, ctx: &Context<'a>) -> Option<Prop<'a>> {
    let at = |i: Option<usize>| i.and_then(|i| f.values.get(i));
    match src {
        Source::Id => Some(Prop::Str(&f.id)),
        Source::LastInspection => ctx.snap.last_inspection(&f.id).map(Prop::Date),
        Source::Overdue(layer) => {
            let priorities = ctx.derived.and_then(|d| d.priorities.as_ref());
            let schedule =
                answer::schedule::Schedule::with_priorities(ctx.snap, ctx.profile, priorities);
            Some(Prop::Bool(schedule.overdue(layer, f, ctx.today)))
        }
        Source::LandUseClass(i) => match at(i) {
            Some(Value::Text(raw)) => Some(Prop::Str(ctx.land_use_class(raw))),
            _ => None,
        },
        Source::Listed303d(i) => Some(Prop::Bool(match at(i) {
            Some(Value::Bool(b)) => *b,
            _ => !ctx.snap.pollutants(&f.id).is_empty(),
        })),
        Source::Finding => ctx.derived?.findings.get(&f.id).map(|s| Prop::Str(s)),
        Source::Easement => ctx.derived?.easements.get(&f.id).map(|s| Prop::Str(s)),
        Source::LastScreening => from_value(&latest_screening(ctx.snap, &f.id)?.1).map(Prop::Owned),
        Source::SewageIndicators => {
            from_value(&latest_screening(ctx.snap, &f.id)?.2).map(Prop::Owned)
        }
        Source::Field(i) => recorded(f.values.get(i)?),
        Source::Missing => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inspection(id: &str, asset: &str, day: &str, kind: &str, result: &str) -> Feature {
        let mut f = Feature::new(Layer::Inspections, id);
        let set = |f: &mut Feature, n: &str, v: Value| f.set(Layer::Inspections, n, v);
        set(&mut f, "asset_id", Value::Text(asset.into()));
        set(&mut f, "inspected_on", Value::Date(day.parse().unwrap()));
        set(&mut f, "kind", Value::Text(kind.into()));
        set(&mut f, "result", Value::Text(result.into()));
        f
    }

    fn meta() -> crate::store::RegistryMeta {
        crate::store::RegistryMeta {
            jurisdiction: "north-castle-ny".into(),
            srid: 2260,
            crs_name: String::new(),
            crs_wkt: String::new(),
            linear_unit: crate::domain::LengthUnit::UsSurveyFoot,
        }
    }

    #[test]
    fn the_latest_screening_follows_each_inspection_written() {
        let meta = meta();
        let snap = Snapshot::from_features(
            meta,
            HashMap::from([(
                Layer::Inspections,
                vec![
                    inspection("i1", "OF-1", "2026-05-01", "dry_weather_screening", "flow"),
                    inspection("i2", "OF-1", "2026-06-01", "dry_weather_screening", "dry"),
                    // Later, but not a screening: it does not count.
                    inspection("i3", "OF-1", "2026-07-01", "routine", "ok"),
                    // Earlier than i2, held after it: the date decides, not the order.
                    inspection("i4", "OF-1", "2026-04-01", "dry_weather_screening", "flow"),
                    inspection("i5", "OF-2", "2026-04-01", "routine", "ok"),
                ],
            )]),
        );
        let result = |s: &Snapshot, a: &str| latest_screening(s, a).map(|(d, r, _)| (d, r));
        let day = |d: &str| d.parse::<NaiveDate>().unwrap();
        assert_eq!(
            result(&snap, "OF-1"),
            Some((day("2026-06-01"), Value::Text("dry".into())))
        );
        assert_eq!(result(&snap, "OF-2"), None);
        assert_eq!(result(&snap, "OF-3"), None);
        // Written as the server writes an inspection (the index updated, not rebuilt): a
        // same-day screening held later wins, and a first screening of OF-2 shows.
        let next = snap.with_upserts(
            Layer::Inspections,
            vec![
                inspection("i6", "OF-1", "2026-06-01", "dry_weather_screening", "flow"),
                inspection("i7", "OF-2", "2026-08-01", "dry_weather_screening", "dry"),
            ],
        );
        assert_eq!(
            result(&next, "OF-1"),
            Some((day("2026-06-01"), Value::Text("flow".into())))
        );
        assert_eq!(
            result(&next, "OF-2"),
            Some((day("2026-08-01"), Value::Text("dry".into())))
        );
        // The snapshot it came from still answers as before.
        assert_eq!(
            result(&snap, "OF-1"),
            Some((day("2026-06-01"), Value::Text("dry".into())))
        );
    }

    #[test]
    fn findings_are_kept_while_what_they_are_derived_from_is_unchanged() {
        let meta = meta();
        let outfall = |id: &str, x: f64| {
            let mut f = Feature::new(Layer::Outfalls, id);
            f.geom = Some(geo_types::Point::new(x, 0.0).into());
            f
        };
        let snap = Arc::new(Snapshot::from_features(
            meta,
            HashMap::from([
                (Layer::Outfalls, vec![outfall("OF-1", 0.0)]),
                (
                    Layer::Inspections,
                    vec![inspection(
                        "i1",
                        "OF-1",
                        "2026-05-01",
                        "dry_weather_screening",
                        "dry",
                    )],
                ),
            ]),
        ));
        let profile = Profile::builtin("north-castle-ny").unwrap();
        let cache = DerivedCache::default();
        let get = |s: &Arc<Snapshot>, p: &Profile| {
            cache.get(s, p, || Ok(Derived::default())).unwrap();
            cache.derivations()
        };
        assert_eq!(get(&snap, &profile), 1);
        assert_eq!(get(&snap, &profile), 1, "the same snapshot");
        // A day in the field: an inspection with no sewage indicators changes nothing the
        // findings read.
        let routine = Arc::new(snap.with_upserts(
            Layer::Inspections,
            vec![inspection("i2", "OF-1", "2026-06-01", "routine", "ok")],
        ));
        assert_eq!(get(&routine, &profile), 1, "an inspection without sewage");
        // A screening that found sewage is the illicit rule's evidence: judged again.
        let mut sewage = inspection("i3", "OF-1", "2026-06-02", "dry_weather_screening", "flow");
        sewage.set(Layer::Inspections, "sewage_indicators", Value::Bool(true));
        let sewage = Arc::new(routine.with_upserts(Layer::Inspections, vec![sewage]));
        assert_eq!(get(&sewage, &profile), 2, "a screening that found sewage");
        // Any other layer written: judged again.
        let more = Arc::new(sewage.with_upserts(Layer::Outfalls, vec![outfall("OF-2", 9.0)]));
        assert_eq!(get(&more, &profile), 3, "an outfall written");
        // Another profile, the same snapshot: judged again, and again when it goes back.
        let mut other = profile.clone();
        other.name.push_str(" (amended)");
        assert_eq!(get(&more, &other), 4, "the profile changed");
        assert_eq!(get(&more, &profile), 5, "the profile changed back");
        // The sewage screening's outfall removed from the registry: no longer evidence.
        let gone = Arc::new(more.with_layer(Layer::Outfalls, vec![outfall("OF-2", 9.0)]));
        assert_eq!(get(&gone, &profile), 6, "the screened outfall gone");
    }
}
