//! The API definition holds against the real server: schemathesis generates requests
//! from `/api/openapi.json` (a bounded number per route) and checks every answer — no
//! server error, only documented status codes and media types, bodies matching their
//! schemas.
//!
//! schemathesis comes from `scripts/python.sh` (a venv under target/py). Without it the
//! test says SKIPPING loudly; under `CI` it installs it, and a failure to is a failure.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::*;

/// Examples per route: enough to find the parsers' edges, few enough for every test run.
const EXAMPLES_PER_ROUTE: &str = "20";

fn schemathesis() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = root.join("target/py/bin/schemathesis");
    if bin.exists() {
        return Some(bin);
    }
    if std::env::var_os("CI").is_none() {
        eprintln!(
            "SKIPPING the schemathesis run: {} is missing (run scripts/python.sh)",
            bin.display()
        );
        return None;
    }
    let st = Command::new(root.join("scripts/python.sh"))
        .status()
        .expect("scripts/python.sh runs");
    assert!(st.success(), "scripts/python.sh failed");
    assert!(
        bin.exists(),
        "scripts/python.sh did not install schemathesis"
    );
    Some(bin)
}

async fn run_against(kind: &str, bin: &std::path::Path) {
    let reg = demo_registry(kind, "north-castle-ny").await;
    let admin = token(&reg.url, "admin", "Schema Thesis", &[]);
    let server = serve(&reg.url, &[]);
    let out = Command::new(bin)
        .arg("run")
        .arg(format!("{}/api/openapi.json", server.base))
        .args(["--max-examples", EXAMPLES_PER_ROUTE])
        .args([
            "--checks",
            "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
        ])
        .arg("--header")
        .arg(format!("Authorization: Bearer {admin}"))
        // Revoking tokens at random would revoke the one the run itself uses.
        .args(["--exclude-path", "/api/tokens/{id}"])
        .args(["--seed", "9"])
        .env("NO_COLOR", "1")
        .output()
        .expect("schemathesis runs");
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "schemathesis on {kind} found problems:\n{text}"
    );
    assert!(
        !text.contains("Server error") && text.contains("passed"),
        "{kind}: {text}"
    );
}

#[tokio::test]
async fn the_api_holds_to_its_definition_on_sqlite() {
    let Some(bin) = schemathesis() else { return };
    run_against("sqlite", &bin).await;
}

#[tokio::test]
async fn the_api_holds_to_its_definition_on_postgis() {
    if pg_base().is_none() {
        return;
    }
    let Some(bin) = schemathesis() else { return };
    run_against("postgis", &bin).await;
}
