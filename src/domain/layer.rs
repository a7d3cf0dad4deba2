//! The canonical layers of a registry and their fields.
//!
//! One table describes every layer, so the stores, the importer, the exporter and the
//! HTTP service all agree on names, types and which fields are required, and a new field
//! is one line here rather than a change in five places.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

use super::units::LengthUnit;

/// A layer of the registry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// Land parcels with their land use.
    Parcels,
    /// Catch basins (inlets).
    CatchBasins,
    /// Manholes.
    Manholes,
    /// Outfalls, where the MS4 discharges to a receiving water.
    Outfalls,
    /// Pipes, ditches, culverts and swales.
    Pipes,
    /// Connections from private property to the MS4.
    Connections,
    /// Records (plans, permits) that document and approve connections.
    ConnectionRecords,
    /// Stormwater management practices.
    Smps,
    /// Recorded maintenance and access easements.
    Easements,
    /// Receiving waters (streams, ponds, assessment units).
    ReceivingWaters,
    /// 303(d) impairment listings of receiving waters (a table without geometry).
    Impairments,
    /// Watersheds (drainage areas) and the water each drains to.
    Watersheds,
    /// Areas covered by a TMDL.
    TmdlAreas,
    /// Inspections of assets (a table without geometry).
    Inspections,
    /// The jurisdiction's boundary; imports warn about features outside it.
    Boundary,
    /// Dated determinations about discharges (a substantial contributor of pollutants, or
    /// not), scoped to a connection, a parcel or a discharge kind (a table without
    /// geometry). Added by migration 0004.
    DischargeDeterminations,
    /// Illicit discharge investigations with their action logs, at the outfall or the
    /// place reported (a point, optional). Added by migration 0008.
    Cases,
    /// Drainage structures that are not catch basins, manholes or outfalls: headwalls,
    /// inlets, junction boxes, cleanouts, outlet structures (`structure_type` says which).
    /// Network nodes like the others. Added by migration 0009.
    Structures,
    /// Construction sites, from a determination to final stabilization, with their log
    /// of inspections, notices, orders and guarantees (the footprint, optional). Added
    /// by migration 0013.
    Sites,
    /// Daily rainfall at a gauge (a table without geometry): what storm-triggered
    /// inspections are computed from. Added by migration 0013.
    Rainfall,
    /// The programme's deliverables as submitted (the annual report, an interim
    /// certification, a mapping phase): which occurrence of a `[calendar]` item each
    /// answers, when and by whom (a table without geometry): what shows those items done.
    /// Added by migration 0014.
    ProgrammeSubmissions,
}

/// The geometry a layer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GeomKind {
    /// Points.
    Point,
    /// Lines, stored as MultiLineString so single and multi parts mix.
    Line,
    /// Polygons, stored as MultiPolygon so single and multi parts mix.
    Polygon,
    /// Any geometry type (points, lines and polygons in one layer).
    Any,
    /// A table without geometry.
    None,
}

impl GeomKind {
    /// The GeoPackage / OGC geometry type name stored in the catalogue.
    pub fn ogc_name(self) -> &'static str {
        match self {
            GeomKind::Point => "POINT",
            GeomKind::Line => "MULTILINESTRING",
            GeomKind::Polygon => "MULTIPOLYGON",
            GeomKind::Any => "GEOMETRY",
            GeomKind::None => "",
        }
    }
}

/// The type of a field's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    /// Free text.
    Text,
    /// A whole number.
    Integer,
    /// A floating-point number without a unit.
    Real,
    /// A length in a fixed unit (the unit is part of the field's meaning, e.g. `diameter_in`).
    Length(LengthUnit),
    /// An elevation in the registry CRS's linear unit (inverts).
    Elevation,
    /// True or false; imports accept 0/1, Y/N, yes/no, true/false.
    Bool,
    /// A calendar date, stored as `YYYY-MM-DD`.
    Date,
}

/// One canonical field of a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct FieldSpec {
    /// The canonical name, used as the column name in both stores.
    pub name: &'static str,
    /// The value type.
    pub ty: FieldType,
    /// Whether an import rejects a feature without it.
    pub required: bool,
}

const fn f(name: &'static str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        name,
        ty,
        required: false,
    }
}

const fn req(name: &'static str, ty: FieldType) -> FieldSpec {
    FieldSpec {
        name,
        ty,
        required: true,
    }
}

use FieldType::*;

const PARCELS: &[FieldSpec] = &[req("land_use", Text), f("address", Text), f("owner", Text)];
const STRUCTURE: &[FieldSpec] = &[
    f("status", Text),
    f("owner", Text),
    f("rim_elev", Elevation),
    f("installed_on", Date),
];
const OUTFALLS: &[FieldSpec] = &[
    f("receiving_water_id", Text),
    f("diameter_in", Length(LengthUnit::Inch)),
    f("status", Text),
    f("owner", Text),
];
const PIPES: &[FieldSpec] = &[
    f("from_id", Text),
    f("to_id", Text),
    f("kind", Text),
    f("diameter_in", Length(LengthUnit::Inch)),
    f("material", Text),
    f("from_invert", Elevation),
    f("to_invert", Elevation),
    f("status", Text),
    // Migration 0004: whose conveyance it is (the MS4 is the Town's, AMB-19).
    f("owner", Text),
];
const CONNECTIONS: &[FieldSpec] = &[
    req("discharge_kind", Text),
    f("parcel_id", Text),
    f("status", Text),
    f("installed_on", Date),
    // Migration 0004: when an abandoned or removed connection was removed, and the latest
    // sampling of its discharge.
    f("removed_on", Date),
    f("sampled_on", Date),
    f("pollutants_found", Bool),
];
const CONNECTION_RECORDS: &[FieldSpec] = &[
    f("connection_id", Text),
    f("parcel_id", Text),
    f("plan_ref", Text),
    f("approved", Bool),
    f("approved_by", Text),
    f("approved_on", Date),
    // Migration 0004: a discharge permit (SPDES / NPDES permit, waiver or order) and the
    // written approval of its discharge to the MS4.
    f("permit_number", Text),
    f("permit_kind", Text),
    f("permit_holder", Text),
    f("ms4_approval", Bool),
    f("ms4_approved_on", Date),
];
const SMPS: &[FieldSpec] = &[
    f("practice_type", Text),
    f("structural", Bool),
    f("owner_kind", Text),
    f("status", Text),
];
const EASEMENTS: &[FieldSpec] = &[
    f("purpose", Text),
    f("recorded_on", Date),
    f("instrument", Text),
];
const RECEIVING_WATERS: &[FieldSpec] = &[
    f("name", Text),
    f("listed_303d", Bool),
    // Migration 0005: the water this one flows to (downstream waters, AMB-07).
    f("flows_to", Text),
];
const IMPAIRMENTS: &[FieldSpec] = &[
    req("water_id", Text),
    req("pollutant", Text),
    f("sources", Text),
    f("cycle", Integer),
];
const WATERSHEDS: &[FieldSpec] = &[f("name", Text), f("drains_to", Text)];
const TMDL_AREAS: &[FieldSpec] = &[
    req("pollutant", Text),
    f("stormwater_source", Bool),
    f("approved_on", Date),
    // Migration 0005: the water ids the TMDL covers, comma-separated.
    f("waters", Text),
];
const INSPECTIONS: &[FieldSpec] = &[
    req("asset_id", Text),
    req("inspected_on", Date),
    req("kind", Text),
    f("inspector", Text),
    f("result", Text),
    f("findings", Text),
    f("notes", Text),
    // Migration 0004: a dry-weather screening that found sewage indicators (or none).
    f("sewage_indicators", Bool),
    // Migration 0008: the dry-weather screening's background and overall finding; whether
    // it met the profile's dry-weather rule (null for other kinds).
    f("hours_since_rain", Real),
    f("dry_weather", Bool),
    f("characterisation", Text),
];
// Migration 0004.
const DISCHARGE_DETERMINATIONS: &[FieldSpec] = &[
    req("scope", Text),
    req("subject", Text),
    req("determined_on", Date),
    f("determined_by", Text),
    f("finding", Text),
    f("notes", Text),
];
const BOUNDARY: &[FieldSpec] = &[f("name", Text)];
// Migration 0009: the other drainage structures; `structure_type` is the source's word
// for it (headwall, junction box, ...), kept as given.
const STRUCTURES: &[FieldSpec] = &[
    f("structure_type", Text),
    f("status", Text),
    f("owner", Text),
    f("rim_elev", Elevation),
    f("installed_on", Date),
];
// Migration 0008: an investigation. Its candidates and its action log are JSON text, so
// each action is one audited update of the case (before and after).
const CASES: &[FieldSpec] = &[
    req("opened_on", Date),
    req("origin", Text),
    f("status", Text),
    f("reported_by", Text),
    f("opened_by", Text),
    f("description", Text),
    f("asset_id", Text),
    f("inspection_id", Text),
    f("connection_id", Text),
    f("parcel_id", Text),
    f("closed_on", Date),
    f("closure", Text),
    f("closure_notes", Text),
    f("referred_to", Text),
    f("candidates", Text),
    f("actions", Text),
    // Migration 0012: who the case is against, as JSON text (name, kind, where it came
    // from); null on a case stored before it.
    f("respondent", Text),
];

// Migration 0013: a construction site. Its determination (as answered), phases, planned
// milestones and action log are JSON text, so each action is one audited update of the
// site, as a case's are.
const SITES: &[FieldSpec] = &[
    req("opened_on", Date),
    f("status", Text),
    f("name", Text),
    f("parcels", Text),
    f("owner", Text),
    f("developer", Text),
    f("operator", Text),
    f("determination", Text),
    f("disturbed_sqft", Real),
    f("phases", Text),
    f("swppp_preparer", Text),
    f("swppp_accepted_on", Date),
    f("swppp_accepted_by", Text),
    f("noi_id", Text),
    f("spdes_permit_id", Text),
    f("start_on", Date),
    f("qualified_inspector", Text),
    f("trained_contractor", Text),
    f("rain_gauge", Text),
    f("priority", Text),
    f("milestones", Text),
    f("actions", Text),
];
// Migration 0013: one gauge's rainfall on one day, inches.
const RAINFALL: &[FieldSpec] = &[
    req("gauge_id", Text),
    req("day", Date),
    req("inches", Real),
    f("source", Text),
];
// Migration 0014: a deliverable submitted, by the calendar item and the due day of the
// occurrence it answers.
const PROGRAMME_SUBMISSIONS: &[FieldSpec] = &[
    req("item_id", Text),
    req("for_due_on", Date),
    req("submitted_on", Date),
    req("submitted_by", Text),
    f("reference", Text),
    f("note", Text),
    f("source", Text),
];

/// Layers (field `None`) and fields added by migrations after 0002, which created the
/// layer tables: (migration number, layer, field). Existing registries must keep opening,
/// so migration 0002 is never edited; what a later migration adds is listed here.
pub const ADDED_AFTER_0002: &[(u32, Layer, Option<&str>)] = &[
    (4, Layer::Pipes, Some("owner")),
    (4, Layer::Connections, Some("removed_on")),
    (4, Layer::Connections, Some("sampled_on")),
    (4, Layer::Connections, Some("pollutants_found")),
    (4, Layer::ConnectionRecords, Some("permit_number")),
    (4, Layer::ConnectionRecords, Some("permit_kind")),
    (4, Layer::ConnectionRecords, Some("permit_holder")),
    (4, Layer::ConnectionRecords, Some("ms4_approval")),
    (4, Layer::ConnectionRecords, Some("ms4_approved_on")),
    (4, Layer::Inspections, Some("sewage_indicators")),
    (4, Layer::DischargeDeterminations, None),
    (5, Layer::ReceivingWaters, Some("flows_to")),
    (5, Layer::TmdlAreas, Some("waters")),
    (8, Layer::Inspections, Some("hours_since_rain")),
    (8, Layer::Inspections, Some("dry_weather")),
    (8, Layer::Inspections, Some("characterisation")),
    (8, Layer::Cases, None),
    (9, Layer::Structures, None),
    (12, Layer::Cases, Some("respondent")),
    (13, Layer::Sites, None),
    (13, Layer::Rainfall, None),
    (14, Layer::ProgrammeSubmissions, None),
];

impl Layer {
    /// Every layer, in the order stores create them.
    pub const ALL: [Layer; 21] = [
        Layer::Parcels,
        Layer::CatchBasins,
        Layer::Manholes,
        Layer::Outfalls,
        Layer::Pipes,
        Layer::Connections,
        Layer::ConnectionRecords,
        Layer::Smps,
        Layer::Easements,
        Layer::ReceivingWaters,
        Layer::Impairments,
        Layer::Watersheds,
        Layer::TmdlAreas,
        Layer::Inspections,
        Layer::Boundary,
        Layer::DischargeDeterminations,
        Layer::Cases,
        Layer::Structures,
        Layer::Sites,
        Layer::Rainfall,
        Layer::ProgrammeSubmissions,
    ];

    /// The layer's name: its table name and its name on the command line and the wire.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Parcels => "parcels",
            Layer::CatchBasins => "catch_basins",
            Layer::Manholes => "manholes",
            Layer::Outfalls => "outfalls",
            Layer::Pipes => "pipes",
            Layer::Connections => "connections",
            Layer::ConnectionRecords => "connection_records",
            Layer::Smps => "smps",
            Layer::Easements => "easements",
            Layer::ReceivingWaters => "receiving_waters",
            Layer::Impairments => "impairments",
            Layer::Watersheds => "watersheds",
            Layer::TmdlAreas => "tmdl_areas",
            Layer::Inspections => "inspections",
            Layer::Boundary => "boundary",
            Layer::DischargeDeterminations => "discharge_determinations",
            Layer::Cases => "cases",
            Layer::Structures => "structures",
            Layer::Sites => "sites",
            Layer::Rainfall => "rainfall",
            Layer::ProgrammeSubmissions => "programme_submissions",
        }
    }

    /// The field holding the town's own id for a feature.
    pub fn id_field(self) -> &'static str {
        match self {
            Layer::Parcels => "parcel_id",
            Layer::CatchBasins
            | Layer::Manholes
            | Layer::Outfalls
            | Layer::Pipes
            | Layer::Smps
            | Layer::Structures => "asset_id",
            Layer::Connections => "connection_id",
            Layer::ConnectionRecords => "record_id",
            Layer::Easements => "easement_id",
            Layer::ReceivingWaters => "water_id",
            Layer::Impairments => "impairment_id",
            Layer::Watersheds => "watershed_id",
            Layer::TmdlAreas => "tmdl_id",
            Layer::Inspections => "inspection_id",
            Layer::Boundary => "boundary_id",
            Layer::DischargeDeterminations => "determination_id",
            Layer::Cases => "case_id",
            Layer::Sites => "site_id",
            Layer::Rainfall => "rainfall_id",
            Layer::ProgrammeSubmissions => "submission_id",
        }
    }

    /// Fields whose values, joined, make the id when the source has none (tables whose
    /// rows have no natural id of their own).
    pub fn derived_id_from(self) -> Option<&'static [&'static str]> {
        match self {
            Layer::Impairments => Some(&["water_id", "pollutant", "cycle"]),
            Layer::Inspections => Some(&["asset_id", "inspected_on", "kind"]),
            Layer::Rainfall => Some(&["gauge_id", "day"]),
            Layer::ProgrammeSubmissions => Some(&["item_id", "for_due_on"]),
            _ => None,
        }
    }

    /// The geometry the layer holds.
    pub fn geom_kind(self) -> GeomKind {
        match self {
            Layer::Parcels
            | Layer::Watersheds
            | Layer::TmdlAreas
            | Layer::Boundary
            | Layer::Sites => GeomKind::Polygon,
            Layer::CatchBasins
            | Layer::Manholes
            | Layer::Outfalls
            | Layer::ConnectionRecords
            | Layer::Cases
            | Layer::Structures => GeomKind::Point,
            Layer::Pipes => GeomKind::Line,
            Layer::Connections | Layer::Smps | Layer::Easements | Layer::ReceivingWaters => {
                GeomKind::Any
            }
            Layer::Impairments
            | Layer::Inspections
            | Layer::DischargeDeterminations
            | Layer::Rainfall
            | Layer::ProgrammeSubmissions => GeomKind::None,
        }
    }

    /// Whether a feature may lack a geometry (records kept on paper have no location).
    pub fn geometry_optional(self) -> bool {
        matches!(self, Layer::ConnectionRecords | Layer::Cases | Layer::Sites)
            || self.geom_kind() == GeomKind::None
    }

    /// The canonical fields other than the id, in column order.
    pub fn fields(self) -> &'static [FieldSpec] {
        match self {
            Layer::Parcels => PARCELS,
            Layer::CatchBasins | Layer::Manholes => STRUCTURE,
            Layer::Outfalls => OUTFALLS,
            Layer::Pipes => PIPES,
            Layer::Connections => CONNECTIONS,
            Layer::ConnectionRecords => CONNECTION_RECORDS,
            Layer::Smps => SMPS,
            Layer::Easements => EASEMENTS,
            Layer::ReceivingWaters => RECEIVING_WATERS,
            Layer::Impairments => IMPAIRMENTS,
            Layer::Watersheds => WATERSHEDS,
            Layer::TmdlAreas => TMDL_AREAS,
            Layer::Inspections => INSPECTIONS,
            Layer::Boundary => BOUNDARY,
            Layer::DischargeDeterminations => DISCHARGE_DETERMINATIONS,
            Layer::Cases => CASES,
            Layer::Structures => STRUCTURES,
            Layer::Sites => SITES,
            Layer::Rainfall => RAINFALL,
            Layer::ProgrammeSubmissions => PROGRAMME_SUBMISSIONS,
        }
    }

    /// The migration that added a layer or one of its fields, when it came after the
    /// layer tables of migration 0002; `field` `None` asks about the layer itself.
    pub fn added_by_migration(self, field: Option<&str>) -> Option<u32> {
        ADDED_AFTER_0002
            .iter()
            .find(|(_, l, f)| *l == self && *f == field)
            .map(|(m, ..)| *m)
    }

    /// The position of a canonical field in [`Layer::fields`].
    pub fn field_index(self, name: &str) -> Option<usize> {
        self.fields().iter().position(|f| f.name == name)
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A layer name that is not one of the registry's layers.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown layer {0:?}; expected one of: {list}", list = Layer::ALL.iter().map(|l| l.name()).collect::<Vec<_>>().join(", "))]
pub struct UnknownLayer(pub String);

impl FromStr for Layer {
    type Err = UnknownLayer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('-', "_");
        Layer::ALL
            .into_iter()
            .find(|l| l.name() == norm)
            .ok_or_else(|| UnknownLayer(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_layer_round_trips_through_its_name() {
        for layer in Layer::ALL {
            assert_eq!(layer.name().parse::<Layer>().unwrap(), layer);
        }
        assert_eq!("catch-basins".parse::<Layer>().unwrap(), Layer::CatchBasins);
    }

    #[test]
    fn unknown_layer_lists_the_known_ones() {
        let e = "basins".parse::<Layer>().unwrap_err().to_string();
        assert!(
            e.contains("\"basins\"") && e.contains("catch_basins"),
            "{e}"
        );
    }

    #[test]
    fn field_names_are_unique_and_differ_from_the_id() {
        for layer in Layer::ALL {
            let mut names: Vec<_> = layer.fields().iter().map(|f| f.name).collect();
            names.push(layer.id_field());
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "{layer}");
        }
    }
}
