#!/usr/bin/env bash
# Installs what ms4 needs on Debian (as root), once: GDAL, the SQLite headers sqlx links
# against, and with --postgres PostgreSQL with PostGIS, started and given a test role.
# Safe to run again: it installs only what is missing.
set -euo pipefail

# Every program the tests run is here too, since a minimal Debian has none of them:
# ogrinfo and ogr2ogr (gdal-bin), python3 (zips a fixture; the venv of scripts/python.sh
# with python3-venv), psql and su (postgresql-client, util-linux) for --postgres.
# The tests signal processes from Rust, so procps (kill, ps) is not needed. The outage test
# runs initdb and pg_ctl (postgresql) as postgres through runuser (util-linux).
need_pkgs=(libgdal-dev gdal-bin libsqlite3-dev sqlite3 libclang-dev pkg-config python3 python3-venv ca-certificates)
if [[ "${1:-}" == "--postgres" ]]; then
  need_pkgs+=(postgresql postgresql-client postgis postgresql-15-postgis-3 util-linux)
fi
# node and npm: the style test validates /styles/ms4.json with MapLibre's own validator
# (tests/style, `npm ci` from its lockfile). A machine that already has Node.js keeps it.
if ! command -v npm >/dev/null 2>&1; then
  need_pkgs+=(nodejs npm)
fi
# chromium: the web page's end-to-end flows (tests/web.rs) drive Debian's headless Chromium.
need_pkgs+=(chromium)

missing=()
for p in "${need_pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is not installed: install Rust 1.85 or newer (rustup) and run this again" >&2
  exit 1
fi

if [[ "${1:-}" == "--postgres" ]]; then
  # Without systemd (containers, CI) start the cluster directly.
  cluster=$(pg_lsclusters -h | awk 'NR==1 {print $1" "$2}')
  if [[ -z "$cluster" ]]; then
    pg_createcluster 15 main >/dev/null
    cluster="15 main"
  fi
  if ! pg_lsclusters -h | awk '{print $4}' | grep -q online; then
    pg_ctlcluster $cluster start
  fi
  for _ in $(seq 1 30); do
    su postgres -c "pg_isready -q" && break
    sleep 1
  done
  # A superuser for the tests: each test run creates (and drops) its own databases and
  # the postgis extension in them. It listens on 127.0.0.1 only.
  su postgres -c "psql -q -tc \"SELECT 1 FROM pg_roles WHERE rolname = 'ms4'\"" | grep -q 1 ||
    su postgres -c "psql -q -c \"CREATE ROLE ms4 LOGIN SUPERUSER PASSWORD 'ms4'\""
fi
