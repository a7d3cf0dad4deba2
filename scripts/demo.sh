#!/usr/bin/env bash
# The demo: installs GDAL if missing, builds ms4, loads the demo town into a fresh
# embedded registry (demo.gpkg) and serves it on http://127.0.0.1:8080/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The web page served at / (embedded in the binary).
scripts/web.sh
cargo build --release
exec target/release/ms4 demo "$@"
