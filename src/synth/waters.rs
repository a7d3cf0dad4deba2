//! Receiving waters and the areas around them: stream reaches (one receiving water each),
//! their 303(d) impairments, one watershed per reach, TMDL areas over some of the
//! impaired watersheds, and the town boundary.
//!
//! Watersheds are rectangles cut on the drainage divides (see [`Layout::watershed_x`] and
//! [`Layout::reach_y`]), so together they partition the boundary and every structure lies
//! in the watershed of the water its outfall discharges to.

use geo_types::{Geometry, LineString, MultiPolygon, Polygon};
use rand::rngs::SmallRng;
use rand::Rng;

use super::grid::rect_polygon;
use super::layout::{tag, Layout, MARGIN};
use super::{date, pick, text, Out};
use crate::domain::{Feature, Layer, Value};

const STREAM_NAMES: [&str; 24] = [
    "Mill Brook",
    "Byram River",
    "Kisco River",
    "Wampus River",
    "Bronx River",
    "Stone Hill River",
    "Titicus River",
    "Muscoot River",
    "Saw Mill River",
    "Sprain Brook",
    "Blind Brook",
    "Mianus River",
    "Beaver Dam Brook",
    "Cross River",
    "Waccabuc River",
    "Hutchinson River",
    "Mamaroneck River",
    "Sheldrake River",
    "Pocantico River",
    "Peekskill Hollow Creek",
    "Furnace Brook",
    "Hunter Brook",
    "Indian Brook",
    "Annsville Creek",
];

/// Pollutants of 303(d) listings; phosphorus and pathogens dominate in the lower Hudson.
const POLLUTANTS: &[(&str, u32)] = &[
    ("phosphorus", 5),
    ("pathogens", 4),
    ("sediment", 3),
    ("nitrogen", 2),
    ("dissolved oxygen", 1),
];
const SOURCES: &[(&str, u32)] = &[
    ("urban/storm runoff", 6),
    ("municipal discharges", 2),
    ("on-site septic systems", 2),
    ("streambank erosion", 2),
    ("unknown", 1),
];
/// Share of reaches listed as impaired.
const LISTED_RATE: f64 = 0.35;
/// Share of impaired reaches with a TMDL.
const TMDL_RATE: f64 = 0.4;

/// The name of stream `s`.
fn stream_name(s: usize) -> String {
    match s / STREAM_NAMES.len() {
        0 => STREAM_NAMES[s].to_string(),
        n => format!("{} {}", STREAM_NAMES[s % STREAM_NAMES.len()], n + 1),
    }
}

/// Emits the waters, impairments, watersheds, TMDL areas and the boundary.
pub fn generate(lay: &Layout, out: &mut Out) {
    let mut tmdls = 0usize;
    for s in 0..lay.streams.len() {
        let name = stream_name(s);
        for r in 0..lay.reaches {
            let index = s * lay.reaches + r;
            let mut rng = lay.rng(tag::WATER, index as u64);
            let water_id = lay.water_id(s, r);
            let reach_name = if lay.reaches > 1 {
                format!("{name}, reach {}", r + 1)
            } else {
                name.clone()
            };
            // The first reach is always listed, so even a tiny town has an impaired water
            // and a TMDL to test against.
            let listed = index == 0 || rng.gen_bool(LISTED_RATE);
            let (y0, y1) = lay.reach_y(r);
            water(lay, s, &water_id, &reach_name, listed, (y0, y1), out);

            let (x0, x1) = lay.watershed_x(s);
            let mut ws = Feature::new(Layer::Watersheds, format!("WS-{:04}", index + 1));
            ws.set(
                Layer::Watersheds,
                "name",
                text(format!("{reach_name} watershed")),
            );
            ws.set(Layer::Watersheds, "drains_to", text(water_id.clone()));
            ws.geom = Some(multi(rect_polygon(lay, (x0, y0, x1, y1))));
            out.push(Layer::Watersheds, ws);

            if !listed {
                continue;
            }
            let pollutants = impairments(&water_id, &mut rng, out);
            if index == 0 || rng.gen_bool(TMDL_RATE) {
                tmdls += 1;
                // A TMDL often covers only the part of a watershed it was studied for:
                // here the downstream part.
                let top = y0 + (y1 - y0) * rng.gen_range(0.5..=1.0);
                tmdl(lay, tmdls, pollutants[0], (x0, y0, x1, top), &mut rng, out);
            }
        }
    }
    let (w, h) = (lay.width(), lay.height());
    let mut b = Feature::new(Layer::Boundary, "B-1");
    b.set(Layer::Boundary, "name", text("Town of Synthville"));
    b.geom = Some(multi(rect_polygon(
        lay,
        (-MARGIN, -MARGIN, w + MARGIN, h + MARGIN),
    )));
    out.push(Layer::Boundary, b);
}

/// A stream reach, digitised downstream (southwards) every 100 ft.
fn water(
    lay: &Layout,
    s: usize,
    id: &str,
    name: &str,
    listed: bool,
    (y0, y1): (f64, f64),
    out: &mut Out,
) {
    let mut pts = Vec::new();
    let mut y = y1;
    while y > y0 {
        pts.push(lay.c(lay.stream_x(s, y), y));
        y -= 100.0;
    }
    pts.push(lay.c(lay.stream_x(s, y0), y0));
    let l = Layer::ReceivingWaters;
    let mut f = Feature::new(l, id);
    f.set(l, "name", text(name));
    f.set(l, "listed_303d", Value::Bool(listed));
    f.geom = Some(Geometry::LineString(LineString(pts)));
    out.push(l, f);
}

/// One or two impairment rows for a listed water; returns their pollutants.
fn impairments(water_id: &str, rng: &mut SmallRng, out: &mut Out) -> Vec<&'static str> {
    let mut pollutants = vec![pick(rng, POLLUTANTS)];
    if rng.gen_bool(0.4) {
        let second = pick(rng, POLLUTANTS);
        if second != pollutants[0] {
            pollutants.push(second);
        }
    }
    let l = Layer::Impairments;
    for &p in &pollutants {
        let cycle: i64 = pick(rng, &[(2018, 1), (2020, 1), (2022, 2)]);
        let mut sources = vec![pick(rng, SOURCES)];
        let other = pick(rng, SOURCES);
        if rng.gen_bool(0.5) && other != sources[0] {
            sources.push(other);
        }
        // The importer derives this id from the same three fields.
        let mut f = Feature::new(l, format!("{water_id}:{p}:{cycle}"));
        f.set(l, "water_id", text(water_id));
        f.set(l, "pollutant", text(p));
        f.set(l, "sources", text(sources.join("; ")));
        f.set(l, "cycle", Value::Int(cycle));
        out.push(l, f);
    }
    pollutants
}

/// A TMDL area over a local rectangle.
fn tmdl(
    lay: &Layout,
    n: usize,
    pollutant: &str,
    rect: (f64, f64, f64, f64),
    rng: &mut SmallRng,
    out: &mut Out,
) {
    let l = Layer::TmdlAreas;
    let mut f = Feature::new(l, format!("TMDL-{n:03}"));
    f.set(l, "pollutant", text(pollutant));
    f.set(l, "stormwater_source", Value::Bool(rng.gen_bool(0.8)));
    f.set(l, "approved_on", date(rng, 2003, 2021));
    f.geom = Some(multi(rect_polygon(lay, rect)));
    out.push(l, f);
}

/// One polygon as a MultiPolygon, the form polygon layers store.
fn multi(p: Polygon<f64>) -> Geometry<f64> {
    Geometry::MultiPolygon(MultiPolygon(vec![p]))
}
