//! The tile layers: which registry layer, from which zoom, with which properties.
//!
//! The minimum zooms keep every tile light on a county: a million parcels at zoom 12
//! would put tens of thousands in one tile, so parcels start at 14, where a tile is about
//! 2.4 km across; pipes and structures at 14 too (pipes at 12 made a 925 KB tile of a
//! 30,000-parcel town); outfalls at 10; the areas and waters at 0.

use crate::domain::Layer;

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

/// One layer of the tiles.
#[derive(Debug)]
pub struct TileLayer {
    /// The registry layer it draws.
    pub layer: Layer,
    /// The lowest zoom it appears at.
    pub minzoom: u8,
    /// Its properties.
    pub fields: &'static [Field],
}

impl TileLayer {
    /// Its name in tiles and URLs: the registry layer's name.
    pub fn name(&self) -> &'static str {
        self.layer.name()
    }

    /// Whether a property needs the facts derived from the whole snapshot.
    pub fn needs_derived(&self) -> bool {
        self.fields
            .iter()
            .any(|f| matches!(f.name, "finding" | "easement"))
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
    "never inspected, or the latest inspection is more than 365 days old",
);

/// Every tile layer, drawn bottom to top.
pub static TILE_LAYERS: [TileLayer; 15] = [
    TileLayer {
        layer: Layer::Boundary,
        minzoom: 0,
        fields: &[ID, s("name", "name")],
    },
    TileLayer {
        layer: Layer::Watersheds,
        minzoom: 0,
        fields: &[
            ID,
            s("name", "name"),
            s("drains_to", "the water it drains to"),
        ],
    },
    TileLayer {
        layer: Layer::TmdlAreas,
        minzoom: 0,
        fields: &[
            ID,
            s("pollutant", "the TMDL's pollutant"),
            b("stormwater_source", "stormwater is a named source"),
        ],
    },
    TileLayer {
        layer: Layer::ReceivingWaters,
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
        layer: Layer::Parcels,
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
        layer: Layer::Easements,
        minzoom: 14,
        fields: &[ID, s("purpose", "purpose as recorded")],
    },
    // Construction sites: the footprint of each, for the inspector and the officer to find
    // the active ones on the map (their schedule is the sites' own answer).
    TileLayer {
        layer: Layer::Sites,
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
    TileLayer {
        layer: Layer::Pipes,
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
        layer: Layer::Smps,
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
        layer: Layer::Connections,
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
        layer: Layer::ConnectionRecords,
        minzoom: 15,
        fields: &[
            ID,
            s("connection_id", "the connection it documents"),
            b("approved", "approved"),
        ],
    },
    TileLayer {
        layer: Layer::Manholes,
        minzoom: 14,
        fields: &[ID, STATUS, OWNER, LAST, OVERDUE],
    },
    TileLayer {
        layer: Layer::CatchBasins,
        minzoom: 14,
        fields: &[ID, STATUS, OWNER, LAST, OVERDUE],
    },
    TileLayer {
        layer: Layer::Structures,
        minzoom: 14,
        fields: &[
            ID,
            s("structure_type", "headwall, junction box, ..."),
            STATUS,
            OWNER,
        ],
    },
    TileLayer {
        layer: Layer::Outfalls,
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
];
