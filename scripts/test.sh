#!/usr/bin/env bash
# The whole test suite: installs GDAL and PostgreSQL/PostGIS if missing, starts
# PostgreSQL, then runs every test against a real SQLite file and a real PostGIS.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --postgres
# The Python OGC API clients (OWSLib) tests/clients.rs drives the server with.
scripts/python.sh
# The web page (npm ci + build into web/dist), which the binary embeds and tests/web.rs drives.
scripts/web.sh
export MS4_TEST_PG="${MS4_TEST_PG:-postgres://ms4:ms4@127.0.0.1:5432/postgres}"
# Each test creates its own database; drop those left by earlier runs.
su postgres -c "psql -qAt -c \"SELECT datname FROM pg_database WHERE datname LIKE 'ms4_test_%'\"" |
  while read -r db; do su postgres -c "dropdb --if-exists '$db'"; done
# Lints as policy (Cargo.toml [lints], clippy.toml): any warning fails the run.
cargo clippy --all-targets -- -D warnings
cargo test --all-targets "$@"
