//! Issue 27 item 2: ms4's own export, imported again, changes nothing. Every layer of the
//! demo town and of a real network (Tacoma's discharge points, trunk mains and subbasins)
//! is exported to every format ms4 writes, and each file is imported, as a replace, into
//! a fresh copy of the registry it came from: nothing inserted, updated or deleted. Into
//! a fresh empty registry, the first import inserts the layer and the second changes
//! nothing. GeoJSON's ten decimals of a degree through WGS 84, a CSV's fifteen digits, a
//! shapefile's clockwise rings and its one-part polygons are not edits; text that looks
//! like a date stays the text it was.

use super::*;
use ms4::import::export::{export_with, ExportOptions};
use ms4::import::ImportReport;

/// The formats ms4 writes.
const FORMATS: [&str; 4] = ["gpkg", "shp", "geojson", "csv"];

/// (inserted, updated, deleted) of an import.
fn changes(r: &ImportReport) -> (u64, u64, u64) {
    let w = r.written.as_ref().expect("a write");
    (w.inserted, w.updated, w.deleted)
}

/// A replace of `layer` from `path` (a CSV's WKT is in the registry's CRS, `srid`).
async fn replace_from(
    reg: &Registry,
    layer: Layer,
    path: &std::path::Path,
    srid: i32,
) -> ImportReport {
    // A shapefile of a layer without geometry is its table alone.
    let dbf = path.with_extension("dbf");
    let path = if path.exists() { path } else { dbf.as_path() };
    let mut o = ImportOptions::new(layer, path);
    o.mode = WriteMode::Replace;
    if path.extension().is_some_and(|e| e == "csv") {
        o.s_srs = Some(srid);
    }
    import(reg.store.clone(), o)
        .await
        .unwrap_or_else(|e| panic!("{layer} {}: {e}", path.display()))
}

/// One layer's export to one format.
struct Export {
    layer: Layer,
    format: &'static str,
    path: std::path::PathBuf,
    features: usize,
    /// What the format could not hold (the export says so; with losses, the registry's
    /// rows cannot all come back as they were).
    losses: Vec<String>,
    /// A shapefile that cuts the names of extra attributes to the DBF's ten characters:
    /// they come back under the cut names.
    cut_names: bool,
}

impl Export {
    /// Whether the file holds the layer's rows whole.
    fn whole(&self) -> bool {
        self.losses.is_empty() && !self.cut_names
    }
}

/// Every layer of `reg` that has features, exported to every format into `dir`; a
/// shapefile of a layer that mixes geometry types is refused, and only that.
async fn export_all(reg: &Registry, dir: &std::path::Path) -> Vec<Export> {
    let meta = reg.store.meta().await.unwrap();
    let mut out = Vec::new();
    for format in FORMATS {
        let sub = dir.join(format);
        std::fs::create_dir_all(&sub).unwrap();
        for layer in Layer::ALL {
            let features = reg.store.features(layer).await.unwrap();
            if features.is_empty() {
                continue;
            }
            let path = sub.join(format!("{}.{format}", layer.name()));
            let opts = ExportOptions { allow_lossy: true };
            match export_with(layer, &features, &meta, &path, opts) {
                Ok(done) => {
                    // Every name a shapefile cannot hold (over 10 characters) is said
                    // renamed, and only in a shapefile.
                    let long: Vec<String> = layer
                        .fields()
                        .iter()
                        .map(|f| f.name.to_string())
                        .chain(features.iter().flat_map(|f| f.extra.keys().cloned()))
                        .filter(|n| n.len() > 10)
                        .collect();
                    for name in &long {
                        assert_eq!(
                            done.renamed
                                .iter()
                                .any(|r| r.contains(&format!("'{name}'"))),
                            format == "shp",
                            "{layer} {format}: {name} in {:?}",
                            done.renamed
                        );
                    }
                    out.push(Export {
                        layer,
                        format,
                        path,
                        features: features.len(),
                        losses: done.losses,
                        cut_names: format == "shp"
                            && features
                                .iter()
                                .any(|f| f.extra.keys().any(|k| k.len() > 10)),
                    });
                }
                Err(e) => assert!(
                    format == "shp" && e.to_string().contains("one geometry type"),
                    "{layer} {format}: {e}"
                ),
            }
        }
    }
    out
}

/// Imports each export back, as a replace, into a fresh copy of the registry (`fresh`
/// makes one per format), and twice into an empty registry; returns what went wrong.
async fn reimport_each<F, Fut>(kind: &str, exports: &[Export], srid: i32, fresh: F) -> Vec<String>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Registry>,
{
    let mut failed = Vec::new();
    for format in FORMATS {
        let copy = fresh().await;
        // Layers are written apart: one empty registry serves every layer of a format.
        let empty = registry(kind, srid).await;
        for e in exports.iter().filter(|e| e.format == format) {
            let what = format!("{kind} {} {}", e.layer, e.format);
            let r = replace_from(&copy, e.layer, &e.path, srid).await;
            // A format that loses values (a shapefile's blanks, its 10-character names of
            // extra attributes) cannot give the same rows back.
            if e.whole() && changes(&r) != (0, 0, 0) {
                failed.push(format!("{what} into its copy: {:?}", changes(&r)));
            }
            let first = replace_from(&empty, e.layer, &e.path, srid).await;
            let n = e.features as u64 - first.rejected;
            if changes(&first) != (n, 0, 0) {
                failed.push(format!("{what} first into an empty registry: {first}"));
            }
            let again = replace_from(&empty, e.layer, &e.path, srid).await;
            if changes(&again) != (0, 0, 0) {
                failed.push(format!("{what} again: {:?}", changes(&again)));
            }
        }
    }
    failed
}

#[tokio::test]
async fn every_export_of_the_demo_town_reimports_with_no_change() {
    for kind in kinds() {
        let demo = demo_registry(kind, "north-castle-ny").await;
        let dir = tempfile::tempdir().unwrap();
        let exports = export_all(&demo, dir.path()).await;
        // 17 layers with features... as many as the demo has, in 4 formats, but the
        // shapefile of the SMPs (points and areas).
        let layers = exports.iter().filter(|e| e.format == "gpkg").count();
        assert!(layers >= 14, "{kind}: {layers} layers");
        assert_eq!(exports.len(), layers * 4 - 1, "{kind}");
        let broken: Vec<String> = exports
            .iter()
            .filter(|e| !e.whole())
            .map(|e| format!("{} {}: {:?}", e.layer, e.format, e.losses))
            .collect();
        assert!(broken.is_empty(), "{kind}: {broken:?}");
        let failed = reimport_each(kind, &exports, 2260, || {
            demo_registry(kind, "north-castle-ny")
        })
        .await;
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}

/// Tacoma's network in its own CRS: the 959 discharge points as outfalls, 245 trunk
/// mains as pipes and the 67 subbasins (multipolygons) as watersheds, every source field
/// kept (dates among them, written `2014/01/01`).
async fn tacoma(kind: &str) -> Registry {
    let reg = registry(kind, 2927).await;
    for (layer, file, id) in [
        (
            Layer::Watersheds,
            "tacoma/SurfacewaterSubbasinOutline.geojson",
            "SUBBASIN",
        ),
        (Layer::Outfalls, TACOMA_POINTS, "ALTID"),
        (
            Layer::Pipes,
            "tacoma/ActiveSurfacewaterTrunkMain_FossWaterway.geojson",
            "ALTID",
        ),
    ] {
        let mut o = ImportOptions::new(layer, fixture(file));
        o.maps = vec![(layer.id_field().into(), id.into())];
        let r = import(reg.store.clone(), o).await.unwrap();
        assert_eq!(r.rejected, 0, "{kind} {layer}: {r}");
    }
    reg
}

#[tokio::test]
async fn every_export_of_a_real_network_reimports_with_no_change() {
    for kind in kinds() {
        let reg = tacoma(kind).await;
        // The source's text stays text: no date-looking value was made a date.
        let points = reg.store.features(Layer::Outfalls).await.unwrap();
        let p = points.iter().find(|f| f.id == "SWDP-100001").unwrap();
        assert_eq!(p.extra["INSTALLDATE"], "2014/01/01", "{kind}");
        let basins = reg.store.features(Layer::Watersheds).await.unwrap();
        assert!(
            basins.iter().all(|b| b.extra["LASTDB_UPDATE"]
                .as_str()
                .is_some_and(|t| t.contains('/'))),
            "{kind}"
        );
        let dir = tempfile::tempdir().unwrap();
        let exports = export_all(&reg, dir.path()).await;
        assert_eq!(exports.len(), 12, "{kind}");
        // The shapefile cuts the extra attributes' names to ten characters (and cannot
        // keep the points' blanks); the CSV cannot keep the points' empty texts.
        // Everything else holds the rows whole.
        for e in &exports {
            let lossy = e.format == "shp" || (e.format == "csv" && e.layer == Layer::Outfalls);
            assert_eq!(
                !e.whole(),
                lossy,
                "{kind} {} {}: {:?}",
                e.layer,
                e.format,
                e.losses
            );
        }
        let failed = reimport_each(kind, &exports, 2927, || tacoma(kind)).await;
        assert!(failed.is_empty(), "{}", failed.join("\n"));
    }
}

/// Text in a GeoJSON that GDAL would type as a date comes back as the text it was; a
/// canonical date field written as YYYY-MM-DD is read as that date, not converted.
#[tokio::test]
async fn a_date_written_as_text_comes_back_as_that_text() {
    for kind in kinds() {
        let reg = registry(kind, 2260).await;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("outfalls.geojson");
        std::fs::write(
            &path,
            fc(&[feature(
                r#""asset_id":"O-1","surveyed":"2000/01/31 00:00:00.000","checked":"2000-01-31""#,
                &common::point(668_000.0, 867_700.0),
            )]),
        )
        .unwrap();
        let r = import(
            reg.store.clone(),
            ImportOptions::new(Layer::Outfalls, &path),
        )
        .await
        .unwrap();
        assert_eq!(r.imported, 1, "{kind}: {r}");
        let f = &reg.store.features(Layer::Outfalls).await.unwrap()[0];
        assert_eq!(f.extra["surveyed"], "2000/01/31 00:00:00.000", "{kind}");
        assert_eq!(f.extra["checked"], "2000-01-31", "{kind}");
        // And a canonical date field written as ISO text is read, not converted.
        let easements = dir.path().join("easements.geojson");
        std::fs::write(
            &easements,
            fc(&[feature(
                r#""easement_id":"E-1","purpose":"drainage","recorded_on":"2019-05-01""#,
                &common::point(668_000.0, 867_700.0),
            )]),
        )
        .unwrap();
        let r = import(
            reg.store.clone(),
            ImportOptions::new(Layer::Easements, &easements),
        )
        .await
        .unwrap();
        assert!(r.converted.is_empty(), "{kind}: {r}");
        let e = &reg.store.features(Layer::Easements).await.unwrap()[0];
        assert_eq!(
            e.get(Layer::Easements, "recorded_on"),
            &Value::Date(chrono::NaiveDate::from_ymd_opt(2019, 5, 1).unwrap()),
            "{kind}"
        );
    }
}
