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

/// The latest dry-weather screening of each outfall: date, result, sewage indicators.
pub type Screenings = HashMap<String, (NaiveDate, Value, Value)>;

/// Reads the latest dry-weather screening of every asset from the inspections.
pub fn screenings(snap: &Snapshot) -> Screenings {
    let mut out: Screenings = HashMap::new();
    for i in &snap.layer(Layer::Inspections).features {
        let g = |n: &str| i.get(Layer::Inspections, n);
        let (Some(asset), Value::Date(d)) = (g("asset_id").as_str(), g("inspected_on")) else {
            continue;
        };
        if g("kind").as_str() != Some("dry_weather_screening") {
            continue;
        }
        let later = out.get(asset).is_none_or(|(e, ..)| d >= e);
        if later {
            out.insert(
                asset.to_string(),
                (*d, g("result").clone(), g("sewage_indicators").clone()),
            );
        }
    }
    out
}

/// What a feature's properties are read with.
pub struct Context<'a> {
    /// The snapshot the tile is rendered from.
    pub snap: &'a Snapshot,
    /// The jurisdiction's profile (land-use classes).
    pub profile: &'a Profile,
    /// Findings and easement states, for the layers that show them.
    pub derived: Option<&'a Derived>,
    /// The latest screenings, for the outfalls.
    pub screenings: Option<&'a Screenings>,
    /// The day "overdue" is judged on.
    pub today: NaiveDate,
    /// Land-use classes already worked out for this tile, by raw value: classifying a
    /// value normalises every word of the profile's lists, and a tile's parcels share a
    /// few dozen values at most.
    pub land_use: std::cell::RefCell<HashMap<String, &'static str>>,
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

/// The value of property `name` of feature `f` of `layer` (none when it has no value).
pub fn value(layer: Layer, name: &str, f: &Feature, ctx: &Context<'_>) -> Option<TileValue> {
    match name {
        "id" => Some(TileValue::Str(f.id.clone())),
        "last_inspection" => ctx
            .snap
            .last_inspection(&f.id)
            .map(|d| TileValue::Str(d.format("%Y-%m-%d").to_string())),
        "overdue" => Some(TileValue::Bool(match ctx.snap.last_inspection(&f.id) {
            Some(d) => (ctx.today - d).num_days() > OVERDUE_AFTER_DAYS,
            None => true,
        })),
        "land_use_class" => f
            .get(layer, "land_use")
            .as_str()
            .map(|raw| TileValue::Str(ctx.land_use_class(raw).to_string())),
        "listed_303d" => Some(TileValue::Bool(match f.get(layer, "listed_303d") {
            Value::Bool(b) => *b,
            _ => !ctx.snap.pollutants(&f.id).is_empty(),
        })),
        "finding" => ctx
            .derived?
            .findings
            .get(&f.id)
            .map(|s| TileValue::Str(s.to_string())),
        "easement" => ctx
            .derived?
            .easements
            .get(&f.id)
            .map(|s| TileValue::Str(s.to_string())),
        "last_screening" => from_value(&ctx.screenings?.get(&f.id)?.1),
        "sewage_indicators" => from_value(&ctx.screenings?.get(&f.id)?.2),
        field => from_value(f.get(layer, field)),
    }
}
