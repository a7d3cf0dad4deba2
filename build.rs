//! Build script: embeds the migrations and the web page's built assets.

// The migrations are embedded by `sqlx::migrate!`; rebuild when they change.
//
// The web page's built assets (`web/dist`, made by `scripts/web.sh`) are embedded too, so
// one binary deploys: this writes `$OUT_DIR/web_assets.rs`, a table of
// `(path, media type, include_bytes!)` that `src/http/page.rs` serves. Without a build the
// table is empty and the page answers with how to build it; under CI that is an error here,
// so a release can never ship a blank page.
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=migrations");
    println!("cargo:rerun-if-changed=web/dist");
    println!("cargo:rerun-if-env-changed=CI");
    // Read when the script runs, not when it was compiled: a target directory shared by two
    // checkouts may run a build script compiled in the other one.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dist = Path::new(&manifest).join("web/dist");
    let mut files = Vec::new();
    if dist.join("index.html").is_file() {
        walk(&dist, &mut files);
    } else if std::env::var_os("CI").is_some() {
        panic!(
            "web/dist/index.html is missing: the web page was not built (run scripts/web.sh \
             before cargo; scripts/test.sh does)"
        );
    }
    files.sort();
    let mut out = String::from("/// The page's files: path under `/`, media type, bytes.\n");
    out.push_str("pub static ASSETS: &[(&str, &str, &[u8])] = &[\n");
    for f in &files {
        // Rebuild when any built file changes (a new build replaces them all).
        println!("cargo:rerun-if-changed={}", f.display());
        let rel = f
            .strip_prefix(&dist)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        out.push_str(&format!(
            "    ({:?}, {:?}, include_bytes!({:?})),\n",
            format!("/{rel}"),
            media_type(&rel),
            f.display().to_string()
        ));
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("web_assets.rs");
    std::fs::write(target, out).unwrap();
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            println!("cargo:rerun-if-changed={}", p.display());
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn media_type(rel: &str) -> &'static str {
    match rel.rsplit('.').next().unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" | "webmanifest" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "map" => "application/json",
        "wasm" => "application/wasm",
        _ => "application/octet-stream",
    }
}
