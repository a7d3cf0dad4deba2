//! The peer: pygeoapi under gunicorn, on the same parcels in PostGIS.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::serve::Proc;
use crate::LIMIT;

pub(crate) fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

pub(crate) fn python_bin(tool: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let p = root.join("target/py/bin").join(tool);
    if !p.exists() {
        let st = Command::new(root.join("scripts/python.sh"))
            .status()
            .unwrap();
        assert!(st.success(), "scripts/python.sh failed");
    }
    p
}

/// pygeoapi's configuration: the county's parcels table through its PostgreSQL provider,
/// stored in EPSG:2260 and answered in CRS84 unless asked otherwise (as ms4 does).
pub(crate) fn pygeoapi_config(pg: &url::Url, port: u16) -> String {
    format!(
        r#"server:
  bind:
    host: 127.0.0.1
    port: {port}
  url: http://127.0.0.1:{port}
  mimetype: application/json; charset=UTF-8
  encoding: utf-8
  languages: [en-US]
  pretty_print: false
  limits:
    default_items: 100
    max_items: {LIMIT}
  map:
    url: http://127.0.0.1/{{z}}/{{x}}/{{y}}.png
    attribution: none
logging:
  level: ERROR
metadata:
  identification:
    title: ms4 benchmark peer
    description: the synthetic county's parcels
    keywords: [parcels]
    keywords_type: theme
    terms_of_service: none
    url: http://127.0.0.1
  license:
    name: none
    url: http://127.0.0.1
  provider:
    name: ms4 benchmark
    url: http://127.0.0.1
  contact:
    name: ms4 benchmark
    position: none
    address: none
    city: none
    stateorprovince: none
    postalcode: none
    country: none
    phone: none
    fax: none
    email: none
    url: http://127.0.0.1
    hours: none
    instructions: none
    role: pointOfContact
resources:
  parcels:
    type: collection
    title: Parcels
    description: the synthetic county's parcels
    keywords: [parcels]
    extents:
      spatial:
        bbox: [-180, -90, 180, 90]
        crs: http://www.opengis.net/def/crs/OGC/1.3/CRS84
    providers:
      - type: feature
        name: PostgreSQL
        data:
          host: {host}
          port: {pgport}
          dbname: {db}
          user: {user}
          password: {password}
          search_path: [public]
        id_field: parcel_id
        table: parcels
        geom_field: geom
        storage_crs: http://www.opengis.net/def/crs/EPSG/0/2260
        crs:
          - http://www.opengis.net/def/crs/OGC/1.3/CRS84
          - http://www.opengis.net/def/crs/EPSG/0/2260
"#,
        host = pg.host_str().unwrap(),
        pgport = pg.port().unwrap_or(5432),
        db = pg.path().trim_start_matches('/'),
        user = pg.username(),
        password = pg.password().unwrap_or(""),
    )
}

/// pygeoapi (Flask) under gunicorn with one worker per core, as its docs run it in
/// production, on 127.0.0.1 only.
pub(crate) fn start_pygeoapi(dir: &Path, pg: &url::Url) -> (Proc, String) {
    let port = free_port();
    let config = dir.join("pygeoapi.yml");
    let openapi = dir.join("pygeoapi-openapi.yml");
    std::fs::write(&config, pygeoapi_config(pg, port)).unwrap();
    let out = Command::new(python_bin("pygeoapi"))
        .args(["openapi", "generate"])
        .arg(&config)
        .arg("--output-file")
        .arg(&openapi)
        .env("PYGEOAPI_CONFIG", &config)
        .env("PYTHONWARNINGS", "ignore")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pygeoapi openapi generate: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let child = Command::new(python_bin("gunicorn"))
        .args(["--workers", &workers.to_string(), "--bind"])
        .arg(format!("127.0.0.1:{port}"))
        .args(["--log-level", "warning", "pygeoapi.flask_app:APP"])
        .env("PYGEOAPI_CONFIG", &config)
        .env("PYGEOAPI_OPENAPI", &openapi)
        .env("PYTHONWARNINGS", "ignore")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    (Proc(child), format!("http://127.0.0.1:{port}"))
}
