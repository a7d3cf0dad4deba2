//! The package's printable map page: one self-contained HTML file (no script, no font,
//! nothing fetched) with the town drawn as SVG — the boundary, the receiving waters, the
//! sewersheds coloured by their location's priority, the pipes, the outfalls and the
//! monitoring locations — a legend, a scale bar and the rule's source. It prints on one
//! landscape page of whatever paper the printer holds (Letter or A3): the drawing scales
//! to the page's width.
//!
//! Drawn in the registry's CRS (a projected one), so grid north is up and the scale bar
//! is true across the town.

use std::fmt::Write as _;

use geo::BoundingRect;
use geo_types::{Coord, Geometry, LineString, Rect};

use crate::answer::mapping::{MonitoringLocationsAnswer, SewershedsAnswer};
use crate::domain::Layer;
use crate::rules::monitoring::Priority;
use crate::spatial::envelope::extent_of;
use crate::spatial::monitoring::{location_point, LocationKind};
use crate::spatial::Snapshot;

/// The drawing's width in SVG units; its height follows the town's shape.
const WIDTH: f64 = 1000.0;

/// A priority's colour, as the map's style gives it.
fn colour(p: Priority) -> &'static str {
    match p {
        Priority::High => "#b2182b",
        Priority::Medium => "#ef8a62",
        Priority::Low => "#4393c3",
    }
}

/// Text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Registry coordinates to the drawing's.
struct Frame {
    minx: f64,
    maxy: f64,
    k: f64,
    height: f64,
}

impl Frame {
    fn of(r: Rect<f64>) -> Frame {
        let (w, h) = (r.width().max(1.0), r.height().max(1.0));
        // A margin of 2% round the town.
        let pad = 0.02 * w.max(h);
        let k = WIDTH / (w + 2.0 * pad);
        Frame {
            minx: r.min().x - pad,
            maxy: r.max().y + pad,
            k,
            height: ((h + 2.0 * pad) * k).ceil(),
        }
    }

    fn xy(&self, c: Coord<f64>) -> (f64, f64) {
        ((c.x - self.minx) * self.k, (self.maxy - c.y) * self.k)
    }

    fn ring(&self, l: &LineString<f64>, closed: bool, d: &mut String) {
        for (i, c) in l.0.iter().enumerate() {
            let (x, y) = self.xy(*c);
            let _ = write!(d, "{}{x:.1} {y:.1}", if i == 0 { "M" } else { "L" });
        }
        if closed {
            d.push('Z');
        }
    }

    /// The SVG path data of a line or area (points have none).
    fn path(&self, g: &Geometry<f64>) -> String {
        let mut d = String::new();
        match g {
            Geometry::LineString(l) => self.ring(l, false, &mut d),
            Geometry::MultiLineString(m) => m.0.iter().for_each(|l| self.ring(l, false, &mut d)),
            Geometry::Line(l) => self.ring(&LineString::from(*l), false, &mut d),
            Geometry::Polygon(p) => {
                std::iter::once(p.exterior())
                    .chain(p.interiors())
                    .for_each(|r| self.ring(r, true, &mut d));
            }
            Geometry::MultiPolygon(m) => {
                for p in &m.0 {
                    std::iter::once(p.exterior())
                        .chain(p.interiors())
                        .for_each(|r| self.ring(r, true, &mut d));
                }
            }
            Geometry::Rect(r) => self.ring(r.to_polygon().exterior(), true, &mut d),
            Geometry::Triangle(t) => self.ring(t.to_polygon().exterior(), true, &mut d),
            Geometry::GeometryCollection(c) => c.0.iter().for_each(|g| d.push_str(&self.path(g))),
            Geometry::Point(_) | Geometry::MultiPoint(_) => {}
        }
        d
    }
}

/// A round length near a fifth of the drawing's width, in the registry's unit.
fn scale_length(frame: &Frame) -> f64 {
    let want = WIDTH / 5.0 / frame.k;
    let step = 10f64.powf(want.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * step)
        .find(|l| *l <= want)
        .unwrap_or(step)
}

fn bounds(snap: &Snapshot, sheds: &SewershedsAnswer) -> Option<Rect<f64>> {
    let mut all: Vec<Rect<f64>> = Vec::new();
    for l in [
        Layer::Boundary,
        Layer::Pipes,
        Layer::Outfalls,
        Layer::CatchBasins,
    ] {
        all.extend(
            snap.layer(l)
                .features
                .iter()
                .filter_map(|f| f.geom.as_ref()?.bounding_rect()),
        );
    }
    all.extend(
        sheds
            .sewersheds
            .iter()
            .filter_map(|s| s.sewershed.polygon().bounding_rect()),
    );
    extent_of(all)
}

/// The page, as HTML.
// One page, written top to bottom as it is printed: split, it would no longer read as one.
#[allow(clippy::too_many_lines)]
pub fn page(
    snap: &Snapshot,
    locations: &MonitoringLocationsAnswer,
    sheds: &SewershedsAnswer,
    made_on: chrono::NaiveDate,
) -> String {
    let unit = snap.meta.linear_unit.symbol();
    let mut svg = String::new();
    let frame = bounds(snap, sheds).map(Frame::of);
    if let Some(f) = &frame {
        let layer_paths = |layer: Layer, attrs: &str, svg: &mut String| {
            let _ = write!(svg, "<g {attrs}>");
            for feat in snap.layer(layer).features.iter() {
                if let Some(g) = &feat.geom {
                    let d = f.path(g);
                    if !d.is_empty() {
                        let _ = write!(
                            svg,
                            "<path d=\"{d}\"><title>{}</title></path>",
                            esc(&feat.id)
                        );
                    }
                }
            }
            svg.push_str("</g>");
        };
        layer_paths(
            Layer::ReceivingWaters,
            "class=\"waters\" fill=\"#6baed6\" fill-opacity=\"0.6\" stroke=\"#3182bd\" stroke-width=\"1.5\"",
            &mut svg,
        );
        svg.push_str("<g class=\"sewersheds\" fill-opacity=\"0.15\" stroke-width=\"1.2\" stroke-dasharray=\"4 2\" fill-rule=\"evenodd\">");
        for s in &sheds.sewersheds {
            let c = colour(s.priority);
            let g = Geometry::MultiPolygon(s.sewershed.polygon().clone());
            let _ = write!(
                svg,
                "<path d=\"{}\" fill=\"{c}\" stroke=\"{c}\"><title>sewershed of {}</title></path>",
                f.path(&g),
                esc(&s.sewershed.location_id)
            );
        }
        svg.push_str("</g>");
        layer_paths(
            Layer::Boundary,
            "class=\"boundary\" fill=\"none\" stroke=\"#444444\" stroke-width=\"2\"",
            &mut svg,
        );
        layer_paths(
            Layer::Pipes,
            "class=\"pipes\" fill=\"none\" stroke=\"#2171b5\" stroke-width=\"0.8\"",
            &mut svg,
        );
        svg.push_str("<g class=\"outfalls\" fill=\"#000000\">");
        for o in snap.layer(Layer::Outfalls).features.iter() {
            if let Some(Geometry::Point(p)) = &o.geom {
                let (x, y) = f.xy(p.0);
                let _ = write!(
                    svg,
                    "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"2\"><title>{}</title></circle>",
                    esc(&o.id)
                );
            }
        }
        svg.push_str("</g><g class=\"monitoring-locations\" fill=\"none\">");
        for l in &locations.locations {
            let Some(p) = location_point(snap, l) else {
                continue;
            };
            let (x, y) = f.xy(p.0);
            let width = if l.kind == LocationKind::Interconnection {
                3.0
            } else {
                1.8
            };
            let _ = write!(
                svg,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"6\" stroke=\"{}\" stroke-width=\"{width}\" data-priority=\"{}\"><title>{}: {} priority</title></circle>",
                colour(l.priority),
                l.priority.as_str(),
                esc(&l.id),
                l.priority.as_str()
            );
        }
        svg.push_str("</g>");
        // The scale bar and grid north, bottom left.
        let len = scale_length(f);
        let px = len * f.k;
        let y = f.height - 20.0;
        let _ = write!(
            svg,
            "<g class=\"scale\" font-size=\"12\" font-family=\"sans-serif\"><rect x=\"20\" y=\"{y:.1}\" width=\"{px:.1}\" height=\"5\" fill=\"#000\"/><text x=\"20\" y=\"{:.1}\">0</text><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{len} {unit}</text></g>",
            y - 4.0,
            20.0 + px,
            y - 4.0
        );
        let _ = write!(
            svg,
            "<g class=\"north\" font-size=\"12\" font-family=\"sans-serif\"><path d=\"M{x} 40 L{l} 60 L{x} 54 L{r} 60 Z\" fill=\"#000\"/><text x=\"{x}\" y=\"74\" text-anchor=\"middle\">N (grid)</text></g>",
            x = WIDTH - 30.0,
            l = WIDTH - 38.0,
            r = WIDTH - 22.0
        );
    }
    let height = frame.as_ref().map_or(100.0, |f| f.height);
    let count = |p: Priority| {
        locations
            .locations
            .iter()
            .filter(|l| l.priority == p)
            .count()
    };
    let swatch =
        |svg: &str| format!("<svg width=\"28\" height=\"16\" aria-hidden=\"true\">{svg}</svg>");
    let ring = |c: &str, w: f64| {
        swatch(&format!("<circle cx=\"14\" cy=\"8\" r=\"6\" fill=\"none\" stroke=\"{c}\" stroke-width=\"{w}\"/>"))
    };
    let mut legend = vec![
        (ring(colour(Priority::High), 1.8), format!("monitoring location, high priority ({})", count(Priority::High))),
        (ring(colour(Priority::Medium), 1.8), format!("monitoring location, medium priority ({})", count(Priority::Medium))),
        (ring(colour(Priority::Low), 1.8), format!("monitoring location, low priority ({})", count(Priority::Low))),
        (ring("#555555", 3.0), "interconnection (thick ring)".to_string()),
        (swatch("<circle cx=\"14\" cy=\"8\" r=\"2\" fill=\"#000\"/>"), "outfall".to_string()),
        (swatch("<rect x=\"2\" y=\"3\" width=\"24\" height=\"10\" fill=\"#b2182b\" fill-opacity=\"0.15\" stroke=\"#b2182b\" stroke-dasharray=\"4 2\"/>"), "sewershed, coloured as its location's priority".to_string()),
        (swatch("<line x1=\"2\" y1=\"8\" x2=\"26\" y2=\"8\" stroke=\"#2171b5\" stroke-width=\"1.5\"/>"), "pipe".to_string()),
        (swatch("<rect x=\"2\" y=\"3\" width=\"24\" height=\"10\" fill=\"#6baed6\" fill-opacity=\"0.6\" stroke=\"#3182bd\"/>"), "receiving water".to_string()),
        (swatch("<line x1=\"2\" y1=\"8\" x2=\"26\" y2=\"8\" stroke=\"#444444\" stroke-width=\"2\"/>"), "town boundary".to_string()),
    ];
    if frame.is_none() {
        legend.clear();
    }
    let legend: String = legend
        .into_iter()
        .map(|(s, t)| format!("<li>{s}<span>{}</span></li>", esc(&t)))
        .collect();
    let title = format!(
        "Storm sewer map, Mapping Phase I — {}",
        esc(&locations.jurisdiction)
    );
    let drawing = if frame.is_some() {
        format!("<svg class=\"map\" viewBox=\"0 0 {WIDTH} {height}\" role=\"img\" aria-label=\"{title}\" xmlns=\"http://www.w3.org/2000/svg\">{svg}</svg>")
    } else {
        "<p>The registry holds nothing to draw.</p>".to_string()
    };
    format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
@page {{ size: landscape; margin: 10mm; }}
body {{ font-family: sans-serif; margin: 0; color: #222; }}
.sheet {{ display: flex; gap: 12px; align-items: flex-start; }}
.map {{ flex: 1 1 auto; width: 78%; height: auto; border: 1px solid #999; background: #fbfaf6; }}
aside {{ flex: 0 0 20%; font-size: 11px; }}
h1 {{ font-size: 16px; margin: 0 0 6px; }}
ul.legend {{ list-style: none; padding: 0; margin: 0 0 8px; }}
ul.legend li {{ display: flex; align-items: center; gap: 4px; margin: 2px 0; }}
p {{ margin: 4px 0; }}
@media print {{
  .sheet {{ break-inside: avoid; }}
  /* The whole town on one page: the drawing fits a box the height of a landscape
     Letter page (A3 gives it more room round it), keeping its shape. */
  .map {{ height: 175mm; }}
}}
</style>
</head>
<body>
<h1>{title}</h1>
<div class="sheet">
{drawing}
<aside>
<ul class="legend" id="legend">{legend}</ul>
<p>{n} monitoring locations ({outfalls} outfalls, {inter} interconnections); {sheds} preliminary sewersheds.</p>
<p>Priority: {rule}</p>
<p>Sewersheds: {method}</p>
<p>Coordinates: EPSG:{srid}; lengths in {unit}. Made {made_on} from the registry.</p>
</aside>
</div>
</body>
</html>
"#,
        n = locations.summary.locations,
        outfalls = locations.summary.outfalls,
        inter = locations.summary.interconnections,
        sheds = sheds.sewersheds.len(),
        rule = esc(&locations.rule.source),
        method = esc(sheds.method),
        srid = snap.meta.srid,
    )
}
