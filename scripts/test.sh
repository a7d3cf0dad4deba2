#!/usr/bin/env bash
# The whole test suite: installs GDAL and PostgreSQL/PostGIS if missing, starts
# PostgreSQL, then runs every test against a real SQLite file and a real PostGIS.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --postgres
export MS4_TEST_PG="${MS4_TEST_PG:-postgres://ms4:ms4@127.0.0.1:5432/postgres}"
cargo test --all-targets "$@"
