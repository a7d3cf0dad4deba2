//! The tile layers: which registry layer, from which zoom, with which properties.
//!
//! The minimum zooms keep every tile light on a county: a million parcels at zoom 12
//! would put tens of thousands in one tile, so parcels start at 14, where a tile is about
//! 2.4 km across; pipes and structures at 14 too (pipes at 12 made a 925 KB tile of a
//! 30,000-parcel town); outfalls at 10; the areas and waters at 0.
//!
//! Two layers are answers rather than registry layers: the monitoring locations (at 12:
//! the county's 70,849, each with its water and reasons, made a z10 tile of 1.26 MB and
//! a z11 tile of 864 KB; 212 KB at z12) and their preliminary sewersheds (at 13, where a
//! tile is about 5 km across: at 12 the county's densest tile held 700 KB of sewersheds,
//! each a few blocks' outline). Both are derived once per generation (see
//! `tiles::mapping`) and served as tiles of their own ([`registry_layers`]).

use crate::domain::Layer;

/// The layers of the registry's tile (`/tiles/{z}/{x}/{y}.mvt`). The mapping layers have
/// tiles of their own (`/tiles/{layer}/...`): they are derived from the whole snapshot
/// again after every write, seconds on a county, and in the registry's tile they held
/// every write back from the map for as long.
pub fn registry_layers() -> Vec<&'static TileLayer> {
    TILE_LAYERS
        .iter()
        .filter(|l| l.registry().is_some())
        .collect()
}

/// The type of a tile property, as TileJSON's `vector_layers` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Text.
    Str,
    /// A number.
    Num,
    /// True or false.
    Bool,
}

impl Kind {
    /// The name TileJSON uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Str => "String",
            Kind::Num => "Number",
            Kind::Bool => "Boolean",
        }
    }
}

/// One property of a tile layer.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Its name in the tile.
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// What it says.
    pub doc: &'static str,
}

const fn s(name: &'static str, doc: &'static str) -> Field {
    Field {
        name,
        kind: Kind::Str,
        doc,
    }
}
const fn b(name: &'static str, doc: &'static str) -> Field {
    Field {
        name,
        kind: Kind::Bool,
        doc,
    }
}
const fn n(name: &'static str, doc: &'static str) -> Field {
    Field {
        name,
        kind: Kind::Num,
        doc,
    }
}

/// An answer of the mapping phase drawn as a tile layer (not a registry layer: its
/// features are derived from the whole snapshot, per generation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MappingLayer {
    /// Every outfall and interconnection with its priority, at its point.
    MonitoringLocations,
    /// Each location's preliminary storm sewershed.
    Sewersheds,
}

impl MappingLayer {
    /// Its name in tiles and URLs.
    pub fn name(self) -> &'static str {
        match self {
            MappingLayer::MonitoringLocations => "monitoring_locations",
            MappingLayer::Sewersheds => "sewersheds",
        }
    }
}

/// What a tile layer draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drawn {
    /// A registry layer, feature by feature.
    Registry(Layer),
    /// An answer of the mapping phase.
    Mapping(MappingLayer),
}

/// One layer of the tiles.
#[derive(Debug)]
pub struct TileLayer {
    /// What it draws.
    pub drawn: Drawn,
    /// The lowest zoom it appears at.
    pub minzoom: u8,
    /// Its properties.
    pub fields: &'static [Field],
}

impl TileLayer {
    /// Its name in tiles and URLs: the registry layer's name, or the answer's.
    pub fn name(&self) -> &'static str {
        match self.drawn {
            Drawn::Registry(l) => l.name(),
            Drawn::Mapping(m) => m.name(),
        }
    }

    /// The registry layer it draws, if it draws one.
    pub fn registry(&self) -> Option<Layer> {
        match self.drawn {
            Drawn::Registry(l) => Some(l),
            Drawn::Mapping(_) => None,
        }
    }

    /// Whether a property needs the facts derived from the whole snapshot: a finding, an
    /// easement state, or an outfall's `overdue` when `profile`'s schedule goes by the
    /// monitoring priority.
    pub fn needs_derived(&self, profile: &crate::rules::Profile) -> bool {
        self.fields.iter().any(|f| {
            matches!(f.name, "finding" | "easement")
                || (f.name == "overdue"
                    && self.registry() == Some(Layer::Outfalls)
                    && profile.schedules.by_priority("outfall"))
        })
    }

    /// The tile layer named `name`.
    pub fn by_name(name: &str) -> Option<&'static TileLayer> {
        TILE_LAYERS.iter().find(|t| t.name() == name)
    }
}

const ID: Field = s("id", "the feature's id in the registry");
const STATUS: Field = s(
    "status",
    "status as recorded (active, abandoned, proposed...)",
);
const OWNER: Field = s("owner", "owner as recorded");
const LAST: Field = s(
    "last_inspection",
    "date of the latest inspection (YYYY-MM-DD)",
);
const OVERDUE: Field = b(
    "overdue",
    "never inspected, or an inspection the profile's schedule holds it to is past its day (every 365 days where the profile's [schedules] says nothing: the default's reading)",
);

const PRIORITY: Field = s(
    "priority",
    "high, medium or low (the profile's rule; its source is the answer's)",
);

/// Every tile layer, drawn bottom to top.
pub static TILE_LAYERS: [TileLayer; 17] = [
    TileLayer {
        drawn: Drawn::Registry(Layer::Boundary),
        minzoom: 0,
        fields: &[ID, s("name", "name")],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Watersheds),
        minzoom: 0,
        fields: &[
            ID,
            s("name", "name"),
            s("drains_to", "the water it drains to"),
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::TmdlAreas),
        minzoom: 0,
        fields: &[
            ID,
            s("pollutant", "the TMDL's pollutant"),
            b("stormwater_source", "stormwater is a named source"),
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::ReceivingWaters),
        minzoom: 0,
        fields: &[
            ID,
            s("name", "name"),
            b(
                "listed_303d",
                "on the 303(d) list (the record's flag, else any impairment row)",
            ),
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Parcels),
        minzoom: 14,
        fields: &[
            ID,
            s("land_use", "land use as recorded"),
            s(
                "land_use_class",
                "commercial, industrial, other or unknown (the profile's classes)",
            ),
            OWNER,
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Easements),
        minzoom: 14,
        fields: &[ID, s("purpose", "purpose as recorded")],
    },
    // Construction sites: the footprint of each, for the inspector and the officer to find
    // the active ones on the map (their schedule is the sites' own answer).
    TileLayer {
        drawn: Drawn::Registry(Layer::Sites),
        minzoom: 12,
        fields: &[
            ID,
            s("name", "the site's name"),
            s("status", "proposed, approved, active, stabilized or closed"),
            s(
                "priority",
                "high, medium or low (the profile's rule, with its reasons in the site)",
            ),
        ],
    },
    // Sewersheds under the network they are built from, coloured by their location's
    // priority.
    TileLayer {
        drawn: Drawn::Mapping(MappingLayer::Sewersheds),
        minzoom: 13,
        fields: &[
            s("id", "the monitoring location it drains to"),
            s("kind", "outfall or interconnection"),
            PRIORITY,
            s("method", "how it was built (the answer's words)"),
            s(
                "holds_sewershed_of",
                "the location upstream whose whole sewershed it holds; drawn as that one, so only the part it adds is drawn as this one",
            ),
            n("area", "its whole area, in the square of the registry's unit"),
            s("area_unit", "the unit of its area (ft², m²)"),
            n(
                "commercial_industrial_share",
                "the share of its parcels' area in commercial or industrial use (0 to 1)",
            ),
            s(
                "quality",
                "complete, or doubtful when an inlet inside it has no trace, a trace met a dangling end or a parcel is split",
            ),
            n("inlets_without_trace", "catch basins inside it no pipe joins"),
            n("dangling_ends", "pipes whose upstream end meets nothing"),
            n("parcels_split", "parcels left out: they drain here and elsewhere"),
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Pipes),
        minzoom: 14,
        fields: &[
            ID,
            s("kind", "pipe, ditch, culvert, swale..."),
            n("diameter_in", "diameter in inches"),
            s("from_id", "upstream structure, as recorded"),
            s("to_id", "downstream structure, as recorded"),
            STATUS,
            OWNER,
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Smps),
        minzoom: 14,
        fields: &[
            ID,
            s("practice_type", "practice type"),
            STATUS,
            s("owner_kind", "owner kind"),
            s(
                "easement",
                "covered, missing, needs_review, town_owned, removed or not_covered",
            ),
            LAST,
            OVERDUE,
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Connections),
        minzoom: 14,
        fields: &[
            ID,
            s("discharge_kind", "discharge kind as recorded"),
            STATUS,
            s("parcel_id", "source parcel, as recorded"),
            s("finding", "illicit, needs_review, ok or not_covered"),
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::ConnectionRecords),
        minzoom: 15,
        fields: &[
            ID,
            s("connection_id", "the connection it documents"),
            b("approved", "approved"),
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Manholes),
        minzoom: 14,
        fields: &[ID, STATUS, OWNER, LAST, OVERDUE],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::CatchBasins),
        minzoom: 14,
        fields: &[ID, STATUS, OWNER, LAST, OVERDUE],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Structures),
        minzoom: 14,
        fields: &[
            ID,
            s("structure_type", "headwall, junction box, ..."),
            STATUS,
            OWNER,
        ],
    },
    TileLayer {
        drawn: Drawn::Registry(Layer::Outfalls),
        minzoom: 10,
        fields: &[
            ID,
            STATUS,
            OWNER,
            s("receiving_water_id", "the water it discharges to"),
            LAST,
            OVERDUE,
            s(
                "last_screening",
                "result of the latest dry-weather screening",
            ),
            b(
                "sewage_indicators",
                "the latest dry-weather screening found sewage indicators",
            ),
        ],
    },
    // Monitoring locations over everything: every outfall and interconnection with the
    // priority the profile's rule gives it and the criteria met.
    TileLayer {
        drawn: Drawn::Mapping(MappingLayer::MonitoringLocations),
        minzoom: 12,
        fields: &[
            ID,
            s("kind", "outfall or interconnection"),
            PRIORITY,
            s(
                "reasons",
                "the criteria met, highest first (impaired_water, tmdl_water, higher_class, idde_history, commercial_industrial_upstream, interconnection)",
            ),
            s("receiving_water", "the waters it discharges to (names, else ids)"),
            s("class", "those waters' classifications as recorded"),
            b("impaired", "a water it discharges to is 303(d)-listed"),
            b("tmdl", "a TMDL covers a water it discharges to, or it lies in a TMDL area"),
            s("watershed_id", "the watershed it lies in"),
            s("other_owner", "at an interconnection, the other body"),
        ],
    },
];
