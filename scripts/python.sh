#!/usr/bin/env bash
# The Python clients the tests and the HTTP benchmark drive ms4's OGC API with (OWSLib,
# and schemathesis, which checks the API against its OpenAPI definition),
# and the peer the benchmark measures it beside (pygeoapi on PostGIS, under gunicorn), in
# a virtual environment under target/py (ignored by git, next to the other build output).
#
# Safe and quick to run again: it only installs when the pins below changed. Debian's own
# python3 is used (not whatever python3 comes first on PATH) so the venv is the same on
# every machine this project runs on.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/py
# Versions that install and work together on Debian 12's Python 3.11 (pygeoapi 0.21 is the
# last release for 3.11). The PostgreSQL provider of pygeoapi needs SQLAlchemy,
# GeoAlchemy2, psycopg2 and pygeofilter.
pins=(
  OWSLib==0.35.0
  pygeoapi==0.21.0
  psycopg2-binary==2.9.13
  SQLAlchemy==2.1.9
  GeoAlchemy2==0.20.0
  pygeofilter==0.4.0
  shapely==2.2.0
  pyproj==3.7.2
  gunicorn==27.0.1
  Flask==3.1.3
  # Property-based tests of the API definition against the running server
  # (tests/schemathesis.rs).
  schemathesis==4.32.5
)
stamp="$venv/.pins"
want="${pins[*]}"

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi

if ! dpkg -s python3-venv >/dev/null 2>&1; then
  echo "installing: python3-venv"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq python3-venv >/dev/null
fi

if [[ ! -x "$venv/bin/python" ]]; then
  /usr/bin/python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"
"$venv/bin/python" -c 'import owslib.ogcapi.features, pygeoapi.provider.sql, gunicorn, schemathesis'
echo "$want" >"$stamp"
echo "python tools ready in $venv"
