//! Files made to make GDAL read what it should not: a VRT (under any name, zipped or
//! not) whose source is the registry and whose SQL selects the tokens, and a VRT or
//! path that points GDAL at a URL. Each is refused by the service's upload route (its
//! router, in process) and by the CLI, naming the file, with no change to the store and
//! no request made.

use super::*;

const SUBJECT: &str = "token-subject-that-must-not-leak";

/// A VRT whose layer is the registry's token table.
fn token_vrt(registry: &std::path::Path) -> String {
    format!(
        r#"<OGRVRTDataSource><OGRVRTLayer name="outfalls"><SrcDataSource>{}</SrcDataSource><SrcSQL dialect="sqlite">SELECT subject AS asset_id, role AS status, hash AS notes FROM ms4_tokens</SrcSQL></OGRVRTLayer></OGRVRTDataSource>"#,
        registry.display()
    )
}

/// A VRT whose source is a URL on the tripwire.
fn url_vrt(port: u16) -> String {
    format!(
        r#"<OGRVRTDataSource><OGRVRTLayer name="outfalls"><SrcDataSource>/vsicurl/http://127.0.0.1:{port}/outfalls.geojson</SrcDataSource></OGRVRTLayer></OGRVRTDataSource>"#
    )
}

/// Every trick as (file name, bytes).
fn tricks(registry: &std::path::Path, port: u16) -> Vec<(String, Vec<u8>)> {
    let vrt = token_vrt(registry);
    let dir = tempfile::tempdir().unwrap();
    let zipped = |name: &str, inner: &str, body: &str| {
        let z = dir.path().join(name);
        zip_files(&z, &[(inner, body.as_bytes())]);
        (name.to_string(), std::fs::read(&z).unwrap())
    };
    vec![
        ("tokens.geojson".into(), vrt.clone().into_bytes()),
        ("tokens.json".into(), vrt.clone().into_bytes()),
        ("tokens.csv".into(), vrt.clone().into_bytes()),
        ("tokens.gpkg".into(), vrt.clone().into_bytes()),
        (
            "tokens.kml".into(),
            format!("<?xml version=\"1.0\"?>\n{vrt}").into_bytes(),
        ),
        zipped("vrt_inside.zip", "tokens.vrt", &vrt),
        zipped("renamed_inside.zip", "tokens.geojson", &vrt),
        ("url.geojson".into(), url_vrt(port).into_bytes()),
        zipped("url_inside.zip", "url.geojson", &url_vrt(port)),
    ]
}

#[test]
fn the_token_vrt_is_a_real_leak_when_any_driver_is_allowed() {
    // The control: with the allow-list lifted on purpose, the trick below does read the
    // tokens, so the refusals in the other tests refuse something real.
    let (dir, store) = cli_registry();
    token(&store, "analyst", SUBJECT, &[]);
    let vrt = dir.path().join("tokens.geojson");
    std::fs::write(&vrt, token_vrt(&dir.path().join("r.gpkg"))).unwrap();
    let out = run_ok(
        &store,
        &[
            "import",
            "outfalls",
            vrt.to_str().unwrap(),
            "--dry-run",
            "--allow-any-driver",
        ],
    );
    assert!(out.contains(SUBJECT), "{out}");
}

#[test]
fn the_cli_refuses_every_trick_naming_the_file_and_changes_nothing() {
    let (dir, store) = cli_registry();
    token(&store, "analyst", SUBJECT, &[]);
    let wire = Tripwire::new();
    let registry = dir.path().join("r.gpkg");
    let before = dump(&registry);
    for (name, bytes) in tricks(&registry, wire.port) {
        let path = dir.path().join(&name);
        std::fs::write(&path, &bytes).unwrap();
        for extra in [&["--dry-run"][..], &[][..], &["--replace"][..]] {
            let mut args = vec!["import", "outfalls", path.to_str().unwrap()];
            args.extend_from_slice(extra);
            let err = run_err(&store, &args);
            assert!(err.contains(&name), "{name} {extra:?}: {err}");
            assert!(!err.contains(SUBJECT), "{name}: {err}");
            assert!(
                !err.contains("NULL pointer") && !err.contains("GDALOpenEx"),
                "{name}: no GDAL jargon: {err}"
            );
        }
        std::fs::remove_file(&path).unwrap();
    }
    // A GDAL virtual path given directly.
    let url = format!("/vsicurl/http://127.0.0.1:{}/outfalls.geojson", wire.port);
    let err = run_err(&store, &["import", "outfalls", &url]);
    assert!(
        err.contains("/vsicurl/") && err.contains("virtual paths"),
        "{err}"
    );
    assert!(!wire.tripped(), "GDAL made a request");
    assert_eq!(
        dump(&registry),
        before,
        "every table of the registry holds what it held"
    );
}

#[tokio::test]
async fn the_server_refuses_every_upload_trick_with_a_4xx_naming_the_file() {
    let (dir, store) = cli_registry();
    let t = token(&store, "analyst", SUBJECT, &[]);
    let wire = Tripwire::new();
    let reg = ms4::store::open(&store).await.unwrap();
    let server = App::new(&reg).await;
    let generation = reg.generation().await.unwrap();
    for (name, bytes) in tricks(&dir.path().join("r.gpkg"), wire.port) {
        for extra in [
            &[("dry_run", "true")][..],
            &[][..],
            &[("replace", "true")][..],
        ] {
            let (s, body) = upload(&server, &t, "outfalls", &name, bytes.clone(), extra).await;
            let text = body.to_string();
            assert!((400..500).contains(&s), "{name} {extra:?}: {s} {text}");
            assert!(
                body["error"].as_str().unwrap().contains(&name),
                "{name}: {text}"
            );
            assert!(!text.contains(SUBJECT), "{name}: {text}");
        }
    }
    assert!(!wire.tripped(), "the server made a request for an uploader");
    assert_eq!(reg.count(Layer::Outfalls).await.unwrap(), 0);
    assert_eq!(
        reg.generation().await.unwrap(),
        generation,
        "no import, not even a dry run, was recorded"
    );
    // The server still takes an honest file.
    let (s, body) = upload(
        &server,
        &t,
        "outfalls",
        "honest.geojson",
        north_castle_points(&["OF-1"]).into_bytes(),
        &[],
    )
    .await;
    assert_eq!(s, 201, "{body}");
}

/// Every table's rows and the schema, as SQL text. The file's bytes are not the measure:
/// a GeoPackage in WAL mode moves committed pages from the `-wal` file into the main file
/// whenever a connection checkpoints, with the same content.
fn dump(registry: &std::path::Path) -> String {
    let out = std::process::Command::new("sqlite3")
        .arg(registry)
        .arg(".dump")
        .output()
        .expect("sqlite3 runs (scripts/setup.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
