//! The peers the tiles bench measures ms4 beside: PostGIS's `ST_AsMVT` SQL (what martin
//! issues for a table source) and martin itself over HTTP.

use std::time::Instant;

use ms4::tiles::{TileId, TILE_LAYERS};

use crate::{sequential, serve};

/// The SQL of one tile for PostGIS: one `ST_AsMVT` per layer at or above its minimum
/// zoom, concatenated (as martin joins a composite source's layers), with the layer's
/// recorded properties (those PostGIS holds as columns; derived ones are left out, which
/// only spares PostGIS work).
pub(crate) fn pg_sql(z: u8, srid: i32) -> String {
    // The registry's layers: the answers' (monitoring locations, sewersheds) have no table.
    let parts: Vec<String> = TILE_LAYERS
        .iter()
        .filter(|l| z >= l.minzoom)
        .filter_map(|l| Some((l, l.registry()?)))
        .map(|(l, layer)| {
            let cols: Vec<String> = l
                .fields
                .iter()
                .filter_map(|f| {
                    if f.name == "id" {
                        Some(format!("{} AS id", layer.id_field()))
                    } else {
                        layer.field_index(f.name).map(|_| f.name.to_string())
                    }
                })
                .collect();
            format!(
                "(SELECT COALESCE(ST_AsMVT(t, '{name}', 4096, 'geom'), ''::bytea) FROM (
                   SELECT ST_AsMVTGeom(ST_Transform(geom, 3857), ST_TileEnvelope($1, $2, $3), 4096, 64, true) AS geom, {cols}
                   FROM {name}
                   WHERE geom && ST_Transform(ST_TileEnvelope($1, $2, $3, margin => (64.0 / 4096)), {srid})
                 ) t WHERE geom IS NOT NULL)",
                name = l.name(),
                cols = cols.join(", ")
            )
        })
        .collect();
    format!("SELECT {}", parts.join(" || "))
}

/// The `martin` binary: on PATH, else in cargo's bin folder; installed first when
/// `MS4_BENCH_INSTALL_MARTIN` is set (never under CI).
fn martin_binary() -> Option<std::path::PathBuf> {
    let found = || -> Option<std::path::PathBuf> {
        let home = std::env::var_os("CARGO_HOME")
            .map(std::path::PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".cargo")));
        std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .chain(home.map(|h| h.join("bin")))
            .map(|d| d.join("martin"))
            .find(|m| m.is_file())
    };
    if let Some(m) = found() {
        return Some(m);
    }
    if std::env::var_os("MS4_BENCH_INSTALL_MARTIN").is_some() && std::env::var_os("CI").is_none() {
        eprintln!("installing martin 1.14.0 (cargo install; a long build)");
        let st = std::process::Command::new("cargo")
            .args(["install", "martin", "--version", "1.14.0", "--locked"])
            .status()
            .expect("cargo runs");
        assert!(st.success(), "cargo install martin failed");
        return found();
    }
    None
}

/// martin serving the PostGIS registry's tables (auto-published, its tile cache off), the
/// tile list asked for one at a time; each zoom asks for the composite of the layers at or
/// above their minimum zoom, as ms4 serves them.
pub(crate) async fn martin_side(pg: &str, list: &[TileId], out: &mut Option<f64>) {
    let Some(bin) = martin_binary() else {
        println!(
            "martin: not installed (MS4_BENCH_INSTALL_MARTIN=1 installs it); no martin figures"
        );
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = std::process::Command::new(&bin)
        .arg(pg)
        .args(["--listen-addresses", &format!("127.0.0.1:{port}")])
        .args(["--cache-size", "0"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("martin starts");
    let _martin = serve::Proc(child);
    let base = format!("http://127.0.0.1:{port}");
    let c = reqwest::Client::new();
    let t = Instant::now();
    loop {
        if let Ok(r) = c.get(format!("{base}/health")).send().await {
            if r.status().is_success() {
                break;
            }
        }
        if t.elapsed().as_secs() > 60 {
            println!("martin did not answer /health within 60 s; no martin figures");
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let composite = |z: u8| -> String {
        TILE_LAYERS
            .iter()
            .filter(|l| z >= l.minzoom && l.registry().is_some())
            .map(|l| l.name())
            .collect::<Vec<_>>()
            .join(",")
    };
    let m = sequential(&c, &base, None, list, |t| {
        format!("/{}/{}/{}/{}", composite(t.z), t.z, t.x, t.y)
    })
    .await;
    println!("martin over HTTP, one request at a time: median {m:.3} ms per tile");
    *out = Some(m);
}
