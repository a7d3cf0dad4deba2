//! `ms4 mapping-package`: the Mapping Phase I deliverable as one GeoPackage (monitoring
//! locations, sewersheds, outfalls, pipes, receiving waters with their classes, and the
//! focus-area overlays), a CSV of the monitoring locations, a printable map page and a
//! README beside it, and on request the same layers as shapefiles.
//!
//! The overlays are those the registry can draw: impaired and higher-class waters, TMDL
//! areas and the active construction sites. It holds no zoning layer, so the package has
//! none and its README says so rather than stand something else in for it.

use std::path::PathBuf;

use clap::Args;

use crate::answer::mapping::{
    monitoring_locations, sewersheds, MonitoringLocationsAnswer, MonitoringLocationsParams,
    SewershedsAnswer, SewershedsParams,
};
use crate::answer::Ask;
use crate::domain::{Feature, FieldType, Layer, Value};
use crate::import::package::{
    for_shapefiles, write_package, write_shapefiles, Cell, FieldKind, PackageGeometry,
    PackageLayer, ShapefileChanges,
};
use crate::rules::monitoring::normalise_class;
use crate::spatial::monitoring::location_point;
use crate::spatial::waters::{classification, listing};
use crate::spatial::Snapshot;

mod map_page;

/// Arguments of `ms4 mapping-package`.
#[derive(Debug, Args)]
pub struct MappingPackageArgs {
    /// The folder to write into (created if missing): `mapping-phase-1.gpkg`,
    /// `monitoring-locations.csv`, `map.html` and `README.txt`; existing files are
    /// refused, never overwritten.
    #[arg(long)]
    pub out: PathBuf,
    /// Also write every layer as a shapefile, in the folder `shapefiles` beside them.
    #[arg(long)]
    pub shapefiles: bool,
    /// The sewersheds' parameters (as `ms4 sewersheds`).
    #[command(flatten)]
    pub sewersheds: SewershedsParams,
}

/// The package's file name.
pub const PACKAGE_FILE: &str = "mapping-phase-1.gpkg";
/// The CSV's file name.
pub const CSV_FILE: &str = "monitoring-locations.csv";
/// The printable map page's file name.
pub const MAP_FILE: &str = "map.html";
/// The README's file name.
pub const README_FILE: &str = "README.txt";
/// The shapefiles' folder name.
pub const SHAPEFILE_DIR: &str = "shapefiles";

/// The construction sites' statuses the focus overlay shows: the sites under way.
const ACTIVE_SITE: &str = "active";

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
    let map = a.out.join(MAP_FILE);
    let readme = a.out.join(README_FILE);
    let shp = a.out.join(SHAPEFILE_DIR);
    let mut targets = vec![&gpkg, &csv, &map, &readme];
    if a.shapefiles {
        targets.push(&shp);
    }
    if let Some(t) = targets.into_iter().find(|t| t.exists()) {
        anyhow::bail!("{} exists; give a new folder or remove it", t.display());
    }
    let srid = snap.meta.srid;
    let (path, all) = (gpkg.clone(), layers.clone());
    let written = tokio::task::spawn_blocking(move || write_package(&path, srid, &all)).await??;
    let changes = if a.shapefiles {
        let (fit, changes) = for_shapefiles(&layers);
        let dir = shp.clone();
        tokio::task::spawn_blocking(move || write_shapefiles(&dir, srid, &fit)).await??;
        Some(changes)
    } else {
        None
    };
    let (header, rows) = super::mapping::location_rows(&locations);
    std::fs::write(&csv, super::output::csv(&header, &rows))?;
    let today = chrono::Local::now().date_naive();
    std::fs::write(&map, map_page::page(&snap, &locations, &sheds, today))?;
    std::fs::write(
        &readme,
        readme_text(&snap, &locations, &sheds, &written, changes.as_ref(), today),
    )?;
    for (name, n) in &written {
        println!("{name:<28} {n:>7} features");
    }
    println!(
        "wrote {}, {}, {} and {}",
        gpkg.display(),
        csv.display(),
        map.display(),
        readme.display()
    );
    if a.shapefiles {
        println!("wrote the shapefiles in {}", shp.display());
    }
    println!("priority rule: {}", locations.rule.source);
    println!("sewersheds: {}", sheds.method);
    println!("{NO_ZONING}");
    Ok(())
}

/// What the package says of zoning.
const NO_ZONING: &str = "zoning: the registry holds no zoning layer, so the package has none (add the town's zoning map beside it)";

/// The package's README: what each file and layer is, how priorities and sewersheds were
/// decided, what is not in it, and what the shapefiles changed.
fn readme_text(
    snap: &Snapshot,
    locations: &MonitoringLocationsAnswer,
    sheds: &SewershedsAnswer,
    written: &[(String, u64)],
    shapefiles: Option<&ShapefileChanges>,
    made_on: chrono::NaiveDate,
) -> String {
    let mut t = format!(
        "Mapping Phase I package, {} (made {made_on} from the registry)\n\n\
         Files\n\
         - {PACKAGE_FILE}: every layer below, in EPSG:{}\n\
         - {CSV_FILE}: the monitoring locations with their priorities and reasons\n\
         - {MAP_FILE}: a printable map page (open it in a browser and print, landscape)\n",
        locations.jurisdiction, snap.meta.srid
    );
    if shapefiles.is_some() {
        t.push_str(&format!(
            "- {SHAPEFILE_DIR}/: the same layers as shapefiles (see below for what the format changed)\n"
        ));
    }
    t.push_str("\nLayers (features)\n");
    for (name, n) in written {
        t.push_str(&format!("- {name}: {n}\n"));
    }
    t.push_str(&format!(
        "\nFocus areas: focus_impaired_waters (303(d)-listed), focus_higher_class_waters \
         (classes {}), focus_tmdl_areas, focus_construction_sites (construction sites whose \
         status is {ACTIVE_SITE}).\n{NO_ZONING}.\n\n\
         Priority: {}\nSewersheds (preliminary): {}\n",
        locations.rule.higher_classes.join(", "),
        locations.rule.source,
        sheds.method
    ));
    if let Some(c) = shapefiles {
        t.push_str("\nShapefiles\n");
        for (layer, files) in &c.split {
            t.push_str(&format!(
                "- {layer} mixes geometry types: written as {}\n",
                files.join(", ")
            ));
        }
        for (file, from, to) in &c.renamed {
            t.push_str(&format!("- {file}: field {from} is named {to}\n"));
        }
        for (file, field, n) in &c.cut {
            t.push_str(&format!(
                "- {file}: {n} value(s) of {field} cut to 254 bytes (whole in the GeoPackage)\n"
            ));
        }
    }
    t
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
    out.push(active_sites(snap));
    out
}

/// The construction sites under way: the sites layer's features whose status is active.
fn active_sites(snap: &Snapshot) -> PackageLayer {
    let mut l = layer_copy(snap, Layer::Sites, PackageGeometry::Areas);
    l.name = "focus_construction_sites".into();
    let status = Layer::Sites.field_index("status");
    let ids: std::collections::HashSet<&str> = snap
        .layer(Layer::Sites)
        .features
        .iter()
        .filter(|f| {
            status
                .and_then(|i| f.values.get(i))
                .and_then(Value::as_str)
                .is_some_and(|s| s.eq_ignore_ascii_case(ACTIVE_SITE))
        })
        .map(|f| f.id.as_str())
        .collect();
    l.rows.retain(
        |(_, cells)| matches!(cells.first(), Some(Cell::Text(id)) if ids.contains(id.as_str())),
    );
    l
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
                    Some(geo_types::Geometry::MultiPolygon(w.polygon().clone())),
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
