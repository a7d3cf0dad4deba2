//! The answers the CLI and the HTTP API both give.
//!
//! Each question has one parameters struct, read by clap from flags and by serde from a
//! query string or a JSON body under the same names (`hot-spot-distance` on the command
//! line is `hot_spot_distance` over HTTP), and one function that answers it from an
//! [`Ask`]: a snapshot, the jurisdiction's profile and, for the questions that need it,
//! the drainage network. The answer is a value the CLI prints with `--format json` and the
//! API returns as it is, so both give the same JSON for the same question.

pub mod calendar;
pub mod determine;
pub mod facts;
pub mod illicit;
pub mod mapping;
pub mod nearby;
pub mod network_findings;
pub mod place;
pub mod places;
pub mod profile;
pub mod schedule;
pub mod smps;
pub mod trace;
pub mod validate;
pub mod watershed_facilities;

use std::cell::OnceCell;
use std::sync::Arc;

use serde::{Deserializer, Serialize, Serializer};

use crate::rules::profile::Tolerance;
use crate::rules::Profile;
use crate::spatial::network::{Network, NetworkOptions};
use crate::spatial::Snapshot;

/// Why a question could not be answered.
#[derive(Debug)]
pub enum AskError {
    /// One parameter is wrong: which (by its bare name, `radius`), and why.
    Invalid {
        /// The parameter, as named over HTTP (`hot_spot_distance`, `lon/lat`), or its
        /// path into a body (`agricultural`, `footprint.coordinates`).
        param: std::borrow::Cow<'static, str>,
        /// What is wrong with it, and what would do.
        message: String,
    },
    /// The question as a whole cannot be asked of this registry.
    BadRequest(String),
    /// The asset, watershed or parcel named is not in the registry.
    NotFound(String),
    /// Something failed that is not the asker's doing.
    Other(anyhow::Error),
}

impl AskError {
    /// An error naming the parameter at fault.
    pub fn invalid(
        param: impl Into<std::borrow::Cow<'static, str>>,
        message: impl Into<String>,
    ) -> Self {
        AskError::Invalid {
            param: param.into(),
            message: message.into(),
        }
    }

    /// The error as the command line reports it: parameters named as flags (`--radius`),
    /// since that is what the person typed.
    pub fn into_cli(self) -> anyhow::Error {
        match self {
            AskError::Invalid { param, message } => {
                let flags: Vec<String> = param
                    .split('/')
                    .map(|p| format!("--{}", p.replace('_', "-")))
                    .collect();
                anyhow::anyhow!("{}: {message}", flags.join("/"))
            }
            AskError::Other(e) => e,
            e => anyhow::anyhow!("{e}"),
        }
    }
}

impl std::fmt::Display for AskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AskError::Invalid { param, message } => write!(f, "{param}: {message}"),
            AskError::BadRequest(m) | AskError::NotFound(m) => f.write_str(m),
            AskError::Other(e) => write!(f, "{e:#}"),
        }
    }
}

impl std::error::Error for AskError {}

impl From<anyhow::Error> for AskError {
    fn from(e: anyhow::Error) -> Self {
        AskError::Other(e)
    }
}

/// What a question is asked of: one snapshot, its jurisdiction's profile, and the drainage
/// network, built or fetched only when a question needs it.
pub struct Ask<'a> {
    /// The registry at one moment.
    pub snap: &'a Snapshot,
    /// The jurisdiction's profile.
    pub profile: &'a Profile,
    network: OnceCell<Arc<Network>>,
    source: Option<&'a dyn Fn() -> anyhow::Result<Arc<Network>>>,
    /// What the mapping answers work out, kept for the others asked of this moment.
    pub(crate) kept: mapping::Kept,
}

impl<'a> Ask<'a> {
    /// Questions of `snap` under `profile`; the network is built on first need.
    pub fn new(snap: &'a Snapshot, profile: &'a Profile) -> Self {
        Ask {
            snap,
            profile,
            network: OnceCell::new(),
            source: None,
            kept: Default::default(),
        }
    }

    /// Takes the network from `source` (a cache shared between requests) instead of
    /// building it.
    pub fn with_network(mut self, source: &'a dyn Fn() -> anyhow::Result<Arc<Network>>) -> Self {
        self.source = Some(source);
        self
    }

    /// The drainage network of the snapshot.
    pub fn network(&self) -> Result<&Network, AskError> {
        if let Some(n) = self.network.get() {
            return Ok(n);
        }
        let n = match self.source {
            Some(source) => source()?,
            None => Arc::new(build_network(self.snap, self.profile)),
        };
        Ok(self.network.get_or_init(|| n))
    }

    /// A profile distance in the registry CRS's unit (0 when the unit is unusable).
    pub fn in_crs(&self, d: &Tolerance) -> f64 {
        in_crs(self.snap, d)
    }
}

/// The drainage network of a snapshot, its ends snapped with the profile's tolerance.
pub fn build_network(snap: &Snapshot, profile: &Profile) -> Network {
    let tol = in_crs(snap, &profile.tolerances.snap_tolerance);
    Network::from_snapshot(snap, NetworkOptions::new(tol))
}

fn in_crs(snap: &Snapshot, d: &Tolerance) -> f64 {
    d.in_crs_units(snap.meta.linear_unit.metres())
        .unwrap_or(0.0)
}

/// A quantity in an answer: a number and its unit's symbol.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Measure {
    /// The number.
    pub value: f64,
    /// The unit (`ftUS`, `m`, ...).
    pub unit: &'static str,
}

/// An EPSG code written as `EPSG:<code>`, without building a string first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Epsg(pub i32);

impl Serialize for Epsg {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("EPSG:{}", self.0))
    }
}

/// Reads a list given either as a JSON array or as one comma-separated string, so that
/// `kinds=catch_basin,outfall` works in a query string as `--kinds catch_basin,outfall`
/// does on the command line. Empty items are dropped.
pub fn comma_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a comma-separated list or an array of strings")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
            Ok(split_list(s))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(s) = seq.next_element::<String>()? {
                out.extend(split_list(&s));
            }
            Ok(out)
        }
    }
    d.deserialize_any(V)
}

fn split_list(s: &str) -> Vec<String> {
    s.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Reads a flag given in a query string as `all=true`, `all=1`, `all=yes` or bare `all=`
/// (true), or in JSON as a boolean.
pub fn flag<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("true or false")
        }
        fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<bool, E> {
            Ok(b)
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<bool, E> {
            match s.trim().to_ascii_lowercase().as_str() {
                "" | "true" | "1" | "yes" | "on" => Ok(true),
                "false" | "0" | "no" | "off" => Ok(false),
                _ => Err(E::custom(format!("{s:?} is not true or false"))),
            }
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(self)
        }
    }
    d.deserialize_any(V)
}

/// Serializes an answer as compact JSON bytes (what the API sends).
pub fn to_json<T: Serialize + ?Sized>(answer: &T) -> Result<Vec<u8>, AskError> {
    serde_json::to_vec(answer).map_err(|e| AskError::Other(e.into()))
}

/// Serializes an answer as indented JSON (what the CLI prints).
pub fn to_pretty_json<T: Serialize + ?Sized>(answer: &T) -> Result<String, AskError> {
    serde_json::to_string_pretty(answer).map_err(|e| AskError::Other(e.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    struct Q {
        #[serde(default, deserialize_with = "comma_list")]
        kinds: Vec<String>,
        #[serde(default, deserialize_with = "flag")]
        all: bool,
    }

    fn query(q: &str) -> Result<Q, String> {
        let uri: axum::http::Uri = format!("http://h/?{q}").parse().unwrap();
        axum::extract::Query::<Q>::try_from_uri(&uri)
            .map(|q| q.0)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn lists_come_comma_separated_or_as_arrays() {
        let q = query("kinds=catch_basin,%20outfall,&all=").unwrap();
        assert_eq!(q.kinds, ["catch_basin", "outfall"]);
        assert!(q.all);
        let q: Q =
            serde_json::from_str(r#"{"kinds":["manhole","smp,outfall"],"all":false}"#).unwrap();
        assert_eq!(q.kinds, ["manhole", "smp", "outfall"]);
        assert!(!q.all);
        let q = query("").unwrap();
        assert!(q.kinds.is_empty() && !q.all);
        assert!(query("all=maybe").is_err());
    }

    #[test]
    fn cli_errors_name_flags_and_http_errors_bare_names() {
        let e = AskError::invalid("hot_spot_distance", "\"x\" is not a length");
        assert_eq!(e.to_string(), "hot_spot_distance: \"x\" is not a length");
        assert_eq!(
            e.into_cli().to_string(),
            "--hot-spot-distance: \"x\" is not a length"
        );
        let e = AskError::invalid("lon/lat", "out of range");
        assert_eq!(e.into_cli().to_string(), "--lon/--lat: out of range");
    }
}
