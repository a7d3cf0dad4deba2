//! The properties of a tile feature, and the facts derived once per snapshot that some of
//! them need (each connection's illicit finding, each SMP's easement state, each asset's
//! latest inspection).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use chrono::NaiveDate;
use geozero::mvt::TileValue;

use crate::answer::{self, Ask};
use crate::domain::{Feature, Layer, Value};
use crate::rules::Profile;
use crate::spatial::network::Network;
use crate::spatial::Snapshot;

/// How old an inspection may be before an asset is overdue (the watershed lists' default).
pub const OVERDUE_AFTER_DAYS: i64 = 365;

/// Facts about features that only the whole snapshot decides.
#[derive(Debug, Default)]
pub struct Derived {
    /// Each connection's illicit finding (`illicit`, `needs_review`, `ok`, `not_covered`).
    pub findings: HashMap<String, &'static str>,
    /// Each SMP's easement state.
    pub easements: HashMap<String, &'static str>,
}

impl Derived {
    /// Judges every connection and every SMP, as `/api/illicit` and
    /// `/api/smps-without-easement` do.
    pub fn of(
        snap: &Snapshot,
        profile: &Profile,
        network: &dyn Fn() -> anyhow::Result<Arc<Network>>,
    ) -> anyhow::Result<Self> {
        let ask = Ask::new(snap, profile).with_network(network);
        let all = answer::illicit::IllicitParams {
            status: ["illicit", "needs_review", "ok", "not_covered"]
                .map(String::from)
                .to_vec(),
        };
        let ill = answer::illicit::illicit(&ask, &all).map_err(|e| anyhow::anyhow!("{e}"))?;
        let smps =
            answer::smps::smps_without_easement(&ask, &answer::smps::SmpsParams { all: true })
                .map_err(|e| anyhow::anyhow!("{e}"))?;
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
        })
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

/// A value derived from one snapshot, kept until the snapshot is replaced.
pub struct PerSnapshot<T> {
    // The lock is held while deriving, so two first tiles derive once.
    inner: Arc<Mutex<Option<(Weak<Snapshot>, Arc<T>)>>>,
}

impl<T> Clone for PerSnapshot<T> {
    fn clone(&self) -> Self {
        PerSnapshot {
            inner: self.inner.clone(),
        }
    }
}

impl<T> Default for PerSnapshot<T> {
    fn default() -> Self {
        PerSnapshot {
            inner: Arc::default(),
        }
    }
}

impl<T> PerSnapshot<T> {
    /// The value for `snap`, made with `make` unless the cache holds it. Blocking.
    pub fn get(
        &self,
        snap: &Arc<Snapshot>,
        make: impl FnOnce() -> anyhow::Result<T>,
    ) -> anyhow::Result<Arc<T>> {
        let mut g = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((w, d)) = g.as_ref() {
            if w.upgrade().is_some_and(|s| Arc::ptr_eq(&s, snap)) {
                return Ok(d.clone());
            }
        }
        let d = Arc::new(make()?);
        *g = Some((Arc::downgrade(snap), d.clone()));
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
    /// Whether that is too long ago (or never).
    Overdue,
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
            "overdue" => Source::Overdue,
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
        Source::Overdue => Some(Prop::Bool(match ctx.snap.last_inspection(&f.id) {
            Some(d) => (ctx.today - d).num_days() > OVERDUE_AFTER_DAYS,
            None => true,
        })),
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

    #[test]
    fn the_latest_screening_follows_each_inspection_written() {
        let meta = crate::store::RegistryMeta {
            jurisdiction: "north-castle-ny".into(),
            srid: 2260,
            crs_name: String::new(),
            crs_wkt: String::new(),
            linear_unit: crate::domain::LengthUnit::UsSurveyFoot,
        };
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
}
