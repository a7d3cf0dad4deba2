//! `ms4 synth`: write a synthetic MS4.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, ValueEnum};

use crate::import::crs;
use crate::synth::{self, Scale, SynthFormat, SynthOptions};

/// Output formats of `ms4 synth`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SynthFormatArg {
    /// One GeoPackage per layer.
    Gpkg,
    /// One shapefile per layer (impairments as CSV).
    Shapefile,
}

/// Arguments of `ms4 synth`.
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// town (about 2,000 parcels), county (about 1,000,000) or a number of parcels.
    #[arg(long, default_value = "town")]
    pub scale: Scale,
    /// The random seed: the same seed writes the same town.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The CRS to generate in (projected).
    #[arg(long, default_value = "EPSG:2260")]
    pub crs: String,
    /// Where to write the layers.
    #[arg(long)]
    pub out: PathBuf,
    /// The file format.
    #[arg(long, value_enum, default_value_t = SynthFormatArg::Gpkg)]
    pub format: SynthFormatArg,
    /// The jurisdiction recorded in the metadata.
    #[arg(long, default_value = "north-castle-ny")]
    pub jurisdiction: String,
}

pub(super) async fn run(a: SynthArgs) -> anyhow::Result<()> {
    let code = crs::parse_epsg(&a.crs)?;
    let meta = crs::registry_meta(&a.jurisdiction, code)?;
    let origin = default_origin(code);
    let opts = SynthOptions {
        parcels: a.scale.parcels(),
        seed: a.seed,
        srid: code,
        unit: meta.linear_unit,
        origin,
    };
    let format = match a.format {
        SynthFormatArg::Gpkg => SynthFormat::Gpkg,
        SynthFormatArg::Shapefile => SynthFormat::Shapefile,
    };
    std::fs::create_dir_all(&a.out)?;
    let out = a.out.clone();
    let started = Instant::now();
    let written = tokio::task::spawn_blocking(move || {
        let layers = synth::generate(&opts);
        synth::write(&layers, &meta, &out, format)
    })
    .await??;
    for (layer, path, n) in &written {
        println!("{:<20} {n:>9}  {}", layer.name(), path.display());
    }
    println!(
        "wrote {} layers in {:.1} s",
        written.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// A plausible origin inside the CRS's area of use, so generated towns land where the
/// CRS is meant to be used (and reprojections to WGS 84 stay sensible).
pub fn default_origin(code: i32) -> (f64, f64) {
    match code {
        2260 => (670_000.0, 870_000.0), // NY East ftUS: Westchester / Putnam
        2234 => (1_010_000.0, 870_000.0), // Connecticut ftUS: Windsor
        2927 => (1_160_000.0, 700_000.0), // WA South ftUS: Tacoma
        c if (32601..=32660).contains(&c) || (32701..=32760).contains(&c) => {
            (500_000.0, 4_500_000.0)
        }
        _ => (0.0, 0.0),
    }
}
