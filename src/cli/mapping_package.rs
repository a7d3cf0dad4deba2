//! `ms4 mapping-package`: the Mapping Phase I deliverable as one GeoPackage (monitoring
//! locations, sewersheds, outfalls, pipes, receiving waters with their classes, and the
//! focus-area overlays) and a CSV of the monitoring locations beside it.

use std::path::PathBuf;

use clap::Args;

use crate::answer::mapping::{
    monitoring_locations, sewersheds, MonitoringLocationsAnswer, MonitoringLocationsParams,
    SewershedsAnswer, SewershedsParams,
};
use crate::answer::Ask;
use crate::domain::{Feature, FieldType, Layer, Value};
use crate::import::package::{write_package, Cell, FieldKind, PackageGeometry, PackageLayer};
use crate::rules::monitoring::normalise_class;
use crate::spatial::monitoring::location_point;
use crate::spatial::waters::{classification, listing};
use crate::spatial::Snapshot;

/// Arguments of `ms4 mapping-package`.
#[derive(Debug, Args)]
pub struct MappingPackageArgs {
    /// The folder to write into (created if missing): `mapping-phase-1.gpkg` and
    /// `monitoring-locations.csv`; existing files are refused, never overwritten.
    #[arg(long)]
    pub out: PathBuf,
    /// The sewersheds' parameters (as `ms4 sewersheds`).
    #[command(flatten)]
    pub sewersheds: SewershedsParams,
}

/// The package's file name.
pub const PACKAGE_FILE: &str = "mapping-phase-1.gpkg";
/// The CSV's file name.
pub const CSV_FILE: &str = "monitoring-locations.csv";

pub(super) async fn run(store_url: &str, a: MappingPackageArgs) -> anyhow::Result<()> {
    let store = crate::store::open(store_url).await?;
    let snap = Snapshot::load(store.as_ref()).await?;
    let profile = super::profile::load(store.as_ref()).await?;
    let ask = Ask::new(&snap, &profile);
    let locations = monitoring_locations(&ask, &MonitoringLocationsParams::default())
        .map_err(|e| e.into_cli())?;
    let sheds = sewersheds(&ask, &a.sewersheds).map_err(|e| e.into_cli())?;
    let layers = package_layers(&snap, &locations, &sheds);
    std::fs::create_dir_all(&a.out)?;
    let gpkg = a.out.join(PACKAGE_FILE);
    let csv = a.out.join(CSV_FILE);
    if csv.exists() {
        anyhow::bail!("{} exists; give a new folder or remove it", csv.display());
    }
    let srid = snap.meta.srid;
    let path = gpkg.clone();
    let written =
        tokio::task::spawn_blocking(move || write_package(&path, srid, &layers)).await??;
    let (header, rows) = super::mapping::location_rows(&locations);
    std::fs::write(&csv, super::output::csv(&header, &rows))?;
    for (name, n) in &written {
        println!("{name:<28} {n:>7} features");
    }
    println!("wrote {} and {}", gpkg.display(), csv.display());
    println!("priority rule: {}", locations.rule.source);
    println!("sewersheds: {}", sheds.method);
    println!("not yet in the package: construction sites, zoning (the registry holds neither as a layer), a printable map page");
    Ok(())
}

fn text(s: &str) -> Cell {
    Cell::Text(s.to_string())
}

fn fields(list: &[(&str, FieldKind)]) -> Vec<(String, FieldKind)> {
    list.iter().map(|(n, k)| (n.to_string(), *k)).collect()
}

/// Every layer of the package, decided from the answers and the snapshot.
pub fn package_layers(
    snap: &Snapshot,
    locations: &MonitoringLocationsAnswer,
    sheds: &SewershedsAnswer,
) -> Vec<PackageLayer> {
    let mut out = vec![
        monitoring_layer(snap, locations),
        sewershed_layer(sheds),
        layer_copy(snap, Layer::Outfalls, PackageGeometry::Point),
        layer_copy(snap, Layer::Pipes, PackageGeometry::Lines),
    ];
    out.extend(water_layers(snap, &locations.rule.higher_classes));
    out.push(PackageLayer {
        name: "focus_tmdl_areas".into(),
        ..layer_copy(snap, Layer::TmdlAreas, PackageGeometry::Areas)
    });
    out
}

/// Each monitoring location at its point, with its priority, reasons and waters.
fn monitoring_layer(snap: &Snapshot, locations: &MonitoringLocationsAnswer) -> PackageLayer {
    use FieldKind::{Integer, Text};
    PackageLayer {
        name: "monitoring_locations".into(),
        geometry: PackageGeometry::Point,
        fields: fields(&[
            ("location_id", Text),
            ("kind", Text),
            ("priority", Text),
            ("reasons", Text),
            ("waters", Text),
            ("classes", Text),
            ("impaired", Integer),
            ("tmdls", Text),
            ("watershed_id", Text),
            ("other_owner", Text),
            ("found_by", Text),
            ("rule_source", Text),
        ]),
        rows: locations
            .locations
            .iter()
            .map(|l| {
                let join =
                    |f: &dyn Fn(&crate::spatial::monitoring::LocationWater) -> Option<String>| {
                        l.waters.iter().filter_map(f).collect::<Vec<_>>().join(", ")
                    };
                let g = location_point(snap, l).map(geo_types::Geometry::Point);
                let reasons: Vec<String> = l
                    .reasons
                    .iter()
                    .map(|r| format!("{}: {}", r.priority.as_str(), r.because))
                    .collect();
                let cells = vec![
                    text(&l.id),
                    text(super::mapping::word(&l.kind).as_str()),
                    text(l.priority.as_str()),
                    text(&reasons.join("; ")),
                    text(&join(&|w| Some(w.water_id.clone()))),
                    text(&join(&|w| w.classification.clone())),
                    Cell::Integer(i64::from(l.waters.iter().any(|w| w.impaired))),
                    text(&join(&|w| (!w.tmdls.is_empty()).then(|| w.tmdls.join(" ")))),
                    l.watershed_id.clone().into(),
                    l.other_owner.clone().into(),
                    text(&l.found_by),
                    text(&locations.rule.source),
                ];
                (g, cells)
            })
            .collect(),
    }
}

/// Each sewershed's polygon, with its area and quality.
fn sewershed_layer(sheds: &SewershedsAnswer) -> PackageLayer {
    use FieldKind::{Integer, Real, Text};
    PackageLayer {
        name: "sewersheds".into(),
        geometry: PackageGeometry::Areas,
        fields: fields(&[
            ("location_id", Text),
            ("kind", Text),
            ("priority", Text),
            ("area", Real),
            ("parcels", Integer),
            ("inlets", Integer),
            ("commercial_industrial_share", Real),
            ("inlets_without_trace", Text),
            ("dangling_ends", Text),
            ("method", Text),
        ]),
        rows: sheds
            .sewersheds
            .iter()
            .map(|s| {
                let w = &s.sewershed;
                let cells = vec![
                    text(&w.location_id),
                    text(super::mapping::word(&s.kind).as_str()),
                    text(s.priority.as_str()),
                    Cell::Real(w.area),
                    Cell::Integer(w.parcels.len() as i64),
                    Cell::Integer(w.inlets.len() as i64),
                    w.commercial_industrial_share.map_or(Cell::Null, Cell::Real),
                    text(&w.quality.inlets_without_trace.join(" ")),
                    text(&w.quality.dangling_ends.join(" ")),
                    text(sheds.method),
                ];
                (
                    Some(geo_types::Geometry::MultiPolygon(w.polygon.clone())),
                    cells,
                )
            })
            .collect(),
    }
}

/// The receiving waters with their classes, and the focus overlays drawn from them: the
/// impaired waters and those of the higher classes.
fn water_layers(snap: &Snapshot, higher_classes: &[String]) -> Vec<PackageLayer> {
    use FieldKind::{Integer, Text};
    let higher: Vec<String> = higher_classes.iter().map(|c| normalise_class(c)).collect();
    let water_rows = |keep: &dyn Fn(bool, bool) -> bool| {
        snap.layer(Layer::ReceivingWaters)
            .features
            .iter()
            .filter_map(|w| {
                let class = classification(w);
                let impaired = listing(snap, &w.id, None).0.is_some();
                let is_higher = class
                    .as_ref()
                    .is_some_and(|c| higher.contains(&normalise_class(c)));
                keep(impaired, is_higher).then(|| {
                    let cells = vec![
                        text(&w.id),
                        crate::spatial::waters::text(w, Layer::ReceivingWaters, "name").into(),
                        class.into(),
                        Cell::Integer(i64::from(impaired)),
                        Cell::Integer(i64::from(is_higher)),
                    ];
                    (w.geom.clone(), cells)
                })
            })
            .collect::<Vec<_>>()
    };
    let water_fields = fields(&[
        ("water_id", Text),
        ("name", Text),
        ("classification", Text),
        ("impaired", Integer),
        ("higher_class", Integer),
    ]);
    let waters = |name: &str, keep: &dyn Fn(bool, bool) -> bool| PackageLayer {
        name: name.into(),
        geometry: PackageGeometry::Any,
        fields: water_fields.clone(),
        rows: water_rows(keep),
    };
    vec![
        waters("receiving_waters", &|_, _| true),
        waters("focus_impaired_waters", &|impaired, _| impaired),
        waters("focus_higher_class_waters", &|_, h| h),
    ]
}

/// A registry layer as it is stored: its id and canonical fields.
fn layer_copy(snap: &Snapshot, layer: Layer, geometry: PackageGeometry) -> PackageLayer {
    let mut f = vec![(layer.id_field().to_string(), FieldKind::Text)];
    f.extend(layer.fields().iter().map(|s| {
        let k = match s.ty {
            FieldType::Text | FieldType::Date => FieldKind::Text,
            FieldType::Integer | FieldType::Bool => FieldKind::Integer,
            FieldType::Real | FieldType::Length(_) | FieldType::Elevation => FieldKind::Real,
        };
        (s.name.to_string(), k)
    }));
    let rows = snap
        .layer(layer)
        .features
        .iter()
        .map(|x: &Feature| {
            let mut cells = vec![text(&x.id)];
            cells.extend(x.values.iter().map(|v| match v {
                Value::Null => Cell::Null,
                Value::Bool(b) => Cell::Integer(i64::from(*b)),
                Value::Int(i) => Cell::Integer(*i),
                Value::Real(r) => Cell::Real(*r),
                Value::Date(d) => Cell::Text(d.to_string()),
                Value::Text(t) => Cell::Text(t.clone()),
            }));
            (x.geom.clone(), cells)
        })
        .collect();
    PackageLayer {
        name: layer.name().into(),
        geometry,
        fields: f,
        rows,
    }
}
