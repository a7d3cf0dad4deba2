//! The bboxes the items load cycles through: placed at random over the parcels and sized on
//! a sample to return about `BBOX_TARGET` parcels.

use std::path::Path;

use rand::{Rng, SeedableRng};

use crate::serve::get_json;
use crate::{LIMIT, SAMPLE};

/// A layer's extent in its own CRS, from the county's source GeoPackage.
pub(crate) fn extent(data: &Path, layer: &str) -> [f64; 4] {
    use gdal::vector::LayerAccess;
    let ds = gdal::Dataset::open(data.join(format!("{layer}.gpkg"))).unwrap();
    let l = ds.layer(0).unwrap();
    let e = l.get_extent().unwrap();
    [e.MinX, e.MinY, e.MaxX, e.MaxY]
}

/// `n` bboxes in CRS84, placed uniformly at random over the parcels, about `side_ft` on a
/// side on the ground.
pub(crate) fn bboxes(lonlat: [f64; 4], side_ft: f64, n: usize, seed: u64) -> Vec<[f64; 4]> {
    let lat_mid = (lonlat[1] + lonlat[3]) / 2.0;
    // One degree of latitude is about 364,000 ft; a degree of longitude shrinks with cos.
    let dlat = side_ft / 364_000.0;
    let dlon = dlat / lat_mid.to_radians().cos();
    let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
    (0..n)
        .map(|_| {
            let x = rng.gen_range(lonlat[0]..lonlat[2] - dlon);
            let y = rng.gen_range(lonlat[1]..lonlat[3] - dlat);
            [x, y, x + dlon, y + dlat]
        })
        .collect()
}

pub(crate) fn bbox_param(b: &[f64; 4]) -> String {
    b.map(|v| format!("{v:.7}")).join(",")
}

/// Mean, min and max parcels returned by ms4 for the first `SAMPLE` bboxes.
pub(crate) async fn returned(
    c: &reqwest::Client,
    base: &str,
    token: Option<&str>,
    b: &[[f64; 4]],
) -> (f64, usize, usize) {
    let mut counts = Vec::new();
    for bb in b.iter().take(SAMPLE) {
        let fc = get_json(
            c,
            &format!(
                "{base}/collections/parcels/items?limit={LIMIT}&bbox={}",
                bbox_param(bb)
            ),
            token,
        )
        .await;
        let n = fc["features"].as_array().unwrap().len();
        assert!(n < LIMIT, "a bbox filled a whole page");
        counts.push(n);
    }
    let mean = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
    (
        mean,
        *counts.iter().min().unwrap(),
        *counts.iter().max().unwrap(),
    )
}
