//! `ms4 network-check` in each format: a summary table and a table of findings for
//! people, one CSV row per finding, or GeoJSON features to put the findings on a map.

use geo_types::{Geometry, MultiLineString, Point};

use super::output;
use crate::domain::Layer;
use crate::spatial::network::NetworkReport;
use crate::spatial::Snapshot;

/// Rows of a kind shown in the table before "... and N more".
const TABLE_ROWS_PER_KIND: usize = 20;
/// A finding's detail is cut to this in the table, to keep it within a terminal.
const TABLE_DETAIL_CHARS: usize = 80;

/// One finding: its kind, the id it concerns, what is wrong, and where when known.
struct Finding {
    kind: &'static str,
    id: String,
    detail: String,
    at: Option<[f64; 2]>,
    /// The features drawing it on a map (pipes of a cycle), when not a point.
    pipes: Vec<String>,
}

fn findings(r: &NetworkReport) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut push = |kind, id: String, detail: String, at, pipes| {
        out.push(Finding {
            kind,
            id,
            detail,
            at,
            pipes,
        })
    };
    for d in &r.dangling_ends {
        push(
            "dangling_end",
            d.pipe.clone(),
            format!("{} end meets nothing", d.end),
            d.at,
            vec![d.pipe.clone()],
        );
    }
    for t in &r.t_junctions {
        push(
            "t_junction",
            t.pipe.clone(),
            format!("{} end joins {} ({:.3} away)", t.end, t.joins, t.distance),
            Some(t.at),
            vec![t.pipe.clone()],
        );
    }
    for (i, c) in r.cycles.iter().enumerate() {
        push(
            "cycle",
            format!("cycle {}", i + 1),
            format!(
                "pipes {} through {}",
                c.pipes.join(" "),
                c.structures.join(" ")
            ),
            None,
            c.pipes.clone(),
        );
    }
    for p in &r.zero_length_pipes {
        push(
            "zero_length_pipe",
            p.clone(),
            "both ends are one point".into(),
            None,
            vec![p.clone()],
        );
    }
    for p in &r.reversed_pipes {
        let why = if p.turned_by_inverts {
            format!(
                "turned by its inverts ({} to {})",
                p.from_invert, p.to_invert
            )
        } else {
            format!(
                "laid against its inverts ({} to {}), direction from its {}",
                p.from_invert,
                p.to_invert,
                serde_json::to_value(p.direction)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            )
        };
        push(
            "reversed_pipe",
            p.pipe.clone(),
            why,
            None,
            vec![p.pipe.clone()],
        );
    }
    for p in &r.bidirectional_pipes {
        push(
            "bidirectional_pipe",
            p.clone(),
            "flows either way".into(),
            None,
            vec![p.clone()],
        );
    }
    for u in &r.unknown_ids {
        push(
            "unknown_id",
            u.pipe.clone(),
            format!("{} names {}, which is no structure", u.field, u.id),
            None,
            vec![u.pipe.clone()],
        );
    }
    for c in &r.id_collisions {
        push(
            "id_collision",
            c.id.clone(),
            format!(
                "a pipe and a structure of {} (trace pipe:{} for the pipe)",
                c.structure_layer, c.id
            ),
            None,
            vec![c.id.clone()],
        );
    }
    for d in &r.duplicate_ids {
        push(
            "duplicate_id",
            d.id.clone(),
            format!("used again in {}", d.layer),
            None,
            Vec::new(),
        );
    }
    for o in &r.orphan_structures {
        push(
            "orphan_structure",
            o.id.clone(),
            format!("a {} no pipe meets", o.layer),
            None,
            Vec::new(),
        );
    }
    for p in &r.parts {
        push(
            "part",
            p.example.clone(),
            format!(
                "{} structures, {} pipes, {} outfalls",
                p.structures, p.pipes, p.outfalls
            ),
            None,
            Vec::new(),
        );
    }
    for u in &r.unreadable_rows {
        let v = serde_json::to_value(u).unwrap_or_default();
        push(
            "unreadable_row",
            v["id"].as_str().unwrap_or("").to_string(),
            format!(
                "{}: {}",
                v["layer"].as_str().unwrap_or(""),
                v["reason"].as_str().unwrap_or("")
            ),
            None,
            Vec::new(),
        );
    }
    out
}

/// The summary as a two-column table, then the findings, a few of each kind.
pub(super) fn table(r: &NetworkReport) -> anyhow::Result<String> {
    let summary = serde_json::to_value(&r.summary)?;
    let rows: Vec<Vec<String>> = summary
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| vec![k.replace('_', " "), v.to_string()])
        .collect();
    let mut text = output::table(&["count", "value"], &rows);
    let all = findings(r);
    let mut shown = Vec::new();
    let mut more: Vec<(&str, usize)> = Vec::new();
    let mut kinds: Vec<&str> = all.iter().map(|f| f.kind).collect();
    kinds.dedup();
    for k in kinds {
        let of: Vec<&Finding> = all.iter().filter(|f| f.kind == k).collect();
        for f in of.iter().take(TABLE_ROWS_PER_KIND) {
            let mut detail = f.detail.clone();
            if detail.chars().count() > TABLE_DETAIL_CHARS {
                detail = detail.chars().take(TABLE_DETAIL_CHARS).collect::<String>() + "...";
            }
            shown.push(vec![f.kind.to_string(), f.id.clone(), detail]);
        }
        if of.len() > TABLE_ROWS_PER_KIND {
            more.push((k, of.len() - TABLE_ROWS_PER_KIND));
        }
    }
    if !shown.is_empty() {
        text.push('\n');
        text.push_str(&output::table(&["finding", "id", "detail"], &shown));
    }
    for (k, n) in more {
        text.push_str(&format!(
            "... and {n} more of {k} (--format csv lists all)\n"
        ));
    }
    Ok(text)
}

/// One CSV row per finding: kind, id, detail and the point (x, y in the registry's CRS)
/// where it has one.
pub(super) fn csv(r: &NetworkReport) -> String {
    let rows: Vec<Vec<String>> = findings(r)
        .into_iter()
        .map(|f| {
            let (x, y) =
                f.at.map(|a| (a[0].to_string(), a[1].to_string()))
                    .unwrap_or_default();
            vec![f.kind.to_string(), f.id, f.detail, x, y]
        })
        .collect();
    output::csv(&["finding", "id", "detail", "x", "y"], &rows)
}

/// The findings that have a place, as GeoJSON features: dangling ends and T-junctions
/// as points, cycles, reversed, zero-length, bidirectional and mis-named pipes as their
/// lines, orphan structures as points, and each part as its example feature.
pub(super) fn geojson(snap: &Snapshot, r: &NetworkReport) -> anyhow::Result<String> {
    let pipe_lines = |ids: &[String]| {
        let mut parts = Vec::new();
        for id in ids {
            match snap
                .layer(Layer::Pipes)
                .get(id)
                .and_then(|f| f.geom.as_ref())
            {
                Some(Geometry::LineString(l)) => parts.push(l.clone()),
                Some(Geometry::MultiLineString(m)) => parts.extend(m.0.iter().cloned()),
                _ => {}
            }
        }
        (!parts.is_empty()).then(|| Geometry::MultiLineString(MultiLineString(parts)))
    };
    let feature_geom = |id: &str| {
        Layer::ALL
            .iter()
            .filter(|l| {
                matches!(
                    l,
                    Layer::CatchBasins | Layer::Manholes | Layer::Outfalls | Layer::Pipes
                )
            })
            .find_map(|l| snap.layer(*l).get(id).and_then(|f| f.geom.clone()))
    };
    let mut items = Vec::new();
    for f in findings(r) {
        let geom = match (f.at, f.kind) {
            (Some(a), _) => Some(Geometry::Point(Point::new(a[0], a[1]))),
            (None, "orphan_structure" | "part" | "duplicate_id") => feature_geom(&f.id),
            (None, _) => pipe_lines(&f.pipes),
        };
        if let Some(g) = geom {
            items.push((
                g,
                serde_json::json!({"finding": f.kind, "id": f.id, "detail": f.detail}),
            ));
        }
    }
    output::geojson(snap.meta.srid, items)
}
