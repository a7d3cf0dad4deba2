//! Reading one source into a write: GDAL opens it (allowed drivers only), the CRS and
//! the field plan are settled, the conversion threads and the collector turn its
//! features into chunks for the writer, and the guards of a replace are applied.

use gdal::vector::LayerAccess;
use geo::BoundingRect;
use geo_types::MultiPolygon;
use tokio::sync::mpsc;

use super::collect::{Bounds, Collector};
use super::error::{CrsError, CrsStep, ImportError, Result};
use super::progress::Progress;
use super::report::ImportReport;
use super::source::{self, CsvGeometry};
use super::{
    crs, declared, gdal_guard, pipeline, select, settings, unchanged, ImportOptions,
    BOUNDARY_MARGIN_M, CHUNK, DEFAULT_MAX_DELETE_SHARE,
};
use crate::domain::Layer;
use crate::store::{WriteMode, WriteMsg};

/// Reads `opts`'s source, feeding `sink` (none for a dry run), and returns the report.
#[allow(clippy::too_many_arguments)]
// The GDAL layer borrows the dataset opened here and every stage borrows the layer: the
// stages are named functions; this one only hands them what the last one made.
#[allow(clippy::too_many_lines)]
pub(super) fn read_source(
    opts: &ImportOptions,
    target_srid: i32,
    unit: &'static str,
    unit_metres: f64,
    boundary: &[MultiPolygon<f64>],
    existing: Option<&rustc_hash::FxHashSet<String>>,
    sink: Option<&mpsc::Sender<WriteMsg>>,
    hash_here: bool,
    rules: Option<&super::inspections::InspectionRules>,
    submissions: Option<&super::submissions::SubmissionRules>,
    stored_layer: Option<&super::dry_run::StoredLayer>,
) -> Result<ImportReport> {
    let path_str = opts.path.display().to_string();
    let layer = opts.layer;
    let mut report = ImportReport {
        source: path_str.clone(),
        layer: layer.name().into(),
        ..Default::default()
    };

    // Before any byte is read: no FIFO, device, VRT or network path.
    source::check_source(&opts.path, opts.any_driver)?;
    let source_srs_override = opts.s_srs.map(crs::srs_from_epsg).transpose()?;
    let csv = if source::is_csv(&opts.path) {
        let planar = source_srs_override
            .as_ref()
            .is_some_and(|s| s.is_projected());
        source::csv_geometry(&opts.path, planar)?
    } else {
        CsvGeometry::None
    };
    let mut opened = source::open(&opts.path, &csv, opts.any_driver)?;
    // From here, even one long SQLite statement (a count, a feature) stops with the read.
    opened.watch(&opts.cancel);
    let ds = &opened.ds;
    let mut src = source::pick_layer(ds, &path_str, opts.src_layer.as_deref(), layer)?;
    let src_name = src.name();
    report.source_layer = src_name.clone();
    let filtered = select::apply_filter(&mut src, opts, &path_str, &src_name, &mut report)?;
    let short = |message: String| ImportError::ShortRead {
        path: path_str.clone(),
        src_layer: src_name.clone(),
        message,
    };

    let declared = declared_count(&opened, &src, &src_name, filtered).map_err(short)?;
    report.declared = declared;

    let target = crs::srs_from_epsg(target_srid)?;
    report.target_crs = crs::describe(&target);
    let unknown_crs = unknown_geojson_crs(&opened, &opts.path);
    let source_wkt = source_transform(
        source_srs_override,
        &src,
        unknown_crs,
        &csv,
        layer,
        (&path_str, &src_name),
        &mut report,
    )?;
    let is_csv = source::is_csv(&opts.path);
    let source_fields = source_field_names(&src, is_csv);
    let registry_unit = crate::domain::LengthUnit::from_metres_per_unit(unit_metres)
        .unwrap_or(crate::domain::LengthUnit::Metre);
    let plan = field_plan(
        opts,
        &source_fields,
        (&path_str, &src_name),
        declared,
        registry_unit,
        &mut report,
    )?;

    let total = declared;
    let progress = Progress::new(opts.progress, total, &src_name);
    let boundary_boxes: Vec<_> = boundary.iter().filter_map(|b| b.bounding_rect()).collect();
    let bounds = Bounds {
        area_of_use: crs::area_of_use_rect(&target),
        near_boundary: grown_union(&boundary_boxes, BOUNDARY_MARGIN_M / unit_metres),
    };

    // Source hashes are made for every import that writes; the stored rows to look them
    // up in are asked of the writer when the write will compare the whole layer anyway
    // (a replace, or a large file into a layer that has rows), as it reads them once.
    let recipe = sink.map(|_| {
        unchanged::Recipe::new(&unchanged::RecipeParts {
            layer,
            source_fields: &source_fields,
            plan: &plan,
            source_wkt: source_wkt.as_deref(),
            target_srid,
            invalid: opts.invalid,
            bounds,
            boundary,
            rules: rules
                .map(|r| r.recipe_text())
                .or_else(|| submissions.map(|s| s.recipe_text()))
                .unwrap_or_default(),
        })
    });
    let large = declared.is_some_and(|n| n >= crate::store::WHOLE_LAYER_FROM as u64)
        || opts.mode == WriteMode::Replace;
    let stored = stored_rows(sink, hash_here && large);
    let csv_restored = std::sync::atomic::AtomicU64::new(0);
    let setup = pipeline::Setup {
        layer,
        plan: &plan,
        source_wkt: source_wkt.as_deref(),
        target_srid,
        invalid: opts.invalid,
        // Threads cost a PROJ set-up each; a small file is done before it pays back.
        workers: if total.is_some_and(|n| n < 20_000) {
            1
        } else {
            pipeline::default_workers()
        },
        hash: hash_here,
        recipe: recipe.as_ref(),
        stored,
        csv_restored: is_csv.then_some(&csv_restored),
        cancel: &opts.cancel,
    };
    let geometry_tolerance = Some(super::precision::geometry_tolerance(
        source_wkt.as_deref(),
        unit_metres,
    ));
    let mut collector = Collector {
        report: &mut report,
        layer,
        boundary,
        boundary_boxes: &boundary_boxes,
        bounds,
        csv_columns: match &csv {
            CsvGeometry::LonLat(x, y) | CsvGeometry::Xy(x, y) => Some((x.clone(), y.clone())),
            CsvGeometry::None => None,
        },
        unit,
        seen: Default::default(),
        chunk: Vec::with_capacity(CHUNK),
        hashes: Vec::new(),
        sources: Vec::with_capacity(CHUNK),
        same: Vec::new(),
        pending_hash: None,
        sink,
        progress,
        rules,
        submissions,
        refused: None,
        geometry_tolerance,
        units: super::map_unit::UnitTally::new(layer, &plan.units),
        would: stored_layer.map(|s| super::dry_run::WouldWrite::new(s, geometry_tolerance)),
    };
    let read = pipeline::run(
        &mut src,
        &setup,
        &source_fields,
        &path_str,
        &src_name,
        |outcome| collector.take(outcome),
    );
    // A row of a layer imported whole or not at all refuses the file (whatever the read
    // met after it): the writer is told to abort, and nothing is written.
    if let Some(note) = collector.refused.take() {
        return Err(ImportError::FeatureRefused {
            path: path_str.clone(),
            src_layer: src_name.clone(),
            layer: layer.name(),
            note: Box::new(note),
            why: super::submissions::WHY,
        });
    }
    let read = read?;
    let last = collector.has_chunk().then(|| collector.take_chunk());
    let Collector {
        progress,
        seen,
        units,
        would,
        ..
    } = collector;
    // Owned now: the report is free of the collector's borrow.
    let would = would.map(|w| (w.counts, w.changed));
    progress.finish(report.read);
    if let Some(n) = declared {
        if read != n {
            return Err(short(format!(
                "GDAL read {read} of the {n} features the file declares; it is damaged or cut short, and nothing was imported"
            )));
        }
    }
    if let (Some(tx), Some(last)) = (sink, last) {
        let _ = tx.blocking_send(last);
    }
    let restored = csv_restored.load(std::sync::atomic::Ordering::Relaxed);
    read_warnings(&mut report, read, restored);
    recorded_kept(opts, existing, &seen, sink, &path_str)?;
    replace_checks(
        opts,
        &mut report,
        existing,
        &seen,
        &path_str,
        sink.is_some(),
    )?;
    repaired_warning(&mut report);
    units.report(layer, &mut report);
    if let Some((counts, changed)) = would {
        report.would_write = Some(super::report::WriteCounts {
            deleted: report.deletes.len() as u64,
            ..counts
        });
        report.changed = Some(super::dry_run::summary(&changed, target_srid));
    }
    Ok(report)
}

/// What the source says it holds, to hold the read against. With a filter, GDAL counts
/// what the filter selects only by reading it: the read itself (where any damage is an
/// error) stands in for the declared count. A shapefile's own header count wins.
fn declared_count(
    opened: &source::Opened,
    src: &gdal::vector::Layer<'_>,
    src_name: &str,
    filtered: bool,
) -> std::result::Result<Option<u64>, String> {
    if filtered {
        return Ok(None);
    }
    let mut declared = src.try_feature_count();
    if opened.driver == "ESRI Shapefile" {
        if let Some(n) = declared::shapefile_records(&gdal_guard::file_list(&opened.ds), src_name)?
        {
            declared = Some(n);
        }
    }
    Ok(declared)
}

/// GDAL reads a GeoJSON whose "crs" it does not know as WGS 84, and only says so on
/// stderr: that guess must not pass for the file's CRS. The name it gave, if so.
fn unknown_geojson_crs(opened: &source::Opened, path: &std::path::Path) -> Option<String> {
    (opened.driver == "GeoJSON" && !opened.open_errors.is_empty())
        .then(|| source::geojson_crs_name(path).unwrap_or_else(|| "a CRS".into()))
}

/// The source CRS settled ([`source_crs`]: --s-srs, else the file's, else WGS 84 for a
/// CSV of lon/lat) and said in the report, as the WKT each conversion thread builds its
/// own transform from (PROJ objects are not shared between threads); none for a source
/// or layer without geometry.
fn source_transform(
    source_srs_override: Option<gdal::spatial_ref::SpatialRef>,
    src: &gdal::vector::Layer<'_>,
    unknown_crs: Option<String>,
    csv: &CsvGeometry,
    layer: crate::domain::Layer,
    names: (&str, &str),
    report: &mut ImportReport,
) -> Result<Option<String>> {
    let has_geometry =
        src.defn().geom_fields().count() > 0 && layer.geom_kind() != crate::domain::GeomKind::None;
    let source_srs = source_crs(
        source_srs_override,
        src.spatial_ref(),
        unknown_crs,
        csv,
        has_geometry,
        names,
        report,
    )?;
    report.source_crs = source_srs.as_ref().map(crs::describe);
    Ok(match &source_srs {
        Some(s) if has_geometry => Some(s.to_wkt().map_err(|source| CrsError::Gdal {
            step: CrsStep::ToWkt { code: None },
            source,
        })?),
        _ => None,
    })
}

/// The source's field names. A CSV export neutralises field names as it does text
/// cells (an extra attribute's name came from some other file): read back, they are the
/// names that went out.
fn source_field_names(src: &gdal::vector::Layer<'_>, is_csv: bool) -> Vec<String> {
    src.defn()
        .fields()
        .map(|f| {
            let name = f.name();
            if is_csv {
                crate::domain::csv::restore(&name).into_owned()
            } else {
                name
            }
        })
        .collect()
}

/// Says that invalid geometries were repaired, unless the problems count them already.
fn repaired_warning(report: &mut ImportReport) {
    if report.problems.invalid_geometry == 0 && !report.repaired.is_empty() {
        report.warnings.push(format!(
            "{} invalid geometries were repaired (use --invalid reject to refuse them)",
            report.repaired.len()
        ));
    }
}

/// The source's CRS: --s-srs, else the file's, else (CSV lon/lat only) WGS 84; none for
/// a source without geometry. A GeoJSON "crs" PROJ does not know, or a source with
/// geometry and no CRS, is an error; an override or a guess is a warning.
fn source_crs(
    source_srs_override: Option<gdal::spatial_ref::SpatialRef>,
    file_srs: Option<gdal::spatial_ref::SpatialRef>,
    unknown_crs: Option<String>,
    csv: &CsvGeometry,
    has_geometry: bool,
    (path_str, src_name): (&str, &str),
    report: &mut ImportReport,
) -> Result<Option<gdal::spatial_ref::SpatialRef>> {
    let source_srs = match (source_srs_override, file_srs) {
        (Some(s), file) => {
            match (&unknown_crs, file) {
                (Some(name), _) => report.warnings.push(format!(
                    "the file's crs {name} is unknown to PROJ; read as {} from --s-srs",
                    crs::describe(&s)
                )),
                (None, Some(f)) => report.warnings.push(format!(
                    "the file's CRS {} was overridden by --s-srs",
                    crs::describe(&f)
                )),
                (None, None) => {}
            }
            Some(s)
        }
        (None, _) if has_geometry && unknown_crs.is_some() => {
            return Err(CrsError::UnknownToProj {
                path: path_str.to_string(),
                src_layer: src_name.to_string(),
                name: unknown_crs.unwrap_or_default(),
            }
            .into())
        }
        (None, Some(mut s)) => {
            s.set_axis_mapping_strategy(
                gdal::spatial_ref::AxisMappingStrategy::TraditionalGisOrder,
            );
            Some(s)
        }
        (None, None) if matches!(csv, CsvGeometry::LonLat(..)) => {
            report.warnings.push("the CSV's longitude/latitude columns were read as WGS 84 (EPSG:4326); give --s-srs if they are not".into());
            Some(crs::srs_from_epsg(4326)?)
        }
        (None, None) if has_geometry => {
            return Err(CrsError::Missing {
                path: path_str.to_string(),
                src_layer: src_name.to_string(),
            }
            .into())
        }
        (None, None) => None,
    };
    Ok(source_srs)
}

/// How the source's fields map onto the layer's (with the id rule), noted in the report.
fn field_plan(
    opts: &ImportOptions,
    source_fields: &[String],
    (path_str, src_name): (&str, &str),
    declared: Option<u64>,
    registry_unit: crate::domain::LengthUnit,
    report: &mut ImportReport,
) -> Result<source::FieldPlan> {
    let layer = opts.layer;
    let id_rule = select::id_rule(opts, source_fields, path_str, src_name)?;
    if let Some(r) = &id_rule {
        report.ids = Some(r.describe());
    }
    let mut plan = match source::plan_fields_with(
        layer,
        source_fields,
        &opts.maps,
        path_str,
        src_name,
        id_rule,
    ) {
        // A file with no features often has no fields either (an empty GeoJSON): what
        // is wrong with it is that it is empty, which the report and --replace's guard say.
        Err(ImportError::MissingField { .. }) if declared == Some(0) => {
            source::FieldPlan::empty(layer)
        }
        other => other?,
    };
    if !opts.units.is_empty() {
        plan.units = super::map_unit::plan_units(layer, &opts.units, registry_unit).map_err(
            |(field, message)| {
                // The mapping as it was given: canonical=source:unit.
                let source = opts.maps.iter().find(|(c, _)| *c == field);
                let unit = opts.units.iter().find(|(c, _)| *c == field);
                let arg = match (source, unit) {
                    (Some((c, s)), Some((_, u))) => format!("{c}={s}:{u}"),
                    _ => field,
                };
                ImportError::Invalid {
                    field: "map",
                    message: format!("--map {arg}: {message}"),
                }
            },
        )?;
    }
    report.field_map = plan.described.iter().cloned().collect();
    report.extra_fields = plan.extra.iter().map(|(_, n)| n.clone()).collect();

    Ok(plan)
}

/// The layer's stored rows, asked of the writer when `ask` (see `read_source`); none when
/// the writer fails before answering.
fn stored_rows(
    sink: Option<&mpsc::Sender<WriteMsg>>,
    ask: bool,
) -> Option<std::sync::Arc<crate::store::StoredRows>> {
    match sink {
        Some(tx) if ask => {
            let (ask, answer) = tokio::sync::oneshot::channel();
            if tx.blocking_send(WriteMsg::StoredRows(ask)).is_ok() {
                // A writer that failed before answering drops the question: the import
                // then converts everything, and the write's error is the one reported.
                answer.blocking_recv().ok().flatten()
            } else {
                None
            }
        }
        _ => None,
    }
}

/// A replace of the programme submissions removes no recorded submission (see
/// `submissions`): the rows the write would delete are asked of the writer, inside its
/// transaction, after the file's last row; a dry run decides against the layer as it
/// stands (`existing`), as it decides the rest. A writer that has gone commits nothing:
/// its error is the one reported.
fn recorded_kept(
    opts: &ImportOptions,
    existing: Option<&rustc_hash::FxHashSet<String>>,
    seen: &rustc_hash::FxHashMap<String, u64>,
    sink: Option<&mpsc::Sender<WriteMsg>>,
    path_str: &str,
) -> Result<()> {
    if opts.layer != Layer::ProgrammeSubmissions || opts.mode != WriteMode::Replace {
        return Ok(());
    }
    let removed = match (sink, existing) {
        (Some(tx), _) => {
            let (ask, answer) = tokio::sync::oneshot::channel();
            if tx.blocking_send(WriteMsg::WouldDelete(ask)).is_err() {
                return Ok(());
            }
            match answer.blocking_recv() {
                Ok(ids) => ids,
                Err(_) => return Ok(()),
            }
        }
        (None, Some(stored)) => stored
            .iter()
            .filter(|id| !seen.contains_key(*id))
            .cloned()
            .collect(),
        (None, None) => Vec::new(),
    };
    super::submissions::replace_keeps_recorded(path_str, removed)
}

/// The warnings of a read: CSV cells read without their formula guard, nothing read.
fn read_warnings(report: &mut ImportReport, read: u64, restored: u64) {
    if restored > 0 {
        report.warnings.push(format!(
            "{restored} {} began with the single quote a CSV export puts before text a spreadsheet would run as a formula (=, +, -, @, tab, carriage return, or a quote): read without it",
            if restored == 1 { "cell" } else { "cells" }
        ));
    }
    if read == 0 {
        report.warnings.push(match &report.filter {
            Some(w) => format!("no feature of the file matches {w}"),
            None => "the file has no features".into(),
        });
    }
}

/// The rejected features whose current version a replace could delete, by id (or by the
/// source's number when the id could not be read): every one whose id is stored and that
/// no accepted feature of the file carries, and every one whose id is unknown (it may be
/// any stored row). A rejected feature whose id the layer does not hold has no version to
/// lose; a duplicate whose first is kept replaces it rather than deleting it.
fn rejected_at_risk(
    report: &ImportReport,
    existing: Option<&rustc_hash::FxHashSet<String>>,
    seen: &rustc_hash::FxHashMap<String, u64>,
) -> Vec<String> {
    let mut at_risk: Vec<String> = Vec::new();
    let mut features: Vec<u64> = Vec::new();
    for r in &report.rejections {
        if features.contains(&r.feature) {
            continue;
        }
        features.push(r.feature);
        let risk = match (&r.id, existing) {
            (Some(id), _) if seen.contains_key(id) => None,
            (Some(id), Some(stored)) => stored.contains(id).then(|| id.clone()),
            (Some(id), None) => Some(id.clone()),
            (None, _) => Some(format!("feature {} with no readable id", r.feature)),
        };
        at_risk.extend(risk);
    }
    // A count of rejections the notes do not cover (none, today) is still a risk.
    let noted = features.len() as u64;
    if report.rejected > noted {
        at_risk.push(format!("{} more", report.rejected - noted));
    }
    at_risk
}

/// The guards of a replace: no feature rejected that the replace would delete, and the
/// rows it deletes listed (and refused past the allowed share); a dry run only warns.
fn replace_checks(
    opts: &ImportOptions,
    report: &mut ImportReport,
    existing: Option<&rustc_hash::FxHashSet<String>>,
    seen: &rustc_hash::FxHashMap<String, u64>,
    path_str: &str,
    writes: bool,
) -> Result<()> {
    if opts.mode == WriteMode::Replace && writes {
        let at_risk = rejected_at_risk(report, existing, seen);
        if !at_risk.is_empty() {
            // A rejected feature's current version would be deleted by the replace:
            // refuse rather than lose it. The writer rolls back when it sees the error.
            return Err(ImportError::Refused(format!(
                "{path_str}: {} rejected feature(s) ({}) may have a current version in {} that --replace would delete; fix them (see the report with --dry-run) or import without --replace",
                at_risk.len(),
                at_risk.join(", "),
                opts.layer
            )));
        }
    }
    if let Some(existing) = existing {
        let mut deletes: Vec<String> = existing
            .iter()
            .filter(|id| !seen.contains_key(*id))
            .cloned()
            .collect();
        deletes.sort();
        report.deletes = deletes;
        if let Some(why) = replace_refusal(opts, report, existing.len(), path_str) {
            if writes {
                return Err(ImportError::Refused(why));
            }
            report
                .warnings
                .push(format!("the import itself would be refused: {why}"));
        }
    }
    Ok(())
}

/// Why a replace must not go ahead without an explicit yes: it would empty the layer, or
/// delete more of it than the allowed share.
pub(super) fn replace_refusal(
    opts: &ImportOptions,
    report: &ImportReport,
    existing: usize,
    path: &str,
) -> Option<String> {
    let layer = opts.layer;
    let deleting = report.deletes.len();
    if existing == 0 || deleting == 0 {
        return None;
    }
    if report.imported == 0 && !opts.allow_empty {
        return Some(format!(
            "{path}: the file has no features to import, and --replace would delete all {existing} features of {layer}; if the layer is to be emptied, say so with --allow-empty (allow_empty=true in an upload)"
        ));
    }
    let share = deleting as f64 / existing as f64;
    let allowed = opts.max_delete_share.unwrap_or(DEFAULT_MAX_DELETE_SHARE);
    if report.imported > 0 && share > allowed && !opts.allow_mass_delete {
        return Some(format!(
            "{path}: --replace would delete {deleting} of the {existing} features of {layer} ({:.0}%), more than the {:.0}% allowed at once (the registry's {} setting; change it with ms4 profile set {} <share>); check that the file is the whole layer (--dry-run lists what would go), or say so with --allow-mass-delete (allow_mass_delete=true in an upload)",
            share * 100.0,
            allowed * 100.0,
            settings::MAX_DELETE_SHARE,
            settings::MAX_DELETE_SHARE,
        ));
    }
    None
}

/// The union of the boundary's boxes grown on every side by its larger dimension, or by
/// `floor` (in the registry's unit) when that is more.
pub(super) fn grown_union(
    boxes: &[geo_types::Rect<f64>],
    floor: f64,
) -> Option<geo_types::Rect<f64>> {
    let mut it = boxes.iter();
    let first = *it.next()?;
    let u = it.fold(first, |a, b| {
        geo_types::Rect::new(
            geo_types::coord! { x: a.min().x.min(b.min().x), y: a.min().y.min(b.min().y) },
            geo_types::coord! { x: a.max().x.max(b.max().x), y: a.max().y.max(b.max().y) },
        )
    });
    let m = u.width().max(u.height()).max(floor);
    Some(geo_types::Rect::new(
        geo_types::coord! { x: u.min().x - m, y: u.min().y - m },
        geo_types::coord! { x: u.max().x + m, y: u.max().y + m },
    ))
}
